//! Running a tune: batches of game pairs between the plus and minus engines, played in
//! parallel (one pair per worker at a time), θ updated in pair order, a checkpoint after
//! every batch; resume from the checkpoint; then the verification match of the tuned
//! engine against the base engine, through the tournament runner.
//!
//! A pair's games depend only on (config, seed, pair index): the flips, the rounding, the
//! opening and the game seeds are all derived from them, so the tune ends with the same θ
//! on any number of threads, and a resumed run with the θ of an uninterrupted one.
//! The runner does not print: it reports [`TuneEvent`]s to a sink.

use std::{
    fs,
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
        mpsc,
    },
    time::{Duration, Instant},
};

use super::{
    TuneError,
    config::{Tune, VerificationConfig},
    job::{
        JobFolder, JobOptions, MatchPlan, STATE_FILE, Verifiable, VerificationReport, damaged,
        first_difference, worker_count,
    },
    output::{Checkpoint, TrajectoryWriter, TuneReport, write_all},
    spsa::{PairJob, PairOutcome, Spsa, State},
};
use crate::{
    engine::{Engine, EngineConfig, Player},
    protocol::EngineSpec,
    stats::GameScore,
    tournament::{
        game::{GameSetup, play_game},
        openings::{OpeningBook, OpeningGame},
        schedule::ScheduledGame,
        seeds::{Stream, derive_seed},
    },
    with_game,
};

/// What the tuner reports while it works.
#[derive(Debug)]
pub enum TuneEvent<'a> {
    /// Work is about to start.
    Started {
        /// Pairs in the run.
        total: u64,
        /// Pairs already played (resume).
        done: u64,
        /// Worker threads.
        jobs: usize,
        /// Something repaired on resume, worth telling.
        note: Option<String>,
    },
    /// A pair of the batch in progress finished (`done` counts it; it is applied with
    /// its batch).
    Pair {
        /// Pairs done, the batch's finished ones included.
        done: u64,
        /// Pairs in the run.
        total: u64,
    },
    /// A batch was applied and checkpointed.
    Batch {
        /// The state after it.
        state: &'a State,
        /// The values the tuned engine plays now (θ clipped, integers rounded).
        values: &'a [f64],
    },
    /// Nothing finished lately (lets a progress bar refresh its clock).
    Tick,
}

/// Why the tune ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TuneEnding {
    /// Every pair is played.
    Complete,
    /// Stopped on request; `--resume` continues.
    Interrupted,
}

/// The result of a tune.
#[derive(Debug)]
pub struct TuneOutcome {
    /// Why it ended.
    pub ending: TuneEnding,
    /// The state at the end (as checkpointed).
    pub state: State,
    /// `tune.json`'s contents.
    pub report: TuneReport,
    /// The results folder.
    pub out_dir: PathBuf,
    /// Pairs played by this session.
    pub played: u64,
    /// Wall time of this session.
    pub elapsed: Duration,
}

/// Engine names in the tune's games.
const PLAYER_NAMES: [&str; 2] = ["plus", "minus"];

