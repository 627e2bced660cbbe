//! One generic negamax alpha-beta for any [`Game`] with any [`Evaluator`]: iterative
//! deepening, a transposition table, limits by depth, nodes and time (any combination),
//! principal variation, "win in n plies" scores, optional aspiration windows, and the
//! ordering heuristics chosen by [`SearchSettings`].
//!
//! Node count means one thing everywhere: positions visited by the search, interior and
//! leaf, the root included. With depth or node limits a search is a pure function of the
//! position, the settings and the seed; only time limits make it depend on the machine.
//! The search allocates nothing per node: move lists and keys live in per-ply buffers.

mod ordering;
pub mod score;
pub mod tt;

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering as AtomicOrdering},
    },
    time::{Duration, Instant},
};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use self::{
    score::{INFINITY, MAX_PLY, WIN, is_decisive, win_in},
    tt::{Bound, TranspositionTable},
};
use crate::{
    eval::{Evaluator, MoveKey, OrderFlags, PRUNED},
    game::{Game, Outcome},
};

/// When to stop searching. Unset limits do not apply; at least one should be set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration, in plies.
    pub depth: Option<u32>,
    /// Stop after this many nodes (checked at every node: deterministic).
    pub nodes: Option<u64>,
    /// Stop after this much time (not reproducible).
    pub movetime: Option<Duration>,
}

impl Limits {
    /// Whether the search result depends on the machine (a time limit is set).
    pub fn is_timed(&self) -> bool {
        self.movetime.is_some()
    }
}

/// How the search orders (and prunes) moves; from the engine config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchSettings {
    /// What the evaluator contributes (static scores, threats, captures, ...).
    pub order: OrderFlags,
    /// Search the transposition table's move first.
    pub tt_move: bool,
    /// Two killer moves per ply, tried after the evaluator's higher classes.
    pub killers: bool,
    /// History heuristic as the last ordering key.
    pub history: bool,
    /// Search only the best K moves at each node (0: all).
    pub top_k: usize,
    /// Aspiration window half-width around the previous iteration's score (0: off).
    pub aspiration: i32,
    /// Choose at random (seeded) among root moves within this margin of the best (0: off).
    pub random_margin: i32,
}

impl Default for SearchSettings {
    fn default() -> SearchSettings {
        SearchSettings {
            order: OrderFlags::default(),
            tt_move: true,
            killers: false,
            history: false,
            top_k: 0,
            aspiration: 0,
            random_margin: 0,
        }
    }
}

