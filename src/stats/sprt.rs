//! The sequential probability ratio test (SPRT) that stops a match as soon as the results
//! tell H0 (`elo = elo0`) from H1 (`elo = elo1`) at error rates α and β.
//!
//! This is the generalized SPRT of fishtest and fastchess (Michel Van den Bergh, "Comments
//! on normalized Elo"): the results are a sample from an unknown distribution over the
//! outcomes (game scores 0, ½, 1 or pair scores 0, ¼, ½, ¾, 1); under each hypothesis the
//! distribution is the maximum-likelihood one whose mean (logistic model) or t-value
//! (normalized model) the hypothesis fixes, and the LLR compares the two. Empty outcome
//! counts are replaced by 10⁻³, as fishtest and fastchess do.
//!
//! This module owns only numbers: it must not know about engines, games or tournaments.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::elo::{Penta, Wdl, normal_cdf, regularized, score_from_elo};

/// Normalized Elo per unit of t-value: 800 / ln 10.
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// The two hypotheses and error rates of an SPRT. In a config (`[sprt]`) only `elo0` and
/// `elo1` are needed: `alpha` and `beta` default to [`DEFAULT_ERROR_RATE`] and `model` to
/// logistic, as `arena elo --sprt ELO0,ELO1` and fishtest have them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SprtConfig {
    /// Elo difference under H0 (the change is no better than this).
    pub elo0: f64,
    /// Elo difference under H1 (the change is at least this much better).
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds (false positive rate).
    #[serde(default = "default_error_rate")]
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds (false negative rate).
    #[serde(default = "default_error_rate")]
    pub beta: f64,
    /// How `elo0` and `elo1` are measured.
    #[serde(default = "default_model")]
    pub model: SprtModel,
}

/// α and β when a test does not give them: fishtest's 0.05.
pub const DEFAULT_ERROR_RATE: f64 = 0.05;

fn default_error_rate() -> f64 {
    DEFAULT_ERROR_RATE
}

fn default_model() -> SprtModel {
    SprtModel::Logistic
}

/// How the hypotheses' Elo values are measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtModel {
    /// Logistic Elo: a hypothesis fixes the expected score `1/(1 + 10^(-elo/400))`.
    Logistic,
    /// Normalized Elo: a hypothesis fixes the t-value `(score - ½)/σ = elo/(800/ln 10)`
    /// (σ per game; per pair the t-value is √2 larger). Independent of the draw ratio.
    Normalized,
    /// BayesElo (fastchess's `model=bayesian`): a hypothesis fixes the Elo difference of
    /// Rémi Coulom's BayesElo model, whose draw Elo is estimated from the games' wins and
    /// losses. The test runs on games (trinomial), also when the results are pairs.
    Bayesian,
}

impl fmt::Display for SprtModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtModel::Logistic => "logistic",
            SprtModel::Normalized => "normalized",
            SprtModel::Bayesian => "bayesian",
        })
    }
}

/// What an SPRT says after the results so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtDecision {
    /// The LLR reached the lower bound: accept H0 (`elo = elo0`), stop.
    AcceptH0,
    /// The LLR reached the upper bound: accept H1 (`elo = elo1`), stop.
    AcceptH1,
    /// Neither bound reached: play on.
    Continue,
}

impl fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
            SprtDecision::Continue => "continue",
        })
    }
}

impl SprtDecision {
    /// Where the LLR stands against the bounds and what that means, for a reader:
    /// `LLR 3.04 crossed the upper bound 2.94: H1 accepted`.
    pub fn describe(self, llr: f64, (lower, upper): (f64, f64)) -> String {
        match self {
            SprtDecision::AcceptH1 => {
                format!("LLR {llr:.2} reached the upper bound {upper:.2}: H1 accepted")
            }
            SprtDecision::AcceptH0 => {
                format!("LLR {llr:.2} reached the lower bound {lower:.2}: H0 accepted")
            }
            SprtDecision::Continue => format!(
                "LLR {llr:.2}, between the bounds {lower:.2} and {upper:.2}: no decision yet"
            ),
        }
    }
}

