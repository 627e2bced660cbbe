//! Tournaments through the real binary: determinism across thread counts, nothing lost
//! when killed, torn lines, SPRT early stop, bad input, and every shipped config.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::Stdio,
};

use arena::tournament::{GameRecord, read_records};

use crate::common::{arena, data, run_bad_input, run_ok};

fn config(name: &str) -> String {
    data(&format!("tournaments/{name}.toml"))
        .display()
        .to_string()
}

/// Records by game index, without the measured time fields.
fn games(dir: &Path) -> BTreeMap<u64, GameRecord> {
    let read = read_records(&dir.join("games.jsonl")).expect("results are readable");
    assert!(!read.torn_tail, "no torn line after a clean run");
    let mut map = BTreeMap::new();
    for r in read.records {
        let game = r.game;
        assert!(
            map.insert(game, r.without_times()).is_none(),
            "game {game} twice"
        );
    }
    map
}

fn out_dir(tmp: &tempfile::TempDir, name: &str) -> PathBuf {
    tmp.path().join(name)
}

#[test]
fn same_games_on_one_and_two_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (out_dir(&tmp, "j1"), out_dir(&tmp, "j2"));
    let out1 = run_ok(&[
        "run",
        &config("small"),
        "--jobs",
        "1",
        "--quiet",
        "--out",
        a.to_str().unwrap(),
    ]);
    run_ok(&[
        "run",
        &config("small"),
        "--jobs",
        "2",
        "--quiet",
        "--out",
        b.to_str().unwrap(),
    ]);
    let (ga, gb) = (games(&a), games(&b));
    assert_eq!(ga.len(), 36);
    assert_eq!(ga, gb);
    // The standings table names every engine, and the summary files exist.
    for name in ["threat", "static", "seed001-topk"] {
        assert!(out1.contains(name), "{out1}");
    }
    for file in ["run.toml", "summary.json", "standings.csv"] {
        assert!(a.join(file).exists(), "{file}");
    }
    // The same config and seed give the same summary (up to measured speeds).
    let sa: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("summary.json")).unwrap()).unwrap();
    let sb: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(b.join("summary.json")).unwrap()).unwrap();
    assert_eq!(sa["pairings"][0]["wdl"], sb["pairings"][0]["wdl"]);
    assert_eq!(sa["engines"][0]["elo"], sb["engines"][0]["elo"]);
    assert_eq!(
        sa["engines"][1]["nodes_mean"],
        sb["engines"][1]["nodes_mean"]
    );
}

