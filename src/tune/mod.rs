//! Tuning: SPSA over any numeric parameter of an engine config (`table.open_three`,
//! `search.top_k`), as fishtest and OpenBench run it, with a checkpoint after every batch,
//! an exact resume, the tuned table written back in its own format, and a verification
//! match of the tuned engine against the base engine.
//!
//! It uses engines (to build the plus and minus players), tournaments (openings, one game
//! with adjudication, derived seeds, and the runner for the verification match) and
//! statistics. The tournament layer knows nothing of tuning. [`spsa`] holds the algorithm
//! alone and knows nothing of games.

pub mod config;
pub mod fit;
pub mod job;
pub mod job_base;
pub mod journal;
pub mod output;
pub mod runner;
pub mod spsa;

use crate::{config::ConfigError, files::WriteError, tournament::RunError};

pub use self::{
    config::{Tune, TuneConfig},
    job::{JobOptions, verify},
    runner::{TuneEnding, TuneEvent, TuneOutcome, Worker, run},
    spsa::{Param, Settings, Spsa, State},
};

/// Why a tune could not be done.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// Bad input: the config, a checkpoint of another config, an opening file.
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

impl From<ConfigError> for TuneError {
    fn from(e: ConfigError) -> TuneError {
        TuneError::Input(e.to_string())
    }
}

impl From<WriteError> for TuneError {
    fn from(e: WriteError) -> TuneError {
        TuneError::Io {
            path: e.path.display().to_string(),
            source: e.error,
        }
    }
}

impl From<RunError> for TuneError {
    fn from(e: RunError) -> TuneError {
        match e {
            RunError::Input(m) => TuneError::Input(m),
            RunError::Io { path, source } => TuneError::Io { path, source },
        }
    }
}
