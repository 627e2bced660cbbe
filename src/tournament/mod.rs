//! Tournaments: configs, the schedule (round robin, gauntlet), openings played as
//! colour-swapped game pairs, the parallel runner, the results store, resume, shards,
//! the checks every record read must pass, statistics over the records, and PGN and SGF
//! export (afterwards, or live as games finish). The folder lock and the worker pool are
//! every long job's ([`crate::jobs`]).
//!
//! Contracts: a game is a pure function of (config, master seed, game index) when engines
//! are limited by depth or nodes; a finished game is written and flushed before it counts;
//! bad input is an error that names the file, line and key.

pub mod adjudicate;
pub mod config;
pub mod differences;
pub mod error;
pub mod game;
pub mod live;
pub mod merge;
pub mod openings;
pub mod pgn;
pub mod pool;
pub mod record;
pub mod replay;
pub mod runner;
pub mod schedule;
pub mod seeds;
pub mod sgf;
pub mod shard;
pub mod summary;
pub mod sweep;
pub mod validate;

pub use self::{
    config::{Tournament, TournamentConfig},
    error::RunError,
    live::LiveFiles,
    record::{GameRecord, read_records},
    runner::{Ending, Event, RunOptions, RunOutcome, run},
    schedule::Schedule,
    shard::Shard,
    summary::Summary,
};
