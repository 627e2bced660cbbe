//! TOML helpers shared by every config (weight tables, engines, tournaments, tuning):
//! one-line errors that name the file, the line and the key, and named parameters
//! (`search.depth`, `table.open_three`) that can be read, listed and set on any config.
//!
//! Named parameters work on the config's TOML tree with every default filled in (the
//! typed config is serialised back to TOML), so a parameter that a file leaves out can
//! still be set, and a typo is an error that lists what exists.

use std::{
    fmt,
    path::{Path, PathBuf},
};

use serde::{Serialize, de::DeserializeOwned};

/// A config that could not be read, with where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file (or a description such as `--set`).
    pub source: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// What is wrong, naming the key when known.
    pub message: String,
}

impl ConfigError {
    /// An error at `line` (when known) of `source`.
    pub fn at(source: &str, line: Option<usize>, message: String) -> ConfigError {
        ConfigError {
            source: source.to_string(),
            line,
            message,
        }
    }

    /// An error about `source` in general.
    pub fn new(source: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError {
            source: source.into(),
            line: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.source, line, self.message),
            None => write!(f, "{}: {}", self.source, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Parses TOML text into `T`, turning toml's multi-line errors into one line that names
/// `source`, the line and the key.
pub fn parse<T: DeserializeOwned>(source: &str, text: &str) -> Result<T, ConfigError> {
    toml::from_str(text).map_err(|e| from_toml_error(source, text, &e))
}

/// Reads and parses a TOML file.
pub fn load<T: DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    let text = read(path)?;
    parse(&path.display().to_string(), &text)
}

/// Reads a file, with an error that names it.
pub fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path)
        .map_err(|e| ConfigError::new(path.display().to_string(), format!("cannot read: {e}")))
}

fn from_toml_error(source: &str, text: &str, e: &toml::de::Error) -> ConfigError {
    let message = e.message().trim().replace('\n', " ");
    let Some(span) = e.span() else {
        return ConfigError::new(source, message);
    };
    let start = span.start.min(text.len());
    let line = text[..start].matches('\n').count() + 1;
    let line_text = text.lines().nth(line - 1).unwrap_or("").trim();
    // Name the key when the message does not and the line holds `key = value`.
    let message = match line_text.split_once('=') {
        Some((key, _))
            if !key.trim().is_empty()
                && !key.contains(['{', '['])
                && !message.contains(&format!("`{}`", key.trim())) =>
        {
            format!("key `{}`: {message}", key.trim())
        }
        _ => message,
    };
    ConfigError {
        source: source.to_string(),
        line: Some(line),
        message,
    }
}

/// A typed config as a TOML table with every field present (defaults included).
///
/// # Panics
/// If `T` serialises to something other than a table (configs are structs).
pub fn to_table<T: Serialize>(value: &T) -> toml::Table {
    toml::Table::try_from(value).expect("configs serialise to TOML tables")
}

/// Reads a typed config back from a table (after parameters were set).
pub fn from_table<T: DeserializeOwned>(source: &str, table: toml::Table) -> Result<T, ConfigError> {
    table
        .try_into()
        .map_err(|e: toml::de::Error| ConfigError::new(source, e.message().replace('\n', " ")))
}

/// The value at a dotted path (`search.depth`).
pub fn get_path<'a>(table: &'a toml::Table, path: &str) -> Option<&'a toml::Value> {
    let mut parts = path.split('.');
    let mut value = table.get(parts.next()?)?;
    for part in parts {
        value = value.as_table()?.get(part)?;
    }
    Some(value)
}

/// Sets the existing value at a dotted path. The new value must have the same type,
/// except that an integral float may set an integer and an integer may set a float.
pub fn set_path(table: &mut toml::Table, path: &str, value: toml::Value) -> Result<(), String> {
    let names = numeric_names(table);
    let unknown = || {
        let list = if names.is_empty() {
            String::new()
        } else {
            format!("; numeric parameters: {}", names.join(", "))
        };
        format!("unknown parameter `{path}`{list}")
    };
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop().ok_or_else(unknown)?;
    let mut current = &mut *table;
    for part in parts {
        current = current
            .get_mut(part)
            .and_then(toml::Value::as_table_mut)
            .ok_or_else(unknown)?;
    }
    let slot = current.get_mut(last).ok_or_else(unknown)?;
    *slot = coerce(slot, value).map_err(|why| format!("parameter `{path}`: {why}"))?;
    Ok(())
}

fn coerce(existing: &toml::Value, value: toml::Value) -> Result<toml::Value, String> {
    use toml::Value::{Float, Integer};
    match (existing, value) {
        (Integer(_), Float(f)) => {
            if f.fract() == 0.0 && f.abs() < 9.0e15 {
                Ok(Integer(f as i64))
            } else {
                Err(format!("{f} is not a whole number"))
            }
        }
        (Float(_), Integer(i)) => Ok(Float(i as f64)),
        (old, new) if old.type_str() == new.type_str() => Ok(new),
        (old, new) => Err(format!(
            "expected a {}, found a {}",
            old.type_str(),
            new.type_str()
        )),
    }
}

