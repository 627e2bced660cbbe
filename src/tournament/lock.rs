//! One writer per results folder. A run, a resume, a merge, a tune (and `arena stats` or
//! `arena report` when they rewrite files) hold an exclusive lock on `DIR/.arena.lock`
//! while they write; a shard holds that lock shared (shards of one run write side by
//! side, each into its own file) and its own shard's lock exclusively
//! (`DIR/.arena.shard-I-of-N.lock`). A second writer is refused at once with an error
//! that names the holder's pid and host, instead of both appending to one file.
//!
//! The locks are the operating system's (`flock`): a holder that dies, however it dies,
//! releases them, so a stale lock file never blocks anyone. Holders write their pid,
//! host and command into the file they lock exclusively, for the refusal message. On a
//! file system that cannot lock at all, writers go on without the lock.

use std::{
    fs::{self, File, OpenOptions, TryLockError},
    io::{Read, Seek, Write},
    path::{Path, PathBuf},
};

use super::{error::RunError, shard::Shard};

/// The lock file in a results folder.
pub const LOCK_FILE: &str = ".arena.lock";

/// A held lock: released when dropped (or when the process ends).
#[derive(Debug)]
pub struct FolderLock {
    folder: File,
    /// The shard's own lock, for shard runs.
    shard: Option<File>,
    path: PathBuf,
    exclusive: bool,
}

impl FolderLock {
    /// The folder's lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether no other writer can be at work in the folder (the lock is exclusive), so
    /// temporary files left there are stale.
    pub fn is_exclusive(&self) -> bool {
        self.exclusive
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // Leave no stale holder in the file (a later refusal would name it).
        if self.exclusive {
            let _ = self.folder.set_len(0);
        }
        if let Some(f) = &self.shard {
            let _ = f.set_len(0);
        }
    }
}

/// Takes `dir`'s lock for `what` (`arena run`, `arena merge`, ...), creating the folder
/// if needed; refuses when another process holds it.
pub fn lock_exclusive(dir: &Path, what: &str) -> Result<FolderLock, RunError> {
    let (path, mut folder) = open(dir)?;
    match folder.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => return Err(busy(dir, &path)),
        Err(TryLockError::Error(e)) if unsupported(&e) => {}
        Err(TryLockError::Error(e)) => return Err(RunError::io(&path, e)),
    }
    write_holder(&mut folder, &path, what)?;
    Ok(FolderLock {
        folder,
        shard: None,
        path,
        exclusive: true,
    })
}

/// Takes `dir`'s lock for a reader that would also rewrite what it derives from the
/// results (`arena stats` rewrites `summary.json`): `Err` with the reason when another
/// arena writes there now, or when the folder cannot be written at all (a read-only
/// folder: reading needs no write access). The reader then only reads.
pub fn lock_if_writable(dir: &Path, what: &str) -> Result<FolderLock, String> {
    let path = dir.join(LOCK_FILE);
    match open_file(&path) {
        Ok(_) => lock_exclusive(dir, what).map_err(|e| e.to_string()),
        Err(e) => Err(format!("{} cannot be written here ({e})", dir.display())),
    }
}

/// Takes `dir`'s lock shared and shard `shard`'s lock exclusively, for a shard run.
pub fn lock_shard(dir: &Path, shard: Shard, what: &str) -> Result<FolderLock, RunError> {
    let own = dir.join(shard_lock_name(shard));
    lock_member(dir, &own, &format!("shard {}", shard.label()), what)
}

/// Takes `dir`'s lock shared and worker `label`'s lock exclusively, for one worker of a
/// tune that many workers play together (`what` goes into the lock file: put whatever
/// tells this session from the next one in it, see [`worker_alive`]).
pub fn lock_worker(dir: &Path, label: &str, what: &str) -> Result<FolderLock, RunError> {
    let own = dir.join(worker_lock_name(label));
    lock_member(dir, &own, &format!("worker {label}"), what)
}

