//! Ratings of many players from their pairwise results: maximum likelihood on the
//! logistic (Bradley–Terry) model with draws as half points, as Ordo does, with 95 %
//! intervals and an anchor (the pool average, or one player at a given Elo).
//!
//! The model: player i scores `E_ij = 1/(1 + 10^((r_j - r_i)/400))` per game against j.
//! The fit maximizes `Σ S_ij ln E_ij` (`S_ij` = i's points against j) by Newton's method
//! with a backtracking line search, which converges for this concave likelihood.
//!
//! **Infinite ratings.** The maximum-likelihood ratings are finite exactly when no group
//! of players failed to score a single half point against the rest (the "scored against"
//! graph is strongly connected). Otherwise — a 100 % or 0 % player, say — the fit adds a
//! small prior, and only then: every player gets one virtual draw, spread evenly over the
//! opponents it met (a pairing i–j gets `1/(2·opponents_i) + 1/(2·opponents_j)` virtual
//! drawn games), like BayesElo's virtual draws. It pulls ratings towards each other by
//! about one game's worth of evidence, keeps them finite, and is reported in
//! [`Ratings::regularized`]. Players with no chain of games between them cannot be
//! compared at all: that is an error ([`RatingsError::Disconnected`]).
//!
//! **Intervals.** The covariance of the ratings is `φ · H⁺`: `H` the observed information
//! (negative Hessian of the log-likelihood) at the fit, `⁺` its inverse under the anchor
//! constraint (the pseudo-inverse for the pool average; for an anchored player, the
//! inverse with that player's row and column removed, so its own error is 0), and `φ`
//! Pearson's dispersion: the observed variance of the real games' scores about their
//! fitted expectations, over the `E(1 - E)` the win/loss likelihood assumes, pooled over
//! all games. Without `φ` draws would inflate the errors (by about 20 % at 30 % draws):
//! a drawn game is less variable than a coin flip. The observed variance counts as at
//! least three decisive games' at even odds (0.75): with no decisive game in N, up to
//! 3/N may still be decisive (the rule of three), so all-drawn games keep an error.
//! With two players this is exactly the
//! delta-method form of the trinomial interval of [`Wdl::estimate`](super::Wdl::estimate)
//! (within 1 % of it for a few hundred games). Pooling `φ` (rather than a per-pairing
//! sandwich estimate) keeps the interval honest for a regularized 100 % player, whose
//! own residuals are near zero. Every game counts as independent: the correlation inside
//! colour-swapped pairs is not modelled here, and there is no small-sample correction.
//!
//! This module owns only numbers: it must not know about engines, games or tournaments.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::elo::{Wdl, Z95};

/// Elo per natural-logarithm unit of the odds: 400 / ln 10.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Most Newton iterations before giving up (convergence takes a few dozen at most).
const MAX_ITERATIONS: usize = 500;

/// The aggregated results of player `a` against player `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairResult {
    /// Index of the first player.
    pub a: usize,
    /// Index of the second player.
    pub b: usize,
    /// Results from `a`'s point of view.
    pub wdl: Wdl,
}

/// What fixes the zero of the rating scale (results only tell rating differences).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Anchor {
    /// The players' ratings average to 0.
    PoolAverage,
    /// Player `index` is rated `elo`; its error is 0 by definition.
    Player {
        /// Index of the anchored player.
        index: usize,
        /// Its rating.
        elo: f64,
    },
}

/// Fitted ratings, one entry per player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratings {
    /// Rating in Elo on the anchor's scale.
    pub elo: Vec<f64>,
    /// Half-width of the 95 % interval of `elo`, relative to the anchor.
    pub error: Vec<f64>,
    /// Games played.
    pub games: Vec<u64>,
    /// Points per game, draws counting half, in `[0, 1]`.
    pub score: Vec<f64>,
    /// Whether the virtual-draw prior was needed to keep the ratings finite (see the
    /// module documentation); `false` means the ratings are the plain maximum-likelihood
    /// ones.
    pub regularized: bool,
}

