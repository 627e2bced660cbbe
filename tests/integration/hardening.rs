//! Hardening (issue 13), through the real binary: outside engines with real engines'
//! habits are tolerated and leave no process behind (after a game, after END, after
//! SIGTERM, after an orphan holds their output); one writer per results folder; every
//! record arena reads is checked against the schedule, and no mutation of games.jsonl or
//! state.json makes arena panic; `arena serve` survives what real managers send; memory
//! stays flat in the number of games; and the smaller fixes. Each test says which bug it
//! pins.

use std::{
    path::{Path, PathBuf},
    process::Stdio,
    time::{Duration, Instant},
};

use arena::tournament::{GameRecord, read_records};

use crate::common::{
    arena, arena_bin, arena_process, assert_no_survivors, data, fixture, root, run_bad_input,
    run_ok, run_to, serve_ok, survivors, table, wait_with_peak, write,
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

/// Regression: two `arena run --out DIR` at once wrote 120 lines for 60 games and both
/// exited 0.
#[test]
fn a_second_writer_is_refused_at_once_and_the_first_run_is_undisturbed() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write(
        tmp.path(),
        "pair.toml",
        &format!(
            "name = \"pair\"\ngame = \"mnk:9,9,5\"\nrounds = 12\nseed = 9\n\n[openings]\n\
             kind = \"random\"\nplies = 2\nradius = 1\n\n[[engines]]\nname = \"a\"\n\
             table = \"{t}\"\nsearch = {{ depth = 2, ordering = [\"tt_move\", \"threat\"] }}\n\n\
             [[engines]]\nname = \"b\"\ntable = \"{t}\"\nsearch = {{ depth = 1 }}\n",
            t = table("gomoku/seed003.toml")
        ),
    );
    let busy = tmp.path().join("busy");
    let mut first = arena_process()
        .args([
            "run",
            &config,
            "--quiet",
            "--jobs",
            "1",
            "--no-report",
            "--out",
        ])
        .arg(&busy)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = busy.join(".arena.lock");
    let until = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&lock).is_ok_and(|t| t.contains("pid")) {
        assert!(Instant::now() < until, "the first run never took the lock");
        std::thread::sleep(Duration::from_millis(10));
    }
    let e = run_bad_input(&["run", &config, "--quiet", "--out", busy.to_str().unwrap()]);
    assert!(
        e.contains(&format!("pid {}", first.id())) && e.contains("in use"),
        "{e}"
    );
    // A resume and a merge are writers too.
    let e = run_bad_input(&["run", &config, "--resume", "--out", busy.to_str().unwrap()]);
    assert!(e.contains(&format!("pid {}", first.id())), "{e}");
    assert!(first.wait().unwrap().success());
    let alone = tmp.path().join("alone");
    run_ok(&[
        "run",
        &config,
        "--quiet",
        "--no-report",
        "--out",
        alone.to_str().unwrap(),
    ]);
    let strip = |v: Vec<GameRecord>| -> Vec<GameRecord> {
        v.into_iter().map(|r| r.without_times()).collect()
    };
    let (a, b) = (
        strip(records(&busy.join("games.jsonl"))),
        strip(records(&alone.join("games.jsonl"))),
    );
    assert_eq!(a.len(), 24);
    assert_eq!(a, b, "the first run's games are an undisturbed run's");
    // Released: the folder is writable again.
    run_ok(&[
        "run",
        &config,
        "--quiet",
        "--no-report",
        "--resume",
        "--out",
        busy.to_str().unwrap(),
    ]);
}

/// A tic-tac-toe round robin of three engines, 24 games in about a second: results to
/// read, damage and resume.
fn tictactoe(dir: &Path, name: &str) -> String {
    crate::common::tictactoe_config(dir, name, "")
}