impl SprtConfig {
    /// Checks that α and β are in (0, 0.5) and that `elo0 < elo1` are finite.
    pub fn validate(&self) -> Result<(), String> {
        for (name, p) in [("alpha", self.alpha), ("beta", self.beta)] {
            // Written so that NaN fails too.
            if !(p > 0.0 && p < 0.5) {
                return Err(format!("{name} must be in (0, 0.5), got {p}"));
            }
        }
        if !(self.elo0.is_finite() && self.elo1.is_finite()) {
            return Err(format!(
                "elo0 and elo1 must be finite numbers, got {} and {}",
                self.elo0, self.elo1
            ));
        }
        if self.elo0 >= self.elo1 {
            return Err(format!(
                "elo0 must be less than elo1, got {} and {}",
                self.elo0, self.elo1
            ));
        }
        Ok(())
    }

    /// The stopping bounds `(ln(β/(1-α)), ln((1-β)/α))`: accept H0 at or below the first,
    /// H1 at or above the second.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// Log-likelihood ratio of H1 against H0 for game results (trinomial).
    ///
    /// NaN when the normalized model cannot fit a hypothesis to these results (an
    /// extreme `elo0`/`elo1`); [`decide`](SprtConfig::decide) then says continue.
    pub fn llr_wdl(&self, wdl: &Wdl) -> f64 {
        if self.model == SprtModel::Bayesian && (wdl.wins == 0 || wdl.losses == 0) {
            // No draw Elo without a win and a loss: fastchess counts that as no evidence.
            return 0.0;
        }
        let counts = regularized(&[wdl.losses, wdl.draws, wdl.wins]);
        self.llr(&counts, &[0.0, 0.5, 1.0], 1.0)
    }

    /// Log-likelihood ratio of H1 against H0 for colour-swapped game pairs
    /// (pentanomial; only the five bins matter). The BayesElo model has no pentanomial
    /// form: it runs on the games inside the pairs, as fastchess does.
    ///
    /// NaN when the normalized model cannot fit a hypothesis to these results (an
    /// extreme `elo0`/`elo1`), or for the BayesElo model when the pairs' WL and DD are
    /// not told apart; [`decide`](SprtConfig::decide) then says continue.
    pub fn llr_penta(&self, p: &Penta) -> f64 {
        if self.model == SprtModel::Bayesian {
            return p.wdl().map_or(f64::NAN, |wdl| self.llr_wdl(&wdl));
        }
        let counts = regularized(&p.counts);
        self.llr(
            &counts,
            &[0.0, 0.25, 0.5, 0.75, 1.0],
            std::f64::consts::SQRT_2,
        )
    }

    /// How many more game pairs the test is expected to need before its LLR leaves the
    /// bounds, if the pairs go on as they went (the observed score and spread): Wald's
    /// approximation, the LLR a Brownian motion from its value now with the drift and
    /// variance per pair of fishtest's `LLR_drift_variance` at the observed score. 0 once
    /// decided; `None` before the first pair, or when the LLR is not a number.
    pub fn expected_pairs_left(&self, p: &Penta) -> Option<f64> {
        if p.pairs() == 0 {
            return None;
        }
        let (a, b) = self.bounds();
        let x = self.llr_penta(p);
        if x.is_nan() {
            return None;
        }
        if x <= a || x >= b {
            return Some(0.0);
        }
        let r = regularized(&p.counts);
        let total: f64 = r.iter().sum();
        let scores = [0.0, 0.25, 0.5, 0.75, 1.0];
        let mean: f64 = r.iter().zip(&scores).map(|(c, a)| c / total * a).sum();
        let var: f64 = r
            .iter()
            .zip(&scores)
            .map(|(c, a)| c / total * (a - mean).powi(2))
            .sum();
        if var.is_nan() || var <= 0.0 {
            return None;
        }
        let to_score = |elo: f64| match self.model {
            SprtModel::Logistic => score_from_elo(elo),
            // σ per game is √2 that of a pair's mean score.
            SprtModel::Normalized => elo / NELO_PER_T * (2.0 * var).sqrt() + 0.5,
            // The games inside the pairs: losses and wins per game, a pair of one win
            // and one loss counted as half a win and half a loss (an estimate for the
            // expected length only; WL and DD are not told apart here).
            SprtModel::Bayesian => {
                let loss = (2.0 * r[0] + r[1] + 0.5 * r[2]) / (2.0 * total);
                let win = (2.0 * r[4] + r[3] + 0.5 * r[2]) / (2.0 * total);
                bayeselo_score(elo, draw_elo(loss, win))
            }
        };
        let (s0, s1) = (to_score(self.elo0), to_score(self.elo1));
        let mu = (mean - (s0 + s1) / 2.0) * (s1 - s0) / var;
        let sigma2 = (s1 - s0).powi(2) / var;
        Some(brownian_exit_time(mu, sigma2, a, b, x))
    }

