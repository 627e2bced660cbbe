//! One generic negamax alpha-beta for any [`Game`] with any [`Evaluator`], one file per
//! concern (the shape of viridithas's search):
//! - `driver`: iterative deepening, aspiration windows, the root, threat search at the
//!   root, the random root choice;
//! - `negamax`: the node search, every pruning and reduction rule inline and readable
//!   top to bottom (principal variation search, mate-distance pruning, null move,
//!   reverse futility, futility, late-move pruning and reductions, internal iterative
//!   reduction, forced-move knowledge and threat search at the leaves);
//! - `picker`: the staged move picker (table move, killers and the counter move, then
//!   the list, or only the moves a threat forces);
//! - [`history`]: killers and the history table;
//! - [`params`]: every margin, reduction and depth limit, by name;
//! - [`time`]: soft and hard time limits;
//! - [`tt`]: the transposition table; [`score`]: win-in-n scores.
//!
//! Every technique is a switch in [`SearchSettings`]; with all of them off the search is
//! the plain fail-soft alpha-beta the seed configs were measured with (their node counts
//! are their fingerprints). Game knowledge (gomoku threats, the VCF/VCT solver, Ataxx
//! captures) comes from the evaluator side through [`Evaluator`]; this module knows no
//! game.
//!
//! Node count means one thing everywhere: positions visited by the search, interior and
//! leaf, the root and threat-search positions included. With depth or node limits a
//! search is a pure function of the position, the settings and the seed; only time
//! limits make it depend on the machine. The search allocates nothing per node: move
//! lists and keys live in per-ply buffers.

mod driver;
pub mod history;
mod negamax;
pub mod ordering;
pub mod params;
mod picker;
pub mod score;
pub mod time;
pub mod tt;

use std::{
    sync::{Arc, atomic::AtomicBool},
    time::{Duration, Instant},
};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub use self::params::SearchParams;
use self::{history::History, score::MAX_PLY, time::Deadline, tt::TranspositionTable};
use crate::{
    eval::{Evaluator, MoveKey, OrderFlags},
    game::Game,
};

/// When to stop searching. Unset limits do not apply; at least one should be set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration, in plies.
    pub depth: Option<u32>,
    /// Stop after this many nodes (checked at every node: deterministic).
    pub nodes: Option<u64>,
    /// The hard time limit: stop at once past it (not reproducible).
    pub movetime: Option<Duration>,
    /// The soft time limit: start no new iteration past it (default: half the hard
    /// limit).
    pub soft_time: Option<Duration>,
}

impl Limits {
    /// Whether the search result depends on the machine (a time limit is set).
    pub fn is_timed(&self) -> bool {
        self.movetime.is_some() || self.soft_time.is_some()
    }
}

