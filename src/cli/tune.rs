//! `arena tune`: SPSA tuning from the command line, with a live view of θ, then the
//! verification match.

use std::{
    io::{self, IsTerminal, Write},
    path::{Path, PathBuf},
    sync::{Arc, atomic::AtomicBool},
    time::{Duration, Instant},
};

use anyhow::{Result, bail};
use arena::{
    tournament::{Ending, Event, RunError},
    tune::{
        self, Tune, TuneEnding, TuneEvent, TuneOptions,
        output::{ParamReport, TuneReport},
        runner::TuneOutcome,
    },
};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::rules::rate;

/// Tune engine parameters with SPSA (checkpointed; --resume continues), then verify.
#[derive(Args, Debug)]
#[command(after_help = "\
SPSA as fishtest runs it: each game pair, a 'plus' engine (θ + c_k·flip) plays a \
'minus' engine (θ - c_k·flip) on one opening with colours swapped, and θ moves towards \
the winner. After every batch the state is checkpointed (state.json, written to a \
temporary file and renamed): kill the run or lose power, then run the same command with \
--resume and it ends with exactly the θ of an uninterrupted run.

Output in results/<name>/ (or --out): tuned.toml (the base table, comments kept, tuned \
values in place), tuned-engine.toml, trajectory.csv (θ after every batch), tune.json (the \
numbers), state.json, run.toml, and verification/ (the tuned engine against the base \
engine, a tournament's results).

Examples:
  arena tune configs/tune-gomoku.toml --pairs 100          # a quick try
  nohup arena tune configs/tune-gomoku.toml > tune.log 2>&1 &     # a line a minute
  arena tune configs/tune-gomoku.toml --resume             # after a reboot")]
pub struct TuneArgs {
    /// The tuning config (TOML).
    config: PathBuf,
    /// Continue from the checkpoint (state.json) in the results folder.
    #[arg(long)]
    resume: bool,
    /// Worker threads (default: the config's `jobs`, or all cores). Results do not
    /// depend on it.
    #[arg(long, short, visible_alias = "concurrency")]
    jobs: Option<usize>,
    /// Override the total number of game pairs N (a quick try; changes every gain).
    #[arg(long, value_name = "N")]
    pairs: Option<u64>,
    /// Override the verification match's game pairs (0: no verification).
    #[arg(long, value_name = "N")]
    verify_pairs: Option<u32>,
    /// Override the master seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Results folder (default: results/<name>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// No progress bars; print only the final tables.
    #[arg(long, short)]
    quiet: bool,
}

/// File-system failures exit 1 like tournaments' do; everything else is bad input.
pub(super) fn lift(e: tune::TuneError) -> anyhow::Error {
    match e {
        tune::TuneError::Io { path, source } => RunError::Io { path, source }.into(),
        other => other.into(),
    }
}

pub(super) fn bar(show: bool, template: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if !show {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template(template)
            .expect("the progress template is valid")
            .progress_chars("=> "),
    );
    bar
}

/// Parameter values for the live view: `open_three 7512  defence 1.31`.
fn live_values(tune: &Tune, values: &[f64]) -> String {
    tune.params
        .iter()
        .zip(values)
        .map(|(p, v)| {
            let short = p.name.strip_prefix("table.").unwrap_or(&p.name);
            format!("{short} {}", fmt_value(*v, p.integer))
        })
        .collect::<Vec<_>>()
        .join("  ")
}

pub(super) fn fmt_value(v: f64, integer: bool) -> String {
    if integer {
        format!("{v:.0}")
    } else if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.4}")
    }
}

