//! A tune played by several workers over one folder (`arena tune --worker ID`), as
//! GNU parallel or a scheduler's array starts them: with depth limits it ends with the
//! θ of one process, whichever worker is killed and started again or never comes back;
//! a timed tune never plays a recorded pair again.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::{Child, Stdio},
};

use crate::common::{arena_process, data, lines, run_bad_input, run_ok, signal, wait_for};

fn config() -> String {
    data("tune/small.toml").display().to_string()
}

/// The tune's state (θ, pairs, pentanomial counts) and trajectory, which must be equal.
fn result(dir: &Path) -> (serde_json::Value, String) {
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("state.json")).unwrap()).unwrap();
    let trajectory = std::fs::read_to_string(dir.join("trajectory.csv")).unwrap();
    (state["state"].clone(), trajectory)
}

fn worker(dir: &Path, id: &str, extra: &[&str]) -> Child {
    arena_process()
        .args([
            "tune",
            &config(),
            "--quiet",
            "--jobs",
            "1",
            "--worker",
            id,
            "--out",
        ])
        .arg(dir)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Every journal line, by pair: how often each pair was recorded.
fn recorded(dir: &Path) -> BTreeMap<u64, usize> {
    let mut count = BTreeMap::new();
    for entry in std::fs::read_dir(dir.join("pairs")).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // A last line without its line break is being written, or was torn by a kill.
        let complete = text.rfind('\n').map_or("", |i| &text[..=i]);
        for line in complete.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            *count.entry(v["k"].as_u64().unwrap()).or_insert(0) += 1;
        }
    }
    count
}

fn journal(dir: &Path, id: &str) -> PathBuf {
    dir.join("pairs").join(format!("{id}.jsonl"))
}

