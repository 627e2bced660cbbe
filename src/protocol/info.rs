//! Search information as the protocols carry it: UAI `info` lines (`info depth 3 score cp
//! 12 nodes 450 nps 90000 time 5 pv b2 c3`), which served engines also print after
//! Gomocup's `MESSAGE`, and how they add up to what a [`MoveReport`] says about a move.
//!
//! Scores: a static score goes as `cp N`; a forced result as `mate N`, in moves (UAI
//! style: `mate 2` wins with the mover's second move from now, `mate -1` loses after the
//! opponent's next move). Our search scores wins in plies, so `mate` reads back as the
//! win in `2N - 1` plies or the loss in `2N` plies: exact for every win that ends on the
//! winner's own move, which is every m,n,k win.

use std::{fmt::Write as _, time::Duration};

use crate::{
    engine::MoveReport,
    search::{
        Iteration,
        score::{WIN, plies_to_end, win_in},
    },
};

/// A score as the protocols write it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProtocolScore {
    /// A static score (`cp N`).
    Cp(i32),
    /// A forced result in N moves; negative: the mover is lost (`mate N`).
    Mate(i32),
}

impl ProtocolScore {
    /// The protocol form of a search score.
    pub fn from_search(score: i32) -> ProtocolScore {
        match plies_to_end(score) {
            Some(n) => {
                let moves = n.div_ceil(2) as i32;
                ProtocolScore::Mate(if score > 0 { moves } else { -moves })
            }
            None => ProtocolScore::Cp(score),
        }
    }

    /// The search score this stands for (see the module notes on `mate`).
    pub fn to_search(self) -> i32 {
        match self {
            ProtocolScore::Cp(cp) => cp.clamp(-(WIN - 1000), WIN - 1000),
            ProtocolScore::Mate(n) if n > 0 => win_in((2 * n as usize - 1).min(255)),
            ProtocolScore::Mate(n) => -win_in((2 * n.unsigned_abs() as usize).min(255)),
        }
    }

    fn write(self, out: &mut String) {
        let _ = match self {
            ProtocolScore::Cp(cp) => write!(out, "cp {cp}"),
            ProtocolScore::Mate(n) => write!(out, "mate {n}"),
        };
    }
}

/// A search score as it comes back through a protocol: what a record of a served
/// engine holds for a move whose in-process search scored `score`.
pub fn round_trip(score: i32) -> i32 {
    ProtocolScore::from_search(score).to_search()
}

/// One parsed info line. Fields a line does not carry are `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// Depth of the iteration.
    pub depth: Option<u32>,
    /// Score for the side to move.
    pub score: Option<ProtocolScore>,
    /// Nodes searched so far for this move.
    pub nodes: Option<u64>,
    /// Time used so far, in milliseconds.
    pub time_ms: Option<u64>,
    /// Principal variation, as move texts.
    pub pv: Vec<String>,
    /// `string ...`: free text.
    pub string: Option<String>,
}

impl Info {
    /// Parses the words after `info`. UAI lets engines add keys we do not know: their
    /// values are skipped. `strict` (for Gomocup `MESSAGE` text, which is free text in
    /// general) refuses a line whose first word is not a known key, and any line with a
    /// value that is not a number where one belongs.
    pub fn parse(text: &str, strict: bool) -> Option<Info> {
        let mut info = Info::default();
        let mut words = text.split_whitespace().peekable();
        let mut first = true;
        while let Some(key) = words.next() {
            let known = matches!(
                key,
                "depth"
                    | "seldepth"
                    | "score"
                    | "nodes"
                    | "nps"
                    | "time"
                    | "pv"
                    | "string"
                    | "multipv"
                    | "hashfull"
                    | "currmove"
                    | "currmovenumber"
                    | "tbhits"
            );
            if first && strict && !known {
                return None;
            }
            first = false;
            let number = |words: &mut std::iter::Peekable<std::str::SplitWhitespace<'_>>| {
                words.next().and_then(|w| w.parse::<i64>().ok())
            };
            match key {
                "depth" => info.depth = Some(u32::try_from(number(&mut words)?).ok()?),
                "nodes" => info.nodes = Some(u64::try_from(number(&mut words)?).ok()?),
                "time" => info.time_ms = Some(u64::try_from(number(&mut words)?).ok()?),
                "seldepth" | "nps" | "multipv" | "hashfull" | "currmovenumber" | "tbhits" => {
                    number(&mut words)?;
                }
                "currmove" => {
                    words.next();
                }
                "score" => {
                    let kind = words.next()?;
                    let value = i32::try_from(number(&mut words)?).ok()?;
                    info.score = Some(match kind {
                        "cp" => ProtocolScore::Cp(value),
                        "mate" => ProtocolScore::Mate(value),
                        _ => return None,
                    });
                    while matches!(words.peek(), Some(&("lowerbound" | "upperbound"))) {
                        words.next();
                    }
                }
                "pv" => {
                    info.pv = words.by_ref().map(str::to_string).collect();
                }
                "string" => {
                    info.string = Some(words.by_ref().collect::<Vec<_>>().join(" "));
                }
                _ if strict => return None,
                // An unknown key: UAI says skip it (and we cannot know its value's size).
                _ => {}
            }
        }
        Some(info)
    }
}

/// Writes an iteration as an info line's words (without the `info` or `MESSAGE` word):
/// `depth 3 score cp 12 nodes 450 nps 90000 time 5 pv b2 c3`.
pub fn format_iteration<M>(it: &Iteration<M>, format: impl Fn(M) -> String) -> String
where
    M: Copy,
{
    let mut out = String::new();
    let _ = write!(out, "depth {} score ", it.depth);
    ProtocolScore::from_search(it.score).write(&mut out);
    let _ = write!(
        out,
        " nodes {} nps {} time {}",
        it.nodes,
        nps(it.nodes, it.time),
        it.time.as_millis()
    );
    if !it.pv.is_empty() {
        out.push_str(" pv");
        for &mv in &it.pv {
            out.push(' ');
            out.push_str(&format(mv));
        }
    }
    out
}

