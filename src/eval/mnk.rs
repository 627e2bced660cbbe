//! The m,n,k evaluator: line patterns kept incrementally.
//!
//! For every cell and each of the four line directions it keeps the line key of the
//! cell's neighbours (see [`super::patterns`]). A stone placed or removed changes only the
//! keys of the cells within R = k-1 (k under the exact and renju rules) along the four
//! lines through it, so [`Evaluator::played`] touches at most 8R cells; the position score
//! (the sum of the pattern weights of every stone in every line) is updated from the
//! patterns of those cells alone. Point scores (what a stone would make on an empty cell)
//! are read from the same keys when move ordering asks for them.
//!
//! Under renju, black's forbidden points (the rules' checker run on this evaluator's
//! board) are dropped where black would use them: candidates, forced defences, the
//! forcing verdicts and the threat cells the VCF/VCT search reads
//! ([`MnkEval::real_threat_cells`]); under the other rules nothing is checked.

use std::sync::Arc;

use super::{
    Evaluator, Forcing, MoveKey, NodeBudget, OrderFlags, PRUNED, ThreatKind, ThreatWin,
    cells::CellSet,
    clamp_eval,
    patterns::{KEY_WALL, PATTERN_COUNT, Pattern, PatternTable},
    table::{COMBOS, MnkEvaluation, MnkTable},
};
use crate::game::{
    Game, Mnk, MnkConfig, MnkMove, MnkRule, Side,
    mnk::{DIRECTIONS, EMPTY},
    renju,
};

mod check;
mod evaluator;
mod points;

use points::{COUNTS, ComboCounts, ComboSets, KeptSets, ThreatSets};
pub use points::{PointInfo, level};

/// One neighbour of a cell along a line: the neighbour, the direction, and where the
/// cell sits in the neighbour's key.
#[derive(Clone, Copy, Debug)]
struct Link {
    cell: u16,
    dir: u8,
    shift: u8,
}

/// What the evaluator keeps per cell, in one cache line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CellState {
    /// The line keys of the four directions.
    keys: [u32; 4],
    /// Tracking only: both sides' patterns of each key (the table's raw entry), so a move
    /// looks each changed key up once.
    raw: [u16; 4],
    /// Tracking only: per side, the point counts ([`COUNTS`] summed over the directions).
    counts: [u32; 2],
    /// Tracking only: per side, the point weights summed over the directions plus the
    /// centre bonus (the point score before combination bonuses).
    sums: [i64; 2],
}

/// What [`MnkEval::place`] is about to change besides the cells it links to: what
/// [`MnkEval::remove`] puts back at once instead of working it out again.
#[derive(Clone, Copy, Debug, Default)]
struct Frame {
    /// The cell the stone went on.
    cell: u16,
    sums: [i64; 2],
    /// The threat sets (the combination sets, when kept, go on `combo_frames`: most
    /// tables have none, and a frame is copied on every move).
    threats: ThreatSets,
    /// The combination counts (zeros unless counted).
    combo_n: ComboCounts,
    near_empty: CellSet,
}

/// A per-pattern table padded to 256 entries (indexed by a raw pattern byte).
fn widen(by_pattern: [i64; PATTERN_COUNT]) -> [i64; 256] {
    let mut w = [0; 256];
    w[..PATTERN_COUNT].copy_from_slice(&by_pattern);
    w
}

/// Which empty cells near a stone are candidates (`search.shape`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// Every cell of the square within the radius (24 cells at radius 2).
    #[default]
    Square,
    /// Only the cells on the four lines through the stone within the radius (16 at
    /// radius 2): a stone a knight's move away shares no line with it.
    Lines,
}

impl Shape {
    /// Whether the offset (`dx`, `dy`), each within the radius, is in the shape.
    #[inline]
    pub fn reaches(self, dx: i32, dy: i32) -> bool {
        match self {
            Shape::Square => true,
            Shape::Lines => dx == 0 || dy == 0 || dx == dy || dx == -dy,
        }
    }
}

/// Threat classes for `threat` ordering, higher first (seed 000's categories).
mod class {
    pub const WIN: i32 = 10;
    pub const BLOCK_WIN: i32 = 9;
    pub const DECISIVE: i32 = 8;
    pub const BLOCK_DECISIVE: i32 = 7;
    pub const DOUBLE_THREE: i32 = 6;
    pub const BLOCK_DOUBLE_THREE: i32 = 5;
    pub const THREE: i32 = 4;
    pub const BLOCK_THREE: i32 = 3;
    pub const TWO: i32 = 2;
    pub const BLOCK_TWO: i32 = 1;
}

