//! The `arena` command line: parse, dispatch, report errors. No logic of its own.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
