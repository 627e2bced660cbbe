//! The fit itself, knowing nothing of games or files: positions as features with a
//! label, the loss of `sigmoid(K · eval)` against the labels (mean squared or log
//! error) with its exact gradient, K fitted by a one-dimensional search, and the weights
//! by Adam in coordinates scaled to each parameter's range, clipped to the bounds.
//!
//! Every sum over positions is taken in chunks of a fixed size, in parallel, and the
//! chunks' results added in chunk order: the result does not depend on the number of
//! threads, so a fit is the same on any machine with the same binary.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{
    features::{AtaxxFeatures, LINES_WIDTH, LinesFeatures, PointCell, mnk_slot, point_score},
    net::{NetLayout, symmetric, symmetry_of},
};
use crate::eval::patterns::PATTERN_COUNT;

/// Positions per chunk of a parallel sum (fixed: the order of additions depends on it).
const CHUNK: usize = 512;

/// The features of a set of positions, one family.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Features {
    /// None yet.
    #[default]
    Empty,
    /// Gomoku `lines`.
    Lines(Vec<LinesFeatures>),
    /// Gomoku `points`: the cells of position `i` are `cells[bounds[i][0]..bounds[i][2]]`,
    /// the side to move's up to `bounds[i][1]`.
    Points {
        /// Every candidate cell of every position.
        cells: Vec<PointCell>,
        /// Per position: start, end of the side to move's cells, end.
        bounds: Vec<[u32; 3]>,
    },
    /// Ataxx.
    Ataxx(Vec<AtaxxFeatures>),
}

/// Positions with their labels: 1 the side to move won, ½ drawn, 0 lost (or any
/// probability, for synthetic data).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dataset {
    /// The features.
    pub features: Features,
    /// One per position.
    pub labels: Vec<f32>,
}

/// What is minimised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Loss {
    /// Mean squared error of the predicted score (Texel's original).
    #[default]
    Mse,
    /// Mean log error (cross-entropy).
    Log,
}

fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// ln(1 + e^z) without overflow.
fn softplus(z: f64) -> f64 {
    z.max(0.0) + (-z.abs()).exp().ln_1p()
}

impl Loss {
    /// The loss of score `e` against label `y` and its derivative in `e`.
    #[inline]
    fn of(self, e: f64, y: f64, k: f64) -> (f64, f64) {
        let z = k * e;
        let p = sigmoid(z);
        match self {
            Loss::Mse => ((p - y) * (p - y), 2.0 * (p - y) * p * (1.0 - p) * k),
            Loss::Log => (softplus(z) - y * z, k * (p - y)),
        }
    }

    /// The name in configs.
    pub fn as_str(self) -> &'static str {
        match self {
            Loss::Mse => "mse",
            Loss::Log => "log",
        }
    }
}

impl Dataset {
    /// Positions.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Adds the positions of `other` (same family) after these.
    pub fn extend(&mut self, other: Dataset) {
        let features = std::mem::take(&mut self.features);
        self.features = match (features, other.features) {
            (Features::Empty, f) | (f, Features::Empty) => f,
            (Features::Lines(mut a), Features::Lines(b)) => {
                a.extend(b);
                Features::Lines(a)
            }
            (Features::Ataxx(mut a), Features::Ataxx(b)) => {
                a.extend(b);
                Features::Ataxx(a)
            }
            (
                Features::Points {
                    mut cells,
                    mut bounds,
                },
                Features::Points {
                    cells: c2,
                    bounds: b2,
                },
            ) => {
                let base = cells.len() as u32;
                cells.extend(c2);
                bounds.extend(b2.into_iter().map(|b| b.map(|v| v + base)));
                Features::Points { cells, bounds }
            }
            _ => unreachable!("one fit reads one game family"),
        };
        self.labels.extend(other.labels);
    }

    /// Score of position `i` under the full weight vector `w`.
    pub fn eval(&self, i: usize, w: &[f64]) -> f64 {
        self.eval_grad(i, w, 0.0, &mut [], 0)
    }