/// A tune of four pairs at depth 1 on 9×9 (well under a second).
fn tiny_tune(dir: &Path) -> String {
    write(
        dir,
        "tiny-tune.toml",
        &format!(
            "name = \"tiny\"\ngame = \"mnk:9,9,5\"\nengine = \"{}\"\n\
             set = {{ \"search.depth\" = 1, \"search.tt_mb\" = 1 }}\npairs = 4\nbatch = 2\n\
             seed = 3\n\n[openings]\nkind = \"random\"\nplies = 3\nradius = 2\n\n\
             [adjudication]\nmax_plies = 40\n\n[[params]]\nname = \"table.open_three\"\n\
             min = 1000\nmax = 20000\n",
            root()
                .join("configs/engines/gomoku-seed003-threat.toml")
                .display()
        ),
    )
}

/// Sets `key` of the JSON object on line `line` (1-based) of `text`.
fn set_field(text: &str, line: usize, key: &str, value: serde_json::Value) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut v: serde_json::Value = serde_json::from_str(&lines[line - 1]).unwrap();
    v[key] = value;
    lines[line - 1] = v.to_string();
    lines.join("\n") + "\n"
}

/// Whether `message` points at `file` with a line: `file:LINE` or `line LINE`.
fn names_file_and_line(message: &str, file: &str) -> bool {
    let at_line = message.match_indices(file).any(|(at, _)| {
        let rest = &message[at + file.len()..];
        rest.strip_prefix(':')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    });
    at_line
        || (message.contains(file)
            && message
                .match_indices("line ")
                .any(|(at, _)| message[at + 5..].starts_with(|c: char| c.is_ascii_digit())))
}

