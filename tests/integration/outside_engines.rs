//! Outside engines and processes (issue 20), through the real binary: a chattering engine
//! is cut off at its deadline (and a Ctrl-C is not held up by it), empty lines cannot fill
//! the memory, no process an engine started outlives arena (not even on SIGKILL), a late
//! second `bestmove` is not read as the next reply, an illegal move restarts the engine,
//! tables are bounded, memory does not grow with the number of engines, Gomocup input
//! and opening files are capped, `go infinite` keeps the commands behind it, outside
//! engines are compared as a whole, and served engines take every parameter by name.
//! Each test says which bug it pins; on the code before the fix each one fails.
//!
//! An outside engine starts afresh when asked, or before a game whose opening repeats
//! its last game's.

use std::{io::Write, path::Path, time::Duration};

use arena::tournament::{GameRecord, read_records};

use crate::common::{
    arena_bin, assert_no_survivors, data, fixture, root, run_bad_input, run_ok, run_to,
    serve_script, signal, spawn_run, survivors, table, wait_for_file, wait_or_kill,
    wait_with_own_peak, write,
};

/// How long a test waits for a run that should end on its own (a hang fails it).
const SAFETY: Duration = Duration::from_secs(180);

/// A built-in gomoku engine entry at depth 1.
fn gomoku_healthy() -> String {
    format!(
        "[[engines]]\nname = \"healthy\"\ntable = \"{}\"\nsearch = {{ depth = 1, ordering = \
         [\"tt_move\", \"threat\"], tt_mb = 1 }}\n\n",
        table("gomoku/seed003.toml")
    )
}

/// A built-in Ataxx engine entry at depth 1.
fn ataxx_healthy() -> String {
    format!(
        "[[engines]]\nname = \"healthy\"\ntable = \"{}\"\nsearch = {{ depth = 1, ordering = \
         [\"captures\"], tt_mb = 1 }}\n\n",
        table("ataxx/seed004.toml")
    )
}

/// An engine file for `arena serve` behind the fake engines.
fn served_file(dir: &Path, game: &str) -> String {
    let (t, ordering) = if game == "ataxx" {
        ("ataxx/seed004.toml", "[\"captures\"]")
    } else {
        ("gomoku/seed003.toml", "[\"tt_move\", \"threat\"]")
    };
    write(
        dir,
        &format!("served-{game}.toml"),
        &format!(
            "name = \"served\"\ngame = \"{game}\"\ntable = \"{}\"\n\n[search]\ndepth = 1\n\
             ordering = {ordering}\ntt_mb = 1\n",
            table(t)
        ),
    )
}

/// An outside engine entry running `sh SCRIPT ARGS...`.
fn script_engine(name: &str, protocol: &str, script: &str, args: &[&str], extra: &str) -> String {
    let mut all = vec![format!("\"{}\"", fixture(script))];
    all.extend(args.iter().map(|a| format!("\"{a}\"")));
    format!(
        "[[engines]]\nname = \"{name}\"\ncommand = \"/bin/sh\"\nargs = [{}]\nprotocol = \
         \"{protocol}\"\ndepth = 1\n{extra}\n\n",
        all.join(", ")
    )
}

/// A gauntlet header: the healthy engine (first) against the others.
fn gauntlet(name: &str, game: &str, rounds: u32) -> String {
    let openings = if game == "ataxx" {
        "[openings]\nkind = \"random\"\nplies = 2\n"
    } else {
        "[openings]\nkind = \"random\"\nplies = 2\nradius = 1\n"
    };
    format!(
        "name = \"{name}\"\ngame = \"{game}\"\nformat = \"gauntlet\"\nrounds = {rounds}\nseed = 3\n\n\
         {openings}\n[adjudication]\nmax_plies = 60\n\n"
    )
}

/// Writes the config made of `parts` into `dir`; its path and the results folder.
fn setup(dir: &Path, parts: &[String]) -> (String, std::path::PathBuf) {
    (
        write(dir, "run-config.toml", &parts.concat()),
        dir.join("out"),
    )
}

fn records(dir: &Path) -> Vec<GameRecord> {
    let mut v = read_records(&dir.join("games.jsonl")).unwrap().records;
    v.sort_by_key(|r| r.game);
    v
}

