//! Texel-style fitting of table weights (`arena fit`): positions from game records
//! (arena's own `games.jsonl`, or self-play games it plays first), labelled with the
//! game's result, and the table's weights fitted so that sigmoid(K · eval) predicts it.
//!
//! [`features`] reads the evaluations as functions of their weights, [`model`] is the
//! fit alone (no games, no files), [`positions`] replays records into samples,
//! [`stream`] reads `arena datagen` output into feature caches streamed every epoch,
//! [`config`] reads fit configs and [`runner`] runs, checkpoints and verifies a fit.

pub mod config;
pub mod features;
pub mod model;
pub mod net;
pub mod positions;
pub mod runner;
pub mod stream;

pub use self::{
    config::{Fit, FitConfig},
    runner::{FitEnding, FitEvent, FitOutcome, FitReport, run},
};
