//! `arena match`: engines from the command line, no config file. It builds the typed
//! tournament config a file would describe (a round robin of every engine, or a gauntlet
//! of the first against the others) and plays it as `arena run` does, into a normal
//! results folder (`run.toml` holds the exact config, so `arena stats`, `arena report`,
//! `arena export` and `--resume` work as for any run).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use arena::{
    engine::{TimeControl, TimeControlError},
    game::GameSpec,
    protocol::{
        EngineSpec, Protocol,
        external::{CMD_KEYS, cmd_key},
    },
    stats::SprtConfig,
    tournament::{
        Tournament, TournamentConfig,
        config::{Adjudication, EngineEntry, Format, OpeningKind, OpeningOrder, OpeningsConfig},
        openings,
    },
};
use clap::Args;

use super::{
    adjudication::AdjudicationArgs,
    elo::parse_sprt,
    engine::{Flagged, apply_parsed},
    long_job::JobArgs,
    tournament::{LiveArgs, Play, play},
};

/// Play engines against each other (colour-swapped game pairs) without a config: two
/// engines, a round robin of more, or a gauntlet.
#[derive(Args, Debug)]
#[command(after_help = "\
Two engines play one match; three or more play a round robin (every pairing, --rounds \
game pairs each), or with --gauntlet the first engine against each of the others. Every \
option applies to every engine; an engine's own KEY=VALUE pairs come last and win.

An ENGINE is an engine config FILE[,KEY=VALUE]..., or an outside program \
cmd=PATH[,KEY=VALUE]... (PATH relative to the current folder when it holds a '/', else \
looked up in PATH). Keys for either:
  depth=D, nodes=N, movetime=MS, tc=SECONDS+INC   this engine's limits, in place of \
--depth/--nodes/--movetime/--tc and its own (time or node odds; several may be given)
  name=NAME                                       its name in the results
For a FILE, any named parameter as --set takes it (search.top_k=5, table.open_three=900; \
option.NAME=V for an outside engine's file). For cmd=: proto=gomocup|uai, arg=ARG \
(repeatable), dir=DIR, restart=on|off, option.NAME=V (sent at start-up). A FILE whose \
name holds a comma is taken whole when it exists. Engines with the same name play as \
NAME-a, NAME-b, ... (by their place on the command line).

Results go to results/<name>/ (default name: match-A-vs-B, match-A-vs-B-vs-C, \
gauntlet-A-vs-B-C) exactly as for 'arena run': games.jsonl, run.toml (the exact config: \
the match can be resumed, rated and exported like any run), summary.json, standings.csv, \
pairings.csv and the report.

Live game files: --pgnout FILE and --sgfout FILE append each game as 'arena export \
--pgn' / '--sgf' writes it, in game order (a game that finishes before one with a lower \
index waits for it, so the file is the same on any number of threads and equals the \
export at the end). Each game is one write: a run killed mid-write leaves at most a \
torn last game, which --resume cuts off before it continues the file, writing no game \
twice. A new run refuses a file that holds games; symbolic links are never followed.

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
  arena match configs/engines/gomoku-seed003-threat.toml configs/engines/gomoku-seed000-threat.toml configs/engines/gomoku-seed001-topk.toml --depth 2 --rounds 10 --pgnout rr.pgn
  arena match configs/engines/gomoku-tuned.toml configs/engines/gomoku-seed003-threat.toml configs/engines/gomoku-seed000-threat.toml --gauntlet --depth 2 --rounds 10
  arena match configs/engines/ataxx-seed004.toml configs/engines/ataxx-seed004.toml,nodes=20000,name=odds --nodes 5000
  arena match configs/engines/ataxx-seed004.toml configs/engines/ataxx-seed004.toml --set-b search.depth=4 --sprt 0,10
  arena match configs/engines/gomoku-seed003-threat.toml cmd=./pbrain-rapfi,name=rapfi --tc 10+0.1")]
pub struct MatchArgs {
    /// The engines, two or more: engine configs (FILE[,KEY=VALUE]...), or
    /// cmd=PATH[,KEY=VALUE]... for outside programs (see below).
    #[arg(value_name = "ENGINE", num_args = 2.., required = true)]
    engines: Vec<String>,
    /// Play the first engine against each of the others only, not every pairing.
    #[arg(long)]
    gauntlet: bool,
    #[command(flatten)]
    job: JobArgs,
    /// Game pairs per pairing (each opening played twice, colours swapped) [default: 50,
    /// or 10000 with --sprt, which stops when it decides].
    #[arg(long, value_name = "N")]
    rounds: Option<u32>,
    /// Depth limit per move, for every engine (replaces their own limits).
    #[arg(long, value_name = "D", group = "limit")]
    depth: Option<u32>,
    /// Node limit per move, for every engine (replaces their own limits).
    #[arg(long, value_name = "N", group = "limit")]
    nodes: Option<u64>,
    /// Time per move in milliseconds, for every engine (replaces their own limits; not
    /// reproducible).
    #[arg(long, value_name = "MS", group = "limit")]
    movetime: Option<u64>,
    /// A game clock SECONDS+INCREMENT (10+0.1), for every engine (replaces their own
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
    /// Stop when this SPRT decides: ELO0,ELO1[,ALPHA,BETA] (α = β = 0.05 by default; two
    /// engines only).
    #[arg(long, value_name = "ELO0,ELO1", value_parser = parse_sprt, allow_hyphen_values = true)]
    sprt: Option<SprtConfig>,
    /// Set a named parameter of every engine (search.top_k=5); repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Set a named parameter of the first engine; repeatable.
    #[arg(long = "set-a", value_name = "NAME=VALUE")]
    set_a: Vec<String>,
    /// Set a named parameter of the second engine; repeatable.
    #[arg(long = "set-b", value_name = "NAME=VALUE")]
    set_b: Vec<String>,
    /// The game, when no engine is an engine config that says (tictactoe, gomoku, renju,
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
    #[command(flatten)]
    live: LiveArgs,
}

/// One engine of the match as the command line gave it.
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
        /// `name=` in its spec.
        name: Option<String>,
    },
    External {
        entry: Box<EngineEntry>,
        name: String,
    },
}

