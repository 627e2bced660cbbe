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

use super::{Protocol, client::process::Launch, serve::gomocup::SIZES};
use crate::{
    config::{self, ConfigError},
    engine::TimeControl,
    game::GameSpec,
};

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

/// An outside engine and how to play it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExternalEngine {
    /// Name in results.
    pub name: String,
    /// The protocol it speaks.
    pub protocol: Protocol,
    /// The program: a path (resolved against the config's folder) or a name in `PATH`.
    pub command: String,
    /// Its arguments, passed as they are (no shell).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// The folder it runs in (default: the current one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_dir: Option<String>,
    /// Sent after start-up: `INFO key value` (gomocup), `setoption name key value Y`
    /// (uai).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, String>,
    /// Depth limit per move (gomocup `INFO max_depth`, uai `go depth`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Node limit per move (gomocup `INFO max_node`, uai `go nodes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Time per move in milliseconds (gomocup `INFO timeout_turn`, uai `go movetime`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub movetime_ms: Option<u64>,
    /// A game time control, `seconds+increment` (gomocup `timeout_match` and
    /// `time_left`, uai `btime`/`wtime`/`binc`/`winc`); the harness keeps the clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tc: Option<TimeControl>,
    /// Time past a move's limit before the engine counts as hung and is killed.
    #[serde(
        default = "default_tolerance",
        skip_serializing_if = "is_default_tolerance"
    )]
    pub tolerance_ms: u64,
    /// Wait for replies without a time limit (handshakes; moves limited by depth or
    /// nodes only).
    #[serde(
        default = "default_reply_timeout",
        skip_serializing_if = "is_default_reply_timeout"
    )]
    pub reply_timeout_ms: u64,
    /// A fresh process for every game (`Some(true)`, cutechess-cli's `restart=on`),
    /// never (`Some(false)`: only after a fault), or, by default (`None`), before a game
    /// that begins from the position the process's last game began from. A process
    /// that has played keeps what it learnt (a hash table many engines clear on no
    /// protocol command), and a gauntlet plays each round's opening against every
    /// challenger in turn, a pair one opening twice: without a fresh process the engine
    /// would meet an opening it has just searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart: Option<bool>,
}

impl ExternalEngine {
    /// Rebuilds an engine from its resolved form, as `run.toml` stores it.
    pub fn from_resolved(source: &str, tree: toml::Table) -> Result<ExternalEngine, ConfigError> {
        config::from_table(source, tree)
    }

    /// The resolved form (what `run.toml` stores).
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
    pub fn validate(&self, game: GameSpec) -> Result<(), String> {
        crate::engine::config::check_name(&self.name)?;
        if self.command.trim().is_empty() {
            return Err("key `command` is empty".into());
        }
        if self.protocol.family() != game.family() {
            return Err(format!(
                "protocol \"{}\" plays {} games, the tournament plays {}",
                self.protocol,
                if self.protocol.family() == "mnk" {
                    "m,n,k"
                } else {
                    "ataxx"
                },
                game
            ));
        }
        if let GameSpec::Mnk(c) = game
            && self.protocol == Protocol::Gomocup
            && (!SIZES.contains(&c.width()) || !SIZES.contains(&c.height()))
        {
            return Err(format!(
                "gomocup engines play boards with sides {} to {}, not {}x{}",
                SIZES.start(),
                SIZES.end(),
                c.width(),
                c.height()
            ));
        }
        self.check_settings()
    }

    /// Checks what does not depend on the game: a usable limit, the timeouts, options
    /// that go over the protocol as one line each.
    pub fn check_settings(&self) -> Result<(), String> {
        if self.depth.is_none()
            && self.nodes.is_none()
            && self.movetime_ms.is_none()
            && self.tc.is_none()
        {
            return Err("an external engine needs a limit: depth, nodes, movetime_ms or tc".into());
        }
        if self.movetime_ms.is_some() && self.tc.is_some() {
            return Err("give movetime_ms or tc, not both".into());
        }
        if self.depth == Some(0) || self.nodes == Some(0) || self.movetime_ms == Some(0) {
            return Err("depth, nodes and movetime_ms must be at least 1".into());
        }
        if self.reply_timeout_ms == 0 {
            return Err("reply_timeout_ms must be at least 1".into());
        }
        for (key, value) in &self.options {
            check_option(self.protocol, key, value)?;
        }
        Ok(())
    }