    /// Score of position `i` under `w`; adds `factor · ∂score/∂w` to `grad` unless
    /// `factor` is 0. An Ataxx table's `[net]` sees the stones under board symmetry
    /// `symmetry` (0 as they are; the terms are the same in every symmetry).
    #[inline]
    fn eval_grad(
        &self,
        i: usize,
        w: &[f64],
        factor: f64,
        grad: &mut [f64],
        symmetry: usize,
    ) -> f64 {
        match &self.features {
            Features::Empty => 0.0,
            Features::Lines(x) => {
                let f = &x[i];
                let slot = |j: usize| match j {
                    PATTERN_COUNT => mnk_slot::CENTRE,
                    j if j > PATTERN_COUNT => mnk_slot::CELL_DOUBLE_FOUR + j - PATTERN_COUNT - 1,
                    j => j,
                };
                let side = |row: &[u16]| -> f64 {
                    (1..LINES_WIDTH)
                        .map(|j| w[slot(j)] * f64::from(row[j]))
                        .sum()
                };
                let (ours, theirs) = (side(&f[0]), side(&f[1]));
                let d = w[mnk_slot::DEFENCE];
                if factor != 0.0 {
                    for j in 1..LINES_WIDTH {
                        grad[slot(j)] += factor * (d * f64::from(f[0][j]) - f64::from(f[1][j]));
                    }
                    grad[mnk_slot::DEFENCE] += factor * ours;
                }
                d * ours - theirs
            }
            Features::Points { cells, bounds } => {
                let [a, b, c] = bounds[i].map(|v| v as usize);
                let best = |side: &[PointCell]| -> (f64, Option<usize>) {
                    let mut best = (0.0, None);
                    for (k, cell) in side.iter().enumerate() {
                        let s = point_score(w, cell);
                        if s > best.0 {
                            best = (s, Some(k));
                        }
                    }
                    best
                };
                let (mine, theirs) = (&cells[a..b], &cells[b..c]);
                let ((ours, om), (their, tm)) = (best(mine), best(theirs));
                let d = w[mnk_slot::DEFENCE];
                if factor != 0.0 {
                    let mut add = |cell: &PointCell, by: f64| {
                        for &p in &cell[..4] {
                            grad[usize::from(p)] += by;
                        }
                        grad[mnk_slot::CENTRE] += by * f64::from(cell[4]);
                        let [df, ft, dt] = super::features::combos(cell);
                        for (on, slot) in [
                            (df, mnk_slot::DOUBLE_FOUR),
                            (ft, mnk_slot::FOUR_THREE),
                            (dt, mnk_slot::DOUBLE_THREE),
                        ] {
                            if on {
                                grad[slot] += by;
                            }
                        }
                    };
                    if let Some(k) = om {
                        add(&mine[k], factor * d);
                    }
                    if let Some(k) = tm {
                        add(&theirs[k], -factor);
                    }
                    grad[mnk_slot::DEFENCE] += factor * ours;
                }
                d * ours - their
            }
            Features::Ataxx(x) => {
                // weight + phase · endgame change, per term.
                let f = &x[i];
                let (n, phase) = (f.terms.len(), f64::from(f.phase));
                let mut e = 0.0;
                for (j, &v) in f.terms.iter().enumerate() {
                    let v = f64::from(v);
                    e += (w[j] + phase * w[n + j]) * v;
                    if factor != 0.0 {
                        grad[j] += factor * v;
                        grad[n + j] += factor * phase * v;
                    }
                }
                // The table's [net], when the weights hold one after the terms.
                if let Some(layout) = NetLayout::of_len(w.len() - 2 * n) {
                    let g = if factor != 0.0 {
                        &mut grad[2 * n..]
                    } else {
                        &mut [][..]
                    };
                    let stones = symmetric(f.stones, symmetry);
                    e += layout.eval_grad(&w[2 * n..], stones, phase, factor, g);
                }
                e
            }
        }
    }

    /// Mean loss over the positions `idx` (every position when `None`) and, when
    /// `with_grad`, its gradient in the full weight vector.
    pub fn loss(
        &self,
        idx: Option<&[u32]>,
        w: &[f64],
        k: f64,
        loss: Loss,
        with_grad: bool,
    ) -> (f64, Vec<f64>) {
        self.loss_in(idx, w, k, loss, with_grad, None)
    }

