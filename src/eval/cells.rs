//! A set of board cells as a fixed bitset (up to 448 cells: every m,n,k board fits), for
//! state that an evaluator keeps incrementally: candidate cells, threat points. Iteration
//! is in increasing cell order, the order a scan of the board would give.

/// Words of a [`CellSet`]: 7 × 64 = 448 ≥ 20 × 20.
const WORDS: usize = 7;

/// A set of cells `0..448`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CellSet {
    words: [u64; WORDS],
}

impl CellSet {
    /// The empty set.
    pub const EMPTY: CellSet = CellSet { words: [0; WORDS] };

    /// Adds `cell`.
    #[inline]
    pub fn insert(&mut self, cell: usize) {
        self.words[cell >> 6] |= 1 << (cell & 63);
    }

    /// Removes `cell`.
    #[inline]
    pub fn remove(&mut self, cell: usize) {
        self.words[cell >> 6] &= !(1 << (cell & 63));
    }

    /// Adds or removes `cell`.
    #[inline]
    pub fn set(&mut self, cell: usize, on: bool) {
        if on {
            self.insert(cell);
        } else {
            self.remove(cell);
        }
    }

    /// Whether `cell` is in the set.
    #[inline]
    pub fn contains(&self, cell: usize) -> bool {
        self.words[cell >> 6] & (1 << (cell & 63)) != 0
    }

    /// Number of cells.
    #[inline]
    pub fn len(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The lowest cell, if any.
    #[inline]
    pub fn first(&self) -> Option<usize> {
        self.words
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
    }

    /// The cells in increasing order.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros() as usize;
                    w &= w - 1;
                    i * 64 + b
                })
            })
        })
    }

    /// Cells in both sets.
    #[inline]
    pub fn and(&self, other: &CellSet) -> CellSet {
        CellSet {
            words: std::array::from_fn(|i| self.words[i] & other.words[i]),
        }
    }

    /// Cells in either set.
    #[inline]
    pub fn or(&self, other: &CellSet) -> CellSet {
        CellSet {
            words: std::array::from_fn(|i| self.words[i] | other.words[i]),
        }
    }

    /// Cells of `self` not in `other`.
    #[inline]
    pub fn minus(&self, other: &CellSet) -> CellSet {
        CellSet {
            words: std::array::from_fn(|i| self.words[i] & !other.words[i]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations_match_a_vector_model() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut set = CellSet::EMPTY;
        let mut model = [false; 448];
        for _ in 0..5000 {
            let c = rng.random_range(0..448);
            let on = rng.random_bool(0.6);
            set.set(c, on);
            model[c] = on;
        }
        let want: Vec<usize> = (0..448).filter(|&c| model[c]).collect();
        assert_eq!(set.iter().collect::<Vec<_>>(), want);
        assert_eq!(set.len() as usize, want.len());
        assert_eq!(set.first(), want.first().copied());
        assert!(want.iter().all(|&c| set.contains(c)));
        let mut other = CellSet::EMPTY;
        other.insert(want[0]);
        other.insert(447);
        assert_eq!(set.and(&other).first(), Some(want[0]));
        assert!(set.minus(&set).is_empty());
        assert_eq!(set.or(&other).len(), set.len() + u32::from(!model[447]));
    }
}
