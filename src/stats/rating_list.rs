//! A rating list of many players from games with colours, with Ordo's options: the
//! first player's advantage fitted with the ratings (Ordo's `-W`), the draw rate between
//! equal players fitted to the draws (Ordo's `-D`), an anchor, and the likelihood of
//! superiority of every player over every other (Ordo's CFS matrix).
//!
//! The model is [`ratings`](super::ratings)'s with one more parameter: the player who
//! moves first scores `E = 1/(1 + e^-(β_first - β_second + η))` per game, `η` the
//! first-move advantage, and the ratings and `η` maximize the likelihood of the games'
//! points (draws as half points). At that maximum every player's expected score equals its
//! score and the first movers' expected points equal their points: the same fixed point
//! Ordo's iteration seeks (Ordo's "white" is the first player). With `η` fixed at 0 the
//! list is exactly [`fit_ratings`](super::fit_ratings)'s (the same ratings, errors and
//! virtual draws).
//!
//! The draw rate does not move the ratings (as in Ordo): it is the `d0` at which the
//! games' expected draws equal the draws played, each game drawing with probability
//! `x = ν·√(P(win)·P(loss))`, `ν = 2·d0/(1 - d0)` (so equal players draw `d0` of their
//! games), `P(win) = E - x/2`. Its error is the delta method on the whole fit's
//! estimating equations (see `fit_draw_rate`).
//!
//! Errors and the LOS matrix come from the covariance of the fit (the observed
//! information scaled by Pearson's dispersion, see [`ratings`](super::ratings)), not
//! from simulations as Ordo's: a LOS is `Φ((r_i - r_j)/σ(r_i - r_j))` with the
//! covariance of the two ratings counted.
//!
//! This module owns only numbers: it must not know about engines, games or tournaments.

use serde::{Deserialize, Serialize};

use super::{
    elo::{Wdl, Z95, normal_cdf},
    ratings::{
        Anchor, RatingsError, check_players, components, expected, inverse, ln_expected,
        newton_maximize, strongly_connected,
    },
};

/// Elo per natural-logarithm unit of the odds: 400 / ln 10.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Games of player `first` (who moved first, after the opening) against `second`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColouredResult {
    /// The player who moved first.
    pub first: usize,
    /// The other one.
    pub second: usize,
    /// Results from `first`'s point of view.
    pub wdl: Wdl,
}

/// The first player's advantage in the fit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum FirstMove {
    /// Fitted with the ratings (Ordo's `-W`).
    Fit,
    /// Held at this many Elo (0: none, as plain ratings; Ordo's `-w`).
    Fixed(f64),
}

/// A fitted rating list; per-player vectors are indexed by player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingList {
    /// Rating in Elo on the anchor's scale.
    pub elo: Vec<f64>,
    /// Half-width of the 95 % interval of `elo`, relative to the anchor.
    pub error: Vec<f64>,
    /// Games played.
    pub games: Vec<u64>,
    /// Points per game, draws counting half.
    pub score: Vec<f64>,
    /// Fraction of the player's games drawn.
    pub draws: Vec<f64>,
    /// The advantage of moving first, in Elo.
    pub first_move: f64,
    /// Half-width of its 95 % interval; `None` when it was held fixed.
    pub first_move_error: Option<f64>,
    /// Fraction of games equal players draw (Ordo's draw rate).
    pub draw_rate: f64,
    /// Half-width of its 95 % interval.
    pub draw_rate_error: f64,
    /// Covariance of the ratings in Elo² (relative to the anchor), for LOS.
    pub covariance: Vec<Vec<f64>>,
    /// Whether virtual draws were needed to keep the fit finite (see
    /// [`ratings`](super::ratings)).
    pub regularized: bool,
}

impl RatingList {
    /// The likelihood that player `i` is stronger than player `j`: `Φ(Δ/σ)` of their
    /// rating difference and its standard error (the diagonal is ½).
    pub fn los(&self, i: usize, j: usize) -> f64 {
        let c = &self.covariance;
        let diff = self.elo[i] - self.elo[j];
        let variance = c[i][i] + c[j][j] - 2.0 * c[i][j];
        if variance > 0.0 {
            normal_cdf(diff / variance.sqrt())
        } else if diff > 0.0 {
            1.0
        } else if diff < 0.0 {
            0.0
        } else {
            0.5
        }
    }
}

