//! What arena writes is its own (issue 44, items 1-3), through the real binary: lock files
//! are never followed through a symbolic link nor truncated when arena did not make
//! them, and readers take no lock; a sweep's points stay inside its folder whatever the
//! values; a folder that is not an arena results folder, a file given as `--out`, and a
//! link where arena keeps `plots/` or `logs/` are refused (exit 2) with nothing written.
//!
//! One writer per results folder: a second is refused at once and the first run is
//! undisturbed.

use std::{
    os::unix::fs::symlink,
    path::Path,
    process::Stdio,
    time::{Duration, Instant},
};

use arena::tournament::{GameRecord, read_records};

use crate::common::{
    arena_process, data, run_bad_input, run_ok, run_to, served_gomocup, shipped_engine, table,
    tictactoe_config, write,
};

const PRECIOUS: &str = "a file that is not arena's\n";

/// A file outside every results folder, which nothing may change.
fn precious(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("precious.txt");
    std::fs::write(&path, PRECIOUS).unwrap();
    path
}

fn assert_untouched(path: &Path, when: &str) {
    assert_eq!(
        std::fs::read_to_string(path).unwrap(),
        PRECIOUS,
        "{when}: {} was changed",
        path.display()
    );
}

/// Regression (issue 44, item 1): `arena run --out L` with `L/.arena.lock` a link to
/// another file overwrote that file with the holder line, then emptied it; `arena stats`
/// (a reader) did the same, and so did `tune --worker` through `.arena.worker-N.lock`.
/// A hard link or a file of other contents in the lock's place was truncated likewise.
#[test]
fn lock_files_are_never_followed_or_truncated_and_readers_take_no_lock() {
    let tmp = tempfile::tempdir().unwrap();
    let target = precious(tmp.path());
    let config = tictactoe_config(tmp.path(), "ttt", "");

    // A writer refuses a link in the lock's place.
    let linked = tmp.path().join("linked");
    std::fs::create_dir(&linked).unwrap();
    symlink(&target, linked.join(".arena.lock")).unwrap();
    let e = run_bad_input(&["run", &config, "--quiet", "--out", linked.to_str().unwrap()]);
    assert!(
        e.contains(".arena.lock") && e.contains("symbolic link"),
        "{e}"
    );
    assert_untouched(&target, "arena run");
    assert!(!linked.join("games.jsonl").exists(), "nothing is played");

    // A hard link, or a file that holds something else, is not truncated either.
    let hard = tmp.path().join("hard");
    std::fs::create_dir(&hard).unwrap();
    std::fs::hard_link(&target, hard.join(".arena.lock")).unwrap();
    let e = run_bad_input(&["run", &config, "--quiet", "--out", hard.to_str().unwrap()]);
    assert!(e.contains("hard link"), "{e}");
    assert_untouched(&target, "arena run over a hard link");
    let other = tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join(".arena.lock"), PRECIOUS).unwrap();
    let e = run_bad_input(&["run", &config, "--quiet", "--out", other.to_str().unwrap()]);
    assert!(e.contains("not a lock file arena made"), "{e}");
    assert_untouched(&other.join(".arena.lock"), "arena run over another file");

    // A reader neither follows nor takes the lock: the statistics are printed and the
    // files rewritten, the link left as it is.
    let done = tmp.path().join("done");
    run_to(&config, &done);
    std::fs::remove_file(done.join(".arena.lock")).unwrap();
    symlink(&target, done.join(".arena.lock")).unwrap();
    let printed = run_ok(&["stats", done.to_str().unwrap()]);
    assert!(
        printed.contains("pairings (first engine's view"),
        "{printed}"
    );
    assert_untouched(&target, "arena stats");
    assert!(done.join(".arena.lock").is_symlink());
    run_ok(&["report", done.to_str().unwrap(), "--quiet"]);
    assert_untouched(&target, "arena report");

    // A tune's worker refuses a link in its own lock's place.
    let workers = tmp.path().join("workers");
    std::fs::create_dir(&workers).unwrap();
    symlink(&target, workers.join(".arena.worker-1.lock")).unwrap();
    let tune = data("tune/small.toml");
    let e = run_bad_input(&[
        "tune",
        tune.to_str().unwrap(),
        "--quiet",
        "--jobs",
        "1",
        "--worker",
        "1",
        "--out",
        workers.to_str().unwrap(),
    ]);
    assert!(
        e.contains(".arena.worker-1.lock") && e.contains("symbolic link"),
        "{e}"
    );
    assert_untouched(&target, "arena tune --worker");
}

