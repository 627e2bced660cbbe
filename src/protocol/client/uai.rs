//! Driving a UAI engine.
//!
//! Start-up: `uai` until `uaiok`, a `setoption name K value V` per option, `isready`
//! until `readyok`. A game: `uainewgame`, `isready`. Each move: `position startpos` (or
//! `position fen F`) with `moves` from the game's start, then `go` with the engine's
//! limits: `depth`, `nodes`, `movetime`, or the clocks (`btime`/`binc` for black `x`,
//! `wtime`/`winc` for white `o`). `info` lines give the move's depth, nodes and score;
//! other lines are skipped (and logged); `bestmove` ends the wait. A `bestmove` that is
//! not a move in the game's notation is garbage; `bestmove (none)` is no move; a move
//! that is not legal here loses the game (`illegal-move`). Lines the engine wrote
//! before a request are dropped, and a late copy of the engine's own last move (a
//! second `bestmove` to the last request, written after the next one went out) is
//! skipped, as the Gomocup client does. After any fault, an illegal move included, the
//! process is killed and started afresh.

use std::time::Instant;

use super::{
    Connection, handshake_fault,
    process::{Fault, Log},
};
use crate::{
    engine::{MoveReport, Player, PlayerError, Turn},
    game::{Game, Side},
    protocol::{
        external::ExternalEngine,
        info::{Info, InfoSummary},
    },
};

/// A UAI engine as a player of `G` (Ataxx).
pub struct UaiPlayer<G: Game> {
    conn: Connection,
    game: G::Config,
    /// The running process answered `uai` and took the options.
    ready: bool,
    /// The move the engine played last in this game (a late copy of it is skipped).
    own_last: Option<G::Move>,
}

impl<G: Game> UaiPlayer<G> {
    /// A player for `spec` on the variant `game`; its process starts with the first
    /// game.
    pub fn new(spec: &ExternalEngine, game: G::Config, log: Option<Log>) -> UaiPlayer<G> {
        UaiPlayer {
            conn: Connection::new(spec, log, "quit"),
            game,
            ready: false,
            own_last: None,
        }
    }

    /// Waits for the line `expected`, skipping every other line.
    fn wait_for(&mut self, expected: &str) -> Result<(), Fault> {
        let deadline = self.conn.handshake_deadline();
        loop {
            let line = self
                .conn
                .recv(deadline)
                .map_err(|f| handshake_fault(f, expected, &self.conn.spec))?;
            if line.trim() == expected {
                return Ok(());
            }
        }
    }

    fn handshake(&mut self) -> Result<(), Fault> {
        if self.conn.ensure_started()? {
            self.ready = false;
        }
        if !self.ready {
            self.conn.request(&["uai"])?;
            self.wait_for("uaiok")?;
            let options: Vec<(String, String)> = self
                .conn
                .spec
                .options
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            for (name, value) in options {
                self.conn
                    .send(&format!("setoption name {name} value {value}"))?;
            }
            self.ready = true;
        }
        self.conn.request(&["uainewgame", "isready"])?;
        self.wait_for("readyok")
    }

    /// The `position` command for a turn.
    fn position(&self, turn: &Turn<'_, G>) -> String {
        let start = turn.start.to_text();
        let mut line = if start == G::new(&self.game).to_text() {
            "position startpos".to_string()
        } else {
            format!("position fen {start}")
        };
        if !turn.moves.is_empty() {
            line.push_str(" moves");
            let mut pos = turn.start.clone();
            for &mv in turn.moves {
                line.push(' ');
                line.push_str(&pos.format_move(mv));
                pos.play(mv);
            }
        }
        line
    }

    /// The `go` command for a turn.
    fn go(&self, turn: &Turn<'_, G>) -> String {
        let spec = &self.conn.spec;
        let mut line = "go".to_string();
        if let Some(d) = spec.depth {
            line.push_str(&format!(" depth {d}"));
        }
        if let Some(n) = spec.nodes {
            line.push_str(&format!(" nodes {n}"));
        }
        if let Some(t) = spec.movetime_ms {
            line.push_str(&format!(" movetime {t}"));
        }
        if spec.tc.is_some()
            && let Some(clock) = turn.clock
        {
            let ms = |d: std::time::Duration| d.as_millis();
            line.push_str(&format!(
                " wtime {} btime {} winc {} binc {}",
                ms(clock.remaining[Side::Second.index()]),
                ms(clock.remaining[Side::First.index()]),
                ms(clock.increment),
                ms(clock.increment)
            ));
        }
        line
    }