    /// What to do at this LLR. A NaN LLR never stops the test.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        let (lower, upper) = self.bounds();
        if llr <= lower {
            SprtDecision::AcceptH0
        } else if llr >= upper {
            SprtDecision::AcceptH1
        } else {
            SprtDecision::Continue
        }
    }

    /// `t_scale` converts a per-game t-value to the sampling unit's (√2 for pairs).
    fn llr(&self, counts: &[f64], scores: &[f64], t_scale: f64) -> f64 {
        let total: f64 = counts.iter().sum();
        let observed: Vec<f64> = counts.iter().map(|c| c / total).collect();
        // Only trinomial counts reach here under the BayesElo model (see `llr_penta`).
        let draw_elo = draw_elo(observed[0], observed[observed.len() - 1]);
        let fit = |elo: f64| match self.model {
            SprtModel::Logistic => mle_with_mean(&observed, scores, score_from_elo(elo)),
            SprtModel::Normalized => {
                mle_with_t_value(&observed, scores, 0.5, t_scale * elo / NELO_PER_T)
            }
            SprtModel::Bayesian => mle_with_mean(&observed, scores, bayeselo_score(elo, draw_elo)),
        };
        let (Some(p0), Some(p1)) = (fit(self.elo0), fit(self.elo1)) else {
            return f64::NAN;
        };
        let mean_log_ratio: f64 = observed
            .iter()
            .zip(p0.iter().zip(&p1))
            .map(|(o, (p0, p1))| o * (p1.ln() - p0.ln()))
            .sum();
        total * mean_log_ratio
    }
}

/// The draw Elo of the BayesElo model whose loss and win probabilities at equal strength
/// give these: `200·log10((1-L)/L · (1-W)/W)` (fastchess's estimate from the results).
pub(crate) fn draw_elo(loss: f64, win: f64) -> f64 {
    200.0 * ((1.0 - loss) / loss * (1.0 - win) / win).log10()
}

/// A's expected score in the BayesElo model at a BayesElo difference `elo` and draw Elo
/// `draw_elo`: `P(win) + P(draw)/2`, with `P(win) = 1/(1 + 10^((draw_elo - elo)/400))`
/// and `P(loss) = 1/(1 + 10^((draw_elo + elo)/400))`.
pub(crate) fn bayeselo_score(elo: f64, draw_elo: f64) -> f64 {
    let win = 1.0 / (1.0 + 10f64.powf((draw_elo - elo) / 400.0));
    let loss = 1.0 / (1.0 + 10f64.powf((draw_elo + elo) / 400.0));
    win + 0.5 * (1.0 - win - loss)
}

