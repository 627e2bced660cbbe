//! `arena fit` through the real binary: a small fit from self-play games end to end with
//! every output file, the same table on one and two threads, killed with SIGKILL during
//! the self-play games and again during the epochs and resumed to exactly the table of
//! an uninterrupted fit, bad input rejected with file and line, the shipped config.
//!
//! `arena fit` reads games given besides a config.

use std::{
    path::{Path, PathBuf},
    process::{Child, Stdio},
    time::{Duration, Instant},
};

use arena::{eval::Table, tune::fit::FitReport};

use crate::common::{arena, data, run_bad_input, run_ok};

fn config(name: &str) -> String {
    data(&format!("fit/{name}.toml")).display().to_string()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn report(dir: &Path) -> FitReport {
    FitReport::read(dir).unwrap_or_else(|e| panic!("{e}"))
}

fn seed003_engine() -> String {
    format!(
        "{}/configs/engines/gomoku-seed003-threat.toml",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn fit(args: &[&str], out: &Path) -> String {
    let mut all = vec!["fit"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--quiet", "--out", out.to_str().unwrap()]);
    run_ok(&all)
}

/// The fitted values, K and losses, exactly (bits).
fn fitted(dir: &Path) -> Vec<u64> {
    let r = report(dir);
    let mut bits: Vec<u64> = r.params.iter().map(|p| p.value.to_bits()).collect();
    bits.push(r.k.to_bits());
    for row in &r.history {
        bits.push(row.train.to_bits());
        bits.push(row.validation.to_bits());
    }
    bits
}

#[test]
fn a_small_fit_writes_every_output() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("small");
    let printed = fit(&[&config("small")], &out);
    for needle in [
        "table.open_three",
        "table.defence",
        "verification",
        "Elo",
        "K =",
    ] {
        assert!(printed.contains(needle), "{needle}: {printed}");
    }
    let r = report(&out);
    assert!(r.finished && r.epochs_done == 8, "{r:?}");
    assert_eq!(r.selfplay_games, Some(80));
    let p = r.positions;
    assert_eq!(p.games, 80);
    assert!(p.train > 100 && p.validation > 10, "{p:?}");
    assert!(p.opening > 0 && p.not_quiet > 0 && p.decisive > 0, "{p:?}");
    assert_eq!(r.history.len(), 9);
    assert!(r.k > 0.0);
    // The fit lowers the training loss it minimises.
    assert!(r.final_loss.train < r.history[0].train, "{r:?}");
    let (three, defence) = (&r.params[0], &r.params[1]);
    assert_eq!((three.start, three.min, three.max), (7500.0, 0.0, 30000.0));
    assert_eq!(three.value.fract(), 0.0);
    assert!((0.25..=4.0).contains(&defence.value));
    assert_ne!(defence.value, 1.0, "defence moved");
    let v = r.verification.as_ref().expect("a verification");
    assert_eq!(v.wdl.games(), 8);

    // The report: the parameters and the loss curve, as a tune's report shows them.
    let csv = read(&out.join("trajectory.csv"));
    assert!(
        csv.starts_with("epoch,table.open_three,table.defence\n0,7500,1\n"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 1 + 9);
    for plot in ["tuning", "loss"] {
        assert!(out.join(format!("plots/{plot}.svg")).exists(), "{plot}");
    }
    let html = read(&out.join("report.html"));
    assert!(html.contains("arena report: fit small-fit"), "{html}");
    assert!(html.contains("fitted in range"));

    // Self-play games are a normal results folder.
    let games = read(&out.join("selfplay/games.jsonl"));
    assert_eq!(games.lines().count(), 80);

    // fitted.toml: the seed-003 table's comments and layout, the fitted values in place.
    let text = read(&out.join("fitted.toml"));
    let base = read(Path::new(&format!(
        "{}/configs/tables/gomoku/seed003.toml",
        env!("CARGO_MANIFEST_DIR")
    )));
    for comment in base.lines().filter(|l| l.starts_with('#')) {
        assert!(text.contains(comment), "comment lost: {comment}\n{text}");
    }
    assert!(text.contains("sleep_three = 2000\n"), "{text}");
    let Table::Mnk(table) = Table::load(&out.join("fitted.toml")).unwrap() else {
        panic!("an mnk table")
    };
    assert_eq!(table.name, "seed003-fitted");
    assert_eq!(table.defence, defence.value);
    assert_eq!(table.open_three as f64, three.value);
    let engine = arena::engine::EngineConfig::load(&out.join("fitted-engine.toml")).unwrap();
    assert_eq!(engine.name, "seed003-threat-fitted");
    assert_eq!(engine.table, Some(Table::Mnk(table)));

    // Without --resume the folder is refused; with it, a finished fit stays as it is.
    let e = run_bad_input(&["fit", &config("small"), "--out", out.to_str().unwrap()]);
    assert!(e.contains("add --resume"), "{e}");
    let before = fitted(&out);
    fit(&[&config("small"), "--resume", "--verify-pairs", "0"], &out);
    assert_eq!(fitted(&out), before);

    // The records it wrote can be read again by a fit from flags.
    let again = tmp.path().join("flags");
    let printed = run_ok(&[
        "fit",
        "--engine",
        &seed003_engine(),
        "--games",
        out.join("selfplay").to_str().unwrap(),
        "--params",
        "table.defence,table.sleep_three",
        "--epochs",
        "2",
        "--quiet",
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(printed.contains("table.sleep_three"), "{printed}");
    assert!(
        printed.contains("mnk:9,9,5") || printed.contains("gomoku"),
        "{printed}"
    );
}

#[test]
fn the_same_table_on_one_and_two_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    fit(
        &[&config("small"), "--jobs", "1", "--verify-pairs", "0"],
        &one,
    );
    fit(
        &[&config("small"), "--jobs", "2", "--verify-pairs", "0"],
        &two,
    );
    assert_eq!(fitted(&one), fitted(&two));
    assert_eq!(
        read(&one.join("fitted.toml")),
        read(&two.join("fitted.toml"))
    );
}

fn spawn(dir: &Path, resume: bool) -> Child {
    let mut args = vec![
        "fit".to_string(),
        config("long"),
        "--jobs".into(),
        "2".into(),
        "--quiet".into(),
        "--out".into(),
        dir.display().to_string(),
    ];
    if resume {
        args.push("--resume".into());
    }
    crate::common::arena_process()
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits until `ready` holds, then kills `child` with SIGKILL.
fn kill_when(mut child: Child, what: &str, ready: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(300);
    while !ready() {
        assert!(Instant::now() < deadline, "no progress before {what}");
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
}

fn epochs_done(dir: &Path) -> u64 {
    std::fs::read_to_string(dir.join("state.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["epoch"].as_u64())
        .unwrap_or(0)
}

#[test]
fn killed_during_selfplay_and_during_the_fit_then_resumed_equals_an_uninterrupted_fit() {
    let tmp = tempfile::tempdir().unwrap();
    let full = tmp.path().join("full");
    fit(&[&config("long"), "--jobs", "1"], &full);
    let expected = fitted(&full);

    let dir = tmp.path().join("killed");
    let games = dir.join("selfplay/games.jsonl");
    kill_when(spawn(&dir, false), "during self-play", || {
        std::fs::read_to_string(&games).is_ok_and(|t| t.lines().count() >= 100)
    });
    assert!(read(&games).lines().count() < 800, "killed before the end");
    assert!(!dir.join("state.json").exists());

    kill_when(spawn(&dir, true), "during the fit", || {
        epochs_done(&dir) >= 3
    });
    let partial = report(&dir);
    assert!(!partial.finished, "killed before the end");

    fit(&[&config("long"), "--resume"], &dir);
    assert_eq!(fitted(&dir), expected);
    assert_eq!(
        read(&dir.join("fitted.toml")),
        read(&full.join("fitted.toml"))
    );
    assert_eq!(
        read(&dir.join("selfplay/games.jsonl")).lines().count(),
        read(&full.join("selfplay/games.jsonl")).lines().count()
    );
}

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
fn bad_input_is_one_line_with_file_and_line_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let cases: Vec<(&str, &str, Vec<&str>)> = vec![
        ("epochs = 8", "epochs = 0", vec!["bad0.toml:8", "epochs"]),
        ("epochs = 8", "epoch = 8", vec!["bad1.toml", "epoch"]),
        (
            "\"table.open_three\"",
            "\"table.open_tree\"",
            vec!["bad2.toml:7", "table.open_tree", "not a weight"],
        ),
        (
            "\"table.open_three\"",
            "\"search.depth\"",
            vec!["bad3.toml:7", "only table weights"],
        ),
        ("pairs = 40", "pairs = 0", vec!["bad4.toml", "[selfplay]"]),
    ];
    for (i, (from, to, needles)) in cases.iter().enumerate() {
        let path = variant(tmp.path(), i, from, to);
        let e = run_bad_input(&[
            "fit",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        for n in needles {
            assert!(e.contains(n), "case {i}: '{n}' not in: {e}");
        }
    }
    assert!(!out.exists(), "bad configs touch nothing");
    let e = run_bad_input(&[
        "fit",
        "--engine",
        &seed003_engine(),
        "--games",
        tmp.path().join("nope").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(e.contains("key `games`") && e.contains("nope"), "{e}");
    assert!(!out.exists(), "a missing games folder touches nothing");

    // A record edited by hand: the error names the file and line.
    let good = tmp.path().join("good");
    fit(&[&config("small"), "--verify-pairs", "0"], &good);
    let games = good.join("selfplay/games.jsonl");
    let text = read(&games);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut record: serde_json::Value = serde_json::from_str(&lines[4]).unwrap();
    let first = record["moves"][0].clone();
    record["moves"][1] = first;
    lines[4] = serde_json::to_string(&record).unwrap();
    std::fs::write(&games, lines.join("\n") + "\n").unwrap();
    let flags = tmp.path().join("flags");
    let e = run_bad_input(&[
        "fit",
        "--engine",
        &seed003_engine(),
        "--games",
        good.join("selfplay").to_str().unwrap(),
        "--out",
        flags.to_str().unwrap(),
    ]);
    assert!(e.contains("games.jsonl:5"), "{e}");
    assert!(e.contains("move 2"), "{e}");
    // The failed fit made no claim on its folder: mended records start it afresh.
    assert!(!flags.join("run.toml").exists() && !flags.join("state.json").exists());

    // A checkpoint edited by hand.
    std::fs::write(good.join("state.json"), "{\"config\": 3}\n").unwrap();
    let e = run_bad_input(&[
        "fit",
        &config("small"),
        "--resume",
        "--out",
        good.to_str().unwrap(),
    ]);
    assert!(e.contains("state.json:1"), "{e}");
}

#[test]
fn the_shipped_fit_configs_run() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("fit-") && n.ends_with(".toml"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "fit-ataxx-datagen.toml",
            "fit-ataxx-net.toml",
            "fit-ataxx.toml",
            "fit-gomoku-cells.toml",
            "fit-gomoku-modern.toml",
            "fit-gomoku-strong.toml",
            "fit-gomoku.toml"
        ]
    );
    for name in &names {
        if name == "fit-ataxx-datagen.toml" || name == "fit-ataxx-net.toml" {
            shipped_datagen_fit_runs(&root, name, tmp.path());
            continue;
        }
        let out = tmp.path().join(name);
        let path = root.join(name);
        let printed = fit(
            &[
                path.to_str().unwrap(),
                "--selfplay-pairs",
                "2",
                "--epochs",
                "1",
                "--verify-pairs",
                "0",
            ],
            &out,
        );
        let r = report(&out);
        if name.contains("ataxx") {
            assert!(printed.contains("table.square_d4"), "{printed}");
            assert_eq!(r.game, "ataxx");
        } else if name.contains("cells") {
            let names: Vec<&str> = r.params.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(
                names,
                [
                    "table.cell_double_four",
                    "table.cell_four_three",
                    "table.cell_double_three",
                    "table.cell_four_two",
                    "table.cell_three_two",
                    "table.cell_double_two"
                ]
            );
            assert_eq!(r.game, "gomoku");
        } else {
            assert!(printed.contains("table.sleep_three"), "{printed}");
            assert_eq!(r.game, "gomoku");
            assert!(r.params.iter().any(|p| p.name == "table.defence"));
        }
    }
}

/// A fit config that reads `arena datagen` output runs as its comment says: in a copy of
/// the repository's configs, after the datagen command it names (with fewer positions).
fn shipped_datagen_fit_runs(root: &Path, name: &str, tmp: &Path) {
    let repo = tmp.join(format!("repo-{name}"));
    let configs = repo.join("configs");
    for dir in ["engines", "tables/ataxx", "tables/gomoku"] {
        std::fs::create_dir_all(configs.join(dir)).unwrap();
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, configs.join(dir).join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    std::fs::copy(root.join(name), configs.join(name)).unwrap();
    let text = std::fs::read_to_string(root.join(name)).unwrap();
    let command = text
        .lines()
        .skip_while(|l| {
            !l.trim_start_matches('#')
                .trim()
                .starts_with("arena datagen")
        })
        .take(2)
        .map(|l| {
            l.trim_start_matches('#')
                .trim()
                .trim_end_matches('\\')
                .trim()
        })
        .collect::<Vec<_>>()
        .join(" ");
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words[..2], ["arena", "datagen"], "{command}");
    let mut args: Vec<String> = words[2..].iter().map(|w| w.to_string()).collect();
    // The comment's command, with a small count and depth.
    for (flag, value) in [("--positions", "400"), ("--depth", "1")] {
        let p = args
            .iter()
            .position(|a| a == flag)
            .unwrap_or_else(|| panic!("{flag}: {command}"));
        args[p + 1] = value.into();
    }
    args.push("--quiet".into());
    let o = arena()
        .current_dir(&repo)
        .args(std::iter::once("datagen".to_string()).chain(args))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = tmp.join(name);
    let o = arena()
        .current_dir(&repo)
        .args([
            "fit",
            &format!("configs/{name}"),
            "--epochs",
            "1",
            "--verify-pairs",
            "0",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = report(&out);
    assert_eq!(r.game, "ataxx");
    if name == "fit-ataxx-net.toml" {
        // The net alone: no named parameter, the table's [net] written and played.
        assert!(r.params.is_empty(), "{:?}", r.params);
        let table = read(&out.join("fitted.toml"));
        assert!(table.contains("\n[net]\nhidden = 64\n"), "{table}");
        let o = arena()
            .args(["bench", "--depth", "2"])
            .arg(out.join("fitted-engine.toml"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        return;
    }
    let fitted: Vec<&str> = r.params.iter().map(|p| p.name.as_str()).collect();
    for p in [
        "table.hole_8",
        "table.endgame.material",
        "table.endgame.hole_8",
    ] {
        assert!(fitted.contains(&p), "{p}: {fitted:?}");
    }
}

/// Regressions: the table weights of a fit's `set` that it does not fit were lost from
/// `fitted.toml` (the positions were evaluated with them), and `fitted-engine.toml`
/// said "The tune played with set = ...". A set weight that is fitted takes its fitted
/// value.
#[test]
fn set_table_weights_are_written_into_the_fitted_table() {
    let tmp = tempfile::tempdir().unwrap();
    let text = format!(
        "name = \"set-fit\"\ngame = \"mnk:9,9,5\"\nengine = \"{}\"\n\
         set = {{ \"search.tt_mb\" = 1, \"table.sleep_three\" = 1500, \
         \"table.open_three\" = 9000 }}\n\
         params = [\"table.open_three\"]\nepochs = 2\nbatch = 256\nlr = 0.05\n\
         skip_plies = 4\nvalidation = 0.2\nseed = 3\n\n\
         [selfplay]\npairs = 10\nset = {{ \"search.depth\" = 1, \"search.random_margin\" = 300 }}\n\n\
         [openings]\nkind = \"random\"\nplies = 3\nradius = 2\n\n\
         [adjudication]\nmax_plies = 60\n",
        seed003_engine()
    );
    let config = crate::common::write(tmp.path(), "set-fit.toml", &text);
    let out = tmp.path().join("out");
    fit(&[&config, "--verify-pairs", "0"], &out);
    let r = report(&out);
    let three = &r.params[0];
    assert_eq!(
        (three.name.as_str(), three.start),
        ("table.open_three", 9000.0)
    );

    let fitted_text = read(&out.join("fitted.toml"));
    assert!(
        fitted_text.contains("sleep_three = 1500\n"),
        "{fitted_text}"
    );
    assert!(
        fitted_text.contains("\"table.sleep_three\" = 1500"),
        "the header says where 1500 comes from: {fitted_text}"
    );
    let Table::Mnk(table) = Table::load(&out.join("fitted.toml")).unwrap() else {
        panic!("an mnk table")
    };
    assert_eq!(table.sleep_three, 1500, "set, not fitted");
    assert_eq!(table.open_three as f64, three.value, "fitted wins over set");
    assert_eq!(
        table.open_two, 1000,
        "neither set nor fitted: the base table's"
    );

    let engine = arena::engine::EngineConfig::load(&out.join("fitted-engine.toml")).unwrap();
    assert_eq!(engine.table, Some(Table::Mnk(table)));
    let engine_text = read(&out.join("fitted-engine.toml"));
    let header: Vec<&str> = engine_text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .collect();
    let line = header
        .iter()
        .find(|l| l.contains("with set ="))
        .unwrap_or_else(|| panic!("the overrides are named: {engine_text}"));
    assert!(
        line.starts_with("# The fit ran with set = { \"search.tt_mb\" = 1 };"),
        "only what is not written, and said of the fit: {line}"
    );
    assert!(!line.contains("tune"), "{line}");
}

/// Issue 44, item 5: `arena fit --games DIR` took records `arena stats` refuses (a
/// flipped result, a line twice, another run's record) and fitted on them. It checks
/// them as every reader does, against the run.toml beside them.
#[test]
fn fit_refuses_the_records_stats_refuses() {
    use serde_json::{Value, json};
    let tmp = tempfile::tempdir().unwrap();
    let games = tmp.path().join("games");
    let small = data("tournaments/small.toml");
    run_ok(&[
        "run",
        small.to_str().unwrap(),
        "--quiet",
        "--no-report",
        "--out",
        games.to_str().unwrap(),
    ]);
    let text = read(&games.join("games.jsonl"));
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let won = records
        .iter()
        .position(|r| r["reason"] == "k-in-a-row")
        .expect("a won game");
    type Edit = Box<dyn Fn(&mut Vec<Value>)>;
    let cases: Vec<(&str, Edit, usize, &str)> = vec![
        (
            "a flipped result",
            Box::new(move |rs| {
                let r = &mut rs[won];
                r["result"] = json!(if r["result"] == "1-0" { "0-1" } else { "1-0" });
            }),
            won + 1,
            "the moves end in k-in-a-row",
        ),
        (
            "a duplicated line",
            Box::new(|rs| {
                let copy = rs[3].clone();
                rs.insert(4, copy);
            }),
            5,
            "appears twice",
        ),
        (
            "another run's record",
            Box::new(|rs| {
                rs[2]["seed"] = json!("12345");
                rs[2]["black_name"] = json!("elsewhere");
            }),
            3,
            "black_name is 'elsewhere'",
        ),
    ];
    for (n, (what, edit, line, want)) in cases.into_iter().enumerate() {
        let dir = tmp.path().join(format!("edit-{n}"));
        crate::common::copy_folder(&games, &dir);
        let mut edited = records.clone();
        edit(&mut edited);
        let text: String = edited.iter().map(|r| format!("{r}\n")).collect();
        std::fs::write(dir.join("games.jsonl"), text).unwrap();
        // `arena stats` refuses it, and so does the fit, with the same file and line.
        let at = format!("games.jsonl:{line}: ");
        let e = run_bad_input(&["stats", dir.to_str().unwrap()]);
        assert!(e.contains(&at) && e.contains(want), "{what}: stats: {e}");
        let out = tmp.path().join(format!("fit-{n}"));
        let e = run_bad_input(&[
            "fit",
            "--engine",
            &seed003_engine(),
            "--games",
            dir.to_str().unwrap(),
            "--params",
            "table.open_three",
            "--epochs",
            "1",
            "--verify-pairs",
            "0",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(e.contains(&at) && e.contains(want), "{what}: fit: {e}");
        assert!(!out.join("state.json").exists(), "{what}: no fit was made");
    }
    // Records without the run.toml they were played from cannot be checked.
    let bare = tmp.path().join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::copy(games.join("games.jsonl"), bare.join("games.jsonl")).unwrap();
    let e = run_bad_input(&[
        "fit",
        "--engine",
        &seed003_engine(),
        "--games",
        bare.to_str().unwrap(),
        "--quiet",
        "--out",
        tmp.path().join("fit-bare").to_str().unwrap(),
    ]);
    assert!(e.contains("no run.toml beside it"), "{e}");
}

/// Issue 44, item 6: a value of the checkpoint's `history` edited out of its range was
/// written to trajectory.csv on resume. It is refused, naming the file and the key.
#[test]
fn a_history_value_out_of_range_is_refused_on_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("fit");
    fit(
        &[&config("small"), "--epochs", "2", "--verify-pairs", "0"],
        &out,
    );
    let path = out.join("state.json");
    let mut state: serde_json::Value = serde_json::from_str(&read(&path)).unwrap();
    // table.defence fits within [0.25, 4.0] (the small config's range).
    state["history"][1]["values"][1] = serde_json::json!(1.0e6);
    std::fs::write(&path, serde_json::to_string_pretty(&state).unwrap()).unwrap();
    let trajectory = read(&out.join("trajectory.csv"));
    let e = run_bad_input(&[
        "fit",
        &config("small"),
        "--epochs",
        "2",
        "--resume",
        "--verify-pairs",
        "0",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        e.contains("state.json:") && e.contains("key `history`"),
        "{e}"
    );
    assert!(
        e.contains("table.defence = 1000000 is outside its range [0.25, 4]"),
        "{e}"
    );
    assert_eq!(
        read(&out.join("trajectory.csv")),
        trajectory,
        "left as it was"
    );
}

/// `arena datagen` of a shipped engine into `dir` (`--quiet`).
fn datagen(engine: &str, dir: &Path, args: &[&str]) {
    let engine = format!("{}/configs/engines/{engine}", env!("CARGO_MANIFEST_DIR"));
    let mut all = vec![
        "datagen",
        engine.as_str(),
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    run_ok(&all);
}

#[test]
fn datagen_data_is_streamed_with_a_blend_of_result_and_score() {
    let tmp = tempfile::tempdir().unwrap();
    let at = |name: &str| tmp.path().join(name);
    let engine = |name: &str| format!("{}/configs/engines/{name}", env!("CARGO_MANIFEST_DIR"));
    let fit_data = |engine: &str, data: &Path, out: &str, extra: &[&str]| {
        let mut args = vec![
            "--engine",
            engine,
            "--data",
            data.to_str().unwrap(),
            "--epochs",
            "2",
            "--verify-pairs",
            "0",
        ];
        args.extend_from_slice(extra);
        fit(&args, &at(out));
        fitted(&at(out))
    };
    // Ataxx: the text file and bullet's binary file hold the same positions and scores,
    // so they fit to the same table, on any number of threads.
    let games = ["--games", "30", "--depth", "2"];
    datagen("ataxx-strong.toml", &at("a-text"), &games);
    datagen(
        "ataxx-strong.toml",
        &at("a-bullet"),
        &[&games[..], &["--format", "bullet"]].concat(),
    );
    let ataxx = engine("ataxx-strong.toml");
    // From a config (`data`, `lambda`; half the positions held out), and from flags.
    let config = |data: &str| {
        let text = format!(
            "name = \"stream\"\nengine = \"{ataxx}\"\ndata = [\"{}\"]\nlambda = 0.5\n\
             params = \"all\"\nepochs = 2\nvalidation = 0.5\n",
            at(data).display()
        );
        let path = at(&format!("{data}.toml"));
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    fit(
        &[&config("a-text"), "-j", "1", "--verify-pairs", "0"],
        &at("f1"),
    );
    fit(
        &[&config("a-bullet"), "-j", "2", "--verify-pairs", "0"],
        &at("f2"),
    );
    let text = fitted(&at("f1"));
    assert_eq!(text, fitted(&at("f2")));
    let r = report(&at("f1"));
    let lines = std::fs::read_to_string(at("a-text").join("positions.txt"))
        .unwrap()
        .lines()
        .count();
    assert_eq!((r.positions.train + r.positions.validation) as usize, lines);
    assert!(
        r.positions.train > 200 && r.positions.validation > 200,
        "{:?}",
        r.positions
    );
    assert_eq!(r.history.len(), 3, "the base table and two epochs");
    assert!(
        r.history.iter().all(|h| h.validation > 0.0),
        "{:?}",
        r.history
    );
    let text = fit_data(&ataxx, &at("a-text"), "f4", &["--lambda", "0.5"]);
    // lambda moves the labels: the result alone is another fit.
    assert_ne!(
        text,
        fit_data(&ataxx, &at("a-text"), "f3", &["--lambda", "1"])
    );
    // Gomoku: text and c-gomoku-cli's binpack (with scores) alike; bin holds no score, so
    // it fits as the text does with the result alone.
    let games = ["--games", "12", "--depth", "2"];
    datagen("gomoku-strong.toml", &at("g-text"), &games);
    for f in ["bin", "binpack"] {
        datagen(
            "gomoku-strong.toml",
            &at(&format!("g-{f}")),
            &[&games[..], &["--format", f]].concat(),
        );
    }
    let gomoku = engine("gomoku-strong.toml");
    let params = ["--params", "table.open_three,table.open_two,table.defence"];
    let blend = [&params[..], &["--lambda", "0.3"]].concat();
    assert_eq!(
        fit_data(&gomoku, &at("g-text"), "g1", &blend),
        fit_data(&gomoku, &at("g-binpack"), "g2", &blend)
    );
    let result = [&params[..], &["--lambda", "1"]].concat();
    assert_eq!(
        fit_data(&gomoku, &at("g-text"), "g3", &result),
        fit_data(&gomoku, &at("g-bin"), "g4", &result)
    );
    // Datagen data and game records do not mix.
    let e = run_bad_input(&[
        "fit",
        "--engine",
        &ataxx,
        "--data",
        at("a-text").to_str().unwrap(),
        "--games",
        at("a-text").to_str().unwrap(),
        "--quiet",
        "--out",
        at("bad").to_str().unwrap(),
    ]);
    assert!(e.contains("either datagen output"), "{e}");
}

fn fit_config() -> String {
    data("fit/small.toml").display().to_string()
}

/// Issue 20, item 21: `arena fit CONFIG --games DIR` was refused ("the config names its
/// games") for a config without `games`: the folders are read besides the config's own.
#[test]
fn fit_reads_games_given_besides_a_config() {
    let tmp = tempfile::tempdir().unwrap();
    let games = tmp.path().join("games");
    let small = data("tournaments/small.toml");
    run_ok(&[
        "run",
        small.to_str().unwrap(),
        "--quiet",
        "--no-report",
        "--out",
        games.to_str().unwrap(),
    ]);
    let out = tmp.path().join("fit");
    let stdout = run_ok(&[
        "fit",
        &fit_config(),
        "--games",
        games.to_str().unwrap(),
        "--selfplay-pairs",
        "4",
        "--epochs",
        "2",
        "--verify-pairs",
        "0",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    // 8 self-play games and the 36 of the tournament.
    assert!(stdout.contains("from 44 games"), "{stdout}");
}

/// `[net]` in a fit config: a new net fitted on `arena datagen` positions lowers the
/// loss, is the same on one and two threads, goes into `fitted.toml` as the table's
/// `[net]` (which the fitted engine plays, and which a second fit starts from), and bad
/// `[net]` sections and tables name the key.
#[test]
fn a_net_fit_writes_the_net_the_engine_plays() {
    let tmp = tempfile::tempdir().unwrap();
    // ataxx-modern's table has no net: the fit draws a new one.
    let engine = format!(
        "{}/configs/engines/ataxx-modern.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let data = tmp.path().join("data");
    run_ok(&[
        "datagen",
        &engine,
        "--positions",
        "3000",
        "--depth",
        "1",
        "--format",
        "text",
        "--seed",
        "4",
        "--quiet",
        "--out",
        data.to_str().unwrap(),
    ]);
    let text = |engine: &str, net: &str| {
        format!(
            "name = \"net-fit\"\nengine = \"{engine}\"\nset = {{ \"search.tt_mb\" = 1 }}\n\
             data = [\"{}\"]\nparams = []\nepochs = 3\nbatch = 256\nvalidation = 0.1\n\
             seed = 2\n\n[net]\n{net}\n",
            data.display()
        )
    };
    let config = crate::common::write(
        tmp.path(),
        "net.toml",
        &text(&engine, "hidden = 4\nlr = 0.01"),
    );
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    fit(&[&config, "--verify-pairs", "0", "-j", "1"], &one);
    fit(&[&config, "--verify-pairs", "0", "-j", "2"], &two);
    let r = report(&one);
    assert!(r.params.is_empty());
    let (first, last) = (&r.history[0], r.history.last().unwrap());
    assert!(
        last.train < first.train,
        "the net lowers the training loss: {} -> {}",
        first.train,
        last.train
    );
    let table = read(&one.join("fitted.toml"));
    assert_eq!(
        table,
        read(&two.join("fitted.toml")),
        "threads change nothing"
    );
    assert_eq!(fitted(&one), fitted(&two));
    // `symmetries = true`: the same net on any number of threads, not the net without.
    let turned = crate::common::write(
        tmp.path(),
        "turned.toml",
        &text(&engine, "hidden = 4\nlr = 0.01\nsymmetries = true"),
    );
    let (t1, t2) = (tmp.path().join("t1"), tmp.path().join("t2"));
    fit(&[&turned, "--verify-pairs", "0", "-j", "1"], &t1);
    fit(&[&turned, "--verify-pairs", "0", "-j", "2"], &t2);
    let turned_table = read(&t1.join("fitted.toml"));
    assert_eq!(turned_table, read(&t2.join("fitted.toml")));
    assert_ne!(
        turned_table, table,
        "the symmetries change what the net sees"
    );
    let h = &report(&t1).history;
    assert!(h.last().unwrap().train < h[0].train, "{h:?}");
    let Table::Ataxx(t) = Table::load(&one.join("fitted.toml")).unwrap() else {
        panic!("an Ataxx table")
    };
    let net = t.net.expect("the fitted table has a net");
    assert_eq!(net.hidden, 4);
    assert!(
        net.output.iter().any(|&o| o != 0),
        "the fit moved the outputs"
    );
    // The engine plays it: its node count differs from the table's without the net.
    let bench = |engine: &Path| {
        let out = run_ok(&["bench", engine.to_str().unwrap(), "--depth", "3"]);
        out.lines()
            .last()
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    };
    assert_ne!(
        bench(&one.join("fitted-engine.toml")),
        bench(Path::new(&engine))
    );

    // A second fit starts from the fitted net; `hidden` must agree with it.
    let fitted_engine = one.join("fitted-engine.toml").display().to_string();
    let again = crate::common::write(tmp.path(), "again.toml", &text(&fitted_engine, "lr = 0.01"));
    let out = tmp.path().join("again");
    fit(&[&again, "--verify-pairs", "0", "--epochs", "1"], &out);
    // (K is fitted again for the start, so the loss is near, not equal to, the end's.)
    let start = report(&out).history[0].train;
    assert!(
        start < (first.train + last.train) / 2.0,
        "the second fit starts where the first ended: {start} after {} -> {}",
        first.train,
        last.train
    );
    let bad = crate::common::write(tmp.path(), "bad.toml", &text(&fitted_engine, "hidden = 8"));
    let e = run_bad_input(&["fit", &bad, "--out", tmp.path().join("x").to_str().unwrap()]);
    assert!(
        e.contains("bad.toml:") && e.contains("[net] hidden: 8"),
        "{e}"
    );
    assert!(e.contains("has 4 hidden units"), "{e}");
    let gomoku = crate::common::write(
        tmp.path(),
        "gomoku.toml",
        &text(&seed003_engine(), "hidden = 4"),
    );
    let e = run_bad_input(&[
        "fit",
        &gomoku,
        "--out",
        tmp.path().join("y").to_str().unwrap(),
    ]);
    assert!(e.contains("only Ataxx tables have a net"), "{e}");

    // A table whose net lost a number is refused, naming the key.
    let broken = table.replacen("output = [", "output = [1, ", 1);
    std::fs::write(one.join("fitted.toml"), broken).unwrap();
    let e = run_bad_input(&["bench", one.join("fitted-engine.toml").to_str().unwrap()]);
    assert!(e.contains("net.output") && e.contains("5 numbers"), "{e}");
}
