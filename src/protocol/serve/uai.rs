//! Serving an Ataxx engine over UAI (the UCI dialect cuteataxx and the Ataxx engines
//! speak).
//!
//! `uai` lists `Hash` (at most what this machine can hold) and every numeric parameter
//! an Ataxx engine uses as options (`search.depth`, `search.params.lmr_divisor`,
//! `table.material`, ...: integers as `spin` with the range sensible to tune them in,
//! fractions as `string`; see [`super::option_lines`]), settable with `setoption`; a
//! value outside the parameter's validity range is refused with `info string error:
//! ...` and leaves the engine as it was. `go` searches on its own
//! thread, printing an `info` line per completed iteration (and a closing `info nodes
//! ..` when the last one was cut short), then `bestmove`; `stop` (or the end of input)
//! ends it at once, `quit` without a move, and `isready` answers while it runs; the other
//! commands sent meanwhile wait for it, in order. `go` with no limits plays by the
//! config's limits (none, `search.depth = 0`: until `stop`); with `depth`, `nodes`,
//! `movetime` or clocks (`btime`/`wtime` for black `x`/white `o`, `binc`/`winc`,
//! `movestogo`) it plays by those alone; `go infinite` searches until `stop`.

use std::{
    io::{BufRead, Write},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    thread::{Scope, ScopedJoinHandle},
    time::Duration,
};

use super::{Event, Inbox, Output, ServeError, check, split_command};
use crate::{
    config,
    engine::{Engine, EngineConfig},
    game::{Ataxx, Game, GameSpec, MoveError, PositionError, Side},
    protocol::info::{ScoreUnits, format_iteration, format_total},
    search::{
        Limits,
        time::{clock_limits, engine_movetime_limits},
        tt,
    },
};

/// Serves `config` (an Ataxx engine) over UAI: reads commands from `input` until `quit`
/// or the end of input (which stops a search), writes replies to `output` (and both to
/// `log`).
pub fn serve<R: BufRead + Send + 'static, W: Write + Send>(
    config: &EngineConfig,
    input: R,
    output: W,
    log: Option<Box<dyn Write + Send>>,
) -> Result<(), ServeError> {
    if config.game != GameSpec::Ataxx {
        return Err(ServeError::Config(format!(
            "engine '{}' plays {}: the uai protocol serves Ataxx engines (use --protocol gomocup)",
            config.name, config.game
        )));
    }
    let out = Output::new(output, log);
    let mut state = State {
        config: config.clone(),
        engine: None,
        position: Ok(Ataxx::default()),
        abort: Arc::new(AtomicBool::new(false)),
    };
    std::thread::scope(|s| -> Result<(), ServeError> {
        let mut job: Option<Job<'_>> = None;
        let mut inbox = Inbox::new(input);
        let result = commands(s, &out, &mut state, &mut job, &mut inbox);
        // However the loop ended (`quit`, the end of input, an error), a search still
        // running is stopped, not waited for: the manager is gone.
        if let Some(j) = job.take() {
            state.abort.store(true, Ordering::Relaxed);
            state.finish(j);
        }
        result?;
        check(&out)
    })
}