/// One completed iteration of iterative deepening.
#[derive(Clone, Debug, PartialEq)]
pub struct Iteration<M> {
    /// Depth of the iteration.
    pub depth: u32,
    /// Score for the side to move.
    pub score: i32,
    /// Nodes of this search so far (all iterations up to this one).
    pub nodes: u64,
    /// Time of this search so far.
    pub time: Duration,
    /// Principal variation.
    pub pv: Vec<M>,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M> {
    /// The move to play (`None` only when the game is over).
    pub best: Option<M>,
    /// Its score for the side to move (from the last completed iteration).
    pub score: i32,
    /// Deepest completed iteration.
    pub depth: u32,
    /// Nodes visited, all iterations included (an aborted one too).
    pub nodes: u64,
    /// Wall time.
    pub time: Duration,
    /// Principal variation of the last completed iteration.
    pub pv: Vec<M>,
    /// Every completed iteration.
    pub iterations: Vec<Iteration<M>>,
}

/// Per-ply working memory, allocated once.
struct Ply<M> {
    moves: Vec<M>,
    ordered: Vec<(u64, M)>,
    pv: Vec<M>,
    killers: [Option<M>; 2],
}

/// Where an interior node is in producing its moves.
#[derive(Clone, Copy, Debug)]
enum Stage<M> {
    /// The table's move comes first; nothing generated yet.
    TableMove(Option<M>),
    /// Generate and order the candidates; `skip` was already searched.
    Generate {
        /// The table's move, if it was searched.
        skip: Option<M>,
    },
    /// Picking from the ordered list.
    List {
        /// Next index to pick.
        next: usize,
        /// Moves that may be searched (pruned ones and those past top_k excluded).
        len: usize,
        /// The table's move, already searched.
        skip: Option<M>,
    },
}

/// A searcher: an evaluator, a transposition table, heuristics and buffers, reused for
/// every move of every game.
pub struct Searcher<G: Game, E: Evaluator<G>> {
    eval: E,
    settings: SearchSettings,
    tt: TranspositionTable<G::Move>,
    plies: Vec<Ply<G::Move>>,
    history: Vec<i32>,
    history_bound: usize,
    rng: ChaCha8Rng,
    // Per search:
    pos: Option<G>,
    nodes: u64,
    limits: Limits,
    start: Instant,
    stopped: bool,
    /// Raised from outside (Ctrl-C) to abandon the search.
    abort: Option<Arc<AtomicBool>>,
    /// A leaf was cut by the depth limit in this iteration (so deeper might differ).
    depth_cut: bool,
    root_scores: Vec<(G::Move, i32)>,
    scratch_keys: Vec<MoveKey>,
}

impl<G: Game, E: Evaluator<G>> Searcher<G, E> {
    /// A searcher with a transposition table of `tt_mb` megabytes (0: none).
    pub fn new(eval: E, settings: SearchSettings, tt_mb: usize) -> Searcher<G, E> {
        Searcher {
            eval,
            settings,
            tt: TranspositionTable::new(tt_mb),
            plies: (0..=MAX_PLY)
                .map(|_| Ply {
                    moves: Vec::new(),
                    ordered: Vec::new(),
                    pv: Vec::with_capacity(MAX_PLY),
                    killers: [None; 2],
                })
                .collect(),
            history: Vec::new(),
            history_bound: 0,
            rng: ChaCha8Rng::seed_from_u64(0),
            pos: None,
            nodes: 0,
            limits: Limits::default(),
            start: Instant::now(),
            stopped: false,
            abort: None,
            depth_cut: false,
            root_scores: Vec::new(),
            scratch_keys: Vec::new(),
        }
    }

    /// A flag that, once raised, stops every search within about a thousand nodes (the
    /// result is then partial: callers that raise it discard it).
    pub fn set_abort_flag(&mut self, flag: Arc<AtomicBool>) {
        self.abort = Some(flag);
    }

    /// The settings.
    pub fn settings(&self) -> &SearchSettings {
        &self.settings
    }

    /// The evaluator.
    pub fn evaluator(&mut self) -> &mut E {
        &mut self.eval
    }

