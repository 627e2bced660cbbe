//! TOML helpers shared by every config (weight tables, engines, tournaments, tuning):
//! one-line errors that name the file, the line and the key, and named parameters
//! (`search.depth`, `table.open_three`) that can be read, listed and set on any config.
//!
//! Named parameters are listed and read on the config's TOML tree with every default
//! filled in (the typed config serialised), so a parameter that a file leaves out still
//! has a name, and a typo is an error that lists what exists ([`unknown_parameter`]).
//! An engine sets one on its typed config, with the checks of [`set_path`]
//! ([`coerce_param`]).

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

/// Reads a file, with an error that names it (and, for a file that is not UTF-8, the
/// line of the first byte that is not).
pub fn read(path: &Path) -> Result<String, ConfigError> {
    let bytes = std::fs::read(path)
        .map_err(|e| ConfigError::new(path.display().to_string(), format!("cannot read: {e}")))?;
    utf8_text(path, bytes)
}

/// The bytes read from `path` as text; an error at the line of the first byte that is
/// not UTF-8 otherwise.
pub fn utf8_text(path: &Path, bytes: Vec<u8>) -> Result<String, ConfigError> {
    String::from_utf8(bytes).map_err(|e| {
        let bad = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        ConfigError {
            source: path.display().to_string(),
            line: Some(bytes[..bad].iter().filter(|&&b| b == b'\n').count() + 1),
            message: format!(
                "not UTF-8 text (byte 0x{:02x} at offset {bad}): a config is TOML, which is \
                 UTF-8",
                bytes[bad]
            ),
        }
    })
}

fn from_toml_error(source: &str, text: &str, e: &toml::de::Error) -> ConfigError {
    let message = e.message().trim().replace('\n', " ");
    let Some(span) = e.span() else {
        return ConfigError::new(source, message);
    };
    let start = span.start.min(text.len());
    let line = text[..start].matches('\n').count() + 1;
    let line_text = text.lines().nth(line - 1).unwrap_or("").trim();
    let key = line_text.split_once('=').map_or("key", |(k, _)| k.trim());
    let message = in_toml_words(&message, key);
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

/// serde's type error (`invalid type: integer `3`, expected a sequence`) in TOML's words,
/// with how to write the expected type: `expected an array (TOML: ordering = [1, 2]),
/// found an integer `3``. Other messages are returned as they are.
fn in_toml_words(message: &str, key: &str) -> String {
    let Some(rest) = message.strip_prefix("invalid type: ") else {
        return message.to_string();
    };
    let Some((found, expected)) = rest.rsplit_once(", expected ") else {
        return message.to_string();
    };
    let toml_type = |serde: &str| -> Option<&'static str> {
        let word = serde.trim_start_matches("a ").trim_start_matches("an ");
        Some(match word {
            "sequence" | "array" | "tuple" => "array",
            "map" | "table" => "table",
            "string" | "character" | "borrowed string" => "string",
            "boolean" | "bool" => "boolean",
            "floating point" | "float" | "f32" | "f64" => "float",
            "integer" | "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64"
            | "isize" => "integer",
            w if w.starts_with("struct ") => "table",
            _ => return None,
        })
    };
    let Some(want) = toml_type(expected.trim()) else {
        return message.to_string();
    };
    // `integer `3``, `string "x"`, `sequence`: the kind, then the value if any.
    let (kind, value) = match found.find([' ', '`', '"']) {
        Some(at) if !found.starts_with("floating point") => (&found[..at], found[at..].trim()),
        _ if found.starts_with("floating point") => {
            ("floating point", found["floating point".len()..].trim())
        }
        _ => (found, ""),
    };
    let got = match toml_type(kind) {
        Some(t) => {
            let article = if t.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            format!("{article} {t}")
        }
        None => kind.to_string(),
    };
    let got = if value.is_empty() {
        got
    } else {
        format!("{got} {value}")
    };
    format!("expected {}, found {got}", type_with_example(want, key))
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
pub fn set_path(table: &mut toml::Table, path: &str, value: toml::Value) -> Result<(), ParamError> {
    if get_path(table, path).is_none() {
        return Err(unknown_parameter_error(table, path));
    }
    let mut current = &mut *table;
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts
        .pop()
        .expect("get_path found the path, so it has a part");
    for part in parts {
        current = current
            .get_mut(part)
            .and_then(toml::Value::as_table_mut)
            .expect("get_path walked these tables");
    }
    let slot = current.get_mut(last).expect("get_path found the leaf");
    *slot = coerce_param(slot, value, path)?;
    Ok(())
}

/// `value` made the type of `existing`, the value the parameter `path` has now, as
/// [`set_path`] takes it: an integral float may set an integer and an integer a float;
/// another type is an error that names the parameter and shows how to write one.
pub fn coerce_param(
    existing: &toml::Value,
    value: toml::Value,
    path: &str,
) -> Result<toml::Value, ParamError> {
    use toml::Value::{Float, Integer};
    let why = match (existing, value) {
        (Integer(_), Float(f)) => {
            if f.fract() == 0.0 && f.abs() < 9.0e15 {
                return Ok(Integer(f as i64));
            }
            format!("{f} is not a whole number")
        }
        (Float(_), Integer(i)) => return Ok(Float(i as f64)),
        (old, new) if old.type_str() == new.type_str() => return Ok(new),
        (old, new) => {
            let found = type_with_example(new.type_str(), path);
            let found = found.split(" (").next().unwrap_or(&found);
            // The value it has now shows how to write one.
            let expected = type_with_example(old.type_str(), path);
            let article = expected.split(" (").next().unwrap_or(&expected);
            let key = path.rsplit('.').next().unwrap_or(path);
            format!(
                "expected {article} (TOML: {key} = {old}; on the command line: \
                 {path}={old}), found {found}"
            )
        }
    };
    Err(ParamError::Type {
        path: path.to_string(),
        why,
    })
}

/// Why a named parameter cannot be set: the parameter, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// No parameter of that name.
    #[error("unknown parameter `{path}`{hint}")]
    Unknown {
        /// The name as given.
        path: String,
        /// The nearest names and the list of numeric ones (see [`unknown_parameter`]).
        hint: String,
    },
    /// A value of another type.
    #[error("parameter `{path}`: {why}")]
    Type {
        /// The parameter.
        path: String,
        /// What it takes and what it was given.
        why: String,
    },
}

