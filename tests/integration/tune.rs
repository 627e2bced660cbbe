//! SPSA tuning through the real binary: a small tune end to end with every output file,
//! the same θ on one and two threads, killed with SIGKILL and resumed to exactly the θ
//! of an uninterrupted run, bad configs rejected, and the shipped tune config.
//!
//! An interrupted tune says how to continue with every override.

use std::{
    path::{Path, PathBuf},
    process::Stdio,
    time::{Duration, Instant},
};

use arena::{eval::Table, tune::output::TuneReport};

use crate::common::{arena_process, assert_refused, data, run_bad_input, run_ok};

fn config(name: &str) -> String {
    data(&format!("tune/{name}.toml")).display().to_string()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn report(dir: &Path) -> TuneReport {
    TuneReport::read(dir).unwrap_or_else(|e| panic!("{e}"))
}

/// The tuned values and θ of a tune, exactly (bits).
fn theta(dir: &Path) -> Vec<(String, u64, u64)> {
    report(dir)
        .params
        .iter()
        .map(|p| (p.name.clone(), p.value.to_bits(), p.theta.to_bits()))
        .collect()
}

fn tune(args: &[&str], out: &Path) -> String {
    let mut all = vec!["tune"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--quiet", "--out", out.to_str().unwrap()]);
    run_ok(&all)
}

#[test]
fn a_small_tune_writes_every_output() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("small");
    let printed = tune(&[&config("small")], &out);
    for needle in ["table.open_three", "table.defence", "verification", "Elo"] {
        assert!(printed.contains(needle), "{needle}: {printed}");
    }

    // tune.json: the parameter table the report reads.
    let r = report(&out);
    assert_eq!((r.pairs_done, r.pairs_total, r.batch), (240, 240, 8));
    assert!(r.finished);
    assert_eq!(r.plus_penta.pairs(), 240);
    // The pairs that moved θ: every pair but those split 1-1 or drawn twice.
    let split = r.plus_penta.split_pairs().unwrap();
    let drawn = r.plus_penta.dd.unwrap();
    let moved = 240 - split - drawn;
    let line = format!(
        "{moved} of 240 pairs ({:.1} %) moved θ; {split} of 240 pairs split 1-1 ({:.1} %), \
         {drawn} both drawn",
        100.0 * moved as f64 / 240.0,
        100.0 * split as f64 / 240.0
    );
    assert!(printed.contains(&line), "{line}\n{printed}");
    assert_eq!(
        printed.contains("warning: most pairs split and moved θ not at all: a split pair says"),
        split * 2 > 240,
        "{printed}"
    );
    let names: Vec<&str> = r.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["table.open_three", "table.defence"]);
    let (three, defence) = (&r.params[0], &r.params[1]);
    assert_eq!(
        (three.start, three.min, three.max),
        (7500.0, 1000.0, 20000.0)
    );
    assert!(three.integer && !defence.integer);
    assert_eq!(three.value.fract(), 0.0);
    assert_eq!(three.c_end, 950.0);
    assert_eq!(defence.r_end, 0.002);
    for p in &r.params {
        assert!(p.value >= p.min && p.value <= p.max, "{p:?}");
    }
    let json: serde_json::Value = serde_json::from_str(&read(&out.join("tune.json"))).unwrap();
    for key in [
        "name", "min", "max", "start", "value", "c_end", "r_end", "integer",
    ] {
        assert!(!json["params"][0][key].is_null(), "params[].{key}");
    }
    assert_eq!(json["seed"], 3);

    // trajectory.csv: the header, θ at the start and after each of the 30 batches.
    let csv = read(&out.join("trajectory.csv"));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "pairs,table.open_three,table.defence");
    assert_eq!(lines.len(), 1 + 1 + 30);
    assert_eq!(lines[1], "0,7500,1");
    for (i, line) in lines[1..].iter().enumerate() {
        let cells: Vec<f64> = line.split(',').map(|c| c.parse().unwrap()).collect();
        assert_eq!(cells.len(), 3, "{line}");
        assert_eq!(cells[0], (8 * i) as f64);
        assert!((1000.0..=20000.0).contains(&cells[1]), "{line}");
    }
    let last: Vec<f64> = lines[31].split(',').map(|c| c.parse().unwrap()).collect();
    assert_eq!(last[1].to_bits(), three.theta.to_bits());

    // tuned.toml: the seed-003 table's comments and layout, the tuned values in place.
    let tuned = read(&out.join("tuned.toml"));
    let base = read(Path::new(&format!(
        "{}/configs/tables/gomoku/seed003.toml",
        env!("CARGO_MANIFEST_DIR")
    )));
    for comment in base.lines().filter(|l| l.starts_with('#')) {
        assert!(tuned.contains(comment), "comment lost: {comment}\n{tuned}");
    }
    assert!(
        tuned.contains(&format!("open_three = {}\n", three.value)),
        "{tuned}"
    );
    assert!(
        tuned.contains(&format!("defence = {}\n", defence.value)),
        "{tuned}"
    );
    assert!(
        tuned.contains("sleep_three = 2000\n"),
        "untouched values stay: {tuned}"
    );
    let Table::Mnk(table) = Table::load(&out.join("tuned.toml")).unwrap() else {
        panic!("an mnk table")
    };
    assert_eq!(table.open_three as f64, three.value);
    assert_eq!(table.defence, defence.value);
    assert_eq!(table.sleep_three, 2000);
    assert_eq!(table.name, "seed003-tuned");

    // tuned-engine.toml: loads, plays the tune's game with the tuned table.
    let engine = arena::engine::EngineConfig::load(&out.join("tuned-engine.toml")).unwrap();
    assert_eq!(engine.name, "seed003-threat-tuned");
    assert_eq!(engine.game.to_string(), "mnk:9,9,5");
    assert_eq!(engine.table, Some(Table::Mnk(table)));
    // Regression: it used to carry the tune's `set` (depth 1, tt_mb 1), so dropped next
    // to the depth-4 base engine it silently played at depth 1. It keeps the base
    // engine's own settings, and says in a comment what the tune played with.
    let base_engine = arena::engine::EngineConfig::load(Path::new(&format!(
        "{}/configs/engines/gomoku-seed003-threat.toml",
        env!("CARGO_MANIFEST_DIR")
    )))
    .unwrap();
    assert_eq!(engine.search, base_engine.search);
    let engine_text = read(&out.join("tuned-engine.toml"));
    assert!(
        engine_text.contains("\"search.depth\" = 1")
            && engine_text.contains("\"search.tt_mb\" = 1"),
        "the tune's overrides are named in a comment: {engine_text}"
    );
    assert!(
        engine_text.contains("# The tune played with set = {"),
        "said of the tune: {engine_text}"
    );

    // The checkpoint and the exact config; the verification match's results.
    assert!(read(&out.join("state.json")).contains("\"pairs_done\":240"));
    assert!(read(&out.join("run.toml")).contains("[base.table]"));
    let v = r.verification.expect("the config asks for a verification");
    assert_eq!(v.wdl.games(), 20);
    assert_eq!(v.engines, ["seed003-threat-tuned", "seed003-threat"]);
    assert!(v.complete);
    assert!(v.estimate.is_some());
    let games = arena::tournament::read_records(&out.join("verification/games.jsonl")).unwrap();
    assert_eq!(games.records.len(), 20);
    for file in ["summary.json", "run.toml", "standings.csv"] {
        assert!(out.join("verification").join(file).exists(), "{file}");
    }

    // The report counts the batches, not the trajectory's rows (which start with θ
    // before the first batch), and shows tune.json's numbers without float noise
    // (regressions: "31 batches recorded", `elapsed_s 95.68240296999998`).
    let html = read(&out.join("report.html"));
    assert!(html.contains("(30 batches recorded)"), "batches");
    let run_table = &html[html.find("id=\"run\"").expect("the run's table")..];
    let run_table = &run_table[..run_table.find("</table>").unwrap()];
    for cell in run_table.split("<td class=\"t\">").skip(1) {
        let value = &cell[..cell.find('<').unwrap()];
        if let Some((_, decimals)) = value.split_once('.')
            && value.parse::<f64>().is_ok()
        {
            assert!(decimals.len() <= 4, "a raw float in the report: {value}");
        }
    }

    // A second run without --resume refuses to touch it; with --resume it is done.
    let e = run_bad_input(&[
        "tune",
        &config("small"),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(e.contains("--resume"), "{e}");
    tune(&[&config("small"), "--resume"], &out);
    assert_eq!(report(&out).params, r.params);
    assert_eq!(read(&out.join("trajectory.csv")), csv);
}

#[test]
fn killed_mid_batch_then_resumed_equals_an_uninterrupted_run() {
    let tmp = tempfile::tempdir().unwrap();
    let full = tmp.path().join("full");
    tune(&[&config("long"), "--jobs", "1"], &full);
    let expected = theta(&full);
    let expected_csv = read(&full.join("trajectory.csv"));
    assert_eq!(expected_csv.lines().count(), 1 + 1 + 100);

    let dir = tmp.path().join("killed");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("arena"))
        .args([
            "tune",
            &config("long"),
            "--jobs",
            "2",
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once a few batches are checkpointed: the next batch is being played.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let done = std::fs::read_to_string(dir.join("state.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["state"]["pairs_done"].as_u64())
            .unwrap_or(0);
        if done >= 18 {
            break;
        }
        assert!(Instant::now() < deadline, "the tune made no progress");
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    let partial = report(&dir);
    assert!(
        !partial.finished && partial.pairs_done < 600,
        "killed before the end"
    );

    tune(&[&config("long"), "--resume"], &dir);
    assert_eq!(theta(&dir), expected);
    assert_eq!(read(&dir.join("trajectory.csv")), expected_csv);
    assert_eq!(
        read(&dir.join("tuned.toml")),
        read(&full.join("tuned.toml"))
    );
}

/// Issue 44, item 13: a session killed mid-batch counted none of its playing time, so
/// after a resume the speed over the whole run ("20027 pairs/h") was more than the pairs
/// could have been played at. The time of every recorded pair counts.
#[test]
fn a_resumed_tune_counts_the_time_of_the_killed_session() {
    let tmp = tempfile::tempdir().unwrap();
    // One batch of 200 pairs at depth 2: a session killed half-way applied nothing.
    let text = read(Path::new(&config("small")))
        .replace("pairs = 240", "pairs = 200")
        .replace("batch = 8", "batch = 200")
        .replace("\"search.depth\" = 1", "\"search.depth\" = 2")
        .replace(
            "../../../configs",
            &format!("{}/configs", env!("CARGO_MANIFEST_DIR")),
        );
    let path = tmp.path().join("one-batch.toml");
    std::fs::write(&path, text).unwrap();
    let dir = tmp.path().join("killed");
    let journal = dir.join("pairs/main.jsonl");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("arena"))
        .args([
            "tune",
            path.to_str().unwrap(),
            "--jobs",
            "1",
            "--quiet",
            "--out",
        ])
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    while crate::common::lines(&journal) < 100 {
        assert!(Instant::now() < deadline, "the tune made no progress");
        assert!(child.try_wait().unwrap().is_none(), "ended before the kill");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    tune(
        &[
            path.to_str().unwrap(),
            "--jobs",
            "1",
            "--resume",
            "--verify-pairs",
            "0",
        ],
        &dir,
    );
    let r = report(&dir);
    assert_eq!(r.pairs_done, 200);
    // One thread: the pairs were played one after the other, so the run spent at least
    // the sum of their times playing.
    let played_ms: u64 = read(&journal)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["ms"]
                .as_u64()
                .unwrap()
        })
        .sum();
    let played_s = played_ms as f64 / 1000.0;
    assert!(played_s > 0.0);
    assert!(
        r.elapsed_s >= 0.98 * played_s,
        "elapsed {} s, but the pairs took {played_s} s",
        r.elapsed_s
    );
    let fastest = 200.0 * 3600.0 / played_s;
    assert!(
        r.pairs_per_hour <= 1.02 * fastest,
        "{} pairs/h over the whole run; at most {fastest} are possible",
        r.pairs_per_hour
    );
}

#[test]
fn resume_refuses_another_config_and_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    tune(
        &[&config("small"), "--pairs", "16", "--verify-pairs", "0"],
        &out,
    );
    let r = report(&out);
    assert_eq!((r.pairs_done, r.pairs_total), (16, 16));
    assert!(r.verification.is_none());
    let e = run_bad_input(&[
        "tune",
        &config("small"),
        "--resume",
        "--pairs",
        "32",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(e.contains("different config") && e.contains("pairs"), "{e}");
    let e = run_bad_input(&[
        "tune",
        &config("small"),
        "--pairs",
        "0",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(e.contains("--pairs"), "{e}");
}

/// A copy of the small tune with `from` replaced by `to`, next to the test data (so the
/// engine path resolves).
fn variant(tmp: &Path, i: usize, from: &str, to: &str) -> PathBuf {
    let text = read(Path::new(&config("small")));
    assert!(text.contains(from), "{from}");
    let fixed = text.replace(from, to).replace(
        "../../../configs",
        &format!("{}/configs", env!("CARGO_MANIFEST_DIR")),
    );
    let path = tmp.join(format!("bad{i}.toml"));
    std::fs::write(&path, fixed).unwrap();
    path
}

#[test]
fn bad_tune_configs_are_one_line_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let cases: Vec<(&str, &str, Vec<&str>)> = vec![
        (
            "table.open_three",
            "table.open_tree",
            vec![
                "bad0.toml:20",
                "unknown parameter `table.open_tree`",
                "table.open_three",
                "table.rush_four",
            ],
        ),
        (
            "max = 20000",
            "max = 1000",
            vec!["bad1.toml:21", "min (1000) must be less than max (1000)"],
        ),
        (
            "min = 1000",
            "min = 8000",
            vec![
                "bad2.toml:20",
                "table.open_three",
                "start value 7500 is outside [min, max] = [8000, 20000]",
            ],
        ),
        (
            "pairs = 240",
            "pairs = 240\npairz = 3",
            vec!["bad3.toml:8", "pairz"],
        ),
        (
            "table.defence",
            "search.ordering",
            vec!["search.ordering", "not a number"],
        ),
        (
            "max = 4.0",
            "max = 400.0",
            vec!["table.defence", "refuses max = 400"],
        ),
        (
            "[verification]\npairs = 10",
            "[verification]\npairs = 10\n[verification.sprt]\nelo0 = 5\nelo1 = 0\nalpha = 0.05\nbeta = 0.05\nmodel = \"logistic\"",
            vec!["[verification.sprt]", "elo0 must be less than elo1"],
        ),
    ];
    for (i, (from, to, needles)) in cases.iter().enumerate() {
        let path = variant(tmp.path(), i, from, to);
        assert_refused("tune", path.to_str().unwrap(), &out, needles, i);
    }
}

/// Issue 44, item 6: `alpha = 1000` made θ NaN, written to state.json, trajectory.csv
/// and tuned.toml. SPSA settings outside the ranges where it can work are refused with
/// the file, the line and the key, and nothing is written.
#[test]
fn spsa_settings_that_cannot_work_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let cases = [
        (
            "seed = 3",
            "seed = 3\nalpha = 1000",
            vec!["bad0.toml:10", "key `alpha`"],
        ),
        (
            "seed = 3",
            "seed = 3\ngamma = 0.9",
            vec!["bad1.toml:10", "key `gamma`"],
        ),
        (
            "seed = 3",
            "seed = 3\na_ratio = 1e300",
            vec!["bad2.toml:10", "key `a_ratio`"],
        ),
        (
            "max = 20000",
            "max = 20000\nc_end = 15000",
            vec![
                "bad3.toml:23",
                "table.open_three",
                "c_end = 15000 is more than half",
            ],
        ),
        (
            "max = 20000",
            "max = 20000\nr_end = 100",
            vec![
                "bad4.toml:23",
                "table.open_three",
                "r_end = 100 is too large",
            ],
        ),
    ];
    for (i, (from, to, needles)) in cases.iter().enumerate() {
        let path = variant(tmp.path(), i, from, to);
        assert_refused("tune", path.to_str().unwrap(), &out, needles, i);
    }
}

#[test]
fn the_shipped_tune_config_runs() {
    let path = format!("{}/configs/tune-gomoku.toml", env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("shipped");
    tune(&[&path, "--pairs", "4", "--verify-pairs", "1"], &out);
    let r = report(&out);
    assert_eq!(r.pairs_done, 4);
    assert_eq!(r.params.len(), 4);
    assert_eq!(r.verification.map(|v| v.wdl.games()), Some(2));
    assert!(out.join("tuned.toml").exists());
    // Issue 44, item 17: the balanced openings in their symmetries, kept distinct past
    // the list by random plies, in the tune and its verification.
    for run in [out.join("run.toml"), out.join("verification/run.toml")] {
        let text = read(&run);
        assert!(
            text.contains("kind = \"balanced\"") && text.contains("random_plies = 2"),
            "{text}"
        );
    }
    // The search tunes of the modern engines (issue 22): their numbers, node-limited.
    for (name, params) in [("ataxx", 7), ("gomoku", 6)] {
        let path = format!(
            "{}/configs/tune-{name}-search.toml",
            env!("CARGO_MANIFEST_DIR")
        );
        let out = tmp.path().join(name);
        tune(&[&path, "--pairs", "2", "--verify-pairs", "1"], &out);
        let r = report(&out);
        assert_eq!((r.pairs_done, r.params.len()), (2, params), "{name}");
        assert_eq!(r.verification.map(|v| v.wdl.games()), Some(2), "{name}");
        let engine = std::fs::read_to_string(out.join("tuned-engine.toml")).unwrap();
        assert!(engine.contains("lmr_divisor = "), "{engine}");
        // The tuned engine loads and plays (it once had "params.lmr_base" keys under
        // [search], which no engine file accepts).
        assert!(!engine.contains("\"params."), "{engine}");
        let tuned = out.join("tuned-engine.toml");
        run_ok(&["bench", tuned.to_str().unwrap()]);
        if name == "gomoku" {
            // It plays the balanced openings (docs/tuning.md: fewer pairs split).
            let run = std::fs::read_to_string(out.join("run.toml")).unwrap();
            assert!(run.contains("kind = \"balanced\""), "{run}");
            assert!(run.contains("random_plies = 2"), "{run}");
        }
    }
}

/// The small tune with its parameters replaced by `param` (a `[[params]]` body) and
/// `extra` added to its `set`, 16 pairs, the engine path made absolute; its path.
fn small_with(dir: &Path, name: &str, extra_set: &str, param: &str) -> PathBuf {
    let small = std::fs::read_to_string(config("small")).unwrap();
    let start = small.find("[[params]]").unwrap();
    let text = format!(
        "{}[[params]]\n{param}",
        small[..start].replace("pairs = 240", "pairs = 16")
    )
    .replace(
        "\"search.tt_mb\" = 1 }",
        &format!("\"search.tt_mb\" = 1{extra_set} }}"),
    )
    // The engine path is relative to the config: point it at the shipped one.
    .replace(
        "../../../configs/engines/gomoku-seed003-threat.toml",
        &format!(
            "{}/configs/engines/gomoku-seed003-threat.toml",
            env!("CARGO_MANIFEST_DIR")
        ),
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// A small tune of `param` (with `set` added) is refused before any game with an error
/// holding each of `wants` and nothing written; the fixed one (`fixed_set`,
/// `fixed_param`) is tuned.
fn refused_then_tuned(set: &str, param: &str, wants: &[&str], fixed_set: &str, fixed_param: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let path = small_with(tmp.path(), "inert", set, param);
    let err = run_bad_input(&[
        "tune",
        path.to_str().unwrap(),
        "--out",
        tmp.path().join("o").to_str().unwrap(),
    ]);
    assert!(err.contains("inert.toml:"), "{err}");
    for want in wants {
        assert!(err.contains(want), "{want}: {err}");
    }
    assert!(!tmp.path().join("o").exists(), "nothing written");
    let fixed = small_with(tmp.path(), "fixed", fixed_set, fixed_param);
    let printed = tune(
        &[fixed.to_str().unwrap(), "--verify-pairs", "0"],
        &tmp.path().join("fixed"),
    );
    let name = wants[0];
    assert!(printed.contains(name), "{printed}");
}

#[test]
fn a_tuned_number_whose_switch_is_off_is_refused_naming_the_switch() {
    // seed003-threat has no razoring: its razoring margin changes no move, so the tune
    // could only burn its pairs. With razoring turned on in `set`, it is tuned.
    let margin = "name = \"search.params.razor_margin\"\nmin = 100\nmax = 500\n";
    refused_then_tuned(
        "",
        margin,
        &[
            "search.params.razor_margin",
            "search.razoring is off",
            "seed003-threat",
        ],
        ", \"search.razoring\" = true",
        margin,
    );
}

#[test]
fn a_tuned_number_whose_rule_another_number_turns_off_is_refused_unless_tuned_too() {
    // With late-move pruning on but `lmp_defend` 0 (its default), `lmp_defend_max` changes
    // no move: refused, naming the number that turns its rule off. Tuned together with
    // `lmp_defend`, which may move away from 0, it is taken.
    let lmp = ", \"search.late_move_pruning\" = true";
    let max = "name = \"search.params.lmp_defend_max\"\nmin = 2\nmax = 20\nstart = 8\n";
    refused_then_tuned(
        lmp,
        max,
        &[
            "search.params.lmp_defend_max",
            "search.params.lmp_defend is 0 (off)",
            "tune it too",
        ],
        lmp,
        &format!(
            "name = \"search.params.lmp_defend\"\nmin = 0\nmax = 800\nstart = 400\n\n\
             [[params]]\n{max}"
        ),
    );
}

#[test]
fn a_tuned_number_that_moves_nothing_is_warned_about() {
    // The small tune searches 1 ply: late-move reductions (from 3 plies left) never
    // happen, so `lmr_divisor` changes no move though `lmr` is on (nothing in the config
    // tells: the load cannot refuse it), every pair is a split or a double draw and θ
    // stays where it started.
    let tmp = tempfile::tempdir().unwrap();
    let path = small_with(
        tmp.path(),
        "inert",
        ", \"search.lmr\" = true",
        "name = \"search.params.lmr_divisor\"\nmin = 50\nmax = 400\nstart = 200\n",
    );
    let out = tmp.path().join("inert");
    let printed = tune(&[path.to_str().unwrap(), "--verify-pairs", "0"], &out);
    assert!(
        printed.contains("0 of 16 pairs (0.0 %) moved θ"),
        "{printed}"
    );
    assert!(
        printed.contains("warning: no pair moved θ") && printed.contains("search.razoring"),
        "{printed}"
    );
    let r = report(&out);
    assert_eq!(r.params[0].value, r.params[0].start, "{:?}", r.params[0]);
}

#[test]
fn a_stop_request_keeps_the_last_checkpoint_and_resume_finishes_it() {
    use std::sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    };

    use arena::{
        jobs::JobOptions,
        tune::{Tune, TuneEnding, TuneEvent},
    };

    let tmp = tempfile::tempdir().unwrap();
    use arena::config::ConfigFile;
    let mut t = Tune::load(Path::new(&config("small"))).unwrap();
    t.config.pairs = 64;
    let options = |dir: &str, resume: bool, stop: Arc<AtomicBool>| JobOptions {
        jobs: 2,
        resume,
        out_dir: tmp.path().join(dir),
        stop,
    };
    let full = arena::tune::run(
        &t,
        &options("full", false, Arc::new(AtomicBool::new(false))),
        None,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(full.ending, TuneEnding::Complete);
    assert_eq!(full.state.pairs_done, 64);

    // Stop as the third batch is checkpointed (what Ctrl-C does).
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let stopped = arena::tune::run(&t, &options("stopped", false, stop), None, &mut |e| {
        if let TuneEvent::Batch { state, .. } = e
            && state.batches_done == 3
        {
            flag.store(true, Ordering::Relaxed);
        }
    })
    .unwrap();
    assert_eq!(stopped.ending, TuneEnding::Interrupted);
    assert_eq!(stopped.state.pairs_done, 24);
    assert_eq!(report(&tmp.path().join("stopped")).pairs_done, 24);
    let resumed = arena::tune::run(
        &t,
        &options("stopped", true, Arc::new(AtomicBool::new(false))),
        None,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(resumed.ending, TuneEnding::Complete);
    assert_eq!(resumed.played, 40);
    assert_eq!(resumed.state, full.state);
    assert_eq!(
        theta(&tmp.path().join("stopped")),
        theta(&tmp.path().join("full"))
    );
}

#[test]
fn a_verification_over_repeated_openings_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("two.txt"), "e5f5\ne5e6\n").unwrap();
    let path = variant(
        tmp.path(),
        0,
        "kind = \"random\"\nplies = 3\nradius = 2",
        "kind = \"file\"\nfile = \"two.txt\"",
    );
    let out = tmp.path().join("out");
    let printed = tune(
        &[
            path.to_str().unwrap(),
            "--pairs",
            "8",
            "--verify-pairs",
            "4",
        ],
        &out,
    );
    assert!(
        printed.contains("warning: only 2 distinct opening(s)"),
        "{printed}"
    );
    let v = report(&out).verification.unwrap();
    assert!(v.warning.unwrap().contains("pairs repeat"));
    // Enough openings for the pairs: no warning.
    let out = tmp.path().join("out2");
    tune(
        &[
            path.to_str().unwrap(),
            "--pairs",
            "8",
            "--verify-pairs",
            "2",
        ],
        &out,
    );
    assert_eq!(report(&out).verification.unwrap().warning, None);
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
