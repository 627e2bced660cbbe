//! Inputs at and past their limits (issue 44, items 8-10), through the real binary: a
//! records file that is a device, a FIFO or ends in an endless line is refused with the
//! file (and line) named; engine names have a length limit, and a name at the limit
//! renders; seeds take the whole `u64` range in every command.
//!
//! Memory stays flat in the number of games, and the search radius is bounded.

use std::{
    os::unix::{fs::symlink, process::CommandExt as _},
    path::Path,
    process::Stdio,
    time::Duration,
};

use arena::tournament::read_records;

use crate::common::{
    arena_process, copy_folder, data, root, run_bad_input, run_ok, run_to, shipped_engine,
    tictactoe_config, wait_or_kill, wait_with_peak, write,
};

/// Runs `arena stats DIR` with at most 1 GiB of address space (a reader that tried to
/// hold an endless line would fail, not take the machine's memory) and a safety net
/// for a reader that blocks; its exit code and standard error.
fn stats_bounded(dir: &Path) -> (Option<i32>, String) {
    let mut cmd = arena_process();
    cmd.arg("stats")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit(2) only, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 1 << 30,
                rlim_max: 1 << 30,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("arena starts");
    let status = wait_or_kill(&mut child, Duration::from_secs(120));
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut stderr);
    }
    (status.and_then(|s| s.code()), stderr)
}

/// Regression (issue 44, item 8): games.jsonl was read without a line limit, so a
/// games.jsonl that is /dev/zero aborted on a 4 GB allocation, a FIFO blocked `arena
/// stats` for good, and a 600 MB torn last line was read whole. Special files are
/// refused, and a line is read to at most 16 MB (the opening files' line reader).
#[test]
fn records_files_that_are_special_or_endless_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tictactoe_config(tmp.path(), "ttt", "");
    let done = tmp.path().join("done");
    run_to(&config, &done);

    let zero = tmp.path().join("zero");
    copy_folder(&done, &zero);
    std::fs::remove_file(zero.join("games.jsonl")).unwrap();
    symlink("/dev/zero", zero.join("games.jsonl")).unwrap();
    let (code, stderr) = stats_bounded(&zero);
    assert_eq!(code, Some(2), "a link to /dev/zero: {stderr}");
    assert!(
        stderr.contains("games.jsonl") && stderr.contains("not a regular file"),
        "{stderr}"
    );

    let fifo = tmp.path().join("fifo");
    copy_folder(&done, &fifo);
    std::fs::remove_file(fifo.join("games.jsonl")).unwrap();
    let path = std::ffi::CString::new(fifo.join("games.jsonl").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path of the test's own folder.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0, "mkfifo");
    let (code, stderr) = stats_bounded(&fifo);
    assert_eq!(code, Some(2), "a FIFO (None: it blocked): {stderr}");
    assert!(stderr.contains("a FIFO"), "{stderr}");

    // A torn last line longer than any record: refused with its line, by every reader.
    let endless = tmp.path().join("endless");
    copy_folder(&done, &endless);
    let games = read_records(&done.join("games.jsonl"))
        .unwrap()
        .records
        .len();
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(endless.join("games.jsonl"))
            .unwrap();
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..17 {
            f.write_all(&chunk).unwrap();
        }
    }
    let line = format!("games.jsonl:{}", games + 1);
    for args in [
        vec!["stats", endless.to_str().unwrap()],
        vec!["report", endless.to_str().unwrap()],
        vec![
            "run",
            &config,
            "--quiet",
            "--resume",
            "--out",
            endless.to_str().unwrap(),
        ],
    ] {
        let e = run_bad_input(&args);
        assert!(
            e.contains(&line) && e.contains("16 MB"),
            "arena {args:?}: {e}"
        );
    }
}

