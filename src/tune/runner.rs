//! Running a tune: game pairs between the plus and minus engines, played in parallel by
//! this process's threads (the long jobs' pool, [`crate::jobs::pool`]) and by any other
//! worker at work on the same folder, each pair written to the journal as it ends
//! (`pairs/`); when every pair of a batch is in, one worker applies the batch in pair
//! order under the folder's update lock and writes the checkpoint and every output; then
//! the next batch. A plain `arena tune` is the one worker `main` of its folder.
//!
//! A pair's games depend only on (config, seed, pair index) and θ of its batch: the
//! flips, the rounding, the opening and the game seeds are all derived from them. So
//! with depth or node limits the tune ends with the same θ on any number of threads or
//! workers, however often they are killed and started again; and with time limits it
//! never plays a recorded pair again. The runner does not print: it reports
//! [`TuneEvent`]s to a sink.

use std::{
    collections::BTreeSet,
    fs,
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use super::{
    TuneError,
    config::Tune,
    journal::{Claims, JournalReader, JournalWriter, PairLine},
    output::{Checkpoint, TrajectoryWriter, TuneReport, write_all},
    spsa::{PairJob, PairOutcome, Spsa, State},
    verify::{MatchPlan, Verifiable, VerificationReport},
};
use crate::{
    engine::Player,
    jobs::{
        JobOptions,
        checkpoint::damaged,
        folder::{CONFIG_FILE, JobFolder, STATE_FILE, first_difference, write_atomic},
        lock::{FolderLock, lock_update, lock_worker, worker_alive},
        pool::{self, Driver, Received, worker_count},
    },
    protocol::{EngineSpec, ExternalGame, PlayerContext},
    stats::GameScore,
    tournament::{
        game::{GameSetup, play_game},
        openings::{OpeningBook, OpeningGame},
        schedule::ScheduledGame,
        seeds::{Stream, derive_seed},
    },
    with_game,
};

/// One worker of a tune that several play together (`arena tune --worker I/N`, or a
/// scheduler's array index): its label names its journal and its lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worker {
    /// `0`, `1`, ... (the worker index).
    pub label: String,
}

/// The label of a plain `arena tune`'s journal.
const MAIN: &str = "main";

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
/// The opponent's name in the tune's games (and its log's).
const OPPONENT: &str = "opponent";

/// How often a worker with nothing to play looks again (for others' pairs, a new state).
const POLL: Duration = Duration::from_millis(100);

