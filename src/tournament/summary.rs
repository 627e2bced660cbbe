//! Statistics of a tournament from its records: per pairing W/D/L, pentanomial counts,
//! Elo and nElo with 95 % intervals, LOS, draw ratio and SPRT; ratings of every engine by
//! maximum likelihood; per engine nodes per move (mean, median), depth, nodes per second,
//! game length and first-player score. Written as `summary.json`, `standings.csv` and
//! `pairings.csv`.
//!
//! Everything here is a pure function of the records (in any order), so `arena stats`,
//! a finished run and a merged set of shards give the same numbers.

use std::{collections::BTreeMap, fmt::Write as _, path::Path};

use serde::{Deserialize, Serialize};

use super::{
    Tournament,
    differences::{Difference, confound_warning, differences},
    error::{RunError, write_text},
    record::{GameRecord, GameResult},
    schedule::Schedule,
};
use crate::stats::{
    Anchor, EloEstimate, GameScore, PairResult, Penta, ScoreInterval, SprtDecision, SprtEstimate,
    Wdl, fit_ratings,
};

/// One engine's line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineSummary {
    /// Name.
    pub name: String,
    /// Table and ordering, for readers.
    pub description: String,
    /// Rating (pool average 0, or the anchor's value).
    pub elo: Option<f64>,
    /// Half-width of the 95 % interval of `elo`.
    pub elo_error: Option<f64>,
    /// Games played.
    pub games: u64,
    /// Results (wins, draws, losses) over all games.
    pub wdl: Wdl,
    /// Points per game.
    pub score: f64,
    /// Points per game when it moved first (the first player's seat).
    pub score_as_first: Option<f64>,
    /// Moves it made (with node counts).
    pub moves: u64,
    /// Mean nodes per move.
    pub nodes_mean: f64,
    /// Median nodes per move.
    pub nodes_median: f64,
    /// First and third quartile of nodes per move.
    pub nodes_quartiles: [f64; 2],
    /// Mean depth reached per move.
    pub depth_mean: f64,
    /// Nodes per second over all its moves (measured).
    pub nps: f64,
    /// Mean plies of its games.
    pub game_length: f64,
    /// Moves for which it reported no node count (0 nodes: an outside engine that
    /// prints no figures). The node figures above are over the other moves.
    #[serde(default)]
    pub moves_without_nodes: u64,
    /// Moves for which it reported no depth (depth 0). `depth_mean` is over the others.
    #[serde(default)]
    pub moves_without_depth: u64,
    /// Per depth d: (d, moves whose search completed depth d, mean nodes searched by
    /// then): the cost of each depth, whose ratio is the effective branching factor.
    pub nodes_by_depth: Vec<(u32, u64, f64)>,
}

impl EngineSummary {
    /// Whether any of its moves came with a node count (nodes per move and nodes per
    /// second mean something); an engine that moved and never said is shown as "n/a".
    pub fn reports_nodes(&self) -> bool {
        self.moves == 0 || self.moves_without_nodes < self.moves
    }

    /// Whether any of its moves came with a depth.
    pub fn reports_depth(&self) -> bool {
        self.moves == 0 || self.moves_without_depth < self.moves
    }
}

/// One pairing's statistics, from engine `a`'s point of view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairingSummary {
    /// First engine (index).
    pub a: usize,
    /// Second engine (index).
    pub b: usize,
    /// Names.
    pub names: [String; 2],
    /// Games.
    pub wdl: Wdl,
    /// Complete colour-swapped pairs.
    pub penta: Penta,
    /// Elo etc. from the pairs when there are any, else from the games.
    pub estimate: Option<EloEstimate>,
    /// Points per game of whoever moved first (the first player), in this pairing.
    pub first_player_score: Option<f64>,
    /// The first player's score with its 95 % interval (over games).
    #[serde(default)]
    pub first_player: Option<ScoreInterval>,
    /// How many complete pairs split 1-1 or were two draws.
    #[serde(default)]
    pub pair_shares: PairShares,
    /// Mean plies per game.
    pub game_length: f64,
    /// Plies of every game, in game order (for distributions).
    pub lengths: Vec<u32>,
    /// Elo (and interval) after each complete pair, in pair order (for convergence
    /// plots); at most ~200 samples.
    pub trajectory: Vec<TrajectoryPoint>,
}

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
pub fn split_warning(game: &crate::game::GameSpec, shares: &PairShares) -> Option<String> {
    if shares.pairs < SPLIT_WARNING_PAIRS || shares.split * 2 <= shares.pairs {
        return None;
    }
    let remedy = match super::openings::Shipped::of(game) {
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

/// A point of a convergence plot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrajectoryPoint {
    /// Games counted.
    pub games: u64,
    /// Elo so far.
    pub elo: Option<f64>,
    /// Its 95 % half-width.
    pub error: Option<f64>,
    /// SPRT log-likelihood ratio so far (with `[sprt]`).
    pub llr: Option<f64>,
}

/// The SPRT's state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtSummary {
    /// Log-likelihood ratio.
    pub llr: f64,
    /// Lower and upper bounds.
    pub bounds: (f64, f64),
    /// accept H0, accept H1, or continue.
    pub decision: String,
    /// The test.
    pub config: crate::stats::SprtConfig,
    /// Game pairs counted (after a decision, later pairs are recorded but not counted).
    pub pairs: u64,
    /// After a decision: fishtest's median-unbiased Elo (the plain Elo of a stopped test
    /// is biased towards the bound it crossed).
    #[serde(default)]
    pub debiased: Option<SprtEstimate>,
}

