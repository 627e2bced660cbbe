//! SPSA exactly as fishtest and OpenBench run it (see `TUNING.md`): the gain sequences,
//! the flips, the plus and minus points (clipped; integers by stochastic rounding), and
//! the update from game-pair results, in batches that share one flip vector.
//!
//! This module owns the algorithm and its state and nothing else: it knows no games, no
//! engines and no files. Playing a pair is the caller's job ([`Spsa::next_batch`] hands
//! out [`PairJob`]s, [`Spsa::apply`] takes their [`PairOutcome`]s), so the algorithm can be
//! tested on a simulated match whose answer is known.
//!
//! Every random draw is a pure function of (seed, batch index) or (seed, pair index), made
//! with its own ChaCha stream, never a running generator: a run resumed from a checkpoint
//! draws exactly what an uninterrupted run would have drawn.

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::stats::{GameScore, Penta};

/// ChaCha stream of the flip vectors (one draw per batch).
const STREAM_FLIP: u64 = 0x7475_6e65_0001;
/// ChaCha stream of the stochastic-rounding offsets (one draw per pair).
const STREAM_ROUNDING: u64 = 0x7475_6e65_0002;

/// Integer parameters are perturbed by at least this much, so that after rounding the
/// plus and minus engines never play the same value (OpenBench).
pub const MIN_INTEGER_C: f64 = 0.5;

/// Why a parameter's range, start or gains cannot be tuned: `key` is the parameter's key
/// at fault (`min`, `start`, `c_end` or `r_end`; `min` also for a fault of `max`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ParamError {
    /// The key at fault.
    pub key: &'static str,
    /// What is wrong.
    pub message: String,
}

impl ParamError {
    fn new(key: &'static str, message: String) -> ParamError {
        ParamError { key, message }
    }
}

/// Why the settings cannot work: `key` is the setting at fault (`pairs`, `batch`,
/// `a_ratio`, `alpha` or `gamma`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("key `{key}`: {message}")]
pub struct SettingError {
    /// The key at fault.
    pub key: &'static str,
    /// What is wrong.
    pub message: String,
}

impl SettingError {
    fn new(key: &'static str, message: String) -> SettingError {
        SettingError { key, message }
    }
}

/// Why SPSA cannot be set up, or a batch cannot be applied.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpsaError {
    /// A setting out of its range.
    #[error(transparent)]
    Setting(#[from] SettingError),
    /// Nothing to tune.
    #[error("no parameters to tune")]
    NoParams,
    /// A parameter's range, start or gains are unusable.
    #[error("parameter `{name}`: {error}")]
    Param {
        /// The parameter.
        name: String,
        /// What is wrong.
        error: ParamError,
    },
    /// Gains that overflow at the edges of f64.
    #[error(
        "parameter `{name}`: c_end = {c_end} and r_end = {r_end} give gains that are not \
         finite numbers (c = {c}, a = {a}): use a smaller range or c_end"
    )]
    Gains {
        /// The parameter.
        name: String,
        /// Its c_end.
        c_end: f64,
        /// Its r_end.
        r_end: f64,
        /// The gain c.
        c: f64,
        /// The gain a.
        a: f64,
    },
    /// A step that would make θ something other than a number.
    #[error(
        "pair {k}: θ of `{name}` would become {theta} (θ {from} + step {step}, R_k {r_k}, \
         c_k {c_k}); nothing of batch {batch} is applied"
    )]
    NotANumber {
        /// The pair (1-based).
        k: u64,
        /// The parameter.
        name: String,
        /// The θ it would become.
        theta: f64,
        /// θ before the step.
        from: f64,
        /// The step.
        step: f64,
        /// R_k.
        r_k: f64,
        /// c_k.
        c_k: f64,
        /// The batch (0-based).
        batch: u64,
    },
}

