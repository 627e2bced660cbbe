//! Statistics of a tournament from its records: per pairing W/D/L, pentanomial counts,
//! Elo and nElo with 95 % intervals, LOS, draw ratio and SPRT; ratings of every engine by
//! maximum likelihood; per engine nodes per move (mean, median), depth, nodes per second,
//! game length and first-player score. Written as `summary.json`, `standings.csv` and
//! `pairings.csv`.
//!
//! Everything here is a pure function of the records (in any order), so `arena stats`,
//! a finished run and a merged set of shards give the same numbers.

mod compute;
mod files;
mod pairs;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use self::{
    compute::{fault_kind, of_records, summarize},
    files::{pairings_csv, standings_csv, write_files},
    pairs::{PairShares, SPLIT_WARNING_PAIRS, SWITCH_HINT, split_reason, split_warning},
};
use super::differences::Difference;
use crate::stats::{EloEstimate, Penta, ScoreInterval, SprtEstimate, Wdl};

/// One engine's line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineSummary {
    /// Name.
    pub name: String,
    /// Table and ordering, for readers.
    pub description: String,
    /// Rating (pool average 0, or the anchor's value).
    pub elo: Option<f64>,
    /// Half-width of the 95 % interval of `elo`.
    pub elo_error: Option<f64>,
    /// Games played.
    pub games: u64,
    /// Results (wins, draws, losses) over all games.
    pub wdl: Wdl,
    /// Points per game.
    pub score: f64,
    /// Points per game when it moved first (the first player's seat).
    pub score_as_first: Option<f64>,
    /// Moves it made (with node counts).
    pub moves: u64,
    /// Mean nodes per move.
    pub nodes_mean: f64,
    /// Median nodes per move.
    pub nodes_median: f64,
    /// First and third quartile of nodes per move.
    pub nodes_quartiles: [f64; 2],
    /// Mean depth reached per move.
    pub depth_mean: f64,
    /// Nodes per second over all its moves (measured).
    pub nps: f64,
    /// Mean plies of its games.
    pub game_length: f64,
    /// Moves for which it reported no node count (0 nodes: an outside engine that
    /// prints no figures). The node figures above are over the other moves.
    #[serde(default)]
    pub moves_without_nodes: u64,
    /// Moves for which it reported no depth (depth 0). `depth_mean` is over the others.
    #[serde(default)]
    pub moves_without_depth: u64,
    /// Per depth d: (d, moves whose search completed depth d, mean nodes searched by
    /// then): the cost of each depth, whose ratio is the effective branching factor.
    pub nodes_by_depth: Vec<(u32, u64, f64)>,
}

impl EngineSummary {
    /// Whether any of its moves came with a node count (nodes per move and nodes per
    /// second mean something); an engine that moved and never said is shown as "n/a".
    pub fn reports_nodes(&self) -> bool {
        self.moves == 0 || self.moves_without_nodes < self.moves
    }

    /// Whether any of its moves came with a depth.
    pub fn reports_depth(&self) -> bool {
        self.moves == 0 || self.moves_without_depth < self.moves
    }
}

/// One pairing's statistics, from engine `a`'s point of view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairingSummary {
    /// First engine (index).
    pub a: usize,
    /// Second engine (index).
    pub b: usize,
    /// Names.
    pub names: [String; 2],
    /// Games.
    pub wdl: Wdl,
    /// Complete colour-swapped pairs.
    pub penta: Penta,
    /// Elo etc. from the pairs when there are any, else from the games.
    pub estimate: Option<EloEstimate>,
    /// Points per game of whoever moved first (the first player), in this pairing.
    pub first_player_score: Option<f64>,
    /// The first player's score with its 95 % interval (over games).
    #[serde(default)]
    pub first_player: Option<ScoreInterval>,
    /// How many complete pairs split 1-1 or were two draws.
    #[serde(default)]
    pub pair_shares: PairShares,
    /// Mean plies per game.
    pub game_length: f64,
    /// Plies of every game, in game order (for distributions).
    pub lengths: Vec<u32>,
    /// Elo (and interval) after each complete pair, in pair order (for convergence
    /// plots); at most ~200 samples.
    pub trajectory: Vec<TrajectoryPoint>,
}

