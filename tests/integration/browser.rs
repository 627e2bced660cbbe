//! Headless Chromium for the report tests: finding it, and driving a page over the
//! DevTools protocol.
//!
//! The tests that need a browser are `#[ignore]`d, so a plain `cargo test` on a machine
//! with only Rust lists them as ignored (not as passed: they did not run); `.ci/run`
//! installs Chromium and runs them with `cargo test -- --ignored headless_chromium`.
//! Asked for, a test without a working browser fails, and only that test: nothing here
//! may panic while a test unwinds (a second panic aborts the whole test binary).
//!
//! [`Page`] speaks the DevTools protocol over `--remote-debugging-pipe` (JSON messages
//! ended by a NUL byte, commands on the browser's fd 3, answers on its fd 4): no
//! WebSocket, no port. A shell started with the pipes as its stdin and stdout hands them
//! to the browser as fds 3 and 4.

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, ChildStdout, Command, Stdio},
    sync::mpsc,
    time::Duration,
};

use serde_json::{Value, json};

/// Chromium, if installed (`ARENA_CHROMIUM` names another binary).
fn find() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ARENA_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
}

/// Chromium for the test `test` (`report::...`); fails the test without one.
pub fn chromium(test: &str) -> PathBuf {
    find().unwrap_or_else(|| {
        no_browser(
            test,
            "no Chromium on PATH (install it, e.g. apt-get install -y chromium, or set \
             ARENA_CHROMIUM)",
        )
    })
}

/// Fails the browser test `test`, which has no working browser (an ordinary panic in
/// its own thread: the other tests run on).
pub fn no_browser(test: &str, why: &str) -> ! {
    panic!(
        "{test}: {why}: install Chromium (Debian: apt-get install -y chromium) or point \
         ARENA_CHROMIUM at a browser that runs"
    )
}

/// A started [`Page`] for the test `test`; fails the test when the browser cannot start
/// or answer.
pub fn page(test: &str, browser: &Path, profile: &Path, size: (u32, u32)) -> Page {
    Page::start(browser, profile, size.0, size.1).unwrap_or_else(|why| {
        no_browser(test, &format!("{} does not run ({why})", browser.display()))
    })
}

/// Flags every headless run uses: no sandbox (CI runs as root), nothing fetched.
pub const HEADLESS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
];

/// One page of a headless Chromium, driven over the DevTools protocol.
pub struct Page {
    child: Child,
    to_browser: ChildStdin,
    from_browser: mpsc::Receiver<Value>,
    session: String,
    next_id: u64,
}

/// Not a timed assertion: a guard so a stuck browser fails the test instead of hanging.
const PATIENCE: Duration = Duration::from_secs(300);

