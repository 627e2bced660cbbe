//! Engines: a [`Player`] is anything that returns a move for a position. This module
//! holds the built-in engine made from an engine config (TOML: name, game, weight table,
//! search settings) and the named parameters that let tournaments override and tuners
//! set any number in it (`search.depth`, `table.open_three`).
//!
//! It knows games, evaluation and search; it knows nothing of tournaments.

pub mod bench;
pub mod builtin;
pub mod clock;
pub mod config;
pub mod registry;

use std::{
    sync::{Arc, atomic::AtomicBool},
    time::Duration,
};

pub use self::{
    clock::{TimeControl, TimeControlError},
    config::{EngineConfig, EngineError, NameError, OrderingKind, SearchConfig, SetError},
};
use crate::{
    eval::{AtaxxTable, Evaluator, MnkTable, Table, ataxx::AtaxxEval, mnk::MnkEval},
    game::{Ataxx, Game, Mnk},
    search::{Iteration, Limits, SearchResult, Searcher, time::clock_limits},
};

/// A clock for games played with a time control (per side, the remaining time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left for [first, second] player.
    pub remaining: [Duration; 2],
    /// Added after each move.
    pub increment: Duration,
}

/// What a player is asked to move in: the game from its start, and the clock.
#[derive(Clone, Copy, Debug)]
pub struct Turn<'a, G: Game> {
    /// The position the game started from (after the opening, or before it).
    pub start: &'a G,
    /// Moves played from `start`.
    pub moves: &'a [G::Move],
    /// The current position (`start` with `moves` played).
    pub position: &'a G,
    /// The clock, for games with a time control.
    pub clock: Option<Clock>,
}

/// A move and what the player said about it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReport<M> {
    /// The move.
    pub mv: M,
    /// Depth reached (0 if unknown).
    pub depth: u32,
    /// Nodes searched for this move (0 if unknown).
    pub nodes: u64,
    /// Time used.
    pub time: Duration,
    /// Score for the mover, if reported.
    pub score: Option<i32>,
    /// Principal variation, if reported.
    pub pv: Vec<M>,
    /// Nodes when each iteration completed (cumulative), if reported.
    pub iterations: Vec<u64>,
}

/// Why a player failed to produce a move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayerError {
    /// The player has no move although the game goes on.
    #[error("no move returned")]
    NoMove,
    /// The player answered with text that names a move (`20,20`, `bestmove a7`) which is
    /// not on this board or not legal here. The text is kept for the record.
    #[error("illegal move '{0}'")]
    Illegal(String),
    /// Anything else (outside engines: crash, hang, garbage).
    #[error("{0}")]
    Failed(String),
}

/// Something that returns a move for a position.
pub trait Player<G: Game>: Send {
    /// The name shown in results.
    fn name(&self) -> &str;

    /// A new game starts; `seed` drives any randomness of the player.
    fn new_game(&mut self, seed: u64) -> Result<(), PlayerError>;

    /// A new game starts from `start` (the position after the opening): what the
    /// harness calls. By default [`Player::new_game`]; an outside engine also decides
    /// here whether its process starts afresh (its `restart` setting).
    fn new_game_at(&mut self, seed: u64, start: &G) -> Result<(), PlayerError> {
        let _ = start;
        self.new_game(seed)
    }

    /// The player's move in `turn.position` (an unfinished game).
    fn play(&mut self, turn: &Turn<'_, G>) -> Result<MoveReport<G::Move>, PlayerError>;

    /// A flag that, once raised, asks the player to return as soon as it can (the move
    /// is then discarded). Players that cannot be interrupted ignore it.
    fn set_abort_flag(&mut self, _flag: Arc<AtomicBool>) {}
}

/// Games the built-in engine can play: how to build an evaluator for them.
pub trait EngineGame: Game {
    /// The evaluator type.
    type Eval: Evaluator<Self> + Clone;

    /// The evaluator for `config`'s variant with an optional table (none: search alone).
    fn evaluator(
        config: &Self::Config,
        table: Option<&Table>,
        search: &SearchConfig,
    ) -> Result<Self::Eval, TableMismatch>;
}

/// A table of one family of games given to an engine of another.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the table is for {table}, not for {game}")]
pub struct TableMismatch {
    /// The table's family (`mnk`, `ataxx`).
    pub table: &'static str,
    /// The games the engine plays, as messages name them (`m,n,k-games`, `ataxx`).
    pub game: &'static str,
}

/// For callers that still report errors as text.
impl From<TableMismatch> for String {
    fn from(e: TableMismatch) -> String {
        e.to_string()
    }
}

impl EngineGame for Mnk {
    type Eval = MnkEval;

    fn evaluator(
        config: &Self::Config,
        table: Option<&Table>,
        search: &SearchConfig,
    ) -> Result<MnkEval, TableMismatch> {
        let table = match table {
            None => MnkTable::zero(),
            Some(Table::Mnk(t)) => t.clone(),
            Some(other) => {
                return Err(TableMismatch {
                    table: other.family(),
                    game: "m,n,k-games",
                });
            }
        };
        let mut eval = MnkEval::with_shape(config, &table, search.radius as usize, search.shape);
        // Threat sets cost time at every move: keep them only for what reads them.
        eval.set_tracking(search.forced || search.vcf || search.vct);
        Ok(eval)
    }
}

impl EngineGame for Ataxx {
    type Eval = AtaxxEval;

