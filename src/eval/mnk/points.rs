//! Points and the cell sets kept of them: what a stone of one side would make on an
//! empty cell, as packed counts ([`COUNTS`]) and unpacked ([`PointInfo`]), the threat
//! [`level`]s and combinations those counts reach, and per side the empty cells reaching
//! each ([`KeptSets`]), moved between sets as counts change.
//!
//! It owns the packing and the sets; it knows nothing of boards, keys or weights (the
//! evaluator, [`super::MnkEval`], computes the counts and says when they change).

use crate::eval::{cells::CellSet, patterns::Pattern, table::COMBOS};

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

/// The combinations packed counts make, one bit each ([`combos_of`]).
#[inline]
fn combo_bits(counts: u32) -> u8 {
    combos_of((counts >> 16) & 0xFF, (counts >> 24) & 0xF, counts >> 28)
}

/// The combinations a stone makes from its lines' fours, open threes and open twos, one
/// bit each in [`crate::eval::table::MnkTable::cell_weights`]' order: two fours, a four
/// and an open three, two open threes, a four and an open two, an open three and an
/// open two, two open twos.
#[inline]
fn combos_of(fours: u32, threes: u32, twos: u32) -> u8 {
    u8::from(fours >= 2)
        | u8::from(fours >= 1 && threes >= 1) << 1
        | u8::from(threes >= 2) << 2
        | u8::from(fours >= 1 && twos >= 1) << 3
        | u8::from(threes >= 1 && twos >= 1) << 4
        | u8::from(twos >= 2) << 5
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

    /// The combinations the point makes, one bit each ([`combos_of`]).
    #[inline]
    pub(super) fn combos(&self) -> u8 {
        combos_of(
            self.fours.into(),
            self.open_threes.into(),
            self.open_twos.into(),
        )
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
/// score reads combination cells, how many empty cells there are where a stone would
/// make each combination ([`combo_bits`]' order), and under renju which (black's
/// forbidden ones must be left out when counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct KeptSets {
    /// Per side and [`level`].
    threats: ThreatSets,
    /// Per side and combination, the cells (empty unless `combo_sets_on`).
    combos: ComboSets,
    /// Per side and combination, how many cells (0 unless `combos_on`).
    combo_n: ComboCounts,
    /// Whether the combinations are counted.
    combos_on: bool,
    /// Whether the combinations' cells are kept as sets too.
    combo_sets_on: bool,
}

/// Per side and combination, how many empty cells make it.
pub(super) type ComboCounts = [[u16; COMBOS]; 2];

/// Per side and [`level`], the empty cells reaching it.
pub(super) type ThreatSets = [[CellSet; level::COUNT]; 2];

/// Per side and combination, the empty cells where a stone would make it.
pub(super) type ComboSets = [[CellSet; COMBOS]; 2];

impl KeptSets {
    /// Whether the combination sets are kept (not only counted).
    #[inline]
    pub(super) fn combo_sets_on(&self) -> bool {
        self.combo_sets_on
    }

    /// A copy of the combination counts.
    #[inline]
    pub(super) fn combo_n(&self) -> ComboCounts {
        self.combo_n
    }

    /// Puts back combination counts copied before.
    #[inline]
    pub(super) fn restore_combo_n(&mut self, n: ComboCounts) {
        self.combo_n = n;
    }

    /// Copies the threat sets into `to` (to put back with
    /// [`KeptSets::restore_threat_sets`]).
    #[inline]
    pub(super) fn copy_threat_sets(&self, to: &mut ThreatSets) {
        *to = self.threats;
    }

    /// Puts back threat sets copied before.
    #[inline]
    pub(super) fn restore_threat_sets(&mut self, threats: &ThreatSets) {
        self.threats = *threats;
    }

    /// A copy of the combination sets.
    #[inline]
    pub(super) fn combo_sets(&self) -> ComboSets {
        self.combos
    }

    /// Puts back combination sets copied before.
    #[inline]
    pub(super) fn restore_combo_sets(&mut self, combos: ComboSets) {
        self.combos = combos;
    }

    /// Every set empty; the combinations counted only if `combos_on`, their cells kept
    /// as sets only if `combo_sets` too.
    pub(super) fn new(combos_on: bool, combo_sets: bool) -> KeptSets {
        KeptSets {
            threats: [[CellSet::EMPTY; level::COUNT]; 2],
            combos: [[CellSet::EMPTY; COMBOS]; 2],
            combo_n: [[0; COMBOS]; 2],
            combos_on,
            combo_sets_on: combos_on && combo_sets,
        }
    }

    /// Counts the combinations `bits` of cell `c` in (or, `on` false, out of) `side`'s.
    #[inline]
    fn count_combos(&mut self, side: usize, c: usize, bits: u8, on: bool) {
        for k in 0..COMBOS {
            if bits & (1 << k) != 0 {
                let n = &mut self.combo_n[side][k];
                *n = if on { *n + 1 } else { *n - 1 };
                if self.combo_sets_on {
                    self.combos[side][k].set(c, on);
                }
            }
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
            self.count_combos(side, c, combo_bits(counts), on);
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
            if a != b {
                self.count_combos(side, c, b & !a, false);
                self.count_combos(side, c, a & !b, true);
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
    ) -> [u32; COMBOS] {
        std::array::from_fn(|k| match &forbidden {
            Some(forbidden) => {
                debug_assert!(self.combo_sets_on, "forbidden cells need the sets");
                self.combos[side][k]
                    .iter()
                    .filter(|&c| !forbidden(c))
                    .count() as u32
            }
            None => u32::from(self.combo_n[side][k]),
        })
    }

    /// Puts `c` in the sets of `side` given as bits: `levels` (one a [`level`]) and
    /// `combos` (one a combination, kept only if `combos_on`); for sets built by a scan.
    pub(super) fn mark(&mut self, side: usize, c: usize, levels: u8, combos: u8) {
        for (lvl, set) in self.threats[side].iter_mut().enumerate() {
            set.set(c, levels & (1 << lvl) != 0);
        }
        if self.combos_on {
            self.count_combos(side, c, combos, true);
        }
    }

    /// Whether these sets equal `scan`'s (built by [`KeptSets::mark`]): `Err` says which
    /// kind of set differs.
    pub(super) fn check(&self, scan: &KeptSets) -> Result<(), String> {
        if self.threats != scan.threats {
            return Err("a threat set differs from a scan".into());
        }
        if self.combos != scan.combos || self.combo_n != scan.combo_n {
            return Err("a combination set differs from a scan".into());
        }
        Ok(())
    }
}
