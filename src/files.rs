//! Writing files so that nothing is ever half-written: a temporary file in the same
//! folder, then a rename. Shared by every layer that writes results (tournaments, tuning,
//! reports); knows nothing about what the files hold.

use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
    sync::atomic::{AtomicUsize, Ordering},
};

/// Writes `bytes` to `path` through a temporary file and a rename, so a reader sees the
/// old file or the new one, never half of one. With `durable`, the data and then the
/// rename are flushed to disk first, so a power cut cannot lose or tear the file either.
///
/// The temporary name is unique to the process and the call (pid, clock, counter):
/// shards on several machines may write the same `run.toml` into one shared folder at
/// once. On error, returns the path that failed with the error, and removes the
/// temporary file.
pub fn write_atomic(
    path: &Path,
    bytes: &[u8],
    durable: bool,
) -> Result<(), (PathBuf, std::io::Error)> {
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
        return Err((tmp, e));
    }
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err((path.to_path_buf(), e));
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
        let (failed, _) =
            write_atomic(&dir.path().join("no/such/folder"), b"x", false).unwrap_err();
        assert!(failed.to_string_lossy().contains("no/such"));
    }
}
