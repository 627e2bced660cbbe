//! `arena tune`: SPSA tuning from the command line, with a live view of θ, then the
//! verification match.

use std::{
    io::{self, Write},
    path::PathBuf,
    time::Duration,
};

use anyhow::{Result, bail};
use arena::{
    config::ConfigFile,
    stats::Penta,
    tournament::{Ending, LiveFiles},
    tune::{
        self, Tune, TuneEnding, TuneEvent,
        output::{ParamReport, TuneReport},
        runner::TuneOutcome,
        verify::Verifiable,
    },
};
use clap::Args;

use super::{
    long_job::{Job, JobArgs, StepLog, at_least_one, done_in, interrupted, set_from},
    tables::{print_table, print_verification, value_row},
    tournament::LiveArgs,
};

/// Tune engine parameters with SPSA (checkpointed; --resume continues), then verify.
#[derive(Args, Debug)]
#[command(after_help = "\
SPSA as fishtest runs it: each game pair, a 'plus' engine (θ + c_k·flip) plays a \
'minus' engine (θ - c_k·flip) on one opening with colours swapped, and θ moves towards \
the winner. After every batch the state is checkpointed (state.json, written to a \
temporary file and renamed): kill the run or lose power, then run the same command with \
--resume and it ends with exactly the θ of an uninterrupted run.

The base engine may be an outside program (an engine file with `command`): its \
parameters are its options, `option.NAME`, sent as UAI setoption or Gomocup INFO to a \
fresh plus and minus process each pair. A UAI engine's own option lines give missing \
bounds and start, and an option it does not list is refused; a Gomocup engine needs min, \
max and start in the config. A fault in a pair stops the tune (resume once fixed).

With `opponent = \"FILE\"` (an engine file, built-in or outside) the plus and the minus \
engine each play that engine instead of each other (four games a pair, the same opening \
and seeds) and θ moves by how much better plus scored against it: tuning for a given \
rival rather than for self-play. `opponent_set` sets its named parameters.

Output in results/<name>/ (or --out): tuned.toml (the base table, comments kept, tuned \
values in place), tuned-engine.toml, trajectory.csv (θ after every batch), tune.json (the \
numbers), state.json, run.toml, and verification/ (the tuned engine against the base \
engine, a tournament's results).

Examples:
  arena tune configs/tune-gomoku.toml --pairs 100          # a quick try
  nohup arena tune configs/tune-gomoku.toml > tune.log 2>&1 &     # a line a minute
  arena tune configs/tune-gomoku.toml --resume             # after a reboot
  parallel -j4 arena tune configs/tune-gomoku.toml --worker {} ::: 1 2 3 4   # 4 workers
  arena report results/tune-gomoku --live 60               # watch it in a browser")]
pub struct TuneArgs {
    /// The tuning config (TOML).
    config: PathBuf,
    #[command(flatten)]
    job: JobArgs,
    /// Override the total number of game pairs N (a quick try; changes every gain).
    #[arg(long, value_name = "N")]
    pairs: Option<u64>,
    /// Override the verification match's game pairs (0: no verification).
    #[arg(long, value_name = "N")]
    verify_pairs: Option<u32>,
    /// Override the master seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Play as worker ID of a tune that several processes (on one machine or many, over
    /// a shared folder) play together: each takes pairs of the batch in progress, the
    /// last to finish a batch applies it. No --resume needed; no verification match
    /// (run the plain command with --resume once the workers are done).
    #[arg(long, value_name = "ID", conflicts_with = "workers")]
    worker: Option<String>,
    /// Play as a worker whose ID the scheduler gives: SLURM_ARRAY_TASK_ID,
    /// JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or PARALLEL_SEQ (GNU parallel).
    #[arg(long)]
    workers: bool,
    /// The verification match's games, live (workers play none: the plain command
    /// they print keeps these).
    #[command(flatten)]
    live: LiveArgs,
}

/// Parameter values for the live view: `open_three 7512  defence 1.31`.
fn live_values(tune: &Tune, values: &[f64]) -> String {
    let params = tune.params.iter().map(|p| (p.name.as_str(), p.integer));
    super::tables::live_values(params, values)
}

/// With an opponent, the live view's score of the plus and minus engines against it so
/// far: `  vs pentazen 47.2 % (1,204 games)`; nothing without one.
fn live_score(tune: &Tune, state: &tune::State) -> String {
    let (Some(o), Some(minus)) = (&tune.opponent, &state.minus_penta) else {
        return String::new();
    };
    let mut both = state.penta;
    both.add(*minus);
    both.score().map_or(String::new(), |s| {
        format!(
            "  vs {} {:.1} % ({} games)",
            o.name(),
            100.0 * s,
            both.games()
        )
    })
}

pub fn tune(args: TuneArgs) -> Result<()> {
    let mut t = Tune::load(&args.config)?;
    // Before anything starts, even with --quiet: a range far wider than the start.
    for warning in &t.warnings {
        eprintln!("warning: {warning}");
    }
    set_from(&mut t.config.pairs, at_least_one("--pairs", args.pairs)?);
    set_from(&mut t.config.seed, args.seed);
    let job = Job::new(
        &args.job,
        &t.config.name,
        "stopping; the last checkpoint stands",
    );
    let worker = choose_worker(&args)?;
    args.live.files().check(t.plan().game, None)?;
    // Said once the tune's checks passed (on stderr, even with --quiet: a cluster job's
    // log must tell which worker it was).
    let worker_note = worker.as_ref().map(|(w, why)| {
        format!(
            "arena: playing as worker {} of the tune in {} ({why})",
            w.label,
            job.out.display()
        )
    });
    let options = job.options();
    // Without a terminal (nohup, a log file) a line now and then instead of the bar.
    let mut log = job
        .log
        .then(|| StepLog::new(Duration::from_secs(60), "pairs"));
    let progress =
        job.bar("{elapsed_precise} [{bar:30}] {pos}/{len} pairs  {per_sec}  ETA {eta}\n{msg}");
    let start_values: Vec<f64> = t.params.iter().map(|p| p.start).collect();
    let mut sink = |event: &TuneEvent<'_>| match event {
        TuneEvent::Started {
            total,
            done,
            jobs,
            note,
        } => {
            if let Some(note) = &worker_note {
                progress.suspend(|| eprintln!("{note}"));
            }
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
            let line = format!("{}{}", live_values(&t, values), live_score(&t, state));
            progress.set_message(line.clone());
            if let Some(log) = log.as_mut() {
                log.step(state.pairs_done, t.config.pairs, &line);
            }
        }
        TuneEvent::Tick => progress.tick(),
    };
    let outcome = tune::run(&t, &options, worker.as_ref().map(|(w, _)| w), &mut sink);
    progress.finish_and_clear();
    let outcome = outcome?;
    let mut out = io::stdout().lock();
    print_tune(&mut out, &t, &outcome.report, &outcome)?;
    if outcome.ending == TuneEnding::Interrupted {
        return interrupted(&mut out);
    }
    if let Some((w, _)) = worker {
        let mut plain: Vec<String> = std::env::args().skip(1).collect();
        drop_worker_flags(&mut plain);
        if !plain.iter().any(|a| a == "--resume") {
            plain.push("--resume".into());
        }
        let words: Vec<String> = plain
            .iter()
            .map(|a| arena::invocation::shell_word(a))
            .collect();
        writeln!(
            out,
            "worker {}: the tune is complete; its verification match, once every worker is \
             done:  {} {}",
            w.label,
            arena::invocation::program(),
            words.join(" ")
        )?;
        return Ok(());
    }
    verify_and_finish(&mut out, &job, &t, args.verify_pairs, &args.live)
}

