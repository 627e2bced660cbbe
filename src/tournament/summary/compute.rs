//! [`summarize`]: every statistic of the summary from the records, in one pass over them
//! and one over the complete pairs (the convergence trajectories).

use std::collections::BTreeMap;

use super::{
    EngineSummary, PairShares, PairingSummary, SprtSummary, Summary, TrajectoryPoint,
    pairs::{alike_warning, count_alike, count_replays, replay_warning},
    split_warning,
};
use crate::{
    stats::{
        Anchor, GameScore, MIN_INTERVAL_UNITS, PairResult, Penta, SprtDecision, Wdl, fit_ratings,
    },
    tournament::{
        Tournament,
        config::OpeningKind,
        differences::{confound_warning, differences},
        record::{GameRecord, GameResult},
        schedule::Schedule,
    },
};

/// The kind of fault a game's end reason records, if it is one (the loser committed
/// it): `fault: crash (exit code 1)` is `crash`, `fault: garbage 'xyz'` is `garbage`;
/// `illegal-move`, `time-forfeit` and `no-move` are themselves.
pub fn fault_kind(reason: &str) -> Option<&str> {
    if let Some(rest) = reason.strip_prefix("fault: ") {
        let end = rest.find([' ', '(', '\'']).unwrap_or(rest.len());
        return Some(rest[..end].trim());
    }
    matches!(reason, "illegal-move" | "time-forfeit" | "no-move").then_some(reason)
}

fn score_of(half: u8) -> GameScore {
    match half {
        2 => GameScore::Win,
        1 => GameScore::Draw,
        _ => GameScore::Loss,
    }
}

fn quantile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    let frac = pos - lo as f64;
    sorted[lo] as f64 * (1.0 - frac) + sorted[hi] as f64 * frac
}

/// The summary of a run's records as a reader makes it from `games.jsonl` (`arena
/// stats`, a report of a run still being played): with an `[sprt]`, only the pairs up
/// to its decision count, as the run counted them.
pub fn of_records(t: &Tournament, records: &[GameRecord]) -> Summary {
    let schedule = Schedule::new(t.config.format, t.engines.len(), u64::from(t.config.rounds));
    let summary = summarize(t, &schedule, records, None);
    match (&summary.sprt, t.config.sprt) {
        (Some(_), Some(_)) => {
            let cut = sprt_cut(t, &schedule, records);
            summarize(t, &schedule, records, cut)
        }
        _ => summary,
    }
}

/// The number of pairs at which the SPRT decided, walking complete pairs in order.
fn sprt_cut(t: &Tournament, schedule: &Schedule, records: &[GameRecord]) -> Option<u64> {
    let sprt = t.config.sprt?;
    let mut pairs = BTreeMap::new();
    for r in records {
        pairs.entry(r.pair).or_insert_with(Vec::new).push(r);
    }
    let (a, _) = schedule.pairings[0];
    let mut penta = Penta::default();
    for games in pairs.values() {
        if games.len() != 2 {
            break;
        }
        let mut g = games.clone();
        g.sort_by_key(|r| r.game);
        let s = |r: &GameRecord| score_of(r.half_points_of(a).unwrap_or(0));
        penta.add_pair(s(g[0]), s(g[1]));
        if sprt.decide(sprt.llr_penta(&penta)) != SprtDecision::Continue {
            return Some(penta.pairs());
        }
    }
    None
}