/// One parameter to tune.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// The named parameter (`table.open_three`).
    pub name: String,
    /// Lowest value the engines may play.
    pub min: f64,
    /// Highest value the engines may play.
    pub max: f64,
    /// The value tuning starts from.
    pub start: f64,
    /// Perturbation at the last pair (`c_k` at k = N).
    pub c_end: f64,
    /// Learning rate at the last pair (`R_k` at k = N).
    pub r_end: f64,
    /// Whether the engine takes whole numbers only (stochastic rounding).
    pub integer: bool,
}

impl Param {
    /// `c_end` as Stockfish's `tune.cpp` suggests it: a twentieth of the range.
    pub fn default_c_end(min: f64, max: f64) -> f64 {
        (max - min) / 20.0
    }

    /// `r_end` as Stockfish's `tune.cpp` suggests it.
    pub const DEFAULT_R_END: f64 = 0.002;

    /// Checks the range, the start and the gains; the message names the fault.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.min.is_finite() && self.max.is_finite()) {
            return Err(ParamError::new(
                "min",
                format!(
                    "min and max must be finite numbers, got {} and {}",
                    self.min, self.max
                ),
            ));
        }
        if self.min >= self.max {
            return Err(ParamError::new(
                "min",
                format!("min ({}) must be less than max ({})", self.min, self.max),
            ));
        }
        if self.integer && (self.min.fract() != 0.0 || self.max.fract() != 0.0) {
            return Err(ParamError::new(
                "min",
                format!(
                    "an integer parameter needs whole min and max, got {} and {}",
                    self.min, self.max
                ),
            ));
        }
        if !(self.start >= self.min && self.start <= self.max) {
            return Err(ParamError::new(
                "start",
                format!(
                    "the start value {} is outside [min, max] = [{}, {}]; widen the range, or \
                 move the start with `set`",
                    self.start, self.min, self.max
                ),
            ));
        }
        if !(self.c_end > 0.0 && self.c_end.is_finite()) {
            return Err(ParamError::new(
                "c_end",
                format!("c_end must be positive, got {}", self.c_end),
            ));
        }
        // The plus and minus engines play θ ± c_k (c_k ≥ c_end): past half the range at
        // least one of them always sits at a bound, whatever θ is.
        let half = (self.max - self.min) / 2.0;
        if self.c_end > half {
            return Err(ParamError::new(
                "c_end",
                format!(
                    "c_end = {} is more than half the range ((max - min) / 2 = {half}): the \
                 plus and minus engines would play the bounds, not θ ± c_end (the usual \
                 c_end is (max - min) / 20 = {})",
                    self.c_end,
                    Self::default_c_end(self.min, self.max)
                ),
            ));
        }
        if !(self.r_end > 0.0 && self.r_end.is_finite()) {
            return Err(ParamError::new(
                "r_end",
                format!("r_end must be positive, got {}", self.r_end),
            ));
        }
        // At the last pair a won game moves θ by r_end · c_end: more than half the range
        // in one game is a jump from bound to bound, never a convergence.
        if self.r_end * self.c_end > half {
            return Err(ParamError::new(
                "r_end",
                format!(
                    "r_end = {} is too large: one game at the end would move θ by r_end × \
                 c_end = {}, more than half the range ({half}); Stockfish's suggestion is \
                 {}",
                    self.r_end,
                    self.r_end * self.c_end,
                    Self::DEFAULT_R_END
                ),
            ));
        }
        Ok(())
    }

    /// `x` clipped to `[min, max]`.
    pub fn clip(&self, x: f64) -> f64 {
        x.clamp(self.min, self.max)
    }

    /// The tuned value of `theta`: clipped, and rounded to the nearest whole number for
    /// integer parameters, or for floats to three significant digits of `c_end` (finer
    /// than SPSA can tell apart, and a number people can read: `1.174`, not
    /// `1.1737343748044293`).
    pub fn value(&self, theta: f64) -> f64 {
        let x = self.clip(theta);
        if self.integer {
            return x.round().clamp(self.min, self.max);
        }
        let decimals = (2.0 - self.c_end.log10().floor()).clamp(0.0, 15.0) as usize;
        format!("{x:.decimals$}")
            .parse::<f64>()
            .map_or(x, |v| v.clamp(self.min, self.max))
    }
}

