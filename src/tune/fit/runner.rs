//! Running a fit: self-play games first when the config asks (a normal results folder,
//! `<out>/selfplay/`, played and resumed by the tournament runner), then the positions
//! of every record, K fitted for the base table, then the weights by Adam for the
//! configured epochs with a checkpoint after each; the outputs are written from the
//! checkpoint, and a verification match of the fitted engine against the base engine is
//! played through the tournament runner.
//!
//! Every step is a pure function of the records, the config and the seed (see
//! [`super::model`] for the sums), so a fit ends with the same table on any number of
//! threads, and a resumed fit with the table of an uninterrupted one. The runner does not
//! print: it reports [`FitEvent`]s to a sink.

use std::{
    path::{Path, PathBuf},
    sync::atomic::Ordering,
    time::{Duration, Instant},
};

use serde::{Deserialize, Serialize};

use super::{
    config::{Fit, FitParam},
    features::{ATAXX_SLOTS, ataxx_weights, mnk_weights},
    model::{Adam, FreeParam, Loss, Settings, fit_k, full_weights, lr_at, run_epoch},
    net::NetLayout,
    positions::{Counts, FeatureSource, Positions, Selection, read_positions},
    stream::{StreamSpec, Streamed},
};
use crate::{
    eval::{Table, net::AtaxxNet},
    game::GameSpec,
    jobs::{
        JobOptions,
        checkpoint::{damaged, read_json},
        folder::{JobFolder, first_difference, write_atomic, write_report},
        pool::worker_count,
    },
    protocol::EngineSpec,
    tournament::{self, runner::Ending},
    tune::{
        TuneError,
        output::{MadeBy, VerificationReport, tuned_engine, tuned_table_named},
        verify::{MatchPlan, Verifiable},
    },
};
pub use crate::{
    jobs::folder::{CONFIG_FILE, STATE_FILE},
    tune::verify::VERIFICATION_DIR,
};

/// The numbers.
pub const REPORT_FILE: &str = "fit.json";
/// The base table with the fitted values.
pub const TABLE_FILE: &str = "fitted.toml";
/// The base engine pointing at the fitted table.
pub const ENGINE_FILE: &str = "fitted-engine.toml";
/// θ per epoch (for the report).
pub const TRAJECTORY_FILE: &str = "trajectory.csv";
/// The self-play games.
pub const SELFPLAY_DIR: &str = "selfplay";

/// What the fit reports while it works.
#[derive(Debug)]
pub enum FitEvent<'a> {
    /// A self-play event (the tournament runner's).
    Selfplay(&'a tournament::Event<'a>),
    /// The positions are read.
    Positions {
        /// Used and skipped.
        counts: &'a Counts,
        /// Seconds it took.
        seconds: f64,
    },
    /// The fit proper starts (or resumes).
    Started {
        /// Epochs in the fit.
        epochs: u64,
        /// Epochs already done (resume).
        done: u64,
        /// The fitted K.
        k: f64,
        /// Worker threads.
        jobs: usize,
    },
    /// An epoch ended and was checkpointed.
    Epoch {
        /// Its row.
        row: &'a EpochRow,
        /// Epochs in the fit.
        epochs: u64,
        /// The values after it (integers rounded).
        values: &'a [f64],
    },
}

/// Losses after an epoch (epoch 0: the base table).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpochRow {
    /// Epoch, from 1 (0: before the first).
    pub epoch: u64,
    /// Mean training loss.
    pub train: f64,
    /// Mean validation loss (0 without validation positions).
    pub validation: f64,
    /// The parameters after it (θ, before rounding).
    #[serde(default)]
    pub values: Vec<f64>,
}

/// The checkpoint: everything a resumed fit needs, floats as their bits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitState {
    /// The resolved config it belongs to.
    pub config: String,
    /// Training and validation positions it was fitted on (the records must not change).
    pub positions: [u64; 2],
    /// K, as bits.
    pub k_bits: u64,
    /// Epochs done.
    pub epoch: u64,
    /// The optimiser.
    pub adam: Adam,
    /// Losses so far, from epoch 0.
    pub history: Vec<EpochRow>,
    /// Seconds of fitting so far (all sessions).
    pub elapsed_s: f64,
}