/// Computes the summary. `sprt_pairs`: after an SPRT decision, only pairs up to the
/// decision (in pair order) are counted, so the numbers do not depend on timing.
pub fn summarize(
    t: &Tournament,
    schedule: &Schedule,
    records: &[GameRecord],
    sprt_pairs: Option<u64>,
) -> Summary {
    let mut records: Vec<&GameRecord> = records.iter().collect();
    records.sort_by_key(|r| r.game);
    // With an SPRT decision: only the first `n` complete pairs in pair order count.
    if let Some(n) = sprt_pairs {
        let mut complete = BTreeMap::new();
        for r in &records {
            *complete.entry(r.pair).or_insert(0) += 1;
        }
        let counted: std::collections::HashSet<u64> = complete
            .into_iter()
            .filter(|&(_, c)| c == 2)
            .map(|(p, _)| p)
            .take(n as usize)
            .collect();
        records.retain(|r| counted.contains(&r.pair));
    }
    let n_engines = t.engines.len();
    let mut pairings: Vec<PairingSummary> = schedule
        .pairings
        .iter()
        .map(|&(a, b)| PairingSummary {
            a,
            b,
            names: [
                t.engines[a].name().to_string(),
                t.engines[b].name().to_string(),
            ],
            wdl: Wdl::default(),
            penta: Penta::default(),
            estimate: None,
            first_player_score: None,
            first_player: None,
            pair_shares: PairShares::default(),
            game_length: 0.0,
            lengths: Vec::new(),
            trajectory: Vec::new(),
        })
        .collect();
    let mut first_points = vec![(0u64, 0u64); pairings.len()];
    // The first player's results, per pairing and over all games.
    let mut first_wdl = vec![Wdl::default(); pairings.len()];
    let mut first_all = Wdl::default();
    let mut nodes: Vec<Vec<u64>> = vec![Vec::new(); n_engines];
    let mut depth_sum = vec![0u64; n_engines];
    let mut time_us = vec![0u64; n_engines];
    // Moves without figures, per engine: (no nodes, no depth), and all moves.
    let mut unreported = vec![(0u64, 0u64); n_engines];
    let mut all_moves = vec![0u64; n_engines];
    let mut by_depth: Vec<BTreeMap<u32, (u64, u64)>> = vec![BTreeMap::new(); n_engines];
    let mut length = vec![(0u64, 0u64); n_engines];
    let mut as_first = vec![(0u64, 0u64); n_engines];
    let mut wdl = vec![Wdl::default(); n_engines];
    let mut reasons = BTreeMap::new();
    let mut open: BTreeMap<u64, (u64, GameScore)> = BTreeMap::new();
    let mut reproducible = true;
    let (mut total_first, mut total_games) = (0u64, 0u64);
    let mut faults: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for r in &records {
        reproducible &= r.reproducible;
        *reasons.entry(r.reason.clone()).or_insert(0) += 1;
        if let Some(kind) = fault_kind(&r.reason) {
            // The engine at fault is the one that lost.
            let loser = match r.result {
                GameResult::FirstWins => Some(&r.white_name),
                GameResult::SecondWins => Some(&r.black_name),
                GameResult::Draw => None,
            };
            if let Some(name) = loser {
                *faults
                    .entry(name.clone())
                    .or_default()
                    .entry(kind.to_string())
                    .or_insert(0) += 1;
            }
        }
        let p = &mut pairings[r.pairing];
        let score_a = score_of(r.half_points_of(p.a).unwrap_or(0));
        p.wdl.record(score_a);
        p.lengths.push(r.plies);
        match open.remove(&r.pair) {
            Some((game, first)) => {
                let pair = if game < r.game {
                    [first, score_a]
                } else {
                    [score_a, first]
                };
                p.penta.add_pair(pair[0], pair[1]);
            }
            None => {
                open.insert(r.pair, (r.game, score_a));
            }
        }
        let fp = r.result.first_half_points();
        first_wdl[r.pairing].record(score_of(fp));
        first_all.record(score_of(fp));
        first_points[r.pairing].0 += u64::from(fp);
        first_points[r.pairing].1 += 1;
        total_first += u64::from(fp);
        total_games += 1;
        for e in [r.black, r.white] {
            let half = r.half_points_of(e).unwrap_or(0);
            wdl[e].record(score_of(half));
            length[e].0 += u64::from(r.plies);
            length[e].1 += 1;
        }
        as_first[r.black].0 += u64::from(r.result.first_half_points());
        as_first[r.black].1 += 1;
        for (i, s) in r.stats.iter().enumerate() {
            let e = r.mover(i);
            all_moves[e] += 1;
            // 0 nodes or depth 0: the engine did not say (every search visits its
            // root); such moves are left out of the figures rather than counted as 0.
            if s.depth == 0 {
                unreported[e].1 += 1;
            }
            depth_sum[e] = depth_sum[e].saturating_add(u64::from(s.depth));
            if s.nodes == 0 {
                unreported[e].0 += 1;
                continue;
            }
            nodes[e].push(s.nodes);
            // Saturating: a record is checked against its run, not its figures.
            time_us[e] = time_us[e].saturating_add(s.time_us);
            for (d, &n) in s.iterations.iter().enumerate() {
                let slot = by_depth[e].entry(d as u32 + 1).or_insert((0, 0));
                slot.0 += 1;
                slot.1 = slot.1.saturating_add(n);
            }
        }
    }
    // Convergence trajectories: re-walk pairs in order.
    for (i, p) in pairings.iter_mut().enumerate() {
        let games = p.wdl.games();
        p.estimate = if p.penta.pairs() > 0 {
            p.penta.estimate()
        } else {
            p.wdl.estimate()
        };
        p.game_length = if games == 0 {
            0.0
        } else {
            p.lengths.iter().map(|&l| f64::from(l)).sum::<f64>() / games as f64
        };
        let (fp, fg) = first_points[i];
        p.first_player_score = (fg > 0).then(|| fp as f64 / 2.0 / fg as f64);
        p.first_player = first_wdl[i].estimate().map(|e| e.score_interval());
        p.pair_shares = PairShares::of(&p.penta);
    }
    let mut all_pairs = Penta::default();
    for p in &pairings {
        all_pairs.add(p.penta);
    }
    let pair_shares = PairShares::of(&all_pairs);
    trajectories(t, &records, &mut pairings);

    let results: Vec<PairResult> = pairings
        .iter()
        .filter(|p| p.wdl.games() > 0)
        .map(|p| PairResult {
            a: p.a,
            b: p.b,
            wdl: p.wdl,
        })
        .collect();
    let anchor = match &t.config.anchor {
        Some(name) => Anchor::Player {
            index: t.engines.iter().position(|e| e.name() == name).unwrap_or(0),
            elo: t.config.anchor_elo,
        },
        None => Anchor::PoolAverage,
    };
    let ratings_relative_to = match &t.config.anchor {
        Some(name) => format!("{name}, fixed at {}", t.config.anchor_elo),
        None => "the pool average (0)".to_string(),
    };
    let (ratings, ratings_note) = match fit_ratings(n_engines, &results, anchor) {
        Ok(r) => (Some(r), None),
        Err(e) if records.is_empty() => (None, Some(format!("no games yet ({e})"))),
        Err(e) => (None, Some(e.to_string())),
    };
    let engines = (0..n_engines)
        .map(|e| {
            let mut sorted = nodes[e].clone();
            sorted.sort_unstable();
            let with_nodes = sorted.len() as u64;
            let moves = all_moves[e];
            let with_depth = moves - unreported[e].1;
            let total_nodes = sorted.iter().fold(0u64, |a, &n| a.saturating_add(n));
            let secs = time_us[e] as f64 / 1e6;
            EngineSummary {
                name: t.engines[e].name().to_string(),
                description: t.engines[e].summary(),
                elo: ratings.as_ref().map(|r| r.elo[e]),
                // As a pairing's interval needs five pairs, a rating's needs their ten
                // games: below that the dispersion the error rests on is noise (0 for
                // two draws).
                elo_error: ratings
                    .as_ref()
                    .map(|r| r.error[e])
                    .filter(|_| wdl[e].games() >= 2 * MIN_INTERVAL_UNITS),
                games: wdl[e].games(),
                wdl: wdl[e],
                score: wdl[e].score().unwrap_or(0.0),
                score_as_first: (as_first[e].1 > 0)
                    .then(|| as_first[e].0 as f64 / 2.0 / as_first[e].1 as f64),
                moves,
                nodes_mean: if with_nodes == 0 {
                    0.0
                } else {
                    total_nodes as f64 / with_nodes as f64
                },
                nodes_median: quantile(&sorted, 0.5),
                nodes_quartiles: [quantile(&sorted, 0.25), quantile(&sorted, 0.75)],
                depth_mean: if with_depth == 0 {
                    0.0
                } else {
                    depth_sum[e] as f64 / with_depth as f64
                },
                nps: if secs > 0.0 {
                    total_nodes as f64 / secs
                } else {
                    0.0
                },
                game_length: if length[e].1 == 0 {
                    0.0
                } else {
                    length[e].0 as f64 / length[e].1 as f64
                },
                moves_without_nodes: unreported[e].0,
                moves_without_depth: unreported[e].1,
                nodes_by_depth: by_depth[e]
                    .iter()
                    .map(|(&d, &(n, sum))| (d, n, sum as f64 / n.max(1) as f64))
                    .collect(),
            }
        })
        .collect();
    let sprt = t.config.sprt.map(|config| {
        let penta = pairings.first().map(|p| p.penta).unwrap_or_default();
        let llr = config.llr_penta(&penta);
        let decided = config.decide(llr);
        let decision = match decided {
            SprtDecision::AcceptH0 => "accept H0",
            SprtDecision::AcceptH1 => "accept H1",
            SprtDecision::Continue => "continue",
        };
        SprtSummary {
            llr,
            bounds: config.bounds(),
            decision: decision.to_string(),
            config,
            pairs: penta.pairs(),
            debiased: (decided != SprtDecision::Continue)
                .then(|| config.debiased_penta(&penta))
                .flatten(),
        }
    });
    let (replayed_pairs, complete_pairs) = count_replays(&records);
    let differences = differences(&t.engines);
    let mut warnings = replay_warning(replayed_pairs, complete_pairs);
    warnings.extend(confound_warning(&differences));
    // A file of lines of the shipped balanced set (held-out openings) is balanced too.
    let balanced = match t.config.openings.kind {
        OpeningKind::Balanced => true,
        OpeningKind::File => {
            crate::tournament::openings::Shipped::of(&t.config.game).is_some_and(|set| {
                set.holds_all(&t.config.game, records.iter().map(|r| r.opening.as_str()))
            })
        }
        _ => false,
    };
    // Engines that played alike first: it explains the split pairs that follow.
    let keys: Vec<String> = differences.iter().map(|d| d.key.clone()).collect();
    for (p, (alike, pairs)) in pairings.iter().zip(count_alike(&records, pairings.len())) {
        warnings.extend(alike_warning(&p.names, alike, pairs, &keys));
    }
    warnings.extend(split_warning(&t.config.game, &pair_shares, balanced));
    for p in &pairings {
        for caveat in p.estimate.iter().flat_map(|e| e.caveats()) {
            warnings.push(format!("{} vs {}: {caveat}", p.names[0], p.names[1]));
        }
    }
    if ratings.as_ref().is_some_and(|r| r.regularized) {
        warnings.push(
            "some engine won or lost every game against the rest, so its maximum-likelihood \
             rating is infinite: the ratings include one virtual draw per engine (as \
             BayesElo's prior) to stay finite, and the ones it kept finite mean little"
                .to_string(),
        );
    }
    Summary {
        name: t.config.name.clone(),
        game: t.config.game.to_string(),
        seed: t.config.seed,
        scheduled_games: schedule.games(),
        games: records.len() as u64,
        reproducible,
        engines,
        pairings,
        first_player_score: (total_games > 0)
            .then(|| total_first as f64 / 2.0 / total_games as f64),
        first_player: first_all.estimate().map(|e| e.score_interval()),
        pair_shares,
        reasons,
        ratings_note,
        sprt,
        faults,
        warnings,
        replayed_pairs,
        ratings_relative_to,
        differences,
    }
}

