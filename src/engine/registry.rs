//! The parameter registry of the built-in engine, whole: the keys of `[search]`, each
//! declared once where its struct is ([`SearchConfig::SPECS`] here in the engine, the
//! switches [`SWITCHES`] and the numbers [`SearchParams::SPECS`] in the search), and the
//! weight table's (`table.*`). From it come each numeric parameter's validity range (what
//! a config, `--set`, UAI `setoption` and Gomocup `INFO <parameter> <value>` may set:
//! past it a rule means nothing, its arithmetic would overflow, or the table could not be
//! allocated), the range sensible to tune it in (what `arena serve` lists as an option's
//! `min` and `max`, and what `arena tune` takes when `[[params]]` gives none), the
//! parameters a game has (gomoku's threat knowledge is not an Ataxx engine's), why a
//! parameter changes no move ([`EngineConfig::inert_reason`]), and the reference page
//! `docs/parameters.md` ([`parameters_page`]).
//!
//! A weight of a table is valid within the evaluation's limit (`defence` within 0..=100),
//! and is tuned within a quarter to four times its value ([`range_around`]).
//!
//! It knows engine configs and their named parameters; it knows nothing of protocols.

use super::{EngineConfig, config::SearchConfig};
use crate::{
    config,
    eval::EVAL_LIMIT,
    game::GameSpec,
    search::{
        SearchParams,
        params::{Bound, Kind, SWITCHES, Spec},
    },
};

/// One numeric parameter of an engine: its name, value and ranges.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The dotted name (`search.params.lmr_divisor`, `table.open_three`).
    pub name: String,
    /// The value now.
    pub value: f64,
    /// Whether it takes integers only.
    pub integer: bool,
    /// The least value it takes.
    pub min: f64,
    /// The largest value it takes.
    pub max: f64,
    /// The least value sensible to tune it at (at most `value`).
    pub tune_min: f64,
    /// The largest value sensible to tune it at (at least `value`).
    pub tune_max: f64,
}

impl Param {
    /// `lo..=hi`, as the errors write a range.
    pub fn range_text(&self) -> String {
        range_text(self.min, self.max, self.integer)
    }
}

fn range_text(min: f64, max: f64, integer: bool) -> String {
    if integer {
        format!("{}..={}", min as i64, max as i64)
    } else {
        format!("{min}..={max}")
    }
}

/// Every key of `[search]` (switches, numbers and the rest), in the order the reference
/// page lists them.
pub fn search_specs() -> impl Iterator<Item = &'static Spec> {
    SearchConfig::SPECS
        .iter()
        .chain(SWITCHES)
        .chain(SearchParams::SPECS)
}

/// The declaration of the `[search]` key `name` (`search.params.lmr_divisor`).
pub fn spec(name: &str) -> Option<&'static Spec> {
    search_specs().find(|s| s.name == name)
}

/// A range around `value` to tune it in when nothing better is known: a quarter to four
/// times the value (of the same sign), 0..=100 (0..=1 for a fraction) around 0.
pub fn range_around(value: f64, integer: bool) -> (f64, f64) {
    let (lo, hi) = if value == 0.0 {
        (0.0, if integer { 100.0 } else { 1.0 })
    } else if value > 0.0 {
        (value / 4.0, value * 4.0)
    } else {
        (value * 4.0, value / 4.0)
    };
    if integer {
        (lo.floor(), hi.ceil())
    } else {
        (lo, hi)
    }
}

/// The longest side of the engine's board.
fn board_side(config: &EngineConfig) -> f64 {
    match config.game {
        GameSpec::Mnk(c) => c.width().max(c.height()) as f64,
        GameSpec::Ataxx => 7.0,
    }
}

