//! Tuning: SPSA over any numeric parameter of an engine config (`table.open_three`,
//! `search.top_k`), as fishtest and OpenBench run it, with a checkpoint after every batch,
//! an exact resume, the tuned table written back in its own format, and a verification
//! match of the tuned engine against the base engine.
//!
//! It uses engines (to build the plus and minus players), tournaments (openings, one game
//! with adjudication, derived seeds, and the runner for the verification match) and
//! statistics. The tournament layer knows nothing of tuning. [`spsa`] holds the algorithm
//! alone and knows nothing of games.

pub mod base;
pub mod config;
pub mod fit;
pub mod journal;
pub mod output;
pub mod runner;
pub mod spsa;
pub mod verify;

use crate::tournament::RunError;

pub use self::{
    config::{Tune, TuneConfig},
    runner::{TuneEnding, TuneEvent, TuneOutcome, Worker, run},
    spsa::{Param, Settings, Spsa, State},
    verify::verify,
};

/// Why a tune or a fit could not be done: the one error of every long job, a run's
/// ([`RunError`]), under the name the tuning code knows it by.
pub type TuneError = RunError;
