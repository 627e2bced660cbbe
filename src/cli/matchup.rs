//! `arena match`: two engines from the command line, no config file. It builds the
//! tournament a config would describe and plays it as `arena run` does, into a normal
//! results folder (`run.toml` holds the exact config, so `arena stats`, `arena report`,
//! `arena export` and `--resume` work as for any run).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use arena::{
    engine::TimeControl,
    game::GameSpec,
    protocol::{EngineSpec, Protocol},
    stats::SprtConfig,
    tournament::{Tournament, openings},
};
use clap::Args;

use super::{
    adjudication::AdjudicationArgs,
    elo::parse_sprt,
    engine::apply_flagged,
    job::JobArgs,
    tournament::{Play, play},
};

/// Play two engines against each other (colour-swapped game pairs) without a config.
#[derive(Args, Debug)]
#[command(after_help = "\
An ENGINE is an engine config (TOML), or an outside program written \
cmd=PATH[,proto=gomocup|uai][,name=NAME][,arg=ARG]...[,dir=DIR][,restart=on|off][,option.KEY=VALUE]... \
(PATH relative to the current folder when it holds a '/', else looked up in PATH).

Results go to results/<name>/ (default name: match-A-vs-B) exactly as for 'arena run': \
games.jsonl, run.toml (the exact config: the match can be resumed, rated and exported \
like any run), summary.json, standings.csv, pairings.csv and the report.

