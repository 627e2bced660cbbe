//! The command-line side of every long job (`run`, `match`, `sweep`, `tune`, `fit`):
//! where its results go, one Ctrl-C handler for the whole process, progress on a terminal
//! (bars) and without one (log lines, as cutechess-cli prints them), the exact command
//! that continues a stopped job, and the report at the end (what it prints on standard
//! output is in [`tables`](super::tables)). Each command keeps only
//! what is its own: the tournament's standings, SPSA's table, the fit's epochs, the
//! sweep's points.

use std::{
    io::{self, IsTerminal, Write},
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use arena::{
    jobs::JobOptions,
    report::rate,
    tournament::{Event, GameRecord},
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{Interrupted, again_with, signals::stop_flag};

/// The options every long job takes.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct JobArgs {
    /// Worker threads (default: the config's `jobs`, or all cores); results never depend
    /// on it.
    #[arg(long, short, visible_alias = "concurrency")]
    pub jobs: Option<usize>,
    /// Continue what the results folder holds: only what is missing is played (give the
    /// arguments the job started with).
    #[arg(long)]
    pub resume: bool,
    /// Results folder (default: results/<name>).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// No progress (a bar on a terminal, log lines without one); print only the final
    /// tables.
    #[arg(long, short)]
    pub quiet: bool,
}

/// A long job as the command line runs it.
pub(crate) struct Job {
    /// The results folder.
    pub out: PathBuf,
    /// Worker threads asked for.
    jobs: Option<usize>,
    /// Continue what the folder holds.
    resume: bool,
    /// Raised by the first Ctrl-C (SIGTERM, SIGHUP).
    pub stop: Arc<AtomicBool>,
    /// Progress bars (on a terminal, unless `--quiet`).
    pub show: bool,
    /// Log lines instead (no terminal, unless `--quiet`).
    pub log: bool,
}

impl Job {
    /// The job `args` ask for, writing to `--out` (default `results/<name>`);
    /// `stopping` is what the first Ctrl-C says it does ("stopping after writing the
    /// finished games").
    pub fn new(args: &JobArgs, name: &str, stopping: &'static str) -> Job {
        let show = !args.quiet && io::stderr().is_terminal();
        Job {
            out: args
                .out
                .clone()
                .unwrap_or_else(|| Path::new("results").join(name)),
            jobs: args.jobs,
            resume: args.resume,
            stop: stop_flag(stopping),
            show,
            log: !args.quiet && !show,
        }
    }

    /// The library's options for this job.
    pub fn options(&self) -> JobOptions {
        JobOptions {
            jobs: self.jobs.unwrap_or(0),
            resume: self.resume,
            out_dir: self.out.clone(),
            stop: Arc::clone(&self.stop),
        }
    }

    /// The progress of a match the job plays (`label`: "verification", or "" for the
    /// job's own games).
    pub fn games(&self, label: &'static str) -> GamesView {
        GamesView::new(self.show, self.log, label)
    }

    /// A progress bar in `template` (hidden without a terminal), ticking on its own.
    pub fn bar(&self, template: &str) -> ProgressBar {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        if !self.show {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        bar.set_style(
            ProgressStyle::with_template(template)
                .expect("the progress template is valid")
                .progress_chars("=> "),
        );
        bar.enable_steady_tick(Duration::from_millis(500));
        bar
    }

    /// The report of `dir` at the end of the job (`threads`: the workers it used). It
    /// says where it went on standard error (standard output is the job's tables);
    /// failing only warns: the results themselves are written.
    pub fn report(dir: &Path, threads: Option<usize>) {
        super::report::after(dir, threads);
    }
}

/// Says how to continue a stopped job (the command the user typed, with `--resume`) and
/// returns [`Interrupted`], for exit code 130.
pub(crate) fn interrupted(out: &mut impl Write) -> anyhow::Result<()> {
    writeln!(
        out,
        "interrupted: continue with  {}",
        again_with("--resume")
    )?;
    Err(Interrupted.into())
}

/// The progress of a match played through the tournament runner (a run, a sweep's
/// point, a verification, the fit's self-play games): a bar on a terminal, a line per
/// game in a log.
pub(crate) struct GamesView {
    bar: ProgressBar,
    log: Option<GameLog>,
    label: &'static str,
    note: Option<String>,
    workers: Option<usize>,
    /// With an SPRT: the games it is expected to need still, which the bar's ETA counts
    /// (`u64::MAX`: none, the ETA counts the schedule's games).
    games_left: Arc<AtomicU64>,
}

impl GamesView {
    /// A bar when `show`, log lines when `log`; `label` names the match in its lines
    /// (empty for the job's own games).
    fn new(show: bool, log: bool, label: &'static str) -> GamesView {
        let prefix = if label.is_empty() {
            String::new()
        } else {
            format!("{label} ")
        };
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        if !show {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        let games_left = Arc::new(AtomicU64::new(u64::MAX));
        let left = Arc::clone(&games_left);
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{prefix}{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} games  {{rate}}  \
                 ETA {{eta}}\n{{msg}}"
            ))
            .expect("the progress template is valid")
            .with_key(
                "rate",
                |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.1} games/s", state.per_sec());
                },
            )
            .with_key(
                "eta",
                move |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let eta = match left.load(Ordering::Relaxed) {
                        u64::MAX => state.eta(),
                        games => {
                            let per_sec = state.per_sec();
                            if per_sec > 0.0 && per_sec.is_finite() {
                                Duration::from_secs_f64(games as f64 / per_sec)
                            } else {
                                Duration::ZERO
                            }
                        }
                    };
                    let _ = write!(w, "{:#}", indicatif::HumanDuration(eta));
                },
            )
            .progress_chars("=> "),
        );
        bar.enable_steady_tick(Duration::from_millis(500));
        GamesView {
            bar,
            log: log.then(GameLog::new),
            label,
            note: None,
            workers: None,
            games_left,
        }
    }

    /// A line said once the match's checks passed (on standard error even with
    /// `--quiet`: a cluster job's log must tell which shard it played).
    pub fn with_note(mut self, note: Option<String>) -> GamesView {
        self.note = note;
        self
    }

    /// The worker threads the match used, once it started.
    pub fn workers(&self) -> Option<usize> {
        self.workers
    }

    /// Shows one event of the runner.
    pub fn event(&mut self, event: &Event<'_>) {
        match event {
            Event::Started {
                total,
                done,
                jobs,
                torn_tail,
            } => {
                if let Some(note) = &self.note {
                    self.bar.suspend(|| eprintln!("{note}"));
                }
                self.workers = Some(*jobs);
                self.bar.set_length(*total);
                self.bar.set_position(*done);
                self.bar.reset_eta();
                if *torn_tail {
                    self.bar.println(
                        "arena: the results' last line was torn (a crash mid-write): \
                         dropped, that game is replayed",
                    );
                }
                if *done > 0 {
                    self.bar.println(format!(
                        "arena: resuming: {done} of {total} games already played"
                    ));
                }
                self.bar.set_message(format!("{jobs} worker(s)"));
                if let Some(log) = self.log.as_mut() {
                    log.started(*total, *done, *jobs);
                }
            }
            Event::Game {
                record,
                done,
                total,
                standings,
                sprt,
            } => {
                // With an SPRT the run ends at its decision, not at the schedule's end
                // (a cap of thousands of pairs): the ETA counts the games it is expected
                // to need.
                let left = sprt.and_then(|s| s.expected_games_left);
                self.games_left
                    .store(left.unwrap_or(u64::MAX), Ordering::Relaxed);
                self.bar.set_position(*done);
                self.bar.set_message(standings.clone());
                if let Some(log) = self.log.as_mut() {
                    log.game(record, *done, *total, left, standings);
                }
            }
            Event::Tick => self.bar.tick(),
            Event::SprtDecided {
                decision,
                llr,
                pairs,
            } => {
                let label = if self.label.is_empty() {
                    String::new()
                } else {
                    format!("{} ", self.label)
                };
                self.bar.println(format!(
                    "arena: {label}SPRT: {decision} after {pairs} game pairs (LLR {llr:.2})"
                ));
            }
        }
    }

    /// Clears the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Progress for a log when there is no terminal (nohup, CI, a pipe), as cutechess-cli
