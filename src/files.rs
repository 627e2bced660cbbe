//! Writing files so that nothing is ever half-written: a temporary file in the same
//! folder, then a rename; and sweeping up the temporary files a killed writer left.
//! Opening and creating what arena keeps in its folders without following a symbolic
//! link someone else put there ([`open_regular`], [`own_folder`]), and reading lines
//! within a size limit ([`read_line_capped`]). The durable line log of long jobs, with
//! its torn-tail repair, is [`jsonl`]. Shared by every layer that writes results
//! (tournaments, tuning, reports); knows nothing about what the files hold.

use std::{
    fs::{self, File, OpenOptions},
    io::{self, BufRead, Read, Write},
    os::unix::fs::OpenOptionsExt as _,
    path::{Path, PathBuf},
    sync::atomic::{AtomicUsize, Ordering},
};

pub mod jsonl;

/// A file that could not be written: the file meant (never the temporary one) and why.
#[derive(Debug, thiserror::Error)]
#[error("{}: {error}", path.display())]
pub struct WriteError {
    /// The file that was to be written.
    pub path: PathBuf,
    /// What the operating system said.
    pub error: std::io::Error,
}

/// Writes `bytes` to `path` through a temporary file and a rename, so a reader sees the
/// old file or the new one, never half of one. With `durable`, the data and then the
/// rename are flushed to disk first, so a power cut cannot lose or tear the file either.
///
/// The temporary name (`.NAME.PID-NANOS-N.tmp`) is unique to the process and the call:
/// shards on several machines may write the same `run.toml` into one shared folder at
/// once. On error the temporary file is removed and the error names `path`.
pub fn write_atomic(path: &Path, bytes: &[u8], durable: bool) -> Result<(), WriteError> {
    write_atomic_with(path, durable, |file| file.write_all(bytes))
}

/// [`write_atomic`] for a file written piece by piece: `write` fills the temporary file
/// (buffer it: the file is unbuffered), which then replaces `path` as a whole, or, when
/// `write` fails, is removed and `path` left as it was.
pub fn write_atomic_with(
    path: &Path,
    durable: bool,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), WriteError> {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = path.with_file_name(format!(
        ".{name}.{}-{nanos:x}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let failed = |error| WriteError {
        path: path.to_path_buf(),
        error,
    };
    let fill = || -> std::io::Result<()> {
        // A new file, never one (or a link) already there under the temporary name.
        let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        write(&mut file)?;
        if durable {
            file.sync_all()?;
        }
        Ok(())
    };
    if let Err(e) = fill() {
        let _ = fs::remove_file(&tmp);
        return Err(failed(e));
    }
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(failed(e));
    }
    if durable && let Some(dir) = path.parent() {
        // The rename reaches the disk with the folder (best effort: not every system
        // can open a folder).
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// Whether `name` is a temporary file of [`write_atomic`]: `.NAME.PID-NANOS-N.tmp`.
pub fn is_temporary(name: &str) -> bool {
    let Some(stem) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
        return false;
    };
    let Some((_, tag)) = stem.rsplit_once('.') else {
        return false;
    };
    let parts: Vec<&str> = tag.split('-').collect();
    parts.len() == 3
        && !parts[0].is_empty()
        && parts[0].bytes().all(|b| b.is_ascii_digit())
        && !parts[1].is_empty()
        && parts[1].bytes().all(|b| b.is_ascii_hexdigit())
        && !parts[2].is_empty()
        && parts[2].bytes().all(|b| b.is_ascii_digit())
}

/// Removes the temporary files of [`write_atomic`] that a killed writer left in `dir`
/// (not in its subfolders); returns how many. Only call it while holding the folder's
/// exclusive lock, when no other writer can be mid-write there. A folder that does not
/// exist has none.
pub fn remove_stale_temporaries(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name.to_str().is_some_and(is_temporary)
            && entry.file_type().is_ok_and(|t| t.is_file())
            && fs::remove_file(entry.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// Why arena refuses a path it was to open or make as its own: a symbolic link, or
/// something else than a regular file (a FIFO, a device) or a folder. It travels inside
/// an [`io::Error`] (kind `InvalidInput`) through every error path of a file operation;
/// [`is_refusal`] tells it from the machine's failures: it is bad input (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Refusal(String);

fn refusal(why: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, Refusal(why.into()))
}

/// Whether `e` is a refusal of [`open_regular`] or [`own_folder`] (a link or a special
/// file where arena keeps a file of its own), not a failure of the machine.
pub fn is_refusal(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Refusal>())
}

/// What arena says of a symbolic link where it keeps a file or folder of its own.
const LINK: &str = "is a symbolic link: arena does not read or write its own files \
                    through a link it did not make (remove the link)";

/// Opens `path` as `options` say, refusing a symbolic link at its last component
/// (`O_NOFOLLOW`: the link is not followed, so neither a `create` nor a later
/// truncation can reach the file it points to) and anything that is not a regular file
/// (a FIFO is opened without blocking, then refused).
pub fn open_regular(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    let file = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) && is_link(path) {
                refusal(LINK)
            } else {
                e
            }
        })?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(refusal(format!(
            "is not a regular file ({})",
            kind_name(&kind)
        )));
    }
    Ok(file)
}

