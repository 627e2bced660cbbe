//! Move-ordering memory learned during search: two killer moves per ply (kept in the
//! searcher's per-ply buffers) and the history table here, indexed by side and
//! [`Game::move_index`](crate::game::Game::move_index).

/// The history heuristic: for each side and move index, how often (weighted by depth²)
/// the move caused a beta cutoff.
#[derive(Clone, Debug, Default)]
pub struct History {
    table: Vec<i32>,
    bound: usize,
}

impl History {
    /// Gets ready for a search of a game with `bound` move indices: a new table if the
    /// game differs, else the old one with every entry halved (old history still helps,
    /// but less).
    pub fn prepare(&mut self, bound: usize) {
        if self.bound != bound {
            self.table = vec![0; 2 * bound];
            self.bound = bound;
        } else {
            self.table.iter_mut().for_each(|h| *h /= 2);
        }
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.table.iter_mut().for_each(|h| *h = 0);
    }

    /// The score of move index `index` for side `side` (0 or 1).
    #[inline]
    pub fn get(&self, side: usize, index: usize) -> i32 {
        self.table[side * self.bound + index]
    }

    /// A cutoff by the move at `index` at remaining depth `depth`.
    #[inline]
    pub fn reward(&mut self, side: usize, index: usize, depth: i32) {
        let h = &mut self.table[side * self.bound + index];
        *h = h.saturating_add(depth * depth);
        if *h > 1 << 24 {
            self.table.iter_mut().for_each(|h| *h /= 2);
        }
    }
}
