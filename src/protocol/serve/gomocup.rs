//! Serving an m,n,k engine over the Gomocup (piskvork) protocol.
//!
//! `START n` (or `RECTSTART w,h`) sets up an n×n board with the engine config's k and
//! rule; `INFO rule` switches between freestyle (0), exactly-k (bit 1) and renju (bit 4:
//! black's forbidden moves; the lines of `BOARD` are then taken in move order); sizes outside
//! 5..=20 and boards k does not fit on are refused with `ERROR`. `BEGIN`, `TURN x,y` and
//! `BOARD ... DONE` ask for a move; each completed iteration is reported as `MESSAGE
//! depth .. score eval .. nodes .. pv ..` before the move (`eval N`: the evaluation in
//! the table's units, as records hold scores; `mate N`: a win with the N-th own move),
//! so a harness can record nodes.
//!
//! Limits: the engine config's, with `INFO max_depth` / `max_node` replacing its depth
//! and node limits (0: none), and the time from `timeout_turn` (per move; 0 = play as
//! fast as possible: depth 1 unless a depth or node limit was sent) and `time_left` when
//! `timeout_match` is set, capping its time limit.

use std::{
    io::{BufRead, Write},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    thread::{Scope, ScopedJoinHandle},
    time::Duration,
};

use super::{Commands, Output, ServeError, check, split_command};
use crate::{
    config,
    engine::{Engine, EngineConfig},
    game::{Game, GameSpec, Mnk, MnkConfig, MnkMove, MnkRule},
    protocol::info::{ScoreUnits, format_iteration, format_total},
    search::{
        Limits,
        score::MAX_PLY,
        time::{clock_limits, engine_movetime_limits},
    },
};

/// Board sides Gomocup engines are asked to play.
pub const SIZES: std::ops::RangeInclusive<usize> = 5..=20;

/// The most stone lines a `BOARD` block may hold: every cell of the largest board.
pub const MAX_STONES: usize = 20 * 20;

/// Serves `config` (an m,n,k engine) over Gomocup: reads commands from `input` until
/// `END` or the end of input, writes replies to `output` (and both to `log`).
pub fn serve<R: BufRead, W: Write + Send>(
    config: &EngineConfig,
    input: R,
    output: W,
    log: Option<Box<dyn Write + Send>>,
) -> Result<(), ServeError> {
    let GameSpec::Mnk(game) = config.game else {
        return Err(ServeError::Config(format!(
            "engine '{}' plays {}: the gomocup protocol serves m,n,k engines (use --protocol uai)",
            config.name, config.game
        )));
    };
    let out = Output::new(output, log);
    let mut state = State::new(config.clone(), game);
    std::thread::scope(|s| -> Result<(), ServeError> {
        let mut job: Option<Job<'_>> = None;
        let mut lines = Commands::new(input);
        while let Some(line) = lines.next() {
            let line = line?;
            out.log_input(&line);
            let (cmd, rest) = split_command(&line);
            if cmd.is_empty() {
                continue;
            }
            if let Some(j) = job.take() {
                match cmd.as_str() {
                    "END" => {
                        j.silent.store(true, Ordering::Relaxed);
                        state.abort.store(true, Ordering::Relaxed);
                        state.finish(j);
                        return Ok(());
                    }
                    // Yixin-board's stop: play the best move found so far.
                    "YXSTOP" | "STOP" => {
                        state.abort.store(true, Ordering::Relaxed);
                        state.finish(j);
                        continue;
                    }
                    // Anything else waits for the move (managers do not send it).
                    _ => state.finish(j),
                }
            }
            match cmd.as_str() {
                "END" => return Ok(()),
                "BOARD" => {
                    // The stones follow, one a line, until DONE; no board holds more
                    // than MAX_STONES, and the lines past them are read and dropped.
                    let mut stones = Vec::new();
                    let mut done = false;
                    let mut extra = 0u64;
                    for l in lines.by_ref() {
                        let l = l?;
                        out.log_input(&l);
                        if l.trim().eq_ignore_ascii_case("DONE") {
                            done = true;
                            break;
                        }
                        if l.trim().is_empty() {
                            continue;
                        }
                        if stones.len() < MAX_STONES {
                            stones.push(l.trim().to_string());
                        } else {
                            extra += 1;
                        }
                    }
                    if !done {
                        break;
                    }
                    if extra > 0 {
                        out.line(&format!(
                            "ERROR BOARD: more than {MAX_STONES} stone lines ({} in all): no \
                             board holds that many",
                            MAX_STONES as u64 + extra
                        ));
                        check(&out)?;
                        continue;
                    }
                    match state.set_board(&stones) {
                        Ok(()) => job = state.start_search(s, &out),
                        Err(e) => out.line(&format!("ERROR {e}")),
                    }
                }
                // Other managers' board commands (Yixin's YXBOARD, SWAP2BOARD, ...):
                // their stone lines and DONE belong to them, and get one answer.
                _ if cmd.ends_with("BOARD") => {
                    for l in lines.by_ref() {
                        let l = l?;
                        out.log_input(&l);
                        if l.trim().eq_ignore_ascii_case("DONE") {
                            break;
                        }
                    }
                    out.line(&format!("UNKNOWN command '{cmd}'"));
                }
                _ => {
                    if let Some(reply) = state.command(&cmd, rest) {
                        match reply {
                            Reply::Line(text) => out.line(&text),
                            Reply::Search => job = state.start_search(s, &out),
                        }
                    }
                }
            }
            check(&out)?;
        }
        // End of input: let a running search finish and answer.
        if let Some(j) = job.take() {
            state.finish(j);
        }
        check(&out)
    })
}

