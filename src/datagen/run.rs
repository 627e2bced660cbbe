//! Running datagen: self-play games of a built-in engine (or against a second one) across
//! worker threads, each game
//! a pure function of (options, seed, game index) under depth or node limits, its
//! positions filtered and written by one writer in game-index order (games that finish
//! early wait in a bounded buffer), so the output is the same for any `--jobs`.
//!
//! Files in the output folder (a shard's carry `.shard-I-of-N` in their names):
//! `datagen.toml` (the options; a resume or another shard must match it),
//! `positions.EXT` (the data) and `datagen.log` (one line per game written: `game
//! positions bytes`, the totals after it). The log is the durable record: five times a
//! second the data file is flushed to disk, then the log lines of the games it now holds are
//! appended and flushed. On `--resume` a torn last log line is dropped, the data file
//! cut back to what the log says, and play goes on from the next game: a kill at any
//! moment loses only unlogged games, which are played again to the same positions.
//!
//! Duplicates are dropped by Zobrist key within windows of `dedup_window` games
//! (windows start at game indices that are multiples of it): a set of the window's keys,
//! cleared at each window, so memory is bounded by the window, not by the run. Shards
//! are contiguous ranges of whole windows, so `cat` of the shards' files in shard order
//! is byte for byte the file of a single run.

use std::{
    collections::{BTreeMap, HashSet},
    fs::{self, File, OpenOptions},
    io::Write,
    path::{Path, PathBuf},
    sync::{
        Arc, Condvar, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc,
    },
    time::{Duration, Instant},
};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{
    format::{self, DATA_STEM, DataReader, Format},
    sample::{DatagenGame, GameSamples, Sample, half_points},
};
use crate::{
    config,
    engine::{Engine, EngineConfig, Player},
    eval::Evaluator,
    files::jsonl,
    jobs::lock,
    search::score::is_decisive,
    tournament::{
        RunError,
        config::Adjudication,
        game::{GameSetup, play_game},
        openings::{Opening, read_file},
        record::GameRecord,
        schedule::ScheduledGame,
        seeds::{Stream, derive_seed},
        shard::Shard,
    },
    with_game,
};

mod game;

pub use self::game::{GameError, Labelling, samples_of};
pub(super) use game::played_out;
mod log;
mod workers;

use game::one_game;
pub(super) use log::{LogLine, scan_log};

/// The options a folder was made with.
pub const OPTIONS_FILE: &str = "datagen.toml";
/// The default clip of scores (what the binary formats' `i16` holds, rounded down).
pub const DEFAULT_SCORE_CLIP: i32 = 32_000;
/// The default duplicate window in games.
pub const DEFAULT_DEDUP_WINDOW: u64 = 64;
/// How often the data and the log are flushed to disk.
const COMMIT_EVERY: Duration = Duration::from_millis(200);

/// How much to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Games until this many positions are written (the last game's cut to fit).
    Positions(u64),
    /// This many games.
    Games(u64),
}

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct Datagen {
    /// The engine (limits applied), playing itself, or `against` when given.
    pub engine: EngineConfig,
    /// The opponent (limits applied; the same game): game `g` has `engine` first when
    /// `g` is even, `against` first when odd. `None`: self-play.
    pub against: Option<EngineConfig>,
    /// How much.
    pub target: Target,
    /// Random plies after the opening, before the engine plays.
    pub random_plies: u32,
    /// An opening file (game `g` starts from opening `g mod n`).
    pub openings: Option<PathBuf>,
    /// The format.
    pub format: Format,
    /// The master seed.
    pub seed: u64,
    /// Scores are clipped to ±this.
    pub score_clip: i32,
    /// Duplicates are dropped within windows of this many games.
    pub dedup_window: u64,
}

/// How to run it.
#[derive(Clone, Debug)]
pub struct DatagenRun {
    /// Worker threads (0: all cores).
    pub jobs: usize,
    /// Continue what the folder holds.
    pub resume: bool,
    /// The output folder.
    pub out_dir: PathBuf,
    /// Play one shard (needs a game count).
    pub shard: Option<Shard>,
    /// Play as this worker beside others on one folder (needs a game count): each claims
    /// duplicate windows of games in turn, the last to finish joins the files.
    pub worker: Option<String>,
    /// Raised to stop: the games written so far stay, `--resume` continues.
    pub stop: Arc<AtomicBool>,
}