impl FitState {
    /// Reads `dir`'s checkpoint (None when there is none), checked against the fit
    /// it must belong to: `epochs` in the fit and its parameters `params`. A damaged
    /// value is named with its line (`state.json:LINE: key ...`).
    pub fn read(
        dir: &Path,
        epochs: u64,
        params: &[FitParam],
        fitted: usize,
    ) -> Result<Option<FitState>, TuneError> {
        let path = dir.join(STATE_FILE);
        let Some((state, text)) = read_json::<FitState>(&path, "a fit checkpoint")? else {
            return Ok(None);
        };
        state
            .check(epochs, params, fitted)
            .map_err(|(key, why)| damaged(&path, &text, key, why))?;
        Ok(Some(state))
    }

    /// What a checkpoint of a fit of `epochs` epochs over `params` must hold: a
    /// positive, finite K; as many epochs as the fit has at most, and a loss row for
    /// each, numbered in order, whose values (one per parameter, or none in older
    /// checkpoints) lie within the parameters' ranges; an optimiser with one finite value
    /// per fitted number (`fitted`: the parameters and a fitted net's numbers; u in
    /// 0..=1, second moments not negative) that has taken a step for each epoch done.
    fn check(
        &self,
        epochs: u64,
        params: &[FitParam],
        fitted: usize,
    ) -> Result<(), (&'static str, String)> {
        let k = f64::from_bits(self.k_bits);
        if !(k.is_finite() && k > 0.0) {
            return Err(("k_bits", format!("K = {k} is not a positive number")));
        }
        if self.epoch > epochs {
            return Err((
                "epoch",
                format!("{} of a fit of {epochs} epochs", self.epoch),
            ));
        }
        if self.history.len() as u64 != self.epoch + 1 {
            return Err((
                "history",
                format!(
                    "{} rows for {} epochs (it must be one more)",
                    self.history.len(),
                    self.epoch
                ),
            ));
        }
        if let Some(row) = self.history.iter().find(|r| {
            !(r.train.is_finite() && r.validation.is_finite())
                || r.values.iter().any(|v| !v.is_finite())
        }) {
            return Err((
                "history",
                format!("epoch {} holds a value that is not a number", row.epoch),
            ));
        }
        for (i, row) in self.history.iter().enumerate() {
            if row.epoch != i as u64 {
                return Err((
                    "history",
                    format!(
                        "row {} is epoch {} (rows go 0, 1, 2, ...)",
                        i + 1,
                        row.epoch
                    ),
                ));
            }
            if !row.values.is_empty() && row.values.len() != params.len() {
                return Err((
                    "history",
                    format!(
                        "epoch {} holds {} values for {} parameters",
                        row.epoch,
                        row.values.len(),
                        params.len()
                    ),
                ));
            }
            // θ stays in [min, max] (Adam works in u = (θ - min) / (max - min) in
            // 0..=1); a little slack for the rounding of that map.
            for (p, &v) in params.iter().zip(&row.values) {
                let slack = 1e-9 * (p.max - p.min);
                if v < p.min - slack || v > p.max + slack {
                    return Err((
                        "history",
                        format!(
                            "epoch {}: {} = {v} is outside its range [{}, {}]",
                            row.epoch, p.name, p.min, p.max
                        ),
                    ));
                }
            }
        }
        let adam = &self.adam;
        for (key, values) in [("u", &adam.u), ("m", &adam.m), ("v", &adam.v)] {
            if values.len() != fitted {
                return Err((
                    key,
                    format!("{} values for {fitted} fitted numbers", values.len()),
                ));
            }
            if let Some(x) = values.iter().find(|x| !x.is_finite()) {
                return Err((key, format!("{x} is not a number")));
            }
        }
        if adam.u.iter().any(|u| !(0.0..=1.0).contains(u)) || adam.v.iter().any(|v| *v < 0.0) {
            return Err(("adam", "a value is outside its range".into()));
        }
        if (adam.t == 0) != (self.epoch == 0) {
            return Err(("t", format!("{} steps after {} epochs", adam.t, self.epoch)));
        }
        if !(self.elapsed_s.is_finite() && self.elapsed_s >= 0.0) {
            return Err(("elapsed_s", format!("{} is not a duration", self.elapsed_s)));
        }
        Ok(())
    }
}

/// One parameter in `fit.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitParamReport {
    /// `table.open_three`.
    pub name: String,
    /// The base table's value.
    pub start: f64,
    /// The fitted value (rounded when the table takes whole numbers).
    pub value: f64,
    /// Lowest value.
    pub min: f64,
    /// Highest value.
    pub max: f64,
    /// Whole numbers only.
    pub integer: bool,
}

