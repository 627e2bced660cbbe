//! Evaluation: weight tables (TOML, [`table`]) and the evaluators that use them, one per
//! game family: line patterns for m,n,k-games ([`mnk`], built on the one classifier in
//! [`patterns`]) and material / mobility / shape for Ataxx ([`ataxx`]).
//!
//! An evaluator also knows what a move means before it is played (the point scores and
//! threat categories of gomoku, the captures of Ataxx), which is what move ordering
//! needs; the search combines that with its own heuristics. This layer knows the rules
//! but nothing about search, engines or tournaments.

pub mod ataxx;
pub mod mnk;
pub mod patterns;
pub mod table;

use crate::game::Game;
pub use table::{AtaxxTable, MnkTable, Table};

/// Largest magnitude of a static evaluation; the search keeps its win scores above it.
pub const EVAL_LIMIT: i32 = 500_000_000;

/// A move class that the evaluator has pruned (the search skips it).
pub const PRUNED: i32 = i32::MIN;

/// Which static ordering information the search asks for (from the engine config).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OrderFlags {
    /// m,n,k: attack + defence point scores (seed 001).
    pub static_score: bool,
    /// m,n,k: seed 000's threat categories as the move class.
    pub threat: bool,
    /// m,n,k with `threat`: how far the forced-move pruning goes (0 none, 1 a winning
    /// point is played alone, 2 also: an opponent's five must be blocked, 3 also: own then
    /// opponent's open-four points only, 4 also: double-three points only; 3 and 4 are
    /// seed 000's heuristics and can miss defences).
    pub threat_prune: u8,
    /// Ataxx: stones gained by the move (seed 004's greedy score).
    pub captures: bool,
    /// Ataxx: single moves before jumps (a move class).
    pub singles_first: bool,
}

/// What the evaluator says about a move before it is played. Moves are searched by
/// `class` (higher first; [`PRUNED`] not at all), then by the search's killers, then by
/// `score`, then by history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct MoveKey {
    /// Category (threat level, singles before jumps); 0 when not used.
    pub class: i32,
    /// Static score (point score, stones gained); 0 when not used.
    pub score: i32,
}

/// Judgement of positions and moves for one game, kept in step with the position by the
/// search: `played` after every `Game::play`, `undone` after every `Game::undo`.
pub trait Evaluator<G: Game>: Send {
    /// Rebuilds any incremental state from `pos`.
    fn reset(&mut self, pos: &G);

    /// `mv` was just played; `pos` is the position after it.
    fn played(&mut self, pos: &G, mv: G::Move);

    /// `mv` was just taken back; `pos` is the position before it.
    fn undone(&mut self, pos: &G, mv: G::Move);

    /// Static score of an unfinished position for the side to move, within
    /// ±[`EVAL_LIMIT`].
    fn evaluate(&mut self, pos: &G) -> i32;

    /// The moves worth searching, in generation order (all legal moves unless the
    /// evaluator restricts them, as the m,n,k candidate radius does).
    fn candidates(&mut self, pos: &G, out: &mut Vec<G::Move>) {
        pos.legal_moves(out);
    }

    /// Fills `keys[i]` for `moves[i]` as `flags` ask; may prune by setting a class to
    /// [`PRUNED`] (never all of them).
    fn order_keys(&mut self, pos: &G, moves: &[G::Move], keys: &mut [MoveKey], flags: OrderFlags);
}

/// Clamps a wide score into ±[`EVAL_LIMIT`].
#[inline]
pub fn clamp_eval(v: i64) -> i32 {
    v.clamp(-i64::from(EVAL_LIMIT), i64::from(EVAL_LIMIT)) as i32
}
