//! Outside engines with real engines' habits (issue 13), through the real binary: they
//! are tolerated and leave no process behind (after a game, after END, after SIGTERM,
//! after an orphan holds their output); a SIGTERM stops a run like Ctrl-C; the smaller
//! fixes around them (option keys and names with line breaks, logs of engines with
//! similar names, temporary files a SIGTERM left, an opening longer than `max_plies`);
//! and the search note of a run with engines that report no node counts. Each test says
//! which bug it pins.

use std::{
    path::Path,
    process::Stdio,
    time::{Duration, Instant},
};

use arena::tournament::{GameRecord, read_records};

use crate::common::{
    arena, arena_bin, arena_process, assert_no_survivors, fixture, run_bad_input, run_ok, run_to,
    survivors, table, write,
};

/// An engine file for `arena serve` (the healthy engine behind the fake ones).
fn served_engine(dir: &Path) -> String {
    write(
        dir,
        "served.toml",
        &format!(
            "name = \"served\"\ngame = \"gomoku\"\ntable = \"{}\"\n\n[search]\ndepth = 1\n\
             ordering = [\"tt_move\", \"threat\"]\ntt_mb = 1\n",
            table("gomoku/seed003.toml")
        ),
    )
}

/// A `quirky-gomocup.sh` engine entry.
fn quirky(name: &str, mode: &str, served: &str, extra: &str) -> String {
    format!(
        "[[engines]]\nname = \"{name}\"\ncommand = \"/bin/sh\"\nargs = [\"{}\", \"{mode}\", \
         \"{}\", \"{served}\"]\nprotocol = \"gomocup\"\ndepth = 1\n{extra}\n",
        fixture("quirky-gomocup.sh"),
        arena_bin()
    )
}

const GAUNTLET: &str = "game = \"mnk:9,9,5\"\nformat = \"gauntlet\"\nrounds = 1\nseed = 5\n\n\
                        [openings]\nkind = \"random\"\nplies = 2\nradius = 1\n\n\
                        [adjudication]\nmax_plies = 60\n";

fn healthy() -> String {
    format!(
        "[[engines]]\nname = \"healthy\"\ntable = \"{}\"\nsearch = {{ depth = 1, ordering = \
         [\"tt_move\", \"threat\"], tt_mb = 1 }}\n",
        table("gomoku/seed003.toml")
    )
}

fn records(file: &Path) -> Vec<GameRecord> {
    let mut v = read_records(file).unwrap().records;
    v.sort_by_key(|r| r.game);
    v
}

