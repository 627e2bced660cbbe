//! Elo of one pairing from its results: the score, Elo and normalized Elo with their 95 %
//! intervals, the likelihood of superiority (LOS) and the draw ratio, from game results
//! ([`Wdl`], trinomial) or from colour-swapped game pairs ([`Penta`], pentanomial).
//!
//! The formulas are fastchess' and fishtest's (see `STATS.md`): the score's variance is
//! estimated from the observed results, the interval is the normal approximation
//! `s ± z·σ/√N` mapped through the logistic Elo curve. For pairs the unit of sampling is
//! the pair, which accounts for the correlation between the two games of a pair.
//!
//! This module owns only numbers: it must not know about engines, games or tournaments.

use std::fmt;

use serde::{Deserialize, Serialize, Serializer};

/// z-score of a two-sided 95 % normal interval: Φ⁻¹(0.975).
pub const Z95: f64 = 1.959963984540054;

/// Normalized Elo per unit of t-value: 800 / ln 10.
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// Elo difference that makes an expected score of `s` on the logistic curve:
/// `-400 · log10(1/s - 1)`.
///
/// `s = 1` gives `+∞`, `s = 0` gives `-∞`; a score outside `[0, 1]` (or NaN) gives NaN.
pub fn elo_from_score(s: f64) -> f64 {
    // `+ 0.0` turns the -0 of an even score into 0, so it never prints as "-0.00".
    -400.0 * (1.0 / s - 1.0).log10() + 0.0
}

/// Expected score of a player `elo` points stronger: `1 / (1 + 10^(-elo/400))`.
///
/// `+∞` gives 1 and `-∞` gives 0.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// A's result in one game, in half points: a loss is 0, a draw 1, a win 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameScore {
    /// A lost (0 points).
    Loss,
    /// A drew (½ point).
    Draw,
    /// A won (1 point).
    Win,
}

impl GameScore {
    /// A's points in half points: 0, 1 or 2.
    pub fn half_points(self) -> u8 {
        match self {
            GameScore::Loss => 0,
            GameScore::Draw => 1,
            GameScore::Win => 2,
        }
    }

    /// The same game from the opponent's point of view.
    pub fn reversed(self) -> GameScore {
        match self {
            GameScore::Loss => GameScore::Win,
            GameScore::Draw => GameScore::Draw,
            GameScore::Win => GameScore::Loss,
        }
    }
}

/// Results of one pairing from engine A's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wdl {
    /// Games A won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games A lost.
    pub losses: u64,
}

impl Wdl {
    /// Results with these counts.
    pub fn new(wins: u64, draws: u64, losses: u64) -> Wdl {
        Wdl {
            wins,
            draws,
            losses,
        }
    }

    /// Number of games (saturating at `u64::MAX`, far beyond any real match).
    pub fn games(&self) -> u64 {
        self.wins
            .saturating_add(self.draws)
            .saturating_add(self.losses)
    }

    /// A's points: wins plus half the draws.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// A's score, points per game in `[0, 1]`; `None` before the first game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / n as f64)
    }

    /// Counts one more game.
    pub fn record(&mut self, game: GameScore) {
        match game {
            GameScore::Loss => self.losses += 1,
            GameScore::Draw => self.draws += 1,
            GameScore::Win => self.wins += 1,
        }
    }

    /// Adds the results of `other` (from the same player's view), saturating.
    pub fn add(&mut self, other: Wdl) {
        self.wins = self.wins.saturating_add(other.wins);
        self.draws = self.draws.saturating_add(other.draws);
        self.losses = self.losses.saturating_add(other.losses);
    }

    /// The same results from the opponent's point of view.
    pub fn reversed(&self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    /// Score, Elo, nElo, their 95 % intervals, LOS and draw ratio on the trinomial model
    /// (every game an independent sample); `None` before the first game.
    pub fn estimate(&self) -> Option<EloEstimate> {
        let n = self.games();
        if n == 0 {
            return None;
        }
        Some(estimate_from(Sample {
            counts: &[self.losses, self.draws, self.wins],
            scores: &[0.0, 0.5, 1.0],
            units_per_game: 1.0,
            decisive: (self.wins, self.losses),
            draw_ratio: self.draws as f64 / n as f64,
            games: n,
            pentanomial: false,
        }))
    }
}

