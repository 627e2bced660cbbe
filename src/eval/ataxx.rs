//! The Ataxx evaluator: material, the largest own rectangle (seed 004), mobility,
//! frontier, corners and edges, each scored for the side to move minus the opponent.
//! The terms are computed from the bitboards at every leaf (a few dozen instructions per
//! term); only a table's `[net]` keeps incremental state, its hidden sums, updated from
//! the squares a move changes (`Accumulators`). Move ordering: stones gained (seed
//! 004's greedy score) and singles before jumps.

use std::sync::Arc;

mod sums;

use sums::{Accumulators, both_stones};

use super::{
    Evaluator, MoveKey, OrderFlags, clamp_eval,
    net::AtaxxNet,
    table::{ATAXX_TERM_COUNT, AtaxxTable},
};
use crate::game::{
    Ataxx, AtaxxMove, Game, Side,
    ataxx::{FULL, dilate, neighbours},
};

const CORNERS: u64 = 1 | 1 << 6 | 1 << 42 | 1 << 48;
const RANK_1: u64 = 0x7F;
const RANK_7: u64 = 0x7F << 42;
const FILE_A: u64 = 0x0000_0408_1020_4081;
const FILE_G: u64 = FILE_A << 6;
const EDGES: u64 = (RANK_1 | RANK_7 | FILE_A | FILE_G) & !CORNERS;

/// The class of each square under the board's eight symmetries, in
/// [`AtaxxTable::SQUARE_KEYS`] order: file and rank folded towards a1, then ordered
/// (a1, b1, c1, d1, b2, c2, d2, c3, d3, d4).
pub const fn square_class(square: usize) -> usize {
    let (f, r) = (square % 7, square / 7);
    let f = if f > 3 { 6 - f } else { f };
    let r = if r > 3 { 6 - r } else { r };
    let (lo, hi) = if f < r { (f, r) } else { (r, f) };
    let offset = [0, 4, 7, 9][lo];
    offset + hi - lo
}

/// The squares of each class (see [`square_class`]).
pub const SQUARE_CLASSES: [u64; 10] = {
    let mut masks = [0u64; 10];
    let mut sq = 0;
    while sq < 49 {
        masks[square_class(sq)] |= 1 << sq;
        sq += 1;
    }
    masks
};

/// The Ataxx evaluator built from an [`AtaxxTable`].
#[derive(Clone, Debug)]
pub struct AtaxxEval {
    table: AtaxxTable,
    /// Every term's weight on an empty board ([`AtaxxTable::TERM_KEYS`] order).
    weights: [i64; ATAXX_TERM_COUNT],
    /// The terms whose count is needed (a weight or an endgame change not zero).
    used: [bool; ATAXX_TERM_COUNT],
    /// The endgame changes ([`AtaxxTable::endgame`]), or `None` when all are zero (the
    /// score then does not depend on the phase: the tables before `[endgame]`).
    endgame: Option<[i64; ATAXX_TERM_COUNT]>,
    /// The table's `[net]`, if any: its score is added to the terms'.
    net: Option<Arc<AtaxxNet>>,
    /// The net's hidden sums along the search's line (empty without a net).
    acc: Accumulators,
}

/// Slots of the two tempo terms in [`AtaxxTable::TERM_KEYS`]: the side to move's own,
/// not "mine minus theirs".
const TEMPO: usize = 6;
const TEMPO_FILLED: usize = 7;
/// The first square class's and the first hole's slot.
const SQUARE_0: usize = 8;
const HOLE_1: usize = 18;
/// The territory's slot.
const TERRITORY: usize = 26;
/// The slot of the side to move's best capture (its own, as the tempo terms).
const CAPTURE: usize = 27;
/// The exposed stones' slot.
const EXPOSED: usize = 28;

impl AtaxxEval {
    /// An evaluator with `table`'s weights.
    pub fn new(table: &AtaxxTable) -> AtaxxEval {
        let weights = table.weights();
        let changes = table.endgame.values();
        AtaxxEval {
            table: table.clone(),
            weights,
            used: std::array::from_fn(|i| weights[i] != 0 || changes[i] != 0),
            endgame: changes.iter().any(|&v| v != 0).then_some(changes),
            net: table.net.clone().map(Arc::new),
            acc: Accumulators::default(),
        }
    }

    /// The count behind each of `side`'s own terms ([`AtaxxTable::TERM_KEYS`] order;
    /// the tempo and capture slots are 0): only those the table uses, the others 0.
    pub fn side_counts(&self, pos: &Ataxx, side: Side) -> [i64; ATAXX_TERM_COUNT] {
        side_counts(pos, side, &self.used, &reaches(pos, &self.used))
    }