impl Side {
    fn name(&self) -> &str {
        match self {
            Side::File {
                name: Some(name), ..
            } => name,
            Side::File { engine, .. } => engine.name(),
            Side::External { name, .. } => name,
        }
    }
}

/// The limits an engine spec may carry (`depth=`, `nodes=`, `movetime=`, `tc=`), or the
/// match's flags give every engine.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Limits {
    depth: Option<u32>,
    nodes: Option<u64>,
    movetime: Option<u64>,
    tc: Option<TimeControl>,
}

impl Limits {
    fn of_flags(args: &MatchArgs) -> Result<Limits> {
        for (flag, v) in [("--nodes", args.nodes), ("--movetime", args.movetime)] {
            if let Some(v) = v {
                toml_u64(v, flag)?;
            }
        }
        Ok(Limits {
            depth: args.depth,
            nodes: args.nodes,
            movetime: args.movetime,
            tc: args.tc,
        })
    }

    fn is_empty(&self) -> bool {
        *self == Limits::default()
    }

    /// Reads `key=value` if `key` is a limit (Ok(false) if it is not one).
    fn take(&mut self, key: &str, value: &str) -> Result<bool> {
        let number = |what: &str| -> Result<u64> {
            let n: u64 = value
                .parse()
                .map_err(|_| anyhow::anyhow!("{key}={value}: {what} is a whole number"))?;
            // TOML integers (run.toml) are signed 64-bit.
            toml_u64(n, key)?;
            Ok(n)
        };
        match key {
            "depth" => {
                let d = number("the depth")?;
                self.depth =
                    Some(u32::try_from(d).with_context(|| format!("depth={value}: too deep"))?);
            }
            "nodes" => self.nodes = Some(number("a node count")?),
            "movetime" => self.movetime = Some(number("the time per move in ms")?),
            "tc" => {
                self.tc = Some(
                    value
                        .parse()
                        .map_err(|e: TimeControlError| anyhow::anyhow!("tc={value}: {e}"))?,
                )
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// As parameter assignments for an engine file (given by `flag`): these limits
    /// replace the engine's own (the others are cleared).
    fn assignments<'a>(&self, flag: &'a str) -> Vec<Flagged<'a>> {
        if self.is_empty() {
            return Vec::new();
        }
        let number = |name: &str, v: Option<u64>| Flagged::number(flag, name, v.unwrap_or(0));
        let tc = self.tc.map_or_else(String::new, |tc| tc.to_string());
        vec![
            number("search.depth", self.depth.map(u64::from)),
            number("search.nodes", self.nodes),
            number("search.movetime_ms", self.movetime),
            Flagged::string(flag, "search.tc", tc),
        ]
    }

    /// Onto an outside engine's entry, in place of what it had.
    fn apply_to(&self, entry: &mut EngineEntry) {
        if self.is_empty() {
            return;
        }
        entry.depth = self.depth;
        entry.nodes = self.nodes;
        entry.movetime_ms = self.movetime;
        entry.tc = self.tc;
    }
}

/// An engine as written: the file or `cmd=` program, and its `KEY=VALUE` pairs.
struct Spec<'a> {
    head: &'a str,
    pairs: Vec<(&'a str, &'a str)>,
    outside: bool,
}

