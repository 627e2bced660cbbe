//! Integration tests: one test binary (links once), one module per area.

mod browser;
mod cli_elo;
mod cli_rules;
mod common;
mod daily;
mod engines;
mod engines_faults;
mod eval_props;
mod export;
mod fit;
mod game_props;
mod hardening;
mod jobs;
mod messages;
mod perft;
mod protocol;
mod records;
mod renju;
mod report;
mod search_props;
mod shards;
mod threats;
mod tournament;
mod tune;
mod tune_workers;
