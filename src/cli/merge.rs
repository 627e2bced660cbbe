//! `arena merge`: combine a sharded run's results and print its standings.

use std::{io::Write, path::PathBuf};

use anyhow::Result;
use arena::tournament::merge;
use clap::Args;

use super::tournament::print_summary;

/// Combine the shards of a run (shards/shard-I-of-N.jsonl) into games.jsonl and compute
/// the run's statistics, exactly as a single-process run would.
#[derive(Args, Debug)]
#[command(
    after_help = "Refuses, naming the shard, when a shard is missing, incomplete (still \
                  .jsonl.part), there twice, or made from another config; games.jsonl is \
                  then left as it was.\n\
                  Example: arena merge results/gomoku-tables"
)]
pub struct MergeArgs {
    /// The run's results folder (holding run.toml and shards/).
    dir: PathBuf,
    /// Print only the one-line outcome, not the standings.
    #[arg(long, short)]
    quiet: bool,
}

pub fn merge(args: MergeArgs) -> Result<()> {
    let outcome = merge::merge(&args.dir)?;
    // Exactly as after a single run: report.html, report.md, plots/.
    super::report::after(&args.dir, None);
    let mut out = std::io::stdout().lock();
    if !args.quiet {
        print_summary(&mut out, &outcome.summary)?;
        writeln!(out)?;
    }
    writeln!(
        out,
        "merged {} shards: {} games into {}{}; statistics in summary.json and standings.csv",
        outcome.shards,
        outcome.games,
        outcome.results.display(),
        if outcome.unchanged {
            " (unchanged)"
        } else {
            ""
        }
    )?;
    Ok(())
}
