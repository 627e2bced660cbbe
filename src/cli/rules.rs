//! `arena perft` and `arena show`: the rules layer from the command line.

use std::{
    io::{self, Write},
    time::Instant,
};

use anyhow::{Context, Result, bail};
use arena::{
    game::{Game, GameSpec, perft_divide},
    report::rate,
    with_game,
};
use clap::Args;

/// Where a position comes from: the start, a FEN / board, and moves played from there.
#[derive(Args, Debug, Clone, Default)]
pub struct PositionArgs {
    /// Start from this position: an Ataxx FEN (`x5o/7/7/7/7/7/o5x x 0 1`) or an m,n,k
    /// board (rows from the top separated by '/', `x` `o` `.` or a count of empty cells).
    #[arg(long, value_name = "FEN", allow_hyphen_values = true)]
    pub fen: Option<String>,
    /// Then play these moves: `h8g7f6` or `7,7 6,6` (m,n,k), `f2 a1a3` (Ataxx: a single
    /// and a jump; `0000` passes, for a side without a move).
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: Option<String>,
}

impl PositionArgs {
    /// Builds the position, naming the bad part of the input on error.
    pub fn position<G: Game>(&self, config: &G::Config) -> Result<G> {
        let mut pos = match &self.fen {
            Some(fen) => {
                // An m,n,k position text without '/' is a move list; --fen means a board.
                let any: &dyn std::any::Any = config;
                if let Some(mnk) = any.downcast_ref::<arena::game::MnkConfig>()
                    && !fen.contains('/')
                {
                    bail!(
                        "--fen: '{fen}' is not an m,n,k board: write its {} rows from the top \
                         separated by '/' (x, o, '.' or a count of empty cells, like \
                         {}/{}/...); moves from the start go in --moves",
                        mnk.height(),
                        mnk.width(),
                        mnk.width()
                    );
                }
                G::from_text(config, fen).context("--fen")?
            }
            None => G::new(config),
        };
        if let Some(moves) = &self.moves {
            pos.play_move_list(moves).context("--moves")?;
        }
        Ok(pos)
    }
}

/// Count the leaves of the legal move tree (checks move generation; measures speed).
#[derive(Args, Debug)]
#[command(after_help = "Example: arena perft ataxx 6   (prints 141865520)")]
pub struct PerftArgs {
    /// The game: tictactoe, gomoku, gomoku-exact, renju, ataxx, mnk:W,H,K[,exact|,renju].
    #[arg(value_parser = parse_game)]
    game: GameSpec,
    /// Depth in plies (a pass is a ply).
    depth: u32,
    #[command(flatten)]
    position: PositionArgs,
    /// Print the count below each root move.
    #[arg(long)]
    divide: bool,
}

/// Print a position as a board diagram.
#[derive(Args, Debug)]
#[command(after_help = "Example: arena show gomoku --moves h8i9h9")]
pub struct ShowArgs {
    /// The game: tictactoe, gomoku, gomoku-exact, renju, ataxx, mnk:W,H,K[,exact|,renju].
    #[arg(value_parser = parse_game)]
    game: GameSpec,
    #[command(flatten)]
    position: PositionArgs,
}

/// clap value parser for game names.
pub fn parse_game(s: &str) -> Result<GameSpec, arena::game::GameSpecError> {
    s.parse()
}

/// Deepest perft we accept: far beyond what finishes in a lifetime on any board.
const MAX_PERFT_DEPTH: u32 = 64;

pub fn perft(args: PerftArgs) -> Result<()> {
    with_game!(args.game, |G, cfg| perft_game::<G>(&args, &cfg))
}

fn perft_game<G: Game>(args: &PerftArgs, config: &G::Config) -> Result<()> {
    let mut pos: G = args.position.position(config)?;
    let depth = args.depth;
    if depth > MAX_PERFT_DEPTH {
        bail!("depth {depth} is too large: the limit is {MAX_PERFT_DEPTH}");
    }
    if let Some(max) = max_depth(&pos)
        && depth > max
    {
        bail!("depth {depth} is too large for this board: only {max} empty cells are left");
    }
    let mut out = io::stdout().lock();
    let start = Instant::now();
    let total = if args.divide {
        let mut total = 0;
        for (mv, n) in perft_divide(&mut pos, depth) {
            writeln!(out, "{} {n}", pos.format_move(mv))?;
            total += n;
        }
        writeln!(out)?;
        total
    } else {
        pos.perft(depth)
    };
    let secs = start.elapsed().as_secs_f64();
    writeln!(out, "{total}")?;
    writeln!(
        out,
        "perft({depth}) of {} in {:.3} s: {}",
        describe(&pos),
        secs,
        rate(total as f64 / secs.max(1e-9), "leaves/s")
    )?;
    Ok(())
}

/// For m,n,k-games a perft deeper than the number of empty cells is a mistake.
fn max_depth<G: Game>(pos: &G) -> Option<u32> {
    let any: &dyn std::any::Any = pos;
    any.downcast_ref::<arena::game::Mnk>()
        .map(|m| (m.mnk().cells() - m.stones()) as u32)
}

fn describe<G: Game>(pos: &G) -> String {
    let text = pos.to_text();
    if text.is_empty() {
        "the empty board".to_string()
    } else {
        format!("'{text}'")
    }
}

pub fn show(args: ShowArgs) -> Result<()> {
    with_game!(args.game, |G, cfg| show_game::<G>(&args, &cfg))
}

fn show_game<G: Game>(args: &ShowArgs, config: &G::Config) -> Result<()> {
    let pos: G = args.position.position(config)?;
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let mut out = io::stdout().lock();
    write!(out, "{}", pos.diagram())?;
    writeln!(out, "{} legal moves; hash {:016x}", moves.len(), pos.hash())?;
    Ok(())
}
