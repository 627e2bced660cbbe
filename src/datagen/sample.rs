//! What a training position is, and what each game gives datagen: the board as text (as
//! `arena show --fen` reads it), the board as the binary formats code it, a random move
//! for the random plies, and the static look that says a position is being decided by
//! force.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::{
    eval::{Evaluator, Forcing},
    game::{Ataxx, Game, Mnk, MnkRule, Side, ataxx::FULL},
    tournament::openings::OpeningGame,
    tune::fit::positions::best_gain,
};

/// Ataxx: a position where the side to move can gain more than this many stones of
/// material difference in one move is a capture swing, not written (the fit's default
/// `quiet_gain`, so datagen and `arena fit` call the same positions quiet).
pub const ATAXX_QUIET_GAIN: u32 = crate::tune::fit::config::DEFAULT_QUIET_GAIN;

/// The board of a sample as the binary formats need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Board {
    /// m,n,k: the position is the game's first `ply` moves (see [`GameSamples::moves`]).
    Mnk {
        /// Stones on the board (moves from the empty board).
        ply: u16,
    },
    /// Ataxx.
    Ataxx {
        /// Stones of the first player (`x`) and of the second (`o`).
        stones: [u64; 2],
        /// Gaps.
        gaps: u64,
        /// The side to move.
        side: Side,
        /// The half-move clock.
        halfmoves: u8,
        /// The full-move number.
        fullmoves: u16,
    },
}

/// One training position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The board as text: `arena show GAME --fen` reads it.
    pub fen: String,
    /// The search score from the side to move's view, clipped.
    pub score: i32,
    /// The game's result for the side to move in half points: 2 won, 1 drawn, 0 lost.
    pub result: u8,
    /// The Zobrist key (duplicates are found by it).
    pub key: u64,
    /// The binary board.
    pub board: Board,
    /// The move the engine played here, as c-gomoku-cli codes it (`x << 5 | y`; 0 for
    /// Ataxx).
    pub mv: u16,
}

/// The positions one game gives, before duplicates are dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameSamples {
    /// m,n,k: every move of the game from the empty board (opening included), as
    /// c-gomoku-cli codes them; empty for Ataxx.
    pub moves: Vec<u16>,
    /// The kept positions, in game order.
    pub samples: Vec<Sample>,
    /// The board size and rule code for c-gomoku-cli (m,n,k).
    pub mnk: Option<MnkShape>,
    /// Positions skipped because the score was a forced result.
    pub decided: u64,
    /// Positions skipped because the static look saw a forced line or a capture swing.
    pub forcing: u64,
    /// Positions skipped because they came before the first moves asked for.
    pub early: u64,
    /// Positions skipped because their move came with no search score.
    pub unscored: u64,
    /// Positions skipped because the side whose positions are not wanted moved there.
    pub other_side: u64,
    /// Positions searched (every engine move of the game).
    pub searched: u64,
    /// Microseconds the searches took.
    pub search_us: u64,
    /// Nodes the searches visited.
    pub nodes: u64,
}

/// An m,n,k board as c-gomoku-cli's formats name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MnkShape {
    /// Cells a side (square boards only).
    pub size: u16,
    /// 0 freestyle (five or more), 1 standard (exactly five), 4 renju.
    pub rule: u16,
}

/// An m,n,k board that c-gomoku-cli's sample formats cannot hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "c-gomoku-cli's sample formats hold square boards of 5 to 22 cells a side with five in a \
     row, not {width}x{height} with {k} in a row"
)]
pub struct ShapeError {
    /// The board's width.
    pub width: usize,
    /// Its height.
    pub height: usize,
    /// Stones in a row that win.
    pub k: usize,
}

impl MnkShape {
    /// The shape of `config`, if c-gomoku-cli's formats can hold it (a square board of 5
    /// to 22 cells a side, k = 5).
    pub fn of(config: &crate::game::MnkConfig) -> Result<MnkShape, ShapeError> {
        let (w, h) = (config.width(), config.height());
        if w != h || !(5..=22).contains(&w) || config.k() != 5 {
            return Err(ShapeError {
                width: w,
                height: h,
                k: config.k(),
            });
        }
        let rule = match config.rule() {
            MnkRule::Freestyle => 0,
            MnkRule::Exact => 1,
            MnkRule::Renju => 4,
        };
        Ok(MnkShape {
            size: w as u16,
            rule,
        })
    }
}

/// What datagen needs from a game beyond its rules and openings.
pub trait DatagenGame: OpeningGame {
    /// The board as text that `arena show GAME --fen` reads back (rows from the top for
    /// m,n,k; the FEN for Ataxx).
    fn board_text(&self) -> String;

    /// One random move for the random plies (m,n,k: an empty cell within two of a stone,
    /// or of the centre on an empty board; Ataxx: any legal move), never one that ends
    /// the game; `None` when every move would.
    fn random_move(&self, rng: &mut ChaCha8Rng) -> Option<Self::Move>;

    /// Whether a static look says the position is being decided by force: m,n,k, the
    /// side to move has a win to make or a four to answer (`eval` must be in step with
    /// the position); Ataxx, a move gains more than [`ATAXX_QUIET_GAIN`] stones.
    fn forcing(&self, eval: &mut Self::Eval) -> bool;

    /// The binary board of this position.
    fn board(&self) -> Board;

    /// m,n,k: `mv` as c-gomoku-cli codes it (`x << 5 | y`); 0 for Ataxx.
    fn move_code(&self, mv: Self::Move) -> u16;

    /// m,n,k: the moves from the empty board to here, coded; empty for Ataxx.
    fn moves_from_empty(&self) -> Vec<u16>;