/// The loop: commands until `quit` or the end of input.
fn commands<'scope, W: Write + Send>(
    s: &'scope Scope<'scope, '_>,
    out: &'scope Output<W>,
    state: &mut State,
    job: &mut Option<Job<'scope>>,
    inbox: &mut Inbox,
) -> Result<(), ServeError> {
    loop {
        let line = match inbox.next(job.is_none(), out) {
            Event::Line(line) => line,
            Event::SearchDone(id) => {
                if job.as_ref().is_some_and(|j| j.id == id)
                    && let Some(j) = job.take()
                {
                    state.finish(j);
                }
                continue;
            }
            Event::End => return Ok(()),
            Event::Failed(e) => return Err(e.into()),
        };
        let (cmd, rest) = split_command(&line);
        let cmd = cmd.to_ascii_lowercase();
        if cmd.is_empty() {
            continue;
        }
        match cmd.as_str() {
            // Answered at once, even during a search. Between searches it is the
            // time to build the engine (tables, evaluator), off the clock.
            "isready" => {
                if job.is_none() && state.engine.is_none() {
                    match state.take_engine() {
                        Ok(engine) => state.engine = Some(engine),
                        Err(e) => out.line(&format!("info string error: {e}")),
                    }
                }
                out.line("readyok");
                continue;
            }
            "stop" => {
                if let Some(j) = job.take() {
                    state.abort.store(true, Ordering::Relaxed);
                    state.finish(j);
                }
                continue;
            }
            "quit" => {
                if let Some(j) = job.as_ref() {
                    j.silent.store(true, Ordering::Relaxed);
                }
                return Ok(());
            }
            "ponderhit" | "debug" | "register" => continue,
            // Everything else waits for a running search, which goes on meanwhile
            // (the loop reads on: a `stop` or `quit` behind it is seen at once).
            _ if job.is_some() => {
                inbox.defer(line);
                continue;
            }
            _ => {}
        }
        match cmd.as_str() {
            "uai" => state.identify(out),
            "uainewgame" => {
                if let Some(engine) = &mut state.engine {
                    engine.searcher().new_game(0);
                }
                state.position = Ok(Ataxx::default());
            }
            "setoption" => {
                if let Err(e) = state.set_option(rest) {
                    out.line(&format!("info string error: {e}"));
                }
            }
            "position" => {
                state.position = parse_position(rest);
                if let Err(e) = &state.position {
                    out.line(&format!("info string error: {e}"));
                }
            }
            "go" => match parse_go(rest) {
                Ok(go) => *job = state.start_search(s, out, &go, inbox),
                Err(e) => {
                    out.line(&format!("info string error: {e}"));
                    out.line("bestmove 0000");
                }
            },
            _ => out.line(&format!("info string unknown command '{cmd}'")),
        }
        check(out)?;
    }
}

/// A search running on its own thread; it hands the engine back.
struct Job<'scope> {
    handle: ScopedJoinHandle<'scope, Engine<Ataxx>>,
    silent: Arc<AtomicBool>,
    /// Its number (see [`Inbox::search`]).
    id: u64,
}

struct State {
    config: EngineConfig,
    engine: Option<Engine<Ataxx>>,
    /// The position of the last `position` command, or why it was refused.
    position: Result<Ataxx, CommandError>,
    abort: Arc<AtomicBool>,
}

/// The limits of a `go` command.
#[derive(Debug, Default, PartialEq, Eq)]
struct Go {
    time: [Option<u64>; 2],
    inc: [Option<u64>; 2],
    moves_to_go: Option<u32>,
    depth: Option<u32>,
    nodes: Option<u64>,
    movetime: Option<u64>,
    infinite: bool,
}

/// Why a UAI command is refused (answered with `info string error: ...`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum CommandError {
    /// `go KEY` without its number.
    #[error("go {0}: a value is missing")]
    MissingValue(String),
    /// `go KEY VALUE` with a value that is no number.
    #[error("go {key}: '{value}' is not a number")]
    NotANumber {
        /// The limit.
        key: String,
        /// Its value as sent.
        value: String,
    },
    /// `position fen ...` with a FEN that cannot be read.
    #[error("position: {0}")]
    Fen(PositionError),
    /// `position` without `startpos` or `fen`.
    #[error("position: expected 'startpos' or 'fen <fen>', got '{0}'")]
    Setup(String),
    /// A move of `position ... moves` that cannot be played.
    #[error("position: move {number}: {error}")]
    Move {
        /// Which move, from 1.
        number: usize,
        /// Why it cannot be played.
        error: MoveError,
    },
    /// `setoption` without `name`.
    #[error("setoption: expected 'name X value Y', got '{0}'")]
    SetoptionShape(String),
    /// An option the engine does not list.
    #[error("setoption: no option '{0}'")]
    NoOption(String),
    /// A value that cannot be read.
    #[error(transparent)]
    Assignment(#[from] config::AssignmentError),
    /// A value the engine refuses.
    #[error("setoption {name}: {error}")]
    Refused {
        /// The option.
        name: String,
        /// Why it is refused.
        error: String,
    },
}