/// Regression (issue 44, item 9): an engine named with 65,536 characters played and
/// saved every game, then panicked (exit 101) printing the standings, as did `arena
/// stats`; and `arena report` took time quadratic in the name's length (8 KB: 44 s).
/// Names have at most 64 characters (exit 2 naming the key and the limit, for a config,
/// an engine file and `cmd=...,name=`); a name of 64 renders everywhere.
#[test]
fn engine_names_are_capped_and_a_name_at_the_cap_renders() {
    let tmp = tempfile::tempdir().unwrap();
    let named = |n: usize, file: &str| {
        let name = "n".repeat(n);
        let text = std::fs::read_to_string(tictactoe_config(tmp.path(), "ttt", ""))
            .unwrap()
            .replace("name = \"d1\"", &format!("name = \"{name}\""));
        (name, write(tmp.path(), file, &text))
    };
    for n in [65, 65_536] {
        let (_, config) = named(n, "too-long.toml");
        let out = tmp.path().join(format!("long-{n}"));
        let e = run_bad_input(&["run", &config, "--quiet", "--out", out.to_str().unwrap()]);
        assert!(
            e.contains("too-long.toml")
                && e.contains("key `name`")
                && e.contains(&format!("{n} characters"))
                && e.contains("at most 64"),
            "{e}"
        );
        assert!(!out.exists(), "nothing is played");
    }
    let engine = write(
        tmp.path(),
        "engine.toml",
        &format!(
            "name = \"{}\"\ngame = \"tictactoe\"\n[search]\ndepth = 1\n",
            "e".repeat(65)
        ),
    );
    let perfect = shipped_engine("tictactoe-perfect.toml");
    let e = run_bad_input(&["match", &engine, &perfect, "--rounds", "1"]);
    assert!(e.contains("key `name`") && e.contains("at most 64"), "{e}");
    let cmd = format!("cmd={},name={}", root().join("x").display(), "c".repeat(65));
    let e = run_bad_input(&["match", &perfect, &cmd, "--rounds", "1"]);
    assert!(e.contains("key `name`") && e.contains("at most 64"), "{e}");

    let (name, config) = named(64, "at-the-cap.toml");
    let out = tmp.path().join("at-the-cap");
    let printed = run_ok(&["run", &config, "--quiet", "--out", out.to_str().unwrap()]);
    assert!(printed.contains(&name), "{printed}");
    let printed = run_ok(&["stats", out.to_str().unwrap()]);
    assert!(printed.contains(&format!("  {name}  ")), "{printed}");
    run_ok(&["report", out.to_str().unwrap(), "--quiet"]);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains(&name));
}

/// A tune of four pairs at depth 1 on 9×9 with a verification match of one pair.
fn tiny_tune(dir: &Path) -> String {
    write(
        dir,
        "tiny-tune.toml",
        &format!(
            "name = \"tiny\"\ngame = \"mnk:9,9,5\"\nengine = \"{}\"\n\
             set = {{ \"search.depth\" = 1, \"search.tt_mb\" = 1 }}\npairs = 4\nbatch = 2\n\
             seed = 3\n\n[openings]\nkind = \"random\"\nplies = 3\nradius = 2\n\n\
             [adjudication]\nmax_plies = 40\n\n[[params]]\nname = \"table.open_three\"\n\
             min = 1000\nmax = 20000\n\n[verification]\npairs = 1\n",
            shipped_engine("gomoku-seed003-threat.toml")
        ),
    )
}

