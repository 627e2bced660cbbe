//! Argument parsing (clap) and dispatch to the library. Commands print; the library
//! returns values and errors.

mod adjudication;
mod datagen;
mod elo;
mod engine;
mod fit;
mod long_job;
mod matchup;
mod merge;
mod openings;
mod pool;
mod ratings;
mod report;
mod rules;
mod serve;
mod signals;
mod sweep;
mod tables;
mod tournament;
mod tune;

use std::{io, process::ExitCode};

use clap::{Parser, Subcommand};

/// Exit code for bad input: an unknown game, a bad FEN, an illegal move, a bad config.
const EXIT_BAD_INPUT: u8 = 2;
/// Exit code when the machine failed us (a disk error while writing results).
const EXIT_FAILURE: u8 = 1;
/// Exit code after Ctrl-C (everything finished is written; `--resume` continues).
const EXIT_INTERRUPTED: u8 = 130;

/// A run stopped on request: not an error message, exit code 130.
#[derive(Debug)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

#[derive(Parser)]
#[command(
    name = "arena",
    version,
    about = "Seeded engine-vs-engine tournaments, ratings, tuning and reports for gomoku \
             (any m,n,k-game) and Ataxx",
    long_about = None,
    after_help = "Games: tictactoe, gomoku (15x15, five or more wins), gomoku-exact (exactly \
                  five), renju (15x15, black's double three, double four and overline lose), ataxx, \
                  or mnk:WIDTH,HEIGHT,K[,exact|,renju].\n\
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
    Run(tournament::RunArgs),
    Sweep(sweep::SweepArgs),
    Match(Box<matchup::MatchArgs>),
    Stats(pool::StatsArgs),
    Export(tournament::ExportArgs),
    Merge(merge::MergeArgs),
    Openings(openings::OpeningsArgs),
    Serve(serve::ServeArgs),
    Report(report::ReportArgs),
    Tune(tune::TuneArgs),
    Fit(fit::FitArgs),
    Datagen(Box<datagen::DatagenArgs>),
}

/// Runs the command line and maps errors to a message and an exit code.
pub fn main() -> ExitCode {
    arena::invocation::set_program(program());
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if let Some(hint) = single_dash_hint(&e) {
                eprintln!("arena: error: {hint}");
                return ExitCode::from(EXIT_BAD_INPUT);
            }
            e.exit()
        }
    };
    let result = match cli.command {
        Command::Perft(args) => rules::perft(args),
        Command::Show(args) => rules::show(args),
        Command::Analyse(args) => engine::analyse(args),
        Command::Bench(args) => engine::bench(args),
        Command::Elo(args) => elo::elo(args),
        Command::Run(args) => tournament::run(args),
        Command::Sweep(args) => sweep::sweep(args),
        Command::Match(args) => matchup::matchup(*args),
        Command::Stats(args) => pool::stats(args),
        Command::Export(args) => tournament::export(args),
        Command::Merge(args) => merge::merge(args),
        Command::Openings(args) => openings::openings(args),
        Command::Serve(args) => serve::serve(args),
        Command::Report(args) => report::report(args),
        Command::Tune(args) => tune::tune(args),
        Command::Fit(args) => fit::fit(args),
        Command::Datagen(args) => datagen::datagen(*args),
    };
    // What engines left behind (where arena is their subreaper) goes with arena.
    arena::protocol::client::process::kill_leftovers();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) if e.is::<Interrupted>() => ExitCode::from(EXIT_INTERRUPTED),
        Err(e) => {
            eprintln!("arena: error: {}", message(&e));
            let io_failure = e.chain().any(|c| {
                matches!(
                    c.downcast_ref::<arena::tournament::RunError>(),
                    Some(arena::tournament::RunError::Io { .. })
                ) || matches!(
                    c.downcast_ref::<arena::report::ReportError>(),
                    Some(
                        arena::report::ReportError::Io { .. }
                            | arena::report::ReportError::Plot { .. }
                    )
                )
            });
            ExitCode::from(if io_failure {
                EXIT_FAILURE
            } else {
                EXIT_BAD_INPUT
            })
        }
    }
}

