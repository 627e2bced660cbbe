//! `arena run`, `arena stats` and `arena export`: tournaments from the command line.

use std::{
    io::{self, Write},
    path::{Path, PathBuf},
};

use anyhow::{Context, Result, bail};
use arena::tournament::{
    Ending, LiveFiles, RunOptions, Schedule, Shard, Summary, Tournament, pgn, sgf,
    validate::{RunShape, read_checked},
};
use clap::Args;

use super::long_job::{Job, JobArgs, at_least_one, done_in, interrupted, set_from};

/// Play a tournament (or continue one with --resume) and print the standings.
#[derive(Args, Debug)]
#[command(
    after_help = "Results go to results/<name>/: games.jsonl (one game a line), run.toml \
                        (the exact config), summary.json, standings.csv, pairings.csv, and \
                        the report: report.html (with a game viewer), report.md, plots/.\n\
                        Without a terminal (nohup, CI) a line per finished game and the \
                        score every 10 games are logged to standard error.\n\
                        Example: arena run configs/gomoku-tables.toml --jobs 2\n\
                        Across machines: arena run CONFIG --shard I/N (or --shards N inside a \
                        Slurm array, Kubernetes Indexed Job or GNU parallel) into \
                        shards/shard-I-of-N.jsonl, then arena merge results/<name>"
)]
pub struct RunArgs {
    /// The tournament config (TOML).
    config: PathBuf,
    #[command(flatten)]
    job: JobArgs,
    /// Override the number of game pairs per pairing.
    #[arg(long)]
    rounds: Option<u32>,
    /// Override the master seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Override [adjudication] max_plies: a game still going after this many plies is a
    /// draw (0: never). A quick look at a long config: --rounds 1 --max-plies 20.
    #[arg(long, value_name = "N")]
    max_plies: Option<u32>,
    /// Play only shard I of N (game pairs with index % N == I), into shards/; `arena
    /// merge` combines the shards.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// Split the run into N shards, the index taken from SLURM_ARRAY_TASK_ID,
    /// JOB_COMPLETION_INDEX or PARALLEL_SEQ (1-based). Without --shard or --shards a
    /// Slurm array task picks its shard from SLURM_ARRAY_TASK_ID/COUNT.
    #[arg(long, value_name = "N", conflicts_with = "shard")]
    shards: Option<u32>,
    /// Play the whole run even inside a Slurm array task (ignore the environment).
    #[arg(long, conflicts_with_all = ["shard", "shards"])]
    no_shard: bool,
    /// Do not write report.html, report.md and plots/ at the end (see 'arena report').
    #[arg(long)]
    no_report: bool,
    #[command(flatten)]
    rating: RatingArgs,
    #[command(flatten)]
    live: LiveArgs,
}

/// Live game files, for the commands that play games through the tournament runner.
#[derive(Args, Clone, Debug, Default)]
pub(crate) struct LiveArgs {
    /// Append each game to this PGN file as its result is written, as `arena export
    /// --pgn` writes it, in game order (a game waits for the ones before it); --resume
    /// continues the file (a torn last game is cut off, no game is written twice).
    #[arg(long, value_name = "FILE")]
    pub pgnout: Option<PathBuf>,
    /// Likewise an SGF file with every move (m,n,k games), as `arena export --sgf`.
    #[arg(long, value_name = "FILE")]
    pub sgfout: Option<PathBuf>,
}

impl LiveArgs {
    /// The files the flags name.
    pub fn files(&self) -> LiveFiles {
        LiveFiles {
            pgn: self.pgnout.clone(),
            sgf: self.sgfout.clone(),
            date: None,
        }
    }
}

/// How the results are judged, in place of the config's `[sprt]` and `anchor` (`arena
/// run` plays by them; `arena stats` prints by them and leaves the files as they are).
#[derive(Args, Debug)]
pub(crate) struct RatingArgs {
    /// An SPRT of the pairs: ELO0,ELO1[,ALPHA,BETA] (α = β = 0.05 by default; two engines
    /// only). `arena run` stops when it decides.
    #[arg(
        long,
        value_name = "ELO0,ELO1",
        value_parser = super::elo::parse_sprt,
        allow_hyphen_values = true
    )]
    pub(crate) sprt: Option<arena::stats::SprtConfig>,
    /// Ratings relative to this engine (its rating 0) instead of the pool average.
    #[arg(long, value_name = "ENGINE")]
    pub(crate) anchor: Option<String>,
}

