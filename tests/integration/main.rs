//! Integration tests: one test binary (links once), one module per area.

mod cli_elo;
mod cli_rules;
mod engines;
mod eval_props;
mod game_props;
mod perft;
mod search_props;
mod support;
mod tournament;
mod tune;
