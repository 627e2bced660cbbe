//! `arena openings`: generate an opening file (random, optionally balanced by an engine:
//! by its search score, by the games it plays against itself from each opening, or both).

use std::{
    io::{self, Write},
    path::PathBuf,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use arena::{
    engine::EngineConfig,
    game::{Game, GameSpec, Mnk},
    tournament::{
        config::OpeningsConfig,
        openings::{self, Band, BandError, PlayEvent, PlayJudge},
    },
    with_game,
};
use clap::{Args, ValueEnum};

use super::{engine::load_engine, rules::parse_game};

/// How often a progress line goes to stderr while `--play` works.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Line format of m,n,k openings.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Format {
    /// Gomocup offsets from the centre: `0,0, 1,0, 1,3`.
    Offsets,
    /// Pos move lists: `h8i8i11`.
    Moves,
}

/// Generate random openings, one a line, for an opening file.
#[derive(Args, Debug)]
#[command(
    after_help = "--balance judges each random opening with an engine: --margin keeps \
those its search scores within ±MARGIN (cheap); --play N has it play N games against itself \
from each one (after the --margin check, if given) and keeps those where the first player \
(who moved first in the game: black in gomoku) scored within --band (win 1, draw 0.5). \
Each judge game has its own seed for the engine's random choice among near-best root \
moves (search.random_margin, or --play-margin), from --seed, the opening and the game \
alone, so the openings are the same for any --jobs when the engine is limited by depth \
or nodes (not by time). Progress goes to stderr, the opening file to stdout.

Examples:
  arena openings gomoku --plies 3 --count 100 \
    --balance configs/engines/gomoku-seed003-threat.toml --margin 2000 \
    > configs/openings/my-openings.txt
  arena openings gomoku --plies 3 --count 100 --balance configs/engines/gomoku-strong.toml \
    --set search.depth=0 --set search.nodes=5000 --play 8 --band 0.375..0.625 \
    > configs/openings/my-played.txt"
)]
pub struct OpeningsArgs {
    /// The game.
    #[arg(value_parser = parse_game)]
    game: GameSpec,
    /// Plies per opening.
    #[arg(long, default_value_t = 3)]
    plies: u32,
    /// Number of openings.
    #[arg(long, default_value_t = 50)]
    count: u64,
    /// m,n,k: stones within this distance of the centre.
    #[arg(long, default_value_t = 3)]
    radius: u32,
    /// Keep only openings this engine judges balanced (with its own limits): by its
    /// search score (--margin), by its games against itself (--play), or both.
    #[arg(long, value_name = "ENGINE.toml")]
    balance: Option<PathBuf>,
    /// Keep only openings the --balance engine's search scores within ±MARGIN.
    #[arg(long, requires = "balance")]
    margin: Option<i32>,
    /// Set a named parameter of the --balance engine first, e.g. --set search.nodes=5000
    #[arg(long = "set", value_name = "NAME=VALUE", requires = "balance")]
    set: Vec<String>,
    /// Judge by play: the --balance engine plays N games against itself from each
    /// opening, kept when the first player's score lies within --band.
    #[arg(long, value_name = "N", requires = "balance",
          value_parser = clap::value_parser!(u32).range(1..))]
    play: Option<u32>,
    /// With --play: the first player's scores kept, LOW..HIGH within 0..1 (win 1, draw
    /// 0.5, over the N games; both ends kept) [default: 0.375..0.625, 3 to 5 points of 8]
    #[arg(long, value_name = "LOW..HIGH", requires = "play", value_parser = parse_band)]
    band: Option<Band>,
    /// With --play: the judge games choose at random (seeded per game) among root moves
    /// within UNITS of the best, so the N games differ [default: the engine's
    /// search.random_margin, or a tenth of its evaluator's unit (an open three for
    /// m,n,k, a stone for Ataxx) when that is 0]. Only the games use it, not --margin.
    #[arg(long, value_name = "UNITS", requires = "play",
          value_parser = clap::value_parser!(i32).range(1..))]
    play_margin: Option<i32>,
    /// Worker threads for --margin and --play (default: all cores); the openings do not
    /// depend on it.
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// m,n,k line format.
    #[arg(long, value_enum, default_value = "offsets")]
    format: Format,
}

fn parse_band(s: &str) -> Result<Band, BandError> {
    s.parse()
}