/// Fits the rating list of `players` players from `results` (several results for the
/// same players and colours add up; empty ones are ignored).
pub fn fit_rating_list(
    players: usize,
    results: &[ColouredResult],
    anchor: Anchor,
    first_move: FirstMove,
) -> Result<RatingList, RatingsError> {
    let n = players;
    check_players(n, anchor, results.iter().map(|r| (r.first, r.second)))?;
    if let FirstMove::Fixed(v) = first_move
        && !v.is_finite()
    {
        return Err(RatingsError::BadAnchor(format!(
            "first-move advantage {v} is not a finite number"
        )));
    }
    // wdl[i][j]: i moving first against j, from i's side.
    let mut wdl = vec![vec![Wdl::default(); n]; n];
    for r in results {
        wdl[r.first][r.second].add(r.wdl);
    }
    let met = |i: usize, j: usize| wdl[i][j].games() + wdl[j][i].games() > 0;
    let groups = components(n, met);
    if groups.len() > 1 {
        return Err(RatingsError::Disconnected { groups });
    }
    // i → j when i scored something against j, with either colour.
    let scored =
        |i: usize, j: usize| wdl[i][j].points() > 0.0 || wdl[j][i].reversed().points() > 0.0;
    let total = wdl.iter().flatten().fold(Wdl::default(), |mut t, w| {
        t.add(*w);
        t
    });
    let first_extreme = total.points() == 0.0 || total.points() == total.games() as f64;
    let regularized =
        !strongly_connected(n, scored) || (first_move == FirstMove::Fit && first_extreme);

    let opponents: Vec<usize> = (0..n)
        .map(|i| (0..n).filter(|&j| met(i, j)).count())
        .collect();
    let mut games = vec![vec![0.0; n]; n];
    let mut points = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            if i == j || !met(i, j) {
                continue;
            }
            games[i][j] = wdl[i][j].games() as f64;
            points[i][j] = wdl[i][j].points();
            if regularized {
                // The pair's virtual draws of `fit_ratings`, half with each colour.
                let virtual_games = (0.5 / opponents[i] as f64 + 0.5 / opponents[j] as f64) / 2.0;
                games[i][j] += virtual_games;
                points[i][j] += 0.5 * virtual_games;
            }
        }
    }
    let fixed = match first_move {
        FirstMove::Fit => None,
        FirstMove::Fixed(elo) => Some(elo / ELO_PER_NAT),
    };
    let model = Model {
        games: &games,
        points: &points,
        fixed,
    };
    let theta = model.maximize()?;
    let (beta, eta) = model.unpack(&theta);
    let information = model.information(&beta, eta);
    let dispersion = dispersion(&wdl, &beta, eta);
    // Covariance of (β_1..β_{n-1}[, η]) with β_0 held at 0, embedded with β_0's zeros.
    let c0 = inverse(&information).ok_or(RatingsError::Singular)?;
    let dim = n + usize::from(fixed.is_none());
    let embed = |k: usize| if k == 0 { None } else { Some(k - 1) };
    let full = |a: usize, b: usize| match (embed(a), embed(b)) {
        (Some(x), Some(y)) => c0[x][y],
        _ => 0.0,
    };
    // Ratings relative to the anchor: r = T β.
    let transform: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|k| match anchor {
                    Anchor::PoolAverage => f64::from(u8::from(i == k)) - 1.0 / n as f64,
                    Anchor::Player { index, .. } => {
                        f64::from(u8::from(i == k)) - f64::from(u8::from(index == k))
                    }
                })
                .collect()
        })
        .collect();
    let scale = dispersion * ELO_PER_NAT * ELO_PER_NAT;
    let covariance: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let mut sum = 0.0;
                    for a in 0..n {
                        if transform[i][a] == 0.0 {
                            continue;
                        }
                        for b in 0..n {
                            sum += transform[i][a] * full(a, b) * transform[j][b];
                        }
                    }
                    scale * sum
                })
                .collect()
        })
        .collect();
    let mut elo: Vec<f64> = beta.iter().map(|b| b * ELO_PER_NAT).collect();
    let shift = match anchor {
        Anchor::PoolAverage => -elo.iter().sum::<f64>() / n as f64,
        Anchor::Player { index, elo: at } => at - elo[index],
    };
    for r in &mut elo {
        *r += shift;
    }
    let error = (0..n)
        .map(|i| Z95 * covariance[i][i].max(0.0).sqrt())
        .collect();
    let first_move_error = fixed
        .is_none()
        .then(|| Z95 * (scale * full(dim - 1, dim - 1)).max(0.0).sqrt());
    let (draw_rate, draw_rate_error) = fit_draw_rate(&wdl, &beta, eta, &c0, fixed.is_none());
    let per_player: Vec<Wdl> = (0..n)
        .map(|i| {
            let mut t = Wdl::default();
            for (own, row) in wdl[i].iter().zip(&wdl) {
                t.add(*own);
                t.add(row[i].reversed());
            }
            t
        })
        .collect();
    Ok(RatingList {
        elo,
        error,
        games: per_player.iter().map(Wdl::games).collect(),
        score: per_player
            .iter()
            .map(|t| t.score().expect("a connected player has played a game"))
            .collect(),
        draws: per_player
            .iter()
            .map(|t| t.draws as f64 / t.games() as f64)
            .collect(),
        first_move: eta * ELO_PER_NAT,
        first_move_error,
        draw_rate,
        draw_rate_error,
        covariance,
        regularized,
    })
}