impl Page {
    /// Starts `browser` with a window of `width` × `height` and opens a blank page; why
    /// not, when the browser cannot be started or does not answer.
    pub fn start(browser: &Path, profile: &Path, width: u32, height: u32) -> Result<Page, String> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" 3<&0 4>&1 0</dev/null 1>/dev/null")
            .arg(browser)
            .args(HEADLESS)
            .arg("--remote-debugging-pipe")
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--window-size={width},{height}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start it: {e}"))?;
        let to_browser = child.stdin.take().expect("piped");
        let from_browser = reader(child.stdout.take().expect("piped"));
        let mut page = Page {
            child,
            to_browser,
            from_browser,
            session: String::new(),
            next_id: 0,
        };
        // Until the browser has answered once, a failure is its not running at all.
        let target = page
            .try_call(json!({"method": "Target.createTarget", "params": {"url": "about:blank"}}))?;
        let target = target["targetId"]
            .as_str()
            .ok_or("no target id in its answer")?
            .to_string();
        let attached = page.browser_call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        );
        page.session = attached["sessionId"]
            .as_str()
            .expect("a session id")
            .to_string();
        page.call("Page.enable", json!({}));
        page.call("Runtime.enable", json!({}));
        page.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        );
        Ok(page)
    }

    /// Sends a message; an error when the browser's pipe is closed (it exited).
    fn send(&mut self, message: Value) -> Result<u64, String> {
        self.next_id += 1;
        let mut message = message;
        message["id"] = json!(self.next_id);
        let mut bytes = serde_json::to_vec(&message).expect("JSON");
        bytes.push(0);
        self.to_browser
            .write_all(&bytes)
            .and_then(|()| self.to_browser.flush())
            .map_err(|e| format!("its pipe is closed: {e}"))?;
        Ok(self.next_id)
    }

    /// Waits for the answer to `id` (events before it are dropped, unless `event`
    /// names one to wait for instead); an error when the browser exits or is stuck.
    fn try_wait(&mut self, id: Option<u64>, event: Option<&str>) -> Result<Value, String> {
        loop {
            let message = self
                .from_browser
                .recv_timeout(PATIENCE)
                .map_err(|e| match e {
                    mpsc::RecvTimeoutError::Timeout => "no answer in 5 minutes".to_string(),
                    mpsc::RecvTimeoutError::Disconnected => match self.child.try_wait() {
                        Ok(Some(status)) => format!("it exited: {status}"),
                        _ => "it closed its pipe".to_string(),
                    },
                })?;
            if let Some(id) = id
                && message["id"].as_u64() == Some(id)
            {
                if let Some(error) = message.get("error") {
                    return Err(format!("DevTools error: {error}"));
                }
                return Ok(message["result"].clone());
            }
            if let Some(event) = event
                && message["method"] == event
            {
                return Ok(message["params"].clone());
            }
        }
    }

    /// Sends `message` and waits for its answer.
    fn try_call(&mut self, message: Value) -> Result<Value, String> {
        let id = self.send(message)?;
        self.try_wait(Some(id), None)
    }

    /// [`Page::try_wait`] for a browser that has answered before: failing now fails the
    /// test.
    fn wait(&mut self, id: Option<u64>, event: Option<&str>) -> Value {
        self.try_wait(id, event)
            .unwrap_or_else(|why| panic!("the browser failed: {why}"))
    }

    fn browser_call(&mut self, method: &str, params: Value) -> Value {
        self.try_call(json!({"method": method, "params": params}))
            .unwrap_or_else(|why| panic!("the browser failed: {why}"))
    }

    /// A DevTools command on the page; its result.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let message = json!({"method": method, "params": params, "sessionId": self.session});
        self.try_call(message)
            .unwrap_or_else(|why| panic!("the browser failed: {why}"))
    }

    /// Opens `url` and waits until it has loaded (scripts run).
    pub fn open(&mut self, url: &str) {
        let id = self
            .send(
                json!({"method": "Page.navigate", "params": {"url": url}, "sessionId": self.session}),
            )
            .unwrap_or_else(|why| panic!("the browser failed: {why}"));
        self.wait(Some(id), None);
        self.wait(None, Some("Page.loadEventFired"));
    }

    /// Evaluates JavaScript in the page; its value (JSON). A script error fails the test.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
        );
        if let Some(e) = result.get("exceptionDetails") {
            panic!("script error in `{expression}`: {e}");
        }
        result["result"]["value"].clone()
    }

    /// A PNG of the page region `(x, y, width, height)` in page coordinates.
    pub fn screenshot(&mut self, clip: (f64, f64, f64, f64)) -> Vec<u8> {
        let result = self.call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true, "clip": {
                "x": clip.0, "y": clip.1, "width": clip.2, "height": clip.3, "scale": 1}}),
        );
        base64_decode(result["data"].as_str().expect("screenshot data"))
    }
}