    fn ask(&mut self, turn: &Turn<'_, G>) -> Result<MoveReport<G::Move>, AskError> {
        let side = turn.position.side_to_move();
        let position = self.position(turn);
        let go = self.go(turn);
        let asked = Instant::now();
        let deadline = self.conn.move_deadline(turn.clock, side);
        self.conn.request(&[position, go])?;
        let mut summary = InfoSummary::default();
        // A late copy of the last move seen (skipped once; if nothing follows it, it
        // was the answer after all).
        let mut repeated: Option<String> = None;
        loop {
            let line = match self.conn.recv(deadline) {
                Ok(line) => line,
                Err(Fault::Timeout) if repeated.is_some() => {
                    return Err(AskError::Illegal(repeated.unwrap_or_default()));
                }
                Err(f) => return Err(f.into()),
            };
            let text = line.trim();
            let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
            match word {
                "info" => {
                    if let Some(info) = Info::parse(rest, false) {
                        summary.add(&info);
                    }
                }
                "bestmove" => {
                    let Some(token) = rest.split_whitespace().next() else {
                        return Err(Fault::Garbage(text.to_string()).into());
                    };
                    if token == "(none)" {
                        return Err(AskError::NoMove);
                    }
                    let mv = turn
                        .position
                        .parse_move(token)
                        .map_err(|_| Fault::Garbage(text.to_string()))?;
                    if !turn.position.is_legal(mv) {
                        if repeated.is_none() && Some(mv) == self.own_last {
                            self.conn.note(&format!(
                                "'{text}' repeats the engine's last move: a late copy, ignored"
                            ));
                            repeated = Some(turn.position.format_move(mv));
                            continue;
                        }
                        return Err(AskError::Illegal(turn.position.format_move(mv)));
                    }
                    self.own_last = Some(mv);
                    self.conn.flush_log();
                    return Ok(summary.report(mv, asked.elapsed()));
                }
                // Banners, debug output, `id` lines: skipped (they are in the log).
                _ => {}
            }
        }
    }
}

/// One `option` line of a UAI engine's answer to `uai`: `option name N type T
/// [default D] [min A] [max B] [var V]...`.
#[derive(Clone, Debug, PartialEq)]
pub struct UaiOption {
    /// The name (it may hold spaces).
    pub name: String,
    /// `spin`, `check`, `combo`, `string` or `button`.
    pub kind: String,
    /// The default value as written.
    pub default: Option<String>,
    /// The lowest value of a `spin`.
    pub min: Option<f64>,
    /// The highest value of a `spin`.
    pub max: Option<f64>,
}

impl UaiOption {
    /// Reads an `option ...` line; None when the line is not one (or has no name or
    /// type).
    pub fn parse(line: &str) -> Option<UaiOption> {
        let mut words = line.split_whitespace();
        if words.next() != Some("option") || words.next() != Some("name") {
            return None;
        }
        const KEYS: [&str; 5] = ["type", "default", "min", "max", "var"];
        let mut fields: Vec<(&str, Vec<&str>)> = vec![("name", Vec::new())];
        for word in words {
            if KEYS.contains(&word) {
                fields.push((word, Vec::new()));
            } else if let Some(last) = fields.last_mut() {
                last.1.push(word);
            }
        }
        let get = |key: &str| {
            fields
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.join(" "))
        };
        let name = get("name").filter(|n| !n.is_empty())?;
        let kind = get("type").filter(|t| !t.is_empty())?;
        let number = |key: &str| get(key).and_then(|v| v.parse::<f64>().ok());
        Some(UaiOption {
            name,
            kind,
            default: get("default"),
            min: number("min"),
            max: number("max"),
        })
    }
}

