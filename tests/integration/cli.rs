//! The command line as a user meets it, through the real binary: `set` overrides
//! checked after all of them, a line per finished game without a terminal, the commands
//! arena suggests naming what the user typed, messages that name the real mistake,
//! `--jobs` and concurrency as one setting, and the other tools' spellings of options
//! getting arena's names.

use std::path::Path;

use arena::tournament::read_records;

use crate::common::{arena, data, run_bad_input, run_ok};

fn engine(name: &str) -> String {
    data(&format!("../../configs/engines/{name}.toml"))
        .display()
        .to_string()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
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

/// Issue 20, item 22: cutechess-cli, fastchess and c-gomoku-cli write options with one
/// dash; clap's "use '-- -c'" misled. `--concurrency` is taken everywhere `--jobs` is.
#[test]
fn other_tools_spellings_get_arenas_names() {
    let e = run_bad_input(&["match", "a.toml", "b.toml", "-concurrency", "2"]);
    assert!(
        e.contains("`-concurrency`") && e.contains("--concurrency"),
        "{e}"
    );
    assert!(!e.contains("-- -c"), "{e}");
    let e = run_bad_input(&["run", "x.toml", "-rounds", "10"]);
    assert!(e.contains("--rounds"), "{e}");
    let e = run_bad_input(&["match", "a.toml", "b.toml", "-games", "10"]);
    assert!(e.contains("--rounds (game pairs"), "{e}");
    for command in ["run", "match", "sweep", "tune", "fit"] {
        let help = run_ok(&[command, "--help"]);
        assert!(help.contains("--concurrency"), "arena {command}: {help}");
    }
}