impl<'a> Spec<'a> {
    fn parse(text: &'a str) -> Result<Spec<'a>> {
        let (outside, body) = match text.strip_prefix("cmd=") {
            Some(body) => (true, body),
            // A file whose name holds a comma is taken whole.
            None if Path::new(text).is_file() => {
                return Ok(Spec {
                    head: text,
                    pairs: Vec::new(),
                    outside: false,
                });
            }
            None => (false, text),
        };
        let mut parts = body.split(',');
        let head = parts.next().unwrap_or_default().trim();
        let mut pairs = Vec::new();
        for part in parts {
            let (key, value) = part.split_once('=').with_context(|| {
                format!(
                    "'{part}' is not KEY=VALUE (after {})",
                    if outside { "cmd=..." } else { "the file" }
                )
            })?;
            pairs.push((key.trim(), value.trim()));
        }
        Ok(Spec {
            head,
            pairs,
            outside,
        })
    }
}

pub fn matchup(args: MatchArgs) -> Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let flags = Limits::of_flags(&args)?;
    let mut sides = Vec::new();
    for (i, text) in args.engines.iter().enumerate() {
        let (own, flag): (&[String], &str) = match i {
            0 => (&args.set_a, "--set-a"),
            1 => (&args.set_b, "--set-b"),
            _ => (&[], ""),
        };
        sides.push(
            side(&args, &cwd, text, own, flag, &flags)
                .with_context(|| format!("the {} engine ('{text}')", ordinal(i)))?,
        );
    }
    let game = match args.game {
        Some(g) => g,
        None => match sides.iter().find_map(|s| match s {
            Side::File { game, .. } => Some(*game),
            Side::External { .. } => None,
        }) {
            Some(g) => g,
            None => bail!("--game: no engine is an engine config, so say which game they play"),
        },
    };
    if let Some(sprt) = &args.sprt
        && sides.len() != 2
    {
        bail!(
            "--sprt {},{}: an SPRT compares two engines; this match has {}",
            sprt.elo0,
            sprt.elo1,
            sides.len()
        );
    }
    let names = distinct_names(&sides);
    let run_name = match &args.name {
        Some(n) => n.clone(),
        None => default_name(&names, args.gauntlet),
    };
    let rounds = args
        .rounds
        .unwrap_or(if args.sprt.is_some() { 10_000 } else { 50 });
    if rounds == 0 {
        bail!("--rounds: must be at least 1");
    }
    let mut openings = OpeningsConfig::default();
    match &args.openings {
        Some(file) => {
            openings.kind = OpeningKind::File;
            openings.file = Some(absolute(&cwd, file));
        }
        None if args.plies.is_none() && openings::Shipped::of(&game).is_some() => {
            openings.kind = OpeningKind::Balanced;
        }
        None => {
            openings.kind = OpeningKind::Random;
            if let Some(p) = args.plies {
                openings.plies = p;
            }
        }
    }
    openings.transform = args.transform;
    if args.shuffle {
        if openings.kind == OpeningKind::Random {
            bail!(
                "--shuffle: the openings here are random (drawn from --seed already); \
                 it orders a file's openings (--openings FILE) or the balanced set"
            );
        }
        openings.order = OpeningOrder::Shuffle;
    }
    let mut adjudication = Adjudication {
        max_plies: args.max_plies.unwrap_or(0),
        ..Adjudication::default()
    };
    args.adjudication.apply(&mut adjudication);
    let engines = sides
        .into_iter()
        .zip(&names)
        .map(|(side, name)| {
            let mut entry = match side {
                Side::File { path, set, .. } => EngineEntry {
                    file: Some(absolute(&cwd, &path)),
                    set,
                    ..EngineEntry::default()
                },
                Side::External { entry, .. } => *entry,
            };
            entry.name = Some(name.clone());
            entry
        })
        .collect();
    let config = TournamentConfig {
        name: run_name,
        game,
        format: if args.gauntlet {
            Format::Gauntlet
        } else {
            Format::RoundRobin
        },
        rounds,
        seed: args.seed,
        concurrency: 0,
        openings,
        adjudication,
        sprt: args.sprt,
        anchor: None,
        anchor_elo: 0.0,
        engines,
        pgnout: None,
        sgfout: None,
    };
    let t = Tournament::from_config("arena match", &cwd.join("arena-match.toml"), config)?;
    play(
        &t,
        Play {
            job: args.job.clone(),
            no_report: args.no_report,
            shard: None,
            live: args.live.files(),
        },
    )
}