/// Starts the engine, sends `uai` and returns the options it lists before `uaiok`, then
/// stops it. Errors say what went wrong (no `uaiok`, a crash, a program that cannot
/// start).
pub fn list_options(spec: &ExternalEngine) -> Result<Vec<UaiOption>, String> {
    let mut conn = Connection::new(spec, None, "quit");
    let fault = |f: Fault| handshake_fault(f, "uaiok", spec).reason();
    conn.ensure_started().map_err(fault)?;
    conn.request(&["uai"]).map_err(fault)?;
    let deadline = conn.handshake_deadline();
    let mut options = Vec::new();
    loop {
        let line = conn.recv(deadline).map_err(fault)?;
        if line.trim() == "uaiok" {
            return Ok(options);
        }
        if let Some(option) = UaiOption::parse(&line) {
            options.push(option);
        }
    }
}

enum AskError {
    Fault(Fault),
    NoMove,
    /// A move in the game's notation that is not legal here (the text).
    Illegal(String),
}

impl From<Fault> for AskError {
    fn from(f: Fault) -> AskError {
        AskError::Fault(f)
    }
}

impl<G: Game> Player<G> for UaiPlayer<G> {
    fn name(&self) -> &str {
        &self.conn.spec.name
    }

    fn new_game(&mut self, _seed: u64) -> Result<(), PlayerError> {
        self.own_last = None;
        self.conn.begin_game();
        self.handshake().map_err(|fault| {
            self.ready = false;
            self.conn.fail(fault)
        })
    }

    fn new_game_at(&mut self, seed: u64, start: &G) -> Result<(), PlayerError> {
        self.conn.starts_at(start.hash());
        self.new_game(seed)
    }

    fn play(&mut self, turn: &Turn<'_, G>) -> Result<MoveReport<G::Move>, PlayerError> {
        match self.ask(turn) {
            Ok(r) => Ok(r),
            Err(AskError::NoMove) => Err(PlayerError::NoMove),
            // Its state is unknown after an illegal move: it starts afresh next game.
            Err(AskError::Illegal(text)) => {
                self.ready = false;
                self.conn.restart(&format!("illegal move '{text}'"));
                Err(PlayerError::Illegal(text))
            }
            Err(AskError::Fault(fault)) => {
                self.ready = false;
                Err(self.conn.fail(fault))
            }
        }
    }

