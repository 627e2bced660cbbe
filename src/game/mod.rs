//! The rules of the games arena plays: the [`Game`] trait and its two families,
//! [`mnk`] (m,n,k-games: tic-tac-toe, gomoku) and [`ataxx`].
//!
//! This layer owns legality, outcomes, Zobrist hashes, move and position text and perft.
//! It must not know about evaluation, search or tournaments: those layers build on it.

pub mod ataxx;
pub mod mnk;
pub mod perft;
pub mod renju;
pub mod spec;
mod zobrist;

use std::{fmt, hash::Hash};

pub use self::{
    ataxx::{Ataxx, AtaxxMove},
    mnk::{Mnk, MnkConfig, MnkMove, MnkRule},
    perft::{perft, perft_divide},
    renju::Forbidden,
    spec::{GameSpec, GameSpecError},
};

/// Cell `(x, y)` of a `width` × `height` board under symmetry `symmetry`: 0 the identity,
/// 1 a mirror left-right, 2 top-bottom, 3 a half turn; on a square board also 4 the
/// main-diagonal mirror, 5 a quarter turn, 6 three quarters, 7 the anti-diagonal mirror.
/// The first four keep any board's shape, the last four only a square's.
pub fn symmetric_cell(x: i32, y: i32, width: i32, height: i32, symmetry: usize) -> (i32, i32) {
    let (mx, my) = (width - 1 - x, height - 1 - y);
    match symmetry {
        0 => (x, y),
        1 => (mx, y),
        2 => (x, my),
        3 => (mx, my),
        4 => (y, x),
        5 => (height - 1 - y, x),
        6 => (y, width - 1 - x),
        _ => (height - 1 - y, width - 1 - x),
    }
}

/// One of the two players. `First` moves first: black (`x`) in both families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The player who moves first (black, `x`).
    First,
    /// The player who moves second (white, `o`).
    Second,
}

impl Side {
    /// The other player.
    #[inline]
    pub fn other(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }

    /// 0 for `First`, 1 for `Second`: an index into per-side arrays.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The conventional colour name: `black` or `white`.
    pub fn colour_name(self) -> &'static str {
        match self {
            Side::First => "black",
            Side::Second => "white",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.colour_name())
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// m,n,k: a line of k (or, under the freestyle rule, more) stones.
    KInARow,
    /// m,n,k: every cell is filled and nobody made k in a row.
    BoardFull,
    /// Ataxx: one side has no stones left.
    NoStones,
    /// Ataxx: no empty square can be reached by either side; decided by stone count.
    NoMoves,
    /// Ataxx: the half-move clock reached 100.
    HalfmoveLimit,
    /// Renju: black played a forbidden move and lost.
    Forbidden(Forbidden),
}

impl EndReason {
    /// A short machine-friendly name, stable across versions (used in result files).
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::KInARow => "k-in-a-row",
            EndReason::BoardFull => "board-full",
            EndReason::NoStones => "no-stones",
            EndReason::NoMoves => "no-moves",
            EndReason::HalfmoveLimit => "halfmove-limit",
            EndReason::Forbidden(Forbidden::DoubleThree) => "forbidden: double-three",
            EndReason::Forbidden(Forbidden::DoubleFour) => "forbidden: double-four",
            EndReason::Forbidden(Forbidden::Overline) => "forbidden: overline",
        }
    }

    /// Every reason the rules can give, for readers of result files.
    pub const ALL: [EndReason; 8] = [
        EndReason::KInARow,
        EndReason::BoardFull,
        EndReason::NoStones,
        EndReason::NoMoves,
        EndReason::HalfmoveLimit,
        EndReason::Forbidden(Forbidden::DoubleThree),
        EndReason::Forbidden(Forbidden::DoubleFour),
        EndReason::Forbidden(Forbidden::Overline),
    ];
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// `side` won.
    Win {
        /// The winner.
        side: Side,
        /// How the game was won.
        reason: EndReason,
    },
    /// Nobody won.
    Draw {
        /// Why the game is drawn.
        reason: EndReason,
    },
}