    /// The named parameters an outside engine has: its options (`option.NAME`), its
    /// limits (`depth`, `nodes`, `movetime_ms`, `tc`, also written `search.depth` ...
    /// as a built-in engine's, so one assignment sets both kinds; 0 or "" clears one)
    /// and its waits (`tolerance_ms`, `reply_timeout_ms`).
    pub const PARAMETERS: &'static str = "option.NAME, depth, nodes, movetime_ms, tc, \
                                          tolerance_ms, reply_timeout_ms, restart";

    /// Sets one named parameter (see [`ExternalEngine::PARAMETERS`]), checked with the
    /// others; nothing changes on error.
    pub fn set(&mut self, key: &str, value: toml::Value) -> Result<(), String> {
        let mut next = self.clone();
        next.assign(key, value)?;
        next.check_settings()?;
        *self = next;
        Ok(())
    }

    /// Sets one named parameter without the final check (for several at once).
    pub fn assign(&mut self, key: &str, value: toml::Value) -> Result<(), String> {
        let count = |v: &toml::Value| -> Result<u64, String> {
            match v {
                toml::Value::Integer(i) if *i >= 0 => Ok(*i as u64),
                toml::Value::Float(f) if f.fract() == 0.0 && *f >= 0.0 && *f < 9e15 => {
                    Ok(*f as u64)
                }
                other => Err(format!(
                    "`{key}`: {other} is not a whole number of at least 0"
                )),
            }
        };
        let some = |n: u64| (n > 0).then_some(n);
        if let Some(option) = key.strip_prefix("option.") {
            let text = option_text(&value).map_err(|e| format!("`{key}`: {e}"))?;
            check_option(self.protocol, option, &text)?;
            self.options.insert(option.to_string(), text);
            return Ok(());
        }
        match key.strip_prefix("search.").unwrap_or(key) {
            "depth" => {
                self.depth = some(count(&value)?)
                    .map(|d| u32::try_from(d).map_err(|_| format!("`{key}`: {d} is too deep")))
                    .transpose()?;
            }
            "nodes" => self.nodes = some(count(&value)?),
            "movetime_ms" => self.movetime_ms = some(count(&value)?),
            "tc" => {
                self.tc = match &value {
                    toml::Value::String(t) if t.trim().is_empty() => None,
                    toml::Value::String(t) => Some(t.parse().map_err(|e| format!("`{key}`: {e}"))?),
                    other => {
                        return Err(format!(
                            "`{key}`: {other} is not a time control like \"10+0.1\""
                        ));
                    }
                };
            }
            "tolerance_ms" if !key.starts_with("search.") => self.tolerance_ms = count(&value)?,
            "reply_timeout_ms" if !key.starts_with("search.") => {
                self.reply_timeout_ms = count(&value)?;
            }
            "restart" => {
                self.restart = Some(
                    value
                        .as_bool()
                        .ok_or_else(|| format!("`{key}`: {value} is not true or false"))?,
                );
            }
            _ => {
                return Err(format!(
                    "'{}' is an outside engine: it has no parameter `{key}` (its parameters: \
                     {})",
                    self.name,
                    Self::PARAMETERS
                ));
            }
        }
        Ok(())
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

/// The keys of an outside engine as a config writes them: an `[[engines]]` entry with
/// `command`, or an engine file of its own (which may also say its `game`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExternalFields {
    /// Name in results (default: the program's file name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The game it plays (engine files only; default: the protocol's, gomoku or ataxx).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<GameSpec>,
    /// The program (relative to the config when it holds a `/`, else looked up in
    /// `PATH`).
    pub command: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// `gomocup` or `uai` (default: the game's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<Protocol>,
    /// The folder it runs in (relative to the config).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_dir: Option<String>,
    /// Options sent at start-up (`INFO key value` / `setoption`).
    #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
    pub options: toml::Table,
    /// Depth limit per move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Node limit per move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Time per move in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub movetime_ms: Option<u64>,
    /// A game time control `seconds+increment` (`"10+0.1"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tc: Option<TimeControl>,
    /// Time past a move's limit before it counts as hung (default 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance_ms: Option<u64>,
    /// Wait for replies without a time limit (default 60000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_timeout_ms: Option<u64>,
    /// A fresh process for every game (true), only after faults (false); unset: before
    /// a game from the position the process's last game began from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart: Option<bool>,
}

impl ExternalFields {
    /// The engine, paths resolved against `base` (the config file), checked to play
    /// `game`.
    pub fn resolve(&self, base: &Path, game: GameSpec) -> Result<ExternalEngine, String> {
        let command = self.command.as_str();
        // A path is relative to the config; a bare name is looked up in PATH.
        let command_path = if command.contains('/') || command.contains('\\') {
            config::resolve(base, command).display().to_string()
        } else {
            command.to_string()
        };
        let name = match &self.name {
            Some(n) => n.clone(),
            None => Path::new(command)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| command.to_string()),
        };
        let mut options = BTreeMap::new();
        for (key, value) in &self.options {
            let text = option_text(value).map_err(|e| format!("options.{key}: {e}"))?;
            options.insert(key.clone(), text);
        }
        let engine = ExternalEngine {
            name,
            protocol: self
                .protocol
                .unwrap_or_else(|| Protocol::for_family(game.family())),
            command: command_path,
            args: self.args.clone(),
            working_dir: self
                .working_dir
                .as_ref()
                .map(|d| config::resolve(base, d).display().to_string()),
            options,
            depth: self.depth,
            nodes: self.nodes,
            movetime_ms: self.movetime_ms,
            tc: self.tc,
            tolerance_ms: self.tolerance_ms.unwrap_or(DEFAULT_TOLERANCE_MS),
            reply_timeout_ms: self.reply_timeout_ms.unwrap_or(DEFAULT_REPLY_TIMEOUT_MS),
            restart: self.restart,
        };
        engine.validate(game)?;
        Ok(engine)
    }
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
    let engine = fields.resolve(path, game).map_err(|m| {
        let key = m.strip_prefix("key `").and_then(|r| r.split('`').next());
        let line = key.and_then(|k| config::top_level_line(text, k));
        ConfigError::at(&source, line, m)
    })?;
    Ok((engine, game))
}

