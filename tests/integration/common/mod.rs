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

/// Waits until no process holds the `flock` arena takes on `path` (a results folder's
/// lock or a live game file). An engine's helper processes are forks of arena that
/// never exec: for the moment between their fork and the closing of what they do not
/// need they hold copies of arena's descriptors, and so its locks, which can outlast an
/// arena killed in that moment on a loaded machine.
pub fn wait_unlocked(path: &std::path::Path) {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path).unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    // SAFETY: flock(2) on a descriptor this function owns; no memory involved.
    while unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        assert!(Instant::now() < deadline, "{} stays locked", path.display());
        std::thread::sleep(Duration::from_millis(5));
    }
    // Closing the descriptor releases the lock.
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

/// The path of the `arena` binary cargo built for this test run (for configs that
/// start it as an outside engine: `command = "..."`).
pub fn arena_bin() -> &'static str {
    env!("CARGO_BIN_EXE_arena")
}

/// The repository's root folder.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A path under `configs/tables/`, as text for configs.
pub fn table(name: &str) -> String {
    root()
        .join("configs/tables")
        .join(name)
        .display()
        .to_string()
}

/// A path under `configs/engines/` (a shipped engine), as text for configs.
pub fn shipped_engine(name: &str) -> String {
    root()
        .join("configs/engines")
        .join(name)
        .display()
        .to_string()
}

/// Runs `arena COMMAND CONFIG --quiet --out OUT` on a bad config (case `case` of a
/// test's list): a one-line error holding every needle, exit 2, and nothing written.
pub fn assert_refused(command: &str, config: &str, out: &Path, needles: &[&str], case: usize) {
    let e = run_bad_input(&[command, config, "--quiet", "--out", out.to_str().unwrap()]);
    for n in needles {
        assert!(e.contains(n), "case {case}: '{n}' not in: {e}");
    }
    assert!(!out.exists(), "case {case}: nothing is written");
}

/// A path under `tests/fixtures/` (the fake engines), as text for configs.
pub fn fixture(name: &str) -> String {
    root()
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// Writes `text` to `dir/name`; the path, as text for configs and arguments.
pub fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Processes still alive (not zombies) whose command line holds `marker`: the fake
/// engines put a path of the test's temporary folder in every process they start.
pub fn survivors(marker: &str) -> Vec<String> {
    let mut alive = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return alive;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if !cmdline.contains(marker) {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // The state follows the command name in parentheses: "pid (comm) S ...".
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().next());
        if !matches!(state, None | Some("Z" | "X")) {
            alive.push(format!("{pid}: {cmdline}"));
        }
    }
    alive
}