/// The worker to play as: `--worker ID`, or the scheduler's index with `--workers`.
fn choose_worker(args: &TuneArgs) -> Result<Option<(tune::Worker, String)>> {
    Ok(worker_label(&args.worker, args.workers)?.map(|(label, why)| (tune::Worker { label }, why)))
}

/// The worker ID (and where it came from): `--worker ID`, or with `--workers` the
/// scheduler's index; `None` without either.
pub(super) fn worker_label(
    worker: &Option<String>,
    workers: bool,
) -> Result<Option<(String, String)>> {
    let (label, why) = match (worker, workers) {
        (Some(id), _) => (id.clone(), "from --worker".to_string()),
        (None, true) => {
            let found = [
                "SLURM_ARRAY_TASK_ID",
                "JOB_COMPLETION_INDEX",
                "PARALLEL_SEQ",
            ]
            .iter()
            .find_map(|v| {
                std::env::var(v)
                    .ok()
                    .filter(|x| !x.trim().is_empty())
                    .map(|x| (*v, x))
            });
            match found {
                Some((var, id)) => (id.trim().to_string(), format!("from {var}")),
                None => bail!(
                    "--workers: none of SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, PARALLEL_SEQ \
                     is set (give --worker ID)"
                ),
            }
        }
        (None, false) => return Ok(None),
    };
    if label.is_empty()
        || label == "main"
        || !label
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        bail!("--worker: '{label}' is not a worker ID (letters, digits, - and _; not 'main')");
    }
    Ok(Some((label, why)))
}

/// Removes `--worker ID`, `--worker=ID` and `--workers` from a command line.
fn drop_worker_flags(args: &mut Vec<String>) {
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--worker" {
            args.drain(i..(i + 2).min(args.len()));
        } else if args[i].starts_with("--worker=") || args[i] == "--workers" {
            args.remove(i);
        } else {
            i += 1;
        }
    }
}