/// Runs (or resumes, or joins as `worker`) a tune: plays pairs until every pair is
/// played or `options.stop` is raised, applying each batch once all its pairs are in.
pub fn run(
    tune: &Tune,
    options: &JobOptions,
    worker: Option<&Worker>,
    sink: &mut dyn FnMut(&TuneEvent<'_>),
) -> Result<TuneOutcome, TuneError> {
    with_game!(tune.job.game, |G, game| run_tune::<G>(
        tune, &game, options, worker, sink
    ))
}

/// The openings of the tune's pairs: pair k (counted from 1) plays round `k - 1` of
/// the book, drawn as pairs come up (a file's openings repeat with its length, without
/// `random_plies`: θ differs from one pair to the next, so a repeated opening is another
/// game, and the list's balance is worth more than random plies; the verification,
/// whose two engines meet again and again, takes them).
fn pair_openings<G: OpeningGame>(
    tune: &Tune,
    game: &G::Config,
    seed: u64,
) -> Result<OpeningBook<G>, TuneError> {
    let mut source = tune.plan().tournament("openings", 1, seed, Vec::new());
    source.config.openings.random_plies = 0;
    let book = OpeningBook::<G>::new(&source, game)?;
    book.check_max_plies(game, tune.config.adjudication.max_plies)
        .map_err(|e| TuneError::Input(format!("{}: {e}", tune.job.path.display())))?;
    Ok(book)
}

/// Seconds since 1970 (for the time a batch was applied).
fn now_s() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// What this process holds of the folder: its lock (exclusive for a plain tune, shared
/// with its own worker lock for a worker), and who it is.
struct Session {
    _lock: Option<FolderLock>,
    _folder: Option<JobFolder>,
    /// The worker's label (`main` for a plain tune).
    label: String,
    /// Tells this process from the worker's next one (host, pid, start).
    id: String,
    /// When this process started (a batch's time counts from here at the earliest).
    started_s: f64,
}

impl Session {
    /// Takes the folder for a plain tune (alone, `--resume` rules) or for `worker`
    /// (beside the others: joining needs no `--resume`, but the folder must hold this
    /// tune), and writes `run.toml`.
    fn open(
        out: &Path,
        worker: Option<&Worker>,
        resume: bool,
        resolved: &str,
    ) -> Result<Session, TuneError> {
        let started_s = now_s();
        let id = format!(
            "session {}-{}",
            std::process::id(),
            (started_s * 1e6) as u64
        );
        let Some(worker) = worker else {
            let folder = JobFolder::claim(out, "arena tune", "tune", resume, resolved)?;
            folder.write_config(resolved)?;
            return Ok(Session {
                _lock: None,
                _folder: Some(folder),
                label: MAIN.to_string(),
                id,
                started_s,
            });
        };
        let what = format!("arena tune worker {} ({id})", worker.label);
        let lock = lock_worker(out, &worker.label, &what)?;
        let _update = lock_update(out)?;
        let run_toml = out.join(CONFIG_FILE);
        match fs::read(&run_toml) {
            Ok(old) if old != resolved.as_bytes() => {
                return Err(TuneError::Input(format!(
                    "{}: made from a different config ({}); every worker of a tune needs \
                     the same config (and the same --pairs)",
                    run_toml.display(),
                    first_difference(&String::from_utf8_lossy(&old), resolved)
                )));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                write_atomic(&run_toml, resolved)?;
            }
            Err(source) => {
                return Err(TuneError::Io {
                    path: run_toml.display().to_string(),
                    source,
                });
            }
        }
        Ok(Session {
            _lock: Some(lock),
            _folder: None,
            label: worker.label.clone(),
            id,
            started_s,
        })
    }
}

/// The checkpoint in `out`, checked to be `resolved`'s (None: none yet).
fn read_checkpoint(
    out: &Path,
    spsa: &Spsa,
    resolved: &str,
) -> Result<Option<Checkpoint>, TuneError> {
    let Some(c) = Checkpoint::read(out)? else {
        return Ok(None);
    };
    if c.config != resolved {
        let path = out.join(STATE_FILE);
        let text = fs::read_to_string(&path).unwrap_or_default();
        return Err(damaged(
            &path,
            &text,
            "config",
            format!(
                "made from a different config ({}); resume needs the same config (and the \
                 same --pairs)",
                first_difference(&c.config, resolved)
            ),
        ));
    }
    c.check(out, spsa)?;
    Ok(Some(c))
}

/// A pair a thread of this process is asked to play.
struct Task {
    job: PairJob,
    /// [plus, minus].
    engines: [EngineSpec; 2],
}

/// What a thread answers: the pair's k and batch, its outcome (None: stopped), and the
/// time it took.
type Answer = (PairJob, Result<Option<PairOutcome>, String>, Duration);

/// What the whole tune shares with its threads.
struct Context<'a, G: OpeningGame> {
    tune: &'a Tune,
    game: &'a G::Config,
    openings: &'a OpeningBook<G>,
    reproducible: bool,
    /// Where outside engines' logs go: `logs/<worker label>-t<thread>-<plus|minus>.log`,
    /// each holding the last pair that thread played.
    logs: PathBuf,
    label: &'a str,
}