/// Whether worker `label` of `dir` is at work now, in a session whose lock file holds
/// `session` (a dead worker's lock is free; a replacement writes its own session).
pub fn worker_alive(dir: &Path, label: &str, session: &str) -> bool {
    let path = dir.join(worker_lock_name(label));
    let Ok(file) = File::open(&path) else {
        return false;
    };
    match file.try_lock_shared() {
        Err(TryLockError::WouldBlock) => holder(&path).contains(session),
        _ => false,
    }
}

/// Takes the update lock of a tune's folder, waiting for it: held for the moment it
/// takes to claim pairs or apply a batch, by one worker at a time.
pub fn lock_update(dir: &Path) -> Result<File, RunError> {
    let path = dir.join(".arena.update.lock");
    let file = open_file(&path)?;
    match file.lock() {
        Ok(()) => Ok(file),
        Err(e) if unsupported(&e) => Ok(file),
        Err(e) => Err(RunError::io(&path, e)),
    }
}

fn worker_lock_name(label: &str) -> String {
    format!(".arena.worker-{label}.lock")
}

/// The shared lock of `dir` and the exclusive lock `own` of one of the writers that
/// share it (`who`: `shard 3/4`, `worker 2`).
fn lock_member(dir: &Path, own: &Path, who: &str, what: &str) -> Result<FolderLock, RunError> {
    let (path, folder) = open(dir)?;
    match folder.try_lock_shared() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => return Err(busy(dir, &path)),
        Err(TryLockError::Error(e)) if unsupported(&e) => {}
        Err(TryLockError::Error(e)) => return Err(RunError::io(&path, e)),
    }
    let mut file = open_file(own)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::Error(e)) if unsupported(&e) => {}
        Err(TryLockError::WouldBlock) => {
            return Err(RunError::Input(format!(
                "{who} of {} is being played by another arena ({}): wait for it, or stop \
                 it first",
                dir.display(),
                holder(own)
            )));
        }
        Err(TryLockError::Error(e)) => return Err(RunError::io(own, e)),
    }
    write_holder(&mut file, own, what)?;
    Ok(FolderLock {
        folder,
        shard: Some(file),
        path,
        exclusive: false,
    })
}

/// A file system that cannot lock (an NFS mount without its lock service, some FUSE
/// file systems): the run goes on unprotected rather than not at all.
fn unsupported(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::Unsupported
        || matches!(
            e.raw_os_error(),
            Some(libc::ENOLCK | libc::EOPNOTSUPP | libc::ENOSYS)
        )
}

fn shard_lock_name(shard: Shard) -> String {
    format!(".arena.shard-{}-of-{}.lock", shard.index, shard.count)
}

fn open(dir: &Path) -> Result<(PathBuf, File), RunError> {
    fs::create_dir_all(dir).map_err(|e| RunError::io(dir, e))?;
    let path = dir.join(LOCK_FILE);
    let file = open_file(&path)?;
    Ok((path, file))
}

fn open_file(path: &Path) -> Result<File, RunError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| RunError::io(path, e))
}

fn write_holder(file: &mut File, path: &Path, what: &str) -> Result<(), RunError> {
    let text = format!(
        "pid {} on {}: {what}\n",
        std::process::id(),
        hostname().unwrap_or_else(|| "?".into())
    );
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(text.as_bytes()))
        .and_then(|()| file.flush())
        .map_err(|e| RunError::io(path, e))
}

/// The refusal when `dir`'s lock is taken: the exclusive holder, or the shards at work.
fn busy(dir: &Path, path: &Path) -> RunError {
    let shards = running_shards(dir);
    let who = if shards.is_empty() {
        holder(path)
    } else {
        format!("at work: {}", shards.join(", "))
    };
    RunError::Input(format!(
        "{} is in use by another arena ({who}): one writer per results folder; wait for \
         it to finish, or use another --out",
        dir.display()
    ))
}

