//! An outside engine: the program to start, the protocol it speaks, the options to send
//! it, its limits per move (depth, nodes, movetime or a time control) and how long to
//! wait for it. Tournaments list it as an `[[engines]]` entry with `command`, and an
//! engine file may describe one with the same keys (plus `game`), so that every command
//! that names an engine file (`match`, `sweep`, `tune`, a tournament's `file = ...`)
//! takes it as it takes a built-in engine's:
//!
//! ```toml
//! [[engines]]
//! name = "rapfi"
//! command = "engines/pbrain-rapfi"    # relative to the config; a bare name is looked up in PATH
//! args = []
//! protocol = "gomocup"                # or "uai"; default: the game's (gomocup for m,n,k)
//! working_dir = "engines"             # default: the current folder
//! options = { thread_num = 1 }        # INFO key value (gomocup) / setoption (uai)
//! tc = "10+0.1"                       # or depth = 6, nodes = 100000, movetime_ms = 200
//! tolerance_ms = 1000                 # time past the limit before a hang is called
//! ```

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    time::Duration,
};

use serde::{Deserialize, Serialize};

use self::keys::{Resolving, outside_keys, resolved_outside_form, written_outside_form};
use super::{Protocol, client::process::Launch, serve::gomocup::SIZES};
use crate::{
    config::{self, ConfigError},
    engine::{NameError, TimeControl},
    game::GameSpec,
};

pub mod keys;

pub use self::keys::{CMD_KEYS, OutsideKeys, cmd_key};

/// Default time past a move's limit before the engine counts as hung (Piskvork's).
pub const DEFAULT_TOLERANCE_MS: u64 = crate::engine::clock::MOVE_TOLERANCE_MS;
/// Default wait for replies without a time limit: the start-up handshake, moves limited
/// only by depth or nodes.
pub const DEFAULT_REPLY_TIMEOUT_MS: u64 = 60_000;

fn default_tolerance() -> u64 {
    DEFAULT_TOLERANCE_MS
}

fn default_reply_timeout() -> u64 {
    DEFAULT_REPLY_TIMEOUT_MS
}

fn is_default_tolerance(v: &u64) -> bool {
    *v == DEFAULT_TOLERANCE_MS
}

fn is_default_reply_timeout(v: &u64) -> bool {
    *v == DEFAULT_REPLY_TIMEOUT_MS
}

outside_keys!(resolved_outside_form! {
    /// An outside engine and how to play it: the resolved form, as `run.toml` stores it
    /// (paths resolved, defaults filled in; the keys after `command` are declared in
    /// [`keys`]).
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ExternalEngine {
        /// Name in results.
        pub name: String,
        /// The program: a path (resolved against the config's folder) or a name in
        /// `PATH`.
        pub command: String,
    }
});

/// What is wrong with an outside engine: its keys, limits, options or a parameter given
/// to it. The messages are lowercase and name the key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExternalError {
    /// The name cannot be shown (empty, too long, a control character).
    #[error(transparent)]
    Name(#[from] NameError),
    /// `command = ""`.
    #[error("key `command` is empty")]
    EmptyCommand,
    /// The protocol plays the other family of games.
    #[error("protocol \"{protocol}\" plays {plays} games, the tournament plays {game}")]
    WrongGame {
        /// The engine's protocol.
        protocol: Protocol,
        /// The family it plays, as messages name it (`m,n,k`, `ataxx`).
        plays: &'static str,
        /// The tournament's game.
        game: GameSpec,
    },
    /// A board a Gomocup engine cannot be given.
    #[error("gomocup engines play boards with sides {min} to {max}, not {width}x{height}")]
    BoardSize {
        /// The smallest side.
        min: usize,
        /// The largest side.
        max: usize,
        /// The board's width.
        width: usize,
        /// The board's height.
        height: usize,
    },
    /// No depth, nodes, movetime_ms or tc.
    #[error("an external engine needs a limit: depth, nodes, movetime_ms or tc")]
    NoLimit,
    /// Both movetime_ms and tc.
    #[error("give movetime_ms or tc, not both")]
    MovetimeAndTc,
    /// A depth, node or move-time limit of 0.
    #[error("depth, nodes and movetime_ms must be at least 1")]
    ZeroLimit,
    /// `reply_timeout_ms = 0`.
    #[error("reply_timeout_ms must be at least 1")]
    ZeroReplyTimeout,
    /// An option with an empty key.
    #[error("options: an option has an empty key")]
    EmptyOptionKey,
    /// An option key with a line break or another control character.
    #[error("options: the key \"{0}\" holds a line break or a control character")]
    OptionKeyControl(String),
    /// An option value with a line break or another control character.
    #[error("options: the value of '{0}' holds a line break or a control character")]
    OptionValueControl(String),
    /// A Gomocup option key with a space.
    #[error("options: '{0}' is not an INFO key (no spaces)")]
    InfoKeySpaces(String),
    /// A UAI option key that `setoption` could not carry.
    #[error(
        "options: the UAI option '{0}' holds the word 'name' or 'value', which setoption \
         cannot carry"
    )]
    UaiNameOrValue(String),
    /// An option value of `options.KEY` that is no string, number or boolean.
    #[error("options.{key}: {error}")]
    OptionType {
        /// The option.
        key: String,
        /// What it holds.
        error: OptionTypeError,
    },
    /// A named parameter's value that does not fit it.
    #[error("`{key}`: {message}")]
    Value {
        /// The parameter as given (`search.depth`, `option.Hash`).
        key: String,
        /// What is wrong with the value.
        message: String,
    },
    /// A named parameter an outside engine does not have.
    #[error(
        "'{engine}' is an outside engine: it has no parameter `{key}` (its parameters: {})",
        keys::PARAMETERS
    )]
    NoParameter {
        /// The engine's name.
        engine: String,
        /// The parameter as given.
        key: String,
    },
}