impl Outcome {
    /// The winner, if any.
    pub fn winner(self) -> Option<Side> {
        match self {
            Outcome::Win { side, .. } => Some(side),
            Outcome::Draw { .. } => None,
        }
    }

    /// Why the game ended.
    pub fn reason(self) -> EndReason {
        match self {
            Outcome::Win { reason, .. } | Outcome::Draw { reason } => reason,
        }
    }
}

/// A move that cannot be read or cannot be played here.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not a move in this game's notation.
    #[error("invalid move '{text}': {why}")]
    Syntax {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// A well-formed move that is not legal in this position.
    #[error("illegal move '{text}': {why}")]
    Illegal {
        /// The move as given.
        text: String,
        /// Why it cannot be played.
        why: String,
    },
}

/// A position that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The FEN or board text is malformed.
    #[error("invalid position '{text}': {why}")]
    Syntax {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// A move of a move list is bad; `index` counts from 1.
    #[error("move {index} of the move list: {error}")]
    Move {
        /// 1-based index of the bad move.
        index: usize,
        /// What is wrong with the move.
        error: MoveError,
    },
}

/// The rules of a two-player, perfect-information game with no chance.
///
/// Everything above the rules layer (search, tournaments, protocols) is generic over this
/// trait. Positions are mutated in place with [`Game::play`] and restored with
/// [`Game::undo`]; [`Game::legal_moves`] fills a caller-owned buffer so a search can keep
/// one buffer per ply and never allocate per node.
pub trait Game: Clone + fmt::Debug + Send + Sync + 'static {
    /// A move. Small and `Copy` so move lists are cheap.
    type Move: Copy + Eq + Hash + fmt::Debug + Send + Sync + 'static;
    /// What [`Game::play`] returns and [`Game::undo`] needs to restore the position.
    type Undo: Copy + fmt::Debug;
    /// What selects a variant of the rules (board size, k, rule); `()` for Ataxx.
    type Config: Clone + fmt::Debug + PartialEq + Send + Sync + 'static;

    /// The start position of the variant `config`.
    fn new(config: &Self::Config) -> Self;

    /// Reads a position written by [`Game::to_text`] (a FEN for Ataxx, a move list for
    /// m,n,k-games).
    fn from_text(config: &Self::Config, text: &str) -> Result<Self, PositionError>;

    /// The variant this position belongs to.
    fn config(&self) -> &Self::Config;

    /// The side to move.
    fn side_to_move(&self) -> Side;

    /// Number of moves (plies, passes included) played since the position was set up.
    fn plies(&self) -> u32;

    /// Clears `moves` and fills it with every legal move (empty when the game is over).
    /// A forced pass is a move. Allocates only if `moves` has too little capacity.
    fn legal_moves(&self, moves: &mut Vec<Self::Move>);

    /// A dense index of a move, below [`Game::move_index_bound`], for per-move tables
    /// (history heuristics): the cell for m,n,k, the destination (and source) for Ataxx.
    fn move_index(&self, mv: Self::Move) -> usize;

    /// One more than the largest [`Game::move_index`] in this variant.
    fn move_index_bound(&self) -> usize;

    /// Whether `mv` is legal here (the game is not over and the move follows the rules).
    fn is_legal(&self, mv: Self::Move) -> bool;

    /// Why a well-formed move is not legal in this (unfinished) position, for messages.
    fn why_illegal(&self, _mv: Self::Move) -> String {
        "not legal in this position".to_string()
    }

    /// Plays a legal move. Playing an illegal move or playing after the game ended leaves
    /// the position in an unspecified (but memory-safe) state; use [`Game::try_play`] for
    /// moves from outside.
    fn play(&mut self, mv: Self::Move) -> Self::Undo;

    /// Takes back `mv`, which must be the last move played, with what `play` returned.
    fn undo(&mut self, mv: Self::Move, undo: Self::Undo);

    /// Gives the turn to the other side without changing the board: the search's "null
    /// move" (not a move of the game: Ataxx's pass is only legal when nothing else is).
    /// The hash changes as for any move. Only for unfinished positions; take it back with
    /// [`Game::undo_null`].
    fn play_null(&mut self) -> Self::Undo;

    /// Takes back the null move [`Game::play_null`] made.
    fn undo_null(&mut self, undo: Self::Undo);

    /// `None` while the game goes on, else how it ended.
    fn outcome(&self) -> Option<Outcome>;

    /// The incrementally maintained 64-bit Zobrist hash.
    fn hash(&self) -> u64;

    /// The Zobrist hash computed from scratch; equals [`Game::hash`] (tests check it).
    fn hash_from_scratch(&self) -> u64;

    /// Reads a move in this game's notation. Checks syntax and board bounds, not legality.
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;

    /// Writes a move in this game's primary notation.
    fn format_move(&self, mv: Self::Move) -> String;

    /// The position as text that [`Game::from_text`] reads back: a FEN for Ataxx, the
    /// move list for m,n,k-games.
    fn to_text(&self) -> String;

    /// A board diagram for humans (several lines).
    fn diagram(&self) -> String;

    /// The number of leaves of the move tree of depth `depth`. The default counts with
    /// [`perft::perft`]; games may override it with a faster bulk count.
    fn perft(&mut self, depth: u32) -> u64 {
        perft::perft_generic(self, depth)
    }

    /// Parses and plays a move, checking that it is legal.
    fn try_play(&mut self, text: &str) -> Result<Self::Move, MoveError> {
        let mv = self.parse_move(text)?;
        if !self.is_legal(mv) {
            let why = if self.outcome().is_some() {
                "the game is already over".to_string()
            } else {
                self.why_illegal(mv)
            };
            return Err(MoveError::Illegal {
                text: text.trim().to_string(),
                why,
            });
        }
        self.play(mv);
        Ok(mv)
    }

    /// Splits a move list into the text of each move; by default at whitespace
    /// (`b2 a1a3 0000`). m,n,k-games also split `h8g7f6` at letters.
    fn split_move_list(text: &str) -> Vec<&str> {
        text.split_whitespace().collect()
    }

    /// Plays a move list (`h8g7f6`, `h8 g7 f6`, `b2 a1a3 0000`, `7,7 6,6`) in order,
    /// checking each move; the error names the move's 1-based index.
    fn play_move_list(&mut self, text: &str) -> Result<Vec<Self::Move>, PositionError> {
        let mut played = Vec::new();
        for (i, token) in Self::split_move_list(text).into_iter().enumerate() {
            let mv = self.try_play(token).map_err(|error| PositionError::Move {
                index: i + 1,
                error,
            })?;
            played.push(mv);
        }
        Ok(played)
    }
}