/// Regressions: `"pairing":99` on one line panicked `arena stats`, `arena run --resume`
/// and `arena merge`; `"black":99` panicked `arena stats`; a state.json with
/// `pairs_done=100, batches_done=1` panicked `arena tune --resume`; a duplicated record
/// was counted ("25 of 24 games"), as was an index outside the schedule; `--resume`
/// took another run's games.jsonl silently.
#[test]
fn records_that_do_not_match_the_schedule_are_refused_with_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tictactoe(tmp.path(), "ttt");
    let good = tmp.path().join("good");
    let d = good.to_str().unwrap();
    run_ok(&["run", &config, "--quiet", "--no-report", "--out", d]);
    let games = std::fs::read_to_string(good.join("games.jsonl")).unwrap();
    assert_eq!(games.lines().count(), 24);
    let damaged = |name: &str, text: &str| -> PathBuf {
        let dir = tmp.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(good.join("run.toml"), dir.join("run.toml")).unwrap();
        std::fs::write(dir.join("games.jsonl"), text).unwrap();
        dir
    };
    let cases = [
        (
            "pairing",
            set_field(&games, 3, "pairing", 99.into()),
            3,
            "pairing is 99",
        ),
        (
            "black",
            set_field(&games, 5, "black", 99.into()),
            5,
            "colours",
        ),
        (
            "twice",
            format!("{games}{}\n", games.lines().nth(6).unwrap()),
            25,
            "appears twice",
        ),
        (
            "outside",
            set_field(&games, 2, "game", 5000.into()),
            2,
            "not in the schedule",
        ),
        (
            "seed",
            set_field(&games, 4, "seed", 1.into()),
            4,
            "another seed",
        ),
    ];
    for (name, text, line, want) in &cases {
        let dir = damaged(name, text);
        let d = dir.to_str().unwrap();
        for args in [
            vec!["stats", d],
            vec!["run", &config, "--resume", "--quiet", "--out", d],
            vec!["export", d, "--pgn"],
        ] {
            let e = run_bad_input(&args);
            assert!(
                e.contains(&format!("games.jsonl:{line}:")) && e.contains(want),
                "{args:?}: {e}"
            );
        }
    }
    // Another run's results (another seed) are not resumed.
    let other = tmp.path().join("other");
    run_ok(&[
        "run",
        &config,
        "--quiet",
        "--no-report",
        "--seed",
        "77",
        "--out",
        other.to_str().unwrap(),
    ]);
    let foreign = damaged(
        "foreign",
        &std::fs::read_to_string(other.join("games.jsonl")).unwrap(),
    );
    let e = run_bad_input(&[
        "run",
        &config,
        "--resume",
        "--out",
        foreign.to_str().unwrap(),
    ]);
    assert!(
        e.contains("games.jsonl:1:") && e.contains("another seed"),
        "{e}"
    );

    // A merge checks every shard's records the same way.
    let sharded = tmp.path().join("sharded");
    let s = sharded.to_str().unwrap();
    for shard in ["0/2", "1/2"] {
        run_ok(&["run", &config, "--quiet", "--shard", shard, "--out", s]);
    }
    let shard0 = sharded.join("shards/shard-0-of-2.jsonl");
    let text = std::fs::read_to_string(&shard0).unwrap();
    std::fs::write(&shard0, set_field(&text, 2, "pairing", 99.into())).unwrap();
    let e = run_bad_input(&["merge", s]);
    assert!(
        e.contains("shard-0-of-2.jsonl:2:") && e.contains("pairing is 99"),
        "{e}"
    );
    assert!(!sharded.join("games.jsonl").exists(), "nothing written");

    // tune --resume checks its checkpoint.
    let tune = tiny_tune(tmp.path());
    let t = tmp.path().join("tune");
    run_ok(&[
        "tune",
        &tune,
        "--quiet",
        "--verify-pairs",
        "0",
        "--out",
        t.to_str().unwrap(),
    ]);
    let state = std::fs::read_to_string(t.join("state.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&state).unwrap();
    v["state"]["pairs_done"] = 100.into();
    v["state"]["batches_done"] = 1.into();
    std::fs::write(t.join("state.json"), v.to_string()).unwrap();
    let e = run_bad_input(&[
        "tune",
        &tune,
        "--resume",
        "--quiet",
        "--out",
        t.to_str().unwrap(),
    ]);
    assert!(e.contains("state.json:1: key `pairs_done`"), "{e}");
}

/// A tiny deterministic generator for the fuzz (SplitMix64).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A value that a damaged or hand-edited file could hold instead of the right one.
fn odd_value(rng: &mut Mix, near: &serde_json::Value) -> serde_json::Value {
    use serde_json::json;
    match rng.below(12) {
        0 => json!(rng.below(4)),
        1 => json!(99),
        2 => json!(-1),
        3 => json!(u64::MAX),
        4 => json!(1.5),
        5 => json!("x"),
        6 => serde_json::Value::Null,
        7 => json!(true),
        8 => json!([]),
        9 => json!({}),
        10 => json!(near.as_u64().map_or(0, |n| n.saturating_add(1))),
        _ => json!(near.as_u64().map_or(7, |n| n.saturating_sub(1))),
    }
}

/// Replaces one value somewhere in `v` (any depth), or deletes an object's key.
fn mutate_value(rng: &mut Mix, v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) if !map.is_empty() => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let key = &keys[rng.below(keys.len())];
            match rng.below(5) {
                0 => {
                    map.remove(key);
                }
                1 | 2 => {
                    let old = map[key].clone();
                    map[key] = odd_value(rng, &old);
                }
                _ => mutate_value(rng, map.get_mut(key).unwrap()),
            }
        }
        serde_json::Value::Array(items) if !items.is_empty() => {
            let i = rng.below(items.len());
            match rng.below(4) {
                0 => {
                    items.remove(i);
                }
                1 => {
                    let old = items[i].clone();
                    items[i] = odd_value(rng, &old);
                }
                _ => mutate_value(rng, &mut items[i]),
            }
        }
        other => {
            let old = other.clone();
            *other = odd_value(rng, &old);
        }
    }
}