/// Opens `path` for reading as [`open_regular`] does (no link, a regular file only).
pub fn open_to_read(path: &Path) -> io::Result<File> {
    open_regular(path, OpenOptions::new().read(true))
}

fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// What a file that is not a regular file is, in words ("a FIFO", "a device").
pub fn kind_name(kind: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// Makes sure the folder `path` that arena writes into (`plots/`, `logs/` of a results
/// folder) is a real folder, creating it (and its parents) when it is not there: a
/// symbolic link or a file in its place is refused, so that nothing is written through
/// a link arena did not make.
pub fn own_folder(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(refusal(LINK)),
        Ok(m) if m.is_dir() => Ok(()),
        Ok(m) => Err(refusal(format!(
            "is {}, not a folder",
            if m.is_file() {
                "a file"
            } else {
                kind_name(&m.file_type())
            }
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::create_dir_all(path),
        Err(e) => Err(e),
    }
}

/// Reads one line (up to and including its `\n`) into `buf` (cleared first), reading
/// at most `cap + 1` bytes: a longer line is never read whole. Returns the bytes read
/// (0 at the end); a result over `cap` means the line is longer than `cap` (the caller
/// refuses it, naming the line).
pub fn read_line_capped(
    reader: &mut impl BufRead,
    cap: usize,
    buf: &mut Vec<u8>,
) -> io::Result<usize> {
    buf.clear();
    (&mut *reader).take(cap as u64 + 1).read_until(b'\n', buf)
}

/// Reads the start of a small text file that arena keeps (a lock file's holder line):
/// at most `cap` bytes, without following a link, from a regular file only; `None` when
/// it cannot be read.
pub fn read_head(path: &Path, cap: usize) -> Option<String> {
    let file = open_to_read(path).ok()?;
    let mut bytes = Vec::new();
    file.take(cap as u64).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_files_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.toml");
        write_atomic(&path, b"one", false).unwrap();
        write_atomic(&path, b"two", true).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_file_written_in_pieces_appears_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("positions.txt");
        write_atomic(&path, b"old\n", false).unwrap();
        // A writer that fails half way leaves the old file and no temporary.
        let e = write_atomic_with(&path, true, |f| {
            f.write_all(b"half of the new")?;
            Err(io::Error::other("the replay failed"))
        })
        .unwrap_err();
        assert_eq!(e.path, path);
        assert!(e.to_string().contains("the replay failed"), "{e}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old\n");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        // One that finishes replaces it whole.
        write_atomic_with(&path, true, |f| {
            for line in ["a\n", "b\n"] {
                f.write_all(line.as_bytes())?;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "a\nb\n");
        // A link in its place is replaced, never followed.
        let target = dir.path().join("elsewhere");
        fs::write(&target, "keep").unwrap();
        let link = dir.path().join("linked.txt");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic_with(&link, false, |f| f.write_all(b"new")).unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "keep");
        assert!(
            !fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    /// Regression: a failed write named the temporary file, not the file meant.
    #[test]
    fn errors_name_the_real_file() {
        let dir = tempfile::tempdir().unwrap();
        let meant = dir.path().join("no/such/folder");
        let e = write_atomic(&meant, b"x", false).unwrap_err();
        assert_eq!(e.path, meant);
        assert!(!e.to_string().contains(".folder."), "{e}");
        // The rename fails on a folder in the way: still the real name.
        let taken = dir.path().join("taken");
        fs::create_dir_all(taken.join("inside")).unwrap();
        let e = write_atomic(&taken, b"x", false).unwrap_err();
        assert_eq!(e.path, taken);
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left"
        );
    }

    #[test]
    fn stale_temporaries_are_recognised_and_swept() {
        assert!(is_temporary(".summary.json.1234-1a2b3c-0.tmp"));
        assert!(is_temporary(".run.toml.7-0-12.tmp"));
        for other in [
            "summary.json",
            ".summary.json",
            ".summary.json.tmp",
            ".summary.json.12-zz-0.tmp",
            "x.1-1-1.tmp",
            ".a.1-1.tmp",
        ] {
            assert!(!is_temporary(other), "{other}");
        }
        let dir = tempfile::tempdir().unwrap();
        for name in [
            ".summary.json.99-ff-0.tmp",
            ".standings.csv.5-a-3.tmp",
            "keep.txt",
        ] {
            fs::write(dir.path().join(name), "x").unwrap();
        }
        assert_eq!(remove_stale_temporaries(dir.path()), 2);
        let left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["keep.txt"]);
        assert_eq!(remove_stale_temporaries(&dir.path().join("none")), 0);
    }
}
