//! Scaling out through the real binary: shards played concurrently and merged equal one
//! process; the shard comes from Slurm, Kubernetes or GNU parallel variables; `arena merge`
//! refuses missing, incomplete, duplicate and foreign shards and touches nothing then.

use std::{
    collections::BTreeMap,
    fs,
    path::{Path, PathBuf},
};

use arena::tournament::{GameRecord, read_records};

use crate::common::{arena_process, data, run_bad_input, run_ok};

fn small() -> String {
    data("tournaments/small.toml").display().to_string()
}

/// Records by game index, without the measured time fields.
fn games_in(file: &Path) -> BTreeMap<u64, GameRecord> {
    let read = read_records(file).expect("results are readable");
    assert!(!read.torn_tail, "{}: torn", file.display());
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

/// summary.json without the measured speeds (`nps`).
fn statistics(dir: &Path) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.remove("nps");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(list) => list.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let text = fs::read_to_string(dir.join("summary.json")).expect("summary.json exists");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("summary.json is JSON");
    strip(&mut v);
    v
}

fn shard_file(dir: &Path, i: u32, n: u32) -> PathBuf {
    dir.join("shards").join(format!("shard-{i}-of-{n}.jsonl"))
}

/// Plays shards `0..n` of small.toml (with extra args) as concurrent processes.
fn play_shards(dir: &Path, n: u32, extra: &[&str]) {
    let children: Vec<_> = (0..n)
        .map(|i| {
            arena_process()
                .args(["run", &small(), "--quiet", "--jobs", "1", "--out"])
                .arg(dir)
                .args(["--shard", &format!("{i}/{n}")])
                .args(extra)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("arena starts")
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().expect("arena runs");
        assert!(
            out.status.success(),
            "shard {i}/{n}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(&format!("shard {i}/{n} complete")),
            "{stdout}"
        );
    }
}

#[test]
fn four_concurrent_shards_merged_equal_one_process() {
    let tmp = tempfile::tempdir().unwrap();
    let (single, sharded) = (tmp.path().join("single"), tmp.path().join("sharded"));
    run_ok(&[
        "run",
        &small(),
        "--quiet",
        "--jobs",
        "2",
        "--out",
        single.to_str().unwrap(),
    ]);
    play_shards(&sharded, 4, &[]);

    // Shard runs leave only their own files: complete shards, sidecars, run.toml.
    for i in 0..4 {
        assert!(shard_file(&sharded, i, 4).exists(), "shard {i}");
        assert!(
            !sharded
                .join(format!("shards/shard-{i}-of-4.jsonl.part"))
                .exists()
        );
        assert!(
            sharded
                .join(format!("shards/shard-{i}-of-4.meta.json"))
                .exists()
        );
    }
    for file in ["games.jsonl", "summary.json", "standings.csv"] {
        assert!(!sharded.join(file).exists(), "{file} before the merge");
    }
    assert_eq!(
        fs::read_to_string(sharded.join("run.toml")).unwrap(),
        fs::read_to_string(single.join("run.toml")).unwrap()
    );
    // Each shard holds exactly its game pairs (pair % 4 == i).
    for i in 0..4u64 {
        let games = games_in(&shard_file(&sharded, i as u32, 4));
        assert!(games.values().all(|r| r.pair % 4 == i), "shard {i}");
    }

    let out = run_ok(&["merge", sharded.to_str().unwrap()]);
    assert!(out.contains("merged 4 shards: 36 games"), "{out}");
    let expected = games_in(&single.join("games.jsonl"));
    assert_eq!(expected.len(), 36);
    assert_eq!(games_in(&sharded.join("games.jsonl")), expected);
    assert_eq!(statistics(&sharded), statistics(&single));
    // The merged file is sorted by game index.
    let order: Vec<u64> = read_records(&sharded.join("games.jsonl"))
        .unwrap()
        .records
        .iter()
        .map(|r| r.game)
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]));
    // Merging again is harmless and changes nothing.
    let again = run_ok(&["merge", sharded.to_str().unwrap(), "--quiet"]);
    assert!(again.contains("(unchanged)"), "{again}");
}