fn ok(child: Child, what: &str) -> String {
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn workers_killed_and_restarted_end_with_the_theta_of_one_process() {
    let tmp = tempfile::tempdir().unwrap();
    let single = tmp.path().join("single");
    run_ok(&[
        "tune",
        &config(),
        "--quiet",
        "--verify-pairs",
        "0",
        "--out",
        single.to_str().unwrap(),
    ]);
    let expected = result(&single);

    let dir = tmp.path().join("workers");
    // Worker 1 is killed twice along the way, and started again each time. It plays
    // alone until then (two workers beside it could finish all 240 pairs before it
    // played ten: the test would depend on timing); the others join afterwards.
    let mut first = worker(&dir, "1", &[]);
    for round in 1..=2 {
        let before = lines(&journal(&dir, "1"));
        wait_for(&mut first, "worker 1 played", || {
            lines(&journal(&dir, "1")) >= before + 10
        });
        if round == 1 {
            // Paused, it is alive and holds its lock: a second copy of a live worker
            // is refused, and so is the plain command on a folder workers use.
            signal(first.id(), libc::SIGSTOP);
            let e = run_bad_input(&[
                "tune",
                &config(),
                "--quiet",
                "--worker",
                "1",
                "--out",
                dir.to_str().unwrap(),
            ]);
            assert!(e.contains("worker 1") && e.contains("another arena"), "{e}");
            let e = run_bad_input(&[
                "tune",
                &config(),
                "--resume",
                "--out",
                dir.to_str().unwrap(),
            ]);
            assert!(e.contains("in use") && e.contains("worker"), "{e}");
        }
        // Its lock is free once it is dead: a replacement is not refused.
        first.kill().unwrap();
        first.wait().unwrap();
        first = worker(&dir, "1", &[]);
    }
    let children: Vec<Child> = vec![worker(&dir, "0", &[]), first, worker(&dir, "2", &[])];
    for (i, child) in children.into_iter().enumerate() {
        let stdout = ok(child, &format!("worker {i}"));
        assert!(stdout.contains("the tune is complete"), "{stdout}");
        assert!(
            stdout.contains("--resume") && !stdout.contains("--worker"),
            "{stdout}"
        );
    }
    assert_eq!(
        result(&dir),
        expected,
        "θ, counts and trajectory as one process"
    );
    let counts = recorded(&dir);
    assert_eq!(counts.len(), 240, "every pair recorded");
    assert_eq!(counts.keys().next_back(), Some(&240));
    // The plain command with --resume then plays the verification.
    let stdout = run_ok(&[
        "tune",
        &config(),
        "--quiet",
        "--resume",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(stdout.contains("verification:"), "{stdout}");
}

#[test]
fn a_worker_that_never_comes_back_leaves_its_pairs_to_the_others() {
    let tmp = tempfile::tempdir().unwrap();
    let single = tmp.path().join("single");
    run_ok(&[
        "tune",
        &config(),
        "--quiet",
        "--verify-pairs",
        "0",
        "--pairs",
        "80",
        "--out",
        single.to_str().unwrap(),
    ]);
    let dir = tmp.path().join("workers");
    let mut gone = worker(&dir, "gone", &["--pairs", "80"]);
    wait_for(&mut gone, "the worker played", || {
        lines(&journal(&dir, "gone")) >= 3
    });
    gone.kill().unwrap();
    gone.wait().unwrap();
    // The one left plays the rest: the dead worker's claims do not hold it up.
    ok(worker(&dir, "left", &["--pairs", "80"]), "the worker left");
    assert_eq!(result(&dir), result(&single));
    let e = run_bad_input(&[
        "tune",
        &config(),
        "--quiet",
        "--worker",
        "late",
        "--pairs",
        "81",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(e.contains("different config") && e.contains("pairs"), "{e}");
    let e = run_bad_input(&[
        "tune",
        &config(),
        "--worker",
        "main",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(e.contains("not a worker ID"), "{e}");
}

#[test]
fn a_timed_tune_killed_mid_batch_never_plays_a_recorded_pair_again() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("timed");
    let timed = tmp.path().join("timed.toml");
    let text = std::fs::read_to_string(config())
        .unwrap()
        .replace(
            "set = { \"search.depth\" = 1, \"search.tt_mb\" = 1 }",
            "set = { \"search.depth\" = 0, \"search.movetime_ms\" = 2, \"search.tt_mb\" = 1 }",
        )
        .replace("pairs = 240", "pairs = 40")
        .replace(
            "../../../configs",
            &format!("{}/configs", env!("CARGO_MANIFEST_DIR")),
        );
    std::fs::write(&timed, text).unwrap();
    let args = |resume: bool| {
        let mut a = vec![
            "tune".to_string(),
            timed.display().to_string(),
            "--quiet".into(),
            "--jobs".into(),
            "2".into(),
            "--verify-pairs".into(),
            "0".into(),
            "--out".into(),
            dir.display().to_string(),
        ];
        if resume {
            a.push("--resume".into());
        }
        a
    };
    let mut child = arena_process()
        .args(args(false))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed inside a batch (of 8 pairs): some of its pairs are recorded, not applied.
    wait_for(&mut child, "mid-batch", || {
        !lines(&journal(&dir, "main")).is_multiple_of(8)
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = std::fs::read_to_string(journal(&dir, "main")).unwrap();
    let kept = kept.rfind('\n').map_or("", |i| &kept[..=i]).to_string();
    let before = recorded(&dir);
    assert!(!before.is_empty());
    run_ok(&args(true).iter().map(String::as_str).collect::<Vec<_>>());
    let after = recorded(&dir);
    assert!(
        after.values().all(|&n| n == 1),
        "a pair played twice: {after:?}"
    );
    assert_eq!(after.len(), 40);
    let journal_text = std::fs::read_to_string(journal(&dir, "main")).unwrap();
    assert!(
        journal_text.starts_with(&kept),
        "the recorded pairs stay as they were"
    );
    // The state counts exactly the journal's results.
    let (state, _) = result(&dir);
    let mut penta = [0u64; 5];
    for line in journal_text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let score = |s: &serde_json::Value| match s.as_str().unwrap() {
            "win" => 2,
            "draw" => 1,
            _ => 0,
        };
        penta[(score(&v["plus"][0]) + score(&v["plus"][1])) as usize] += 1;
    }
    let counts: Vec<u64> = state["penta"]["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert_eq!(counts, penta);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tune.json")).unwrap()).unwrap();
    assert_eq!(report["reproducible"], false, "a timed tune says so");
}

/// `--workers` takes the worker's ID from the scheduler: GNU parallel's `PARALLEL_SEQ`
/// (`parallel -j2 arena tune CFG --workers ::: 1 2`) or a Kubernetes Indexed Job's
/// `JOB_COMPLETION_INDEX`, and the tune ends with one process's θ.
#[test]
fn workers_named_by_gnu_parallel_or_kubernetes_end_with_the_theta_of_one_process() {
    let tmp = tempfile::tempdir().unwrap();
    let single = tmp.path().join("single");
    let pairs = ["--pairs", "64", "--verify-pairs", "0"];
    let cfg = config();
    let mut args = vec!["tune", cfg.as_str(), "--quiet"];
    args.extend(pairs);
    let mut one = args.clone();
    one.extend(["--out", single.to_str().unwrap()]);
    run_ok(&one);
    let dir = tmp.path().join("workers");
    let children: Vec<Child> = [("PARALLEL_SEQ", "1"), ("JOB_COMPLETION_INDEX", "0")]
        .iter()
        .map(|(var, id)| {
            arena_process()
                .args(&args)
                .args(["--workers", "--jobs", "1", "--out"])
                .arg(&dir)
                .env(var, id)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        ok(child, &format!("worker {i}"));
    }
    assert_eq!(result(&dir), result(&single));
    // Each worker journalled under its scheduler's ID.
    assert!(journal(&dir, "1").is_file() || journal(&dir, "0").is_file());
    let ids: Vec<String> = std::fs::read_dir(dir.join("pairs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    assert!(
        ids.iter().all(|n| n == "0.jsonl" || n == "1.jsonl"),
        "{ids:?}"
    );
}