/// Elo (and LLR) after each complete pair, thinned to about 200 points per pairing.
fn trajectories(t: &Tournament, records: &[&GameRecord], pairings: &mut [PairingSummary]) {
    let mut by_pairing: Vec<BTreeMap<u64, Vec<&GameRecord>>> =
        vec![BTreeMap::new(); pairings.len()];
    for r in records {
        by_pairing[r.pairing].entry(r.pair).or_default().push(r);
    }
    for (i, p) in pairings.iter_mut().enumerate() {
        let complete: Vec<&Vec<&GameRecord>> =
            by_pairing[i].values().filter(|v| v.len() == 2).collect();
        let step = complete.len().div_ceil(200).max(1);
        let mut penta = Penta::default();
        for (k, pair) in complete.iter().enumerate() {
            let mut games = pair.to_vec();
            games.sort_by_key(|r| r.game);
            let s: Vec<GameScore> = games
                .iter()
                .map(|r| score_of(r.half_points_of(p.a).unwrap_or(0)))
                .collect();
            penta.add_pair(s[0], s[1]);
            if (k + 1) % step == 0 || k + 1 == complete.len() {
                let est = penta.estimate();
                p.trajectory.push(TrajectoryPoint {
                    games: penta.pairs() * 2,
                    elo: est.map(|e| e.elo).filter(|v| v.is_finite()),
                    error: est.map(|e| e.elo_error).filter(|v| v.is_finite()),
                    llr: t
                        .config
                        .sprt
                        .map(|c| c.llr_penta(&penta))
                        .filter(|v| v.is_finite()),
                });
            }
        }
    }
}