impl ExternalError {
    /// The top-level key of an engine file the error is about, when a line can show it.
    pub fn key(&self) -> Option<&'static str> {
        match self {
            ExternalError::Name(_) => Some("name"),
            ExternalError::EmptyCommand => Some("command"),
            _ => None,
        }
    }

    fn value(key: &str, message: impl Into<String>) -> ExternalError {
        ExternalError::Value {
            key: key.to_string(),
            message: message.into(),
        }
    }
}

/// A TOML value that cannot be sent as an option value (an array, a table, a date).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a {0} cannot be sent as an option value")]
pub struct OptionTypeError(pub &'static str);

impl ExternalEngine {
    /// Rebuilds an engine from its resolved form, as `run.toml` stores it.
    pub fn from_resolved(source: &str, tree: toml::Table) -> Result<ExternalEngine, ConfigError> {
        config::from_table(source, tree)
    }

    /// The resolved form (what `run.toml` stores; a TOML table sorts its keys, so the
    /// order of the fields does not show).
    pub fn to_resolved(&self) -> toml::Table {
        config::to_table(self)
    }

    /// How to start the program.
    pub fn launch(&self) -> Launch {
        Launch {
            command: PathBuf::from(&self.command),
            args: self.args.clone(),
            working_dir: self.working_dir.as_ref().map(PathBuf::from),
        }
    }

    /// Checks that the engine can play `game` and has a usable limit.
    pub fn validate(&self, game: GameSpec) -> Result<(), ExternalError> {
        crate::engine::config::check_name(&self.name)?;
        if self.command.trim().is_empty() {
            return Err(ExternalError::EmptyCommand);
        }
        if self.protocol.family() != game.family() {
            return Err(ExternalError::WrongGame {
                protocol: self.protocol,
                plays: if self.protocol.family() == "mnk" {
                    "m,n,k"
                } else {
                    "ataxx"
                },
                game,
            });
        }
        if let GameSpec::Mnk(c) = game
            && self.protocol == Protocol::Gomocup
            && (!SIZES.contains(&c.width()) || !SIZES.contains(&c.height()))
        {
            return Err(ExternalError::BoardSize {
                min: *SIZES.start(),
                max: *SIZES.end(),
                width: c.width(),
                height: c.height(),
            });
        }
        self.check_settings()
    }

    /// Checks what does not depend on the game: a usable limit, the timeouts, options
    /// that go over the protocol as one line each.
    pub fn check_settings(&self) -> Result<(), ExternalError> {
        if self.depth.is_none()
            && self.nodes.is_none()
            && self.movetime_ms.is_none()
            && self.tc.is_none()
        {
            return Err(ExternalError::NoLimit);
        }
        if self.movetime_ms.is_some() && self.tc.is_some() {
            return Err(ExternalError::MovetimeAndTc);
        }
        if self.depth == Some(0) || self.nodes == Some(0) || self.movetime_ms == Some(0) {
            return Err(ExternalError::ZeroLimit);
        }
        if self.reply_timeout_ms == 0 {
            return Err(ExternalError::ZeroReplyTimeout);
        }
        for (key, value) in &self.options {
            check_option(self.protocol, key, value)?;
        }
        Ok(())
    }

    /// The named parameters an outside engine has: its options (`option.NAME`), its
    /// limits (`depth`, `nodes`, `movetime_ms`, `tc`, also written `search.depth` ...
    /// as a built-in engine's, so one assignment sets both kinds; 0 or "" clears one)
    /// and its waits (`tolerance_ms`, `reply_timeout_ms`); from [`keys`].
    pub const PARAMETERS: &'static str = keys::PARAMETERS;

    /// Sets one named parameter (see [`ExternalEngine::PARAMETERS`]), checked with the
    /// others; nothing changes on error.
    pub fn set(&mut self, key: &str, value: toml::Value) -> Result<(), ExternalError> {
        let mut next = self.clone();
        next.assign(key, value)?;
        next.check_settings()?;
        *self = next;
        Ok(())
    }

    /// Sets one named parameter without the final check (for several at once).
    pub fn assign(&mut self, key: &str, value: toml::Value) -> Result<(), ExternalError> {
        if let Some(option) = key.strip_prefix("option.") {
            let text = option_text(&value).map_err(|e| ExternalError::value(key, e.to_string()))?;
            check_option(self.protocol, option, &text)?;
            self.options.insert(option.to_string(), text);
            return Ok(());
        }
        match self.assign_parameter(key, value) {
            Some(done) => done,
            None => Err(ExternalError::NoParameter {
                engine: self.name.clone(),
                key: key.to_string(),
            }),
        }
    }

    /// Whether its games can be replayed exactly (no time limit; the engine itself is
    /// trusted to be deterministic under depth and node limits).
    pub fn is_reproducible(&self) -> bool {
        self.movetime_ms.is_none() && self.tc.is_none()
    }

    /// A short description for reports: protocol, command and limits.
    pub fn summary(&self) -> String {
        let mut limits = Vec::new();
        if let Some(d) = self.depth {
            limits.push(format!("depth {d}"));
        }
        if let Some(n) = self.nodes {
            limits.push(format!("nodes {n}"));
        }
        if let Some(t) = self.movetime_ms {
            limits.push(format!("movetime {t} ms"));
        }
        if let Some(tc) = self.tc {
            limits.push(format!("tc {tc}"));
        }
        format!(
            "external {} engine '{}', {}",
            self.protocol,
            self.launch().display(),
            limits.join(", ")
        )
    }

    /// The time past a limit before a hang is called.
    pub fn tolerance(&self) -> Duration {
        Duration::from_millis(self.tolerance_ms)
    }

    /// The wait for replies without a time limit.
    pub fn reply_timeout(&self) -> Duration {
        Duration::from_millis(self.reply_timeout_ms)
    }
}

/// A value a named parameter of an outside engine takes from `--set` or `set = {...}`.
trait SetParameter {
    /// Sets it from `value`, given as `key`.
    fn set_parameter(&mut self, key: &str, value: toml::Value) -> Result<(), ExternalError>;
}

/// A whole number of at least 0.
fn count(key: &str, value: &toml::Value) -> Result<u64, ExternalError> {
    match value {
        toml::Value::Integer(i) if *i >= 0 => Ok(*i as u64),
        toml::Value::Float(f) if f.fract() == 0.0 && *f >= 0.0 && *f < 9e15 => Ok(*f as u64),
        other => Err(ExternalError::value(
            key,
            format!("{other} is not a whole number of at least 0"),
        )),
    }
}

/// A wait: a whole number of milliseconds.
impl SetParameter for u64 {
    fn set_parameter(&mut self, key: &str, value: toml::Value) -> Result<(), ExternalError> {
        *self = count(key, &value)?;
        Ok(())
    }
}

/// A node or move-time limit: 0 clears it.
impl SetParameter for Option<u64> {
    fn set_parameter(&mut self, key: &str, value: toml::Value) -> Result<(), ExternalError> {
        let n = count(key, &value)?;
        *self = (n > 0).then_some(n);
        Ok(())
    }
}

/// A depth limit: 0 clears it.
impl SetParameter for Option<u32> {
    fn set_parameter(&mut self, key: &str, value: toml::Value) -> Result<(), ExternalError> {
        let n = count(key, &value)?;
        *self = (n > 0)
            .then_some(n)
            .map(|d| {
                u32::try_from(d).map_err(|_| ExternalError::value(key, format!("{d} is too deep")))
            })
            .transpose()?;
        Ok(())
    }
}

/// A time control: "" clears it.
impl SetParameter for Option<TimeControl> {
    fn set_parameter(&mut self, key: &str, value: toml::Value) -> Result<(), ExternalError> {
        *self = match &value {
            toml::Value::String(t) if t.trim().is_empty() => None,
            toml::Value::String(t) => Some(t.parse().map_err(
                |e: crate::engine::clock::TimeControlError| {
                    ExternalError::value(key, e.to_string())
                },
            )?),
            other => {
                return Err(ExternalError::value(
                    key,
                    format!("{other} is not a time control like \"10+0.1\""),
                ));
            }
        };
        Ok(())
    }
}

/// A switch.
impl SetParameter for Option<bool> {
    fn set_parameter(&mut self, key: &str, value: toml::Value) -> Result<(), ExternalError> {
        *self =
            Some(value.as_bool().ok_or_else(|| {
                ExternalError::value(key, format!("{value} is not true or false"))
            })?);
        Ok(())
    }
}

outside_keys!(written_outside_form! {
    /// The keys of an outside engine as a config writes them: an engine file of its own
    /// (which may also say its `game`); the keys after `command` are declared in
    /// [`keys`].
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ExternalFields {
        /// Name in results (default: the program's file name).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// The game it plays (engine files only; default: the protocol's, gomoku or
        /// ataxx).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub game: Option<GameSpec>,
        /// The program (relative to the config when it holds a `/`, else looked up in
        /// `PATH`).
        pub command: String,
    }
});

impl ExternalFields {
    /// The engine, paths resolved against `base` (the config file), checked to play
    /// `game`.
    pub fn resolve(&self, base: &Path, game: GameSpec) -> Result<ExternalEngine, ExternalError> {
        resolve(
            self.name.as_deref(),
            &self.command,
            &self.outside_keys(),
            base,
            game,
        )
    }
}

/// The outside engine `command` (named `name`, by default after the program's file)
/// with the keys `keys` written in the config `base`, checked to play `game`.
pub fn resolve(
    name: Option<&str>,
    command: &str,
    keys: &OutsideKeys,
    base: &Path,
    game: GameSpec,
) -> Result<ExternalEngine, ExternalError> {
    // A path is relative to the config; a bare name is looked up in PATH.
    let command_path = if command.contains('/') || command.contains('\\') {
        config::resolve(base, command).display().to_string()
    } else {
        command.to_string()
    };
    let name = match name {
        Some(n) => n.to_string(),
        None => Path::new(command)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| command.to_string()),
    };
    let engine = ExternalEngine::resolve_keys(name, command_path, keys, &Resolving { base, game })?;
    engine.validate(game)?;
    Ok(engine)
}

