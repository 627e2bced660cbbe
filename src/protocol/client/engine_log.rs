//! The log of an engine's exchange (`results/<run>/logs/<engine>-w<worker>.log`): every
//! line both ways with the seconds since the log was opened (`> ` sent, `< ` received,
//! `! ` standard error, `# ` what the harness did), shared by the process that talks to
//! the engine and the launch that kills it. Lines are cut at [`LOG_LINE`] bytes and a
//! whole log at its cap.

use std::{
    fs::{File, OpenOptions},
    io::{self, BufWriter, Write},
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::Instant,
};

/// How much of a log one file may hold; an engine that floods its output is cut off
/// here (with a note), not the disk.
const LOG_CAP: u64 = 16 << 20;

/// The longest line the log keeps whole; longer ones are cut, with their length noted.
pub const LOG_LINE: usize = 8 << 10;

/// A log file shared by an engine's processes (one per engine and worker).
pub struct Log {
    file: Option<BufWriter<File>>,
    path: PathBuf,
    start: Instant,
    written: u64,
}

impl Log {
    /// Opens (appending) the log at `path`, creating its folder. A log that cannot be
    /// opened is an error: the run should not go on blind. Neither the folder nor the
    /// file may be a symbolic link (see [`crate::files::own_folder`]).
    pub fn open(path: &Path) -> io::Result<Log> {
        if let Some(dir) = path.parent() {
            crate::files::own_folder(dir)?;
        }
        let file = crate::files::open_regular(path, OpenOptions::new().create(true).append(true))?;
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

    /// Adds a line: `mark` is `>`, `<`, `!` or `#`. A line longer than [`LOG_LINE`] is
    /// cut (its length noted), and the whole log stops at its cap.
    pub fn line(&mut self, mark: char, text: &str) {
        let Some(file) = &mut self.file else { return };
        if self.written >= LOG_CAP {
            let _ = writeln!(file, "# log cut off at {LOG_CAP} bytes");
            let _ = file.flush();
            self.file = None;
            return;
        }
        let secs = self.start.elapsed().as_secs_f64();
        let line = if text.len() > LOG_LINE {
            let mut cut = LOG_LINE;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            format!(
                "{secs:10.3} {mark} {} [... cut: {} bytes in all]\n",
                &text[..cut],
                text.len()
            )
        } else {
            format!("{secs:10.3} {mark} {text}\n")
        };
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

pub(super) fn log_line(log: &Option<SharedLog>, mark: char, text: &str) {
    if let Some(log) = log {
        log.lock()
            .unwrap_or_else(|p| p.into_inner())
            .line(mark, text);
    }
}

pub(super) fn log_flush(log: &Option<SharedLog>) {
    if let Some(log) = log {
        log.lock().unwrap_or_else(|p| p.into_inner()).flush();
    }
}