/// `unknown parameter `search.dpth`: did you mean `search.depth`? (numeric parameters:
/// ...)`: the nearest names first, then the list; `table` is the config's parameters as
/// a TOML tree.
pub fn unknown_parameter(table: &toml::Table, path: &str) -> String {
    format!(
        "unknown parameter `{path}`{}",
        unknown_parameter_hint(table, path)
    )
}

/// [`unknown_parameter`] as an error.
pub fn unknown_parameter_error(table: &toml::Table, path: &str) -> ParamError {
    ParamError::Unknown {
        path: path.to_string(),
        hint: unknown_parameter_hint(table, path),
    }
}

/// What [`unknown_parameter`] says after the name.
fn unknown_parameter_hint(table: &toml::Table, path: &str) -> String {
    let names = numeric_names(table);
    let guess = match closest(path, &leaf_names(table)) {
        close if close.is_empty() => String::new(),
        close => format!(
            ": did you mean {}?",
            close
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    };
    let list = if names.is_empty() {
        String::new()
    } else {
        format!(" (numeric parameters: {})", names.join(", "))
    };
    format!("{guess}{list}")
}

/// A TOML type with its article and how TOML writes a value of it for `key`:
/// `an array (TOML: key = [1, 2])`.
pub fn type_with_example(type_str: &str, key: &str) -> String {
    let key = key.rsplit('.').next().unwrap_or(key);
    let (article, example) = match type_str {
        "string" => ("a", "\"text\""),
        "integer" => ("an", "3"),
        "float" => ("a", "1.5"),
        "boolean" => ("a", "true"),
        "array" => ("an", "[1, 2]"),
        "table" => ("a", "{ a = 1 }"),
        "datetime" => ("a", "1979-05-27T07:32:00Z"),
        other => return format!("a {other}"),
    };
    format!("{article} {type_str} (TOML: {key} = {example})")
}

/// Every leaf (non-table value) as a dotted name, in file order.
fn leaf_names(table: &toml::Table) -> Vec<String> {
    let mut out = Vec::new();
    for_each_leaf(table, &mut |name, _| out.push(name));
    out
}

/// Calls `each` with every leaf (non-table value) and its dotted name, in file order.
fn for_each_leaf(table: &toml::Table, each: &mut dyn FnMut(String, &toml::Value)) {
    fn walk(prefix: &str, table: &toml::Table, each: &mut dyn FnMut(String, &toml::Value)) {
        for (k, v) in table {
            let name = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                toml::Value::Table(t) => walk(&name, t, each),
                leaf => each(name, leaf),
            }
        }
    }
    walk("", table, each);
}