/// Regression (issue 44, item 10): `arena run --seed 18446744073709551615` and `arena
/// tune --seed 9223372036854775807` (whose verification plays from seed + 1) panicked
/// writing run.toml (a TOML integer holds at most 2^63 - 1); `match`, `sweep` and `fit`
/// refused such seeds. Every seed is taken: written as a string in TOML when it must be,
/// as the records write every seed, and read in either form; small seeds are written
/// as before.
#[test]
fn seeds_take_the_whole_u64_range() {
    const TOP: &str = "18446744073709551615";
    let tmp = tempfile::tempdir().unwrap();
    let config = tictactoe_config(tmp.path(), "ttt", "");
    let small = tmp.path().join("small");
    run_to(&config, &small);
    let run_toml = std::fs::read_to_string(small.join("run.toml")).unwrap();
    assert!(run_toml.contains("\nseed = 11\n"), "{run_toml}");

    let flag = tmp.path().join("flag");
    let o = flag.to_str().unwrap();
    run_ok(&[
        "run",
        &config,
        "--quiet",
        "--no-report",
        "--seed",
        TOP,
        "--out",
        o,
    ]);
    let run_toml = std::fs::read_to_string(flag.join("run.toml")).unwrap();
    assert!(
        run_toml.contains(&format!("\nseed = \"{TOP}\"\n")),
        "{run_toml}"
    );
    run_ok(&["stats", o]);
    run_ok(&[
        "run",
        &config,
        "--quiet",
        "--no-report",
        "--seed",
        TOP,
        "--resume",
        "--out",
        o,
    ]);
    // The same seed written in the config as a string plays the same games.
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("seed = 11", &format!("seed = \"{TOP}\""));
    let in_config = write(tmp.path(), "top.toml", &text);
    let from_config = tmp.path().join("config");
    run_to(&in_config, &from_config);
    let games = |dir: &Path| {
        read_records(&dir.join("games.jsonl"))
            .unwrap()
            .records
            .iter()
            .map(|r| r.without_times())
            .collect::<Vec<_>>()
    };
    assert_eq!(games(&flag), games(&from_config));
    assert_ne!(games(&flag), games(&small));
    let sweep = tmp.path().join("sweep");
    run_ok(&[
        "sweep",
        &in_config,
        "--over",
        "search.depth=1",
        "--quiet",
        "--no-report",
        "--out",
        sweep.to_str().unwrap(),
    ]);

    let perfect = shipped_engine("tictactoe-perfect.toml");
    let matched = tmp.path().join("match");
    run_ok(&[
        "match",
        &perfect,
        &perfect,
        "--rounds",
        "1",
        "--seed",
        TOP,
        "--quiet",
        "--out",
        matched.to_str().unwrap(),
    ]);

    let tune = tiny_tune(tmp.path());
    for (seed, out) in [("9223372036854775807", "tune-max-i64"), (TOP, "tune-top")] {
        let printed = run_ok(&[
            "tune",
            &tune,
            "--quiet",
            "--jobs",
            "1",
            "--seed",
            seed,
            "--out",
            tmp.path().join(out).to_str().unwrap(),
        ]);
        assert!(printed.contains(seed), "{printed}");
        assert!(
            tmp.path()
                .join(out)
                .join("verification/games.jsonl")
                .is_file()
        );
    }

    let fit = write(
        tmp.path(),
        "fit.toml",
        &format!(
            "name = \"f\"\ngame = \"mnk:9,9,5\"\nengine = \"{}\"\n\
             set = {{ \"search.tt_mb\" = 1 }}\nparams = [\"table.open_three\"]\nepochs = 1\n\
             skip_plies = 2\nvalidation = 0.0\nseed = \"{TOP}\"\n\n[selfplay]\npairs = 2\n\
             seed = \"{TOP}\"\nset = {{ \"search.depth\" = 1, \"search.random_margin\" = 300 }}\n\n\
             [openings]\nkind = \"random\"\nplies = 3\nradius = 2\n\n[adjudication]\n\
             max_plies = 40\n",
            shipped_engine("gomoku-seed003-threat.toml")
        ),
    );
    let fitted = tmp.path().join("fit");
    run_ok(&["fit", &fit, "--quiet", "--out", fitted.to_str().unwrap()]);
    let run_toml = std::fs::read_to_string(fitted.join("run.toml")).unwrap();
    assert!(
        run_toml.contains(&format!("seed = \"{TOP}\"")),
        "{run_toml}"
    );
}

/// Regressions: `rounds = 4294967295` aborted on a 103 GB allocation and `rounds =
/// 10000000` with `[sprt]` took 1.36 GB before the first game (the schedule and the
/// openings were made up front); `search.radius = 65536` hung a depth-1 search.
#[test]
fn memory_is_flat_in_the_number_of_games_and_radius_is_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("huge");
    let child = arena_process()
        .args(["run"])
        .arg(data("tournaments/sprt.toml"))
        .args([
            "--rounds",
            "4294967295",
            "--quiet",
            "--no-report",
            "--jobs",
            "2",
            "--out",
        ])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (status, peak_kib) = wait_with_peak(child);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "status {status}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["scheduled_games"], 2 * 4_294_967_295u64);
    assert_ne!(
        summary["sprt"]["decision"], "continue",
        "{}",
        summary["sprt"]
    );
    assert!(
        peak_kib < 300 * 1024,
        "peak memory {peak_kib} KiB for 8.6e9 scheduled games"
    );

    for set in ["search.radius=65536", "search.radius=16"] {
        let e = run_bad_input(&[
            "analyse",
            root()
                .join("configs/engines/gomoku-seed003-threat.toml")
                .to_str()
                .unwrap(),
            "--depth",
            "1",
            "--set",
            set,
        ]);
        assert!(e.contains("search.radius") && e.contains("15x15"), "{e}");
    }
}