/// The evaluator for m,n,k-games built from an [`MnkTable`].
#[derive(Clone, Debug)]
pub struct MnkEval {
    patterns: Arc<PatternTable>,
    config: MnkConfig,
    mode: MnkEvaluation,
    /// Indexed by the raw pattern byte (256 entries, so indexing needs no check).
    line_weights: [i64; 256],
    /// Indexed by the raw pattern byte.
    point_weights: [i64; 256],
    /// Centre bonus of each cell (the table's `centre` times the cell's ring).
    centre: Vec<i64>,
    double_four: i64,
    four_three: i64,
    double_three: i64,
    /// The `lines` score's weights per combination cell ([`MnkTable::cell_weights`]).
    cell_weights: [i64; COMBOS],
    /// Whether the `lines` score reads combination cells (a cell weight is not 0): only
    /// then are the combinations counted (and, under renju, their cells kept).
    cells_on: bool,
    /// `defence` in 1/256ths.
    defence_q8: i64,
    /// Candidate radius (0: every empty cell).
    radius: usize,
    links: Arc<Vec<Vec<Link>>>,
    /// The square of cells within `radius` of each cell.
    near_cells: Arc<Vec<Vec<u16>>>,
    /// Per cell: line keys and, when `track` is on, what they mean.
    cells: Vec<CellState>,
    board: Vec<u8>,
    /// Per side: the sum of the line weights of its stones plus their centre bonus.
    sums: [i64; 2],
    /// Stones within `radius` of each cell.
    near: Vec<u16>,
    stones: usize,
    /// Whether every cell's point and the threat sets are kept (see
    /// [`MnkEval::set_tracking`]).
    track: bool,
    /// Per side, the empty cells whose point reaches each [`level`] and (`cells_on`
    /// only) those where a stone would make each combination; tracking only.
    kept: KeptSets,
    /// Empty cells within `radius` of a stone (the candidates when `radius` > 0).
    near_empty: CellSet,
    /// Per stone placed since the last reset, what its placing changed (a stack whose
    /// top is `stones`; the slots above it are kept for reuse, so a frame is written in
    /// place and read back in place, never copied whole): taking the stone off restores
    /// it, which gives the same state as working it out again from the keys, at a
    /// fraction of the cost.
    frames: Vec<Frame>,
    /// The combination sets before each stone placed, when they are kept (renju).
    combo_frames: Vec<ComboSets>,
    /// The states of the cells each placed stone linked to, before it (a stack, the
    /// links' order).
    saved_cells: Vec<CellState>,
    /// Positions known to have no VCF for the side to move within some number of fours.
    pub(super) vcf_memo: super::memo::Memo,
    /// During a [`ThreatKind::VcfLeaf`] search: how it is narrowed, and the moves it
    /// started with.
    pub(super) vcf_leaf: Option<(super::LeafVcf, u32)>,
    /// Renju: black's forbidden points are neither moves nor threats for black.
    renju: bool,
}

impl MnkEval {
    /// An evaluator for the variant `config` with `table`, generating candidates within
    /// `radius` of a stone (0: every empty cell), in the square around it.
    pub fn new(config: &MnkConfig, table: &MnkTable, radius: usize) -> MnkEval {
        MnkEval::with_shape(config, table, radius, Shape::Square)
    }

