//! Driving a Gomocup (piskvork) engine.
//!
//! A game: `START n` (`RECTSTART w,h` for other boards; `RESTART` on a process that has
//! played before, `START` again if it answers `UNKNOWN`), then the `INFO` lines:
//! `timeout_turn`, `timeout_match`, `game_type 1`, `rule` (0 freestyle, 1 exactly five),
//! `max_depth`, `max_node`, `thread_num 1`, then the engine's `options`. Each move:
//! `INFO time_left` when a clock runs, then `BEGIN` on an empty board, `TURN x,y` when
//! the engine's board lacks only the opponent's last stone, else `BOARD` with every
//! stone (1 its own, 2 the opponent's, in move order) and `DONE`.
//!
//! While waiting, `MESSAGE`, `DEBUG`, `SUGGEST`, `ERROR` and `UNKNOWN` lines are logged
//! and the wait goes on, as the protocol says and c-gomoku-cli does (an `ERROR` is often
//! the engine's answer to an `INFO` line sent just before the request). `MESSAGE` lines
//! with search figures give the move's depth, nodes and score: arena's own (`depth ..
//! nodes ..`), Rapfi's and PentaZen's (see [`parse_message`]). An `x,y` off the board or
//! on a taken cell is an illegal move; any other line is garbage. Lines the engine
//! wrote before a request are dropped, and after any fault (an illegal move included)
//! the process is killed and started afresh.

use std::time::Instant;

use super::{Connection, handshake_fault, process::Fault};
use crate::{
    engine::{MoveReport, Player, PlayerError, Turn},
    game::{Game, Mnk, MnkConfig, MnkMove, MnkRule},
    protocol::{
        external::ExternalEngine,
        info::{InfoSummary, parse_message},
    },
};

use super::process::Log;

/// A Gomocup engine as a player of m,n,k-games.
pub struct GomocupPlayer {
    conn: Connection,
    game: MnkConfig,
    /// `START` was answered by the running process.
    started: bool,
    /// The stones on the engine's board, in order (its last move included).
    synced: Vec<MnkMove>,
}

/// What a line from the engine means while a reply is awaited.
enum Line<'a> {
    /// `MESSAGE`, `DEBUG`, `SUGGEST` or empty: skip.
    Chatter(&'a str),
    /// `ERROR ...` or `UNKNOWN ...`: skipped while a move is awaited; an answer to a
    /// handshake.
    Error,
    /// Anything else: the reply.
    Reply,
}

fn classify(line: &str) -> Line<'_> {
    let t = line.trim();
    let (word, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    match word.to_ascii_uppercase().as_str() {
        "" => Line::Chatter(""),
        "MESSAGE" => Line::Chatter(rest),
        "DEBUG" | "SUGGEST" => Line::Chatter(""),
        "ERROR" | "UNKNOWN" => Line::Error,
        _ => Line::Reply,
    }
}

impl GomocupPlayer {
    /// A player for `spec` on boards of the variant `game`; its process starts with the
    /// first game.
    pub fn new(spec: &ExternalEngine, game: MnkConfig, log: Option<Log>) -> GomocupPlayer {
        GomocupPlayer {
            conn: Connection::new(spec, log, "END"),
            game,
            started: false,
            synced: Vec::new(),
        }
    }

    /// Sends a handshake command and waits for `OK` or an error; other lines (a
    /// banner, chatter) are skipped. Returns the answer.
    fn expect_ok(&mut self, command: &str) -> Result<String, Fault> {
        self.conn.request(&[command])?;
        let deadline = self.conn.handshake_deadline();
        loop {
            let line = self
                .conn
                .recv(deadline)
                .map_err(|f| handshake_fault(f, "OK", &self.conn.spec))?;
            let text = line.trim();
            if text == "OK" || matches!(classify(text), Line::Error) {
                return Ok(text.to_string());
            }
        }
    }

    fn start_command(&self) -> String {
        if self.game.width() == self.game.height() {
            format!("START {}", self.game.width())
        } else {
            format!("RECTSTART {},{}", self.game.width(), self.game.height())
        }
    }