/// Why ratings cannot be fitted.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum RatingsError {
    /// Fewer than two players.
    #[error("ratings need at least two players, got {players}")]
    TooFewPlayers {
        /// Number of players given.
        players: usize,
    },
    /// A result names a player that does not exist.
    #[error("result {result} names player {player}, but there are only {players} players")]
    PlayerOutOfRange {
        /// Index of the result in the input.
        result: usize,
        /// The bad player index.
        player: usize,
        /// Number of players.
        players: usize,
    },
    /// A result pairs a player with itself.
    #[error("result {result} pairs player {player} with itself")]
    SelfPairing {
        /// Index of the result in the input.
        result: usize,
        /// The player.
        player: usize,
    },
    /// The anchor names a player that does not exist, or a non-finite rating.
    #[error("bad anchor: {0}")]
    BadAnchor(String),
    /// Some players are not linked to the others by any chain of games.
    #[error(
        "the players form {} groups that never played each other, so their ratings cannot \
         be compared: {}",
        groups.len(),
        format_groups(groups)
    )]
    Disconnected {
        /// The groups of players (connected components), each sorted, by smallest index.
        groups: Vec<Vec<usize>>,
    },
    /// The fitted ratings are so far apart that their information matrix is singular in
    /// floating point (expected scores round to 0 or 1).
    #[error("the results are too lopsided for intervals: some expected scores round to 0 or 1")]
    Singular,
    /// Newton's method did not converge (a bug or an extreme input).
    #[error("the rating fit did not converge after {iterations} iterations")]
    NotConverged {
        /// Iterations done.
        iterations: usize,
    },
}

