//! The m,n,k evaluator: line patterns kept incrementally.
//!
//! For every cell and each of the four line directions it keeps the line key of the
//! cell's neighbours (see [`super::patterns`]). A stone placed or removed changes only the
//! keys of the cells within R = k-1 (k under the exact rule) along the four lines through
//! it, so [`Evaluator::played`] touches at most 8R cells; the position score (the sum of
//! the pattern weights of every stone in every line) is updated from the patterns of
//! those cells alone. Point scores (what a stone would make on an empty cell) are read
//! from the same keys when move ordering asks for them.

use std::sync::Arc;

use super::{
    Evaluator, MoveKey, OrderFlags, PRUNED, clamp_eval,
    patterns::{KEY_WALL, PATTERN_COUNT, Pattern, PatternTable},
    table::{MnkEvaluation, MnkTable},
};
use crate::game::{
    Game, Mnk, MnkConfig, MnkMove,
    mnk::{DIRECTIONS, EMPTY},
};

/// One neighbour of a cell along a line: the neighbour, the direction, and where the
/// cell sits in the neighbour's key.
#[derive(Clone, Copy, Debug)]
struct Link {
    cell: u16,
    dir: u8,
    shift: u8,
}

/// A per-pattern table padded to 256 entries (indexed by a raw pattern byte).
fn widen(by_pattern: [i64; PATTERN_COUNT]) -> [i64; 256] {
    let mut w = [0; 256];
    w[..PATTERN_COUNT].copy_from_slice(&by_pattern);
    w
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

/// Per pattern, what it adds to a point's counts, packed: fives in bits 0-7, open fours
/// 8-15, fours 16-23, open threes 24-27, open twos 28-31 (at most 4 lines each).
const COUNTS: [u32; 256] = {
    let mut c = [0u32; 256];
    c[Pattern::Five as usize] = 1;
    c[Pattern::OpenFour as usize] = (1 << 8) | (1 << 16);
    c[Pattern::RushFour as usize] = 1 << 16;
    c[Pattern::OpenThree as usize] = 1 << 24;
    c[Pattern::OpenTwo as usize] = 1 << 28;
    c
};

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
    /// A win next move: a five.
    pub fn is_win(&self) -> bool {
        self.fives > 0
    }

    /// Wins unless the opponent has a faster threat: an open four, two fours, or a four
    /// and an open three (seed 001's "near kill").
    pub fn is_decisive(&self) -> bool {
        self.open_fours > 0 || self.fours >= 2 || (self.fours >= 1 && self.open_threes >= 1)
    }
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
    /// `defence` in 1/256ths.
    defence_q8: i64,
    /// Candidate radius (0: every empty cell).
    radius: usize,
    links: Arc<Vec<Vec<Link>>>,
    /// The square of cells within `radius` of each cell.
    near_cells: Arc<Vec<Vec<u16>>>,
    keys: Vec<[u32; 4]>,
    board: Vec<u8>,
    /// Per side: the sum of the line weights of its stones plus their centre bonus.
    sums: [i64; 2],
    /// Stones within `radius` of each cell.
    near: Vec<u16>,
    stones: usize,
}