/// The validity and tune ranges of the parameter `name` (whose value is `value`) in
/// `config`'s engine, or None when its game does not use it (or it is not a numeric
/// parameter). The tune range holds the value and stays within the validity range.
fn ranges(config: &EngineConfig, name: &str, value: f64, integer: bool) -> Option<[f64; 4]> {
    let (valid, tune) = if let Some(key) = name.strip_prefix("table.") {
        // A weight past the evaluation's limit would only be clamped back to it.
        let weight = f64::from(EVAL_LIMIT);
        let valid = if key == "defence" {
            (0.0, 100.0)
        } else {
            (-weight, weight)
        };
        (valid, range_around(value, integer))
    } else {
        let spec = spec(name)?;
        if spec.kind != Kind::Integer || !spec.games.includes(config.game.family()) {
            return None;
        }
        let side = board_side(config);
        (
            (spec.valid.0.resolve(side), spec.valid.1.resolve(side)),
            spec.tune,
        )
    };
    let tune_min = tune.0.min(value).max(valid.0);
    let tune_max = tune.1.max(value).min(valid.1);
    Some([valid.0, valid.1, tune_min, tune_max])
}

impl EngineConfig {
    /// Every numeric parameter its game uses, with its ranges, in name order: what a
    /// served engine lists and takes by name.
    pub fn tunable_params(&self) -> Vec<Param> {
        self.numeric_params()
            .into_iter()
            .filter_map(|(name, value, integer)| {
                let [min, max, tune_min, tune_max] = ranges(self, &name, value, integer)?;
                Some(Param {
                    name,
                    value,
                    integer,
                    min,
                    max,
                    tune_min,
                    tune_max,
                })
            })
            .collect()
    }