/// The tune, for the game type `G` ([`run`] picks it from the config's game).
fn run_tune<G: OpeningGame + ExternalGame>(
    tune: &Tune,
    game: &G::Config,
    options: &JobOptions,
    worker: Option<&Worker>,
    sink: &mut dyn FnMut(&TuneEvent<'_>),
) -> Result<TuneOutcome, TuneError> {
    let started = Instant::now();
    let out = &options.out_dir;
    let spsa = Spsa::new(tune.params.clone(), tune.settings())
        .map_err(|e| TuneError::Input(e.to_string()))?;
    let settings = *spsa.settings();
    let resolved = tune.resolved_toml();

    // Every input is checked before the results folder is touched.
    let openings = pair_openings::<G>(tune, game, settings.seed)?;
    let first = openings
        .get(0)
        .map_err(|e| TuneError::Input(e.to_string()))?;
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
        config
            .build_player::<G>(game, &PlayerContext::default())
            .map_err(|e| TuneError::Input(format!("engine: {e}")))?;
    }
    if let Some(o) = &tune.opponent {
        o.build_player::<G>(game, &PlayerContext::default())
            .map_err(|e| TuneError::Input(format!("opponent: {e}")))?;
    }

    let session = Session::open(out, worker, options.resume, &resolved)?;
    // The state now: the checkpoint, or the start written as the first one; the
    // outputs made afresh from it (mends a crash between file writes).
    let (state, note) = {
        let _update = lock_update(out)?;
        let checkpoint = match read_checkpoint(out, &spsa, &resolved)? {
            Some(c) => c,
            None => Checkpoint::new(tune, spsa.start_state(), 0.0),
        };
        let (_, note) = TrajectoryWriter::open(out, &spsa, &checkpoint.state)?;
        write_all(out, tune, &spsa, &checkpoint, None)?;
        (checkpoint.state, note)
    };
    let mut journal = JournalWriter::open(out, &session.label)?;
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
    let cx = Context {
        tune,
        game,
        openings: &openings,
        reproducible: tune.is_reproducible(),
        logs: out.join("logs"),
        label: &session.label,
    };
    let mut tuner = Tuner {
        out,
        tune,
        spsa: &spsa,
        resolved: &resolved,
        session: &session,
        state,
        reader: JournalReader::default(),
        trajectory: None,
        in_flight: BTreeSet::new(),
        played: 0,
        began: None,
    };
    let result = pool::run(
        jobs,
        |thread, halt| {
            let (cx, halt) = (&cx, Arc::clone(halt));
            move |task: Task| {
                let began = Instant::now();
                let outcome = play_pair::<G>(cx, &task, thread, &halt);
                Some((task.job, outcome, began.elapsed()))
            }
        },
        |pool| tuner.drive(jobs, pool, &mut journal, &options.stop, sink),
    );
    let ending = result?;
    // The report as the last worker to apply a batch wrote it (read under the lock:
    // the checkpoint and tune.json are written one after the other).
    let report = {
        let _update = lock_update(out)?;
        TuneReport::read(out)?
    };
    Ok(TuneOutcome {
        ending,
        state: tuner.state,
        report,
        out_dir: out.to_path_buf(),
        played: tuner.played,
        elapsed: started.elapsed(),
    })
}

/// The loop of one worker: the state it knows, what it read of the journals, the pairs
/// its threads are playing.
struct Tuner<'a> {
    out: &'a Path,
    tune: &'a Tune,
    spsa: &'a Spsa,
    resolved: &'a str,
    session: &'a Session,
    /// The state as the last checkpoint read or written says.
    state: State,
    reader: JournalReader,
    /// The trajectory, open while this worker applied the last batch (else reopened).
    trajectory: Option<(TrajectoryWriter, u64)>,
    /// The pairs this process's threads are playing.
    in_flight: BTreeSet<u64>,
    /// Pairs this process played and recorded.
    played: u64,
    /// The batch this session is playing and when it began to (seconds since 1970): the
    /// start of its pairs' spans.
    began: Option<(u64, f64)>,
}

