//! Gomoku threat-space search on the incrementally kept threat points of [`MnkEval`]:
//! VCF (victory by continuous fours) and VCT (fours and open threes), and the exact set
//! of moves that stop an open three.
//!
//! The facts everything here rests on, for a side A with no five point against it:
//! - two or more cells that complete a line for A cannot both be blocked: A wins;
//! - a four (one such cell) must be blocked at once, and the block is the only reply
//!   that does not lose (the defender has no five point, or A would have had to block it);
//! - after A makes an open three (a cell that would make an open four), every reply that
//!   neither removes all of A's open-four points nor makes a four of its own loses to
//!   A's open four; such a defence lies on a cell where A would make a four, so trying
//!   each of those cells finds them all.
//!
//! Winning lines are found exactly; a search that runs out of moves or budget reports no
//! win, never a false one. Positions shown to have no win within some number of moves
//! are remembered (per search, by hash) so transpositions are not searched twice.

use super::{
    Evaluator, NodeBudget, ThreatKind, ThreatWin,
    cells::CellSet,
    mnk::{MnkEval, level},
};
use crate::game::{Game, Mnk, MnkMove, mnk::DIRECTIONS};

/// Salt that keeps VCT results apart from VCF results in the memo.
const VCT_SALT: u64 = 0x5643_545F_5341_4C54;
/// Salt for the results of the narrowed VCF ([`ThreatKind::VcfLeaf`]).
const NEAR_SALT: u64 = 0x4E45_4152_5F56_4346;

/// The direction (an index of [`DIRECTIONS`]) and the signed number of steps along it
/// from one cell to another `(dx, dy)` away, if they share a line.
#[inline]
fn line_offset(dx: i32, dy: i32) -> Option<(usize, i32)> {
    DIRECTIONS.iter().enumerate().find_map(|(dir, &(ux, uy))| {
        let t = if ux != 0 { dx / ux } else { dy / uy };
        (t != 0 && t * ux == dx && t * uy == dy).then_some((dir, t))
    })
}

impl MnkEval {
    /// Plays `mv` for the side to move, in the position and the evaluator.
    #[inline]
    fn push(&mut self, pos: &mut Mnk, mv: MnkMove) {
        pos.play(mv);
        self.played(pos, mv);
    }

    /// Takes back `mv`.
    #[inline]
    fn pop(&mut self, pos: &mut Mnk, mv: MnkMove) {
        pos.undo(mv, ());
        self.undone(pos, mv);
    }

    /// The moves that stop the open threes of the opponent of `defender` (0 or 1, to
    /// move): each cell where the attacker would make a four that leaves it no open-four
    /// point, then every cell where the defender makes a four of its own. Generation
    /// order within each group. Empty: the open three cannot be stopped.
    pub fn open_three_defences(&mut self, defender: usize, out: &mut Vec<MnkMove>) {
        if self.renju() {
            // A stone can change which of black's points are forbidden: only playing it
            // out tells.
            return self.open_three_defences_by_play(defender, out);
        }
        out.clear();
        let attacker = 1 - defender;
        let tries = *self.threat_cells(attacker, level::FOUR);
        let open_fours = *self.threat_cells(attacker, level::OPEN_FOUR);
        let mut stops = CellSet::EMPTY;
        for c in tries.iter() {
            if self.leaves_no_open_four(c, defender, &open_fours) {
                stops.insert(c);
                out.push(MnkMove(c as u16));
            }
        }
        let counters = self.threat_cells(defender, level::FOUR).minus(&stops);
        out.extend(counters.iter().map(|c| MnkMove(c as u16)));
    }

    /// Whether a stone of `defender` on the empty cell `c` would leave the attacker no
    /// open-four point of `open_fours` (the attacker's): each point off `c`'s lines
    /// keeps its open four, and one on them is read with `c` added to that line's key
    /// alone (a stone of the defender never makes the attacker a new point). Not for
    /// renju, whose forbidden points a stone can change.
    fn leaves_no_open_four(&self, c: usize, defender: usize, open_fours: &CellSet) -> bool {
        let attacker = 1 - defender;
        let (cx, cy) = self.config().xy(MnkMove(c as u16));
        let r = self.pattern_radius() as i32;
        for o in open_fours.iter() {
            if o == c {
                continue;
            }
            let (ox, oy) = self.config().xy(MnkMove(o as u16));
            let (dx, dy) = (cx - ox, cy - oy);
            let Some((dir, t)) = line_offset(dx, dy) else {
                return false;
            };
            if t.abs() > r {
                return false;
            }
            if self.open_fours_with(o, dir, t, defender, attacker) > 0 {
                return false;
            }
        }
        true
    }