impl MnkEval {
    /// An evaluator for the variant `config` with `table`, generating candidates within
    /// `radius` of a stone (0: every empty cell).
    pub fn new(config: &MnkConfig, table: &MnkTable, radius: usize) -> MnkEval {
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
            defence_q8: (table.defence * 256.0).round() as i64,
            radius,
            links: Arc::new(links),
            near_cells: Arc::new(near_cells),
            keys: Vec::new(),
            board: Vec::new(),
            sums: [0; 2],
            near: Vec::new(),
            stones: 0,
        };
        eval.clear();
        eval
    }

    /// Empty board: keys hold only the walls.
    fn clear(&mut self) {
        let cells = self.config.cells();
        let r = self.patterns.radius() as i32;
        self.keys = vec![[0; 4]; cells];
        for c in 0..cells {
            let (x, y) = self.config.xy(MnkMove(c as u16));
            for (dir, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
                for d in (-r..=r).filter(|&d| d != 0) {
                    if self.config.at(x + d * dx, y + d * dy).is_none() {
                        self.keys[c][dir] |= KEY_WALL << self.patterns.shift(d);
                    }
                }
            }
        }
        self.board = vec![EMPTY; cells];
        self.sums = [0; 2];
        self.near = vec![0; cells];
        self.stones = 0;
    }

    #[inline]
    fn stone_value(&self, c: usize, side: usize) -> i64 {
        let keys = &self.keys[c];
        let mut v = self.centre[c];
        for key in keys {
            v += self.line_weights[usize::from((self.patterns.raw(*key) >> (8 * side)) as u8)];
        }
        v
    }

    /// Puts a stone of `side` (0 or 1) on the empty cell `c`.
    #[inline]
    fn place(&mut self, c: usize, side: usize) {
        let bits = side as u32 + 1;
        for link in &self.links[c] {
            let n = usize::from(link.cell);
            let dir = usize::from(link.dir);
            let owner = self.board[n];
            let old = self.keys[n][dir];
            let new = old | (bits << link.shift);
            self.keys[n][dir] = new;
            if owner != EMPTY {
                let s = usize::from(owner - 1);
                self.sums[s] += self.line_weights
                    [usize::from((self.patterns.raw(new) >> (8 * s)) as u8)]
                    - self.line_weights[usize::from((self.patterns.raw(old) >> (8 * s)) as u8)];
            }
        }
        self.board[c] = bits as u8;
        self.sums[side] += self.stone_value(c, side);
        self.stones += 1;
        if self.radius > 0 {
            for &n in &self.near_cells[c] {
                self.near[usize::from(n)] += 1;
            }
        }
    }

    /// Takes the stone off cell `c`.
    #[inline]
    fn remove(&mut self, c: usize) {
        let side = usize::from(self.board[c] - 1);
        self.sums[side] -= self.stone_value(c, side);
        self.board[c] = EMPTY;
        for link in &self.links[c] {
            let n = usize::from(link.cell);
            let dir = usize::from(link.dir);
            let owner = self.board[n];
            let old = self.keys[n][dir];
            let new = old & !(3 << link.shift);
            self.keys[n][dir] = new;
            if owner != EMPTY {
                let s = usize::from(owner - 1);
                self.sums[s] += self.line_weights
                    [usize::from((self.patterns.raw(new) >> (8 * s)) as u8)]
                    - self.line_weights[usize::from((self.patterns.raw(old) >> (8 * s)) as u8)];
            }
        }
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
        let mut score = self.centre[c];
        let mut counts = 0u32;
        for key in &self.keys[c] {
            let p = self.patterns.pattern(*key, side) as usize;
            score += self.point_weights[p];
            counts += COUNTS[p];
        }
        self.finish_point(score, counts)
    }

    /// [`MnkEval::point`] for both sides at once (each key read once).
    #[inline]
    pub fn point_pair(&self, c: usize) -> [PointInfo; 2] {
        let mut score = [self.centre[c]; 2];
        let mut counts = [0u32; 2];
        for key in &self.keys[c] {
            let both = self.patterns.raw(*key);
            let (b, w) = (usize::from(both as u8), usize::from((both >> 8) as u8));
            score[0] += self.point_weights[b];
            score[1] += self.point_weights[w];
            counts[0] += COUNTS[b];
            counts[1] += COUNTS[w];
        }
        [
            self.finish_point(score[0], counts[0]),
            self.finish_point(score[1], counts[1]),
        ]
    }

    #[inline]
    fn finish_point(&self, mut score: i64, counts: u32) -> PointInfo {
        let info = PointInfo {
            score: 0,
            fives: (counts & 0xFF) as u8,
            open_fours: ((counts >> 8) & 0xFF) as u8,
            fours: ((counts >> 16) & 0xFF) as u8,
            open_threes: ((counts >> 24) & 0xF) as u8,
            open_twos: (counts >> 28) as u8,
        };
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
        self.patterns.pattern(self.keys[c][dir], side)
    }

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

    /// The incrementally kept sums (for tests).
    pub fn sums(&self) -> [i64; 2] {
        self.sums
    }

    /// The line keys (for tests comparing incremental with from-scratch state).
    pub fn keys(&self) -> &[[u32; 4]] {
        &self.keys
    }

    #[inline]
    fn defended(&self, ours: i64, theirs: i64) -> i64 {
        ((self.defence_q8 * ours) >> 8) - theirs
    }

    fn best_points(&self) -> [i64; 2] {
        let mut best = [0i64; 2];
        for c in 0..self.config.cells() {
            if self.board[c] == EMPTY && (self.radius == 0 || self.near[c] > 0) {
                for (side, b) in best.iter_mut().enumerate() {
                    *b = (*b).max(self.point(c, side).score);
                }
            }
        }
        best
    }
}