    /// The parameter `name` (matched without regard to case, as UAI option names are),
    /// if its game uses it.
    pub fn tunable_param(&self, name: &str) -> Option<Param> {
        self.tunable_params()
            .into_iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// Why the parameter `name` changes no move of this engine, if it changes none
    /// whatever its value: the switch or ordering it works through is off
    /// (`search.params.razor_margin` without `search.razoring`, `order_far` without
    /// `static` in `search.ordering`), or the number it works through has the value that
    /// turns its rule off (`lmp_defend_max` while `lmp_defend` is 0). `None` for a
    /// parameter that can change moves, and for names this does not know.
    pub fn inert_reason(&self, name: &str) -> Option<String> {
        self.inert_reason_while(name, &[])
    }

    /// [`EngineConfig::inert_reason`] for a parameter moved together with `moving` (the
    /// other parameters of a tune): a number that works through one of them is not inert,
    /// since that one may move away from the value that turns its rule off.
    pub fn inert_reason_while(&self, name: &str, moving: &[&str]) -> Option<String> {
        let spec = spec(name)?;
        let s = &self.search;
        // A switch's own `switch` is one it needs, which the config's checks enforce.
        if spec.kind != Kind::Switch
            && let Some(switch) = spec.switch
            && s.switch(switch) == Some(false)
        {
            return Some(format!("search.{switch} is off"));
        }
        if let Some(word) = spec.ordering
            && !s.ordering.iter().any(|k| k.as_str() == word)
        {
            return Some(format!("search.ordering has no \"{word}\""));
        }
        let off = spec.off_when?;
        let value = s.params.get(off.key)?;
        let parent = format!("search.params.{}", off.key);
        (value <= f64::from(off.at_most) && !moving.iter().any(|m| m.eq_ignore_ascii_case(&parent)))
            .then(|| format!("{parent} is {value} ({})", off.meaning))
    }

    /// Checks that every number of `[search]` is within its validity range (in every
    /// game: an Ataxx engine's gomoku numbers are checked too), and every weight of the
    /// table within its own; the error names the first that is not.
    pub fn check_ranges(&self) -> Result<(), String> {
        let tree = self.params();
        let side = board_side(self);
        for spec in search_specs().filter(|s| s.kind == Kind::Integer) {
            let Some(value) = config::get_path(&tree, spec.name).and_then(toml::Value::as_integer)
            else {
                continue;
            };
            let (min, max) = (spec.valid.0.resolve(side), spec.valid.1.resolve(side));
            let v = value as f64;
            if !(v >= min && v <= max) {
                return Err(format!(
                    "{} = {value} is outside its range {}",
                    spec.name,
                    range_text(min, max, true)
                ));
            }
        }
        for p in self.tunable_params() {
            if p.name.starts_with("table.") && !(p.value >= p.min && p.value <= p.max) {
                let value = if p.integer {
                    format!("{}", p.value as i64)
                } else {
                    format!("{}", p.value)
                };
                return Err(format!(
                    "{} = {value} is outside its range {}",
                    p.name,
                    p.range_text()
                ));
            }
        }
        Ok(())
    }
}

/// The reference page of every `[search]` parameter, `docs/parameters.md`, as the
/// registry declares them (the test `parameters_page_is_what_the_registry_declares`
/// keeps the checked-in page equal to it; `UPDATE_DOCS=1` rewrites it).
pub fn parameters_page() -> String {
    let defaults = config::to_table(&SearchConfig::default());
    let default = |spec: &Spec| {
        let key = spec.name.trim_start_matches("search.");
        config::get_path(&defaults, key).map_or(String::new(), |v| match v {
            toml::Value::String(s) => format!("{s:?}"),
            v => v.to_string(),
        })
    };
    let cell = |text: &str| text.replace('|', "\\|");
    let number = |v: f64| {
        if v.abs() >= 10_000.0 && v.fract() == 0.0 {
            // 1_000_000: thousands grouped as Rust and TOML write them.
            let digits = format!("{}", v as i64);
            let mut out = String::new();
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i) % 3 == 0 {
                    out.push('_');
                }
                out.push(c);
            }
            out
        } else {
            format!("{v}")
        }
    };
    let bound = |b: Bound| match b {
        Bound::Value(v) => number(v),
        b => b.label(),
    };
    let through = |spec: &Spec| {
        let mut parts = Vec::new();
        if spec.kind != Kind::Switch
            && let Some(s) = spec.switch
        {
            parts.push(format!("`{s}`"));
        }
        if let Some(o) = spec.ordering {
            parts.push(format!("`\"{o}\"` in `ordering`"));
        }
        if let Some(o) = spec.off_when {
            parts.push(format!("`{}` above {}", o.key, o.at_most));
        }
        parts.join(", ")
    };
    let mut page = String::from(
        "# Search parameters\n\n\
         <!-- Generated from the parameter registry (src/search/params.rs and \
         src/engine/config.rs): do not edit.\n     \
         Regenerate after changing a declaration: UPDATE_DOCS=1 cargo test --lib \
         parameters_page -->\n\n\
         Every key of an engine config's `[search]` section, as a config, `--set NAME=VALUE`, \
         a tune's `[[params]]`, UAI `setoption` and Gomocup `INFO NAME VALUE` name it. \
         **valid** is what a config may hold (past it a rule means nothing, or its \
         arithmetic would overflow); **tune** is the range sensible to tune it in: what \
         `arena serve` advertises as the option's `min` and `max`, and what `arena tune` \
         takes when a `[[params]]` entry gives no `min` and `max` (widened to hold the \
         engine's value). **games**: `m,n,k` parameters are not an Ataxx engine's (it \
         neither lists nor takes them as options). **works through**: while that switch is \
         off, that ordering missing, or that number at the value that turns its rule off, \
         the parameter changes no move: a tune of it is refused, and so is a sweep over it when \
         it changes no engine's moves (`arena match --set` warns).\n\n\
         Margins are in hundredths of the evaluator's unit (a stone in Ataxx, a stone's \
         share of an open three in gomoku), so they mean the same with any table.\n",
    );
    page.push_str(
        "\n## Limits and settings (`search.*`)\n\n\
         | name | default | valid | tune | games | works through | what it is |\n\
         |---|---|---|---|---|---|---|\n",
    );
    let row = |spec: &Spec| {
        let (valid, tune) = if spec.kind == Kind::Integer {
            (
                format!("{}..={}", bound(spec.valid.0), bound(spec.valid.1)),
                format!("{}..={}", number(spec.tune.0), number(spec.tune.1)),
            )
        } else {
            (String::new(), String::new())
        };
        format!(
            "| `{}` | {} | {valid} | {tune} | {} | {} | {} |\n",
            spec.name,
            cell(&default(spec)),
            spec.games.label(),
            through(spec),
            cell(&spec.doc_line())
        )
    };
    for spec in SearchConfig::SPECS {
        page.push_str(&row(spec));
    }
    page.push_str(
        "\n## Switches (`search.*`, `true` or `false`, off unless a config turns them on)\n\n\
         | name | games | needs | what it does |\n\
         |---|---|---|---|\n",
    );
    for spec in SWITCHES {
        page.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            spec.name,
            spec.games.label(),
            spec.switch.map_or(String::new(), |s| format!("`{s}`")),
            cell(&spec.doc_line())
        ));
    }
    page.push_str(
        "\n## Numbers of the rules (`search.params.*`)\n\n\
         | name | default | valid | tune | games | works through | what it is |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for spec in SearchParams::SPECS {
        page.push_str(&row(spec));
    }
    page.push_str(&format!(
        "\n## Table weights (`table.*`)\n\n\
         Every number of the engine's weight table is a parameter too (`table.open_three`, \
         `table.points.five`): valid within the evaluation's limit (-{0}..={0}; \
         `table.defence` within 0..=100), tuned within a quarter to four times its value \
         (0..=100 around 0, 0..=1 for a fraction at 0).\n",
        number(f64::from(EVAL_LIMIT))
    ));
    page
}