/// Everything `fit.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitReport {
    /// Run name.
    pub name: String,
    /// Base engine.
    pub engine: String,
    /// The game.
    pub game: String,
    /// Master seed.
    pub seed: u64,
    /// `mse` or `log`.
    pub loss: String,
    /// The fitted scale: the predicted score is sigmoid(K · eval).
    pub k: f64,
    /// Epochs done.
    pub epochs_done: u64,
    /// Epochs in the fit.
    pub epochs: u64,
    /// Whether every epoch is done.
    pub finished: bool,
    /// Positions used and skipped, and why.
    pub positions: Counts,
    /// Per parameter.
    pub params: Vec<FitParamReport>,
    /// Losses per epoch (epoch 0: the base table).
    pub history: Vec<EpochRow>,
    /// Training and validation loss of the written table (values rounded).
    pub final_loss: EpochRow,
    /// Seconds of fitting (all sessions; self-play not included).
    pub elapsed_s: f64,
    /// Self-play games read, when the fit played them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selfplay_games: Option<u64>,
    /// The verification match, once played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<VerificationReport>,
}

impl FitReport {
    /// Reads `dir`'s `fit.json`.
    pub fn read(dir: &Path) -> Result<FitReport, TuneError> {
        let path = dir.join(REPORT_FILE);
        match read_json(&path, "a fit's report")? {
            Some((report, _)) => Ok(report),
            None => Err(TuneError::Input(format!("{}: not found", path.display()))),
        }
    }
}

/// Why the fit ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FitEnding {
    /// Every epoch is done.
    Complete,
    /// Stopped on request; `--resume` continues.
    Interrupted,
}

/// The result of a fit.
#[derive(Debug)]
pub struct FitOutcome {
    /// Why it ended.
    pub ending: FitEnding,
    /// `fit.json`'s contents (None when stopped before the first checkpoint).
    pub report: Option<FitReport>,
    /// The results folder.
    pub out_dir: PathBuf,
    /// Wall time of this session.
    pub elapsed: Duration,
}

/// The base table's weight vector and how positions become features.
fn base_weights(fit: &Fit) -> Result<(Vec<f64>, FeatureSource), TuneError> {
    match (&fit.base.table, fit.job.game) {
        (Some(Table::Mnk(t)), GameSpec::Mnk(config)) => Ok((
            mnk_weights(t).to_vec(),
            FeatureSource::Mnk {
                config,
                table: Box::new(t.clone()),
                radius: fit.base.search.radius as usize,
                shape: fit.base.search.shape,
            },
        )),
        (Some(Table::Ataxx(t)), GameSpec::Ataxx) => {
            let mut w = ataxx_weights(t).to_vec();
            // A fitted net's numbers follow the table's weights.
            if let Some(net) = &fit.net {
                w.extend_from_slice(&net.start);
            }
            Ok((w, FeatureSource::Ataxx))
        }
        _ => Err(TuneError::Input(format!(
            "the engine '{}' has no table for {}",
            fit.base.name, fit.job.game
        ))),
    }
}

/// The fitted numbers: the named parameters, then a fitted net's (each stepping
/// `[net] lr` in its own units, whatever its range).
fn free_params(fit: &Fit) -> Vec<FreeParam> {
    let mut params: Vec<FreeParam> = fit
        .params
        .iter()
        .map(|p| FreeParam::weight(p.slot, p.min, p.max))
        .collect();
    if let Some(net) = &fit.net {
        for i in 0..net.layout.numbers() {
            let (min, max) = net.layout.bounds(i);
            params.push(FreeParam {
                slot: ATAXX_SLOTS + i,
                min,
                max,
                step: net.lr / (fit.config.lr * (max - min)),
            });
        }
    }
    params
}

/// How many numbers a fit fits: its parameters and a fitted net's.
fn fitted_count(fit: &Fit) -> usize {
    fit.params.len() + fit.net.as_ref().map_or(0, |n| n.layout.numbers())
}

/// The fitted net of the fit's numbers `theta` (all of them, the named first), rounded
/// to the table's units; None when the fit has no net.
fn fitted_net(fit: &Fit, theta: &[f64]) -> Option<AtaxxNet> {
    let net = fit.net.as_ref()?;
    Some(net.layout.to_table(&theta[fit.params.len()..]))
}