    fn set_abort_flag(&mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.conn.abort = Some(flag);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn option_lines_are_read_with_spaces_in_names_and_any_order() {
        let o = UaiOption::parse("option name Move Overhead type spin default 30 min 0 max 5000")
            .unwrap();
        assert_eq!(o.name, "Move Overhead");
        assert_eq!(o.kind, "spin");
        assert_eq!(o.default.as_deref(), Some("30"));
        assert_eq!((o.min, o.max), (Some(0.0), Some(5000.0)));
        let s = UaiOption::parse("option name search.params.x type string default 1.5").unwrap();
        assert_eq!((s.kind.as_str(), s.min), ("string", None));
        assert_eq!(s.default.as_deref(), Some("1.5"));
        assert!(UaiOption::parse("option name type spin").is_none());
        assert!(UaiOption::parse("id name x").is_none());
        assert!(UaiOption::parse("option name X").is_none());
    }

    use crate::{
        engine::{Clock, TimeControl},
        game::Ataxx,
        protocol::Protocol,
    };

    fn spec(script: &str) -> ExternalEngine {
        ExternalEngine {
            name: "fake".into(),
            protocol: Protocol::Uai,
            command: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            working_dir: None,
            options: [("Hash".to_string(), "8".to_string())].into(),
            depth: Some(3),
            nodes: Some(1000),
            movetime_ms: None,
            tc: None,
            tolerance_ms: 100,
            reply_timeout_ms: 5000,
            restart: None,
        }
    }

    #[test]
    fn commands_for_a_turn() {
        let p = UaiPlayer::<Ataxx>::new(&spec("true"), (), None);
        let start = Ataxx::default();
        let mut pos = start;
        let moves = pos.play_move_list("g2 a1a3").unwrap();
        let turn = Turn {
            start: &start,
            moves: &moves,
            position: &pos,
            clock: None,
        };
        assert_eq!(p.position(&turn), "position startpos moves g2 a1a3");
        assert_eq!(p.go(&turn), "go depth 3 nodes 1000");
        let other = Ataxx::from_fen("x5o/7/2-1-2/7/2-1-2/7/o5x o 0 1").unwrap();
        let mut s = spec("true");
        s.depth = None;
        s.nodes = None;
        s.tc = Some(TimeControl {
            base: Duration::from_secs(10),
            increment: Duration::from_millis(100),
        });
        let p = UaiPlayer::<Ataxx>::new(&s, (), None);
        let turn = Turn {
            start: &other,
            moves: &[],
            position: &other,
            clock: Some(Clock {
                remaining: [Duration::from_millis(9000), Duration::from_millis(8000)],
                increment: Duration::from_millis(100),
            }),
        };
        assert_eq!(
            p.position(&turn),
            "position fen x5o/7/2-1-2/7/2-1-2/7/o5x o 0 1"
        );
        assert_eq!(p.go(&turn), "go wtime 8000 btime 9000 winc 100 binc 100");
    }

    #[test]
    fn a_scripted_engine_plays() {
        let script = "while read l; do case \"$l\" in \
                      uai) echo 'id name fake'; echo 'option name Hash type spin'; echo uaiok;; \
                      isready) echo readyok;; \
                      go*) echo 'Welcome banner'; echo 'info depth 1 score cp 5 nodes 20'; \
                           echo 'info depth 2 score mate 1 nodes 70 pv g2'; echo 'info nodes 75'; \
                           echo 'bestmove g2 ponder a2';; \
                      quit) exit 0;; esac; done";
        let mut p = UaiPlayer::<Ataxx>::new(&spec(script), (), None);
        p.new_game(1).unwrap();
        let start = Ataxx::default();
        let turn = Turn {
            start: &start,
            moves: &[],
            position: &start,
            clock: None,
        };
        let r = p.play(&turn).unwrap();
        assert_eq!(r.mv.to_string(), "g2");
        assert_eq!((r.depth, r.nodes), (2, 75));
        assert_eq!(r.iterations, [20, 70]);
        assert_eq!(r.score, Some(crate::search::score::win_in(1)));
        p.new_game(2).unwrap();
    }

    #[test]
    fn faults_are_reasons() {
        let start = Ataxx::default();
        let turn = Turn {
            start: &start,
            moves: &[],
            position: &start,
            clock: None,
        };
        let ok = "uai) echo uaiok;; isready) echo readyok;;";
        let cases = [
            (
                "read l; echo uaiok; exit 0".to_string(),
                "crash (exit code 0)",
            ),
            (
                format!(
                    "while read l; do case \"$l\" in {ok} go*) echo 'bestmove xyz';; esac; done"
                ),
                "garbage 'bestmove xyz'",
            ),
            (
                format!("while read l; do case \"$l\" in {ok} go*) echo 'bestmove';; esac; done"),
                "garbage 'bestmove'",
            ),
            (
                format!("while read l; do case \"$l\" in {ok} go*) kill -9 $$;; esac; done"),
                "crash (signal 9)",
            ),
        ];
        for (script, reason) in cases {
            let mut p = UaiPlayer::<Ataxx>::new(&spec(&script), (), None);
            let result = p.new_game(0).and_then(|()| p.play(&turn).map(|_| ()));
            assert_eq!(result, Err(PlayerError::Failed(reason.into())), "{script}");
        }
        let mut s = spec("read l; echo 'id name silent'; while read l; do :; done");
        s.reply_timeout_ms = 100;
        let mut p = UaiPlayer::<Ataxx>::new(&s, (), None);
        let e = p.new_game(0).unwrap_err();
        assert_eq!(
            e,
            PlayerError::Failed("handshake 'no \"uaiok\" within 100 ms'".into())
        );
        let script = format!(
            "while read l; do case \"$l\" in {ok} go*) echo 'bestmove (none)';; esac; done"
        );
        let mut p = UaiPlayer::<Ataxx>::new(&spec(&script), (), None);
        p.new_game(0).unwrap();
        assert_eq!(p.play(&turn).map(|_| ()), Err(PlayerError::NoMove));
    }
}