/// Everything `summary.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Run name.
    pub name: String,
    /// Game.
    pub game: String,
    /// Master seed (a string in the file, like the records' seeds).
    #[serde(with = "super::record::u64_text")]
    pub seed: u64,
    /// Games in the schedule.
    pub scheduled_games: u64,
    /// Games counted.
    pub games: u64,
    /// Whether every counted game is reproducible (no time limits).
    pub reproducible: bool,
    /// Engines, in config order.
    pub engines: Vec<EngineSummary>,
    /// Pairings, in schedule order.
    pub pairings: Vec<PairingSummary>,
    /// Score of the first player over all games.
    pub first_player_score: Option<f64>,
    /// The first player's score over all games with its 95 % interval.
    #[serde(default)]
    pub first_player: Option<ScoreInterval>,
    /// Complete pairs over all pairings, and how many split 1-1 or were two draws.
    #[serde(default)]
    pub pair_shares: PairShares,
    /// How games ended, with counts.
    pub reasons: BTreeMap<String, u64>,
    /// Why ratings could not be fitted, if they could not.
    pub ratings_note: Option<String>,
    /// SPRT, when configured.
    pub sprt: Option<SprtSummary>,
    /// Games lost to faults, per engine (by name) and kind ([`fault_kind`]: `crash`,
    /// `timeout`, `garbage`, `illegal-move`, `time-forfeit`, ...). Engines without
    /// faults are left out.
    #[serde(default)]
    pub faults: BTreeMap<String, BTreeMap<String, u64>>,
    /// Complete game pairs that repeat an earlier pair of the same pairing move for move
    /// (same opening, same moves in both games): deterministic engines replay a pair
    /// whenever an opening comes round again. They add no evidence, yet the intervals
    /// count them; [`Summary::warnings`] says so.
    #[serde(default)]
    pub replayed_pairs: u64,
    /// Things a reader must know before trusting the numbers.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// What the engines' ratings are relative to: `the pool average (0)` or the anchor.
    #[serde(default)]
    pub ratings_relative_to: String,
    /// The settings that differ between the engines (from their resolved configs): what
    /// the comparison is a comparison of.
    #[serde(default)]
    pub differences: Vec<Difference>,
}

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
                elo_error: ratings.as_ref().map(|r| r.error[e]),
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
    warnings.extend(split_warning(&t.config.game, &pair_shares));
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

