//! `arena datagen`: training data from self-play games of a built-in engine, with a
//! progress line (positions per second) on standard error.

use std::{
    io::{self, IsTerminal, Write},
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use anyhow::{Result, bail};
use arena::{
    datagen::{
        self, Counts, Datagen, DatagenEnding, DatagenEvent, DatagenRun, Format, Target,
        run::{DEFAULT_DEDUP_WINDOW, DEFAULT_SCORE_CLIP},
    },
    engine::EngineConfig,
    game::GameSpec,
    report::rate,
    tournament::Shard,
};
use clap::Args;

use super::{engine::apply_flagged_sets, job::interrupted, signals::stop_flag};

/// Generate training positions from self-play games of a built-in engine.
#[derive(Args, Debug)]
#[command(after_help = "\
Plays games of the engine against itself (each game from an opening of --openings, or \
the start position, then --random-plies random moves) and writes every position the \
engine searched with the search score from the side to move and the game's result for \
the side to move, except: the opening and the random plies, positions at or after a \
forced result (a win or loss in N plies), gomoku positions with a win to make or a four \
to answer, Ataxx positions with a capture swing of more than 8 stones, and positions \
seen before within --dedup-window games. Scores are clipped to ±--score-clip.

Formats: text (positions.txt: `FEN | score | result`, the FEN as `arena show --fen` \
reads it), bin and binpack (c-gomoku-cli's sample formats, for gomoku and renju), bullet \
(bullet's 32-byte AtaxxBoard, positions.data). docs/training-data.md has them field by \
field.

With --depth or --nodes the output is a pure function of the engine, the seed and the \
options: the same for any --jobs, and for shards (--shard I/N, with --games) whose files \
are joined in shard order (cat positions.shard-0-of-3.txt positions.shard-1-of-3.txt \
positions.shard-2-of-3.txt > positions.txt). Kill it at any moment and run the same \
command with --resume.

Examples:
  arena datagen configs/engines/gomoku-strong.toml --positions 1000000 --depth 4 --format bin
  arena datagen configs/engines/ataxx-strong.toml --games 2000 --nodes 20000 --format bullet
  arena datagen configs/engines/ataxx-strong.toml --games 3000 --depth 4 --shard 1/3 --out data/ataxx")]
pub struct DatagenArgs {
    /// The engine config (TOML) of a built-in engine; it plays both sides.
    engine: PathBuf,
    /// Generate this many positions (the last game is cut to fit).
    #[arg(long, value_name = "N", conflicts_with = "games")]
    positions: Option<u64>,
    /// Play this many games.
    #[arg(long, value_name = "N")]
    games: Option<u64>,
    /// Search each move to this depth (replaces the config's limits).
    #[arg(long, value_name = "D", conflicts_with = "nodes", value_parser = clap::value_parser!(u32).range(1..250))]
    depth: Option<u32>,
    /// Search each move for this many nodes (replaces the config's limits).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Random moves after the opening, before the engine plays (default: 4 for m,n,k,
    /// near the stones; 8 for Ataxx).
    #[arg(long, value_name = "K")]
    random_plies: Option<u32>,
    /// An opening file (one opening a line, as `arena run` reads them); game g starts
    /// from opening g mod (number of openings).
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// text, bin, binpack (m,n,k) or bullet (Ataxx).
    #[arg(long, default_value = "text", value_name = "F")]
    format: Format,
    /// Output folder (default: results/datagen-<engine name>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Worker threads (default: all cores); the output never depends on it.
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,
    /// The master seed.
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// Continue what the output folder holds (give the same arguments).
    #[arg(long)]
    resume: bool,
    /// Play only shard I of N (a contiguous range of the games; needs --games).
    #[arg(long, value_name = "I/N", value_parser = super::tournament::parse_shard)]
    shard: Option<Shard>,
    /// Clip scores to ±N.
    #[arg(long, default_value_t = DEFAULT_SCORE_CLIP, value_name = "N")]
    score_clip: i32,
    /// Drop a position seen before within the same window of N games (windows start at
    /// game indices that are multiples of N; memory grows with N, not with the run).
    #[arg(long, default_value_t = DEFAULT_DEDUP_WINDOW, value_name = "N")]
    dedup_window: u64,
    /// Set a named parameter of the engine first, e.g. --set search.random_margin=20
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// No progress line.
    #[arg(long, short)]
    quiet: bool,
}

pub fn datagen(args: DatagenArgs) -> Result<()> {
    let mut engine = EngineConfig::load(&args.engine)?;
    let mut given: Vec<(&str, String)> = args.set.iter().map(|a| ("--set", a.clone())).collect();
    // The limit flags replace the config's limits (after the --sets).
    if args.depth.is_some() || args.nodes.is_some() {
        given.push((
            "--depth",
            format!("search.depth={}", args.depth.unwrap_or(0)),
        ));
        given.push((
            "--nodes",
            format!("search.nodes={}", args.nodes.unwrap_or(0)),
        ));
        given.push(("--depth", "search.movetime_ms=0".into()));
        given.push(("--depth", "search.tc=\"\"".into()));
    }
    let given: Vec<(&str, &str)> = given.iter().map(|(f, a)| (*f, a.as_str())).collect();
    apply_flagged_sets(&mut engine, &given)?;
    let target = match (args.positions, args.games) {
        (Some(n), None) => Target::Positions(n),
        (None, Some(n)) => Target::Games(n),
        _ => bail!("give --positions N or --games N"),
    };
    let random_plies = args.random_plies.unwrap_or(match engine.game {
        GameSpec::Mnk(_) => 4,
        GameSpec::Ataxx => 8,
    });
    let out = args.out.clone().unwrap_or_else(|| {
        Path::new("results").join(format!("datagen-{}", file_safe(&engine.name)))
    });
    let d = Datagen {
        engine,
        target,
        random_plies,
        openings: args.openings.clone(),
        format: args.format,
        seed: args.seed,
        score_clip: args.score_clip,
        dedup_window: args.dedup_window,
    };
    let options = DatagenRun {
        jobs: args.jobs.unwrap_or(0),
        resume: args.resume,
        out_dir: out,
        shard: args.shard,
        stop: stop_flag("stopping after writing the finished games"),
    };
    let mut progress = Progress::new(!args.quiet);
    let outcome = datagen::run(&d, &options, &mut |e| progress.event(e))?;
    progress.finish();
    let mut stdout = io::stdout().lock();
    let c = outcome.session;
    let secs = outcome.elapsed.as_secs_f64().max(1e-9);
    writeln!(
        stdout,
        "{}: {} positions from {} games ({} this session: {}, {} games)",
        outcome.data.display(),
        outcome.positions,
        outcome.games,
        c.positions,
        rate(c.positions as f64 / secs, "positions/s"),
        c.games
    )?;
    writeln!(stdout, "{}", skipped(&c))?;
    if c.searched > 0 {
        writeln!(
            stdout,
            "searched {} positions ({} nodes) in {:.1} s of search on {} thread(s), {:.1} s \
             wall: {} searched",
            c.searched,
            c.nodes,
            c.search_us as f64 / 1e6,
            progress.jobs,
            secs,
            rate(c.searched as f64 / secs, "positions/s"),
        )?;
    }
    if outcome.ending == DatagenEnding::Interrupted {
        return interrupted(&mut stdout);
    }
    Ok(())
}

fn skipped(c: &Counts) -> String {
    format!(
        "skipped: {} at or after a forced result, {} with a forced line or a capture swing, \
         {} duplicates",
        c.decided, c.forcing, c.duplicates
    )
}

/// An engine name as a folder name.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The progress line: on a terminal rewritten in place, else a line every ten seconds.
struct Progress {
    show: bool,
    terminal: bool,
    started: Instant,
    last: Instant,
    jobs: usize,
    before: u64,
    total_games: Option<u64>,
    total_positions: Option<u64>,
    drawn: bool,
}

impl Progress {
    fn new(show: bool) -> Progress {
        Progress {
            show,
            terminal: io::stderr().is_terminal(),
            started: Instant::now(),
            last: Instant::now(),
            jobs: 1,
            before: 0,
            total_games: None,
            total_positions: None,
            drawn: false,
        }
    }

    fn event(&mut self, e: &DatagenEvent) {
        match e {
            DatagenEvent::Started {
                games,
                positions,
                total_games,
                total_positions,
                jobs,
                repaired,
            } => {
                self.jobs = *jobs;
                self.before = *games;
                self.total_games = *total_games;
                self.total_positions = *total_positions;
                self.started = Instant::now();
                if self.show {
                    let resumed = if *games > 0 {
                        format!(", resuming after {games} games and {positions} positions")
                    } else {
                        String::new()
                    };
                    let repaired = if *repaired {
                        " (a torn tail of the last session was cut off)"
                    } else {
                        ""
                    };
                    eprintln!("datagen: {jobs} thread(s){resumed}{repaired}");
                }
            }
            DatagenEvent::Game {
                session,
                games,
                positions,
            } => {
                let every = if self.terminal {
                    Duration::from_millis(250)
                } else {
                    Duration::from_secs(10)
                };
                if self.show && self.last.elapsed() >= every {
                    self.last = Instant::now();
                    let secs = self.started.elapsed().as_secs_f64().max(1e-9);
                    let of = |n: Option<u64>| n.map_or(String::new(), |n| format!("/{n}"));
                    let line = format!(
                        "datagen: {positions}{} positions, {games}{} games, {}",
                        of(self.total_positions),
                        of(self.total_games),
                        rate(session.positions as f64 / secs, "positions/s")
                    );
                    if self.terminal {
                        eprint!("\r\x1b[2K{line}");
                        self.drawn = true;
                    } else {
                        eprintln!("{line}");
                    }
                }
            }
            DatagenEvent::Tick => {}
        }
    }

    fn finish(&mut self) {
        if self.drawn {
            eprintln!();
        }
    }
}
