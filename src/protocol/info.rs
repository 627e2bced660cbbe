//! Search information as the protocols carry it: UAI `info` lines (`info depth 3 score cp
//! 12 nodes 450 nps 90000 time 5 pv b2 c3`), which served engines also print after
//! Gomocup's `MESSAGE`; the figures Gomocup engines print in their own words
//! ([`parse_message`]: Rapfi's `Depth 26-2 | Eval 52 | Time 120ms | Node 17K`,
//! PentaZen's `dep 11-16 ev 160 nd 241k tm 184`); and how they add up to what a
//! [`MoveReport`] says about a move. A move whose engine reported nothing has depth 0
//! and 0 nodes, which the statistics read as "not reported" (a search visits at least
//! its root).
//!
//! Scores: a static score goes as `cp N` (UAI) or `eval N` (Gomocup `MESSAGE` lines: the
//! evaluation's units, which for gomoku are a table's weights, not centipawns); a
//! forced result as `mate N`, in moves (UAI
//! style: `mate 2` wins with the mover's second move from now, `mate -1` loses after the
//! opponent's next move). Our search scores wins in plies, so `mate` reads back as the
//! win in `2N - 1` plies or the loss in `2N` plies: exact for every win that ends on the
//! winner's own move, which is every m,n,k win.

use std::{fmt::Write as _, time::Duration};

use crate::{
    engine::MoveReport,
    search::{
        Iteration,
        score::{MAX_PLY, WIN, plies_to_end, win_in},
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

    fn write(self, units: ScoreUnits, out: &mut String) {
        let word = match units {
            ScoreUnits::Cp => "cp",
            ScoreUnits::Eval => "eval",
        };
        let _ = match self {
            ProtocolScore::Cp(cp) => write!(out, "{word} {cp}"),
            ProtocolScore::Mate(n) => write!(out, "mate {n}"),
        };
    }
}

/// The word before a static score: what its number means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreUnits {
    /// `cp`, as UAI requires (an Ataxx table's `material` is a stone: 100 is usual).
    Cp,
    /// `eval`: the evaluation's own units (a gomoku table's weights), as the records
    /// hold scores; written in Gomocup `MESSAGE` lines, which are free text.
    Eval,
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
                    info.score = Some(match kind.parse::<i64>() {
                        // `score 48` without a unit, as Zataxx and ataxx.cpp print it: the
                        // engine's own units, read as centi-units.
                        Ok(bare) => ProtocolScore::Cp(i32::try_from(bare).ok()?),
                        Err(_) => {
                            let value = i32::try_from(number(&mut words)?).ok()?;
                            match kind {
                                "cp" | "eval" => ProtocolScore::Cp(value),
                                "mate" => ProtocolScore::Mate(value),
                                _ => return None,
                            }
                        }
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

/// The search figures in the text of a Gomocup `MESSAGE` line, or None when it is free
/// text. Read: arena's own (UAI words, see [`Info::parse`]); `key value` pairs as Rapfi
/// (`Depth 26-2 | Eval 52 | Time 120ms | Node 17K | Speed 140K | PV h8 i9`) and
/// PentaZen (`dep 11-16 ev 160 nd 241k tm 184 sp 112`) print them, keys in any case,
/// `|` optional: `depth`/`dep` (the nominal depth before a `-`), `node`/`nodes`/`nd`
/// (with `K`, `M`, `G` suffixes), `eval`/`ev`/`score` (centi-units; PentaZen's `+v5` and
/// Rapfi's `+M5`, a win in 5 plies, and `-v4` / `-M4`, a loss in 4, are forced results
/// in moves), `time`/`tm` (milliseconds, `ms` or `s` suffix). The first key must be a
/// depth, a node count or Rapfi's leading `Speed`, and a depth or a node count must be
/// read, so a sentence is never taken for figures.
pub fn parse_message(text: &str) -> Option<Info> {
    if text.trim().is_empty() {
        return None;
    }
    if let Some(info) = Info::parse(text, true) {
        return Some(info);
    }
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '|')
        .filter(|w| !w.is_empty())
        .collect();
    let key = |w: &str| w.trim_end_matches(':').to_ascii_lowercase();
    let first = key(words.first()?);
    // Rapfi 0.43 begins with its speed: `Speed 853K | Depth 8-7 | Eval +M11 | Node 2560`.
    if !matches!(
        first.as_str(),
        "depth" | "dep" | "node" | "nodes" | "nd" | "speed"
    ) {
        return None;
    }
    let mut info = Info::default();
    let mut i = 0;
    while i + 1 < words.len() {
        let value = words[i + 1];
        let known = match key(words[i]).as_str() {
            "depth" | "dep" => {
                let nominal = value.split(['-', '/']).next().unwrap_or(value);
                info.depth = nominal.parse().ok();
                info.depth.is_some()
            }
            "node" | "nodes" | "nd" => {
                info.nodes = count(value);
                info.nodes.is_some()
            }
            "eval" | "ev" | "score" => {
                if let Some(mate) = plies_to_result(value) {
                    info.score = Some(mate);
                } else if let Ok(cp) = value.trim_start_matches('+').parse::<i32>() {
                    info.score = Some(ProtocolScore::Cp(cp));
                }
                true
            }
            "time" | "tm" => {
                info.time_ms = millis(value);
                true
            }
            _ => false,
        };
        i += if known { 2 } else { 1 };
    }
    (info.depth.is_some() || info.nodes.is_some()).then_some(info)
}

/// Forced results in plies, PentaZen's `+vN` (a win in N plies) and `-vN` (a loss in N)
/// and Rapfi's `+MN` and `-MN`, as the search score of that result in the protocol's
/// form (as arena's own search reports one).
fn plies_to_result(text: &str) -> Option<ProtocolScore> {
    let (win, rest) = match text.as_bytes().first()? {
        b'+' => (true, &text[1..]),
        b'-' => (false, &text[1..]),
        _ => return None,
    };
    let plies: usize = rest.strip_prefix(['v', 'V', 'M'])?.parse().ok()?;
    if plies == 0 {
        return None;
    }
    let score = win_in(plies.min(MAX_PLY - 1));
    Some(ProtocolScore::from_search(if win { score } else { -score }))
}

/// A count with an optional SI suffix: `17K`, `241k`, `1.2M`, `3G`, `450`.
fn count(text: &str) -> Option<u64> {
    let t = text.trim().trim_end_matches(',');
    let (number, scale) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 1e3),
        'm' | 'M' => (&t[..t.len() - 1], 1e6),
        'g' | 'G' | 'b' | 'B' => (&t[..t.len() - 1], 1e9),
        _ => (t, 1.0),
    };
    if scale == 1.0 {
        return number.parse().ok();
    }
    let v: f64 = number.parse().ok()?;
    (v.is_finite() && v >= 0.0 && v * scale < 1.8e19).then(|| (v * scale).round() as u64)
}