/// One to three seeded mutations of a JSON-lines text: values, keys, whole lines
/// (duplicated, dropped, swapped, cut, garbage) and bytes.
fn mutate_lines(rng: &mut Mix, text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(3) {
        if lines.is_empty() {
            break;
        }
        let i = rng.below(lines.len());
        match rng.below(9) {
            0..=2 => {
                if let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&lines[i]) {
                    mutate_value(rng, &mut v);
                    lines[i] = v.to_string();
                }
            }
            3 => {
                let copy = lines[i].clone();
                let at = rng.below(lines.len() + 1);
                lines.insert(at, copy);
            }
            4 => {
                lines.remove(i);
            }
            5 => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            6 => {
                let mut cut = rng.below(lines[i].len());
                while !lines[i].is_char_boundary(cut) {
                    cut -= 1;
                }
                lines[i].truncate(cut);
            }
            7 => {
                let garbage = ["{", "not json", "[]", "{}", "null"][rng.below(5)];
                lines.insert(i, garbage.to_string());
            }
            _ => {
                let mut bytes = lines[i].clone().into_bytes();
                if !bytes.is_empty() {
                    let at = rng.below(bytes.len());
                    bytes[at] = b"0123456789,:{}[]\"ax-"[rng.below(20)];
                }
                lines[i] = String::from_utf8_lossy(&bytes).into_owned();
            }
        }
    }
    let mut out = lines.join("\n");
    // Sometimes the last line is torn (no newline), as a crash leaves it.
    if rng.below(5) != 0 {
        out.push('\n');
    }
    out
}

/// Copies the files of `from` (not its folders) into a fresh folder under `tmp`.
fn scratch(tmp: &Path, from: &Path, n: usize) -> PathBuf {
    let dir = tmp.join(format!("scratch-{n}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
    }
    dir
}

/// Runs `f`, failing the test (with what was fed) if it panics; its error text.
fn no_panic<T, E: std::fmt::Display>(
    what: &str,
    f: impl FnOnce() -> Result<T, E>,
) -> Option<String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(_)) => None,
        Ok(Err(e)) => Some(e.to_string()),
        Err(_) => panic!("{what}: panicked"),
    }
}

