//! Planning an SPRT before it runs: the probability that it accepts H1 and the expected
//! number of games to a decision if the true Elo is a given value (what fishtest's
//! `sprt_calc` page charts).
//!
//! To first order in the score, the generalized SPRT's log-likelihood ratio grows per
//! game by `(s1 - s0)/σ² · (x - (s0 + s1)/2)`, where `x` is the game's score, `s0`, `s1`
//! the scores the two hypotheses fix and σ² the variance of a game's score that the test
//! estimates from the results. Over many games it moves like a Brownian motion with drift
//! `μ = (s - (s0 + s1)/2)(s1 - s0)/σ²` per game, when the true score is `s`, and variance
//! `v = (s1 - s0)² σ_true²/σ⁴` (σ_true² the variance the results really have per game:
//! smaller than σ² when colour-swapped pairs are correlated and the test ignores it).
//! Started at 0 between the bounds `a < 0 < b`, it leaves at `b` with probability
//! `P = (1 - e^(-γa)) / (e^(-γb) - e^(-γa))`, `γ = 2μ/v`, after `(P·b + (1 - P)·a)/μ`
//! games on average (Wald's identity). These are Wald's approximations: they ignore that
//! a real test overshoots its bound by part of one step, so a real test runs a little
//! longer than planned.
//!
//! What the plan needs to know about the results is their spread: a draw ratio and an
//! RMS opening bias (fishtest's inputs), or the results of an earlier match.
//!
//! This module owns only numbers: it must not know about engines, games or tournaments.

use super::{
    elo::{Penta, Wdl, score_from_elo},
    sprt::{SprtConfig, SprtModel, bayeselo_score, draw_elo},
};

/// Normalized Elo per unit of t-value: 800 / ln 10.
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// The draw ratio fishtest's `sprt_calc` assumes unless told.
pub const DEFAULT_DRAW_RATIO: f64 = 0.49;

/// The RMS opening bias (logistic Elo) fishtest's `sprt_calc` assumes unless told.
pub const DEFAULT_RMS_BIAS: f64 = 191.0;

/// How spread the results of the planned test are, per game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResultSpread {
    /// Variance of one game's score (trinomial): what a test on games estimates.
    pub game_variance: f64,
    /// Variance of one game's score counted through colour-swapped pairs (half the
    /// variance of a pair's summed score): what a test on pairs estimates. Smaller than
    /// `game_variance` when openings favour one colour.
    pub pair_variance: f64,
    /// The BayesElo model's draw Elo for these results.
    pub draw_elo: f64,
}

/// Why a spread or a plan cannot be made from the numbers given.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// The draw ratio is outside `[0, 1)`.
    #[error("the draw ratio must be in [0, 1), got {0}")]
    DrawRatio(f64),
    /// The RMS bias is negative or not finite.
    #[error("the RMS bias must be a finite number >= 0, got {0}")]
    RmsBias(f64),
    /// The bias leaves no variance at this draw ratio.
    #[error(
        "a draw ratio of {draw_ratio} and an RMS bias of {rms_bias} Elo do not fit together: \
         the bias leaves no variance (lower the bias or the draw ratio)"
    )]
    NoVariance {
        /// The draw ratio.
        draw_ratio: f64,
        /// The RMS bias (logistic Elo).
        rms_bias: f64,
    },
    /// The planned Elo is not finite.
    #[error("the planned Elo must be a finite number, got {0}")]
    Elo(f64),
    /// An Elo whose expected score falls outside (0, 1) in the test's model.
    #[error(
        "{what} is out of reach of these results under the {model} model (its expected \
         score would be {score:.4})"
    )]
    OutOfReach {
        /// `elo0`, `elo1` or `the planned Elo`.
        what: &'static str,
        /// The test's model.
        model: SprtModel,
        /// The expected score.
        score: f64,
    },
}

impl ResultSpread {
    /// Equal engines that draw `draw_ratio` of their games, on openings whose bias for
    /// one colour has root mean square `rms_bias` (logistic Elo) — fishtest's inputs.
    ///
    /// An error when the draw ratio is outside `[0, 1)`, the bias negative, or the two do
    /// not fit together (the bias leaves no variance).
    pub fn from_draw_ratio(draw_ratio: f64, rms_bias: f64) -> Result<ResultSpread, PlanError> {
        if !(0.0..1.0).contains(&draw_ratio) {
            return Err(PlanError::DrawRatio(draw_ratio));
        }
        if !(rms_bias >= 0.0 && rms_bias.is_finite()) {
            return Err(PlanError::RmsBias(rms_bias));
        }
        // Wins and losses (1 - d)/2 each, around a mean of ½.
        let game_variance = (1.0 - draw_ratio) / 4.0;
        let bias_score = score_from_elo(rms_bias) - 0.5;
        let pair_variance = game_variance - bias_score * bias_score;
        if pair_variance <= 0.0 {
            return Err(PlanError::NoVariance {
                draw_ratio,
                rms_bias,
            });
        }
        Ok(ResultSpread {
            game_variance,
            pair_variance,
            // P(win) = P(loss) = (1 - d)/2 at equal strength.
            draw_elo: 400.0 * ((1.0 + draw_ratio) / (1.0 - draw_ratio)).log10(),
        })
    }