#[cfg(test)]
mod fault_tests {
    use super::fault_kind;

    #[test]
    fn fault_kinds() {
        assert_eq!(fault_kind("fault: crash (exit code 1)"), Some("crash"));
        assert_eq!(fault_kind("fault: crash"), Some("crash"));
        assert_eq!(fault_kind("fault: garbage 'x y'"), Some("garbage"));
        assert_eq!(fault_kind("fault: timeout"), Some("timeout"));
        assert_eq!(fault_kind("illegal-move"), Some("illegal-move"));
        assert_eq!(fault_kind("time-forfeit"), Some("time-forfeit"));
        assert_eq!(fault_kind("k-in-a-row"), None);
        assert_eq!(fault_kind("max-plies"), None);
    }
}

#[cfg(test)]
mod pair_tests {
    use std::path::Path;

    use super::*;
    use crate::tournament::openings::Shipped;

    /// Two tic-tac-toe engines, `rounds` pairs.
    fn tournament(rounds: u64) -> (Tournament, Schedule) {
        let text = format!(
            "name = \"t\"\ngame = \"tictactoe\"\nrounds = {rounds}\n\n\
             [[engines]]\nname = \"a\"\nsearch = {{ depth = 1 }}\n\n\
             [[engines]]\nname = \"b\"\nsearch = {{ depth = 1 }}\n"
        );
        let t = Tournament::parse("t.toml", Path::new("t.toml"), &text).unwrap();
        let schedule = Schedule::new(t.config.format, 2, rounds);
        (t, schedule)
    }

