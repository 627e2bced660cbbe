//! Who plays whom, with which colours and opening, for every game index.
//!
//! Game pair `p` is round `p / pairings`, pairing `p % pairings` (so a partial run has
//! played every pairing about equally); its two games are `2p` (the pairing's first
//! engine moves first) and `2p + 1` (colours swapped), both from round `p / pairings`'s
//! opening.

use super::config::Format;

/// The games of a tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Pairings as (engine a, engine b).
    pub pairings: Vec<(usize, usize)>,
    /// Game pairs per pairing.
    pub rounds: u64,
}

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduledGame {
    /// Game index.
    pub game: u64,
    /// Game pair index.
    pub pair: u64,
    /// Round (selects the opening).
    pub round: u64,
    /// Index into [`Schedule::pairings`].
    pub pairing: usize,
    /// Engine that moves first.
    pub black: usize,
    /// Engine that moves second.
    pub white: usize,
}

impl Schedule {
    /// The schedule of `engines` engines.
    pub fn new(format: Format, engines: usize, rounds: u64) -> Schedule {
        let pairings = match format {
            Format::RoundRobin => (0..engines)
                .flat_map(|a| (a + 1..engines).map(move |b| (a, b)))
                .collect(),
            Format::Gauntlet => (1..engines).map(|b| (0, b)).collect(),
        };
        Schedule { pairings, rounds }
    }

    /// Number of game pairs.
    pub fn pairs(&self) -> u64 {
        self.pairings.len() as u64 * self.rounds
    }

    /// Number of games.
    pub fn games(&self) -> u64 {
        2 * self.pairs()
    }

    /// The game with index `game` (< [`Schedule::games`]).
    pub fn game(&self, game: u64) -> ScheduledGame {
        let pair = game / 2;
        let per_round = self.pairings.len() as u64;
        let round = pair / per_round;
        let pairing = (pair % per_round) as usize;
        let (a, b) = self.pairings[pairing];
        let (black, white) = if game.is_multiple_of(2) {
            (a, b)
        } else {
            (b, a)
        };
        ScheduledGame {
            game,
            pair,
            round,
            pairing,
            black,
            white,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_and_gauntlet() {
        let s = Schedule::new(Format::RoundRobin, 4, 3);
        assert_eq!(s.pairings.len(), 6);
        assert_eq!(s.games(), 36);
        let g = s.game(13);
        assert_eq!((g.pair, g.round, g.pairing), (6, 1, 0));
        assert_eq!((g.black, g.white), (1, 0));
        let s = Schedule::new(Format::Gauntlet, 4, 2);
        assert_eq!(s.pairings, vec![(0, 1), (0, 2), (0, 3)]);
        // Every engine meets the first one equally often with each colour.
        let firsts = (0..s.games()).filter(|&i| s.game(i).black == 0).count();
        assert_eq!(firsts as u64, s.pairs());
    }
}