/// Positions written and skipped, and what the searches cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Games written.
    pub games: u64,
    /// Positions written.
    pub positions: u64,
    /// Skipped: at or after a forced result in the search score.
    pub decided: u64,
    /// Skipped: a forced line or a capture swing in sight.
    pub forcing: u64,
    /// Skipped: seen before in the window.
    pub duplicates: u64,
    /// Positions the engine searched (every move it played).
    pub searched: u64,
    /// Microseconds the searches took (all workers).
    pub search_us: u64,
    /// Nodes the searches visited.
    pub nodes: u64,
}

/// What datagen reports as it works.
#[derive(Debug)]
pub enum DatagenEvent {
    /// Work is about to start.
    Started {
        /// Games and positions the folder held already (resume).
        games: u64,
        /// See `games`.
        positions: u64,
        /// The games of this run or shard, when counted in games.
        total_games: Option<u64>,
        /// The positions asked for, when counted in positions.
        total_positions: Option<u64>,
        /// Worker threads.
        jobs: usize,
        /// A torn log line or unlogged data was cut off.
        repaired: bool,
    },
    /// A game was written.
    Game {
        /// Totals so far (this session).
        session: Counts,
        /// Games in the file.
        games: u64,
        /// Positions in the file.
        positions: u64,
    },
    /// Nothing was written lately.
    Tick,
}

/// Why datagen ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatagenEnding {
    /// Everything asked for is written.
    Complete,
    /// Stopped on request; `--resume` continues.
    Interrupted,
}

/// The result of a session.
#[derive(Debug)]
pub struct DatagenOutcome {
    /// Why it ended.
    pub ending: DatagenEnding,
    /// This session's counts.
    pub session: Counts,
    /// Games in the file.
    pub games: u64,
    /// Positions in the file.
    pub positions: u64,
    /// The data file.
    pub data: PathBuf,
    /// Wall time of this session.
    pub elapsed: Duration,
}

impl Datagen {
    /// Checks the options for the engine's game.
    pub fn check(&self) -> Result<(), RunError> {
        if let Some(why) = self.format.refusal(&self.engine.game) {
            return Err(RunError::Input(why.to_string()));
        }
        if let Some(b) = &self.against
            && b.game != self.engine.game
        {
            return Err(RunError::Input(format!(
                "--against: engine '{}' plays {}, engine '{}' plays {}: both must play the \
                 same game",
                b.name, b.game, self.engine.name, self.engine.game
            )));
        }
        for e in std::iter::once(&self.engine).chain(&self.against) {
            if e.search.is_timed() {
                return Err(RunError::Input(format!(
                    "engine '{}' has a time limit: datagen's positions must not depend on \
                     the machine; give --depth or --nodes",
                    e.name
                )));
            }
            if e.search.depth == 0 && e.search.nodes == 0 {
                return Err(RunError::Input(format!(
                    "engine '{}' has no depth or node limit: give --depth or --nodes",
                    e.name
                )));
            }
        }
        format::check_clip(self.format, self.score_clip).map_err(RunError::Input)?;
        if self.dedup_window < 1 {
            return Err(RunError::Input("--dedup-window: must be at least 1".into()));
        }
        match self.target {
            Target::Positions(0) | Target::Games(0) => Err(RunError::Input(
                "nothing to generate: give a count of at least 1".into(),
            )),
            _ => Ok(()),
        }
    }

    /// The options as `datagen.toml` holds them (a resume or another shard must give the
    /// same).
    pub fn resolved_toml(&self) -> Result<String, RunError> {
        let mut t = toml::Table::new();
        let mut e = self.engine.params();
        e.insert("name".into(), self.engine.name.clone().into());
        e.insert("game".into(), self.engine.game.to_string().into());
        t.insert("engine".into(), toml::Value::Table(e));
        if let Some(b) = &self.against {
            let mut e = b.params();
            e.insert("name".into(), b.name.clone().into());
            e.insert("game".into(), b.game.to_string().into());
            t.insert("against".into(), toml::Value::Table(e));
        }
        let (key, n) = match self.target {
            Target::Positions(n) => ("positions", n),
            Target::Games(n) => ("games", n),
        };
        t.insert(key.into(), count(n));
        t.insert("random_plies".into(), i64::from(self.random_plies).into());
        t.insert("format".into(), self.format.as_str().into());
        t.insert("seed".into(), count(self.seed));
        t.insert("score_clip".into(), i64::from(self.score_clip).into());
        t.insert("dedup_window".into(), count(self.dedup_window));
        if let Some(path) = &self.openings {
            let bytes = fs::read(path).map_err(|e| RunError::io(path, e))?;
            t.insert("openings".into(), path.display().to_string().into());
            t.insert(
                "openings_sha256".into(),
                crate::tournament::shard::config_hash(&String::from_utf8_lossy(&bytes)).into(),
            );
        }
        toml::to_string(&t).map_err(|e| RunError::Input(format!("datagen options: {e}")))
    }

