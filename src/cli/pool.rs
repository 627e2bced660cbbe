//! `arena stats DIR1 DIR2 ...` (or `--list`): a rating list of every engine over several
//! runs' games, with Ordo's options: an anchor, the first player's advantage and the draw
//! rate fitted with their errors, and a LOS matrix.

use std::{
    io::{self, Write},
    path::PathBuf,
};

use anyhow::{Result, bail};
use arena::{
    stats::{
        Anchor,
        rating_list::{FirstMove, RatingList, fit_rating_list},
    },
    tournament::pool::{Pool, pool},
};
use clap::Args;

use super::tournament::StatsArgs;

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

/// Rates every engine of the folders' games and prints the list.
pub fn rating_list(args: &StatsArgs) -> Result<()> {
    if args.rating.sprt.is_some() {
        bail!("--sprt: a rating list of several runs has no SPRT (rate one run's folder)");
    }
    let (pool, list, anchor) = rate(&args.dirs, args.rating.anchor.as_deref(), &args.list)?;
    print_list(&mut io::stdout().lock(), &pool, &list, anchor)?;
    Ok(())
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

fn print_list(
    out: &mut impl Write,
    pool: &Pool,
    list: &RatingList,
    anchor: Anchor,
) -> io::Result<()> {
    writeln!(
        out,
        "rating list: {}, {} engines, {} games from {} run{}",
        pool.game,
        pool.names.len(),
        pool.games(),
        pool.runs.len(),
        if pool.runs.len() == 1 { "" } else { "s" }
    )?;
    for run in &pool.runs {
        writeln!(
            out,
            "  {} ({}, {} games)",
            run.dir.display(),
            run.name,
            run.games
        )?;
    }
    let mut order: Vec<usize> = (0..pool.names.len()).collect();
    order.sort_by(|&a, &b| list.elo[b].total_cmp(&list.elo[a]).then(a.cmp(&b)));
    let width = pool.names.iter().map(|n| n.len()).max().unwrap_or(6).max(6);
    writeln!(
        out,
        "{:>3}  {:<width$}  {:>8}  {:>8}  {:>6}  {:>7}  {:>7}",
        "#", "engine", "Elo", "95 %", "games", "score", "draws"
    )?;
    for (rank, &i) in order.iter().enumerate() {
        writeln!(
            out,
            "{:>3}  {:<width$}  {:>8}  {:>8}  {:>6}  {:>5.1} %  {:>5.1} %",
            rank + 1,
            pool.names[i],
            signed(list.elo[i]),
            format!("± {:.1}", list.error[i]),
            list.games[i],
            100.0 * list.score[i],
            100.0 * list.draws[i]
        )?;
    }
    match list.first_move_error {
        Some(error) => writeln!(
            out,
            "first move  {:+.1} ± {:.1} Elo for the side to move after the opening, fitted \
             (Ordo's -W; on arena's PGN black is Black, so where black moves first Ordo's \
             White advantage is {:.1})",
            list.first_move, error, -list.first_move
        )?,
        None => writeln!(
            out,
            "first move  {:+.1} Elo for the side to move after the opening, held \
             (--first-move)",
            list.first_move
        )?,
    }
    writeln!(
        out,
        "draw rate   {:.1} % ± {:.1} % between equal engines, fitted (Ordo's -D)",
        100.0 * list.draw_rate,
        100.0 * list.draw_rate_error
    )?;
    match anchor {
        Anchor::PoolAverage => writeln!(
            out,
            "anchor      the pool average, {}",
            one_decimal(list.elo.iter().sum::<f64>() / list.elo.len() as f64)
        )?,
        Anchor::Player { index, elo } => writeln!(
            out,
            "anchor      {} at {elo:.1} (errors relative to it)",
            pool.names[index]
        )?,
    }
    if list.regularized {
        writeln!(
            out,
            "warning     an engine won or lost every game (or the first movers did): one \
             virtual draw per engine keeps the ratings finite"
        )?;
    }
    writeln!(
        out,
        "LOS (%: the row engine is stronger than the column one; columns by rank)"
    )?;
    write!(out, "{:>3}  {:<width$}", "", "")?;
    for rank in 1..=order.len() {
        write!(out, "  {rank:>5}")?;
    }
    writeln!(out)?;
    for (rank, &i) in order.iter().enumerate() {
        write!(out, "{:>3}  {:<width$}", rank + 1, pool.names[i])?;
        for &j in &order {
            if i == j {
                write!(out, "  {:>5}", "-")?;
            } else {
                write!(out, "  {:>5.1}", 100.0 * list.los(i, j))?;
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

/// `x` to one decimal, never `-0.0`.
fn one_decimal(x: f64) -> String {
    let text = format!("{x:.1}");
    if text == "-0.0" { "0.0".into() } else { text }
}

/// `x` to one decimal with its sign (`+12.5`, `-3.0`, `+0.0`).
fn signed(x: f64) -> String {
    let text = one_decimal(x);
    if text.starts_with('-') {
        text
    } else {
        format!("+{text}")
    }
}