    /// [`MnkEval::new`] with candidates in `shape` around a stone.
    pub fn with_shape(
        config: &MnkConfig,
        table: &MnkTable,
        radius: usize,
        shape: Shape,
    ) -> MnkEval {
        let patterns = PatternTable::get(config.k(), config.rule());
        let (w, h) = (config.width(), config.height());
        let r = patterns.radius() as i32;
        let mut links = vec![Vec::new(); config.cells()];
        let mut near_cells = vec![Vec::new(); config.cells()];
        let mut centre = vec![0; config.cells()];
        for y in 0..h as i32 {
            for x in 0..w as i32 {
                let c = config.at(x, y).expect("on the board").cell();
                for (dir, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
                    for d in (-r..=r).filter(|&d| d != 0) {
                        if let Some(n) = config.at(x + d * dx, y + d * dy) {
                            // This cell sits at offset -d in n's key.
                            links[c].push(Link {
                                cell: n.0,
                                dir: dir as u8,
                                shift: patterns.shift(-d) as u8,
                            });
                        }
                    }
                }
                let rr = radius as i32;
                for ny in y - rr..=y + rr {
                    for nx in x - rr..=x + rr {
                        if !shape.reaches(nx - x, ny - y) {
                            continue;
                        }
                        if let Some(n) = config.at(nx, ny) {
                            near_cells[c].push(n.0);
                        }
                    }
                }
                let ring = x.min(y).min(w as i32 - 1 - x).min(h as i32 - 1 - y);
                centre[c] = table.centre * i64::from(ring);
            }
        }
        let mut eval = MnkEval {
            patterns,
            config: *config,
            mode: table.evaluation,
            line_weights: widen(table.line_weights().by_pattern()),
            point_weights: widen(table.point_weights().by_pattern()),
            centre,
            double_four: table.double_four,
            four_three: table.four_three,
            double_three: table.double_three,
            cell_weights: table.cell_weights(),
            cells_on: table.evaluation == MnkEvaluation::Lines
                && table.cell_weights().iter().any(|&w| w != 0),
            defence_q8: (table.defence * 256.0).round() as i64,
            radius,
            links: Arc::new(links),
            near_cells: Arc::new(near_cells),
            cells: Vec::new(),
            board: Vec::new(),
            sums: [0; 2],
            near: Vec::new(),
            stones: 0,
            track: true,
            kept: KeptSets::new(false, false),
            near_empty: CellSet::EMPTY,
            frames: Vec::new(),
            combo_frames: Vec::new(),
            saved_cells: Vec::new(),
            vcf_memo: super::memo::Memo::default(),
            vcf_leaf: None,
            renju: config.rule() == MnkRule::Renju,
        };
        eval.clear();
        eval
    }

    /// Empty board: keys hold only the walls.
    fn clear(&mut self) {
        let cells = self.config.cells();
        let r = self.patterns.radius() as i32;
        self.cells = vec![CellState::default(); cells];
        for c in 0..cells {
            let (x, y) = self.config.xy(MnkMove(c as u16));
            for (dir, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
                for d in (-r..=r).filter(|&d| d != 0) {
                    if self.config.at(x + d * dx, y + d * dy).is_none() {
                        self.cells[c].keys[dir] |= KEY_WALL << self.patterns.shift(d);
                    }
                }
            }
        }
        self.board = vec![EMPTY; cells];
        self.sums = [0; 2];
        self.near = vec![0; cells];
        self.stones = 0;
        self.kept = KeptSets::new(self.cells_on, self.renju);
        self.near_empty = CellSet::EMPTY;
        self.frames.clear();
        self.combo_frames.clear();
        self.saved_cells.clear();
        if self.track {
            for c in 0..cells {
                let st = &mut self.cells[c];
                st.sums = [self.centre[c]; 2];
                for dir in 0..4 {
                    let raw = self.patterns.raw(st.keys[dir]);
                    st.raw[dir] = raw;
                    for side in 0..2 {
                        let p = usize::from((raw >> (8 * side)) as u8);
                        st.counts[side] += COUNTS[p];
                        st.sums[side] += self.point_weights[p];
                    }
                }
                self.set_threats(c, true);
            }
        }
    }

    /// Whether to keep every empty cell's point and the threat sets as stones come and
    /// go (on by default). Forced-move knowledge and threat search need them; engines
    /// that only order by point scores are faster without (the points are then computed
    /// when asked for). Resets the evaluator to the empty board.
    pub fn set_tracking(&mut self, on: bool) {
        self.track = on;
        self.clear();
    }

    /// Adds the empty cell `c` to (or, `on` false, removes it from) the threat sets its
    /// point reaches (tracking only).
    #[inline]
    fn set_threats(&mut self, c: usize, on: bool) {
        if !self.track {
            return;
        }
        for side in 0..2 {
            self.kept.set(side, c, self.cells[c].counts[side], on);
        }
    }