/// Regression (issue 44, item 2): `arena sweep --over "option.foo=../../../pwn1"` made
/// the point's folder `OUT/option.foo=../../../pwn1`, a whole results folder beside OUT.
/// The value is escaped in the folder's name: the point plays inside the sweep's folder.
#[test]
fn a_sweep_value_cannot_name_a_folder_outside_the_sweep() {
    let tmp = tempfile::tempdir().unwrap();
    let served = served_gomocup(tmp.path(), "served.toml", "gomoku-seed003-threat.toml", 300);
    let config = write(
        tmp.path(),
        "sweep.toml",
        &format!(
            "name = \"s\"\ngame = \"mnk:9,9,5\"\nrounds = 1\n[openings]\nkind = \"random\"\n\
             plies = 2\nradius = 1\n[adjudication]\nmax_plies = 12\n\
             [[engines]]\nfile = \"{}\"\nname = \"inside\"\nset = {{ \"search.depth\" = 1 }}\n\
             [[engines]]\nfile = \"{served}\"\n",
            shipped_engine("gomoku-seed003-threat.toml")
        ),
    );
    let deep = tmp.path().join("a/b");
    std::fs::create_dir_all(&deep).unwrap();
    let out = deep.join("swo");
    run_ok(&[
        "sweep",
        &config,
        "--over",
        "option.foo=../../../pwn1",
        "--quiet",
        "--no-report",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        !deep.join("pwn1").exists(),
        "a point was played outside the sweep's folder"
    );
    let point = out.join("option.foo=..%2F..%2F..%2Fpwn1");
    assert!(
        point.join("run.toml").is_file(),
        "no point in {}",
        point.display()
    );
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("option.foo=") && n.ends_with("=..")),
        "{names:?}"
    );
}

/// Regression (issue 44, item 3): `--out` at a folder of other files wrote arena's files
/// among them (report.html, summary.json over files of the same name); a link at
/// `plots/` or `logs/` was written through (16 plot files in its target); `--out` at a
/// regular file exited 1. Every long job that takes `--out` refuses them with exit 2.
#[test]
fn folders_that_are_not_arenas_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tictactoe_config(tmp.path(), "ttt", "");
    let foreign = tmp.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), PRECIOUS).unwrap();
    let file = precious(tmp.path());
    let perfect = shipped_engine("tictactoe-perfect.toml");
    let shallow = write(
        tmp.path(),
        "shallow.toml",
        "name = \"shallow\"\ngame = \"tictactoe\"\n[search]\ndepth = 1\n",
    );
    let tune = data("tune/small.toml");
    let fit = data("fit/small.toml");
    let jobs: Vec<Vec<&str>> = vec![
        vec!["run", &config],
        vec!["match", &perfect, &shallow, "--rounds", "1"],
        vec!["sweep", &config, "--over", "search.depth=1"],
        vec!["tune", tune.to_str().unwrap(), "--pairs", "8"],
        vec![
            "fit",
            fit.to_str().unwrap(),
            "--selfplay-pairs",
            "1",
            "--epochs",
            "1",
        ],
    ];
    for job in &jobs {
        for (out, needle) in [
            (&foreign, "not an arena results folder"),
            (&file, "is a file, not a folder"),
        ] {
            let mut args = job.clone();
            args.extend(["--quiet", "--out", out.to_str().unwrap()]);
            let e = run_bad_input(&args);
            assert!(e.contains(needle), "arena {args:?}: {e}");
        }
    }
    for out in [&foreign, &file] {
        run_bad_input(&["merge", out.to_str().unwrap()]);
    }
    let left: Vec<String> = std::fs::read_dir(&foreign)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["notes.txt"], "arena wrote into a folder not its own");
    assert_untouched(&foreign.join("notes.txt"), "the jobs");
    assert_untouched(&file, "the jobs");

    // Links where arena keeps its own folders: refused by the writers and the reader.
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let done = tmp.path().join("done");
    run_to(&config, &done);
    symlink(&elsewhere, done.join("plots")).unwrap();
    let e = run_bad_input(&["report", done.to_str().unwrap()]);
    assert!(e.contains("plots") && e.contains("symbolic link"), "{e}");
    let e = run_bad_input(&[
        "run",
        &config,
        "--quiet",
        "--resume",
        "--out",
        done.to_str().unwrap(),
    ]);
    assert!(e.contains("plots") && e.contains("symbolic link"), "{e}");
    let logs = tmp.path().join("logs-linked");
    std::fs::create_dir(&logs).unwrap();
    std::fs::write(logs.join(".arena.lock"), "").unwrap();
    symlink(&elsewhere, logs.join("logs")).unwrap();
    let e = run_bad_input(&["run", &config, "--quiet", "--out", logs.to_str().unwrap()]);
    assert!(e.contains("logs") && e.contains("symbolic link"), "{e}");
    assert_eq!(
        std::fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "files were written through a link"
    );

    // What stays allowed: a new folder, an empty one, one of arena's own (resumed), and
    // `--out` itself a link to a folder (the user names it).
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    run_to(&config, &empty);
    run_ok(&[
        "run",
        &config,
        "--quiet",
        "--no-report",
        "--resume",
        "--out",
        empty.to_str().unwrap(),
    ]);
    let real = tmp.path().join("real");
    std::fs::create_dir(&real).unwrap();
    symlink(&real, tmp.path().join("via-link")).unwrap();
    run_to(&config, &tmp.path().join("via-link"));
    assert!(real.join("games.jsonl").is_file());
}

