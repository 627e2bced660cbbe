//! The parallel runner: games across the worker threads of the job pool
//! ([`pool`]; one game per worker at a time,
//! engines built per worker, reset between games, and kept while their tables fit a
//! small budget, so memory does not grow with the number of engines), one writer that
//! appends each finished game to `games.jsonl` and flushes it before the game counts,
//! resume, SPRT early stop, and a clean stop on request (Ctrl-C).
//!
//! The runner does not print: it reports [`Event`]s to a sink (the CLI's progress bar).
//! Memory does not grow with the number of games: the schedule and the openings are
//! computed per game as it starts, resumed results are streamed (checked record by
//! record against the schedule), and while playing it keeps per-pairing counts and one
//! bit per finished game, not records. It holds the results folder's lock (see
//! [`lock`]) from before it reads the results until it returns.

use std::{
    collections::HashMap,
    fs,
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use super::{
    Tournament,
    error::{RunError, io_err, write_text},
    game::{GameSetup, play_game},
    live::{LiveFiles, LiveWriter},
    openings::{OpeningBook, OpeningGame},
    record::{self, GameRecord, RecordWriter},
    schedule::Schedule,
    seeds::{Stream, derive_seed},
    shard::{self, Shard},
    summary::{self, Summary},
    validate::{RunShape, read_checked, scan_checked},
};
use crate::{
    engine::Player,
    files::jsonl,
    jobs::{
        JobOptions,
        folder::first_difference,
        lock,
        pool::{self, Received, worker_count},
    },
    protocol::{EngineSpec, ExternalGame, PlayerContext},
    stats::{GameScore, Penta, SprtDecision, Wdl},
    with_game,
};

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Worker threads (0: the config's `concurrency`, or all cores).
    pub jobs: usize,
    /// Continue a run whose results exist.
    pub resume: bool,
    /// Results folder (default `results/<name>`).
    pub out_dir: PathBuf,
    /// Play only one shard.
    pub shard: Option<Shard>,
    /// Raised to stop: no new games start, games in progress are abandoned.
    pub stop: Arc<AtomicBool>,
    /// Live game files: each game appended as it is written to the results.
    pub live: LiveFiles,
}

impl RunOptions {
    /// The options of a match a long job plays into `dir` (a subfolder of its own):
    /// its threads, `--resume` and stop flag, the whole schedule, no live files.
    pub fn for_job(job: &JobOptions, dir: PathBuf) -> RunOptions {
        RunOptions {
            jobs: job.jobs,
            resume: job.resume,
            out_dir: dir,
            shard: None,
            stop: Arc::clone(&job.stop),
            live: Default::default(),
        }
    }
}

/// What the runner reports while it works.
#[derive(Debug)]
pub enum Event<'a> {
    /// Work is about to start.
    Started {
        /// Games in the schedule (this shard's).
        total: u64,
        /// Games already in the results (resume).
        done: u64,
        /// Worker threads.
        jobs: usize,
        /// A torn last line was dropped from the results.
        torn_tail: bool,
    },
    /// A game was written to the results file.
    Game {
        /// The record.
        record: &'a GameRecord,
        /// Games done so far (this shard).
        done: u64,
        /// Games in the schedule (this shard's).
        total: u64,
        /// A one-line live standings text (with an SPRT, its LLR and bounds).
        standings: String,
        /// With an SPRT: where it stands.
        sprt: Option<SprtProgress>,
    },
    /// Nothing finished lately (lets a progress bar refresh its clock).
    Tick,
    /// The SPRT decided; the run stops after this.
    SprtDecided {
        /// The decision.
        decision: SprtDecision,
        /// The LLR.
        llr: f64,
        /// Game pairs counted.
        pairs: u64,
    },
}

/// Where a run's SPRT stands after the pairs complete in order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtProgress {
    /// The LLR.
    pub llr: f64,
    /// The lower and upper bound.
    pub bounds: (f64, f64),
    /// Game pairs counted.
    pub pairs: u64,
    /// Games the test is expected to need still (Wald's approximation at the score so
    /// far, at most what the schedule has left); None before the first pair.
    pub expected_games_left: Option<u64>,
}