/// The run's settings (TUNING.md's names).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Total game pairs N (iterations).
    pub pairs: u64,
    /// Pairs per batch: they share a flip vector and are played in parallel.
    pub batch: u64,
    /// A = a_ratio · N.
    pub a_ratio: f64,
    /// Decay of the learning rate: a / (A + k)^alpha.
    pub alpha: f64,
    /// Decay of the perturbation: c / k^gamma.
    pub gamma: f64,
    /// Master seed of every random draw.
    pub seed: u64,
}

impl Settings {
    /// fishtest's defaults for the constants, with N pairs in batches of `batch`.
    pub fn new(pairs: u64, batch: u64, seed: u64) -> Settings {
        Settings {
            pairs,
            batch,
            a_ratio: 0.1,
            alpha: 0.602,
            gamma: 0.101,
            seed,
        }
    }

    /// Checks the settings; the message names the key at fault.
    pub fn validate(&self) -> Result<(), SettingError> {
        if self.pairs == 0 {
            return Err(SettingError::new("pairs", "must be at least 1".into()));
        }
        if self.batch == 0 {
            return Err(SettingError::new("batch", "must be at least 1".into()));
        }
        // The ranges in which SPSA's gains make sense (Spall): the learning rate
        // a / (A + k)^α must shrink, but not so fast that its sum stays finite (α ≤ 1:
        // past that θ stops moving long before the end, and (A + N)^α overflows); the
        // perturbation c / k^γ must shrink more slowly than the learning rate (γ < α),
        // or the steps R_k · c_k never get smaller; A is a share of N, not a multiple.
        if !(self.a_ratio >= 0.0 && self.a_ratio <= 1.0) {
            return Err(SettingError::new(
                "a_ratio",
                format!(
                    "must be from 0 to 1 (A = a_ratio × pairs; fishtest's is \
                 0.1), got {}",
                    self.a_ratio
                ),
            ));
        }
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return Err(SettingError::new(
                "alpha",
                format!(
                    "must be more than 0 and at most 1 (the learning rate's decay \
                 a / (A + k)^alpha; fishtest's is 0.602), got {}",
                    self.alpha
                ),
            ));
        }
        if !(self.gamma > 0.0 && self.gamma < self.alpha) {
            return Err(SettingError::new(
                "gamma",
                format!(
                    "must be more than 0 and less than alpha = {} (the \
                 perturbation's decay c / k^gamma must be slower than the learning rate's; \
                 fishtest's is 0.101), got {}",
                    self.alpha, self.gamma
                ),
            ));
        }
        Ok(())
    }
}

/// One game pair to play: the plus engine's and the minus engine's values.
#[derive(Clone, Debug, PartialEq)]
pub struct PairJob {
    /// The iteration k, 1-based (pair index k - 1).
    pub k: u64,
    /// The batch it belongs to (0-based).
    pub batch: u64,
    /// θ the batch was drawn around (unrounded).
    pub theta: Vec<f64>,
    /// Per parameter: +1 or -1.
    pub flip: Vec<f64>,
    /// Per parameter: the perturbation c_k.
    pub c_k: Vec<f64>,
    /// Per parameter: the learning rate R_k.
    pub r_k: Vec<f64>,
    /// Per parameter: what the plus engine plays (θ + c_k·flip, clipped and rounded).
    pub plus: Vec<f64>,
    /// Per parameter: what the minus engine plays (θ - c_k·flip, clipped and rounded).
    pub minus: Vec<f64>,
}