/// Milliseconds from `120`, `120ms` or `1.5s`.
fn millis(text: &str) -> Option<u64> {
    let t = text.trim();
    if let Some(ms) = t.strip_suffix("ms") {
        return ms.parse().ok();
    }
    if let Some(secs) = t.strip_suffix('s') {
        let v: f64 = secs.parse().ok()?;
        return (v.is_finite() && v >= 0.0).then(|| (v * 1000.0).round() as u64);
    }
    t.parse().ok()
}

/// Writes an iteration as an info line's words (without the `info` or `MESSAGE` word):
/// `depth 3 score cp 12 nodes 450 nps 90000 time 5 pv b2 c3` (`score eval 12` with
/// [`ScoreUnits::Eval`]).
pub fn format_iteration<M>(
    it: &Iteration<M>,
    units: ScoreUnits,
    format: impl Fn(M) -> String,
) -> String
where
    M: Copy,
{
    let mut out = String::new();
    let _ = write!(out, "depth {} score ", it.depth);
    ProtocolScore::from_search(it.score).write(units, &mut out);
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
        // A score without a unit (Zataxx, ataxx.cpp) is the engine's centi-units, and the
        // rest of the line is still read.
        let i = Info::parse(
            "depth 12 seldepth 15 score -48 time 89 nodes 242474 nps 2724426 pv b6",
            false,
        )
        .unwrap();
        assert_eq!(i.score, Some(ProtocolScore::Cp(-48)));
        assert_eq!(
            (i.depth, i.nodes, i.time_ms),
            (Some(12), Some(242474), Some(89))
        );
        assert!(Info::parse("depth 3 score 99999999999 nodes 5", false).is_none());
        let it = Iteration {
            depth: 2,
            score: win_in(3),
            nodes: 1234,
            time: Duration::from_millis(10),
            pv: vec![1u8, 2],
        };
        let line = format_iteration(&it, ScoreUnits::Cp, |m| format!("m{m}"));
        assert_eq!(
            line,
            "depth 2 score mate 2 nodes 1234 nps 123400 time 10 pv m1 m2"
        );
        assert_eq!(Info::parse(&line, true).unwrap().nodes, Some(1234));
        // Gomocup lines say what a static score is: the evaluation's units.
        let it = Iteration { score: 7512, ..it };
        let line = format_iteration(&it, ScoreUnits::Eval, |m| format!("m{m}"));
        assert!(line.starts_with("depth 2 score eval 7512 nodes"), "{line}");
        assert_eq!(
            Info::parse(&line, true).unwrap().score,
            Some(ProtocolScore::Cp(7512))
        );
    }

    /// Regression: outside engines' own figures were read as 0 nodes and depth 0.
    #[test]
    fn outside_engines_figures() {
        let rapfi =
            parse_message("Depth 26-2 | Eval 52 | Time 1234ms | Node 17K | Speed 14K").unwrap();
        assert_eq!(
            (rapfi.depth, rapfi.nodes, rapfi.score, rapfi.time_ms),
            (
                Some(26),
                Some(17_000),
                Some(ProtocolScore::Cp(52)),
                Some(1234)
            )
        );
        let pentazen = parse_message("dep 11-16 ev 160 nd 241k tm 184 sp 112").unwrap();
        assert_eq!(
            (
                pentazen.depth,
                pentazen.nodes,
                pentazen.score,
                pentazen.time_ms
            ),
            (
                Some(11),
                Some(241_000),
                Some(ProtocolScore::Cp(160)),
                Some(184)
            )
        );
        // PentaZen's forced results: a win in 5 plies is a mate in 3 moves, a loss in 4
        // plies a mate in -2; `+v0` and a bare `v5` are no score.
        for (text, want) in [
            (
                "dep 9-20 ev +v5 nd 1m tm 40 sp 25",
                Some(ProtocolScore::Mate(3)),
            ),
            ("dep 7 ev -v4 nd 10k", Some(ProtocolScore::Mate(-2))),
            ("dep 7 ev -v1 nd 10k", Some(ProtocolScore::Mate(-1))),
            ("dep 7 ev +v0 nd 10k", None),
            ("dep 7 ev v5 nd 10k", None),
        ] {
            let info = parse_message(text).unwrap();
            assert_eq!(info.score, want, "{text}");
            assert!(info.nodes.is_some(), "{text}");
        }
        let big = parse_message("Depth 9 | Node 1.5M | Eval -30").unwrap();
        assert_eq!(
            (big.nodes, big.score),
            (Some(1_500_000), Some(ProtocolScore::Cp(-30)))
        );
        let ours = parse_message("depth 2 score cp 5 nodes 42 pv 7,7").unwrap();
        assert_eq!((ours.depth, ours.nodes), (Some(2), Some(42)));
        // Rapfi's forced results are plies too, and Rapfi 0.43 puts its speed first.
        let mate = parse_message("Depth 12 | Eval +M5 | Node 900").unwrap();
        assert_eq!(
            (mate.depth, mate.score, mate.nodes),
            (Some(12), Some(ProtocolScore::Mate(3)), Some(900))
        );
        let rapfi =
            parse_message("Speed 853K | Depth 8-7 | Eval -M4 | Node 2560 | Time 3ms").unwrap();
        assert_eq!(
            (rapfi.depth, rapfi.score, rapfi.nodes, rapfi.time_ms),
            (Some(8), Some(ProtocolScore::Mate(-2)), Some(2560), Some(3))
        );
        // A mate score in words the parser does not know is no number: the rest counts.
        let odd = parse_message("Depth 12 | Eval #5 | Node 900").unwrap();
        assert_eq!(
            (odd.depth, odd.score, odd.nodes),
            (Some(12), None, Some(900))
        );
        assert!(parse_message("Speed is what counts").is_none());
        for free in [
            "PentaZen 0.4.17 by Sun Yuliang",
            "hello",
            "Node server ready",
            "",
        ] {
            assert!(parse_message(free).is_none(), "{free}");
        }
        assert_eq!(count("3G"), Some(3_000_000_000));
        assert_eq!(count("x"), None);
        assert_eq!(millis("1.5s"), Some(1500));
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