/// An engine file that describes an outside program (it has `command`): the engine and
/// the game the file says it plays (by default the protocol's: gomoku for gomocup,
/// ataxx for uai). Errors name the file and line.
pub fn load_file(path: &Path, text: &str) -> Result<(ExternalEngine, GameSpec), ConfigError> {
    let source = path.display().to_string();
    let fields: ExternalFields = config::parse(&source, text)?;
    let game = match (fields.game, fields.protocol) {
        (Some(g), _) => g,
        (None, Some(Protocol::Uai)) => GameSpec::Ataxx,
        (None, _) => "gomoku".parse().expect("gomoku is a game"),
    };
    let engine = fields.resolve(path, game).map_err(|e| {
        let line = e.key().and_then(|k| config::top_level_line(text, k));
        ConfigError::at(&source, line, e.to_string())
    })?;
    Ok((engine, game))
}

/// Refuses an option that would not go over the protocol as one line meaning one
/// option: a key or value with a line break or another control character (it would
/// inject commands), an empty key, a Gomocup key with spaces (`INFO key value`), a UAI
/// key holding the words `name` or `value` (`setoption name K value V` could not be
/// read back).
fn check_option(protocol: Protocol, key: &str, value: &str) -> Result<(), ExternalError> {
    let shown = || key.escape_debug().to_string();
    if key.trim().is_empty() {
        return Err(ExternalError::EmptyOptionKey);
    }
    if key.chars().any(char::is_control) {
        return Err(ExternalError::OptionKeyControl(shown()));
    }
    if value.chars().any(char::is_control) {
        return Err(ExternalError::OptionValueControl(shown()));
    }
    match protocol {
        Protocol::Gomocup if key.contains(char::is_whitespace) => {
            Err(ExternalError::InfoKeySpaces(shown()))
        }
        Protocol::Uai
            if key
                .split_whitespace()
                .any(|w| w.eq_ignore_ascii_case("name") || w.eq_ignore_ascii_case("value")) =>
        {
            Err(ExternalError::UaiNameOrValue(shown()))
        }
        _ => Ok(()),
    }
}