impl fmt::Display for Wdl {
    /// `W-D-L`, e.g. `76-123-89`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}-{}", self.wins, self.draws, self.losses)
    }
}

/// Pentanomial counts of colour-swapped game pairs, by A's pair score 0, ¼, ½, ¾, 1:
/// `[LL, LD, WL+DD, WD, WW]`.
///
/// The middle bin mixes a win and a loss (WL) with two draws (DD). Every statistic except
/// the draw ratio needs only the five bins; for the draw ratio `dd` keeps how many of the
/// middle pairs were two draws when that is known (pairs counted with
/// [`add_pair`](Penta::add_pair), or given by [`from_six`](Penta::from_six)), and is
/// `None` when only the five bins are known ([`from_counts`](Penta::from_counts)).
/// `dd` is at most `counts[2]`; larger values are read as `counts[2]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Penta {
    /// Pairs by A's pair score 0, ¼, ½, ¾, 1: `[LL, LD, WL+DD, WD, WW]`.
    pub counts: [u64; 5],
    /// How many of the `counts[2]` pairs were two draws (DD) rather than a win and a loss
    /// (WL); `None` when unknown.
    #[serde(default)]
    pub dd: Option<u64>,
}

impl Default for Penta {
    /// No pairs yet (and so a known DD count of zero).
    fn default() -> Penta {
        Penta {
            counts: [0; 5],
            dd: Some(0),
        }
    }
}

/// A pair's score for each pentanomial bin.
const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

impl Penta {
    /// Counts in the six-number form fastchess prints: LL, LD, WL, DD, WD, WW.
    pub fn from_six(ll: u64, ld: u64, wl: u64, dd: u64, wd: u64, ww: u64) -> Penta {
        Penta {
            counts: [ll, ld, wl + dd, wd, ww],
            dd: Some(dd),
        }
    }

    /// Counts in the five-bin form `[LL, LD, WL+DD, WD, WW]`, WL and DD not told apart
    /// (so the draw ratio is unknown).
    pub fn from_counts(counts: [u64; 5]) -> Penta {
        Penta { counts, dd: None }
    }

    /// A's mean score per game in `[0, 1]` (a pair scores 0, ¼, ½, ¾ or 1); `None`
    /// before the first pair.
    pub fn score(&self) -> Option<f64> {
        let pairs = self.pairs();
        (pairs > 0).then(|| {
            let quarters: u64 = (0..5).map(|i| i as u64 * self.counts[i]).sum();
            quarters as f64 / (4 * pairs) as f64
        })
    }

    /// Number of pairs (saturating at `u64::MAX`, far beyond any real match).
    pub fn pairs(&self) -> u64 {
        self.counts
            .iter()
            .fold(0, |total, &c| total.saturating_add(c))
    }

    /// Number of games: two per pair (saturating).
    pub fn games(&self) -> u64 {
        self.pairs().saturating_mul(2)
    }

    /// Counts one more pair from A's results in its two games (either order).
    pub fn add_pair(&mut self, first: GameScore, second: GameScore) {
        let bin = usize::from(first.half_points() + second.half_points());
        self.counts[bin] += 1;
        if first == GameScore::Draw
            && second == GameScore::Draw
            && let Some(dd) = &mut self.dd
        {
            *dd += 1;
        }
    }