/// What a command asks of the loop.
enum Reply {
    /// Write this line.
    Line(String),
    /// Search the current board and answer with a move.
    Search,
}

/// A search running on its own thread: it hands the engine back with the move.
struct Job<'scope> {
    handle: ScopedJoinHandle<'scope, (Engine<Mnk>, Option<MnkMove>)>,
    /// Set to drop the move (after `END`).
    silent: Arc<AtomicBool>,
}

struct State {
    config: EngineConfig,
    k: usize,
    rule: MnkRule,
    board: Option<Mnk>,
    engine: Option<Engine<Mnk>>,
    /// The board variant and table size `engine` was built for.
    built_for: Option<(MnkConfig, u32)>,
    abort: Arc<AtomicBool>,
    timeout_turn: Option<u64>,
    timeout_match: Option<u64>,
    time_left: Option<u64>,
    max_depth: Option<u32>,
    max_node: Option<u64>,
    max_memory: Option<u64>,
}

fn err(text: impl Into<String>) -> Option<Reply> {
    Some(Reply::Line(format!("ERROR {}", text.into())))
}

impl State {
    fn new(config: EngineConfig, game: MnkConfig) -> State {
        State {
            config,
            k: game.k(),
            rule: game.rule(),
            board: None,
            engine: None,
            built_for: None,
            abort: Arc::new(AtomicBool::new(false)),
            timeout_turn: None,
            timeout_match: None,
            time_left: None,
            max_depth: None,
            max_node: None,
            max_memory: None,
        }
    }