    /// The score of `side`'s terms alone (before subtracting the opponent's), with the
    /// weights of an empty board.
    pub fn side_terms(&self, pos: &Ataxx, side: Side) -> i64 {
        let c = self.side_counts(pos, side);
        (0..ATAXX_TERM_COUNT)
            .filter(|&i| i != TEMPO && i != TEMPO_FILLED && i != CAPTURE)
            .map(|i| self.weights[i] * c[i])
            .sum()
    }

    /// Per term, the side to move's count minus the opponent's, and the side to move's
    /// own terms (the tempo's 1 and filled squares, gaps included, and its best
    /// capture): the score is these times the weights.
    pub fn term_differences(&self, pos: &Ataxx) -> [i64; ATAXX_TERM_COUNT] {
        term_differences(pos, &self.used)
    }

    /// The phase as (stones on the board, playable squares): 0 on an empty board, the
    /// whole on a full one (gaps are not playable).
    pub fn phase(pos: &Ataxx) -> (i64, i64) {
        let stones = i64::from((pos.stones(Side::First) | pos.stones(Side::Second)).count_ones());
        (stones, stones + i64::from(pos.empty().count_ones()))
    }

    /// The score from the side to move's view: the weights of an empty board times
    /// the term differences, plus the endgame changes times the same differences and
    /// the phase (rounded towards zero).
    pub fn score(&self, pos: &Ataxx) -> i64 {
        self.terms_score(pos) + self.net_score(pos)
    }

    /// The score of the terms alone (without the net's).
    fn terms_score(&self, pos: &Ataxx) -> i64 {
        let d = self.term_differences(pos);
        let base: i64 = self.weights.iter().zip(&d).map(|(w, d)| w * d).sum();
        match &self.endgame {
            None => base,
            Some(changes) => {
                let change: i64 = changes.iter().zip(&d).map(|(w, d)| w * d).sum();
                let (stones, playable) = AtaxxEval::phase(pos);
                base + change * stones / playable.max(1)
            }
        }
    }

    /// The score of the table's `[net]` (0 without one), worked out from scratch: see
    /// [`super::net`]. The search's evaluations take the same score from the sums kept
    /// move by move (`Accumulators`).
    pub fn net_score(&self, pos: &Ataxx) -> i64 {
        let Some(net) = &self.net else {
            return 0;
        };
        let me = pos.side_to_move();
        let (stones, playable) = AtaxxEval::phase(pos);
        net.score(pos.stones(me), pos.stones(me.other()), stones, playable)
    }
}

/// The squares each side reaches ([`reach`], by [`Side::index`]) where a used term
/// needs them (the holes, the territory and the exposed stones), else 0: worked out once per position.
fn reaches(pos: &Ataxx, used: &[bool; ATAXX_TERM_COUNT]) -> [u64; 2] {
    let mut r = [0; 2];
    if used[HOLE_1..=TERRITORY].iter().any(|&u| u) || used[EXPOSED] {
        for side in [Side::First, Side::Second] {
            r[side.index()] = reach(pos.stones(side));
        }
    }
    r
}

/// The count behind each of `side`'s own terms ([`AtaxxTable::TERM_KEYS`] order; the
/// tempo and capture slots are 0) where `used` says so, 0 elsewhere (material is always
/// counted); `reach` is [`reaches`] of the position.
fn side_counts(
    pos: &Ataxx,
    side: Side,
    used: &[bool; ATAXX_TERM_COUNT],
    reach: &[u64; 2],
) -> [i64; ATAXX_TERM_COUNT] {
    let own = pos.stones(side);
    let empty = pos.empty();
    let mut c = [0i64; ATAXX_TERM_COUNT];
    c[0] = i64::from(own.count_ones());
    if used[1] {
        c[1] = i64::from(largest_rectangle(own));
    }
    if used[2] {
        c[2] = i64::from(mobility(own, empty));
    }
    if used[3] {
        c[3] = i64::from((own & dilate(empty)).count_ones());
    }
    if used[4] {
        c[4] = i64::from((own & CORNERS).count_ones());
    }
    if used[5] {
        c[5] = i64::from((own & EDGES).count_ones());
    }
    for (k, mask) in SQUARE_CLASSES.iter().enumerate() {
        if used[SQUARE_0 + k] {
            c[SQUARE_0 + k] = i64::from((own & mask).count_ones());
        }
    }
    let (own_reach, opp_reach) = (reach[side.index()], reach[side.other().index()]);
    if used[HOLE_1..HOLE_1 + 8].iter().any(|&u| u) {
        let holes = holes_reached(own, opp_reach, empty);
        for (k, n) in holes.into_iter().enumerate() {
            c[HOLE_1 + k] = i64::from(n);
        }
    }
    if used[TERRITORY] {
        c[TERRITORY] = i64::from((own_reach & empty & !opp_reach).count_ones());
    }
    if used[EXPOSED] {
        c[EXPOSED] = i64::from((own & dilate(empty & opp_reach)).count_ones());
    }
    c
}