#[cfg(test)]
mod tests {
    use crate::engine::builtin;

    #[test]
    fn a_parameter_whose_switch_or_ordering_is_off_is_inert() {
        // gomoku-strong: no razoring, no counter; static, threat and history ordered.
        let strong = crate::engine::EngineConfig::load(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("configs/engines/gomoku-strong.toml"),
        )
        .unwrap();
        let inert = |e: &crate::engine::EngineConfig, n: &str| e.inert_reason(n);
        assert_eq!(
            inert(&strong, "search.params.razor_margin").as_deref(),
            Some("search.razoring is off")
        );
        for live in [
            "search.params.rfp_margin",
            "search.params.lmr_divisor",
            "search.params.lmr_history",
            "search.params.nmp_base",
            "search.params.lmp_scale",
            "search.params.futility_margin",
            "search.params.iir_depth",
            "search.params.vcf_nodes",
            "search.params.ext_defend_plies",
            "search.params.order_far",
            "search.threat_prune",
            "search.radius",
            "search.aspiration",
            "table.open_three",
            "search.nodes",
        ] {
            assert_eq!(inert(&strong, live), None, "{live}");
        }
        // Every switch in turn, and the orderings.
        for (param, switch) in [
            ("search.params.nmp_base", "null_move"),
            ("search.params.lmr_base", "lmr"),
            ("search.params.ext_ply_factor", "extensions"),
            ("search.params.rfp_depth", "reverse_futility"),
            ("search.params.futility_depth", "futility"),
            ("search.params.lmp_all", "late_move_pruning"),
            ("search.params.iir_depth", "iir"),
            ("search.params.vcf_near", "vcf"),
        ] {
            let mut e = strong.clone();
            e.set(&format!("search.{switch}"), toml::Value::Boolean(false))
                .unwrap();
            assert_eq!(
                inert(&e, param),
                Some(format!("search.{switch} is off")),
                "{param}"
            );
        }
        assert_eq!(
            inert(&strong, "search.params.vct_nodes").as_deref(),
            Some("search.vct is off")
        );
        assert_eq!(
            inert(&strong, "search.params.se_margin").as_deref(),
            Some("search.singular is off")
        );
        let mut e = strong.clone();
        e.set("search.singular", toml::Value::Boolean(true))
            .unwrap();
        assert_eq!(inert(&e, "search.params.se_depth"), None);
        // A number whose rule another number's value turns off: inert, unless that one
        // is moved too.
        assert_eq!(
            inert(&strong, "search.params.lmp_defend_max").as_deref(),
            Some("search.params.lmp_defend is 0 (off)")
        );
        assert_eq!(
            strong.inert_reason_while(
                "search.params.lmp_defend_max",
                &["search.params.lmp_defend"]
            ),
            None
        );
        assert_eq!(
            inert(&strong, "search.params.lmp_all_offset").as_deref(),
            Some("search.params.lmp_all is 0 (off)")
        );
        assert_eq!(inert(&strong, "search.params.ext_ply_factor"), None);
        let mut e = strong.clone();
        e.set("search.params.ext_defend_plies", toml::Value::Integer(2))
            .unwrap();
        e.set("search.params.rfp_depth", toml::Value::Integer(0))
            .unwrap();
        assert!(
            inert(&e, "search.params.ext_ply_factor")
                .is_some_and(|w| w.starts_with("search.params.ext_defend_plies is 2 ")),
            "{:?}",
            inert(&e, "search.params.ext_ply_factor")
        );
        assert!(
            inert(&e, "search.params.ext_defend_depth")
                .is_some_and(|w| w.starts_with("search.params.ext_defend_plies is 2 "))
        );
        assert_eq!(inert(&strong, "search.params.ext_defend_depth"), None);
        assert_eq!(
            inert(&e, "search.params.rfp_margin").as_deref(),
            Some("search.params.rfp_depth is 0 (no ply)")
        );
        let mut e = strong.clone();
        e.set(
            "search.ordering",
            toml::Value::Array(vec!["tt_move".into(), "killers".into()]),
        )
        .unwrap();
        assert_eq!(
            inert(&e, "search.params.order_far").as_deref(),
            Some("search.ordering has no \"static\"")
        );
        assert_eq!(
            inert(&e, "search.params.lmr_history").as_deref(),
            Some("search.ordering has no \"history\"")
        );
        assert_eq!(
            inert(&e, "search.threat_prune").as_deref(),
            Some("search.ordering has no \"threat\"")
        );
    }

