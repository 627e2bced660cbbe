//! Evaluation: weight tables (TOML, [`table`]) and the evaluators that use them, one per
//! game family: line patterns for m,n,k-games ([`mnk`], built on the one classifier in
//! [`patterns`]) and material / mobility / shape for Ataxx ([`ataxx`]).
//!
//! An evaluator also knows what a move means before it is played (the point scores and
//! threat categories of gomoku, the captures of Ataxx), which is what move ordering
//! needs; the search combines that with its own heuristics. This layer knows the rules
//! but nothing about search, engines or tournaments.

pub mod ataxx;
pub mod cells;
mod memo;
pub mod mnk;
pub mod net;
pub mod patterns;
pub mod table;
pub mod threats;

use crate::game::Game;
pub use table::{AtaxxEndgame, AtaxxTable, MnkTable, Table};

/// Largest magnitude of a static evaluation; the search keeps its win scores above it.
pub const EVAL_LIMIT: i32 = 500_000_000;

/// A move class that the evaluator has pruned (the search skips it).
pub const PRUNED: i32 = i32::MIN;

/// Which static ordering information the search asks for (from the engine config).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OrderFlags {
    /// m,n,k: attack + defence point scores (seed 001).
    pub static_score: bool,
    /// m,n,k: seed 000's threat categories as the move class.
    pub threat: bool,
    /// m,n,k with `threat`: how far the forced-move pruning goes (0 none, 1 a winning
    /// point is played alone, 2 also: an opponent's five must be blocked, 3 also: own then
    /// opponent's open-four points only, 4 also: double-three points only; 3 and 4 are
    /// seed 000's heuristics and can miss defences).
    pub threat_prune: u8,
    /// Ataxx: stones gained by the move (seed 004's greedy score).
    pub captures: bool,
    /// Ataxx: single moves before jumps (a move class).
    pub singles_first: bool,
    /// m,n,k with `static`: a move farther than this (in king steps) from both of the last
    /// two stones has its point score halved, from all of the last four quartered (0:
    /// off).
    pub far_distance: u8,
}

/// What the evaluator says about a move before it is played. Moves are searched by
/// `class` (higher first; [`PRUNED`] not at all), then by the search's killers, then by
/// `score`, then by history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct MoveKey {
    /// Category (threat level, singles before jumps); 0 when not used.
    pub class: i32,
    /// Static score (point score, stones gained); 0 when not used.
    pub score: i32,
    /// A forcing or game-changing move (gomoku: makes a four or an open three, or stops
    /// the opponent's): late-move reductions and pruning leave it alone.
    pub tactical: bool,
    /// What the move gains for the mover in evaluation units, as far as the evaluator
    /// can tell before playing it (Ataxx: the stones it adds and takes; 0: unknown).
    /// Futility pruning adds it to the static score.
    pub gain: i32,
}

/// What the evaluator knows about forcing play at a node, for the side to move (gomoku's
/// fives, fours and open threes; other games know nothing and say `Quiet`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forcing<M> {
    /// Nothing forcing: every candidate may be searched.
    Quiet,
    /// The side to move wins in `plies` plies (from this node to the winning move
    /// included) starting with `mv`, whatever the opponent does.
    Win {
        /// The first move of the win.
        mv: M,
        /// Plies to the end of the game.
        plies: u32,
    },
    /// The side to move loses in `plies` plies whatever it plays (`mv` is one move).
    Loss {
        /// A move to play anyway.
        mv: M,
        /// Plies to the end of the game.
        plies: u32,
    },
    /// Only the moves of [`Evaluator::forced_moves`] can avoid defeat: every other move
    /// loses in exactly `plies` plies (a four must be blocked, an open three stopped).
    Defend {
        /// Plies to the loss after any other move.
        plies: u32,
    },
}

/// Which threat-space search [`Evaluator::threat_search`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreatKind {
    /// Victory by continuous fours: the attacker plays only fours, every reply is forced.
    Vcf,
    /// A VCF narrowed as [`LeafVcf`] says: a quick check for the leaves (it can miss a
    /// win, never claims a false one).
    VcfLeaf(LeafVcf),
    /// Victory by continuous threats: fours and open threes (the defender then has every
    /// move that stops the three, and its own fours).
    Vct,
}

/// How a leaf's VCF ([`ThreatKind::VcfLeaf`]) is narrowed. Each narrowing can miss a win
/// (never claims a false one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeafVcf {
    /// After the first four, only fours on the lines through the attacker's previous
    /// four, within reach.
    pub near: bool,
    /// After the first four, at most this many fours tried in a position (0: all).
    pub breadth: u32,
    /// Only fours that make besides a second four or a three (open or sleeping) on
    /// another line: a four that makes nothing else adds only a blocked line.
    pub threes: bool,
}

/// A budget for a threat-space search: positions visited count as search nodes; an
/// optional deadline bounds it in time too (checked every 256 positions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeBudget {
    /// Positions visited so far.
    pub used: u64,
    /// Stop (and report no win) past this many.
    pub limit: u64,
    /// Stop past this moment too (a timed search's share of its time).
    pub deadline: Option<std::time::Instant>,
    next_check: u64,
    late: bool,
}