/// "first", "second", ... for errors.
fn ordinal(i: usize) -> String {
    const WORDS: [&str; 10] = [
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
        "tenth",
    ];
    WORDS
        .get(i)
        .map_or_else(|| format!("{}th", i + 1), |w| (*w).to_string())
}

/// The engines' names in results: a name given to more than one engine gets the
/// engine's place on the command line as a letter (`-a`, `-b`, ...).
fn distinct_names(sides: &[Side]) -> Vec<String> {
    let names: Vec<&str> = sides.iter().map(Side::name).collect();
    let mut out = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if names.iter().filter(|n| *n == name).count() == 1 {
            out.push(name.to_string());
            continue;
        }
        let suffix = u8::try_from(i)
            .ok()
            .filter(|&i| i < 26)
            .map_or_else(|| (i + 1).to_string(), |i| char::from(b'a' + i).to_string());
        // Within the cap on names: a long base is shortened to make room.
        out.push(arena::engine::config::derived_name(
            name,
            &format!("-{suffix}"),
        ));
    }
    let renamed: Vec<usize> = (0..names.len()).filter(|&i| out[i] != names[i]).collect();
    if let [a, b] = renamed[..]
        && names.len() == 2
    {
        eprintln!(
            "arena: both engines are called '{}': they play as '{}' and '{}'",
            names[a], out[a], out[b]
        );
    } else if !renamed.is_empty() {
        let list: Vec<String> = renamed
            .iter()
            .map(|&i| format!("'{}' as '{}'", names[i], out[i]))
            .collect();
        eprintln!(
            "arena: engines with the same name play under others: {}",
            list.join(", ")
        );
    }
    out
}

