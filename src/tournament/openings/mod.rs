//! Openings: the start position of each round's colour-swapped game pair.
//!
//! `random`: plies chosen by a seeded generator (for m,n,k near the centre), optionally
//! kept only when a neutral engine scores the position within a margin. `file`: one
//! opening a line: Gomocup offset lines (`0,0, 1,0, 1,3`: `dx,dy` pairs from the centre)
//! or pos move lists (`h8i9j7`, `h8 i9 j7`) for m,n,k; FENs or EPD lines for Ataxx.
//! `balanced`: the set shipped for the game ([`SHIPPED`]). [`play_balanced`] keeps
//! random openings by the games an engine plays from them (`arena openings --play`). With `transform`, a list's
//! openings are played in each symmetry of the m,n,k board; with `random_plies`, a few
//! seeded random plies follow a round's opening when an earlier round played it, so a
//! list serves distinct rounds.
//!
//! An [`OpeningBook`] gives the opening of any round on demand, so memory does not grow
//! with the number of rounds: a file's openings are held once (the file, not the
//! rounds), and random openings are drawn as rounds come up (see [`OpeningBook`]).

mod book;
mod error;
mod file;
mod games;
mod played;

use rand_chacha::ChaCha8Rng;

pub use self::{
    book::{DISTINCT_WINDOW, OpeningBook, generate},
    error::{LineError, OpeningError},
    file::{MAX_OPENING_LINE, MAX_OPENINGS_FILE, SHIPPED, Shipped, listed, read_file},
    played::{
        Band, BandError, Judged, MAX_CANDIDATES, PlayError, PlayEvent, PlayJudge, PlayProgress,
        default_margin, judge_seed, play_balanced,
    },
};
use crate::engine::EngineGame;

/// A start position, as the game's position text (move list or FEN).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// `Game::to_text` of the start position.
    pub position: String,
}

/// Games that can make random openings (near the centre for m,n,k-games).
pub trait OpeningGame: EngineGame {
    /// One random opening of `plies` plies; `radius` limits m,n,k stones to the centre.
    fn random_opening(
        config: &Self::Config,
        plies: u32,
        radius: u32,
        rng: &mut ChaCha8Rng,
    ) -> Option<Self>;

    /// `start` with `plies` random plies played from it (m,n,k: three or four cells from
    /// the nearest stone); None when they end the game or no move is left.
    fn random_plies(start: &Self, plies: u32, rng: &mut ChaCha8Rng) -> Option<Self>;

    /// Reads one line of an opening file.
    fn opening_from_line(config: &Self::Config, line: &str) -> Result<Self, LineError>;

    /// Why no opening of `plies` plies can exist on this board, if that is so (an
    /// m,n,k board with fewer cells).
    fn too_many_plies(_config: &Self::Config, _plies: u32) -> Option<String> {
        None
    }

    /// How many symmetries of the board [`transformed`](OpeningGame::transformed) knows
    /// (1: none but the identity).
    fn symmetries(_config: &Self::Config) -> usize {
        1
    }

    /// The position text `position` under symmetry `symmetry` (below
    /// [`symmetries`](OpeningGame::symmetries); 0 is the identity).
    fn transformed(
        _config: &Self::Config,
        position: &str,
        _symmetry: usize,
    ) -> Result<String, LineError> {
        Ok(position.to_string())
    }
}

/// What the tests of the submodules share.
#[cfg(test)]
mod testing {
    use crate::game::{MnkConfig, MnkRule};

    pub(super) fn gomoku() -> MnkConfig {
        MnkConfig::new(15, 15, 5, MnkRule::Freestyle).unwrap()
    }

    /// A file in a temporary folder, its path.
    pub(super) fn file(name: &str, text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }
}