/// Declares [`SearchSettings`] from the switches of `params::search_switches!`: the
/// ordering the engine config translates, then one `bool` per switch, then the numbers.
macro_rules! search_settings {
    (switches { $( $(#[doc = $doc:literal])+ $name:ident => $spec:expr; )+ }) => {
        /// How the search orders, prunes, reduces and extends; from the engine config
        /// (`SearchConfig::settings`). The default is plain alpha-beta with the table's
        /// move first.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct SearchSettings {
            /// What the evaluator contributes (static scores, threats, captures, ...).
            pub order: OrderFlags,
            /// Search the transposition table's move first.
            pub tt_move: bool,
            /// Two killer moves per ply, tried after the evaluator's higher classes.
            pub killers: bool,
            /// The counter move (the reply that last refuted the opponent's previous
            /// move), tried after the killers.
            pub counter: bool,
            /// History heuristic as the last ordering key.
            pub history: bool,
            /// Search only the best K moves at each node (0: all).
            pub top_k: usize,
            /// Aspiration window half-width around the previous iteration's score (0:
            /// off).
            pub aspiration: i32,
            /// Choose at random (seeded) among root moves within this margin of the best
            /// (0: off).
            pub random_margin: i32,
            $( $(#[doc = $doc])+ pub $name: bool, )+
            /// Margins, reductions and depth limits.
            pub params: SearchParams,
        }

        impl Default for SearchSettings {
            fn default() -> SearchSettings {
                SearchSettings {
                    order: OrderFlags::default(),
                    tt_move: true,
                    killers: false,
                    counter: false,
                    history: false,
                    top_k: 0,
                    aspiration: 0,
                    random_margin: 0,
                    $( $name: false, )+
                    params: SearchParams::default(),
                }
            }
        }
    };
}

params::search_switches!(search_settings! {});

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

/// What the picker tells the node about a move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Hint {
    /// Never reduced or pruned (a tactical move, the table's move, a killer).
    pub tactical: bool,
    /// The evaluator's estimate of what the move gains (see [`MoveKey::gain`]).
    pub gain: i32,
    /// The table's move or a killer: never reduced, even with `lmr_tactical`.
    pub kept: bool,
}

impl Hint {
    /// A move that is searched in full: the table's move, a killer.
    pub const KEEP: Hint = Hint {
        tactical: true,
        gain: 0,
        kept: true,
    };
}

/// A move in a node's ordered list: its packed key and its hint.
pub(crate) type Ordered<M> = (u64, (M, Hint));

/// Per-ply working memory, allocated once.
struct Ply<M> {
    moves: Vec<M>,
    ordered: Vec<Ordered<M>>,
    pv: Vec<M>,
    killers: [Option<M>; 2],
    /// The move being searched from this ply (`None` for a null move): the previous
    /// move of the ply below, which the counter move answers.
    played: Option<M>,
    /// The quiet moves searched at this node so far (with `lmr_history`: the ones a
    /// cutoff punishes).
    tried: Vec<M>,
    /// With `singular`: the table's move, left out of the search of this node that asks
    /// whether any other move comes close to it.
    excluded: Option<M>,
}

/// A searcher: an evaluator, a transposition table, heuristics and buffers, reused for
/// every move of every game.
pub struct Searcher<G: Game, E: Evaluator<G>> {
    eval: E,
    settings: SearchSettings,
    tt: TranspositionTable<G::Move>,
    plies: Vec<Ply<G::Move>>,
    history: History,
    /// With `counter`: per side and move index of the opponent's previous move, the
    /// reply that last caused a cutoff.
    counters: Vec<Option<G::Move>>,
    /// Late-move reductions by depth and move number (from the params).
    lmr_table: Vec<[u8; 64]>,
    rng: ChaCha8Rng,
    // Per search:
    pos: Option<G>,
    nodes: u64,
    limits: Limits,
    start: Instant,
    deadline: Deadline,
    stopped: bool,
    /// Raised from outside (Ctrl-C) to abandon the search.
    abort: Option<Arc<AtomicBool>>,
    /// A leaf was cut by the depth limit (or a pruning rule) in this iteration, so a
    /// deeper iteration might differ.
    depth_cut: bool,
    /// The depth of the current iteration (what bounds the longer extensions).
    root_depth: i32,
    /// The evaluator's unit, for margins.
    unit: i32,
    root_scores: Vec<(G::Move, i32)>,
    /// The last root move of the current root search whose score was above the window's
    /// lower end: proven at least that good (what `partial_iterations` may keep).
    root_proven: Option<G::Move>,
    scratch_keys: Vec<MoveKey>,
}

impl<G: Game, E: Evaluator<G>> Searcher<G, E> {
    /// A searcher with a transposition table of `tt_mb` megabytes (0: none).
    pub fn new(eval: E, settings: SearchSettings, tt_mb: usize) -> Searcher<G, E> {
        Searcher {
            eval,
            lmr_table: settings.params.lmr_table(),
            settings,
            tt: TranspositionTable::new(tt_mb),
            plies: (0..=MAX_PLY)
                .map(|_| Ply {
                    moves: Vec::new(),
                    ordered: Vec::new(),
                    pv: Vec::with_capacity(MAX_PLY),
                    killers: [None; 2],
                    played: None,
                    tried: Vec::new(),
                    excluded: None,
                })
                .collect(),
            history: History::default(),
            counters: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(0),
            pos: None,
            nodes: 0,
            limits: Limits::default(),
            start: Instant::now(),
            deadline: Deadline::none(),
            stopped: false,
            abort: None,
            depth_cut: false,
            root_depth: 0,
            unit: 100,
            root_scores: Vec::new(),
            root_proven: None,
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

    /// [`Searcher::new`], with the table allocated fallibly: a size over
    /// [`tt::max_mb`] or one that cannot be had is an error naming it.
    pub fn try_new(
        eval: E,
        settings: SearchSettings,
        tt_mb: usize,
    ) -> Result<Searcher<G, E>, String> {
        let tt = TranspositionTable::try_new(tt_mb)?;
        let mut searcher = Searcher::new(eval, settings, 0);
        searcher.tt = tt;
        Ok(searcher)
    }

    /// Forgets everything learned (transposition table, killers, history) and reseeds the
    /// random choice: call before each game.
    pub fn new_game(&mut self, seed: u64) {
        self.tt.clear();
        for ply in &mut self.plies {
            ply.killers = [None; 2];
        }
        self.history.clear();
        self.counters.iter_mut().for_each(|c| *c = None);
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }
}
