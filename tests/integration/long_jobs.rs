//! Long jobs (run, sweep, tune, fit) as the command line runs them: signals at any
//! step (a sweep stopped anywhere and resumed, a signal to the process and its group
//! counted once), one sweep per folder, readers that need no write access, SPRT and
//! anchor options of `run` and `stats`, and checkpoints that are checked before they are
//! trusted.

use std::{
    path::{Path, PathBuf},
    process::Stdio,
};

use crate::common::{
    arena_process, data, finish, lines, run_bad_input, run_ok, served_gomocup, signal, wait_for,
    write,
};

/// A two-engine 9×9 gomoku tournament whose depth a sweep can change: 40 games a point,
/// about a second each at depth 2.
fn sweepable(dir: &Path) -> PathBuf {
    let table = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/tables/gomoku/seed003.toml");
    let path = dir.join("sweepable.toml");
    std::fs::write(
        &path,
        format!(
            "name = \"sweepable\"\ngame = \"mnk:9,9,5\"\nrounds = 20\nseed = 5\n\n\
             [openings]\nkind = \"random\"\nplies = 2\nradius = 2\n\n\
             [adjudication]\nmax_plies = 50\n\n\
             [[engines]]\nname = \"a\"\ntable = \"{t}\"\n\
             search = {{ depth = 1, tt_mb = 1, ordering = [\"tt_move\", \"threat\"] }}\n\n\
             [[engines]]\nname = \"b\"\ntable = \"{t}\"\n\
             search = {{ depth = 1, tt_mb = 1, ordering = [\"tt_move\", \"static\"] }}\n",
            t = table.display()
        ),
    )
    .unwrap();
    path
}