    /// m,n,k: the shape c-gomoku-cli's formats need (an error for a board they cannot
    /// hold); `None` for Ataxx.
    fn mnk_shape(config: &Self::Config) -> Option<Result<MnkShape, ShapeError>>;
}

impl DatagenGame for Mnk {
    fn board_text(&self) -> String {
        mnk_board_text(self)
    }

    fn random_move(&self, rng: &mut ChaCha8Rng) -> Option<Self::Move> {
        let config = self.mnk();
        let (w, h) = (config.width() as i32, config.height() as i32);
        let anchors: Vec<(i32, i32)> = if self.stones() == 0 {
            vec![config.centre()]
        } else {
            self.history().iter().map(|&m| config.xy(m)).collect()
        };
        let mut near = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let Some(mv) = config.at(x, y) else { continue };
                if self.is_legal(mv)
                    && anchors
                        .iter()
                        .any(|&(ax, ay)| (ax - x).abs() <= 2 && (ay - y).abs() <= 2)
                {
                    near.push(mv);
                }
            }
        }
        if near.is_empty() {
            self.legal_moves(&mut near);
        }
        pick_not_ending(self, near, rng)
    }

    fn forcing(&self, eval: &mut Self::Eval) -> bool {
        // An open three to stop (`Defend` in 4 plies) is quiet, as the fit says: the
        // static score sees it.
        !matches!(
            eval.forcing(self),
            Forcing::Quiet | Forcing::Defend { plies: 3.. }
        )
    }

    fn board(&self) -> Board {
        Board::Mnk {
            ply: self.stones() as u16,
        }
    }

    fn move_code(&self, mv: Self::Move) -> u16 {
        let (x, y) = self.mnk().xy(mv);
        ((x as u16) << 5) | y as u16
    }

    fn moves_from_empty(&self) -> Vec<u16> {
        self.history().iter().map(|&m| self.move_code(m)).collect()
    }

    fn mnk_shape(config: &Self::Config) -> Option<Result<MnkShape, ShapeError>> {
        Some(MnkShape::of(config))
    }
}

impl DatagenGame for Ataxx {
    fn board_text(&self) -> String {
        self.fen()
    }

    fn random_move(&self, rng: &mut ChaCha8Rng) -> Option<Self::Move> {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        pick_not_ending(self, moves, rng)
    }

    fn forcing(&self, _eval: &mut Self::Eval) -> bool {
        best_gain(self) > ATAXX_QUIET_GAIN
    }

    fn board(&self) -> Board {
        Board::Ataxx {
            stones: [self.stones(Side::First), self.stones(Side::Second)],
            gaps: self.gaps() & FULL,
            side: self.side_to_move(),
            halfmoves: self.halfmoves().min(255) as u8,
            fullmoves: self.fullmoves().min(u32::from(u16::MAX)) as u16,
        }
    }

    fn move_code(&self, _mv: Self::Move) -> u16 {
        0
    }

    fn moves_from_empty(&self) -> Vec<u16> {
        Vec::new()
    }

    fn mnk_shape(_config: &()) -> Option<Result<MnkShape, ShapeError>> {
        None
    }
}

/// A random move of `moves` after which the game goes on (each tried in a random order).
fn pick_not_ending<G: Game>(
    pos: &G,
    mut moves: Vec<G::Move>,
    rng: &mut ChaCha8Rng,
) -> Option<G::Move> {
    while !moves.is_empty() {
        let mv = moves.swap_remove(rng.random_range(0..moves.len()));
        let mut next = pos.clone();
        next.play(mv);
        if next.outcome().is_none() {
            return Some(mv);
        }
    }
    None
}

/// An m,n,k board as [`Mnk::from_board`] reads it: rows from the top separated by `/`,
/// `x` the first player's stones, `o` the second's, a count for a run of empty cells.
pub fn mnk_board_text(pos: &Mnk) -> String {
    let config = pos.mnk();
    let w = config.width();
    let mut s = String::with_capacity(config.cells());
    for (y, row) in pos.cells().chunks(w).enumerate() {
        if y > 0 {
            s.push('/');
        }
        let mut empty = 0;
        for &cell in row {
            if cell == crate::game::mnk::EMPTY {
                empty += 1;
                continue;
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
                empty = 0;
            }
            s.push(if cell == 1 { 'x' } else { 'o' });
        }
        if empty > 0 {
            s.push_str(&empty.to_string());
        }
    }
    s
}

/// The half points of `side` in a game the first player scored `first` half points in.
pub fn half_points(first: u8, side: Side) -> u8 {
    match side {
        Side::First => first,
        Side::Second => 2 - first,
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::game::MnkConfig;

    #[test]
    fn mnk_board_text_reads_back() {
        for config in [
            MnkConfig::gomoku(),
            MnkConfig::renju(),
            MnkConfig::tictactoe(),
        ] {
            let mut rng = ChaCha8Rng::seed_from_u64(3);
            let mut pos = Mnk::new(&config);
            for _ in 0..7 {
                let Some(mv) = pos.random_move(&mut rng) else {
                    break;
                };
                pos.play(mv);
                let text = mnk_board_text(&pos);
                let back = Mnk::from_board(&config, &text).unwrap();
                assert_eq!(back.cells(), pos.cells(), "{text}");
                assert_eq!(back.side_to_move(), pos.side_to_move());
                assert_eq!(back.hash(), pos.hash());
            }
        }
        let pos = Mnk::from_text(&MnkConfig::gomoku(), "h8i9").unwrap();
        assert_eq!(
            mnk_board_text(&pos),
            "15/15/15/15/15/15/15/7x7/8o6/15/15/15/15/15/15"
        );
    }
}