/// The distribution `p` that maximizes `Σ observed_i · ln p_i` subject to
/// `Σ p_i · x_i = 0` (Van den Bergh, proposition 1.1): `p_i = observed_i / (1 + θ x_i)`
/// with θ the root of `Σ observed_i x_i / (1 + θ x_i) = 0`. `None` when every `x_i` has
/// the same sign (no such distribution); every `observed_i` must be positive.
fn mle_with_zero_mean(observed: &[f64], x: &[f64]) -> Option<Vec<f64>> {
    let min = x.iter().copied().fold(f64::INFINITY, f64::min);
    let max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(min < 0.0 && max > 0.0) {
        return None;
    }
    // All p_i stay positive for θ in (-1/max, -1/min), where the function falls strictly
    // from +∞ to -∞: bisection cannot miss the root.
    let f = |theta: f64| -> f64 {
        observed
            .iter()
            .zip(x)
            .map(|(o, x)| o * x / (1.0 + theta * x))
            .sum()
    };
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    // Near an end of the interval some 1 + θx_i is small, so θ must be exact to the
    // precision of the interval's ends, not to that of θ itself: about 55 halvings.
    let tolerance = 4.0 * f64::EPSILON * lo.abs().max(hi.abs());
    while hi - lo > tolerance {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let theta = 0.5 * (lo + hi);
    Some(
        observed
            .iter()
            .zip(x)
            .map(|(o, x)| o / (1.0 + theta * x))
            .collect(),
    )
}

/// The maximum-likelihood distribution over `scores` with mean `mean`.
fn mle_with_mean(observed: &[f64], scores: &[f64], mean: f64) -> Option<Vec<f64>> {
    let x: Vec<f64> = scores.iter().map(|a| a - mean).collect();
    mle_with_zero_mean(observed, &x)
}

/// Most fixed-point iterations of [`mle_with_t_value`]; fishtest stops after 10, and in
/// practice a handful reach 10⁻¹² when the hypothesis fits at all.
const MAX_T_ITERATIONS: usize = 1000;

/// The maximum-likelihood distribution over `scores` with t-value
/// `(mean - reference)/σ = t` (Van den Bergh, section 4.1): a fixed-point iteration from
/// the uniform distribution, each step solving the zero-mean problem for
/// `φ_i = a_i - reference - t·σ·(1 + ((a_i - μ)/σ)²)/2` with μ, σ of the previous step.
fn mle_with_t_value(observed: &[f64], scores: &[f64], reference: f64, t: f64) -> Option<Vec<f64>> {
    let n = scores.len();
    let mut p = vec![1.0 / n as f64; n];
    for _ in 0..MAX_T_ITERATIONS {
        let mu: f64 = p.iter().zip(scores).map(|(p, a)| p * a).sum();
        let var: f64 = p
            .iter()
            .zip(scores)
            .map(|(p, a)| p * (a - mu).powi(2))
            .sum();
        let sigma = var.sqrt();
        let phi: Vec<f64> = scores
            .iter()
            .map(|a| a - reference - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma).powi(2)))
            .collect();
        let next = mle_with_zero_mean(observed, &phi)?;
        let change = next
            .iter()
            .zip(&p)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        p = next;
        if change < 1e-12 {
            break;
        }
    }
    Some(p)
}

/// fishtest's estimate of the Elo after an SPRT (`sprt.analytics`): the plain Elo of a
/// test that stopped when its LLR crossed a bound is biased towards the bound it crossed
/// (a test stops early when luck ran its way), so the estimate is the Elo at which the
/// observed outcome (stop at this LLR after this many units, or not yet) is the median
/// outcome, with the LLR moving as a Brownian motion between the bounds; its 95 %
/// interval and LOS are read off the same outcome distribution.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtEstimate {
    /// The median-unbiased Elo (logistic, whatever the test's model).
    pub elo: f64,
    /// Lower end of its 95 % interval.
    pub low: f64,
    /// Upper end of its 95 % interval.
    pub high: f64,
    /// Likelihood of superiority under the same model.
    pub los: f64,
    /// The LLR went more than 3 % past a bound (batched or resumed results): the
    /// estimate then assumes the test stopped at the bound.
    pub clamped: bool,
}

impl SprtConfig {
    /// The SPRT-debiased Elo of game results (trinomial).
    pub fn debiased_wdl(&self, wdl: &Wdl) -> Option<SprtEstimate> {
        self.debiased(&[wdl.losses, wdl.draws, wdl.wins])
    }

    /// The SPRT-debiased Elo of game pairs (pentanomial; under the BayesElo model, of the
    /// games inside them, `None` when their WL and DD are not told apart).
    pub fn debiased_penta(&self, p: &Penta) -> Option<SprtEstimate> {
        if self.model == SprtModel::Bayesian {
            return self.debiased_wdl(&p.wdl()?);
        }
        self.debiased(&p.counts)
    }

