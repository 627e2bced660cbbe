//! Headless Chromium for the report tests: finding it (or skipping loudly without it),
//! and driving a page over the DevTools protocol.
//!
//! Without Chromium a test that needs it is skipped and says so on stderr, so a fresh
//! machine with only Rust passes `cargo test`; with `ARENA_REQUIRE_BROWSER=1`, as
//! `.ci/run` sets after installing Chromium, a missing browser fails it.
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

/// Chromium for the test `test` (`report::...`), or `None` after saying on stderr that
/// the test is skipped. Panics instead under `ARENA_REQUIRE_BROWSER=1`.
pub fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    if let Some(browser) = find() {
        return Some(browser);
    }
    // A fresh machine with only Rust must pass the README's `cargo test`: without a
    // browser the check is skipped, loudly. CI installs Chromium and sets
    // ARENA_REQUIRE_BROWSER=1, so there the check cannot silently not run.
    if std::env::var("ARENA_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
        panic!(
            "ARENA_REQUIRE_BROWSER=1 but no Chromium was found: install it (Debian: \
             apt-get install -y chromium) or point ARENA_CHROMIUM at it"
        );
    }
    // Straight to the process's stderr, past the test harness's capture, so the skip
    // shows in a plain `cargo test` (a captured eprintln! of a passing test never does).
    let _ = writeln!(
        std::io::stderr(),
        "\nSKIPPED {test}: no Chromium on PATH (install it, e.g. apt-get install -y \
         chromium, or set ARENA_CHROMIUM; .ci/run installs it and sets \
         ARENA_REQUIRE_BROWSER=1 so CI never skips)"
    );
    None
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
    /// Starts `browser` with a window of `width` × `height` and opens a blank page.
    pub fn start(browser: &Path, profile: &Path, width: u32, height: u32) -> Page {
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
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", browser.display()));
        let to_browser = child.stdin.take().expect("piped");
        let from_browser = reader(child.stdout.take().expect("piped"));
        let mut page = Page {
            child,
            to_browser,
            from_browser,
            session: String::new(),
            next_id: 0,
        };
        let target = page.browser_call("Target.createTarget", json!({"url": "about:blank"}));
        let target = target["targetId"]
            .as_str()
            .expect("a target id")
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
        page
    }

    fn send(&mut self, message: Value) -> u64 {
        self.next_id += 1;
        let mut message = message;
        message["id"] = json!(self.next_id);
        let mut bytes = serde_json::to_vec(&message).expect("JSON");
        bytes.push(0);
        self.to_browser
            .write_all(&bytes)
            .and_then(|()| self.to_browser.flush())
            .expect("the browser reads its pipe");
        self.next_id
    }

    /// Waits for the answer to `id` (events before it are dropped, unless `event`
    /// names one to wait for instead).
    fn wait(&mut self, id: Option<u64>, event: Option<&str>) -> Value {
        loop {
            let message = self
                .from_browser
                .recv_timeout(PATIENCE)
                .expect("the browser answered within 5 minutes");
            if let Some(id) = id
                && message["id"].as_u64() == Some(id)
            {
                if let Some(error) = message.get("error") {
                    panic!("DevTools error: {error}");
                }
                return message["result"].clone();
            }
            if let Some(event) = event
                && message["method"] == event
            {
                return message["params"].clone();
            }
        }
    }

    fn browser_call(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(json!({"method": method, "params": params}));
        self.wait(Some(id), None)
    }

    /// A DevTools command on the page; its result.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(json!({"method": method, "params": params, "sessionId": self.session}));
        self.wait(Some(id), None)
    }

    /// Opens `url` and waits until it has loaded (scripts run).
    pub fn open(&mut self, url: &str) {
        let id = self.send(
            json!({"method": "Page.navigate", "params": {"url": url}, "sessionId": self.session}),
        );
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

#[test]
fn base64_decodes() {
    assert_eq!(base64_decode("Zm9vYmFy"), b"foobar");
    assert_eq!(base64_decode("Zm8="), b"fo");
    assert_eq!(base64_decode("Zg=="), b"f");
}
