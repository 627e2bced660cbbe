//! Points and the cell sets kept of them: what a stone of one side would make on an
//! empty cell, as packed counts ([`COUNTS`]) and unpacked ([`PointInfo`]), the threat
//! [`level`]s and combinations those counts reach, and per side the empty cells reaching
//! each ([`KeptSets`]), moved between sets as counts change.
//!
//! It owns the packing and the sets; it knows nothing of boards, keys or weights (the
//! evaluator, [`super::MnkEval`], computes the counts and says when they change).

use crate::eval::{cells::CellSet, patterns::Pattern};

/// Per pattern, what it adds to a point's counts, packed: fives in bits 0-7, open fours
/// 8-15, fours 16-23, open threes 24-27, open twos 28-31 (at most 4 lines each).
pub(super) const COUNTS: [u32; 256] = {
    let mut c = [0u32; 256];
    c[Pattern::Five as usize] = 1;
    c[Pattern::OpenFour as usize] = (1 << 8) | (1 << 16);
    c[Pattern::RushFour as usize] = 1 << 16;
    c[Pattern::OpenThree as usize] = 1 << 24;
    c[Pattern::OpenTwo as usize] = 1 << 28;
    c
};

/// The threat levels kept per side as cell sets ([`super::MnkEval::threat_cells`]): the
/// empty cells where a stone of that side would make ...
pub mod level {
    /// ... a winning line (a "five point").
    pub const FIVE: usize = 0;
    /// ... an open four (two cells then complete a line).
    pub const OPEN_FOUR: usize = 1;
    /// ... a four of either kind (at least one cell then completes a line).
    pub const FOUR: usize = 2;
    /// ... an open three.
    pub const THREE: usize = 3;
    /// Number of levels.
    pub const COUNT: usize = 4;
}

/// The field of packed counts that each [`level`] reads.
const LEVEL_MASKS: [u32; level::COUNT] = [0xFF, 0xFF00, 0xFF_0000, 0x0F00_0000];

/// The [`level`]s packed counts reach, one bit each.
#[inline]
fn level_bits(counts: u32) -> u8 {
    u8::from(counts & 0xFF != 0)
        | u8::from(counts & 0xFF00 != 0) << 1
        | u8::from(counts & 0xFF_0000 != 0) << 2
        | u8::from(counts & 0x0F00_0000 != 0) << 3
}

/// The combinations packed counts make, one bit each: two fours, a four and an open
/// three, two open threes ([`crate::eval::table::MnkTable::cell_weights`]' order).
#[inline]
fn combo_bits(counts: u32) -> u8 {
    combos_of((counts >> 16) & 0xFF, (counts >> 24) & 0xF)
}

/// [`combo_bits`] from a point's fours and open threes.
#[inline]
pub(super) fn combos_of(fours: u32, threes: u32) -> u8 {
    u8::from(fours >= 2) | u8::from(fours >= 1 && threes >= 1) << 1 | u8::from(threes >= 2) << 2
}

/// What a stone of one side would make on an empty cell, over its four lines.
#[derive(Clone, Copy, Debug, Default)]
pub struct PointInfo {
    /// Point score: pattern weights + combination bonuses + centre bonus.
    pub score: i64,
    /// Lines where it makes a winning line.
    pub fives: u8,
    /// Lines where it makes an open four.
    pub open_fours: u8,
    /// Lines where it makes a four of either kind.
    pub fours: u8,
    /// Lines where it makes an open three.
    pub open_threes: u8,
    /// Lines where it makes an open two.
    pub open_twos: u8,
}

impl PointInfo {
    /// The point that packed counts describe, its score 0 (the evaluator adds it).
    #[inline]
    pub(super) fn unpack(counts: u32) -> PointInfo {
        PointInfo {
            score: 0,
            fives: (counts & 0xFF) as u8,
            open_fours: ((counts >> 8) & 0xFF) as u8,
            fours: ((counts >> 16) & 0xFF) as u8,
            open_threes: ((counts >> 24) & 0xF) as u8,
            open_twos: (counts >> 28) as u8,
        }
    }

    /// A win next move: a five.
    pub fn is_win(&self) -> bool {
        self.fives > 0
    }

    /// Wins unless the opponent has a faster threat: an open four, two fours, or a four
    /// and an open three (seed 001's "near kill").
    pub fn is_decisive(&self) -> bool {
        self.open_fours > 0 || self.fours >= 2 || (self.fours >= 1 && self.open_threes >= 1)
    }