/// The likelihood of the first movers' points, `games[i][j]` games of `i` moving first
/// against `j` with `i`'s `points[i][j]`, in the parameters `θ = (β_1..β_{n-1}[, η])` (`β_0 = 0`;
/// `η` only when not `fixed`).
struct Model<'a> {
    games: &'a [Vec<f64>],
    points: &'a [Vec<f64>],
    fixed: Option<f64>,
}

impl Model<'_> {
    fn players(&self) -> usize {
        self.games.len()
    }

    fn unpack(&self, theta: &[f64]) -> (Vec<f64>, f64) {
        let n = self.players();
        let mut beta = vec![0.0; n];
        beta[1..].copy_from_slice(&theta[..n - 1]);
        let eta = self.fixed.unwrap_or_else(|| theta[n - 1]);
        (beta, eta)
    }

    fn log_likelihood(&self, theta: &[f64]) -> f64 {
        let (beta, eta) = self.unpack(theta);
        let n = self.players();
        let mut total = 0.0;
        for i in 0..n {
            for j in 0..n {
                let (g, p) = (self.games[i][j], self.points[i][j]);
                if g > 0.0 {
                    let x = beta[i] - beta[j] + eta;
                    if p > 0.0 {
                        total += p * ln_expected(x);
                    }
                    if g - p > 0.0 {
                        total += (g - p) * ln_expected(-x);
                    }
                }
            }
        }
        total
    }

    /// The gradient in θ.
    fn gradient(&self, beta: &[f64], eta: f64) -> Vec<f64> {
        let n = self.players();
        let mut grad = vec![0.0; n + 1];
        for i in 0..n {
            for j in 0..n {
                let g = self.games[i][j];
                if g > 0.0 {
                    let r = self.points[i][j] - g * expected(beta[i] - beta[j] + eta);
                    grad[i] += r;
                    grad[j] -= r;
                    grad[n] += r;
                }
            }
        }
        self.reduce_vector(grad)
    }

    /// The observed information (negative Hessian) in θ.
    fn information(&self, beta: &[f64], eta: f64) -> Vec<Vec<f64>> {
        let n = self.players();
        let mut h = vec![vec![0.0; n + 1]; n + 1];
        for i in 0..n {
            for j in 0..n {
                let g = self.games[i][j];
                if g > 0.0 {
                    let e = expected(beta[i] - beta[j] + eta);
                    let w = g * e * (1.0 - e);
                    // x = β_i - β_j + η: its gradient is (+1 at i, -1 at j, +1 at η).
                    let at = [(i, 1.0), (j, -1.0), (n, 1.0)];
                    for &(a, sa) in &at {
                        for &(b, sb) in &at {
                            h[a][b] += w * sa * sb;
                        }
                    }
                }
            }
        }
        let keep = self.kept();
        keep.iter()
            .map(|&a| keep.iter().map(|&b| h[a][b]).collect())
            .collect()
    }

    /// The full-parameter indices θ keeps: β_1..β_{n-1}, and η unless fixed.
    fn kept(&self) -> Vec<usize> {
        let n = self.players();
        let mut keep: Vec<usize> = (1..n).collect();
        if self.fixed.is_none() {
            keep.push(n);
        }
        keep
    }

    fn reduce_vector(&self, full: Vec<f64>) -> Vec<f64> {
        self.kept().into_iter().map(|k| full[k]).collect()
    }

    /// Newton's method with a backtracking line search (the likelihood is concave).
    fn maximize(&self) -> Result<Vec<f64>, RatingsError> {
        newton_maximize(
            self.kept().len(),
            |theta| self.log_likelihood(theta),
            |theta| {
                let (beta, eta) = self.unpack(theta);
                (self.gradient(&beta, eta), self.information(&beta, eta))
            },
        )
    }
}

