//! The search driver: iterative deepening with optional aspiration windows, the root
//! node (principal variation search there too), the threat search at the root, the
//! seeded random choice among near-best root moves, and the stop checks.

use std::{sync::atomic::Ordering as AtomicOrdering, time::Instant};

use rand::RngExt;

use super::{
    Iteration, Limits, SearchResult, Searcher,
    negamax::Node,
    score::{INFINITY, MAX_PLY, WIN, is_decisive, win_in},
    time::Deadline,
    tt::Bound,
};
use crate::{
    eval::{Evaluator, Forcing, NodeBudget, ThreatKind},
    game::Game,
};

impl<G: Game, E: Evaluator<G>> Searcher<G, E> {
    /// Searches `pos` within `limits`, calling `on_iteration` after each completed
    /// iteration.
    pub fn search(
        &mut self,
        pos: &G,
        limits: Limits,
        mut on_iteration: impl FnMut(&Iteration<G::Move>),
    ) -> SearchResult<G::Move> {
        self.start = Instant::now();
        self.deadline = Deadline::new(self.start, &limits);
        self.limits = limits;
        self.nodes = 0;
        self.stopped = false;
        self.tt.new_search();
        self.history
            .prepare(pos.move_index_bound(), self.settings.params.lmr_history > 0);
        if self.settings.counter && self.counters.len() != 2 * pos.move_index_bound() {
            self.counters = vec![None; 2 * pos.move_index_bound()];
        }
        self.eval.reset(pos);
        self.unit = self.eval.unit().max(1);
        self.pos = Some(pos.clone());
        // Nothing of an earlier search may pass for this one's (a stopped first
        // iteration reads the root's PV).
        self.plies[0].pv.clear();

        let mut result = SearchResult {
            best: None,
            score: 0,
            depth: 0,
            nodes: 0,
            time: std::time::Duration::ZERO,
            pv: Vec::new(),
            iterations: Vec::new(),
        };
        let mut root_moves = Vec::new();
        self.eval.candidates(pos, &mut root_moves);
        if root_moves.is_empty() {
            result.time = self.start.elapsed();
            return result;
        }
        result.best = Some(root_moves[0]);
        if let Some((score, pv)) = self.root_shortcut() {
            // A forced win known before any search: play it, report it as depth 1.
            let iteration = Iteration {
                depth: 1,
                score,
                nodes: self.nodes,
                time: self.start.elapsed(),
                pv: pv.clone(),
            };
            on_iteration(&iteration);
            result.best = pv.first().copied().or(result.best);
            result.score = score;
            result.depth = 1;
            result.pv = pv;
            result.iterations.push(iteration);
            result.nodes = self.nodes;
            result.time = self.start.elapsed();
            return result;
        }
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 1)
            .min(MAX_PLY as u32 - 1);
        let mut previous: Option<i32> = None;
        let mut chosen_pool: Vec<(G::Move, i32)> = Vec::new();
        for depth in 1..=max_depth {
            if depth > 1 && self.deadline.past_soft() {
                break;
            }
            self.depth_cut = false;
            self.root_depth = depth as i32;
            let score = self.aspiration_search(depth as i32, previous);
            if self.stopped {
                // A partial iteration is discarded, except that the first one's best root
                // move so far beats an unsearched guess.
                if result.depth == 0
                    && let Some(&mv) = self.plies[0].pv.first()
                    && pos.is_legal(mv)
                {
                    result.best = Some(mv);
                    result.pv = vec![mv];
                } else if self.settings.partial_iterations
                    && let Some(mv) = self.root_proven
                    && Some(mv) != result.best
                    && self
                        .root_scores
                        .iter()
                        .any(|&(m, _)| Some(m) == result.best)
                    && pos.is_legal(mv)
                {
                    // A fully searched move scored above the window and above every other
                    // move searched, the previous best included: at this depth it is the
                    // better move.
                    result.best = Some(mv);
                    result.pv.clone_from(&self.plies[0].pv);
                }
                break;
            }
            previous = Some(score);
            let pv = self.plies[0].pv.clone();
            result.best = pv.first().copied().or(result.best);
            result.score = score;
            result.depth = depth;
            result.pv = pv.clone();
            chosen_pool.clone_from(&self.root_scores);
            let iteration = Iteration {
                depth,
                score,
                nodes: self.nodes,
                time: self.start.elapsed(),
                pv,
            };
            on_iteration(&iteration);
            result.iterations.push(iteration);
            if is_decisive(score) || !self.depth_cut {
                // A proven result (or the whole tree was searched): deeper changes nothing.
                break;
            }
            if limits.nodes.is_some_and(|n| self.nodes >= n) {
                break;
            }
        }
        if self.settings.random_margin > 0
            && !is_decisive(result.score)
            && let Some(pick) = self.pick_random(&chosen_pool, result.score)
        {
            if Some(pick) != result.best {
                result.pv = vec![pick];
            }
            result.best = Some(pick);
        }
        result.nodes = self.nodes;
        result.time = self.start.elapsed();
        result
    }

    /// A win found before iterative deepening: the evaluator's forced win, then a VCF,
    /// then a VCT, as the settings ask. The score and the winning line.
    fn root_shortcut(&mut self) -> Option<(i32, Vec<G::Move>)> {
        let mut pos = self.pos.take().expect("a position is set for the search");
        let found = self.find_root_win(&mut pos);
        self.pos = Some(pos);
        found
    }

    fn find_root_win(&mut self, pos: &mut G) -> Option<(i32, Vec<G::Move>)> {
        let s = self.settings;
        if s.forced
            && let Forcing::Win { mv, plies } = self.eval.forcing(pos)
        {
            return Some((win_in(plies as usize), vec![mv]));
        }
        let p = s.params;
        let mut tries = Vec::new();
        if s.vcf {
            tries.push((ThreatKind::Vcf, p.vcf_root_moves, p.vcf_root_nodes));
        }
        if s.vct {
            tries.push((ThreatKind::Vct, p.vct_moves, p.vct_nodes));
        }
        // At most a quarter of the node limit and of the soft time limit: the main search
        // must have its share.
        let deadline = self.limits.soft_time.or(self.limits.movetime);
        let deadline = deadline.map(|t| self.start + t / 4);
        for (kind, moves, nodes) in tries {
            let quarter = self.limits.nodes.map_or(u64::MAX, |n| n / 4);
            let budget = self.node_budget(u64::from(nodes)).min(quarter);
            let mut budget = NodeBudget::new(budget).until(deadline);
            let win = self.eval.threat_search(pos, kind, moves, &mut budget);
            self.nodes += budget.used;
            if let Some(win) = win
                && !win.line.is_empty()
            {
                return Some((win_in(win.plies as usize), win.line));
            }
        }
        None
    }

    /// `wanted` nodes, or fewer if the node limit is closer.
    pub(super) fn node_budget(&self, wanted: u64) -> u64 {
        match self.limits.nodes {
            Some(n) => wanted.min(n.saturating_sub(self.nodes)),
            None => wanted,
        }
    }

    /// Among root moves within the margin of `best`, one chosen by the seeded generator.
    fn pick_random(&mut self, pool: &[(G::Move, i32)], best: i32) -> Option<G::Move> {
        let margin = self.settings.random_margin;
        let near: Vec<G::Move> = pool
            .iter()
            .filter(|(_, s)| *s >= best - margin)
            .map(|&(m, _)| m)
            .collect();
        if near.is_empty() {
            return None;
        }
        Some(near[self.rng.random_range(0..near.len())])
    }

    fn aspiration_search(&mut self, depth: i32, previous: Option<i32>) -> i32 {
        let width = self.settings.aspiration;
        let use_window = width > 0
            && depth >= 3
            && self.settings.random_margin == 0
            && previous.is_some_and(|s| !is_decisive(s));
        if !use_window {
            return self.root(depth, -INFINITY, INFINITY);
        }
        let center = previous.expect("checked above");
        let mut delta = width;
        loop {
            let alpha = center.saturating_sub(delta).max(-INFINITY);
            let beta = center.saturating_add(delta).min(INFINITY);
            let score = self.root(depth, alpha, beta);
            if self.stopped || (score > alpha && score < beta) {
                return score;
            }
            if delta >= WIN {
                return self.root(depth, -INFINITY, INFINITY);
            }
            delta = delta.saturating_mul(4);
        }
    }

    /// Called before counting a node: stops at exactly the node limit, and checks the
    /// clock and the abort flag every 1024 nodes.
    #[inline]
    pub(super) fn check_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.limits.nodes.is_some_and(|n| self.nodes >= n)
            || (self.nodes & 1023 == 0
                && (self.deadline.past_hard()
                    || self
                        .abort
                        .as_ref()
                        .is_some_and(|a| a.load(AtomicOrdering::Relaxed))))
        {
            self.stopped = true;
        }
        self.stopped
    }

    fn root(&mut self, depth: i32, mut alpha: i32, beta: i32) -> i32 {
        let mut pos = self.pos.take().expect("a position is set for the search");
        let score = self.root_inner(&mut pos, depth, &mut alpha, beta);
        self.pos = Some(pos);
        score
    }

    fn root_inner(&mut self, pos: &mut G, depth: i32, alpha: &mut i32, beta: i32) -> i32 {
        if self.check_stop() {
            return 0;
        }
        self.nodes += 1;
        self.root_scores.clear();
        // Under a threat only the moves that stop it (unless none does: then every move
        // loses, and the search shows how slowly).
        let mut forced_len = 0;
        if self.settings.forced && matches!(self.eval.forcing(pos), Forcing::Defend { .. }) {
            let tt_move = self.tt.probe(pos.hash(), 0).and_then(|h| h.mv);
            forced_len = self.prepare_forced_list(pos, 0, tt_move).len;
        }
        let n = if forced_len > 0 {
            forced_len
        } else {
            self.prepare_moves(pos, 0)
        };
        let alpha_start = *alpha;
        let mut best = -INFINITY;
        let margin = self.settings.random_margin;
        let pvs = self.settings.pvs;
        self.plies[0].pv.clear();
        self.root_proven = None;
        for i in 0..n {
            let Some((mv, _)) = self.pick(0, i) else {
                break;
            };
            self.plies[0].played = Some(mv);
            let undo = pos.play(mv);
            self.eval.played(pos, mv);
            // With a random margin, moves within the margin of the best need exact scores.
            let a = if margin > 0 && best > -INFINITY {
                (best - margin - 1).max(alpha_start)
            } else {
                *alpha
            };
            let score = if pvs && best > -INFINITY {
                let zero = -self.negamax(pos, depth - 1, 1, -a - 1, -a, Node::CUT);
                if zero > a && zero < beta && !self.stopped {
                    -self.negamax(pos, depth - 1, 1, -beta, -a, Node::PV)
                } else {
                    zero
                }
            } else {
                -self.negamax(pos, depth - 1, 1, -beta, -a, Node::PV)
            };
            pos.undo(mv, undo);
            self.eval.undone(pos, mv);
            if self.stopped {
                break;
            }
            self.root_scores.push((mv, score));
            if score > best {
                best = score;
                self.update_pv(0, mv);
                // Above the window's lower end: a real score or a lower bound, not an
                // upper bound (a fail-soft fail low proves nothing about the order).
                if score > alpha_start {
                    self.root_proven = Some(mv);
                }
            }
            if score > *alpha {
                *alpha = score;
                if score >= beta {
                    self.reward(pos, 0, mv, depth);
                    break;
                }
            }
        }
        if !self.stopped && best > -INFINITY {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > alpha_start {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let best_move = self.plies[0].pv.first().copied();
            self.tt.store(pos.hash(), 0, best_move, best, depth, bound);
        }
        best
    }
}
