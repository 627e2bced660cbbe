//! `arena fit`: Texel-style fitting of table weights from the command line, with
//! progress for the self-play games and the epochs, then the verification match.

use std::{
    io::{self, Write},
    path::{Path, PathBuf},
};

use anyhow::{Result, bail};
use arena::{
    config::ConfigFile,
    tune::{
        fit::{self, Fit, FitConfig, FitEnding, FitEvent, FitReport, config::Params},
        verify::Verifiable,
    },
};
use clap::Args;

use super::{
    long_job::{Job, JobArgs, at_least_one, interrupted, set_from},
    tables::{live_values, print_table, value_row},
    tournament::LiveArgs,
    tune::verify_and_finish,
};

/// Fit table weights to game results by logistic regression (Texel's method).
#[derive(Args, Debug)]
#[command(after_help = "\
Reads the positions of arena's game records (results folders' games.jsonl; with \
[selfplay] in the config it first plays games of the base engine into <out>/selfplay/), \
skips the opening, positions that are not quiet and those after a decisive score, labels \
each with the game's result from the side to move's view, fits K so that sigmoid(K * \
eval) predicts it, then the chosen weights by Adam. A checkpoint after every epoch: kill \
the fit, run the same command with --resume, and it ends with the same table.

Output in results/<name>/ (or --out): fitted.toml (the base table, comments kept, fitted \
values in place), fitted-engine.toml, fit.json (start and fitted values, K, losses per \
epoch, positions used and skipped), state.json, run.toml, selfplay/ and verification/ \
(the fitted engine against the base engine).

Examples:
  arena fit configs/fit-gomoku.toml
  arena fit configs/fit-gomoku.toml --resume
  arena fit --engine configs/engines/gomoku-seed003-threat.toml \\
      --games results/gomoku-tables --params table.open_three,table.defence")]
pub struct FitArgs {
    /// The fit config (TOML); or give --engine and --games instead.
    config: Option<PathBuf>,
    #[command(flatten)]
    job: JobArgs,
    /// Without a config: the base engine whose table is fitted.
    #[arg(long, value_name = "ENGINE.toml")]
    engine: Option<PathBuf>,
    /// Without a config: the game (default: the one the first record names, else the
    /// engine's).
    #[arg(long)]
    game: Option<arena::game::GameSpec>,
    /// Results folders to read (with a config: besides the config's own `games`).
    #[arg(long, value_name = "DIR", num_args = 1..)]
    games: Vec<PathBuf>,
    /// `arena datagen` output to read (folders or files; with a config: besides its own
    /// `data`), streamed from disk every epoch.
    #[arg(long, value_name = "DIR", num_args = 1..)]
    data: Vec<PathBuf>,
    /// With datagen data: the weight of the result in the label (0: the search score
    /// alone, 1: the result alone; default: the config's, else 0.5).
    #[arg(long, value_name = "L")]
    lambda: Option<f64>,
    /// The parameters: `table.open_three,table.defence` or `all` (default: the config's;
    /// `all` without a config).
    #[arg(long, value_name = "LIST")]
    params: Option<String>,
    /// Override the number of epochs.
    #[arg(long, value_name = "N")]
    epochs: Option<u64>,
    /// Override the number of self-play game pairs (a quick try; needs [selfplay]).
    #[arg(long, value_name = "N")]
    selfplay_pairs: Option<u32>,
    /// Override the verification match's game pairs (0: no verification).
    #[arg(long, value_name = "N")]
    verify_pairs: Option<u32>,
    /// The verification match's games, live.
    #[command(flatten)]
    live: LiveArgs,
}

fn params_of(list: &str) -> Params {
    if list.trim() == "all" {
        Params::All("all".into())
    } else {
        Params::List(
            list.split(',')
                .map(|s| fit::config::ParamItem::Name(s.trim().to_string()))
                .collect(),
        )
    }
}

fn load(args: &FitArgs) -> Result<Fit> {
    let mut f = match (&args.config, &args.engine) {
        (Some(_), Some(_)) => bail!("give a config or --engine, not both"),
        (Some(path), None) => {
            let mut f = Fit::load(path)?;
            if let Some(list) = &args.params {
                f.config.params = params_of(list);
            }
            // --games adds results folders to the config's own (relative to where arena
            // runs, as every path on the command line is).
            let cwd = std::env::current_dir()?;
            f.config
                .games
                .extend(args.games.iter().map(|g| cwd.join(g).display().to_string()));
            f.config
                .data
                .extend(args.data.iter().map(|g| cwd.join(g).display().to_string()));
            if args.lambda.is_some() {
                f.config.lambda = args.lambda;
            }
            if args.params.is_some()
                || !args.games.is_empty()
                || !args.data.is_empty()
                || args.lambda.is_some()
            {
                f = <Fit as ConfigFile>::resolve(
                    &path.display().to_string(),
                    path,
                    "",
                    f.config.clone(),
                )?;
            }
            f
        }
        (None, Some(engine)) => {
            if args.games.is_empty() && args.data.is_empty() {
                bail!(
                    "--engine needs --games DIR... (results folders to read) or --data DIR... \
                     (arena datagen output)"
                );
            }
            let here = std::env::current_dir()?.join("fit.toml");
            let engine_name = engine
                .file_stem()
                .map_or("engine".into(), |s| s.to_string_lossy().to_string());
            let config = FitConfig {
                name: format!("fit-{engine_name}"),
                game: args
                    .game
                    .or_else(|| args.games.first().and_then(|g| first_variant(g))),
                engine: engine.display().to_string(),
                set: toml::Table::new(),
                games: args.games.iter().map(|g| g.display().to_string()).collect(),
                data: args.data.iter().map(|g| g.display().to_string()).collect(),
                lambda: args.lambda,
                params: params_of(args.params.as_deref().unwrap_or("all")),
                epochs: 20,
                lr: 0.02,
                batch: 16384,
                loss: Default::default(),
                skip_plies: 6,
                validation: 0.1,
                quiet_gain: None,
                seed: 1,
                jobs: 0,
                selfplay: None,
                net: None,
                openings: Default::default(),
                adjudication: Default::default(),
                verification: None,
            };
            <Fit as ConfigFile>::resolve("the command line", &here, "", config)?
        }
        (None, None) => bail!("give a fit config, or --engine ENGINE.toml --games DIR..."),
    };
    set_from(&mut f.config.epochs, at_least_one("--epochs", args.epochs)?);
    if let Some(n) = args.selfplay_pairs {
        match f.config.selfplay.as_mut() {
            _ if n == 0 => bail!("--selfplay-pairs: must be at least 1"),
            Some(s) => s.pairs = n,
            None => bail!("--selfplay-pairs: the fit plays no self-play games (no [selfplay])"),
        }
    }
    Ok(f)
}