/// and fastchess print it: a line per finished game and, every [`GameLog::SCORE_EVERY`]
/// games or [`GameLog::SCORE_INTERVAL`] (whichever comes first) and after the last
/// game, the score so far. On standard error, like the progress bar it replaces.
struct GameLog {
    started: Instant,
    last_score: Instant,
    since_score: u64,
    done_at_start: u64,
}

impl GameLog {
    /// Games between two score lines.
    const SCORE_EVERY: u64 = 10;
    /// Time between two score lines while games keep finishing.
    const SCORE_INTERVAL: Duration = Duration::from_secs(60);

    fn new() -> GameLog {
        let now = Instant::now();
        GameLog {
            started: now,
            last_score: now,
            since_score: 0,
            done_at_start: 0,
        }
    }

    /// The run starts: `done` of `total` games are already in the results.
    fn started(&mut self, total: u64, done: u64, jobs: usize) {
        self.done_at_start = done;
        let resumed = if done > 0 {
            format!(" ({done} already played)")
        } else {
            String::new()
        };
        eprintln!("Started: {total} games{resumed}, {jobs} worker(s)");
    }

    /// A game was written: its line, and the score when one is due. `left`: the games
    /// still expected (an SPRT's estimate), else the schedule's rest.
    fn game(&mut self, r: &GameRecord, done: u64, total: u64, left: Option<u64>, standings: &str) {
        eprintln!(
            "Finished game {} ({} vs {}): {} {{{}}}",
            r.game,
            r.black_name,
            r.white_name,
            r.result.as_str(),
            r.reason
        );
        self.since_score += 1;
        if self.since_score >= Self::SCORE_EVERY
            || self.last_score.elapsed() >= Self::SCORE_INTERVAL
            || done == total
        {
            let elapsed = self.started.elapsed().as_secs_f64();
            let played = done.saturating_sub(self.done_at_start);
            let per_sec = played as f64 / elapsed.max(1e-9);
            let left = left.unwrap_or(total - done).min(total - done);
            let eta = if per_sec > 0.0 && left > 0 {
                format!(", ETA {}", clock(left as f64 / per_sec))
            } else {
                String::new()
            };
            eprintln!(
                "Score after {done} of {total} games ({}, {}{eta}): {standings}",
                clock(elapsed),
                rate(per_sec, "games/s")
            );
            self.since_score = 0;
            self.last_score = Instant::now();
        }
    }
}