/// Per term, the side to move's count minus the opponent's, and the side to move's
/// tempo terms, where `used` says so (see [`AtaxxEval::term_differences`]).
fn term_differences(pos: &Ataxx, used: &[bool; ATAXX_TERM_COUNT]) -> [i64; ATAXX_TERM_COUNT] {
    let me = pos.side_to_move();
    let reach = reaches(pos, used);
    let (a, b) = (
        side_counts(pos, me, used, &reach),
        side_counts(pos, me.other(), used, &reach),
    );
    let mut d: [i64; ATAXX_TERM_COUNT] = std::array::from_fn(|i| a[i] - b[i]);
    d[TEMPO] = 1;
    d[TEMPO_FILLED] = i64::from(49 - pos.empty().count_ones());
    if used[CAPTURE] {
        d[CAPTURE] = i64::from(best_capture(
            pos.stones(me),
            pos.stones(me.other()),
            pos.empty(),
        ));
    }
    d
}

/// Every term's difference (see [`AtaxxEval::term_differences`]), whatever a table
/// uses: what `arena fit` reads.
pub fn all_term_differences(pos: &Ataxx) -> [i64; ATAXX_TERM_COUNT] {
    term_differences(pos, &[true; ATAXX_TERM_COUNT])
}

/// The holes of the stones `own` by how many of them stand around each: the empty
/// squares next to `own` that the stones `opp` reach with a single or a jump; entry
/// `k` counts those with `k + 1` of `own` around them.
pub fn hole_counts(own: u64, opp: u64, empty: u64) -> [u32; 8] {
    holes_reached(own, reach(opp), empty)
}

/// [`hole_counts`] with the squares the opponent reaches already worked out.
fn holes_reached(own: u64, opp_reach: u64, empty: u64) -> [u32; 8] {
    let mut holes = dilate(own) & empty & opp_reach;
    let mut out = [0u32; 8];
    while holes != 0 {
        let sq = holes.trailing_zeros() as usize;
        holes &= holes - 1;
        let around = (neighbours(sq) & own).count_ones() as usize;
        // A hole is next to `own`, so at least one stone stands around it.
        out[around - 1] += 1;
    }
    out
}

/// The empty squares the stones `own` reach (a single or a jump) and the stones `opp`
/// do not: squares only `own` can fill.
pub fn territory(own: u64, opp: u64, empty: u64) -> u64 {
    reach(own) & empty & !reach(opp)
}

/// The most stones of `opp` that a move of `own` captures: the largest number of `opp`
/// stones around an empty square that `own` reaches (a single or a jump).
pub fn best_capture(own: u64, opp: u64, empty: u64) -> u32 {
    let mut targets = reach(own) & empty & dilate(opp);
    let mut best = 0;
    while targets != 0 {
        let sq = targets.trailing_zeros() as usize;
        targets &= targets - 1;
        best = best.max((neighbours(sq) & opp).count_ones());
    }
    best
}

/// The squares the stones `own` reach with a single or a jump (one or two squares away).
pub fn reach(own: u64) -> u64 {
    dilate(own) | jump_reach(own)
}

/// The squares the stones `own` reach with a jump (two squares away).
pub fn jump_reach(own: u64) -> u64 {
    let mut reach = 0;
    for &(shift, keep) in &JUMP_SHIFTS {
        reach |= if shift >= 0 {
            (own & keep) << shift
        } else {
            (own & keep) >> -shift
        };
    }
    reach & FULL
}

/// Singles and jumps available to the stones `own`: the empty squares next to them,
/// plus one jump per (stone, empty square two away) pair. The jumps are counted with
/// the 16 jump offsets as whole-board shifts (a shift per offset, whatever the number
/// of stones) rather than stone by stone.
pub fn mobility(own: u64, empty: u64) -> u32 {
    let mut n = (dilate(own) & empty).count_ones();
    for &(shift, keep) in &JUMP_SHIFTS {
        let moved = if shift >= 0 {
            (own & keep) << shift
        } else {
            (own & keep) >> -shift
        };
        n += (moved & empty).count_ones();
    }
    n
}

