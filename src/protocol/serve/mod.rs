//! Serving a built-in engine on a text stream, so other managers can run it: Gomocup
//! ([`gomocup`], for Piskvork and c-gomoku-cli) and UAI ([`uai`], for cuteataxx).
//!
//! The loops are generic over the input (`BufRead`) and output (`Write`), so tests feed
//! them recorded transcripts. The input is read on a thread of its own (`Inbox`) and
//! searches run on theirs, so the loop sees every command as it comes: `stop` (UAI) and
//! `END` (Gomocup) interrupt a search at once, `isready` is answered at once, and the
//! other commands sent during a search wait for it to end, in order. The end of input
//! stops a search and ends the loop: the manager is gone (as a UCI engine takes the end
//! of input for `quit`). Every output line is flushed as it is written. Bad commands
//! never end the loop: Gomocup answers `ERROR ...` or `UNKNOWN ...`, UAI answers `info
//! string ...`.

pub mod gomocup;
pub mod uai;

use std::{
    collections::VecDeque,
    io::{self, BufRead, Write},
    sync::{Mutex, mpsc},
    time::Instant,
};

use crate::engine::EngineConfig;

/// Where a served engine writes: the manager's stream, plus an optional log of both
/// directions (`> ` what came in, `< ` what went out, with seconds since start).
pub struct Output<W: Write> {
    inner: Mutex<OutputInner<W>>,
}

struct OutputInner<W> {
    out: W,
    log: Option<Box<dyn Write + Send>>,
    start: Instant,
    /// The first write error (the manager went away): reported by the loop.
    failed: Option<io::ErrorKind>,
}

