//! `arena report`: write a results folder's report; and the report `arena run` and
//! `arena stats` write when they finish (a failure there is a warning: the results are
//! already safe on disk).

use std::{
    io::{self, Write},
    path::{Path, PathBuf},
    sync::atomic::Ordering,
    time::{Duration, Instant},
};

use anyhow::Result;
use arena::{
    jobs::lock,
    report::{RatingReport, ReportFiles, ReportOptions, write_rating_list, write_report_with},
};
use clap::Args;

/// Write report.html, report.md and plots/ for a results folder.
#[derive(Args, Debug)]
#[command(
    long_about = "Write a report into a results folder: report.html (one self-contained page \
                  with every plot inline, the tables, the exact config and the environment; \
                  open it in a browser), report.md (the same tables, plots linked from plots/) \
                  and plots/*.svg + plots/*.png.\n\n\
                  A tournament folder needs summary.json (and run.toml, games.jsonl); a tuning \
                  folder holds tune.json and trajectory.csv, and its verification match in \
                  verification/. 'arena run' and 'arena stats' write the report themselves.\n\n\
                  The report takes no lock: it can be made while a run, a sweep point or a \
                  tune (any number of its workers) is still writing the folder, from what the \
                  folder holds at that moment. With --live it is made again every SECONDS \
                  (and report.html reloads itself in the browser as often) until nothing \
                  writes in the folder any more (the lock files name no live process), then \
                  once more without the reload; Ctrl-C stops it sooner.",
    after_help = "With several folders (or --list) it writes the rating list `arena stats DIR1 \
                  DIR2 ...` prints into a folder of its own (--out, default results/ratings): \
                  report.html, report.md, ratings.csv (rank, engine, elo, error, games, score, \
                  draws) and los.csv (the LOS matrix); the runs' folders are only read.\n\n\
                  Examples:\n  arena report results/gomoku-tables && xdg-open results/gomoku-tables/report.html\n  \
                  arena report results/tune-gomoku --live 60   # leave the tab open overnight\n  \
                  arena report results/run-a results/run-b --anchor seed000 --out results/ratings-ab"
)]
pub struct ReportArgs {
    /// The results folder (of `arena run`, or of a tuning run); several: the rating list
    /// over all their games.
    #[arg(required = true, num_args = 1.., value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Rating list: the folder its report is written to (default results/ratings); a new
    /// or empty folder, or an earlier rating list's.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Rating list: ratings relative to this engine (at --anchor-elo) instead of the pool
    /// average.
    #[arg(long, value_name = "ENGINE")]
    anchor: Option<String>,
    #[command(flatten)]
    list: super::ratings::ListArgs,
    /// Print nothing on success.
    #[arg(long, short)]
    quiet: bool,
    /// Keep the report up to date while the job writing the folder runs: rewrite it every
    /// SECONDS (default 30) until no arena writes there.
    #[arg(long, value_name = "SECONDS", num_args = 0..=1, default_missing_value = "30")]
    live: Option<u64>,
}

pub fn report(args: ReportArgs) -> Result<()> {
    let started = Instant::now();
    if args.dirs.len() > 1 || args.list.wanted() || args.anchor.is_some() || args.out.is_some() {
        return rating_list(&args);
    }
    let dir = &args.dirs[0];
    // No lock: the report is made from what the folder holds now, written beside the
    // results (never into them) through temporary names, so it can watch a run or a
    // tune that is still going.
    if let Some(every) = args.live {
        return live(&args, every);
    }
    let files = write_report_with(dir, &ReportOptions::default())?;
    if !args.quiet {
        let mut out = io::stdout().lock();
        print_files(&mut out, &files)?;
        writeln!(
            out,
            "{} plots in {}/plots, in {:.2} s",
            files.plots.len() / 2,
            dir.display(),
            started.elapsed().as_secs_f64()
        )?;
    }
    Ok(())
}

/// `--live`: the report again every `every` seconds while a writer is at work, then a
/// last one without the page's reload.
fn live(args: &ReportArgs, every: u64) -> Result<()> {
    if every == 0 {
        anyhow::bail!("--live: the period must be at least 1 second");
    }
    let dir = &args.dirs[0];
    let stop = super::signals::stop_flag("stopping the live report");
    let mut first = true;
    loop {
        let writing = lock::writer_at_work(dir);
        let options = ReportOptions {
            refresh_s: writing.then_some(every),
            ..ReportOptions::default()
        };
        let files = write_report_with(dir, &options)?;
        if !writing || stop.load(Ordering::Relaxed) {
            if !args.quiet {
                if first {
                    print_files(&mut io::stdout().lock(), &files)?;
                }
                println!(
                    "{}: {}; the report is final",
                    dir.display(),
                    if writing {
                        "stopped"
                    } else {
                        "no arena writes here"
                    }
                );
            }
            return Ok(());
        }
        if !args.quiet {
            if first {
                print_files(&mut io::stdout().lock(), &files)?;
            }
            eprintln!(
                "arena: report rewritten at {} (every {every} s while the job runs)",
                arena::utc::timestamp(std::time::SystemTime::now())
            );
        }
        first = false;
        // Sleep in short steps so Ctrl-C is seen at once.
        let until = Instant::now() + Duration::from_secs(every);
        while Instant::now() < until && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// The rating list of the folders' games, written into `--out`.
fn rating_list(args: &ReportArgs) -> Result<()> {
    if args.live.is_some() {
        anyhow::bail!(
            "--live watches one results folder; a rating list of several is written once \
             (run it again for a newer one)"
        );
    }
    let (pool, list, anchor) =
        super::ratings::rate(&args.dirs, args.anchor.as_deref(), &args.list)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join("ratings"));
    let files = write_rating_list(
        &out,
        &RatingReport {
            pool: &pool,
            list: &list,
            anchor,
        },
    )?;
    if !args.quiet {
        let mut stdout = io::stdout().lock();
        print_files(&mut stdout, &files)?;
        writeln!(
            stdout,
            "        {}\n        {}",
            out.join("ratings.csv").display(),
            out.join("los.csv").display()
        )?;
        writeln!(
            stdout,
            "{} engines over {} games of {} run{}",
            pool.names.len(),
            pool.games(),
            pool.runs.len(),
            if pool.runs.len() == 1 { "" } else { "s" }
        )?;
    }
    Ok(())
}

fn print_files(out: &mut impl Write, files: &ReportFiles) -> io::Result<()> {
    writeln!(out, "report: {}", files.html.display())?;
    writeln!(out, "        {}", files.markdown.display())
}

/// The report at the end of `arena run` (`threads`: the workers it used) or of
/// `arena stats` (`None`). It says where it went on standard error (standard output is
/// the standings); failing only warns: the results themselves are written.
pub fn after(dir: &Path, threads: Option<usize>) {
    let options = ReportOptions {
        run_threads: threads,
        by_writer: true,
        ..ReportOptions::default()
    };
    match write_report_with(dir, &options) {
        Ok(files) => eprintln!("arena: report: {}", files.html.display()),
        Err(e) => eprintln!(
            "arena: warning: no report ({e}); the results are complete: retry with  {}",
            arena::invocation::command(&format!(
                "report {}",
                arena::invocation::shell_word(&dir.display().to_string())
            ))
        ),
    }
}
