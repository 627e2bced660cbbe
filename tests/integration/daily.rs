//! Daily use through the real binary: `arena match` without a config, progress lines
//! without a terminal, `set` overrides checked after all of them, records a reader can
//! read (and old ones still read), the commands arena suggests naming what the user
//! typed, and the resume hint of a tune keeping every override.

use std::{
    path::Path,
    process::Stdio,
    time::{Duration, Instant},
};

use arena::tournament::read_records;

use crate::common::{arena, arena_process, data, run_bad_input, run_ok};

fn engine(name: &str) -> String {
    data(&format!("../../configs/engines/{name}.toml"))
        .display()
        .to_string()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A quick 9x9 match of two shipped gomoku engines into `out`; returns stdout.
fn quick_match(out: &Path, extra: &[&str]) -> String {
    let (a, b) = (
        engine("gomoku-seed003-threat"),
        engine("gomoku-seed000-threat"),
    );
    let mut args = vec![
        "match",
        &a,
        &b,
        "--game",
        "mnk:9,9,5",
        "--depth",
        "1",
        "--rounds",
        "3",
        "--max-plies",
        "40",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run_ok(&args)
}

#[test]
fn match_writes_a_results_folder_that_stats_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m");
    let printed = quick_match(&out, &[]);
    assert!(
        printed.contains("seed003-threat vs seed000-threat: 6 games"),
        "{printed}"
    );
    for file in [
        "run.toml",
        "games.jsonl",
        "summary.json",
        "standings.csv",
        "pairings.csv",
        "report.html",
    ] {
        assert!(out.join(file).exists(), "{file} is written");
    }
    // run.toml is the exact config: both engines at depth 1 on 9x9.
    let t = arena::tournament::Tournament::from_resolved(&out.join("run.toml")).unwrap();
    assert_eq!(t.config.game.to_string(), "mnk:9,9,5");
    assert_eq!(t.config.rounds, 3);
    for spec in &t.engines {
        let arena::protocol::EngineSpec::Builtin(e) = spec else {
            panic!("built-in engines")
        };
        assert_eq!(
            (e.search.depth, e.search.nodes, e.search.movetime_ms),
            (1, 0, 0)
        );
    }
    // `arena stats` reads the folder like any run's and prints the same standings.
    let stats = run_ok(&["stats", out.to_str().unwrap()]);
    assert_eq!(
        stats.lines().take(8).collect::<Vec<_>>(),
        printed.lines().take(8).collect::<Vec<_>>()
    );
    // The same match again needs --resume, which then has nothing left to play.
    let e = run_bad_input(&[
        "match",
        &engine("gomoku-seed003-threat"),
        &engine("gomoku-seed000-threat"),
        "--game",
        "mnk:9,9,5",
        "--depth",
        "1",
        "--rounds",
        "3",
        "--max-plies",
        "40",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(e.contains("--resume"), "{e}");
    let again = quick_match(&out, &["--resume"]);
    assert!(again.contains("0 games this run"), "{again}");
}

#[test]
fn match_of_an_engine_against_itself_with_other_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("self");
    let a = engine("tictactoe-perfect");
    let printed = run_ok(&[
        "match",
        &a,
        &a,
        "--set-b",
        "search.depth=1",
        "--rounds",
        "2",
        "--quiet",
        "--no-report",
        "--out",
        out.to_str().unwrap(),
    ]);
    let t = arena::tournament::Tournament::from_resolved(&out.join("run.toml")).unwrap();
    let names: Vec<&str> = t.engines.iter().map(|e| e.name()).collect();
    assert_eq!(names.len(), 2);
    assert!(
        names[0].ends_with("-a") && names[1].ends_with("-b"),
        "{names:?}"
    );
    let depths: Vec<u32> = t
        .engines
        .iter()
        .map(|e| match e {
            arena::protocol::EngineSpec::Builtin(e) => e.search.depth,
            _ => panic!("built-in"),
        })
        .collect();
    assert_eq!(depths[1], 1, "--set-b reached the second engine only");
    assert_ne!(depths[0], 1);
    assert!(printed.contains("4 of 4 games"), "{printed}");
}

#[test]
fn match_refuses_bad_arguments_in_one_line() {
    let a = engine("gomoku-seed003-threat");
    let atx = engine("ataxx-seed004");
    for (args, needle) in [
        (vec!["match", &a, &atx], "plays ataxx"),
        (
            vec!["match", &a, &a, "--set-a", "search.nope=3"],
            "--set-a search.nope=3",
        ),
        (vec!["match", &a, &a, "--tc", "fast"], "--tc"),
        (vec!["match", &a, "cmd="], "cmd="),
        (vec!["match", &a, "cmd=x,colour=red"], "colour"),
        (
            vec!["match", &a, "cmd=x,restart=maybe"],
            "restart=maybe: on or off",
        ),
        (vec!["match", "missing.toml", &a], "missing.toml"),
    ] {
        let e = run_bad_input(&args);
        assert!(e.contains(needle), "{args:?}: {e}");
    }
}

/// Regression: overrides were checked one at a time, so `depth = 0` with a node limit
/// failed ("needs a limit") in whichever order they came.
#[test]
fn set_overrides_are_checked_after_all_of_them() {
    let tmp = tempfile::tempdir().unwrap();
    let table = data("../../configs/tables/gomoku/seed003.toml");
    for (i, set) in [
        r#"{ "search.nodes" = 300, "search.depth" = 0 }"#,
        r#"{ "search.depth" = 0, "search.nodes" = 300 }"#,
    ]
    .iter()
    .enumerate()
    {
        let config = tmp.path().join(format!("t{i}.toml"));
        std::fs::write(
            &config,
            format!(
                "name = \"t{i}\"\ngame = \"mnk:7,7,4\"\nrounds = 1\n\
                 [[engines]]\nname = \"a\"\ntable = \"{table}\"\n\
                 search = {{ depth = 2 }}\nset = {set}\n\
                 [[engines]]\nname = \"b\"\ntable = \"{table}\"\nsearch = {{ depth = 1 }}\n",
                table = table.display()
            ),
        )
        .unwrap();
        let out = tmp.path().join(format!("o{i}"));
        run_ok(&[
            "run",
            config.to_str().unwrap(),
            "--quiet",
            "--no-report",
            "--out",
            out.to_str().unwrap(),
        ]);
        let t = arena::tournament::Tournament::from_resolved(&out.join("run.toml")).unwrap();
        let arena::protocol::EngineSpec::Builtin(e) = &t.engines[0] else {
            panic!("built-in")
        };
        assert_eq!((e.search.depth, e.search.nodes), (0, 300), "order {i}");
    }
    // On the command line too, in both orders.
    let e = engine("gomoku-seed003-threat");
    for sets in [
        ["search.depth=0", "search.nodes=200"],
        ["search.nodes=200", "search.depth=0"],
    ] {
        let out = run_ok(&[
            "analyse", &e, "--moves", "h8", "--set", sets[0], "--set", sets[1],
        ]);
        assert!(out.contains("bestmove"), "{out}");
    }
    // A combination that is wrong after all of them still fails, naming no single one.
    let bad = run_bad_input(&[
        "analyse",
        &e,
        "--set",
        "search.depth=0",
        "--set",
        "search.nodes=0",
    ]);
    assert!(bad.contains("needs a limit"), "{bad}");
}

#[test]
fn without_a_terminal_each_finished_game_is_a_line() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("p");
    let config = data("tournaments/small.toml");
    // Standard error is a pipe here, as under nohup or in CI.
    let output = arena()
        .args([
            "run",
            config.to_str().unwrap(),
            "--rounds",
            "2",
            "--no-report",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    let records = read_records(&out.join("games.jsonl")).unwrap().records;
    let finished: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("Finished game "))
        .collect();
    assert_eq!(finished.len(), records.len(), "{stderr}");
    for r in &records {
        let line = format!(
            "Finished game {} ({} vs {}): {} {{{}}}",
            r.game,
            r.black_name,
            r.white_name,
            r.result.as_str(),
            r.reason
        );
        assert!(finished.contains(&line.as_str()), "{line} in {stderr}");
    }
    let scores: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("Score after "))
        .collect();
    // 12 games: after the 10th and after the last.
    assert_eq!(scores.len(), 2, "{stderr}");
    assert!(
        scores[1].starts_with("Score after 12 of 12 games"),
        "{stderr}"
    );
    assert!(scores[1].contains("threat"), "the standings: {stderr}");
    // --quiet silences it.
    let quiet = arena()
        .args([
            "run",
            config.to_str().unwrap(),
            "--rounds",
            "2",
            "--no-report",
            "--quiet",
            "--out",
            tmp.path().join("q").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(quiet.status.success());
    let stderr = String::from_utf8(quiet.stderr).unwrap();
    assert!(!stderr.contains("Finished game"), "{stderr}");
}

#[test]
fn records_have_readable_fields_in_game_order() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    let config = data("tournaments/small.toml");
    run_ok(&[
        "run",
        config.to_str().unwrap(),
        "--rounds",
        "2",
        "--jobs",
        "2",
        "--quiet",
        "--no-report",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = read(&out.join("games.jsonl"));
    let mut last = None;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["variant"], "mnk:9,9,5");
        assert!(v["seed"].is_string(), "seeds are strings: {line}");
        assert!(v["first_move_by"].is_u64(), "{line}");
        let m = &v["stats"][0];
        for key in ["depth", "nodes", "time_us"] {
            assert!(m[key].is_u64(), "{key} in {m}");
        }
        let game = v["game"].as_u64().unwrap();
        assert!(last.is_none_or(|l| l < game), "lines in game order");
        last = Some(game);
    }
    let pairings = read(&out.join("pairings.csv"));
    let lines: Vec<&str> = pairings.lines().collect();
    assert!(lines[0].starts_with("engine_a,engine_b,games,wins,draws,losses,score,elo"));
    assert_eq!(lines.len(), 1 + 3, "a line per pairing: {pairings}");
    assert!(lines[1].starts_with("threat,static,4,"), "{pairings}");

    // The same games written the old way (cryptic keys, numbers) read the same: `arena
    // stats` of the old file prints what it prints for the new one.
    let stats_new = run_ok(&["stats", out.to_str().unwrap()]);
    let old: String = text
        .lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            let o = v.as_object_mut().unwrap();
            o.remove("variant");
            let seed: u64 = o["seed"].as_str().unwrap().parse().unwrap();
            o.insert("seed".into(), seed.into());
            let by = o.remove("first_move_by").unwrap();
            o.insert("first_mover".into(), by);
            for m in o["stats"].as_array_mut().unwrap() {
                let m = m.as_object_mut().unwrap();
                for (new, old) in [
                    ("depth", "d"),
                    ("nodes", "n"),
                    ("time_us", "t"),
                    ("score", "s"),
                    ("nodes_at_depth", "i"),
                ] {
                    if let Some(x) = m.remove(new) {
                        let x = match x
                            .as_str()
                            .and_then(arena::tournament::record::score_text::parse)
                        {
                            Some(v) => v.into(),
                            None => x,
                        };
                        m.insert(old.into(), x);
                    }
                }
            }
            serde_json::to_string(&v).unwrap() + "\n"
        })
        .collect();
    assert!(old.contains("\"d\":") && !old.contains("\"depth\":"));
    std::fs::write(out.join("games.jsonl"), old).unwrap();
    assert_eq!(run_ok(&["stats", out.to_str().unwrap()]), stats_new);
}