Openings: gomoku, renju and Ataxx play the balanced openings that ship with arena \
(configs/openings/gomoku-balanced.txt, configs/openings/renju-balanced.txt, \
configs/openings/ataxx-6ply-balanced.txt: \
[openings] kind = \"balanced\" in run.toml); other games (tic-tac-toe, gomoku-exact, \
mnk:W,H,K) have none and play random 2-ply openings, as before. --plies N plays random \
N-ply openings instead, --openings FILE a file. A file or the balanced set is played in \
its order (the same games whatever --seed, with depth or node limits): --shuffle draws \
the order from --seed, --transform plays each opening in the board's symmetries.

Examples:
  arena match configs/engines/gomoku-seed003-threat.toml configs/engines/gomoku-seed000-threat.toml --rounds 20
  arena match configs/engines/ataxx-seed004.toml configs/engines/ataxx-seed004.toml --set-b search.depth=4 --sprt 0,10
  arena match configs/engines/gomoku-seed003-threat.toml cmd=./pbrain-rapfi,name=rapfi --tc 10+0.1")]
pub struct MatchArgs {
    /// The first engine: an engine config, or cmd=PATH,... for an outside program.
    engine_a: String,
    /// The second engine, likewise.
    engine_b: String,
    #[command(flatten)]
    job: JobArgs,
    /// Game pairs (each opening played twice, colours swapped) [default: 50, or 10000
    /// with --sprt, which stops when it decides].
    #[arg(long, value_name = "N")]
    rounds: Option<u32>,
    /// Depth limit per move, for both engines (replaces their own limits).
    #[arg(long, value_name = "D", group = "limit")]
    depth: Option<u32>,
    /// Node limit per move, for both engines (replaces their own limits).
    #[arg(long, value_name = "N", group = "limit")]
    nodes: Option<u64>,
    /// Time per move in milliseconds, for both engines (replaces their own limits; not
    /// reproducible).
    #[arg(long, value_name = "MS", group = "limit")]
    movetime: Option<u64>,
    /// A game clock SECONDS+INCREMENT (10+0.1), for both engines (replaces their own
    /// limits; not reproducible).
    #[arg(long, value_name = "SECONDS+INC", group = "limit")]
    tc: Option<TimeControl>,
    /// Openings from a file (Gomocup offset lines or pos move lists, Ataxx FENs or EPD
    /// lines), in order; default: the shipped balanced openings of gomoku and Ataxx
    /// (configs/openings/), random 2-ply openings for other games.
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Random openings of N plies instead of balanced ones.
    #[arg(long, value_name = "N", conflicts_with = "openings")]
    plies: Option<u32>,
    /// m,n,k: play each opening in each symmetry of the board (8 on a square board, 4 on
    /// another), so a file of N openings serves 8N distinct game pairs.
    #[arg(long, conflicts_with = "plies")]
    transform: bool,
    /// Play the openings (a file or the balanced set) in an order drawn from --seed
    /// instead of the file's order (`[openings] order = "shuffle"` in run.toml).
    #[arg(long)]
    shuffle: bool,
    /// Stop when this SPRT decides: ELO0,ELO1[,ALPHA,BETA] (α = β = 0.05 by default).
    #[arg(long, value_name = "ELO0,ELO1", value_parser = parse_sprt, allow_hyphen_values = true)]
    sprt: Option<SprtConfig>,
    /// Set a named parameter of both engines (search.top_k=5); repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Set a named parameter of the first engine; repeatable.
    #[arg(long = "set-a", value_name = "NAME=VALUE")]
    set_a: Vec<String>,
    /// Set a named parameter of the second engine; repeatable.
    #[arg(long = "set-b", value_name = "NAME=VALUE")]
    set_b: Vec<String>,
    /// The game, when neither engine is an engine config that says (tictactoe, gomoku, renju,
    /// ataxx, mnk:W,H,K).
    #[arg(long)]
    game: Option<GameSpec>,
    /// A game still going after this many plies is a draw (0: never).
    #[arg(long, value_name = "N")]
    max_plies: Option<u32>,
    #[command(flatten)]
    adjudication: AdjudicationArgs,
    /// Master seed: every game's seed derives from it. It changes the games only where
    /// something is drawn: random openings (--plies, or games without a balanced set),
    /// the order of --shuffle, the symmetries of --transform, and engines that choose at
    /// random. A node- or depth-limited match on a file of openings in order plays the
    /// same games whatever the seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run name: the results folder is results/<name> (default: match-A-vs-B).
    #[arg(long)]
    name: Option<String>,
    /// Do not write the report at the end.
    #[arg(long)]
    no_report: bool,
}

/// One side of the match as the command line gave it.
enum Side {
    File {
        path: PathBuf,
        /// The engine with every assignment applied (checked here, with errors that
        /// name the flag): a built-in engine, or an outside one its file describes.
        engine: Box<EngineSpec>,
        /// The game the file says it plays.
        game: GameSpec,
        /// The assignments, for the tournament's `set`.
        set: toml::Table,
    },
    External {
        entry: toml::Table,
        name: String,
    },
}

impl Side {
    fn name(&self) -> &str {
        match self {
            Side::File { engine, .. } => engine.name(),
            Side::External { name, .. } => name,
        }
    }
}

pub fn matchup(args: MatchArgs) -> Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let limit = limit_assignments(&args);
    let mut sides = Vec::new();
    for (which, text, own) in [
        ("first", &args.engine_a, &args.set_a),
        ("second", &args.engine_b, &args.set_b),
    ] {
        let flag = if which == "first" {
            "--set-a"
        } else {
            "--set-b"
        };
        sides.push(
            side(&args, &cwd, text, own, flag, &limit)
                .with_context(|| format!("the {which} engine ('{text}')"))?,
        );
    }
    let game = match (args.game, &sides[0], &sides[1]) {
        (Some(g), ..) => g,
        (None, Side::File { game, .. }, _) | (None, _, Side::File { game, .. }) => *game,
        _ => bail!("--game: neither engine is an engine config, so say which game they play"),
    };
    let mut names: Vec<String> = sides.iter().map(|s| s.name().to_string()).collect();
    if names[0] == names[1] {
        let base = names[0].clone();
        names = vec![format!("{base}-a"), format!("{base}-b")];
        eprintln!(
            "arena: both engines are called '{base}': they play as '{}' and '{}'",
            names[0], names[1]
        );
    }
    let run_name = match &args.name {
        Some(n) => n.clone(),
        None => format!("match-{}-vs-{}", names[0], names[1])
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-_.+".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect(),
    };
    let mut tree = toml::Table::new();
    tree.insert("name".into(), run_name.into());
    tree.insert("game".into(), game.to_string().into());
    let rounds = args
        .rounds
        .unwrap_or(if args.sprt.is_some() { 10_000 } else { 50 });
    if rounds == 0 {
        bail!("--rounds: must be at least 1");
    }
    tree.insert("rounds".into(), i64::from(rounds).into());
    tree.insert("seed".into(), toml_u64(args.seed, "--seed")?.into());
    let mut openings = toml::Table::new();
    match &args.openings {
        Some(file) => {
            openings.insert("kind".into(), "file".into());
            openings.insert("file".into(), absolute(&cwd, file).into());
        }
        None if args.plies.is_none() && openings::Shipped::of(&game).is_some() => {
            openings.insert("kind".into(), "balanced".into());
        }
        None => {
            openings.insert("kind".into(), "random".into());
            if let Some(p) = args.plies {
                openings.insert("plies".into(), i64::from(p).into());
            }
        }
    }
    if args.transform {
        openings.insert("transform".into(), true.into());
    }
    if args.shuffle {
        if openings.get("kind").and_then(|k| k.as_str()) == Some("random") {
            bail!(
                "--shuffle: the openings here are random (drawn from --seed already); \
                 it orders a file's openings (--openings FILE) or the balanced set"
            );
        }
        openings.insert("order".into(), "shuffle".into());
    }
    tree.insert("openings".into(), openings.into());
    let mut adjudication = toml::Table::new();
    if let Some(m) = args.max_plies {
        adjudication.insert("max_plies".into(), i64::from(m).into());
    }
    args.adjudication.add_to(&mut adjudication);
    if !adjudication.is_empty() {
        tree.insert("adjudication".into(), adjudication.into());
    }
    if let Some(sprt) = &args.sprt {
        tree.insert(
            "sprt".into(),
            toml::Value::try_from(sprt).context("--sprt")?,
        );
    }
    let mut entries = Vec::new();
    for (side, name) in sides.iter().zip(&names) {
        let mut entry = match side {
            Side::File { path, set, .. } => {
                let mut entry = toml::Table::new();
                entry.insert("file".into(), absolute(&cwd, path).into());
                if !set.is_empty() {
                    entry.insert("set".into(), set.clone().into());
                }
                entry
            }
            Side::External { entry, .. } => entry.clone(),
        };
        entry.insert("name".into(), name.clone().into());
        entries.push(toml::Value::Table(entry));
    }
    tree.insert("engines".into(), entries.into());
    let text = toml::to_string(&tree).context("the match's config")?;
    let t = Tournament::parse("arena match", &cwd.join("arena-match.toml"), &text).map_err(
        |mut e| {
            // The generated text's line numbers mean nothing to the user.
            e.line = None;
            e
        },
    )?;
    play(
        &t,
        Play {
            job: args.job.clone(),
            no_report: args.no_report,
            shard: None,
        },
    )
}