    /// Adds the pairs of `other` (from the same player's view), saturating. The DD count
    /// stays known only if it is known in both.
    pub fn add(&mut self, other: Penta) {
        for (c, o) in self.counts.iter_mut().zip(other.counts) {
            *c = c.saturating_add(o);
        }
        self.dd = match (self.dd, other.dd) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            _ => None,
        };
    }

    /// The same pairs from the opponent's point of view.
    pub fn reversed(&self) -> Penta {
        let mut counts = self.counts;
        counts.reverse();
        Penta {
            counts,
            dd: self.dd,
        }
    }

    /// Pairs that split 1-1, a win and a loss (each engine won one game: the same side
    /// won both), when WL and DD are told apart: they say nothing about which player is
    /// better.
    pub fn split_pairs(&self) -> Option<u64> {
        Some(self.counts[2] - self.dd?.min(self.counts[2]))
    }

    /// The game results inside the pairs, when WL and DD are told apart.
    pub fn wdl(&self) -> Option<Wdl> {
        let [ll, ld, mid, wd, ww] = self.counts;
        let dd = self.dd?.min(mid);
        let wl = mid - dd;
        // Saturating: absurd counts must not panic.
        let sum = |parts: [u64; 4]| parts.iter().fold(0u64, |t, &x| t.saturating_add(x));
        Some(Wdl {
            wins: sum([ww, ww, wd, wl]),
            draws: sum([ld, wd, dd, dd]),
            losses: sum([ll, ll, ld, wl]),
        })
    }

    /// Score, Elo, nElo, their 95 % intervals and LOS on the pentanomial model (every
    /// pair an independent sample); `None` before the first pair.
    ///
    /// The draw ratio is the fraction of draws among the games (a DD pair holds two
    /// draws, LD and WD pairs one), and NaN when the DD count is unknown.
    pub fn estimate(&self) -> Option<EloEstimate> {
        let n = self.pairs();
        if n == 0 {
            return None;
        }
        let [ll, ld, _, wd, ww] = self.counts;
        let draw_ratio = self
            .wdl()
            .map_or(f64::NAN, |wdl| wdl.draws as f64 / (2.0 * n as f64));
        // Wins and losses outside the middle bin (a WL pair adds one of each).
        let decisive = (
            ww.saturating_mul(2).saturating_add(wd),
            ll.saturating_mul(2).saturating_add(ld),
        );
        Some(estimate_from(Sample {
            counts: &self.counts,
            scores: &PAIR_SCORES,
            units_per_game: 0.5,
            decisive,
            draw_ratio,
            games: self.games(),
            pentanomial: true,
        }))
    }
}

impl fmt::Display for Penta {
    /// `LL,LD,WL,DD,WD,WW` when DD is known, else `LL,LD,WL+DD,WD,WW`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [ll, ld, mid, wd, ww] = self.counts;
        match self.dd {
            Some(dd) => {
                let dd = dd.min(mid);
                write!(f, "{ll},{ld},{},{dd},{wd},{ww}", mid - dd)
            }
            None => write!(f, "{ll},{ld},{mid},{wd},{ww}"),
        }
    }
}