/// The closing words after a search whose last iteration was cut short: the total
/// nodes (those of the unfinished iteration included) and time.
pub fn format_total(nodes: u64, time: Duration) -> String {
    format!(
        "nodes {nodes} nps {} time {}",
        nps(nodes, time),
        time.as_millis()
    )
}

fn nps(nodes: u64, time: Duration) -> u64 {
    let micros = time.as_micros().max(1);
    (u128::from(nodes) * 1_000_000 / micros).min(u128::from(u64::MAX)) as u64
}

/// What the info lines of one move add up to: the depth reached, the last score, the
/// nodes (the largest count seen) and the nodes at the end of each iteration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InfoSummary {
    depth: u32,
    score: Option<i32>,
    nodes: u64,
    /// Nodes at the last line of each depth 1, 2, ...; broken off when depths skip.
    iterations: Vec<u64>,
    skipped: bool,
}

impl InfoSummary {
    /// Adds one info line.
    pub fn add(&mut self, info: &Info) {
        if let Some(n) = info.nodes {
            self.nodes = self.nodes.max(n);
        }
        if let Some(s) = info.score {
            self.score = Some(s.to_search());
        }
        if let Some(d) = info.depth {
            self.depth = self.depth.max(d);
            if let Some(n) = info.nodes {
                let len = self.iterations.len() as u32;
                if d == len && d > 0 {
                    self.iterations[d as usize - 1] = n;
                } else if d == len + 1 && !self.skipped {
                    self.iterations.push(n);
                } else if d > len + 1 {
                    self.skipped = true;
                }
            }
        }
    }

    /// A move report for `mv` with what the lines said.
    pub fn report<M>(&self, mv: M, time: Duration) -> MoveReport<M> {
        MoveReport {
            mv,
            depth: self.depth,
            nodes: self.nodes,
            time,
            score: self.score,
            pv: Vec::new(),
            iterations: if self.skipped {
                Vec::new()
            } else {
                self.iterations.clone()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::win_in;

    #[test]
    fn scores_round_trip() {
        for score in [0, 35, -120, 5000] {
            assert_eq!(ProtocolScore::from_search(score), ProtocolScore::Cp(score));
            assert_eq!(round_trip(score), score);
        }
        assert_eq!(
            ProtocolScore::from_search(win_in(1)),
            ProtocolScore::Mate(1)
        );
        assert_eq!(
            ProtocolScore::from_search(win_in(5)),
            ProtocolScore::Mate(3)
        );
        assert_eq!(
            ProtocolScore::from_search(-win_in(2)),
            ProtocolScore::Mate(-1)
        );
        assert_eq!(
            ProtocolScore::from_search(-win_in(4)),
            ProtocolScore::Mate(-2)
        );
        for plies in [1, 3, 9] {
            assert_eq!(round_trip(win_in(plies)), win_in(plies));
        }
        for plies in [2, 4, 10] {
            assert_eq!(round_trip(-win_in(plies)), -win_in(plies));
        }
        // Wins on the opponent's move (Ataxx can end so) come back one ply sooner.
        assert_eq!(round_trip(win_in(4)), win_in(3));
    }

    #[test]
    fn info_lines_parse() {
        let i = Info::parse(
            "depth 3 seldepth 7 score cp -12 upperbound nodes 450 nps 9000 time 5 pv b2 a1a3",
            false,
        )
        .unwrap();
        assert_eq!(i.depth, Some(3));
        assert_eq!(i.score, Some(ProtocolScore::Cp(-12)));
        assert_eq!(i.nodes, Some(450));
        assert_eq!(i.time_ms, Some(5));
        assert_eq!(i.pv, ["b2", "a1a3"]);
        let i = Info::parse("string hello there", false).unwrap();
        assert_eq!(i.string.as_deref(), Some("hello there"));
        // Unknown keys are skipped in UAI, refused in strict mode.
        assert!(Info::parse("depth 2 foo nodes 3", false).is_some());
        assert!(Info::parse("Depth 5-12 | Eval 35", true).is_none());
        assert!(Info::parse("depth five", true).is_none());
        assert!(Info::parse("score xx 3", false).is_none());
        let it = Iteration {
            depth: 2,
            score: win_in(3),
            nodes: 1234,
            time: Duration::from_millis(10),
            pv: vec![1u8, 2],
        };
        let line = format_iteration(&it, |m| format!("m{m}"));
        assert_eq!(
            line,
            "depth 2 score mate 2 nodes 1234 nps 123400 time 10 pv m1 m2"
        );
        assert_eq!(Info::parse(&line, true).unwrap().nodes, Some(1234));
    }

    #[test]
    fn summaries_follow_iterations() {
        let mut s = InfoSummary::default();
        for line in [
            "depth 1 score cp 5 nodes 10",
            "depth 2 score cp 7 nodes 40",
            "depth 2 score cp 9 nodes 55",
            "string thinking",
            "depth 3 score cp 4 nodes 200",
            "nodes 260 time 3",
        ] {
            s.add(&Info::parse(line, false).unwrap());
        }
        let r = s.report('m', Duration::ZERO);
        assert_eq!((r.depth, r.nodes, r.score), (3, 260, Some(4)));
        assert_eq!(r.iterations, [10, 55, 200]);
        let mut s = InfoSummary::default();
        s.add(&Info::parse("depth 4 nodes 10", false).unwrap());
        assert!(s.report((), Duration::ZERO).iterations.is_empty());
    }
}