    #[test]
    fn ataxx_engines_have_no_gomoku_parameters_and_every_range_is_real() {
        let ataxx = builtin::engine("ataxx-seed004").unwrap();
        let names: Vec<String> = ataxx.tunable_params().into_iter().map(|p| p.name).collect();
        assert!(names.iter().any(|n| n == "search.params.lmr_divisor"));
        assert!(names.iter().any(|n| n == "table.material"));
        for gone in [
            "search.radius",
            "search.threat_prune",
            "search.params.vcf_nodes",
        ] {
            assert!(!names.iter().any(|n| n == gone), "{gone}");
        }
        let gomoku = builtin::engine("gomoku-seed003-threat").unwrap();
        let all = gomoku.tunable_params();
        assert!(all.iter().any(|p| p.name == "search.params.vct_nodes"));
        for p in &all {
            assert!(p.min <= p.value && p.value <= p.max, "{p:?}");
            assert!(p.max < 1e9 || p.name == "search.nodes", "{p:?}");
        }
        assert_eq!(
            gomoku
                .tunable_param("Search.Params.LMR_divisor")
                .unwrap()
                .name,
            "search.params.lmr_divisor"
        );
        // Every number a gomoku engine has is tunable and servable (a number without a
        // range could be set in a config but neither tuned nor sent as an option).
        let tunable: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
        let missing: Vec<String> = gomoku
            .numeric_params()
            .into_iter()
            .map(|(name, _, _)| name)
            .filter(|n| !tunable.contains(&n.as_str()))
            .collect();
        assert!(missing.is_empty(), "numbers without a range: {missing:?}");
        // The gomoku-only numbers (threat knowledge, the defence extensions) are not an
        // Ataxx engine's.
        for gone in [
            "search.params.ext_defend_plies",
            "search.params.ext_ply_factor",
            "search.params.ext_defend_depth",
            "search.params.lmp_defend",
            "search.params.order_far",
        ] {
            assert!(!names.iter().any(|n| n == gone), "{gone}");
            assert!(all.iter().any(|p| p.name == gone), "{gone}");
        }
        // Tune ranges: within the validity range, holding the value.
        for p in &all {
            assert!(
                p.min <= p.tune_min && p.tune_min <= p.value && p.value <= p.tune_max,
                "{p:?}"
            );
            assert!(p.tune_max <= p.max, "{p:?}");
        }
        let margin = gomoku
            .tunable_param("search.params.futility_margin")
            .unwrap();
        assert_eq!((margin.min, margin.max), (0.0, 1_000_000.0));
        assert_eq!((margin.tune_min, margin.tune_max), (25.0, 400.0));
        let mut wide = gomoku.clone();
        wide.search.params.lmp_scale = 4_000_000_000;
        let e = wide.check_ranges().unwrap_err();
        assert!(e.contains("search.params.lmp_scale = 4000000000"), "{e}");
        assert!(e.contains("0..=100000"), "{e}");
    }