/// Killed (SIGKILL) once a given number of games is in, early and mid-run, then resumed:
/// the same games as an uninterrupted run. The kill waits for progress in games.jsonl
/// (as the tune tests do), not for a random time, so the test does not depend on speed.
#[test]
fn killed_mid_run_then_resumed_equals_an_uninterrupted_run() {
    let tmp = tempfile::tempdir().unwrap();
    let full = out_dir(&tmp, "full");
    run_ok(&[
        "run",
        &config("long"),
        "--quiet",
        "--out",
        full.to_str().unwrap(),
    ]);
    let expected = games(&full);
    assert_eq!(expected.len(), 200);

    for (attempt, after) in [1usize, 90].into_iter().enumerate() {
        let dir = out_dir(&tmp, &format!("killed-{attempt}"));
        let mut child = crate::common::arena_process()
            .args([
                "run",
                &config("long"),
                "--quiet",
                "--out",
                dir.to_str().unwrap(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let log = dir.join("games.jsonl");
        crate::common::wait_for(&mut child, &format!("{after} games in"), || {
            crate::common::lines(&log) >= after
        });
        child.kill().unwrap(); // SIGKILL: no chance to clean up
        child.wait().unwrap();
        let partial = read_records(&log).unwrap();
        assert!(partial.records.len() < 200, "killed before the end");
        run_ok(&[
            "run",
            &config("long"),
            "--quiet",
            "--resume",
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(games(&dir), expected, "attempt {attempt}");
    }
}

#[test]
fn a_torn_last_line_is_dropped_and_replayed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = out_dir(&tmp, "torn");
    run_ok(&[
        "run",
        &config("small"),
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let expected = games(&dir);
    let file = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    // Cut the last line in half, as a crash mid-write would.
    let last_start = text[..text.len() - 1].rfind('\n').unwrap() + 1;
    let cut = last_start + (text.len() - last_start) / 2;
    std::fs::write(&file, &text[..cut]).unwrap();
    let read = read_records(&file).unwrap();
    assert!(read.torn_tail);
    assert_eq!(read.records.len(), expected.len() - 1);
    // Without --resume the run refuses to touch the results.
    let e = run_bad_input(&[
        "run",
        &config("small"),
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(e.contains("--resume"), "{e}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text[..cut]);
    run_ok(&[
        "run",
        &config("small"),
        "--quiet",
        "--resume",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(games(&dir), expected);
}

#[test]
fn resume_refuses_a_changed_config() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = out_dir(&tmp, "changed");
    run_ok(&[
        "run",
        &config("small"),
        "--quiet",
        "--rounds",
        "1",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let before = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    let e = run_bad_input(&[
        "run",
        &config("small"),
        "--quiet",
        "--resume",
        "--rounds",
        "1",
        "--seed",
        "99",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(e.contains("different config") && e.contains("seed"), "{e}");
    assert_eq!(
        std::fs::read_to_string(dir.join("games.jsonl")).unwrap(),
        before
    );
}

/// Issue 12: a finished run is extended with `--resume --rounds N`, and the longer run
/// equals one played at N rounds from the start; fewer rounds are refused.
fn strs(a: &[String]) -> Vec<&str> {
    a.iter().map(String::as_str).collect()
}

#[test]
fn resume_with_more_rounds_extends_a_finished_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (short, long) = (out_dir(&tmp, "short"), out_dir(&tmp, "long"));
    let args = |rounds: &str, dir: &Path, resume: bool| {
        let mut a = vec![
            "run".to_string(),
            config("small"),
            "--quiet".into(),
            "--no-report".into(),
            "--rounds".into(),
            rounds.into(),
            "--out".into(),
            dir.display().to_string(),
        ];
        if resume {
            a.push("--resume".into());
        }
        a
    };
    run_ok(&strs(&args("2", &short, false)));
    run_ok(&strs(&args("3", &short, true)));
    run_ok(&strs(&args("3", &long, false)));
    assert_eq!(games(&short), games(&long));
    assert_eq!(
        std::fs::read_to_string(short.join("run.toml")).unwrap(),
        std::fs::read_to_string(long.join("run.toml")).unwrap()
    );
    let e = run_bad_input(&strs(&args("1", &short, true)));
    assert!(e.contains("never shortened"), "{e}");
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = out_dir(&tmp, "sprt");
    let out = run_ok(&[
        "run",
        &config("sprt"),
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.contains("H1 accepted"), "{out}");
    assert!(out.contains("reached the upper bound"), "{out}");
    assert!(out.contains("SPRT-debiased Elo"), "{out}");
    assert!(out.contains("stopped early"), "{out}");
    let n = read_records(&dir.join("games.jsonl"))
        .unwrap()
        .records
        .len();
    assert!(
        n < 200,
        "the schedule has 400 games; the SPRT stopped after {n}"
    );
    // `arena stats` recounts the same decision from the records.
    let stats = run_ok(&["stats", dir.to_str().unwrap()]);
    assert!(stats.contains("H1 accepted"), "{stats}");
}

/// Issue 44, item 7: an SPRT run's games.jsonl held 116 to 149 games, whatever the
/// threads had finished when the test decided (the statistics used the same 106). The
/// results hold exactly the pairs up to the decision, on any number of threads.
#[test]
fn an_sprt_run_holds_the_same_games_on_one_and_two_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let mut exports = Vec::new();
    let mut played = Vec::new();
    for jobs in ["1", "2"] {
        let dir = out_dir(&tmp, &format!("sprt-j{jobs}"));
        let d = dir.to_str().unwrap();
        run_ok(&[
            "run",
            &config("sprt"),
            "--quiet",
            "--jobs",
            jobs,
            "--out",
            d,
        ]);
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap())
                .unwrap();
        let pairs = summary["sprt"]["pairs"].as_u64().expect("the SPRT's pairs");
        let g = games(&dir);
        assert_eq!(
            g.keys().copied().collect::<Vec<u64>>(),
            (0..2 * pairs).collect::<Vec<u64>>(),
            "--jobs {jobs}: the games of the {pairs} pairs up to the decision, no more"
        );
        played.push(g);
        // The export too, but for when each game was played.
        let pgn = run_ok(&["export", d, "--pgn"]);
        let timeless: Vec<&str> = pgn
            .lines()
            .filter(|l| {
                !["[Date ", "[UTCDate ", "[UTCTime "]
                    .iter()
                    .any(|t| l.starts_with(t))
            })
            .collect();
        exports.push(timeless.join("\n"));
    }
    assert_eq!(played[0], played[1]);
    assert_eq!(exports[0], exports[1]);
}

/// Issue 44, item 14: the progress of an SPRT run showed no LLR. Without a terminal
/// the score lines say where it stands between its bounds.
#[test]
fn sprt_progress_lines_show_the_llr_and_its_bounds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = out_dir(&tmp, "sprt");
    let out = arena()
        .args(["run", &config("sprt"), "--no-report", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let scores: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("Score after"))
        .collect();
    assert!(!scores.is_empty(), "{stderr}");
    for line in &scores {
        assert!(
            line.contains(" LLR ") && line.contains(" [-2.94, 2.94]"),
            "{line}"
        );
    }
}

#[test]
fn stats_and_pgn_export_read_the_results() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = out_dir(&tmp, "export");
    let run = run_ok(&[
        "run",
        &config("small"),
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let summary_before = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let stats = run_ok(&["stats", dir.to_str().unwrap()]);
    // Same table (the run adds a line about timing at the end).
    assert!(
        run.starts_with(stats.trim_end()),
        "run:\n{run}\nstats:\n{stats}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("summary.json")).unwrap(),
        summary_before
    );
    let pgn = run_ok(&["export", dir.to_str().unwrap(), "--pgn"]);
    assert_eq!(pgn.matches("[White \"").count(), 36);
    assert_eq!(pgn.matches("[Result \"").count(), 36);
    let csv = std::fs::read_to_string(dir.join("standings.csv")).unwrap();
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(csv.starts_with("rank,engine,elo"), "{csv}");
}

#[test]
fn bad_input_is_one_line_exit_2_and_touches_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = out_dir(&tmp, "existing");
    run_ok(&[
        "run",
        &config("small"),
        "--quiet",
        "--rounds",
        "1",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let before = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    let run_toml = std::fs::read_to_string(dir.join("run.toml")).unwrap();
    let base = std::fs::read_to_string(data("tournaments/small.toml")).unwrap();
    let cases = [
        (
            base.replace(
                "file = \"../../../configs/engines/gomoku-seed001-topk.toml\"",
                "file = \"../../../configs/engines/missing.toml\"",
            ),
            vec!["missing.toml", "engines[3]", ":28:"],
        ),
        (
            base.replace("seed = 7", "seed = 7\nsead = 8"),
            vec!["unknown field `sead`", ":7:"],
        ),
        (
            base.replace("rounds = 6", "rounds = -1"),
            vec!["rounds", ":5:"],
        ),
        (
            base.replace(
                "search = { depth = 2, ordering = [\"tt_move\", \"threat\", \"static\"] }",
                "search = { depth = 2, ordering = [\"captures\"] }",
            ),
            vec!["captures", "does not apply"],
        ),
        (
            base.replace(
                "kind = \"random\"",
                "kind = \"file\"\nfile = \"bad-openings.txt\"",
            ),
            vec!["bad-openings.txt:3", "z9"],
        ),
    ];
    std::fs::write(
        tmp.path().join("bad-openings.txt"),
        "# openings\ne5f5\ne5z9\n",
    )
    .unwrap();
    for (i, (text, needles)) in cases.iter().enumerate() {
        // The configs live next to the test data so relative paths resolve.
        let path = tmp.path().join(format!("bad{i}.toml"));
        let fixed = text.replace(
            "../../../configs",
            &format!("{}/configs", env!("CARGO_MANIFEST_DIR")),
        );
        std::fs::write(&path, fixed).unwrap();
        let e = run_bad_input(&[
            "run",
            path.to_str().unwrap(),
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ]);
        for n in needles {
            assert!(e.contains(n), "case {i}: '{n}' not in: {e}");
        }
        assert_eq!(
            std::fs::read_to_string(dir.join("games.jsonl")).unwrap(),
            before,
            "case {i}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("run.toml")).unwrap(),
            run_toml,
            "case {i}"
        );
    }
}

#[test]
fn every_shipped_config_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let tmp = tempfile::tempdir().unwrap();
    let mut ran = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        // Tuning and fit configs (`tune-*.toml`, `fit-*.toml`) are run by the tune and
        // fit tests; here they must at least load.
        let name = path.file_name().map(|n| n.to_string_lossy().to_string());
        let is_tune = name.as_deref().is_some_and(|n| n.starts_with("tune-"));
        let is_fit = name.as_deref().is_some_and(|n| n.starts_with("fit-"));
        if is_fit {
            // A fit from `arena datagen` output needs its data first: the fit test makes
            // it as the config's comment says, and runs it.
            let reads_data = std::fs::read_to_string(&path)
                .unwrap()
                .lines()
                .any(|l| l.starts_with("data = "));
            if !reads_data {
                <arena::tune::fit::Fit as arena::config::ConfigFile>::load(&path)
                    .unwrap_or_else(|e| panic!("{e}"));
            }
            continue;
        }
        // Datagen configs (`datagen-*.toml`) are run by the datagen tests.
        if name.as_deref().is_some_and(|n| n.starts_with("datagen-")) {
            let f = arena::datagen::DatagenFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
            for engine in std::iter::once(&f.engine).chain(&f.against) {
                arena::engine::EngineConfig::load(engine).unwrap_or_else(|e| panic!("{e}"));
            }
            continue;
        }
        if is_tune {
            <arena::tune::Tune as arena::config::ConfigFile>::load(&path)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        if path.extension().is_some_and(|e| e == "toml") && !is_tune {
            let out = tmp.path().join(path.file_stem().unwrap());
            let mut cmd = arena();
            cmd.args([
                "run",
                path.to_str().unwrap(),
                "--quiet",
                "--rounds",
                "1",
                // Long enough to leave every opening and play real moves, short enough
                // for node-limited configs in a debug build.
                "--max-plies",
                "12",
                "--out",
                out.to_str().unwrap(),
            ]);
            let o = cmd.output().unwrap();
            assert!(
                o.status.success(),
                "{}: {}",
                path.display(),
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(out.join("games.jsonl").exists());
            ran += 1;
        }
    }
    assert!(ran >= 4, "tournament configs found: {ran}");
    // Every engine config and table loads, and every opening file reads.
    for dir in ["engines", "tables/gomoku", "tables/ataxx"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if dir == "engines" {
                arena::engine::EngineConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
            } else {
                arena::eval::Table::load(&path).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
    for entry in std::fs::read_dir(root.join("openings")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let n = if name.starts_with("ataxx") {
            arena::tournament::openings::read_file::<arena::game::Ataxx>(&path, &())
                .map(|v| v.len())
        } else {
            arena::tournament::openings::read_file::<arena::game::Mnk>(
                &path,
                &arena::game::MnkConfig::gomoku(),
            )
            .map(|v| v.len())
        };
        assert!(n.unwrap_or_else(|e| panic!("{e}")) > 10, "{name}");
    }
    // Every bench position file is read by `arena bench` with its game's modern engine.
    for entry in std::fs::read_dir(root.join("positions")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let engine = if name.starts_with("ataxx") {
            "ataxx-modern"
        } else {
            "gomoku-modern"
        };
        let engine = root.join("engines").join(format!("{engine}.toml"));
        let o = arena()
            .args(["bench", engine.to_str().unwrap(), "--depth", "2"])
            .arg("--positions")
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("mean nodes by depth 1:"), "{name}: {out}");
    }
}

#[test]
fn replayed_pairs_are_counted_and_warned_about() {
    // Two deterministic engines, two openings, six rounds: four pairs are replays.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("two.txt"), "e5f5\nd4e6\n").unwrap();
    let tables = format!("{}/configs/tables/gomoku", env!("CARGO_MANIFEST_DIR"));
    let config = format!(
        "name = \"replays\"\ngame = \"mnk:9,9,5\"\nrounds = 6\n\
         [openings]\nkind = \"file\"\nfile = \"two.txt\"\n\
         [[engines]]\nname = \"a\"\ntable = \"{tables}/seed003.toml\"\nsearch = {{ depth = 2 }}\n\
         [[engines]]\nname = \"b\"\ntable = \"{tables}/seed000.toml\"\nsearch = {{ depth = 2 }}\n"
    );
    let path = tmp.path().join("replays.toml");
    std::fs::write(&path, config).unwrap();
    let dir = out_dir(&tmp, "out");
    let out = run_ok(&[
        "run",
        path.to_str().unwrap(),
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.contains("warning: 4 of 6 game pairs repeat"), "{out}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["replayed_pairs"], 4);
    // With a random margin the engines vary their play and the warning goes away.
    let random = std::fs::read_to_string(&path).unwrap().replace(
        "search = { depth = 2 }",
        "search = { depth = 2, random_margin = 100000 }",
    );
    std::fs::write(&path, random).unwrap();
    let dir = out_dir(&tmp, "random");
    let out = run_ok(&[
        "run",
        path.to_str().unwrap(),
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(!out.contains("repeat an earlier pair"), "{out}");
}

#[test]
fn engines_that_played_alike_are_warned_about_with_what_differs() {
    // seed003-threat has no razoring, so a razoring number changes no move: `arena
    // match` says so before the games, and every pair is the same game twice. A smaller
    // radius changes the moves, and both warnings go.
    let tmp = tempfile::tempdir().unwrap();
    let engine = format!(
        "{}/configs/engines/gomoku-seed003-threat.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let play = |set: &str, dir: &str| {
        let dir = out_dir(&tmp, dir);
        let o = arena()
            .args([
                "match",
                &engine,
                &engine,
                "--depth",
                "2",
                "--rounds",
                "10",
                "--set-a",
                set,
                "--quiet",
                "--no-report",
                "--out",
                dir.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8(o.stderr).unwrap();
        assert!(o.status.success(), "{stderr}");
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap())
                .unwrap();
        let out = String::from_utf8(o.stdout).unwrap();
        (out, summary["warnings"].to_string(), stderr)
    };
    let (out, warnings, stderr) = play("search.params.razor_depth=4", "alike");
    assert!(
        stderr.contains(
            "arena: warning: --set-a search.params.razor_depth: changes no move of \
             'seed003-threat': search.razoring is off"
        ),
        "{stderr}"
    );
    let said = "in 10 of 10 game pairs the two games were the same game move for move: the \
                engines played alike, so what differs between them \
                (search.params.razor_depth) changed no move at these limits";
    assert!(out.contains(said), "{out}");
    assert!(out.contains("razor_* needs search.razoring"), "{out}");
    assert!(
        warnings.contains("the two games were the same game"),
        "{warnings}"
    );
    let (out, _, stderr) = play("search.radius=1", "unlike");
    assert!(!out.contains("the same game move for move"), "{out}");
    assert!(!stderr.contains("changes no move"), "{stderr}");
}

#[test]
fn builtin_engines_on_a_clock_manage_their_time() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = out_dir(&tmp, "clock");
    run_ok(&[
        "run",
        &config("clock"),
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let games = games(&dir);
    assert_eq!(games.len(), 4);
    for g in games.values() {
        assert!(
            !g.reproducible,
            "a clock makes a game depend on the machine"
        );
        assert_ne!(g.reason, "time-forfeit", "game {}: {g:?}", g.game);
        // Each move searched to some depth within its share of the clock.
        assert!(g.stats.iter().all(|s| s.depth >= 1), "game {}", g.game);
    }
}

/// Issue 12: `arena sweep` on a shipped config writes one run per point and the scaling
/// table; a sweep cut short (the last point's games half written) and resumed equals an
/// uninterrupted one.
#[test]
fn sweep_writes_a_scaling_table_and_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/tictactoe.toml");
    let args = |dir: &Path, resume: bool| {
        let mut a = vec![
            "sweep".to_string(),
            config.display().to_string(),
            "--over".into(),
            "search.depth=1,3".into(),
            "--rounds".into(),
            "4".into(),
            "--quiet".into(),
            "--no-report".into(),
            "--out".into(),
            dir.display().to_string(),
        ];
        if resume {
            a.push("--resume".into());
        }
        a
    };
    let sweep = |dir: &Path, resume: bool| run_ok(&strs(&args(dir, resume)));
    let (whole, cut) = (out_dir(&tmp, "whole"), out_dir(&tmp, "cut"));
    let out = sweep(&whole, false);
    assert!(out.contains("| pairing | search.depth |"), "{out}");
    let table = std::fs::read_to_string(whole.join("scaling.csv")).unwrap();
    assert_eq!(table.lines().count(), 1 + 2 * 2, "{table}");
    assert!(table.starts_with("pairing,search.depth,games,elo,elo_low,elo_high"));
    let svg = std::fs::read_to_string(whole.join("scaling.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("Elo against search.depth"));
    sweep(&cut, false);
    let last = cut.join("search.depth=3").join("games.jsonl");
    let text = std::fs::read_to_string(&last).unwrap();
    let half: Vec<&str> = text.lines().take(5).collect();
    std::fs::write(&last, half.join("\n") + "\n").unwrap();
    // Without --resume the cut sweep refuses to touch its results.
    let e = run_bad_input(&strs(&args(&cut, false)));
    assert!(e.contains("--resume"), "{e}");
    sweep(&cut, true);
    for point in ["search.depth=1", "search.depth=3"] {
        assert_eq!(
            games(&cut.join(point)),
            games(&whole.join(point)),
            "{point}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(cut.join("scaling.csv")).unwrap(),
        table
    );
}

/// docs/configs.md: a sweep over a number whose switch is off in every engine is refused before
/// any game, naming the engines and the switch; off in some, a warning names those.
#[test]
fn a_sweep_over_a_number_that_changes_no_move_is_refused_or_warned_about() {
    let tmp = tempfile::tempdir().unwrap();
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/tictactoe.toml");
    let out = out_dir(&tmp, "inert");
    let e = run_bad_input(&[
        "sweep",
        config.to_str().unwrap(),
        "--over",
        "search.params.razor_margin=100,200",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        e.contains("--over search.params.razor_margin: changes no move of any engine")
            && e.contains("search.razoring is off"),
        "{e}"
    );
    assert!(!out.exists(), "nothing written");
    // With razoring on in one engine the sweep plays, and a warning names the others.
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "set = { \"search.depth\" = 2 }",
        "set = { \"search.depth\" = 2, \"search.razoring\" = true }",
    );
    let dir = tmp.path().join("cfg");
    std::fs::create_dir_all(&dir).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let text = text
        .replace("\"engines/", &format!("\"{}/engines/", root.display()))
        .replace("\"openings/", &format!("\"{}/openings/", root.display()));
    let path = dir.join("mixed.toml");
    std::fs::write(&path, text).unwrap();
    let o = arena()
        .args([
            "sweep",
            path.to_str().unwrap(),
            "--over",
            "search.params.razor_margin=100,200",
            "--rounds",
            "1",
            "--quiet",
            "--no-report",
            "--out",
            out_dir(&tmp, "mixed").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "arena: warning: --over search.params.razor_margin: changes no move of \
             'tictactoe-perfect': search.razoring is off"
        ) && !stderr.contains("'depth-2'"),
        "{stderr}"
    );
}

/// The total on `arena bench`'s last line ("N nodes ...").
/// `arena bench configs/engines/ENGINE --positions configs/positions/POSITIONS --depth
/// DEPTH EXTRA...`: its output.
fn bench_output(engine: &str, positions: &str, depth: u32, extra: &[&str]) -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    let o = arena()
        .args(["bench", &format!("{root}/configs/engines/{engine}")])
        .args(["--depth", &depth.to_string(), "--positions"])
        .arg(format!("{root}/configs/positions/{positions}"))
        .args(extra)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{engine} {extra:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The node total of a bench's output (its last line).
fn node_total(out: &str) -> u64 {
    let last = out.lines().last().unwrap_or_default();
    last.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no node total in {out}"))
}

fn bench_nodes(extra: &[&str]) -> u64 {
    node_total(&bench_output(
        "gomoku-strong.toml",
        "gomoku-15x15.txt",
        6,
        extra,
    ))
}

#[test]
fn the_strong_engines_search_the_nodes_the_docs_quote() {
    // docs/experiments.md (nodes to depth) and the configs' comments: the totals and the
    // EBF of the goals (at most 2.0 for gomoku to depth 8, 2.4 for Ataxx to
    // depth 7), and on the positions of real games. Node counts do not depend on the
    // machine.
    for (engine, positions, depth, nodes, ebf) in [
        (
            "gomoku-tuned.toml",
            "gomoku-15x15.txt",
            8,
            59_199,
            "ebf 1.96",
        ),
        (
            "gomoku-tuned.toml",
            "gomoku-games.txt",
            8,
            6_662_612,
            "ebf 2.46",
        ),
        (
            "ataxx-strong.toml",
            "ataxx-middlegame.txt",
            7,
            21_676,
            "ebf 2.22",
        ),
        (
            "ataxx-strong.toml",
            "ataxx-games.txt",
            7,
            636_736,
            "ebf 2.23",
        ),
    ] {
        let out = bench_output(engine, positions, depth, &[]);
        assert_eq!(node_total(&out), nodes, "{engine} on {positions}: {out}");
        assert!(out.contains(ebf), "{engine} on {positions}: {out}");
    }
}

#[test]
fn the_leaf_vcf_narrowings_reach_the_search_and_are_off_by_default() {
    let plain = bench_nodes(&[]);
    // Only fours that make more: far fewer VCF positions (each counts as a node).
    let threes = bench_nodes(&["--set", "search.params.vcf_threes=1"]);
    assert!(
        threes < plain,
        "vcf_threes: {threes} nodes, {plain} without it"
    );
    assert_eq!(bench_nodes(&["--set", "search.params.vcf_threes=0"]), plain);
    let narrow = bench_nodes(&["--set", "search.params.vcf_breadth=1"]);
    assert_ne!(narrow, plain, "vcf_breadth=1 changed nothing");
    assert_eq!(
        bench_nodes(&["--set", "search.params.vcf_breadth=0"]),
        plain
    );
    // A value the rule has no meaning for is refused, naming the key.
    let root = env!("CARGO_MANIFEST_DIR");
    let o = arena()
        .args([
            "bench",
            &format!("{root}/configs/engines/gomoku-strong.toml"),
            "--depth",
            "1",
            "--set",
            "search.params.vcf_threes=2",
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("vcf_threes"), "{e}");
}

#[test]
fn the_open_three_extension_can_be_kept_near_the_horizon() {
    // gomoku-strong extends the defence of an open three (`ext_defend_plies = 4`).
    let plain = bench_nodes(&[]);
    // 0 (the default) extends at any depth, and so does a limit no node reaches.
    assert_eq!(
        bench_nodes(&["--set", "search.params.ext_defend_depth=0"]),
        plain
    );
    assert_eq!(
        bench_nodes(&["--set", "search.params.ext_defend_depth=63"]),
        plain
    );
    // Within the last 2 plies only: fewer extended nodes, a smaller tree.
    let near = bench_nodes(&["--set", "search.params.ext_defend_depth=2"]);
    assert!(
        near < plain,
        "ext_defend_depth 2: {near} nodes, {plain} without it"
    );
    // It bounds the open three's extension only: a four's block is extended anyway.
    let fours = bench_nodes(&["--set", "search.params.ext_defend_plies=2"]);
    assert_eq!(
        bench_nodes(&[
            "--set",
            "search.params.ext_defend_plies=2",
            "--set",
            "search.params.ext_defend_depth=2"
        ]),
        fours
    );
    assert!(
        fours < near,
        "fours only: {fours} nodes, near the horizon {near}"
    );
}

#[test]
fn defence_move_counts_prune_and_the_shape_and_far_settings_reach_the_search() {
    // Node counts do not depend on the machine.
    let plain = bench_nodes(&[]);
    let pruned = bench_nodes(&["--set", "search.params.lmp_defend=400"]);
    assert!(
        pruned < plain,
        "lmp_defend: {pruned} nodes, {plain} without it"
    );
    // Off by default: 0 is the shipped engine itself.
    assert_eq!(bench_nodes(&["--set", "search.params.lmp_defend=0"]), plain);
    // The move-count limit of every move, at every depth.
    let capped = bench_nodes(&["--set", "search.params.lmp_all=1000"]);
    assert!(
        capped < plain,
        "lmp_all: {capped} nodes, {plain} without it"
    );
    assert_eq!(bench_nodes(&["--set", "search.params.lmp_all=0"]), plain);
    // It belongs to late-move pruning: with that off it changes nothing.
    assert_eq!(
        bench_nodes(&[
            "--set",
            "search.late_move_pruning=false",
            "--set",
            "search.params.lmp_all=1000"
        ]),
        bench_nodes(&["--set", "search.late_move_pruning=false"]),
    );
    assert_eq!(
        bench_nodes(&["--set", "search.params.lmr_history=0"]),
        plain
    );
    // The history-aware reductions read the history table: without `history` in the
    // ordering there is none, and the setting changes nothing.
    let no_history = "search.ordering=[\"tt_move\",\"threat\",\"static\",\"killers\"]";
    assert_eq!(
        bench_nodes(&[
            "--set",
            no_history,
            "--set",
            "search.params.lmr_history=4096"
        ]),
        bench_nodes(&["--set", no_history]),
    );
    // Off unless a config turns it on.
    assert_eq!(bench_nodes(&["--set", "search.tt_decisive=false"]), plain);
    // Other candidates and another order make another tree (here a larger one), and
    // so does a win or loss in the table taken at any depth (`tt_decisive`).
    for set in [
        "search.tt_decisive=true",
        "search.shape=lines",
        "search.params.order_far=2",
        "search.params.lmr_history=4096",
        "search.ordering=[\"tt_move\",\"threat\",\"static\",\"killers\",\"counter\",\"history\"]",
    ] {
        assert_ne!(bench_nodes(&["--set", set]), plain, "{set}");
    }
    let o = arena()
        .args([
            "bench",
            &format!(
                "{}/configs/engines/gomoku-strong.toml",
                env!("CARGO_MANIFEST_DIR")
            ),
        ])
        .args(["--set", "search.shape=round"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("shape"), "{err}");
}
