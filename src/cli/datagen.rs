//! `arena datagen`: training data from self-play games of a built-in engine (or from its
//! games against another one), with a progress line (positions per second) on standard
//! error. The engine argument may be a datagen config, whose `[datagen]` flags override.
//! With `--from-games` it plays nothing and writes the positions of recorded games
//! ([`arena::datagen::from_games`]).

use std::{
    io::{self, IsTerminal, Write},
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use anyhow::{Result, bail};
use arena::{
    datagen::{
        self, Counts, Datagen, DatagenEnding, DatagenEvent, DatagenFile, DatagenRun, Format,
        FromGames, Target, is_datagen_config,
        run::{DEFAULT_DEDUP_WINDOW, DEFAULT_SCORE_CLIP},
    },
    engine::EngineConfig,
    game::GameSpec,
    report::rate,
    tournament::Shard,
};
use clap::Args;

use super::{
    engine::{Flagged, apply_parsed},
    long_job::interrupted,
    signals::stop_flag,
};

/// Generate training positions from self-play games of a built-in engine, or from games
/// already played (--from-games).
#[derive(Args, Debug)]
#[command(after_help = "\
Plays games of the engine against itself, or against the --against engine (the engine \
moves first in even games, the other in odd ones), each game from an opening of \
--openings, or the start position, then --random-plies random moves, and writes every \
position an engine searched with its search score from the side to move and the game's \
result for the side to move, except: the opening and the random plies, positions at or after a \
forced result (a win or loss in N plies), gomoku positions with a win to make or a four \
to answer, Ataxx positions with a capture swing of more than 8 stones, and positions \
seen before within --dedup-window games. Scores are clipped to ±--score-clip.

Formats: text (positions.txt: `FEN | score | result`, the FEN as `arena show --fen` \
reads it), bin and binpack (c-gomoku-cli's sample formats, for gomoku and renju), bullet \
(bullet's 32-byte AtaxxBoard, positions.data). docs/training-data.md has them field by \
field.

--from-games DIR plays no games: it writes the positions of games already played, by \
any engines (outside ones too), from results folders of `arena run` or `arena match` \
(their games.jsonl, checked against their run.toml), each labelled with the score the \
mover's search reported and the game's result: an outside engine's search as a teacher. \
--player NAME keeps one engine's positions, --decisive-above N counts a score beyond ±N \
as a forced result (engines that report a win as cp 999000), --score-scale F turns an \
engine's units into the table's (F = the K that fits the engine's scores to its results \
over the K a fit finds for the table; docs/training-data.md), --keep-forcing keeps the \
positions with a capture swing or a four, --skip-moves N leaves out each game's first N \
moves, --dedup-window 0 keeps every duplicate. The same records give the same bytes; \
docs/training-data.md has a recipe and what each choice cost.

The argument may instead be a datagen config: `engine = \"PATH\"`, optional `against`, \
and a [datagen] table with the flags' names (positions, games, depth, nodes, \
random_plies, openings, format, seed, score_clip, dedup_window, out, set = {...}); \
flags given override it. See configs/datagen-ataxx.toml.

With --depth or --nodes the output is a pure function of the engines, the seed and the \
options: the same for any --jobs, and for shards (--shard I/N, with --games) whose files \
are joined in shard order (cat positions.shard-0-of-3.txt positions.shard-1-of-3.txt \
positions.shard-2-of-3.txt > positions.txt). Kill it at any moment and run the same \
command with --resume.

Examples:
  arena datagen configs/engines/gomoku-strong.toml --positions 1000000 --depth 4 --format bin
  arena datagen configs/engines/ataxx-strong.toml --games 2000 --nodes 20000 --format bullet
  arena datagen configs/engines/ataxx-strong.toml --games 3000 --depth 4 --shard 1/3 --out data/ataxx
  arena datagen configs/engines/ataxx-strong.toml --against configs/engines/ataxx-modern.toml --games 200 --depth 3
  arena datagen configs/datagen-ataxx.toml --positions 5000
  arena datagen --from-games results/autaxx-self --decisive-above 4999 --keep-forcing --dedup-window 0 --skip-moves 2 --out data/autaxx
  parallel -j4 arena datagen configs/engines/ataxx-strong.toml --games 2000 --depth 3 --out data/ax --worker {} ::: 1 2 3 4")]
pub struct DatagenArgs {
    /// The engine config (TOML) of a built-in engine (it plays both sides without
    /// --against), or a datagen config (a [datagen] table). Not with --from-games.
    #[arg(value_name = "CONFIG", required_unless_present = "from_games")]
    engine: Option<PathBuf>,
    /// Play no games: write the positions of the games in these results folders (or
    /// games.jsonl files; any engines, outside ones included), each labelled with the
    /// score the mover's search reported and the game's result. Repeat for more.
    #[arg(long, value_name = "DIR", conflicts_with_all = [
        "engine", "against", "positions", "games", "depth", "nodes", "random_plies",
        "openings", "seed", "resume", "shard", "worker", "workers", "set",
    ])]
    from_games: Vec<PathBuf>,
    /// With --from-games: only the positions where this engine moved (its name in the
    /// records); repeat for more. Default: every engine's.
    #[arg(long, value_name = "NAME")]
    player: Vec<String>,
    /// With --from-games: a score beyond ±N counts as a forced result, as a mate score
    /// does (for engines that report a win as a large cp score, e.g. 999000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..))]
    decisive_above: Option<i32>,
    /// With --from-games: keep the positions datagen leaves out as forcing (an Ataxx
    /// capture swing of more than 8 stones, a gomoku four to make or answer): their
    /// recorded score already saw the tactics, and an Ataxx search evaluates such
    /// positions at its leaves.
    #[arg(long)]
    keep_forcing: bool,
    /// With --from-games: multiply each recorded score by F (rounded) before --score-clip,
    /// into the units of the table the data will fit: an outside engine's units are its
    /// own. F is the ratio of the K that fits the engine's scores to its games' results
    /// to the K `arena fit` finds for the table. --decisive-above reads the scores as
    /// recorded. Default 1.
    #[arg(long, value_name = "F")]
    score_scale: Option<f64>,
    /// With --from-games: leave out the positions before each game's first N moves
    /// (after its opening).
    #[arg(long, value_name = "N")]
    skip_moves: Option<usize>,
    /// Play the engine against this built-in engine (same game): games alternate who
    /// moves first; each position is scored by the engine that searched it.
    #[arg(long, value_name = "ENGINE.toml")]
    against: Option<PathBuf>,
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
    /// text (default), bin, binpack (m,n,k) or bullet (Ataxx).
    #[arg(long, value_name = "F")]
    format: Option<Format>,
    /// Output folder (default: results/datagen-<engine name>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Worker threads (default: all cores); the output never depends on it.
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,
    /// The master seed (default 1).
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Continue what the output folder holds (give the same arguments).
    #[arg(long)]
    resume: bool,
    /// Play only shard I of N (a contiguous range of the games; needs --games).
    #[arg(long, value_name = "I/N", value_parser = super::tournament::parse_shard)]
    shard: Option<Shard>,
    /// Play as worker ID of a run that several processes (on one machine or many, over a
    /// shared --out folder) play together: each claims a duplicate window of games at a
    /// time; the last to finish joins the files into what one process writes (needs
    /// --games; no --resume needed).
    #[arg(long, value_name = "ID", conflicts_with_all = ["workers", "shard", "resume"])]
    worker: Option<String>,
    /// Play as a worker whose ID the scheduler gives: SLURM_ARRAY_TASK_ID,
    /// JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or PARALLEL_SEQ (GNU parallel).
    #[arg(long, conflicts_with_all = ["shard", "resume"])]
    workers: bool,
    /// Clip scores to ±N (default 32000).
    #[arg(long, value_name = "N")]
    score_clip: Option<i32>,
    /// Drop a position seen before within the same window of N games (windows start at
    /// game indices that are multiples of N; memory grows with N, not with the run;
    /// default 64; with --from-games, 0 drops none).
    #[arg(long, value_name = "N")]
    dedup_window: Option<u64>,
    /// Set a named parameter of the engine (not of --against's) first, e.g. --set
    /// search.random_margin=20
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// No progress line.
    #[arg(long, short)]
    quiet: bool,
}