/// The fuzz the issue asks for: thousands of seeded mutations of a valid games.jsonl
/// (fed to the statistics, a resume and a merge) and of a tune's state.json (fed to
/// `tune --resume`): no panic, and every refusal names the file and the line. The bulk
/// runs in this process (the library the commands call); a sample goes through the
/// binary, where exit code 2 and a one-line error are checked too.
#[test]
fn mutated_records_and_checkpoints_never_panic_and_refusals_name_file_and_line() {
    use std::sync::{Arc, atomic::AtomicBool};

    use arena::{
        tournament::{RunOptions, Tournament, merge, summary, validate},
        tune::{JobOptions, Tune},
    };

    let tmp = tempfile::tempdir().unwrap();
    let config = tictactoe(tmp.path(), "fuzz");
    let good = tmp.path().join("good");
    run_ok(&[
        "run",
        &config,
        "--quiet",
        "--no-report",
        "--out",
        good.to_str().unwrap(),
    ]);
    let games = std::fs::read_to_string(good.join("games.jsonl")).unwrap();
    let sharded = tmp.path().join("sharded");
    for shard in ["0/2", "1/2"] {
        run_ok(&[
            "run",
            &config,
            "--quiet",
            "--shard",
            shard,
            "--out",
            sharded.to_str().unwrap(),
        ]);
    }
    let shard_text = std::fs::read_to_string(sharded.join("shards/shard-0-of-2.jsonl")).unwrap();
    let tune_config = tiny_tune(tmp.path());
    let tuned = tmp.path().join("tuned");
    run_ok(&[
        "tune",
        &tune_config,
        "--quiet",
        "--verify-pairs",
        "0",
        "--out",
        tuned.to_str().unwrap(),
    ]);
    let state = std::fs::read_to_string(tuned.join("state.json")).unwrap();

    let t = Tournament::load(Path::new(&config)).unwrap();
    use arena::config::ConfigFile;
    let tune = Tune::load(Path::new(&tune_config)).unwrap();
    let shape = validate::RunShape::of(&t, None);
    let stop = Arc::new(AtomicBool::new(false));
    let mut rng = Mix(0x13);
    let (mut refused, mut accepted) = (0, 0);
    let mut tally = |what: &str, file: &str, fed: &str, outcome: Option<String>| match outcome {
        Some(message) => {
            assert!(
                names_file_and_line(&message, file),
                "{what}: the refusal does not name {file} and a line: {message}\nfed:\n{fed}"
            );
            refused += 1;
        }
        None => accepted += 1,
    };
    const RECORD_CASES: usize = 1500;
    for n in 0..RECORD_CASES {
        let text = mutate_lines(&mut rng, &games);
        // `arena stats`: checked reading, then the statistics.
        let path = tmp.path().join("stats.jsonl");
        std::fs::write(&path, &text).unwrap();
        let outcome = no_panic("stats", || {
            validate::read_checked(&path, &shape)
                .map(|c| summary::summarize(&t, &shape.schedule, &c.records, None))
        });
        tally("stats", "stats.jsonl", &text, outcome);
        // `arena run --resume` (every fourth case: a resume may replay games).
        if n % 4 == 0 {
            let dir = scratch(tmp.path(), &good, n);
            std::fs::write(dir.join("games.jsonl"), &text).unwrap();
            let options = RunOptions {
                jobs: 1,
                resume: true,
                out_dir: dir,
                shard: None,
                stop: Arc::clone(&stop),
                live: Default::default(),
            };
            let outcome = no_panic("resume", || {
                arena::tournament::run(&t, &options, &mut |_| {})
            });
            tally("resume", "games.jsonl", &text, outcome);
        }
        // `arena merge`, with the first shard damaged.
        if n % 2 == 0 {
            let text = mutate_lines(&mut rng, &shard_text);
            let dir = scratch(tmp.path(), &sharded, n);
            std::fs::create_dir_all(dir.join("shards")).unwrap();
            for entry in std::fs::read_dir(sharded.join("shards")).unwrap().flatten() {
                std::fs::copy(entry.path(), dir.join("shards").join(entry.file_name())).unwrap();
            }
            std::fs::write(dir.join("shards/shard-0-of-2.jsonl"), &text).unwrap();
            let outcome = no_panic("merge", || merge::merge(&dir));
            tally("merge", "shard-0-of-2.jsonl", &text, outcome);
        }
    }
    const STATE_CASES: usize = 1000;
    for n in 0..STATE_CASES {
        let text = match rng.below(4) {
            0 => mutate_lines(&mut rng, &state),
            _ => {
                let mut v: serde_json::Value = serde_json::from_str(&state).unwrap();
                for _ in 0..1 + rng.below(2) {
                    mutate_value(&mut rng, &mut v);
                }
                v.to_string()
            }
        };
        let dir = scratch(tmp.path(), &tuned, n);
        std::fs::write(dir.join("state.json"), &text).unwrap();
        let options = JobOptions {
            jobs: 1,
            resume: true,
            out_dir: dir,
            stop: Arc::clone(&stop),
        };
        let outcome = no_panic("tune --resume", || {
            arena::tune::run(&tune, &options, None, &mut |_| {})
        });
        tally("tune --resume", "state.json", &text, outcome);
    }
    eprintln!("record and checkpoint fuzz: {refused} refused, {accepted} accepted");
    assert!(
        refused > 1000 && accepted > 100,
        "{refused} refused, {accepted} accepted"
    );

    // A sample through the binary: exit 0 or 2 with one line naming file and line.
    for n in 0..12 {
        let text = mutate_lines(&mut rng, &games);
        let dir = scratch(tmp.path(), &good, 10_000 + n);
        std::fs::write(dir.join("games.jsonl"), &text).unwrap();
        let d = dir.to_str().unwrap();
        for args in [
            vec!["stats", d],
            vec![
                "run",
                &config,
                "--resume",
                "--quiet",
                "--no-report",
                "--out",
                d,
            ],
        ] {
            binary_outcome(&args, "games.jsonl", &text);
        }
        let mut v: serde_json::Value = serde_json::from_str(&state).unwrap();
        mutate_value(&mut rng, &mut v);
        let dir = scratch(tmp.path(), &tuned, 20_000 + n);
        std::fs::write(dir.join("state.json"), v.to_string()).unwrap();
        binary_outcome(
            &[
                "tune",
                &tune_config,
                "--resume",
                "--quiet",
                "--verify-pairs",
                "0",
                "--out",
                dir.to_str().unwrap(),
            ],
            "state.json",
            &v.to_string(),
        );
    }
}

