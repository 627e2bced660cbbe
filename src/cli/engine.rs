//! `arena analyse` and `arena bench`: one engine from the command line.

use std::{
    io::{self, Write},
    path::PathBuf,
    time::Duration,
};

use anyhow::{Context, Result, bail};
use arena::{
    config,
    engine::{Engine, EngineConfig, EngineGame, bench, builtin},
    game::Game,
    report::rate,
    search::{Limits, score},
    with_game,
};
use clap::Args;

use super::rules::PositionArgs;

/// Search one position and print each iteration, like a UCI engine's info lines.
#[derive(Args, Debug)]
#[command(
    after_help = "Example: arena analyse configs/engines/gomoku-seed003-threat.toml \
                        --moves h8i9h9 --depth 5"
)]
pub struct AnalyseArgs {
    /// The engine config (TOML).
    engine: PathBuf,
    #[command(flatten)]
    position: PositionArgs,
    /// Search to this depth (replaces the config's limits; 0 = no depth limit, as
    /// `search.depth = 0` means in a config).
    #[arg(long)]
    depth: Option<u32>,
    /// Stop after this many nodes (replaces the config's limits; 0 = no node limit).
    #[arg(long)]
    nodes: Option<u64>,
    /// Stop after this many milliseconds (replaces the config's limits; 0 = no time
    /// limit).
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Set a named parameter first, e.g. --set search.top_k=5 --set table.defence=2
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
}

/// Search fixed positions to a fixed depth: total nodes (a fingerprint of the engine's
/// behaviour) and speed.
#[derive(Args, Debug)]
#[command(
    after_help = "Without an engine config, benches the built-in engines of each game.

The search switches of [search] (docs/search.md), each off unless the config turns it on:
  pvs, aspiration = 50, staged, mate_distance, null_move, lmr, futility, reverse_futility,
  razoring, late_move_pruning, iir, singular, tt_decisive, partial_iterations; gomoku
  also forced, extensions, vcf, vct.
Their numbers are search.params.* (nmp_base, lmr_divisor, futility_margin, lmp_scale,
vcf_nodes, vcf_near, ...). What one switch saves: the nodes to the depth with every
switch of the shipped modern engine on, and with one turned off (--set search.NAME=false;
node counts do not depend on the machine):
  gomoku-modern, configs/positions/gomoku-15x15.txt, depth 8: 68,019 with all on;
    without lmr 240,408, null_move 132,928, late_move_pruning 121,036,
    reverse_futility 96,645, futility 70,243; iir and vcf cost nodes here (66,237 and
    41,781 without them: the leaf VCF is there for the wins it finds, docs/experiments.md).
  ataxx-modern, configs/positions/ataxx-middlegame.txt, depth 7: 45,122 with all on;
    without lmr 103,210, reverse_futility 87,836, late_move_pruning 74,531,
    razoring 67,182, iir 55,171, null_move 46,975, futility 45,124.

Examples:
  arena bench configs/engines/gomoku-modern.toml --positions configs/positions/gomoku-15x15.txt --depth 8
  arena bench configs/engines/gomoku-modern.toml --positions configs/positions/gomoku-15x15.txt --depth 8 --set search.lmr=false
  arena bench configs/engines/ataxx-modern.toml --positions configs/positions/ataxx-middlegame.txt --depth 7"
)]
pub struct BenchArgs {
    /// An engine config (TOML); default: the built-in engines.
    engine: Option<PathBuf>,
    /// Depth, at least 1 (default: 5 for gomoku and Ataxx, 9 for small boards).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    depth: Option<u32>,
    /// Other positions: a file with one move list or FEN a line (`#` comments), instead
    /// of the fixed bench positions (then the total is no fingerprint).
    #[arg(long, value_name = "FILE")]
    positions: Option<PathBuf>,
    /// Set a named parameter of the engine first (needs ENGINE.toml), e.g. --set
    /// search.lmr=false
    #[arg(long, value_name = "NAME=VALUE")]
    set: Vec<String>,
}

/// Loads an engine config and applies `--set` assignments.
pub fn load_engine(path: &std::path::Path, set: &[String]) -> Result<EngineConfig> {
    let mut engine = EngineConfig::load(path)?;
    apply_sets(&mut engine, set, "--set")?;
    Ok(engine)
}

/// Applies `NAME=VALUE` assignments given as `flag` on the command line, all at once:
/// the engine is checked after the last one, so their order does not matter.
pub fn apply_sets(engine: &mut EngineConfig, set: &[String], flag: &str) -> Result<()> {
    let given: Vec<(&str, &str)> = set.iter().map(|a| (flag, a.as_str())).collect();
    apply_flagged_sets(engine, &given)
}

/// [`apply_sets`] with each assignment's own flag (`--set`, `--set-a`, `--depth`), so an
/// error names the flag the user gave.
pub fn apply_flagged_sets(engine: &mut EngineConfig, given: &[(&str, &str)]) -> Result<()> {
    apply_flagged(given, |a| engine.set_all(a))
}