/// The values the fitted table takes: θ, whole numbers rounded.
fn table_values(fit: &Fit, theta: &[f64]) -> Vec<f64> {
    fit.params
        .iter()
        .zip(theta)
        .map(|(p, &t)| if p.integer { t.round() } else { t })
        .collect()
}

/// Plays the self-play games (or resumes them); None when stopped.
fn selfplay(
    fit: &Fit,
    options: &JobOptions,
    sink: &mut dyn FnMut(&FitEvent<'_>),
) -> Result<Option<PathBuf>, TuneError> {
    let Some(s) = &fit.config.selfplay else {
        return Ok(None);
    };
    let dir = options.out_dir.join(SELFPLAY_DIR);
    let mut engines = Vec::new();
    for i in 1..=2 {
        let mut e = fit.base.clone();
        e.name = crate::engine::config::derived_name(&fit.base.name, &format!("-{i}"));
        e.set_all(s.set.iter().map(|(k, v)| (k, v.clone())))
            .map_err(|e| TuneError::Input(format!("[selfplay] set: {e}")))?;
        engines.push(e.into());
    }
    let t = fit.plan().tournament(
        "selfplay",
        s.pairs,
        s.seed.unwrap_or(fit.config.seed.wrapping_add(2)),
        engines,
    );
    let outcome = tournament::run(
        &t,
        &tournament::RunOptions::for_job(options, dir.clone()),
        &mut |e| sink(&FitEvent::Selfplay(e)),
    )?;
    Ok((outcome.ending == Ending::Complete).then_some(dir))
}

/// Runs (or resumes) a fit, writing a checkpoint and every output after each epoch.
pub fn run(
    fit: &Fit,
    options: &JobOptions,
    sink: &mut dyn FnMut(&FitEvent<'_>),
) -> Result<FitOutcome, TuneError> {
    let started = Instant::now();
    let out = &options.out_dir;
    let resolved = fit.resolved_toml();
    let (base, source) = base_weights(fit)?;
    let params = free_params(fit);
    let jobs = worker_count(options.jobs, fit.config.jobs, usize::MAX);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| TuneError::Input(format!("cannot start {jobs} worker threads: {e}")))?;

    let folder = JobFolder::claim(out, "arena fit", "fit", options.resume, &resolved)?;
    let existing = FitState::read(out, fit.config.epochs, &fit.params, fitted_count(fit))?;

    let interrupted = || FitOutcome {
        ending: FitEnding::Interrupted,
        report: None,
        out_dir: out.to_path_buf(),
        elapsed: started.elapsed(),
    };
    let mut folders = fit.games.clone();
    let selfplay_dir = match selfplay(fit, options, sink)? {
        Some(dir) => Some(dir),
        None if fit.config.selfplay.is_some() => return Ok(interrupted()),
        None => None,
    };
    folders.extend(selfplay_dir.iter().cloned());

    let read_started = Instant::now();
    let selection = Selection {
        skip_plies: fit.config.skip_plies,
        validation: fit.config.validation,
        seed: fit.config.seed,
        quiet_gain: Some(
            fit.config
                .quiet_gain
                .unwrap_or(super::config::DEFAULT_QUIET_GAIN),
        ),
    };
    let data = if fit.data.is_empty() {
        Data::Records(
            pool.install(|| read_positions(&folders, fit.job.game, &source, &selection))
                .map_err(|e| TuneError::Input(e.to_string()))?,
        )
    } else {
        let spec = StreamSpec {
            paths: &fit.data,
            source: &source,
            validation: fit.config.validation,
            seed: fit.config.seed,
            lambda: fit.config.lambda.unwrap_or(DEFAULT_LAMBDA),
            out,
        };
        Data::Streamed(
            pool.install(|| Streamed::build(&spec))
                .map_err(|e| TuneError::Input(e.to_string()))?,
        )
    };
    let counts = data.counts();
    sink(&FitEvent::Positions {
        counts: &counts,
        seconds: read_started.elapsed().as_secs_f64(),
    });
    let positions = data.sizes();
    if positions[0] == 0 {
        return Err(TuneError::Input(format!(
            "no training positions in {} game(s) (after skipping: {} in the opening, {} not \
             quiet, {} after a decisive score); play more games or lower skip_plies",
            counts.games, counts.opening, counts.not_quiet, counts.decisive
        )));
    }
    // Written once the inputs proved good: a fit that failed on a bad record leaves no
    // claim on the folder (the self-play games guard themselves with their own run.toml).
    folder.write_config(&resolved)?;
    let loss = fit.config.loss;
    let losses = |w: &[f64], k: f64| -> Result<EpochRow, TuneError> {
        let (train, validation) = pool.install(|| data.losses(w, k, loss))?;
        Ok(EpochRow {
            epoch: 0,
            train,
            validation,
            values: params[..fit.params.len()]
                .iter()
                .map(|p| w[p.slot])
                .collect(),
        })
    };
    let start_theta: Vec<f64> = fit
        .params
        .iter()
        .map(|p| p.start)
        .chain(fit.net.iter().flat_map(|n| n.start.iter().copied()))
        .collect();
    let mut state = match existing {
        Some(s) => {
            if s.config != resolved {
                return Err(TuneError::Input(format!(
                    "{}: the checkpoint belongs to another config ({}); resume needs the \
                     same config",
                    out.join(STATE_FILE).display(),
                    first_difference(&s.config, &resolved)
                )));
            }
            if s.positions != positions {
                return Err(TuneError::Input(format!(
                    "{}: fitted on {} + {} positions, the records now give {} + {}: the \
                     games changed since the fit began (start it afresh in another folder)",
                    out.join(STATE_FILE).display(),
                    s.positions[0],
                    s.positions[1],
                    positions[0],
                    positions[1]
                )));
            }
            s
        }
        None => {
            let k = pool.install(|| data.fit_k(&base, loss)).ok_or_else(|| {
                TuneError::Input(
                    "every training position scores 0 under the base table: no K can \
                         tell wins from losses"
                        .into(),
                )
            })?;
            let w0 = full_weights(&base, &params, &start_theta);
            let row = losses(&w0, k)?;
            let state = FitState {
                config: resolved.clone(),
                positions,
                k_bits: k.to_bits(),
                epoch: 0,
                adam: Adam::new(&params, &start_theta),
                history: vec![row],
                elapsed_s: 0.0,
            };
            folder.write_state(&state)?;
            state
        }
    };
    let k = f64::from_bits(state.k_bits);
    let selfplay_games =
        selfplay_dir.map(|_| u64::from(fit.config.selfplay.as_ref().map_or(0, |s| s.pairs)) * 2);
    // A finished fit resumed again keeps its verification match in fit.json.
    let kept = if state.epoch >= fit.config.epochs {
        FitReport::read(out).ok().and_then(|r| r.verification)
    } else {
        None
    };
    let mut report = write_outputs(fit, out, &state, &data, &base, selfplay_games, kept)?;
    sink(&FitEvent::Started {
        epochs: fit.config.epochs,
        done: state.epoch,
        k,
        jobs,
    });
    let mut ending = FitEnding::Complete;
    while state.epoch < fit.config.epochs {
        if options.stop.load(Ordering::Relaxed) {
            ending = FitEnding::Interrupted;
            break;
        }
        let epoch_started = Instant::now();
        let epoch = state.epoch + 1;
        let settings = Settings {
            loss,
            lr: lr_at(fit.config.lr, epoch, fit.config.epochs),
            batch: fit.config.batch,
            seed: fit.config.seed,
            symmetries: fit.net.as_ref().is_some_and(|n| n.symmetries),
        };
        let mut adam = state.adam.clone();
        pool.install(|| data.run_epoch(&base, &params, k, &settings, &mut adam, epoch))?;
        let w = full_weights(&base, &params, &adam.theta(&params));
        let mut row = losses(&w, k)?;
        row.epoch = epoch;
        state.adam = adam;
        state.epoch = epoch;
        state.history.push(row.clone());
        state.elapsed_s += epoch_started.elapsed().as_secs_f64();
        folder.write_state(&state)?;
        report = write_outputs(fit, out, &state, &data, &base, selfplay_games, None)?;
        let values = table_values(fit, &state.adam.theta(&params));
        sink(&FitEvent::Epoch {
            row: &row,
            epochs: fit.config.epochs,
            values: &values,
        });
    }
    Ok(FitOutcome {
        ending,
        report: Some(report),
        out_dir: out.to_path_buf(),
        elapsed: started.elapsed(),
    })
}

/// Writes `fitted.toml`, `fitted-engine.toml` and `fit.json` from the checkpoint.
fn write_outputs(
    fit: &Fit,
    out: &Path,
    state: &FitState,
    data: &Data,
    base: &[f64],
    selfplay_games: Option<u64>,
    verification: Option<VerificationReport>,
) -> Result<FitReport, TuneError> {
    let params = free_params(fit);
    let theta = state.adam.theta(&params);
    let values = table_values(fit, &theta);
    let net = fitted_net(fit, &theta);
    let k = f64::from_bits(state.k_bits);
    // The losses of what is written: the values rounded, the net in the table's units.
    let rounded: Vec<f64> = values
        .iter()
        .copied()
        .chain(net.iter().flat_map(NetLayout::from_table))
        .collect();
    let w = full_weights(base, &params, &rounded);
    let loss = fit.config.loss;
    let (train, validation) = data.losses(&w, k, loss)?;
    let final_loss = EpochRow {
        epoch: state.epoch,
        train,
        validation,
        values: values.clone(),
    };
    let header = format!(
        "Fitted by `arena fit` run '{}': {} of {} epochs on {} positions, K = {k:.6e}, \
         seed {}.\nStart values, losses and positions: fit.json.",
        fit.config.name, state.epoch, fit.config.epochs, state.positions[0], fit.config.seed
    );
    let named: Vec<(String, toml::Value)> = fit
        .params
        .iter()
        .zip(&values)
        .map(|(p, &v)| (p.name.clone(), crate::tune::config::number(v, p.integer)))
        .collect();
    let table_path = fit
        .base
        .table_path
        .as_ref()
        .expect("a fit's engine has a table file: checked when the config was read");
    // The positions were evaluated with the table `set` gave: the weights it set and the
    // fit left alone belong in the fitted table too (a fitted one takes its fitted value).
    let set_weights = set_table_weights(fit);
    let mut table_header = header.clone();
    if !set_weights.is_empty() {
        let listed: Vec<String> = set_weights
            .iter()
            .map(|(k, v)| format!("\"{k}\" = {v}"))
            .collect();
        table_header.push_str(&format!(
            "\nNot fitted, from the fit's set (its positions were evaluated with them): {}.",
            listed.join(", ")
        ));
    }
    let table_values: Vec<(String, toml::Value)> =
        set_weights.iter().chain(&named).cloned().collect();
    let mut text = tuned_table_named(table_path, &table_header, &table_values, "-fitted")?;
    if let Some(net) = &net {
        text = with_net(&text, net)?;
    }
    write_atomic(&out.join(TABLE_FILE), &text)?;
    let engine = fit
        .engine_with(&format!("{}-fitted", fit.base.name), &values, net.as_ref())
        .map_err(|e| TuneError::Input(e.to_string()))?;
    // The table weights of `set` are in fitted.toml, which the engine points at: only
    // the rest is the fit's own and not written.
    let overrides: toml::Table = fit
        .config
        .set
        .iter()
        .filter(|(k, _)| !k.starts_with("table."))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let text = tuned_engine(
        &fit.job.engine_path,
        &header,
        &engine.into(),
        &named,
        &overrides,
        Some(TABLE_FILE),
        MadeBy::Fit,
    )?;
    write_atomic(&out.join(ENGINE_FILE), &text)?;
    let report = FitReport {
        name: fit.config.name.clone(),
        engine: fit.base.name.clone(),
        game: fit.job.game.to_string(),
        seed: fit.config.seed,
        loss: loss.as_str().to_string(),
        k,
        epochs_done: state.epoch,
        epochs: fit.config.epochs,
        finished: state.epoch >= fit.config.epochs,
        positions: data.counts(),
        params: fit
            .params
            .iter()
            .zip(&values)
            .map(|(p, &value)| FitParamReport {
                name: p.name.clone(),
                start: p.start,
                value,
                min: p.min,
                max: p.max,
                integer: p.integer,
            })
            .collect(),
        history: state.history.clone(),
        final_loss,
        elapsed_s: state.elapsed_s,
        selfplay_games,
        verification,
    };
    write_report(&out.join(REPORT_FILE), &report)?;
    write_atomic(&out.join(TRAJECTORY_FILE), &trajectory(fit, &state.history))?;
    Ok(report)
}

/// The table file's text `text` with its `[net]` section replaced by `net` (written at
/// the end, one input's row of numbers a line).
fn with_net(text: &str, net: &AtaxxNet) -> Result<String, TuneError> {
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| TuneError::Input(e.message().to_string()))?;
    doc.remove("net");
    let mut out = doc.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&net.to_toml());
    Ok(out)
}

