//! `arena datagen`: training data for the field's trainers. Self-play games of a
//! built-in engine (or its games against a second one, colours alternating by game
//! index; options from flags or a datagen config, [`config`]), played as a tournament
//! plays them (the same game loop, seeds and
//! opening files), each position written with the side to move, the search score from
//! its view and the game's result, in the formats the field reads ([`format`](mod@format)); the
//! output a pure function of (engine, seed, options) under depth or node limits for any
//! number of threads or shards, resumable after a kill ([`run`](mod@run)).
//!
//! Positions are not written when the game is being decided by force or when they add
//! nothing: the opening and the random plies (never searched), positions at or after a
//! forced result in the search score (a win or loss in N plies), m,n,k positions where
//! the side to move has a win to make or a four to answer, Ataxx positions with a
//! capture swing of more than [`sample::ATAXX_QUIET_GAIN`] stones, and duplicates within
//! a window of games. Scores are clipped (default ±32,000, what the binary formats hold).

pub mod config;
pub mod format;
pub mod from_games;
pub mod run;
pub mod sample;

pub use self::{
    config::{DatagenFile, is_datagen_config},
    format::{DataReader, Format, Record},
    from_games::{FromGames, FromGamesOutcome, from_games},
    run::{Counts, Datagen, DatagenEnding, DatagenEvent, DatagenOutcome, DatagenRun, Target, run},
};
