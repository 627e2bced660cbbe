//! The evaluator's kept state against a recomputation from scratch: what the property
//! tests compare (incremental == from scratch).

use super::{EMPTY, MnkEval, level, points::KeptSets};
use crate::eval::cells::CellSet;

impl MnkEval {
    /// The position score from scratch (the sum of every stone's line weights and centre
    /// bonus, per side); the incremental sums must equal it.
    pub fn sums_from_scratch(&self) -> [i64; 2] {
        let mut sums = [0; 2];
        for c in 0..self.config.cells() {
            if self.board[c] != EMPTY {
                let s = usize::from(self.board[c] - 1);
                sums[s] += self.stone_value(c, s);
            }
        }
        sums
    }

    /// The line keys (for tests comparing incremental with from-scratch state).
    pub fn keys(&self) -> Vec<[u32; 4]> {
        self.cells.iter().map(|st| st.keys).collect()
    }

    /// Checks every incrementally kept set and point against a recomputation from the
    /// keys (for tests): `Err` names the first difference.
    pub fn check_kept_state(&self) -> Result<(), String> {
        if !self.track {
            return Ok(());
        }
        let mut near_empty = CellSet::EMPTY;
        let mut scan = KeptSets::new(self.cells_on, self.renju);
        for c in 0..self.config.cells() {
            if self.board[c] != EMPTY {
                continue;
            }
            if self.radius > 0 && self.near[c] > 0 {
                near_empty.insert(c);
            }
            for side in 0..2 {
                let kept = &self.point(c, side);
                let want = &self.point_from_scratch(c, side);
                if (
                    kept.score,
                    kept.fives,
                    kept.open_fours,
                    kept.fours,
                    kept.open_threes,
                ) != (
                    want.score,
                    want.fives,
                    want.open_fours,
                    want.fours,
                    want.open_threes,
                ) || kept.open_twos != want.open_twos
                {
                    return Err(format!(
                        "cell {c} side {side}: kept {kept:?}, fresh {want:?}"
                    ));
                }
                let levels = (0..level::COUNT)
                    .filter(|&lvl| want.at_level(lvl))
                    .fold(0u8, |bits, lvl| bits | 1 << lvl);
                let combos = want.combos();
                scan.mark(side, c, levels, combos);
            }
        }
        if self.radius > 0 && near_empty != self.near_empty {
            return Err("the candidate set differs from a scan".into());
        }
        self.kept.check(&scan)
    }
}