/// The `table.*` values of the fit's `set` that are not fitted, as the base engine holds
/// them (so as the positions were evaluated), in key order.
fn set_table_weights(fit: &Fit) -> Vec<(String, toml::Value)> {
    fit.config
        .set
        .iter()
        .filter(|(k, _)| k.starts_with("table.") && !fit.params.iter().any(|p| &p.name == *k))
        .map(|(k, v)| (k.clone(), fit.base.get(k).unwrap_or_else(|| v.clone())))
        .collect()
}

/// `trajectory.csv`: `epoch,<param>,...`, θ at the start and after every epoch (what the
/// report plots, as it does a tune's).
fn trajectory(fit: &Fit, history: &[EpochRow]) -> String {
    let mut text = String::from("epoch");
    for p in &fit.params {
        text.push(',');
        text.push_str(&p.name);
    }
    text.push('\n');
    for row in history {
        text.push_str(&row.epoch.to_string());
        for v in &row.values {
            text.push(',');
            text.push_str(&v.to_string());
        }
        text.push('\n');
    }
    text
}

/// The label's weight of the result when a fit of datagen data gives no `lambda`.
pub const DEFAULT_LAMBDA: f64 = 0.5;

/// The positions of a fit: game records' in memory, or datagen's streamed from disk.
#[derive(Debug)]
enum Data {
    Records(Positions),
    Streamed(Streamed),
}