/// The 16 jump offsets as (shift of the bitboard, the stones that may make it without
/// leaving the board or wrapping around a file edge).
const JUMP_SHIFTS: [(i32, u64); 16] = {
    let mut out = [(0i32, 0u64); 16];
    let mut i = 0;
    let mut dy = -2i32;
    while dy <= 2 {
        let mut dx = -2i32;
        while dx <= 2 {
            let ax = if dx < 0 { -dx } else { dx };
            let ay = if dy < 0 { -dy } else { dy };
            if ax == 2 || ay == 2 {
                let mut keep = 0u64;
                let mut sq = 0;
                while sq < 49 {
                    let (f, r) = (sq % 7, sq / 7);
                    if f + dx >= 0 && f + dx < 7 && r + dy >= 0 && r + dy < 7 {
                        keep |= 1 << sq;
                    }
                    sq += 1;
                }
                out[i] = (dy * 7 + dx, keep);
                i += 1;
            }
            dx += 1;
        }
        dy += 1;
    }
    out
};

/// Longest run of set bits in a 7-bit rank.
const LONGEST_RUN: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut m = 0;
    while m < 128 {
        let (mut best, mut run, mut bit) = (0, 0, 0);
        while bit < 7 {
            if m & (1 << bit) != 0 {
                run += 1;
                if run > best {
                    best = run;
                }
            } else {
                run = 0;
            }
            bit += 1;
        }
        t[m] = best;
        m += 1;
    }
    t
};

/// Area of the largest rectangle made only of squares of `bb` (seed 004 finds it with a
/// monotonic stack per rank; here each band of ranks is ANDed and its longest run of
/// files read from a table, which gives the same area faster).
pub fn largest_rectangle(bb: u64) -> u32 {
    let ranks: [u64; 7] = std::array::from_fn(|r| (bb >> (7 * r)) & 0x7F);
    let mut best = 0;
    for low in 0..7 {
        let mut band = 0x7F;
        for (height, rank) in ranks[low..].iter().enumerate() {
            band &= rank;
            if band == 0 {
                break;
            }
            best = best.max(u32::from(LONGEST_RUN[band as usize]) * (height as u32 + 1));
        }
        // No taller band can beat the best any more.
        if best >= 7 * (7 - low as u32) {
            break;
        }
    }
    best
}

impl Evaluator<Ataxx> for AtaxxEval {
    fn reset(&mut self, pos: &Ataxx) {
        if self.net.is_some() {
            self.acc.reset(both_stones(pos));
        }
    }

    #[inline]
    fn played(&mut self, pos: &Ataxx, _mv: AtaxxMove) {
        // A pass too: its level has its parent's stones, and undoing it drops it.
        if self.net.is_some() {
            self.acc.push(both_stones(pos));
        }
    }

    #[inline]
    fn undone(&mut self, _pos: &Ataxx, _mv: AtaxxMove) {
        if self.net.is_some() {
            self.acc.pop();
        }
    }

    /// [`AtaxxEval::score`], with the net's hidden sums taken from the levels kept by
    /// `played` and `undone` when the top one belongs to `pos`, else from scratch.
    #[inline]
    fn evaluate(&mut self, pos: &Ataxx) -> i32 {
        let Some(net) = &self.net else {
            return clamp_eval(self.terms_score(pos));
        };
        let net_score = match self.acc.sums(net, both_stones(pos)) {
            Some(sums) => {
                let h = net.hidden;
                let view = &sums[pos.side_to_move().index() * h..][..h];
                let (stones, playable) = AtaxxEval::phase(pos);
                net.output(view, stones, playable)
            }
            None => self.net_score(pos),
        };
        clamp_eval(self.terms_score(pos) + net_score)
    }

    fn unit(&self) -> i32 {
        // A stone.
        clamp_eval(self.table.material).max(1)
    }

    fn candidates_batch(&mut self, pos: &Ataxx, batch: usize, out: &mut Vec<AtaxxMove>) -> bool {
        match batch {
            0 => {
                pos.singles(out);
                if out.is_empty() && pos.outcome().is_none() && !pos.has_jump() {
                    out.push(AtaxxMove::Pass);
                    return false;
                }
                true
            }
            1 => {
                pos.jumps(out);
                false
            }
            _ => {
                out.clear();
                false
            }
        }
    }

    fn null_move_safe(&mut self, pos: &Ataxx) -> bool {
        // A pass is only ever forced, never chosen: passing instead of moving is sound
        // unless moving hurts (zugzwang), which happens when the board is nearly full.
        pos.empty().count_ones() > 6 && (pos.has_single() || pos.has_jump())
    }