    fn command(&mut self, cmd: &str, rest: &str) -> Option<Reply> {
        match cmd {
            "START" => {
                let Ok(n) = rest.parse::<usize>() else {
                    return err(format!("START needs a board size, got '{rest}'"));
                };
                self.start(n, n)
            }
            "RECTSTART" => {
                let Some((w, h)) = parse_pair(rest) else {
                    return err(format!("RECTSTART needs width,height, got '{rest}'"));
                };
                match (usize::try_from(w), usize::try_from(h)) {
                    (Ok(w), Ok(h)) => self.start(w, h),
                    _ => err(format!("bad board size '{rest}'")),
                }
            }
            "RESTART" => {
                let Some(board) = &self.board else {
                    return err("RESTART before START");
                };
                self.board = Some(Mnk::new(board.mnk()));
                self.new_game();
                Some(Reply::Line("OK".into()))
            }
            "BEGIN" => match &self.board {
                None => err("BEGIN before START"),
                Some(b) if b.stones() > 0 => err("BEGIN on a board with stones"),
                Some(_) => Some(Reply::Search),
            },
            "TURN" => {
                let Some(board) = &mut self.board else {
                    return err("TURN before START");
                };
                match parse_move(board, rest) {
                    Ok(mv) => {
                        board.play(mv);
                        Some(Reply::Search)
                    }
                    Err(e) => err(e),
                }
            }
            "TAKEBACK" => {
                let Some(board) = &mut self.board else {
                    return err("TAKEBACK before START");
                };
                let Some((x, y)) = parse_pair(rest) else {
                    return err(format!("TAKEBACK needs x,y, got '{rest}'"));
                };
                match board.last_move() {
                    Some(last) if board.mnk().at(x, y) == Some(last) => {
                        board.undo(last, ());
                        Some(Reply::Line("OK".into()))
                    }
                    Some(last) => err(format!(
                        "can take back only the last stone ({})",
                        board.format_xy(last)
                    )),
                    None => err("TAKEBACK on an empty board"),
                }
            }
            "INFO" => self.info(rest),
            "ABOUT" => Some(Reply::Line(format!(
                "name=\"{}\", version=\"{}\", author=\"arena\", country=\"-\"",
                self.config.name.replace('"', "'"),
                env!("CARGO_PKG_VERSION")
            ))),
            _ => Some(Reply::Line(format!("UNKNOWN command '{cmd}'"))),
        }
    }

    fn start(&mut self, width: usize, height: usize) -> Option<Reply> {
        if !SIZES.contains(&width) || !SIZES.contains(&height) {
            return err(format!(
                "unsupported size {width}x{height}: sides must be {} to {}",
                SIZES.start(),
                SIZES.end()
            ));
        }
        match MnkConfig::new(width as u32, height as u32, self.k as u32, self.rule) {
            Ok(game) => {
                self.board = Some(Mnk::new(&game));
                // Build the engine now (tables, evaluator) rather than on the first
                // move's clock.
                match self.take_engine() {
                    Ok(engine) => self.engine = Some(engine),
                    Err(e) => return err(e),
                }
                self.new_game();
                Some(Reply::Line("OK".into()))
            }
            Err(e) => err(e),
        }
    }

    /// A new game: the engine forgets what it learned.
    fn new_game(&mut self) {
        if let Some(engine) = &mut self.engine {
            engine.searcher().new_game(0);
        }
    }

    fn info(&mut self, rest: &str) -> Option<Reply> {
        let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let key = key.to_ascii_lowercase();
        let value = value.trim();
        let number = || value.parse::<i64>().ok().filter(|v| *v >= 0);
        match key.as_str() {
            "timeout_turn" | "timeout_match" | "time_left" | "max_node" | "max_depth"
            | "max_memory" | "rule" => {
                let Some(v) = number() else {
                    return err(format!("INFO {key}: '{value}' is not a number"));
                };
                let v = v as u64;
                match key.as_str() {
                    "timeout_turn" => self.timeout_turn = Some(v),
                    "timeout_match" => self.timeout_match = Some(v),
                    "time_left" => self.time_left = Some(v),
                    "max_node" => self.max_node = Some(v),
                    "max_depth" => self.max_depth = Some(v.min(MAX_PLY as u64 - 1) as u32),
                    "max_memory" => {
                        self.max_memory = Some(v);
                        self.built_for = None;
                    }
                    _ => return self.set_rule(v),
                }
                None
            }
            // Our own engine's parameters: `INFO search.params.lmr_divisor 150`, `INFO
            // table.open_three 9000`. A value out of range, or not a number, is refused
            // and leaves the engine as it was.
            _ if key.contains('.') => {
                let before = self.config.clone();
                let result = config::parse_assignment(&format!("{key}={value}"))
                    .and_then(|(name, v)| self.config.set(&name, v));
                if let Err(e) = result {
                    return err(format!("INFO {key}: {e}"));
                }
                self.built_for = None;
                // A new table is allocated now: one that cannot be had is refused here.
                if self.config.search.tt_mb != before.search.tt_mb && self.board.is_some() {
                    match self.take_engine() {
                        Ok(engine) => self.engine = Some(engine),
                        Err(e) => {
                            self.config = before;
                            return err(format!("INFO {key}: {e}"));
                        }
                    }
                }
                None
            }
            // game_type, folder, thread_num, evaluate and others: nothing to do.
            _ => None,
        }
    }