/// cutechess-cli, fastchess and c-gomoku-cli spell options with one dash
/// (`-concurrency 2`, `-rounds 10`); clap's answer to that (`to pass '-c' as a value,
/// use '-- -c'`) misleads. When parsing failed on such a word, say what arena calls it.
fn single_dash_hint(e: &clap::Error) -> Option<String> {
    use clap::error::ErrorKind;
    if !matches!(
        e.kind(),
        ErrorKind::UnknownArgument | ErrorKind::InvalidValue | ErrorKind::ArgumentConflict
    ) {
        return None;
    }
    std::env::args().skip(1).find_map(|arg| {
        let word = arg.strip_prefix('-').filter(|w| !w.starts_with('-'))?;
        let name = word.split('=').next().unwrap_or(word);
        if name.len() < 2 || !name.chars().all(|c| c.is_ascii_alphabetic() || c == '-') {
            return None;
        }
        // The other tools' names where arena's differ.
        let ours = match name {
            "games" => "--rounds (game pairs: each opening is played twice, colours swapped)",
            "each" => "--tc, --movetime, --depth or --nodes (for every engine)",
            "engine" => {
                "engine configs or cmd=PATH,... as the arguments of arena match (any number)"
            }
            "pgnout" => "--pgnout FILE",
            "sgfout" => "--sgfout FILE",
            "tournament" => {
                "--gauntlet (arena match plays a round robin of its engines by default)"
            }
            "openings" | "book" => "--openings FILE",
            "repeat" => "nothing: every opening is always played twice, colours swapped",
            "recover" => "nothing: a crashed engine is restarted for the next game anyway",
            "srand" | "seed" => "--seed",
            "concurrency" => "--concurrency (or --jobs)",
            _ => "",
        };
        Some(if ours.is_empty() {
            format!("`{arg}`: arena's options take two dashes: --{name}")
        } else {
            format!("`{arg}`: arena's options take two dashes; here that is {ours}")
        })
    })
}

/// An error and its causes on one line, each cause once: a cause whose text the
/// message already holds (an I/O error that its wrapper quotes) is not repeated.
fn message(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// How the user started arena, as a command prefix to paste: `cargo run --release --`
/// under `cargo run` (cargo replaces itself with arena and leaves `CARGO`,
/// `CARGO_MANIFEST_DIR` and `CARGO_PKG_NAME` = arena in the environment; the profile is
/// the folder the binary is in), else the program as typed (`arena`,
/// `./target/release/arena`).
fn program() -> String {
    let typed = std::env::args_os()
        .next()
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| "arena".into());
    // CARGO_PKG_NAME: not some other package's `cargo run` that starts arena.
    let under_cargo = std::env::var_os("CARGO").is_some()
        && std::env::var_os("CARGO_MANIFEST_DIR").is_some()
        && std::env::var("CARGO_PKG_NAME").is_ok_and(|n| n == env!("CARGO_PKG_NAME"));
    if under_cargo {
        let profile = std::env::current_exe().ok().and_then(|exe| {
            exe.parent()
                .and_then(|d| d.file_name())
                .map(|d| d.to_string_lossy().into_owned())
        });
        return match profile.as_deref() {
            Some("release") => "cargo run --release --".into(),
            Some("debug") | None => "cargo run --".into(),
            Some(other) => format!(
                "cargo run --profile {} --",
                arena::invocation::shell_word(other)
            ),
        };
    }
    arena::invocation::shell_word(&typed)
}

/// The command the user typed (program and every argument), with `flag` added unless
/// it is there already: the exact command to continue a run (`... --resume`), keeping
/// every override (`--rounds`, `--pairs`, `--verify-pairs`, `--out`, ...) that must be
/// given again.
pub(crate) fn again_with(flag: &str) -> String {
    let mut words = vec![arena::invocation::program().to_string()];
    let mut has_flag = false;
    for arg in std::env::args_os().skip(1) {
        let arg = arg.to_string_lossy();
        has_flag |= arg == flag;
        words.push(arena::invocation::shell_word(&arg));
    }
    if !has_flag {
        words.push(flag.to_string());
    }
    words.join(" ")
}

/// A closed pipe (`arena ... | head`) is not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}