/// Pearson's dispersion of the real games around the fit (see `ratings::dispersion`):
/// each game counted once, from the first mover's side.
fn dispersion(wdl: &[Vec<Wdl>], beta: &[f64], eta: f64) -> f64 {
    let n = beta.len();
    let (mut observed, mut assumed) = (0.0, 0.0);
    for i in 0..n {
        for j in 0..n {
            let r = wdl[i][j];
            if i != j && r.games() > 0 {
                let e = expected(beta[i] - beta[j] + eta);
                observed += r.wins as f64 * (1.0 - e).powi(2)
                    + r.draws as f64 * (0.5 - e).powi(2)
                    + r.losses as f64 * e.powi(2);
                assumed += r.games() as f64 * e * (1.0 - e);
            }
        }
    }
    // Three decisive games at even odds at least (the rule of three).
    let observed = observed.max(3.0 * 0.25);
    if assumed > 0.0 {
        observed / assumed
    } else {
        1.0
    }
}

/// The probability of a draw at expected score `f` when equal players draw `d0`:
/// the root `x` of `x² = ν²·(f - x/2)(1 - f - x/2)`, `ν = 2·d0/(1 - d0)`.
fn draw_probability(f: f64, d0: f64) -> f64 {
    if d0 <= 0.0 {
        return 0.0;
    }
    let q = f * (1.0 - f);
    // a·x² + 2x - 4q = 0 with a = (1 - 2·d0)/d0², solved without cancellation.
    let a = (1.0 - 2.0 * d0) / (d0 * d0);
    4.0 * q / (1.0 + (1.0 + 4.0 * a * q).max(0.0).sqrt())
}