    fn set_rule(&mut self, bits: u64) -> Option<Reply> {
        // Bit 1 is exactly five, bit 4 renju (which includes exactly five for black);
        // the others are rules this engine does not play, and playing freestyle instead
        // would lose games the manager scores by its rule.
        let unsupported = [(2, "continuous game"), (8, "caro")]
            .into_iter()
            .find(|(bit, _)| bits & bit != 0)
            .map(|(_, name)| name.to_string())
            .or_else(|| (bits > 15).then(|| format!("rule bits {bits}")));
        if let Some(name) = unsupported {
            return err(format!(
                "rule {bits}: {name} is not supported (freestyle 0, exactly five 1 and \
                 renju 4 are)"
            ));
        }
        let rule = if bits & 4 != 0 {
            MnkRule::Renju
        } else if bits & 1 != 0 {
            MnkRule::Exact
        } else {
            MnkRule::Freestyle
        };
        if rule == self.rule {
            return None;
        }
        self.rule = rule;
        if let Some(board) = &self.board {
            let c = board.mnk();
            let game = MnkConfig::new(c.width() as u32, c.height() as u32, c.k() as u32, rule)
                .expect("only the rule changed in a valid variant");
            let mut new = Mnk::new(&game);
            for &mv in board.history() {
                if new.outcome().is_some() {
                    self.board = Some(Mnk::new(&game));
                    return err("under the new rule the game was already over: board cleared");
                }
                new.play(mv);
            }
            self.board = Some(new);
        }
        None
    }

    fn set_board(&mut self, lines: &[String]) -> Result<(), String> {
        let Some(board) = &self.board else {
            return Err("BOARD before START".into());
        };
        let game = *board.mnk();
        let mut own = Vec::new();
        let mut theirs = Vec::new();
        for line in lines {
            let parts: Vec<&str> = line.split(',').map(str::trim).collect();
            let nums: Vec<i32> = parts.iter().filter_map(|p| p.parse().ok()).collect();
            if parts.len() != 3 || nums.len() != 3 {
                return Err(format!("BOARD line '{line}' is not x,y,field"));
            }
            let mv = game
                .at(nums[0], nums[1])
                .ok_or_else(|| format!("BOARD line '{line}': outside the board"))?;
            match nums[2] {
                1 => own.push(mv),
                2 => theirs.push(mv),
                3 => return Err("continuous games (field 3) are not supported".into()),
                f => return Err(format!("BOARD line '{line}': field {f} is not 1 or 2")),
            }
        }
        // The engine moves next: it is the first player when the counts are equal.
        let (first, second) = if own.len() == theirs.len() {
            (own, theirs)
        } else if theirs.len() == own.len() + 1 {
            (theirs, own)
        } else {
            return Err(format!(
                "{} own and {} opponent stones: the side to move cannot have more stones",
                own.len(),
                theirs.len()
            ));
        };
        // Renju managers send the lines in move order, and whether a black stone was
        // forbidden depends on the stones before it: keep that order when the colours
        // alternate from the first player's.
        let in_order: Vec<MnkMove> = lines
            .iter()
            .filter_map(|l| {
                let nums: Vec<i32> = l.split(',').filter_map(|p| p.trim().parse().ok()).collect();
                game.at(nums[0], nums[1])
            })
            .collect();
        let alternates = in_order.iter().enumerate().all(|(i, mv)| {
            let side = if i % 2 == 0 { &first } else { &second };
            side.contains(mv)
        });
        let order: Vec<MnkMove> = if game.rule() == MnkRule::Renju && alternates {
            in_order
        } else {
            (0..first.len())
                .flat_map(|i| [first.get(i), second.get(i)])
                .flatten()
                .copied()
                .collect()
        };
        let mut pos = Mnk::new(&game);
        {
            for mv in &order {
                if pos.outcome().is_some() {
                    return Err(
                        "the game is over before the last stone (a line is complete, \
                                or under renju black's stone was forbidden)"
                            .into(),
                    );
                }
                if !pos.is_legal(*mv) {
                    return Err(format!("{} is taken twice", pos.format_xy(*mv)));
                }
                pos.play(*mv);
            }
        }
        self.board = Some(pos);
        Ok(())
    }

