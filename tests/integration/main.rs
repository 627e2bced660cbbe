//! Integration tests: one test binary (links once), one module per area.

mod cli_elo;
mod cli_rules;
mod game_props;
mod perft;
mod support;
