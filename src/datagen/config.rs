//! Datagen configs (TOML): the engine, an optional opponent and a `[datagen]` table with
//! the keys of `arena datagen`'s flags, which override them. Unknown keys are errors, and
//! every error names the file, the line and the key.
//!
//! ```toml
//! engine = "engines/ataxx-strong.toml"     # relative to this file
//! against = "engines/ataxx-modern.toml"    # optional: engine A against engine B
//!
//! [datagen]
//! positions = 100000          # or games = N
//! depth = 3                   # or nodes = N
//! random_plies = 8
//! openings = "openings/ataxx-4ply.txt"    # relative to this file
//! format = "bullet"
//! seed = 1
//! score_clip = 32000
//! dedup_window = 64
//! out = "results/datagen-ataxx"           # relative to the current folder, as --out
//! set = { "search.tt_mb" = 4 }            # named parameters of the engine
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::format::Format;
use crate::{
    config::{self, ConfigError, key_line, resolve, top_level_line},
    engine::EngineConfig,
};

/// A datagen config as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    engine: String,
    #[serde(default)]
    against: Option<String>,
    datagen: WrittenOptions,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct WrittenOptions {
    #[serde(default)]
    positions: Option<u64>,
    #[serde(default)]
    games: Option<u64>,
    #[serde(default)]
    depth: Option<u32>,
    #[serde(default)]
    nodes: Option<u64>,
    #[serde(default)]
    random_plies: Option<u32>,
    #[serde(default)]
    openings: Option<String>,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    score_clip: Option<i32>,
    #[serde(default)]
    dedup_window: Option<u64>,
    #[serde(default)]
    out: Option<String>,
    #[serde(default)]
    set: toml::Table,
}

/// A datagen config, read: paths resolved, values checked. Every option is `None` when
/// the file leaves it out.
#[derive(Clone, Debug, PartialEq)]
pub struct DatagenFile {
    /// The file.
    pub path: PathBuf,
    /// The engine config (relative paths resolved against the datagen config).
    pub engine: PathBuf,
    /// The opponent's engine config.
    pub against: Option<PathBuf>,
    /// `positions`.
    pub positions: Option<u64>,
    /// `games`.
    pub games: Option<u64>,
    /// `depth`.
    pub depth: Option<u32>,
    /// `nodes`.
    pub nodes: Option<u64>,
    /// `random_plies`.
    pub random_plies: Option<u32>,
    /// `openings` (resolved against the config).
    pub openings: Option<PathBuf>,
    /// `format`.
    pub format: Option<Format>,
    /// `seed`.
    pub seed: Option<u64>,
    /// `score_clip`.
    pub score_clip: Option<i32>,
    /// `dedup_window`.
    pub dedup_window: Option<u64>,
    /// `out` (as `--out`: relative to the current folder).
    pub out: Option<PathBuf>,
    /// `set`: named parameters of the engine.
    pub set: toml::Table,
    text: String,
}

/// Whether `path` holds a datagen config (a TOML file with a `[datagen]` table) rather
/// than an engine config; a file that cannot be read or parsed is left to the engine
/// config's reader, whose errors say why.
pub fn is_datagen_config(path: &Path) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| toml::from_str::<toml::Table>(&text).ok())
        .is_some_and(|t| t.contains_key("datagen"))
}

impl DatagenFile {
    /// Reads the datagen config at `path`.
    pub fn load(path: &Path) -> Result<DatagenFile, ConfigError> {
        let text = config::read(path)?;
        let source = path.display().to_string();
        let w: Written = config::parse(&source, &text)?;
        let at = |key: &str, message: String| {
            ConfigError::at(
                &source,
                key_line(&text, key),
                format!("key `{key}`: {message}"),
            )
        };
        let o = w.datagen;
        if o.positions.is_some() && o.games.is_some() {
            return Err(at(
                "datagen.games",
                "give `positions` or `games`, not both".into(),
            ));
        }
        if o.depth.is_some() && o.nodes.is_some() {
            return Err(at(
                "datagen.nodes",
                "give `depth` or `nodes`, not both".into(),
            ));
        }
        if let Some(d) = o.depth
            && !(1..250).contains(&d)
        {
            return Err(at("datagen.depth", format!("{d}: must be from 1 to 249")));
        }
        if o.nodes == Some(0) {
            return Err(at("datagen.nodes", "must be at least 1".into()));
        }
        let format = match &o.format {
            Some(f) => Some(
                f.parse::<Format>()
                    .map_err(|e| at("datagen.format", e.to_string()))?,
            ),
            None => None,
        };
        let engine_file = |key: &str, p: &str| {
            let file = resolve(path, p);
            if file.is_file() {
                Ok(file)
            } else {
                Err(ConfigError::at(
                    &source,
                    top_level_line(&text, key),
                    format!("key `{key}`: no engine config at {}", file.display()),
                ))
            }
        };
        Ok(DatagenFile {
            path: path.to_path_buf(),
            engine: engine_file("engine", &w.engine)?,
            against: w
                .against
                .as_deref()
                .map(|p| engine_file("against", p))
                .transpose()?,
            positions: o.positions,
            games: o.games,
            depth: o.depth,
            nodes: o.nodes,
            random_plies: o.random_plies,
            openings: o.openings.as_deref().map(|p| resolve(path, p)),
            format,
            seed: o.seed,
            score_clip: o.score_clip,
            dedup_window: o.dedup_window,
            out: o.out.map(PathBuf::from),
            set: o.set,
            text,
        })
    }

    /// Sets the file's `set` parameters on `engine`; an error names the file and line.
    pub fn apply_set(&self, engine: &mut EngineConfig) -> Result<(), ConfigError> {
        engine
            .set_all(self.set.iter().map(|(k, v)| (k, v.clone())))
            .map_err(|e| {
                let line = e
                    .key
                    .as_deref()
                    .and_then(|k| config::line_of(&self.text, k))
                    .or_else(|| key_line(&self.text, "datagen.set"));
                ConfigError::at(
                    &self.path.display().to_string(),
                    line,
                    format!("key `set`: {e}"),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<DatagenFile, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("e.toml"),
            "game = \"ataxx\"\n[search]\ndepth = 2\n",
        )
        .unwrap();
        let path = dir.path().join("d.toml");
        std::fs::write(&path, text).unwrap();
        DatagenFile::load(&path)
    }

    #[test]
    fn a_datagen_config_reads_and_bad_ones_name_the_line_and_key() {
        let f = load("engine = \"e.toml\"\n[datagen]\ngames = 3\nformat = \"bullet\"\n").unwrap();
        assert_eq!(f.games, Some(3));
        assert_eq!(f.format, Some(Format::Bullet));
        assert!(f.engine.ends_with("e.toml"));
        for (text, needle) in [
            (
                "engine = \"e.toml\"\n[datagen]\ngames = 3\nplies = 2\n",
                ":4:",
            ),
            (
                "engine = \"e.toml\"\n[datagen]\ngames = 3\nformat = \"csv\"\n",
                ":4:",
            ),
            (
                "engine = \"e.toml\"\n[datagen]\ngames = 3\npositions = 4\n",
                ":3:",
            ),
            (
                "engine = \"e.toml\"\nagainst = \"x.toml\"\n[datagen]\n",
                ":2:",
            ),
            ("engine = \"e.toml\"\ncolour = 1\n[datagen]\n", ":2:"),
        ] {
            let e = load(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
        let e = load("engine = \"e.toml\"\n[datagen]\nplies = 2\n").unwrap_err();
        assert!(e.to_string().contains("plies"), "{e}");
    }
}