/// The limit flags as parameter assignments for built-in engines (each replaces the
/// engine's own limits: the others are cleared).
fn limit_assignments(args: &MatchArgs) -> Vec<String> {
    let only = |key: &str, value: String| {
        ["depth", "nodes", "movetime_ms", "tc"]
            .iter()
            .map(|k| {
                let v = match (*k == key, *k) {
                    (true, _) => value.clone(),
                    (false, "tc") => "\"\"".to_string(),
                    (false, _) => "0".to_string(),
                };
                format!("search.{k}={v}")
            })
            .collect()
    };
    if let Some(d) = args.depth {
        only("depth", d.to_string())
    } else if let Some(n) = args.nodes {
        only("nodes", n.to_string())
    } else if let Some(ms) = args.movetime {
        only("movetime_ms", ms.to_string())
    } else if let Some(tc) = args.tc {
        only("tc", format!("\"{tc}\""))
    } else {
        Vec::new()
    }
}

fn side(
    args: &MatchArgs,
    cwd: &Path,
    text: &str,
    own: &[String],
    flag: &str,
    limit: &[String],
) -> Result<Side> {
    if let Some(spec) = text.strip_prefix("cmd=") {
        if !own.is_empty() || !args.set.is_empty() {
            bail!(
                "{}: an outside engine has no named parameters; give it options as \
                 option.KEY=VALUE in its cmd=... entry",
                if own.is_empty() { "--set" } else { flag }
            );
        }
        return external(args, cwd, spec);
    }
    let path = PathBuf::from(text);
    let (mut engine, game) = EngineSpec::load(&path)?;
    let mut assignments: Vec<String> = limit.to_vec();
    assignments.extend(args.set.iter().cloned());
    assignments.extend(own.iter().cloned());
    // Each assignment with the flag that gave it, for the error.
    let limit_flag = if args.depth.is_some() {
        "--depth"
    } else if args.nodes.is_some() {
        "--nodes"
    } else if args.movetime.is_some() {
        "--movetime"
    } else {
        "--tc"
    };
    let flags = std::iter::repeat_n(limit_flag, limit.len())
        .chain(std::iter::repeat_n("--set", args.set.len()))
        .chain(std::iter::repeat_n(flag, own.len()));
    let given: Vec<(&str, &str)> = flags.zip(assignments.iter().map(String::as_str)).collect();
    apply_flagged(&given, |a| engine.set_all(a))?;
    // Later assignments win, as they did on the engine.
    let mut set = toml::Table::new();
    for (flag, a) in &given {
        let (key, value) = arena::config::parse_assignment(a).map_err(anyhow::Error::msg)?;
        if let EngineSpec::Builtin(e) = &engine
            && let Some(why) = e.inert_reason(&key)
        {
            eprintln!(
                "arena: warning: {flag} {key}: changes no move of '{}': {why}",
                e.name
            );
        }
        set.insert(key, value);
    }
    Ok(Side::File {
        path,
        game,
        engine: Box::new(engine),
        set,
    })
}

