//! Helpers shared by the integration tests: running the binary with a clean environment,
//! temporary folders, config writers and record comparison. Every test module takes its
//! helpers from here rather than writing its own.

use std::{
    path::{Path, PathBuf},
    process::Child,
    time::{Duration, Instant},
};

use assert_cmd::Command;

/// The `arena` binary built by cargo for this test run.
pub fn arena() -> Command {
    Command::from_std(arena_process())
}

/// The `arena` binary as a plain process (to spawn and kill), with the schedulers' shard
/// variables removed: `cargo test` inside a Slurm array task (or a Kubernetes Indexed Job,
/// or GNU parallel) would otherwise turn every `arena run` of the tests into a shard run.
/// Tests that want them set them again.
pub fn arena_process() -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("arena"));
    for var in arena::tournament::shard::SHARD_ENV_VARS {
        cmd.env_remove(var);
    }
    // `cargo test` leaves CARGO and CARGO_MANIFEST_DIR to the tests, which would make
    // arena believe it runs under `cargo run` (and suggest `cargo run -- ...`): the
    // tests run it as a user runs an installed binary. Tests of the other case set them.
    cmd.env_remove("CARGO");
    cmd
}

/// A path under `tests/data/`.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Runs arena with `args`, expects success, returns stdout.
pub fn run_ok(args: &[&str]) -> String {
    let out = arena().args(args).output().expect("arena runs");
    assert!(
        out.status.success(),
        "arena {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("arena prints UTF-8")
}

/// Runs arena with `args`, expects exit code 2 and a one-line error; returns it.
pub fn run_bad_input(args: &[&str]) -> String {
    let out = arena().args(args).output().expect("arena runs");
    let stderr = String::from_utf8(out.stderr).expect("arena prints UTF-8");
    assert_eq!(
        out.status.code(),
        Some(2),
        "arena {args:?} should exit 2, stderr: {stderr}"
    );
    assert!(
        !stderr.contains("panicked"),
        "arena {args:?} panicked: {stderr}"
    );
    // clap adds its usual "For more information, try '--help'." to usage errors.
    let lines = stderr
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("For more information"))
        .count();
    assert_eq!(lines, 1, "arena {args:?}: the error is one line: {stderr}");
    stderr
}

/// The lines of a file (0 when it is not there).
pub fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

/// Waits (up to five minutes) until `ready` holds, with `child` still running.
pub fn wait_for(child: &mut Child, what: &str, ready: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(300);
    while !ready() {
        assert!(Instant::now() < deadline, "never {what}");
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Sends `sig` to `child`.
pub fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on the child we started.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
}

/// Waits for `child` (spawned with piped output): its exit code, stdout and stderr.
pub fn finish(child: Child) -> (Option<i32>, String, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