impl SprtProgress {
    /// `LLR 1.23 [-2.94, 2.94]`.
    pub fn describe(&self) -> String {
        format!(
            "LLR {:.2} [{:.2}, {:.2}]",
            self.llr, self.bounds.0, self.bounds.1
        )
    }
}

/// Why the run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Every scheduled game is in the results.
    Complete,
    /// The SPRT decided before the schedule ended.
    SprtDecided,
    /// Stopped on request; `--resume` continues.
    Interrupted,
}

/// The result of a run.
#[derive(Debug)]
pub struct RunOutcome {
    /// Why it ended.
    pub ending: Ending,
    /// Statistics over the results.
    pub summary: Summary,
    /// The results folder.
    pub out_dir: PathBuf,
    /// The results file: `games.jsonl`, or the shard's file (`.part` unless complete).
    pub results: PathBuf,
    /// Games played by this run (not counting resumed ones).
    pub played: u64,
    /// Wall time of this run.
    pub elapsed: Duration,
}

pub use super::shard::results_file;

/// Runs (or resumes) a tournament.
pub fn run(
    tournament: &Tournament,
    options: &RunOptions,
    sink: &mut dyn FnMut(&Event<'_>),
) -> Result<RunOutcome, RunError> {
    with_game!(tournament.config.game, |G, game| run_tournament::<G>(
        tournament, &game, options, sink
    ))
}

/// Live counts per pairing (bounded memory).
struct Live {
    wdl: Vec<Wdl>,
    penta: Vec<Penta>,
    /// First game of a pair waiting for its second: pair -> (game index, score of a).
    open_pairs: HashMap<u64, (u64, GameScore)>,
    /// SPRT: pairs complete in index order (the decision must not depend on timing).
    sprt_pairs: std::collections::BTreeMap<u64, [GameScore; 2]>,
    sprt_next: u64,
    sprt_penta: Penta,
}

impl Live {
    fn new(pairings: usize) -> Live {
        Live {
            wdl: vec![Wdl::default(); pairings],
            penta: vec![Penta::default(); pairings],
            open_pairs: HashMap::new(),
            sprt_pairs: std::collections::BTreeMap::new(),
            sprt_next: 0,
            sprt_penta: Penta::default(),
        }
    }

    fn add(&mut self, schedule: &Schedule, r: &GameRecord) {
        let (a, _) = schedule.pairings[r.pairing];
        let score = match r.half_points_of(a) {
            Some(2) => GameScore::Win,
            Some(1) => GameScore::Draw,
            _ => GameScore::Loss,
        };
        self.wdl[r.pairing].record(score);
        match self.open_pairs.remove(&r.pair) {
            Some((game, first)) => {
                let (g0, g1) = if game < r.game {
                    (first, score)
                } else {
                    (score, first)
                };
                self.penta[r.pairing].add_pair(g0, g1);
                self.sprt_pairs.insert(r.pair, [g0, g1]);
            }
            None => {
                self.open_pairs.insert(r.pair, (r.game, score));
            }
        }
    }

    /// Feeds complete pairs to the SPRT in pair order; returns a decision as soon as one
    /// is reached (with the LLR and the pairs counted).
    fn sprt(
        &mut self,
        sprt: &crate::stats::SprtConfig,
        owned: &dyn Fn(u64) -> bool,
        last_pair: u64,
    ) -> Option<(SprtDecision, f64, u64)> {
        loop {
            while self.sprt_next < last_pair && !owned(self.sprt_next) {
                self.sprt_next += 1;
            }
            let pair = self.sprt_pairs.remove(&self.sprt_next)?;
            self.sprt_penta.add_pair(pair[0], pair[1]);
            self.sprt_next += 1;
            let llr = sprt.llr_penta(&self.sprt_penta);
            let d = sprt.decide(llr);
            if d != SprtDecision::Continue {
                return Some((d, llr, self.sprt_penta.pairs()));
            }
        }
    }

    /// Where the SPRT stands now, `games_left` games of the schedule still to play.
    fn sprt_progress(&self, sprt: &crate::stats::SprtConfig, games_left: u64) -> SprtProgress {
        let penta = &self.sprt_penta;
        SprtProgress {
            llr: if penta.pairs() == 0 {
                0.0
            } else {
                sprt.llr_penta(penta)
            },
            bounds: sprt.bounds(),
            pairs: penta.pairs(),
            expected_games_left: sprt
                .expected_pairs_left(penta)
                .map(|p| ((2.0 * p).ceil().min(games_left as f64)).max(0.0) as u64),
        }
    }

    fn standings(&self, t: &Tournament, schedule: &Schedule) -> String {
        if schedule.pairings.len() == 1 {
            let w = self.wdl[0];
            let est = self.penta[0]
                .estimate()
                .or_else(|| w.estimate())
                .map_or(String::new(), |e| {
                    format!("  Elo {:+.1} ± {:.1}", e.elo, e.elo_error)
                });
            let (a, b) = schedule.pairings[0];
            return format!(
                "{} vs {}: +{} ={} -{}{est}",
                t.engines[a].name(),
                t.engines[b].name(),
                w.wins,
                w.draws,
                w.losses
            );
        }
        let mut points = vec![(0u64, 0u64); t.engines.len()];
        for (i, &(a, b)) in schedule.pairings.iter().enumerate() {
            let w = self.wdl[i];
            points[a].0 += 2 * w.wins + w.draws;
            points[a].1 += w.games();
            points[b].0 += 2 * w.losses + w.draws;
            points[b].1 += w.games();
        }
        let mut order: Vec<usize> = (0..t.engines.len()).collect();
        order.sort_by(|&x, &y| {
            let s = |i: usize| points[i].0 as f64 / points[i].1.max(1) as f64;
            s(y).total_cmp(&s(x))
        });
        order
            .iter()
            .map(|&i| {
                let (p, g) = points[i];
                format!(
                    "{} {:.0}%",
                    t.engines[i].name(),
                    if g == 0 {
                        0.0
                    } else {
                        50.0 * p as f64 / g as f64
                    }
                )
            })
            .collect::<Vec<_>>()
            .join("  ")
    }
}

/// The tournament, for the game type `G` ([`run`] picks it from the config's game).
fn run_tournament<G: OpeningGame + ExternalGame>(
    t: &Tournament,
    game: &G::Config,
    options: &RunOptions,
    sink: &mut dyn FnMut(&Event<'_>),
) -> Result<RunOutcome, RunError> {
    let started = Instant::now();
    let cfg = &t.config;
    let out = &options.out_dir;
    let run_toml = out.join("run.toml");
    let resolved = t.resolved_toml();
    if let Some(s) = options.shard
        && cfg.sprt.is_some()
    {
        return Err(RunError::Input(format!(
            "shard {}: [sprt] decides on the whole run's game pairs in order, so a \
             run with [sprt] cannot be split into shards; remove [sprt] to play the \
             full schedule in shards, or run it without --shard",
            s.label()
        )));
    }

    // Every input is checked before the results folder is touched: an outside engine
    // that cannot even start is an error now, not a fault in every game.
    for spec in &t.engines {
        if let EngineSpec::External(e) = spec {
            e.launch()
                .check()
                .map_err(|msg| RunError::Input(format!("engine '{}': {msg}", e.name)))?;
        }
    }
    options.live.check(cfg.game, options.shard)?;
    let book = OpeningBook::<G>::new(t, game)?;
    book.check_max_plies(game, cfg.adjudication.max_plies)
        .map_err(|e| RunError::Input(format!("{}: {e}", t.path.display())))?;
    let mut live_files = LiveWriter::open(
        &options.live,
        t,
        options.resume,
        Schedule::new(cfg.format, t.engines.len(), u64::from(cfg.rounds)).games(),
    )?;

    // One writer per folder: from here on, nobody else appends to these results.
    let what = match options.shard {
        Some(s) => format!("arena run --shard {}", s.label()),
        None => "arena run".to_string(),
    };
    let folder_lock = match options.shard {
        Some(s) => lock::lock_shard(out, s, &what)?,
        None => lock::lock_exclusive(out, &what)?,
    };
    if folder_lock.is_exclusive() {
        // A writer killed mid-write (SIGKILL, power cut) leaves its temporary files.
        for dir in [out.clone(), out.join("plots"), out.join(shard::SHARDS_DIR)] {
            crate::files::remove_stale_temporaries(&dir);
        }
    }
    // A shard plays into `.part` and is renamed once complete (see `shard`).
    let shard_files = match options.shard {
        Some(s) => {
            shard::check_same_split(out, s)?;
            Some(shard::locate(out, s)?)
        }
        None => None,
    };
    let results = shard_files
        .as_ref()
        .map_or_else(|| results_file(out, None), |f| f.current.clone());

    // Existing results: refuse unless resuming, and then only the same config, with
    // every record checked against the schedule as it streams by.
    if run_toml.exists() && (options.resume || options.shard.is_some()) {
        let old = fs::read(&run_toml).map_err(io_err(&run_toml))?;
        let old = crate::config::utf8_text(&run_toml, old)?;
        let extended = options.resume && options.shard.is_none() && {
            match rounds_extended(&old, &resolved) {
                Extension::More => true,
                Extension::Fewer { old, new } => {
                    return Err(RunError::Input(format!(
                        "{}: the run has {old} rounds and --rounds asks for {new}: a run can \
                         be extended, never shortened (its games stay in the results)",
                        run_toml.display()
                    )));
                }
                Extension::No => false,
            }
        };
        if old != resolved && !extended {
            return Err(RunError::Input(format!(
                "{} was made from a different config ({}); resume needs the same config",
                run_toml.display(),
                first_difference(&old, &resolved)
            )));
        }
    }
    let shape = RunShape::of(t, options.shard);
    let schedule = &shape.schedule;
    let mut live = Live::new(schedule.pairings.len());
    let owned = options.shard.unwrap_or(Shard::WHOLE);
    let (done_set, scan) = if options.resume {
        scan_checked(&results, &shape, |r| live.add(schedule, r))?
    } else {
        let (set, scan) = scan_checked(&results, &shape, |_| {})?;
        if scan.records > 0 || scan.torn_tail {
            return Err(RunError::Input(format!(
                "{} already holds {} games: add --resume to continue it, or choose another \
                 --out or run name",
                results.display(),
                scan.records
            )));
        }
        (set, scan)
    };
    // The live files are checked against the results (and a torn game cut off) before
    // the results are touched.
    if let Some(files) = &mut live_files {
        files.settle(&done_set)?;
    }
    // The folder itself was made by the lock; a shard's go into `shards/`.
    if let Some(parent) = results.parent().filter(|p| *p != out) {
        crate::files::own_folder(parent).map_err(io_err(parent))?;
    }
    write_text(&run_toml, &resolved)?;
    if let Some(s) = options.shard {
        shard::write_meta(
            out,
            &shard::ShardMeta {
                index: s.index,
                count: s.count,
                config_sha256: shard::config_hash(&resolved),
                games: 2 * s.pairs_of(schedule.pairs()),
                arena_version: env!("CARGO_PKG_VERSION").to_string(),
            },
        )?;
    }
    if scan.torn_tail {
        jsonl::truncate_to(&results, scan.valid_len).map_err(io_err(&results))?;
    }

    // The games the results hold and a live file lacks (a run killed between the two
    // writes, or a live file new to a resumed run) go to it first.
    if let Some(files) = &mut live_files
        && !done_set.is_empty()
    {
        let mut failed = None;
        scan_checked(&results, &shape, |r| {
            if failed.is_none() {
                failed = files.offer(r).err();
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
    }

    let total = 2 * owned.pairs_of(schedule.pairs());
    let done_before = done_set.len();
    let torn_tail = scan.torn_tail;

    // SPRT over pairs already complete.
    let mut sprt_result = None;
    if let Some(sprt) = &cfg.sprt {
        sprt_result = live.sprt(sprt, &|p| owned.has_pair(p), schedule.pairs());
    }
    let remaining = if sprt_result.is_some() {
        0
    } else {
        total - done_before
    };

    let jobs = worker_count(
        options.jobs,
        cfg.concurrency,
        usize::try_from(remaining).unwrap_or(usize::MAX),
    );
    sink(&Event::Started {
        total,
        done: done_before,
        jobs,
        torn_tail,
    });

    let names = &shape.names;
    let mut writer = RecordWriter::open(&results).map_err(io_err(&results))?;
    // The shard's games in schedule order, handed out as workers get free: slot `k` is
    // game `k % 2` of the shard's `k / 2`-th pair; the games the results hold are skipped.
    let slots = if sprt_result.is_some() { 0 } else { total };
    let mut pending = (0..slots)
        .map(|slot| 2 * owned.nth_pair(slot / 2) + slot % 2)
        .filter(|g| !done_set.contains(*g));
    let stop = &options.stop;
    let mut played = 0u64;
    let mut done = done_before;
    let mut write_error: Option<RunError> = None;
    let mut worker_error: Option<String> = None;
    let mut ending = Ending::Complete;
    let book = &book;

    pool::run(
        jobs,
        |worker, halt| {
            // Engines are built on first use and kept while they fit (an outside engine:
            // one process per worker, reused across games).
            let mut engines = Players::<G>::new(t);
            let halt = Arc::clone(halt);
            move |g: u64| -> Option<Result<GameRecord, String>> {
                if halt.load(Ordering::Relaxed) || stop.load(Ordering::Relaxed) {
                    return None;
                }
                let s = schedule.game(g);
                engines.make_room(&[s.black, s.white]);
                for idx in [s.black, s.white] {
                    if engines.slots[idx].is_none() {
                        let spec = &t.engines[idx];
                        let context = PlayerContext {
                            log: spec
                                .external()
                                .map(|_| log_path(out, spec.name(), idx, worker, options.shard)),
                        };
                        match spec.build_player::<G>(game, &context) {
                            Ok(mut e) => {
                                e.set_abort_flag(Arc::clone(&halt));
                                engines.slots[idx] = Some(e);
                            }
                            Err(e) => return Some(Err(format!("engine '{}': {e}", spec.name()))),
                        }
                    }
                }
                let start = match book
                    .get(s.round)
                    .map_err(|e| e.to_string())
                    .and_then(|o| G::from_text(game, &o.position).map_err(|e| e.to_string()))
                {
                    Ok(p) => p,
                    Err(e) => return Some(Err(format!("opening of round {}: {e}", s.round))),
                };
                let setup = GameSetup {
                    variant: t.config.game,
                    scheduled: s,
                    names,
                    start: &start,
                    seed: derive_seed(t.config.seed, Stream::Game, g),
                    adjudication: &t.config.adjudication,
                    reproducible: t.engines[s.black].is_reproducible()
                        && t.engines[s.white].is_reproducible(),
                    stop: &halt,
                    time_controls: [
                        t.engines[s.black].time_control(),
                        t.engines[s.white].time_control(),
                    ],
                    move_limits: [
                        t.engines[s.black].move_limit(),
                        t.engines[s.white].move_limit(),
                    ],
                };
                let (lo, hi) = (s.black.min(s.white), s.black.max(s.white));
                let (left, right) = engines.slots.split_at_mut(hi);
                let e_lo = left[lo].as_deref_mut().expect("built above");
                let e_hi = right[0].as_deref_mut().expect("built above");
                let (black, white): (&mut dyn Player<G>, &mut dyn Player<G>) = if s.black == lo {
                    (e_lo, e_hi)
                } else {
                    (e_hi, e_lo)
                };
                // An abandoned game (the pool halted) ends the worker.
                play_game(&setup, [black, white]).ok().map(Ok)
            }
        },
        // The writer: this thread. Each record is appended and flushed before it counts.
        |pool| {
            // A worker's next game waits in the queue: never more than one per worker
            // (memory does not grow with the schedule).
            let feed = |pending: &mut dyn Iterator<Item = u64>| {
                while pool.queued() < jobs {
                    match pending.next() {
                        Some(g) => pool.push(g),
                        None => return pool.close(),
                    }
                }
            };
            feed(&mut pending);
            loop {
                if stop.load(Ordering::Relaxed) && !pool.halted() {
                    pool.halt();
                }
                match pool.recv(Duration::from_millis(200)) {
                    Received::Answer(Ok(record)) => {
                        // Once the SPRT decided, games still in flight are past its pairs:
                        // they are not written, so the results hold exactly the pairs up to
                        // the decision, however the threads were timed.
                        if write_error.is_some() || sprt_result.is_some() {
                            continue;
                        }
                        if let Err(e) = writer.append(&record) {
                            write_error = Some(RunError::io(writer.path(), e));
                            pool.halt();
                            continue;
                        }
                        if let Some(files) = &mut live_files
                            && let Err(e) = files.offer(&record)
                        {
                            // The game is in the results: a resumed run writes it.
                            write_error = Some(e);
                            pool.halt();
                            continue;
                        }
                        played += 1;
                        done += 1;
                        live.add(schedule, &record);
                        let mut decided = None;
                        if let Some(sprt) = &cfg.sprt {
                            decided = live.sprt(sprt, &|p| owned.has_pair(p), schedule.pairs());
                        }
                        let progress = cfg
                            .sprt
                            .as_ref()
                            .map(|sprt| live.sprt_progress(sprt, total.saturating_sub(done)));
                        let mut standings = live.standings(t, schedule);
                        if let Some(p) = &progress {
                            standings.push_str(&format!("  {}", p.describe()));
                        }
                        sink(&Event::Game {
                            record: &record,
                            done,
                            total,
                            standings,
                            sprt: progress,
                        });
                        if let Some(decided) = decided {
                            sink(&Event::SprtDecided {
                                decision: decided.0,
                                llr: decided.1,
                                pairs: decided.2,
                            });
                            sprt_result = Some(decided);
                            pool.halt();
                        }
                    }
                    Received::Answer(Err(msg)) => {
                        worker_error = Some(msg);
                        pool.halt();
                    }
                    Received::Idle => sink(&Event::Tick),
                    Received::Finished => break,
                }
                if !pool.halted() {
                    feed(&mut pending);
                }
            }
        },
    );
    drop(writer);
    if let Some(e) = write_error {
        return Err(e);
    }
    if let Some(msg) = worker_error {
        return Err(RunError::Input(msg));
    }
    if sprt_result.is_some() {
        ending = Ending::SprtDecided;
    } else if done < total {
        ending = Ending::Interrupted;
    }
    // An interrupted run's waiting games go in when it resumes (with the games before
    // them); a finished one's now, whatever the SPRT left unplayed between them.
    if let Some(files) = &mut live_files
        && ending != Ending::Interrupted
    {
        files.finish()?;
    }
    drop(live_files);
    let mut results = results;
    if let Some(files) = &shard_files
        && ending == Ending::Complete
    {
        shard::mark_complete(files)?;
        results = files.complete.clone();
    }
    let mut records = read_checked(&results, &shape)?.records;
    // An SPRT decides on the pairs in order: games of later pairs that finished before
    // the decision (other threads were ahead) are surplus, and left out of the results,
    // so that they hold the same games on any number of threads.
    let mut surplus = false;
    if let Some((_, _, pairs)) = sprt_result {
        let before = records.len();
        records.retain(|r| r.pair < pairs);
        surplus = records.len() < before;
        played = played.saturating_sub((before - records.len()) as u64);
    }
    // A finished run's games read in game order, whatever the threads' timing was (a
    // shard's file is put in order by the merge; an interrupted run keeps appending).
    if options.shard.is_none() && ending != Ending::Interrupted {
        if surplus {
            records.sort_by_key(|r| r.game);
            record::rewrite_records(&results, &records).map_err(io_err(&results))?;
        } else {
            record::rewrite_in_game_order(&results, &mut records).map_err(io_err(&results))?;
        }
    }
    let summary = summary::summarize(t, schedule, &records, sprt_result.map(|s| s.2));
    if options.shard.is_none() {
        summary::write_files(out, &summary)?;
    }
    drop(folder_lock);
    Ok(RunOutcome {
        ending,
        summary,
        out_dir: out.to_path_buf(),
        results,
        played,
        elapsed: started.elapsed(),
    })
}

/// What the built engines a worker keeps besides the two playing may hold in
/// transposition tables. Keeping an engine saves building it (its table and evaluator)
/// for its next game; keeping every engine a worker ever played made memory grow with
/// engines × workers × `tt_mb`.
const KEPT_TABLES_MB: u64 = 64;

/// A worker's players, one slot per engine of the tournament: built on first use;
/// built-in engines not playing now are dropped, least recently used first, past
/// [`KEPT_TABLES_MB`] of tables. A rebuilt engine plays as the kept one would: every
/// game starts with `new_game`, which forgets everything. Outside engines (processes,
/// whose memory is their own) are kept.
struct Players<'t, G: crate::game::Game> {
    slots: Vec<Option<Box<dyn Player<G>>>>,
    /// When each slot was last used (a counter of games).
    used: Vec<u64>,
    clock: u64,
    tournament: &'t Tournament,
}

impl<'t, G: crate::game::Game> Players<'t, G> {
    fn new(tournament: &'t Tournament) -> Players<'t, G> {
        let n = tournament.engines.len();
        Players {
            slots: (0..n).map(|_| None).collect(),
            used: vec![0; n],
            clock: 0,
            tournament,
        }
    }

    /// The table of engine `i` in MB, if it is a built-in engine (an outside one: None).
    fn table_mb(&self, i: usize) -> Option<u64> {
        self.tournament.engines[i]
            .builtin()
            .map(|c| u64::from(c.search.tt_mb))
    }

    /// Marks `playing` as used now and drops the least recently used built-in engines
    /// past the budget (never one of `playing`).
    fn make_room(&mut self, playing: &[usize]) {
        self.clock += 1;
        for &i in playing {
            self.used[i] = self.clock;
        }
        let mut kept: Vec<(u64, usize, u64)> = (0..self.slots.len())
            .filter(|i| self.slots[*i].is_some() && !playing.contains(i))
            .filter_map(|i| self.table_mb(i).map(|mb| (self.used[i], i, mb)))
            .collect();
        // Most recent first: keep those while they fit.
        kept.sort_unstable_by_key(|k| std::cmp::Reverse(k.0));
        let mut total = 0u64;
        for (_, i, mb) in kept {
            // An engine without a table still holds its evaluator and buffers.
            total += mb.max(1);
            if total > KEPT_TABLES_MB {
                self.slots[i] = None;
            }
        }
    }
}

/// Where the player of external engine `name` (engine `index`) in worker `worker` logs:
/// `<out>/logs/<name>-w<worker>.log` (with the shard, `-s<i>of<n>`, when sharded). A name
/// with characters a file name should not hold has them replaced by `_` and gets the
/// engine's index (`a_b~1-w0.log`), so `a/b` and `a_b` never share a log.
fn log_path(out: &Path, name: &str, index: usize, worker: usize, shard: Option<Shard>) -> PathBuf {
    let mut safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe != name {
        // `~` is never kept by the replacement above, so this cannot meet a real name.
        safe.push_str(&format!("~{index}"));
    }
    let shard = shard.map_or(String::new(), |s| format!("-s{}of{}", s.index, s.count));
    out.join("logs")
        .join(format!("{safe}{shard}-w{worker}.log"))
}

/// How a resumed run's config relates to the one it was made from.
enum Extension {
    /// The same but for more rounds: the run is extended (a longer schedule keeps every
    /// game of a shorter one at its index, with its seed and opening).
    More,
    /// The same but for fewer rounds.
    Fewer { old: i64, new: i64 },
    /// Something else differs (or nothing does).
    No,
}

/// Whether `new` is `old` with another `rounds` (compared as TOML trees).
fn rounds_extended(old: &str, new: &str) -> Extension {
    let (Ok(mut a), Ok(mut b)) = (old.parse::<toml::Table>(), new.parse::<toml::Table>()) else {
        return Extension::No;
    };
    let (Some(toml::Value::Integer(ra)), Some(toml::Value::Integer(rb))) =
        (a.remove("rounds"), b.remove("rounds"))
    else {
        return Extension::No;
    };
    if a != b || ra == rb {
        Extension::No
    } else if rb > ra {
        Extension::More
    } else {
        Extension::Fewer { old: ra, new: rb }
    }
}