/// Regression (issue 20, item 5): the Ctrl-C handler was bound to the first point's stop
/// flag, so from the second point on Ctrl-C, SIGTERM and SIGHUP were ignored ("handler
/// already registered") and the sweep played every point and exited 0.
#[test]
fn a_sweep_stops_at_any_point_on_a_signal_and_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let config = sweepable(tmp.path());
    let out = tmp.path().join("sweep");
    let args = |resume: bool| {
        let mut a = vec![
            "sweep".to_string(),
            config.display().to_string(),
            "--over".into(),
            "search.depth=1,2,3".into(),
            "--jobs".into(),
            "1".into(),
            "--no-report".into(),
            "--out".into(),
            out.display().to_string(),
        ];
        if resume {
            a.push("--resume".into());
        }
        a
    };
    for sig in [libc::SIGINT, libc::SIGTERM] {
        let mut child = arena_process()
            .args(args(sig != libc::SIGINT))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The second point has started (or, after the first signal, resumed).
        let second = out.join("search.depth=2/games.jsonl");
        let before = lines(&second);
        wait_for(&mut child, "reached the second point", || {
            lines(&second) > before
        });
        signal(child.id(), sig);
        let (code, stdout, stderr) = finish(child);
        assert_eq!(code, Some(130), "stopped: {stdout}\n{stderr}");
        assert!(!stderr.contains("handler already registered"), "{stderr}");
        assert!(
            stdout.contains("interrupted: continue with") && stdout.contains("--resume"),
            "{stdout}"
        );
        assert!(
            stdout.contains("sweep"),
            "the hint repeats the sweep: {stdout}"
        );
        // It stopped where it was: nothing after the point it was playing.
        let playing = stdout
            .lines()
            .filter_map(|l| l.strip_prefix("== search.depth = "))
            .next_back()
            .and_then(|l| l.split_whitespace().next())
            .expect("a point's header")
            .to_string();
        assert_eq!(playing, "2", "{stdout}");
        assert!(!out.join("search.depth=3").exists(), "{stdout}");
        assert!(!out.join("scaling.csv").exists());
    }
    let stdout = run_ok(&args(true).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(stdout.contains("Elo against search.depth"), "{stdout}");
    let csv = std::fs::read_to_string(out.join("scaling.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 3, "{csv}");
    assert_eq!(lines(&out.join("search.depth=2/games.jsonl")), 40);
}

/// Regression (issue 20, item 6): two sweeps with different --over on one --out both
/// exited 0, and the last to finish overwrote scaling.*.
#[test]
fn a_sweep_folder_holds_one_sweep() {
    let tmp = tempfile::tempdir().unwrap();
    let config = sweepable(tmp.path());
    let config = config.display().to_string();
    let out = tmp.path().join("sweep");
    let out_text = out.display().to_string();
    let sweep = |over: &str, rounds: &str| {
        vec![
            "sweep",
            &config,
            "--over",
            over,
            "--jobs",
            "1",
            "--no-report",
            "--quiet",
            "--out",
            &out_text,
            "--rounds",
            rounds,
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>()
    };
    // While one sweep runs, a second is refused at once.
    let mut first = arena_process()
        .args(sweep("search.depth=1,2", "20"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&mut first, "started", || {
        lines(&out.join("search.depth=1/games.jsonl")) > 0
    });
    let second = sweep("search.depth=3", "2");
    let e = run_bad_input(&second.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        e.contains("in use by another arena") && e.contains("arena sweep"),
        "{e}"
    );
    first.kill().unwrap();
    first.wait().unwrap();
    // Afterwards, too: the folder holds that sweep, which only --resume continues.
    let e = run_bad_input(&second.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        e.contains("already holds a sweep") && e.contains("search.depth=1,2"),
        "{e}"
    );
    let mut resumed = second.clone();
    resumed.push("--resume".into());
    let e = run_bad_input(&resumed.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(e.contains("made by another sweep"), "{e}");
    assert!(!out.join("search.depth=3").exists());
    assert!(!out.join("scaling.csv").exists());
}

/// Regression (issue 20, item 7): `arena stats` on a read-only results folder exited 1
/// (it could not create `.arena.lock`) and printed nothing. The folder is made read-only
/// by a read-only bind mount in a user and mount namespace of its own (root ignores
/// permission bits).
#[test]
fn stats_reads_a_read_only_folder() {
    let probe = std::process::Command::new("unshare")
        .args(["-rm", "true"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED long_jobs::stats_reads_a_read_only_folder: no `unshare -rm` here");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("small");
    let small = data("tournaments/small.toml");
    run_ok(&[
        "run",
        small.to_str().unwrap(),
        "--quiet",
        "--no-report",
        "--rounds",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let summary = std::fs::read(out.join("summary.json")).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("arena");
    let result = std::process::Command::new("unshare")
        .args([
            "-rm",
            "sh",
            "-c",
            "mount --bind -o ro \"$1\" \"$1\" && exec \"$2\" stats \"$1\"",
            "sh",
        ])
        .arg(&out)
        .arg(&bin)
        .env_remove("CARGO")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&result.stdout);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("pairings (first engine's view"), "{stdout}");
    assert!(stderr.contains("left as they are"), "{stderr}");
    assert_eq!(std::fs::read(out.join("summary.json")).unwrap(), summary);
}

/// Issue 20, item 22: `arena run` and `arena stats` take `--sprt` and `--anchor`, as
/// the config's `[sprt]` and `anchor`.
#[test]
fn run_and_stats_take_sprt_and_anchor() {
    let tmp = tempfile::tempdir().unwrap();
    let config = sweepable(tmp.path());
    let config = config.to_str().unwrap();
    let out = tmp.path().join("sprt");
    let out = out.to_str().unwrap();
    let stdout = run_ok(&[
        "run",
        config,
        "--quiet",
        "--no-report",
        "--rounds",
        "400",
        "--sprt",
        "-300,300",
        "--anchor",
        "b",
        "--out",
        out,
    ]);
    assert!(
        stdout.contains("stopped early: the SPRT decided"),
        "{stdout}"
    );
    assert!(stdout.contains("ratings relative to b"), "{stdout}");
    let games = lines(&Path::new(out).join("games.jsonl"));
    assert!(games < 800, "{games} games: the SPRT stopped the run");
    let run_toml = std::fs::read_to_string(Path::new(out).join("run.toml")).unwrap();
    assert!(
        run_toml.contains("[sprt]") && run_toml.contains("anchor = \"b\""),
        "{run_toml}"
    );

    let stdout = run_ok(&["stats", out, "--anchor", "a"]);
    assert!(stdout.contains("ratings relative to a"), "{stdout}");
    let e = run_bad_input(&["stats", out, "--anchor", "nobody"]);
    assert!(e.contains("--anchor") && e.contains("nobody"), "{e}");
    let small = data("tournaments/small.toml");
    let e = run_bad_input(&["run", small.to_str().unwrap(), "--sprt", "0,10"]);
    assert!(e.contains("two engines"), "{e}");
}

fn fit_config() -> String {
    data("fit/small.toml").display().to_string()
}

/// Regression (issue 20, items 10 and 11): `fit --resume` trusted state.json (NaN or inf
/// in the moments or K wrote `fitted.toml` with `defence = nan`; absurd epochs and step
/// counts were taken), `tune --resume` did not check `penta.dd`, and the fit's
/// trajectory.csv disagreed with fit.json by one unit in the last place (floats read back
/// with serde_json's inexact parser).
#[test]
fn damaged_checkpoints_are_refused_with_their_line() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("fit");
    let out_text = out.display().to_string();
    let fit = |resume: bool| {
        let mut a = vec![
            "fit".to_string(),
            fit_config(),
            "--verify-pairs".into(),
            "0".into(),
            "--quiet".into(),
            "--out".into(),
            out_text.clone(),
        ];
        if resume {
            a.push("--resume".into());
        }
        a
    };
    run_ok(&fit(false).iter().map(String::as_str).collect::<Vec<_>>());
    // trajectory.csv holds fit.json's values to the last bit.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("fit.json")).unwrap()).unwrap();
    let csv = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    for (row, line) in report["history"]
        .as_array()
        .unwrap()
        .iter()
        .zip(csv.lines().skip(1))
    {
        let cells: Vec<&str> = line.split(',').skip(1).collect();
        let values: Vec<String> = row["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap().to_string())
            .collect();
        assert_eq!(cells, values, "{line}");
    }
    let state_path = out.join("state.json");
    let good = std::fs::read_to_string(&state_path).unwrap();
    let fitted = std::fs::read_to_string(out.join("fitted.toml")).unwrap();
    type Damage<'a> = (&'a str, &'a dyn Fn(&mut serde_json::Value));
    let damages: [Damage; 6] = [
        ("m", &|s| s["adam"]["m"][0] = "7ff8000000000000".into()),
        ("v", &|s| s["adam"]["v"][1] = "7ff0000000000000".into()),
        ("k_bits", &|s| s["k_bits"] = 0.into()),
        ("k_bits", &|s| {
            s["k_bits"] = 0x7ff0_0000_0000_0000_u64.into()
        }),
        ("epoch", &|s| s["epoch"] = 1_000_000_000_000_u64.into()),
        ("t", &|s| s["adam"]["t"] = 0.into()),
    ];
    for (key, damage) in damages {
        let mut state: serde_json::Value = serde_json::from_str(&good).unwrap();
        damage(&mut state);
        std::fs::write(&state_path, serde_json::to_string_pretty(&state).unwrap()).unwrap();
        let e = run_bad_input(&fit(true).iter().map(String::as_str).collect::<Vec<_>>());
        assert!(
            e.contains("state.json:") && e.contains(&format!("key `{key}`")),
            "{key}: {e}"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("fitted.toml")).unwrap(),
            fitted,
            "{key}: nothing written"
        );
    }
    std::fs::write(&state_path, &good).unwrap();

    let tune_out = tmp.path().join("tune");
    let tune_out_text = tune_out.display().to_string();
    let tune_config = data("tune/small.toml").display().to_string();
    let tune = [
        "tune",
        &tune_config,
        "--pairs",
        "16",
        "--verify-pairs",
        "0",
        "--quiet",
        "--out",
        &tune_out_text,
    ];
    run_ok(&tune);
    let path = tune_out.join("state.json");
    let mut state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    state["state"]["penta"]["dd"] = 99.into();
    std::fs::write(&path, serde_json::to_string_pretty(&state).unwrap()).unwrap();
    let mut resumed = tune.to_vec();
    resumed.push("--resume");
    let e = run_bad_input(&resumed);
    assert!(e.contains("state.json:") && e.contains("key `dd`"), "{e}");
}

/// Issue 44, item 12: `timeout 10 arena match ...` stopped arena as a second Ctrl-C
/// would (no standings, no summary, no report): GNU timeout sends its signal to the
/// process and then to its whole process group, so arena got it twice. One signal sent
/// to the group counts once: the match stops as after one Ctrl-C. (The test sends the
/// two copies as timeout does, the group's after arena said it is stopping.)
#[test]
fn a_signal_sent_to_the_process_and_its_group_counts_once() {
    use std::os::unix::process::CommandExt;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m");
    let errors = tmp.path().join("stderr.txt");
    let engine = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("configs/engines")
            .join(name)
    };
    let mut child = arena_process()
        .arg("match")
        .arg(engine("gomoku-seed003-threat.toml"))
        .arg(engine("gomoku-seed000-threat.toml"))
        .args(["--depth", "2", "--rounds", "5000", "--jobs", "1", "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&errors).unwrap())
        .process_group(0)
        .spawn()
        .unwrap();
    let games = out.join("games.jsonl");
    wait_for(&mut child, "played a game", || lines(&games) >= 1);
    let pid = child.id() as i32;
    signal(child.id(), libc::SIGTERM);
    wait_for(&mut child, "said it is stopping", || {
        std::fs::read_to_string(&errors).is_ok_and(|t| t.contains("stopping"))
    });
    // SAFETY: kill(2) of the process group the test started (its own group, led by
    // the child); no memory is involved.
    unsafe {
        libc::kill(-pid, libc::SIGTERM);
    }
    let (code, stdout, _) = finish(child);
    let stderr = std::fs::read_to_string(&errors).unwrap();
    assert_eq!(code, Some(130), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("interrupted: continue with") && stdout.contains("rank"),
        "the standings and the resume hint: {stdout}\n{stderr}"
    );
    assert!(out.join("summary.json").exists(), "{stderr}");
    assert!(out.join("report.html").exists(), "{stderr}");
}

/// A sweep over a key no engine of the config has is refused before any game, and the
/// message lists what each kind of engine takes, each key once (it used to say
/// `option.NAME, option.NAME, depth, ...`).
#[test]
fn a_sweep_over_a_key_no_engine_has_lists_each_kind_of_key_once() {
    let tmp = tempfile::tempdir().unwrap();
    let served = served_gomocup(tmp.path(), "served.toml", "gomoku-seed003-threat.toml", 300);
    let config = write(
        tmp.path(),
        "sweep.toml",
        &format!(
            "name = \"s\"\ngame = \"mnk:9,9,5\"\nrounds = 1\n[openings]\nkind = \"random\"\n\
             plies = 2\nradius = 1\n[[engines]]\nfile = \"{served}\"\nname = \"a\"\n\
             [[engines]]\nfile = \"{served}\"\nname = \"b\"\n"
        ),
    );
    let out = tmp.path().join("out");
    let e = run_bad_input(&[
        "sweep",
        &config,
        "--over",
        "table.material=1,2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        e.contains("no engine of") && e.contains("table.material"),
        "{e}"
    );
    assert_eq!(e.matches("option.NAME").count(), 1, "{e}");
    assert!(!out.join("sweep.toml").exists(), "{e}");
}
