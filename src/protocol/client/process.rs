//! An engine process: started directly (never through a shell), its standard output read
//! line by line on a thread into a bounded channel (so waiting for a reply can time out),
//! its standard error copied to the log, and stopped politely (the protocol's quit
//! command, a short wait) or killed.
//!
//! The log (`results/<run>/logs/<engine>-w<worker>.log`) holds every line both ways with
//! the seconds since the log was opened: `> ` sent, `< ` received, `! ` standard error,
//! `# ` what the harness did (start, exit status, kill and why).

use std::{
    fs::{self, File, OpenOptions},
    io::{self, BufRead, BufReader, BufWriter, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, Command, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
        mpsc::{self, Receiver, RecvTimeoutError},
    },
    time::{Duration, Instant},
};

/// How much of a log one file may hold; an engine that floods its output is cut off
/// here (with a note), not the disk.
const LOG_CAP: u64 = 16 << 20;

/// Lines waiting to be read before the reader thread (and so the engine) blocks.
const PIPE_LINES: usize = 4096;

/// How often a wait looks at the abort flag.
const ABORT_POLL: Duration = Duration::from_millis(50);

/// Why talking to an engine failed. Each is a loss for the engine; the text after
/// `fault: ` in the game record is [`Fault::reason`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The process could not be started (missing program, bad working folder, ...).
    Start(String),
    /// The process is gone (output closed, or writing to it failed).
    Crash(String),
    /// No reply within the time allowed; the process was killed.
    Timeout,
    /// A reply that is not what the protocol allows here.
    Garbage(String),
    /// A wrong answer to the start-up or new-game handshake (`START`, `uai`, ...).
    Handshake(String),
    /// The engine answered a move request with an error (`ERROR ..`, `UNKNOWN ..`).
    Refused(String),
    /// The run is being stopped: the wait was abandoned.
    Aborted,
}

impl Fault {
    /// The reason as a game record shows it after `fault: `.
    pub fn reason(&self) -> String {
        match self {
            Fault::Start(e) => format!("start failed ({e})"),
            Fault::Crash(detail) if detail.is_empty() => "crash".to_string(),
            Fault::Crash(detail) => format!("crash ({detail})"),
            Fault::Timeout => "timeout".to_string(),
            Fault::Garbage(text) => format!("garbage '{}'", clip(text)),
            Fault::Handshake(text) => format!("handshake '{}'", clip(text)),
            Fault::Refused(text) => format!("refused '{}'", clip(text)),
            Fault::Aborted => "aborted".to_string(),
        }
    }

    /// Whether the process must be restarted after this fault (its state is unknown).
    pub fn needs_restart(&self) -> bool {
        !matches!(self, Fault::Refused(_))
    }
}

/// At most 60 characters of an engine's text, for reasons.
fn clip(text: &str) -> String {
    let t: String = text.trim().chars().take(60).collect();
    t.replace('\'', "\"")
}

/// A log file shared by an engine's processes (one per engine and worker).
pub struct Log {
    file: Option<BufWriter<File>>,
    path: PathBuf,
    start: Instant,
    written: u64,
}

impl Log {
    /// Opens (appending) the log at `path`, creating its folder. A log that cannot be
    /// opened is an error: the run should not go on blind.
    pub fn open(path: &Path) -> io::Result<Log> {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Log {
            file: Some(BufWriter::new(file)),
            path: path.to_path_buf(),
            start: Instant::now(),
            written: 0,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Adds a line: `mark` is `>`, `<`, `!` or `#`.
    pub fn line(&mut self, mark: char, text: &str) {
        let Some(file) = &mut self.file else { return };
        if self.written >= LOG_CAP {
            let _ = writeln!(file, "# log cut off at {LOG_CAP} bytes");
            let _ = file.flush();
            self.file = None;
            return;
        }
        let secs = self.start.elapsed().as_secs_f64();
        let line = format!("{secs:10.3} {mark} {text}\n");
        self.written += line.len() as u64;
        if file.write_all(line.as_bytes()).is_err() {
            self.file = None;
        }
    }

    /// Writes buffered lines to the file.
    pub fn flush(&mut self) {
        if let Some(file) = &mut self.file {
            let _ = file.flush();
        }
    }
}

/// A log shared with reader threads.
pub type SharedLog = Arc<Mutex<Log>>;

fn log_line(log: &Option<SharedLog>, mark: char, text: &str) {
    if let Some(log) = log {
        log.lock()
            .unwrap_or_else(|p| p.into_inner())
            .line(mark, text);
    }
}

fn log_flush(log: &Option<SharedLog>) {
    if let Some(log) = log {
        log.lock().unwrap_or_else(|p| p.into_inner()).flush();
    }
}

/// How to start an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The program (a path, or a name looked up in `PATH`).
    pub command: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The folder it runs in (default: ours).
    pub working_dir: Option<PathBuf>,
}

impl Launch {
    /// The command line as a user would type it, for messages.
    pub fn display(&self) -> String {
        let mut s = self.command.display().to_string();
        for a in &self.args {
            s.push(' ');
            if a.contains(char::is_whitespace) || a.is_empty() {
                s.push_str(&format!("'{a}'"));
            } else {
                s.push_str(a);
            }
        }
        s
    }