    /// The games of `shard` (all of them without one): `None` when counted in positions.
    pub fn game_range(&self, shard: Option<Shard>) -> Result<Option<(u64, u64)>, RunError> {
        match (self.target, shard) {
            (Target::Positions(_), None) => Ok(None),
            (Target::Positions(_), Some(s)) => Err(RunError::Input(format!(
                "--shard {}: a shard plays a fixed range of games; give --games, not \
                 --positions",
                s.label()
            ))),
            (Target::Games(n), None) => Ok(Some((0, n))),
            (Target::Games(n), Some(s)) => {
                let w = self.dedup_window;
                let windows = n.div_ceil(w);
                let (i, c) = (u64::from(s.index), u64::from(s.count));
                let first = windows * i / c;
                let last = windows * (i + 1) / c;
                Ok(Some(((first * w).min(n), (last * w).min(n))))
            }
        }
    }
}

fn count(n: u64) -> toml::Value {
    i64::try_from(n).map_or_else(|_| n.to_string().into(), toml::Value::from)
}

/// The names of a run's (or a shard's) files.
fn suffix(shard: Option<Shard>) -> String {
    shard.map_or(String::new(), |s| {
        format!(".shard-{}-of-{}", s.index, s.count)
    })
}

/// The data file of a run or shard.
pub fn data_file(out: &Path, format: Format, shard: Option<Shard>) -> PathBuf {
    data_file_named(out, format, &suffix(shard))
}

/// The log of a run or shard.
pub fn log_file(out: &Path, shard: Option<Shard>) -> PathBuf {
    log_file_named(out, &suffix(shard))
}

pub(super) fn data_file_named(out: &Path, format: Format, suffix: &str) -> PathBuf {
    out.join(format!("{DATA_STEM}{suffix}.{}", format.extension()))
}

pub(super) fn log_file_named(out: &Path, suffix: &str) -> PathBuf {
    out.join(format!("datagen{suffix}.log"))
}

/// Runs (or resumes) datagen.
pub fn run(
    datagen: &Datagen,
    options: &DatagenRun,
    sink: &mut dyn FnMut(&DatagenEvent),
) -> Result<DatagenOutcome, RunError> {
    datagen.check()?;
    with_game!(datagen.engine.game, |G, game| run_datagen::<G>(
        datagen, &game, options, sink
    ))
}

/// The writer's side: the files, the totals, the duplicate window.
struct Writer {
    data: File,
    data_path: PathBuf,
    log: File,
    log_path: PathBuf,
    /// Log lines of games written to `data` since the last commit.
    pending: String,
    last_commit: Instant,
    next_game: u64,
    positions: u64,
    bytes: u64,
    games: u64,
    keys: HashSet<u64>,
    buf: Vec<u8>,
    /// Games in a row that gave no position.
    empty_streak: u64,
}

impl Writer {
    /// Flushes the data to disk, then logs the games it holds.
    fn commit(&mut self) -> Result<(), RunError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.data
            .sync_data()
            .map_err(|e| RunError::io(&self.data_path, e))?;
        // One write per commit: a kill tears at most its last line.
        self.log
            .write_all(self.pending.as_bytes())
            .and_then(|()| self.log.sync_data())
            .map_err(|e| RunError::io(&self.log_path, e))?;
        self.pending.clear();
        self.last_commit = Instant::now();
        Ok(())
    }
}