/// Regressions: an `ERROR` line before the move forfeited the game and (the engine not
/// restarted, its late move read as the answer to `RESTART`) the next one; a second
/// move to one request answered the next; a line without end grew memory without bound;
/// a child holding the engine's output made a crash wait out the reply timeout as a
/// `timeout` and stayed behind, as did a child after a polite END; outside engines' own
/// search figures were read as 0, and engines that report none showed 0 instead of n/a.
#[test]
fn real_engines_habits_are_tolerated_and_no_process_is_left() {
    let tmp = tempfile::tempdir().unwrap();
    let served = served_engine(tmp.path());
    let modes = [
        ("chatty", "", ""),
        ("double", "", ""),
        ("rapfi", "", ""),
        ("pentazen", "", ""),
        ("silent", "", ""),
        ("leftover", "", ""),
        ("longline", "", "fault: garbage (line too long"),
        // Before the fix this waited the whole reply timeout and was a `timeout`.
        (
            "orphan",
            "reply_timeout_ms = 30000",
            "fault: crash (exit code 3)",
        ),
    ];
    let mut text = format!("name = \"habits\"\n{GAUNTLET}\n{}", healthy());
    for (mode, extra, _) in &modes {
        text.push_str(&quirky(mode, mode, &served, extra));
    }
    let config = write(tmp.path(), "habits.toml", &text);
    let out = tmp.path().join("out");
    let stdout = run_to(&config, &out);
    // After every game, after END and after the orphan: nothing of the engines is left.
    assert_no_survivors(&served, "after the run");
    let games = records(&out.join("games.jsonl"));
    assert_eq!(games.len(), 2 * modes.len());
    for (mode, _, want) in &modes {
        let mine: Vec<&GameRecord> = games
            .iter()
            .filter(|r| r.black_name == *mode || r.white_name == *mode)
            .collect();
        assert_eq!(mine.len(), 2, "{mode}");
        for r in mine {
            if !want.is_empty() {
                assert!(r.reason.starts_with(want), "{mode}: {}", r.reason);
            }
            if arena::tournament::summary::fault_kind(&r.reason).is_some() == want.is_empty() {
                let log = out.join("logs").join(format!("{mode}-w0.log"));
                panic!(
                    "{mode}: {}\n{}",
                    r.reason,
                    std::fs::read_to_string(log).unwrap_or_default()
                );
            }
        }
    }
    // Figures: Rapfi's and PentaZen's words are read; a silent engine shows n/a.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let engine = |name: &str| {
        summary["engines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()
            .clone()
    };
    for name in ["rapfi", "pentazen", "chatty"] {
        let e = engine(name);
        assert_eq!(e["moves_without_nodes"], 0, "{name}: {e}");
        assert!(e["depth_mean"].as_f64().unwrap() >= 1.0, "{name}: {e}");
        assert!(e["nodes_mean"].as_f64().unwrap() >= 1.0, "{name}: {e}");
    }
    let silent = engine("silent");
    assert_eq!(silent["moves_without_nodes"], silent["moves"], "{silent}");
    let row = stdout
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("silent"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(
        row.matches("n/a").count(),
        4,
        "nodes, median, depth, n/s: {row}"
    );
    let csv = std::fs::read_to_string(out.join("standings.csv")).unwrap();
    let silent_csv = csv.lines().find(|l| l.contains(",silent,")).unwrap();
    assert!(silent_csv.contains(",,,,"), "empty cells: {silent_csv}");
    // The logs: the ERROR lines and the unasked second moves are there; the orphan's
    // exit is noted; the 3 MB line is cut.
    let log = |name: &str| {
        std::fs::read_to_string(out.join("logs").join(format!("{name}-w0.log"))).unwrap()
    };
    assert!(log("chatty").contains("< ERROR unknown INFO key"));
    assert!(log("double").contains("came unasked: ignored"));
    assert!(
        log("orphan").contains("exited: exit code 3"),
        "{}",
        log("orphan")
    );
    let long = log("longline");
    assert!(long.len() < 200_000, "the log holds {} bytes", long.len());
    assert!(long.contains("a line over 1048576 bytes"), "{long}");
}

/// Regression: SIGTERM killed arena at once and left hung engines running (only SIGINT
/// was handled).
#[test]
fn sigterm_stops_a_run_like_ctrl_c_and_takes_the_engines_down() {
    let tmp = tempfile::tempdir().unwrap();
    let served = served_engine(tmp.path());
    let text = format!(
        "name = \"term\"\n{GAUNTLET}\n{}{}",
        healthy(),
        quirky("hung", "hang", &served, "reply_timeout_ms = 120000")
    );
    let config = write(tmp.path(), "term.toml", &text);
    let out = tmp.path().join("out");
    let mut child = arena_process()
        .args([
            "run",
            &config,
            "--quiet",
            "--jobs",
            "1",
            "--no-report",
            "--out",
        ])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the engine hangs on its second move request.
    let log = out.join("logs/hung-w0.log");
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let requests = text
            .lines()
            .filter(|l| l.contains("> TURN") || l.contains("> BOARD") || l.contains("> BEGIN"))
            .count();
        if requests >= 2 {
            break;
        }
        assert!(Instant::now() < until, "the engine never hung: {text}");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!survivors(&served).is_empty(), "the engine runs");
    // SAFETY: kill(2) on the child we started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "stopped like Ctrl-C: {stderr}");
    assert!(
        stderr.contains("stopping after writing the finished games"),
        "{stderr}"
    );
    assert_no_survivors(&served, "after SIGTERM");
    // The abandoned game is not recorded: `--resume` plays it again.
    assert!(records(&out.join("games.jsonl")).is_empty());
}