    /// The key of cell `n` along `dir` became `key`: updates its stone's line weight
    /// and, when tracking, its cached patterns, its point and its threat sets.
    #[inline]
    fn key_changed(&mut self, n: usize, dir: usize, key: u32) {
        let owner = self.board[n];
        let st = &mut self.cells[n];
        let old_key = st.keys[dir];
        st.keys[dir] = key;
        if !self.track {
            if owner != EMPTY {
                let s = usize::from(owner - 1);
                let new = self.patterns.raw(key);
                let old = self.patterns.raw(old_key);
                self.sums[s] += self.line_weights[usize::from((new >> (8 * s)) as u8)]
                    - self.line_weights[usize::from((old >> (8 * s)) as u8)];
            }
            return;
        }
        let old = st.raw[dir];
        let new = self.patterns.raw(key);
        if old == new {
            return;
        }
        st.raw[dir] = new;
        if owner != EMPTY {
            let s = usize::from(owner - 1);
            self.sums[s] += self.line_weights[usize::from((new >> (8 * s)) as u8)]
                - self.line_weights[usize::from((old >> (8 * s)) as u8)];
        }
        for side in 0..2 {
            let (o, w) = (
                usize::from((old >> (8 * side)) as u8),
                usize::from((new >> (8 * side)) as u8),
            );
            if o == w {
                continue;
            }
            st.sums[side] += self.point_weights[w] - self.point_weights[o];
            let (co, cw) = (COUNTS[o], COUNTS[w]);
            if co == cw {
                continue;
            }
            let before = st.counts[side];
            let after = before.wrapping_sub(co).wrapping_add(cw);
            st.counts[side] = after;
            if owner == EMPTY {
                self.kept.counts_changed(side, n, before, after);
            }
        }
    }

    #[inline]
    fn stone_value(&self, c: usize, side: usize) -> i64 {
        let mut v = self.centre[c];
        let st = &self.cells[c];
        for dir in 0..4 {
            let raw = if self.track {
                st.raw[dir]
            } else {
                self.patterns.raw(st.keys[dir])
            };
            v += self.line_weights[usize::from((raw >> (8 * side)) as u8)];
        }
        v
    }

    /// Puts a stone of `side` (0 or 1) on the empty cell `c`.
    #[inline]
    pub(super) fn place(&mut self, c: usize, side: usize) {
        let bits = side as u32 + 1;
        if self.kept.combo_sets_on() {
            self.combo_frames.push(self.kept.combo_sets());
        }
        if self.stones == self.frames.len() {
            self.frames.push(Frame::default());
        }
        let frame = &mut self.frames[self.stones];
        frame.cell = c as u16;
        frame.sums = self.sums;
        self.kept.copy_threat_sets(&mut frame.threats);
        frame.combo_n = self.kept.combo_n();
        frame.near_empty = self.near_empty;
        let cells = &self.cells;
        self.saved_cells
            .extend(self.links[c].iter().map(|l| cells[usize::from(l.cell)]));
        // The cell leaves the threat sets before the keys around it change.
        self.set_threats(c, false);
        self.board[c] = bits as u8;
        for i in 0..self.links[c].len() {
            let link = self.links[c][i];
            let n = usize::from(link.cell);
            let dir = usize::from(link.dir);
            let key = self.cells[n].keys[dir] | (bits << link.shift);
            self.key_changed(n, dir, key);
        }
        self.sums[side] += self.stone_value(c, side);
        self.stones += 1;
        if self.radius > 0 {
            for &n in &self.near_cells[c] {
                let n = usize::from(n);
                self.near[n] += 1;
                if self.near[n] == 1 && self.board[n] == EMPTY {
                    self.near_empty.insert(n);
                }
            }
        }
        self.near_empty.remove(c);
    }

    /// Takes the stone off cell `c`, the last one placed: puts back what placing it
    /// changed.
    #[inline]
    pub(super) fn remove(&mut self, c: usize) {
        assert!(self.stones > 0, "a stone to take off");
        let frame = &self.frames[self.stones - 1];
        assert_eq!(
            usize::from(frame.cell),
            c,
            "stones are taken off in the reverse order they were placed"
        );
        let links = &self.links[c];
        let start = self.saved_cells.len() - links.len();
        // In reverse, so a cell linked twice ends with its first saved state.
        for (link, saved) in links.iter().zip(&self.saved_cells[start..]).rev() {
            self.cells[usize::from(link.cell)] = *saved;
        }
        self.saved_cells.truncate(start);
        self.sums = frame.sums;
        self.kept.restore_threat_sets(&frame.threats);
        self.kept.restore_combo_n(frame.combo_n);
        if self.kept.combo_sets_on() {
            let combos = self
                .combo_frames
                .pop()
                .expect("the stone's combination sets");
            self.kept.restore_combo_sets(combos);
        }
        self.near_empty = frame.near_empty;
        self.board[c] = EMPTY;
        self.stones -= 1;
        if self.radius > 0 {
            for &n in &self.near_cells[c] {
                self.near[usize::from(n)] -= 1;
            }
        }
    }