/// The plus engine's results in the two games of a pair (same opening, colours swapped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairOutcome {
    /// The plus engine's result in the game it moved first, then in the other (against
    /// the minus engine, or against the opponent when the tune has one).
    pub plus: [GameScore; 2],
    /// With an opponent: the minus engine's results against it on the same opening, in
    /// the same order.
    pub minus: Option<[GameScore; 2]>,
}

/// Wins minus losses in two games: -2..=2.
fn net(scores: &[GameScore; 2]) -> i32 {
    scores
        .iter()
        .map(|s| match s {
            GameScore::Win => 1,
            GameScore::Draw => 0,
            GameScore::Loss => -1,
        })
        .sum()
}

impl PairOutcome {
    /// Against each other: the plus engine's wins minus losses, -2..=2. Against an
    /// opponent: the plus engine's wins minus losses less the minus engine's, -4..=4.
    /// Both have the same expectation for the same strength difference between plus
    /// and minus (near even: 4·(p₊ − p₋) where p is a game's expected score), so the
    /// gains need no other scale.
    pub fn result(&self) -> i32 {
        net(&self.plus) - self.minus.as_ref().map_or(0, net)
    }
}

/// θ after a batch: a row of the trajectory.
#[derive(Clone, Debug, PartialEq)]
pub struct TrajectoryRow {
    /// Pairs played so far.
    pub pairs: u64,
    /// Every parameter's θ.
    pub theta: Vec<f64>,
}

/// Everything a run needs to continue: what a checkpoint holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Current θ (unrounded), one per parameter.
    #[serde(with = "crate::jobs::checkpoint::exact::decimal")]
    pub theta: Vec<f64>,
    /// Pairs played and applied (k of the last applied pair).
    pub pairs_done: u64,
    /// Batches played and applied.
    pub batches_done: u64,
    /// The plus engine's game pairs, pentanomial (LL, LD, WL+DD, WD, WW): against the
    /// minus engine, or against the opponent when the tune has one.
    pub penta: Penta,
    /// With an opponent: the minus engine's game pairs against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minus_penta: Option<Penta>,
}

impl State {
    /// θ now, as a trajectory row.
    pub fn row(&self) -> TrajectoryRow {
        TrajectoryRow {
            pairs: self.pairs_done,
            theta: self.theta.clone(),
        }
    }
}

/// SPSA over a list of parameters, with the gain constants worked out once.
#[derive(Clone, Debug)]
pub struct Spsa {
    params: Vec<Param>,
    settings: Settings,
    /// A = a_ratio · N.
    big_a: f64,
    /// Per parameter: c = c_end · N^γ.
    c: Vec<f64>,
    /// Per parameter: a = r_end · c_end² · (A + N)^α.
    a: Vec<f64>,
}

impl Spsa {
    /// Sets up the gains: c = c_end·N^γ, a_end = r_end·c_end², a = a_end·(A + N)^α with
    /// A = a_ratio·N.
    pub fn new(params: Vec<Param>, settings: Settings) -> Result<Spsa, SpsaError> {
        settings.validate()?;
        if params.is_empty() {
            return Err(SpsaError::NoParams);
        }
        for p in &params {
            p.validate().map_err(|error| SpsaError::Param {
                name: p.name.clone(),
                error,
            })?;
        }
        let n = settings.pairs as f64;
        let big_a = settings.a_ratio * n;
        let c = params
            .iter()
            .map(|p| p.c_end * n.powf(settings.gamma))
            .collect();
        let a = params
            .iter()
            .map(|p| p.r_end * p.c_end * p.c_end * (big_a + n).powf(settings.alpha))
            .collect();
        let spsa = Spsa {
            params,
            settings,
            big_a,
            c,
            a,
        };
        // The ranges above keep the gains finite; numbers at the edge of f64 (a range
        // of 1e200) could still overflow, and a gain that is not a number would make θ
        // one.
        for (i, p) in spsa.params.iter().enumerate() {
            let gains = [spsa.c[i], spsa.a[i], spsa.c_k(i, 1), spsa.r_k(i, 1)];
            if gains.iter().any(|g| !(g.is_finite() && *g > 0.0)) {
                return Err(SpsaError::Gains {
                    name: p.name.clone(),
                    c_end: p.c_end,
                    r_end: p.r_end,
                    c: spsa.c[i],
                    a: spsa.a[i],
                });
            }
        }
        Ok(spsa)
    }