/// The smaller regressions: a UAI option key with a line break injected protocol lines;
/// a line break in an engine's name broke its PGN tag; engines named `a/b` and `a_b`
/// shared one log; a SIGTERM during summary writing left temporary files that a resume
/// never removed; errors repeated the OS error; an opening longer than `max_plies` drew
/// every game at 0 plies without a word.
#[test]
fn the_smaller_fixes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();

    let uai = write(
        dir,
        "uai.toml",
        &format!(
            "name = \"uai\"\ngame = \"ataxx\"\nrounds = 1\n\n[[engines]]\nname = \"a\"\n\
             search = {{ depth = 1 }}\n\n[[engines]]\nname = \"outside\"\ncommand = \"{}\"\n\
             protocol = \"uai\"\ndepth = 1\noptions = {{ \"Hash\\nquit\" = 1 }}\n",
            arena_bin()
        ),
    );
    let e = run_bad_input(&["run", &uai, "--out", dir.join("u").to_str().unwrap()]);
    assert!(e.contains("control character"), "{e}");

    // A line break in a name is refused (issue 20): quotes are escaped in PGN tags.
    let broken = write(
        dir,
        "broken.toml",
        "name = \"names\"\ngame = \"tictactoe\"\nrounds = 1\n\n[[engines]]\n\
         name = \"two\\nlines\"\nsearch = { depth = 1 }\n\n[[engines]]\n\
         name = \"other\"\nsearch = { depth = 2 }\n",
    );
    let e = run_bad_input(&["run", &broken, "--out", dir.join("b").to_str().unwrap()]);
    assert!(
        e.contains("key `name`") && e.contains("control character"),
        "{e}"
    );
    let names = write(
        dir,
        "names.toml",
        "name = \"names\"\ngame = \"tictactoe\"\nrounds = 1\n\n[[engines]]\n\
         name = \"two lines \\\"quoted\\\"\"\nsearch = { depth = 1 }\n\n[[engines]]\n\
         name = \"other\"\nsearch = { depth = 2 }\n",
    );
    let n = dir.join("n");
    run_ok(&[
        "run",
        &names,
        "--quiet",
        "--no-report",
        "--out",
        n.to_str().unwrap(),
    ]);
    let pgn = run_ok(&["export", n.to_str().unwrap(), "--pgn"]);
    for line in pgn.lines().filter(|l| !l.is_empty()) {
        assert!(
            (line.starts_with('[') && line.ends_with("\"]")) || line.contains('-'),
            "every tag on its own line: {line:?} in\n{pgn}"
        );
    }
    assert!(
        pgn.contains("[White \"two lines \\\"quoted\\\"\"]"),
        "{pgn}"
    );

    // Stale temporaries of a killed writer go at the next resume.
    let stale = n.join(".summary.json.4242-abc-0.tmp");
    std::fs::write(&stale, "half").unwrap();
    run_ok(&[
        "run",
        &names,
        "--quiet",
        "--no-report",
        "--resume",
        "--out",
        n.to_str().unwrap(),
    ]);
    assert!(!stale.exists());

    // Two engines whose names make the same file name keep two logs.
    let served = served_engine(dir);
    let text = format!(
        "name = \"logs\"\n{GAUNTLET}\n{}{}{}",
        healthy(),
        quirky("a/b", "rapfi", &served, ""),
        quirky("a_b", "rapfi", &served, "")
    );
    let logs = write(dir, "logs.toml", &text);
    let l = dir.join("l");
    run_ok(&[
        "run",
        &logs,
        "--quiet",
        "--no-report",
        "--jobs",
        "1",
        "--out",
        l.to_str().unwrap(),
    ]);
    let mut files: Vec<String> = std::fs::read_dir(l.join("logs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["a_b-w0.log", "a_b~1-w0.log"]);

    // The OS error once, and the folder meant.
    let out = arena()
        .args(["run", &names, "--quiet", "--out", "/dev/null/x"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.matches("(os error 20)").count(), 1, "{stderr}");
    assert!(stderr.contains("/dev/null/x"), "{stderr}");

    // Openings that leave no move under max_plies.
    let long = write(
        dir,
        "long.toml",
        "name = \"long\"\ngame = \"mnk:9,9,5\"\nrounds = 1\n\n[openings]\nkind = \"random\"\n\
         plies = 4\n\n[adjudication]\nmax_plies = 4\n\n[[engines]]\nname = \"a\"\n\
         search = { depth = 1 }\n\n[[engines]]\nname = \"b\"\nsearch = { depth = 1 }\n",
    );
    let e = run_bad_input(&["run", &long, "--out", dir.join("o").to_str().unwrap()]);
    assert!(e.contains("max_plies = 4") && e.contains("4 plies"), "{e}");
    let file = write(dir, "four.txt", "0,0\n0,0, 1,0, 1,1, 0,1\n");
    let long = write(
        dir,
        "long-file.toml",
        &std::fs::read_to_string(&long).unwrap().replace(
            "kind = \"random\"\nplies = 4",
            &format!("kind = \"file\"\nfile = \"{file}\""),
        ),
    );
    let e = run_bad_input(&["run", &long, "--out", dir.join("o2").to_str().unwrap()]);
    assert!(e.contains("opening 2 already has 4 plies"), "{e}");
}

/// Issue 44, item 19: the standings' note "nodes/s: ... search under 1000 nodes a move"
/// (and the report's) named an engine that reports no nodes at all, whose figures are
/// n/a.
#[test]
fn the_tiny_search_note_leaves_out_engines_without_node_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let served = served_engine(tmp.path());
    let text = format!(
        "name = \"tiny\"\n{GAUNTLET}\n{}{}",
        healthy(),
        quirky("silent", "silent", &served, "")
    );
    let config = write(tmp.path(), "tiny.toml", &text);
    let out = tmp.path().join("out");
    let stdout = run_to(&config, &out);
    let note = stdout
        .lines()
        .find(|l| l.starts_with("nodes/s:"))
        .unwrap_or_else(|| panic!("healthy searches a few nodes a move: {stdout}"));
    assert!(note.contains("healthy"), "{note}");
    assert!(!note.contains("silent"), "silent reports no nodes: {note}");
    run_ok(&["report", "--quiet", out.to_str().unwrap()]);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let para = md
        .lines()
        .find(|l| l.starts_with("Nodes per second of"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(!para.contains("silent"), "{para}");
}