fn parse_go(rest: &str) -> Result<Go, CommandError> {
    let mut go = Go::default();
    let mut words = rest.split_whitespace();
    while let Some(key) = words.next() {
        let mut value = || {
            let v = words
                .next()
                .ok_or_else(|| CommandError::MissingValue(key.to_string()))?;
            // Clocks can go negative in some GUIs: count that as no time left.
            v.parse::<i64>()
                .map(|n| n.max(0) as u64)
                .map_err(|_| CommandError::NotANumber {
                    key: key.to_string(),
                    value: v.to_string(),
                })
        };
        match key {
            "btime" => go.time[Side::First.index()] = Some(value()?),
            "wtime" => go.time[Side::Second.index()] = Some(value()?),
            "binc" => go.inc[Side::First.index()] = Some(value()?),
            "winc" => go.inc[Side::Second.index()] = Some(value()?),
            "movestogo" => go.moves_to_go = Some(value()?.min(u64::from(u32::MAX)) as u32),
            "depth" => go.depth = Some(value()?.clamp(1, 255) as u32),
            "nodes" => go.nodes = Some(value()?.max(1)),
            "movetime" => go.movetime = Some(value()?),
            "infinite" => go.infinite = true,
            "ponder" => {}
            // `mate N`, `searchmoves ...`: not supported, ignored like unknown words.
            _ => {}
        }
    }
    Ok(go)
}

fn parse_position(rest: &str) -> Result<Ataxx, CommandError> {
    let (setup, moves) = match rest.split_once(" moves") {
        Some((setup, moves)) => (setup.trim(), Some(moves.trim())),
        None if rest.trim() == "moves" => ("", Some("")),
        None => (rest.trim(), None),
    };
    let mut pos = if setup == "startpos" {
        Ataxx::default()
    } else if let Some(fen) = setup.strip_prefix("fen") {
        Ataxx::from_fen(fen.trim()).map_err(CommandError::Fen)?
    } else {
        return Err(CommandError::Setup(setup.to_string()));
    };
    for (i, text) in moves.unwrap_or("").split_whitespace().enumerate() {
        pos.try_play(text).map_err(|error| CommandError::Move {
            number: i + 1,
            error,
        })?;
    }
    Ok(pos)
}

impl State {
    fn identify<W: Write>(&self, out: &Output<W>) {
        out.line(&format!("id name {}", self.config.name));
        out.line("id author arena");
        // The largest table this machine can hold: a `Hash` past it is refused.
        out.line(&format!(
            "option name Hash type spin default {} min 0 max {}",
            self.config.search.tt_mb,
            tt::max_mb()
        ));
        // The parameters an Ataxx engine uses, each with the range sensible to tune it.
        for line in super::option_lines(&self.config) {
            out.line(&line);
        }
        out.line("uaiok");
    }

