//! How informative the complete colour-swapped game pairs were: split and drawn pairs
//! ([`PairShares`]) and the warning when most pairs split, and the pairs that replay an
//! earlier pair move for move.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{stats::Penta, tournament::record::GameRecord};

/// How informative the complete colour-swapped game pairs were. A pair that splits 1-1
/// (each engine won one game, so the same side won both) or is two draws says nothing
/// about which engine is better: only the other pairs (2-0, 1½-½) do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairShares {
    /// Complete pairs.
    pub pairs: u64,
    /// Pairs with a win and a loss (1-1 by two decisive games).
    pub split: u64,
    /// Pairs of two draws.
    pub drawn: u64,
}

impl PairShares {
    /// The shares of the pentanomial counts `penta` (0 split when WL and DD are not
    /// told apart).
    pub fn of(penta: &Penta) -> PairShares {
        PairShares {
            pairs: penta.pairs(),
            split: penta.split_pairs().unwrap_or(0),
            drawn: penta.dd.unwrap_or(0).min(penta.counts[2]),
        }
    }

    /// The share of split pairs (None without pairs).
    pub fn split_share(&self) -> Option<f64> {
        (self.pairs > 0).then(|| self.split as f64 / self.pairs as f64)
    }

    /// `14 of 20 pairs split 1-1 (70.0 %), 2 both drawn`: for the console and reports.
    pub fn describe(&self) -> String {
        match self.split_share() {
            None => "no complete pairs".to_string(),
            Some(share) => format!(
                "{} of {} pairs split 1-1 ({:.1} %), {} both drawn",
                self.split,
                self.pairs,
                100.0 * share,
                self.drawn
            ),
        }
    }
}

/// Fewest complete pairs before [`split_warning`] says anything: below this a split
/// majority is too likely by chance.
pub const SPLIT_WARNING_PAIRS: u64 = 10;

/// The warning when most complete pairs split 1-1 (more than half, over at least
/// [`SPLIT_WARNING_PAIRS`] pairs): the openings decide the games, not the engines.
/// `balanced`: the games already played the shipped balanced set, so the remedy is a set
/// balanced for these engines, not that one.
pub fn split_warning(
    game: &crate::game::GameSpec,
    shares: &PairShares,
    balanced: bool,
) -> Option<String> {
    if shares.pairs < SPLIT_WARNING_PAIRS || shares.split * 2 <= shares.pairs {
        return None;
    }
    let shipped = crate::tournament::openings::Shipped::of(game);
    let remedy = match shipped {
        Some(set) if balanced => format!(
            "these were already the shipped balanced openings ({}), balanced for another \
             engine or limit: make a set balanced for these engines with `arena openings \
             {game} --balance ENGINE.toml --margin N` and play it with [openings] kind = \
             \"file\"",
            set.path
        ),
        Some(set) => format!(
            "use the shipped balanced openings ([openings] kind = \"balanced\", {}; the \
             default of `arena match`) or make your own with `arena openings {game} \
             --balance ENGINE.toml --margin N`",
            set.path
        ),
        None => format!(
            "make balanced openings with `arena openings {game} --balance ENGINE.toml \
             --margin N` and play them with [openings] kind = \"file\""
        ),
    };
    Some(format!(
        "{}: a split pair says nothing about which engine is better, so the openings (or the \
         first move) decide these games, not the engines; {remedy}",
        shares.describe()
    ))
}

/// The warning for replayed pairs, if any.
pub(super) fn replay_warning(replayed: u64, pairs: u64) -> Vec<String> {
    if replayed == 0 {
        return Vec::new();
    }
    vec![format!(
        "{replayed} of {pairs} game pairs repeat an earlier pair move for move (the same \
         opening came round again and the engines are deterministic): they add no \
         evidence, so the intervals are narrower than the games justify. Use more \
         openings than rounds (a longer opening file, or random openings), or \
         search.random_margin"
    )]
}

/// Complete pairs, and those that repeat an earlier pair of their pairing move for move.
pub(super) fn count_replays(records: &[&GameRecord]) -> (u64, u64) {
    let mut pairs: BTreeMap<u64, Vec<&GameRecord>> = BTreeMap::new();
    for r in records {
        pairs.entry(r.pair).or_default().push(r);
    }
    let mut seen = std::collections::HashSet::new();
    let (mut complete, mut replayed) = (0, 0);
    for games in pairs.values() {
        if games.len() != 2 {
            continue;
        }
        complete += 1;
        let mut g = games.clone();
        g.sort_by_key(|r| r.game);
        let key = (
            g[0].pairing,
            g[0].opening.clone(),
            g[0].moves.clone(),
            g[1].moves.clone(),
        );
        if !seen.insert(key) {
            replayed += 1;
        }
    }
    (replayed, complete)
}
