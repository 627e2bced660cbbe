//! The base engine of a job (tune, fit) as its config gives it, read the same way for
//! every job: the run name checked, the engine file loaded, its game checked and its
//! `set` table applied (`resolve_engine`, `apply_set`), the one
//! [`crate::config::ConfigFile`] reading that does it (`job_file`), what every resolved
//! job then holds ([`JobBase`]), and the resolved text, with the base engine's every
//! parameter, that a checkpoint is resumed under (`resolved_job`).
//!
//! It knows engines and games; it knows nothing of SPSA or of fitting, nor of the
//! config modules that use it.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::{
    config::{self, ConfigError, top_level_line},
    game::GameSpec,
    protocol::EngineSpec,
};

/// What every resolved job (tune, fit) holds besides its config, base engine and
/// parameters: the game, the base engine's file and where the config came from.
#[derive(Clone, Debug, PartialEq)]
pub struct JobBase {
    /// The game.
    pub game: GameSpec,
    /// The base engine's config file.
    pub engine_path: PathBuf,
    /// Where the config came from (relative paths start there).
    pub path: PathBuf,
}

impl JobBase {
    /// A path in the config, resolved against the config's folder.
    pub fn resolve(&self, path: &str) -> PathBuf {
        config::resolve(&self.path, path)
    }
}

/// A job's config as far as every job reads it (see [`job_file`]): the job's own
/// `resolve_own` goes on from here.
pub(crate) struct JobRead<'a> {
    /// Where the config came from, for errors (its file, or `the command line`).
    pub source: &'a str,
    /// The config's TOML, for line numbers (empty when it was made from flags).
    pub text: &'a str,
    /// The base engine, `set` applied, playing `job.game`.
    pub engine: EngineSpec,
    /// The game, the base engine's file and the config's path.
    pub job: JobBase,
}

impl JobRead<'_> {
    /// An error at `line` of the config.
    pub fn at(&self, line: Option<usize>, message: String) -> ConfigError {
        ConfigError::at(self.source, line, message)
    }

    /// The line of the top-level `key` in the config.
    pub fn key_line(&self, key: &str) -> Option<usize> {
        top_level_line(self.text, key)
    }
}

/// Implements [`crate::config::ConfigFile`] for a job `$job` (tune, fit) written as
/// `$written` (declared with `job_config!`): checks the run name, loads the base engine,
/// checks its game and applies `set` as for every job (`$what` says in errors what the
/// job does with the engine: "the tune plays"), then leaves the job's own keys to
/// `$job::resolve_own(config, JobRead)`.
macro_rules! job_file {
    ($job:ident, $written:ident, $kind:ident, $what:literal) => {
        impl crate::config::ConfigFile for $job {
            const KIND: crate::config::Kind = crate::config::Kind::$kind;
            type Written = $written;

            fn resolve(
                source: &str,
                base: &std::path::Path,
                text: &str,
                config: $written,
            ) -> Result<$job, crate::config::ConfigError> {
                let (engine_path, engine, game) = config.resolve_base(source, base, text, $what)?;
                let job = crate::tune::base::JobBase {
                    game,
                    engine_path,
                    path: base.to_path_buf(),
                };
                let read = crate::tune::base::JobRead {
                    source,
                    text,
                    engine,
                    job,
                };
                $job::resolve_own(config, read)
            }
        }
    };
}
pub(crate) use job_file;

/// A job's config (`config`, serialised) as the TOML its results depend on: without the
/// keys that change none of them (the engine file and `set`, which the base engine's
/// parameters replace; the worker threads; the verification) nor `drop`, with the game,
/// the base engine's every parameter (`[base]`) and the resolved `params`. Tune and fit
/// checkpoints are resumed only under the same text.
pub(crate) fn resolved_job(
    config: &impl Serialize,
    drop: &[&str],
    game: GameSpec,
    base: &EngineSpec,
    params: Vec<toml::Table>,
) -> toml::Table {
    let mut tree = config::to_table(config);
    for key in ["engine", "set", "jobs", "verification", "params", "game"]
        .iter()
        .chain(drop)
    {
        tree.remove(*key);
    }
    tree.insert("game".into(), toml::Value::String(game.to_string()));
    tree.insert("base".into(), toml::Value::Table(engine_table(base, game)));
    tree.insert(
        "params".into(),
        toml::Value::Array(params.into_iter().map(toml::Value::Table).collect()),
    );
    tree
}