/// Export a run's games: SGF for m,n,k games (gomoku), PGN for Ataxx, by default.
#[derive(Args, Debug)]
#[command(
    after_help = "Without --pgn or --sgf: SGF for m,n,k games (every move, for Piskvork-era viewers, Renlib and SGF editors), PGN for Ataxx (FEN, SetUp and every move, as cuteataxx writes them). --pgn on m,n,k games writes headers only, which is all Ordo and BayesElo read. Black is the first player in both games; PGN's Result is from White's side (1-0: White won), as in chess, unless --result-convention ataxx. Date, UTCDate and UTCTime say when each game was played; Round is the game's round.

Ordo's scale: -z is the rating difference at a 76 % expected score, 202 by default; the logistic Elo arena prints has 200.24 there (400 log10(76/24)), so run ordo -z 200.24 for ratings on arena's scale (and -W for its white-advantage term).

Examples:
  arena export results/ataxx -o ataxx.pgn && ordo -z 200.24 -p ataxx.pgn
  arena export results/gomoku-tables -o games.sgf
  arena export results/gomoku-tables --pgn | bayeselo"
)]
pub struct ExportArgs {
    /// The run's results folder.
    dir: PathBuf,
    /// PGN: every move for Ataxx; headers only for m,n,k games (for Ordo and BayesElo).
    #[arg(long, conflicts_with = "sgf")]
    pgn: bool,
    /// SGF (m,n,k games only): every move, one game tree per game.
    #[arg(long)]
    sgf: bool,
    /// Write to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Whose side PGN's Result is from: chess (White's: 0-1 when black, the first
    /// player, won; what Ordo and BayesElo expect) or ataxx (the first player's: 1-0
    /// when black won, as cuteataxx and python-ataxx write Ataxx PGN).
    #[arg(long, default_value = "chess", value_name = "chess|ataxx")]
    result_convention: pgn::ResultConvention,
}

pub(crate) fn parse_shard(s: &str) -> Result<Shard, String> {
    let (i, n) = s
        .split_once('/')
        .ok_or_else(|| format!("'{s}' is not I/N (like 0/4)"))?;
    let index: u32 = i
        .trim()
        .parse()
        .map_err(|_| format!("'{i}' is not a number"))?;
    let count: u32 = n
        .trim()
        .parse()
        .map_err(|_| format!("'{n}' is not a number"))?;
    if count == 0 || index >= count {
        return Err(format!("shard {index}/{count}: need 0 <= I < N"));
    }
    Ok(Shard { index, count })
}

pub fn run(args: RunArgs) -> Result<()> {
    let mut t = Tournament::load(&args.config)?;
    set_from(&mut t.config.rounds, at_least_one("--rounds", args.rounds)?);
    set_from(&mut t.config.seed, args.seed);
    set_from(&mut t.config.adjudication.max_plies, args.max_plies);
    overrides(&mut t, &args.rating)?;
    let shard = choose_shard(&args)?;
    // The flags win over the config's keys (paths relative to the config).
    let mut live = args.live.files();
    live.pgn = live
        .pgn
        .or_else(|| t.config.pgnout.as_deref().map(|p| t.resolve(p)));
    live.sgf = live
        .sgf
        .or_else(|| t.config.sgfout.as_deref().map(|p| t.resolve(p)));
    play(
        &t,
        Play {
            job: args.job,
            no_report: args.no_report,
            shard,
            live,
        },
    )
}

/// `--sprt` and `--anchor` in place of the config's, checked as the config's would be.
pub(crate) fn overrides(t: &mut Tournament, rating: &RatingArgs) -> Result<()> {
    if let Some(sprt) = rating.sprt {
        if t.engines.len() != 2 {
            bail!(
                "--sprt: an SPRT compares two engines; {} has {}",
                t.config.name,
                t.engines.len()
            );
        }
        t.config.sprt = Some(sprt);
    }
    if let Some(anchor) = rating.anchor.as_deref() {
        if !t.engines.iter().any(|e| e.name() == anchor) {
            let names: Vec<&str> = t.engines.iter().map(|e| e.name()).collect();
            bail!(
                "--anchor: no engine '{anchor}' (the engines: {})",
                names.join(", ")
            );
        }
        t.config.anchor = Some(anchor.to_string());
    }
    Ok(())
}