/// Refuses an option that would not go over the protocol as one line meaning one
/// option: a key or value with a line break or another control character (it would
/// inject commands), an empty key, a Gomocup key with spaces (`INFO key value`), a UAI
/// key holding the words `name` or `value` (`setoption name K value V` could not be
/// read back).
fn check_option(protocol: Protocol, key: &str, value: &str) -> Result<(), String> {
    let shown = key.escape_debug();
    if key.trim().is_empty() {
        return Err("options: an option has an empty key".into());
    }
    if key.chars().any(char::is_control) {
        return Err(format!(
            "options: the key \"{shown}\" holds a line break or a control character"
        ));
    }
    if value.chars().any(char::is_control) {
        return Err(format!(
            "options: the value of '{shown}' holds a line break or a control character"
        ));
    }
    match protocol {
        Protocol::Gomocup if key.contains(char::is_whitespace) => {
            Err(format!("options: '{shown}' is not an INFO key (no spaces)"))
        }
        Protocol::Uai
            if key
                .split_whitespace()
                .any(|w| w.eq_ignore_ascii_case("name") || w.eq_ignore_ascii_case("value")) =>
        {
            Err(format!(
                "options: the UAI option '{shown}' holds the word 'name' or 'value', which \
                 setoption cannot carry"
            ))
        }
        _ => Ok(()),
    }
}

/// An option value from TOML as the protocols send it (`64`, `1.5`, `true`, `text`).
pub fn option_text(value: &toml::Value) -> Result<String, String> {
    match value {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        other => Err(format!(
            "a {} cannot be sent as an option value",
            other.type_str()
        )),
    }
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
        let e = spec().validate(GameSpec::Ataxx).unwrap_err();
        assert!(e.contains("protocol \"gomocup\" plays m,n,k games"), "{e}");
        let e = spec().validate("tictactoe".parse().unwrap()).unwrap_err();
        assert!(e.contains("sides 5 to 20, not 3x3"), "{e}");
        let mut s = spec();
        s.depth = None;
        let e = s.validate(gomoku).unwrap_err();
        assert!(e.contains("needs a limit"), "{e}");
        s.movetime_ms = Some(10);
        s.tc = Some("1+0".parse().unwrap());
        assert!(s.validate(gomoku).unwrap_err().contains("not both"));
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
            let e = s.validate(GameSpec::Ataxx).unwrap_err();
            assert!(e.contains(want), "{key:?}: {e}");
        }
        s.options = [("Skill Level".to_string(), "3".to_string())].into();
        s.validate(GameSpec::Ataxx).unwrap();
        let mut g = spec();
        g.options = [("thread num".to_string(), "1".to_string())].into();
        assert!(
            g.validate("gomoku".parse().unwrap())
                .unwrap_err()
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
