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
//! `timeout_match` is set, capping its time limit. An engine without limits of its own
//! whose manager sends none plays 30 s a move (the Gomocup skeleton's `timeout_turn`).
//!
//! During a search `END` ends it without a move and `YXSTOP` with the best move so far;
//! other commands wait for the move, in order; the end of input stops it and ends the
//! loop.

mod search;
mod state;

use std::{
    io::{BufRead, Write},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    thread::ScopedJoinHandle,
};

use super::{Event, Inbox, Output, ServeError, check, split_command};
use crate::{
    engine::{Engine, EngineConfig},
    game::{GameSpec, Mnk, MnkConfig, MnkMove, MnkRule},
};

/// Board sides Gomocup engines are asked to play.
pub const SIZES: std::ops::RangeInclusive<usize> = 5..=20;

/// The most stone lines a `BOARD` block may hold: every cell of the largest board.
pub const MAX_STONES: usize = 20 * 20;

/// Serves `config` (an m,n,k engine) over Gomocup: reads commands from `input` until
/// `END` or the end of input (which stops a search), writes replies to `output` (and
/// both to `log`).
pub fn serve<R: BufRead + Send + 'static, W: Write + Send>(
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
        let mut inbox = Inbox::new(input);
        let result = commands(s, &out, &mut state, &mut job, &mut inbox);
        // However the loop ended (`END`, the end of input, an error), a search still
        // running is stopped, not waited for: the manager is gone.
        if let Some(j) = job.take() {
            state.abort.store(true, Ordering::Relaxed);
            state.finish(j);
        }
        result?;
        check(&out)
    })
}

/// The loop: commands until `END` or the end of input.
fn commands<'scope, W: Write + Send>(
    s: &'scope std::thread::Scope<'scope, '_>,
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
        if cmd.is_empty() {
            continue;
        }
        if let Some(j) = job.as_ref() {
            match cmd.as_str() {
                "END" => {
                    j.silent.store(true, Ordering::Relaxed);
                    return Ok(());
                }
                // Yixin-board's stop: play the best move found so far.
                "YXSTOP" | "STOP" => {
                    if let Some(j) = job.take() {
                        state.abort.store(true, Ordering::Relaxed);
                        state.finish(j);
                    }
                }
                // Anything else waits for the move (managers do not send it), in order;
                // the loop reads on meanwhile.
                _ => inbox.defer(line),
            }
            continue;
        }
        match cmd.as_str() {
            "END" => return Ok(()),
            "BOARD" => {
                // The stones follow, one a line, until DONE; no board holds more
                // than MAX_STONES, and the lines past them are read and dropped.
                let mut stones = Vec::new();
                let mut done = false;
                let mut extra = 0u64;
                while let Some(l) = inbox.next_line(out) {
                    let l = l?;
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
                    return Ok(());
                }
                if extra > 0 {
                    out.line(&format!(
                        "ERROR BOARD: more than {MAX_STONES} stone lines ({} in all): no \
                         board holds that many",
                        MAX_STONES as u64 + extra
                    ));
                    check(out)?;
                    continue;
                }
                match state.set_board(&stones) {
                    Ok(()) => *job = state.start_search(s, out, inbox),
                    Err(e) => out.line(&format!("ERROR {e}")),
                }
            }
            // Other managers' board commands (Yixin's YXBOARD, SWAP2BOARD, ...):
            // their stone lines and DONE belong to them, and get one answer.
            _ if cmd.ends_with("BOARD") => {
                while let Some(l) = inbox.next_line(out) {
                    if l?.trim().eq_ignore_ascii_case("DONE") {
                        break;
                    }
                }
                out.line(&format!("UNKNOWN command '{cmd}'"));
            }
            _ => {
                if let Some(reply) = state.command(&cmd, rest) {
                    match reply {
                        Reply::Line(text) => out.line(&text),
                        Reply::Search => *job = state.start_search(s, out, inbox),
                    }
                }
            }
        }
        check(out)?;
    }
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
    /// Its number (see [`Inbox::search`]).
    id: u64,
}

/// The served engine between commands: its config, the rule and board the manager set
/// up, the engine built for them, and the limits the manager sent (`INFO`).
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::{
        engine::builtin,
        game::Game,
        protocol::serve::script::{Script, Shared},
    };

    fn engine(depth: u32) -> EngineConfig {
        let mut c = builtin::engine("gomoku-seed003-threat").unwrap();
        c.set("search.depth", toml::Value::Integer(i64::from(depth)))
            .unwrap();
        c
    }

    /// A reply (not a MESSAGE line).
    fn reply(line: &str) -> bool {
        !line.starts_with("MESSAGE")
    }

    /// Runs a transcript (a line `#wait N` waits for N replies: the end of input stops
    /// a search); the whole output.
    fn output(config: &EngineConfig, input: &[u8]) -> String {
        let out = Shared::default();
        serve(config, Script::new(input, &out, reply), out.clone(), None).unwrap();
        out.text()
    }

    /// Runs a transcript; returns the replies without MESSAGE lines.
    fn transcript(config: &EngineConfig, input: &str) -> Vec<String> {
        output(config, input.as_bytes())
            .lines()
            .filter(|l| reply(l))
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
        let replies = transcript(&c, "START 15\nINFO rule 0\nBEGIN\n#wait 2\n");
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
        let input = "START 15\nBOARD\n7,7,2\n6,6,1\n8,8,2\nDONE\nTURN 9,9\n#wait 3\n";
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
             INFO search.depht 3\n#wait 12\nEND\n",
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
        let replies = transcript(&c, "START 9\nTURN 4,4\nTAKEBACK 4,4\n#wait 3\n");
        let own = &replies[1];
        let replies2 = transcript(
            &c,
            &format!("START 9\nTURN 4,4\nTAKEBACK {own}\nTAKEBACK 4,4\nBEGIN\n#wait 5\n"),
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
                     0,2,2\n5,7,1\n0,4,2\n6,7,1\n0,6,2\nDONE\n#wait 2\n";
        let text = output(&c, input.as_bytes());
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
        serve(
            &c,
            "START 9\nEND\n".as_bytes(),
            Vec::new(),
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
        input.extend_from_slice(b"rgen\nBEGIN\n#wait 2\n");
        let text = output(&c, &input);
        let replies: Vec<&str> = text.lines().filter(|l| !l.starts_with("MESSAGE")).collect();
        assert_eq!(replies, ["OK", "4,4"], "{text}");
    }

    /// Regression: a block command arena does not know was answered once per line.
    #[test]
    fn unknown_board_blocks_get_one_answer() {
        let c = engine(1);
        let replies = transcript(
            &c,
            "START 9\nYXBOARD\n4,4,1\n3,3,2\nDONE\nSWAP2BOARD\nDONE\nBEGIN\n#wait 4\n",
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
        let free = transcript(&c, &format!("START 15\nINFO rule 0\n{board}#wait 2\n"));
        assert_eq!(free, ["OK", "5,4"]);
        let renju = transcript(&c, &format!("START 15\nINFO rule 4\n{board}#wait 2\n"));
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