/// An engine's every parameter (a built-in engine's) or its resolved entry (an outside
/// engine's), with its name and `game`: how a resolved job holds an engine.
pub(crate) fn engine_table(engine: &EngineSpec, game: GameSpec) -> toml::Table {
    let mut table = match engine {
        EngineSpec::Builtin(c) => c.params(),
        EngineSpec::External(e) => e.to_resolved(),
    };
    table.insert(
        "name".into(),
        toml::Value::String(engine.name().to_string()),
    );
    table.insert("game".into(), toml::Value::String(game.to_string()));
    table
}

/// What [`resolve_engine`] reads from a tune or fit config.
pub(crate) struct EngineRef<'a> {
    /// The run name (a results folder).
    pub name: &'a str,
    /// The engine file, relative to the config.
    pub engine: &'a str,
    /// The game, when the config names one.
    pub game: Option<GameSpec>,
    /// Named parameters set on the engine.
    pub set: &'a toml::Table,
    /// How the error says what the run plays (`the tune plays`).
    pub what: &'a str,
}

/// Checks a run name, loads the base engine, checks its game and applies `set`: the
/// part of reading a config that tune and fit configs share.
pub(crate) fn resolve_engine(
    source: &str,
    base: &Path,
    text: &str,
    r: EngineRef<'_>,
) -> Result<(PathBuf, EngineSpec, GameSpec), ConfigError> {
    let at = |line, message| ConfigError::at(source, line, message);
    let key_line = |key: &str| top_level_line(text, key);
    if r.name.trim().is_empty() || r.name.contains(['/', '\\']) || r.name.starts_with('.') {
        return Err(at(
            key_line("name"),
            format!(
                "key `name`: '{}' cannot name a results folder (no slashes, no leading dot)",
                r.name
            ),
        ));
    }
    let engine_path = config::resolve(base, r.engine);
    let (mut engine, own_game) = EngineSpec::load(&engine_path)
        .map_err(|e| at(key_line("engine"), format!("key `engine`: {e}")))?;
    let game = r.game.unwrap_or(own_game);
    if own_game.family() != game.family() {
        return Err(at(
            key_line("game"),
            format!(
                "key `game`: the engine '{}' plays {own_game}, {} {game}",
                engine.name(),
                r.what
            ),
        ));
    }
    match &mut engine {
        EngineSpec::Builtin(c) => c.game = game,
        EngineSpec::External(e) => e
            .validate(game)
            .map_err(|m| at(key_line("engine"), format!("key `engine`: {m}")))?,
    }
    apply_set(
        &mut engine,
        r.set,
        source,
        text,
        key_line("set"),
        "key `set`",
    )?;
    Ok((engine_path, engine, game))
}

/// Sets the named parameters of a config's `set` table on `engine` (all or none); the
/// error names the line of the key the engine refused (else the line `fallback`) and
/// starts with `what` (`key `set``, `[verification] set`). Tune and fit configs read
/// every `set` table through this.
pub(crate) fn apply_set(
    engine: &mut EngineSpec,
    set: &toml::Table,
    source: &str,
    text: &str,
    fallback: Option<usize>,
    what: &str,
) -> Result<(), ConfigError> {
    engine
        .set_all(set.iter().map(|(k, v)| (k, v.clone())))
        .map_err(|e| {
            let line = e.key.as_deref().and_then(|k| config::line_of(text, k));
            ConfigError::at(source, line.or(fallback), format!("{what}: {e}"))
        })
}