/// Waits (at most 10 s: killed processes take a moment to go) until no process holds
/// `marker`, and fails naming the ones left.
pub fn assert_no_survivors(marker: &str, when: &str) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let left = survivors(marker);
        if left.is_empty() {
            return;
        }
        assert!(
            std::time::Instant::now() < until,
            "{when}: processes left running: {left:#?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Waits for `child` and returns its exit status and its peak memory (KiB), from
/// wait4(2) (this child's own figure, not other tests'). The child is reaped here, so
/// std's handle is dropped without a wait.
pub fn wait_with_peak(child: std::process::Child) -> (i32, i64) {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child, writing into the two locals.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4");
    (status, usage.ru_maxrss)
}

/// Waits for `child` to exit, at most `safety` (a safety net for a test whose bug
/// is a hang, never a timing assertion): its status, or None after killing it.
pub fn wait_or_kill(
    child: &mut std::process::Child,
    safety: std::time::Duration,
) -> Option<std::process::ExitStatus> {
    let until = std::time::Instant::now() + safety;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(status);
        }
        if std::time::Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Waits (at most `safety`) until the file at `path` holds text for which `ready` is
/// true; that text. Fails with the file's text after the safety net.
pub fn wait_for_file(
    path: &std::path::Path,
    safety: std::time::Duration,
    ready: impl Fn(&str) -> bool,
) -> String {
    let until = std::time::Instant::now() + safety;
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if ready(&text) {
            return text;
        }
        assert!(
            std::time::Instant::now() < until,
            "{} never got ready: {text}",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Sends `signal` to the process `pid` (one the test started).
pub fn signal(pid: u32, signal: i32) {
    // SAFETY: kill(2) on a process the test started; no memory is involved.
    unsafe {
        libc::kill(pid as i32, signal);
    }
}

/// An answer to a search in `arena serve`'s output: UAI's `bestmove ...` or a Gomocup
/// move `x,y`.
pub fn is_answer(line: &str) -> bool {
    let line = line.trim_end();
    line.starts_with("bestmove")
        || line.split_once(',').is_some_and(|(x, y)| {
            !x.is_empty()
                && !y.is_empty()
                && x.bytes().all(|b| b.is_ascii_digit())
                && y.bytes().all(|b| b.is_ascii_digit())
        })
}

/// Runs `arena serve ARGS` as a manager talks to it: each step's input is written, then
/// the step waits until the output holds that many answers in all ([`is_answer`]); the
/// input is closed after the last step. Its output, whatever its exit status. The wait
/// has a safety net of five minutes (a hang fails the test, with the output so far); it
/// is never a timing assertion.
pub fn serve_script(args: &[&str], steps: &[(&[u8], usize)]) -> std::process::Output {
    use std::{
        io::{Read, Write},
        process::Stdio,
        sync::{Arc, Mutex},
    };
    let mut child = std::process::Command::new(arena_bin())
        .arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().unwrap();
    let collected = Arc::clone(&seen);
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            collected.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        text
    });
    let stdin = Arc::new(Mutex::new(child.stdin.take()));
    let until = Instant::now() + Duration::from_secs(300);
    for (input, answers) in steps {
        let input = input.to_vec();
        let pipe = Arc::clone(&stdin);
        let writer = std::thread::spawn(move || {
            if let Some(stdin) = pipe.lock().unwrap().as_mut() {
                let _ = stdin.write_all(&input);
                let _ = stdin.flush();
            }
        });
        loop {
            let text = String::from_utf8_lossy(&seen.lock().unwrap()).into_owned();
            if text.lines().filter(|l| is_answer(l)).count() >= *answers {
                break;
            }
            if child.try_wait().unwrap().is_some() || Instant::now() > until {
                let _ = child.kill();
                panic!("arena serve {args:?}: never {answers} answers:\n{text}");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = writer.join();
    }
    stdin.lock().unwrap().take();
    let status = child.wait().unwrap();
    let _ = reader.join();
    let stderr = errors.join().unwrap_or_default();
    let stdout = std::mem::take(&mut *seen.lock().unwrap());
    std::process::Output {
        status,
        stdout,
        stderr,
    }
}

/// `arena serve ARGS` with `input` on its standard input, closed right after it (the
/// end of input stops a search at once, as a manager that went away would: input whose
/// searches must finish goes through [`serve_answered`] or [`serve_script`]); it must
/// succeed: its standard output.
pub fn serve_ok(args: &[&str], input: &[u8]) -> String {
    serve_answered(args, input, 0)
}

/// [`serve_script`] of one step that must succeed: `input`, then its `answers`
/// answers, then the end of input; the standard output.
pub fn serve_answered(args: &[&str], input: &[u8], answers: usize) -> String {
    let out = serve_script(args, &[(input, answers)]);
    assert!(
        out.status.success(),
        "arena serve {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `arena run CONFIG --quiet --jobs 1 --no-report --out OUT`, which must succeed: its
/// standard output.
pub fn run_to(config: &str, out: &std::path::Path) -> String {
    run_ok(&[
        "run",
        config,
        "--quiet",
        "--jobs",
        "1",
        "--no-report",
        "--out",
        out.to_str().expect("a UTF-8 temporary folder"),
    ])
}

/// Starts `arena run CONFIG --quiet --jobs JOBS --no-report --out OUT` in the
/// background, with `env` set, its standard error piped.
pub fn spawn_run(
    config: &str,
    out: &std::path::Path,
    jobs: usize,
    env: &[(&str, &str)],
) -> std::process::Child {
    let mut cmd = arena_process();
    cmd.args(["run", config, "--quiet", "--jobs", &jobs.to_string()])
        .args(["--no-report", "--out"])
        .arg(out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().expect("arena starts")
}

/// Waits for `child` (at most `safety`, then kills it) and returns its exit status and
/// its own peak memory in KiB, read from `VmHWM` in /proc while it runs (wait4's figure
/// also counts the memory of the test process that spawned it, which the spawn shares
/// until the exec). A process that ends within the first poll may show 0.
pub fn wait_with_own_peak(
    child: &mut std::process::Child,
    safety: std::time::Duration,
) -> (Option<std::process::ExitStatus>, u64) {
    let status_file = format!("/proc/{}/status", child.id());
    let until = std::time::Instant::now() + safety;
    let mut peak = 0u64;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_file)
            && let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().expect("try_wait") {
            return (Some(status), peak);
        }
        if std::time::Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            return (None, peak);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// A copy of the files of `from` (not its folders) in the fresh folder `to`.
pub fn copy_folder(from: &std::path::Path, to: &std::path::Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).expect("the test folder is writable");
    for entry in std::fs::read_dir(from)
        .expect("the folder exists")
        .flatten()
    {
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
        }
    }
}

/// A tic-tac-toe round robin of depth-1, depth-2 (both a little random) and perfect
/// searchers: 4 rounds from random one-stone openings, 24 games in well under a second;
/// `extra` is appended (an `[adjudication]` table). Written as `dir/NAME.toml`.
pub fn tictactoe_config(dir: &std::path::Path, name: &str, extra: &str) -> String {
    write(
        dir,
        &format!("{name}.toml"),
        &format!(
            "name = \"{name}\"\ngame = \"tictactoe\"\nrounds = 4\nseed = 11\n\n[openings]\n\
             kind = \"random\"\nplies = 1\n\n\
             [[engines]]\nname = \"d1\"\nsearch = {{ depth = 1, random_margin = 5, tt_mb = 1 }}\n\n\
             [[engines]]\nname = \"d2\"\nsearch = {{ depth = 2, random_margin = 5, tt_mb = 1 }}\n\n\
             [[engines]]\nname = \"d9\"\nsearch = {{ depth = 9, tt_mb = 1 }}\n{extra}"
        ),
    )
}

/// Writes `dir/file`: an outside engine that is arena itself serving the shipped engine
/// `engine` over gomocup, limited to `nodes` a move.
pub fn served_gomocup(dir: &std::path::Path, file: &str, engine: &str, nodes: u64) -> String {
    write(
        dir,
        file,
        &format!(
            "name = \"served\"\ncommand = \"{}\"\nargs = [\"serve\", \"{}\", \"--protocol\", \
             \"gomocup\"]\nprotocol = \"gomocup\"\nnodes = {nodes}\n",
            arena_bin(),
            shipped_engine(engine)
        ),
    )
}
