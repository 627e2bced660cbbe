//! Long jobs (run, sweep, tune, fit, datagen): what every one of them needs whatever it
//! plays. The folder lock, one writer per results folder ([`lock`]); the results folder
//! a job holds, with the rules of `--resume` and its files written whole ([`folder`]);
//! its checkpoint read back with errors that name the line ([`checkpoint`]); the one
//! pool of worker threads that plays a job's games or pairs by index while the calling
//! thread writes ([`pool`]); and the options every job takes ([`JobOptions`]). The
//! durable JSONL log with its torn-tail repair is [`crate::files::jsonl`].
//!
//! It knows files and the tournament's error and shard types; it knows nothing of what a
//! job plays (games, SPSA, the fit's epochs).

pub mod checkpoint;
pub mod folder;
pub mod lock;
pub mod pool;

use std::{
    path::PathBuf,
    sync::{Arc, atomic::AtomicBool},
};

/// How to run a long job.
#[derive(Clone, Debug)]
pub struct JobOptions {
    /// Worker threads (0: the config's `jobs`, or all cores).
    pub jobs: usize,
    /// Continue from what the results folder holds.
    pub resume: bool,
    /// The results folder.
    pub out_dir: PathBuf,
    /// Raised to stop: the step in progress is dropped, the last checkpoint stands.
    pub stop: Arc<AtomicBool>,
}
