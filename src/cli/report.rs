//! `arena report`: write a results folder's report; and the report `arena run` and
//! `arena stats` write when they finish (a failure there is a warning: the results are
//! already safe on disk).

use std::{
    io::{self, Write},
    path::{Path, PathBuf},
    time::Instant,
};

use anyhow::Result;
use arena::report::{ReportFiles, ReportOptions, write_report_with};
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
                  verification/. 'arena run' and 'arena stats' write the report themselves.",
    after_help = "Example: arena report results/gomoku-tables && xdg-open results/gomoku-tables/report.html"
)]
pub struct ReportArgs {
    /// The results folder (of `arena run`, or of a tuning run).
    dir: PathBuf,
    /// Print nothing on success.
    #[arg(long, short)]
    quiet: bool,
}

pub fn report(args: ReportArgs) -> Result<()> {
    let started = Instant::now();
    // No lock: the report is made from what the folder holds now, written beside the
    // results (never into them) through temporary names, so it can watch a run or a
    // tune that is still going.
    let files = write_report_with(&args.dir, &ReportOptions::default())?;
    if !args.quiet {
        let mut out = io::stdout().lock();
        print_files(&mut out, &files)?;
        writeln!(
            out,
            "{} plots in {}/plots, in {:.2} s",
            files.plots.len() / 2,
            args.dir.display(),
            started.elapsed().as_secs_f64()
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
