//! `arena stats`: one run's statistics recomputed from its games; or, with several folders
//! (or `--list`), a rating list of every engine over several runs' games, with Ordo's
//! options: an anchor, the first player's advantage and the draw rate fitted with their
//! errors, and a LOS matrix.

use std::{
    io::{self, Write},
    path::PathBuf,
};

use anyhow::{Result, bail};
use arena::{
    jobs::lock,
    stats::{Anchor, rating_list::RatingList},
    tournament::{
        pool::Pool,
        summary,
        validate::{RunShape, read_checked},
    },
};
use clap::Args;

use super::{
    report,
    tournament::{RatingArgs, overrides, print_summary, tournament_folder},
};

/// Recompute every statistic from a run's games.jsonl and print the standings; or rate
/// every engine over several runs' games.
#[derive(Args, Debug)]
#[command(
    after_help = "Works on a folder a run is still writing (it reads what is there) \
and on a read-only one; it rewrites summary.json, standings.csv, pairings.csv and the \
report only when no run writes the folder and it can be written.\n\
With several folders (or --list) it prints a rating list of every engine over all their \
games, as Ordo does with -W -D: engines are matched by name (an engine of one name must be \
the same engine in every run.toml), the first player's advantage and the draw rate are \
fitted and printed with their errors, and a LOS matrix follows; no file is written.\n\
Examples:\n  arena stats results/gomoku-tables --anchor seed000\n  \
arena stats results/run-a results/run-b --anchor seed000 --anchor-elo 1500"
)]
pub struct StatsArgs {
    /// The run's results folder (holding run.toml and games.jsonl); several: a rating
    /// list over all their games.
    #[arg(required = true, num_args = 1.., value_name = "DIR")]
    pub(crate) dirs: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) rating: RatingArgs,
    #[command(flatten)]
    pub(crate) list: super::ratings::ListArgs,
}

/// `arena stats`: one run's statistics (the files rewritten when it may), or a rating
/// list over several runs.
pub fn stats(args: StatsArgs) -> Result<()> {
    if args.dirs.len() > 1 || args.list.wanted() {
        return rating_list(&args);
    }
    let dir = &args.dirs[0];
    let mut t = tournament_folder(dir)?;
    overrides(&mut t, &args.rating)?;
    let shape = RunShape::of(&t, None);
    let records = read_checked(&dir.join("games.jsonl"), &shape)?;
    if records.torn_tail {
        eprintln!("arena: the last line of games.jsonl is torn; it is left out");
    }
    let summary = summary::of_records(&t, &records.records);
    // The statistics are printed in any case; the files are rewritten only when no
    // other arena is writing this folder (a run in progress writes them at its end),
    // the folder can be written, and no flag changed what the run's config says. A
    // reader takes no lock (and opens no lock file): the holder lines say who writes.
    let overridden = args.rating.sprt.is_some() || args.rating.anchor.is_some();
    let writable = if overridden {
        Err("--sprt and --anchor change only what is printed".to_string())
    } else if lock::writer_at_work(dir) {
        // Readers never lock a folder in use (nor touch its lock files): the run there
        // writes these files itself when it ends.
        Err(format!(
            "{} is being written by another arena now (its lock file names it); the \
             figures above are of the games it holds so far",
            dir.display()
        ))
    } else {
        lock::reader_may_write(dir)
    };
    print_summary(&mut io::stdout().lock(), &summary)?;
    match writable {
        Ok(()) => {
            summary::write_files(dir, &summary)?;
            report::after(dir, None);
        }
        Err(why) => {
            eprintln!("arena: summary.json and the report are left as they are: {why}")
        }
    }
    Ok(())
}

/// Rates every engine of the folders' games and prints the list.
pub fn rating_list(args: &StatsArgs) -> Result<()> {
    if args.rating.sprt.is_some() {
        bail!("--sprt: a rating list of several runs has no SPRT (rate one run's folder)");
    }
    let (pool, list, anchor) =
        super::ratings::rate(&args.dirs, args.rating.anchor.as_deref(), &args.list)?;
    print_list(&mut io::stdout().lock(), &pool, &list, anchor)?;
    Ok(())
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
