//! Serving a built-in engine on a text stream, so other managers can run it: Gomocup
//! ([`gomocup`], for Piskvork and c-gomoku-cli) and UAI ([`uai`], for cuteataxx).
//!
//! The loops are generic over the input (`BufRead`) and output (`Write`), so tests feed
//! them recorded transcripts. Searches run on their own thread while the loop keeps
//! reading, so `stop` (UAI) and `END` (Gomocup) interrupt a search at once. Every output
//! line is flushed as it is written. Bad commands never end the loop: Gomocup answers
//! `ERROR ...` or `UNKNOWN ...`, UAI answers `info string ...`.

pub mod gomocup;
pub mod uai;

use std::{
    io::{self, BufRead, Write},
    sync::Mutex,
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

/// The first word of a command, upper-cased, and the rest.
fn split_command(line: &str) -> (String, &str) {
    let line = line.trim();
    match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word.to_ascii_uppercase(), rest.trim()),
        None => (line.to_ascii_uppercase(), ""),
    }
}
