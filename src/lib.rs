//! arena: seeded engine-vs-engine tournaments, ratings, tuning and reports for m,n,k-games
//! (tic-tac-toe, gomoku) and Ataxx, with the engines running in-process.
//!
//! The layers, each using only those listed before it (the map with what each owns is
//! `docs/architecture.md`): [`game`] (rules), [`stats`] (Elo, SPRT and ratings from
//! results; knows nothing of games), [`files`] and [`config`] (durable writes, TOML with
//! file:line errors), [`eval`] (weight tables and evaluators, threat search), [`search`]
//! (one generic alpha-beta, a file per technique), [`engine`] (built-in and outside
//! engines, clocks), [`protocol`] (Gomocup and UAI, serving and driving), [`jobs`] (what
//! every long job shares: the folder lock, the results folder's rules, checkpoints, the
//! worker pool; it still borrows the run error and the shard from `tournament`),
//! [`tournament`] (configs, schedules, openings, the runner, records and their checks),
//! [`tune`] (SPSA and the fit), [`report`] (HTML, Markdown and console reports with
//! plots); [`invocation`] and [`utc`] are small helpers. The command line (`src/cli/`)
//! parses arguments and prints.

#![warn(missing_docs)]

pub mod config;
pub mod datagen;
pub mod engine;
pub mod eval;
pub mod files;
pub mod game;
pub mod invocation;
pub mod jobs;
pub mod protocol;
pub mod report;
pub mod search;
pub mod stats;
pub mod tournament;
pub mod tune;
pub mod utc;