    fn order_keys(
        &mut self,
        pos: &Ataxx,
        moves: &[AtaxxMove],
        keys: &mut [MoveKey],
        flags: OrderFlags,
    ) {
        for (mv, key) in moves.iter().zip(keys.iter_mut()) {
            *key = MoveKey::default();
            let single = matches!(mv, AtaxxMove::Single(_));
            // Big captures change the game: never reduced or pruned.
            let captures = mv.to().map_or(0, |to| pos.captures_at(to));
            key.tactical = captures >= 3;
            // Material: the new stone (singles) plus each capture twice (ours, not theirs).
            key.gain =
                clamp_eval(self.table.material * i64::from(2 * captures + u32::from(single)));
            if flags.singles_first {
                key.class = i32::from(single);
            }
            if flags.captures
                && let Some(to) = mv.to()
            {
                key.score = 2 * pos.captures_at(to) as i32 + i32::from(single);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::ataxx::{jump_targets, neighbours, squares};

    /// Seed 004's method: the largest rectangle under each rank's histogram.
    fn rectangle_by_stack(bb: u64) -> u32 {
        let mut heights = [0u32; 7];
        let mut best = 0;
        for rank in 0..7 {
            for (file, h) in heights.iter_mut().enumerate() {
                *h = if bb & (1 << (rank * 7 + file)) != 0 {
                    *h + 1
                } else {
                    0
                };
            }
            let mut stack: Vec<usize> = Vec::new();
            for i in 0..=7 {
                let h = if i < 7 { heights[i] } else { 0 };
                while let Some(&top) = stack.last() {
                    if heights[top] < h {
                        break;
                    }
                    stack.pop();
                    let left = stack.last().map_or(0, |&l| l + 1);
                    best = best.max(heights[top] * (i - left) as u32);
                }
                stack.push(i);
            }
        }
        best
    }

    #[test]
    fn rectangle_equals_the_monotonic_stack_method() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..20_000 {
            // Dense and sparse boards.
            let a: u64 = rng.random::<u64>() & crate::game::ataxx::FULL;
            let b: u64 = rng.random::<u64>() & crate::game::ataxx::FULL;
            for bb in [a, a | b, a & b] {
                assert_eq!(largest_rectangle(bb), rectangle_by_stack(bb), "{bb:#x}");
            }
        }
    }

    /// Mobility stone by stone, as it was first written.
    fn mobility_by_stone(own: u64, empty: u64) -> u32 {
        let mut n = (dilate(own) & empty).count_ones();
        for s in squares(own) {
            n += (jump_targets(s) & empty).count_ones();
        }
        n
    }

    #[test]
    fn mobility_by_shifts_equals_mobility_by_stone() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for _ in 0..20_000 {
            let a: u64 = rng.random::<u64>() & crate::game::ataxx::FULL;
            let b: u64 = rng.random::<u64>() & crate::game::ataxx::FULL;
            for (own, empty) in [
                (a, !a & crate::game::ataxx::FULL),
                (a & b, !a & !b),
                (a & b, a ^ b),
            ] {
                let empty = empty & crate::game::ataxx::FULL & !own;
                assert_eq!(
                    mobility(own, empty),
                    mobility_by_stone(own, empty),
                    "{own:#x} {empty:#x}"
                );
            }
        }
        for sq in 0..49 {
            let empty = crate::game::ataxx::FULL & !(1 << sq);
            assert_eq!(
                mobility(1 << sq, empty),
                mobility_by_stone(1 << sq, empty),
                "{sq}"
            );
        }
    }

    #[test]
    fn rectangles() {
        assert_eq!(largest_rectangle(0), 0);
        assert_eq!(largest_rectangle(crate::game::ataxx::FULL), 49);
        assert_eq!(largest_rectangle(1), 1);
        assert_eq!(largest_rectangle(RANK_1), 7);
        assert_eq!(largest_rectangle(FILE_A | FILE_A << 1), 14);
        // An L shape: rank 1 (7) plus a1..a3 column: best is the rank (7).
        assert_eq!(largest_rectangle(RANK_1 | 1 << 7 | 1 << 14), 7);
        // A 3x3 block at b2..d4 plus scattered stones.
        let block = (0..3)
            .flat_map(|r| (0..3).map(move |f| 1u64 << ((r + 1) * 7 + f + 1)))
            .fold(0, |a, b| a | b);
        assert_eq!(largest_rectangle(block | 1 << 48), 9);
    }

    #[test]
    fn square_classes_follow_the_board_symmetries() {
        let mut seen = 0u64;
        for (class, mask) in SQUARE_CLASSES.iter().enumerate() {
            assert_eq!(seen & mask, 0, "classes overlap");
            seen |= mask;
            // Each class is closed under the 8 symmetries.
            for sq in squares(*mask) {
                let (f, r) = (sq % 7, sq / 7);
                for (f2, r2) in [
                    (6 - f, r),
                    (f, 6 - r),
                    (6 - f, 6 - r),
                    (r, f),
                    (6 - r, f),
                    (r, 6 - f),
                    (6 - r, 6 - f),
                ] {
                    assert_eq!(square_class(r2 * 7 + f2), class, "{sq}");
                }
            }
        }
        assert_eq!(seen, crate::game::ataxx::FULL);
        let sizes: Vec<u32> = SQUARE_CLASSES.iter().map(|m| m.count_ones()).collect();
        // a1 b1 c1 d1 b2 c2 d2 c3 d3 d4
        assert_eq!(sizes, [4, 8, 8, 4, 4, 8, 4, 4, 4, 1]);
        assert_eq!(SQUARE_CLASSES[0], CORNERS);
        // b1 is also a2, f1, g6 (the README's example): file + 7 x rank.
        for sq in [1, 7, 5, 6 + 7 * 5] {
            assert_eq!(square_class(sq), 1, "{sq}");
        }
        assert_eq!(SQUARE_CLASSES[9], 1 << 24);
    }

    #[test]
    fn square_values_score_the_stones_on_their_class() {
        // Each side starts with two corner stones.
        let table = AtaxxTable {
            square_a1: 7,
            square_d4: 1000,
            ..AtaxxTable::material_only()
        };
        let e = AtaxxEval::new(&table);
        let pos = Ataxx::default();
        assert_eq!(e.side_terms(&pos, Side::First), 2 * 100 + 2 * 7);
        let pos = Ataxx::from_text(&(), "x5o/7/7/3x3/7/7/o5x x 0 1").unwrap();
        assert_eq!(e.side_terms(&pos, Side::First), 3 * 100 + 2 * 7 + 1000);
        assert_eq!(e.side_terms(&pos, Side::Second), 2 * 100 + 2 * 7);
    }

    /// `n` random boards as (own stones, the opponent's, empty squares), no gaps: about
    /// a quarter of the squares each side's, half empty. The same `seed`, the same boards.
    fn random_boards(seed: u64, n: usize) -> impl Iterator<Item = (u64, u64, u64)> {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..n).map(move |_| {
            let a: u64 = rng.random::<u64>() & rng.random::<u64>() & crate::game::ataxx::FULL;
            let b: u64 = rng.random::<u64>() & crate::game::ataxx::FULL;
            (a & b, a & !b, !a & crate::game::ataxx::FULL)
        })
    }