    /// `setoption name N value V`: `Hash` or a parameter the engine lists. A value out
    /// of its range, or not a number, is refused and leaves the engine as it was; a
    /// new `Hash` is allocated at once, so one that cannot be had is refused here.
    fn set_option(&mut self, rest: &str) -> Result<(), CommandError> {
        let rest = rest.trim();
        let body = rest
            .strip_prefix("name")
            .ok_or_else(|| CommandError::SetoptionShape(rest.to_string()))?;
        let (name, value) = match body.split_once(" value") {
            Some((n, v)) => (n.trim(), v.trim()),
            None => (body.trim(), ""),
        };
        let param = if name.eq_ignore_ascii_case("hash") {
            "search.tt_mb".to_string()
        } else {
            self.config
                .tunable_param(name)
                .map(|p| p.name)
                .ok_or_else(|| CommandError::NoOption(name.to_string()))?
        };
        let (_, parsed) = config::parse_assignment(&format!("{param}={value}"))?;
        let mut updated = self.config.clone();
        let refused = |error: String| CommandError::Refused {
            name: name.to_string(),
            error,
        };
        updated
            .set_served(&param, parsed)
            .map_err(|e| refused(e.to_string()))?;
        if updated.search.tt_mb != self.config.search.tt_mb {
            let mut engine = Engine::<Ataxx>::new(&updated, &()).map_err(refused)?;
            engine.searcher().set_abort_flag(Arc::clone(&self.abort));
            engine.searcher().new_game(0);
            self.config = updated;
            self.engine = Some(engine);
            return Ok(());
        }
        self.config = updated;
        // The next search builds the engine with the new settings.
        self.engine = None;
        Ok(())
    }

    fn take_engine(&mut self) -> Result<Engine<Ataxx>, String> {
        match self.engine.take() {
            Some(e) => Ok(e),
            None => {
                let mut e = Engine::<Ataxx>::new(&self.config, &())?;
                e.searcher().set_abort_flag(Arc::clone(&self.abort));
                e.searcher().new_game(0);
                Ok(e)
            }
        }
    }