pub fn tune(args: TuneArgs) -> Result<()> {
    let mut t = Tune::load(&args.config)?;
    if let Some(n) = args.pairs {
        if n == 0 {
            bail!("--pairs: must be at least 1");
        }
        t.config.pairs = n;
    }
    if let Some(s) = args.seed {
        t.config.seed = s;
    }
    let out_dir = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("results").join(&t.config.name));
    let stop = Arc::new(AtomicBool::new(false));
    super::install_ctrlc(Arc::clone(&stop), "stopping; the last checkpoint stands");
    let options = TuneOptions {
        jobs: args.jobs.unwrap_or(0),
        resume: args.resume,
        out_dir: out_dir.clone(),
        stop,
    };
    let show = !args.quiet && io::stderr().is_terminal();
    // Without a terminal (nohup, a log file) a line now and then instead of the bar.
    let mut log = (!args.quiet && !show).then(|| LogLines::new(Duration::from_secs(60)));

    let progress = bar(
        show,
        "{elapsed_precise} [{bar:30}] {pos}/{len} pairs  {per_sec}  ETA {eta}\n{msg}",
    );
    let start_values: Vec<f64> = t.params.iter().map(|p| p.start).collect();
    let mut sink = |event: &TuneEvent<'_>| match event {
        TuneEvent::Started {
            total,
            done,
            jobs,
            note,
        } => {
            if let Some(note) = note {
                progress.println(format!("arena: {note}"));
            }
            progress.set_length(*total);
            progress.set_position(*done);
            progress.reset_eta();
            if *done > 0 {
                progress.println(format!(
                    "arena: resuming from the checkpoint: {done} of {total} pairs played"
                ));
            }
            progress.set_message(format!(
                "{jobs} worker(s)  {}",
                live_values(&t, &start_values)
            ));
        }
        TuneEvent::Pair { done, .. } => progress.set_position(*done),
        TuneEvent::Batch { state, values } => {
            progress.set_position(state.pairs_done);
            progress.set_message(live_values(&t, values));
            if let Some(log) = log.as_mut() {
                log.batch(state.pairs_done, t.config.pairs, &live_values(&t, values));
            }
        }
        TuneEvent::Tick => progress.tick(),
    };
    progress.enable_steady_tick(Duration::from_millis(500));
    let outcome = tune::run(&t, &options, &mut sink);
    progress.finish_and_clear();
    let outcome = outcome.map_err(lift)?;
    let mut out = io::stdout().lock();
    print_tune(&mut out, &outcome.report, &outcome)?;
    if outcome.ending == TuneEnding::Interrupted {
        return super::interrupted(&mut out);
    }

    let mut games = GamesView::new(show, !args.quiet && !show, "verification");
    let mut sink = |event: &Event<'_>| games.event(event);
    let verified = tune::verify(&t, &options, args.verify_pairs, &mut sink);
    games.finish();
    let verified = verified.map_err(lift)?;
    // The report (trajectory plots, verification Elo), once, after the verification.
    super::report::after(&out_dir, None);
    match verified {
        None => writeln!(
            out,
            "\nno verification match (no [verification] in the config, or --verify-pairs 0)"
        )?,
        Some((run, report)) => {
            writeln!(out)?;
            super::tournament::print_summary(&mut out, &run.summary)?;
            if let Some(v) = &report.verification {
                print_verification(&mut out, v)?;
            }
            if run.ending == Ending::Interrupted {
                return super::interrupted(&mut out);
            }
        }
    }
    writeln!(out, "results in {}", out_dir.display())?;
    Ok(())
}

/// The progress of a match played through the tournament runner (a verification, the
/// fit's self-play games): a bar on a terminal, a line per game in a log.
pub(super) struct GamesView {
    bar: ProgressBar,
    log: Option<super::tournament::GameLog>,
    label: &'static str,
}

impl GamesView {
    /// A bar when `show`, log lines when `log`.
    pub(super) fn new(show: bool, log: bool, label: &'static str) -> GamesView {
        let bar = bar(
            show,
            &format!(
                "{label} {{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} games  {{per_sec}}  \
                 ETA {{eta}}\n{{msg}}"
            ),
        );
        bar.enable_steady_tick(Duration::from_millis(500));
        GamesView {
            bar,
            log: log.then(super::tournament::GameLog::new),
            label,
        }
    }

