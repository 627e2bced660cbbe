//! Search scores: static evaluations live within ±`EVAL_LIMIT`; a win `n` plies from the
//! root scores `WIN - n`, so the search prefers the quickest win and the slowest loss.

use crate::eval::EVAL_LIMIT;

/// The score of a win at the root itself.
pub const WIN: i32 = 1_000_000_000;
/// Deepest ply the search can reach.
pub const MAX_PLY: usize = 256;
/// Above every score.
pub const INFINITY: i32 = WIN + 1;

const _: () = assert!(EVAL_LIMIT < WIN - MAX_PLY as i32);

/// The score of a win `ply` plies from the root, for the side that wins.
#[inline]
pub fn win_in(ply: usize) -> i32 {
    WIN - ply as i32
}

/// Whether a score is a forced win or loss.
#[inline]
pub fn is_decisive(score: i32) -> bool {
    score.abs() > WIN - MAX_PLY as i32
}

/// Plies to the end of the game for a decisive score (from the root).
pub fn plies_to_end(score: i32) -> Option<u32> {
    is_decisive(score).then(|| (WIN - score.abs()) as u32)
}

/// A score as a transposition table stores it: wins relative to the node, not the root.
#[inline]
pub fn to_tt(score: i32, ply: usize) -> i32 {
    if score > WIN - MAX_PLY as i32 {
        score + ply as i32
    } else if score < -(WIN - MAX_PLY as i32) {
        score - ply as i32
    } else {
        score
    }
}

/// A stored score read back at `ply`.
#[inline]
pub fn from_tt(score: i32, ply: usize) -> i32 {
    if score > WIN - MAX_PLY as i32 {
        score - ply as i32
    } else if score < -(WIN - MAX_PLY as i32) {
        score + ply as i32
    } else {
        score
    }
}

/// UCI-style text: `cp 35`, `win 5` (plies), `loss 4`.
pub fn describe(score: i32) -> String {
    match plies_to_end(score) {
        Some(n) if score > 0 => format!("win {n}"),
        Some(n) => format!("loss {n}"),
        None => format!("cp {score}"),
    }
}