fn stderr_of(child: &mut std::process::Child) -> String {
    let mut text = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut text);
    }
    text
}

/// Item 1. Regression: an engine that wrote `MESSAGE x` (Gomocup) or `info depth 1
/// nodes 5` (UAI) without end on its first move request was never timed out: no game
/// was recorded after 100 s with a 3 s reply timeout (queued lines were returned
/// before the deadline was looked at). Now each game is lost on time at its deadline.
#[test]
fn a_chattering_engine_is_cut_off_at_its_deadline() {
    for (game, protocol, mode, healthy) in [
        ("mnk:9,9,5", "gomocup", "message", gomoku_healthy()),
        ("ataxx", "uai", "info", ataxx_healthy()),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let text = format!(
            "{}{healthy}{}",
            gauntlet("chatter", game, 1),
            script_engine(
                "chatter",
                protocol,
                "chatter.sh",
                &[mode],
                "reply_timeout_ms = 2000"
            )
        );
        let config = write(tmp.path(), "chatter.toml", &text);
        let out = tmp.path().join("out");
        let mut child = spawn_run(&config, &out, 1, &[]);
        let status = wait_or_kill(&mut child, SAFETY);
        let stderr = stderr_of(&mut child);
        assert!(
            status.is_some_and(|s| s.success()),
            "{mode}: the run ends on its own ({status:?}): {stderr}"
        );
        let games = records(&out);
        assert_eq!(games.len(), 2, "{mode}");
        for r in &games {
            assert_eq!(r.reason, "fault: timeout", "{mode}: {r:?}");
            let chatter = if r.black_name == "chatter" {
                r.black
            } else {
                r.white
            };
            assert_eq!(r.half_points_of(chatter), Some(0), "{mode}: {r:?}");
        }
        assert_no_survivors(&fixture("chatter.sh"), "after the chatter run");
    }
}

/// Item 1. Regression: a Ctrl-C (or SIGTERM) during such a flood waited for the game to
/// end, which it never did; only a second signal stopped arena.
#[test]
fn one_signal_stops_a_run_while_an_engine_chatters() {
    let tmp = tempfile::tempdir().unwrap();
    let (config, out) = setup(
        tmp.path(),
        &[
            gauntlet("flooded", "mnk:9,9,5", 1),
            gomoku_healthy(),
            script_engine(
                "chatter",
                "gomocup",
                "chatter.sh",
                &["message"],
                "reply_timeout_ms = 600000",
            ),
        ],
    );
    let mut child = spawn_run(&config, &out, 1, &[]);
    // Once the log is full the engine's lines come faster than they are read: the
    // queue never empties (before the fix, the wait never looked at the stop then).
    wait_for_file(&out.join("logs/chatter-w0.log"), SAFETY, |t| {
        t.contains("# log cut off at")
    });
    signal(child.id(), libc::SIGTERM);
    // A safety net, not a timing: the stop is at once now; before the fix it waited
    // for a gap in the flood (151 s here, or for ever).
    let status = wait_or_kill(&mut child, Duration::from_secs(90));
    let stderr = stderr_of(&mut child);
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(130),
        "one SIGTERM stops the run: {stderr}"
    );
    assert_no_survivors(&fixture("chatter.sh"), "after SIGTERM");
}

/// Item 2. Regression: an engine writing empty lines (`yes ''`) took 3.1 GB in 25 s and
/// arena aborted: an empty line added 0 bytes to the queue's count, so its 8 MB cap
/// never applied. Now the handshake times out with the memory flat.
#[test]
fn empty_lines_cannot_fill_the_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let (config, out) = setup(
        tmp.path(),
        &[
            gauntlet("empty", "mnk:9,9,5", 1),
            gomoku_healthy(),
            script_engine(
                "empty",
                "gomocup",
                "chatter.sh",
                &["empty"],
                "reply_timeout_ms = 4000",
            ),
        ],
    );
    let mut child = spawn_run(&config, &out, 1, &[]);
    let (status, peak_kib) = wait_with_own_peak(&mut child, SAFETY);
    assert!(status.is_some_and(|s| s.success()), "the run ends normally");
    let games = records(&out);
    assert_eq!(games.len(), 2);
    assert!(
        games
            .iter()
            .all(|r| r.reason.starts_with("fault: handshake")),
        "{games:?}"
    );
    assert!(
        peak_kib < 200 * 1024,
        "arena's memory stays flat: {} MB at its peak",
        peak_kib / 1024
    );
}