impl<W: Write> Output<W> {
    /// Output to `out`, logging to `log` if given.
    pub fn new(out: W, log: Option<Box<dyn Write + Send>>) -> Output<W> {
        Output {
            inner: Mutex::new(OutputInner {
                out,
                log,
                start: Instant::now(),
                failed: None,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, OutputInner<W>> {
        // A search thread that panicked leaves the stream usable.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes one line and flushes it. A failed write is remembered (see
    /// [`Output::failed`]) and later lines are dropped.
    pub fn line(&self, text: &str) {
        let mut inner = self.lock();
        if inner.failed.is_some() {
            return;
        }
        let result = inner
            .out
            .write_all(text.as_bytes())
            .and_then(|()| inner.out.write_all(b"\n"))
            .and_then(|()| inner.out.flush());
        if let Err(e) = result {
            inner.failed = Some(e.kind());
        }
        inner.log_line('<', text);
    }

    /// Logs a line that came in.
    pub fn log_input(&self, text: &str) {
        self.lock().log_line('>', text);
    }

    /// The kind of the first failed write, if any.
    pub fn failed(&self) -> Option<io::ErrorKind> {
        self.lock().failed
    }
}

impl<W> OutputInner<W> {
    fn log_line(&mut self, dir: char, text: &str) {
        let secs = self.start.elapsed().as_secs_f64();
        if let Some(log) = &mut self.log {
            let ok = writeln!(log, "{secs:10.3} {dir} {text}").and_then(|()| log.flush());
            if ok.is_err() {
                self.log = None;
            }
        }
    }
}

/// The engine's parameters as UAI option lines (`option name search.params.lmr_divisor
/// type spin default 120 min 40 max 400`), in name order: what `uai` lists after `Hash`
/// and `arena serve --list-options` prints for either protocol. A whole number is a
/// `spin` whose `min` and `max` are the range sensible to tune it in (the registry's,
/// widened to hold its value), not every value it takes: a manager or a tuner that
/// moves it within them moves it by sensible steps, and `setoption` (Gomocup: `INFO`)
/// still takes any valid value. A fraction is a `string` (UAI spins are whole).
pub fn option_lines(config: &EngineConfig) -> Vec<String> {
    config
        .tunable_params()
        .into_iter()
        .map(|p| {
            if p.integer {
                format!(
                    "option name {} type spin default {} min {} max {}",
                    p.name, p.value as i64, p.tune_min as i64, p.tune_max as i64
                )
            } else {
                format!("option name {} type string default {}", p.name, p.value)
            }
        })
        .collect()
}

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The engine cannot be served with this protocol.
    #[error("{0}")]
    Config(String),
    /// Reading commands or writing replies failed.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// A write failure remembered by [`Output`], as the loop's result.
fn check<W: Write>(out: &Output<W>) -> Result<(), ServeError> {
    match out.failed() {
        Some(kind) => Err(ServeError::Io(io::Error::new(
            kind,
            "cannot write to the manager",
        ))),
        None => Ok(()),
    }
}

/// The longest command line read whole; the rest of a longer line is skipped.
pub const MAX_COMMAND: usize = 1 << 20;

/// The manager's commands, one a line, decoded lossily: a manager may send any bytes
/// (`INFO folder C:\Jürgen` in Latin-1), and a bad byte must not end the protocol
/// loop. A line longer than [`MAX_COMMAND`] is cut there (the rest is skipped), so no
/// input can fill the memory.
pub struct Commands<R> {
    input: R,
    buf: Vec<u8>,
}

impl<R: BufRead> Commands<R> {
    /// Commands from `input`.
    pub fn new(input: R) -> Commands<R> {
        Commands {
            input,
            buf: Vec::new(),
        }
    }
}

impl<R: BufRead> Iterator for Commands<R> {
    type Item = io::Result<String>;

    fn next(&mut self) -> Option<io::Result<String>> {
        self.buf.clear();
        let mut skipping = false;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Some(Err(e)),
            };
            if chunk.is_empty() {
                if self.buf.is_empty() && !skipping {
                    return None;
                }
                break;
            }
            let (part, used, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], i + 1, true),
                None => (chunk, chunk.len(), false),
            };
            if !skipping {
                let room = MAX_COMMAND - self.buf.len();
                self.buf.extend_from_slice(&part[..part.len().min(room)]);
                skipping = part.len() > room;
            }
            self.input.consume(used);
            if done {
                break;
            }
        }
        let text = String::from_utf8_lossy(&self.buf);
        Some(Ok(text.trim_end_matches('\r').to_string()))
    }
}

/// What a serve loop waits for.
enum Event {
    /// A command line from the manager.
    Line(String),
    /// The search with this number ended (its answer is written).
    SearchDone(u64),
    /// The input ended: the manager is gone.
    End,
    /// Reading the input failed.
    Failed(io::Error),
}

/// The manager's commands, read on a thread of their own so that a search never keeps
/// the loop from seeing `stop`, `quit` or the end of input; and the commands that came
/// during a search, kept to run after it. The reading thread outlives the loop when the
/// input never ends (the process ends with the loop).
struct Inbox {
    events: mpsc::Receiver<Event>,
    sender: mpsc::Sender<Event>,
    waiting: VecDeque<String>,
    searches: u64,
}

impl Inbox {
    /// Starts reading `input`.
    fn new<R: BufRead + Send + 'static>(input: R) -> Inbox {
        let (sender, events) = mpsc::channel();
        let lines = sender.clone();
        std::thread::spawn(move || {
            for line in Commands::new(input) {
                let (event, last) = match line {
                    Ok(line) => (Event::Line(line), false),
                    Err(e) => (Event::Failed(e), true),
                };
                if lines.send(event).is_err() || last {
                    return;
                }
            }
            let _ = lines.send(Event::End);
        });
        Inbox {
            events,
            sender,
            waiting: VecDeque::new(),
            searches: 0,
        }
    }

    /// The next event: a command that waited for a search when `idle` (no search runs
    /// now), else what comes next. Lines that come in are logged to `out`.
    fn next<W: Write>(&mut self, idle: bool, out: &Output<W>) -> Event {
        if idle && let Some(line) = self.waiting.pop_front() {
            return Event::Line(line);
        }
        let event = self.events.recv().unwrap_or(Event::End);
        if let Event::Line(line) = &event {
            out.log_input(line);
        }
        event
    }

