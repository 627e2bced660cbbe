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
        pool::{PairedRow, Pool},
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
With --paired ENGINE (one folder or several): every other engine against each opponent it \
shares with ENGINE, on the openings both played against it with the same colours, as in a \
gauntlet of variants against one outside engine. Per opening the variant's score minus \
ENGINE's, averaged, with its 95 % interval: how hard each opening is drops out of the \
difference (the interval is tighter than that of two overall scores by as much as the two \
engines' results on an opening go together).\n\
Examples:\n  arena stats results/gomoku-tables --anchor seed000\n  \
arena stats results/run-a results/run-b --anchor seed000 --anchor-elo 1500\n  \
arena stats results/gauntlet --paired base"
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
    /// Pair every other engine to this one: per opponent, on the openings both met it
    /// on with the same colours, each one's score and the mean difference per opening
    /// with its 95 % interval (instead of the standings; no file is written).
    #[arg(long, value_name = "ENGINE")]
    pub(crate) paired: Option<String>,
}

/// `arena stats`: one run's statistics (the files rewritten when it may), or a rating
/// list over several runs.
pub fn stats(args: StatsArgs) -> Result<()> {
    if let Some(base) = &args.paired {
        return paired(&args, base);
    }
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

/// Pairs every engine of the folders' games to `base` and prints the table.
fn paired(args: &StatsArgs, base: &str) -> Result<()> {
    if args.rating.sprt.is_some() || args.rating.anchor.is_some() || args.list.wanted() {
        bail!(
            "--paired prints the paired differences alone: leave out --sprt, --anchor, \
             --list, --first-move and --anchor-elo (or run arena stats without --paired)"
        );
    }
    let pool = arena::tournament::pool::pool(&args.dirs)?;
    for run in pool.runs.iter().filter(|r| r.torn_tail) {
        eprintln!(
            "arena: the last line of {} is torn; it is left out",
            run.dir.join("games.jsonl").display()
        );
    }
    let Some(index) = pool.names.iter().position(|n| n == base) else {
        bail!(
            "--paired: no engine '{base}' in these runs (the engines: {})",
            pool.names.join(", ")
        );
    };
    let rows = pool.paired_to(index);
    if rows.is_empty() {
        bail!(
            "--paired {base}: no other engine met one of {base}'s opponents on one of its \
             openings with the same colours, so there is nothing to pair (a gauntlet of \
             several engines against one opponent, or runs on the same openings file, \
             pair)"
        );
    }
    print_paired(&mut io::stdout().lock(), &pool, base, &rows)?;
    Ok(())
}

fn print_paired(
    out: &mut impl Write,
    pool: &Pool,
    base: &str,
    rows: &[PairedRow],
) -> io::Result<()> {
    writeln!(
        out,
        "paired to {base}: {} games from {} run{}",
        pool.games(),
        pool.runs.len(),
        if pool.runs.len() == 1 { "" } else { "s" }
    )?;
    writeln!(
        out,
        "per opponent, the openings where the engine and {base} met it with the same \
         colours:\neach one's score there, and per opening the engine's score minus \
         {base}'s, averaged,\nwith its 95 % interval (points in 100; differ: openings \
         where the two scores differ)"
    )?;
    let name_width = |pick: fn(&PairedRow) -> usize, title: &str| {
        rows.iter()
            .map(|r| pool.names[pick(r)].len())
            .max()
            .unwrap_or(0)
            .max(title.len())
    };
    let ew = name_width(|r| r.engine, "engine");
    let ow = name_width(|r| r.opponent, "opponent");
    let bw = base.len().max(7);
    writeln!(
        out,
        "{:<ew$}  {:<ow$}  {:>8}  {:>6}  {:>7}  {:>bw$}  {:>15}",
        "engine", "opponent", "openings", "differ", "engine", base, "difference"
    )?;
    for r in rows {
        let d = &r.difference;
        let difference = match d.error {
            Some(e) => format!("{:+.1} ± {:.1}", 100.0 * d.mean, 100.0 * e),
            None => format!("{:+.1}", 100.0 * d.mean),
        };
        writeln!(
            out,
            "{:<ew$}  {:<ow$}  {:>8}  {:>6}  {:>5.1} %  {:>w$.1} %  {:>15}",
            pool.names[r.engine],
            pool.names[r.opponent],
            d.units,
            d.differing,
            100.0 * r.engine_score,
            100.0 * r.base_score,
            difference,
            w = bw - 2
        )?;
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
