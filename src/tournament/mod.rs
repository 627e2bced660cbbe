//! Tournaments: configs, the schedule (round robin, gauntlet), openings played as
//! colour-swapped game pairs, the parallel runner, the results store, resume, shards,
//! statistics over the records, and PGN and SGF export.
//!
//! Contracts: a game is a pure function of (config, master seed, game index) when engines
//! are limited by depth or nodes; a finished game is written and flushed before it counts;
//! bad input is an error that names the file, line and key.

pub mod config;
pub mod game;
pub mod merge;
pub mod openings;
pub mod pgn;
pub mod record;
pub mod runner;
pub mod schedule;
pub mod seeds;
pub mod sgf;
pub mod shard;
pub mod summary;

pub use self::{
    config::{Tournament, TournamentConfig},
    record::{GameRecord, read_records},
    runner::{Ending, Event, RunOptions, RunOutcome, Shard, run},
    schedule::Schedule,
    summary::Summary,
};