/// How `arena run`, `arena match` and each point of `arena sweep` play a tournament.
pub(crate) struct Play {
    /// Workers, resume, folder, progress.
    pub job: JobArgs,
    /// No report at the end.
    pub no_report: bool,
    /// The shard to play, and why.
    pub shard: Option<(Shard, String)>,
    /// Live game files.
    pub live: LiveFiles,
}

/// Plays (or resumes) `t` and prints the standings, then writes the report.
pub(crate) fn play(t: &Tournament, args: Play) -> Result<()> {
    let job = Job::new(
        &args.job,
        &t.config.name,
        "stopping after writing the finished games",
    );
    let shard = args.shard.clone();
    // Said once the run's checks passed (on stderr, even with --quiet: a cluster job's
    // log must tell which shard it played and why).
    let shard_note = shard.as_ref().map(|(s, why)| {
        let pairs =
            Schedule::new(t.config.format, t.engines.len(), u64::from(t.config.rounds)).pairs();
        format!(
            "arena: playing shard {} ({why}): {} of the run's {pairs} game pairs, into {}",
            s.label(),
            s.pairs_of(pairs),
            arena::tournament::shard::locate(&job.out, *s)
                .map_or_else(
                    |_| arena::tournament::shard::part_file(&job.out, *s),
                    |f| f.current
                )
                .display()
        )
    });
    let options = RunOptions {
        shard: shard.map(|(s, _)| s),
        live: LiveFiles {
            date: run_date(&job.out),
            ..args.live
        },
        ..RunOptions::for_job(&job.options(), job.out.clone())
    };
    let mut games = job.games("").with_note(shard_note);
    let outcome = arena::tournament::run(t, &options, &mut |e| games.event(e));
    games.finish();
    let outcome = outcome?;
    if let Some(s) = options.shard {
        return finish_shard(s, &outcome);
    }
    let mut out = io::stdout().lock();
    print_summary(&mut out, &outcome.summary)?;
    writeln!(
        out,
        "\n{}; results in {}",
        done_in(outcome.played, "games this run", outcome.elapsed, "games/s"),
        outcome.out_dir.display()
    )?;
    if !args.no_report {
        Job::report(&outcome.out_dir, games.workers());
    }
    match outcome.ending {
        Ending::Complete => Ok(()),
        Ending::SprtDecided => {
            writeln!(out, "stopped early: the SPRT decided")?;
            Ok(())
        }
        Ending::Interrupted => interrupted(&mut out),
    }
}

/// The shard to play and why: `--shard`, else the scheduler's environment (see
/// `shard::choose_from_env`), unless `--no-shard`.
fn choose_shard(args: &RunArgs) -> Result<Option<(Shard, String)>> {
    if let Some(s) = args.shard {
        return Ok(Some((s, "from --shard".into())));
    }
    if args.no_shard {
        return Ok(None);
    }
    let env = |name: &str| std::env::var(name).ok();
    let choice =
        arena::tournament::shard::choose_from_env(&env, args.shards).map_err(anyhow::Error::msg)?;
    Ok(choice.map(|c| (c.shard, format!("from {}", c.reason))))
}

/// A shard's ending: where its games are and what comes next. Its statistics are not
/// printed: they are a slice of the run's, and `arena merge` computes the real ones.
fn finish_shard(s: Shard, outcome: &arena::tournament::RunOutcome) -> Result<()> {
    let mut out = io::stdout().lock();
    let games = outcome.summary.games;
    match outcome.ending {
        Ending::Complete => {
            writeln!(
                out,
                "shard {} complete: {games} games ({} this run, {:.1} s) in {}\n\
                 when every shard is complete:  {}",
                s.label(),
                outcome.played,
                outcome.elapsed.as_secs_f64(),
                outcome.results.display(),
                arena::invocation::command(&format!(
                    "merge {}",
                    arena::invocation::shell_word(&outcome.out_dir.display().to_string())
                ))
            )?;
            Ok(())
        }
        Ending::Interrupted => {
            write!(
                out,
                "shard {} interrupted: {games} games in {}; ",
                s.label(),
                outcome.results.display(),
            )?;
            interrupted(&mut out)
        }
        // The runner refuses [sprt] with shards; should that change, say what happened.
        Ending::SprtDecided => {
            writeln!(out, "shard {} stopped: the SPRT decided", s.label())?;
            Ok(())
        }
    }
}

