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
//!
//! Anyone who can write into a shared results folder could put things there, so a
//! writer takes only what is arena's: the folder is new, empty or an arena results
//! folder (see [`ARENA_FILES`]); a lock file is opened without following a symbolic
//! link, must be a regular file with no other hard link, and holds nothing but a
//! holder line, so that arena never truncates a file it did not make; the folders arena
//! writes into inside it (`plots/`, `logs/`, ...) are not links.
//!
//! Readers (`arena stats`, `arena report`) take no lock and open no lock file for
//! writing: [`writer_at_work`] tells from the holder lines whether a writer is alive,
//! and [`reader_may_write`] whether a reader may rewrite what it derives.

use std::{
    fs::{self, File, OpenOptions, TryLockError},
    io::{Read, Seek, Write},
    os::unix::fs::MetadataExt as _,
    path::{Path, PathBuf},
};

use crate::{
    files,
    tournament::{error::RunError, shard::Shard},
};

/// The lock file in a results folder.
pub const LOCK_FILE: &str = ".arena.lock";

/// What makes a folder an arena results folder: any one of these (the lock file every
/// writer makes first, and what runs, shards, sweeps, tunes and fits write). A folder
/// that holds other things and none of these is not arena's to write into.
pub const ARENA_FILES: &[&str] = &[
    LOCK_FILE,
    "run.toml",
    "games.jsonl",
    "summary.json",
    "shards",
    "sweep.toml",
    "state.json",
    "tune.json",
    "pairs",
    "fit.json",
];

/// The folders arena writes into inside a results folder: none may be a link.
const OWN_FOLDERS: &[&str] = &[
    "plots",
    "logs",
    "shards",
    "pairs",
    "verification",
    "selfplay",
];

/// The most of a lock file read: a holder line is far shorter.
const HOLDER_MAX: usize = 4096;

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

/// Whether a reader that would also rewrite what it derives from the results (`arena
/// stats` rewrites `summary.json`) may do so: `Err` with the reason when another arena
/// writes there now (see [`writer_at_work`]), or when the folder cannot be written at
/// all (a read-only folder: reading needs no write access). The reader then only reads.
/// It takes no lock and touches no lock file: readers never lock.
pub fn reader_may_write(dir: &Path) -> Result<(), String> {
    if writer_at_work(dir) {
        return Err(format!(
            "another arena writes in {} now; its end writes them",
            dir.display()
        ));
    }
    let c_dir = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| format!("{} cannot be written here", dir.display()))?;
    // SAFETY: access(2) reads the NUL-terminated path and nothing else.
    if unsafe { libc::access(c_dir.as_ptr(), libc::W_OK) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!("{} cannot be written here ({e})", dir.display()));
    }
    Ok(())
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
    let Ok(file) = files::open_to_read(&path) else {
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
    claim_folder(dir)?;
    let path = dir.join(LOCK_FILE);
    let file = open_file(&path)?;
    Ok((path, file))
}

/// Makes `dir` a results folder to write into, or refuses it: a file in its place, a
/// folder that holds things but nothing of arena's (see [`ARENA_FILES`]), or a link
/// where arena keeps a folder of its own inside it. `dir` itself may be a link to a
/// folder: the user names it.
fn claim_folder(dir: &Path) -> Result<(), RunError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound && fs::symlink_metadata(dir).is_err() =>
        {
            return fs::create_dir_all(dir).map_err(|e| RunError::io(dir, e));
        }
        Err(_) if fs::metadata(dir).is_ok_and(|m| !m.is_dir()) => {
            return Err(RunError::Input(format!(
                "{} is a file, not a folder: results go into a folder (choose another --out)",
                dir.display()
            )));
        }
        Err(e) => return Err(RunError::io(dir, e)),
    };
    let mut foreign = Vec::new();
    let mut ours = false;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if ARENA_FILES.contains(&name.as_str()) || is_member_lock(&name) {
            ours = true;
            break;
        }
        foreign.push(name);
    }
    if !ours && !foreign.is_empty() {
        foreign.sort();
        let shown: Vec<String> = foreign.iter().take(3).map(|n| format!("'{n}'")).collect();
        return Err(RunError::Input(format!(
            "{} is not an arena results folder: it holds {}{} and nothing arena writes \
             (run.toml, games.jsonl, state.json, ...); arena writes only into a new or empty \
             folder or one of its own: choose another --out",
            dir.display(),
            shown.join(", "),
            if foreign.len() > 3 { ", ..." } else { "" }
        )));
    }
    for name in OWN_FOLDERS {
        let path = dir.join(name);
        if let Ok(m) = fs::symlink_metadata(&path)
            && !m.is_dir()
        {
            let what = if m.file_type().is_symlink() {
                "a symbolic link"
            } else {
                "not a folder"
            };
            return Err(RunError::Input(format!(
                "{} is {what}: arena writes into its own folder there, never through a \
                 link or over a file it did not make (remove it)",
                path.display()
            )));
        }
    }
    Ok(())
}

/// Whether `name` is a shard's or a worker's own lock file.
fn is_member_lock(name: &str) -> bool {
    (name.starts_with(".arena.shard-") || name.starts_with(".arena.worker-"))
        && name.ends_with(".lock")
}

/// Opens (creating it if needed) the lock file `path`: never through a symbolic link,
/// only a regular file with no other hard link, and only one that holds nothing or a
/// holder line, since the holder rewrites it (and empties it when done).
fn open_file(path: &Path) -> Result<File, RunError> {
    let mut file = files::open_regular(
        path,
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
    )
    .map_err(|e| RunError::io(path, e))?;
    let refuse = |why: &str| {
        RunError::Input(format!(
            "{}: {why}: it is not a lock file arena made, and arena does not overwrite it \
             (move it away)",
            path.display()
        ))
    };
    let meta = file.metadata().map_err(|e| RunError::io(path, e))?;
    if meta.nlink() > 1 {
        return Err(refuse("has other hard links"));
    }
    let mut head = Vec::new();
    (&mut file)
        .take(HOLDER_MAX as u64)
        .read_to_end(&mut head)
        .map_err(|e| RunError::io(path, e))?;
    let holder_line = head.starts_with(b"pid ") && meta.len() < HOLDER_MAX as u64;
    if !head.is_empty() && !holder_line {
        return Err(refuse(
            "holds something else than a holder line ('pid N on HOST: ...')",
        ));
    }
    file.rewind().map_err(|e| RunError::io(path, e))?;
    Ok(file)
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
        let text = files::read_head(path, HOLDER_MAX).unwrap_or_default();
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
        let Ok(file) = files::open_to_read(&entry.path()) else {
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
        if name != LOCK_FILE && !is_member_lock(&name) {
            return false;
        }
        let text = files::read_head(&entry.path(), HOLDER_MAX).unwrap_or_default();
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