    /// A game of pair `pair` (its first game when `second` is false: a is black).
    fn game(pair: u64, second: bool, result: GameResult) -> GameRecord {
        let (black, white) = if second { (1, 0) } else { (0, 1) };
        GameRecord {
            variant: None,
            game: 2 * pair + u64::from(second),
            pair,
            round: pair,
            pairing: 0,
            black,
            white,
            black_name: ["a", "b"][black].to_string(),
            white_name: ["a", "b"][white].to_string(),
            opening: String::new(),
            first_mover: black,
            moves: Vec::new(),
            stats: Vec::new(),
            result,
            reason: "k-in-a-row".to_string(),
            plies: 5,
            seed: pair,
            reproducible: true,
            duration_ms: 0,
            played_at: None,
        }
    }

    /// `split` pairs won by black both times, `drawn` pairs of two draws, `a_both`
    /// pairs won by engine a in both colours.
    fn records(split: u64, drawn: u64, a_both: u64) -> Vec<GameRecord> {
        let mut out = Vec::new();
        let mut pair = 0;
        for (n, results) in [
            (split, [GameResult::FirstWins, GameResult::FirstWins]),
            (drawn, [GameResult::Draw, GameResult::Draw]),
            (a_both, [GameResult::FirstWins, GameResult::SecondWins]),
        ] {
            for _ in 0..n {
                out.push(game(pair, false, results[0]));
                out.push(game(pair, true, results[1]));
                pair += 1;
            }
        }
        out
    }

