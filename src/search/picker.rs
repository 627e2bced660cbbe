//! The move picker of a node, in stages: the transposition table's move before anything
//! is generated; then the generated list (the evaluator's candidates, or only the moves a
//! threat forces), ordered by packed keys and picked lazily (see [`super::ordering`]).
//! With `staged`, the candidates come in the evaluator's batches (gomoku: fours, threes
//! and the blocks of the opponent's, then the rest; Ataxx: singles, then jumps), with the
//! killers (and the counter move) tried between the first batch and the rest. A cutoff in an early stage saves
//! generating and ordering the rest.

use super::{Hint, Ordered, Ply, Searcher, ordering};
use crate::{
    eval::{Evaluator, MoveKey, PRUNED},
    game::Game,
};

/// Where an interior node is in producing its moves.
#[derive(Clone, Copy, Debug)]
pub(super) enum Stage<M> {
    /// The table's move comes first; nothing generated yet.
    TableMove(Option<M>),
    /// Generate and order the candidates (with `staged`, batch `batch` of them);
    /// `skip` holds the moves already searched.
    Generate {
        /// Moves already searched (the table's move, the killers, the counter move).
        skip: [Option<M>; 4],
        /// The batch to generate (always 0 without `staged`).
        batch: usize,
    },
    /// Picking from the ordered list.
    List {
        /// Next index to pick.
        next: usize,
        /// Moves that may be searched (pruned ones and those past top_k excluded).
        len: usize,
        /// Moves already searched.
        skip: Option<[Option<M>; 4]>,
        /// The batch that follows this list, if any.
        then: Option<usize>,
    },
    /// Between the first batch and the rest: killer `next` (0 or 1), or with 2 the
    /// counter move, is tried next.
    Killers {
        /// Next slot: the killers, then the counter move.
        next: usize,
        /// Moves already searched.
        skip: [Option<M>; 4],
        /// The batch that follows.
        batch: usize,
    },
}

/// The forced moves of a node, as [`Searcher::prepare_forced_list`] put them in order.
#[derive(Clone, Copy, Debug)]
pub(super) struct ForcedList {
    /// How many.
    pub len: usize,
    /// Whether some legal move was left out (it loses as the threat says).
    pub left_out: bool,
}

impl<G: Game, E: Evaluator<G>> Searcher<G, E> {
    /// The next move to search at an interior node and its hint (the table's move and
    /// the killers are never reduced or pruned).
    #[inline]
    pub(super) fn next_move(
        &mut self,
        pos: &G,
        ply: usize,
        stage: &mut Stage<G::Move>,
    ) -> Option<(G::Move, Hint)> {
        loop {
            match *stage {
                Stage::TableMove(tt) => {
                    *stage = Stage::Generate {
                        skip: [tt, None, None, None],
                        batch: 0,
                    };
                    if let Some(mv) = tt {
                        return Some((mv, Hint::KEEP));
                    }
                }
                Stage::Generate { skip, batch } => {
                    let (len, more) = if self.settings.staged {
                        self.prepare_batch(pos, ply, batch)
                    } else {
                        (self.prepare_moves_with_tt(pos, ply, None), false)
                    };
                    *stage = Stage::List {
                        next: 0,
                        len,
                        skip: Some(skip),
                        then: more.then_some(batch + 1),
                    };
                }
                Stage::List {
                    next,
                    len,
                    skip,
                    then,
                } => {
                    if next >= len {
                        *stage = match (then, skip) {
                            (Some(batch), Some(skip))
                                if batch == 1
                                    && (self.settings.killers || self.settings.counter) =>
                            {
                                Stage::Killers {
                                    next: 0,
                                    skip,
                                    batch,
                                }
                            }
                            (Some(batch), Some(skip)) => Stage::Generate { skip, batch },
                            _ => return None,
                        };
                        continue;
                    }
                    *stage = Stage::List {
                        next: next + 1,
                        len,
                        skip,
                        then,
                    };
                    let (mv, hint) = self.pick(ply, next)?;
                    if skip.is_none_or(|s| !s.contains(&Some(mv))) {
                        return Some((mv, hint));
                    }
                }
                Stage::Killers {
                    next,
                    mut skip,
                    batch,
                } => {
                    if next >= 3 {
                        *stage = Stage::Generate { skip, batch };
                        continue;
                    }
                    let killer = if next < 2 {
                        self.plies[ply].killers[next]
                    } else {
                        self.counter_move(pos, ply)
                    };
                    // Not already searched, legal here, a candidate, and not in the first
                    // batch (whose list is still in place).
                    let fresh = killer.filter(|&k| {
                        !skip.contains(&Some(k))
                            && pos.is_legal(k)
                            && self.eval.is_candidate(pos, k)
                            && !self.plies[ply].ordered.iter().any(|&(_, (m, _))| m == k)
                    });
                    skip[1 + next] = fresh;
                    *stage = Stage::Killers {
                        next: next + 1,
                        skip,
                        batch,
                    };
                    if let Some(k) = fresh {
                        return Some((k, Hint::KEEP));
                    }
                }
            }
        }
    }