/// `match-A-vs-B`, `match-A-vs-B-vs-C` or `gauntlet-A-vs-B-C`, with characters a
/// folder name should not hold made `_` (a long list: `match-A-and-N-more`).
fn default_name(names: &[String], gauntlet: bool) -> String {
    let name = if gauntlet {
        format!("gauntlet-{}-vs-{}", names[0], names[1..].join("-"))
    } else {
        format!("match-{}", names.join("-vs-"))
    };
    let name = if name.len() > 100 {
        let kind = if gauntlet { "gauntlet" } else { "match" };
        format!("{kind}-{}-and-{}-more", names[0], names.len() - 1)
    } else {
        name
    };
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn side(
    args: &MatchArgs,
    cwd: &Path,
    text: &str,
    own: &[String],
    flag: &str,
    flags: &Limits,
) -> Result<Side> {
    let spec = Spec::parse(text)?;
    if spec.outside {
        if !own.is_empty() || !args.set.is_empty() {
            bail!(
                "{}: an outside engine has no named parameters; give it options as \
                 option.KEY=VALUE in its cmd=... entry",
                if own.is_empty() { "--set" } else { flag }
            );
        }
        return external(cwd, &spec, flags);
    }
    let path = PathBuf::from(spec.head);
    let (mut engine, game) = EngineSpec::load(&path)?;
    let mut name = None;
    let mut limits = Limits::default();
    let mut params = Vec::new();
    for &(key, value) in &spec.pairs {
        if key == "name" {
            name = Some(value.to_string());
        } else if !limits.take(key, value)? {
            if !key.contains('.') {
                bail!(
                    "unknown key '{key}' after the file (known: name, depth, nodes, \
                     movetime, tc, and named parameters such as search.top_k)"
                );
            }
            params.push(format!("{key}={value}"));
        }
    }
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
    let mut given = flags.assignments(limit_flag);
    for a in &args.set {
        given.push(Flagged::parse("--set", a)?);
    }
    for a in own {
        given.push(Flagged::parse(flag, a)?);
    }
    given.extend(limits.assignments("its spec"));
    for a in &params {
        given.push(Flagged::parse("its spec", a)?);
    }
    apply_parsed(&given, |a| engine.set_all(a))?;
    // Later assignments win, as they did on the engine.
    let mut set = toml::Table::new();
    for Flagged {
        flag, name, value, ..
    } in given
    {
        if let EngineSpec::Builtin(e) = &engine
            && let Some(why) = e.inert_reason(&name)
        {
            eprintln!(
                "arena: warning: {flag} {name}: changes no move of '{}': {why}",
                e.name
            );
        }
        set.insert(name, value);
    }
    Ok(Side::File {
        path,
        game,
        engine: Box::new(engine),
        set,
        name,
    })
}

/// `cmd=PATH,proto=..,name=..,arg=..,dir=..,restart=..,option.KEY=VALUE` and limits as an
/// `[[engines]]` entry with the match's limit, or its own.
fn external(cwd: &Path, spec: &Spec<'_>, flags: &Limits) -> Result<Side> {
    let command = spec.head;
    if command.is_empty() {
        bail!("cmd= needs a program: cmd=PATH[,proto=..][,name=..]");
    }
    let mut entry = EngineEntry {
        command: Some(if command.contains('/') {
            absolute(cwd, Path::new(command))
        } else {
            command.to_string()
        }),
        ..EngineEntry::default()
    };
    let mut name = Path::new(command)
        .file_stem()
        .map_or_else(|| command.to_string(), |s| s.to_string_lossy().into_owned());
    let mut limits = Limits::default();
    for &(key, value) in &spec.pairs {
        // The outside key each name sets comes from the one declaration of the keys.
        let outside = match key.split_once('.') {
            Some((option, _)) => cmd_key(&format!("{option}.KEY")),
            None if key == "protocol" => Some("protocol"),
            None => cmd_key(key),
        };
        match outside {
            _ if key == "name" => name = value.to_string(),
            Some("protocol") => {
                let protocol: Protocol = value
                    .parse()
                    .map_err(|e: String| anyhow::anyhow!("proto={value}: {e}"))?;
                entry.protocol = Some(protocol);
            }
            Some("args") => entry.args.push(value.to_string()),
            Some("restart") => {
                entry.restart = Some(match value {
                    "on" | "true" => true,
                    "off" | "false" => false,
                    other => bail!("restart={other}: on or off"),
                });
            }
            Some("working_dir") => entry.working_dir = Some(absolute(cwd, Path::new(value))),
            Some("options") => {
                let key = &key["option.".len()..];
                let parsed = arena::config::parse_assignment(&format!("v={value}"))
                    .map_or_else(|_| toml::Value::String(value.into()), |(_, v)| v);
                entry.options.insert(key.to_string(), parsed);
            }
            Some(_) if limits.take(key, value)? => {}
            _ => bail!(
                "unknown key '{key}' after cmd=... (known: name, {})",
                CMD_KEYS.join(", ")
            ),
        }
    }
    flags.apply_to(&mut entry);
    limits.apply_to(&mut entry);
    Ok(Side::External {
        entry: Box::new(entry),
        name,
    })
}

/// `path` from `cwd`, without its `.` components (`./engine` is `/cwd/engine`, not
/// `/cwd/./engine`: the recorded command names the engine, and two runs of the same
/// program must name it alike). `..` stays: through a symbolic link it is not the folder
/// above.
fn absolute(cwd: &Path, path: &Path) -> String {
    cwd.join(path)
        .components()
        .collect::<std::path::PathBuf>()
        .display()
        .to_string()
}

/// TOML integers are signed 64-bit.
fn toml_u64(v: u64, flag: &str) -> Result<i64> {
    i64::try_from(v).with_context(|| format!("{flag}: {v} is more than a config can hold"))
}