    /// Whether the point reaches a [`level`].
    #[inline]
    pub fn at_level(&self, level: usize) -> bool {
        match level {
            level::FIVE => self.fives > 0,
            level::OPEN_FOUR => self.open_fours > 0,
            level::FOUR => self.fours > 0,
            _ => self.open_threes > 0,
        }
    }
}

/// Per side, the empty cells whose point reaches each [`level`] and, when the `lines`
/// score reads combination cells, the empty cells where a stone would make each
/// combination ([`combo_bits`]' order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct KeptSets {
    /// Per side and [`level`].
    threats: [[CellSet; level::COUNT]; 2],
    /// Per side and combination (empty unless `combos_on`).
    combos: [[CellSet; 3]; 2],
    /// Whether the combination sets are kept.
    combos_on: bool,
}

impl KeptSets {
    /// Every set empty; the combination sets kept only if `combos_on`.
    pub(super) fn new(combos_on: bool) -> KeptSets {
        KeptSets {
            threats: [[CellSet::EMPTY; level::COUNT]; 2],
            combos: [[CellSet::EMPTY; 3]; 2],
            combos_on,
        }
    }

    /// Adds the empty cell `c` to (or, `on` false, removes it from) the sets of `side`
    /// that `counts`, its point's packed counts, reach.
    #[inline]
    pub(super) fn set(&mut self, side: usize, c: usize, counts: u32, on: bool) {
        let bits = level_bits(counts);
        for lvl in 0..level::COUNT {
            if bits & (1 << lvl) != 0 {
                self.threats[side][lvl].set(c, on);
            }
        }
        if self.combos_on {
            let bits = combo_bits(counts);
            for (k, set) in self.combos[side].iter_mut().enumerate() {
                if bits & (1 << k) != 0 {
                    set.set(c, on);
                }
            }
        }
    }

    /// The packed counts of `side` on the empty cell `c` went from `before` to `after`:
    /// the cell leaves the sets it no longer reaches and enters the new ones.
    #[inline]
    pub(super) fn counts_changed(&mut self, side: usize, c: usize, before: u32, after: u32) {
        let changed = level_bits(before) ^ level_bits(after);
        for (lvl, mask) in LEVEL_MASKS.iter().enumerate() {
            if changed & (1 << lvl) != 0 {
                self.threats[side][lvl].set(c, after & mask != 0);
            }
        }
        if self.combos_on {
            let (b, a) = (combo_bits(before), combo_bits(after));
            for (k, set) in self.combos[side].iter_mut().enumerate() {
                if (a ^ b) & (1 << k) != 0 {
                    set.set(c, a & (1 << k) != 0);
                }
            }
        }
    }

    /// Per [`level`], the empty cells whose point for `side` reaches it.
    #[inline]
    pub(super) fn threats(&self, side: usize) -> &[CellSet; level::COUNT] {
        &self.threats[side]
    }

    /// Per combination, how many empty cells there are where a stone of `side` would
    /// make it, leaving out those that `forbidden` names (`None`: none is).
    #[inline]
    pub(super) fn combo_counts(
        &self,
        side: usize,
        forbidden: Option<impl Fn(usize) -> bool>,
    ) -> [u32; 3] {
        std::array::from_fn(|k| {
            let set = &self.combos[side][k];
            match &forbidden {
                Some(forbidden) => set.iter().filter(|&c| !forbidden(c)).count() as u32,
                None => set.len(),
            }
        })
    }

    /// Puts `c` in the sets of `side` given as bits: `levels` (one a [`level`]) and
    /// `combos` (one a combination, kept only if `combos_on`); for sets built by a scan.
    pub(super) fn mark(&mut self, side: usize, c: usize, levels: u8, combos: u8) {
        for (lvl, set) in self.threats[side].iter_mut().enumerate() {
            set.set(c, levels & (1 << lvl) != 0);
        }
        if self.combos_on {
            for (k, set) in self.combos[side].iter_mut().enumerate() {
                set.set(c, combos & (1 << k) != 0);
            }
        }
    }

    /// Whether these sets equal `scan`'s (built by [`KeptSets::mark`]): `Err` says which
    /// kind of set differs.
    pub(super) fn check(&self, scan: &KeptSets) -> Result<(), String> {
        if self.threats != scan.threats {
            return Err("a threat set differs from a scan".into());
        }
        if self.combos != scan.combos {
            return Err("a combination set differs from a scan".into());
        }
        Ok(())
    }
}