    /// What a stone of `side` would make on the empty cell `c`.
    #[inline]
    pub fn point(&self, c: usize, side: usize) -> PointInfo {
        if !self.track {
            return self.point_from_scratch(c, side);
        }
        let st = &self.cells[c];
        self.finish_point(st.sums[side], st.counts[side])
    }

    /// [`MnkEval::point`] for both sides at once.
    #[inline]
    pub fn point_pair(&self, c: usize) -> [PointInfo; 2] {
        [self.point(c, 0), self.point(c, 1)]
    }

    /// [`MnkEval::point`] computed from the keys, not from the kept sums (for tests).
    pub fn point_from_scratch(&self, c: usize, side: usize) -> PointInfo {
        let mut score = self.centre[c];
        let mut counts = 0u32;
        for key in &self.cells[c].keys {
            let p = self.patterns.pattern(*key, side) as usize;
            score += self.point_weights[p];
            counts += COUNTS[p];
        }
        self.finish_point(score, counts)
    }

    #[inline]
    fn finish_point(&self, mut score: i64, counts: u32) -> PointInfo {
        let info = PointInfo::unpack(counts);
        if info.fours >= 2 {
            score += self.double_four;
        }
        if info.fours >= 1 && info.open_threes >= 1 {
            score += self.four_three;
        }
        if info.open_threes >= 2 {
            score += self.double_three;
        }
        PointInfo { score, ..info }
    }

    /// The pattern the stone (or a would-be stone of `side`) on `c` has along `dir`.
    pub fn pattern_at(&self, c: usize, dir: usize, side: usize) -> Pattern {
        self.patterns.pattern(self.cells[c].keys[dir], side)
    }

    /// The variant this evaluator is for.
    #[inline]
    pub(super) fn config(&self) -> &MnkConfig {
        &self.config
    }

    /// How far along a line a stone changes other cells' keys.
    #[inline]
    pub(super) fn pattern_radius(&self) -> usize {
        self.patterns.radius()
    }

    /// The open fours `attacker` would make on the empty cell `o` (tracking only) were a
    /// stone of `defender` on the cell `t` steps from it along `dir` (within the pattern
    /// radius, on the board, empty).
    #[inline]
    pub(super) fn open_fours_with(
        &self,
        o: usize,
        dir: usize,
        t: i32,
        defender: usize,
        attacker: usize,
    ) -> u32 {
        let st = &self.cells[o];
        let key = st.keys[dir] | ((defender as u32 + 1) << self.patterns.shift(t));
        let old = usize::from((st.raw[dir] >> (8 * attacker)) as u8);
        let new = usize::from((self.patterns.raw(key) >> (8 * attacker)) as u8);
        let field = |counts: u32| (counts >> 8) & 0xFF;
        field(st.counts[attacker]) - field(COUNTS[old]) + field(COUNTS[new])
    }

    /// The incrementally kept sums (for tests).
    pub fn sums(&self) -> [i64; 2] {
        self.sums
    }

    /// The empty cells where a stone of `side` (0 first player, 1 second) would reach
    /// `level` (see [`level`]), kept incrementally.
    #[inline]
    pub fn threat_cells(&self, side: usize, level: usize) -> &CellSet {
        &self.kept.threats(side)[level]
    }

    /// The cells on the four lines through `c` within the pattern radius (those whose
    /// keys a stone on `c` changes).
    pub fn line_cells(&self, c: usize) -> CellSet {
        let mut set = CellSet::EMPTY;
        for link in &self.links[c] {
            set.insert(usize::from(link.cell));
        }
        set
    }