impl Data {
    fn counts(&self) -> Counts {
        match self {
            Data::Records(p) => p.counts,
            Data::Streamed(s) => s.counts(),
        }
    }

    fn sizes(&self) -> [u64; 2] {
        match self {
            Data::Records(p) => [p.train.len() as u64, p.validation.len() as u64],
            Data::Streamed(s) => s.sizes(),
        }
    }

    fn fit_k(&self, w: &[f64], loss: Loss) -> Option<f64> {
        match self {
            Data::Records(p) => fit_k(&p.train, w, loss),
            Data::Streamed(s) => s.fit_k(w, loss),
        }
    }

    fn losses(&self, w: &[f64], k: f64, loss: Loss) -> Result<(f64, f64), TuneError> {
        match self {
            Data::Records(p) => Ok((
                p.train.loss(None, w, k, loss, false).0,
                p.validation.loss(None, w, k, loss, false).0,
            )),
            Data::Streamed(s) => s
                .losses(w, k, loss)
                .map_err(|e| TuneError::Input(e.to_string())),
        }
    }

    fn run_epoch(
        &self,
        base: &[f64],
        params: &[FreeParam],
        k: f64,
        settings: &Settings,
        adam: &mut Adam,
        epoch: u64,
    ) -> Result<(), TuneError> {
        match self {
            Data::Records(p) => {
                run_epoch(&p.train, base, params, k, settings, adam, epoch);
                Ok(())
            }
            Data::Streamed(s) => s
                .run_epoch(base, params, k, settings, adam, epoch)
                .map_err(|e| TuneError::Input(e.to_string())),
        }
    }
}