    /// The spread of earlier game results (no pairs: their variance is used for both).
    /// `None` without a win, a loss, or a decisive game.
    pub fn from_wdl(wdl: &Wdl) -> Option<ResultSpread> {
        let variance = wdl_variance(wdl)?;
        let n = wdl.games() as f64;
        let (win, loss) = (wdl.wins as f64 / n, wdl.losses as f64 / n);
        Some(ResultSpread {
            game_variance: variance,
            pair_variance: variance,
            draw_elo: draw_elo_of(win, loss),
        })
    }

    /// The spread of earlier colour-swapped game pairs. Their games' draw ratio (for the
    /// BayesElo model and tests on games) needs WL and DD told apart; without that the
    /// games are taken to be as spread as the pairs. `None` before two pairs, or when
    /// every pair scored the same.
    pub fn from_penta(p: &Penta) -> Option<ResultSpread> {
        let n = p.pairs();
        if n < 2 {
            return None;
        }
        let scores = [0.0, 0.25, 0.5, 0.75, 1.0];
        let mean: f64 = p
            .counts
            .iter()
            .zip(scores)
            .map(|(&c, x)| c as f64 * x)
            .sum::<f64>()
            / n as f64;
        let pair_var: f64 = p
            .counts
            .iter()
            .zip(scores)
            .map(|(&c, x)| c as f64 * (x - mean).powi(2))
            .sum::<f64>()
            / n as f64;
        // A pair's score is the mean of two games.
        let pair_variance = 2.0 * pair_var;
        if pair_variance <= 0.0 {
            return None;
        }
        let games = p.wdl().and_then(|w| Some((w, wdl_variance(&w)?)));
        let (game_variance, draw_elo) = match games {
            Some((w, v)) => {
                let g = w.games() as f64;
                (v, draw_elo_of(w.wins as f64 / g, w.losses as f64 / g))
            }
            None => {
                // No draw count: the BayesElo draw Elo of a trinomial with this variance
                // around ½ (draw ratio 1 - 4σ²).
                let d = (1.0 - 4.0 * pair_variance).clamp(0.0, 0.999);
                (pair_variance, 400.0 * ((1.0 + d) / (1.0 - d)).log10())
            }
        };
        Some(ResultSpread {
            game_variance,
            pair_variance,
            draw_elo,
        })
    }
}

/// The variance of one game's score; `None` without games or when all scored the same.
fn wdl_variance(wdl: &Wdl) -> Option<f64> {
    let n = wdl.games();
    if n == 0 {
        return None;
    }
    let n = n as f64;
    let (w, d) = (wdl.wins as f64 / n, wdl.draws as f64 / n);
    let mean = w + 0.5 * d;
    let variance = w + 0.25 * d - mean * mean;
    (variance > 1e-12).then_some(variance)
}

/// The BayesElo draw Elo of win and loss rates, each kept away from 0 and 1.
fn draw_elo_of(win: f64, loss: f64) -> f64 {
    let clamp = |p: f64| p.clamp(1e-6, 1.0 - 1e-6);
    draw_elo(clamp(loss), clamp(win))
}

/// What an SPRT is expected to do if the true Elo is some value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtPlan {
    /// The true Elo, in the test's model.
    pub elo: f64,
    /// The same as a logistic Elo.
    pub logistic_elo: f64,
    /// Probability that the test accepts H1.
    pub pass_probability: f64,
    /// Expected number of games to a decision.
    pub expected_games: f64,
}

impl SprtPlan {
    /// Expected number of colour-swapped game pairs to a decision.
    pub fn expected_pairs(&self) -> f64 {
        self.expected_games / 2.0
    }
}

