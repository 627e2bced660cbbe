//! Argument parsing (clap) and dispatch to the library. Commands print; the library
//! returns values and errors.

mod engine;
mod elo;
mod rules;

use std::{io, process::ExitCode};

use clap::{Parser, Subcommand};

/// Exit code for bad input: an unknown game, a bad FEN, an illegal move, a bad config.
const EXIT_BAD_INPUT: u8 = 2;

#[derive(Parser)]
#[command(
    name = "arena",
    version,
    about = "Seeded engine-vs-engine tournaments, ratings, tuning and reports for gomoku \
             (any m,n,k-game) and Ataxx",
    long_about = None,
    after_help = "Games: tictactoe, gomoku (15x15, five or more wins), gomoku-exact (exactly \
                  five), ataxx, or mnk:WIDTH,HEIGHT,K[,exact].\n\
                  Run 'arena help <command>' for the options of a command."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Perft(rules::PerftArgs),
    Show(rules::ShowArgs),
    #[command(alias = "analyze")]
    Analyse(engine::AnalyseArgs),
    Bench(engine::BenchArgs),
    Elo(elo::EloArgs),
}

/// Runs the command line and maps errors to a message and an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => rules::perft(args),
        Command::Show(args) => rules::show(args),
        Command::Analyse(args) => engine::analyse(args),
        Command::Bench(args) => engine::bench(args),
        Command::Elo(args) => elo::elo(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("arena: error: {e:#}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

/// A closed pipe (`arena ... | head`) is not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}
