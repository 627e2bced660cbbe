//! Move-ordering memory learned during search: two killer moves per ply (kept in the
//! searcher's per-ply buffers) and the history table here, indexed by side and
//! [`Game::move_index`](crate::game::Game::move_index).

/// The bound of a [`History`] entry in bounded mode.
pub const BOUNDED_LIMIT: i32 = 16_384;

/// The history heuristic: for each side and move index, how often (weighted by depth²)
/// the move caused a beta cutoff.
///
/// Two modes. The default only counts cutoffs (halving everything when an entry passes
/// 2^24). Bounded mode (`search.params.lmr_history`) keeps each entry within
/// ±[`BOUNDED_LIMIT`] by "gravity" (`h += b − h·|b| / limit`, so an entry near the bound
/// moves little) and takes a malus for the quiet moves searched before a cutoff, so an
/// entry says whether a move tends to cut or to fail: what the reductions read.
#[derive(Clone, Debug, Default)]
pub struct History {
    table: Vec<i32>,
    bound: usize,
    bounded: bool,
}

impl History {
    /// Gets ready for a search of a game with `bound` move indices: a new table if the
    /// game or the mode differs, else the old one with every entry halved (old history
    /// still helps, but less).
    pub fn prepare(&mut self, bound: usize, bounded: bool) {
        if self.bound != bound || self.bounded != bounded {
            self.table = vec![0; 2 * bound];
            self.bound = bound;
            self.bounded = bounded;
        } else {
            self.table.iter_mut().for_each(|h| *h /= 2);
        }
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.table.iter_mut().for_each(|h| *h = 0);
    }

    /// The ordering score of move index `index` for side `side` (0 or 1): never
    /// negative (in bounded mode the entry plus [`BOUNDED_LIMIT`]).
    #[inline]
    pub fn get(&self, side: usize, index: usize) -> i32 {
        let h = self.table[side * self.bound + index];
        if self.bounded { h + BOUNDED_LIMIT } else { h }
    }

    /// The entry itself: in bounded mode within ±[`BOUNDED_LIMIT`], positive for a move
    /// that tends to cut.
    #[inline]
    pub fn signed(&self, side: usize, index: usize) -> i32 {
        self.table[side * self.bound + index]
    }

    /// A cutoff by the move at `index` at remaining depth `depth`.
    #[inline]
    pub fn reward(&mut self, side: usize, index: usize, depth: i32) {
        if self.bounded {
            self.gravity(side, index, bonus(depth));
            return;
        }
        let h = &mut self.table[side * self.bound + index];
        *h = h.saturating_add(depth * depth);
        if *h > 1 << 24 {
            self.table.iter_mut().for_each(|h| *h /= 2);
        }
    }

    /// Bounded mode: a quiet move at `index` searched before another move cut at
    /// remaining depth `depth` (no effect in the default mode).
    #[inline]
    pub fn punish(&mut self, side: usize, index: usize, depth: i32) {
        if self.bounded {
            self.gravity(side, index, -bonus(depth));
        }
    }

    #[inline]
    fn gravity(&mut self, side: usize, index: usize, b: i32) {
        let h = &mut self.table[side * self.bound + index];
        let next = i64::from(*h) + i64::from(b)
            - i64::from(*h) * i64::from(b.abs()) / i64::from(BOUNDED_LIMIT);
        *h = next.clamp(-i64::from(BOUNDED_LIMIT), i64::from(BOUNDED_LIMIT)) as i32;
    }
}

/// The bounded-mode change for a cutoff at remaining depth `depth`: 16·d², at most a
/// quarter of the bound.
#[inline]
fn bonus(depth: i32) -> i32 {
    let d = depth.clamp(0, 64);
    (16 * d * d).min(BOUNDED_LIMIT / 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_mode_counts_depth_squared_and_ignores_punishment() {
        let mut h = History::default();
        h.prepare(10, false);
        h.reward(0, 3, 4);
        h.reward(0, 3, 2);
        h.punish(0, 3, 5);
        assert_eq!((h.get(0, 3), h.signed(0, 3), h.get(1, 3)), (20, 20, 0));
        h.prepare(10, false);
        assert_eq!(h.get(0, 3), 10);
    }

    #[test]
    fn bounded_entries_move_by_gravity_and_stay_within_the_bound() {
        let mut h = History::default();
        h.prepare(4, true);
        // From 0 a cutoff at depth 4 adds 16·16 = 256; a malus at depth 2 then takes
        // 64 + 256·64/16384 = 65 (integer division): gravity pulls toward 0 too.
        h.reward(1, 2, 4);
        assert_eq!(h.signed(1, 2), 256);
        h.punish(1, 2, 2);
        assert_eq!(h.signed(1, 2), 256 - 64 - 1);
        assert_eq!(h.get(1, 2), 191 + BOUNDED_LIMIT);
        assert_eq!(h.get(0, 2), BOUNDED_LIMIT);
        for _ in 0..1000 {
            h.reward(0, 1, 60);
            h.punish(0, 0, 60);
        }
        // Deep cutoffs add a quarter of the bound each time but never pass it.
        assert!(h.signed(0, 1) <= BOUNDED_LIMIT && h.signed(0, 1) > BOUNDED_LIMIT * 9 / 10);
        assert!(h.signed(0, 0) >= -BOUNDED_LIMIT && h.signed(0, 0) < -BOUNDED_LIMIT * 9 / 10);
        assert!(h.get(0, 0) >= 0);
        // Switching modes starts a fresh table.
        h.prepare(4, false);
        assert_eq!(h.get(0, 1), 0);
    }
}