/// A point of a convergence plot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrajectoryPoint {
    /// Games counted.
    pub games: u64,
    /// Elo so far.
    pub elo: Option<f64>,
    /// Its 95 % half-width.
    pub error: Option<f64>,
    /// SPRT log-likelihood ratio so far (with `[sprt]`).
    pub llr: Option<f64>,
}

/// The SPRT's state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtSummary {
    /// Log-likelihood ratio.
    pub llr: f64,
    /// Lower and upper bounds.
    pub bounds: (f64, f64),
    /// accept H0, accept H1, or continue.
    pub decision: String,
    /// The test.
    pub config: crate::stats::SprtConfig,
    /// Game pairs counted (after a decision, later pairs are recorded but not counted).
    pub pairs: u64,
    /// After a decision: fishtest's median-unbiased Elo (the plain Elo of a stopped test
    /// is biased towards the bound it crossed).
    #[serde(default)]
    pub debiased: Option<SprtEstimate>,
}

/// Everything `summary.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Run name.
    pub name: String,
    /// Game.
    pub game: String,
    /// Master seed (a string in the file, like the records' seeds).
    #[serde(with = "super::record::u64_text")]
    pub seed: u64,
    /// Games in the schedule.
    pub scheduled_games: u64,
    /// Games counted.
    pub games: u64,
    /// Whether every counted game is reproducible (no time limits).
    pub reproducible: bool,
    /// Engines, in config order.
    pub engines: Vec<EngineSummary>,
    /// Pairings, in schedule order.
    pub pairings: Vec<PairingSummary>,
    /// Score of the first player over all games.
    pub first_player_score: Option<f64>,
    /// The first player's score over all games with its 95 % interval.
    #[serde(default)]
    pub first_player: Option<ScoreInterval>,
    /// Complete pairs over all pairings, and how many split 1-1 or were two draws.
    #[serde(default)]
    pub pair_shares: PairShares,
    /// How games ended, with counts.
    pub reasons: BTreeMap<String, u64>,
    /// Why ratings could not be fitted, if they could not.
    pub ratings_note: Option<String>,
    /// SPRT, when configured.
    pub sprt: Option<SprtSummary>,
    /// Games lost to faults, per engine (by name) and kind ([`fault_kind`]: `crash`,
    /// `timeout`, `garbage`, `illegal-move`, `time-forfeit`, ...). Engines without
    /// faults are left out.
    #[serde(default)]
    pub faults: BTreeMap<String, BTreeMap<String, u64>>,
    /// Complete game pairs that repeat an earlier pair of the same pairing move for move
    /// (same opening, same moves in both games): deterministic engines replay a pair
    /// whenever an opening comes round again. They add no evidence, yet the intervals
    /// count them; [`Summary::warnings`] says so.
    #[serde(default)]
    pub replayed_pairs: u64,
    /// Things a reader must know before trusting the numbers.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// What the engines' ratings are relative to: `the pool average (0)` or the anchor.
    #[serde(default)]
    pub ratings_relative_to: String,
    /// The settings that differ between the engines (from their resolved configs): what
    /// the comparison is a comparison of.
    #[serde(default)]
    pub differences: Vec<Difference>,
}

/// Engines ranked by rating (or score when there are no ratings).
pub fn ranked(s: &Summary) -> Vec<&EngineSummary> {
    let mut v: Vec<&EngineSummary> = s.engines.iter().collect();
    v.sort_by(|a, b| {
        let key = |e: &EngineSummary| e.elo.unwrap_or(e.score * 1000.0);
        key(b).total_cmp(&key(a))
    });
    v
}
