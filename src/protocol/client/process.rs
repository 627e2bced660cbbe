//! An engine process (started as [`launch`](super::launch) says: its own process group,
//! and on Linux its own PID namespace), its standard output read on a thread into a
//! bounded queue (so waiting for a reply can time out, and a flood cannot fill the
//! memory), its standard error copied to the log, and stopped politely (the protocol's
//! quit command, a short wait) or killed, with everything it started.
//!
//! Bounds: a line may hold [`MAX_LINE`] bytes; an engine that writes a longer one (or
//! writes without newlines) is cut off with a fault (`garbage (line too long)`). The
//! queue of unread lines holds at most [`QUEUE_BYTES`]; past that the reader stops
//! reading and the engine waits on its pipe. Log lines are cut at [`LOG_LINE`] bytes.
//!
//! While a reply is awaited, the engine's exit is noticed even when its output stays
//! open (a child it left behind holds it): the wait ends at once as a crash, with the
//! exit status, and the group is killed.
//!
//! The log (`results/<run>/logs/<engine>-w<worker>.log`) holds every line both ways with
//! the seconds since the log was opened: `> ` sent, `< ` received, `! ` standard error,
//! `# ` what the harness did (start, exit status, kill and why, lines left unread).

use std::{
    collections::VecDeque,
    io::{BufRead, BufReader, Read, Write},
    process::{ChildStdin, Stdio},
    sync::{
        Arc, Condvar, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

pub use super::engine_log::{LOG_LINE, Log, SharedLog};
use super::engine_log::{log_flush, log_line};
use super::launch::Group;
pub use super::launch::{Launch, kill_all, kill_leftovers};

/// The longest line an engine may write (a whole 20×20 `BOARD` answer is 4 KB).
pub const MAX_LINE: usize = 1 << 20;

/// The unread output an engine may have queued before its reader waits. Each line
/// counts its text and [`LINE_COST`], so a flood of empty lines is bounded too.
pub const QUEUE_BYTES: usize = 8 << 20;

/// What a queued line costs besides its text (its `String`, its arrival time and its
/// slot in the queue): an empty line is not free.
pub const LINE_COST: usize = std::mem::size_of::<(Instant, String)>() + 8;

/// How often a wait looks at the abort flag and at the process.
const POLL: Duration = Duration::from_millis(50);

/// How long a wait goes on reading after the engine exited, for the lines it wrote
/// just before.
const EXIT_GRACE: Duration = Duration::from_millis(100);

/// Why talking to an engine failed. Each is a loss for the engine, and the process is
/// killed (it starts again for the next game); the text after `fault: ` in the game
/// record is [`Fault::reason`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The process could not be started (missing program, bad working folder, ...).
    Start(String),
    /// The process is gone (it exited, its output closed, or writing to it failed).
    Crash(String),
    /// No reply within the time allowed; the process was killed.
    Timeout,
    /// A reply that is not what the protocol allows here.
    Garbage(String),
    /// A line longer than [`MAX_LINE`] (or output without line breaks).
    LineTooLong,
    /// A wrong answer to the start-up or new-game handshake (`START`, `uai`, ...).
    Handshake(String),
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
            Fault::LineTooLong => format!("garbage (line too long: over {MAX_LINE} bytes)"),
            Fault::Handshake(text) => format!("handshake '{}'", clip(text)),
            Fault::Aborted => "aborted".to_string(),
        }
    }
}

/// At most 60 characters of an engine's text, for reasons.
fn clip(text: &str) -> String {
    let t: String = text.trim().chars().take(60).collect();
    t.replace('\'', "\"")
}

/// The engine's output as the reader thread queues it: each line with the time it
/// arrived (a reply counts as on time when it came before the deadline, however long
/// the lines before it took to read).
#[derive(Default)]
struct Queue {
    lines: VecDeque<(Instant, String)>,
    /// What the queued lines cost: their text plus [`LINE_COST`] each.
    bytes: usize,
    /// The output closed.
    closed: bool,
    /// A line over [`MAX_LINE`] came: the reader stopped.
    too_long: bool,
    /// Nobody reads any more: the reader may stop.
    abandoned: bool,
}