    /// The engine for the current board, built if the board or its settings changed.
    fn take_engine(&mut self) -> Result<Engine<Mnk>, String> {
        let game = *self.board.as_ref().expect("a search needs a board").mnk();
        let mut config = self.config.clone();
        if let Some(bytes) = self.max_memory.filter(|&b| b > 0) {
            // Half the memory for the table, in whole megabytes.
            let mb = (bytes / 2 / (1 << 20)).min(u64::from(u32::MAX)) as u32;
            config.search.tt_mb = config.search.tt_mb.min(mb);
        }
        let key = (game, config.search.tt_mb);
        if self.built_for != Some(key) || self.engine.is_none() {
            let mut engine = Engine::<Mnk>::new(&config, &game)?;
            engine.searcher().set_abort_flag(Arc::clone(&self.abort));
            engine.searcher().new_game(0);
            self.engine = Some(engine);
            self.built_for = Some(key);
        }
        Ok(self.engine.take().expect("built above"))
    }

    fn limits(&self) -> Limits {
        let mut l = self.config.search.limits();
        if let Some(d) = self.max_depth {
            l.depth = (d > 0).then_some(d);
        }
        if let Some(n) = self.max_node {
            l.nodes = (n > 0).then_some(n);
        }
        // The built-in engine's time manager: soft and hard limits per turn (less a
        // safety margin) and from the match clock.
        let per_turn = match self.timeout_turn {
            Some(0) => {
                if self.max_depth.is_none() && self.max_node.is_none() {
                    l.depth = Some(1);
                }
                None
            }
            Some(t) => Some(engine_movetime_limits(
                Duration::from_millis(t),
                self.config.search.partial_iterations,
            )),
            None => None,
        };
        let per_match = match (self.timeout_match, self.time_left) {
            (Some(m), Some(left)) if m > 0 => Some(clock_limits(
                Duration::from_millis(left),
                Duration::ZERO,
                None,
            )),
            _ => None,
        };
        for (soft, hard) in [per_turn, per_match].into_iter().flatten() {
            l.movetime = Some(l.movetime.map_or(hard, |t| t.min(hard)));
            l.soft_time = Some(l.soft_time.map_or(soft, |t| t.min(soft)));
        }
        if l.depth.is_none() && l.nodes.is_none() && l.movetime.is_none() {
            // Every limit was lifted: keep the config's rather than search forever.
            l = self.config.search.limits();
        }
        l
    }

    fn start_search<'scope, W: Write + Send>(
        &mut self,
        s: &'scope Scope<'scope, '_>,
        out: &'scope Output<W>,
    ) -> Option<Job<'scope>> {
        let board = self.board.clone()?;
        if board.outcome().is_some() {
            out.line("ERROR the game is over");
            return None;
        }
        let mut engine = match self.take_engine() {
            Ok(e) => e,
            Err(e) => {
                out.line(&format!("ERROR {e}"));
                return None;
            }
        };
        let limits = self.limits();
        self.abort.store(false, Ordering::Relaxed);
        let silent = Arc::new(AtomicBool::new(false));
        let quiet = Arc::clone(&silent);
        let handle = s.spawn(move || {
            let result = engine.search(&board, limits, |it| {
                out.line(&format!(
                    "MESSAGE {}",
                    format_iteration(it, ScoreUnits::Eval, |m| board.format_xy(m))
                ));
            });
            if result.iterations.last().map(|i| i.nodes) != Some(result.nodes) {
                out.line(&format!(
                    "MESSAGE {}",
                    format_total(result.nodes, result.time)
                ));
            }
            if !quiet.load(Ordering::Relaxed) {
                match result.best {
                    Some(mv) => out.line(&board.format_xy(mv)),
                    None => out.line("ERROR no move"),
                }
            }
            (engine, result.best)
        });
        Some(Job { handle, silent })
    }

    /// Waits for a search and plays its move on the board.
    fn finish(&mut self, job: Job<'_>) {
        match job.handle.join() {
            Ok((engine, best)) => {
                self.engine = Some(engine);
                if let (Some(mv), Some(board), false) = (
                    best,
                    self.board.as_mut(),
                    job.silent.load(Ordering::Relaxed),
                ) {
                    board.play(mv);
                }
            }
            // The engine is lost with its thread: the next search builds a new one.
            Err(_) => self.built_for = None,
        }
    }
}