/// The pass probability and expected length of `config`'s test if the true Elo (in the
/// test's model) is `elo`, on results spread as `spread`.
///
/// Logistic and normalized tests are planned as arena and fishtest run them, on game
/// pairs (pentanomial); a BayesElo test runs on games, so its LLR mistakes the pairs'
/// spread for the games' one. An error when `elo` is not finite or its score falls
/// outside (0, 1).
pub fn plan(config: &SprtConfig, spread: &ResultSpread, elo: f64) -> Result<SprtPlan, PlanError> {
    if !elo.is_finite() {
        return Err(PlanError::Elo(elo));
    }
    let (test_variance, true_variance) = match config.model {
        SprtModel::Logistic | SprtModel::Normalized => (spread.pair_variance, spread.pair_variance),
        SprtModel::Bayesian => (spread.game_variance, spread.pair_variance),
    };
    let to_score = |e: f64| match config.model {
        SprtModel::Logistic => score_from_elo(e),
        SprtModel::Normalized => 0.5 + e / NELO_PER_T * spread.pair_variance.sqrt(),
        SprtModel::Bayesian => bayeselo_score(e, spread.draw_elo),
    };
    let (s0, s1, s) = (to_score(config.elo0), to_score(config.elo1), to_score(elo));
    for (what, score) in [("elo0", s0), ("elo1", s1), ("the planned Elo", s)] {
        if !(score > 0.0 && score < 1.0) {
            return Err(PlanError::OutOfReach {
                what,
                model: config.model,
                score,
            });
        }
    }
    let width = s1 - s0;
    let drift = (s - (s0 + s1) / 2.0) * width / test_variance;
    let variance = width * width * true_variance / (test_variance * test_variance);
    let (a, b) = config.bounds();
    let (pass_probability, expected_games) = wald(a, b, drift, variance);
    Ok(SprtPlan {
        elo,
        logistic_elo: super::elo::elo_from_score(s),
        pass_probability,
        expected_games,
    })
}

