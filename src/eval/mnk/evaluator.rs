//! The [`Evaluator`] hooks of the m,n,k evaluator: reset, the incremental play and undo,
//! the score, candidates and ordering, forcing moves and the threat search's entry; the
//! state they keep is [`MnkEval`]'s (see the parent module).

use super::*;

impl Evaluator<Mnk> for MnkEval {
    fn reset(&mut self, pos: &Mnk) {
        self.clear();
        self.vcf_memo.clear();
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
            MnkEvaluation::Lines if self.cells_on => [self.lines_sum(0), self.lines_sum(1)],
            MnkEvaluation::Lines => self.sums,
            MnkEvaluation::Points => self.best_points(),
        };
        clamp_eval(self.defended(sums[me], sums[1 - me]))
    }

    fn candidates(&mut self, pos: &Mnk, out: &mut Vec<MnkMove>) {
        self.all_candidates(pos, out);
        if self.renju && pos.side_to_move() == Side::First && !out.is_empty() {
            // Black's forbidden points are not moves (unless nothing else is left: the
            // game is lost then anyway).
            let all = out.len();
            let mut kept = 0;
            for i in 0..all {
                if !self.black_forbidden(out[i].cell()) {
                    out.swap(kept, i);
                    kept += 1;
                }
            }
            if kept > 0 {
                // Generation order kept: the swaps moved kept moves forward in order.
                out.truncate(kept);
            }
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
        // The last four stones, latest first (for `far_distance`).
        let far = if flags.static_score {
            i32::from(flags.far_distance)
        } else {
            0
        };
        let mut recent = [(0, 0); 4];
        let mut n_recent = 0;
        if far > 0 {
            for (slot, mv) in recent.iter_mut().zip(pos.history().iter().rev()) {
                *slot = self.config.xy(*mv);
                n_recent += 1;
            }
        }
        let recent = &recent[..n_recent];
        for (mv, key) in moves.iter().zip(keys.iter_mut()) {
            *key = MoveKey::default();
            let (mine, mut theirs) = (self.point(mv.cell(), me), self.point(mv.cell(), op));
            if self.renju
                && op == 0
                && (theirs.fours > 0 || theirs.open_threes > 0)
                && self.black_forbidden(mv.cell())
            {
                // Black cannot play there: nothing to defend.
                theirs = PointInfo::default();
            }
            key.tactical =
                mine.fours > 0 || mine.open_threes > 0 || theirs.fives > 0 || theirs.open_fours > 0;
            if !flags.static_score && !flags.threat {
                continue;
            }
            if flags.static_score {
                let mut score = mine.score + ((self.defence_q8 * theirs.score) >> 8);
                if far > 0 && score > 0 && recent.len() >= 2 {
                    let (x, y) = self.config.xy(*mv);
                    let is_far = |&(a, b): &(i32, i32)| (x - a).abs().max((y - b).abs()) > far;
                    if recent[..2].iter().all(is_far) {
                        score /= if recent.len() == 4 && recent.iter().all(is_far) {
                            4
                        } else {
                            2
                        };
                    }
                }
                key.score = clamp_eval(score);
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

    fn unit(&self) -> i32 {
        let w = match self.mode {
            MnkEvaluation::Lines => self.line_weights[Pattern::OpenThree as usize],
            MnkEvaluation::Points => self.point_weights[Pattern::OpenThree as usize],
        };
        clamp_eval(w).max(1)
    }

    fn forcing(&mut self, pos: &Mnk) -> Forcing<MnkMove> {
        if !self.track {
            return Forcing::Quiet;
        }
        let me = pos.side_to_move().index();
        let op = 1 - me;
        if let Some(c) = self.kept.threats(me)[level::FIVE].first() {
            return Forcing::Win {
                mv: MnkMove(c as u16),
                plies: 1,
            };
        }
        let op_fives = &self.kept.threats(op)[level::FIVE];
        match op_fives.len() {
            0 => {}
            1 => return Forcing::Defend { plies: 2 },
            _ => {
                return Forcing::Loss {
                    mv: MnkMove(op_fives.first().expect("two cells") as u16),
                    plies: 2,
                };
            }
        }
        // Renju: black's open four wins only where black may play it, and only if white
        // has no four to answer with (black's block could be forbidden).
        let open_four = if !self.renju {
            self.kept.threats(me)[level::OPEN_FOUR].first()
        } else if me == 0 && !self.kept.threats(op)[level::FOUR].is_empty() {
            None
        } else {
            self.real_threat_cells(me, level::OPEN_FOUR).first()
        };
        if let Some(c) = open_four {
            return Forcing::Win {
                mv: MnkMove(c as u16),
                plies: 3,
            };
        }
        let op_open_four = if self.renju {
            !self.real_threat_cells(op, level::OPEN_FOUR).is_empty()
        } else {
            !self.kept.threats(op)[level::OPEN_FOUR].is_empty()
        };
        if op_open_four {
            return Forcing::Defend { plies: 4 };
        }
        Forcing::Quiet
    }

    fn forced_moves(&mut self, pos: &Mnk, out: &mut Vec<MnkMove>) -> bool {
        let me = pos.side_to_move().index();
        let op_fives = self.kept.threats(1 - me)[level::FIVE];
        if let Some(c) = op_fives.first() {
            out.clear();
            // Renju: a block black may not play is no defence.
            if !(me == 0 && self.black_forbidden(c)) {
                out.push(MnkMove(c as u16));
            }
        } else {
            self.open_three_defences(me, out);
        }
        out.len() < self.config.cells() - self.stones
    }

    /// Tracking: the threat candidates first (cells where either side would make a four
    /// or an open three: the threat ordering's upper classes), then the rest.
    fn candidates_batch(&mut self, pos: &Mnk, batch: usize, out: &mut Vec<MnkMove>) -> bool {
        if batch > 1 || (batch == 1 && !self.track) {
            out.clear();
            return false;
        }
        self.candidates(pos, out);
        if !self.track {
            return false;
        }
        let me = pos.side_to_move().index();
        let op = 1 - me;
        let (t, o) = (self.kept.threats(me), self.kept.threats(op));
        let tactical = t[level::FIVE]
            .or(&t[level::FOUR])
            .or(&t[level::THREE])
            .or(&o[level::FIVE])
            .or(&o[level::FOUR])
            .or(&o[level::THREE]);
        let first = batch == 0;
        out.retain(|m| tactical.contains(m.cell()) == first);
        first
    }

    #[inline]
    fn is_candidate(&self, pos: &Mnk, mv: MnkMove) -> bool {
        (self.radius == 0 || self.stones == 0 || self.near_empty.contains(mv.cell()))
            && !(self.renju && pos.side_to_move() == Side::First && self.black_forbidden(mv.cell()))
    }

    #[inline]
    fn null_move_safe(&mut self, pos: &Mnk) -> bool {
        // Passing is never better than a move in gomoku (no zugzwang), but it is blind to
        // threats: only when the opponent has neither a four nor an open three.
        if !self.track {
            return true;
        }
        let op = pos.side_to_move().other().index();
        self.kept.threats(op)[level::FIVE].is_empty()
            && self.kept.threats(op)[level::OPEN_FOUR].is_empty()
    }

    fn threat_search(
        &mut self,
        pos: &mut Mnk,
        kind: ThreatKind,
        max_moves: u32,
        budget: &mut NodeBudget,
    ) -> Option<ThreatWin<MnkMove>> {
        if !self.track || pos.outcome().is_some() {
            return None;
        }
        self.find_threat_win(pos, kind, max_moves, budget)
    }
}