fn parse_pair(text: &str) -> Option<(i32, i32)> {
    let (a, b) = text.split_once(',')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

fn parse_move(board: &Mnk, text: &str) -> Result<MnkMove, String> {
    let (x, y) = parse_pair(text).ok_or_else(|| format!("'{text}' is not x,y"))?;
    let mv = board
        .mnk()
        .at(x, y)
        .ok_or_else(|| format!("{x},{y} is outside the board"))?;
    if !board.is_legal(mv) {
        return Err(if board.outcome().is_some() {
            "the game is already over".to_string()
        } else {
            format!("{x},{y} is taken")
        });
    }
    Ok(mv)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::engine::builtin;

    fn engine(depth: u32) -> EngineConfig {
        let mut c = builtin::engine("gomoku-seed003-threat").unwrap();
        c.set("search.depth", toml::Value::Integer(i64::from(depth)))
            .unwrap();
        c
    }

    /// Runs a transcript; returns the replies without MESSAGE lines.
    fn transcript(config: &EngineConfig, input: &str) -> Vec<String> {
        let mut out = Vec::new();
        serve(config, input.as_bytes(), &mut out, None).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("MESSAGE"))
            .map(str::to_string)
            .collect()
    }

    /// The move the in-process engine plays in `pos` (fresh engine, as after START).
    fn expected(config: &EngineConfig, pos: &Mnk) -> String {
        let mut e = Engine::<Mnk>::new(config, pos.mnk()).unwrap();
        e.searcher().new_game(0);
        let r = e.search(pos, config.search.limits(), |_| {});
        pos.format_xy(r.best.unwrap())
    }

    #[test]
    fn a_game_start_to_move() {
        let c = engine(2);
        // A search answers even when the input ends right after the command.
        let replies = transcript(&c, "START 15\nINFO rule 0\nBEGIN\n");
        assert_eq!(replies, ["OK", "7,7"]);
        let replies = transcript(&c, "ABOUT\nSTART 4\nSTART 21\nRECTSTART 15,5\nFOO 3\n");
        assert!(
            replies[0].starts_with("name=\"seed003-threat\""),
            "{replies:?}"
        );
        assert!(
            replies[1].starts_with("ERROR unsupported size 4x4"),
            "{replies:?}"
        );
        assert!(
            replies[2].starts_with("ERROR unsupported size 21x21"),
            "{replies:?}"
        );
        assert_eq!(replies[3], "OK");
        assert_eq!(replies[4], "UNKNOWN command 'FOO'");
    }

    #[test]
    fn k_must_fit() {
        let mut c = engine(1);
        c.game = "mnk:6,6,6".parse().unwrap();
        let replies = transcript(&c, "START 5\nSTART 6\n");
        assert!(replies[0].contains("k = 6 cannot fit"), "{replies:?}");
        assert_eq!(replies[1], "OK");
    }

    #[test]
    fn board_with_both_sides_then_turns() {
        let c = engine(2);
        let game = MnkConfig::new(15, 15, 5, MnkRule::Freestyle).unwrap();
        // Black 7,7 and 8,8; white 6,6: white (the engine) has one stone fewer.
        let input = "START 15\nBOARD\n7,7,2\n6,6,1\n8,8,2\nDONE\nTURN 9,9\n";
        let replies = transcript(&c, input);
        let mut pos = Mnk::new(&game);
        pos.play_move_list("7,7 6,6 8,8").unwrap();
        let first = expected(&c, &pos);
        assert_eq!(replies[0], "OK");
        assert_eq!(replies[1], first);
        // The engine's own move stays on its board: TURN adds the opponent's reply.
        assert_eq!(replies.len(), 3, "{replies:?}");
        let mv = pos.parse_move(&first).unwrap();
        pos.play(mv);
        // 9,9 might be taken by the engine's own move: then the reply is an error.
        if pos.is_legal(game.at(9, 9).unwrap()) {
            assert!(!replies[2].starts_with("ERROR"), "{replies:?}");
        }
    }

    #[test]
    fn restart_takeback_and_errors() {
        let c = engine(1);
        let replies = transcript(
            &c,
            "TURN 1,1\nSTART 9\nTURN 4,4\nTAKEBACK 0,0\nRESTART\nTURN 4,4\nTURN 4,4\n\
             BOARD\n1,1,1\n2,2,1\nDONE\nBOARD\n0,0,3\nDONE\nINFO rule 8\nINFO max_depth x\n\
             INFO search.depht 3\nEND\n",
        );
        assert!(
            replies[0].starts_with("ERROR TURN before START"),
            "{replies:?}"
        );
        assert_eq!(replies[1], "OK");
        let mv = &replies[2];
        assert!(
            replies[3].starts_with("ERROR can take back only the last stone"),
            "{replies:?}"
        );
        assert_eq!(replies[4], "OK");
        assert_eq!(&replies[5], mv, "RESTART starts the same game afresh");
        assert!(replies[6].starts_with("ERROR 4,4 is taken"), "{replies:?}");
        assert!(
            replies[7].contains("the side to move cannot have more"),
            "{replies:?}"
        );
        assert!(replies[8].contains("continuous"), "{replies:?}");
        assert!(replies[9].contains("caro"), "{replies:?}");
        assert!(replies[10].contains("not a number"), "{replies:?}");
        assert!(replies[11].contains("unknown parameter"), "{replies:?}");
        assert_eq!(replies.len(), 12, "{replies:?}");
    }

    #[test]
    fn takeback_of_the_last_stone() {
        let c = engine(1);
        let replies = transcript(&c, "START 9\nTURN 4,4\nTAKEBACK 4,4\n");
        let own = &replies[1];
        let replies2 = transcript(
            &c,
            &format!("START 9\nTURN 4,4\nTAKEBACK {own}\nTAKEBACK 4,4\nBEGIN\n"),
        );
        assert_eq!(replies2[2], "OK");
        assert_eq!(replies2[3], "OK");
        assert_eq!(
            replies2[4], "4,4",
            "the empty 9x9 board's move is its centre"
        );
        assert!(
            replies[2].starts_with("ERROR can take back only"),
            "{replies:?}"
        );
    }

    #[test]
    fn exact_rule_and_depth_from_info() {
        let c = engine(3);
        // Black (the engine) has four in a row with an open end; the fifth wins under
        // both rules, so the engine plays it.
        let input = "START 15\nINFO rule 1\nINFO max_depth 1\nBOARD\n3,7,1\n0,0,2\n4,7,1\n\
                     0,2,2\n5,7,1\n0,4,2\n6,7,1\n0,6,2\nDONE\n";
        let mut out = Vec::new();
        serve(&c, input.as_bytes(), &mut out, None).unwrap();
        let text = String::from_utf8(out).unwrap();
        let last = text.lines().last().unwrap();
        assert!(last == "7,7" || last == "2,7", "{text}");
        assert!(text.contains("MESSAGE depth 1 score mate 1"), "{text}");
        assert!(
            !text.contains("MESSAGE depth 2"),
            "max_depth 1 holds: {text}"
        );
    }

    #[test]
    fn log_records_both_directions() {
        let c = engine(1);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("serve.log");
        let log = std::fs::File::create(&path).unwrap();
        let mut out = Vec::new();
        serve(
            &c,
            "START 9\nEND\n".as_bytes(),
            &mut out,
            Some(Box::new(log)),
        )
        .unwrap();
        let text = std::fs::read_to_string(Path::new(&path)).unwrap();
        assert!(text.contains("> START 9"), "{text}");
        assert!(text.contains("< OK"), "{text}");
    }

    #[test]
    fn end_stops_a_running_search_without_a_move() {
        // Depth 60 would take forever: END must end it, and no move follows END.
        let c = engine(2);
        let replies = transcript(&c, "START 15\nINFO max_depth 60\nTURN 7,7\nEND\n");
        assert_eq!(replies, ["OK"]);
    }

    /// Regression: one byte that is not UTF-8 ended the protocol loop.
    #[test]
    fn bytes_that_are_not_utf8_are_read_lossily() {
        let c = engine(1);
        let mut input = b"START 9\nINFO folder C:\\J".to_vec();
        input.push(0xFC);
        input.extend_from_slice(b"rgen\nBEGIN\n");
        let mut out = Vec::new();
        serve(&c, &input[..], &mut out, None).unwrap();
        let text = String::from_utf8(out).unwrap();
        let replies: Vec<&str> = text.lines().filter(|l| !l.starts_with("MESSAGE")).collect();
        assert_eq!(replies, ["OK", "4,4"], "{text}");
    }

    /// Regression: a block command arena does not know was answered once per line.
    #[test]
    fn unknown_board_blocks_get_one_answer() {
        let c = engine(1);
        let replies = transcript(
            &c,
            "START 9\nYXBOARD\n4,4,1\n3,3,2\nDONE\nSWAP2BOARD\nDONE\nBEGIN\n",
        );
        assert_eq!(
            replies,
            [
                "OK",
                "UNKNOWN command 'YXBOARD'",
                "UNKNOWN command 'SWAP2BOARD'",
                "4,4"
            ]
        );
    }

    #[test]
    fn renju_rule_4_never_plays_a_forbidden_move() {
        // Black (the engine: equal counts) f2 f3 f4 and c5 d5 e5, white f1 b5 and four
        // far stones, in move order: 5,4 (f5) is a double four, the winning move under
        // freestyle and forbidden under renju.
        let board = "BOARD\n5,1,1\n5,0,2\n5,2,1\n1,4,2\n5,3,1\n0,14,2\n2,4,1\n2,14,2\n3,4,1\n\
                     13,14,2\n4,4,1\n14,11,2\nDONE\n";
        let c = engine(2);
        let free = transcript(&c, &format!("START 15\nINFO rule 0\n{board}"));
        assert_eq!(free, ["OK", "5,4"]);
        let renju = transcript(&c, &format!("START 15\nINFO rule 4\n{board}"));
        assert_eq!(renju.len(), 2, "{renju:?}");
        assert_ne!(renju[1], "5,4", "{renju:?}");
        let game = MnkConfig::renju();
        let mut pos = Mnk::new(&game);
        for (x, y) in [(5, 1), (5, 0), (5, 2), (1, 4), (5, 3), (0, 14)] {
            pos.play(game.at(x, y).unwrap());
        }
        for (x, y) in [(2, 4), (2, 14), (3, 4), (13, 14), (4, 4), (14, 11)] {
            pos.play(game.at(x, y).unwrap());
        }
        let mv = pos.parse_move(&renju[1]).unwrap();
        assert!(pos.is_legal(mv) && pos.forbidden(mv).is_none(), "{renju:?}");
        // A board whose black stone was forbidden when it was played is refused.
        let bad = "BOARD\n5,2,1\n0,14,2\n5,3,1\n2,14,2\n3,4,1\n4,14,2\n4,4,1\n6,14,2\n5,4,1\n\
                   8,14,2\nDONE\n";
        let replies = transcript(&c, &format!("START 15\nINFO rule 4\n{bad}"));
        assert!(replies[1].contains("forbidden"), "{replies:?}");
    }

    /// Regression: `INFO rule 8` (caro) was played as freestyle.
    #[test]
    fn unsupported_rules_are_refused() {
        let c = engine(1);
        let replies = transcript(
            &c,
            "START 9\nINFO rule 8\nINFO rule 2\nINFO rule 16\nINFO rule 1\nINFO rule 0\n",
        );
        assert_eq!(replies[0], "OK");
        assert!(replies[1].contains("caro is not supported"), "{replies:?}");
        assert!(replies[2].contains("continuous game"), "{replies:?}");
        assert!(replies[3].contains("rule bits 16"), "{replies:?}");
        assert_eq!(replies.len(), 4, "rules 1 and 0 are taken: {replies:?}");
    }

    #[test]
    fn refuses_other_families() {
        let c = builtin::engine("ataxx-seed004").unwrap();
        let e = serve(&c, "".as_bytes(), Vec::new(), None).unwrap_err();
        assert!(e.to_string().contains("--protocol uai"), "{e}");
    }
}