/// Everything a standings table prints for one pairing.
///
/// The figures are fishtest's (`stat_util.get_elo` and its results page): outcomes never
/// seen are counted as 0.001 (fishtest's `regularize`) before the mean, variance, interval
/// and LOS are computed, which changes nothing measurable when every outcome occurred and
/// keeps the interval from collapsing to zero width when only one did. Two cases fishtest
/// never meets are handled apart, and [`EloEstimate::caveats`] says so: a 100 % or 0 %
/// score has an infinite Elo, and the interval's finite end is the exact one-sided
/// binomial (Clopper–Pearson) bound; when every game (or pair) scored the same, LOS comes
/// from the decisive games with a flat prior.
///
/// `elo` and `nelo` are `±∞` for a 100 % / 0 % score, interval ends are `±∞` when the
/// interval reaches a score of 0 or 1. JSON has no infinities: every non-finite number is
/// written as `null`, and read back as the infinity it stood for (`elo`/`nelo` with the
/// sign of `score - ½`, `elo_low` as `-∞`, `elo_high` and errors as `+∞`, `draw_ratio` as
/// NaN), so serialisation never fails and never writes invalid JSON.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "EloEstimateJson")]
pub struct EloEstimate {
    /// A's score, points per game in `[0, 1]`.
    #[serde(serialize_with = "finite_or_null")]
    pub score: f64,
    /// Elo difference A minus B from the score on the logistic curve.
    #[serde(serialize_with = "finite_or_null")]
    pub elo: f64,
    /// Lower end of the 95 % interval of `elo` (the logistic image of the score's normal
    /// interval, so not symmetric about `elo`).
    #[serde(serialize_with = "finite_or_null")]
    pub elo_low: f64,
    /// Upper end of the 95 % interval of `elo`.
    #[serde(serialize_with = "finite_or_null")]
    pub elo_high: f64,
    /// Half the width of the 95 % interval, `(elo_high - elo_low) / 2` (`+∞` when an end
    /// is infinite): fishtest's and fastchess' "±" figure.
    #[serde(serialize_with = "finite_or_null")]
    pub elo_error: f64,
    /// Normalized Elo: `(s - ½)/σ · 800/ln 10`, with σ the standard deviation of a game
    /// (for pairs: of a pair, times √2).
    #[serde(serialize_with = "finite_or_null")]
    pub nelo: f64,
    /// Half-width of the 95 % interval of `nelo`, symmetric (the delta method on the
    /// t-value, σ estimated: fishtest's `t_conf`).
    #[serde(serialize_with = "finite_or_null")]
    pub nelo_error: f64,
    /// Likelihood of superiority, in `[0, 1]`: the normal-approximation probability that
    /// A is the stronger (from the decisive games when every unit scored the same).
    #[serde(serialize_with = "finite_or_null")]
    pub los: f64,
    /// Fraction of games drawn, in `[0, 1]` (NaN when unknown, see [`Penta`]).
    #[serde(serialize_with = "finite_or_null")]
    pub draw_ratio: f64,
    /// Number of games (for pairs, twice the number of pairs).
    pub games: u64,
    /// Whether the statistics come from game pairs (pentanomial) rather than games.
    pub pentanomial: bool,
    /// Every game (every pair) had the same result: the observed variance is zero, and
    /// the interval rests on the 0.001 stand-ins for the results never seen.
    pub uniform: bool,
    /// Fewer than [`MIN_INTERVAL_UNITS`] games (pairs) with a score strictly between 0 %
    /// and 100 %: too few to estimate the variance, so there is no interval (`elo_low`
    /// is `-∞`, `elo_high`, `elo_error` and `nelo_error` are `+∞`), nElo is unknown
    /// (NaN; 0 for an even score) and LOS comes from the decisive games with a flat
    /// prior.
    #[serde(default)]
    pub too_few: bool,
}

/// Sampling units (games on the trinomial model, pairs on the pentanomial one) below
/// which a score strictly between 0 % and 100 % gets no interval: the normal interval
/// rests on the variance estimated from the sample, and from one to four units that
/// estimate is noise (often 0: one pair, or 1-1 in two games, leaves fishtest's 0.001
/// stand-ins alone, an interval of a few Elo). A 100 % or 0 % score keeps its exact
/// one-sided bound, which holds for any number of units.
pub const MIN_INTERVAL_UNITS: u64 = 5;

/// A score in points per game with its 95 % interval (the ends of the Elo interval
/// mapped back to scores, so the two always agree).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreInterval {
    /// Points per game.
    pub score: f64,
    /// Lower end of the 95 % interval (0 when the interval reaches a 0 % score).
    pub low: f64,
    /// Upper end (1 when it reaches 100 %).
    pub high: f64,
    /// Games (or pairs) it is over.
    pub games: u64,
}

