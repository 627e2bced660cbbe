//! The one durable line log (JSON lines, one value a line) that long jobs keep:
//! the results of a run (`games.jsonl`) and the pairs of a tune (`pairs/<worker>.jsonl`).
//! A line is appended with one write call that ends in its newline and reaches the disk
//! before the call returns, so a kill or a power cut tears at most the last line, and a
//! torn line is one without its newline. [`scan`] reads the complete lines and stops at
//! a torn one; [`Appender::open_cutting_torn_tail`] and [`truncate_to`] cut it off so
//! appending continues on a clean line. Damage before the tail is the caller's to
//! refuse, with the line number [`scan`] hands over.
//!
//! Knows bytes and lines; knows nothing of what a line holds.

use std::{
    fs::{File, OpenOptions},
    io::{self, BufReader, Read as _, Seek as _, SeekFrom, Write as _},
    os::unix::fs::OpenOptionsExt as _,
    path::{Path, PathBuf},
};

/// A log open for appending: never through a symbolic link, only a regular file (see
/// [`super::open_regular`]).
#[derive(Debug)]
pub struct Appender {
    file: File,
    path: PathBuf,
}

impl Appender {
    /// Opens (creating if needed) the log at `path` for appending.
    pub fn open(path: &Path) -> io::Result<Appender> {
        let file = super::open_regular(path, OpenOptions::new().create(true).append(true))?;
        Ok(Appender {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Opens (creating if needed) the log at `path` for appending, first cutting off a
    /// torn last line (a kill mid-write): what follows the last line break is no line.
    pub fn open_cutting_torn_tail(path: &Path) -> io::Result<Appender> {
        let mut file = super::open_regular(
            path,
            OpenOptions::new().read(true).append(true).create(true),
        )?;
        let mut text = Vec::new();
        file.read_to_end(&mut text)?;
        let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if keep < text.len() {
            file.set_len(keep as u64)?;
        }
        file.seek(SeekFrom::End(0))?;
        Ok(Appender {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Appends `line` (which ends in its newline) with one write call and waits for the
    /// disk: the line counts only after this.
    pub fn append_line(&mut self, line: &str) -> io::Result<()> {
        // One write call per line, so a crash tears at most the last line.
        self.file.write_all(line.as_bytes())?;
        self.file.flush()?;
        self.file.sync_data()
    }

    /// The file written to.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Cuts the log at `path` to its first `len` bytes (the valid part [`scan`] found) and
/// waits for the disk, so appending continues on a clean line.
pub fn truncate_to(path: &Path, len: u64) -> io::Result<()> {
    let file = super::open_regular(path, OpenOptions::new().write(true))?;
    file.set_len(len)?;
    file.sync_all()
}

/// What [`scan`] found besides the lines it handed over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lines {
    /// Byte length of the complete lines (a torn tail starts here).
    pub valid_len: u64,
    /// Whether a torn last line (no newline) was found (and left out).
    pub torn_tail: bool,
    /// Lines read (a torn last line included).
    pub lines: usize,
}

/// Why [`scan`] stopped.
#[derive(Debug)]
pub enum ScanError<E> {
    /// The file could not be read.
    Io(io::Error),
    /// Not a regular file (a FIFO, a device, or a link to one): never read. What it is,
    /// in words.
    NotAFile(&'static str),
    /// Line `.0` (1-based) is longer than the cap: read no further.
    TooLong(usize),
    /// The callback refused a line.
    Line(E),
}

/// Hands every complete line of the log at `path` (its newline included) to `each`
/// with its 1-based number, in file order, reading at most `cap + 1` bytes of a line.
/// A missing file has no lines; a last line without its newline is torn and left out.
pub fn scan<E>(
    path: &Path,
    cap: usize,
    mut each: impl FnMut(usize, &[u8]) -> Result<(), E>,
) -> Result<Lines, ScanError<E>> {
    // Without blocking: a FIFO in its place would wait for a writer before the check.
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Lines::default()),
        Err(e) => return Err(ScanError::Io(e)),
    };
    let kind = file.metadata().map_err(ScanError::Io)?.file_type();
    if !kind.is_file() {
        return Err(ScanError::NotAFile(super::kind_name(&kind)));
    }
    let mut reader = BufReader::new(file);
    let mut out = Lines::default();
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        let n = super::read_line_capped(&mut reader, cap, &mut line).map_err(ScanError::Io)?;
        if n == 0 {
            break;
        }
        number += 1;
        if n > cap {
            return Err(ScanError::TooLong(number));
        }
        // Only the last line can lack its newline: without one, the write was cut.
        if line.last() != Some(&b'\n') {
            out.torn_tail = true;
            break;
        }
        each(number, &line).map_err(ScanError::Line)?;
        out.valid_len += n as u64;
    }
    out.lines = number;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_left_out_and_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let mut log = Appender::open(&path).unwrap();
        log.append_line("{\"a\":1}\n").unwrap();
        log.append_line("{\"a\":2}\n{\"a\"").unwrap();
        let mut seen = Vec::new();
        let lines = scan(&path, 64, |n, l| {
            seen.push((n, String::from_utf8(l.to_vec()).unwrap()));
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(seen, [(1, "{\"a\":1}\n".into()), (2, "{\"a\":2}\n".into())]);
        assert_eq!(
            lines,
            Lines {
                valid_len: 16,
                torn_tail: true,
                lines: 3
            }
        );
        let mut log = Appender::open_cutting_torn_tail(&path).unwrap();
        log.append_line("{\"a\":3}\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n"
        );
        truncate_to(&path, 8).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":1}\n");
    }

    #[test]
    fn refusals_name_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, "ok\nbad\nok\n").unwrap();
        let e = scan(
            &path,
            64,
            |n, l| if l == b"bad\n" { Err(n) } else { Ok(()) },
        );
        assert!(matches!(e, Err(ScanError::Line(2))), "{e:?}");
        let e = scan(&path, 3, |_, _| Ok::<(), ()>(()));
        assert!(matches!(e, Err(ScanError::TooLong(2))), "{e:?}");
        assert!(matches!(
            scan(dir.path(), 64, |_, _| Ok::<(), ()>(())),
            Err(ScanError::NotAFile("a folder"))
        ));
        assert_eq!(
            scan(&dir.path().join("none"), 64, |_, _| Ok::<(), ()>(())).unwrap(),
            Lines::default()
        );
    }
}