    /// [`Dataset::loss`], with an Ataxx net seeing each position `i` in the board
    /// symmetry [`symmetry_of`]`(key, i)` when `symmetries` holds a key.
    pub fn loss_in(
        &self,
        idx: Option<&[u32]>,
        w: &[f64],
        k: f64,
        loss: Loss,
        with_grad: bool,
        symmetries: Option<u64>,
    ) -> (f64, Vec<f64>) {
        let n = idx.map_or(self.len(), <[u32]>::len);
        if n == 0 {
            return (0.0, vec![0.0; w.len()]);
        }
        let parts: Vec<(f64, Vec<f64>)> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let mut sum = 0.0;
                let mut grad = vec![0.0; if with_grad { w.len() } else { 0 }];
                for j in c * CHUNK..n.min((c + 1) * CHUNK) {
                    let i = idx.map_or(j, |idx| idx[j] as usize);
                    let y = f64::from(self.labels[i]);
                    let symmetry = symmetries.map_or(0, |key| symmetry_of(key, i));
                    let e = self.eval_grad(i, w, 0.0, &mut [], symmetry);
                    let (l, dl) = loss.of(e, y, k);
                    sum += l;
                    if with_grad && dl != 0.0 {
                        self.eval_grad(i, w, dl, &mut grad, symmetry);
                    }
                }
                (sum, grad)
            })
            .collect();
        let mut total = 0.0;
        let mut grad = vec![0.0; w.len()];
        for (s, g) in parts {
            total += s;
            for (a, b) in grad.iter_mut().zip(&g) {
                *a += b;
            }
        }
        let scale = 1.0 / n as f64;
        (total * scale, grad.into_iter().map(|g| g * scale).collect())
    }

    /// The mean absolute score under `w` (the scale K is sought around).
    pub fn mean_abs_eval(&self, w: &[f64]) -> f64 {
        let n = self.len();
        let parts: Vec<f64> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                (c * CHUNK..n.min((c + 1) * CHUNK))
                    .map(|i| self.eval(i, w).abs())
                    .sum()
            })
            .collect();
        parts.iter().sum::<f64>() / n.max(1) as f64
    }
}

/// Fits K for the weights `w`: a scan of log K over 20 orders of magnitude around the
/// inverse of the mean absolute score, then golden-section refinement. None when every
/// position scores 0 (no K can tell the labels apart).
pub fn fit_k(data: &Dataset, w: &[f64], loss: Loss) -> Option<f64> {
    let scale = data.mean_abs_eval(w);
    if !(scale.is_finite() && scale > 0.0) {
        return None;
    }
    let centre = (1.0 / scale).ln();
    let f = |t: f64| data.loss(None, w, t.exp(), loss, false).0;
    let (lo, hi, steps) = (centre - 23.0, centre + 23.0, 93);
    let step = (hi - lo) / f64::from(steps - 1);
    let mut best = (f64::INFINITY, 0);
    for s in 0..steps {
        let v = f(lo + step * f64::from(s));
        if v < best.0 {
            best = (v, s);
        }
    }
    let (mut a, mut b) = (
        lo + step * (f64::from(best.1) - 1.0),
        lo + step * (f64::from(best.1) + 1.0),
    );
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = b - g * (b - a);
    let mut d = a + g * (b - a);
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..80 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = f(d);
        }
    }
    Some(((a + b) / 2.0).exp())
}

/// One fitted parameter: its place in the full weight vector and its bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct FreeParam {
    /// Index into the full weight vector.
    pub slot: usize,
    /// Lowest value.
    pub min: f64,
    /// Highest value.
    pub max: f64,
    /// Adam's step for it as a multiple of the fit's (1 for a table's weights, whose
    /// step is a fraction of their range; a net's numbers step in their own units).
    pub step: f64,
}

impl FreeParam {
    /// A table's weight in `slot`, within `min..=max`.
    pub fn weight(slot: usize, min: f64, max: f64) -> FreeParam {
        FreeParam {
            slot,
            min,
            max,
            step: 1.0,
        }
    }
}