impl ScoreInterval {
    /// `56.0 % [49.1, 62.9]` (`unit` between the number and the bracket: `" %"` in
    /// reports, `"%"` on the console); for summaries written before they had the
    /// interval, the bare score `bare`; `-` for neither.
    pub fn text(interval: Option<&ScoreInterval>, bare: Option<f64>, unit: &str) -> String {
        match (interval, bare) {
            (Some(i), _) => format!(
                "{:.1}{unit} [{:.1}, {:.1}]",
                100.0 * i.score,
                100.0 * i.low,
                100.0 * i.high
            ),
            (None, Some(v)) => format!("{:.1}{unit}", 100.0 * v),
            (None, None) => "-".into(),
        }
    }
}

impl EloEstimate {
    /// The score with its 95 % interval, in points per game.
    pub fn score_interval(&self) -> ScoreInterval {
        ScoreInterval {
            score: self.score,
            low: score_from_elo(self.elo_low),
            high: score_from_elo(self.elo_high),
            games: self.games,
        }
    }
}

impl EloEstimate {
    /// Whether the interval is infinite at one end (a 100 % or 0 % score, or an interval
    /// that reaches one).
    pub fn unbounded(&self) -> bool {
        !(self.elo_low.is_finite() && self.elo_high.is_finite())
    }

    /// What a reader must know before trusting these figures, one sentence each (empty
    /// for an ordinary sample): an infinite Elo, an interval without an end, an interval
    /// that only the regularization keeps from zero width.
    pub fn caveats(&self) -> Vec<String> {
        let unit = if self.pentanomial { "pair" } else { "game" };
        let units = self.units();
        let mut notes = Vec::new();
        if self.score >= 1.0 || self.score <= 0.0 {
            let (percent, won, sign, end) = if self.score >= 1.0 {
                ("100", "won", "+", "lower")
            } else {
                ("0", "lost", "-", "upper")
            };
            notes.push(format!(
                "a {percent} % score ({won} every {unit} of {units}): the Elo is {sign}inf, \
                 the interval is unbounded on one side and its {end} end is the exact \
                 one-sided binomial bound (Clopper-Pearson, 97.5 %); LOS is from the \
                 decisive games with a flat prior"
            ));
        } else if self.too_few {
            notes.push(format!(
                "{units} {unit}{} too few for an interval (at least {MIN_INTERVAL_UNITS} \
                 {unit}s are needed to estimate the variance): Elo and nElo have no \
                 95 % interval (written as unbounded), nElo is unknown unless the score \
                 is even, LOS is from the decisive games with a flat prior",
                if units == 1 { " is" } else { "s are" }
            ));
        } else if self.uniform {
            notes.push(format!(
                "every {unit} of {units} scored the same, so the observed variance is 0: \
                 the interval is fishtest's (each result never seen counted as 0.001 \
                 {unit}s) and far narrower than {units} {unit}s justify; LOS is from the \
                 decisive games with a flat prior"
            ));
        } else if self.unbounded() {
            notes.push(format!(
                "the 95 % interval reaches a score of {}: it has no {} end",
                if self.elo_high.is_infinite() {
                    "100 %"
                } else {
                    "0 %"
                },
                if self.elo_high.is_infinite() {
                    "upper"
                } else {
                    "lower"
                }
            ));
        }
        notes
    }

    /// Sampling units: games, or pairs.
    fn units(&self) -> u64 {
        if self.pentanomial {
            self.games / 2
        } else {
            self.games
        }
    }
}

/// Writes finite floats as numbers and non-finite ones as `null`.
fn finite_or_null<S: Serializer>(x: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if x.is_finite() {
        serializer.serialize_f64(*x)
    } else {
        serializer.serialize_none()
    }
}