    /// [`MnkEval::open_three_defences`] by placing a defender's stone on each candidate
    /// and reading the attacker's open-four points again (the reference, and renju's
    /// way).
    pub fn open_three_defences_by_play(&mut self, defender: usize, out: &mut Vec<MnkMove>) {
        out.clear();
        let attacker = 1 - defender;
        let tries = *self.threat_cells(attacker, level::FOUR);
        let mut stops = CellSet::EMPTY;
        for c in tries.iter() {
            // Renju: black may not defend on a forbidden point, and black's threats on
            // forbidden points are none.
            if defender == 0 && self.black_forbidden(c) {
                continue;
            }
            self.place(c, defender);
            let stopped = self
                .real_threat_cells(attacker, level::OPEN_FOUR)
                .is_empty();
            self.remove(c);
            if stopped {
                stops.insert(c);
                out.push(MnkMove(c as u16));
            }
        }
        let counters = self.real_threat_cells(defender, level::FOUR).minus(&stops);
        out.extend(counters.iter().map(|c| MnkMove(c as u16)));
    }

    /// A VCF or VCT for the side to move within `max_moves` of its moves (the winning
    /// move included), or `None`. `pos` must be the evaluator's position, unfinished.
    pub fn find_threat_win(
        &mut self,
        pos: &mut Mnk,
        kind: ThreatKind,
        max_moves: u32,
        budget: &mut NodeBudget,
    ) -> Option<ThreatWin<MnkMove>> {
        let mut line = Vec::new();
        self.vcf_leaf = match kind {
            ThreatKind::VcfLeaf(leaf) => Some((leaf, max_moves)),
            _ => None,
        };
        let plies = match kind {
            ThreatKind::Vcf | ThreatKind::VcfLeaf(_) => {
                self.vcf(pos, max_moves, budget, &mut line)?
            }
            ThreatKind::Vct => self.vct(pos, max_moves, budget, &mut line)?,
        };
        line.reverse();
        Some(ThreatWin { line, plies })
    }

    /// The attacker's moves at a VCF/VCT node when the defender has `op_fives` five
    /// points: `None` if it has two (lost), the block alone if it has one (and only if the
    /// block is itself in `allowed`), else every cell of `allowed`.
    fn attack_moves(&self, me: usize, allowed: &CellSet) -> Option<Vec<MnkMove>> {
        let op_fives = self.threat_cells(1 - me, level::FIVE);
        match op_fives.len() {
            0 => {
                // Open fours and double fours first: they win at once.
                let quick = allowed.and(self.threat_cells(me, level::OPEN_FOUR));
                let mut moves: Vec<MnkMove> = quick.iter().map(|c| MnkMove(c as u16)).collect();
                moves.extend(allowed.minus(&quick).iter().map(|c| MnkMove(c as u16)));
                Some(moves)
            }
            1 => {
                let block = op_fives.first().expect("one cell");
                allowed.contains(block).then(|| vec![MnkMove(block as u16)])
            }
            _ => None,
        }
    }

    /// Plies to the win by fours (attacker to move), pushing the line in reverse.
    fn vcf(
        &mut self,
        pos: &mut Mnk,
        moves_left: u32,
        budget: &mut NodeBudget,
        line: &mut Vec<MnkMove>,
    ) -> Option<u32> {
        let me = pos.side_to_move().index();
        if let Some(c) = self.threat_cells(me, level::FIVE).first() {
            line.push(MnkMove(c as u16));
            return Some(1);
        }
        if moves_left <= 1 {
            return None;
        }
        let mut fours = self.real_threat_cells(me, level::FOUR);
        let mut key = pos.hash();
        let mut breadth = usize::MAX;
        if let Some((leaf, start)) = self.vcf_leaf {
            key ^= NEAR_SALT;
            let first = moves_left == start;
            // After the first four: only fours on the lines through the previous one.
            if leaf.near
                && !first
                && let Some(prev) = pos.history().iter().rev().nth(1)
            {
                fours = fours.and(&self.line_cells(prev.cell()));
            }
            if leaf.threes {
                // The block of the defender's five point stays whatever it makes.
                let block = fours.and(self.threat_cells(1 - me, level::FIVE));
                fours = self.fours_with_more(me, &fours).or(&block);
            }
            if leaf.breadth > 0 && !first {
                breadth = leaf.breadth as usize;
            }
        }
        if self.vcf_memo.no_win_within(key, moves_left) {
            return None;
        }
        let moves = self.attack_moves(me, &fours)?;
        for mv in moves.into_iter().take(breadth) {
            if budget.exhausted() {
                return None;
            }
            budget.used += 1;
            self.push(pos, mv);
            let result = self.after_four(pos, me, moves_left, budget, line, Self::vcf);
            self.pop(pos, mv);
            if let Some(p) = result {
                line.push(mv);
                return Some(p + 1);
            }
        }
        if !budget.exhausted() {
            self.vcf_memo.store_no_win(key, moves_left);
        }
        None
    }