    fn handshake(&mut self) -> Result<(), Fault> {
        let fresh = self.conn.ensure_started()?;
        if fresh {
            self.started = false;
        }
        if self.started {
            let reply = self.expect_ok("RESTART")?;
            if reply != "OK" {
                // No RESTART in this engine: a new START does the same.
                self.started = false;
            }
        }
        if !self.started {
            let start = self.start_command();
            let reply = self.expect_ok(&start)?;
            if reply != "OK" {
                return Err(Fault::Handshake(reply));
            }
            self.started = true;
        }
        let spec = &self.conn.spec;
        let mut info = Vec::new();
        match (spec.movetime_ms, spec.tc) {
            (Some(t), _) => {
                info.push(format!("INFO timeout_turn {t}"));
                info.push("INFO timeout_match 0".to_string());
            }
            (None, Some(tc)) => {
                let base = tc.base.as_millis();
                info.push(format!("INFO timeout_turn {base}"));
                info.push(format!("INFO timeout_match {base}"));
            }
            (None, None) => info.push("INFO timeout_match 0".to_string()),
        }
        info.push("INFO game_type 1".to_string());
        let rule = match self.game.rule() {
            MnkRule::Freestyle => 0,
            MnkRule::Exact => 1,
            MnkRule::Renju => 4,
        };
        info.push(format!("INFO rule {rule}"));
        if let Some(d) = spec.depth {
            info.push(format!("INFO max_depth {d}"));
        }
        if let Some(n) = spec.nodes {
            info.push(format!("INFO max_node {n}"));
        }
        info.push("INFO thread_num 1".to_string());
        for (key, value) in &spec.options {
            info.push(format!("INFO {key} {value}"));
        }
        self.conn.send_all(&info)
    }

    /// The commands that ask for a move in `pos`.
    fn request(&self, pos: &Mnk) -> Vec<String> {
        let history = pos.history();
        if history.is_empty() {
            return vec!["BEGIN".to_string()];
        }
        let n = history.len();
        if self.synced.len() + 1 == n && history.starts_with(&self.synced) {
            return vec![format!("TURN {}", pos.format_xy(history[n - 1]))];
        }
        let mut lines = Vec::with_capacity(n + 2);
        lines.push("BOARD".to_string());
        for (i, &mv) in history.iter().enumerate() {
            // The engine moves now: stones of its colour have the parity of `n`.
            let field = if i % 2 == n % 2 { 1 } else { 2 };
            lines.push(format!("{},{field}", pos.format_xy(mv)));
        }
        lines.push("DONE".to_string());
        lines
    }

    fn ask(&mut self, turn: &Turn<'_, Mnk>) -> Result<MoveReport<MnkMove>, MoveFault> {
        let pos = turn.position;
        let side = pos.side_to_move();
        let mut request = Vec::new();
        if self.conn.spec.tc.is_some()
            && let Some(clock) = turn.clock
        {
            let left = clock.remaining[side.index()].as_millis();
            request.push(format!("INFO time_left {left}"));
        }
        let asked = Instant::now();
        let deadline = self.conn.move_deadline(turn.clock, side);
        request.extend(self.request(pos));
        self.conn.request(&request)?;
        let mut summary = InfoSummary::default();
        // The engine's own last move, repeated: the late second copy of an answer
        // (written after the request went out, so not dropped before it).
        let own_last = self.synced.last().copied();
        let mut repeated: Option<String> = None;
        loop {
            let line = match self.conn.recv(deadline) {
                Ok(line) => line,
                // It never answered but with its own last move: that was its answer.
                Err(Fault::Timeout) if repeated.is_some() => {
                    return Err(MoveFault::IllegalThenSilent(repeated.unwrap_or_default()));
                }
                Err(f) => return Err(f.into()),
            };
            let text = line.trim();
            match classify(text) {
                Line::Chatter(message) => {
                    if let Some(info) = parse_message(message) {
                        summary.add(&info);
                    }
                }
                // Logged (it is in the log already); the move may still come.
                Line::Error => {}
                Line::Reply => {
                    let Some((x, y)) = parse_xy(text) else {
                        return Err(Fault::Garbage(text.to_string()).into());
                    };
                    let Some(mv) = self.game.at(x, y) else {
                        return Err(MoveFault::Illegal(text.to_string()));
                    };
                    if !pos.is_legal(mv) {
                        if repeated.is_none() && Some(mv) == own_last {
                            self.conn.note(&format!(
                                "'{text}' repeats the engine's last move: a late copy, ignored"
                            ));
                            repeated = Some(text.to_string());
                            continue;
                        }
                        // In the game's notation, as the record writes every move.
                        return Err(MoveFault::Illegal(pos.format_move(mv)));
                    }
                    let mut synced = pos.history().to_vec();
                    synced.push(mv);
                    self.synced = synced;
                    self.conn.flush_log();
                    return Ok(summary.report(mv, asked.elapsed()));
                }
            }
        }
    }
}