/// The warning for replayed pairs, if any.
fn replay_warning(replayed: u64, pairs: u64) -> Vec<String> {
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
fn count_replays(records: &[&GameRecord]) -> (u64, u64) {
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

/// Writes `summary.json`, `standings.csv` and `pairings.csv` into `dir` (atomically).
pub fn write_files(dir: &Path, summary: &Summary) -> Result<(), RunError> {
    let json = serde_json::to_string_pretty(summary).map_err(|e| RunError::Io {
        path: dir.join("summary.json").display().to_string(),
        source: std::io::Error::other(e),
    })?;
    write_text(
        &dir.join("summary.json"),
        &(json
            + "
"),
    )?;
    write_text(&dir.join("standings.csv"), &standings_csv(summary))?;
    write_text(&dir.join("pairings.csv"), &pairings_csv(summary))?;
    Ok(())
}

/// One line per pairing, in schedule order, from the first engine's side: what
/// `standings.csv` is for engines. Elo and its interval (`elo_low`, `elo_high`, as
/// `scaling.csv` has them) come from the game pairs when there are any (`pentanomial` =
/// true), else from the games. An infinite figure (every game won) is `+inf` or `-inf`,
/// as in `scaling.csv`; an empty cell is one without games.
pub fn pairings_csv(s: &Summary) -> String {
    let mut out = String::from(
        "engine_a,engine_b,games,wins,draws,losses,score,elo,elo_error,elo_low,elo_high,\
         nelo,nelo_error,los,draw_ratio,pentanomial,pairs,penta_ll,penta_ld,penta_dd_wl,\
         penta_wd,penta_ww,first_player_score,game_length\n",
    );
    let f = |v: Option<f64>, digits: usize| match v {
        Some(x) if x.is_finite() => format!("{x:.digits$}"),
        Some(x) if x > 0.0 => "+inf".to_string(),
        Some(x) if x < 0.0 => "-inf".to_string(),
        _ => String::new(),
    };
    for p in &s.pairings {
        let e = p.estimate.as_ref();
        let c = p.penta.counts;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.1}",
            csv_field(&p.names[0]),
            csv_field(&p.names[1]),
            p.wdl.games(),
            p.wdl.wins,
            p.wdl.draws,
            p.wdl.losses,
            f(e.map(|e| e.score), 4),
            f(e.map(|e| e.elo), 2),
            f(e.map(|e| e.elo_error), 2),
            f(e.map(|e| e.elo_low), 2),
            f(e.map(|e| e.elo_high), 2),
            f(e.map(|e| e.nelo), 2),
            f(e.map(|e| e.nelo_error), 2),
            f(e.map(|e| e.los), 4),
            f(e.map(|e| e.draw_ratio), 4),
            e.map_or(String::new(), |e| e.pentanomial.to_string()),
            p.penta.pairs(),
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            f(p.first_player_score, 4),
            p.game_length
        );
    }
    out
}

/// One line per engine, ranked: what a spreadsheet or script reads.
pub fn standings_csv(s: &Summary) -> String {
    let mut out = String::from(
        "rank,engine,elo,elo_error,games,wins,draws,losses,score,score_as_first,\
         nodes_per_move_mean,nodes_per_move_median,depth_mean,nps,game_length\n",
    );
    for (rank, e) in ranked(s).into_iter().enumerate() {
        let f = |v: Option<f64>| {
            v.filter(|x| x.is_finite())
                .map_or(String::new(), |x| format!("{x:.2}"))
        };
        // An engine that reported no figures has empty cells, not zeros.
        let (nodes, depth) = (e.reports_nodes(), e.reports_depth());
        let figure = |shown: bool, v: f64, digits: usize| {
            if shown {
                format!("{v:.digits$}")
            } else {
                String::new()
            }
        };
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{:.4},{},{},{},{},{},{:.1}",
            rank + 1,
            csv_field(&e.name),
            f(e.elo),
            f(e.elo_error),
            e.games,
            e.wdl.wins,
            e.wdl.draws,
            e.wdl.losses,
            e.score,
            e.score_as_first
                .map_or(String::new(), |v| format!("{v:.4}")),
            figure(nodes, e.nodes_mean, 1),
            figure(nodes, e.nodes_median, 1),
            figure(depth, e.depth_mean, 2),
            figure(nodes, e.nps, 0),
            e.game_length
        );
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Engines ranked by rating (or score when there are no ratings).
pub fn ranked(s: &Summary) -> Vec<&EngineSummary> {
    let mut v: Vec<&EngineSummary> = s.engines.iter().collect();
    v.sort_by(|a, b| {
        let key = |e: &EngineSummary| e.elo.unwrap_or(e.score * 1000.0);
        key(b).total_cmp(&key(a))
    });
    v
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
    fn the_warning_names_the_shipped_set_of_a_game_that_has_one() {
        let gomoku: crate::game::GameSpec = "gomoku".parse().unwrap();
        let shares = PairShares {
            pairs: 20,
            split: 14,
            drawn: 0,
        };
        let w = split_warning(&gomoku, &shares).unwrap();
        assert!(w.contains("kind = \"balanced\""), "{w}");
        assert!(w.contains(Shipped::of(&gomoku).unwrap().path), "{w}");
    }
}