/// Progress of a job's own steps (a tune's pairs) as log lines, at most one per `every`
/// and one at the end: steps done, speed, ETA and what the job says of itself.
pub(crate) struct StepLog {
    every: Duration,
    unit: &'static str,
    started: Instant,
    last: Instant,
    first_done: Option<u64>,
}

impl StepLog {
    /// A line at most every `every`, counting `unit`s ("pairs").
    pub fn new(every: Duration, unit: &'static str) -> StepLog {
        let now = Instant::now();
        StepLog {
            every,
            unit,
            started: now,
            last: now,
            first_done: None,
        }
    }

    /// `done` of `total` steps are done; `what` is the job's own word on its state.
    pub fn step(&mut self, done: u64, total: u64, what: &str) {
        // The speed of this session, from its first step on.
        let first = match self.first_done {
            Some(first) => first,
            None => {
                self.first_done = Some(done);
                self.started = Instant::now();
                done
            }
        };
        if self.last.elapsed() < self.every && done < total {
            return;
        }
        self.last = Instant::now();
        let secs = self.started.elapsed().as_secs_f64().max(1e-9);
        let per_sec = (done - first) as f64 / secs;
        let eta = if per_sec > 0.0 {
            let left = (total - done) as f64 / per_sec;
            format!(
                "{}h{:02}m",
                (left / 3600.0) as u64,
                ((left % 3600.0) / 60.0) as u64
            )
        } else {
            "-".to_string()
        };
        eprintln!(
            "arena: {done}/{total} {} ({:.1} %), {per_sec:.1} {}/s, ETA {eta}; {what}",
            self.unit,
            100.0 * done as f64 / total.max(1) as f64,
            self.unit
        );
    }
}

/// Seconds as `h:mm:ss` (or `m:ss`).
fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// `count` things (`what`: "games this run") done in `elapsed`, with the rate in `unit`:
/// `20 games this run in 0.4 s (52.36 games/s)`.
pub(crate) fn done_in(count: u64, what: &str, elapsed: Duration, unit: &str) -> String {
    let secs = elapsed.as_secs_f64();
    format!(
        "{count} {what} in {secs:.1} s ({})",
        rate(count as f64 / secs.max(1e-9), unit)
    )
}

/// Puts a flag's value in `slot` when the flag was given.
pub(crate) fn set_from<T>(slot: &mut T, flag: Option<T>) {
    if let Some(v) = flag {
        *slot = v;
    }
}

/// The value of a count flag (`--rounds`, `--pairs`, `--epochs`), refused when it is 0.
pub(crate) fn at_least_one<T: Copy + Default + PartialEq>(
    flag: &str,
    value: Option<T>,
) -> anyhow::Result<Option<T>> {
    match value {
        Some(v) if v == T::default() => anyhow::bail!("{flag}: must be at least 1"),
        v => Ok(v),
    }
}
