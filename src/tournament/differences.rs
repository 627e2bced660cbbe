//! What differs between the engines of a run, computed from their resolved configs (the
//! ones `run.toml` stores), so that every standings table can say what its comparison
//! is a comparison of, and warn when a run that compares tables also varies the search.
//! An outside engine is compared as a whole (its settings are its own, not arena's), but
//! for what arena gives it: its limits, options and program.
//!
//! This module reads engine configs as TOML trees; it knows nothing of results.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{engine::TimeControl, protocol::EngineSpec};

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

/// The limits arena gives every engine, built-in or outside (an outside engine's
/// `depth`, `nodes`, `movetime_ms`, `tc` under the built-in engines' names, as `--set`
/// accepts them for both): compared across every engine of the run.
const LIMIT_KEYS: [&str; 4] = [
    "search.depth",
    "search.nodes",
    "search.movetime_ms",
    "search.tc",
];

/// The settings that differ between `engines` (names excepted), in key order, the
/// weight table first. An outside engine is compared as a whole: its settings are its
/// own, so with one in the run the first difference is [`OUTSIDE_KEY`] (`built-in` or
/// the outside program, per engine). After it come the limits (`LIMIT_KEYS`) that
/// differ across every engine, the built-in engines' other settings that differ between
/// them, and the outside engines' program and options that differ between them (`-` for
/// an engine a key does not apply to).
pub fn differences(engines: &[EngineSpec]) -> Vec<Difference> {
    if engines.len() < 2 {
        return Vec::new();
    }
    let builtin: Vec<bool> = engines.iter().map(|e| e.builtin().is_some()).collect();
    let mut out = Vec::new();
    if builtin.iter().any(|b| !b) {
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
    let flat: Vec<BTreeMap<String, String>> = engines.iter().map(flatten_engine).collect();
    // The engines a key is compared over: a limit over every engine; a built-in
    // engine's setting (`search.*`, `table.*`) over the built-in ones; an outside
    // engine's program and options over the outside ones.
    let scope = |key: &str| -> Vec<usize> {
        let is_builtin_key = key.starts_with("search.") || key.starts_with("table.");
        (0..engines.len())
            .filter(|&i| LIMIT_KEYS.contains(&key) || builtin[i] == is_builtin_key)
            .collect()
    };
    let value = |i: usize, k: &str| flat[i].get(k).cloned();
    let differs = |k: &str| {
        let over = scope(k);
        over.len() >= 2 && over.iter().any(|&i| value(i, k) != value(over[0], k))
    };
    // Per engine, "-" outside the key's scope or where the engine has no such key.
    let values = |k: &str, of: &dyn Fn(usize) -> String| -> Vec<String> {
        let over = scope(k);
        (0..engines.len())
            .map(|i| {
                if over.contains(&i) {
                    of(i)
                } else {
                    "-".to_string()
                }
            })
            .collect()
    };
    let mut keys: Vec<&String> = flat.iter().flat_map(|f| f.keys()).collect();
    keys.sort();
    keys.dedup();
    // The table as one difference: its name per engine, and the weights that differ.
    let weights: Vec<String> = keys
        .iter()
        .filter_map(|k| k.strip_prefix("table."))
        .filter(|w| *w != "name" && differs(&format!("table.{w}")))
        .map(str::to_string)
        .collect();
    let table_name = |i: usize| {
        if flat[i].keys().any(|k| k.starts_with("table.")) {
            value(i, "table.name").unwrap_or_else(|| "unnamed".into())
        } else {
            "none".into()
        }
    };
    if !weights.is_empty() || differs("table.name") {
        out.push(Difference {
            key: "table".into(),
            values: values("table.name", &table_name),
            weights,
        });
    }
    for k in keys {
        if k.starts_with("table.") || k == "name" || !differs(k) {
            continue;
        }
        out.push(Difference {
            key: k.clone(),
            values: values(k, &|i| value(i, k).unwrap_or_else(|| "-".into())),
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
    // comparison: a limit that only it has otherwise (its own depth against the
    // built-in engines' nodes) confounds nothing.
    let builtin: Option<Vec<bool>> = differences
        .iter()
        .find(|d| d.key == OUTSIDE_KEY)
        .map(|d| d.values.iter().map(|v| v == "built-in").collect());
    let differs_among_builtin = |d: &Difference| {
        let values: Vec<&String> = d
            .values
            .iter()
            .enumerate()
            .filter(|(i, _)| builtin.as_ref().is_none_or(|b| b[*i]))
            .map(|(_, v)| v)
            .collect();
        values.windows(2).any(|w| w[0] != w[1])
    };
    let others: Vec<&str> = differences
        .iter()
        .filter(|d| d.key != "table" && d.key != OUTSIDE_KEY && differs_among_builtin(d))
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

/// An engine's resolved config as dotted keys and printed values: a built-in engine's
/// parameters (`search.*`, `table.*`); an outside engine's limits under the built-in
/// names ([`LIMIT_KEYS`], unset as a built-in engine writes it: 0, or "" for `tc`), its
/// options (`option.*`) and its program (`command`, `args`, `working_dir`).
fn flatten_engine(spec: &EngineSpec) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    match spec {
        EngineSpec::Builtin(e) => {
            let mut t = e.params();
            if let Some(table) = &e.table
                && let Some(toml::Value::Table(tt)) = t.get_mut("table")
            {
                tt.insert("name".into(), toml::Value::String(table.name().into()));
            }
            flatten("", &toml::Value::Table(t), &mut out);
            // A clock as an outside engine's prints (`10+0.1`), however it was written.
            if let Some(tc) = out.get_mut("search.tc")
                && let Ok(parsed) = tc.parse::<TimeControl>()
            {
                *tc = parsed.to_string();
            }
        }
        EngineSpec::External(e) => {
            let number = |v: Option<u64>| v.unwrap_or(0).to_string();
            out.insert("search.depth".into(), number(e.depth.map(u64::from)));
            out.insert("search.nodes".into(), number(e.nodes));
            out.insert("search.movetime_ms".into(), number(e.movetime_ms));
            out.insert(
                "search.tc".into(),
                e.tc.map(|t| t.to_string()).unwrap_or_default(),
            );
            for (k, v) in &e.options {
                out.insert(format!("option.{k}"), v.clone());
            }
            out.insert("command".into(), e.command.clone());
            if !e.args.is_empty() {
                out.insert("args".into(), format!("[{}]", e.args.join(", ")));
            }
            if let Some(dir) = &e.working_dir {
                out.insert("working_dir".into(), dir.clone());
            }
        }
    }
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
            restart: None,
        });
        let d = differences(&[a.clone(), x.clone()]);
        let keys: Vec<&str> = d.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["engine", "search.depth"], "{d:?}");
        assert_eq!(
            d[0].describe(),
            "engine: built-in | outside program (gomocup) (an outside engine is compared as a whole)"
        );
        // The limit arena gives both differs (4 and 3): said, as between built-ins.
        assert_eq!(d[1].describe(), "search.depth: 4 | 3");
        let d = differences(&[a.clone(), b.clone(), x.clone()]);
        let keys: Vec<&str> = d.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["engine", "table", "search.depth"]);
        assert_eq!(d[2].values, ["4", "3", "3"]);
        let w = confound_warning(&d).unwrap();
        assert!(w.contains("also in search.depth:"), "{w}");
        assert!(!w.contains("also in engine"), "{w}");
        // Built-in engines that differ only in their tables, against an outside engine
        // with a limit of its own: a table comparison, no warning.
        let mut b3 = b.clone();
        b3.set_all([("search.depth", toml::Value::Integer(4))])
            .unwrap();
        let mut x5 = x.clone();
        let EngineSpec::External(e) = &mut x5 else {
            unreachable!("x is outside")
        };
        e.depth = Some(5);
        let d = differences(&[a.clone(), b3, x5]);
        let keys: Vec<&str> = d.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["engine", "table", "search.depth"], "{d:?}");
        assert_eq!(confound_warning(&d), None, "{d:?}");
        // Equal limits are no difference; two outside engines differ in what arena
        // gives them (here an option and a node limit), never in their own settings.
        let mut a3 = a.clone();
        a3.set_all([("search.depth", toml::Value::Integer(3))])
            .unwrap();
        assert_eq!(differences(&[a3, x.clone()]).len(), 1);
        let mut y = x.clone();
        let EngineSpec::External(e) = &mut y else {
            unreachable!("x is outside")
        };
        e.options.insert("threads".into(), "2".into());
        e.nodes = Some(10_000);
        let d = differences(&[x, y]);
        let shown: Vec<String> = d.iter().map(Difference::describe).collect();
        assert_eq!(
            shown[1..],
            ["option.threads: - | 2", "search.nodes: 0 | 10000"],
            "{shown:?}"
        );
    }

    /// Regression: `--set-b search.nodes=10000` on a built-in engine is named.
    #[test]
    fn a_limit_set_on_one_engine_is_named() {
        let a = engine("name = \"a\"\ngame = \"gomoku\"\n[search]\ndepth = 4\n");
        let mut b = a.clone();
        b.set_all([
            ("search.nodes", toml::Value::Integer(10_000)),
            ("search.params.lmr_divisor", toml::Value::Integer(150)),
        ])
        .unwrap();
        let shown: Vec<String> = differences(&[a, b])
            .iter()
            .map(Difference::describe)
            .collect();
        assert_eq!(
            shown,
            [
                "search.nodes: 0 | 10000",
                "search.params.lmr_divisor: 200 | 150"
            ]
        );
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