/// Runs arena: success, or exit 2 with one line that names `file` and a line.
fn binary_outcome(args: &[&str], file: &str, fed: &str) {
    let out = arena().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked"),
        "{args:?} panicked: {stderr}\nfed:\n{fed}"
    );
    match out.status.code() {
        Some(0) => {}
        Some(2) => {
            let errors: Vec<&str> = stderr
                .lines()
                .filter(|l| l.starts_with("arena: error"))
                .collect();
            assert_eq!(errors.len(), 1, "{args:?}: {stderr}");
            assert!(
                names_file_and_line(errors[0], file),
                "{args:?}: {stderr}\nfed:\n{fed}"
            );
        }
        other => panic!("{args:?}: exit {other:?}: {stderr}\nfed:\n{fed}"),
    }
}

/// Regressions in `arena serve`: a byte that is not UTF-8 (`INFO folder C:\Jürgen` in
/// Latin-1) ended the protocol loop with exit 2; after `go infinite` a `position` blocked
/// the loop so `stop` and `quit` were never read; a `YXBOARD` block got one `UNKNOWN`
/// per line; `INFO rule 8` (caro) was played as freestyle. The search is deep enough
/// that `END` always arrives before it ends (at depth 1 the move could be printed first).
#[test]
fn serve_survives_what_real_managers_send() {
    let gomoku = root().join("configs/engines/gomoku-seed003-threat.toml");
    let g = gomoku.to_str().unwrap();
    let mut input = b"START 15\nINFO folder C:\\J".to_vec();
    input.push(0xFC);
    input.extend_from_slice(b"rgen\nYXBOARD\n7,7,1\n8,8,2\nDONE\nINFO rule 8\nBEGIN\nEND\n");
    let out = serve_ok(&[g, "--set", "search.depth=60"], &input);
    let replies: Vec<&str> = out.lines().filter(|l| !l.starts_with("MESSAGE")).collect();
    assert_eq!(replies[0], "OK", "{out}");
    assert_eq!(
        replies[1], "UNKNOWN command 'YXBOARD'",
        "one answer for the block: {out}"
    );
    assert!(
        replies[2].starts_with("ERROR rule 8: caro is not supported"),
        "{out}"
    );
    assert_eq!(replies.len(), 3, "END stops BEGIN's search silently: {out}");

    let ataxx = root().join("configs/engines/ataxx-seed004.toml");
    let out = serve_ok(
        &[ataxx.to_str().unwrap(), "--protocol", "uai"],
        b"uai\nposition startpos\ngo infinite\nposition startpos moves g2\nisready\nstop\n\
          go depth 1\nstop\nquit\n",
    );
    assert!(out.contains("readyok"), "{out}");
    assert_eq!(
        out.matches("bestmove").count(),
        2,
        "stop, then the queued position's go: {out}"
    );
}

/// Regressions: `rounds = 4294967295` aborted on a 103 GB allocation and `rounds =
/// 10000000` with `[sprt]` took 1.36 GB before the first game (the schedule and the
/// openings were made up front); `search.radius = 65536` hung a depth-1 search.
#[test]
fn memory_is_flat_in_the_number_of_games_and_radius_is_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("huge");
    let child = arena_process()
        .args(["run"])
        .arg(data("tournaments/sprt.toml"))
        .args([
            "--rounds",
            "4294967295",
            "--quiet",
            "--no-report",
            "--jobs",
            "2",
            "--out",
        ])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (status, peak_kib) = wait_with_peak(child);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "status {status}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["scheduled_games"], 2 * 4_294_967_295u64);
    assert_ne!(
        summary["sprt"]["decision"], "continue",
        "{}",
        summary["sprt"]
    );
    assert!(
        peak_kib < 300 * 1024,
        "peak memory {peak_kib} KiB for 8.6e9 scheduled games"
    );

    for set in ["search.radius=65536", "search.radius=16"] {
        let e = run_bad_input(&[
            "analyse",
            root()
                .join("configs/engines/gomoku-seed003-threat.toml")
                .to_str()
                .unwrap(),
            "--depth",
            "1",
            "--set",
            set,
        ]);
        assert!(e.contains("search.radius") && e.contains("15x15"), "{e}");
    }
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