    #[test]
    fn a_range_around_a_value_holds_it() {
        use super::range_around;
        assert_eq!(range_around(7500.0, true), (1875.0, 30_000.0));
        assert_eq!(range_around(7.0, true), (1.0, 28.0));
        assert_eq!(range_around(-10.0, true), (-40.0, -2.0));
        assert_eq!(range_around(0.0, true), (0.0, 100.0));
        assert_eq!(range_around(1.0, false), (0.25, 4.0));
        assert_eq!(range_around(0.0, false), (0.0, 1.0));
    }

    /// A wrong key in a message (`search.lmr_divisor` for `search.params.lmr_divisor`)
    /// cannot come back: every message names the registry's key.
    #[test]
    fn a_number_out_of_its_range_is_refused_by_its_real_key() {
        let mut e = builtin::engine("gomoku-seed003-threat").unwrap();
        let err = e
            .set("search.params.lmr_divisor", toml::Value::Integer(0))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "search.params.lmr_divisor = 0 is outside its range 1..=100000"
        );
        for (key, v) in [
            ("search.params.lmr_tactical", 2),
            ("search.params.vcf_near", 3),
            ("search.params.vcf_moves", 101),
            ("search.params.nmp_divisor", 0),
            ("search.threat_prune", 5),
        ] {
            let err = e.set(key, toml::Value::Integer(v)).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("{key} = {v} is outside its range")),
                "{err}"
            );
        }
        // An Ataxx engine's gomoku numbers are checked too, though it has no use for them.
        let mut ataxx = builtin::engine("ataxx-seed004").unwrap();
        let err = ataxx
            .set("search.params.vcf_near", toml::Value::Integer(2))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("search.params.vcf_near = 2 is outside"),
            "{err}"
        );
    }

    /// The checked-in docs/parameters.md is the page the registry generates; with
    /// `UPDATE_DOCS=1` this test writes it instead (after changing a declaration:
    /// `UPDATE_DOCS=1 cargo test --lib parameters_page`).
    #[test]
    fn parameters_page_is_what_the_registry_declares() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/parameters.md");
        let page = super::parameters_page();
        if std::env::var_os("UPDATE_DOCS").is_some_and(|v| v == "1") {
            std::fs::write(&path, &page).unwrap();
            return;
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == page,
            "docs/parameters.md is not what the registry declares: regenerate it with \
             UPDATE_DOCS=1 cargo test --lib parameters_page"
        );
        // Every declared key is on the page, once.
        for spec in super::search_specs() {
            assert_eq!(
                page.matches(&format!("| `{}` |", spec.name)).count(),
                1,
                "{}",
                spec.name
            );
        }
    }

    /// Every key of `[search]` (and of `[search.params]`) is declared, and nothing else
    /// is: the struct and the registry cannot drift apart.
    #[test]
    fn every_search_key_is_declared_once() {
        let tree = crate::config::to_table(&crate::engine::config::SearchConfig::default());
        let mut keys: Vec<String> = Vec::new();
        for (k, v) in &tree {
            match v {
                toml::Value::Table(t) => keys.extend(t.keys().map(|p| format!("search.{k}.{p}"))),
                _ => keys.push(format!("search.{k}")),
            }
        }
        let mut declared: Vec<String> = super::search_specs().map(|s| s.name.to_string()).collect();
        keys.sort();
        declared.sort();
        assert_eq!(keys, declared);
    }
}
