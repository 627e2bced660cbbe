//! What differs between the engines of a run, computed from their resolved configs (the
//! ones `run.toml` stores), so that every standings table can say what its comparison
//! is a comparison of, and warn when a run that compares tables also varies the search.
//! An outside engine is compared as a whole (its settings are its own, not arena's).
//!
//! This module reads engine configs as TOML trees; it knows nothing of results.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::protocol::EngineSpec;

/// One setting whose value is not the same for every engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    /// The key: `table` (the weight table as a whole), `search.depth`, `command`, ...
    pub key: String,
    /// Its value per engine, in engine order (`-` when an engine has no such key).
    pub values: Vec<String>,
    /// For `table`: the weights whose values differ (empty for other keys).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weights: Vec<String>,
}

impl Difference {
    /// `search.radius: 2 | 1 | 2`, with the differing weights for a table; `engine:
    /// built-in | outside program (gomocup), compared as a whole`.
    pub fn describe(&self) -> String {
        let mut text = format!("{}: {}", self.key, self.values.join(" | "));
        if self.key == OUTSIDE_KEY {
            text.push_str(" (an outside engine is compared as a whole)");
        }
        if !self.weights.is_empty() {
            const SHOWN: usize = 6;
            let mut list = self
                .weights
                .iter()
                .take(SHOWN)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            if self.weights.len() > SHOWN {
                list.push_str(", ...");
            }
            text.push_str(&format!(
                " ({} weight{} differ: {list})",
                self.weights.len(),
                if self.weights.len() == 1 { "" } else { "s" }
            ));
        }
        text
    }
}

/// The key of the difference that says which engines are outside programs.
pub const OUTSIDE_KEY: &str = "engine";

/// The settings that differ between `engines` (names excepted), in key order, the
/// weight table first. An outside engine is compared as a whole: its settings are its
/// own, so with one in the run the first difference is [`OUTSIDE_KEY`] (`built-in` or
/// the outside program, per engine), and the keys after it are those that differ
/// between the built-in engines (`-` for the outside ones).
pub fn differences(engines: &[EngineSpec]) -> Vec<Difference> {
    if engines.len() < 2 {
        return Vec::new();
    }
    let builtin: Vec<usize> = (0..engines.len())
        .filter(|&i| engines[i].builtin().is_some())
        .collect();
    let mut out = Vec::new();
    if builtin.len() < engines.len() {
        out.push(Difference {
            key: OUTSIDE_KEY.into(),
            values: engines
                .iter()
                .map(|e| match e.external() {
                    None => "built-in".to_string(),
                    Some(x) => format!("outside program ({})", x.protocol),
                })
                .collect(),
            weights: Vec::new(),
        });
    }
    let flat: Vec<BTreeMap<String, String>> = builtin
        .iter()
        .map(|&i| flatten_engine(&engines[i]))
        .collect();
    // Per built-in engine, spread over every engine ("-" for the outside ones).
    let spread = |values: Vec<String>| -> Vec<String> {
        let mut all = vec!["-".to_string(); engines.len()];
        for (v, &i) in values.into_iter().zip(&builtin) {
            all[i] = v;
        }
        all
    };
    for mut d in builtin_differences(&flat) {
        d.values = spread(d.values);
        out.push(d);
    }
    out
}

/// What differs between built-in engines' flattened configs.
fn builtin_differences(flat: &[BTreeMap<String, String>]) -> Vec<Difference> {
    if flat.len() < 2 {
        return Vec::new();
    }
    let mut keys: Vec<&String> = flat.iter().flat_map(|f| f.keys()).collect();
    keys.sort();
    keys.dedup();
    let value = |f: &BTreeMap<String, String>, k: &str| f.get(k).cloned();
    let differs = |k: &str| {
        let first = value(&flat[0], k);
        flat.iter().any(|f| value(f, k) != first)
    };
    let mut out = Vec::new();
    // The table as one difference: its name per engine, and the weights that differ.
    let weights: Vec<String> = keys
        .iter()
        .filter_map(|k| k.strip_prefix("table."))
        .filter(|w| *w != "name" && differs(&format!("table.{w}")))
        .map(str::to_string)
        .collect();
    let table_names = |f: &BTreeMap<String, String>| {
        if f.keys().any(|k| k.starts_with("table.")) {
            value(f, "table.name").unwrap_or_else(|| "unnamed".into())
        } else {
            "none".into()
        }
    };
    if !weights.is_empty() || differs("table.name") {
        out.push(Difference {
            key: "table".into(),
            values: flat.iter().map(table_names).collect(),
            weights,
        });
    }
    for k in keys {
        if k.starts_with("table.") || k == "name" || !differs(k) {
            continue;
        }
        out.push(Difference {
            key: k.clone(),
            values: flat
                .iter()
                .map(|f| value(f, k).unwrap_or_else(|| "-".into()))
                .collect(),
            weights: Vec::new(),
        });
    }
    out
}