/// Every numeric leaf as (dotted name, value, is_integer), in file order.
pub fn numeric_params(table: &toml::Table) -> Vec<(String, f64, bool)> {
    fn walk(prefix: &str, table: &toml::Table, out: &mut Vec<(String, f64, bool)>) {
        for (k, v) in table {
            let name = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                toml::Value::Integer(i) => out.push((name, *i as f64, true)),
                toml::Value::Float(f) => out.push((name, *f, false)),
                toml::Value::Table(t) => walk(&name, t, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk("", table, &mut out);
    out
}

fn numeric_names(table: &toml::Table) -> Vec<String> {
    numeric_params(table).into_iter().map(|p| p.0).collect()
}

/// Parses `name=value` (`search.depth=5`, `table.defence=1.5`, `search.ordering=["none"]`)
/// into a dotted name and a TOML value.
pub fn parse_assignment(text: &str) -> Result<(String, toml::Value), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("'{text}' is not NAME=VALUE"))?;
    let name = name.trim();
    let value = value.trim();
    let parsed: toml::Table = toml::from_str(&format!("v = {value}"))
        .or_else(|_| toml::from_str(&format!("v = \"{value}\"")))
        .map_err(|_| format!("'{value}' is not a value"))?;
    let value = parsed
        .get("v")
        .cloned()
        .ok_or_else(|| format!("'{value}' is not a value"))?;
    Ok((name.to_string(), value))
}

/// The 1-based line of the first line of `text` that contains `needle`, for errors found
/// after parsing (a missing file, a bad value in context).
pub fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(needle)).map(|i| i + 1)
}

/// The line of a top-level `key = ...` (before any section header).
pub fn top_level_line(text: &str, key: &str) -> Option<usize> {
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with('[') {
            return None;
        }
        if let Some(rest) = t.strip_prefix(key)
            && rest.trim_start().starts_with('=')
        {
            return Some(i + 1);
        }
    }
    None
}

/// A path written in a config, resolved against the config's own folder.
pub fn resolve(base: &Path, path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.parent().unwrap_or(Path::new("")).join(p)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use serde::Deserialize;

    use super::*;

    /// A job's resolved text (what a resume must match) changes with `change` and not
    /// with its worker count (`config.jobs`, which changes no result).
    pub(crate) fn check_resolved<T: Clone + JobsField>(
        job: &T,
        resolved: fn(&T) -> String,
        change: fn(&mut T),
    ) {
        let mut other = job.clone();
        change(&mut other);
        assert_ne!(resolved(job), resolved(&other));
        let mut same = job.clone();
        *same.jobs_mut() = 7;
        assert_eq!(resolved(job), resolved(&same));
    }

    /// A job whose worker count a test can change.
    pub(crate) trait JobsField {
        fn jobs_mut(&mut self) -> &mut u32;
    }

    impl JobsField for crate::tune::Tune {
        fn jobs_mut(&mut self) -> &mut u32 {
            &mut self.config.jobs
        }
    }

    impl JobsField for crate::tune::fit::Fit {
        fn jobs_mut(&mut self) -> &mut u32 {
            &mut self.config.jobs
        }
    }

    /// Each case `(from, to, line, words)` changes `good`, a config of kind `C` at
    /// `path`, replacing `from` by `to`, and expects it refused at `line` (when given)
    /// with `words` in the message.
    pub(crate) fn check_bad_configs<C: ConfigFile>(
        path: &Path,
        good: &str,
        cases: &[(&str, &str, Option<usize>, &str)],
    ) {
        let parse = |text: &str| C::parse("c.toml", path, text).map(|_| ());
        parse(good).expect("the good config parses");
        for &(from, to, line, words) in cases {
            assert!(good.contains(from), "{from}");
            let e = parse(&good.replace(from, to)).expect_err(to);
            if line.is_some() {
                assert_eq!(e.line, line, "{from} -> {to}: {e}");
            }
            assert!(e.message.contains(words), "{from} -> {to}: {e}");
        }
    }

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Demo {
        name: String,
        #[serde(default)]
        search: Search,
    }

    #[derive(Debug, Default, Serialize, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Search {
        #[serde(default)]
        depth: u32,
        #[serde(default)]
        factor: f64,
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let e = parse::<Demo>("demo.toml", "name = \"a\"\n[search]\ndepht = 3\n").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.to_string().starts_with("demo.toml:3: "), "{e}");
        assert!(e.message.contains("unknown field `depht`"), "{e}");
        let e = parse::<Demo>("demo.toml", "name = \"a\"\n[search]\ndepth = \"x\"\n").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("depth"), "{e}");
        let e = parse::<Demo>("demo.toml", "name = \"a\"\n[search\n").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        assert!(!e.to_string().contains('\n'));
    }

    #[test]
    fn named_parameters_include_defaults_and_keep_types() {
        let demo: Demo = parse("d", "name = \"a\"").unwrap();
        let mut t = to_table(&demo);
        let names: Vec<String> = numeric_params(&t).into_iter().map(|p| p.0).collect();
        assert_eq!(names, ["search.depth", "search.factor"]);
        set_path(&mut t, "search.depth", toml::Value::Float(7.0)).unwrap();
        set_path(&mut t, "search.factor", toml::Value::Integer(2)).unwrap();
        let back: Demo = from_table("d", t.clone()).unwrap();
        assert_eq!(back.search.depth, 7);
        assert_eq!(back.search.factor, 2.0);
        let e = set_path(&mut t, "search.dpth", toml::Value::Integer(1)).unwrap_err();
        assert!(e.contains("unknown parameter `search.dpth`"), "{e}");
        assert!(e.contains("search.depth"), "{e}");
        let e = set_path(&mut t, "search.depth", toml::Value::Float(1.5)).unwrap_err();
        assert!(e.contains("not a whole number"), "{e}");
        let e = set_path(&mut t, "name", toml::Value::Integer(1)).unwrap_err();
        assert!(e.contains("expected a string"), "{e}");
    }

    #[test]
    fn assignments() {
        assert_eq!(
            parse_assignment("search.depth=5").unwrap(),
            ("search.depth".into(), toml::Value::Integer(5))
        );
        assert_eq!(
            parse_assignment("name = seed").unwrap(),
            ("name".into(), toml::Value::String("seed".into()))
        );
        let (_, v) = parse_assignment("search.ordering=[\"none\", \"history\"]").unwrap();
        assert!(v.is_array());
        assert!(parse_assignment("depth").is_err());
    }
}