/// An engine behind a wrapper script that does not `exec` it, with helpers of its
/// own: one in its process group, one in a session of its own (`setsid`). One process
/// for the whole run (`restart = false`): by default the second game of a pair, which
/// begins from the opening the first began from, would start it afresh, and a test
/// looking for its processes could find them between one and the next.
fn wrapped(dir: &Path) -> (String, String) {
    let served = served_file(dir, "gomoku");
    let entry = format!(
        "[[engines]]\nname = \"wrapped\"\ncommand = \"/bin/sh\"\nargs = [\"{}\", \"{}\", \
         \"{served}\"]\nprotocol = \"gomocup\"\ndepth = 1\nrestart = false\n\n",
        fixture("wrapper.sh"),
        arena_bin()
    );
    (entry, served)
}

/// Item 3. Regression: SIGKILL of arena left an engine started through a wrapper script
/// (no `exec`) running, with the helpers it started in its group and in a session of
/// its own (PR_SET_PDEATHSIG reached only the wrapper). Now each engine runs in a PID
/// namespace of its own, whose init dies with arena, and the kernel takes every process
/// in it down.
#[test]
fn no_engine_process_outlives_arena_even_on_sigkill() {
    let tmp = tempfile::tempdir().unwrap();
    let (entry, served) = wrapped(tmp.path());
    let text = format!(
        "{}{}{entry}",
        gauntlet("killed", "mnk:9,9,5", 50),
        gomoku_healthy()
    );
    let config = write(tmp.path(), "killed.toml", &text);
    let out = tmp.path().join("out");
    let mut child = spawn_run(&config, &out, 1, &[]);
    // The engine has answered a move: the wrapper, its helpers and the engine run.
    wait_for_file(&out.join("logs/wrapped-w0.log"), SAFETY, |t| {
        t.lines()
            .any(|l| l.contains(" < ") && l.split(" < ").nth(1).is_some_and(|m| m.contains(',')))
    });
    let running = survivors(&served);
    assert!(
        running.len() >= 4,
        "wrapper, two helpers and the engine run: {running:#?}"
    );
    signal(child.id(), libc::SIGKILL);
    let _ = child.wait();
    assert_no_survivors(&served, "after SIGKILL of arena");
}

/// Item 3. Regression: a helper started with `setsid` outlived even a normal exit (the
/// process group that was killed no longer held it). Also without PID namespaces
/// (`ARENA_PID_NAMESPACE=off`, as where a system forbids them), a normal exit leaves
/// nothing: arena is the subreaper of what its engines leave.
#[test]
fn no_engine_process_outlives_a_normal_exit() {
    for env in [&[][..], &[("ARENA_PID_NAMESPACE", "off")][..]] {
        let tmp = tempfile::tempdir().unwrap();
        let (entry, served) = wrapped(tmp.path());
        let text = format!(
            "{}{}{entry}",
            gauntlet("normal", "mnk:9,9,5", 1),
            gomoku_healthy()
        );
        let config = write(tmp.path(), "normal.toml", &text);
        let out = tmp.path().join("out");
        let mut child = spawn_run(&config, &out, 1, env);
        let status = wait_or_kill(&mut child, SAFETY);
        assert!(status.is_some_and(|s| s.success()), "{env:?}");
        let games = records(&out);
        assert_eq!(games.len(), 2);
        assert!(
            games
                .iter()
                .all(|r| arena::tournament::summary::fault_kind(&r.reason).is_none()),
            "{env:?}: {games:?}"
        );
        assert_no_survivors(&served, &format!("after a normal exit {env:?}"));
    }
}