/// Who holds the lock of `path`, from what the holder wrote into it.
fn holder(path: &Path) -> String {
    // The holder writes right after locking: give it a moment.
    for _ in 0..20 {
        let mut text = String::new();
        if let Ok(mut f) = File::open(path) {
            let _ = f.read_to_string(&mut text);
        }
        let line = text.lines().next().unwrap_or("").trim();
        if !line.is_empty() {
            return line.to_string();
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    "pid unknown".to_string()
}

/// The shards and workers whose own lock is held now, with their holders.
fn running_shards(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut held = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let label = match name.strip_suffix(".lock") {
            Some(n) => match (
                n.strip_prefix(".arena.shard-"),
                n.strip_prefix(".arena.worker-"),
            ) {
                (Some(shard), _) => format!("shard {}", shard.replace("-of-", "/")),
                (_, Some(worker)) => format!("worker {worker}"),
                _ => continue,
            },
            None => continue,
        };
        let Ok(file) = File::open(entry.path()) else {
            continue;
        };
        if let Err(TryLockError::WouldBlock) = file.try_lock_shared() {
            held.push(format!("{label} ({})", holder(&entry.path())));
        }
    }
    held.sort();
    held
}

fn hostname() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname writes at most that much.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    Some(String::from_utf8_lossy(&buf[..end]).into_owned())
}

/// Whether an arena writes in `dir` now, as its lock files say: a holder line `pid N on
/// HOST: ...` in the folder's lock or in a shard's or worker's own lock, whose process
/// is alive (a holder on another host counts as at work: its process cannot be seen from
/// here). The files are read, never locked, so a reader cannot get in a writer's way.
pub fn writer_at_work(dir: &Path) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    let here = hostname().unwrap_or_else(|| "?".into());
    entries.flatten().any(|entry| {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_lock = name == LOCK_FILE
            || ((name.starts_with(".arena.shard-") || name.starts_with(".arena.worker-"))
                && name.ends_with(".lock"));
        if !is_lock {
            return false;
        }
        let text = fs::read_to_string(entry.path()).unwrap_or_default();
        let Some(line) = text.lines().next() else {
            return false;
        };
        let mut words = line.split_whitespace();
        let (Some("pid"), Some(pid), Some("on"), Some(host)) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            return false;
        };
        let host = host.trim_end_matches(':');
        if host != here {
            return true;
        }
        process_alive(pid)
    })
}

/// Whether process `pid` (as text) is alive and not a zombie.
fn process_alive(pid: &str) -> bool {
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    if pid == std::process::id() {
        return true;
    }
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command's closing parenthesis.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        // No /proc (not Linux): trust the holder line.
        Err(_) => !Path::new("/proc/self").exists(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_with_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let first = lock_exclusive(&run, "arena run a.toml").unwrap();
        assert!(first.is_exclusive());
        let e = lock_exclusive(&run, "arena run b.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("pid {}", std::process::id())) && e.contains("arena run a.toml"),
            "{e}"
        );
        let shard = Shard { index: 0, count: 2 };
        assert!(lock_shard(&run, shard, "shard").is_err());
        drop(first);
        // Released: shards may share the folder, each its own shard alone.
        let a = lock_shard(&run, shard, "arena run --shard 0/2").unwrap();
        let b = lock_shard(&run, Shard { index: 1, count: 2 }, "arena run --shard 1/2").unwrap();
        let e = lock_shard(&run, shard, "again").unwrap_err().to_string();
        assert!(e.contains("shard 0/2") && e.contains("--shard 0/2"), "{e}");
        let e = lock_exclusive(&run, "arena merge").unwrap_err().to_string();
        assert!(e.contains("at work: shard 0/2"), "{e}");
        assert!(e.contains("shard 1/2"), "{e}");
        drop((a, b));
        lock_exclusive(&run, "arena merge").unwrap();
    }
}