    fn command(&self) -> Command {
        let mut c = Command::new(&self.command);
        c.args(&self.args);
        if let Some(dir) = &self.working_dir {
            c.current_dir(dir);
        }
        // Its own process group: a Ctrl-C in the terminal reaches arena alone, which
        // stops the run and then its engines, instead of engines dying mid-game and
        // being scored as crashes.
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            c.process_group(0);
        }
        c
    }

    /// Starts the program and stops it at once: whether it can run at all (found,
    /// executable, its working folder exists). The error names the command and the
    /// operating system's reason.
    pub fn check(&self) -> Result<(), String> {
        let mut child = self
            .command()
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| self.start_error(&e))?;
        let _ = child.kill();
        let _ = child.wait();
        Ok(())
    }

    fn start_error(&self, e: &io::Error) -> String {
        match &self.working_dir {
            Some(dir) if !dir.is_dir() => format!(
                "cannot start '{}': working_dir '{}' is not a folder",
                self.display(),
                dir.display()
            ),
            _ => format!("cannot start '{}': {e}", self.display()),
        }
    }
}

/// A running engine process.
pub struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Option<String>>,
    log: Option<SharedLog>,
    /// Set once the output closed: later reads fail at once.
    closed: bool,
}

impl Process {
    /// Starts `launch` with pipes on its standard streams.
    pub fn start(launch: &Launch, log: Option<SharedLog>) -> Result<Process, Fault> {
        let mut child = launch
            .command()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                let msg = launch.start_error(&e);
                log_line(&log, '#', &msg);
                log_flush(&log);
                Fault::Start(e.to_string())
            })?;
        log_line(
            &log,
            '#',
            &format!("started pid {}: {}", child.id(), launch.display()),
        );
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, rx) = mpsc::sync_channel(PIPE_LINES);
        // The readers end when the process closes its streams; they are never joined,
        // so a process that leaves a child holding its output cannot block us.
        std::thread::Builder::new()
            .name("engine-stdout".into())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let text = String::from_utf8_lossy(&buf);
                            let line = text.trim_end_matches(['\n', '\r']).to_string();
                            if tx.send(Some(line)).is_err() {
                                return;
                            }
                        }
                    }
                }
                let _ = tx.send(None);
            })
            .map_err(|e| Fault::Start(format!("cannot start a reader thread: {e}")))?;
        let err_log = log.clone();
        std::thread::Builder::new()
            .name("engine-stderr".into())
            .spawn(move || {
                let reader = BufReader::new(stderr);
                for line in reader.split(b'\n') {
                    let Ok(line) = line else { break };
                    let text = String::from_utf8_lossy(&line);
                    log_line(&err_log, '!', text.trim_end_matches('\r'));
                    log_flush(&err_log);
                }
            })
            .map_err(|e| Fault::Start(format!("cannot start a reader thread: {e}")))?;
        Ok(Process {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            log,
            closed: false,
        })
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), Fault> {
        self.send_all(&[line])
    }

    /// Sends lines in one write (a `BOARD` and its stones, `position` and `go`).
    pub fn send_all<S: AsRef<str>>(&mut self, lines: &[S]) -> Result<(), Fault> {
        let mut buf = Vec::new();
        for line in lines {
            log_line(&self.log, '>', line.as_ref());
            buf.extend_from_slice(line.as_ref().as_bytes());
            buf.push(b'\n');
        }
        let Some(stdin) = &mut self.stdin else {
            return Err(Fault::Crash(String::new()));
        };
        let result = stdin.write_all(&buf).and_then(|()| stdin.flush());
        match result {
            Ok(()) => Ok(()),
            Err(e) => {
                log_line(&self.log, '#', &format!("cannot write to the engine: {e}"));
                Err(self.crash())
            }
        }
    }

    /// The next line, waiting until `deadline`; raises no fault for the line's text.
    pub fn recv(&mut self, deadline: Instant, abort: Option<&AtomicBool>) -> Result<String, Fault> {
        loop {
            if self.closed {
                return Err(self.crash());
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Fault::Timeout);
            }
            if abort.is_some_and(|a| a.load(Ordering::Relaxed)) {
                return Err(Fault::Aborted);
            }
            let wait = (deadline - now).min(ABORT_POLL);
            match self.lines.recv_timeout(wait) {
                Ok(Some(line)) => {
                    log_line(&self.log, '<', &line);
                    return Ok(line);
                }
                Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                    self.closed = true;
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// A crash fault with the exit status if the process has ended (it is given a
    /// moment to, since its output closes just before it exits).
    fn crash(&mut self) -> Fault {
        let until = Instant::now() + Duration::from_millis(200);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    let detail = describe_status(status);
                    log_line(&self.log, '#', &format!("exited: {detail}"));
                    log_flush(&self.log);
                    return Fault::Crash(detail);
                }
                Ok(None) if Instant::now() < until => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                _ => {
                    log_line(&self.log, '#', "the engine closed its output");
                    log_flush(&self.log);
                    return Fault::Crash(String::new());
                }
            }
        }
    }

    /// Whether the process has exited (and how), without waiting.
    pub fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(describe_status(status)),
            _ => None,
        }
    }

    /// Writes a note to the log.
    pub fn note(&self, text: &str) {
        log_line(&self.log, '#', text);
    }

    /// Flushes the log.
    pub fn flush_log(&self) {
        log_flush(&self.log);
    }

    /// Kills the process at once (after a hang or garbage), noting why.
    pub fn kill(mut self, why: &str) {
        if self.exited().is_none() {
            log_line(&self.log, '#', &format!("killed: {why}"));
        }
        // Closing its input also ends helpers it left behind (a shell's pipeline).
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
        log_flush(&self.log);
    }

    /// Asks the process to quit with `quit` (`END`, `quit`), waits up to `grace` for it
    /// to exit, then kills it.
    pub fn stop(mut self, quit: &str, grace: Duration) {
        if self.exited().is_none() {
            let _ = self.send(quit);
            self.stdin = None;
            let until = Instant::now() + grace;
            while Instant::now() < until {
                if let Some(status) = self.exited() {
                    log_line(&self.log, '#', &format!("exited: {status}"));
                    log_flush(&self.log);
                    return;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        self.kill("did not exit after the quit command");
    }
}

fn describe_status(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit code {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("signal {signal}");
        }
    }
    status.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Launch {
        Launch {
            command: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            working_dir: None,
        }
    }

    #[test]
    fn lines_both_ways_and_exit_status() {
        let dir = tempfile::tempdir().unwrap();
        let log = Arc::new(Mutex::new(Log::open(&dir.path().join("l/e.log")).unwrap()));
        let mut p = Process::start(
            &sh("read x; echo \"got $x\"; echo oops >&2; exit 3"),
            Some(log.clone()),
        )
        .unwrap();
        p.send("hello").unwrap();
        let far = Instant::now() + Duration::from_secs(30);
        assert_eq!(p.recv(far, None).unwrap(), "got hello");
        assert_eq!(p.recv(far, None), Err(Fault::Crash("exit code 3".into())));
        p.kill("test over");
        std::thread::sleep(Duration::from_millis(50));
        log.lock().unwrap().flush();
        let text = fs::read_to_string(dir.path().join("l/e.log")).unwrap();
        for want in [
            "# started pid",
            "> hello",
            "< got hello",
            "! oops",
            "# exited: exit code 3",
        ] {
            assert!(text.contains(want), "{want} in {text}");
        }
    }

    #[test]
    fn a_silent_process_times_out() {
        let mut p = Process::start(&sh("sleep 30"), None).unwrap();
        let soon = Instant::now() + Duration::from_millis(100);
        assert_eq!(p.recv(soon, None), Err(Fault::Timeout));
        let abort = AtomicBool::new(true);
        let far = Instant::now() + Duration::from_secs(30);
        assert_eq!(p.recv(far, Some(&abort)), Err(Fault::Aborted));
        p.kill("test over");
    }

    #[test]
    fn missing_programs_are_named() {
        let launch = Launch {
            command: "/no/such/engine".into(),
            args: vec!["--x".into()],
            working_dir: None,
        };
        let e = launch.check().unwrap_err();
        assert!(e.contains("cannot start '/no/such/engine --x'"), "{e}");
        assert!(e.contains("No such file"), "{e}");
        let launch = Launch {
            working_dir: Some("/no/such/dir".into()),
            ..sh("true")
        };
        let e = launch.check().unwrap_err();
        assert!(
            e.contains("working_dir '/no/such/dir' is not a folder"),
            "{e}"
        );
        assert!(matches!(
            Process::start(&launch, None),
            Err(Fault::Start(_))
        ));
    }

    #[test]
    fn polite_stop() {
        let p = Process::start(&sh("read x; exit 0"), None).unwrap();
        p.stop("END", Duration::from_secs(5));
    }
}