/// The names of `names` nearest to `wanted` by edit distance (all those at the smallest
/// distance, at most three), or none when even the nearest is far off: a typo, not
/// another word.
pub fn closest<'a>(wanted: &str, names: &'a [String]) -> Vec<&'a str> {
    let scored: Vec<(usize, &str)> = names
        .iter()
        .map(|n| (edit_distance(wanted, n), n.as_str()))
        .collect();
    let Some(best) = scored.iter().map(|s| s.0).min() else {
        return Vec::new();
    };
    let last = wanted.rsplit('.').next().unwrap_or(wanted);
    if best > 2.max(last.chars().count() / 3) {
        return Vec::new();
    }
    scored
        .into_iter()
        .filter(|s| s.0 == best)
        .map(|s| s.1)
        .take(3)
        .collect()
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Every numeric leaf as (dotted name, value, is_integer), in file order.
pub fn numeric_params(table: &toml::Table) -> Vec<(String, f64, bool)> {
    let mut out = Vec::new();
    for_each_leaf(table, &mut |name, v| match v {
        toml::Value::Integer(i) => out.push((name, *i as f64, true)),
        toml::Value::Float(f) => out.push((name, *f, false)),
        _ => {}
    });
    out
}

fn numeric_names(table: &toml::Table) -> Vec<String> {
    numeric_params(table).into_iter().map(|p| p.0).collect()
}

/// Parses `name=value` (`search.depth=5`, `table.defence=1.5`, `search.ordering=["none"]`)
/// into a dotted name and a TOML value.
pub fn parse_assignment(text: &str) -> Result<(String, toml::Value), AssignmentError> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| AssignmentError::NoEquals(text.to_string()))?;
    let name = name.trim();
    let value = value.trim();
    let not_a_value = || AssignmentError::NotAValue(value.to_string());
    let parsed: toml::Table = toml::from_str(&format!("v = {value}"))
        .or_else(|_| toml::from_str(&format!("v = \"{value}\"")))
        .map_err(|_| not_a_value())?;
    let value = parsed.get("v").cloned().ok_or_else(not_a_value)?;
    Ok((name.to_string(), value))
}

/// Why `NAME=VALUE` cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AssignmentError {
    /// No `=`.
    #[error("'{0}' is not NAME=VALUE")]
    NoEquals(String),
    /// A value TOML cannot read, even as a string.
    #[error("'{0}' is not a value")]
    NotAValue(String),
}

/// The 1-based line of the first line of `text` whose TOML (not its comment) contains
/// `needle`, for errors found after parsing (a missing file, a bad value in context).
/// Where the key is known, [`key_line`] finds it for certain.
pub fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.lines()
        .position(|l| without_comment(l).contains(needle))
        .map(|i| i + 1)
}

/// A line of TOML without its comment (a `#` outside quotes starts one).
fn without_comment(line: &str) -> &str {
    let mut quote = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some('"'), '\\') if !escaped => {
                escaped = true;
                continue;
            }
            (Some(q), c) if c == q && !escaped => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') => return &line[..i],
            _ => {}
        }
        escaped = false;
    }
    line
}

