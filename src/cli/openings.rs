//! `arena openings`: generate an opening file (random, optionally balanced by an engine).

use std::{
    io::{self, Write},
    path::PathBuf,
};

use anyhow::{Result, bail};
use arena::{
    engine::EngineConfig,
    game::{Game, GameSpec, Mnk},
    tournament::{config::OpeningsConfig, openings},
    with_game,
};
use clap::{Args, ValueEnum};

use super::rules::parse_game;

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
#[command(after_help = "Example: arena openings gomoku --plies 3 --count 100 \
                        --balance configs/engines/gomoku-seed003-threat.toml --margin 2000 \
                        > configs/openings/my-openings.txt")]
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
    /// Keep only openings this engine scores within ±MARGIN (with its own limits).
    #[arg(long, value_name = "ENGINE.toml", requires = "margin")]
    balance: Option<PathBuf>,
    /// See --balance.
    #[arg(long)]
    margin: Option<i32>,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// m,n,k line format.
    #[arg(long, value_enum, default_value = "offsets")]
    format: Format,
}

pub fn openings(args: OpeningsArgs) -> Result<()> {
    let judge = match &args.balance {
        Some(path) => {
            let e = EngineConfig::load(path)?;
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
    let lines = with_game!(args.game, |G, game| openings::generate::<G>(
        &game,
        &o,
        judge.as_ref(),
        args.seed,
        args.count
    ))
    .map_err(anyhow::Error::msg)?;
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "# {} random openings of {} plies for {} (seed {}{})",
        args.count,
        args.plies,
        args.game,
        args.seed,
        match (&judge, args.margin) {
            (Some(j), Some(m)) => format!(", kept when '{}' scores within ±{m}", j.name),
            _ => String::new(),
        }
    )?;
    for line in lines {
        let line = match (args.game, args.format) {
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
        };
        writeln!(out, "{line}")?;
    }
    Ok(())
}