/// Why a move request failed.
enum MoveFault {
    /// Talking to the engine failed.
    Fault(Fault),
    /// A well-formed `x,y` off the board or on a taken cell.
    Illegal(String),
    /// Only its own last move again, then nothing until the deadline (killed).
    IllegalThenSilent(String),
}

impl From<Fault> for MoveFault {
    fn from(f: Fault) -> MoveFault {
        MoveFault::Fault(f)
    }
}

fn parse_xy(text: &str) -> Option<(i32, i32)> {
    let (x, y) = text.split_once(',')?;
    Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
}

impl Player<Mnk> for GomocupPlayer {
    fn name(&self) -> &str {
        &self.conn.spec.name
    }

    fn new_game(&mut self, _seed: u64) -> Result<(), PlayerError> {
        self.synced.clear();
        self.conn.begin_game();
        match self.handshake() {
            Ok(()) => Ok(()),
            Err(fault) => {
                self.started = false;
                Err(self.conn.fail(fault))
            }
        }
    }

    fn new_game_at(&mut self, seed: u64, start: &Mnk) -> Result<(), PlayerError> {
        self.conn.starts_at(start.hash());
        self.new_game(seed)
    }

    fn play(&mut self, turn: &Turn<'_, Mnk>) -> Result<MoveReport<MnkMove>, PlayerError> {
        match self.ask(turn) {
            Ok(report) => Ok(report),
            // Its state is unknown after an illegal move: it starts afresh next game.
            Err(MoveFault::Illegal(text)) => {
                self.started = false;
                self.conn.restart(&format!("illegal move '{text}'"));
                Err(PlayerError::Illegal(text))
            }
            Err(MoveFault::IllegalThenSilent(text)) => {
                self.started = false;
                let _ = self.conn.fail(Fault::Timeout);
                Err(PlayerError::Illegal(text))
            }
            Err(MoveFault::Fault(fault)) => {
                self.started = false;
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
    use super::*;
    use crate::protocol::Protocol;

    fn spec(script: &str) -> ExternalEngine {
        ExternalEngine {
            name: "fake".into(),
            protocol: Protocol::Gomocup,
            command: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            working_dir: None,
            options: [("evaluate".to_string(), "0".to_string())].into(),
            depth: Some(2),
            nodes: None,
            movetime_ms: None,
            tc: None,
            tolerance_ms: 100,
            reply_timeout_ms: 5000,
            restart: None,
        }
    }

    fn turn<'a>(start: &'a Mnk, pos: &'a Mnk) -> Turn<'a, Mnk> {
        Turn {
            start,
            moves: &[],
            position: pos,
            clock: None,
        }
    }

    #[test]
    fn requests_follow_the_board() {
        let game = MnkConfig::new(15, 15, 5, MnkRule::Freestyle).unwrap();
        let mut p = GomocupPlayer::new(&spec("true"), game, None);
        let mut pos = Mnk::new(&game);
        assert_eq!(p.request(&pos), ["BEGIN"]);
        pos.play_move_list("7,7 8,8 9,9").unwrap();
        assert_eq!(
            p.request(&pos),
            ["BOARD", "7,7,2", "8,8,1", "9,9,2", "DONE"]
        );
        p.synced = pos.history()[..2].to_vec();
        assert_eq!(p.request(&pos), ["TURN 9,9"]);
    }

    #[test]
    fn renju_is_sent_as_rule_4() {
        // Plays 7,7 when it was told rule 4, else 0,0.
        let script = "read s; echo OK; r=0; \
                      while read l; do case \"$l\" in \
                      'INFO rule 4') r=4;; \
                      BEGIN) if [ $r = 4 ]; then echo 7,7; else echo 0,0; fi;; \
                      END) exit 0;; esac; done";
        for (game, want) in [(MnkConfig::renju(), "7,7"), (MnkConfig::gomoku(), "0,0")] {
            let mut p = GomocupPlayer::new(&spec(script), game, None);
            p.new_game(0).unwrap();
            let start = Mnk::new(&game);
            let r = p.play(&turn(&start, &start)).unwrap();
            assert_eq!(start.format_xy(r.mv), want, "{game:?}");
        }
    }

    #[test]
    fn a_scripted_engine_plays_and_reports() {
        // Answers START, skips chatter, reports an info MESSAGE, plays 7,7 then 1,1.
        let script = "read s; echo OK; \
                      while read l; do case \"$l\" in \
                      BEGIN) echo 'MESSAGE hello'; echo 'DEBUG x'; \
                             echo 'MESSAGE depth 1 score cp 3 nodes 10'; \
                             echo 'MESSAGE depth 2 score cp 5 nodes 42 pv 7,7'; echo 7,7;; \
                      TURN*) echo 1,1;; \
                      BOARD) ;; \
                      END) exit 0;; esac; done";
        let game = MnkConfig::new(15, 15, 5, MnkRule::Freestyle).unwrap();
        let mut p = GomocupPlayer::new(&spec(script), game, None);
        p.new_game(0).unwrap();
        let start = Mnk::new(&game);
        let r = p.play(&turn(&start, &start)).unwrap();
        assert_eq!(start.format_xy(r.mv), "7,7");
        assert_eq!((r.depth, r.nodes, r.score), (2, 42, Some(5)));
        assert_eq!(r.iterations, [10, 42]);
        let mut pos = start.clone();
        pos.play_move_list("7,7 8,8").unwrap();
        let r = p.play(&turn(&start, &pos)).unwrap();
        assert_eq!(pos.format_xy(r.mv), "1,1");
        assert_eq!(r.nodes, 0, "no info: nothing reported");
    }

    #[test]
    fn faults_are_reasons() {
        let game = MnkConfig::new(15, 15, 5, MnkRule::Freestyle).unwrap();
        let start = Mnk::new(&game);
        let cases = [
            ("read s; echo 'ERROR no'", "handshake 'ERROR no'"),
            ("read s; echo OK; read l; exit 4", "crash (exit code 4)"),
            ("read s; echo OK; while read l; do :; done", "timeout"),
            (
                "read s; echo OK; while read l; do [ \"$l\" = BEGIN ] && echo hello; done",
                "garbage 'hello'",
            ),
            (
                "read s; echo OK; while read l; do [ \"$l\" = BEGIN ] && echo 'UNKNOWN x'; done",
                "timeout",
            ),
        ];
        for (script, reason) in cases {
            let mut s = spec(script);
            s.movetime_ms = Some(50);
            s.depth = None;
            let mut p = GomocupPlayer::new(&s, game, None);
            let result = p
                .new_game(0)
                .and_then(|()| p.play(&turn(&start, &start)).map(|_| ()));
            assert_eq!(result, Err(PlayerError::Failed(reason.into())), "{script}");
        }
        let script = "read s; echo OK; while read l; do [ \"$l\" = BEGIN ] && echo 20,3; done";
        let mut p = GomocupPlayer::new(&spec(script), game, None);
        p.new_game(0).unwrap();
        let r = p.play(&turn(&start, &start)).map(|_| ());
        assert_eq!(r, Err(PlayerError::Illegal("20,3".into())));
    }

    /// Regression: an ERROR line while the move was awaited lost the game ("refused"),
    /// and the engine, not restarted, had its late move read as the answer to RESTART.
    #[test]
    fn error_lines_are_skipped_and_every_fault_restarts_the_engine() {
        let game = MnkConfig::new(9, 9, 5, MnkRule::Freestyle).unwrap();
        let start = Mnk::new(&game);
        let script = "while read l; do case \"$l\" in START*|RESTART) echo OK;; \
                      BEGIN) echo 'ERROR unknown INFO key'; echo 'UNKNOWN x'; echo 4,4;; \
                      END) exit 0;; esac; done";
        let mut p = GomocupPlayer::new(&spec(script), game, None);
        p.new_game(0).unwrap();
        let r = p.play(&turn(&start, &start)).unwrap();
        assert_eq!(start.format_xy(r.mv), "4,4");
        // Garbage first, the move late: after the fault the process starts afresh, so
        // the late move cannot answer the next game's RESTART.
        let dir = tempfile::tempdir().unwrap();
        let count = dir.path().join("starts");
        let script = format!(
            "echo x >> '{}'; while read l; do case \"$l\" in START*|RESTART) echo OK;; \
             BEGIN) echo zzz; sleep 0.2; echo 4,4;; END) exit 0;; esac; done",
            count.display()
        );
        let mut p = GomocupPlayer::new(&spec(&script), game, None);
        p.new_game(0).unwrap();
        let e = p.play(&turn(&start, &start)).unwrap_err();
        assert_eq!(e, PlayerError::Failed("garbage 'zzz'".into()));
        p.new_game(0).unwrap();
        assert!(p.play(&turn(&start, &start)).is_err(), "zzz again");
        drop(p);
        let starts = std::fs::read_to_string(&count).unwrap();
        assert_eq!(starts.lines().count(), 2, "a fresh process after the fault");
    }

    /// Regression: the second copy of a move, written late, answered the next request.
    #[test]
    fn a_late_copy_of_the_last_move_is_not_the_next_answer() {
        let game = MnkConfig::new(9, 9, 5, MnkRule::Freestyle).unwrap();
        let start = Mnk::new(&game);
        // The copy of 4,4 comes after the TURN that asks for the next move.
        let script = "while read l; do case \"$l\" in START*) echo OK;; \
                      BEGIN) echo 4,4;; TURN*) echo 4,4; echo 5,5;; END) exit 0;; esac; done";
        let mut p = GomocupPlayer::new(&spec(script), game, None);
        p.new_game(0).unwrap();
        p.play(&turn(&start, &start)).unwrap();
        let mut pos = start.clone();
        pos.play_move_list("4,4 0,0").unwrap();
        let r = p.play(&turn(&start, &pos)).unwrap();
        assert_eq!(pos.format_xy(r.mv), "5,5");
    }

    #[test]
    fn restart_falls_back_to_start_and_crashes_restart_the_process() {
        // No RESTART: answers UNKNOWN, then OK to the second START; counts its starts
        // in a file so the test sees one process serve two games.
        let dir = tempfile::tempdir().unwrap();
        let count = dir.path().join("starts");
        let script = format!(
            "echo x >> '{}'; while read l; do case \"$l\" in START*) echo OK;; \
             RESTART) echo UNKNOWN;; BEGIN) echo 7,7;; END) exit 0;; esac; done",
            count.display()
        );
        let game = MnkConfig::new(9, 9, 5, MnkRule::Freestyle).unwrap();
        let start = Mnk::new(&game);
        let mut p = GomocupPlayer::new(&spec(&script), game, None);
        for _ in 0..2 {
            p.new_game(0).unwrap();
            p.play(&turn(&start, &start)).unwrap();
        }
        drop(p);
        let starts = std::fs::read_to_string(&count).unwrap();
        assert_eq!(starts.lines().count(), 1, "one process for both games");
        // A process that died between games is started again.
        let script = format!(
            "echo x >> '{}'; read s; echo OK; \
             while read l; do [ \"$l\" = BEGIN ] && {{ echo 7,7; exit 0; }}; done",
            count.display()
        );
        std::fs::remove_file(&count).unwrap();
        let mut p = GomocupPlayer::new(&spec(&script), game, None);
        p.new_game(0).unwrap();
        p.play(&turn(&start, &start)).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
        p.new_game(0).unwrap();
        drop(p);
        let starts = std::fs::read_to_string(&count).unwrap();
        assert_eq!(starts.lines().count(), 2);
    }

    #[test]
    fn restart_decides_when_a_process_starts_afresh() {
        // Answers START and RESTART; writes "start" when it starts and "restart" on
        // RESTART, so the test sees which processes served which games.
        let dir = tempfile::tempdir().unwrap();
        let seen = dir.path().join("seen");
        let script = format!(
            "echo start >> '{0}'; while read l; do case \"$l\" in START*) echo OK;; \
             RESTART) echo restart >> '{0}'; echo OK;; BEGIN|DONE|TURN*) echo 7,7;; END) exit 0;; \
             esac; done",
            seen.display()
        );
        let game = MnkConfig::new(9, 9, 5, MnkRule::Freestyle).unwrap();
        let empty = Mnk::new(&game);
        let mut other = empty.clone();
        other.play(other.parse_move("a1").unwrap());
        let (a, b) = (&empty, &other);
        for (restart, starts, expected) in [
            (Some(false), [a, a, a, a], "start restart restart restart"),
            (Some(true), [a, b, a, b], "start start start start"),
            // Unset: a fresh process only where a game begins from the position the
            // process's last game began from.
            (None, [a, a, b, a], "start start restart restart"),
            (None, [b, a, a, a], "start restart start start"),
        ] {
            let mut engine = spec(&script);
            engine.restart = restart;
            let mut p = GomocupPlayer::new(&engine, game, None);
            for start in starts {
                p.new_game_at(0, start).unwrap();
                p.play(&turn(start, start)).unwrap();
            }
            drop(p);
            let text = std::fs::read_to_string(&seen).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.join(" "), expected, "restart = {restart:?}");
            std::fs::remove_file(&seen).unwrap();
        }
    }
}