    fn limits(&self, go: &Go, side: Side) -> Limits {
        let ms = Duration::from_millis;
        // The built-in engine's time manager: soft and hard limits from the clock, or
        // from the move time less a safety margin.
        let clock = go.time[side.index()]
            .map(|t| clock_limits(ms(t), ms(go.inc[side.index()].unwrap_or(0)), go.moves_to_go));
        let fixed = go
            .movetime
            .map(|t| engine_movetime_limits(ms(t), self.config.search.partial_iterations));
        let time = match (fixed, clock) {
            (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.min(b.1))),
            (a, b) => a.or(b),
        };
        let limits = Limits {
            depth: go.depth,
            nodes: go.nodes,
            movetime: time.map(|t| t.1),
            soft_time: time.map(|t| t.0),
        };
        if limits == Limits::default() {
            self.config.search.limits()
        } else {
            limits
        }
    }

    fn start_search<'scope, W: Write + Send>(
        &mut self,
        s: &'scope Scope<'scope, '_>,
        out: &'scope Output<W>,
        go: &Go,
        inbox: &mut Inbox,
    ) -> Option<Job<'scope>> {
        let pos = match &self.position {
            Ok(p) => *p,
            Err(e) => {
                out.line(&format!("info string error: no position to search ({e})"));
                out.line("bestmove 0000");
                return None;
            }
        };
        if pos.outcome().is_some() {
            out.line("info string the game is over");
            out.line("bestmove 0000");
            return None;
        }
        let mut engine = match self.take_engine() {
            Ok(e) => e,
            Err(e) => {
                out.line(&format!("info string error: {e}"));
                out.line("bestmove 0000");
                return None;
            }
        };
        let limits = if go.infinite {
            Limits::default()
        } else {
            self.limits(go, pos.side_to_move())
        };
        self.abort.store(false, Ordering::Relaxed);
        let silent = Arc::new(AtomicBool::new(false));
        let quiet = Arc::clone(&silent);
        let abort = Arc::clone(&self.abort);
        let infinite = go.infinite;
        let (id, end) = inbox.search();
        let handle = s.spawn(move || {
            let result = engine.search(&pos, limits, |it| {
                out.line(&format!(
                    "info {}",
                    format_iteration(it, ScoreUnits::Cp, |m| m.to_string())
                ));
            });
            if result.iterations.last().map(|i| i.nodes) != Some(result.nodes) {
                out.line(&format!("info {}", format_total(result.nodes, result.time)));
            }
            // UAI: after `go infinite` the move waits for `stop`.
            while infinite && !abort.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(2));
            }
            // Said before the move: whatever the manager sends once it has the move
            // comes after the search's end, and waits for nothing.
            end.done();
            if !quiet.load(Ordering::Relaxed) {
                let mv = result.best.map_or("0000".to_string(), |m| m.to_string());
                out.line(&format!("bestmove {mv}"));
            }
            engine
        });
        Some(Job { handle, silent, id })
    }

    fn finish(&mut self, job: Job<'_>) {
        // A panicked search loses its engine: the next search builds a new one.
        self.engine = job.handle.join().ok();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        engine::builtin,
        protocol::serve::script::{Script, Shared},
    };

    fn engine() -> EngineConfig {
        builtin::engine("ataxx-seed004").unwrap()
    }

    /// The output of a transcript (a line `#wait N` waits for N `bestmove`s: the end
    /// of input stops a search).
    fn transcript(config: &EngineConfig, input: &str) -> Vec<String> {
        let out = Shared::default();
        let script = Script::new(input.as_bytes(), &out, |l| l.starts_with("bestmove"));
        serve(config, script, out.clone(), None).unwrap();
        out.text().lines().map(str::to_string).collect()
    }

    fn best_of(config: &EngineConfig, pos: &Ataxx, limits: Limits) -> String {
        let mut e = Engine::<Ataxx>::new(config, &()).unwrap();
        e.searcher().new_game(0);
        e.search(pos, limits, |_| {}).best.unwrap().to_string()
    }

    /// Regression: after `go infinite` a `position` blocked the loop, so the `stop`
    /// and `quit` behind it were never read.
    #[test]
    fn commands_during_an_infinite_search_wait_for_its_stop() {
        let r = transcript(
            &engine(),
            "uai\nposition startpos\ngo infinite\nposition startpos moves g2\n\
             setoption name Hash value 1\nisready\nstop\nisready\nquit\n",
        );
        let ready = r.iter().filter(|l| *l == "readyok").count();
        assert_eq!(ready, 2, "{r:?}");
        assert_eq!(
            r.iter().filter(|l| l.starts_with("bestmove")).count(),
            1,
            "{r:?}"
        );
        let stop_answer = r.iter().position(|l| l.starts_with("bestmove")).unwrap();
        let first_ready = r.iter().position(|l| l == "readyok").unwrap();
        assert!(
            first_ready < stop_answer,
            "isready is answered mid-search: {r:?}"
        );
    }

    #[test]
    fn handshake_lists_options() {
        let r = transcript(&engine(), "uai\nisready\nquit\n");
        assert_eq!(r[0], "id name ataxx-seed004");
        assert_eq!(r[1], "id author arena");
        assert!(
            r.iter()
                .any(|l| l.starts_with("option name Hash type spin default 16"))
        );
        assert!(
            r.iter()
                .any(|l| l.starts_with("option name search.depth type spin default 3"))
        );
        assert!(r.iter().any(|l| l.starts_with("option name table.")));
        let n = r.len();
        assert_eq!(&r[n - 2..], ["uaiok", "readyok"]);
    }

    #[test]
    fn position_fen_moves_and_go_depth() {
        let c = engine();
        let fen = "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1";
        let r = transcript(
            &c,
            &format!("uainewgame\nposition fen {fen} moves b6 b2\ngo depth 2\nisready\n#wait 1\n"),
        );
        let mut pos = Ataxx::from_fen(fen).unwrap();
        pos.play_move_list("b6 b2").unwrap();
        let depth2 = Limits {
            depth: Some(2),
            ..Limits::default()
        };
        let best = best_of(&c, &pos, depth2);
        let infos: Vec<&String> = r.iter().filter(|l| l.starts_with("info depth")).collect();
        assert_eq!(infos.len(), 2, "{r:?}");
        assert!(infos[1].starts_with("info depth 2 score cp "), "{r:?}");
        assert!(
            infos[1].contains(" nodes ") && infos[1].contains(" pv "),
            "{r:?}"
        );
        assert!(r.contains(&format!("bestmove {best}")), "{r:?}");
        assert!(r.contains(&"readyok".to_string()), "{r:?}");
    }

    #[test]
    fn go_with_clocks_and_setoption() {
        let c = engine();
        // Plain `go` plays by the config (depth set to 1 by setoption); `go depth 1`
        // with clocks (white 'o' to move, 2 s left) is limited by depth first.
        let r = transcript(
            &c,
            "setoption name search.depth value 1\nsetoption name Hash value 1\n\
             position startpos moves g2\ngo\nuainewgame\nposition startpos moves g2\n\
             go depth 1 wtime 2000 btime 1 winc 10 binc 10\n\
             setoption name nonsense value 3\nsetoption name search.depth value x\n\
             #wait 2\nisready\n",
        );
        let mut pos = Ataxx::default();
        pos.play_move_list("g2").unwrap();
        let mut c1 = c.clone();
        c1.set("search.depth", toml::Value::Integer(1)).unwrap();
        c1.set("search.tt_mb", toml::Value::Integer(1)).unwrap();
        let best = best_of(&c1, &pos, c1.search.limits());
        let moves: Vec<&String> = r.iter().filter(|l| l.starts_with("bestmove")).collect();
        assert_eq!(moves.len(), 2, "{r:?}");
        assert!(
            moves.iter().all(|m| **m == format!("bestmove {best}")),
            "{r:?}"
        );
        assert!(!r.iter().any(|l| l.starts_with("info depth 2")), "{r:?}");
        assert!(
            r.iter()
                .any(|l| l.starts_with("info string error: setoption: no option 'nonsense'"))
        );
        assert!(
            r.iter()
                .any(|l| l.contains("search.depth") && l.contains("error")),
            "{r:?}"
        );
    }

    #[test]
    fn stop_ends_an_infinite_search() {
        let r = transcript(
            &engine(),
            "position startpos\ngo infinite\nisready\nstop\nquit\n",
        );
        assert!(r.contains(&"readyok".to_string()), "{r:?}");
        let best: Vec<&String> = r.iter().filter(|l| l.starts_with("bestmove ")).collect();
        assert_eq!(best.len(), 1, "{r:?}");
        let mv = best[0].trim_start_matches("bestmove ");
        assert!(Ataxx::default().parse_move(mv).is_ok(), "{r:?}");
    }

    #[test]
    fn bad_positions_and_finished_games() {
        let r = transcript(
            &engine(),
            "position fen x5o/7/7/7/7/7/o5x x 100 1\ngo depth 1\nposition startpos moves a1a3\n\
             go depth 1\nposition nonsense\nflurb\n",
        );
        assert_eq!(r[0], "info string the game is over");
        assert_eq!(r[1], "bestmove 0000");
        assert!(
            r[2].starts_with("info string error: position: move 1:"),
            "{r:?}"
        );
        assert!(r[3].starts_with("info string error: no position"), "{r:?}");
        assert_eq!(r[4], "bestmove 0000");
        assert!(r[5].contains("expected 'startpos'"), "{r:?}");
        assert_eq!(r[6], "info string unknown command 'flurb'");
    }

    #[test]
    fn go_parses_every_limit() {
        let go =
            parse_go("wtime 100 btime -5 winc 1 binc 2 movestogo 7 depth 3 nodes 9 movetime 50")
                .unwrap();
        assert_eq!(go.time, [Some(0), Some(100)]);
        assert_eq!(go.inc, [Some(2), Some(1)]);
        assert_eq!(
            (go.moves_to_go, go.depth, go.nodes, go.movetime),
            (Some(7), Some(3), Some(9), Some(50))
        );
        assert!(parse_go("depth x").is_err());
        assert!(parse_go("infinite").unwrap().infinite);
    }
}