    /// Generates the root's candidates with the table's move first.
    pub(super) fn prepare_moves(&mut self, pos: &G, ply: usize) -> usize {
        let tt_move = if self.settings.tt_move {
            self.tt.probe(pos.hash(), ply).and_then(|h| h.mv)
        } else {
            None
        };
        self.prepare_moves_with_tt(pos, ply, tt_move)
    }

    /// Generates the candidates of `ply` with their sort keys; returns how many may be
    /// searched (pruned moves excluded, at most `top_k`).
    pub(super) fn prepare_moves_with_tt(
        &mut self,
        pos: &G,
        ply: usize,
        tt_move: Option<G::Move>,
    ) -> usize {
        let mut moves = std::mem::take(&mut self.plies[ply].moves);
        self.eval.candidates(pos, &mut moves);
        let n = self.order(pos, ply, &moves, tt_move);
        self.plies[ply].moves = moves;
        let top_k = self.settings.top_k;
        if top_k > 0 { n.min(top_k) } else { n }
    }

    /// Generates batch `batch` of the candidates of `ply` with their keys (see
    /// [`Evaluator::candidates_batch`]); returns how many may be searched and whether a
    /// later batch may follow. `top_k` counts within the batch.
    fn prepare_batch(&mut self, pos: &G, ply: usize, batch: usize) -> (usize, bool) {
        let mut moves = std::mem::take(&mut self.plies[ply].moves);
        let more = self.eval.candidates_batch(pos, batch, &mut moves);
        let n = self.order(pos, ply, &moves, None);
        self.plies[ply].moves = moves;
        let top_k = self.settings.top_k;
        (if top_k > 0 { n.min(top_k) } else { n }, more)
    }

    /// Puts the moves a threat forces (the evaluator's [`Evaluator::forced_moves`]) in
    /// order at `ply`, the table's move first if it is one of them.
    pub(super) fn prepare_forced_list(
        &mut self,
        pos: &G,
        ply: usize,
        tt_move: Option<G::Move>,
    ) -> ForcedList {
        let mut moves = std::mem::take(&mut self.plies[ply].moves);
        let left_out = self.eval.forced_moves(pos, &mut moves);
        let len = self.order(pos, ply, &moves, tt_move);
        self.plies[ply].moves = moves;
        ForcedList { len, left_out }
    }

    /// Fills the ordered list of `ply` from `moves`; returns how many are not pruned.
    fn order(&mut self, pos: &G, ply: usize, moves: &[G::Move], tt_move: Option<G::Move>) -> usize {
        let settings = self.settings;
        let tt_move = if settings.tt_move { tt_move } else { None };
        let n = moves.len();
        let counter = self.counter_move(pos, ply);
        // The evaluator's keys, then the search's own.
        let eval_keys = &mut self.scratch_keys;
        eval_keys.clear();
        eval_keys.resize(n, MoveKey::default());
        self.eval.order_keys(pos, moves, eval_keys, settings.order);
        let Ply {
            ordered, killers, ..
        } = &mut self.plies[ply];
        ordered.clear();
        let mut pruned = 0;
        let side = pos.side_to_move().index();
        let history = &self.history;
        // One pass, one reservation (`extend` over slices knows its length).
        ordered.extend(moves.iter().zip(eval_keys.iter()).enumerate().map(
            |(i, (&mv, ek))| -> Ordered<G::Move> {
                if ek.class == PRUNED {
                    pruned += 1;
                    return (0, (mv, Hint::default()));
                }
                let killer = if settings.killers && killers[0] == Some(mv) {
                    3
                } else if settings.killers && killers[1] == Some(mv) {
                    2
                } else if counter == Some(mv) {
                    1
                } else {
                    0
                };
                let history = if settings.history {
                    history.get(side, pos.move_index(mv))
                } else {
                    0
                };
                // The table's move goes first (a pruned move never: handled above).
                if tt_move.is_some() && tt_move == Some(mv) {
                    (u64::MAX, (mv, Hint::KEEP))
                } else {
                    let hint = Hint {
                        tactical: ek.tactical || killer > 0,
                        gain: ek.gain,
                        kept: killer > 0,
                    };
                    (
                        ordering::sort_key(ek.class, killer, ek.score, history, i),
                        (mv, hint),
                    )
                }
            },
        ));
        n - pruned
    }

    /// The `i`-th move of `ply` in order and its hint (see
    /// [`ordering::pick`]).
    #[inline]
    pub(super) fn pick(&mut self, ply: usize, i: usize) -> Option<(G::Move, Hint)> {
        ordering::pick(&mut self.plies[ply].ordered, i)
    }
}