/// [`apply_flagged_sets`] for any engine: `set_all` applies the parsed assignments.
pub fn apply_flagged(
    given: &[(&str, &str)],
    set_all: impl FnOnce(Vec<(String, toml::Value)>) -> Result<(), arena::engine::SetError>,
) -> Result<()> {
    let mut parsed = Vec::new();
    for &(flag, assignment) in given {
        parsed.push(Flagged::parse(flag, assignment)?);
    }
    apply_parsed(&parsed, set_all)
}

/// One assignment and the flag that gave it.
#[derive(Clone)]
pub struct Flagged<'a> {
    /// The flag (`--set`, `--depth`).
    pub flag: &'a str,
    /// The assignment as errors show it (`search.depth=5`).
    pub text: String,
    /// The parameter's name.
    pub name: String,
    /// Its value.
    pub value: toml::Value,
}

impl<'a> Flagged<'a> {
    /// `NAME=VALUE` as the command line gave it.
    pub fn parse(flag: &'a str, assignment: &str) -> Result<Flagged<'a>> {
        let (name, value) = config::parse_assignment(assignment)
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("{flag} {assignment}"))?;
        Ok(Flagged {
            flag,
            text: assignment.to_string(),
            name,
            value,
        })
    }

    /// `NAME=N` for a flag's number (a string of digits past TOML's integers, as
    /// [`config::parse_assignment`] reads one).
    pub fn number(flag: &'a str, name: &str, n: u64) -> Flagged<'a> {
        Flagged {
            flag,
            text: format!("{name}={n}"),
            name: name.to_string(),
            value: config::u64_value(n),
        }
    }

    /// `NAME="TEXT"` for a flag's string.
    pub fn string(flag: &'a str, name: &str, text: String) -> Flagged<'a> {
        Flagged {
            flag,
            text: format!("{name}=\"{text}\""),
            name: name.to_string(),
            value: toml::Value::String(text),
        }
    }
}

/// [`apply_flagged`] for assignments already parsed; an error names the flag and the
/// assignment at fault.
pub fn apply_parsed(
    given: &[Flagged<'_>],
    set_all: impl FnOnce(Vec<(String, toml::Value)>) -> Result<(), arena::engine::SetError>,
) -> Result<()> {
    let assignments = given
        .iter()
        .map(|g| (g.name.clone(), g.value.clone()))
        .collect();
    set_all(assignments).map_err(|e| {
        // The last assignment of the key is the one that counts.
        let at = match &e.key {
            Some(key) => given
                .iter()
                .rev()
                .find(|g| g.name == *key)
                .map_or_else(|| key.clone(), |g| format!("{} {}", g.flag, g.text)),
            None => given
                .first()
                .map_or_else(String::new, |g| g.flag.to_string()),
        };
        anyhow::anyhow!("{at}: {}", e.message)
    })
}

pub fn analyse(args: AnalyseArgs) -> Result<()> {
    let limits = [
        ("--depth", "search.depth", args.depth.map(u64::from)),
        ("--nodes", "search.nodes", args.nodes),
        ("--movetime", "search.movetime_ms", args.movetime),
    ];
    let flagged = limits.iter().any(|(_, _, v)| v.is_some());
    if flagged && limits.iter().all(|(_, _, v)| v.unwrap_or(0) == 0) {
        bail!(
            "--depth, --nodes and --movetime: 0 means no limit (as in a config's [search]), \
             so this search would never end: give one of them a value of at least 1"
        );
    }
    if let Some(d) = args.depth
        && d as usize >= score::MAX_PLY
    {
        bail!("--depth {d} is too deep (at most {})", score::MAX_PLY - 1);
    }
    // The limit flags replace the config's limits: they are set after the `--set`s, so
    // `--set search.depth=0 --movetime 200` is a search of 200 ms, not a config without
    // a limit.
    let mut engine = EngineConfig::load(&args.engine)?;
    let mut given = Vec::new();
    for a in &args.set {
        given.push(Flagged::parse("--set", a)?);
    }
    if flagged {
        for (flag, key, v) in limits {
            given.push(Flagged::number(flag, key, v.unwrap_or(0)));
        }
        given.push(Flagged::string("--movetime", "search.tc", String::new()));
    }
    apply_parsed(&given, |a| engine.set_all(a))?;
    with_game!(engine.game, |G, game| analyse_game::<G>(
        &args, &engine, &game
    ))
}

fn analyse_game<G: EngineGame>(
    args: &AnalyseArgs,
    config: &EngineConfig,
    game: &G::Config,
) -> Result<()> {
    let pos: G = args.position.position(game)?;
    if pos.outcome().is_some() {
        bail!("the game is over in this position: nothing to analyse");
    }
    let mut limits = config.search.limits();
    if args.depth.is_some() || args.nodes.is_some() || args.movetime.is_some() {
        // 0 is no limit, as in a config's [search] (`analyse` refused all three 0). The
        // move time is a hard limit here, without the soft one a config's would add.
        limits = Limits {
            depth: args.depth.filter(|&d| d > 0),
            nodes: args.nodes.filter(|&n| n > 0),
            movetime: args
                .movetime
                .filter(|&ms| ms > 0)
                .map(Duration::from_millis),
            soft_time: None,
        };
    }
    let mut engine = Engine::<G>::new(config, game).map_err(anyhow::Error::msg)?;
    engine.searcher().new_game(0);
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "{} ({}) on {}",
        config.name,
        config.summary(),
        if pos.to_text().is_empty() {
            "the empty board".to_string()
        } else {
            pos.to_text()
        }
    )?;
    writeln!(
        out,
        "scores: the evaluation's units, as games.jsonl records them (the table's weights; \
         a forced result is a win or loss in N plies)"
    )?;
    let mut write_error = None;
    let result = engine.search(&pos, limits, |it| {
        let secs = it.time.as_secs_f64();
        let pv: Vec<String> = it.pv.iter().map(|&m| pos_format(&pos, m)).collect();
        let line = format!(
            "depth {:>2}  score {:<16} nodes {:>10}  nps {:>10}  time {:>8.1} ms  pv {}",
            it.depth,
            score_text(it.score),
            it.nodes,
            rate(it.nodes as f64 / secs.max(1e-9), ""),
            secs * 1e3,
            pv.join(" ")
        );
        if let Err(e) = writeln!(out, "{line}") {
            write_error.get_or_insert(e);
        }
    });
    if let Some(e) = write_error {
        return Err(e.into());
    }
    let best = result
        .best
        .map_or("(none)".to_string(), |m| pos.format_move(m));
    writeln!(
        out,
        "bestmove {best}  (depth {}, {} nodes, {:.1} ms)",
        result.depth,
        result.nodes,
        result.time.as_secs_f64() * 1e3
    )?;
    Ok(())
}

/// A score as the records write it: a number in the evaluation's units (for gomoku the
/// table's weights, for Ataxx the table's, a stone being `material`), or `win in N
/// plies` / `loss in N plies` for a forced result.
fn score_text(score: i32) -> String {
    arena::tournament::record::score_text::describe(score).unwrap_or_else(|| score.to_string())
}

fn pos_format<G: Game>(pos: &G, mv: G::Move) -> String {
    pos.format_move(mv)
}

pub fn bench(args: BenchArgs) -> Result<()> {
    if args.engine.is_none() && !args.set.is_empty() {
        bail!("--set needs an engine config (arena bench ENGINE.toml --set NAME=VALUE)");
    }
    let engines = match &args.engine {
        Some(path) => vec![load_engine(path, &args.set)?],
        None => ["gomoku-seed003-threat", "ataxx-rich", "tictactoe-perfect"]
            .iter()
            .map(|name| builtin::engine(name))
            .collect::<Result<Vec<_>, _>>()?,
    };
    let mut out = io::stdout().lock();
    let positions = match &args.positions {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let list: Vec<String> = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_string)
                .collect();
            if list.is_empty() {
                bail!(
                    "{}: no positions (one move list or FEN a line)",
                    path.display()
                );
            }
            Some(list)
        }
        None => None,
    };
    let mut total_nodes = 0;
    let mut total_secs = 0.0;
    for engine in &engines {
        let report = bench::run_on(engine, args.depth, positions.as_deref())
            .map_err(anyhow::Error::msg)
            .with_context(|| match &args.positions {
                Some(p) => p.display().to_string(),
                None => "the bench positions".to_string(),
            })?;
        writeln!(
            out,
            "{} ({}), depth {}",
            engine.name, engine.game, report.depth
        )?;
        for line in &report.lines {
            writeln!(
                out,
                "  {:<32} best {:<6} score {:<12} nodes {:>10}  {:>8.1} ms",
                line.position,
                line.best,
                score_text(line.score),
                line.nodes,
                line.time.as_secs_f64() * 1e3
            )?;
        }
        let per_depth: Vec<String> = report
            .nodes_by_depth
            .iter()
            .map(|&(d, _, n)| format!("{d}:{n:.0}"))
            .collect();
        writeln!(
            out,
            "  mean nodes by depth {}  ebf {}",
            per_depth.join(" "),
            report.ebf.map_or("n/a".to_string(), |e| format!("{e:.2}"))
        )?;
        let secs = report.time.as_secs_f64();
        writeln!(
            out,
            "  {} nodes  {:.3} s  {}",
            report.nodes,
            secs,
            rate(report.nodes as f64 / secs.max(1e-9), "nodes/s")
        )?;
        total_nodes += report.nodes;
        total_secs += secs;
    }
    if engines.len() > 1 {
        writeln!(
            out,
            "total {total_nodes} nodes  {total_secs:.3} s  {}",
            rate(total_nodes as f64 / total_secs.max(1e-9), "nodes/s")
        )?;
    }
    Ok(())
}
