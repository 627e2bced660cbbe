//! The engine fingerprint: search fixed positions of the engine's game to a fixed depth
//! and total the nodes; with the mean nodes per completed depth, the effective branching
//! factor. The total changes only when the search's behaviour changes; the
//! speed (nodes per second) is what `arena bench` and `benches/search.rs` measure.

use std::time::{Duration, Instant};

use super::{Engine, EngineConfig, EngineGame};
use crate::{
    game::{GameSpec, MnkRule, PositionError},
    search::Limits,
    stats::branching::effective_branching_factor,
    with_game,
};

/// Fixed positions per game family (move lists for m,n,k from the empty board, FENs for
/// Ataxx), and the depth each is searched to.
pub fn positions(game: &GameSpec) -> (&'static [&'static str], u32) {
    match game {
        GameSpec::Ataxx => (
            &[
                "x5o/7/7/7/7/7/o5x x 0 1",
                "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1",
                "x1o3o/2xo3/1xxoo2/3x3/2o1x2/1o5/o4xx x 2 8",
                "x2o2o/1xx1o2/2xooo1/1x1x1o1/2xxo2/3x3/o4xx o 3 9",
            ],
            5,
        ),
        // The gomoku positions but the last, where black's h6 is a forbidden double three.
        GameSpec::Mnk(c) if c.rule() == MnkRule::Renju && c.width() >= 9 && c.height() >= 9 => (
            &[
                "h8i9",
                "h8i9j7g9i8j8",
                "h8i9h9h10g8i8i7g9j9j10",
                "h8h9i8g8i9i10j10k11g9f10i7j8",
            ],
            5,
        ),
        GameSpec::Mnk(c) if c.width() >= 9 && c.height() >= 9 => (
            &[
                "h8i9",
                "h8i9j7g9i8j8",
                "h8i9h9h10g8i8i7g9j9j10",
                "h8h9i8g8i9i10j10k11g9f10i7j8",
                "h8g9g8i8f8e8g7f6h7i6h6h5j9",
            ],
            5,
        ),
        GameSpec::Mnk(_) => (&["", "b2", "a1b2"], 9),
    }
}

/// One position's result.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchLine {
    /// The position.
    pub position: String,
    /// Best move found.
    pub best: String,
    /// Its score.
    pub score: i32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
    /// Cumulative nodes when each iteration completed: (depth, nodes).
    pub iterations: Vec<(u32, u64)>,
}

/// The whole bench.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchReport {
    /// Depth searched.
    pub depth: u32,
    /// Per position.
    pub lines: Vec<BenchLine>,
    /// Total nodes: the fingerprint.
    pub nodes: u64,
    /// Total time.
    pub time: Duration,
    /// Per completed depth: (depth, positions that completed it, mean cumulative nodes).
    pub nodes_by_depth: Vec<(u32, u64, f64)>,
    /// The effective branching factor over those depths.
    pub ebf: Option<f64>,
}

/// Why the bench could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BenchError {
    /// The engine cannot be built (a table for another game, a hash table too large).
    #[error("{0}")]
    Engine(String),
    /// A position given that cannot be read.
    #[error("position {number}: {error}")]
    Position {
        /// Which position, from 1.
        number: usize,
        /// Why it cannot be read.
        error: PositionError,
    },
}

/// Runs the bench for `config` (its game's positions, `depth` or the game's bench depth;
/// the config's own limits are replaced by the depth).
pub fn run(config: &EngineConfig, depth: Option<u32>) -> Result<BenchReport, BenchError> {
    run_on(config, depth, None)
}

/// [`run`] on other positions (move lists or FENs, one each), if given.
pub fn run_on(
    config: &EngineConfig,
    depth: Option<u32>,
    positions: Option<&[String]>,
) -> Result<BenchReport, BenchError> {
    with_game!(config.game, |G, game| run_bench::<G>(
        config, &game, depth, positions
    ))
}

/// The bench, for the game type `G` (picked from the config's game).
fn run_bench<G: EngineGame>(
    config: &EngineConfig,
    game: &G::Config,
    depth: Option<u32>,
    given: Option<&[String]>,
) -> Result<BenchReport, BenchError> {
    let (fixed, default_depth) = positions(&config.game);
    let texts: Vec<&str> = match given {
        Some(list) => list.iter().map(String::as_str).collect(),
        None => fixed.to_vec(),
    };
    let depth = depth.unwrap_or(default_depth);
    let mut engine = Engine::<G>::new(config, game).map_err(BenchError::Engine)?;
    let mut report = BenchReport {
        depth,
        lines: Vec::new(),
        nodes: 0,
        time: Duration::ZERO,
        nodes_by_depth: Vec::new(),
        ebf: None,
    };
    let start = Instant::now();
    for (i, text) in texts.iter().enumerate() {
        let pos = G::from_text(game, text).map_err(|error| BenchError::Position {
            number: i + 1,
            error,
        })?;
        engine.searcher().new_game(0);
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let result = engine.search(&pos, limits, |_| {});
        report.nodes += result.nodes;
        report.lines.push(BenchLine {
            position: if text.is_empty() {
                "(empty board)".to_string()
            } else {
                text.to_string()
            },
            best: result
                .best
                .map_or("(none)".to_string(), |m| pos.format_move(m)),
            score: result.score,
            nodes: result.nodes,
            time: result.time,
            iterations: result
                .iterations
                .iter()
                .map(|it| (it.depth, it.nodes))
                .collect(),
        });
    }
    report.time = start.elapsed();
    report.nodes_by_depth = (1..=depth)
        .map(|d| {
            let at: Vec<u64> = report
                .lines
                .iter()
                .filter_map(|l| l.iterations.iter().find(|&&(id, _)| id == d).map(|x| x.1))
                .collect();
            let mean = at.iter().sum::<u64>() as f64 / at.len().max(1) as f64;
            (d, at.len() as u64, mean)
        })
        .take_while(|&(_, n, _)| n > 0)
        .collect();
    report.ebf = effective_branching_factor(&report.nodes_by_depth);
    Ok(report)
}
