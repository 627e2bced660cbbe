//! The memo of the threat search ([`super::threats`]): positions known to hold no threat
//! win within some number of attacker moves. It lives below both the threat search and
//! the evaluator that keeps one per search ([`super::mnk::MnkEval`]), so neither module
//! imports the other both ways.

/// Slots of the memo of positions without a win (16 bytes each: 256 KB).
const MEMO_SLOTS: usize = 1 << 14;

/// Positions known to hold no threat win within some number of attacker moves.
#[derive(Clone, Debug, Default)]
pub struct Memo {
    /// (hash ^ kind salt, moves searched, epoch); allocated on first use.
    slots: Vec<(u64, u16, u16)>,
    epoch: u16,
}

impl Memo {
    /// Forgets everything (O(1) but for a wipe every 65535 calls).
    pub fn clear(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.slots.iter_mut().for_each(|s| *s = (0, 0, 0));
            self.epoch = 1;
        }
    }

    #[inline]
    fn slot(key: u64) -> usize {
        (key >> 50) as usize & (MEMO_SLOTS - 1)
    }

    #[inline]
    pub(super) fn no_win_within(&self, key: u64, moves: u32) -> bool {
        self.slots.get(Memo::slot(key)).is_some_and(|&(k, m, e)| {
            k == key && e == self.epoch && u32::from(m) >= moves && self.epoch != 0
        })
    }

    #[inline]
    pub(super) fn store_no_win(&mut self, key: u64, moves: u32) {
        if self.slots.is_empty() {
            self.slots = vec![(0, 0, 0); MEMO_SLOTS];
            if self.epoch == 0 {
                self.epoch = 1;
            }
        }
        let m = moves.min(u32::from(u16::MAX)) as u16;
        self.slots[Memo::slot(key)] = (key, m, self.epoch);
    }
}