/// The JSON shape of [`EloEstimate`]: `null` for a non-finite number. `elo_low` and
/// `elo_high` are missing from files written before they existed (then the interval is
/// read as `elo ± elo_error`).
#[derive(Deserialize)]
struct EloEstimateJson {
    score: Option<f64>,
    elo: Option<f64>,
    #[serde(default)]
    elo_low: Option<serde_json::Value>,
    #[serde(default)]
    elo_high: Option<serde_json::Value>,
    elo_error: Option<f64>,
    nelo: Option<f64>,
    nelo_error: Option<f64>,
    los: Option<f64>,
    draw_ratio: Option<f64>,
    games: u64,
    pentanomial: bool,
    #[serde(default)]
    uniform: bool,
    #[serde(default)]
    too_few: bool,
}

impl From<EloEstimateJson> for EloEstimate {
    fn from(j: EloEstimateJson) -> EloEstimate {
        let score = j.score.unwrap_or(f64::NAN);
        // A null Elo is the infinity of a 100 % or 0 % score (NaN if the score is ½ or
        // unknown, which no estimate produces).
        let infinite = if score > 0.5 {
            f64::INFINITY
        } else if score < 0.5 {
            f64::NEG_INFINITY
        } else {
            f64::NAN
        };
        let elo = j.elo.unwrap_or(infinite);
        // Too few units: a null nElo is unknown, not infinite.
        let nelo = j
            .nelo
            .unwrap_or(if j.too_few { f64::NAN } else { infinite });
        let elo_error = j.elo_error.unwrap_or(f64::INFINITY);
        let end = |v: Option<serde_json::Value>, infinity: f64, old: f64| match v {
            None => old,
            Some(serde_json::Value::Number(n)) => n.as_f64().unwrap_or(infinity),
            Some(_) => infinity,
        };
        EloEstimate {
            score,
            elo,
            elo_low: end(j.elo_low, f64::NEG_INFINITY, elo - elo_error),
            elo_high: end(j.elo_high, f64::INFINITY, elo + elo_error),
            elo_error,
            nelo,
            nelo_error: j.nelo_error.unwrap_or(f64::INFINITY),
            los: j.los.unwrap_or(f64::NAN),
            draw_ratio: j.draw_ratio.unwrap_or(f64::NAN),
            games: j.games,
            pentanomial: j.pentanomial,
            uniform: j.uniform,
            too_few: j.too_few,
        }
    }
}

/// What an outcome never seen is counted as (fishtest's `regularize`).
pub(crate) const EMPTY_COUNT: f64 = 1e-3;

/// Counts with every empty one replaced by [`EMPTY_COUNT`], as fishtest does.
pub(crate) fn regularized(counts: &[u64]) -> Vec<f64> {
    counts
        .iter()
        .map(|&c| if c == 0 { EMPTY_COUNT } else { c as f64 })
        .collect()
}

/// The moments of a discrete distribution of scores: mean, variance, skewness and excess
/// kurtosis (fishtest's `stats_ex`).
pub(crate) fn moments(p: &[f64], scores: &[f64]) -> (f64, f64, f64, f64) {
    let mean: f64 = p.iter().zip(scores).map(|(p, a)| p * a).sum();
    let central = |k: i32| -> f64 {
        p.iter()
            .zip(scores)
            .map(|(p, a)| p * (a - mean).powi(k))
            .sum()
    };
    let var = central(2);
    let (skew, exkurt) = if var > 0.0 {
        (central(3) / var.powf(1.5), central(4) / (var * var) - 3.0)
    } else {
        (0.0, -2.0)
    };
    (mean, var, skew, exkurt)
}

/// A trinomial or pentanomial sample: counts per outcome, lowest score first.
struct Sample<'a> {
    /// Units per outcome (`[L, D, W]` or `[LL, LD, WL+DD, WD, WW]`).
    counts: &'a [u64],
    /// Each outcome's score in `[0, 1]`.
    scores: &'a [f64],
    /// Sampling units per game: 1 for games, ½ for pairs (nElo is per game).
    units_per_game: f64,
    /// Wins minus losses in the games, when the outcomes say (for the flat-prior LOS).
    decisive: (u64, u64),
    draw_ratio: f64,
    games: u64,
    pentanomial: bool,
}