    #[test]
    fn split_pairs_and_the_first_players_interval() {
        let (t, schedule) = tournament(10);
        let s = summarize(&t, &schedule, &records(6, 1, 3), None);
        let expected = PairShares {
            pairs: 10,
            split: 6,
            drawn: 1,
        };
        assert_eq!(s.pair_shares, expected);
        assert_eq!(s.pairings[0].pair_shares, expected);
        // Black: 12 wins in the split pairs, 2 draws, 3 wins and 3 losses: 16 of 20.
        let fp = s.first_player.unwrap();
        assert_eq!((fp.score, fp.games), (0.8, 20));
        let same = Wdl::new(15, 2, 3).estimate().unwrap().score_interval();
        assert_eq!(fp, same);
        assert!(fp.low < 0.8 && 0.8 < fp.high && fp.high < 1.0, "{fp:?}");
        assert_eq!(s.pairings[0].first_player, Some(same));
        assert_eq!(s.first_player_score, Some(0.8));
        let warning = s
            .warnings
            .iter()
            .find(|w| w.contains("pairs split"))
            .expect("6 of 10 split: a warning");
        assert!(
            warning.starts_with("6 of 10 pairs split 1-1 (60.0 %), 1 both drawn"),
            "{warning}"
        );
        assert!(
            warning.contains("arena openings tictactoe --balance"),
            "{warning}"
        );
    }

    #[test]
    fn no_split_warning_at_half_or_below_ten_pairs() {
        let (t, schedule) = tournament(10);
        let half = summarize(&t, &schedule, &records(5, 0, 5), None);
        assert_eq!(half.pair_shares.split, 5);
        assert!(!half.warnings.iter().any(|w| w.contains("pairs split")));
        let (t, schedule) = tournament(9);
        let few = summarize(&t, &schedule, &records(9, 0, 0), None);
        assert_eq!(few.pair_shares.split, 9);
        assert!(!few.warnings.iter().any(|w| w.contains("pairs split")));
    }

    #[test]
    fn a_file_of_the_shipped_sets_lines_is_the_shipped_set() {
        // Held-out openings: lines 201 on of the shipped Ataxx set, played from a file.
        let (mut t, schedule) = tournament(10);
        t.config.game = "ataxx".parse().unwrap();
        t.config.openings.kind = OpeningKind::File;
        let set = Shipped::of(&t.config.game).unwrap();
        let lines: Vec<&str> = set.text.lines().filter(|l| l.contains('/')).collect();
        let mut played = records(6, 1, 3);
        for r in &mut played {
            r.opening = lines[200 + r.pair as usize].to_string();
        }
        let warning = |played: &[GameRecord]| {
            let s = summarize(&t, &schedule, played, None);
            s.warnings
                .into_iter()
                .find(|w| w.contains("pairs split"))
                .unwrap()
        };
        let w = warning(&played);
        assert!(w.contains("already the shipped balanced openings"), "{w}");
        // One opening from elsewhere: the file is not the shipped set.
        played[0].opening = "x5o/7/7/7/7/7/o5x x 0 1".to_string();
        assert!(!lines.contains(&played[0].opening.as_str()));
        let w = warning(&played);
        assert!(w.contains("use the shipped balanced openings"), "{w}");
    }

    #[test]
    fn the_warning_names_the_shipped_set_of_a_game_that_has_one() {
        let gomoku: crate::game::GameSpec = "gomoku".parse().unwrap();
        let shares = PairShares {
            pairs: 20,
            split: 14,
            drawn: 0,
        };
        let w = split_warning(&gomoku, &shares, false).unwrap();
        assert!(w.contains("kind = \"balanced\""), "{w}");
        assert!(w.contains(Shipped::of(&gomoku).unwrap().path), "{w}");
        // Already on that set: it says so and points to a set made for these engines.
        let w = split_warning(&gomoku, &shares, true).unwrap();
        assert!(w.contains("already the shipped balanced openings"), "{w}");
        assert!(!w.contains("use the shipped"), "{w}");
        assert!(w.contains("arena openings gomoku --balance"), "{w}");
    }
}