/// An option value from TOML as the protocols send it (`64`, `1.5`, `true`, `text`).
pub fn option_text(value: &toml::Value) -> Result<String, OptionTypeError> {
    match value {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        other => Err(OptionTypeError(other.type_str())),
    }
}

/// A written `options` table as the protocols send its values.
pub fn option_texts(options: &toml::Table) -> Result<BTreeMap<String, String>, ExternalError> {
    options
        .iter()
        .map(|(key, value)| {
            let text = option_text(value).map_err(|error| ExternalError::OptionType {
                key: key.clone(),
                error,
            })?;
            Ok((key.clone(), text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ExternalEngine {
        ExternalEngine {
            name: "x".into(),
            protocol: Protocol::Gomocup,
            command: "/bin/true".into(),
            args: vec![],
            working_dir: None,
            options: BTreeMap::new(),
            depth: Some(3),
            nodes: None,
            movetime_ms: None,
            tc: None,
            tolerance_ms: DEFAULT_TOLERANCE_MS,
            reply_timeout_ms: DEFAULT_REPLY_TIMEOUT_MS,
            restart: None,
        }
    }

    #[test]
    fn validation_names_the_problem() {
        let gomoku: GameSpec = "gomoku".parse().unwrap();
        assert!(spec().validate(gomoku).is_ok());
        let e = spec().validate(GameSpec::Ataxx).unwrap_err().to_string();
        assert!(e.contains("protocol \"gomocup\" plays m,n,k games"), "{e}");
        let e = spec()
            .validate("tictactoe".parse().unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("sides 5 to 20, not 3x3"), "{e}");
        let mut s = spec();
        s.depth = None;
        let e = s.validate(gomoku).unwrap_err().to_string();
        assert!(e.contains("needs a limit"), "{e}");
        s.movetime_ms = Some(10);
        s.tc = Some("1+0".parse().unwrap());
        assert!(
            s.validate(gomoku)
                .unwrap_err()
                .to_string()
                .contains("not both")
        );
        assert!(!s.is_reproducible());
    }

    /// Regression: a UAI option key with a line break injected protocol lines.
    #[test]
    fn options_cannot_inject_lines() {
        let mut s = spec();
        s.protocol = Protocol::Uai;
        for (key, value, want) in [
            ("Hash\nquit", "1", "control character"),
            ("Hash", "1\rgo", "control character"),
            ("Hash", "1\u{0}", "control character"),
            ("Skill value", "3", "'name' or 'value'"),
            (" ", "3", "empty key"),
        ] {
            s.options = [(key.to_string(), value.to_string())].into();
            let e = s.validate(GameSpec::Ataxx).unwrap_err().to_string();
            assert!(e.contains(want), "{key:?}: {e}");
        }
        s.options = [("Skill Level".to_string(), "3".to_string())].into();
        s.validate(GameSpec::Ataxx).unwrap();
        let mut g = spec();
        g.options = [("thread num".to_string(), "1".to_string())].into();
        assert!(
            g.validate("gomoku".parse().unwrap())
                .unwrap_err()
                .to_string()
                .contains("no spaces")
        );
    }

    #[test]
    fn resolved_form_round_trips() {
        let mut s = spec();
        s.tc = Some("10+0.1".parse().unwrap());
        s.depth = None;
        s.options.insert("thread_num".into(), "1".into());
        s.tolerance_ms = 300;
        let tree = s.to_resolved();
        let text = toml::to_string(&tree).unwrap();
        assert!(text.contains("tc = \"10+0.1\""), "{text}");
        assert!(
            !text.contains("reply_timeout_ms"),
            "defaults stay out: {text}"
        );
        let back = ExternalEngine::from_resolved("run.toml", tree).unwrap();
        assert_eq!(back, s);
    }
}