fn format_groups(groups: &[Vec<usize>]) -> String {
    groups
        .iter()
        .map(|g| {
            let names: Vec<String> = g.iter().map(usize::to_string).collect();
            format!("{{{}}}", names.join(", "))
        })
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Fits maximum-likelihood ratings of `players` players from `results` (several results
/// for the same two players add up, in either order; empty results are ignored).
///
/// See the module documentation for the model, the prior used when a rating would be
/// infinite, and how the intervals are computed.
pub fn fit_ratings(
    players: usize,
    results: &[PairResult],
    anchor: Anchor,
) -> Result<Ratings, RatingsError> {
    let n = players;
    check_players(n, anchor, results.iter().map(|r| (r.a, r.b)))?;

    // wdl[i][j]: i's results against j.
    let mut wdl = vec![vec![Wdl::default(); n]; n];
    for r in results {
        wdl[r.a][r.b].add(r.wdl);
        wdl[r.b][r.a].add(r.wdl.reversed());
    }
    let played = |i: usize, j: usize| wdl[i][j].games() > 0;

    let groups = components(n, played);
    if groups.len() > 1 {
        return Err(RatingsError::Disconnected { groups });
    }
    // i → j when i scored something against j.
    let regularized = !strongly_connected(n, |i, j| played(i, j) && wdl[i][j].points() > 0.0);

    // games[i][j] and points[i][j] (i's), with the virtual draws if needed.
    let mut games = vec![vec![0.0; n]; n];
    let mut points = vec![vec![0.0; n]; n];
    let opponents: Vec<usize> = (0..n)
        .map(|i| (0..n).filter(|&j| played(i, j)).count())
        .collect();
    for i in 0..n {
        for j in 0..n {
            if !played(i, j) {
                continue;
            }
            games[i][j] = wdl[i][j].games() as f64;
            points[i][j] = wdl[i][j].points();
            if regularized {
                let virtual_games = 0.5 / opponents[i] as f64 + 0.5 / opponents[j] as f64;
                games[i][j] += virtual_games;
                points[i][j] += 0.5 * virtual_games;
            }
        }
    }

    let beta = maximize_likelihood(&games, &points)?;
    let information = information(&games, &beta);
    let dispersion = dispersion(&wdl, &beta);
    // Variances of the ratings in nats², under the anchor's constraint.
    let variance: Vec<f64> = match anchor {
        Anchor::PoolAverage => {
            let h = pseudo_inverse_laplacian(&information).ok_or(RatingsError::Singular)?;
            (0..n).map(|i| dispersion * h[i][i]).collect()
        }
        Anchor::Player { index, .. } => {
            let keep: Vec<usize> = (0..n).filter(|&i| i != index).collect();
            let reduced: Vec<Vec<f64>> = keep
                .iter()
                .map(|&i| keep.iter().map(|&j| information[i][j]).collect())
                .collect();
            let h = inverse(&reduced).ok_or(RatingsError::Singular)?;
            let mut variance = vec![0.0; n];
            for (a, &i) in keep.iter().enumerate() {
                variance[i] = dispersion * h[a][a];
            }
            variance
        }
    };

    let mut elo: Vec<f64> = beta.iter().map(|b| b * ELO_PER_NAT).collect();
    let shift = match anchor {
        Anchor::PoolAverage => -elo.iter().sum::<f64>() / n as f64,
        Anchor::Player { index, elo: at } => at - elo[index],
    };
    for r in &mut elo {
        *r += shift;
    }
    let error = variance
        .iter()
        .map(|v| Z95 * v.max(0.0).sqrt() * ELO_PER_NAT)
        .collect();
    let totals: Vec<Wdl> = wdl
        .iter()
        .map(|row| {
            row.iter().fold(Wdl::default(), |mut total, w| {
                total.add(*w);
                total
            })
        })
        .collect();
    Ok(Ratings {
        elo,
        error,
        games: totals.iter().map(Wdl::games).collect(),
        score: totals
            .iter()
            .map(|t| t.score().expect("a connected player has played a game"))
            .collect(),
        regularized,
    })
}

/// The logistic function, i's expected score at a rating difference `x` in nats.
pub(super) fn expected(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `ln(expected(x))`, without overflow for large |x|.
pub(super) fn ln_expected(x: f64) -> f64 {
    if x > 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

fn log_likelihood(games: &[Vec<f64>], points: &[Vec<f64>], beta: &[f64]) -> f64 {
    let n = beta.len();
    let mut total = 0.0;
    for i in 0..n {
        for j in 0..n {
            if games[i][j] > 0.0 && points[i][j] > 0.0 {
                total += points[i][j] * ln_expected(beta[i] - beta[j]);
            }
        }
    }
    total
}

/// The negative Hessian of the log-likelihood: a weighted graph Laplacian.
fn information(games: &[Vec<f64>], beta: &[f64]) -> Vec<Vec<f64>> {
    let n = beta.len();
    let mut h = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            if i != j && games[i][j] > 0.0 {
                let e = expected(beta[i] - beta[j]);
                let w = games[i][j] * e * (1.0 - e);
                h[i][i] += w;
                h[i][j] -= w;
            }
        }
    }
    h
}

/// Pearson's dispersion of the real games around the fit: the observed variance of a
/// game's score about its expected score `E_ij`, over the variance `E_ij(1 - E_ij)` that
/// the win/loss likelihood assumes, pooled over all games. Draws make it less than 1;
/// the observed variance is at least that of three decisive games at even odds.
fn dispersion(wdl: &[Vec<Wdl>], beta: &[f64]) -> f64 {
    let n = beta.len();
    let (mut observed, mut assumed) = (0.0, 0.0);
    for i in 0..n {
        for j in 0..n {
            let r = wdl[i][j];
            if i != j && r.games() > 0 {
                let e = expected(beta[i] - beta[j]);
                observed += r.wins as f64 * (1.0 - e).powi(2)
                    + r.draws as f64 * (0.5 - e).powi(2)
                    + r.losses as f64 * e.powi(2);
                assumed += r.games() as f64 * e * (1.0 - e);
            }
        }
    }
    // Never less spread than three decisive games at even odds (0.25 each): after N
    // games without a decisive one, up to 3/N of them may still be decisive (the rule of
    // three, 95 %), so all-drawn games do not make every error 0. Every game is counted
    // from both players' sides, hence twice 3 · 0.25.
    let observed = observed.max(2.0 * 3.0 * 0.25);
    // `assumed` is 0 only if every fitted score rounds to 0 or 1.
    if assumed > 0.0 {
        observed / assumed
    } else {
        1.0
    }
}

/// Newton's method on the ratings in nats with player 0 held at 0 (the likelihood only
/// sees differences). Needs a connected pool whose maximum is finite.
fn maximize_likelihood(games: &[Vec<f64>], points: &[Vec<f64>]) -> Result<Vec<f64>, RatingsError> {
    let n = games.len();
    let full =
        |theta: &[f64]| -> Vec<f64> { std::iter::once(0.0).chain(theta.iter().copied()).collect() };
    let theta = newton_maximize(
        n - 1,
        |theta| log_likelihood(games, points, &full(theta)),
        |theta| {
            let beta = full(theta);
            let gradient: Vec<f64> = (1..n)
                .map(|i| {
                    (0..n)
                        .filter(|&j| j != i && games[i][j] > 0.0)
                        .map(|j| points[i][j] - games[i][j] * expected(beta[i] - beta[j]))
                        .sum()
                })
                .collect();
            let h = information(games, &beta);
            let reduced: Vec<Vec<f64>> = h[1..].iter().map(|row| row[1..].to_vec()).collect();
            (gradient, reduced)
        },
    )?;
    Ok(full(&theta))
}

/// Newton's method with a backtracking line search on a concave log-likelihood of the
/// free parameters θ, from θ = 0: `value(θ)` is the likelihood and `system(θ)` its
/// gradient and information matrix at θ. The one maximiser of both rating fits.
pub(super) fn newton_maximize(
    dim: usize,
    value: impl Fn(&[f64]) -> f64,
    system: impl Fn(&[f64]) -> (Vec<f64>, Vec<Vec<f64>>),
) -> Result<Vec<f64>, RatingsError> {
    let mut theta = vec![0.0; dim];
    let mut current = value(&theta);
    for iteration in 0..MAX_ITERATIONS {
        let (gradient, h) = system(&theta);
        let Some(step) = cholesky(&h).map(|l| cholesky_solve(&l, &gradient)) else {
            // Only rounding on a near-infinite rating gets here.
            return Err(RatingsError::NotConverged {
                iterations: iteration,
            });
        };
        let size = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        let moved =
            |t: f64| -> Vec<f64> { theta.iter().zip(&step).map(|(x, s)| x + t * s).collect() };
        if size < 1e-11 {
            // Within rounding of the maximum: the last step is pure refinement.
            return Ok(moved(1.0));
        }
        // Backtrack until the likelihood does not fall (it is concave, so a short
        // enough Newton step always rises).
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..60 {
            let next = moved(t);
            let value = value(&next);
            if value >= current - 1e-12 * current.abs() {
                accepted = Some((next, value));
                break;
            }
            t *= 0.5;
        }
        let Some((next, value)) = accepted else {
            return Ok(theta);
        };
        theta = next;
        current = value;
    }
    Err(RatingsError::NotConverged {
        iterations: MAX_ITERATIONS,
    })
}

/// Which players `start` reaches along directed edges `edge(i, j)`.
fn reachable(n: usize, start: usize, edge: impl Fn(usize, usize) -> bool) -> Vec<bool> {
    let mut seen = vec![false; n];
    seen[start] = true;
    let mut stack = vec![start];
    while let Some(i) = stack.pop() {
        for (j, seen_j) in seen.iter_mut().enumerate() {
            if !*seen_j && edge(i, j) {
                *seen_j = true;
                stack.push(j);
            }
        }
    }
    seen
}

/// The connected components of the undirected graph with an edge i–j when
/// `edge(i, j)`, each sorted, ordered by smallest member.
pub(super) fn components(n: usize, edge: impl Fn(usize, usize) -> bool) -> Vec<Vec<usize>> {
    let mut assigned = vec![false; n];
    let mut groups = Vec::new();
    for start in 0..n {
        if assigned[start] {
            continue;
        }
        let reach = reachable(n, start, &edge);
        let group: Vec<usize> = (0..n).filter(|&j| reach[j]).collect();
        for &j in &group {
            assigned[j] = true;
        }
        groups.push(group);
    }
    groups
}

/// What every fit of ratings checks first: at least two players, an anchor player that
/// exists with a finite rating, and each result (in order, by its two players) between
/// two different players that exist.
pub(super) fn check_players(
    n: usize,
    anchor: Anchor,
    pairs: impl Iterator<Item = (usize, usize)>,
) -> Result<(), RatingsError> {
    if n < 2 {
        return Err(RatingsError::TooFewPlayers { players: n });
    }
    if let Anchor::Player { index, elo } = anchor {
        if index >= n {
            return Err(RatingsError::BadAnchor(format!(
                "player {index} does not exist: there are only {n} players"
            )));
        }
        if !elo.is_finite() {
            return Err(RatingsError::BadAnchor(format!(
                "rating {elo} is not a finite number"
            )));
        }
    }
    for (k, (a, b)) in pairs.enumerate() {
        for player in [a, b] {
            if player >= n {
                return Err(RatingsError::PlayerOutOfRange {
                    result: k,
                    player,
                    players: n,
                });
            }
        }
        if a == b {
            return Err(RatingsError::SelfPairing {
                result: k,
                player: a,
            });
        }
    }
    Ok(())
}

/// Whether every player reaches every other along directed edges `edge(i, j)`: 0 reaches
/// all, and all reach 0.
pub(super) fn strongly_connected(n: usize, edge: impl Fn(usize, usize) -> bool) -> bool {
    reachable(n, 0, &edge).iter().all(|&r| r)
        && reachable(n, 0, |i, j| edge(j, i)).iter().all(|&r| r)
}

/// Lower-triangular `L` with `L Lᵀ = a`; `None` if `a` is not positive definite.
pub(super) fn cholesky(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let dot: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            if i == j {
                let d = a[i][i] - dot;
                // Also catches NaN.
                if d.is_nan() || d <= 0.0 {
                    return None;
                }
                l[i][i] = d.sqrt();
            } else {
                l[i][j] = (a[i][j] - dot) / l[j][j];
            }
        }
    }
    Some(l)
}