impl Tuner<'_> {
    fn batch_of(&self) -> impl Fn(u64) -> u64 + use<> {
        let size = self.spsa.settings().batch;
        move |k| (k - 1) / size
    }

    /// Plays, records and applies until the tune is done or stopped.
    fn drive(
        &mut self,
        jobs: usize,
        pool: &Driver<'_, Task, Answer>,
        journal: &mut JournalWriter,
        stop: &AtomicBool,
        sink: &mut dyn FnMut(&TuneEvent<'_>),
    ) -> Result<TuneEnding, TuneError> {
        let total = self.spsa.settings().pairs;
        let mut last_done = None;
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(TuneEnding::Interrupted);
            }
            self.follow(sink)?;
            if self.spsa.finished(&self.state) {
                return Ok(TuneEnding::Complete);
            }
            let batch = self.spsa.next_batch(&self.state);
            let b = self.state.batches_done;
            self.reader.refresh(
                self.out,
                b,
                total,
                self.batch_of(),
                self.tune.opponent.is_some(),
            )?;
            let recorded = batch
                .iter()
                .filter(|j| self.reader.outcome(j.k).is_some())
                .count();
            let done = self.state.pairs_done + recorded as u64;
            if last_done != Some(done) {
                sink(&TuneEvent::Pair { done, total });
                last_done = Some(done);
            }
            if recorded == batch.len() {
                self.apply(b, sink)?;
                continue;
            }
            let idle = jobs.saturating_sub(self.in_flight.len());
            if idle > 0 {
                for job in self.claim(&batch, idle)? {
                    if self.began.is_none_or(|(began, _)| began != job.batch) {
                        self.began = Some((job.batch, now_s()));
                    }
                    let engines = self.engines(&job)?;
                    self.in_flight.insert(job.k);
                    pool.push(Task { job, engines });
                }
            }
            match pool.recv(POLL) {
                Received::Answer((job, outcome, took)) => {
                    self.in_flight.remove(&job.k);
                    match outcome {
                        Ok(Some(outcome)) => {
                            let ms = took.as_millis() as u64;
                            let now = now_s();
                            let from = match self.began {
                                Some((batch, at)) if batch == job.batch => at,
                                _ => now - took.as_secs_f64(),
                            };
                            let line =
                                PairLine::new(job.k, job.batch, outcome, ms).with_span(from, now);
                            journal.append(&line)?;
                            self.played += 1;
                        }
                        // Stopped: the pair is not recorded, and plays again later.
                        Ok(None) => {}
                        Err(e) => return Err(TuneError::Input(e)),
                    }
                }
                Received::Idle => sink(&TuneEvent::Tick),
                Received::Finished => {
                    return Err(TuneError::Input("the tune's threads stopped".into()));
                }
            }
        }
    }

    /// Takes the checkpoint another worker wrote since (and tells the sink).
    fn follow(&mut self, sink: &mut dyn FnMut(&TuneEvent<'_>)) -> Result<(), TuneError> {
        let Some(c) = read_checkpoint(self.out, self.spsa, self.resolved)? else {
            return Ok(());
        };
        if c.state.batches_done > self.state.batches_done {
            self.advance(c.state, sink);
        }
        Ok(())
    }

    /// Moves on to `state`, a checkpoint newer than the one known: the journal lines of
    /// the batches before it are dropped, and the sink is told.
    fn advance(&mut self, state: State, sink: &mut dyn FnMut(&TuneEvent<'_>)) {
        self.state = state;
        let batch_of = self.batch_of();
        self.reader.drop_before(self.state.batches_done, batch_of);
        let values = self.spsa.values(&self.state);
        sink(&TuneEvent::Batch {
            state: &self.state,
            values: &values,
        });
    }

    /// Up to `most` pairs of `batch` that nobody has recorded or is playing, claimed
    /// for this session under the update lock.
    fn claim(&mut self, batch: &[PairJob], most: usize) -> Result<Vec<PairJob>, TuneError> {
        let _update = lock_update(self.out)?;
        let b = self.state.batches_done;
        let mut claims = Claims::read(self.out);
        if claims.batch != b {
            claims = Claims {
                batch: b,
                pairs: Default::default(),
            };
        }
        let mut alive = std::collections::HashMap::new();
        let mut taken = Vec::new();
        for job in batch {
            if taken.len() >= most {
                break;
            }
            if self.reader.outcome(job.k).is_some() || self.in_flight.contains(&job.k) {
                continue;
            }
            let free = match claims.pairs.get(&job.k) {
                None => true,
                Some((_, session)) if *session == self.session.id => true,
                Some((label, session)) => !*alive
                    .entry((label.clone(), session.clone()))
                    .or_insert_with(|| worker_alive(self.out, label, session)),
            };
            if free {
                claims
                    .pairs
                    .insert(job.k, (self.session.label.clone(), self.session.id.clone()));
                taken.push(job.clone());
            }
        }
        if !taken.is_empty() {
            claims.write(self.out)?;
        }
        Ok(taken)
    }

    /// The plus and minus engines of `job`.
    fn engines(&self, job: &PairJob) -> Result<[EngineSpec; 2], TuneError> {
        let plus = self.tune.engine_with(PLAYER_NAMES[0], &job.plus);
        let minus = self.tune.engine_with(PLAYER_NAMES[1], &job.minus);
        match (plus, minus) {
            (Ok(p), Ok(m)) => Ok([p, m]),
            (Err(e), _) | (_, Err(e)) => Err(TuneError::Input(format!(
                "pair {}: the engine refuses a value: {e}",
                job.k
            ))),
        }
    }

    /// Applies batch `b` (every pair of it recorded) unless another worker did, under
    /// the update lock: θ moved in pair order, the trajectory row, the checkpoint and
    /// every output written.
    fn apply(&mut self, b: u64, sink: &mut dyn FnMut(&TuneEvent<'_>)) -> Result<(), TuneError> {
        let _update = lock_update(self.out)?;
        let checkpoint = read_checkpoint(self.out, self.spsa, self.resolved)?
            .unwrap_or_else(|| Checkpoint::new(self.tune, self.spsa.start_state(), 0.0));
        if checkpoint.state.batches_done != b {
            drop(_update);
            return self.follow(sink);
        }
        let mut state = checkpoint.state.clone();
        let jobs = self.spsa.next_batch(&state);
        let outcomes: Vec<PairOutcome> = jobs
            .iter()
            .map(|j| {
                self.reader
                    .outcome(j.k)
                    .expect("apply is called once every pair of the batch is recorded")
            })
            .collect();
        // A step that would make θ something other than a number stops the tune here,
        // before anything is written: the last checkpoint stands.
        let row = self.spsa.apply(&mut state, &jobs, &outcomes).map_err(|e| {
            TuneError::Input(format!(
                "{}: {e}; the checkpoint stays at {} pairs",
                self.out.join(STATE_FILE).display(),
                checkpoint.state.pairs_done
            ))
        })?;
        // The row reaches the disk before the checkpoint that counts it.
        let writer = match self.trajectory.take() {
            Some((writer, at)) if at == b && writer.is_current() => writer,
            _ => TrajectoryWriter::open(self.out, self.spsa, &checkpoint.state)?.0,
        };
        let mut writer = writer;
        writer.append(&row)?;
        self.trajectory = Some((writer, state.batches_done));
        // The time the batch was played: the union of its pairs' spans, whichever
        // sessions and workers played them (a session killed mid-batch counted none of
        // its time before, and the whole run's speed came out too high); journals of an
        // older arena have no spans, and then the time since this session took over.
        let now = now_s();
        let since = checkpoint
            .applied_at
            .map_or(self.session.started_s, |t| t.max(self.session.started_s));
        let played_s = self
            .reader
            .playing_seconds(jobs.iter().map(|j| j.k))
            .unwrap_or(now - since);
        let elapsed_s = checkpoint.elapsed_s + played_s.max(0.0);
        let mut next = Checkpoint::new(self.tune, state, elapsed_s);
        next.applied_at = Some(now);
        write_all(self.out, self.tune, self.spsa, &next, None)?;
        self.advance(next.state, sink);
        Ok(())
    }
}

/// Plays the task's pair from the pair's opening: the plus engine against the minus
/// engine, plus first, then colours swapped; or, when the tune has an opponent, the plus
/// engine against it twice the same way, then the minus engine against a fresh one (the
/// same game seeds: both face the same opponent in the same conditions, and neither
/// faces one that has played the opening before). None when stopped.
fn play_pair<G: OpeningGame + ExternalGame>(
    cx: &Context<'_, G>,
    task: &Task,
    thread: usize,
    stop: &Arc<AtomicBool>,
) -> Result<Option<PairOutcome>, String> {
    let job = &task.job;
    let pair = job.k - 1;
    let opening = cx.openings.get(pair).map_err(|e| e.to_string())?;
    let start = G::from_text(cx.game, &opening.position).map_err(|e| format!("opening: {e}"))?;
    // An outside engine is started afresh for each pair with the pair's options (one
    // process for plus, one for minus, and one opponent for each of them); its log holds
    // this pair only.
    let log_of = |side: &str| cx.logs.join(format!("{}-t{thread}-{side}.log", cx.label));
    let build = |config: &EngineSpec, side: &str| -> Result<Box<dyn Player<G>>, String> {
        let log = config.external().map(|_| log_of(side));
        if let Some(path) = &log {
            match std::fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("cannot remove the old log {}: {e}", path.display())),
            }
        }
        let mut e = config
            .build_player::<G>(cx.game, &PlayerContext { log })
            .map_err(|e| format!("engine: {e}"))?;
        e.set_abort_flag(Arc::clone(stop));
        Ok(e)
    };
    let [plus_config, minus_config] = &task.engines;
    let mut plus = build(plus_config, PLAYER_NAMES[0])?;
    let mut minus = build(minus_config, PLAYER_NAMES[1])?;
    // An opponent that played plus's games knows the opening (an outside engine's hash
    // table, say): minus gets its own. Its log: `opponent-plus`, `opponent-minus`.
    let opponent_log = |tuned: usize| format!("{OPPONENT}-{}", PLAYER_NAMES[tuned]);
    let mut opponent = match &cx.tune.opponent {
        Some(o) => Some((
            o,
            [build(o, &opponent_log(0))?, build(o, &opponent_log(1))?],
        )),
        None => None,
    };
    // Each game: (the engine tuned: plus or minus, its rival's name, config and player).
    let mut play = |tuned: usize, g: usize| -> Result<Option<GameScore>, String> {
        let index = 2 * pair + g as u64;
        let me_config = &task.engines[tuned];
        let (rival_name, rival_config) = match &opponent {
            Some((config, _)) => (OPPONENT, *config),
            None => (PLAYER_NAMES[1], minus_config),
        };
        let configs = [me_config, rival_config];
        let names = [PLAYER_NAMES[tuned].to_string(), rival_name.to_string()];
        // Engine 0 (plus, or with an opponent the engine tuned) moves first in the
        // pair's first game.
        let (black, white) = if g == 0 { (0, 1) } else { (1, 0) };
        let setup = GameSetup {
            variant: cx.tune.job.game,
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
            time_controls: [black, white].map(|e| configs[e].time_control()),
            move_limits: [black, white].map(|e| configs[e].move_limit()),
            stop,
        };
        let (me, rival): (&mut dyn Player<G>, &mut dyn Player<G>) = match opponent.as_mut() {
            Some((_, [o, _])) if tuned == 0 => (plus.as_mut(), o.as_mut()),
            Some((_, [_, o])) => (minus.as_mut(), o.as_mut()),
            None => (plus.as_mut(), minus.as_mut()),
        };
        let players: [&mut dyn Player<G>; 2] = if g == 0 { [me, rival] } else { [rival, me] };
        let Ok(record) = play_game(&setup, players) else {
            return Ok(None);
        };
        // A fault says nothing of the parameters: the tune stops (the pair is not
        // recorded, a resume plays it again) rather than learn from it.
        if record.reason.starts_with("fault: ") || record.reason == "illegal-move" {
            let side = if record.half_points_of(0) != Some(0) {
                rival_name
            } else {
                PLAYER_NAMES[tuned]
            };
            let (faulty, log_name) = match (side == rival_name, &opponent) {
                (true, Some(_)) => (rival_config, opponent_log(tuned)),
                (true, None) => (rival_config, side.to_string()),
                (false, _) => (me_config, side.to_string()),
            };
            let log = faulty.external().map_or(String::new(), |_| {
                format!(" (its log: {})", log_of(&log_name).display())
            });
            return Err(format!(
                "pair {} game {}: the {side} engine lost by '{}'{log}: the tune stops \
                 rather than learn from a fault; fix the engine and resume",
                job.k,
                2 * tuned + g + 1,
                record.reason
            ));
        }
        Ok(Some(match record.half_points_of(0) {
            Some(2) => GameScore::Win,
            Some(1) => GameScore::Draw,
            _ => GameScore::Loss,
        }))
    };
    let mut scores = |tuned: usize| -> Result<Option<[GameScore; 2]>, String> {
        let mut two = [GameScore::Draw; 2];
        for (g, score) in two.iter_mut().enumerate() {
            match play(tuned, g)? {
                Some(s) => *score = s,
                None => return Ok(None),
            }
        }
        Ok(Some(two))
    };
    let Some(plus_scores) = scores(0)? else {
        return Ok(None);
    };
    let minus_scores = if cx.tune.opponent.is_some() {
        match scores(1)? {
            Some(s) => Some(s),
            None => return Ok(None),
        }
    } else {
        None
    };
    Ok(Some(PairOutcome {
        plus: plus_scores,
        minus: minus_scores,
    }))
}

impl Verifiable for Tune {
    type Report = TuneReport;
    const WHAT: &'static str = "arena tune (verification)";

    fn plan(&self) -> MatchPlan<'_> {
        self.config.plan(&self.job)
    }

    fn engines(&self, out: &Path) -> Result<[EngineSpec; 2], TuneError> {
        let (spsa, checkpoint) = self.finished(out)?;
        let values = spsa.values(&checkpoint.state);
        let tuned = self
            .engine_with(&format!("{}-tuned", self.base.name()), &values)
            .map_err(|e| TuneError::Input(e.to_string()))?;
        Ok([tuned, self.base.clone()])
    }

    fn opponent(&self) -> Option<EngineSpec> {
        self.opponent.clone()
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
        let spsa = Spsa::new(self.params.clone(), self.settings())
            .map_err(|e| TuneError::Input(e.to_string()))?;
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