impl Drop for Page {
    /// Never panics: it runs while a failed test unwinds, where a second panic would
    /// abort the whole test binary.
    fn drop(&mut self) {
        let _ = self.send(json!({"method": "Browser.close"}));
        std::thread::sleep(Duration::from_millis(200));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The browser's messages, parsed, from a thread (so waiting can give up).
fn reader(out: ChildStdout) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut out = BufReader::new(out);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match out.read_until(0, &mut buf) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    if buf.last() == Some(&0) {
                        buf.pop();
                    }
                    if let Ok(v) = serde_json::from_slice::<Value>(&buf)
                        && tx.send(v).is_err()
                    {
                        return;
                    }
                }
            }
        }
    });
    rx
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let bytes: Vec<u8> = text.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &c)| n | (value(c) << (18 - 6 * i)));
        let keep = chunk.len() - 1;
        for i in 0..keep {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// The tests that drive a browser: ignored in a plain `cargo test`, run by `.ci/run`
/// with `--ignored`.
const BROWSER_TESTS: [&str; 4] = [
    "report::headless_chromium_renders_the_report",
    "report::headless_chromium_drives_the_game_viewer",
    "report::headless_chromium_viewer_takes_keys_and_links_scroll_to_it",
    "report::headless_chromium_tables_fit_a_1400_px_window",
];

/// Issue 44, item 20: without a browser the browser tests printed SKIPPED on stderr and
/// counted as passed, so a summary of "N passed" hid that they never ran. They are
/// marked ignored (a plain `cargo test` counts them as such), and `.ci/run` runs them
/// explicitly, where a missing browser fails them.
#[test]
fn the_browser_tests_are_ignored_unless_asked_for_and_ci_asks() {
    let this_binary = std::env::current_exe().expect("the test binary");
    let out = Command::new(&this_binary)
        .args(["--list", "--ignored"])
        .output()
        .expect("the test binary runs");
    let listed = String::from_utf8_lossy(&out.stdout);
    for test in BROWSER_TESTS {
        assert!(
            listed.lines().any(|l| l == format!("{test}: test")),
            "{test} is not ignored: {listed}"
        );
    }
    let ci =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.contains("cargo test")
            && l.contains("--ignored")
            && l.contains("headless_chromium")),
        ".ci/run runs them: {ci}"
    );
}

#[test]
fn base64_decodes() {
    assert_eq!(base64_decode("Zm9vYmFy"), b"foobar");
    assert_eq!(base64_decode("Zm8="), b"fo");
    assert_eq!(base64_decode("Zg=="), b"f");
}

/// Issue 20, item 23: a browser that cannot start (a file that is not executable, a
/// program that exits 1) fails the browser tests when they are run, and only them: the
/// other tests of the binary run and report (it once aborted the whole binary: a panic
/// in `Page`'s drop while a test unwound).
#[test]
fn a_browser_that_cannot_start_fails_only_its_own_tests() {
    use std::os::unix::fs::PermissionsExt;

    let tmp = tempfile::tempdir().unwrap();
    let not_executable = tmp.path().join("chromium-not-executable");
    std::fs::write(&not_executable, "not a program\n").unwrap();
    std::fs::set_permissions(&not_executable, std::fs::Permissions::from_mode(0o644)).unwrap();
    let exits_1 = tmp.path().join("chromium-exits-1");
    std::fs::write(
        &exits_1,
        "#!/bin/sh\necho 'cannot open display' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&exits_1, std::fs::Permissions::from_mode(0o755)).unwrap();
    let tests = &BROWSER_TESTS[..2];
    let this_binary = std::env::current_exe().expect("the test binary");
    for browser in [&not_executable, &exits_1] {
        let out = Command::new(&this_binary)
            .args(["--exact", "--include-ignored", "--test-threads", "1"])
            .arg("browser::base64_decodes")
            .args(tests)
            .env("ARENA_CHROMIUM", browser)
            .output()
            .expect("the test binary runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let what = format!("{}: {}\n{stdout}\n{stderr}", browser.display(), out.status);
        assert!(
            out.status.code().is_some(),
            "not killed by a signal: {what}"
        );
        assert!(!stderr.contains("non-unwinding"), "{what}");
        assert_eq!(out.status.code(), Some(101), "{what}");
        assert!(stdout.contains("1 passed; 2 failed"), "{what}");
        assert!(stdout.contains("does not run"), "{what}");
    }
}