pub fn datagen(args: DatagenArgs) -> Result<()> {
    let Some(config) = args.engine.clone() else {
        return from_games(&args);
    };
    if !args.player.is_empty()
        || args.decisive_above.is_some()
        || args.keep_forcing
        || args.skip_moves.is_some()
        || args.score_scale.is_some()
    {
        bail!(
            "--player, --decisive-above, --keep-forcing, --skip-moves and --score-scale \
             choose and label positions of games already played: give them with \
             --from-games DIR"
        );
    }
    // A datagen config gives defaults for every flag; the flags given override them.
    let file = if is_datagen_config(&config) {
        Some(DatagenFile::load(&config)?)
    } else {
        None
    };
    let f = file.as_ref();
    let engine_path = f.map_or_else(|| config.clone(), |f| f.engine.clone());
    let against_path = args
        .against
        .clone()
        .or_else(|| f.and_then(|f| f.against.clone()));
    let mut engine = EngineConfig::load(&engine_path)?;
    if let Some(f) = f {
        f.apply_set(&mut engine)?;
    }
    let (depth, nodes) = if args.depth.is_some() || args.nodes.is_some() {
        (args.depth, args.nodes)
    } else {
        (f.and_then(|f| f.depth), f.and_then(|f| f.nodes))
    };
    // The limit flags replace the configs' limits (after the --sets), of both engines.
    let mut limits = Vec::new();
    if depth.is_some() || nodes.is_some() {
        limits.push(Flagged::number(
            "--depth",
            "search.depth",
            depth.map_or(0, u64::from),
        ));
        limits.push(Flagged::number(
            "--nodes",
            "search.nodes",
            nodes.unwrap_or(0),
        ));
        limits.push(Flagged::number("--depth", "search.movetime_ms", 0));
        limits.push(Flagged::string("--depth", "search.tc", String::new()));
    }
    let mut given = Vec::new();
    for a in &args.set {
        given.push(Flagged::parse("--set", a)?);
    }
    given.extend(limits.iter().cloned());
    apply_parsed(&given, |a| engine.set_all(a))?;
    let against = match &against_path {
        Some(path) => {
            let mut b = EngineConfig::load(path)?;
            apply_parsed(&limits, |a| b.set_all(a))?;
            Some(b)
        }
        None => None,
    };
    let target = match (args.positions, args.games) {
        (Some(n), None) => Target::Positions(n),
        (None, Some(n)) => Target::Games(n),
        _ => match (f.and_then(|f| f.positions), f.and_then(|f| f.games)) {
            (Some(n), None) => Target::Positions(n),
            (None, Some(n)) => Target::Games(n),
            _ => bail!("give --positions N or --games N"),
        },
    };
    let random_plies = args
        .random_plies
        .or_else(|| f.and_then(|f| f.random_plies))
        .unwrap_or(match engine.game {
            GameSpec::Mnk(_) => 4,
            GameSpec::Ataxx => 8,
        });
    let out = args
        .out
        .clone()
        .or_else(|| f.and_then(|f| f.out.clone()))
        .unwrap_or_else(|| {
            let name = match &against {
                Some(b) => format!(
                    "datagen-{}-vs-{}",
                    file_safe(&engine.name),
                    file_safe(&b.name)
                ),
                None => format!("datagen-{}", file_safe(&engine.name)),
            };
            Path::new("results").join(name)
        });
    let d = Datagen {
        engine,
        against,
        target,
        random_plies,
        openings: args
            .openings
            .clone()
            .or_else(|| f.and_then(|f| f.openings.clone())),
        format: args
            .format
            .or_else(|| f.and_then(|f| f.format))
            .unwrap_or(Format::Text),
        seed: args.seed.or_else(|| f.and_then(|f| f.seed)).unwrap_or(1),
        score_clip: args
            .score_clip
            .or_else(|| f.and_then(|f| f.score_clip))
            .unwrap_or(DEFAULT_SCORE_CLIP),
        dedup_window: args
            .dedup_window
            .or_else(|| f.and_then(|f| f.dedup_window))
            .unwrap_or(DEFAULT_DEDUP_WINDOW),
    };
    let worker = super::tune::worker_label(&args.worker, args.workers)?;
    if let Some((label, why)) = &worker
        && !args.quiet
    {
        eprintln!(
            "arena: playing as worker {label} of the datagen run in {} ({why})",
            out.display()
        );
    }
    let is_worker = worker.is_some();
    let options = DatagenRun {
        worker: worker.map(|(label, _)| label),
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
        if is_worker {
            // A worker continues by being started again (--resume is not its flag).
            writeln!(stdout, "interrupted: continue with the same command")?;
            return Err(super::Interrupted.into());
        }
        return interrupted(&mut stdout);
    }
    Ok(())
}