    /// Shows one event of the runner.
    pub(super) fn event(&mut self, event: &Event<'_>) {
        match event {
            Event::Started {
                total, done, jobs, ..
            } => {
                self.bar.set_length(*total);
                self.bar.set_position(*done);
                self.bar.reset_eta();
                if let Some(log) = self.log.as_mut() {
                    log.started(*total, *done, *jobs);
                }
            }
            Event::Game {
                record,
                done,
                total,
                standings,
            } => {
                self.bar.set_position(*done);
                self.bar.set_message(standings.clone());
                if let Some(log) = self.log.as_mut() {
                    log.game(record, *done, *total, standings);
                }
            }
            Event::Tick => self.bar.tick(),
            Event::SprtDecided {
                decision,
                llr,
                pairs,
            } => self.bar.println(format!(
                "arena: {} SPRT: {decision} after {pairs} game pairs (LLR {llr:.2})",
                self.label
            )),
        }
    }

    /// Clears the bar.
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The verification line: games, W/D/L, Elo with its interval, and any warning.
pub(super) fn print_verification(
    out: &mut impl Write,
    v: &tune::output::VerificationReport,
) -> io::Result<()> {
    let elo = v.estimate.map_or("-".to_string(), |e| {
        format!(
            "{:+.1} ± {:.1} (95 %), LOS {:.1} %",
            e.elo,
            e.elo_error,
            100.0 * e.los
        )
    });
    writeln!(
        out,
        "\nverification: {} vs {}: {} games +{} ={} -{}  Elo {elo}",
        v.engines[0],
        v.engines[1],
        v.wdl.games(),
        v.wdl.wins,
        v.wdl.draws,
        v.wdl.losses
    )?;
    if let Some(w) = &v.warning {
        writeln!(out, "warning: {w}")?;
    }
    Ok(())
}

/// Progress as log lines, at most one per `every`: pairs, speed, ETA and θ.
struct LogLines {
    every: Duration,
    started: Instant,
    last: Instant,
    first_done: Option<u64>,
}

impl LogLines {
    fn new(every: Duration) -> LogLines {
        let now = Instant::now();
        LogLines {
            every,
            started: now,
            last: now,
            first_done: None,
        }
    }

    fn batch(&mut self, done: u64, total: u64, values: &str) {
        // The speed of this session, from its first batch on.
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
            "arena: {done}/{total} pairs ({:.1} %), {per_sec:.1} pairs/s, ETA {eta}; {values}",
            100.0 * done as f64 / total.max(1) as f64
        );
    }
}

fn print_tune(out: &mut impl Write, r: &TuneReport, outcome: &TuneOutcome) -> io::Result<()> {
    writeln!(
        out,
        "{}: {} on {}, {} of {} game pairs (batches of {}), seed {}",
        r.name, r.engine, r.game, r.pairs_done, r.pairs_total, r.batch, r.seed
    )?;
    let width = r
        .params
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(9)
        .max(9);
    writeln!(
        out,
        "\n{:<width$}  {:>12} {:>12} {:>12} {:>12} {:>10} {:>10} {:>10} {:>8}",
        "parameter", "start", "tuned", "min", "max", "c_k", "c_end", "R_k", "r_end"
    )?;
    for p in &r.params {
        let ParamReport {
            name,
            start,
            value,
            min,
            max,
            c_k,
            c_end,
            r_k,
            r_end,
            integer,
            ..
        } = p;
        let v = |x: f64| fmt_value(x, *integer);
        writeln!(
            out,
            "{name:<width$}  {:>12} {:>12} {:>12} {:>12} {:>10.3} {:>10.3} {:>10.2e} {:>8}",
            v(*start),
            v(*value),
            v(*min),
            v(*max),
            c_k,
            c_end,
            r_k,
            r_end
        )?;
    }
    let p = r.plus_penta.counts;
    writeln!(
        out,
        "\nplus vs minus pairs [LL, LD, WL+DD, WD, WW]: [{}, {}, {}, {}, {}]",
        p[0], p[1], p[2], p[3], p[4]
    )?;
    writeln!(
        out,
        "{} pairs this session in {:.1} s ({}); {:.0} pairs/h over the whole run",
        outcome.played,
        outcome.elapsed.as_secs_f64(),
        rate(
            outcome.played as f64 / outcome.elapsed.as_secs_f64().max(1e-9),
            "pairs/s"
        ),
        r.pairs_per_hour,
    )?;
    writeln!(out, "tune in {}", outcome.out_dir.display())
}