/// The end of a job with a verification match (tune, fit): the match of the finished
/// `target` (with progress), the report (once, after the match), the match's standings
/// and its verdict, the resume hint if it was stopped, and where the results are.
pub(super) fn verify_and_finish<J: Verifiable>(
    out: &mut impl Write,
    job: &Job,
    target: &J,
    pairs: Option<u32>,
    live: &LiveArgs,
) -> Result<()> {
    let mut games = job.games("verification");
    let live = LiveFiles {
        date: super::tournament::run_date(&job.out.join(tune::verify::VERIFICATION_DIR)),
        ..live.files()
    };
    let verified = tune::verify(target, &job.options(), pairs, &live, &mut |e| {
        games.event(e)
    });
    games.finish();
    let verified = verified?;
    Job::report(&job.out, None);
    match verified {
        None => writeln!(
            out,
            "\nno verification match (no [verification] in the config, or --verify-pairs 0)"
        )?,
        Some((run, report)) => {
            writeln!(out)?;
            super::tournament::print_summary(out, &run.summary)?;
            print_verification(out, &report)?;
            if run.ending == Ending::Interrupted {
                return interrupted(out);
            }
        }
    }
    writeln!(out, "results in {}", job.out.display())?;
    Ok(())
}

/// How many of the tune's pairs moved θ: a pair split 1-1 or drawn twice scores the plus
/// and minus engines alike and teaches SPSA nothing; when most pairs did, the warning
/// names the openings that split fewer.
fn print_tune_pairs(out: &mut impl Write, t: &Tune, r: &TuneReport) -> io::Result<()> {
    use arena::tournament::{
        config::OpeningKind,
        summary::{PairShares, SPLIT_WARNING_PAIRS, SWITCH_HINT, split_reason},
    };
    let shares = PairShares::of(&r.plus_penta);
    if shares.pairs == 0 {
        return Ok(());
    }
    let moved = shares.pairs - shares.split - shares.drawn;
    writeln!(
        out,
        "{moved} of {} pairs ({:.1} %) moved θ; {}",
        shares.pairs,
        100.0 * moved as f64 / shares.pairs as f64,
        shares.describe()
    )?;
    let balanced = matches!(
        t.config.openings.kind,
        OpeningKind::Balanced | OpeningKind::File
    );
    if moved == 0 && shares.pairs >= SPLIT_WARNING_PAIRS {
        writeln!(
            out,
            "warning: no pair moved θ: the plus and minus engines scored alike in every \
             pair. If they played the same games, what is tuned changes no move at these \
             limits: {SWITCH_HINT}"
        )?;
    } else if let Some(reason) = split_reason(&t.job.game, &shares, balanced) {
        // The shares were just printed: the warning does not repeat them.
        writeln!(
            out,
            "warning: most pairs split and moved θ not at all: {reason}"
        )?;
    }
    Ok(())
}

fn print_tune(
    out: &mut impl Write,
    t: &Tune,
    r: &TuneReport,
    outcome: &TuneOutcome,
) -> io::Result<()> {
    writeln!(
        out,
        "{}: {} on {}, {} of {} game pairs (batches of {}), seed {}",
        r.name, r.engine, r.game, r.pairs_done, r.pairs_total, r.batch, r.seed
    )?;
    let rows: Vec<Vec<String>> = r
        .params
        .iter()
        .map(|p| {
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
            let mut row = value_row(name, *integer, &[*start, *value, *min, *max]);
            row.extend([
                format!("{c_k:.3}"),
                format!("{c_end:.3}"),
                format!("{r_k:.2e}"),
                r_end.to_string(),
            ]);
            row
        })
        .collect();
    writeln!(out)?;
    print_table(
        out,
        &[
            "parameter",
            "start",
            "tuned",
            "min",
            "max",
            "c_k",
            "c_end",
            "R_k",
            "r_end",
        ],
        &rows,
    )?;
    let counts = |p: &Penta| {
        let c = p.counts;
        format!("[{}, {}, {}, {}, {}]", c[0], c[1], c[2], c[3], c[4])
    };
    match (&r.opponent, &r.minus_penta) {
        (Some(name), Some(minus)) => {
            writeln!(
                out,
                "\npairs against {name} [LL, LD, WL+DD, WD, WW]: plus {}, minus {}",
                counts(&r.plus_penta),
                counts(minus)
            )?;
            let mut both = r.plus_penta;
            both.add(*minus);
            if let Some(score) = both.score() {
                writeln!(
                    out,
                    "the plus and minus engines scored {:.1} % against {name} over {} games",
                    100.0 * score,
                    both.games()
                )?;
            }
        }
        _ => {
            writeln!(
                out,
                "\nplus vs minus pairs [LL, LD, WL+DD, WD, WW]: {}",
                counts(&r.plus_penta)
            )?;
            print_tune_pairs(out, t, r)?;
        }
    }
    writeln!(
        out,
        "{}; {:.0} pairs/h over the whole run",
        done_in(
            outcome.played,
            "pairs this session",
            outcome.elapsed,
            "pairs/s"
        ),
        r.pairs_per_hour,
    )?;
    writeln!(out, "tune in {}", outcome.out_dir.display())
}