/// The commands arena suggests can be pasted: under `cargo run` they say `cargo run
/// --`, else the program as it was started.
#[test]
fn suggested_commands_name_what_the_user_typed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("no-summary");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("run.toml"), "").unwrap();
    let direct = run_bad_input(&["report", dir.to_str().unwrap()]);
    let bin = assert_cmd::cargo::cargo_bin("arena");
    assert!(
        direct.contains(&format!("`{} stats {}`", bin.display(), dir.display())),
        "{direct}"
    );
    // As `cargo run --` leaves it: CARGO and CARGO_MANIFEST_DIR set, the binary in
    // target/debug (or target/release: `cargo run --release --`).
    let out = arena()
        .env("CARGO", "cargo")
        .env("CARGO_MANIFEST_DIR", env!("CARGO_MANIFEST_DIR"))
        .env("CARGO_PKG_NAME", "arena")
        .args(["report", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    // Another package's `cargo run` that starts arena is not arena's own.
    let other = arena()
        .env("CARGO", "cargo")
        .env("CARGO_MANIFEST_DIR", "/elsewhere")
        .env("CARGO_PKG_NAME", "some-harness")
        .args(["report", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        String::from_utf8(other.stderr)
            .unwrap()
            .contains(&format!("`{} stats", bin.display()))
    );
    let profile = bin.parent().unwrap().file_name().unwrap().to_str().unwrap();
    let prefix = match profile {
        "release" => "cargo run --release --".to_string(),
        "debug" => "cargo run --".to_string(),
        other => format!("cargo run --profile {other} --"),
    };
    assert!(
        stderr.contains(&format!("`{prefix} stats {}`", dir.display())),
        "{stderr}"
    );
}

/// Regression: the resume hint of an interrupted tune dropped `--verify-pairs` (and
/// any other override), so following it played the config's 4000 verification games
/// instead of the 200 asked for. The hint repeats the command as typed.
#[test]
fn an_interrupted_tune_says_how_to_continue_with_every_override() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tune");
    let config = data("tune/long.toml");
    let mut child = arena_process()
        .args([
            "tune",
            config.to_str().unwrap(),
            "--verify-pairs",
            "3",
            "--jobs",
            "1",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Not a timed assertion: a guard against a tune that never checkpoints.
    let deadline = Instant::now() + Duration::from_secs(300);
    while !out.join("state.json").exists() {
        assert!(Instant::now() < deadline, "no checkpoint");
        assert!(child.try_wait().unwrap().is_none(), "finished too soon");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let hint = stdout
        .lines()
        .find(|l| l.starts_with("interrupted: continue with"))
        .unwrap_or_else(|| panic!("a hint: {stdout}"));
    let bin = assert_cmd::cargo::cargo_bin("arena");
    let expected = format!(
        "interrupted: continue with  {} tune {} --verify-pairs 3 --jobs 1 --quiet --out {} --resume",
        bin.display(),
        config.display(),
        out.display()
    );
    assert_eq!(hint, expected);
}

/// Each message names the real mistake (regressions: each used to blame something
/// else, or say only "unknown field").
#[test]
fn messages_name_the_real_mistake() {
    let table = data("../../configs/tables/gomoku/seed003.toml");
    let tune_config = data("../../configs/tune-gomoku.toml");
    let tournament_config = data("../../configs/gomoku-tables.toml");
    let tune_folder = data("tuning");
    let e = engine("gomoku-seed003-threat");
    let cases: Vec<(Vec<&str>, &[&str], &[&str])> = vec![
        // No balancing was asked: the board is too small, say so.
        (
            vec!["openings", "tictactoe", "--plies", "20"],
            &["3x3 board has 9 cells", "fewer plies"],
            &["balance"],
        ),
        // --fen is a board; a move list goes in --moves.
        (
            vec!["perft", "gomoku", "4", "--fen", "garbage"],
            &["'garbage' is not an m,n,k board", "--moves"],
            &["move list"],
        ),
        (
            vec!["run", tune_config.to_str().unwrap()],
            &["looks like a tuning config, for arena tune"],
            &[],
        ),
        (
            vec!["tune", tournament_config.to_str().unwrap()],
            &["looks like a tournament config, for arena run"],
            &[],
        ),
        (
            vec!["analyse", table.to_str().unwrap()],
            &["looks like a weight table"],
            &[],
        ),
        (
            vec!["stats", tune_folder.to_str().unwrap()],
            &["is a tuning run's folder", "report", "verification"],
            &[],
        ),
        // One way to state the board limits.
        (
            vec!["show", "mnk:21,21,5"],
            &["each side must be 1 to 20"],
            &[],
        ),
        // 0 is no limit, as in configs: a search with no limit at all is refused.
        (
            vec!["analyse", &e, "--depth", "0"],
            &["0 means no limit", "at least 1"],
            &[],
        ),
        (vec!["bench", &e, "--depth", "0"], &["--depth"], &[]),
    ];
    for (args, wanted, unwanted) in cases {
        let message = run_bad_input(&args);
        for w in wanted {
            assert!(message.contains(w), "{args:?}: `{w}` in {message}");
        }
        for u in unwanted {
            assert!(!message.contains(u), "{args:?}: no `{u}` in {message}");
        }
    }
    // `--depth 0` with another limit is simply no depth limit.
    let out = run_ok(&[
        "analyse", &e, "--moves", "h8", "--depth", "0", "--nodes", "300",
    ]);
    assert!(out.contains("bestmove"), "{out}");
    // The limit flags replace the config's limits, a `--set` of them included: a `--set`
    // that would leave the config no limit is not refused when a flag gives one.
    let out = run_ok(&[
        "analyse",
        &e,
        "--moves",
        "h8",
        "--set",
        "search.depth=0",
        "--nodes",
        "300",
    ]);
    assert!(out.contains("bestmove"), "{out}");
    let deep = run_bad_input(&["analyse", &e, "--depth", "500"]);
    assert!(deep.contains("--depth 500 is too deep"), "{deep}");
}

/// `--jobs` and a config's `jobs` are one setting; `concurrency` and `--concurrency`
/// are read as the same.
#[test]
fn jobs_and_concurrency_are_one_setting() {
    let tmp = tempfile::tempdir().unwrap();
    let text = read(&data("tournaments/small.toml"))
        .replace("concurrency = 2", "jobs = 1")
        .replace(
            "../../../configs/",
            &format!("{}/configs/", env!("CARGO_MANIFEST_DIR")),
        );
    assert!(text.contains("jobs = 1"));
    let config = tmp.path().join("jobs.toml");
    std::fs::write(&config, &text).unwrap();
    let out = tmp.path().join("j");
    let result = arena()
        .args([
            "run",
            config.to_str().unwrap(),
            "--rounds",
            "1",
            "--quiet",
            "--no-report",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let t = arena::tournament::Tournament::from_resolved(&out.join("run.toml")).unwrap();
    assert_eq!(t.config.concurrency, 1);
    run_ok(&[
        "run",
        data("tournaments/small.toml").to_str().unwrap(),
        "--rounds",
        "1",
        "--concurrency",
        "1",
        "--quiet",
        "--no-report",
        "--out",
        tmp.path().join("c").to_str().unwrap(),
    ]);
}

/// An outside program as `cmd=...`: here arena itself, served over Gomocup (the
/// protocol tests check that a served engine plays the in-process engine's games).
#[test]
fn match_plays_an_outside_engine_given_as_cmd() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("outside");
    let bin = assert_cmd::cargo::cargo_bin("arena");
    let a = engine("gomoku-seed003-threat");
    let cmd = format!("cmd={},arg=serve,arg={a},name=served", bin.display());
    let printed = run_ok(&[
        "match",
        &a,
        &cmd,
        "--game",
        "mnk:9,9,5",
        "--depth",
        "1",
        "--rounds",
        "1",
        "--max-plies",
        "30",
        "--quiet",
        "--no-report",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        printed.contains("seed003-threat vs served: 2 games"),
        "{printed}"
    );
    let t = arena::tournament::Tournament::from_resolved(&out.join("run.toml")).unwrap();
    let arena::protocol::EngineSpec::External(e) = &t.engines[1] else {
        panic!("the second engine is an outside program")
    };
    assert_eq!(e.name, "served");
    assert_eq!(e.args, ["serve", a.as_str()]);
    assert_eq!(e.depth, Some(1), "--depth reached the outside engine");
    let records = read_records(&out.join("games.jsonl")).unwrap().records;
    assert_eq!(records.len(), 2);
    assert!(
        records.iter().all(|r| !r.reason.starts_with("fault")),
        "{records:?}"
    );
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

/// The lines of the "what differs" block a run prints.
fn what_differs(printed: &str) -> Vec<&str> {
    printed
        .lines()
        .skip_while(|l| !l.starts_with("what differs"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(str::trim)
        .collect()
}

/// Regression: `--set-a`/`--set-b` limits are named in what differs. Between built-in
/// engines they always were; with an outside engine (here arena served over Gomocup, from
/// an engine file) the list said only "built-in | outside program" and left out the
/// depths the flags gave, and two outside engines differing only by a flag showed no
/// difference at all. Equal limits (`--depth` for both) stay out of the list.
#[test]
fn match_names_the_limits_set_on_one_engine() {
    let tmp = tempfile::tempdir().unwrap();
    let a = engine("gomoku-seed003-threat");
    let bin = assert_cmd::cargo::cargo_bin("arena");
    let outside = crate::common::write(
        tmp.path(),
        "served.toml",
        &format!(
            "name = \"served\"\ncommand = \"{}\"\nargs = [\"serve\", \"{a}\"]\n\
             protocol = \"gomocup\"\ndepth = 1\n",
            bin.display()
        ),
    );
    let play = |out: &str, a: &str, b: &str, flags: &[&str]| {
        let out = tmp.path().join(out);
        let mut args = vec![
            "match",
            a,
            b,
            "--game",
            "mnk:9,9,5",
            "--rounds",
            "1",
            "--max-plies",
            "8",
            "--quiet",
            "--no-report",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(flags);
        let printed = run_ok(&args);
        let summary: serde_json::Value =
            serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
        (printed, summary["differences"].clone())
    };

    // Built-in against outside: the depths differ, and are named.
    let (printed, json) = play(
        "mixed",
        &a,
        &outside,
        &["--set-a", "search.depth=1", "--set-b", "search.depth=2"],
    );
    let block = what_differs(&printed);
    assert_eq!(
        block,
        [
            "engine: built-in | outside program (gomocup) (an outside engine is compared as a whole)",
            "search.depth: 1 | 2",
        ],
        "{printed}"
    );
    assert_eq!(json[1]["key"], "search.depth", "{json}");
    assert_eq!(json[1]["values"], serde_json::json!(["1", "2"]), "{json}");

    // The same outside engine twice, one with a node limit.
    let (printed, _) = play(
        "outside",
        &outside,
        &outside,
        &["--set-b", "search.nodes=5000"],
    );
    let block = what_differs(&printed);
    assert_eq!(block.len(), 2, "{printed}");
    assert_eq!(block[1], "search.nodes: 0 | 5000", "{printed}");

    // --depth for both and --set-b on a built-in parameter: only the parameter.
    let (printed, _) = play(
        "builtin",
        &a,
        &a,
        &["--depth", "1", "--set-b", "search.params.lmr_divisor=150"],
    );
    assert_eq!(
        what_differs(&printed),
        ["search.params.lmr_divisor: 200 | 150"],
        "{printed}"
    );
}

/// Regression: a 1-pair match (2 games) printed a narrow finite Elo interval (a 1-1 gave
/// `+0.0 [-34, +34]`, from fishtest's 0.001 stand-ins alone). With fewer than five pairs
/// it has none: unbounded on the console, `null` in summary.json (with `too_few`),
/// `-inf`/`+inf` in pairings.csv, no rating error in standings.csv, and one warning says
/// why.
#[test]
fn a_one_pair_match_has_no_interval() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("one");
    let a = engine("tictactoe-perfect");
    // The same engine twice: each pair's two games mirror each other, a 50 % score.
    let printed = run_ok(&[
        "match",
        &a,
        &a,
        "--rounds",
        "1",
        "--quiet",
        "--no-report",
        "--out",
        out.to_str().unwrap(),
    ]);
    let head = printed
        .lines()
        .find(|l| l.starts_with("head-to-head:"))
        .unwrap_or_else(|| panic!("a head-to-head line: {printed}"));
    assert!(head.contains("Elo +0.0 [-inf, +inf] (95 %)"), "{head}");
    assert!(head.contains("nElo +0.0 ± inf"), "{head}");
    let warnings: Vec<&str> = printed
        .lines()
        .filter(|l| l.contains("too few for an interval"))
        .collect();
    assert_eq!(warnings.len(), 1, "said once: {printed}");
    assert!(
        warnings[0].contains("1 pair is too few for an interval (at least 5 pairs"),
        "{}",
        warnings[0]
    );

    let summary: serde_json::Value =
        serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    let e = &summary["pairings"][0]["estimate"];
    assert_eq!(e["too_few"], true, "{e}");
    assert_eq!(e["elo"], 0.0, "{e}");
    for key in ["elo_low", "elo_high", "elo_error", "nelo_error"] {
        assert!(e[key].is_null(), "{key}: {e}");
    }
    for engine in summary["engines"].as_array().unwrap() {
        assert!(engine["elo_error"].is_null(), "{engine}");
    }

    let pairings = read(&out.join("pairings.csv"));
    let mut rows = pairings.lines().map(|l| l.split(',').collect::<Vec<_>>());
    let header = rows.next().unwrap();
    let row = rows.next().unwrap();
    let cell = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(
        (
            cell("elo"),
            cell("elo_low"),
            cell("elo_high"),
            cell("elo_error")
        ),
        ("0.00", "-inf", "+inf", "+inf"),
        "{pairings}"
    );
    let standings = read(&out.join("standings.csv"));
    let mut rows = standings.lines().map(|l| l.split(',').collect::<Vec<_>>());
    let header = rows.next().unwrap();
    let error = header.iter().position(|h| *h == "elo_error").unwrap();
    for row in rows {
        assert_eq!(row[error], "", "no rating error: {standings}");
    }

    // Five pairs: an interval again, and no such warning.
    let five = run_ok(&[
        "match",
        &a,
        &a,
        "--rounds",
        "5",
        "--quiet",
        "--no-report",
        "--out",
        tmp.path().join("five").to_str().unwrap(),
    ]);
    assert!(!five.contains("too few for an interval"), "{five}");
    let head = five
        .lines()
        .find(|l| l.starts_with("head-to-head:"))
        .unwrap();
    assert!(!head.contains("inf"), "{head}");
}