/// Runs `arena run small.toml --rounds 1` with `vars` set; returns (exit code, stderr).
fn run_with_env(dir: &Path, vars: &[(&str, &str)], extra: &[&str]) -> (Option<i32>, String) {
    let mut cmd = arena_process();
    cmd.args(["run", &small(), "--quiet", "--rounds", "1", "--out"])
        .arg(dir)
        .args(extra);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("arena runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Environment variables for a case.
type Vars = &'static [(&'static str, &'static str)];
/// Extra arguments for a case.
type Args = &'static [&'static str];

#[test]
fn slurm_kubernetes_and_gnu_parallel_variables_pick_the_shard() {
    let tmp = tempfile::tempdir().unwrap();
    let cases: [(Vars, Args, (u32, u32)); 5] = [
        (
            &[
                ("SLURM_ARRAY_TASK_ID", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "2"),
            ],
            &[],
            (1, 2),
        ),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", "2"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
                ("SLURM_ARRAY_TASK_MAX", "2"),
            ],
            &[],
            (2, 3),
        ),
        // A resubmitted failed shard: the array is just `--array=3`, the run has 4.
        (
            &[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_COUNT", "1"),
                ("SLURM_ARRAY_TASK_MIN", "3"),
                ("SLURM_ARRAY_TASK_MAX", "3"),
            ],
            &["--shards", "4"],
            (3, 4),
        ),
        (&[("JOB_COMPLETION_INDEX", "0")], &["--shards", "3"], (0, 3)),
        (&[("PARALLEL_SEQ", "2")], &["--shards", "2"], (1, 2)),
    ];
    for (n, (vars, extra, (i, count))) in cases.iter().enumerate() {
        let dir = tmp.path().join(format!("case{n}"));
        let (code, stderr) = run_with_env(&dir, vars, extra);
        assert_eq!(code, Some(0), "case {n}: {stderr}");
        assert!(shard_file(&dir, *i, *count).exists(), "case {n}: {stderr}");
        assert!(
            stderr.contains(&format!("playing shard {i}/{count} (from {}=", vars[0].0)),
            "case {n}: the shard and why: {stderr}"
        );
        let files: Vec<_> = fs::read_dir(dir.join("shards")).unwrap().collect();
        assert_eq!(files.len(), 2, "case {n}: one shard and its sidecar");
        assert!(!dir.join("games.jsonl").exists(), "case {n}");
        assert!(!dir.join("summary.json").exists(), "case {n}");
    }

    // Ambiguous or incomplete information is an error, before anything is written.
    let bad: [(Vars, Args, &str); 4] = [
        (&[("JOB_COMPLETION_INDEX", "1")], &[], "--shards N"),
        (&[("PARALLEL_SEQ", "1")], &[], "--shards N"),
        (&[], &["--shards", "2"], "none is set"),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", "17"),
                ("SLURM_ARRAY_TASK_COUNT", "2"),
                ("SLURM_ARRAY_TASK_MIN", "3"),
                ("SLURM_ARRAY_TASK_MAX", "17"),
            ],
            &[],
            "pass --shards N",
        ),
    ];
    for (n, (vars, extra, needle)) in bad.iter().enumerate() {
        let dir = tmp.path().join(format!("bad{n}"));
        let (code, stderr) = run_with_env(&dir, vars, extra);
        assert_eq!(code, Some(2), "bad case {n}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains(needle), "bad case {n}: {stderr}");
        assert!(!dir.exists(), "bad case {n} wrote {}", dir.display());
    }

    // --no-shard plays the whole run inside an array task.
    let dir = tmp.path().join("whole");
    let (code, stderr) = run_with_env(
        &dir,
        &[
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
        ],
        &["--no-shard"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(games_in(&dir.join("games.jsonl")).len(), 6);
    assert!(!dir.join("shards").exists());
}

#[test]
fn test_runs_never_see_the_schedulers_variables() {
    // `cargo test` inside a Slurm array task must not shard the tests' runs.
    let cmd = arena_process();
    let removed: Vec<_> = cmd
        .get_envs()
        .filter(|(_, v)| v.is_none())
        .map(|(k, _)| k.to_string_lossy().into_owned())
        .collect();
    for var in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "JOB_COMPLETION_INDEX",
        "PARALLEL_SEQ",
    ] {
        assert!(removed.iter().any(|r| r == var), "{var} is not cleared");
    }
}

#[test]
fn merge_refuses_bad_shards_naming_them_and_touches_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let d = dir.to_str().unwrap();
    play_shards(&dir, 4, &["--rounds", "2"]);
    run_ok(&["merge", d]);
    let merged = fs::read_to_string(dir.join("games.jsonl")).unwrap();
    let summary = fs::read_to_string(dir.join("summary.json")).unwrap();
    let untouched = |case: &str| {
        assert_eq!(
            fs::read_to_string(dir.join("games.jsonl")).unwrap(),
            merged,
            "{case}"
        );
        assert_eq!(
            fs::read_to_string(dir.join("summary.json")).unwrap(),
            summary,
            "{case}"
        );
    };
    let shards = dir.join("shards");
    let at = |name: &str| shards.join(name);

    // Missing.
    fs::rename(at("shard-2-of-4.jsonl"), tmp.path().join("away")).unwrap();
    let e = run_bad_input(&["merge", d]);
    assert!(e.contains("shard 2/4 is missing"), "{e}");
    assert!(e.contains("--array=2 "), "the resubmit command: {e}");
    untouched("missing");
    fs::rename(tmp.path().join("away"), at("shard-2-of-4.jsonl")).unwrap();

    // Incomplete: still a .part file with one of its two games (a killed task).
    let text = fs::read_to_string(at("shard-3-of-4.jsonl")).unwrap();
    let first_line = &text[..=text.find('\n').unwrap()];
    let torn = &text[..first_line.len() + (text.len() - first_line.len()) / 2];
    fs::remove_file(at("shard-3-of-4.jsonl")).unwrap();
    // Killed while writing its second game: a torn last line.
    fs::write(at("shard-3-of-4.jsonl.part"), torn).unwrap();
    let e = run_bad_input(&["merge", d]);
    assert!(
        e.contains("shard 3/4 is incomplete") && e.contains("holds 1 of 2 games"),
        "{e}"
    );
    untouched("incomplete");
    // Resuming the shard plays the missing game and marks it complete.
    let out = run_ok(&[
        "run",
        &small(),
        "--quiet",
        "--rounds",
        "2",
        "--out",
        d,
        "--shard",
        "3/4",
        "--resume",
    ]);
    assert!(
        out.contains("shard 3/4 complete: 2 games (1 this run"),
        "{out}"
    );
    assert!(!at("shard-3-of-4.jsonl.part").exists());
    assert_eq!(
        games_in(&at("shard-3-of-4.jsonl")),
        games_in(&{
            let p = tmp.path().join("orig3.jsonl");
            fs::write(&p, &text).unwrap();
            p
        })
    );
    // A complete shard run again (a requeued Slurm task) is left alone.
    let before = fs::read(at("shard-3-of-4.jsonl")).unwrap();
    let out = run_ok(&[
        "run",
        &small(),
        "--quiet",
        "--rounds",
        "2",
        "--out",
        d,
        "--shard",
        "3/4",
        "--resume",
    ]);
    assert!(out.contains("(0 this run"), "{out}");
    assert_eq!(fs::read(at("shard-3-of-4.jsonl")).unwrap(), before);
    // Incomplete although named complete (a truncated copy).
    fs::write(at("shard-3-of-4.jsonl"), first_line).unwrap();
    let e = run_bad_input(&["merge", d]);
    assert!(
        e.contains("shard 3/4 is marked complete but shard-3-of-4.jsonl holds 1 of 2"),
        "{e}"
    );
    untouched("truncated");
    fs::write(at("shard-3-of-4.jsonl"), &text).unwrap();

    // Duplicate: the same shard complete and in progress.
    fs::copy(at("shard-1-of-4.jsonl"), at("shard-1-of-4.jsonl.part")).unwrap();
    let e = run_bad_input(&["merge", d]);
    assert!(e.contains("shard 1/4 is there twice"), "{e}");
    untouched("duplicate");
    // ... and the runner refuses to play it too.
    let e = run_bad_input(&[
        "run",
        &small(),
        "--quiet",
        "--rounds",
        "2",
        "--out",
        d,
        "--shard",
        "1/4",
        "--resume",
    ]);
    assert!(e.contains("shard 1/4 is there twice"), "{e}");
    fs::remove_file(at("shard-1-of-4.jsonl.part")).unwrap();
    // Duplicate: shards of another split, whose games overlap these.
    fs::copy(at("shard-0-of-4.jsonl"), at("shard-0-of-2.jsonl")).unwrap();
    let e = run_bad_input(&["merge", d]);
    assert!(
        e.contains("mixes two splits") && e.contains("shard-0-of-2.jsonl"),
        "{e}"
    );
    untouched("two splits");
    fs::remove_file(at("shard-0-of-2.jsonl")).unwrap();
    let e = run_bad_input(&[
        "run",
        &small(),
        "--quiet",
        "--rounds",
        "2",
        "--out",
        d,
        "--shard",
        "0/2",
    ]);
    assert!(e.contains("splits this run into 4 shards"), "{e}");

    // Foreign: shard 0 of the same split, made with another seed elsewhere.
    let other = tmp.path().join("other");
    run_ok(&[
        "run",
        &small(),
        "--quiet",
        "--rounds",
        "2",
        "--seed",
        "99",
        "--out",
        other.to_str().unwrap(),
        "--shard",
        "0/4",
    ]);
    let ours = [
        fs::read(at("shard-0-of-4.jsonl")).unwrap(),
        fs::read(at("shard-0-of-4.meta.json")).unwrap(),
    ];
    for name in ["shard-0-of-4.jsonl", "shard-0-of-4.meta.json"] {
        fs::copy(other.join("shards").join(name), at(name)).unwrap();
    }
    let e = run_bad_input(&["merge", d]);
    assert!(
        e.contains("shard 0/4 was made from a different config"),
        "{e}"
    );
    untouched("foreign");
    // Its games alone (with our sidecar) are caught by their seeds.
    fs::write(at("shard-0-of-4.meta.json"), &ours[1]).unwrap();
    let e = run_bad_input(&["merge", d]);
    assert!(e.contains("shard 0/4") && e.contains("another seed"), "{e}");
    untouched("foreign games");
    fs::write(at("shard-0-of-4.jsonl"), &ours[0]).unwrap();

    // All good again; a games.jsonl that is not the merge's is never overwritten.
    run_ok(&["merge", d]);
    untouched("merged again");
    let partial: String = merged.lines().skip(1).map(|l| format!("{l}\n")).collect();
    fs::write(dir.join("games.jsonl"), &partial).unwrap();
    let e = run_bad_input(&["merge", d]);
    assert!(e.contains("holds other games"), "{e}");
    assert_eq!(
        fs::read_to_string(dir.join("games.jsonl")).unwrap(),
        partial
    );
}

#[test]
fn sprt_runs_cannot_be_sharded() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sprt");
    let e = run_bad_input(&[
        "run",
        &data("tournaments/sprt.toml").display().to_string(),
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
        "--shard",
        "0/2",
    ]);
    assert!(e.contains("[sprt]") && e.contains("shard 0/2"), "{e}");
    assert!(!dir.exists(), "nothing written");
}

#[test]
fn merge_needs_a_results_folder_with_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let e = run_bad_input(&["merge", tmp.path().to_str().unwrap()]);
    assert!(e.contains("no run.toml"), "{e}");
    // A plain run has run.toml but no shards.
    let dir = tmp.path().join("plain");
    run_ok(&[
        "run",
        &small(),
        "--quiet",
        "--rounds",
        "1",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let e = run_bad_input(&["merge", dir.to_str().unwrap()]);
    assert!(e.contains("no shard files"), "{e}");
}