/// The queue shared by the reader thread and the process.
#[derive(Default)]
struct Pipe {
    queue: Mutex<Queue>,
    changed: Condvar,
}

impl Pipe {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Reads `stream` line by line with every line at most `max` bytes; hands the lines
/// (without their line breaks, decoded lossily) to `lines` in batches: all the lines
/// that came in one read together, so that lines an engine wrote at once are queued at
/// once. A longer line goes to `too_long` (its first `LOG_LINE` bytes and its length so
/// far), and the rest of it up to the next line break is skipped, or reading stops when
/// `too_long` says so. Returns at the end of the stream, or when `lines` says stop.
fn read_lines(
    stream: impl Read,
    max: usize,
    mut lines: impl FnMut(Vec<String>) -> bool,
    mut too_long: impl FnMut(&[u8], usize) -> bool,
) {
    let mut reader = BufReader::with_capacity(64 << 10, stream);
    let mut buf: Vec<u8> = Vec::new();
    let mut batch: Vec<String> = Vec::new();
    // Bytes of an over-long line skipped so far (None: not skipping).
    let mut skipping: Option<usize> = None;
    loop {
        // Everything read so far is split: hand it over before reading (and maybe
        // waiting) again.
        if reader.buffer().is_empty() && !batch.is_empty() && !lines(std::mem::take(&mut batch)) {
            return;
        }
        let chunk = match reader.fill_buf() {
            Ok([]) | Err(_) => break,
            Ok(c) => c,
        };
        let (part, ends) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        let used = ends.unwrap_or(chunk.len());
        if let Some(skipped) = skipping.as_mut() {
            *skipped += part.len();
            if ends.is_some() {
                skipping = None;
            }
            reader.consume(used);
            continue;
        }
        if buf.len() + part.len() > max {
            let total = buf.len() + part.len();
            let room = max.saturating_sub(buf.len()).min(part.len());
            buf.extend_from_slice(&part[..room]);
            if !batch.is_empty() && !lines(std::mem::take(&mut batch)) {
                return;
            }
            let stop = too_long(&buf[..buf.len().min(LOG_LINE)], total);
            buf.clear();
            reader.consume(used);
            if stop {
                return;
            }
            if ends.is_none() {
                skipping = Some(total);
            }
            continue;
        }
        buf.extend_from_slice(part);
        reader.consume(used);
        if ends.is_some() {
            let text = String::from_utf8_lossy(&buf);
            batch.push(text.trim_end_matches('\r').to_string());
            buf.clear();
        }
    }
    if !buf.is_empty() {
        batch.push(
            String::from_utf8_lossy(&buf)
                .trim_end_matches('\r')
                .to_string(),
        );
    }
    if !batch.is_empty() {
        lines(batch);
    }
}

/// A running engine process.
pub struct Process {
    group: Group,
    stdin: Option<ChildStdin>,
    pipe: Arc<Pipe>,
    log: Option<SharedLog>,
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
        let stdin = child.stdin.take();
        let group = Group::new(child, log.clone());
        let pipe = Arc::new(Pipe::default());
        // The readers end when the process closes its streams (or a line is too long);
        // they are never joined, so a process that leaves a child holding its output
        // cannot block us.
        let out_pipe = Arc::clone(&pipe);
        let out_log = log.clone();
        std::thread::Builder::new()
            .name("engine-stdout".into())
            .spawn(move || {
                let push = |batch: Vec<String>| {
                    for text in &batch {
                        log_line(&out_log, '<', text);
                    }
                    let mut q = out_pipe.lock();
                    while q.bytes > QUEUE_BYTES && !q.abandoned {
                        q = out_pipe.changed.wait(q).unwrap_or_else(|p| p.into_inner());
                    }
                    if q.abandoned {
                        return false;
                    }
                    let now = Instant::now();
                    for text in batch {
                        q.bytes += text.len() + LINE_COST;
                        q.lines.push_back((now, text));
                    }
                    out_pipe.changed.notify_all();
                    true
                };
                let too_long = |start: &[u8], total: usize| {
                    log_line(
                        &out_log,
                        '<',
                        &format!(
                            "{} [... a line of over {total} bytes: cut off]",
                            String::from_utf8_lossy(start)
                        ),
                    );
                    let mut q = out_pipe.lock();
                    q.too_long = true;
                    out_pipe.changed.notify_all();
                    true
                };
                read_lines(stdout, MAX_LINE, push, too_long);
                let mut q = out_pipe.lock();
                q.closed = true;
                out_pipe.changed.notify_all();
            })
            .map_err(|e| Fault::Start(format!("cannot start a reader thread: {e}")))?;
        let err_log = log.clone();
        std::thread::Builder::new()
            .name("engine-stderr".into())
            .spawn(move || {
                let line = |batch: Vec<String>| {
                    for text in &batch {
                        log_line(&err_log, '!', text);
                    }
                    log_flush(&err_log);
                    true
                };
                let too_long = |start: &[u8], total: usize| {
                    log_line(
                        &err_log,
                        '!',
                        &format!(
                            "{} [... a line of over {total} bytes: cut]",
                            String::from_utf8_lossy(start)
                        ),
                    );
                    false
                };
                read_lines(stderr, LOG_LINE, line, too_long);
            })
            .map_err(|e| Fault::Start(format!("cannot start a reader thread: {e}")))?;
        Ok(Process {
            group,
            stdin,
            pipe,
            log,
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
        // The request is in the log before the engine answers (or hangs on it).
        log_flush(&self.log);
        match result {
            Ok(()) => Ok(()),
            Err(e) => {
                log_line(&self.log, '#', &format!("cannot write to the engine: {e}"));
                Err(self.crash())
            }
        }
    }

    /// Drops the lines the engine wrote that nothing asked for (a second move to one
    /// request, a late answer): before a request, so that they cannot be read as its
    /// reply. They are in the log already; a note says how many were left.
    pub fn discard_pending(&mut self) -> usize {
        let n = {
            let mut q = self.pipe.lock();
            let n = q.lines.len();
            q.lines.clear();
            q.bytes = 0;
            self.pipe.changed.notify_all();
            n
        };
        if n > 0 {
            log_line(
                &self.log,
                '#',
                &format!("{n} line(s) above came unasked: ignored"),
            );
        }
        n
    }

    /// The next line, waiting until `deadline`; raises no fault for the line's text.
    /// The wait ends early when `abort` is raised, when the output closes, when a line
    /// is too long, or when the engine exits (even if something else holds its output).
    ///
    /// The deadline holds whatever the engine writes: a line that arrived after it is a
    /// timeout even when lines are queued (an engine that chatters without end is cut
    /// off at its deadline), and a raised `abort` ends the wait before any queued line.
    pub fn recv(&mut self, deadline: Instant, abort: Option<&AtomicBool>) -> Result<String, Fault> {
        let mut exited_at: Option<Instant> = None;
        loop {
            {
                let mut q = self.pipe.lock();
                if abort.is_some_and(|a| a.load(Ordering::Relaxed)) {
                    return Err(Fault::Aborted);
                }
                if let Some((arrived, line)) = q.lines.pop_front() {
                    q.bytes -= line.len() + LINE_COST;
                    self.pipe.changed.notify_all();
                    if arrived > deadline {
                        drop(q);
                        log_line(
                            &self.log,
                            '#',
                            "no reply before the deadline (the engine kept writing other lines)",
                        );
                        return Err(Fault::Timeout);
                    }
                    return Ok(line);
                }
                if q.too_long {
                    drop(q);
                    log_line(&self.log, '#', &format!("a line over {MAX_LINE} bytes"));
                    return Err(Fault::LineTooLong);
                }
                if q.closed {
                    drop(q);
                    return Err(self.crash());
                }
                let now = Instant::now();
                if now >= deadline {
                    return Err(Fault::Timeout);
                }
                if exited_at.is_some_and(|t| now >= t + EXIT_GRACE) {
                    drop(q);
                    let status = self.group.kill();
                    log_line(
                        &self.log,
                        '#',
                        &format!(
                            "exited: {status} (its output is still open: a process it left holds it; killed)"
                        ),
                    );
                    log_flush(&self.log);
                    return Err(Fault::Crash(status));
                }
                let wait = (deadline - now).min(POLL);
                let (q, _) = self
                    .pipe
                    .changed
                    .wait_timeout(q, wait)
                    .unwrap_or_else(|p| p.into_inner());
                drop(q);
            }
            if exited_at.is_none() && self.group.has_exited() {
                exited_at = Some(Instant::now());
            }
        }
    }

    /// A crash fault with the exit status if the process has ended (it is given a
    /// moment to, since its output closes just before it exits).
    fn crash(&mut self) -> Fault {
        let until = Instant::now() + Duration::from_millis(200);
        while !self.group.has_exited() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        if self.group.has_exited() {
            let detail = self.group.kill();
            log_line(&self.log, '#', &format!("exited: {detail}"));
            log_flush(&self.log);
            Fault::Crash(detail)
        } else {
            log_line(&self.log, '#', "the engine closed its output");
            log_flush(&self.log);
            Fault::Crash(String::new())
        }
    }

    /// Whether the process has exited (and how), without waiting. An exited process
    /// is reaped, with whatever it left in its group.
    pub fn exited(&mut self) -> Option<String> {
        if self.group.has_exited() {
            Some(self.group.kill())
        } else {
            None
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

    /// Kills the process and its group at once (after a hang or garbage), noting why.
    pub fn kill(mut self, why: &str) {
        if !self.group.has_exited() {
            log_line(&self.log, '#', &format!("killed: {why}"));
        }
        self.stdin = None;
        let status = self.group.kill();
        log_line(&self.log, '#', &format!("exit status: {status}"));
        log_flush(&self.log);
    }

    /// Asks the process to quit with `quit` (`END`, `quit`), waits up to `grace` for it
    /// to exit, then kills it; helpers it left in its group are killed either way.
    pub fn stop(mut self, quit: &str, grace: Duration) {
        if !self.group.has_exited() {
            let _ = self.send(quit);
            self.stdin = None;
            let until = Instant::now() + grace;
            while Instant::now() < until {
                if self.group.has_exited() {
                    let status = self.group.kill();
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

impl Drop for Process {
    fn drop(&mut self) {
        // The reader may stop waiting for room in the queue.
        let mut q = self.pipe.lock();
        q.abandoned = true;
        self.pipe.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

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
    fn lines_are_capped_and_come_in_batches() {
        let mut batches = Vec::new();
        let mut long = Vec::new();
        let input = format!("a\r\nb\n{}\nc\nd", "x".repeat(100));
        read_lines(
            input.as_bytes(),
            10,
            |b| {
                batches.push(b);
                true
            },
            |start, total| {
                long.push((start.len(), total));
                false
            },
        );
        assert_eq!(batches.concat(), ["a", "b", "c", "d"]);
        assert_eq!(long, [(10, 100)]);
    }

    /// Whether a process that is not a zombie has `marker` in its command line.
    fn running_with(marker: &str) -> bool {
        fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                let cmdline = fs::read(e.path().join("cmdline")).unwrap_or_default();
                let state = fs::read_to_string(e.path().join("stat")).unwrap_or_default();
                let state = state
                    .rsplit(')')
                    .next()
                    .and_then(|r| r.split_whitespace().next());
                String::from_utf8_lossy(&cmdline).contains(marker)
                    && !matches!(state, None | Some("Z"))
            })
    }

    /// Regression: an engine that exited while a child it left held its output was
    /// waited for until the deadline (a `timeout`), and the child stayed.
    #[test]
    fn an_exit_is_seen_while_an_orphan_holds_the_output() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("orphan").display().to_string();
        // The orphan's command line holds the marker (its pid in the engine's PID
        // namespace would not name it here).
        let script = format!("sh -c 'sleep 30; true {marker}' & exit 5");
        let mut p = Process::start(&sh(&script), None).unwrap();
        let far = Instant::now() + Duration::from_secs(25);
        assert_eq!(p.recv(far, None), Err(Fault::Crash("exit code 5".into())));
        // The orphan went with the engine.
        let until = Instant::now() + Duration::from_secs(5);
        while running_with(&marker) {
            assert!(Instant::now() < until, "the orphan {marker} still runs");
            std::thread::sleep(Duration::from_millis(20));
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
