//! [`RunError`]: why a long job (run, resume, shard, merge, stats, tune, fit, datagen)
//! could not be done. Its own module so that the runner, shards, merges, statistics and
//! the tuning jobs all use it without importing each other.

use std::path::Path;

use crate::{config::ConfigError, files::WriteError};

/// Why a run (or any long job: tuning knows it as [`crate::tune::TuneError`]) could not
/// be done.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Bad input: config, results that do not match, an opening file, a busy folder.
    #[error("{0}")]
    Input(String),
    /// The file system failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

impl RunError {
    /// An I/O failure on `path`; a refusal of [`crate::files::open_regular`] or
    /// [`crate::files::own_folder`] (a link or a special file where arena keeps its own)
    /// is bad input.
    pub fn io(path: &Path, source: std::io::Error) -> RunError {
        if crate::files::is_refusal(&source) {
            return RunError::Input(format!("{}: {source}", path.display()));
        }
        RunError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

impl From<ConfigError> for RunError {
    fn from(e: ConfigError) -> RunError {
        RunError::Input(e.to_string())
    }
}

impl From<WriteError> for RunError {
    fn from(e: WriteError) -> RunError {
        RunError::io(&e.path, e.error)
    }
}

/// `map_err` helper: an I/O error on `path`.
pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::io(path, source)
}

/// Writes `text` to `path` atomically (see [`crate::files::write_atomic`]).
pub fn write_text(path: &Path, text: &str) -> Result<(), RunError> {
    crate::files::write_atomic(path, text.as_bytes(), false).map_err(RunError::from)
}
