//! The node search: fail-soft negamax alpha-beta with every selective rule inline, in
//! the order a node applies them. Each rule is off unless [`SearchSettings`] switches it
//! on; with all of them off this is exactly the plain alpha-beta the seed configs use.
//!
//! [`SearchSettings`]: super::SearchSettings

use super::{
    Searcher,
    picker::Stage,
    score::{INFINITY, MAX_PLY, is_decisive, win_in},
    tt::Bound,
};
use crate::{
    eval::{Evaluator, Forcing, LeafVcf, NodeBudget, ThreatKind},
    game::{Game, Outcome},
};

/// What kind of node is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Node {
    /// On the principal variation (the root, and each PV node's first child): no
    /// pruning, no table cutoffs under PVS.
    pub pv: bool,
    /// A null move may be tried (not right after one).
    pub null_ok: bool,
}

impl Node {
    /// A principal-variation node.
    pub const PV: Node = Node {
        pv: true,
        null_ok: true,
    };
    /// Any other node (expected to fail high or low).
    pub const CUT: Node = Node {
        pv: false,
        null_ok: true,
    };
    /// Right after a null move.
    const AFTER_NULL: Node = Node {
        pv: false,
        null_ok: false,
    };
}

impl<G: Game, E: Evaluator<G>> Searcher<G, E> {
    /// Terminal score for the side to move.
    #[inline]
    fn terminal(pos: &G, outcome: Outcome, ply: usize) -> i32 {
        match outcome.winner() {
            None => 0,
            Some(side) if side == pos.side_to_move() => win_in(ply),
            Some(_) => -win_in(ply),
        }
    }