/// Solves `L Lᵀ x = b`.
pub(super) fn cholesky_solve(l: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let n = b.len();
    let mut y = vec![0.0; n];
    for i in 0..n {
        y[i] = (b[i] - (0..i).map(|k| l[i][k] * y[k]).sum::<f64>()) / l[i][i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        x[i] = (y[i] - (i + 1..n).map(|k| l[k][i] * x[k]).sum::<f64>()) / l[i][i];
    }
    x
}

/// The inverse of a symmetric positive definite matrix.
pub(super) fn inverse(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let l = cholesky(a)?;
    let columns: Vec<Vec<f64>> = (0..n)
        .map(|j| {
            let unit: Vec<f64> = (0..n).map(|i| if i == j { 1.0 } else { 0.0 }).collect();
            cholesky_solve(&l, &unit)
        })
        .collect();
    Some(
        (0..n)
            .map(|i| (0..n).map(|j| columns[j][i]).collect())
            .collect(),
    )
}

/// The Moore–Penrose inverse of the Laplacian of a connected graph (null space: the
/// constant vector): `(L + J/n)⁻¹ - J/n`, with J the all-ones matrix.
/// `None` if rounding made it singular.
fn pseudo_inverse_laplacian(laplacian: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = laplacian.len();
    let j = 1.0 / n as f64;
    let shifted: Vec<Vec<f64>> = laplacian
        .iter()
        .map(|row| row.iter().map(|x| x + j).collect())
        .collect();
    let mut inv = inverse(&shifted)?;
    for row in &mut inv {
        for x in row.iter_mut() {
            *x -= j;
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::stats::elo::score_from_elo;

    fn pair(a: usize, b: usize, wins: u64, draws: u64, losses: u64) -> PairResult {
        PairResult {
            a,
            b,
            wdl: Wdl::new(wins, draws, losses),
        }
    }

    /// `games` games between players rated `a` and `b`: the expected score is the
    /// logistic one, with 30 % draws between equals (fewer for mismatches).
    fn simulate(rng: &mut ChaCha8Rng, a: f64, b: f64, games: u64) -> Wdl {
        let e = score_from_elo(a - b);
        let draw = 0.6 * e.min(1.0 - e);
        let mut wdl = Wdl::default();
        for _ in 0..games {
            let u: f64 = rng.random();
            if u < e - draw / 2.0 {
                wdl.wins += 1;
            } else if u < e + draw / 2.0 {
                wdl.draws += 1;
            } else {
                wdl.losses += 1;
            }
        }
        wdl
    }

    fn round_robin(rng: &mut ChaCha8Rng, truth: &[f64], games: u64) -> Vec<PairResult> {
        let mut results = Vec::new();
        for a in 0..truth.len() {
            for b in a + 1..truth.len() {
                results.push(PairResult {
                    a,
                    b,
                    wdl: simulate(rng, truth[a], truth[b], games),
                });
            }
        }
        results
    }

    fn centred(x: &[f64]) -> Vec<f64> {
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        x.iter().map(|v| v - mean).collect()
    }

    const TRUTH: [f64; 6] = [-150.0, -60.0, 0.0, 40.0, 75.0, 120.0];

    #[test]
    fn six_simulated_players_are_each_within_their_interval_of_the_truth() {
        let mut rng = ChaCha8Rng::seed_from_u64(2024);
        let results = round_robin(&mut rng, &TRUTH, 200);
        let fit = fit_ratings(6, &results, Anchor::PoolAverage).expect("a full round robin");
        assert!(!fit.regularized);
        for (i, truth) in centred(&TRUTH).into_iter().enumerate() {
            assert!(
                (fit.elo[i] - truth).abs() <= fit.error[i],
                "player {i}: fitted {:.1} ± {:.1}, truth {:.1}",
                fit.elo[i],
                fit.error[i],
                truth
            );
            assert_eq!(fit.games[i], 1000);
        }
        assert!(fit.elo.iter().sum::<f64>().abs() < 1e-9);
    }

    #[test]
    fn intervals_cover_the_truth_about_95_percent_of_the_time() {
        // 300 seeded tournaments × 6 players: the sandwich intervals should cover the
        // true (centred) rating close to 95 % of the time — not 80 %, not 99.9 %.
        let truth = centred(&TRUTH);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (mut covered, mut total) = (0, 0);
        for _ in 0..300 {
            let results = round_robin(&mut rng, &TRUTH, 60);
            let fit = fit_ratings(6, &results, Anchor::PoolAverage).expect("a round robin");
            for (i, truth) in truth.iter().enumerate() {
                total += 1;
                if (fit.elo[i] - truth).abs() <= fit.error[i] {
                    covered += 1;
                }
            }
        }
        let rate = covered as f64 / total as f64;
        assert!((0.92..=0.98).contains(&rate), "coverage {rate}");
    }

    #[test]
    fn two_players_match_the_pairwise_estimate() {
        for wdl in [
            Wdl::new(136, 111, 96),
            Wdl::new(76, 123, 89),
            Wdl::new(400, 300, 300),
            Wdl::new(300, 0, 100),
        ] {
            let pairwise = wdl.estimate().expect("games were played");
            let fit = fit_ratings(2, &[PairResult { a: 0, b: 1, wdl }], Anchor::PoolAverage)
                .expect("two players who played");
            assert!(!fit.regularized);
            let difference = fit.elo[0] - fit.elo[1];
            assert!(
                (difference - pairwise.elo).abs() < 1e-6,
                "{wdl}: {difference} vs {}",
                pairwise.elo
            );
            // Each player's error is half the difference's (they are tied by the
            // average); the difference's error is the delta-method form of the pairwise
            // interval: within 1 % of it for these hundreds of games (0.1-0.75 % here; the
            // two part when the score interval is wide: 8 % apart at 30-0-10).
            assert!((fit.error[0] - fit.error[1]).abs() < 1e-9);
            let difference_error = 2.0 * fit.error[0];
            let relative = (difference_error - pairwise.elo_error).abs() / pairwise.elo_error;
            assert!(
                relative < 0.01,
                "{wdl}: error {difference_error} vs {}",
                pairwise.elo_error
            );
            // Anchoring player 1 puts the whole difference's error on player 0.
            let anchored = fit_ratings(
                2,
                &[PairResult { a: 0, b: 1, wdl }],
                Anchor::Player {
                    index: 1,
                    elo: 1500.0,
                },
            )
            .expect("two players who played");
            assert_eq!(anchored.elo[1], 1500.0);
            assert_eq!(anchored.error[1], 0.0);
            assert!((anchored.elo[0] - 1500.0 - pairwise.elo).abs() < 1e-6);
            assert!((anchored.error[0] - difference_error).abs() < 1e-9);
        }
    }

    #[test]
    fn all_drawn_games_keep_an_error_that_shrinks_with_the_games() {
        let error = |games: u64| {
            let fit = fit_ratings(2, &[pair(0, 1, 0, games, 0)], Anchor::PoolAverage)
                .expect("two players who played");
            assert_eq!((fit.elo[0], fit.elo[1]), (0.0, 0.0));
            fit.error[0]
        };
        // The rule of three: 3 decisive games' spread in N. For 100 games the score's
        // standard error is √0.75 / 100, 6.0 Elo at even odds (695 Elo per unit of score),
        // 11.8 at 95 %, half of it per player.
        let hundred = error(100);
        assert!((hundred - 11.8 / 2.0).abs() < 0.2, "{hundred}");
        assert!(error(400) < hundred / 3.5, "{} vs {hundred}", error(400));
        // One decisive game in a hundred is no more certain than none.
        let one = fit_ratings(2, &[pair(0, 1, 1, 99, 0)], Anchor::PoolAverage).unwrap();
        assert!(
            one.error[0] >= hundred * 0.99,
            "{} vs {hundred}",
            one.error[0]
        );
        // Many decisive games are untouched by the floor: φ is their own spread, and the
        // difference's error is the pairwise one (within 1 % at a thousand games).
        let normal = fit_ratings(2, &[pair(0, 1, 400, 200, 400)], Anchor::PoolAverage).unwrap();
        let pairwise = Wdl::new(400, 200, 400).estimate().unwrap();
        let relative = (2.0 * normal.error[0] - pairwise.elo_error).abs() / pairwise.elo_error;
        assert!(
            relative < 0.01,
            "{} vs {}",
            2.0 * normal.error[0],
            pairwise.elo_error
        );
    }

    #[test]
    fn results_add_up_in_either_order() {
        let split = [
            pair(0, 1, 10, 5, 3),
            pair(1, 0, 4, 2, 6),
            pair(1, 2, 7, 7, 7),
            pair(2, 0, 3, 1, 2),
        ];
        let joined = [
            pair(0, 1, 16, 7, 7),
            pair(1, 2, 7, 7, 7),
            pair(0, 2, 2, 1, 3),
        ];
        let a = fit_ratings(3, &split, Anchor::PoolAverage).expect("connected");
        let b = fit_ratings(3, &joined, Anchor::PoolAverage).expect("connected");
        for i in 0..3 {
            assert!((a.elo[i] - b.elo[i]).abs() < 1e-9);
            assert!((a.error[i] - b.error[i]).abs() < 1e-9);
        }
        assert_eq!(a.games, vec![36, 51, 27]);
        assert!((a.score[0] - 22.0 / 36.0).abs() < 1e-12);
    }

    #[test]
    fn a_perfect_score_is_regularized_not_infinite() {
        // Player 0 won every game; the plain maximum-likelihood rating would be +∞.
        let results = [
            pair(0, 1, 20, 0, 0),
            pair(0, 2, 20, 0, 0),
            pair(1, 2, 10, 5, 5),
        ];
        let fit = fit_ratings(3, &results, Anchor::PoolAverage).expect("connected");
        assert!(fit.regularized);
        assert!(
            fit.elo.iter().chain(&fit.error).all(|x| x.is_finite()),
            "{fit:?}"
        );
        assert!(
            fit.elo[0] > fit.elo[1] + 300.0 && fit.elo[1] > fit.elo[2],
            "{fit:?}"
        );
        // The interval of a rating that data alone cannot bound stays wide.
        assert!(fit.error[0] > 150.0, "{fit:?}");
        assert_eq!(fit.score[0], 1.0);
        // And from the loser's side, with two players.
        let fit = fit_ratings(2, &[pair(0, 1, 0, 0, 9)], Anchor::PoolAverage).expect("connected");
        assert!(fit.regularized && fit.elo[0] < -200.0 && fit.elo[0].is_finite());
    }

    #[test]
    fn disconnected_players_are_an_error() {
        let results = [pair(0, 1, 3, 3, 3), pair(2, 3, 1, 1, 1)];
        let err = fit_ratings(5, &results, Anchor::PoolAverage).expect_err("disconnected");
        assert_eq!(
            err,
            RatingsError::Disconnected {
                groups: vec![vec![0, 1], vec![2, 3], vec![4]]
            }
        );
        assert!(
            err.to_string().contains("{0, 1} and {2, 3} and {4}"),
            "{err}"
        );
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(matches!(
            fit_ratings(1, &[], Anchor::PoolAverage),
            Err(RatingsError::TooFewPlayers { players: 1 })
        ));
        assert!(matches!(
            fit_ratings(2, &[pair(0, 2, 1, 0, 0)], Anchor::PoolAverage),
            Err(RatingsError::PlayerOutOfRange { player: 2, .. })
        ));
        assert!(matches!(
            fit_ratings(2, &[pair(1, 1, 1, 0, 0)], Anchor::PoolAverage),
            Err(RatingsError::SelfPairing { player: 1, .. })
        ));
        for anchor in [
            Anchor::Player { index: 2, elo: 0.0 },
            Anchor::Player {
                index: 0,
                elo: f64::NAN,
            },
        ] {
            assert!(matches!(
                fit_ratings(2, &[pair(0, 1, 1, 1, 1)], anchor),
                Err(RatingsError::BadAnchor(_))
            ));
        }
    }

    #[test]
    fn a_gauntlet_is_connected_through_its_hub() {
        // Player 0 meets everyone; the others never meet each other.
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let truth = [0.0, -100.0, 50.0, 200.0];
        let results: Vec<PairResult> = (1..4)
            .map(|b| PairResult {
                a: 0,
                b,
                wdl: simulate(&mut rng, truth[0], truth[b], 300),
            })
            .collect();
        let fit = fit_ratings(4, &results, Anchor::Player { index: 0, elo: 0.0 })
            .expect("connected through player 0");
        for b in 1..4 {
            let pairwise = results[b - 1].wdl.estimate().expect("games");
            // In a gauntlet each rating is its own match's Elo against the hub.
            assert!((fit.elo[b] + pairwise.elo).abs() < 1e-6);
            assert!((fit.elo[b] - truth[b]).abs() <= fit.error[b], "{fit:?}");
        }
    }

    proptest::proptest! {
        /// Any results either fit to finite ratings and intervals or are disconnected:
        /// no NaN, no panic, no hang, however lopsided.
        #[test]
        fn any_results_fit_or_are_disconnected(
            players in 2usize..6,
            raw in proptest::collection::vec((0usize..6, 0usize..6, 0u64..30, 0u64..5, 0u64..30), 0..12),
        ) {
            let results: Vec<PairResult> = raw
                .iter()
                .filter(|(a, b, ..)| a % players != b % players)
                .map(|&(a, b, w, d, l)| pair(a % players, b % players, w, d, l))
                .collect();
            match fit_ratings(players, &results, Anchor::PoolAverage) {
                Ok(fit) => {
                    for i in 0..players {
                        proptest::prop_assert!(fit.elo[i].is_finite() && fit.error[i].is_finite(), "{:?}", fit);
                        proptest::prop_assert!(fit.games[i] > 0);
                    }
                    proptest::prop_assert!(fit.elo.iter().sum::<f64>().abs() < 1e-6);
                }
                Err(e) => proptest::prop_assert!(matches!(e, RatingsError::Disconnected { .. }), "{}", e),
            }
        }
    }
}
