//! `arena match` as a match runner (issue 45): any number of engines on the command line
//! (a round robin, or a gauntlet of the first against the others), limits carried by one
//! engine's spec, and live PGN/SGF files that a kill and `--resume` keep whole, with the
//! content `arena export` writes.

use std::{collections::BTreeSet, path::Path, process::Stdio};

use arena::{
    protocol::EngineSpec,
    tournament::{Tournament, config::Format, read_records},
};

use crate::common::{
    arena_bin, arena_process, fixture, run_bad_input, run_ok, shipped_engine, wait_for, write,
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