    /// The parameters.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// A = a_ratio · N.
    pub fn big_a(&self) -> f64 {
        self.big_a
    }

    /// Parameter `i`'s c (the perturbation at k = 1).
    pub fn c(&self, i: usize) -> f64 {
        self.c[i]
    }

    /// Parameter `i`'s a (the learning-rate numerator).
    pub fn a(&self, i: usize) -> f64 {
        self.a[i]
    }

    /// Number of batches: ⌈N / batch⌉.
    pub fn batches(&self) -> u64 {
        self.settings.pairs.div_ceil(self.settings.batch)
    }

    /// c_k = c / k^γ for parameter `i` (at least [`MIN_INTEGER_C`] for integers).
    pub fn c_k(&self, i: usize, k: u64) -> f64 {
        let c = self.c[i] / (k as f64).powf(self.settings.gamma);
        if self.params[i].integer {
            c.max(MIN_INTEGER_C)
        } else {
            c
        }
    }

    /// R_k = a / (A + k)^α / c_k² for parameter `i`.
    pub fn r_k(&self, i: usize, k: u64) -> f64 {
        let c_k = self.c_k(i, k);
        self.a[i] / (self.big_a + k as f64).powf(self.settings.alpha) / (c_k * c_k)
    }

    /// The state before the first pair: θ at every start value.
    pub fn start_state(&self) -> State {
        State {
            theta: self.params.iter().map(|p| p.start).collect(),
            pairs_done: 0,
            batches_done: 0,
            penta: Penta::default(),
            minus_penta: None,
        }
    }

    /// Whether every pair has been played.
    pub fn finished(&self, state: &State) -> bool {
        state.pairs_done >= self.settings.pairs
    }

    /// The flip vector of batch `b`: +1 or -1 per parameter.
    pub fn flips(&self, batch: u64) -> Vec<f64> {
        let mut rng = draw_rng(self.settings.seed, STREAM_FLIP, batch);
        self.params
            .iter()
            .map(|_| if rng.random::<bool>() { 1.0 } else { -1.0 })
            .collect()
    }

    /// The pairs of the next batch (empty when the run is finished), from θ now.
    pub fn next_batch(&self, state: &State) -> Vec<PairJob> {
        let b = state.batches_done;
        let first = b * self.settings.batch + 1;
        let last = ((b + 1) * self.settings.batch).min(self.settings.pairs);
        if first > last {
            return Vec::new();
        }
        let flip = self.flips(b);
        (first..=last)
            .map(|k| self.job(state, b, k, &flip))
            .collect()
    }

    fn job(&self, state: &State, batch: u64, k: u64, flip: &[f64]) -> PairJob {
        let mut rng = draw_rng(self.settings.seed, STREAM_ROUNDING, k);
        let n = self.params.len();
        let mut job = PairJob {
            k,
            batch,
            theta: state.theta.clone(),
            flip: flip.to_vec(),
            c_k: Vec::with_capacity(n),
            r_k: Vec::with_capacity(n),
            plus: Vec::with_capacity(n),
            minus: Vec::with_capacity(n),
        };
        for (i, p) in self.params.iter().enumerate() {
            let c_k = self.c_k(i, k);
            let plus = p.clip(state.theta[i] + c_k * flip[i]);
            let minus = p.clip(state.theta[i] - c_k * flip[i]);
            // Drawn for every parameter so that the draws of one do not depend on the
            // types of the others.
            let u: f64 = rng.random();
            let (plus, minus) = if p.integer {
                // floor(x + u) with the same u for both sides: unbiased, and 2·c_k ≥ 1
                // keeps the sides apart. Whole bounds keep the result inside them.
                ((plus + u).floor(), (minus + u).floor())
            } else {
                (plus, minus)
            };
            job.c_k.push(c_k);
            job.r_k.push(self.r_k(i, k));
            job.plus.push(plus);
            job.minus.push(minus);
        }
        job
    }

