//! Perft: the number of leaves of the legal move tree to a fixed depth, the standard
//! check that move generation, play and undo agree with other implementations.

use super::Game;

/// Leaves of the move tree of depth `depth` from `pos` (a finished game has no moves, so
/// it contributes 0 at depth > 0 and 1 at depth 0). Uses the game's own (possibly bulk
/// counting) implementation.
pub fn perft<G: Game>(pos: &mut G, depth: u32) -> u64 {
    pos.perft(depth)
}

/// The plain recursive perft: play every move, recurse, undo. Games use it as their
/// default and tests compare bulk-counting versions against it.
pub fn perft_generic<G: Game>(pos: &mut G, depth: u32) -> u64 {
    let mut buffers: Vec<Vec<G::Move>> = (0..depth).map(|_| Vec::new()).collect();
    recurse(pos, depth, &mut buffers)
}

fn recurse<G: Game>(pos: &mut G, depth: u32, buffers: &mut [Vec<G::Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (moves, rest) = buffers
        .split_first_mut()
        .expect("one move buffer per remaining ply");
    pos.legal_moves(moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut total = 0;
    for &mv in moves.iter() {
        let undo = pos.play(mv);
        total += recurse(pos, depth - 1, rest);
        pos.undo(mv, undo);
    }
    total
}

/// Perft split by root move: `(move, leaves below it)` in generation order.
pub fn perft_divide<G: Game>(pos: &mut G, depth: u32) -> Vec<(G::Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves
        .into_iter()
        .map(|mv| {
            let undo = pos.play(mv);
            let n = pos.perft(depth - 1);
            pos.undo(mv, undo);
            (mv, n)
        })
        .collect()
}