fn estimate_from(x: Sample<'_>) -> EloEstimate {
    let n: u64 = x.counts.iter().sum();
    let s = x
        .counts
        .iter()
        .zip(x.scores)
        .map(|(&c, a)| c as f64 * a)
        .sum::<f64>()
        / n as f64;
    let uniform = x.counts.iter().filter(|&&c| c > 0).count() == 1;
    let extreme = s >= 1.0 || s <= 0.0;
    let too_few = !extreme && n < MIN_INTERVAL_UNITS;
    let r = regularized(x.counts);
    let total: f64 = r.iter().sum();
    let p: Vec<f64> = r.iter().map(|c| c / total).collect();
    let (mu, var, skew, exkurt) = moments(&p, x.scores);
    let standard_error = (var / total).sqrt();
    let elo = elo_from_score(s);
    let at = |score: f64| {
        if score >= 1.0 {
            f64::INFINITY
        } else if score <= 0.0 {
            f64::NEG_INFINITY
        } else {
            elo_from_score(score)
        }
    };
    let (elo_low, elo_high) = if too_few {
        (f64::NEG_INFINITY, f64::INFINITY)
    } else if extreme {
        // Every unit at the top (or bottom): the normal interval means nothing here. The
        // exact bound: below this chance per unit, n straight maxima are under 2.5 %.
        let bound = 0.025f64.powf(1.0 / n as f64);
        if s >= 1.0 {
            (at(bound), f64::INFINITY)
        } else {
            (f64::NEG_INFINITY, at(1.0 - bound))
        }
    } else {
        (at(mu - Z95 * standard_error), at(mu + Z95 * standard_error))
    };
    let elo_error = (elo_high - elo_low) / 2.0;
    // nElo per game: the t-value per unit, scaled to a game (√½ for pairs).
    let per_game = x.units_per_game.sqrt() * NELO_PER_T;
    let (nelo, nelo_error) = if extreme {
        (elo, f64::INFINITY)
    } else if too_few {
        // σ is as unknown as the interval; an even score's nElo is 0 whatever σ is.
        (if s == 0.5 { 0.0 } else { f64::NAN }, f64::INFINITY)
    } else {
        let t = (mu - 0.5) / var.sqrt();
        // fishtest's t_conf: the variance of the t-value when σ is estimated too.
        let var_t = (1.0 - t * skew + 0.25 * t * t * (exkurt + 2.0)).max(0.0);
        // An even score is exactly 0, not the rounding error of the regularized mean.
        let nelo = if s == 0.5 { 0.0 } else { t * per_game };
        (nelo, per_game * Z95 * (var_t / total).sqrt())
    };
    // A 100 % or 0 % score is uniform too.
    let los = if uniform || too_few {
        flat_prior_los(x.decisive.0, x.decisive.1)
    } else {
        normal_cdf((mu - 0.5) / standard_error)
    };
    EloEstimate {
        score: s,
        elo,
        elo_low,
        elo_high,
        elo_error,
        nelo,
        nelo_error,
        los,
        draw_ratio: x.draw_ratio,
        games: x.games,
        pentanomial: x.pentanomial,
        uniform,
        too_few,
    }
}

/// The probability that A wins a decisive game more often than B, with a flat prior on
/// that chance, after `wins` and `losses`: `P(Beta(W+1, L+1) > ½)`, which is
/// `1 - 2^-(W+1)` without losses.
fn flat_prior_los(wins: u64, losses: u64) -> f64 {
    if wins == losses {
        return 0.5;
    }
    1.0 - statrs::function::beta::beta_reg(wins as f64 + 1.0, losses as f64 + 1.0, 0.5)
}

/// Φ(x), the standard normal distribution function.
pub(crate) fn normal_cdf(x: f64) -> f64 {
    0.5 * statrs::function::erf::erfc(-x / std::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests;