/// Datagen, for the game type `G` ([`run`] picks it from the engine's game).
fn run_datagen<G: DatagenGame>(
    d: &Datagen,
    game: &G::Config,
    options: &DatagenRun,
    sink: &mut dyn FnMut(&DatagenEvent),
) -> Result<DatagenOutcome, RunError> {
    let started = Instant::now();
    let out = &options.out_dir;
    let shard = options.shard;
    let range = match &options.worker {
        Some(_) => None,
        None => d.game_range(shard)?,
    };
    let resolved = d.resolved_toml()?;
    let shape = match G::mnk_shape(game) {
        Some(Ok(s)) => Some(s),
        Some(Err(why)) if matches!(d.format, Format::Bin | Format::Binpack) => {
            return Err(RunError::Input(why.to_string()));
        }
        _ => None,
    };
    let openings: Option<Vec<Opening>> = match &d.openings {
        Some(path) => Some(read_file::<G>(path, game)?),
        None => None,
    };
    // Every engine builds before the folder is touched.
    for e in std::iter::once(&d.engine).chain(&d.against) {
        Engine::<G>::new(e, game)
            .map_err(|err| RunError::Input(format!("engine '{}': {err}", e.name)))?;
    }
    if let Some(label) = &options.worker {
        let part: Part<'_, G> = Part {
            game,
            shape,
            openings: openings.as_deref(),
            started,
        };
        return workers::run_worker(d, &part, options, label, &resolved, sink);
    }

    let what = match shard {
        Some(s) => format!("arena datagen --shard {}", s.label()),
        None => "arena datagen".to_string(),
    };
    let folder_lock = match shard {
        Some(s) => lock::lock_shard(out, s, &what)?,
        None => lock::lock_exclusive(out, &what)?,
    };
    if folder_lock.is_exclusive() {
        crate::files::remove_stale_temporaries(out);
    }
    if workers::in_play(out) {
        return Err(RunError::Input(format!(
            "{}: datagen workers are at work on this folder, or left it half done \
             ({} is there): continue it with --workers (or --worker ID) and the same \
             arguments; a plain run or a shard would play their games again beside them",
            out.display(),
            workers::CLAIMS_FILE
        )));
    }
    check_options(out, &resolved)?;
    let part: Part<'_, G> = Part {
        game,
        shape,
        openings: openings.as_deref(),
        started,
    };
    let outcome = play_part(
        d,
        &part,
        options,
        range,
        &suffix(shard),
        options.resume,
        Some(&resolved),
        sink,
    )?;
    drop(folder_lock);
    Ok(outcome)
}

/// What every part of a run shares: the game, its board shape, the openings.
pub(super) struct Part<'a, G: DatagenGame> {
    pub(super) game: &'a G::Config,
    pub(super) shape: Option<super::sample::MnkShape>,
    pub(super) openings: Option<&'a [Opening]>,
    pub(super) started: Instant,
}

