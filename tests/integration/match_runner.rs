//! `arena match` as a match runner (issue 45): any number of engines on the command line
//! (a round robin, or a gauntlet of the first against the others), limits carried by one
//! engine's spec, and live PGN/SGF files that a kill and `--resume` keep whole, with the
//! content `arena export` writes.
//!
//! `arena match` without a config: a results folder that `stats` reads, an engine
//! against itself with other settings, bad arguments refused in one line, an outside
//! engine given as `cmd=`, the limits set on one engine named, and no interval for a
//! one-pair match.

use std::{collections::BTreeSet, path::Path, process::Stdio};

use arena::{
    protocol::EngineSpec,
    tournament::{Tournament, config::Format, read_records},
};

use crate::common::{
    arena_bin, arena_process, data, fixture, run_bad_input, run_ok, shipped_engine, wait_for,
    wait_unlocked, write,
};

/// The game indices of a live PGN file, in file order.
fn pgn_games(path: &Path) -> Vec<u64> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("[GameIndex \"")?.strip_suffix("\"]"))
        .map(|n| n.parse().unwrap())
        .collect()
}

/// The arguments as `&str`s.
fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// `arena export DIR FLAG` (to standard output).
fn export(dir: &Path, flag: &str) -> String {
    run_ok(&["export", dir.to_str().unwrap(), flag])
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The must-show of issue 45, item 2: three engines, depth 1, two rounds: 12 games, and
/// live.pgn (and live.sgf) hold 12. The third engine is an outside one that starts
/// only once a gate file exists, so with one worker the run stops at a known point
/// (after the first pairing's two games) and is killed there (SIGKILL); a write cut
/// short is then made by hand (half of the last game appended again). `--resume` cuts
/// the torn game off, writes the games the results hold and the file lacks, plays the
/// rest: 12 games, each once, and the files equal `arena export --pgn` / `--sgf`.
#[test]
fn three_engines_play_a_round_robin_into_live_files_that_survive_a_kill() {
    let tmp = tempfile::tempdir().unwrap();
    let gate = tmp.path().join("gate");
    let gated = write(
        tmp.path(),
        "C.toml",
        &format!(
            "name = \"gated\"\ngame = \"gomoku\"\ncommand = \"/bin/sh\"\n\
             args = [\"{}\", \"{}\", \"{}\", \"serve\", \"{}\"]\nprotocol = \"gomocup\"\ndepth = 1\n",
            fixture("gate.sh"),
            gate.display(),
            arena_bin(),
            shipped_engine("gomoku-seed001-topk.toml")
        ),
    );
    let (a, b) = (
        shipped_engine("gomoku-seed003-threat.toml"),
        shipped_engine("gomoku-seed000-threat.toml"),
    );
    let out = tmp.path().join("rr");
    let (pgn, sgf) = (tmp.path().join("live.pgn"), tmp.path().join("live.sgf"));
    let args: Vec<String> = [
        "match",
        &a,
        &b,
        &gated,
        "--depth",
        "1",
        "--rounds",
        "2",
        "--pgnout",
        pgn.to_str().unwrap(),
        "--sgfout",
        sgf.to_str().unwrap(),
        "--jobs",
        "1",
        "--quiet",
        "--no-report",
        "--out",
        out.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    let mut child = arena_process()
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Games 0 and 1 (the first two engines) finish; game 2 waits for the gated engine.
    wait_for(&mut child, "two games in live.pgn", || {
        pgn_games(&pgn).len() == 2
    });
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    // The gated engine's helpers may still hold arena's locks for a moment.
    for path in [&pgn, &sgf, &out.join(".arena.lock")] {
        wait_unlocked(path);
    }
    assert_eq!(
        read_records(&out.join("games.jsonl"))
            .unwrap()
            .records
            .len(),
        2
    );
    assert_eq!(pgn_games(&pgn), [0, 1]);
    // A write cut short, as a kill during it leaves: half of the last game again.
    for path in [&pgn, &sgf] {
        let text = read(path);
        let start = if path == &pgn {
            text.rfind("[Event ").unwrap()
        } else {
            text.rfind("(;FF[4]").unwrap()
        };
        let torn = &text[start..start + (text.len() - start) / 2];
        std::fs::write(path, format!("{text}{torn}")).unwrap();
    }

    std::fs::write(&gate, "").unwrap();
    let mut resume: Vec<&str> = args.iter().map(String::as_str).collect();
    resume.push("--resume");
    let printed = run_ok(&resume);
    assert!(printed.contains("(12 of 12 games)"), "{printed}");
    let records = read_records(&out.join("games.jsonl")).unwrap().records;
    assert_eq!(records.len(), 12);
    assert!(
        records.iter().all(|r| !r.reason.starts_with("fault")),
        "{records:?}"
    );
    assert_eq!(
        pgn_games(&pgn),
        (0..12).collect::<Vec<u64>>(),
        "each game once"
    );
    assert_eq!(read(&pgn), export(&out, "--pgn"), "live.pgn is the export");
    assert_eq!(read(&sgf), export(&out, "--sgf"), "live.sgf is the export");
    // The live files are where games go, not what they are: not in run.toml.
    assert!(!read(&out.join("run.toml")).contains("pgnout"));
}

/// Issue 45, item 1: `--gauntlet` plays the first engine against each of the others,
/// never the others against each other.
#[test]
fn a_gauntlet_plays_only_the_first_engine_against_the_others() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("g");
    let engines = [
        shipped_engine("gomoku-seed003-threat.toml"),
        shipped_engine("gomoku-seed000-threat.toml"),
        shipped_engine("gomoku-seed001-topk.toml"),
    ];
    let printed = run_ok(&[
        "match",
        &engines[0],
        &engines[1],
        &engines[2],
        "--gauntlet",
        "--game",
        "mnk:9,9,5",
        "--depth",
        "1",
        "--rounds",
        "2",
        "--max-plies",
        "40",
        "--quiet",
        "--no-report",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(printed.contains("(8 of 8 games)"), "{printed}");
    let t = Tournament::from_resolved(&out.join("run.toml")).unwrap();
    assert_eq!(t.config.format, Format::Gauntlet);
    let records = read_records(&out.join("games.jsonl")).unwrap().records;
    assert_eq!(records.len(), 8);
    let mut opponents = BTreeSet::new();
    for r in &records {
        assert!(
            r.black == 0 || r.white == 0,
            "the first engine plays: {r:?}"
        );
        opponents.insert(r.black.max(r.white));
    }
    assert_eq!(opponents, BTreeSet::from([1, 2]));
    // Each opponent meets the first engine with each colour equally often.
    for o in [1, 2] {
        let black = records.iter().filter(|r| r.black == o).count();
        let white = records.iter().filter(|r| r.white == o).count();
        assert_eq!((black, white), (2, 2), "engine {o}");
    }
}

/// Regression: `cmd=./engine` given in the engine's folder was recorded as
/// `/that/folder/./engine`, so a later run that named it by its full path was "not the
/// same engine" to `arena stats --paired` and the rating list. The recorded command
/// (and the openings file) is the plain absolute path.
#[test]
fn a_relative_command_is_recorded_as_a_plain_absolute_path() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().canonicalize().unwrap();
    std::fs::copy(arena_bin(), folder.join("engine")).unwrap();
    let a = shipped_engine("gomoku-seed003-threat.toml");
    let out = folder.join("out");
    let status = arena_process()
        .current_dir(&folder)
        .args([
            "match",
            &a,
            &format!("cmd=./engine,arg=serve,arg={a},name=served"),
            "--game",
            "mnk:9,9,5",
            "--depth",
            "1",
            "--rounds",
            "1",
            "--max-plies",
            "12",
            "--quiet",
            "--no-report",
            "--out",
            "./out",
        ])
        .status()
        .unwrap();
    assert!(status.success());
    let t = Tournament::from_resolved(&out.join("run.toml")).unwrap();
    let command = &t.engines[1].external().unwrap().command;
    assert_eq!(*command, folder.join("engine").display().to_string());

    // A run an older arena recorded with `/folder/./engine` is the same engine: the
    // two folders rate together.
    let old = folder.join("old");
    std::fs::create_dir(&old).unwrap();
    for file in ["run.toml", "games.jsonl"] {
        std::fs::copy(out.join(file), old.join(file)).unwrap();
    }
    let run = std::fs::read_to_string(old.join("run.toml")).unwrap();
    let dotted = folder.join(".").join("engine").display().to_string();
    assert!(run.contains(command.as_str()), "{run}");
    std::fs::write(old.join("run.toml"), run.replace(command.as_str(), &dotted)).unwrap();
    let list = run_ok(&["stats", out.to_str().unwrap(), old.to_str().unwrap()]);
    assert!(list.contains("served"), "{list}");
}

/// Issue 45, item 1: an engine's spec carries its own limits, in place of the match's
/// (node odds): `FILE,nodes=N` gives that engine N nodes a move and no depth limit,
/// while the others keep --depth; `cmd=...,nodes=N` does the same for an outside
/// program. Two same-named engines play as NAME-a and NAME-b.
#[test]
fn an_engine_spec_carries_its_own_limits() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("odds");
    let a = shipped_engine("gomoku-seed003-threat.toml");
    let limited = format!("{a},nodes=150");
    let served = format!(
        "cmd={},arg=serve,arg={a},name=served,nodes=200",
        arena_bin()
    );
    run_ok(&[
        "match",
        &a,
        &limited,
        &served,
        "--game",
        "mnk:9,9,5",
        "--depth",
        "2",
        "--rounds",
        "1",
        "--max-plies",
        "30",
        "--quiet",
        "--no-report",
        "--out",
        out.to_str().unwrap(),
    ]);
    let t = Tournament::from_resolved(&out.join("run.toml")).unwrap();
    let names: Vec<&str> = t.engines.iter().map(EngineSpec::name).collect();
    assert_eq!(names, ["seed003-threat-a", "seed003-threat-b", "served"]);
    let limits = |i: usize| {
        let e = t.engines[i].builtin().unwrap();
        (e.search.depth, e.search.nodes)
    };
    assert_eq!(limits(0), (2, 0), "the match's --depth");
    assert_eq!(limits(1), (0, 150), "its own limit, in place of --depth");
    let outside = t.engines[2].external().unwrap();
    assert_eq!(
        (outside.depth, outside.nodes, outside.movetime_ms),
        (None, Some(200), None)
    );
    let records = read_records(&out.join("games.jsonl")).unwrap().records;
    assert_eq!(records.len(), 6);
    let mut moves = 0;
    for r in &records {
        for (i, s) in r.stats.iter().enumerate() {
            match r.mover(i) {
                0 => assert!(s.depth <= 2, "game {}: {s:?}", r.game),
                1 => {
                    assert!(s.nodes <= 150, "game {} move {i}: {s:?}", r.game);
                    moves += 1;
                }
                _ => {}
            }
        }
    }
    assert!(moves > 0, "the limited engine moved");
}

/// Issue 45, item 2: a live file is refused (exit 2, one line, nothing written) where it
/// cannot be what it says: a new run on a file that holds games, a symbolic link (never
/// followed), a folder that does not exist, SGF for Ataxx, a file of another run on
/// --resume.
#[test]
fn live_files_are_refused_where_they_cannot_be_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let a = shipped_engine("gomoku-seed003-threat.toml");
    let b = shipped_engine("gomoku-seed000-threat.toml");
    let quick = |out: &str, extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = [
            "match",
            &a,
            &b,
            "--game",
            "mnk:9,9,5",
            "--depth",
            "1",
            "--rounds",
            "1",
            "--max-plies",
            "20",
            "--quiet",
            "--no-report",
            "--out",
            dir.join(out).to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec();
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let first = dir.join("first.pgn");
    run_ok(&strs(&quick(
        "first",
        &["--pgnout", first.to_str().unwrap()],
    )));
    let held = read(&first);
    assert_eq!(pgn_games(&first), [0, 1]);

    let link = dir.join("link.pgn");
    std::os::unix::fs::symlink(&first, &link).unwrap();
    let ataxx = [
        shipped_engine("ataxx-seed004.toml"),
        shipped_engine("ataxx-strong.toml"),
    ];
    let cases: Vec<(Vec<String>, &str, &str)> = vec![
        (
            quick("again", &["--pgnout", first.to_str().unwrap()]),
            "again",
            "already holds games",
        ),
        (
            quick("linked", &["--pgnout", link.to_str().unwrap()]),
            "linked",
            "symbolic link",
        ),
        (
            quick(
                "nowhere",
                &["--sgfout", dir.join("no/x.sgf").to_str().unwrap()],
            ),
            "nowhere",
            "does not exist",
        ),
        (
            vec![
                "match".into(),
                ataxx[0].clone(),
                ataxx[1].clone(),
                "--depth".into(),
                "1".into(),
                "--rounds".into(),
                "1".into(),
                "--out".into(),
                dir.join("ataxx").display().to_string(),
                "--sgfout".into(),
                dir.join("ataxx.sgf").display().to_string(),
            ],
            "ataxx",
            "SGF is for m,n,k games",
        ),
        (
            quick(
                "other",
                &[
                    "--name",
                    "other",
                    "--resume",
                    "--pgnout",
                    first.to_str().unwrap(),
                ],
            ),
            "other",
            "another run",
        ),
    ];
    for (args, out, needle) in cases {
        let e = run_bad_input(&strs(&args));
        assert!(e.contains(needle), "{needle}: {e}");
        assert!(!dir.join(out).exists(), "{out}: nothing is written");
    }
    assert_eq!(read(&first), held, "the file is left as it was");
    assert!(link.is_symlink());
    assert!(!dir.join("ataxx.sgf").exists());
}

/// Issue 45, item 2: `pgnout`/`sgfout` in a tournament config (relative to it) for
/// `arena run`, and `--pgnout` for a tune's verification match: each file equals
/// `arena export` of the folder its games went to.
#[test]
fn a_run_config_and_a_tune_verification_write_live_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("live")).unwrap();
    let config = write(
        dir,
        "rr.toml",
        &format!(
            "name = \"rr\"\ngame = \"mnk:9,9,5\"\nrounds = 2\npgnout = \"live/rr.pgn\"\n\
             sgfout = \"live/rr.sgf\"\n\n[openings]\nkind = \"random\"\nplies = 2\n\n\
             [adjudication]\nmax_plies = 30\n\n\
             [[engines]]\nfile = \"{}\"\nset = {{ \"search.depth\" = 1 }}\n\n\
             [[engines]]\nfile = \"{}\"\nset = {{ \"search.depth\" = 1 }}\n\n\
             [[engines]]\nfile = \"{}\"\nset = {{ \"search.depth\" = 1 }}\n",
            shipped_engine("gomoku-seed003-threat.toml"),
            shipped_engine("gomoku-seed000-threat.toml"),
            shipped_engine("gomoku-seed001-topk.toml"),
        ),
    );
    let out = dir.join("rr-out");
    crate::common::run_to(&config, &out);
    assert_eq!(pgn_games(&dir.join("live/rr.pgn")).len(), 12);
    assert_eq!(read(&dir.join("live/rr.pgn")), export(&out, "--pgn"));
    assert_eq!(read(&dir.join("live/rr.sgf")), export(&out, "--sgf"));

    let tuned = dir.join("tune");
    let pgn = dir.join("verification.pgn");
    run_ok(&[
        "tune",
        crate::common::data("tune/small.toml").to_str().unwrap(),
        "--pairs",
        "16",
        "--verify-pairs",
        "2",
        "--pgnout",
        pgn.to_str().unwrap(),
        "--quiet",
        "--out",
        tuned.to_str().unwrap(),
    ]);
    assert_eq!(pgn_games(&pgn).len(), 4);
    assert_eq!(read(&pgn), export(&tuned.join("verification"), "--pgn"));
}

fn engine(name: &str) -> String {
    data(&format!("../../configs/engines/{name}.toml"))
        .display()
        .to_string()
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
