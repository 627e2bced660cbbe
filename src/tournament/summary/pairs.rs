//! How informative the complete colour-swapped game pairs were: split and drawn pairs
//! ([`PairShares`]) and the warning when most pairs split, the pairs that replay an
//! earlier pair move for move, and the pairs whose two games were the same game (the
//! engines played alike).

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
    split_reason(game, shares, balanced).map(|reason| format!("{}: {reason}", shares.describe()))
}

/// [`split_warning`] without the shares it starts with (for a caller that has just
/// printed them).
pub fn split_reason(
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
        "a split pair says nothing about which engine is better, so the openings (or the \
         first move) decide these games, not the engines; {remedy}"
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

/// The complete pairs of `records`: their two games, in game order.
fn complete_pairs<'a>(records: &[&'a GameRecord]) -> Vec<[&'a GameRecord; 2]> {
    let mut pairs: BTreeMap<u64, Vec<&GameRecord>> = BTreeMap::new();
    for r in records {
        pairs.entry(r.pair).or_default().push(r);
    }
    pairs
        .into_values()
        .filter_map(|mut g| {
            g.sort_by_key(|r| r.game);
            <[&GameRecord; 2]>::try_from(g).ok()
        })
        .collect()
}

/// Complete pairs, and those that repeat an earlier pair of their pairing move for move.
pub(super) fn count_replays(records: &[&GameRecord]) -> (u64, u64) {
    let pairs = complete_pairs(records);
    let mut seen = std::collections::HashSet::new();
    let replayed = pairs
        .iter()
        .filter(|[a, b]| !seen.insert((a.pairing, &a.opening, &a.moves, &b.moves)))
        .count();
    (replayed as u64, pairs.len() as u64)
}

/// Per pairing (index), its complete pairs and those whose two games were the same game
/// move for move: with the colours swapped each engine made the moves the other had made,
/// so the engines played alike from that opening.
pub(super) fn count_alike(records: &[&GameRecord], pairings: usize) -> Vec<(u64, u64)> {
    let mut counts = vec![(0, 0); pairings];
    for [a, b] in complete_pairs(records) {
        if let Some(c) = counts.get_mut(a.pairing) {
            c.1 += 1;
            c.0 += u64::from(a.moves == b.moves);
        }
    }
    counts
}

/// Why a setting may change no move: the hint of the warnings for engines that played
/// alike (here and in `arena tune`).
pub const SWITCH_HINT: &str = "a search.params number does nothing while its switch is off \
                               (razor_* needs search.razoring, rfp_* search.reverse_futility, \
                               lmr_* search.lmr, and so on) or while the number it works \
                               through is 0 (lmp_defend_max needs lmp_defend, lmp_all_max \
                               lmp_all), or when the search is never deep enough for its rule \
                               (lmr_* below lmr_min_depth plies)";

/// The warning for a pairing whose engines played the same game twice in most of its
/// (at least [`SPLIT_WARNING_PAIRS`]) complete pairs, naming what differs between the
/// run's engines (`keys`; none when nothing does): it changed few moves or none, often
/// because a switch it needs is off.
pub(super) fn alike_warning(
    names: &[String; 2],
    alike: u64,
    pairs: u64,
    keys: &[String],
) -> Option<String> {
    // Engines that differ in nothing but their names play alike, as expected.
    if pairs < SPLIT_WARNING_PAIRS || alike * 2 <= pairs || keys.is_empty() {
        return None;
    }
    let what = format!("what differs between them ({})", keys.join(", "));
    let changed = if alike == pairs {
        "changed no move"
    } else {
        "changed few moves"
    };
    Some(format!(
        "{} vs {}: in {alike} of {pairs} game pairs the two games were the same game move \
         for move: the engines played alike, so {what} {changed} at these limits. If that \
         is a surprise, check that what it needs is on: {SWITCH_HINT}",
        names[0], names[1]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_alike_warning_needs_ten_pairs_and_a_majority() {
        let names = ["a".to_string(), "b".to_string()];
        let keys = ["search.params.razor_depth".to_string()];
        assert_eq!(alike_warning(&names, 9, 9, &keys), None);
        assert_eq!(alike_warning(&names, 5, 10, &keys), None);
        let few = alike_warning(&names, 6, 10, &keys).unwrap();
        assert!(
            few.starts_with("a vs b: in 6 of 10 game pairs the two games were the same game"),
            "{few}"
        );
        assert!(
            few.contains("(search.params.razor_depth) changed few moves"),
            "{few}"
        );
        let none = alike_warning(&names, 10, 10, &keys).unwrap();
        assert!(none.contains("changed no move at these limits"), "{none}");
        // Engines that differ in nothing but their names are expected to play alike.
        assert_eq!(alike_warning(&names, 10, 10, &[]), None);
    }
}