/// `cmd=PATH,proto=..,name=..,arg=..,dir=..,option.KEY=VALUE` (after `cmd=`) as an
/// `[[engines]]` entry with the match's limit.
fn external(args: &MatchArgs, cwd: &Path, spec: &str) -> Result<Side> {
    let mut parts = spec.split(',');
    let command = parts.next().unwrap_or_default().trim();
    if command.is_empty() {
        bail!("cmd= needs a program: cmd=PATH[,proto=..][,name=..]");
    }
    let mut entry = toml::Table::new();
    let command_text = if command.contains('/') {
        absolute(cwd, Path::new(command))
    } else {
        command.to_string()
    };
    entry.insert("command".into(), command_text.into());
    let mut name = Path::new(command)
        .file_stem()
        .map_or_else(|| command.to_string(), |s| s.to_string_lossy().into_owned());
    let mut arg_list = Vec::new();
    let mut options = toml::Table::new();
    for part in parts {
        let (key, value) = part
            .split_once('=')
            .with_context(|| format!("'{part}' is not KEY=VALUE (after cmd=...)"))?;
        let value = value.trim();
        match key.trim() {
            "name" => name = value.to_string(),
            "proto" | "protocol" => {
                let protocol: Protocol = value
                    .parse()
                    .map_err(|e: String| anyhow::anyhow!("proto={value}: {e}"))?;
                entry.insert("protocol".into(), protocol.to_string().into());
            }
            "arg" => arg_list.push(toml::Value::String(value.to_string())),
            "restart" => {
                let on = match value {
                    "on" | "true" => true,
                    "off" | "false" => false,
                    other => bail!("restart={other}: on or off"),
                };
                entry.insert("restart".into(), on.into());
            }
            "dir" => {
                entry.insert("working_dir".into(), absolute(cwd, Path::new(value)).into());
            }
            k if k.starts_with("option.") => {
                let key = &k["option.".len()..];
                let parsed = arena::config::parse_assignment(&format!("v={value}"))
                    .map_or_else(|_| toml::Value::String(value.into()), |(_, v)| v);
                options.insert(key.to_string(), parsed);
            }
            other => bail!(
                "unknown key '{other}' after cmd=... (known: name, proto, arg, dir, \
                 restart, option.KEY)"
            ),
        }
    }
    if !arg_list.is_empty() {
        entry.insert("args".into(), arg_list.into());
    }
    if !options.is_empty() {
        entry.insert("options".into(), options.into());
    }
    if let Some(d) = args.depth {
        entry.insert("depth".into(), i64::from(d).into());
    }
    if let Some(n) = args.nodes {
        entry.insert("nodes".into(), toml_u64(n, "--nodes")?.into());
    }
    if let Some(ms) = args.movetime {
        entry.insert("movetime_ms".into(), toml_u64(ms, "--movetime")?.into());
    }
    if let Some(tc) = args.tc {
        entry.insert("tc".into(), tc.to_string().into());
    }
    Ok(Side::External { entry, name })
}

fn absolute(cwd: &Path, path: &Path) -> String {
    if path.is_absolute() {
        path.display().to_string()
    } else {
        cwd.join(path).display().to_string()
    }
}

/// TOML integers are signed 64-bit.
fn toml_u64(v: u64, flag: &str) -> Result<i64> {
    i64::try_from(v).with_context(|| format!("{flag}: {v} is more than a config can hold"))
}