/// Item 4. Regression: a late second `bestmove` (the engine's own last move again,
/// written after the next request went out) was read as the reply to that request and
/// the game was recorded `illegal-move`. Now it is skipped, as the Gomocup client does.
#[test]
fn a_late_second_bestmove_is_not_the_next_reply() {
    let tmp = tempfile::tempdir().unwrap();
    let served = served_file(tmp.path(), "ataxx");
    let (config, out) = setup(
        tmp.path(),
        &[
            gauntlet("late", "ataxx", 2),
            ataxx_healthy(),
            script_engine(
                "late",
                "uai",
                "chatter.sh",
                &["late", arena_bin(), &served],
                "",
            ),
        ],
    );
    run_to(&config, &out);
    let games = records(&out);
    assert_eq!(games.len(), 4);
    for r in &games {
        assert!(
            r.reason != "illegal-move" && !r.reason.starts_with("fault"),
            "{r:?}"
        );
    }
    let log = std::fs::read_to_string(out.join("logs/late-w0.log")).unwrap();
    assert!(log.contains("a late copy, ignored"), "{log}");
}

/// Item 4. Regression: an illegal move did not restart the engine (its next game went
/// to the same process), though every other fault did, as docs/outside-engines.md says.
#[test]
fn an_illegal_move_restarts_the_engine() {
    for (game, protocol, script, healthy) in [
        ("ataxx", "uai", "faulty-uai.sh", ataxx_healthy()),
        (
            "mnk:9,9,5",
            "gomocup",
            "faulty-gomocup.sh",
            gomoku_healthy(),
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let family = if game == "ataxx" { "ataxx" } else { "gomoku" };
        let served = served_file(tmp.path(), family);
        let text = format!(
            "{}{healthy}{}",
            gauntlet("illegal", game, 1),
            script_engine(
                "illegal",
                protocol,
                script,
                &["illegal", arena_bin(), &served],
                ""
            )
        );
        let config = write(tmp.path(), "illegal.toml", &text);
        let out = tmp.path().join("out");
        run_to(&config, &out);
        let games = records(&out);
        assert!(
            games.iter().all(|r| r.reason == "illegal-move"),
            "{protocol}: {games:?}"
        );
        let log = std::fs::read_to_string(out.join("logs/illegal-w0.log")).unwrap();
        assert_eq!(
            log.matches("# started pid").count(),
            2,
            "{protocol}: one process a game: {log}"
        );
        assert!(log.contains("# killed: illegal move"), "{protocol}: {log}");
    }
}

/// Regression: ataxx.cpp writes its pass `bestmove pass`, and every game in which it had
/// to pass was lost as `fault: garbage 'bestmove pass'` (24 of 200 games of a gauntlet at
/// 4+0.04). `pass` (and libataxx's `null`) now read as `0000`; a pass written so while a
/// move exists is still an illegal move, not garbage.
#[test]
fn an_ataxx_pass_may_be_written_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let served = served_file(tmp.path(), "ataxx");
    // x moves first and has no move (every square within two of a7 is taken), for as
    // long as the game lasts: o fills the board while x passes.
    let file = write(tmp.path(), "pass.txt", "xoo4/ooo4/ooo4/7/7/7/7 x 0 1\n");
    // The healthy engine against the wrapper in `mode`, under `header`: the records and
    // the results folder.
    let play = |mode: &str, header: String| {
        let text = format!(
            "{header}{}{}",
            ataxx_healthy(),
            script_engine(
                "passer",
                "uai",
                "faulty-uai.sh",
                &[mode, arena_bin(), &served],
                ""
            )
        );
        let config = write(tmp.path(), &format!("{mode}.toml"), &text);
        let out = tmp.path().join(format!("out-{mode}"));
        run_to(&config, &out);
        (records(&out), out)
    };
    let (games, out) = play(
        "pass",
        format!(
            "name = \"pass\"\ngame = \"ataxx\"\nformat = \"gauntlet\"\nrounds = 1\nseed = 3\n\n\
             [openings]\nkind = \"file\"\nfile = \"{file}\"\n\n"
        ),
    );
    assert_eq!(games.len(), 2, "{games:?}");
    for r in &games {
        assert!(
            r.reason != "illegal-move" && !r.reason.starts_with("fault"),
            "{r:?}"
        );
        // Every move of x is a pass, recorded as 0000, whoever played it.
        let passes = r.moves.iter().step_by(2).filter(|m| *m == "0000").count();
        assert_eq!(passes, r.moves.len().div_ceil(2), "{r:?}");
        assert!(passes >= 20, "{r:?}");
    }
    let logs: String = ["logs/passer-w0.log", "logs/passer-w1.log"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(out.join(f)).ok())
        .collect();
    assert!(logs.contains("< bestmove pass"), "{logs}");
    // Its scores came without `cp` (`score 12`, as ataxx.cpp and Zataxx write them):
    // every move it made still has its depth, nodes and score in the records.
    assert!(
        logs.contains(" score ") && !logs.contains("score cp"),
        "{logs}"
    );
    let mut made = 0;
    for r in &games {
        let first = usize::from(r.black_name != "passer");
        for (mv, stat) in r.moves.iter().zip(&r.stats).skip(first).step_by(2) {
            if mv != "0000" {
                made += 1;
                assert!(
                    stat.depth >= 1 && stat.nodes > 0 && stat.score.is_some(),
                    "{mv}: {stat:?}"
                );
            }
        }
    }
    assert!(made >= 20, "{games:?}");

    // A pass written `pass` while a move exists is an illegal move.
    let (games, _) = play("illegal-pass", gauntlet("illegal-pass", "ataxx", 1));
    assert!(
        !games.is_empty() && games.iter().all(|r| r.reason == "illegal-move"),
        "{games:?}"
    );
}

