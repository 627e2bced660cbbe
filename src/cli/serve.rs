//! `arena serve`: one built-in engine on standard input and output, speaking Gomocup or
//! UAI, so other managers (Piskvork, c-gomoku-cli, cuteataxx) and arena itself can run it.

use std::{
    fs::OpenOptions,
    io::{self, BufReader, Write},
    path::PathBuf,
};

use anyhow::{Context, Result, bail};
use arena::protocol::{
    Protocol,
    serve::{ServeError, gomocup, uai},
};
use clap::Args;

use arena::engine::EngineConfig;

use super::engine::apply_flagged;

/// Play an engine over a protocol on standard input/output (for other managers).
#[derive(Args, Debug)]
#[command(
    after_help = "Gomocup (m,n,k engines): START n, RECTSTART w,h, BEGIN, TURN x,y, \
                        BOARD..DONE, INFO (timeout_turn, timeout_match, time_left, \
                        max_memory, rule, max_node, max_depth), TAKEBACK, RESTART, ABOUT, \
                        END.\n\
                        UAI (Ataxx engines): uai, isready, uainewgame, setoption (Hash and \
                        every numeric parameter: search.depth, table.*), position \
                        startpos|fen .. moves .., go (depth, nodes, movetime, wtime/btime/\
                        winc/binc, movestogo, infinite), stop, quit.\n\
                        Commands sent during a search wait for it, in order (stop, quit, END, \
                        YXSTOP and isready act at once); the end of input stops a search and \
                        ends serve (the manager is gone). The engine config's limits apply \
                        when the manager gives none; an engine without limits of its own \
                        (--set search.depth=0) takes them from the manager alone: UAI's go \
                        without limits searches until stop, and Gomocup without INFO \
                        timeout_turn, max_depth or max_node plays 30 s a move.\n\
                        Example, for Piskvork: a pbrain-arena script that runs \
                        'arena serve configs/engines/gomoku-seed003-threat.toml'"
)]
pub struct ServeArgs {
    /// The engine config (TOML).
    engine: PathBuf,
    /// gomocup or uai (default: gomocup for m,n,k engines, uai for Ataxx).
    #[arg(long, value_parser = parse_protocol)]
    protocol: Option<Protocol>,
    /// Set a named parameter first, e.g. --set search.depth=6
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Append every line received and sent (with times) to this file.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Print the engine's parameters as UAI option lines and exit: each name, value and
    /// the range sensible to tune it in (what `uai` lists; a Gomocup manager cannot ask,
    /// so this is where a tune's [[params]] finds them). Any valid value is taken.
    #[arg(long)]
    list_options: bool,
}

fn parse_protocol(s: &str) -> Result<Protocol, String> {
    s.parse()
}

pub fn serve(args: ServeArgs) -> Result<()> {
    // The manager gives the limits (`go depth`, `INFO max_depth`, the clocks): the
    // engine may have none of its own (`--set search.depth=0`).
    let mut engine = EngineConfig::load(&args.engine)?;
    let given: Vec<(&str, &str)> = args.set.iter().map(|a| ("--set", a.as_str())).collect();
    apply_flagged(&given, |a| engine.set_all_served(a))?;
    let protocol = args
        .protocol
        .unwrap_or_else(|| Protocol::for_family(engine.game.family()));
    if protocol.family() != engine.game.family() {
        bail!(
            "--protocol {protocol}: engine '{}' plays {}, and {protocol} serves {} engines",
            engine.name,
            engine.game,
            if protocol == Protocol::Gomocup {
                "m,n,k"
            } else {
                "ataxx"
            }
        );
    }
    if args.list_options {
        let mut out = io::stdout().lock();
        for line in arena::protocol::serve::option_lines(&engine) {
            writeln!(out, "{line}")?;
        }
        return Ok(());
    }
    let log: Option<Box<dyn Write + Send>> = match &args.log {
        Some(path) => Some(Box::new(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("--log {}", path.display()))?,
        )),
        None => None,
    };
    let input = BufReader::new(io::stdin());
    let output = io::stdout();
    let result = match protocol {
        Protocol::Gomocup => gomocup::serve(&engine, input, output, log),
        Protocol::Uai => uai::serve(&engine, input, output, log),
    };
    match result {
        Ok(()) => Ok(()),
        // The manager went away: nothing left to answer.
        Err(ServeError::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e.into()),
    }
}