    /// The position with x's stones `x` and o's `o`, x to move, the rest empty.
    fn with_stones(x: u64, o: u64) -> Ataxx {
        let ranks: Vec<String> = (0..7)
            .rev()
            .map(|rank| {
                (0..7)
                    .map(|file| {
                        let bit = 1u64 << (rank * 7 + file);
                        if x & bit != 0 {
                            'x'
                        } else if o & bit != 0 {
                            'o'
                        } else {
                            '1'
                        }
                    })
                    .collect()
            })
            .collect();
        Ataxx::from_fen(&format!("{} x 0 1", ranks.join("/"))).unwrap()
    }

    #[test]
    fn territory_is_the_empty_squares_only_one_side_reaches() {
        // By coordinates: a stone reaches the squares at most two files and two ranks
        // away (Chebyshev distance 1 or 2).
        let reaches = |stones: u64, sq: usize| {
            squares(stones).any(|s| {
                let (df, dr) = ((s % 7).abs_diff(sq % 7), (s / 7).abs_diff(sq / 7));
                df.max(dr) >= 1 && df.max(dr) <= 2
            })
        };
        let mut nonzero = 0;
        for (own, opp, empty) in random_boards(9, 5_000) {
            let want = squares(empty)
                .filter(|&sq| reaches(own, sq) && !reaches(opp, sq))
                .fold(0u64, |bb, sq| bb | 1 << sq);
            assert_eq!(territory(own, opp, empty), want, "{own:#x} {opp:#x}");
            nonzero += u32::from(want != 0);
        }
        assert!(nonzero > 100, "{nonzero}");
        // The start: a stone in each corner, and each corner stone reaches 8 squares
        // (3 singles, 5 jumps) that no other stone reaches: 16 a side.
        let pos = Ataxx::default();
        let (x, o) = (pos.stones(Side::First), pos.stones(Side::Second));
        assert_eq!(territory(x, o, pos.empty()).count_ones(), 16);
        assert_eq!(territory(o, x, pos.empty()).count_ones(), 16);
        // The term scores the side to move's territory minus the opponent's.
        let table = AtaxxTable {
            territory: 5,
            ..AtaxxTable::material_only()
        };
        let e = AtaxxEval::new(&table);
        let pos = Ataxx::from_text(&(), "x6/7/7/7/7/7/6o x 0 1").unwrap();
        // x on a7 reaches 8 squares, o on g1 8 others: the same count each.
        assert_eq!(e.term_differences(&pos)[TERRITORY], 0);
        let pos = Ataxx::from_text(&(), "xx5/7/7/7/7/7/6o x 0 1").unwrap();
        // a7 and b7 reach a5-d5, a6-d6, c7, d7: 10 squares.
        assert_eq!(e.term_differences(&pos)[TERRITORY], 10 - 8);
        // A stone more (100) and two squares of territory more (5 each).
        assert_eq!(e.score(&pos), 100 + 5 * 2);
    }

