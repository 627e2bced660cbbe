//! Seeds derived from the master seed with ChaCha: a game's seed depends only on the
//! master seed and the game's index, never on time, thread or shard.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What a derived seed is for: each purpose has its own ChaCha stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Stream {
    /// A game's seed (engines' random choices), by game index.
    Game = 1,
    /// A random opening, by round.
    Opening = 2,
    /// Shuffling an opening file.
    Shuffle = 3,
    /// The first symmetry of each opening of a file (`transform = true`).
    Transform = 4,
    /// The games a judge engine plays from a candidate opening (`arena openings
    /// --play`): by candidate, then by game within the candidate.
    Judge = 5,
    /// The random plies after a listed opening (`random_plies`), by round.
    Plies = 6,
    /// The random plies of an `arena datagen` game, by game index.
    Datagen = 7,
}

/// The `index`-th seed of `stream` under `master`: word `2 * index` of ChaCha8 keyed by
/// the master seed, on the stream's number.
pub fn derive_seed(master: u64, stream: Stream, index: u64) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(master);
    rng.set_stream(stream as u64);
    rng.set_word_pos(u128::from(index) * 2);
    rng.next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_stable_and_distinct() {
        let a = derive_seed(1, Stream::Game, 0);
        assert_eq!(a, derive_seed(1, Stream::Game, 0));
        assert_ne!(a, derive_seed(1, Stream::Game, 1));
        assert_ne!(a, derive_seed(2, Stream::Game, 0));
        assert_ne!(a, derive_seed(1, Stream::Opening, 0));
        // Word positions address the stream directly: index 1 is the second u64.
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        rng.set_stream(Stream::Game as u64);
        let first = rng.next_u64();
        let second = rng.next_u64();
        assert_eq!(derive_seed(9, Stream::Game, 0), first);
        assert_eq!(derive_seed(9, Stream::Game, 1), second);
    }
}
