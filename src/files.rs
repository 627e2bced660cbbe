//! Writing files so that nothing is ever half-written: a temporary file in the same
//! folder, then a rename; and sweeping up the temporary files a killed writer left.
//! Shared by every layer that writes results (tournaments, tuning, reports); knows
//! nothing about what the files hold.

use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
    sync::atomic::{AtomicUsize, Ordering},
};

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
    let write = || -> std::io::Result<()> {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        if durable {
            file.sync_all()?;
        }
        Ok(())
    };
    if let Err(e) = write() {
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
