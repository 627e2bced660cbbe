//! `arena tune` with an `opponent`: the plus and the minus engine each play the
//! opponent (a pair is four games), θ moves by how much better plus scored than minus.
//! Through the real binary: every pair's journal line holds both engines' results, the
//! report and the summary say how they scored against it, the same θ on one and two
//! threads, an opponent served by `arena serve` over Gomocup (as an outside program
//! such as PentaZen would be) tunes to the θ of the same opponent in-process, bad
//! opponent keys are refused with their line, and a journal line without the minus
//! engine's results is refused with its file and line.

use std::path::Path;

use crate::common::{assert_refused, run_bad_input, run_ok, served_gomocup, shipped_engine, write};

/// A tune of gomoku-strong's futility margin against `opponent` (with `extra` keys).
fn config(opponent: &str, extra: &str) -> String {
    format!(
        "name = \"t\"\nengine = \"{}\"\nset = {{ \"search.nodes\" = 600, \"search.depth\" = 0 }}\n\
         opponent = \"{opponent}\"\n{extra}\npairs = 8\nbatch = 4\nseed = 3\n\
         [openings]\nkind = \"balanced\"\n[adjudication]\nmax_plies = 60\n\
         [[params]]\nname = \"search.params.futility_margin\"\nmin = 20\nmax = 300\n\
         [verification]\npairs = 0\n",
        shipped_engine("gomoku-strong.toml")
    )
}

const NODES: &str = "opponent_set = { \"search.nodes\" = 600, \"search.depth\" = 0 }";

fn tune(config: &str, out: &Path, jobs: &str) -> String {
    tune_with(config, out, jobs, "0")
}

/// As [`tune`], with `verify` verification pairs.
fn tune_with(config: &str, out: &Path, jobs: &str, verify: &str) -> String {
    run_ok(&[
        "tune",
        config,
        "--quiet",
        "--jobs",
        jobs,
        "--verify-pairs",
        verify,
        "--out",
        out.to_str().unwrap(),
    ])
}

/// The checkpoint's state (θ as exact decimals, pentanomials).
fn state(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("state.json")).unwrap();
    serde_json::from_str::<serde_json::Value>(&text).unwrap()["state"].clone()
}

#[test]
fn each_engine_plays_the_opponent_and_theta_is_the_same_on_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(
        tmp.path(),
        "t.toml",
        &config(&shipped_engine("gomoku-modern.toml"), NODES),
    );
    let one = tmp.path().join("one");
    let printed = tune_with(&path, &one, "1", "2");
    assert!(
        printed.contains("pairs against gomoku-modern [LL, LD, WL+DD, WD, WW]: plus ["),
        "{printed}"
    );
    assert!(
        printed.contains("% against gomoku-modern over 32 games"),
        "{printed}"
    );

    // Every pair: two games of plus against the opponent, two of minus.
    let journal = std::fs::read_to_string(one.join("pairs/main.jsonl")).unwrap();
    let mut moved = 0;
    for line in journal.lines() {
        let pair: serde_json::Value = serde_json::from_str(line).unwrap();
        let net = |side: &str| -> i64 {
            pair[side]
                .as_array()
                .unwrap_or_else(|| panic!("{side} in {line}"))
                .iter()
                .map(|s| match s.as_str().unwrap() {
                    "win" => 1,
                    "loss" => -1,
                    _ => 0,
                })
                .sum()
        };
        moved += i64::from(net("plus") != net("minus"));
    }
    assert_eq!(journal.lines().count(), 8);

    let s = state(&one);
    let pairs = |p: &serde_json::Value| -> u64 {
        p["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .sum()
    };
    assert_eq!(pairs(&s["penta"]), 8);
    assert_eq!(pairs(&s["minus_penta"]), 8);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(one.join("tune.json")).unwrap()).unwrap();
    assert_eq!(report["opponent"], "gomoku-modern");
    assert_eq!(report["minus_penta"], s["minus_penta"]);
    // The opponent's every parameter is part of what a resume must match.
    let run = std::fs::read_to_string(one.join("run.toml")).unwrap();
    assert!(run.contains("[opponent]"), "{run}");
    // θ moved exactly when some pair scored plus and minus differently.
    let theta = s["theta"][0].as_str().unwrap().parse::<f64>().unwrap();
    assert_eq!(theta != 100.0, moved > 0, "θ {theta}, {moved} pairs differ");

    // The verification: a round robin of the tuned engine, the base engine and the
    // opponent, two pairs each, with both engines' games against the opponent reported.
    let v = &report["verification"];
    assert_eq!(
        v["wdl"]["wins"].as_u64().unwrap()
            + v["wdl"]["losses"].as_u64().unwrap()
            + v["wdl"]["draws"].as_u64().unwrap(),
        4
    );
    assert_eq!(v["opponent"]["name"], "gomoku-modern");
    for who in ["tuned", "base"] {
        assert_eq!(pairs(&v["opponent"][who]["penta"]), 2, "{who}: {v}");
    }
    for line in [
        "against gomoku-modern: gomoku-strong-tuned 4 games",
        "against gomoku-modern: gomoku-strong 4 games",
    ] {
        assert!(printed.contains(line), "{line}: {printed}");
    }
    let games = std::fs::read_to_string(one.join("verification/games.jsonl")).unwrap();
    assert_eq!(games.lines().count(), 12);

    // Two threads: the same θ and counts, bit for bit.
    let two = tmp.path().join("two");
    tune(&path, &two, "2");
    assert_eq!(state(&two), s);
}