/// The game the first record of a results folder names.
fn first_variant(folder: &Path) -> Option<arena::game::GameSpec> {
    let path = fit::positions::records_file(folder);
    let mut found = None;
    let _ = arena::tournament::record::scan_records(&path, |_, r| {
        found = r.variant;
        Err(())
    });
    found
}

pub fn fit(args: FitArgs) -> Result<()> {
    let f = load(&args)?;
    let job = Job::new(
        &args.job,
        &f.config.name,
        "stopping; the last checkpoint stands",
    );
    args.live.files().check(f.plan().game, None)?;
    let options = job.options();
    let mut games = job.games("self-play");
    let epochs = job.bar("fit {elapsed_precise} [{bar:30}] {pos}/{len} epochs  ETA {eta}\n{msg}");
    let mut sink = |event: &FitEvent<'_>| match event {
        FitEvent::Selfplay(e) => games.event(e),
        FitEvent::Positions { counts, seconds } => {
            games.finish();
            if !args.job.quiet && !f.data.is_empty() {
                eprintln!(
                    "arena: datagen data: {} training and {} validation positions, features \
                     cached in {seconds:.1} s",
                    counts.train, counts.validation
                );
            } else if !args.job.quiet {
                eprintln!(
                    "arena: {} games: {} training and {} validation positions in {seconds:.1} s \
                     (skipped: {} opening, {} not quiet, {} after a decisive score; {} \
                     forfeited games)",
                    counts.games,
                    counts.train,
                    counts.validation,
                    counts.opening,
                    counts.not_quiet,
                    counts.decisive,
                    counts.games_forfeited
                );
            }
        }
        FitEvent::Started {
            epochs: total,
            done,
            k,
            jobs,
        } => {
            epochs.set_length(*total);
            epochs.set_position(*done);
            epochs.reset_eta();
            if !args.job.quiet {
                let resumed = if *done > 0 {
                    format!(", resuming after epoch {done}")
                } else {
                    String::new()
                };
                let line = format!("arena: K = {k:.4e}, {jobs} worker(s){resumed}");
                if job.log {
                    eprintln!("{line}");
                } else {
                    epochs.println(line);
                }
            }
        }
        FitEvent::Epoch {
            row,
            epochs: total,
            values,
        } => {
            epochs.set_position(row.epoch);
            let params = f.params.iter().map(|p| (p.name.as_str(), p.integer));
            let line = format!(
                "epoch {}/{total}: train {:.6}  validation {:.6}  {}",
                row.epoch,
                row.train,
                row.validation,
                live_values(params.take(6), values)
            );
            epochs.set_message(line.clone());
            if job.log {
                eprintln!("arena: {line}");
            }
        }
    };
    let outcome = fit::run(&f, &options, &mut sink);
    games.finish();
    epochs.finish_and_clear();
    let outcome = outcome?;
    let mut out = io::stdout().lock();
    if let Some(report) = &outcome.report {
        print_fit(&mut out, report)?;
    }
    if outcome.ending == FitEnding::Interrupted {
        return interrupted(&mut out);
    }
    verify_and_finish(&mut out, &job, &f, args.verify_pairs, &args.live)
}

fn print_fit(out: &mut impl Write, r: &FitReport) -> io::Result<()> {
    let p = &r.positions;
    writeln!(
        out,
        "{}: {} on {}, {} of {} epochs, {} loss, K = {:.4e}, seed {}",
        r.name, r.engine, r.game, r.epochs_done, r.epochs, r.loss, r.k, r.seed
    )?;
    if p.games == 0 && p.train > 0 {
        writeln!(
            out,
            "positions: {} training, {} validation (arena datagen data)",
            p.train, p.validation
        )?;
    } else {
        writeln!(
            out,
            "positions: {} training, {} validation from {} games (skipped: {} opening, {} not \
             quiet, {} after a decisive score; {} forfeited games)",
            p.train, p.validation, p.games, p.opening, p.not_quiet, p.decisive, p.games_forfeited
        )?;
    }
    let rows: Vec<Vec<String>> = r
        .params
        .iter()
        .map(|p| value_row(&p.name, p.integer, &[p.start, p.value, p.min, p.max]))
        .collect();
    writeln!(out)?;
    print_table(out, &["parameter", "start", "fitted", "min", "max"], &rows)?;
    if let Some(first) = r.history.first() {
        writeln!(
            out,
            "\nloss: train {:.6} -> {:.6}, validation {:.6} -> {:.6} (fitted table, values \
             rounded); {:.1} s of fitting",
            first.train, r.final_loss.train, first.validation, r.final_loss.validation, r.elapsed_s
        )?;
    }
    Ok(())
}
