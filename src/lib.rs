//! arena: seeded engine-vs-engine tournaments, ratings, tuning and reports for m,n,k-games
//! (tic-tac-toe, gomoku) and Ataxx, with the engines running in-process.
//!
//! The layers, each using only those listed before it (see `DESIGN.md`):
//! [`game`] (rules), [`stats`] (Elo, SPRT and ratings from results; knows nothing of games),
//! [`report`] (HTML and Markdown reports with plots, from a run's results folder).

#![warn(missing_docs)]

pub mod config;
pub mod datagen;
pub mod engine;
pub mod eval;
pub mod files;
pub mod game;
pub mod invocation;
pub mod protocol;
pub mod report;
pub mod search;
pub mod stats;
pub mod tournament;
pub mod tune;
pub mod utc;