#[cfg(test)]
mod tests {
    use super::symmetric_cell;

    #[test]
    fn symmetric_cells_map_a_board_onto_itself() {
        // Each symmetry maps the cells of the board one to one onto its cells; the two
        // quarter turns undo each other and every other symmetry undoes itself.
        for (w, h, count) in [(15, 15, 8), (7, 7, 8), (9, 6, 4), (1, 4, 4)] {
            for s in 0..count {
                let mut seen = vec![false; (w * h) as usize];
                for y in 0..h {
                    for x in 0..w {
                        let (tx, ty) = symmetric_cell(x, y, w, h, s);
                        assert!((0..w).contains(&tx) && (0..h).contains(&ty), "{w}x{h} {s}");
                        let i = (ty * w + tx) as usize;
                        assert!(!seen[i], "{w}x{h} symmetry {s} maps two cells to {tx},{ty}");
                        seen[i] = true;
                        let inverse = match s {
                            5 => 6,
                            6 => 5,
                            s => s,
                        };
                        assert_eq!(symmetric_cell(tx, ty, w, h, inverse), (x, y), "{s}");
                    }
                }
            }
        }
        // Known images on 15x15: a1 is (0, 0); the quarter turn takes it to (14, 0).
        assert_eq!(symmetric_cell(0, 0, 15, 15, 1), (14, 0));
        assert_eq!(symmetric_cell(0, 0, 15, 15, 5), (14, 0));
        assert_eq!(symmetric_cell(3, 1, 15, 15, 4), (1, 3));
        assert_eq!(symmetric_cell(3, 1, 15, 15, 7), (13, 11));
    }
}