    /// Forgets everything learned (transposition table, killers, history) and reseeds the
    /// random choice: call before each game.
    pub fn new_game(&mut self, seed: u64) {
        self.tt.clear();
        for ply in &mut self.plies {
            ply.killers = [None; 2];
        }
        self.history.iter_mut().for_each(|h| *h = 0);
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    /// Searches `pos` within `limits`, calling `on_iteration` after each completed
    /// iteration.
    pub fn search(
        &mut self,
        pos: &G,
        limits: Limits,
        mut on_iteration: impl FnMut(&Iteration<G::Move>),
    ) -> SearchResult<G::Move> {
        self.start = Instant::now();
        self.limits = limits;
        self.nodes = 0;
        self.stopped = false;
        self.tt.new_search();
        let bound = pos.move_index_bound();
        if self.history_bound != bound {
            self.history = vec![0; 2 * bound];
            self.history_bound = bound;
        } else {
            // Old history still helps, but less.
            self.history.iter_mut().for_each(|h| *h /= 2);
        }
        self.eval.reset(pos);
        self.pos = Some(pos.clone());

        let mut result = SearchResult {
            best: None,
            score: 0,
            depth: 0,
            nodes: 0,
            time: Duration::ZERO,
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
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 1)
            .min(MAX_PLY as u32 - 1);
        let mut previous: Option<i32> = None;
        let mut chosen_pool: Vec<(G::Move, i32)> = Vec::new();
        for depth in 1..=max_depth {
            if depth > 1 && self.out_of_time(true) {
                break;
            }
            self.depth_cut = false;
            let score = self.aspiration_search(depth as i32, previous);
            if self.stopped {
                // A partial iteration is discarded, except that the first one's best root
                // move so far beats an unsearched guess.
                if result.depth == 0
                    && let Some(&mv) = self.plies[0].pv.first()
                {
                    result.best = Some(mv);
                    result.pv = vec![mv];
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

    /// Whether to stop: node limit always; time checked every 1024 nodes (and at
    /// iteration starts, where `soft` stops early when half the time is gone).
    #[inline]
    fn out_of_time(&mut self, soft: bool) -> bool {
        if let Some(limit) = self.limits.movetime {
            let elapsed = self.start.elapsed();
            if elapsed >= limit || (soft && elapsed * 2 >= limit) {
                return true;
            }
        }
        false
    }

    /// Called before counting a node: stops at exactly the node limit, and checks the
    /// clock every 1024 nodes.
    #[inline]
    fn check_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.limits.nodes.is_some_and(|n| self.nodes >= n)
            || (self.nodes & 1023 == 0
                && (self.out_of_time(false)
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
        let n = self.prepare_moves(pos, 0);
        let alpha_start = *alpha;
        let mut best = -INFINITY;
        let margin = self.settings.random_margin;
        self.plies[0].pv.clear();
        for i in 0..n {
            let Some(mv) = self.pick(0, i) else { break };
            let undo = pos.play(mv);
            self.eval.played(pos, mv);
            // With a random margin, moves within the margin of the best need exact scores.
            let a = if margin > 0 && best > -INFINITY {
                (best - margin - 1).max(alpha_start)
            } else {
                *alpha
            };
            let score = -self.negamax(pos, depth - 1, 1, -beta, -a);
            pos.undo(mv, undo);
            self.eval.undone(pos, mv);
            if self.stopped {
                break;
            }
            self.root_scores.push((mv, score));
            if score > best {
                best = score;
                self.update_pv(0, mv);
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

    /// Terminal score for the side to move.
    #[inline]
    fn terminal(pos: &G, outcome: Outcome, ply: usize) -> i32 {
        match outcome.winner() {
            None => 0,
            Some(side) if side == pos.side_to_move() => win_in(ply),
            Some(_) => -win_in(ply),
        }
    }

    fn negamax(&mut self, pos: &mut G, depth: i32, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        self.plies[ply].pv.clear();
        if self.check_stop() {
            return 0;
        }
        self.nodes += 1;
        if let Some(outcome) = pos.outcome() {
            return Self::terminal(pos, outcome, ply);
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            self.depth_cut = true;
            return self.eval.evaluate(pos);
        }
        let alpha_start = alpha;
        let mut tt_move = None;
        if let Some(hit) = self.tt.probe(pos.hash(), ply) {
            tt_move = hit.mv;
            if hit.depth >= depth {
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
        }
        let mut best = -INFINITY;
        let mut best_move = None;
        let limit = if self.settings.top_k > 0 {
            self.settings.top_k
        } else {
            usize::MAX
        };
        let mut searched = 0;
        // Staged: the table's move first, before generating the others (a cutoff here
        // saves generating and ordering the whole list). It was the best move of this
        // very position, so it is a candidate and not pruned.
        let tt_move = tt_move.filter(|&mv| self.settings.tt_move && pos.is_legal(mv));
        let mut stage = Stage::TableMove(tt_move);
        while searched < limit {
            let Some(mv) = self.next_move(pos, ply, &mut stage) else {
                break;
            };
            let score = self.child(pos, mv, depth, ply, alpha, beta);
            if self.stopped {
                return 0;
            }
            searched += 1;
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        self.reward(pos, ply, mv, depth);
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_start {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(pos.hash(), ply, best_move, best, depth, bound);
        best
    }

    /// The next move to search at an interior node: the table's move first, then the
    /// generated list (generated only when the table's move did not cut off), skipping
    /// the table's move.
    #[inline]
    fn next_move(&mut self, pos: &G, ply: usize, stage: &mut Stage<G::Move>) -> Option<G::Move> {
        loop {
            match *stage {
                Stage::TableMove(Some(mv)) => {
                    *stage = Stage::Generate { skip: Some(mv) };
                    return Some(mv);
                }
                Stage::TableMove(None) => *stage = Stage::Generate { skip: None },
                Stage::Generate { skip } => {
                    let len = self.prepare_moves_with_tt(pos, ply, None);
                    *stage = Stage::List { next: 0, len, skip };
                }
                Stage::List { next, len, skip } => {
                    if next >= len {
                        return None;
                    }
                    *stage = Stage::List {
                        next: next + 1,
                        len,
                        skip,
                    };
                    let mv = self.pick(ply, next)?;
                    if Some(mv) != skip {
                        return Some(mv);
                    }
                }
            }
        }
    }

    /// Plays `mv`, searches the child with the window negated, takes the move back.
    #[inline]
    fn child(
        &mut self,
        pos: &mut G,
        mv: G::Move,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let undo = pos.play(mv);
        self.eval.played(pos, mv);
        let score = -self.negamax(pos, depth - 1, ply + 1, -beta, -alpha);
        pos.undo(mv, undo);
        self.eval.undone(pos, mv);
        score
    }

    fn update_pv(&mut self, ply: usize, mv: G::Move) {
        let (head, tail) = self.plies.split_at_mut(ply + 1);
        let pv = &mut head[ply].pv;
        pv.clear();
        pv.push(mv);
        pv.extend_from_slice(&tail[0].pv);
    }

    /// Killers and history for a move that caused a beta cutoff.
    fn reward(&mut self, pos: &G, ply: usize, mv: G::Move, depth: i32) {
        if self.settings.killers {
            let k = &mut self.plies[ply].killers;
            if k[0] != Some(mv) {
                k[1] = k[0];
                k[0] = Some(mv);
            }
        }
        if self.settings.history {
            let i = pos.side_to_move().index() * self.history_bound + pos.move_index(mv);
            let h = &mut self.history[i];
            *h = h.saturating_add(depth * depth);
            if *h > 1 << 24 {
                self.history.iter_mut().for_each(|h| *h /= 2);
            }
        }
    }

    fn prepare_moves(&mut self, pos: &G, ply: usize) -> usize {
        let tt_move = if self.settings.tt_move {
            self.tt.probe(pos.hash(), ply).and_then(|h| h.mv)
        } else {
            None
        };
        self.prepare_moves_with_tt(pos, ply, tt_move)
    }

    /// Generates the candidates of `ply` with their sort keys; returns how many may be
    /// searched (pruned moves excluded, at most `top_k`).
    fn prepare_moves_with_tt(&mut self, pos: &G, ply: usize, tt_move: Option<G::Move>) -> usize {
        let settings = self.settings;
        let tt_move = if settings.tt_move { tt_move } else { None };
        let Ply {
            moves,
            ordered,
            killers,
            ..
        } = &mut self.plies[ply];
        self.eval.candidates(pos, moves);
        let n = moves.len();
        // The evaluator's keys, then the search's own.
        let eval_keys = &mut self.scratch_keys;
        eval_keys.clear();
        eval_keys.resize(n, MoveKey::default());
        self.eval.order_keys(pos, moves, eval_keys, settings.order);
        ordered.clear();
        let mut pruned = 0;
        let side = pos.side_to_move().index() * self.history_bound;
        let history = &self.history;
        // One pass, one reservation (`extend` over slices knows its length).
        ordered.extend(
            moves
                .iter()
                .zip(eval_keys.iter())
                .enumerate()
                .map(|(i, (&mv, ek))| {
                    if ek.class == PRUNED {
                        pruned += 1;
                        return (0, mv);
                    }
                    let killer = if !settings.killers {
                        0
                    } else if killers[0] == Some(mv) {
                        2
                    } else if killers[1] == Some(mv) {
                        1
                    } else {
                        0
                    };
                    let history = if settings.history {
                        history[side + pos.move_index(mv)]
                    } else {
                        0
                    };
                    // The table's move goes first (a pruned move never: handled above).
                    if tt_move.is_some() && tt_move == Some(mv) {
                        (u64::MAX, mv)
                    } else {
                        (
                            ordering::sort_key(ek.class, killer, ek.score, history, i),
                            mv,
                        )
                    }
                }),
        );
        let searchable = n - pruned;
        if settings.top_k > 0 {
            searchable.min(settings.top_k)
        } else {
            searchable
        }
    }

    /// The `i`-th move of `ply` in order (see [`ordering::pick`]).
    #[inline]
    fn pick(&mut self, ply: usize, i: usize) -> Option<G::Move> {
        ordering::pick(&mut self.plies[ply].ordered, i)
    }
}