    #[test]
    fn exposed_stones_stand_next_to_an_empty_square_the_opponent_reaches() {
        // By coordinates: a stone is exposed when an empty square one step from it
        // (Chebyshev distance 1) is one or two steps from an opponent's stone.
        let dist = |a: usize, b: usize| (a % 7).abs_diff(b % 7).max((a / 7).abs_diff(b / 7));
        let table = AtaxxTable {
            exposed: 1,
            ..AtaxxTable::material_only()
        };
        let e = AtaxxEval::new(&table);
        let mut nonzero = 0;
        for (own, opp, empty) in random_boards(11, 5_000) {
            let exposed = |own: u64, opp: u64| {
                squares(own)
                    .filter(|&s| {
                        squares(empty).any(|e| {
                            dist(s, e) == 1 && squares(opp).any(|o| (1..=2).contains(&dist(o, e)))
                        })
                    })
                    .count() as i64
            };
            let pos = with_stones(own, opp);
            let c = e.side_counts(&pos, Side::First);
            assert_eq!(c[EXPOSED], exposed(own, opp), "{own:#x} {opp:#x}");
            let d = e.term_differences(&pos)[EXPOSED];
            assert_eq!(
                d,
                exposed(own, opp) - exposed(opp, own),
                "{own:#x} {opp:#x}"
            );
            nonzero += u32::from(d != 0);
        }
        assert!(nonzero > 100, "{nonzero}");
        // x on a7, o on e7: every empty square next to one is three files from the
        // other, out of its reach.
        let pos = Ataxx::from_text(&(), "x3o2/7/7/7/7/7/7 x 0 1").unwrap();
        assert_eq!(e.side_counts(&pos, Side::First)[EXPOSED], 0);
        assert_eq!(e.side_counts(&pos, Side::Second)[EXPOSED], 0);
        // x on b7 too: o reaches c7 and c6 next to b7 (not a6 or b6 next to a7), and x
        // reaches d7 next to e7.
        let pos = Ataxx::from_text(&(), "xx2o2/7/7/7/7/7/7 x 0 1").unwrap();
        assert_eq!(e.side_counts(&pos, Side::First)[EXPOSED], 1);
        assert_eq!(e.side_counts(&pos, Side::Second)[EXPOSED], 1);
        // A stone more (100), one exposed stone each: the weight cancels.
        assert_eq!(e.score(&pos), 100);
    }

    #[test]
    fn capture_is_the_side_to_moves_best_capture() {
        // Every legal move played: the most stones any of them flips.
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(10);
        let mut moves = Vec::new();
        let (mut seen, mut best_seen) = (0, 0);
        for _ in 0..300 {
            let mut pos = Ataxx::default();
            for _ in 0..rng.random_range(0..60) {
                pos.legal_moves(&mut moves);
                if moves.is_empty() || pos.outcome().is_some() {
                    break;
                }
                pos.play(moves[rng.random_range(0..moves.len())]);
            }
            if pos.outcome().is_some() {
                continue;
            }
            let (me, them) = (pos.side_to_move(), pos.side_to_move().other());
            pos.legal_moves(&mut moves);
            let before = pos.stones(them).count_ones();
            let want = moves
                .iter()
                .map(|&mv| {
                    let mut after = pos;
                    after.play(mv);
                    before - after.stones(them).count_ones()
                })
                .max()
                .unwrap_or(0);
            let got = best_capture(pos.stones(me), pos.stones(them), pos.empty());
            assert_eq!(got, want, "{}", pos.fen());
            seen += 1;
            best_seen = best_seen.max(got);
        }
        assert!(seen > 200 && best_seen >= 4, "{seen} {best_seen}");
        // The side to move's own term: x to move takes the two o stones next to c2.
        let table = AtaxxTable {
            capture: 30,
            ..AtaxxTable::material_only()
        };
        let e = AtaxxEval::new(&table);
        let pos = Ataxx::from_text(&(), "7/7/7/7/7/1oo4/x6 x 0 1").unwrap();
        assert_eq!(e.term_differences(&pos)[CAPTURE], 2);
        assert_eq!(e.score(&pos), 100 * (1 - 2) + 30 * 2);
        let pos = Ataxx::from_text(&(), "7/7/7/7/7/1oo4/x6 o 0 1").unwrap();
        assert_eq!(e.term_differences(&pos)[CAPTURE], 1);
        assert_eq!(e.side_terms(&pos, Side::First), 100);
    }