/// A config file of one kind, read with a word on what the file is when it is a config
/// of another kind (see [`with_kind_hint`]).
pub trait ConfigFile: Sized {
    /// What kind of config this is.
    const KIND: Kind;
    /// The config as written (unknown keys are errors).
    type Written: DeserializeOwned;

    /// Resolves the config as written (`text` is its TOML, for line numbers: empty when
    /// it was made from flags); `base` (the file) locates relative paths.
    fn resolve(
        source: &str,
        base: &Path,
        text: &str,
        written: Self::Written,
    ) -> Result<Self, ConfigError>;

    /// Reads the config from `text`; `base` (the file) locates relative paths.
    fn parse(source: &str, base: &Path, text: &str) -> Result<Self, ConfigError> {
        let written = parse(source, text)?;
        Self::resolve(source, base, text, written)
    }

    /// Reads the config file at `path`.
    fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = read(path)?;
        Self::parse(&path.display().to_string(), path, &text)
            .map_err(|e| with_kind_hint(e, path, Self::KIND))
    }
}

/// The kinds of file arena reads, for messages when a file of one kind is given where
/// another is expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A tournament (`arena run`): `engines` and `rounds`.
    Tournament,
    /// A tuning run (`arena tune`): `engine`, `pairs`, `[[params]]`.
    Tune,
    /// A fit of table weights (`arena fit`): `engine`, `games` or `[selfplay]`.
    Fit,
    /// An engine (`arena analyse`, `serve`, `bench`, `match`): `game` and `[search]` or
    /// `table`, no `engines`.
    Engine,
    /// A weight table (engines point to it with `table = ...`): `family`.
    Table,
}

impl Kind {
    /// What it is and what reads it: `a tuning config, for arena tune`.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Tournament => "a tournament config, for arena run",
            Kind::Tune => "a tuning config, for arena tune",
            Kind::Fit => "a fit config, for arena fit",
            Kind::Engine => {
                "an engine config, for arena analyse, bench, serve and match (or a \
                 tournament's `file = ...`)"
            }
            Kind::Table => "a weight table, which an engine config names in `table = ...`",
        }
    }
}

/// What kind of config `text` looks like, by its top-level keys (`None`: not TOML, or
/// none of ours).
pub fn kind_of(text: &str) -> Option<Kind> {
    let table: toml::Table = toml::from_str(text).ok()?;
    let has = |k: &str| table.contains_key(k);
    if has("family") {
        Some(Kind::Table)
    } else if has("engine") && (has("games") || has("selfplay") || has("epochs")) {
        Some(Kind::Fit)
    } else if has("params") || (has("engine") && has("pairs")) {
        Some(Kind::Tune)
    } else if has("engines") || has("rounds") {
        Some(Kind::Tournament)
    } else if has("game") && (has("search") || has("table")) {
        Some(Kind::Engine)
    } else {
        None
    }
}

/// `error`, with a word on what the file is when it is a config of another kind than
/// `expected` (a tune config given to `arena run` fails on its first unknown key, which
/// says nothing of the real mistake).
pub fn with_kind_hint(error: ConfigError, path: &Path, expected: Kind) -> ConfigError {
    let kind = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| kind_of(&text));
    match kind {
        Some(kind) if kind != expected => ConfigError {
            message: format!(
                "{} (this file looks like {}, not {})",
                error.message,
                kind.describe(),
                match expected {
                    Kind::Tournament => "a tournament config",
                    Kind::Tune => "a tuning config",
                    Kind::Fit => "a fit config",
                    Kind::Engine => "an engine config",
                    Kind::Table => "a weight table",
                }
            ),
            ..error
        },
        _ => error,
    }
}