/// The equal-strength draw rate at which the games' expected draws equal the draws
/// played, and the half-width of its 95 % interval.
///
/// The interval is the delta method on the estimating equations of the whole fit (the
/// ratings' and first move's score equations and the draw count's), with the games'
/// spread as the model gives it: a run with more draws also rates its players closer
/// together, which moves their expected draws, and the draw rate's error counts that
/// (as Ordo's simulations do). `h_inverse` is the inverse information of the fitted
/// parameters θ (β_1..β_{n-1}[, η]), `fit_eta` whether η is one of them.
fn fit_draw_rate(
    wdl: &[Vec<Wdl>],
    beta: &[f64],
    eta: f64,
    h_inverse: &[Vec<f64>],
    fit_eta: bool,
) -> (f64, f64) {
    let n = beta.len();
    // (games, expected score of the first mover, i, j) of every pairing and first mover.
    let mut games = Vec::new();
    let mut drawn = 0.0;
    for i in 0..n {
        for j in 0..n {
            let r = wdl[i][j];
            if i != j && r.games() > 0 {
                games.push((r.games() as f64, expected(beta[i] - beta[j] + eta), i, j));
                drawn += r.draws as f64;
            }
        }
    }
    let expected_draws = |d0: f64| -> f64 {
        games
            .iter()
            .map(|&(g, f, ..)| g * draw_probability(f, d0))
            .sum()
    };
    // Monotone in d0, from no draws at 0 to all of them at 1.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if hi - lo < 1e-12 {
            break;
        }
        if expected_draws(mid) < drawn {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let d0 = 0.5 * (lo + hi);
    // Sums over games of the estimating equations' derivatives and (co)variances: U_θ
    // (points minus expected points, along each game's gradient a = ±1 at its players
    // and η) and U_d (draws minus expected draws).
    let m = h_inverse.len();
    let (mut c, mut cov_points_draws) = (vec![0.0; m], vec![0.0; m]);
    let mut var_points = vec![vec![0.0; m]; m];
    let (mut var_draws, mut slope) = (0.0, 0.0);
    let h = 1e-6;
    let step = |lo: f64, hi: f64, f: &dyn Fn(f64) -> f64| (f(hi) - f(lo)) / (hi - lo);
    for &(g, f, i, j) in &games {
        let x = draw_probability(f, d0);
        let x_f = step((f - h).max(0.0), (f + h).min(1.0), &|f| {
            draw_probability(f, d0)
        });
        let x_d0 = step((d0 - h).max(0.0), (d0 + h).min(1.0), &|d| {
            draw_probability(f, d)
        })
        .max(0.0);
        let mut a: Vec<(usize, f64)> = Vec::with_capacity(3);
        if i > 0 {
            a.push((i - 1, 1.0));
        }
        if j > 0 {
            a.push((j - 1, -1.0));
        }
        if fit_eta {
            a.push((m - 1, 1.0));
        }
        // A game's score s and draw δ: Var(s) = f(1 - f) - x/4, Cov(s, δ) = x(½ - f).
        let var_s = (f * (1.0 - f) - x / 4.0).max(0.0);
        for &(p, sp) in &a {
            c[p] -= g * x_f * f * (1.0 - f) * sp;
            cov_points_draws[p] += g * x * (0.5 - f) * sp;
            for &(q, sq) in &a {
                var_points[p][q] += g * var_s * sp * sq;
            }
        }
        var_draws += g * x * (1.0 - x);
        slope += g * x_d0;
    }
    // Never less spread than three games' worth (the rule of three).
    let var_draws = var_draws.max(3.0 * 0.25);
    // δd0 = (U_d + k·U_θ)/slope with k = c·H⁻¹.
    let k: Vec<f64> = (0..m)
        .map(|q| (0..m).map(|p| c[p] * h_inverse[p][q]).sum())
        .collect();
    let k_cov: f64 = k.iter().zip(&cov_points_draws).map(|(a, b)| a * b).sum();
    let k_var_k: f64 = (0..m)
        .map(|p| (0..m).map(|q| k[p] * var_points[p][q] * k[q]).sum::<f64>())
        .sum();
    let variance = (var_draws + 2.0 * k_cov + k_var_k).max(0.0);
    let error = if slope > 0.0 {
        (Z95 * variance.sqrt() / slope).min(1.0)
    } else {
        1.0
    };
    (d0, error)
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::stats::{
        elo::score_from_elo,
        ratings::{PairResult, fit_ratings},
    };

    /// `games` games of `a` moving first against `b`, `first` Elo stronger for moving
    /// first, equal players drawing `d0` of their games.
    fn simulate(rng: &mut ChaCha8Rng, a: f64, b: f64, first: f64, d0: f64, games: u64) -> Wdl {
        let f = score_from_elo(a - b + first);
        let x = draw_probability(f, d0);
        let win = f - x / 2.0;
        let mut wdl = Wdl::default();
        for _ in 0..games {
            let u: f64 = rng.random();
            if u < win {
                wdl.wins += 1;
            } else if u < win + x {
                wdl.draws += 1;
            } else {
                wdl.losses += 1;
            }
        }
        wdl
    }

    const TRUTH: [f64; 5] = [-120.0, -40.0, 0.0, 50.0, 110.0];

    fn coloured_round_robin(
        rng: &mut ChaCha8Rng,
        first: f64,
        d0: f64,
        games: u64,
    ) -> Vec<ColouredResult> {
        let mut results = Vec::new();
        for (a, &elo_a) in TRUTH.iter().enumerate() {
            for (b, &elo_b) in TRUTH.iter().enumerate() {
                if a != b {
                    results.push(ColouredResult {
                        first: a,
                        second: b,
                        wdl: simulate(rng, elo_a, elo_b, first, d0, games),
                    });
                }
            }
        }
        results
    }

    fn uncoloured(results: &[ColouredResult]) -> Vec<PairResult> {
        results
            .iter()
            .map(|r| PairResult {
                a: r.first,
                b: r.second,
                wdl: r.wdl,
            })
            .collect()
    }

    /// With no first-move advantage the list is `fit_ratings`'s, errors included.
    #[test]
    fn without_first_move_the_list_equals_plain_ratings() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let results = coloured_round_robin(&mut rng, 40.0, 0.3, 60);
        for anchor in [
            Anchor::PoolAverage,
            Anchor::Player {
                index: 2,
                elo: 100.0,
            },
        ] {
            let list = fit_rating_list(5, &results, anchor, FirstMove::Fixed(0.0)).expect("fit");
            let plain = fit_ratings(5, &uncoloured(&results), anchor).expect("fit");
            for i in 0..5 {
                assert!(
                    (list.elo[i] - plain.elo[i]).abs() < 1e-7,
                    "{list:?} {plain:?}"
                );
                assert!(
                    (list.error[i] - plain.error[i]).abs() < 1e-7,
                    "{list:?} {plain:?}"
                );
            }
            assert_eq!(list.games, plain.games);
        }
        // A player that lost every game: the same virtual draws keep it finite.
        let lopsided = vec![
            ColouredResult {
                first: 0,
                second: 1,
                wdl: Wdl::new(0, 0, 5),
            },
            ColouredResult {
                first: 1,
                second: 0,
                wdl: Wdl::new(4, 0, 0),
            },
            ColouredResult {
                first: 1,
                second: 2,
                wdl: Wdl::new(2, 1, 2),
            },
            ColouredResult {
                first: 2,
                second: 1,
                wdl: Wdl::new(1, 2, 2),
            },
        ];
        let list =
            fit_rating_list(3, &lopsided, Anchor::PoolAverage, FirstMove::Fixed(0.0)).expect("fit");
        let plain = fit_ratings(3, &uncoloured(&lopsided), Anchor::PoolAverage).expect("fit");
        assert!(list.regularized && plain.regularized);
        for i in 0..3 {
            assert!(
                (list.elo[i] - plain.elo[i]).abs() < 1e-7,
                "{list:?} {plain:?}"
            );
        }
    }

    #[test]
    fn first_move_advantage_and_draw_rate_are_found() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let results = coloured_round_robin(&mut rng, 80.0, 0.35, 400);
        let list = fit_rating_list(5, &results, Anchor::PoolAverage, FirstMove::Fit).expect("fit");
        let err = list.first_move_error.expect("fitted");
        assert!((list.first_move - 80.0).abs() < err, "{list:?}");
        assert!(err > 3.0 && err < 20.0, "{err}");
        assert!(
            (list.draw_rate - 0.35).abs() < list.draw_rate_error,
            "{list:?}"
        );
        let mean = TRUTH.iter().sum::<f64>() / 5.0;
        for (i, truth) in TRUTH.iter().enumerate() {
            assert!(
                (list.elo[i] - (truth - mean)).abs() < list.error[i],
                "{i}: {list:?}"
            );
        }
        // Without the first-move term the ratings shrink towards each other (each
        // colour's games sit on a flatter part of the logistic curve).
        let plain =
            fit_rating_list(5, &results, Anchor::PoolAverage, FirstMove::Fixed(0.0)).expect("fit");
        for i in 0..5 {
            assert!(plain.elo[i].abs() < list.elo[i].abs(), "{list:?} {plain:?}");
        }
        // LOS: the best is better than the worst; symmetric; ½ on the diagonal.
        assert!(list.los(4, 0) > 0.999);
        assert!((list.los(1, 3) + list.los(3, 1) - 1.0).abs() < 1e-12);
        assert_eq!(list.los(2, 2), 0.5);
    }

    #[test]
    fn draw_probability_meets_its_ends() {
        assert_eq!(draw_probability(0.5, 0.0), 0.0);
        assert!((draw_probability(0.5, 0.3) - 0.3).abs() < 1e-12);
        assert!((draw_probability(0.5, 1.0) - 1.0).abs() < 1e-12);
        assert!((draw_probability(0.5, 0.5) - 0.5).abs() < 1e-12);
        // A mismatch draws less.
        assert!(draw_probability(0.9, 0.3) < 0.3);
    }

    #[test]
    fn bad_input_is_an_error() {
        let r = |first, second| ColouredResult {
            first,
            second,
            wdl: Wdl::new(1, 1, 1),
        };
        assert!(fit_rating_list(1, &[], Anchor::PoolAverage, FirstMove::Fit).is_err());
        assert!(matches!(
            fit_rating_list(4, &[r(0, 1), r(2, 3)], Anchor::PoolAverage, FirstMove::Fit),
            Err(RatingsError::Disconnected { .. })
        ));
        assert!(fit_rating_list(2, &[r(0, 0)], Anchor::PoolAverage, FirstMove::Fit).is_err());
        assert!(fit_rating_list(2, &[r(0, 2)], Anchor::PoolAverage, FirstMove::Fit).is_err());
    }
}