    /// The next line, for a block of lines (Gomocup's `BOARD`, read when no search
    /// runs): `None` at the end of input.
    fn next_line<W: Write>(&mut self, out: &Output<W>) -> Option<io::Result<String>> {
        loop {
            match self.next(true, out) {
                Event::Line(line) => return Some(Ok(line)),
                // A search stopped before: its end was seen already.
                Event::SearchDone(_) => {}
                Event::End => return None,
                Event::Failed(e) => return Some(Err(e)),
            }
        }
    }

    /// Keeps `line` to run after the search.
    fn defer(&mut self, line: String) {
        self.waiting.push_back(line);
    }

    /// A new search's number, and what its thread calls when it ends.
    fn search(&mut self) -> (u64, SearchEnd) {
        self.searches += 1;
        let end = SearchEnd {
            sender: self.sender.clone(),
            id: self.searches,
        };
        (self.searches, end)
    }
}

/// Tells the loop that a search ended (its thread calls it after its answer).
struct SearchEnd {
    sender: mpsc::Sender<Event>,
    id: u64,
}

impl SearchEnd {
    fn done(self) {
        let _ = self.sender.send(Event::SearchDone(self.id));
    }
}

/// The first word of a command, upper-cased, and the rest.
fn split_command(line: &str) -> (String, &str) {
    let line = line.trim();
    match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word.to_ascii_uppercase(), rest.trim()),
        None => (line.to_ascii_uppercase(), ""),
    }
}

/// A manager's side of a transcript, for the loops' tests.
#[cfg(test)]
pub(crate) mod script {
    use std::{
        collections::VecDeque,
        io::{self, BufRead, Read, Write},
        sync::{Arc, Mutex},
        time::{Duration, Instant},
    };

    /// The loop's output, shared with the [`Script`] that waits for it.
    #[derive(Clone, Default)]
    pub(crate) struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Shared {
        /// What was written so far.
        pub(crate) fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
        }
    }

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    enum Part {
        Text(Vec<u8>),
        /// Read on once the output holds this many answers.
        Wait(usize),
    }

    /// A transcript read as a manager sends it: a line `#wait N` is not sent, but holds
    /// the rest back until the output holds `N` answers (lines `answer` accepts), as a
    /// manager waits for a move before it sends more; the input ends after the last line.
    pub(crate) struct Script {
        parts: VecDeque<Part>,
        buf: Vec<u8>,
        pos: usize,
        out: Shared,
        answer: fn(&str) -> bool,
    }

    impl Script {
        pub(crate) fn new(input: &[u8], out: &Shared, answer: fn(&str) -> bool) -> Script {
            let mut parts = VecDeque::new();
            let mut text = Vec::new();
            for line in input.split_inclusive(|&b| b == b'\n') {
                let wait = std::str::from_utf8(line)
                    .ok()
                    .and_then(|l| l.trim().strip_prefix("#wait "))
                    .and_then(|n| n.trim().parse().ok());
                match wait {
                    Some(n) => {
                        parts.push_back(Part::Text(std::mem::take(&mut text)));
                        parts.push_back(Part::Wait(n));
                    }
                    None => text.extend_from_slice(line),
                }
            }
            parts.push_back(Part::Text(text));
            Script {
                parts,
                buf: Vec::new(),
                pos: 0,
                out: out.clone(),
                answer,
            }
        }
    }

    impl Read for Script {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let available = self.fill_buf()?;
            let n = available.len().min(buf.len());
            buf[..n].copy_from_slice(&available[..n]);
            self.consume(n);
            Ok(n)
        }
    }

    impl BufRead for Script {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            while self.pos >= self.buf.len() {
                match self.parts.pop_front() {
                    None => return Ok(&[]),
                    Some(Part::Text(text)) => {
                        self.buf = text;
                        self.pos = 0;
                    }
                    Some(Part::Wait(n)) => {
                        // A safety net for a test whose bug is a hang, not a timing.
                        let until = Instant::now() + Duration::from_secs(120);
                        while self.out.text().lines().filter(|l| (self.answer)(l)).count() < n
                            && Instant::now() < until
                        {
                            std::thread::sleep(Duration::from_millis(2));
                        }
                    }
                }
            }
            Ok(&self.buf[self.pos..])
        }

        fn consume(&mut self, n: usize) {
            self.pos += n;
        }
    }
}