    fn evaluator(
        _config: &(),
        table: Option<&Table>,
        _search: &SearchConfig,
    ) -> Result<AtaxxEval, TableMismatch> {
        match table {
            None => Ok(AtaxxEval::new(&AtaxxTable::material_only())),
            Some(Table::Ataxx(t)) => Ok(AtaxxEval::new(t)),
            Some(other) => Err(TableMismatch {
                table: other.family(),
                game: "ataxx",
            }),
        }
    }
}

/// The built-in engine: a searcher made from an [`EngineConfig`].
pub struct Engine<G: EngineGame> {
    name: String,
    searcher: Searcher<G, G::Eval>,
    limits: Limits,
}

impl<G: EngineGame> Engine<G> {
    /// Builds the engine for the variant `game` (which must be the config's game).
    pub fn new(config: &EngineConfig, game: &G::Config) -> Result<Engine<G>, String> {
        let eval = G::evaluator(game, config.table.as_ref(), &config.search)?;
        let settings = config.search.settings();
        Ok(Engine {
            name: config.name.clone(),
            searcher: Searcher::try_new(eval, settings, config.search.tt_mb as usize)?,
            limits: config.search.limits(),
        })
    }

    /// The limits each move is searched with.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Searches `pos` with explicit limits, reporting each iteration.
    pub fn search(
        &mut self,
        pos: &G,
        limits: Limits,
        on_iteration: impl FnMut(&Iteration<G::Move>),
    ) -> SearchResult<G::Move> {
        self.searcher.search(pos, limits, on_iteration)
    }

    /// The searcher (for tests and benchmarks).
    pub fn searcher(&mut self) -> &mut Searcher<G, G::Eval> {
        &mut self.searcher
    }
}

impl<G: EngineGame> Player<G> for Engine<G> {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, seed: u64) -> Result<(), PlayerError> {
        self.searcher.new_game(seed);
        Ok(())
    }

    fn set_abort_flag(&mut self, flag: Arc<AtomicBool>) {
        self.searcher.set_abort_flag(flag);
    }

    fn play(&mut self, turn: &Turn<'_, G>) -> Result<MoveReport<G::Move>, PlayerError> {
        let limits = match turn.clock {
            // The built-in engine plays by its own limits; with a clock its time manager
            // also keeps to soft and hard limits drawn from the remaining time.
            Some(clock) => {
                let left = clock.remaining[turn.position.side_to_move().index()];
                let (soft, hard) = clock_limits(left, clock.increment, None);
                let min = |a: Option<Duration>, b: Duration| Some(a.map_or(b, |a| a.min(b)));
                Limits {
                    movetime: min(self.limits.movetime, hard),
                    soft_time: min(self.limits.soft_time, soft),
                    ..self.limits
                }
            }
            None => self.limits,
        };
        let result = self.searcher.search(turn.position, limits, |_| {});
        let mv = result.best.ok_or(PlayerError::NoMove)?;
        Ok(MoveReport {
            mv,
            depth: result.depth,
            nodes: result.nodes,
            time: result.time,
            score: Some(result.score),
            iterations: result.iterations.iter().map(|i| i.nodes).collect(),
            pv: result.pv,
        })
    }
}

#[cfg(test)]
mod renju_tests {
    use super::*;
    use crate::game::{MnkConfig, MnkMove};

    /// Black f2 f3 f4 (f1 white) and c5 d5 e5 (b5 white): f5 makes two fours, the one
    /// winning move under freestyle and a forbidden double four under renju.
    const DOUBLE_FOUR: &str = "f2f1f3b5f4a15c5c15d5n15e5o12";

    fn best(engine: &str, config: MnkConfig) -> (Mnk, MnkMove) {
        let pos = Mnk::from_text(&config, DOUBLE_FOUR).unwrap();
        let mut e: Engine<Mnk> = Engine::new(&builtin::engine(engine).unwrap(), &config).unwrap();
        let limits = Limits {
            depth: Some(4),
            ..Limits::default()
        };
        let r = e.search(&pos, limits, |_| {});
        (pos, r.best.expect("a move"))
    }

    #[test]
    fn built_in_engines_never_choose_a_forbidden_move() {
        for engine in [
            "gomoku-modern",
            "gomoku-seed000-threat",
            "gomoku-seed003-threat",
            "gomoku-seed001-topk",
        ] {
            let (pos, free) = best(engine, MnkConfig::gomoku());
            assert_eq!(pos.format_move(free), "f5", "{engine} under freestyle");
            let (pos, mv) = best(engine, MnkConfig::renju());
            assert_ne!(pos.format_move(mv), "f5", "{engine} under renju");
            assert_eq!(pos.forbidden(mv), None, "{engine}: {}", pos.format_move(mv));
        }
    }
}