/// The tournament whose results are in `dir`, with a word on what `dir` is when it is
/// not a tournament's results folder.
pub(crate) fn tournament_folder(dir: &Path) -> Result<Tournament> {
    Tournament::from_resolved(&dir.join("run.toml")).map_err(|e| {
        if dir.join("tune.json").exists() || dir.join("state.json").exists() {
            let shown = arena::invocation::shell_word(&dir.display().to_string());
            anyhow::anyhow!(
                "{} is a tuning run's folder, not a tournament's: `{}` writes its report, and \
                 its verification match is the tournament folder {}",
                dir.display(),
                arena::invocation::command(&format!("report {shown}")),
                dir.join("verification").display()
            )
        } else if dir.join("run.toml").exists() {
            // A run's folder whose run.toml is damaged or newer: the error says which.
            anyhow::Error::new(e)
        } else {
            anyhow::Error::new(e)
                .context(format!("{} is not a run's results folder", dir.display()))
        }
    })
}

pub fn export(args: ExportArgs) -> Result<()> {
    let t = tournament_folder(&args.dir)?;
    let records = read_checked(&args.dir.join("games.jsonl"), &RunShape::of(&t, None))?;
    let date = run_date(&args.dir);
    let info = pgn::ExportInfo {
        event: &t.config.name,
        game: t.config.game,
        date: date.as_deref(),
        convention: args.result_convention,
    };
    let sgf_config = match t.config.game {
        arena::game::GameSpec::Mnk(config) => Some(config),
        arena::game::GameSpec::Ataxx => None,
    };
    let text = match (args.pgn, args.sgf, sgf_config) {
        (true, _, _) | (false, false, None) => {
            // Beside the PGN, where a user reads it: whose side `1-0` is from (black's
            // win is `1-0` in games.jsonl and the report, `0-1` in chess's PGN).
            eprintln!(
                "arena: {}",
                match args.result_convention {
                    pgn::ResultConvention::Chess => {
                        "PGN Result is from White's side, as in chess: 1-0 is a win for White \
                         (o, the second player), and black's win, 1-0 in games.jsonl and the \
                         report, is 0-1 here (--result-convention ataxx writes it as 1-0)"
                    }
                    pgn::ResultConvention::Ataxx => {
                        "PGN Result is from the first player's side, as in games.jsonl and the \
                         report: 1-0 is a win for Black (x), as cuteataxx writes it; rating \
                         tools that read chess's convention want --result-convention chess"
                    }
                }
            );
            pgn::export(&info, &records.records)
        }
        (_, _, Some(config)) => sgf::export(&info, &config, &records.records),
        (false, true, None) => bail!(
            "--sgf: SGF is for m,n,k games; {} is {}: export it as PGN (the default)",
            args.dir.display(),
            t.config.game
        ),
    }
    .map_err(|e| anyhow::anyhow!("{}: {e}", args.dir.join("games.jsonl").display()))?;
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(())
}

/// The day the run was played (`YYYY.MM.DD`), from the `environment.json` its report
/// recorded; `None` when there is none.
pub(crate) fn run_date(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("environment.json")).ok()?;
    let env: arena::report::Environment = serde_json::from_str(&text).ok()?;
    let day = env.date.get(..10)?;
    let ok = day.len() == 10 && day.as_bytes()[4] == b'-' && day.as_bytes()[7] == b'-';
    ok.then(|| day.replace('-', "."))
}

/// Prints the standings (rendered by the report layer, like report.md).
pub fn print_summary(out: &mut impl Write, s: &Summary) -> io::Result<()> {
    out.write_all(arena::report::summary_text(s).as_bytes())
}