fn records(file: &Path) -> Vec<GameRecord> {
    let mut v = read_records(file).unwrap().records;
    v.sort_by_key(|r| r.game);
    v
}

/// Regression: two `arena run --out DIR` at once wrote 120 lines for 60 games and both
/// exited 0.
#[test]
fn a_second_writer_is_refused_at_once_and_the_first_run_is_undisturbed() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write(
        tmp.path(),
        "pair.toml",
        &format!(
            "name = \"pair\"\ngame = \"mnk:9,9,5\"\nrounds = 12\nseed = 9\n\n[openings]\n\
             kind = \"random\"\nplies = 2\nradius = 1\n\n[[engines]]\nname = \"a\"\n\
             table = \"{t}\"\nsearch = {{ depth = 2, ordering = [\"tt_move\", \"threat\"] }}\n\n\
             [[engines]]\nname = \"b\"\ntable = \"{t}\"\nsearch = {{ depth = 1 }}\n",
            t = table("gomoku/seed003.toml")
        ),
    );
    let busy = tmp.path().join("busy");
    let mut first = arena_process()
        .args([
            "run",
            &config,
            "--quiet",
            "--jobs",
            "1",
            "--no-report",
            "--out",
        ])
        .arg(&busy)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = busy.join(".arena.lock");
    let until = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&lock).is_ok_and(|t| t.contains("pid")) {
        assert!(Instant::now() < until, "the first run never took the lock");
        std::thread::sleep(Duration::from_millis(10));
    }
    let e = run_bad_input(&["run", &config, "--quiet", "--out", busy.to_str().unwrap()]);
    assert!(
        e.contains(&format!("pid {}", first.id())) && e.contains("in use"),
        "{e}"
    );
    // A resume and a merge are writers too.
    let e = run_bad_input(&["run", &config, "--resume", "--out", busy.to_str().unwrap()]);
    assert!(e.contains(&format!("pid {}", first.id())), "{e}");
    assert!(first.wait().unwrap().success());
    let alone = tmp.path().join("alone");
    run_ok(&[
        "run",
        &config,
        "--quiet",
        "--no-report",
        "--out",
        alone.to_str().unwrap(),
    ]);
    let strip = |v: Vec<GameRecord>| -> Vec<GameRecord> {
        v.into_iter().map(|r| r.without_times()).collect()
    };
    let (a, b) = (
        strip(records(&busy.join("games.jsonl"))),
        strip(records(&alone.join("games.jsonl"))),
    );
    assert_eq!(a.len(), 24);
    assert_eq!(a, b, "the first run's games are an undisturbed run's");
    // Released: the folder is writable again.
    run_ok(&[
        "run",
        &config,
        "--quiet",
        "--no-report",
        "--resume",
        "--out",
        busy.to_str().unwrap(),
    ]);
}