/// Settings of the weight fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// What is minimised.
    pub loss: Loss,
    /// Adam's step, as a fraction of each parameter's range.
    pub lr: f64,
    /// Positions per step.
    pub batch: usize,
    /// Seed of each epoch's order of positions.
    pub seed: u64,
    /// An Ataxx net sees each position of a step in a board symmetry drawn by the seed,
    /// the epoch and the position (`[net] symmetries`).
    pub symmetries: bool,
}

/// Adam's state, in coordinates `u = (θ − min) / (max − min)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Adam {
    /// The parameters, each in 0..=1.
    #[serde(with = "f64_bits")]
    pub u: Vec<f64>,
    /// First moments.
    #[serde(with = "f64_bits")]
    pub m: Vec<f64>,
    /// Second moments.
    #[serde(with = "f64_bits")]
    pub v: Vec<f64>,
    /// Steps taken.
    pub t: u64,
}

const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPS: f64 = 1e-12;

impl Adam {
    /// At the parameters `theta`.
    pub fn new(params: &[FreeParam], theta: &[f64]) -> Adam {
        Adam {
            u: params
                .iter()
                .zip(theta)
                .map(|(p, &t)| ((t - p.min) / (p.max - p.min)).clamp(0.0, 1.0))
                .collect(),
            m: vec![0.0; params.len()],
            v: vec![0.0; params.len()],
            t: 0,
        }
    }

    /// The parameters in their own units.
    pub fn theta(&self, params: &[FreeParam]) -> Vec<f64> {
        params
            .iter()
            .zip(&self.u)
            .map(|(p, &u)| p.min + u * (p.max - p.min))
            .collect()
    }

    fn step(&mut self, params: &[FreeParam], grad_theta: &[f64], lr: f64) {
        self.t += 1;
        let t = self.t as i32;
        for (j, p) in params.iter().enumerate() {
            let g = grad_theta[j] * (p.max - p.min);
            self.m[j] = BETA1 * self.m[j] + (1.0 - BETA1) * g;
            self.v[j] = BETA2 * self.v[j] + (1.0 - BETA2) * g * g;
            let m_hat = self.m[j] / (1.0 - BETA1.powi(t));
            let v_hat = self.v[j] / (1.0 - BETA2.powi(t));
            self.u[j] = (self.u[j] - lr * p.step * m_hat / (v_hat.sqrt() + EPS)).clamp(0.0, 1.0);
        }
    }
}

/// `base` with the free parameters set to `theta`.
pub fn full_weights(base: &[f64], params: &[FreeParam], theta: &[f64]) -> Vec<f64> {
    let mut w = base.to_vec();
    for (p, &t) in params.iter().zip(theta) {
        w[p.slot] = t;
    }
    w
}

/// The order of the training positions in epoch `epoch` (counted from 1): a
/// Fisher-Yates shuffle seeded by the seed and the epoch alone.
pub fn epoch_order(n: usize, seed: u64, epoch: u64) -> Vec<u32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(epoch);
    let mut order: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    order
}

/// The step size of epoch `epoch` (from 1) of `epochs`: from `lr` down to `lr / 20`
/// along a half cosine.
pub fn lr_at(lr: f64, epoch: u64, epochs: u64) -> f64 {
    let x = (epoch.saturating_sub(1)) as f64 / epochs.max(1) as f64;
    let floor = lr / 20.0;
    floor + (lr - floor) * 0.5 * (1.0 + (std::f64::consts::PI * x).cos())
}

/// One epoch of Adam over `train` in batches, in the epoch's order.
pub fn run_epoch(
    train: &Dataset,
    base: &[f64],
    params: &[FreeParam],
    k: f64,
    settings: &Settings,
    adam: &mut Adam,
    epoch: u64,
) {
    let order = epoch_order(train.len(), settings.seed, epoch);
    let symmetries = settings.symmetries.then(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(settings.seed ^ 0x5E77_1C4E);
        rng.set_stream(epoch);
        rng.random::<u64>()
    });
    for batch in order.chunks(settings.batch.max(1)) {
        let w = full_weights(base, params, &adam.theta(params));
        let (_, grad) = train.loss_in(Some(batch), &w, k, settings.loss, true, symmetries);
        let g: Vec<f64> = params.iter().map(|p| grad[p.slot]).collect();
        adam.step(params, &g, settings.lr);
    }
}