    /// The cells of `fours` (empty cells where `side` makes a four) where a stone of
    /// `side` makes besides an open four, or a four or a three (open or sleeping) on
    /// another line (tracking only).
    pub(super) fn fours_with_more(&self, side: usize, fours: &CellSet) -> CellSet {
        let mut out = CellSet::EMPTY;
        for c in fours.iter() {
            let st = &self.cells[c];
            let mut threes = 0;
            let mut open_four = false;
            for raw in st.raw {
                let p = (raw >> (8 * side)) as u8;
                threes += u32::from(p >= Pattern::SleepThree as u8);
                open_four |= p == Pattern::OpenFour as u8;
            }
            if threes >= 2 || open_four {
                out.insert(c);
            }
        }
        out
    }

    /// Renju: whether a black stone on the empty cell `c` would be forbidden (always
    /// false under the other rules).
    #[inline]
    pub fn black_forbidden(&self, c: usize) -> bool {
        self.renju
            && renju::forbidden(&self.board, self.config.width(), self.config.height(), c).is_some()
    }

    /// Whether the rule is renju.
    #[inline]
    pub fn renju(&self) -> bool {
        self.renju
    }

    /// Per combination ([`MnkTable::cell_weights`]' order), the empty cells where a stone
    /// of `side` would make it, without black's forbidden points under renju: kept when
    /// tracking and the table has cell weights, else counted from the keys.
    pub fn combo_counts(&self, side: usize) -> [u32; COMBOS] {
        let forbidden = |c: usize| side == 0 && self.black_forbidden(c);
        if self.track && self.cells_on {
            let renju_black = self.renju && side == 0;
            return self
                .kept
                .combo_counts(side, renju_black.then_some(forbidden));
        }
        let mut n = [0; COMBOS];
        for c in 0..self.config.cells() {
            if self.board[c] != EMPTY {
                continue;
            }
            let p = self.point_from_scratch(c, side);
            let bits = p.combos();
            if bits != 0 && !forbidden(c) {
                for (k, v) in n.iter_mut().enumerate() {
                    *v += u32::from(bits >> k & 1);
                }
            }
        }
        n
    }

    /// The `lines` score of `side`: its stones' line weights and centre bonus, plus its
    /// combination cells times the table's cell weights.
    #[inline]
    fn lines_sum(&self, side: usize) -> i64 {
        let mut sum = self.sums[side];
        if self.cells_on {
            for (w, n) in self.cell_weights.iter().zip(self.combo_counts(side)) {
                sum += w * i64::from(n);
            }
        }
        sum
    }

    /// [`MnkEval::threat_cells`] without black's forbidden points under renju: the
    /// threats a side can really make (a five point is never forbidden).
    #[inline]
    pub fn real_threat_cells(&self, side: usize, level: usize) -> CellSet {
        let mut set = self.kept.threats(side)[level];
        if self.renju && side == 0 && level != level::FIVE {
            for c in self.kept.threats(side)[level].iter() {
                if self.black_forbidden(c) {
                    set.remove(c);
                }
            }
        }
        set
    }

    /// Whether cell `c` is empty in the evaluator's board.
    #[inline]
    pub fn is_empty_cell(&self, c: usize) -> bool {
        self.board[c] == EMPTY
    }

    /// The candidates before renju's filter (see [`Evaluator::candidates`]).
    fn all_candidates(&mut self, pos: &Mnk, out: &mut Vec<MnkMove>) {
        out.clear();
        if pos.outcome().is_some() {
            return;
        }
        if self.radius == 0 {
            pos.legal_moves(out);
            return;
        }
        if self.stones == 0 {
            let (x, y) = self.config.centre();
            out.push(self.config.at(x, y).expect("the centre is on the board"));
            return;
        }
        out.extend(self.near_empty.iter().map(|c| MnkMove(c as u16)));
        if out.is_empty() {
            pos.legal_moves(out);
        }
    }

    #[inline]
    fn defended(&self, ours: i64, theirs: i64) -> i64 {
        ((self.defence_q8 * ours) >> 8) - theirs
    }

    /// Whether the cell `c` is a candidate: empty and, unless the radius is 0, within
    /// the shape around a stone (what the `points` score reads).
    #[inline]
    pub fn is_candidate_cell(&self, c: usize) -> bool {
        self.board[c] == EMPTY && (self.radius == 0 || self.near[c] > 0)
    }

    fn best_points(&self) -> [i64; 2] {
        let mut best = [0i64; 2];
        for c in 0..self.config.cells() {
            if self.is_candidate_cell(c) {
                for (side, b) in best.iter_mut().enumerate() {
                    *b = (*b).max(self.point(c, side).score);
                }
            }
        }
        best
    }
}