    /// The score of `pos` searched `depth` plies deep within (`alpha`, `beta`), fail-soft.
    pub(super) fn negamax(
        &mut self,
        pos: &mut G,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        node: Node,
    ) -> i32 {
        self.plies[ply].pv.clear();
        // With `singular`: this node is asked without the table's move (see below).
        let excluded = self.plies[ply].excluded.take();
        if self.check_stop() {
            return 0;
        }
        self.nodes += 1;
        if let Some(outcome) = pos.outcome() {
            return Self::terminal(pos, outcome, ply);
        }
        let s = self.settings;
        let p = s.params;

        // Mate-distance pruning: no line from here beats a win next move or loses faster
        // than now.
        if s.mate_distance {
            alpha = alpha.max(-win_in(ply));
            beta = beta.min(win_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        // What the evaluator knows for sure (gomoku: fives, fours, open threes).
        let forcing = if s.forced {
            self.eval.forcing(pos)
        } else {
            Forcing::Quiet
        };
        let mut depth = depth;
        let threatened = match forcing {
            Forcing::Win { mv, plies } => {
                self.plies[ply].pv.push(mv);
                return win_in(ply + plies as usize);
            }
            Forcing::Loss { mv, plies } => {
                self.plies[ply].pv.push(mv);
                return -win_in(ply + plies as usize);
            }
            Forcing::Defend { plies } => {
                // A four must be blocked: the block costs no depth. With
                // `ext_defend_plies = 4` stopping an open three costs none either, but
                // only within `ext_ply_factor` times the iteration's depth from the root
                // (a long chain of threes would otherwise search without end), and with
                // `ext_defend_depth` only near the horizon.
                if s.extensions
                    && plies <= p.ext_defend_plies
                    && (plies <= 2
                        || (ply < p.ext_ply_factor as usize * self.root_depth as usize
                            && (p.ext_defend_depth == 0 || depth <= p.ext_defend_depth as i32)))
                {
                    depth += 1;
                }
                true
            }
            Forcing::Quiet => false,
        };

        if depth <= 0 || ply >= MAX_PLY - 1 {
            self.depth_cut = true;
            let stand = self.eval.evaluate(pos);
            if s.vcf && stand < beta {
                return self.leaf_vcf(pos, ply).unwrap_or(stand);
            }
            return stand;
        }

        let alpha_start = alpha;
        let mut tt_move = None;
        let mut tt_bound = None;
        let mut tt_depth = 0;
        // A search without the table's move is not this position's result: it neither
        // reads nor writes the table.
        let probe = if excluded.is_none() {
            self.tt.probe(pos.hash(), ply)
        } else {
            None
        };
        if let Some(hit) = probe {
            tt_depth = hit.depth;
            tt_move = hit.mv;
            // With `tt_decisive`: a win or loss stands at any depth (a deeper search finds
            // no faster win and no slower loss), on the principal variation too.
            let decisive = s.tt_decisive && is_decisive(hit.score);
            if decisive || (hit.depth >= depth && !(s.pvs && node.pv)) {
                let cut = match hit.bound {
                    Bound::Exact => true,
                    Bound::Lower => hit.score >= beta,
                    Bound::Upper => hit.score <= alpha,
                };
                if cut {
                    // A stored result stands for a subtree that may have been cut by depth.
                    self.depth_cut = true;
                    if let Some(mv) = hit.mv {
                        self.plies[ply].pv.push(mv);
                    }
                    return hit.score;
                }
            }
            tt_bound = Some((hit.score, hit.bound));
        }

        // Pruning before any move is searched: only away from the principal variation
        // and when nothing is threatened.
        let prunable = !node.pv && !threatened && excluded.is_none();
        let wants_static = prunable
            && (s.reverse_futility
                || s.razoring
                || s.null_move
                || s.futility
                || s.late_move_pruning);
        let mut static_eval = if wants_static {
            self.eval.evaluate(pos)
        } else {
            0
        };
        if wants_static && let Some((score, bound)) = tt_bound {
            // A stored bound on the true score sharpens the static guess.
            let better = match bound {
                Bound::Exact => true,
                Bound::Lower => score > static_eval,
                Bound::Upper => score < static_eval,
            };
            if better && !is_decisive(score) {
                static_eval = score;
            }
        }
        let unit = i64::from(self.unit);
        let margin = |per_ply: u32, d: i32| -> i32 {
            let m = unit * i64::from(per_ply) * i64::from(d.max(0)) / 100;
            m.min(i64::from(INFINITY)) as i32
        };

        // Reverse futility: far enough above beta that a quiet reply will not bring it
        // back.
        if prunable
            && s.reverse_futility
            && depth <= p.rfp_depth as i32
            && !is_decisive(beta)
            && static_eval.saturating_sub(margin(p.rfp_margin, depth)) >= beta
        {
            self.depth_cut = true;
            return static_eval;
        }

        // Razoring: so far below alpha that only a tactic could lift it: ask the leaf
        // (which in gomoku looks for a VCF), and believe it when it stays below alpha.
        if prunable
            && s.razoring
            && depth <= p.razor_depth as i32
            && !is_decisive(alpha)
            && static_eval.saturating_add(margin(p.razor_margin, depth)) <= alpha
        {
            let stand = self.eval.evaluate(pos);
            let leaf = if s.vcf && stand < beta {
                self.leaf_vcf(pos, ply).unwrap_or(stand)
            } else {
                stand
            };
            if leaf <= alpha {
                self.depth_cut = true;
                return leaf;
            }
            // A VCF above alpha: search the node as usual (its line is found again).
            self.plies[ply].pv.clear();
        }

        // Null move: if passing still fails high at reduced depth, a move will too.
        if prunable
            && s.null_move
            && node.null_ok
            && depth >= p.nmp_min_depth as i32
            && static_eval >= beta
            && !is_decisive(beta)
            && self.eval.null_move_safe(pos)
        {
            let r = (p.nmp_base + depth as u32 / p.nmp_divisor) as i32;
            self.plies[ply].played = None;
            let undo = pos.play_null();
            let score = -self.negamax(
                pos,
                depth - 1 - r,
                ply + 1,
                -beta,
                -beta + 1,
                Node::AFTER_NULL,
            );
            pos.undo_null(undo);
            if self.stopped {
                return 0;
            }
            if score >= beta {
                self.depth_cut = true;
                // A win seen through a pass is no proof.
                return if is_decisive(score) { beta } else { score };
            }
        }

        // Internal iterative reduction: without a table move the ordering is a guess;
        // spend one ply less here (the next iteration will have the move).
        if s.iir && tt_move.is_none() && excluded.is_none() && depth >= p.iir_depth as i32 {
            depth -= 1;
        }

        // Singular extension: when every other move, searched to half the depth, stays
        // a margin below what the table proved for its move, that move is the only one
        // and searches a ply deeper (within twice the iteration's depth from the root).
        // When even the others reach beta, the node fails high at once (multi-cut).
        let mut singular_move = None;
        if s.singular
            && ply > 0
            && !threatened
            && excluded.is_none()
            && depth >= p.se_depth as i32
            && ply < 2 * self.root_depth.max(1) as usize
            && let (Some(mv), Some((score, bound))) = (tt_move, tt_bound)
            && bound != Bound::Upper
            && tt_depth >= depth - 3
            && !is_decisive(score)
            && pos.is_legal(mv)
        {
            let s_beta = score.saturating_sub(margin(p.se_margin, depth).max(1));
            self.plies[ply].excluded = Some(mv);
            // At least one ply: a leaf would score the position with the move left in.
            let v = self.negamax(
                pos,
                ((depth - 1) / 2).max(1),
                ply,
                s_beta - 1,
                s_beta,
                Node::CUT,
            );
            self.plies[ply].pv.clear();
            if self.stopped {
                return 0;
            }
            if v < s_beta {
                singular_move = Some(mv);
            } else if s_beta >= beta {
                self.depth_cut = true;
                return s_beta;
            }
        }

        let mut best = -INFINITY;
        let mut best_move = None;
        let limit = if s.top_k > 0 { s.top_k } else { usize::MAX };
        let mut searched = 0usize;
        let mut quiets = 0u32;
        let tt_move = tt_move.filter(|&mv| s.tt_move && pos.is_legal(mv));
        let mut loss_floor = None;
        let mut stage = if let Forcing::Defend { plies } = forcing {
            // Only the moves that stop the threat; every other move loses in `plies`.
            let list = self.prepare_forced_list(pos, ply, tt_move);
            if list.left_out {
                loss_floor = Some(-win_in(ply + plies as usize));
            }
            Stage::List {
                next: 0,
                len: list.len,
                skip: None,
                then: None,
            }
        } else {
            // Without the table's move: the generator skips it as it skips a table move
            // already tried, and the loop below passes it over.
            Stage::TableMove(excluded.or(tt_move))
        };
        let lmp_count = p.lmp_count(depth);
        // Move-count pruning of every kind of move. Where a threat must be stopped: only
        // the first few moves (off the principal variation, once something is searched).
        // Where nothing must be stopped, from the root's grandchildren on: only the first
        // few moves of any kind, at every depth (PV nodes too).
        let move_limit = match (s.late_move_pruning, threatened) {
            (true, true) if !node.pv => p.lmp_defend_count(depth),
            (true, false) if ply >= 2 => p.lmp_all_count(depth),
            _ => None,
        };
        let history_lmr = s.history && p.lmr_history > 0;
        let side = pos.side_to_move().index();
        if history_lmr {
            self.plies[ply].tried.clear();
        }
        while searched < limit {
            if move_limit.is_some_and(|n| searched >= n) && !is_decisive(alpha) {
                self.depth_cut = true;
                break;
            }
            let Some((mv, hint)) = self.next_move(pos, ply, &mut stage) else {
                break;
            };
            if excluded == Some(mv) {
                continue;
            }
            let quiet = !hint.tactical;
            if prunable && quiet && searched > 0 && !is_decisive(alpha) {
                // Late-move pruning: at low depth only the first few quiet moves.
                if s.late_move_pruning && depth <= p.lmp_depth as i32 && quiets >= lmp_count {
                    self.depth_cut = true;
                    continue;
                }
                // Futility: this quiet move (with what it visibly gains) cannot lift the
                // static score to alpha.
                if s.futility
                    && depth <= p.futility_depth as i32
                    && static_eval
                        .saturating_add(hint.gain)
                        .saturating_add(margin(p.futility_margin, depth))
                        <= alpha
                {
                    self.depth_cut = true;
                    quiets += 1;
                    continue;
                }
            }
            self.plies[ply].played = Some(mv);
            let undo = pos.play(mv);
            self.tt.prefetch(pos.hash());
            self.eval.played(pos, mv);
            let new_depth = depth - 1 + i32::from(singular_move == Some(mv));
            let score = if searched == 0 {
                -self.negamax(
                    pos,
                    new_depth,
                    ply + 1,
                    -beta,
                    -alpha,
                    Node {
                        pv: node.pv,
                        null_ok: true,
                    },
                )
            } else {
                // Late-move reduction for quiet moves late in the order.
                let reducible = quiet || (p.lmr_tactical == 1 && !hint.kept);
                let r = if s.lmr
                    && reducible
                    && depth >= p.lmr_min_depth as i32
                    && searched >= p.lmr_min_moves as usize
                {
                    let row = &self.lmr_table[(depth as usize).min(63)];
                    let mut r = i32::from(row[searched.min(63)]) + i32::from(!node.pv);
                    if quiet && history_lmr {
                        r -= self.history.signed(side, pos.move_index(mv)) / p.lmr_history as i32;
                    }
                    r.clamp(0, (new_depth - 1).max(0))
                } else {
                    0
                };
                if s.pvs {
                    let mut sc =
                        -self.negamax(pos, new_depth - r, ply + 1, -alpha - 1, -alpha, Node::CUT);
                    if sc > alpha && r > 0 && !self.stopped {
                        sc = -self.negamax(pos, new_depth, ply + 1, -alpha - 1, -alpha, Node::CUT);
                    }
                    if sc > alpha && sc < beta && node.pv && !self.stopped {
                        sc = -self.negamax(pos, new_depth, ply + 1, -beta, -alpha, Node::PV);
                    }
                    sc
                } else if r > 0 {
                    let sc =
                        -self.negamax(pos, new_depth - r, ply + 1, -alpha - 1, -alpha, Node::CUT);
                    if sc > alpha && !self.stopped {
                        -self.negamax(pos, new_depth, ply + 1, -beta, -alpha, Node::CUT)
                    } else {
                        sc
                    }
                } else {
                    -self.negamax(pos, new_depth, ply + 1, -beta, -alpha, Node::CUT)
                }
            };
            pos.undo(mv, undo);
            self.eval.undone(pos, mv);
            if self.stopped {
                return 0;
            }
            searched += 1;
            if quiet {
                quiets += 1;
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        self.reward(pos, ply, mv, depth);
                        if history_lmr {
                            for &q in &self.plies[ply].tried {
                                self.history.punish(side, pos.move_index(q), depth);
                            }
                        }
                        break;
                    }
                }
            }
            if history_lmr && quiet {
                self.plies[ply].tried.push(mv);
            }
        }
        if let Some(floor) = loss_floor
            && floor > best
        {
            // The moves left out lose exactly then: no better than that, but no worse.
            best = floor;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_start {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if excluded.is_none() {
            self.tt
                .store(pos.hash(), ply, best_move, best, depth, bound);
        }
        best
    }

    /// A VCF for the side to move at a leaf: its score, with the first move as the PV.
    fn leaf_vcf(&mut self, pos: &mut G, ply: usize) -> Option<i32> {
        let p = self.settings.params;
        // The hard limit is checked between nodes of the main search; a leaf's VCF is
        // small enough not to need it.
        let leaf = LeafVcf {
            near: p.vcf_near == 1,
            breadth: p.vcf_breadth,
            threes: p.vcf_threes == 1,
        };
        let kind = if leaf == LeafVcf::default() {
            ThreatKind::Vcf
        } else {
            ThreatKind::VcfLeaf(leaf)
        };
        let mut budget = NodeBudget::new(self.node_budget(u64::from(p.vcf_nodes)));
        let win = self.eval.threat_search(pos, kind, p.vcf_moves, &mut budget);
        self.nodes += budget.used;
        let win = win?;
        if let Some(&mv) = win.line.first() {
            self.plies[ply].pv.push(mv);
        }
        Some(win_in(ply + win.plies as usize))
    }

    pub(super) fn update_pv(&mut self, ply: usize, mv: G::Move) {
        let (head, tail) = self.plies.split_at_mut(ply + 1);
        let pv = &mut head[ply].pv;
        pv.clear();
        pv.push(mv);
        pv.extend_from_slice(&tail[0].pv);
    }

    /// With `counter`, the reply that last refuted the move that led to `ply` (none at
    /// the root and after a null move).
    #[inline]
    pub(super) fn counter_move(&self, pos: &G, ply: usize) -> Option<G::Move> {
        self.counter_slot(pos, ply).and_then(|i| self.counters[i])
    }

    /// The counter-move table's slot for the node at `ply`.
    #[inline]
    fn counter_slot(&self, pos: &G, ply: usize) -> Option<usize> {
        if !self.settings.counter || ply == 0 {
            return None;
        }
        let prev = self.plies[ply - 1].played?;
        let bound = self.counters.len() / 2;
        Some(pos.side_to_move().index() * bound + pos.move_index(prev))
    }

    /// Killers, history and the counter move for a move that caused a beta cutoff.
    pub(super) fn reward(&mut self, pos: &G, ply: usize, mv: G::Move, depth: i32) {
        if let Some(i) = self.counter_slot(pos, ply) {
            self.counters[i] = Some(mv);
        }
        if self.settings.killers {
            let k = &mut self.plies[ply].killers;
            if k[0] != Some(mv) {
                k[1] = k[0];
                k[0] = Some(mv);
            }
        }
        if self.settings.history {
            self.history
                .reward(pos.side_to_move().index(), pos.move_index(mv), depth);
        }
    }
}