    /// After the attacker `me` made a four (defender to move): a win if it left two
    /// cells to complete, else the forced block and `next` from there. Plies from the
    /// defender's move to the win.
    fn after_four(
        &mut self,
        pos: &mut Mnk,
        me: usize,
        moves_left: u32,
        budget: &mut NodeBudget,
        line: &mut Vec<MnkMove>,
        next: fn(&mut MnkEval, &mut Mnk, u32, &mut NodeBudget, &mut Vec<MnkMove>) -> Option<u32>,
    ) -> Option<u32> {
        let fives = *self.threat_cells(me, level::FIVE);
        let first = fives.first()?;
        if fives.len() >= 2 {
            // Any reply, then the other cell.
            let other = fives.iter().nth(1).expect("two cells");
            line.push(MnkMove(other as u16));
            line.push(MnkMove(first as u16));
            return Some(2);
        }
        let block = MnkMove(first as u16);
        budget.used += 1;
        self.push(pos, block);
        let result = if pos.outcome().is_some() {
            None // the block filled the board: a draw
        } else {
            next(self, pos, moves_left - 1, budget, line)
        };
        self.pop(pos, block);
        result.map(|p| {
            line.push(block);
            p + 1
        })
    }

    /// Plies to the win by fours and open threes (attacker to move).
    fn vct(
        &mut self,
        pos: &mut Mnk,
        moves_left: u32,
        budget: &mut NodeBudget,
        line: &mut Vec<MnkMove>,
    ) -> Option<u32> {
        let me = pos.side_to_move().index();
        let op = 1 - me;
        if let Some(c) = self.threat_cells(me, level::FIVE).first() {
            line.push(MnkMove(c as u16));
            return Some(1);
        }
        // Renju: black's open four is sure only where black may play it and when white
        // has no four to answer with (black's block could be forbidden).
        let sure_open_four =
            me == 1 || !self.renju() || self.threat_cells(op, level::FOUR).is_empty();
        if self.threat_cells(op, level::FIVE).is_empty()
            && sure_open_four
            && let Some(c) = self.real_threat_cells(me, level::OPEN_FOUR).first()
        {
            // An open four now: nothing stops it (the defender has no four to answer).
            if moves_left >= 2 {
                let mv = MnkMove(c as u16);
                budget.used += 1;
                self.push(pos, mv);
                let done = self.after_four(pos, me, 2, budget, line, Self::vcf);
                self.pop(pos, mv);
                if let Some(p) = done {
                    line.push(mv);
                    return Some(p + 1);
                }
            }
            return None;
        }
        if moves_left <= 1 {
            return None;
        }
        let key = pos.hash() ^ VCT_SALT;
        if self.vcf_memo.no_win_within(key, moves_left) {
            return None;
        }
        let threats = self
            .real_threat_cells(me, level::FOUR)
            .or(&self.real_threat_cells(me, level::THREE));
        let moves = self.attack_moves(me, &threats)?;
        let mut defences = Vec::new();
        for mv in moves {
            if budget.exhausted() {
                return None;
            }
            budget.used += 1;
            let mark = line.len();
            self.push(pos, mv);
            let result = if !self.threat_cells(me, level::FIVE).is_empty() {
                self.after_four(pos, me, moves_left, budget, line, Self::vct)
            } else if !self.real_threat_cells(me, level::OPEN_FOUR).is_empty() {
                self.after_three(pos, moves_left, budget, line, &mut defences)
            } else {
                None // not a threat after all: the defender is free
            };
            self.pop(pos, mv);
            match result {
                Some(p) => {
                    line.push(mv);
                    return Some(p + 1);
                }
                None => line.truncate(mark),
            }
        }
        if !budget.exhausted() {
            self.vcf_memo.store_no_win(key, moves_left);
        }
        None
    }

    /// After the attacker made an open three (defender to move): the attacker wins if
    /// every defence loses. Plies from the defender's move to the win (the longest
    /// defence); the line follows the longest defence.
    fn after_three(
        &mut self,
        pos: &mut Mnk,
        moves_left: u32,
        budget: &mut NodeBudget,
        line: &mut Vec<MnkMove>,
        scratch: &mut Vec<MnkMove>,
    ) -> Option<u32> {
        self.open_three_defences(pos.side_to_move().index(), scratch);
        let defences = std::mem::take(scratch);
        let mut longest: Option<(u32, Vec<MnkMove>)> = None;
        let mut won = true;
        if defences.is_empty() {
            // Any reply; then the open four and the five: the line shows a pass-free
            // continuation only from the open four on.
            longest = Some((4, Vec::new()));
        }
        let mut inner = Vec::new();
        for &d in &defences {
            if budget.exhausted() {
                won = false;
                break;
            }
            budget.used += 1;
            inner.clear();
            self.push(pos, d);
            let r = if pos.outcome().is_some() {
                None
            } else {
                self.vct(pos, moves_left - 1, budget, &mut inner)
            };
            self.pop(pos, d);
            match r {
                Some(p) => {
                    if longest.as_ref().is_none_or(|(q, _)| p + 1 > *q) {
                        let mut l = inner.clone();
                        l.push(d);
                        longest = Some((p + 1, l));
                    }
                }
                None => {
                    won = false;
                    break;
                }
            }
        }
        *scratch = defences;
        if !won {
            return None;
        }
        let (plies, l) = longest.expect("a defence or none");
        line.extend(l);
        Some(plies)
    }
}