/// The 1-based line of the key at `path` in the TOML `text`: dotted names and 0-based
/// array indices (`engines[1].file`, `search.depth`, `engines[2]` for the entry itself),
/// found by parsing, so a comment or a value that mentions the name is never taken for
/// the key. `None` when the text does not parse or has no such key.
pub fn key_line(text: &str, path: &str) -> Option<usize> {
    use toml_edit::{Item, TableLike, Value};

    enum Node<'a> {
        Item(&'a Item),
        Table(&'a toml_edit::Table),
        Value(&'a Value),
    }
    impl<'a> Node<'a> {
        fn table(&self) -> Option<&'a dyn TableLike> {
            match *self {
                Node::Item(i) => i.as_table_like(),
                Node::Table(t) => Some(t),
                Node::Value(v) => v.as_inline_table().map(|t| t as &dyn TableLike),
            }
        }
    }

    let doc = toml_edit::Document::parse(text).ok()?;
    let mut node = Node::Item(doc.as_item());
    let mut span = None;
    for part in path.split('.') {
        let (name, indices) = match part.find('[') {
            Some(at) => (&part[..at], &part[at..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            let (key, item) = node.table()?.get_key_value(name)?;
            span = key.span().or(span);
            node = Node::Item(item);
        }
        for index in indices.split('[').filter(|i| !i.is_empty()) {
            let i: usize = index.strip_suffix(']')?.parse().ok()?;
            node = match node {
                Node::Item(Item::ArrayOfTables(a)) => {
                    let t = a.get(i)?;
                    span = t.span().or(span);
                    Node::Table(t)
                }
                Node::Item(Item::Value(Value::Array(a))) | Node::Value(Value::Array(a)) => {
                    let v = a.get(i)?;
                    span = v.span().or(span);
                    Node::Value(v)
                }
                _ => return None,
            };
        }
    }
    let start = span?.start.min(text.len());
    Some(text[..start].matches('\n').count() + 1)
}

/// The 1-based line of the first key called `name` anywhere in the TOML `text` (at any
/// depth, in any table), for errors that name a key but not where it is.
pub fn any_key_line(text: &str, name: &str) -> Option<usize> {
    use toml_edit::{Item, TableLike, Value};

    fn in_value(v: &Value, name: &str) -> Option<std::ops::Range<usize>> {
        match v {
            Value::InlineTable(t) => in_table(t, name),
            Value::Array(a) => a.iter().find_map(|v| in_value(v, name)),
            _ => None,
        }
    }
    fn in_item(item: &Item, name: &str) -> Option<std::ops::Range<usize>> {
        match item {
            Item::Table(t) => in_table(t, name),
            Item::ArrayOfTables(a) => a.iter().find_map(|t| in_table(t, name)),
            Item::Value(v) => in_value(v, name),
            Item::None => None,
        }
    }
    fn in_table(t: &dyn TableLike, name: &str) -> Option<std::ops::Range<usize>> {
        t.iter().find_map(|(k, item)| {
            if k == name {
                t.get_key_value(k).and_then(|(key, _)| key.span())
            } else {
                in_item(item, name)
            }
        })
    }
    let doc = toml_edit::Document::parse(text).ok()?;
    let span = in_item(doc.as_item(), name)?;
    Some(text[..span.start.min(text.len())].matches('\n').count() + 1)
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

/// A `u64` as a TOML value: an integer when TOML's integers (64-bit signed) can hold
/// it, else a string of digits, as [`toml_u64`] writes it.
pub fn u64_value(v: u64) -> toml::Value {
    match i64::try_from(v) {
        Ok(i) => toml::Value::Integer(i),
        Err(_) => toml::Value::String(v.to_string()),
    }
}

/// Serde for seeds in configs: every `u64`. A TOML integer holds at most 2^63 - 1, so a
/// larger seed is written as a string of digits (`seed = "18446744073709551615"`, as
/// the records write every seed); reading takes either form. Smaller seeds stay
/// integers, so configs and `run.toml` read and write as they always did.
pub mod toml_u64 {
    use std::fmt;

    use serde::{Deserialize, Deserializer, Serializer, de};

    /// Serde: an integer when it fits, else the decimal string.
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        match i64::try_from(*v) {
            Ok(i) => s.serialize_i64(i),
            Err(_) => s.collect_str(v),
        }
    }

    struct Seed;

    impl de::Visitor<'_> for Seed {
        type Value = u64;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(
                "a whole number from 0 to 18446744073709551615 (above 9223372036854775807 \
                 as a string: \"18446744073709551615\")",
            )
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
            v.parse()
                .map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
        }
    }

    /// Serde: an integer or a string of digits.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(Seed)
    }

    /// The same for an optional seed.
    pub mod option {
        use serde::{Deserialize, Deserializer, Serializer};

        /// Serde: as [`super::serialize`], nothing for `None`.
        pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
            match v {
                Some(v) => super::serialize(v, s),
                None => s.serialize_none(),
            }
        }

        /// Serde: as [`super::deserialize`].
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
            Ok(Option::<super::Any>::deserialize(d)?.map(|a| a.0))
        }
    }

    /// A seed in either form, for [`option`].
    struct Any(u64);

    impl<'de> Deserialize<'de> for Any {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Any, D::Error> {
            deserialize(d).map(Any)
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use serde::Deserialize;

    use super::*;

    /// The config file `name` in the shipped `configs/` folder, where a test's config
    /// stands (its relative paths start there; the file itself need not exist).
    pub(crate) fn in_configs(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("configs")
            .join(name)
    }

    /// A job's resolved text (what a resume must match) changes with `change` and not
    /// with its worker count (`config.jobs`, which changes no result).
    pub(crate) fn check_resolved<T: Clone>(
        job: &T,
        resolved: fn(&T) -> String,
        jobs: fn(&mut T) -> &mut u32,
        change: fn(&mut T),
    ) {
        let mut other = job.clone();
        change(&mut other);
        assert_ne!(resolved(job), resolved(&other));
        let mut same = job.clone();
        *jobs(&mut same) = 7;
        assert_eq!(resolved(job), resolved(&same));
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
        let e = set_path(&mut t, "search.dpth", toml::Value::Integer(1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown parameter `search.dpth`"), "{e}");
        assert!(e.contains("search.depth"), "{e}");
        let e = set_path(&mut t, "search.depth", toml::Value::Float(1.5))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a whole number"), "{e}");
        let e = set_path(&mut t, "name", toml::Value::Integer(1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected a string"), "{e}");
    }

    #[test]
    fn key_lines_are_found_by_parsing_never_in_comments() {
        let text = "# the engines/a.toml entry, and depth\nname = \"t\" # depth here too\n\n\
                    [[engines]]\nfile = \"engines/a.toml\"\n\n[[engines]]\nname = \"b\"\n\
                    search = { depth = 3 }\n\n[[engines]]\nfile = \"engines/a.toml\"\n";
        assert_eq!(key_line(text, "engines[0].file"), Some(5));
        assert_eq!(key_line(text, "engines[2].file"), Some(12));
        assert_eq!(key_line(text, "engines[1].search.depth"), Some(9));
        assert_eq!(key_line(text, "engines[3]"), None);
        assert_eq!(key_line(text, "name"), Some(2));
        assert_eq!(any_key_line(text, "depth"), Some(9));
        assert_eq!(line_of(text, "engines/a.toml"), Some(5));
        assert_eq!(line_of(text, "depth"), Some(9));
        assert_eq!(line_of("a = \"#x\" # y\n", "#x"), Some(1));
        assert_eq!(line_of("a = 1 # y\n", "y"), None);
    }

    #[test]
    fn typos_get_the_nearest_names_and_types_their_toml() {
        let names: Vec<String> = ["search.depth", "search.nodes", "table.defence"]
            .map(String::from)
            .to_vec();
        assert_eq!(closest("search.dpth", &names), ["search.depth"]);
        assert_eq!(closest("search.node", &names), ["search.nodes"]);
        assert!(closest("colour", &names).is_empty());
        assert_eq!(
            in_toml_words("invalid type: integer `3`, expected a sequence", "ordering"),
            "expected an array (TOML: ordering = [1, 2]), found an integer `3`"
        );
        assert_eq!(
            in_toml_words("invalid type: floating point `1.5`, expected u32", "depth"),
            "expected an integer (TOML: depth = 3), found a float `1.5`"
        );
        assert_eq!(in_toml_words("missing field `x`", "k"), "missing field `x`");
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
    /// A datagen config (`arena datagen`): `engine` and `[datagen]`.
    Datagen,
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
            Kind::Datagen => "a datagen config, for arena datagen",
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
    } else if has("datagen") {
        Some(Kind::Datagen)
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
                    Kind::Datagen => "a datagen config",
                }
            ),
            ..error
        },
        _ => error,
    }
}