/// Refuses a folder whose `datagen.toml` holds other options than `resolved`.
pub(super) fn check_options(out: &Path, resolved: &str) -> Result<(), RunError> {
    let options_path = out.join(OPTIONS_FILE);
    match fs::read(&options_path) {
        Ok(old) => {
            let old = config::utf8_text(&options_path, old)?;
            if let Some(why) = other_opponent(&old, resolved) {
                return Err(RunError::Input(format!(
                    "{} was made {why}: resume and shards need the same --against, or \
                     another --out",
                    options_path.display()
                )));
            }
            if old != resolved {
                return Err(RunError::Input(format!(
                    "{} was made with other options ({}): resume and shards need the same \
                     engine and options, or another --out",
                    options_path.display(),
                    first_difference(&old, resolved)
                )));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(RunError::io(&options_path, e)),
    }
    Ok(())
}

/// Plays games `range` (all until the positions are written, without one) into the data
/// file and log named with `suffix`, continuing what they hold when `resume`; writes
/// `resolved` as `datagen.toml` first when given.
#[allow(clippy::too_many_arguments)]
pub(super) fn play_part<G: DatagenGame>(
    d: &Datagen,
    part: &Part<'_, G>,
    options: &DatagenRun,
    range: Option<(u64, u64)>,
    suffix: &str,
    resume: bool,
    resolved: Option<&str>,
    sink: &mut dyn FnMut(&DatagenEvent),
) -> Result<DatagenOutcome, RunError> {
    let (game, shape, started) = (part.game, part.shape, part.started);
    let out = &options.out_dir;
    let options_path = out.join(OPTIONS_FILE);
    let data_path = data_file_named(out, d.format, suffix);
    let log_path = log_file_named(out, suffix);
    let first = range.map_or(0, |r| r.0);
    let scan = scan_log(&log_path, first, |_| {})?;
    let data_len = match fs::metadata(&data_path) {
        Ok(m) => m.len(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
        Err(e) => return Err(RunError::io(&data_path, e)),
    };
    if !resume && (scan.last.is_some() || scan.torn || data_len > 0) {
        return Err(RunError::Input(format!(
            "{} already holds {} games: add --resume to continue, or choose another --out",
            out.display(),
            scan.last.map_or(0, |l| l.game + 1 - first)
        )));
    }
    let logged_bytes = scan.last.map_or(0, |l| l.bytes);
    if data_len < logged_bytes {
        return Err(RunError::Input(format!(
            "{}: {data_len} bytes, but {} says {logged_bytes} were written: the data file was \
             cut or replaced; start afresh in another folder",
            data_path.display(),
            log_path.display()
        )));
    }
    if let Some(resolved) = resolved {
        crate::files::write_atomic(&options_path, resolved.as_bytes(), true)
            .map_err(RunError::from)?;
    }
    let repaired = scan.torn || data_len > logged_bytes;
    if scan.torn {
        jsonl::truncate_to(&log_path, scan.valid_len).map_err(|e| RunError::io(&log_path, e))?;
    }
    if data_len > logged_bytes {
        jsonl::truncate_to(&data_path, logged_bytes).map_err(|e| RunError::io(&data_path, e))?;
    }
    let next_game = scan.last.map_or(first, |l| l.game + 1);
    let (games_before, positions_before) = scan
        .last
        .map_or((0, 0), |l| (l.game + 1 - first, l.positions));

    // The window in progress: its keys from the data written since it began.
    let window_start = (next_game / d.dedup_window * d.dedup_window).max(first);
    let mut keys = HashSet::new();
    if next_game > window_start {
        let mut offset = 0;
        if window_start > first {
            scan_log(&log_path, first, |l| {
                if l.game + 1 == window_start {
                    offset = l.bytes;
                }
            })?;
        }
        let mut reader =
            DataReader::open(&data_path, d.format).map_err(|e| RunError::Input(e.to_string()))?;
        reader
            .seek(offset)
            .map_err(|e| RunError::io(&data_path, e))?;
        while let Some(r) = reader
            .next_record()
            .map_err(|e| RunError::Input(e.to_string()))?
        {
            let pos = G::from_text(game, &r.position).map_err(|e| {
                RunError::Input(format!("{}: {}: {e}", data_path.display(), r.position))
            })?;
            keys.insert(pos.hash());
        }
    }

    let done = match (d.target, range) {
        (Target::Positions(n), _) => positions_before >= n,
        (_, Some((_, end))) => next_game >= end,
        (Target::Games(_), None) => unreachable!("a game count has a range"),
    };
    let end = range.map_or(u64::MAX, |r| r.1);
    let jobs = match options.jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .max(1)
    .min(
        usize::try_from(end.saturating_sub(next_game))
            .unwrap_or(usize::MAX)
            .max(1),
    );
    sink(&DatagenEvent::Started {
        games: games_before,
        positions: positions_before,
        total_games: range.map(|(a, b)| b - a),
        total_positions: match d.target {
            Target::Positions(n) => Some(n),
            Target::Games(_) => None,
        },
        jobs,
        repaired,
    });

    let open = |path: &Path| {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| RunError::io(path, e))
    };
    let mut w = Writer {
        data: open(&data_path)?,
        data_path: data_path.clone(),
        log: open(&log_path)?,
        log_path,
        pending: String::new(),
        last_commit: Instant::now(),
        next_game,
        positions: positions_before,
        bytes: logged_bytes,
        games: games_before,
        keys,
        buf: Vec::new(),
        empty_streak: 0,
    };
    let mut session = Counts::default();
    let mut ending = DatagenEnding::Complete;
    if !done {
        ending = play::<G>(
            d,
            game,
            options,
            part.openings,
            jobs,
            end,
            shape,
            &mut w,
            &mut session,
            sink,
        )?;
    }
    w.commit()?;
    Ok(DatagenOutcome {
        ending,
        session,
        games: w.games,
        positions: w.positions,
        data: data_path,
        elapsed: started.elapsed(),
    })
}

/// Games in a row without a position after which a run counted in positions gives up
/// (it would never end).
const EMPTY_STREAK_LIMIT: u64 = 1000;

/// Games a worker may run ahead of the writer (per worker): the buffer of finished
/// games waiting for an earlier one stays this small.
const AHEAD_PER_WORKER: u64 = 4;

#[allow(clippy::too_many_arguments)]
fn play<G: DatagenGame>(
    d: &Datagen,
    game: &G::Config,
    options: &DatagenRun,
    openings: Option<&[Opening]>,
    jobs: usize,
    end: u64,
    shape: Option<super::sample::MnkShape>,
    w: &mut Writer,
    session: &mut Counts,
    sink: &mut dyn FnMut(&DatagenEvent),
) -> Result<DatagenEnding, RunError> {
    let next_claim = AtomicU64::new(w.next_game);
    // The next game the writer waits for, for the workers' look-ahead.
    let written = (Mutex::new(w.next_game), Condvar::new());
    let internal_stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<(u64, Result<GameSamples, GameError>)>();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| RunError::Input(format!("cannot start {jobs} worker threads: {e}")))?;
    let opponent = d.against.as_ref().unwrap_or(&d.engine);
    let names = vec![d.engine.name.clone(), opponent.name.clone()];
    let text = d.format == Format::Text;
    let ahead = AHEAD_PER_WORKER * jobs as u64;
    let mut buffer: BTreeMap<u64, GameSamples> = BTreeMap::new();
    let mut failure: Option<RunError> = None;
    let mut finished = false;
    pool.in_place_scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next_claim, written, names) = (&next_claim, &written, &names);
            let stop = Arc::clone(&internal_stop);
            let user_stop = Arc::clone(&options.stop);
            scope.spawn(move |_| {
                let build = |e: &EngineConfig| {
                    Engine::<G>::new(e, game).map_err(|error| GameError::Engine {
                        name: e.name.clone(),
                        error,
                    })
                };
                let (mut a, mut b) = match (build(&d.engine), build(opponent)) {
                    (Ok(a), Ok(b)) => (a, b),
                    (Err(e), _) | (_, Err(e)) => {
                        let _ = tx.send((0, Err(e)));
                        return;
                    }
                };
                a.set_abort_flag(Arc::clone(&stop));
                b.set_abort_flag(Arc::clone(&stop));
                let mut forced_search = d.engine.search.clone();
                forced_search.forced = true;
                let mut eval = match G::evaluator(game, d.engine.table.as_ref(), &forced_search) {
                    Ok(e) => e,
                    Err(e) => {
                        let _ = tx.send((0, Err(GameError::Evaluator(e.to_string()))));
                        return;
                    }
                };
                loop {
                    if stop.load(Ordering::Relaxed) || user_stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let g = next_claim.fetch_add(1, Ordering::Relaxed);
                    if g >= end {
                        break;
                    }
                    {
                        let (lock, cv) = written;
                        let mut next = lock.lock().unwrap_or_else(|p| p.into_inner());
                        while g >= *next + ahead && !stop.load(Ordering::Relaxed) {
                            next = cv
                                .wait_timeout(next, Duration::from_millis(100))
                                .unwrap_or_else(|p| p.into_inner())
                                .0;
                            if user_stop.load(Ordering::Relaxed) {
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    match one_game::<G>(
                        d,
                        game,
                        g,
                        openings,
                        names,
                        &stop,
                        [&mut a, &mut b],
                        &mut eval,
                        text,
                    ) {
                        Ok(Some(s)) => {
                            if tx.send((g, Ok(s))).is_err() {
                                break;
                            }
                        }
                        Ok(None) => break,
                        Err(e) => {
                            let _ = tx.send((g, Err(e)));
                            break;
                        }
                    }
                }
            });
        }
        drop(tx);
        loop {
            if options.stop.load(Ordering::Relaxed) {
                internal_stop.store(true, Ordering::Relaxed);
            }
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok((_, Err(e))) => {
                    failure.get_or_insert(RunError::Input(e.to_string()));
                    internal_stop.store(true, Ordering::Relaxed);
                }
                Ok((g, Ok(samples))) => {
                    if failure.is_some() || finished {
                        continue;
                    }
                    buffer.insert(g, samples);
                    while let Some(samples) = buffer.remove(&w.next_game) {
                        match write_game(d, shape, w, &samples, session) {
                            Ok(complete) => finished = complete,
                            Err(e) => {
                                failure = Some(e);
                                internal_stop.store(true, Ordering::Relaxed);
                                break;
                            }
                        }
                        {
                            let (lock, cv) = &written;
                            *lock.lock().unwrap_or_else(|p| p.into_inner()) = w.next_game;
                            cv.notify_all();
                        }
                        sink(&DatagenEvent::Game {
                            session: *session,
                            games: w.games,
                            positions: w.positions,
                        });
                        if finished {
                            internal_stop.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => sink(&DatagenEvent::Tick),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if failure.is_none()
                && w.last_commit.elapsed() >= COMMIT_EVERY
                && let Err(e) = w.commit()
            {
                failure = Some(e);
                internal_stop.store(true, Ordering::Relaxed);
            }
        }
    });
    if let Some(e) = failure {
        // What is written and logged stays good: commit it before failing.
        let _ = w.commit();
        return Err(e);
    }
    Ok(if finished || w.next_game >= end {
        DatagenEnding::Complete
    } else {
        DatagenEnding::Interrupted
    })
}

/// Writes game `w.next_game`'s positions (duplicates dropped, the last game cut to the
/// positions asked for); returns whether everything asked for is written.
fn write_game(
    d: &Datagen,
    shape: Option<super::sample::MnkShape>,
    w: &mut Writer,
    game: &GameSamples,
    session: &mut Counts,
) -> Result<bool, RunError> {
    if w.next_game.is_multiple_of(d.dedup_window) {
        w.keys.clear();
    }
    let mut kept: Vec<&Sample> = Vec::with_capacity(game.samples.len());
    for s in &game.samples {
        if w.keys.insert(s.key) {
            kept.push(s);
        } else {
            session.duplicates += 1;
        }
    }
    let mut complete = false;
    if let Target::Positions(n) = d.target {
        let room = usize::try_from(n - w.positions).unwrap_or(usize::MAX);
        if kept.len() >= room {
            kept.truncate(room);
            complete = true;
        }
    }
    w.buf.clear();
    format::encode(d.format, shape, &game.moves, &kept, &mut w.buf);
    w.data
        .write_all(&w.buf)
        .map_err(|e| RunError::io(&w.data_path, e))?;
    w.bytes += w.buf.len() as u64;
    w.positions += kept.len() as u64;
    w.games += 1;
    w.pending.push_str(
        &LogLine {
            game: w.next_game,
            positions: w.positions,
            bytes: w.bytes,
        }
        .text(),
    );
    w.next_game += 1;
    w.empty_streak = if kept.is_empty() {
        w.empty_streak + 1
    } else {
        0
    };
    if w.empty_streak >= EMPTY_STREAK_LIMIT && matches!(d.target, Target::Positions(_)) {
        return Err(RunError::Input(format!(
            "{EMPTY_STREAK_LIMIT} games in a row gave no position (every one skipped: \
             forced results, forced lines or duplicates): more random plies, another \
             opening file or a deeper search may help"
        )));
    }
    session.games += 1;
    session.positions += kept.len() as u64;
    session.decided += game.decided;
    session.forcing += game.forcing;
    session.searched += game.searched;
    session.search_us += game.search_us;
    session.nodes += game.nodes;
    Ok(complete)
}

/// How the opponents of two option files differ (`None`: they do not).
fn other_opponent(old: &str, new: &str) -> Option<String> {
    let against = |text: &str| {
        toml::from_str::<toml::Table>(text)
            .ok()
            .and_then(|t| t.get("against").cloned())
    };
    let (old, new) = (against(old), against(new));
    if old == new {
        return None;
    }
    let name = |v: &Option<toml::Value>| match v {
        Some(t) => format!(
            "against engine '{}'",
            t.get("name").and_then(toml::Value::as_str).unwrap_or("?")
        ),
        None => "by self-play (no --against)".to_string(),
    };
    let (was, now) = (name(&old), name(&new));
    Some(if was == now {
        format!("{was} with other parameters than this --against's")
    } else {
        format!("{was}, not {now}")
    })
}

/// The first line that differs between two option files.
fn first_difference(old: &str, new: &str) -> String {
    for (a, b) in old.lines().zip(new.lines()) {
        if a != b {
            return format!("was `{}`, now `{}`", a.trim(), b.trim());
        }
    }
    "one has more lines".to_string()
}