#[test]
fn an_opponent_served_over_gomocup_tunes_to_the_in_process_theta() {
    let tmp = tempfile::tempdir().unwrap();
    let served = served_gomocup(tmp.path(), "served.toml", "gomoku-modern.toml", 600);
    let inside = write(
        tmp.path(),
        "in.toml",
        &config(&shipped_engine("gomoku-modern.toml"), NODES),
    );
    let outside = write(tmp.path(), "out.toml", &config(&served, ""));
    tune(&inside, &tmp.path().join("in"), "2");
    tune(&outside, &tmp.path().join("out"), "2");
    assert_eq!(
        state(&tmp.path().join("out")),
        state(&tmp.path().join("in"))
    );
    // One opponent for plus's games, a fresh one for minus's; each log names it.
    for side in ["plus", "minus"] {
        let log = tmp
            .path()
            .join(format!("out/logs/main-t0-opponent-{side}.log"));
        assert!(log.exists(), "{}", log.display());
    }
}

#[test]
fn bad_opponents_are_refused_with_their_line() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let ataxx = shipped_engine("ataxx-strong.toml");
    let cases: Vec<(String, Vec<&str>)> = vec![
        (
            config("nowhere.toml", ""),
            vec!["t.toml:4", "key `opponent`", "nowhere.toml"],
        ),
        (
            config(&ataxx, ""),
            vec![
                "t.toml:4",
                "key `opponent`",
                "'ataxx-strong' plays ataxx, the tune plays gomoku",
            ],
        ),
        (
            config(
                &shipped_engine("gomoku-modern.toml"),
                "opponent_set = { \"search.nodez\" = 5 }",
            ),
            vec!["t.toml:5", "key `opponent_set`", "search.nodez"],
        ),
        (
            config(&shipped_engine("gomoku-modern.toml"), NODES).replace("opponent = ", "#"),
            vec!["key `opponent_set` without `opponent`"],
        ),
        (
            config(&shipped_engine("gomoku-modern.toml"), NODES).replace(
                "[verification]\npairs = 0\n",
                "[verification]\npairs = 9\n[verification.sprt]\nelo0 = 0\nelo1 = 5\n",
            ),
            vec![
                "t.toml:19",
                "[verification.sprt]",
                "an SPRT needs two engines",
            ],
        ),
    ];
    for (i, (text, needles)) in cases.iter().enumerate() {
        let path = write(tmp.path(), "t.toml", text);
        assert_refused("tune", &path, &out, needles, i);
    }
}

#[test]
fn a_journal_line_without_the_minus_results_is_refused_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(
        tmp.path(),
        "t.toml",
        &config(&shipped_engine("gomoku-modern.toml"), NODES).replace("pairs = 8", "pairs = 12"),
    );
    let out = tmp.path().join("out");
    tune(&path, &out, "1");
    let journal = out.join("pairs/main.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let edited: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 9 {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                v.as_object_mut().unwrap().remove("minus");
                v.to_string()
            } else {
                l.to_string()
            }
        })
        .collect();
    // Pair 10's line edited as by hand, and the checkpoint removed so that a resume
    // reads every line again.
    std::fs::remove_file(out.join("state.json")).unwrap();
    std::fs::write(&journal, edited.join("\n") + "\n").unwrap();
    let e = run_bad_input(&[
        "tune",
        &path,
        "--quiet",
        "--resume",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(e.contains("main.jsonl:10"), "{e}");
    assert!(e.contains("key `minus` is missing"), "{e}");
}

/// A checkpoint whose `minus_penta` was edited as by hand: counts that do not add up to
/// the pairs played, none at all in a tune with an opponent, or one in a tune without:
/// each is refused on `--resume` with the file and the key at fault.
#[test]
fn a_checkpoint_whose_minus_results_do_not_fit_the_tune_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let with = write(
        tmp.path(),
        "t.toml",
        &config(&shipped_engine("gomoku-modern.toml"), NODES),
    );
    let out = tmp.path().join("out");
    tune(&with, &out, "1");
    let checkpoint = out.join("state.json");
    let original = std::fs::read_to_string(&checkpoint).unwrap();
    let resume = |config: &str, out: &Path| {
        run_bad_input(&[
            "tune",
            config,
            "--quiet",
            "--resume",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let edit = |change: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value = serde_json::from_str(&original).unwrap();
        change(&mut v["state"]);
        std::fs::write(&checkpoint, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    };
    // One pair more in the minus engine's counts than pairs_done says were played.
    edit(&|s| {
        let ww = s["minus_penta"]["counts"][4].as_u64().unwrap();
        s["minus_penta"]["counts"][4] = (ww + 1).into();
    });
    let e = resume(&with, &out);
    assert!(e.contains("state.json"), "{e}");
    assert!(e.contains("minus_penta"), "{e}");
    assert!(e.contains("add up to 9 pairs, not pairs_done = 8"), "{e}");
    // No minus results at all, where the tune plays an opponent.
    edit(&|s| {
        s.as_object_mut().unwrap().remove("minus_penta");
    });
    let e = resume(&with, &out);
    assert!(e.contains("state.json"), "{e}");
    assert!(e.contains("no minus_penta"), "{e}");

    // A tune without an opponent whose checkpoint was given minus results.
    let without = write(
        tmp.path(),
        "plain.toml",
        &config(&shipped_engine("gomoku-modern.toml"), "").replace(
            &format!("opponent = \"{}\"\n", shipped_engine("gomoku-modern.toml")),
            "",
        ),
    );
    let plain = tmp.path().join("plain");
    tune(&without, &plain, "1");
    let checkpoint = plain.join("state.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&checkpoint).unwrap()).unwrap();
    v["state"]["minus_penta"] = v["state"]["penta"].clone();
    std::fs::write(&checkpoint, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let e = resume(&without, &plain);
    assert!(e.contains("state.json"), "{e}");
    assert!(e.contains("this tune has no opponent"), "{e}");
}