/// `f64`s written as their bits (hex), so a checkpoint reads back exactly.
pub use crate::jobs::checkpoint::exact::bits as f64_bits;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        eval::{Evaluator, MnkTable, mnk::MnkEval, patterns::Pattern, table::MnkEvaluation},
        game::{Ataxx, Game, Mnk, MnkConfig},
        tune::fit::features::{
            ATAXX_SLOTS, ataxx_features, lines_features, mnk_weights, points_features,
        },
    };

    /// Features of positions from random games (moves near the stones), both modes.
    fn mnk_data(points: bool, positions: usize, seed: u64) -> Dataset {
        let config = MnkConfig::gomoku();
        let mut table = MnkTable::zero();
        if points {
            table.evaluation = MnkEvaluation::Points;
        }
        let mut eval = MnkEval::new(&config, &table, 2);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut data = Dataset::default();
        let mut moves = Vec::new();
        while data.len() < positions {
            let mut pos = Mnk::new(&config);
            for _ in 0..rng.random_range(4..50) {
                eval.reset(&pos);
                eval.candidates(&pos, &mut moves);
                let mv = moves[rng.random_range(0..moves.len())];
                let mut next = pos.clone();
                next.play(mv);
                if next.outcome().is_some() {
                    break;
                }
                pos = next;
            }
            eval.reset(&pos);
            let label = rng.random_range(0..3) as f32 / 2.0;
            let one = Dataset {
                features: if points {
                    let [a, b] = points_features(&eval, &pos);
                    let bounds = vec![[0, a.len() as u32, (a.len() + b.len()) as u32]];
                    Features::Points {
                        cells: a.into_iter().chain(b).collect(),
                        bounds,
                    }
                } else {
                    Features::Lines(vec![lines_features(&eval, &pos)])
                },
                labels: vec![label],
            };
            data.extend(one);
        }
        data
    }

    fn ataxx_data(positions: usize, seed: u64) -> Dataset {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut x = Vec::new();
        let mut labels = Vec::new();
        let mut moves = Vec::new();
        while x.len() < positions {
            let mut pos = Ataxx::default();
            for _ in 0..rng.random_range(1..80) {
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                let mut next = pos;
                next.play(moves[rng.random_range(0..moves.len())]);
                if next.outcome().is_some() {
                    break;
                }
                pos = next;
            }
            x.push(ataxx_features(&pos));
            labels.push(rng.random_range(0..3) as f32 / 2.0);
        }
        Dataset {
            features: Features::Ataxx(x),
            labels,
        }
    }

    fn seed003() -> Vec<f64> {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/configs/tables/gomoku/seed003.toml"
        ))
        .unwrap();
        let crate::eval::Table::Mnk(t) = crate::eval::Table::parse("seed003", &text).unwrap()
        else {
            unreachable!("seed003 is an m,n,k table")
        };
        mnk_weights(&t).to_vec()
    }

    /// Random weights around seed 003's, not whole numbers (no ties between points).
    fn jiggle(base: &[f64], rng: &mut ChaCha8Rng) -> Vec<f64> {
        base.iter()
            .enumerate()
            .map(|(i, &v)| {
                if i == 0 {
                    0.0
                } else if i == mnk_slot::DEFENCE {
                    rng.random_range(0.5..2.5)
                } else {
                    v * rng.random_range(0.5..1.5) + rng.random_range(-30.0..30.0)
                }
            })
            .collect()
    }

    /// Checks the analytic gradient against central differences at every slot where
    /// the loss is smooth; returns (slots checked, slots skipped). A `points` score is
    /// a maximum over cells: where a step of ±h changes which cell is best, the loss
    /// has a kink there and no difference quotient is a gradient (the two one-sided
    /// quotients then disagree, and such a slot is skipped, not passed).
    fn check_gradient(data: &Dataset, w: &[f64], k: f64, slots: &[usize]) -> (usize, usize) {
        let (mut checked, mut skipped) = (0, 0);
        for loss in [Loss::Mse, Loss::Log] {
            let (_, grad) = data.loss(None, w, k, loss, true);
            for &s in slots {
                let h = (w[s].abs() * 1e-4).max(1e-3);
                let at = |d: f64| {
                    let mut v = w.to_vec();
                    v[s] += d;
                    data.loss(None, &v, k, loss, false).0
                };
                let (up, mid, down) = (at(h), at(0.0), at(-h));
                let numeric = (up - down) / (2.0 * h);
                // Relative error, plus what rounding in the loss costs the difference.
                let tol = 1e-4 * numeric.abs().max(grad[s].abs()) + 1e-12 / h;
                let (forward, backward) = ((up - mid) / h, (mid - down) / h);
                if (forward - backward).abs() > 1e-3 * forward.abs().max(backward.abs()) + 2e-12 / h
                {
                    skipped += 1;
                    continue;
                }
                checked += 1;
                assert!(
                    (numeric - grad[s]).abs() <= tol,
                    "{loss:?} slot {s}: analytic {} numeric {numeric}",
                    grad[s]
                );
            }
        }
        (checked, skipped)
    }

    #[test]
    fn the_analytic_gradient_equals_a_finite_difference_on_random_tables() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let lines = mnk_data(false, 400, 1);
        let points = mnk_data(true, 150, 2);
        let mnk_slots: Vec<usize> = (1..mnk_slot::COUNT).collect();
        let mut tally = (0, 0);
        let mut add = |(checked, skipped): (usize, usize)| {
            tally = (tally.0 + checked, tally.1 + skipped);
        };
        for _ in 0..4 {
            let w = jiggle(&seed003(), &mut rng);
            let k = 1.0 / lines.mean_abs_eval(&w);
            add(check_gradient(&lines, &w, k, &mnk_slots));
            let k = 1.0 / points.mean_abs_eval(&w);
            add(check_gradient(&points, &w, k, &mnk_slots));
        }
        let ataxx = ataxx_data(400, 3);
        for _ in 0..4 {
            // Every weight and every endgame change (the phase scales the latter).
            let w: Vec<f64> = (0..ATAXX_SLOTS)
                .map(|_| rng.random_range(-50.0..150.0))
                .collect();
            let k = 1.0 / ataxx.mean_abs_eval(&w);
            add(check_gradient(
                &ataxx,
                &w,
                k,
                &(0..ATAXX_SLOTS).collect::<Vec<_>>(),
            ));
        }
        // Kinks (and curvature that one-sided quotients see) are rare: nearly every
        // slot is checked.
        assert!(tally.1 * 20 <= tally.0, "{tally:?} (checked, skipped)");
    }

    /// Fits `free` slots from a start where each is off by up to 40 %, on labels made
    /// from `planted` by sigmoid(k · eval). Every weight that some position reads is
    /// free, so K and the weights trade scale: what must come back is K · weight.
    fn recover(mut data: Dataset, planted: &[f64], free: &[usize], loss: Loss) {
        let k_true = 1.5 / data.mean_abs_eval(planted);
        for i in 0..data.len() {
            data.labels[i] = sigmoid(k_true * data.eval(i, planted)) as f32;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let params: Vec<FreeParam> = free
            .iter()
            .map(|&slot| {
                let v = planted[slot];
                FreeParam::weight(slot, v - 2.0 * v.abs() - 1.0, v + 2.0 * v.abs() + 1.0)
            })
            .collect();
        let start: Vec<f64> = params
            .iter()
            .map(|p| planted[p.slot] * rng.random_range(0.6..1.4))
            .collect();
        let base = full_weights(planted, &params, &start);
        let k = fit_k(&data, &base, loss).expect("positions score something");
        let settings = Settings {
            loss,
            lr: 0.003,
            batch: 256,
            seed: 5,
            symmetries: false,
        };
        let mut adam = Adam::new(&params, &start);
        let epochs = 300;
        for epoch in 1..=epochs {
            let settings = Settings {
                lr: lr_at(settings.lr, epoch, epochs),
                ..settings
            };
            run_epoch(&data, &base, &params, k, &settings, &mut adam, epoch);
        }
        let fitted = adam.theta(&params);
        for (p, v) in params.iter().zip(&fitted) {
            let (want, got) = (k_true * planted[p.slot], k * v);
            assert!(
                (got - want).abs() <= 0.03 * want.abs() + 1e-3,
                "{loss:?} slot {}: K·w {got} but planted {want} (K {k} vs {k_true})",
                p.slot
            );
        }
    }

    #[test]
    fn a_net_sees_positions_in_their_symmetries_when_asked() {
        let data = ataxx_data(2000, 31);
        let layout = NetLayout { hidden: 4 };
        let n = ATAXX_SLOTS / 2;
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut terms = vec![0.0; 2 * n];
        terms[..3].copy_from_slice(&[100.0, 3.0, 4.0]);
        let with = |net: Vec<f64>| -> Vec<f64> { terms.iter().copied().chain(net).collect() };
        // A net whose input weights depend only on a square's distances from the centre
        // file and rank (either way round) scores every symmetry of a board alike.
        let mut symmetric_net: Vec<f64> = (0..layout.numbers())
            .map(|_| rng.random_range(-0.3..0.3))
            .collect();
        let ring: Vec<f64> = (0..layout.hidden * 16)
            .map(|_| rng.random_range(-0.3..0.3))
            .collect();
        for sq in 0..49 {
            let (f, r) = ((sq % 7) as i32 - 3, (sq / 7) as i32 - 3);
            let (a, b) = (f.abs().min(r.abs()), f.abs().max(r.abs()));
            for (side, sign) in [(0, 1.0), (1, -1.0)] {
                for j in 0..layout.hidden {
                    let v = ring[(a * 4 + b) as usize * layout.hidden + j] * sign;
                    symmetric_net[(side * 49 + sq) * layout.hidden + j] = v;
                }
            }
        }
        let w = with(symmetric_net);
        let k = 1.0 / data.mean_abs_eval(&w);
        let plain = data.loss(None, &w, k, Loss::Mse, true);
        let turned = data.loss_in(None, &w, k, Loss::Mse, true, Some(9));
        assert!(
            (plain.0 - turned.0).abs() < 1e-12,
            "{} {}",
            plain.0,
            turned.0
        );
        // A net that is not symmetric scores the turned positions otherwise, and each
        // position as the net scores its own symmetry (drawn by the key alone).
        let w = with(
            (0..layout.numbers())
                .map(|_| rng.random_range(-0.3..0.3))
                .collect(),
        );
        let (plain, turned) = (
            data.loss(None, &w, k, Loss::Mse, false).0,
            data.loss_in(None, &w, k, Loss::Mse, false, Some(9)).0,
        );
        assert!((plain - turned).abs() > 1e-6, "{plain} {turned}");
        let Features::Ataxx(x) = &data.features else {
            unreachable!()
        };
        let by_hand: f64 = (0..data.len())
            .map(|i| {
                let f = &x[i];
                let mut e = 0.0;
                for (j, &v) in f.terms.iter().enumerate() {
                    e += (w[j] + f64::from(f.phase) * w[n + j]) * f64::from(v);
                }
                let stones = symmetric(f.stones, symmetry_of(9, i));
                e += layout.eval_grad(&w[2 * n..], stones, f64::from(f.phase), 0.0, &mut []);
                Loss::Mse.of(e, f64::from(data.labels[i]), k).0
            })
            .sum::<f64>()
            / data.len() as f64;
        assert!((turned - by_hand).abs() < 1e-12, "{turned} {by_hand}");
        // An epoch with symmetries is fixed by the seed, and moves the net otherwise.
        let params: Vec<FreeParam> = (2 * n..w.len())
            .map(|slot| FreeParam::weight(slot, -2.0, 2.0))
            .collect();
        let start: Vec<f64> = params.iter().map(|p| w[p.slot]).collect();
        let epoch = |symmetries: bool| {
            let settings = Settings {
                loss: Loss::Mse,
                lr: 0.01,
                batch: 128,
                seed: 3,
                symmetries,
            };
            let mut adam = Adam::new(&params, &start);
            run_epoch(&data, &w, &params, k, &settings, &mut adam, 1);
            adam.theta(&params)
        };
        assert_eq!(epoch(true), epoch(true));
        assert_ne!(epoch(true), epoch(false));
    }

    #[test]
    fn the_fit_recovers_a_planted_table_from_synthetic_labels() {
        let mut planted = seed003();
        planted[mnk_slot::DEFENCE] = 1.3;
        planted[mnk_slot::CENTRE] = 20.0;
        planted[Pattern::DeadOne as usize] = 3.0;
        // A five ends the game: no position holds one, so its weight cannot be fitted.
        let free: Vec<usize> = (1..=mnk_slot::CENTRE)
            .filter(|&s| s != Pattern::Five as usize)
            .chain([mnk_slot::DEFENCE])
            .collect();
        recover(mnk_data(false, 3000, 9), &planted, &free, Loss::Mse);
        recover(mnk_data(false, 3000, 10), &planted, &free, Loss::Log);
        let mut ataxx = [0.0; ATAXX_SLOTS];
        ataxx[..8].copy_from_slice(&[100.0, 3.0, 4.0, -6.0, 12.0, 3.0, 200.0, 6.0]);
        recover(
            ataxx_data(3000, 12),
            &ataxx,
            &[0, 1, 2, 3, 4, 5, 6, 7],
            Loss::Mse,
        );
        // Material worth less and mobility more as the board fills (endgame changes),
        // fitted with every weight (all free, as above: K and the weights trade scale).
        let mut tapered = ataxx;
        let (material_change, mobility_change) = (ATAXX_SLOTS / 2, ATAXX_SLOTS / 2 + 2);
        tapered[material_change] = -30.0;
        tapered[mobility_change] = 8.0;
        recover(
            ataxx_data(3000, 15),
            &tapered,
            &[0, 1, 2, 3, 4, 5, 6, 7, material_change, mobility_change],
            Loss::Mse,
        );
        // The inner square classes with material and the corner, the edge term at 0:
        // every square class adds up to the material, so with the edge (or the edge
        // classes) also free the weights would not be determined.
        ataxx[5] = 0.0;
        ataxx[12..18].copy_from_slice(&[8.0, -4.0, 5.0, 10.0, -6.0, 12.0]);
        recover(
            ataxx_data(3000, 13),
            &ataxx,
            &[0, 2, 3, 4, 6, 7, 12, 13, 14, 15, 16, 17],
            Loss::Mse,
        );
        // The holes with one to four stones around them, with material and tempo.
        let mut holes = [0.0; ATAXX_SLOTS];
        holes[..8].copy_from_slice(&[100.0, 0.0, 0.0, 0.0, 0.0, 0.0, 200.0, 6.0]);
        holes[18..22].copy_from_slice(&[-5.0, -12.0, -25.0, -45.0]);
        recover(
            ataxx_data(3000, 14),
            &holes,
            &[0, 6, 7, 18, 19, 20, 21],
            Loss::Mse,
        );
    }

    #[test]
    fn sums_do_not_depend_on_the_thread_count() {
        let data = mnk_data(false, 3000, 4);
        let w = seed003();
        let k = 1.0 / data.mean_abs_eval(&w);
        let on = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| data.loss(None, &w, k, Loss::Mse, true))
        };
        let one = on(1);
        assert_eq!(one.0.to_bits(), on(3).0.to_bits());
        assert_eq!(one.1, on(7).1);
    }

    #[test]
    fn checkpoint_floats_read_back_exactly() {
        let adam = Adam {
            u: vec![0.1 + 0.2, 1.0 / 3.0, f64::MIN_POSITIVE],
            m: vec![-0.0, 1e-300, 123.456],
            v: vec![7.0; 3],
            t: 9,
        };
        let text = serde_json::to_string(&adam).unwrap();
        let back: Adam = serde_json::from_str(&text).unwrap();
        assert_eq!(
            back.u.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            adam.u.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(back, adam);
    }
}