impl Verifiable for Fit {
    type Report = FitReport;
    const WHAT: &'static str = "arena fit (verification)";

    fn plan(&self) -> MatchPlan<'_> {
        self.config.plan(&self.job)
    }

    fn engines(&self, out: &Path) -> Result<[EngineSpec; 2], TuneError> {
        let Some(state) =
            FitState::read(out, self.config.epochs, &self.params, fitted_count(self))?
        else {
            return Err(TuneError::Input(format!(
                "{}: no fit to verify (no state.json)",
                out.display()
            )));
        };
        if state.config != self.resolved_toml() || state.epoch < self.config.epochs {
            return Err(TuneError::Input(format!(
                "{}: the fit is not finished or belongs to another config: resume it first",
                out.display()
            )));
        }
        let values: Vec<f64> = FitReport::read(out)?
            .params
            .iter()
            .map(|p| p.value)
            .collect();
        let net = fitted_net(self, &state.adam.theta(&free_params(self)));
        let fitted = self
            .engine_with(&format!("{}-fitted", self.base.name), &values, net.as_ref())
            .map_err(|e| TuneError::Input(e.to_string()))?;
        Ok([fitted.into(), self.base.clone().into()])
    }

    fn record(&self, out: &Path, v: VerificationReport) -> Result<FitReport, TuneError> {
        let mut report = FitReport::read(out)?;
        report.verification = Some(v);
        write_report(&out.join(REPORT_FILE), &report)?;
        Ok(report)
    }
}