/// `arena datagen --from-games`: positions from games already played.
fn from_games(args: &DatagenArgs) -> Result<()> {
    let fg = FromGames {
        sources: args.from_games.clone(),
        players: args.player.clone(),
        decisive_above: args.decisive_above,
        keep_forcing: args.keep_forcing,
        skip_moves: args.skip_moves.unwrap_or(0),
        format: args.format.unwrap_or(Format::Text),
        score_clip: args.score_clip.unwrap_or(DEFAULT_SCORE_CLIP),
        score_scale: args.score_scale.unwrap_or(1.0),
        dedup_window: args.dedup_window.unwrap_or(DEFAULT_DEDUP_WINDOW),
    };
    let out = args.out.clone().unwrap_or_else(|| {
        let name = args.from_games[0]
            .file_name()
            .map_or_else(|| "games".into(), |n| file_safe(&n.to_string_lossy()));
        Path::new("results").join(format!("datagen-from-{name}"))
    });
    if !args.quiet {
        eprintln!(
            "datagen: reading the games of {}",
            args.from_games
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let o = datagen::from_games(&fg, &out, args.jobs.unwrap_or(0))?;
    let mut stdout = io::stdout().lock();
    writeln!(
        stdout,
        "{}: {} positions from {} games of {} ({} left out: a forfeit or a fault), in {:.1} s",
        o.data.display(),
        o.positions,
        o.games,
        o.game,
        o.forfeited,
        o.elapsed.as_secs_f64()
    )?;
    writeln!(
        stdout,
        "skipped: {} at or after a forced result, {} with a forced line or a capture swing, \
         {} duplicates, {} moves without a score, {} moves of other players, {} before \
         --skip-moves",
        o.decided, o.forcing, o.duplicates, o.unscored, o.other_players, o.early
    )?;
    if o.positions == 0 {
        writeln!(
            stdout,
            "warning: no position was written: the records hold no scores for the positions \
             asked for (see the skipped counts)"
        )?;
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
