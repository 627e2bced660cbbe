//! A long job's results folder while the job holds it ([`JobFolder`]): its lock taken
//! (one writer), stale temporary files removed, the rules of `--resume` kept (a folder
//! that holds a job is refused without it, a folder made from another config with it),
//! and its files written whole: atomically ([`write_atomic`]), durably
//! ([`write_durable`], for checkpoints), as pretty JSON ([`write_report`]).
//!
//! It knows the folder lock and the file helpers; it knows nothing of what a job plays.

use std::{
    fs,
    path::{Path, PathBuf},
};

use serde::Serialize;

use super::lock::{self, FolderLock};
use crate::tournament::RunError;

/// The resolved config of a job, in its results folder.
pub const CONFIG_FILE: &str = "run.toml";
/// The checkpoint of a job.
pub const STATE_FILE: &str = "state.json";

/// A job's results folder while the job holds it: its lock taken (one writer), stale
/// temporary files removed, and the rules of `--resume` kept.
#[derive(Debug)]
pub struct JobFolder {
    dir: PathBuf,
    _lock: FolderLock,
}

impl JobFolder {
    /// Takes `dir` for a job (`what` names it in a refusal: `arena tune`). Without
    /// `resume`, a folder that already holds a job of this kind (`noun`: "tune", "fit")
    /// is refused; with it, a folder made from another config is. `resolved` is the
    /// job's resolved config, as `run.toml` holds it.
    pub fn claim(
        dir: &Path,
        what: &str,
        noun: &str,
        resume: bool,
        resolved: &str,
    ) -> Result<JobFolder, RunError> {
        let lock = lock::lock_exclusive(dir, what)?;
        crate::files::remove_stale_temporaries(dir);
        let folder = JobFolder {
            dir: dir.to_path_buf(),
            _lock: lock,
        };
        let run_toml = dir.join(CONFIG_FILE);
        let old = match fs::read(&run_toml) {
            Ok(bytes) => Some(String::from_utf8(bytes).map_err(|_| {
                RunError::Input(format!(
                    "{}: not UTF-8 text, so not a config arena wrote; move it away to start \
                     afresh",
                    run_toml.display()
                ))
            })?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(RunError::Io {
                    path: run_toml.display().to_string(),
                    source,
                });
            }
        };
        let holds = old.is_some() || dir.join(STATE_FILE).exists();
        match old {
            _ if holds && !resume => Err(RunError::Input(format!(
                "{} already holds a {noun}: add --resume to continue it, or choose another \
                 --out or run name",
                dir.display()
            ))),
            Some(old) if old != resolved => Err(RunError::Input(format!(
                "{}: made from a different config ({}); resume needs the same config",
                run_toml.display(),
                first_difference(&old, resolved)
            ))),
            _ => Ok(folder),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `run.toml` (the resolved config the folder belongs to).
    pub fn write_config(&self, resolved: &str) -> Result<(), RunError> {
        write_atomic(&self.dir.join(CONFIG_FILE), resolved)
    }

    /// Writes the checkpoint, flushed to disk before it replaces the old one.
    pub fn write_state<T: Serialize>(&self, state: &T) -> Result<(), RunError> {
        let json = serde_json::to_string(state).expect("a checkpoint serialises");
        write_durable(&self.dir.join(STATE_FILE), &json)
    }
}

/// The first line that differs between two configs, for the resume error.
pub fn first_difference(old: &str, new: &str) -> String {
    for (a, b) in old.lines().zip(new.lines()) {
        if a != b {
            return format!("was `{}`, now `{}`", a.trim(), b.trim());
        }
    }
    "one has more lines".to_string()
}

/// Writes `text` to `path` through a temporary file and a rename: never half-written.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), RunError> {
    crate::files::write_atomic(path, text.as_bytes(), false).map_err(RunError::from)
}

/// Writes `text` to `path` through a temporary file that is flushed to disk before the
/// rename: after a power cut the file is the old one or the new one, never half of
/// either.
pub fn write_durable(path: &Path, text: &str) -> Result<(), RunError> {
    crate::files::write_atomic(path, text.as_bytes(), true).map_err(RunError::from)
}

/// Writes a report as pretty JSON with a final newline.
pub fn write_report<T: Serialize>(path: &Path, report: &T) -> Result<(), RunError> {
    let json = serde_json::to_string_pretty(report).expect("a report serialises");
    write_atomic(path, &(json + "\n"))
}