/// `arena serve ARGS` fed `input`: its exit code, output and errors.
fn serve(args: &[&str], input: &[u8], answers: usize) -> (Option<i32>, String, String) {
    let out = serve_script(args, &[(input, answers)]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Item 13. Regression: `search.tt_mb` (and UAI `Hash`, Gomocup `INFO search.tt_mb`) up
/// to 65536 was accepted and the allocation then aborted arena (exit 134); UAI
/// advertised 65536 as Hash's maximum. Now what this machine cannot hold is refused
/// with exit 2 or an error line, and the served engine plays on as it was.
#[test]
fn tables_that_cannot_be_allocated_are_refused() {
    let threat = root().join("configs/engines/gomoku-seed003-threat.toml");
    let e = run_bad_input(&[
        "analyse",
        threat.to_str().unwrap(),
        "--depth",
        "1",
        "--set",
        "search.tt_mb=65536",
    ]);
    assert!(e.contains("search.tt_mb"), "{e}");
    let ataxx = root().join("configs/engines/ataxx-seed004.toml");
    let (code, out, err) = serve(
        &[ataxx.to_str().unwrap()],
        b"uai\nsetoption name Hash value 65536\nposition startpos\ngo depth 1\n",
        1,
    );
    assert_eq!(code, Some(0), "{err}");
    let max: u64 = out
        .lines()
        .find(|l| l.starts_with("option name Hash "))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|m| m.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    let memory_mb = arena::search::tt::physical_memory_mb().unwrap();
    assert!(max <= memory_mb / 2, "Hash max {max} on {memory_mb} MB");
    assert!(
        out.contains("info string error: setoption Hash: search.tt_mb = 65536"),
        "{out}"
    );
    let best = out.lines().find(|l| l.starts_with("bestmove")).unwrap();
    assert_ne!(best, "bestmove 0000", "the engine plays on: {out}");
    let (code, out, err) = serve(
        &[threat.to_str().unwrap()],
        b"START 15\nINFO search.tt_mb 65536\nBEGIN\n",
        1,
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("ERROR INFO search.tt_mb"), "{out}");
    assert_eq!(out.lines().last(), Some("7,7"), "{out}");
}

/// Item 14. Regression: every worker kept a built engine, with its table, for every
/// engine it had played: 2000 tic-tac-toe engines with `tt_mb = 1` at `-j2` reached
/// 3.6 GB and aborted. Now a worker keeps the tables of the engines it plays and a
/// few recent ones.
#[test]
fn memory_does_not_grow_with_the_number_of_engines() {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = "name = \"many\"\ngame = \"tictactoe\"\nformat = \"gauntlet\"\nrounds = 1\n\
                    seed = 1\n\n[openings]\nkind = \"random\"\nplies = 1\n\n"
        .to_string();
    for i in 0..400 {
        text.push_str(&format!(
            "[[engines]]\nname = \"e{i}\"\nsearch = {{ depth = 2, tt_mb = 4 }}\n\n"
        ));
    }
    let config = write(tmp.path(), "many.toml", &text);
    let out = tmp.path().join("out");
    let mut child = spawn_run(&config, &out, 2, &[]);
    let (status, peak_kib) = wait_with_own_peak(&mut child, SAFETY);
    assert!(status.is_some_and(|s| s.success()));
    assert_eq!(records(&out).len(), 2 * 399);
    assert!(
        peak_kib < 400 * 1024,
        "399 pairings, 4 MB tables, 2 workers: {} MB at the peak",
        peak_kib / 1024
    );
}

/// Item 15. Regression: a Gomocup `BOARD` block that never ended grew without bound
/// (2.75 GB), and opening files were read whole (1 GB of garbage took 1 GB before the
/// error). Both are capped now, with clear errors.
#[test]
fn board_blocks_and_opening_files_are_capped() {
    let threat = root().join("configs/engines/gomoku-seed003-threat.toml");
    let mut input = b"START 15\nBOARD\n".to_vec();
    for i in 0..200_000 {
        input.extend_from_slice(format!("{},{},1\n", i % 15, (i / 15) % 15).as_bytes());
    }
    input.extend_from_slice(b"DONE\nBEGIN\n");
    let (code, out, err) = serve(&[threat.to_str().unwrap()], &input, 1);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("ERROR BOARD: more than"),
        "a clear error: {}",
        &out[..out.len().min(2000)]
    );
    assert_eq!(out.lines().last(), Some("7,7"), "the loop goes on");

    let tmp = tempfile::tempdir().unwrap();
    let garbage = tmp.path().join("huge.txt");
    {
        let mut f = std::fs::File::create(&garbage).unwrap();
        let line = "x".repeat(1023) + "\n";
        for _ in 0..(80 << 10) {
            f.write_all(line.as_bytes()).unwrap();
        }
    }
    let text = format!(
        "name = \"openings\"\ngame = \"gomoku\"\nrounds = 1\n\n[openings]\nkind = \"file\"\n\
         file = \"{}\"\n\n{}[[engines]]\nname = \"b\"\ntable = \"{}\"\nsearch = {{ depth = 1 }}\n",
        garbage.display(),
        gomoku_healthy(),
        table("gomoku/seed000.toml")
    );
    let config = write(tmp.path(), "openings.toml", &text);
    let e = run_bad_input(&[
        "run",
        &config,
        "--quiet",
        "--no-report",
        "--out",
        tmp.path().join("out2").to_str().unwrap(),
    ]);
    assert!(
        e.contains("huge.txt") && e.contains("is more than 64 MB"),
        "refused by its size, before it is read: {e}"
    );
}

/// Item 16. Regression: UAI serve dropped every command sent during `go infinite`, so
/// `go infinite`, `go depth 1`, `stop` gave one bestmove, not two.
#[test]
fn commands_sent_during_go_infinite_are_kept() {
    let ataxx = root().join("configs/engines/ataxx-seed004.toml");
    let (code, out, err) = serve(
        &[ataxx.to_str().unwrap()],
        b"uai\nposition startpos\ngo infinite\ngo depth 1\nstop\n",
        2,
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.matches("bestmove").count(), 2, "{out}");
}

/// Item 20. Regression: against an outside engine, "what differs" listed about 55
/// `search.*` keys (and the table warning repeated them); an engine that reports no
/// nodes was recorded with `"nodes": 0`. Now an outside engine is compared as a whole,
/// and a move without a node count has no `nodes` field.
#[test]
fn outside_engines_are_compared_as_a_whole_and_unreported_nodes_are_absent() {
    let tmp = tempfile::tempdir().unwrap();
    let served = served_file(tmp.path(), "gomoku");
    let text = format!(
        "{}{}[[engines]]\nname = \"other\"\ntable = \"{}\"\nsearch = {{ depth = 1, ordering = \
         [\"tt_move\", \"threat\"], tt_mb = 1, radius = 1 }}\n\n{}",
        gauntlet("whole", "mnk:9,9,5", 1),
        gomoku_healthy(),
        table("gomoku/seed000.toml"),
        script_engine(
            "silent",
            "gomocup",
            "quirky-gomocup.sh",
            &["silent", arena_bin(), &served],
            ""
        )
    );
    let config = write(tmp.path(), "whole.toml", &text);
    let out = tmp.path().join("out");
    let stdout = run_to(&config, &out);
    let block: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("what differs"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert_eq!(
        block,
        [
            "  engine: built-in | built-in | outside program (gomocup) (an outside engine is \
             compared as a whole)",
            "  table: seed003 | seed000 | - (28 weights differ: dead_four, dead_three, dead_two, \
             double_four, double_three, five, ...)",
            "  search.radius: 2 | 1 | -",
        ],
        "not every search key"
    );
    let warning = stdout
        .lines()
        .find(|l| l.contains("cannot be put down to the table alone"))
        .unwrap_or("");
    assert!(
        warning.contains("search.radius") && !warning.contains("search.params"),
        "the warning names what differs between the built-in engines: {warning}"
    );
    let text = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let mut silent_moves = 0;
    for line in text.lines() {
        let raw: serde_json::Value = serde_json::from_str(line).unwrap();
        let r: GameRecord = serde_json::from_str(line).unwrap();
        let silent = if r.black_name == "silent" {
            r.black
        } else if r.white_name == "silent" {
            r.white
        } else {
            continue;
        };
        for (i, s) in raw["stats"].as_array().unwrap().iter().enumerate() {
            if r.mover(i) == silent {
                silent_moves += 1;
                assert!(s.get("nodes").is_none(), "no nodes reported: {s}");
            } else {
                assert!(s["nodes"].as_u64().unwrap() > 0, "{s}");
            }
        }
    }
    assert!(silent_moves > 0);
    // A file written before, with "nodes": 0 for those moves, reads the same.
    let old = text.replace(
        "\"depth\":0,\"time_us\"",
        "\"depth\":0,\"nodes\":0,\"time_us\"",
    );
    assert_ne!(old, text);
    let now = run_ok(&["stats", out.to_str().unwrap()]);
    std::fs::write(out.join("games.jsonl"), old).unwrap();
    let before = run_ok(&["stats", out.to_str().unwrap()]);
    let row = |t: &str| {
        t.lines()
            .find(|l| l.split_whitespace().nth(1) == Some("silent"))
            .map(str::to_string)
    };
    assert!(row(&now).is_some_and(|r| r.contains("n/a")), "{now}");
    assert_eq!(row(&now), row(&before));
}

/// Item 21 (part). Regressions: `analyse` and Gomocup `serve` printed `score cp` for
/// gomoku, whose scores are the table's weights; the UAI option list of an Ataxx engine
/// offered gomoku's parameters (vcf_*, vct_*, radius, threat_prune), every one with a
/// range of ±1e9; engine names could hold ESC, BEL, CR or NUL, printed raw.
#[test]
fn scores_say_their_unit_options_have_real_ranges_and_names_are_plain() {
    let threat = root().join("configs/engines/gomoku-seed003-threat.toml");
    let out = run_ok(&["analyse", threat.to_str().unwrap(), "--depth", "2"]);
    assert!(!out.contains("score cp"), "{out}");
    assert!(out.contains("evaluation's units"), "{out}");
    let (_, out, _) = serve(&[threat.to_str().unwrap()], b"START 15\nBEGIN\n", 1);
    assert!(out.contains("MESSAGE depth 1 score eval "), "{out}");
    assert!(!out.contains("score cp"), "{out}");

    let ataxx = root().join("configs/engines/ataxx-modern.toml");
    let (_, out, _) = serve(&[ataxx.to_str().unwrap()], b"uai\n", 0);
    let options: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("option name "))
        .collect();
    assert!(options.len() > 20, "{out}");
    for gomoku_only in ["vcf_", "vct_", "radius", "threat_prune"] {
        assert!(
            !options.iter().any(|o| o.contains(gomoku_only)),
            "{gomoku_only}: {options:#?}"
        );
    }
    assert!(
        !out.contains("1000000000 max"),
        "no range of ±1e9: {options:#?}"
    );
    assert!(
        options
            .iter()
            .any(|o| o.starts_with("option name search.params.lmr_divisor type spin")),
        "{options:#?}"
    );

    let tmp = tempfile::tempdir().unwrap();
    for (i, c) in ['\u{1b}', '\u{7}', '\r', '\u{0}'].into_iter().enumerate() {
        let escaped = c.escape_unicode().to_string();
        let toml_escape = format!("\\u{:04x}", c as u32);
        let engine = write(
            tmp.path(),
            &format!("e{i}.toml"),
            &format!("name = \"a{toml_escape}b\"\ngame = \"tictactoe\"\n\n[search]\ndepth = 1\n"),
        );
        let e = run_bad_input(&["analyse", &engine]);
        assert!(e.contains("key `name`") && e.contains(&escaped), "{e}");
        assert!(!e.contains(c), "the error shows the name escaped: {e:?}");
        if c == '\u{0}' {
            // A command line cannot carry NUL at all.
            continue;
        }
        let e = run_bad_input(&[
            "match",
            threat.to_str().unwrap(),
            &format!("cmd=/bin/true,name=x{c}y"),
            "--rounds",
            "1",
            "--out",
            tmp.path().join(format!("m{i}")).to_str().unwrap(),
        ]);
        assert!(e.contains("key `name`"), "{e:?}");
        assert!(!e.contains(c), "{e:?}");
    }
}

fn engine(name: &str) -> String {
    data(&format!("../../configs/engines/{name}.toml"))
        .display()
        .to_string()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `restart=on|off` in a `cmd=...` spec, and without it, over both protocols (arena
/// itself served over Gomocup and over UAI), one worker, two pairs: `on` starts a fresh
/// process every game (no RESTART sent); `off` lets one process play every game
/// (Gomocup hears RESTART between games); unset, a process is started afresh only for a
/// game that begins from the position its last game began from (each pair's second
/// game, the same opening with colours swapped): 3 processes, one RESTART.
#[test]
fn restart_starts_an_outside_engine_afresh_when_asked_or_on_a_repeated_opening() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("arena");
    let count = |log: &str, needle: &str| log.lines().filter(|l| l.contains(needle)).count();
    for (engine_name, game, restart_line) in [
        ("gomoku-seed003-threat", "mnk:9,9,5", Some("> RESTART")),
        ("ataxx-seed004", "ataxx", None),
    ] {
        let a = engine(engine_name);
        for (restart, started_expected, restarts_expected, notes_expected) in [
            (Some("off"), 1, 3, 0),
            (Some("on"), 4, 0, 0),
            (None, 3, 1, 2),
        ] {
            let label = restart.unwrap_or("unset");
            let out = tmp.path().join(format!("{engine_name}-{label}"));
            let mut cmd = format!("cmd={},arg=serve,arg={a},name=served", bin.display());
            if let Some(r) = restart {
                cmd.push_str(&format!(",restart={r}"));
            }
            run_ok(&[
                "match",
                &a,
                &cmd,
                "--game",
                game,
                "--depth",
                "1",
                "--rounds",
                "2",
                "--max-plies",
                "20",
                "--jobs",
                "1",
                "--quiet",
                "--no-report",
                "--out",
                out.to_str().unwrap(),
            ]);
            let records = read_records(&out.join("games.jsonl")).unwrap().records;
            assert_eq!(records.len(), 4);
            assert!(
                records.iter().all(|r| !r.reason.starts_with("fault")),
                "{records:?}"
            );
            assert_ne!(
                records[0].opening, records[2].opening,
                "the two pairs need two openings"
            );
            let log = read(&out.join("logs/served-w0.log"));
            assert_eq!(
                count(&log, "# started pid"),
                started_expected,
                "{engine_name}, restart {label}: processes started\n{log}"
            );
            assert_eq!(
                count(
                    &log,
                    "the next game begins from the position the last one began from"
                ),
                notes_expected,
                "{engine_name}, restart {label}: the log says why\n{log}"
            );
            if let Some(line) = restart_line {
                assert_eq!(
                    count(&log, line),
                    restarts_expected,
                    "{engine_name}, restart {label}: RESTART between games\n{log}"
                );
            }
        }
    }
}