/// A Brownian motion with drift `mu` and variance `v` per unit of time, started at 0
/// between the bounds `a < 0 < b`: the probability that it leaves at `b` and its mean
/// time to leave.
fn wald(a: f64, b: f64, mu: f64, v: f64) -> (f64, f64) {
    let gamma = 2.0 * mu / v;
    if (gamma * (b - a)).abs() < 1e-8 {
        // No drift: a fair game between the bounds.
        return (-a / (b - a), -a * b / v);
    }
    // P = (1 - e^(-γa))/(e^(-γb) - e^(-γa)), rewritten so that no exponential overflows.
    let p = if gamma > 0.0 {
        (gamma * a).exp_m1() / (gamma * (a - b)).exp_m1()
    } else {
        (gamma * b).exp() * (-gamma * a).exp_m1() / (gamma * (b - a)).exp_m1()
    };
    let p = p.clamp(0.0, 1.0);
    (p, (p * b + (1.0 - p) * a) / mu)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(elo0: f64, elo1: f64, model: SprtModel) -> SprtConfig {
        SprtConfig {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
            model,
        }
    }

    fn fishtest_spread(draw_ratio: f64, rms_bias: f64) -> ResultSpread {
        ResultSpread::from_draw_ratio(draw_ratio, rms_bias).expect("valid guess")
    }

    /// Within `percent` % of `expected`.
    fn near(actual: f64, expected: f64, percent: f64, what: &str) {
        assert!(
            (actual - expected).abs() <= expected.abs() * percent / 100.0,
            "{what}: {actual}, expected {expected} (±{percent} %)"
        );
    }

    /// Reference values from fishtest's sprt_calc: `new Sprt(0.05, 0.05, elo0, elo1,
    /// draw_ratio, rms_bias, model).characteristics(elo)` of
    /// official-stockfish/fishtest `server/fishtest/static/js/sprt.js` (commit b8eecff2),
    /// run with node. For the normalized model sprt_calc takes a logistic Elo; the
    /// values below were computed at the logistic Elo of the normalized one tested.
    #[test]
    fn agrees_with_fishtest_sprt_calc() {
        use SprtModel::{Logistic as L, Normalized as N};
        // (model, elo0, elo1, draw ratio, RMS bias, true Elo, pass probability, games)
        let cases = [
            (L, 0.0, 5.0, 0.49, 191.0, 2.5, 0.500038, 10871.8),
            (L, 0.0, 5.0, 0.49, 0.0, 2.5, 0.500038, 21352.3),
            (L, 0.0, 5.0, 0.49, 191.0, 0.0, 0.05, 6646.2),
            (L, 0.0, 5.0, 0.49, 191.0, 5.0, 0.95, 6646.2),
            (L, 0.0, 5.0, 0.49, 191.0, -1.0, 0.015949, 5106.4),
            (L, 0.0, 5.0, 0.2, 0.0, 2.5, 0.500038, 33493.7),
            (L, -3.0, 1.0, 0.3, 100.0, 0.5, 0.900994, 29528.9),
            (N, 0.0, 2.0, 0.49, 191.0, 0.0, 0.05, 159942.4),
            (N, 0.0, 2.0, 0.49, 191.0, 2.0, 0.95, 159942.4),
            (N, 0.0, 2.0, 0.49, 191.0, 1.0, 0.5, 261633.7),
            (N, 0.0, 2.0, 0.49, 191.0, -1.0, 0.002762, 88366.0),
            (N, 0.5, 2.5, 0.6, 0.0, 1.5, 0.5, 261633.7),
        ];
        for (model, elo0, elo1, draw, bias, elo, pass, games) in cases {
            let what = format!("{model} [{elo0}, {elo1}] draw {draw} bias {bias} at {elo}");
            let p = plan(
                &config(elo0, elo1, model),
                &fishtest_spread(draw, bias),
                elo,
            )
            .expect("plannable");
            assert!(
                (p.pass_probability - pass).abs() < 1e-4,
                "{what}: pass {}, sprt_calc {pass}",
                p.pass_probability
            );
            near(p.expected_games, games, 0.1, &what);
        }
    }

    #[test]
    fn bounds_give_the_error_rates() {
        for (model, bias) in [
            (SprtModel::Logistic, 60.0),
            (SprtModel::Normalized, 60.0),
            (SprtModel::Bayesian, 0.0),
        ] {
            let c = SprtConfig {
                alpha: 0.1,
                beta: 0.02,
                ..config(-2.0, 3.0, model)
            };
            let spread = fishtest_spread(0.3, bias);
            let at0 = plan(&c, &spread, -2.0).expect("plannable");
            let at1 = plan(&c, &spread, 3.0).expect("plannable");
            assert!(
                (at0.pass_probability - 0.1).abs() < 1e-3,
                "{model}: {at0:?}"
            );
            assert!(
                (at1.pass_probability - 0.98).abs() < 1e-3,
                "{model}: {at1:?}"
            );
        }
        // A BayesElo test runs on games: on correlated pairs its LLR wanders less than it
        // assumes, so it errs less often than α and runs longer than a test on pairs.
        let spread = fishtest_spread(0.3, 60.0);
        let bayes = plan(&config(0.0, 5.0, SprtModel::Bayesian), &spread, 0.0).expect("plan");
        assert!(bayes.pass_probability < 0.05, "{bayes:?}");
        let bayes_even = plan(&config(0.0, 5.0, SprtModel::Bayesian), &spread, 2.5).expect("plan");
        let pairs = plan(&config(0.0, 5.0, SprtModel::Logistic), &spread, 2.5).expect("plan");
        assert!(
            bayes_even.expected_games > pairs.expected_games,
            "{bayes_even:?} {pairs:?}"
        );
    }

    #[test]
    fn far_from_the_bounds_nothing_overflows() {
        let c = config(0.0, 2.0, SprtModel::Normalized);
        let spread = fishtest_spread(0.49, 191.0);
        for elo in [-300.0, -30.0, 30.0, 300.0] {
            let p = plan(&c, &spread, elo).expect("plannable");
            assert!(p.pass_probability.is_finite() && p.expected_games.is_finite());
            assert!(p.expected_games > 0.0, "{p:?}");
            assert_eq!(p.pass_probability > 0.5, elo > 0.0, "{p:?}");
        }
    }

    #[test]
    fn bad_guesses_are_refused() {
        assert!(ResultSpread::from_draw_ratio(1.0, 0.0).is_err());
        assert!(ResultSpread::from_draw_ratio(-0.1, 0.0).is_err());
        assert!(ResultSpread::from_draw_ratio(0.4, -1.0).is_err());
        let err = ResultSpread::from_draw_ratio(0.9, 191.0).unwrap_err();
        assert!(matches!(err, PlanError::NoVariance { .. }), "{err}");
        assert!(err.to_string().contains("do not fit"), "{err}");
        let c = config(0.0, 5.0, SprtModel::Logistic);
        assert!(plan(&c, &fishtest_spread(0.5, 0.0), f64::NAN).is_err());
    }

    /// Earlier results give the spread: a trinomial one equals the draw-ratio guess with
    /// no bias when its score is ½, and pairs count their correlation.
    #[test]
    fn spread_from_results() {
        let wdl = ResultSpread::from_wdl(&Wdl::new(300, 400, 300)).expect("spread");
        let guess = fishtest_spread(0.4, 0.0);
        assert!((wdl.game_variance - guess.game_variance).abs() < 1e-12);
        assert!((wdl.draw_elo - guess.draw_elo).abs() < 1e-9);
        // Pairs that are all WL: games spread fully, pairs not at all (refused).
        assert_eq!(
            ResultSpread::from_penta(&Penta::from_six(0, 0, 10, 0, 0, 0)),
            None
        );
        let p = ResultSpread::from_penta(&Penta::from_six(10, 20, 40, 10, 20, 10)).expect("spread");
        assert!(p.pair_variance < p.game_variance, "{p:?}");
        assert_eq!(ResultSpread::from_wdl(&Wdl::new(0, 5, 0)), None);
    }
}