pub fn openings(args: OpeningsArgs) -> Result<()> {
    if args.balance.is_some() && args.margin.is_none() && args.play.is_none() {
        bail!("--balance needs --margin (its search score) or --play N (its games), or both");
    }
    let judge = match &args.balance {
        Some(path) => {
            let e = load_engine(path, &args.set)?;
            if e.game != args.game {
                bail!(
                    "--balance: '{}' plays {}, not {}",
                    e.name,
                    e.game,
                    args.game
                );
            }
            Some(e)
        }
        None => None,
    };
    let o = OpeningsConfig {
        plies: args.plies,
        radius: args.radius,
        balance_margin: args.margin.unwrap_or(0),
        ..OpeningsConfig::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build()
        .context("cannot start the worker threads")?;
    if let (Some(engine), Some(games)) = (&judge, args.play) {
        return pool.install(|| played(&args, &o, engine, games));
    }
    let lines = pool
        .install(|| {
            with_game!(args.game, |G, game| openings::generate::<G>(
                &game,
                &o,
                judge.as_ref(),
                args.seed,
                args.count
            ))
        })
        .map_err(anyhow::Error::msg)?;
    let mut out = io::stdout().lock();
    writeln!(out, "{}", header(&args, judge.as_ref(), None))?;
    for line in lines {
        writeln!(out, "{}", format_line(&args, line)?)?;
    }
    Ok(())
}

/// The `#` line that says how the openings were made (never the --jobs: the file is the
/// same for any).
fn header(args: &OpeningsArgs, judge: Option<&EngineConfig>, play: Option<&PlayJudge>) -> String {
    let mut kept = Vec::new();
    if let (Some(j), Some(m)) = (judge, args.margin) {
        kept.push(format!("'{}' scores within ±{m}", j.name));
    }
    if let Some(p) = play {
        kept.push(format!(
            "the first player scored {} in {} games of '{}' against itself at random margin {}",
            p.band,
            p.games,
            p.engine.name,
            p.margin()
        ));
    }
    let mut line = format!(
        "# {} random openings of {} plies for {} (seed {}",
        args.count, args.plies, args.game, args.seed
    );
    if !kept.is_empty() {
        line.push_str(", kept when ");
        line.push_str(&kept.join(" and "));
    }
    if let (Some(j), false) = (judge.or(play.map(|p| &p.engine)), args.set.is_empty()) {
        let set: Vec<String> = args.set.iter().map(|s| format!("--set {s}")).collect();
        line.push_str(&format!("; '{}' with {}", j.name, set.join(" ")));
    }
    line.push(')');
    line
}

/// `--play`'s second header line: the command that makes the same file (but --jobs,
/// which changes nothing), as the shipped sets' headers hold theirs.
fn command(args: &OpeningsArgs, judge: &PlayJudge) -> String {
    let mut words = vec![
        "# arena openings".to_string(),
        args.game.to_string(),
        format!("--plies {} --count {}", args.plies, args.count),
    ];
    if args.radius != 3 {
        words.push(format!("--radius {}", args.radius));
    }
    if let Some(path) = &args.balance {
        words.push(format!("--balance {}", path.display()));
    }
    words.extend(args.set.iter().map(|s| format!("--set {s}")));
    if let Some(m) = args.margin {
        words.push(format!("--margin {m}"));
    }
    words.push(format!(
        "--play {} --band {} --play-margin {} --seed {}",
        judge.games,
        judge.band,
        judge.margin(),
        args.seed
    ));
    if let (GameSpec::Mnk(_), Format::Moves) = (args.game, args.format) {
        words.push("--format moves".into());
    }
    words.join(" ")
}

/// An opening as a line of the file, in the chosen m,n,k notation.
fn format_line(args: &OpeningsArgs, line: String) -> Result<String> {
    Ok(match (args.game, args.format) {
        (GameSpec::Mnk(c), Format::Offsets) => {
            let pos = Mnk::from_text(&c, &line).map_err(anyhow::Error::msg)?;
            let (cx, cy) = c.centre();
            pos.history()
                .iter()
                .map(|&m| {
                    let (x, y) = c.xy(m);
                    format!("{},{}", x - cx, y - cy)
                })
                .collect::<Vec<_>>()
                .join(", ")
        }
        _ => line,
    })
}

/// `--play`: openings kept by the judge's games, written as they are found, with a
/// progress line on stderr every few seconds and at the end.
fn played(
    args: &OpeningsArgs,
    o: &OpeningsConfig,
    engine: &EngineConfig,
    games: u32,
) -> Result<()> {
    let band = args.band.unwrap_or_default();
    let filter = args.margin.map(|_| engine);
    let started = Instant::now();
    let mut last = started;
    let mut shown = None;
    let mut out = io::stdout().lock();
    let progress = |p: &openings::PlayProgress, started: Instant| {
        eprintln!(
            "arena: openings: {} candidate(s) played, {} kept, {} games ({} distinct), {:.0} s",
            p.tried,
            p.kept,
            p.games,
            p.distinct,
            started.elapsed().as_secs_f64()
        );
    };
    let result = with_game!(args.game, |G, game| {
        let judge = PlayJudge::new::<G>(engine, &game, games, band, args.play_margin)?;
        if judge.engine.search.is_timed() {
            eprintln!(
                "arena: openings: note: '{}' is limited by time: its games, and so the \
                 openings kept, depend on the machine's load and on --jobs (use depth or \
                 node limits for a file that can be made again)",
                judge.engine.name
            );
        }
        if !band.reachable_without_draws(games) {
            eprintln!(
                "arena: openings: note: only scores with drawn games lie within {band} \
                 ({games} games): few openings will be kept in a game with few draws"
            );
        }
        writeln!(out, "{}", header(args, filter, Some(&judge)))?;
        writeln!(out, "{}", command(args, &judge))?;
        openings::play_balanced::<G>(
            args.game,
            &game,
            o,
            filter,
            &judge,
            args.seed,
            args.count,
            |event| match event {
                PlayEvent::Kept(j) => {
                    let line =
                        format_line(args, j.opening.position.clone()).map_err(io::Error::other)?;
                    writeln!(out, "{line}")?;
                    out.flush()
                }
                PlayEvent::Progress(p) => {
                    if last.elapsed() >= PROGRESS_EVERY {
                        last = Instant::now();
                        shown = Some(p);
                        progress(&p, started);
                    }
                    Ok(())
                }
            },
        )
        .map_err(anyhow::Error::from)
    });
    let p = result?;
    if shown != Some(p) {
        progress(&p, started);
    }
    Ok(())
}