/// The warning for a run whose engines differ in their tables and in anything else of
/// their search, if they do.
pub fn confound_warning(differences: &[Difference]) -> Option<String> {
    if !differences.iter().any(|d| d.key == "table") {
        return None;
    }
    // The built-in engines' search settings; an outside engine is no part of a table
    // comparison.
    let others: Vec<&str> = differences
        .iter()
        .filter(|d| d.key != "table" && d.key != OUTSIDE_KEY)
        .map(|d| d.key.as_str())
        .collect();
    if others.is_empty() {
        return None;
    }
    Some(format!(
        "the engines differ in their weight tables and also in {}: a rating difference \
         cannot be put down to the table alone; give every engine the same search \
         settings (one [search], or `set` in each [[engines]]) to compare tables",
        others.join(", ")
    ))
}

/// An engine's resolved config as dotted keys and printed values.
fn flatten_engine(spec: &EngineSpec) -> BTreeMap<String, String> {
    let tree = match spec {
        EngineSpec::Builtin(e) => {
            let mut t = e.params();
            if let Some(table) = &e.table
                && let Some(toml::Value::Table(tt)) = t.get_mut("table")
            {
                tt.insert("name".into(), toml::Value::String(table.name().into()));
            }
            t
        }
        EngineSpec::External(e) => {
            let mut t = e.to_resolved();
            t.remove("name");
            t
        }
    };
    let mut out = BTreeMap::new();
    flatten("", &toml::Value::Table(tree), &mut out);
    out
}

fn flatten(prefix: &str, value: &toml::Value, out: &mut BTreeMap<String, String>) {
    match value {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        toml::Value::String(s) => {
            out.insert(prefix.to_string(), s.clone());
        }
        toml::Value::Array(items) => {
            let shown: Vec<String> = items
                .iter()
                .map(|v| match v {
                    toml::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect();
            out.insert(prefix.to_string(), format!("[{}]", shown.join(", ")));
        }
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineConfig;

    fn engine(text: &str) -> EngineSpec {
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/engines/x.toml");
        EngineSpec::Builtin(EngineConfig::parse("test", &base, text).expect("a valid engine"))
    }

    #[test]
    fn tables_and_search_are_told_apart() {
        let a = engine(
            "name = \"a\"\ngame = \"gomoku\"\ntable = \"../tables/gomoku/seed003.toml\"\n\
             [search]\ndepth = 4\nradius = 2\n",
        );
        let b = engine(
            "name = \"b\"\ngame = \"gomoku\"\ntable = \"../tables/gomoku/seed000.toml\"\n\
             [search]\ndepth = 4\nradius = 1\n",
        );
        let d = differences(&[a.clone(), b.clone()]);
        assert_eq!(d[0].key, "table");
        assert!(!d[0].weights.is_empty());
        let keys: Vec<&str> = d.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["table", "search.radius"]);
        assert_eq!(d[1].describe(), "search.radius: 2 | 1");
        let warning = confound_warning(&d).expect("tables and radius both differ");
        assert!(warning.contains("also in search.radius"), "{warning}");
        // The same engine twice (under another name) differs in nothing.
        let c = engine(
            "name = \"c\"\ngame = \"gomoku\"\ntable = \"../tables/gomoku/seed003.toml\"\n\
             [search]\ndepth = 4\nradius = 2\n",
        );
        assert!(differences(&[a, c]).is_empty());
        assert_eq!(differences(&[b]), Vec::new());
    }

    /// Issue 20: against an outside engine every `search.*` key was listed as differing.
    #[test]
    fn an_outside_engine_is_compared_as_a_whole() {
        let a = engine(
            "name = \"a\"\ngame = \"gomoku\"\ntable = \"../tables/gomoku/seed003.toml\"\n\
             [search]\ndepth = 4\n",
        );
        let b = engine(
            "name = \"b\"\ngame = \"gomoku\"\ntable = \"../tables/gomoku/seed000.toml\"\n\
             [search]\ndepth = 3\n",
        );
        let x = EngineSpec::External(crate::protocol::ExternalEngine {
            name: "x".into(),
            protocol: crate::protocol::Protocol::Gomocup,
            command: "pbrain-x".into(),
            args: vec![],
            working_dir: None,
            options: Default::default(),
            depth: Some(3),
            nodes: None,
            movetime_ms: None,
            tc: None,
            tolerance_ms: 1000,
            reply_timeout_ms: 1000,
        });
        let d = differences(&[a.clone(), x.clone()]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(
            d[0].describe(),
            "engine: built-in | outside program (gomocup) (an outside engine is compared as a whole)"
        );
        let d = differences(&[a, b, x]);
        let keys: Vec<&str> = d.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["engine", "table", "search.depth"]);
        assert_eq!(d[2].values, ["4", "3", "-"]);
        let w = confound_warning(&d).unwrap();
        assert!(w.contains("also in search.depth:"), "{w}");
        assert!(!w.contains("also in engine"), "{w}");
    }

    /// Issue 12: the quick start compares tables and nothing else.
    #[test]
    fn the_shipped_table_comparison_varies_only_the_table() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/gomoku-tables.toml");
        let t = crate::tournament::Tournament::load(&path).expect("the shipped config loads");
        let searches: Vec<_> = t
            .engines
            .iter()
            .map(|e| match e {
                EngineSpec::Builtin(e) => e.search.clone(),
                EngineSpec::External(_) => panic!("the shipped config has built-in engines"),
            })
            .collect();
        assert!(searches.iter().all(|s| *s == searches[0]));
        let d = differences(&t.engines);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].key, "table");
        assert_eq!(confound_warning(&d), None);
    }
}