    /// fishtest's `sprt.set_state` and `analytics(0.05)`; `None` before the first result.
    fn debiased(&self, counts: &[u64]) -> Option<SprtEstimate> {
        if counts.iter().all(|&c| c == 0) {
            return None;
        }
        let r = regularized(counts);
        let total: f64 = r.iter().sum();
        let scores: Vec<f64> = (0..r.len())
            .map(|i| i as f64 / (r.len() - 1) as f64)
            .collect();
        let p: Vec<f64> = r.iter().map(|c| c / total).collect();
        let mean: f64 = p.iter().zip(&scores).map(|(p, a)| p * a).sum();
        let var: f64 = p
            .iter()
            .zip(&scores)
            .map(|(p, a)| p * (a - mean).powi(2))
            .sum();
        // σ per game: a pair's score is the mean of two games.
        let sigma_per_game = if r.len() == 5 {
            (2.0 * var).sqrt()
        } else {
            var.sqrt()
        };
        let to_score = |elo: f64| match self.model {
            SprtModel::Logistic => score_from_elo(elo),
            SprtModel::Normalized => elo / NELO_PER_T * sigma_per_game + 0.5,
            // Only trinomial counts reach here under the BayesElo model.
            SprtModel::Bayesian => bayeselo_score(elo, draw_elo(p[0], p[p.len() - 1])),
        };
        let (s0, s1) = (to_score(self.elo0), to_score(self.elo1));
        // The LLR's drift and variance per unit as a Brownian motion (fishtest's
        // `LLR_drift_variance_alt2`), when the true score is `s` (None: the observed one).
        // The variance stays the observed one whatever `s` is.
        let drift = |s: Option<f64>| {
            let s = s.unwrap_or(mean);
            (
                (s - (s0 + s1) / 2.0) * (s1 - s0) / var,
                (s1 - s0).powi(2) / var,
            )
        };
        let (a, b) = self.bounds();
        let mut llr = total * drift(None).0;
        let mut time = total;
        let slope = llr / total;
        let clamped = llr > 1.03 * b || llr < 1.03 * a;
        if llr < a {
            time = a / slope;
            llr = a;
        } else if llr > b {
            time = b / slope;
            llr = b;
        }
        let outcome = |elo: f64| {
            let (mu, v) = drift(Some(score_from_elo(elo)));
            Brownian {
                a,
                b,
                mu,
                sigma2: v,
            }
            .outcome_cdf(time, llr)
        };
        let quantile = |q: f64| self.lower_confidence_bound(&outcome, q);
        Some(SprtEstimate {
            elo: quantile(0.5),
            low: quantile(0.025),
            high: quantile(0.975),
            los: outcome(0.0),
            clamped,
        })
    }

    /// The largest Elo at which the observed outcome has probability less than `p`
    /// (fishtest's `lower_cb`): the root of `outcome(elo) = 1 - p`, searched in a window
    /// around the bounds that widens up to ±1000 Elo.
    fn lower_confidence_bound(&self, outcome: &dyn Fn(f64) -> f64, p: f64) -> f64 {
        let middle = (self.elo0 + self.elo1) / 2.0;
        let delta = self.elo1 - self.elo0;
        let f = |elo: f64| outcome(elo) - (1.0 - p);
        let mut widths = 30.0;
        loop {
            let lo = (middle - widths * delta).max(-1000.0);
            let hi = (middle + widths * delta).min(1000.0);
            let (f_lo, f_hi) = (f(lo), f(hi));
            if f_lo.is_nan() || f_hi.is_nan() {
                return f64::NAN;
            }
            if f_lo.signum() == f_hi.signum() && f_lo != 0.0 && f_hi != 0.0 {
                if lo > -1000.0 || hi < 1000.0 {
                    widths *= 2.0;
                    continue;
                }
                return if f_lo > 0.0 { hi } else { lo };
            }
            return bisect(&f, lo, hi, f_lo);
        }
    }
}

/// The expected time a Brownian motion with drift `mu` and variance `sigma2` per unit,
/// at `x` between absorbing bounds `a < x < b`, takes to reach one of them:
/// `(P_b (b − x) + (1 − P_b)(a − x)) / mu`, with `P_b` the chance of reaching `b` first,
/// or `(x − a)(b − x) / sigma2` without drift.
fn brownian_exit_time(mu: f64, sigma2: f64, a: f64, b: f64, x: f64) -> f64 {
    let g = 2.0 * mu / sigma2;
    if (g * (b - a)).abs() < 1e-9 {
        return (x - a) * (b - x) / sigma2;
    }
    // P_b = (1 − e^(−g(x−a))) / (1 − e^(−g(b−a))), written so that no exponential of a
    // large positive number is taken.
    let p_b = if g > 0.0 {
        (-(-g * (x - a)).exp_m1()) / (-(-g * (b - a)).exp_m1())
    } else {
        // Multiply through by e^(g(b−a)) (g < 0: these exponentials stay small).
        let num = (g * (b - a)).exp_m1() - (g * (b - x)).exp_m1();
        let den = (g * (b - a)).exp_m1();
        num / den
    };
    let p_b = p_b.clamp(0.0, 1.0);
    ((p_b * (b - x) + (1.0 - p_b) * (a - x)) / mu).max(0.0)
}