/// Runs (or resumes) a tune, writing a checkpoint and every output after each batch.
pub fn run(
    tune: &Tune,
    options: &JobOptions,
    sink: &mut dyn FnMut(&TuneEvent<'_>),
) -> Result<TuneOutcome, TuneError> {
    with_game!(tune.game, |G, game| run_game::<G>(
        tune, &game, options, sink
    ))
}

/// The openings of the tune's pairs: pair k (counted from 1) plays round `k - 1` of
/// the book, drawn as pairs come up (a file's openings repeat with its length).
fn pair_openings<G: OpeningGame>(
    tune: &Tune,
    game: &G::Config,
    seed: u64,
) -> Result<OpeningBook<G>, TuneError> {
    let source = tune.plan().tournament("openings", 1, seed, Vec::new());
    let book = OpeningBook::<G>::new(&source, game)?;
    book.check_max_plies(game, tune.config.adjudication.max_plies)
        .map_err(|e| TuneError::Input(format!("{}: {e}", tune.path.display())))?;
    Ok(book)
}

fn run_game<G: OpeningGame>(
    tune: &Tune,
    game: &G::Config,
    options: &JobOptions,
    sink: &mut dyn FnMut(&TuneEvent<'_>),
) -> Result<TuneOutcome, TuneError> {
    let started = Instant::now();
    let out = &options.out_dir;
    let spsa = Spsa::new(tune.params.clone(), tune.settings()).map_err(TuneError::Input)?;
    let settings = *spsa.settings();
    let resolved = tune.resolved_toml();

    // Every input is checked before the results folder is touched.
    let openings = pair_openings::<G>(tune, game, settings.seed)?;
    let first = openings.get(0).map_err(TuneError::Input)?;
    G::from_text(game, &first.position).map_err(|e| TuneError::Input(format!("opening: {e}")))?;
    for (label, values) in [
        ("start", spsa.start_state().theta),
        ("min", tune.params.iter().map(|p| p.min).collect::<Vec<_>>()),
        ("max", tune.params.iter().map(|p| p.max).collect::<Vec<_>>()),
    ] {
        let config = tune.engine_with("check", &values).map_err(|e| {
            TuneError::Input(format!(
                "the engine with every parameter at its {label}: {e}"
            ))
        })?;
        Engine::<G>::new(&config, game).map_err(|e| TuneError::Input(format!("engine: {e}")))?;
    }

    // One writer per folder, from before the checkpoint is read until the tune returns.
    let folder = JobFolder::claim(out, "arena tune", "tune", options.resume, &resolved)?;
    let (mut state, mut elapsed_s) = match Checkpoint::read(out)? {
        Some(c) => {
            if c.config != resolved {
                let path = out.join(STATE_FILE);
                let text = fs::read_to_string(&path).unwrap_or_default();
                return Err(damaged(
                    &path,
                    &text,
                    "config",
                    format!(
                        "made from a different config ({}); resume needs the same config \
                         (and the same --pairs)",
                        first_difference(&c.config, &resolved)
                    ),
                ));
            }
            c.check(out, &spsa)?;
            (c.state, c.elapsed_s)
        }
        None => (spsa.start_state(), 0.0),
    };
    folder.write_config(&resolved)?;
    // Outputs made afresh from the checkpoint (mends a crash between file writes).
    let (mut trajectory, note) = TrajectoryWriter::open(out, &spsa, &state)?;
    let mut report = write_all(
        out,
        tune,
        &spsa,
        &Checkpoint::new(tune, state.clone(), elapsed_s),
        None,
    )?;

    let jobs = worker_count(
        options.jobs,
        tune.config.jobs,
        settings.batch.min(4096) as usize,
    );
    sink(&TuneEvent::Started {
        total: settings.pairs,
        done: state.pairs_done,
        jobs,
        note,
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| TuneError::Input(format!("cannot start {jobs} worker threads: {e}")))?;
    let reproducible = !tune.base.search.is_timed();
    let mut played = 0;
    let mut ending = TuneEnding::Complete;
    while !spsa.finished(&state) {
        if options.stop.load(Ordering::Relaxed) {
            ending = TuneEnding::Interrupted;
            break;
        }
        let batch_started = Instant::now();
        let batch = spsa.next_batch(&state);
        let engines = batch
            .iter()
            .map(|job| -> Result<[EngineConfig; 2], TuneError> {
                let plus = tune.engine_with(PLAYER_NAMES[0], &job.plus);
                let minus = tune.engine_with(PLAYER_NAMES[1], &job.minus);
                match (plus, minus) {
                    (Ok(p), Ok(m)) => Ok([p, m]),
                    (Err(e), _) | (_, Err(e)) => Err(TuneError::Input(format!(
                        "pair {}: the engine refuses a value: {e}",
                        job.k
                    ))),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let context = BatchContext {
            tune,
            game,
            jobs: &batch,
            engines: &engines,
            openings: &openings,
            reproducible,
            done_before: state.pairs_done,
        };
        let Some(outcomes) = play_batch::<G>(&pool, jobs, &context, &options.stop, sink)? else {
            ending = TuneEnding::Interrupted;
            break;
        };
        let row = spsa.apply(&mut state, &batch, &outcomes);
        played += batch.len() as u64;
        elapsed_s += batch_started.elapsed().as_secs_f64();
        // The row reaches the disk before the checkpoint that counts it.
        trajectory.append(&row)?;
        report = write_all(
            out,
            tune,
            &spsa,
            &Checkpoint::new(tune, state.clone(), elapsed_s),
            None,
        )?;
        let values = spsa.values(&state);
        sink(&TuneEvent::Batch {
            state: &state,
            values: &values,
        });
    }
    Ok(TuneOutcome {
        ending,
        state,
        report,
        out_dir: out.to_path_buf(),
        played,
        elapsed: started.elapsed(),
    })
}

/// What every pair of a batch needs.
struct BatchContext<'a, G: OpeningGame> {
    tune: &'a Tune,
    game: &'a G::Config,
    jobs: &'a [PairJob],
    /// Per job: [plus, minus].
    engines: &'a [[EngineConfig; 2]],
    openings: &'a OpeningBook<G>,
    reproducible: bool,
    done_before: u64,
}

/// Plays a batch's pairs across `jobs` workers; None when stopped (nothing of the batch
/// counts then).
fn play_batch<G: OpeningGame>(
    pool: &rayon::ThreadPool,
    jobs: usize,
    cx: &BatchContext<'_, G>,
    stop: &Arc<AtomicBool>,
    sink: &mut dyn FnMut(&TuneEvent<'_>),
) -> Result<Option<Vec<PairOutcome>>, TuneError> {
    let next = AtomicUsize::new(0);
    let internal_stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<(usize, Result<PairOutcome, String>)>();
    let mut outcomes: Vec<Option<PairOutcome>> = vec![None; cx.jobs.len()];
    let failure: Mutex<Option<String>> = Mutex::new(None);
    let total = cx.tune.config.pairs;
    pool.in_place_scope(|scope| {
        for _ in 0..jobs.min(cx.jobs.len()) {
            let tx = tx.clone();
            let next = &next;
            let flag = Arc::clone(&internal_stop);
            scope.spawn(move |_| {
                loop {
                    if flag.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= cx.jobs.len() {
                        break;
                    }
                    match play_pair::<G>(cx, i, &flag) {
                        Ok(Some(outcome)) => {
                            if tx.send((i, Ok(outcome))).is_err() {
                                break;
                            }
                        }
                        Ok(None) => break,
                        Err(e) => {
                            let _ = tx.send((i, Err(e)));
                            break;
                        }
                    }
                }
            });
        }
        drop(tx);
        let mut done = cx.done_before;
        loop {
            if stop.load(Ordering::Relaxed) {
                internal_stop.store(true, Ordering::Relaxed);
            }
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok((i, Ok(outcome))) => {
                    outcomes[i] = Some(outcome);
                    done += 1;
                    sink(&TuneEvent::Pair { done, total });
                }
                Ok((_, Err(e))) => {
                    internal_stop.store(true, Ordering::Relaxed);
                    *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => sink(&TuneEvent::Tick),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(TuneError::Input(e));
    }
    Ok(outcomes.into_iter().collect())
}

/// Plays pair `i` of the batch: the plus engine first, then colours swapped, from the
/// pair's opening. None when stopped.
fn play_pair<G: OpeningGame>(
    cx: &BatchContext<'_, G>,
    i: usize,
    stop: &Arc<AtomicBool>,
) -> Result<Option<PairOutcome>, String> {
    let job = &cx.jobs[i];
    let pair = job.k - 1;
    let opening = cx.openings.get(pair)?;
    let start = G::from_text(cx.game, &opening.position).map_err(|e| format!("opening: {e}"))?;
    let [plus_config, minus_config] = &cx.engines[i];
    let build = |config: &EngineConfig| -> Result<Engine<G>, String> {
        let mut e = Engine::<G>::new(config, cx.game).map_err(|e| format!("engine: {e}"))?;
        e.set_abort_flag(Arc::clone(stop));
        Ok(e)
    };
    let (mut plus, mut minus) = (build(plus_config)?, build(minus_config)?);
    let names: Vec<String> = PLAYER_NAMES.iter().map(|n| n.to_string()).collect();
    let mut scores = [GameScore::Draw; 2];
    for (g, score) in scores.iter_mut().enumerate() {
        let index = 2 * pair + g as u64;
        // Engine 0 is plus: it moves first in the pair's first game.
        let (black, white) = if g == 0 { (0, 1) } else { (1, 0) };
        let setup = GameSetup {
            variant: cx.tune.game,
            scheduled: ScheduledGame {
                game: index,
                pair,
                round: pair,
                pairing: 0,
                black,
                white,
            },
            names: &names,
            start: &start,
            seed: derive_seed(cx.tune.config.seed, Stream::Game, index),
            adjudication: &cx.tune.config.adjudication,
            reproducible: cx.reproducible,
            time_controls: [black, white].map(|e| cx.engines[i][e].search.time_control()),
            move_limits: [black, white].map(|e| cx.engines[i][e].search.move_limit()),
            stop,
        };
        let players: [&mut dyn Player<G>; 2] = if g == 0 {
            [&mut plus, &mut minus]
        } else {
            [&mut minus, &mut plus]
        };
        let Ok(record) = play_game(&setup, players) else {
            return Ok(None);
        };
        *score = match record.half_points_of(0) {
            Some(2) => GameScore::Win,
            Some(1) => GameScore::Draw,
            _ => GameScore::Loss,
        };
    }
    Ok(Some(PairOutcome { plus: scores }))
}

impl Verifiable for Tune {
    type Report = TuneReport;
    const WHAT: &'static str = "arena tune (verification)";

    fn plan(&self) -> MatchPlan<'_> {
        self.config.plan(self.game, &self.path)
    }

    fn verification(&self) -> (u64, Option<&VerificationConfig>) {
        (self.config.seed, self.config.verification.as_ref())
    }

    fn engines(&self, out: &Path) -> Result<[EngineSpec; 2], TuneError> {
        let (spsa, checkpoint) = self.finished(out)?;
        let values = spsa.values(&checkpoint.state);
        let tuned = self
            .engine_with(&format!("{}-tuned", self.base.name), &values)
            .map_err(TuneError::Input)?;
        Ok([tuned.into(), self.base.clone().into()])
    }

    fn record(&self, out: &Path, v: VerificationReport) -> Result<TuneReport, TuneError> {
        let (spsa, checkpoint) = self.finished(out)?;
        write_all(out, self, &spsa, &checkpoint, Some(v))
    }
}

impl Tune {
    /// The finished tune's checkpoint in `out`, checked to be this tune's.
    fn finished(&self, out: &Path) -> Result<(Spsa, Checkpoint), TuneError> {
        let Some(checkpoint) = Checkpoint::read(out)? else {
            return Err(TuneError::Input(format!(
                "{}: no tune to verify (no state.json)",
                out.display()
            )));
        };
        let spsa = Spsa::new(self.params.clone(), self.settings()).map_err(TuneError::Input)?;
        checkpoint.check(out, &spsa)?;
        if checkpoint.config != self.resolved_toml() {
            return Err(TuneError::Input(format!(
                "{}: the checkpoint belongs to another config",
                out.display()
            )));
        }
        if !spsa.finished(&checkpoint.state) {
            return Err(TuneError::Input(format!(
                "{}: the tune is not finished ({} of {} pairs): resume it first",
                out.display(),
                checkpoint.state.pairs_done,
                spsa.settings().pairs
            )));
        }
        Ok((spsa, checkpoint))
    }
}