impl NodeBudget {
    /// A fresh budget of `limit` nodes.
    pub fn new(limit: u64) -> NodeBudget {
        NodeBudget {
            used: 0,
            limit,
            deadline: None,
            next_check: 256,
            late: false,
        }
    }

    /// The budget, also bounded by `deadline` (if any).
    pub fn until(self, deadline: Option<std::time::Instant>) -> NodeBudget {
        NodeBudget { deadline, ..self }
    }

    /// Whether the budget is spent (once spent, it stays spent).
    #[inline]
    pub fn exhausted(&mut self) -> bool {
        if self.used >= self.limit || self.late {
            return true;
        }
        if self.used >= self.next_check {
            self.next_check = self.used + 256;
            self.late = self
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d);
        }
        self.late
    }
}

/// A forced win found by a threat-space search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreatWin<M> {
    /// The attacker's moves and the defender's replies, from the first move to the win
    /// (for a VCT, the defender's longest defence at each branch).
    pub line: Vec<M>,
    /// Plies to the winning move, included (at least the line's length).
    pub plies: u32,
}

/// Judgement of positions and moves for one game, kept in step with the position by the
/// search: `played` after every `Game::play`, `undone` after every `Game::undo`.
pub trait Evaluator<G: Game>: Send {
    /// Rebuilds any incremental state from `pos`.
    fn reset(&mut self, pos: &G);

    /// `mv` was just played; `pos` is the position after it.
    fn played(&mut self, pos: &G, mv: G::Move);

    /// `mv` was just taken back; `pos` is the position before it.
    fn undone(&mut self, pos: &G, mv: G::Move);

    /// Static score of an unfinished position for the side to move, within
    /// ±[`EVAL_LIMIT`].
    fn evaluate(&mut self, pos: &G) -> i32;

    /// The moves worth searching, in generation order (all legal moves unless the
    /// evaluator restricts them, as the m,n,k candidate radius does).
    fn candidates(&mut self, pos: &G, out: &mut Vec<G::Move>) {
        pos.legal_moves(out);
    }

    /// Fills `keys[i]` for `moves[i]` as `flags` ask; may prune by setting a class to
    /// [`PRUNED`] (never all of them).
    fn order_keys(&mut self, pos: &G, moves: &[G::Move], keys: &mut [MoveKey], flags: OrderFlags);

    /// One unit of evaluation (a stone in Ataxx, a stone's share of an open three in
    /// gomoku): the search's pruning margins are given in hundredths of it, so they mean
    /// the same with any table.
    fn unit(&self) -> i32 {
        100
    }

    /// What is forced at this unfinished position for the side to move.
    fn forcing(&mut self, _pos: &G) -> Forcing<G::Move> {
        Forcing::Quiet
    }

    /// After [`Forcing::Defend`]: every move that may avoid the loss, in generation
    /// order (empty when none does). Returns whether some legal move was left out (and
    /// so loses as `Defend` says).
    fn forced_moves(&mut self, pos: &G, out: &mut Vec<G::Move>) -> bool {
        pos.legal_moves(out);
        false
    }

    /// Staged generation: the candidates in batches, the likeliest refutations first
    /// (Ataxx: singles, then jumps). Fills `out` with batch `batch` (0, 1, ...) and returns
    /// whether a later batch may follow. The batches together are
    /// [`Evaluator::candidates`]. By default one batch holds them all.
    fn candidates_batch(&mut self, pos: &G, batch: usize, out: &mut Vec<G::Move>) -> bool {
        if batch == 0 {
            self.candidates(pos, out);
        } else {
            out.clear();
        }
        false
    }

    /// Whether `mv` is among [`Evaluator::candidates`] here (a killer tried before the
    /// list is generated must be one). `mv` is legal.
    fn is_candidate(&self, _pos: &G, _mv: G::Move) -> bool {
        true
    }

    /// Whether letting the side to move pass (null-move pruning) is sound enough here:
    /// false where passing could be better than every move (zugzwang) or where the side
    /// to move faces a threat.
    fn null_move_safe(&mut self, _pos: &G) -> bool {
        true
    }

    /// A threat-space search for a forced win of the side to move within `max_moves` of
    /// its moves, keeping the evaluator in step with every move it tries and leaving
    /// `pos` as it was. `None`: no such win (or the budget ran out). Games without
    /// threats find nothing.
    fn threat_search(
        &mut self,
        _pos: &mut G,
        _kind: ThreatKind,
        _max_moves: u32,
        _budget: &mut NodeBudget,
    ) -> Option<ThreatWin<G::Move>> {
        None
    }
}

/// Clamps a wide score into ±[`EVAL_LIMIT`].
#[inline]
pub fn clamp_eval(v: i64) -> i32 {
    v.clamp(-i64::from(EVAL_LIMIT), i64::from(EVAL_LIMIT)) as i32
}