/// A root of `f` in `[lo, hi]`, where `f` changes sign (`f_lo = f(lo)`), to about 1e-9.
fn bisect(f: &dyn Fn(f64) -> f64, mut lo: f64, mut hi: f64, mut f_lo: f64) -> f64 {
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if hi - lo < 1e-9 || mid <= lo || mid >= hi {
            break;
        }
        let f_mid = f(mid);
        if f_mid == 0.0 {
            return mid;
        }
        if f_mid.signum() == f_lo.signum() {
            lo = mid;
            f_lo = f_mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// A Brownian motion with drift `mu` and variance `sigma2` per unit of time, started at
/// 0 between absorbing bounds `a < 0 < b` (fishtest's `brownian.Brownian`).
struct Brownian {
    a: f64,
    b: f64,
    mu: f64,
    sigma2: f64,
}

impl Brownian {
    /// The probability of an outcome "to the right" of stopping at `y` at time `t`: a
    /// later or upper exit when `y` is the upper bound, an upper exit or a higher
    /// position at `t` otherwise.
    fn outcome_cdf(&self, t: f64, y: f64) -> f64 {
        let gamma = self.mu / self.sigma2;
        let width = self.b - self.a;
        let value = if self.sigma2 * t / (width * width) < 1e-2 || (gamma * width).abs() > 15.0 {
            self.siegmund(t, y)
        } else {
            self.series(t, y)
        };
        value.clamp(0.0, 1.0)
    }

    /// The exact answer as a Fourier series (slow to converge for small times).
    fn series(&self, t: f64, y: f64) -> f64 {
        use std::f64::consts::PI;
        let (mu, sigma2) = (self.mu, self.sigma2);
        let width = self.b - self.a;
        let x = -self.a;
        let y = y - self.a;
        let gamma = mu / sigma2;
        let lambda = |n: f64| (n * PI / width).powi(2) * sigma2 / 2.0 + (mu * mu / sigma2) / 2.0;
        let lambda_1 = lambda(1.0);
        let t0 = (-lambda_1 * t - x * gamma + y * gamma).exp();
        let mut sum = 0.0;
        for n in 1..100_000 {
            let n = f64::from(n);
            let t1 = (-(lambda(n) - lambda_1) * t).exp();
            let t3 = primitive(n, gamma, width, y);
            let t4 = (n * PI * x / width).sin();
            sum += t1 * t3 * t4;
            if (t0 * t1 * t3).abs() <= 1e-9 {
                break;
            }
        }
        let pre = if gamma * width > 30.0 {
            (-2.0 * gamma * x).exp()
        } else if (gamma * width).abs() < 1e-8 {
            (width - x) / width
        } else {
            (1.0 - (2.0 * gamma * (width - x)).exp()) / (1.0 - (2.0 * gamma * width).exp())
        };
        pre + t0 * sum
    }

    /// Siegmund's approximation, with the asymptotic form of Φ far in the tails.
    fn siegmund(&self, t: f64, y: f64) -> f64 {
        let denominator = (t * self.sigma2).sqrt();
        let offset = self.mu * t;
        let gamma = self.mu / self.sigma2;
        let (a, b) = (self.a, self.b);
        let z = (y - offset) / denominator;
        let za = (-y + offset + 2.0 * a) / denominator;
        let zb = (y - offset - 2.0 * b) / denominator;
        let tail = |z: f64, g: f64| {
            if g >= 5.0 {
                -(-(z * z) / 2.0 + 2.0 * g).exp() / (2.0 * std::f64::consts::PI).sqrt()
                    * (1.0 / z - 1.0 / z.powi(3))
            } else {
                (2.0 * g).exp() * normal_cdf(z)
            }
        };
        normal_cdf(z) + tail(za, gamma * a) - tail(zb, gamma * b)
    }
}

/// A primitive of `e^(γy) sin(nπy/A)`, times `(2/A) e^(-γy)` (fishtest's `U`).
fn primitive(n: f64, gamma: f64, width: f64, y: f64) -> f64 {
    use std::f64::consts::PI;
    (2.0 * width * gamma * (PI * n * y / width).sin() - 2.0 * PI * n * (PI * n * y / width).cos())
        / (width * width * gamma * gamma + PI * PI * n * n)
}

#[cfg(test)]
mod tests;