    /// Applies a batch's results in pair order: θ ← clip(θ + R_k·c_k·result·flip) for
    /// each pair k. Returns θ after the batch, as a trajectory row; or, when a step would
    /// make θ something other than a finite number, an error naming the parameter and
    /// the pair, with `state` left as it was (the last good checkpoint stands).
    ///
    /// # Panics
    /// If `jobs` is not the batch [`Spsa::next_batch`] gave for `state`, or `outcomes`
    /// does not hold one outcome per job (caller bugs, not input).
    pub fn apply(
        &self,
        state: &mut State,
        jobs: &[PairJob],
        outcomes: &[PairOutcome],
    ) -> Result<TrajectoryRow, SpsaError> {
        assert_eq!(
            jobs.len(),
            outcomes.len(),
            "one outcome per pair of the batch"
        );
        assert!(
            jobs.first()
                .is_none_or(|j| j.k == state.pairs_done + 1 && j.batch == state.batches_done),
            "the batch applied is the next one"
        );
        let mut next = state.clone();
        for (job, outcome) in jobs.iter().zip(outcomes) {
            let result = f64::from(outcome.result());
            for (i, p) in self.params.iter().enumerate() {
                let step = job.r_k[i] * job.c_k[i] * result * job.flip[i];
                let theta = p.clip(next.theta[i] + step);
                if !theta.is_finite() {
                    return Err(SpsaError::NotANumber {
                        k: job.k,
                        name: p.name.clone(),
                        theta,
                        from: next.theta[i],
                        step,
                        r_k: job.r_k[i],
                        c_k: job.c_k[i],
                        batch: job.batch,
                    });
                }
                next.theta[i] = theta;
            }
            next.penta.add_pair(outcome.plus[0], outcome.plus[1]);
            if let Some([a, b]) = outcome.minus {
                next.minus_penta.get_or_insert_default().add_pair(a, b);
            }
            next.pairs_done = job.k;
        }
        next.batches_done += 1;
        *state = next;
        Ok(state.row())
    }

    /// The values the tuned engine plays: θ clipped, integers rounded.
    pub fn values(&self, state: &State) -> Vec<f64> {
        self.params
            .iter()
            .zip(&state.theta)
            .map(|(p, &t)| p.value(t))
            .collect()
    }

    /// Runs every remaining batch on this thread with `play` (for simulations and
    /// tests; the tuner plays batches in parallel itself). Returns θ after each batch.
    pub fn run_serial(
        &self,
        state: &mut State,
        mut play: impl FnMut(&PairJob) -> PairOutcome,
    ) -> Vec<TrajectoryRow> {
        let mut rows = Vec::new();
        loop {
            let jobs = self.next_batch(state);
            if jobs.is_empty() {
                return rows;
            }
            let outcomes: Vec<PairOutcome> = jobs.iter().map(&mut play).collect();
            rows.push(
                self.apply(state, &jobs, &outcomes)
                    .expect("validated settings keep θ finite"),
            );
        }
    }
}

/// A generator for draw `index` of `stream` under `seed`: its own ChaCha8 key, taken
/// from word `2·index` of the stream, so no draw depends on another.
fn draw_rng(seed: u64, stream: u64, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng.set_word_pos(u128::from(index) * 2);
    ChaCha8Rng::seed_from_u64(rng.next_u64())
}

#[cfg(test)]
mod tests;
