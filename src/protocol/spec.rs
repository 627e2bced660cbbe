//! One engine of a match: the built-in engine made from a config, or an outside program
//! over a protocol; and how to build its [`Player`].

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use super::{ExternalGame, client::process::Log, external::ExternalEngine};
use crate::{
    config::{self, ConfigError},
    engine::{Engine, EngineConfig, Player, SetError, TimeControl},
    game::GameSpec,
};

/// A built-in or an external engine.
// A tournament holds a handful of these, built once: their size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum EngineSpec {
    /// The built-in engine made from a config.
    Builtin(EngineConfig),
    /// An outside program.
    External(ExternalEngine),
}

/// Where the player of one engine (in one worker) keeps what it needs outside memory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerContext {
    /// The log file of an external engine (none: no log).
    pub log: Option<PathBuf>,
}

impl From<EngineConfig> for EngineSpec {
    fn from(config: EngineConfig) -> EngineSpec {
        EngineSpec::Builtin(config)
    }
}

impl From<ExternalEngine> for EngineSpec {
    fn from(engine: ExternalEngine) -> EngineSpec {
        EngineSpec::External(engine)
    }
}

impl EngineSpec {
    /// Reads an engine file: a built-in engine's config, or an outside program's (a
    /// file with `command`, see [`super::external`]). Returns the engine and the game the
    /// file says it plays. Errors name the file and line.
    pub fn load(path: &Path) -> Result<(EngineSpec, GameSpec), ConfigError> {
        let text = config::read(path)?;
        let is_outside =
            toml::from_str::<toml::Table>(&text).is_ok_and(|t| t.contains_key("command"));
        if is_outside {
            let (engine, game) = super::external::load_file(path, &text)?;
            return Ok((EngineSpec::External(engine), game));
        }
        let engine = EngineConfig::load(path)?;
        let game = engine.game;
        Ok((EngineSpec::Builtin(engine), game))
    }

    /// Gives the engine another name in results.
    pub fn rename(&mut self, name: &str) {
        match self {
            EngineSpec::Builtin(c) => c.name = name.to_string(),
            EngineSpec::External(e) => e.name = name.to_string(),
        }
    }

    /// The name in results.
    pub fn name(&self) -> &str {
        match self {
            EngineSpec::Builtin(c) => &c.name,
            EngineSpec::External(e) => &e.name,
        }
    }

    /// A short description for reports.
    pub fn summary(&self) -> String {
        match self {
            EngineSpec::Builtin(c) => c.summary(),
            EngineSpec::External(e) => e.summary(),
        }
    }

    /// The built-in engine's config, if built in.
    pub fn builtin(&self) -> Option<&EngineConfig> {
        match self {
            EngineSpec::Builtin(c) => Some(c),
            EngineSpec::External(_) => None,
        }
    }

    /// The built-in engine's config, mutable (tuners set parameters through it).
    pub fn builtin_mut(&mut self) -> Option<&mut EngineConfig> {
        match self {
            EngineSpec::Builtin(c) => Some(c),
            EngineSpec::External(_) => None,
        }
    }

    /// The external engine, if external.
    pub fn external(&self) -> Option<&ExternalEngine> {
        match self {
            EngineSpec::Builtin(_) => None,
            EngineSpec::External(e) => Some(e),
        }
    }

    /// Whether its games can be replayed exactly (no time limit).
    pub fn is_reproducible(&self) -> bool {
        match self {
            EngineSpec::Builtin(c) => !c.search.is_timed(),
            EngineSpec::External(e) => e.is_reproducible(),
        }
    }

    /// Whether the same position always gets the same move: no time limit and, for a
    /// built-in engine, no random choice among the best root moves (an outside engine is
    /// trusted to be deterministic under depth and node limits).
    pub fn is_deterministic(&self) -> bool {
        match self {
            EngineSpec::Builtin(c) => !c.search.is_timed() && c.search.random_margin == 0,
            EngineSpec::External(e) => e.is_reproducible(),
        }
    }

    /// Sets several named parameters (`search.depth`, `table.open_three`), checked as
    /// [`EngineConfig::set_all`] checks them. Nothing changes on error.
    pub fn set_all<K: AsRef<str>>(
        &mut self,
        assignments: impl IntoIterator<Item = (K, toml::Value)>,
    ) -> Result<(), SetError> {
        match self {
            EngineSpec::Builtin(c) => c.set_all(assignments),
            EngineSpec::External(e) => {
                let mut next = e.clone();
                for (key, value) in assignments {
                    next.assign(key.as_ref(), value).map_err(|e| SetError {
                        key: Some(key.as_ref().to_string()),
                        message: e.to_string(),
                    })?;
                }
                // The combination is checked once, as a built-in engine's is.
                next.check_settings().map_err(|e| SetError {
                    key: None,
                    message: e.to_string(),
                })?;
                *e = next;
                Ok(())
            }
        }
    }

    /// The game time control the harness keeps for it, if any.
    pub fn time_control(&self) -> Option<TimeControl> {
        match self {
            EngineSpec::Builtin(c) => c.search.time_control(),
            EngineSpec::External(e) => e.tc,
        }
    }

    /// The longest one move may take before the harness calls it lost on time: a
    /// built-in engine's move time plus the tolerance an outside engine gets (outside
    /// engines are timed by their protocol client).
    pub fn move_limit(&self) -> Option<Duration> {
        match self {
            EngineSpec::Builtin(c) => c.search.move_limit(),
            EngineSpec::External(_) => None,
        }
    }

    /// Builds a player for the variant `game`. A built-in engine is ready at once; an
    /// external one starts its process at its first game (and restarts it after a
    /// fault), writing its log to `context.log`.
    pub fn build_player<G: ExternalGame>(
        &self,
        game: &G::Config,
        context: &PlayerContext,
    ) -> Result<Box<dyn Player<G>>, String> {
        match self {
            EngineSpec::Builtin(config) => Ok(Box::new(Engine::<G>::new(config, game)?)),
            EngineSpec::External(engine) => {
                let log = match &context.log {
                    Some(path) => Some(
                        Log::open(path)
                            .map_err(|e| format!("cannot open the log {}: {e}", path.display()))?,
                    ),
                    None => None,
                };
                G::external_player(engine, game, log)
            }
        }
    }
}