    /// Holes square by square: every empty square next to `own` that `opp` reaches
    /// with a single or a jump, by the number of `own` stones around it.
    fn holes_by_square(own: u64, opp: u64, empty: u64) -> [u32; 8] {
        let mut out = [0u32; 8];
        for sq in squares(empty) {
            let around = (neighbours(sq) & own).count_ones();
            let reached = squares(opp)
                .any(|o| neighbours(o) & (1 << sq) != 0 || jump_targets(o) & (1 << sq) != 0);
            if around > 0 && reached {
                out[around as usize - 1] += 1;
            }
        }
        out
    }

    #[test]
    fn holes_by_shifts_equal_holes_square_by_square() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        let mut seen = [0u32; 8];
        for _ in 0..20_000 {
            let a: u64 = rng.random::<u64>() & crate::game::ataxx::FULL;
            let b: u64 = rng.random::<u64>() & crate::game::ataxx::FULL;
            let c: u64 = rng.random::<u64>() & crate::game::ataxx::FULL;
            // Own stones, the opponent's, empty squares (the rest are gaps).
            let (own, opp) = (a & b, a & !b);
            let empty = !a & c & crate::game::ataxx::FULL;
            let got = hole_counts(own, opp, empty);
            assert_eq!(got, holes_by_square(own, opp, empty), "{own:#x} {opp:#x}");
            for (s, g) in seen.iter_mut().zip(got) {
                *s += g;
            }
        }
        assert!(seen.iter().all(|&n| n > 0), "every count seen: {seen:?}");
    }

    #[test]
    fn endgame_changes_blend_by_the_share_of_filled_squares() {
        let flat = AtaxxTable {
            tempo: 30,
            hole_2: -7,
            ..AtaxxTable::material_only()
        };
        let mut tapered = flat.clone();
        tapered.endgame.material = -49;
        tapered.endgame.tempo = 98;
        // Black (x) to move with 3 stones against 2, 5 stones on 49 playable squares:
        // material (100 - 49·5/49) · 1, tempo (30 + 98·5/49), no holes weighed yet.
        let pos = Ataxx::from_text(&(), "x5o/7/7/3x3/7/7/o5x x 0 1").unwrap();
        let flat_score = AtaxxEval::new(&flat).evaluate(&pos);
        assert_eq!(AtaxxEval::phase(&pos), (5, 49));
        let holes = |side| hole_counts(pos.stones(side), pos.stones(side.other()), pos.empty());
        let hole_2 = i64::from(holes(Side::First)[1]) - i64::from(holes(Side::Second)[1]);
        assert_eq!(i64::from(flat_score), 100 + 30 - 7 * hole_2);
        let got = AtaxxEval::new(&tapered).evaluate(&pos);
        // (-49 · 1 + 98 · 1) · 5 / 49 = 5 (rounded towards zero).
        assert_eq!(got, flat_score + 5);
        // A table without endgame changes never reads the phase: the same score on any
        // board whatever its fill, as before `[endgame]` existed.
        let mut moves = Vec::new();
        let mut pos = Ataxx::default();
        let e = AtaxxEval::new(&flat);
        for ply in 0..60 {
            pos.legal_moves(&mut moves);
            if moves.is_empty() || pos.outcome().is_some() {
                break;
            }
            pos.play(moves[(ply * 7) % moves.len()]);
            let me = pos.side_to_move();
            let want = e.side_terms(&pos, me) - e.side_terms(&pos, me.other()) + 30;
            assert_eq!(e.score(&pos), want, "{}", pos.fen());
        }
    }

    #[test]
    fn start_position_is_balanced() {
        let table = AtaxxTable {
            family: "ataxx".into(),
            name: "t".into(),
            material: 100,
            rectangle: 1,
            mobility: 3,
            frontier: -2,
            corner: 5,
            edge: 1,
            tempo: 0,
            tempo_filled: 0,
            ..AtaxxTable::material_only()
        };
        let mut e = AtaxxEval::new(&table);
        let pos = Ataxx::default();
        assert_eq!(e.evaluate(&pos), 0);
        // The side to move's own terms: 200 + 4 filled squares x 10.
        let mut e = AtaxxEval::new(&AtaxxTable {
            tempo: 200,
            tempo_filled: 10,
            ..table
        });
        assert_eq!(e.evaluate(&pos), 240);
        assert_eq!(mobility(pos.stones(Side::First), pos.empty()), 16);
    }
}
