//! The rating list of several runs' folders (`arena stats DIR1 DIR2 ...`, `arena report
//! DIR1 DIR2 ...`): its options and its fit.

use std::path::PathBuf;

use anyhow::{Result, bail};
use arena::{
    stats::{
        Anchor,
        rating_list::{FirstMove, RatingList, fit_rating_list},
    },
    tournament::pool::{Pool, pool},
};
use clap::Args;

/// The rating list's options.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Rate the engines of one folder as of several: the rating list (with the first
    /// move's advantage and the draw rate fitted) instead of the run's own statistics.
    #[arg(long)]
    list: bool,
    /// Rating list: the advantage of moving first (after the opening), fitted (`auto`,
    /// the default, as Ordo's -W) or held at ELO (0: left out, as plain ratings).
    #[arg(long, value_name = "auto|ELO", value_parser = parse_first_move, allow_hyphen_values = true)]
    first_move: Option<FirstMove>,
    /// Rating list: the rating of the --anchor engine, or of the pool average without
    /// one (default 0; Ordo's -a).
    #[arg(long, value_name = "ELO", allow_hyphen_values = true)]
    anchor_elo: Option<f64>,
}

impl ListArgs {
    /// Whether the rating list is asked for (with one folder).
    pub fn wanted(&self) -> bool {
        self.list || self.first_move.is_some() || self.anchor_elo.is_some()
    }
}

fn parse_first_move(text: &str) -> Result<FirstMove, String> {
    if text.trim().eq_ignore_ascii_case("auto") {
        return Ok(FirstMove::Fit);
    }
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(FirstMove::Fixed(v)),
        _ => Err(format!("'{text}' is not auto or a number of Elo")),
    }
}

/// The pool of the runs in `dirs` and its rating list, relative to `anchor` (an engine's
/// name) or the pool average; a torn last line of a run's records is left out, with a
/// word on standard error.
pub fn rate(
    dirs: &[PathBuf],
    anchor: Option<&str>,
    options: &ListArgs,
) -> Result<(Pool, RatingList, Anchor)> {
    let pool = pool(dirs)?;
    for run in pool.runs.iter().filter(|r| r.torn_tail) {
        eprintln!(
            "arena: the last line of {} is torn; it is left out",
            run.dir.join("games.jsonl").display()
        );
    }
    let at = options.anchor_elo.unwrap_or(0.0);
    let anchor = match anchor {
        Some(name) => match pool.names.iter().position(|n| n == name) {
            Some(index) => Anchor::Player { index, elo: at },
            None => bail!(
                "--anchor: no engine '{name}' in these runs (the engines: {})",
                pool.names.join(", ")
            ),
        },
        None => Anchor::PoolAverage,
    };
    let first_move = options.first_move.unwrap_or(FirstMove::Fit);
    let mut list = fit_rating_list(pool.names.len(), &pool.results, anchor, first_move)
        .map_err(|e| anyhow::anyhow!("rating list: {e}"))?;
    if anchor == Anchor::PoolAverage {
        for r in &mut list.elo {
            *r += at;
        }
    }
    Ok((pool, list, anchor))
}