impl Evaluator<Mnk> for MnkEval {
    fn reset(&mut self, pos: &Mnk) {
        self.clear();
        for (i, &mv) in pos.history().iter().enumerate() {
            self.place(mv.cell(), i % 2);
        }
    }

    #[inline]
    fn played(&mut self, pos: &Mnk, mv: MnkMove) {
        self.place(mv.cell(), pos.side_to_move().other().index());
    }

    #[inline]
    fn undone(&mut self, _pos: &Mnk, mv: MnkMove) {
        self.remove(mv.cell());
    }

    #[inline]
    fn evaluate(&mut self, pos: &Mnk) -> i32 {
        let me = pos.side_to_move().index();
        let sums = match self.mode {
            MnkEvaluation::Lines => self.sums,
            MnkEvaluation::Points => self.best_points(),
        };
        clamp_eval(self.defended(sums[me], sums[1 - me]))
    }

    fn candidates(&mut self, pos: &Mnk, out: &mut Vec<MnkMove>) {
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
        out.extend(
            (0..self.config.cells())
                .filter(|&c| self.board[c] == EMPTY && self.near[c] > 0)
                .map(|c| MnkMove(c as u16)),
        );
        if out.is_empty() {
            pos.legal_moves(out);
        }
    }

    fn order_keys(
        &mut self,
        pos: &Mnk,
        moves: &[MnkMove],
        keys: &mut [MoveKey],
        flags: OrderFlags,
    ) {
        let me = pos.side_to_move().index();
        let op = 1 - me;
        let mut best_class = 0;
        for (mv, key) in moves.iter().zip(keys.iter_mut()) {
            *key = MoveKey::default();
            if !flags.static_score && !flags.threat {
                continue;
            }
            let pair = self.point_pair(mv.cell());
            let (mine, theirs) = (pair[me], pair[op]);
            if flags.static_score {
                key.score = clamp_eval(mine.score + ((self.defence_q8 * theirs.score) >> 8));
            }
            if flags.threat {
                key.class = if mine.is_win() {
                    class::WIN
                } else if theirs.is_win() {
                    class::BLOCK_WIN
                } else if mine.is_decisive() {
                    class::DECISIVE
                } else if theirs.is_decisive() {
                    class::BLOCK_DECISIVE
                } else if mine.open_threes >= 2 {
                    class::DOUBLE_THREE
                } else if theirs.open_threes >= 2 {
                    class::BLOCK_DOUBLE_THREE
                } else if mine.open_threes > 0 || mine.fours > 0 {
                    class::THREE
                } else if theirs.open_threes > 0 || theirs.fours > 0 {
                    class::BLOCK_THREE
                } else if mine.open_twos > 0 {
                    class::TWO
                } else if theirs.open_twos > 0 {
                    class::BLOCK_TWO
                } else {
                    0
                };
                best_class = best_class.max(key.class);
            }
        }
        if !flags.threat {
            return;
        }
        // Forced-move pruning, seed 000: which classes stand alone when present.
        let keep_only = match best_class {
            class::WIN if flags.threat_prune >= 1 => Some(class::WIN),
            class::BLOCK_WIN if flags.threat_prune >= 2 => Some(class::BLOCK_WIN),
            class::DECISIVE | class::BLOCK_DECISIVE if flags.threat_prune >= 3 => Some(best_class),
            class::DOUBLE_THREE | class::BLOCK_DOUBLE_THREE if flags.threat_prune >= 4 => {
                Some(best_class)
            }
            _ => None,
        };
        if let Some(keep) = keep_only {
            let mut kept_win = false;
            for key in keys.iter_mut() {
                // A winning point is played alone: keep only the first.
                let keep_this = key.class == keep && !(keep == class::WIN && kept_win);
                if keep_this {
                    kept_win |= keep == class::WIN;
                } else {
                    key.class = PRUNED;
                }
            }
        }
    }
}
