//! The range of every numeric parameter of the built-in engine, and the games that use
//! it: what `arena serve` lists (UAI `option name .. type spin .. min .. max ..`), what
//! a config, `--set`, UAI `setoption` and Gomocup `INFO <parameter> <value>` may set.
//!
//! The ranges are the values the engine works with, not a guess: past them a rule
//! means nothing (a depth past the deepest search), or its arithmetic would overflow
//! (`lmp_scale` times a squared depth), or the table could not be allocated
//! ([`crate::search::tt::max_mb`]). Gomoku's threat knowledge (`radius`,
//! `threat_prune`, the VCF and VCT budgets) is not a parameter of an Ataxx engine.
//!
//! It knows engine configs and their named parameters; it knows nothing of protocols.

use super::EngineConfig;
use crate::{
    eval::EVAL_LIMIT,
    game::GameSpec,
    search::{score::MAX_PLY, tt},
};

/// One numeric parameter of an engine: its name, value and range.
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
}

impl Param {
    /// `lo..=hi`, as the errors write a range.
    pub fn range_text(&self) -> String {
        if self.integer {
            format!("{}..={}", self.min as i64, self.max as i64)
        } else {
            format!("{}..={}", self.min, self.max)
        }
    }
}

/// Gomoku's parameters that Ataxx engines do not have.
const MNK_ONLY: [&str; 14] = [
    "search.radius",
    "search.params.lmp_defend",
    "search.params.lmp_defend_max",
    "search.params.order_far",
    "search.threat_prune",
    "search.params.vcf_moves",
    "search.params.vcf_nodes",
    "search.params.vcf_near",
    "search.params.vcf_breadth",
    "search.params.vcf_threes",
    "search.params.vcf_root_moves",
    "search.params.vcf_root_nodes",
    "search.params.vct_moves",
    "search.params.vct_nodes",
];

/// The deepest meaningful depth of a search rule.
const DEPTH: f64 = (MAX_PLY - 1) as f64;

/// The range of the parameter `name` in `config`'s engine, or None when its game does
/// not use it (or it is not a numeric parameter).
fn range(config: &EngineConfig, name: &str) -> Option<(f64, f64)> {
    if config.game.family() != "mnk" && MNK_ONLY.contains(&name) {
        return None;
    }
    let weight = f64::from(EVAL_LIMIT);
    let side = match config.game {
        GameSpec::Mnk(c) => c.width().max(c.height()) as f64,
        GameSpec::Ataxx => 7.0,
    };
    if let Some(key) = name.strip_prefix("table.") {
        // A weight past the evaluation's limit would only be clamped back to it.
        return Some(if key == "defence" {
            (0.0, 100.0)
        } else {
            (-weight, weight)
        });
    }
    let key = name.strip_prefix("search.")?;
    Some(match key {
        "depth" => (0.0, DEPTH),
        "nodes" => (0.0, 1e15),
        // A day a move.
        "movetime_ms" => (0.0, 86_400_000.0),
        "tt_mb" => (0.0, tt::max_mb() as f64),
        "top_k" => (0.0, 1000.0),
        "radius" => (0.0, side),
        "threat_prune" => (0.0, 4.0),
        "aspiration" | "random_margin" => (0.0, weight),
        "params.nmp_divisor" => (1.0, DEPTH),
        "params.lmr_divisor" => (1.0, 100_000.0),
        "params.nmp_min_depth"
        | "params.nmp_base"
        | "params.lmr_min_depth"
        | "params.rfp_depth"
        | "params.razor_depth"
        | "params.futility_depth"
        | "params.iir_depth"
        | "params.se_depth" => (0.0, DEPTH),
        // `lmp_scale · d² / 100` stays within 32 bits for every depth up to lmp_depth.
        "params.lmp_depth" => (0.0, 64.0),
        "params.lmp_scale" => (0.0, 100_000.0),
        "params.lmr_min_moves"
        | "params.lmp_base"
        | "params.lmp_defend_max"
        | "params.lmp_all_max" => (0.0, 1000.0),
        "params.lmp_defend" | "params.lmr_history" | "params.lmp_all" | "params.lmp_all_offset" => {
            (0.0, 100_000.0)
        }
        "params.order_far" => (0.0, side),
        // Hundredths of a ply, hundredths of the evaluator's unit.
        "params.lmr_base" => (0.0, 10_000.0),
        "params.rfp_margin"
        | "params.razor_margin"
        | "params.futility_margin"
        | "params.se_margin" => (0.0, 1_000_000.0),
        "params.vcf_near" | "params.vcf_threes" | "params.lmr_tactical" => (0.0, 1.0),
        "params.ext_defend_plies" | "params.ext_ply_factor" | "params.ext_defend_depth" => {
            (0.0, DEPTH)
        }
        "params.vcf_moves"
        | "params.vcf_root_moves"
        | "params.vct_moves"
        | "params.vcf_breadth" => (0.0, 100.0),
        "params.vcf_nodes" | "params.vcf_root_nodes" | "params.vct_nodes" => (0.0, 100_000_000.0),
        _ => return None,
    })
}

impl EngineConfig {
    /// Every numeric parameter its game uses, with its range, in name order: what a
    /// served engine lists and takes by name.
    pub fn tunable_params(&self) -> Vec<Param> {
        self.numeric_params()
            .into_iter()
            .filter_map(|(name, value, integer)| {
                let (min, max) = range(self, &name)?;
                Some(Param {
                    name,
                    value,
                    integer,
                    min,
                    max,
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
        use super::config::OrderingKind as O;
        let s = &self.search;
        let ordered = |k: O| s.ordering.contains(&k);
        let key = name.strip_prefix("search.")?;
        // The switch a parameter works through, by prefix; then the orderings.
        let switch = match key.strip_prefix("params.") {
            Some(p) if p.starts_with("nmp_") => Some(("null_move", s.null_move)),
            Some(p) if p.starts_with("lmr_") => Some(("lmr", s.lmr)),
            Some(p) if p.starts_with("ext_") => Some(("extensions", s.extensions)),
            Some(p) if p.starts_with("rfp_") => Some(("reverse_futility", s.reverse_futility)),
            Some(p) if p.starts_with("razor_") => Some(("razoring", s.razoring)),
            Some(p) if p.starts_with("futility_") => Some(("futility", s.futility)),
            Some(p) if p.starts_with("lmp_") => Some(("late_move_pruning", s.late_move_pruning)),
            Some("iir_depth") => Some(("iir", s.iir)),
            Some(p) if p.starts_with("se_") => Some(("singular", s.singular)),
            Some(p) if p.starts_with("vcf_") => Some(("vcf", s.vcf)),
            Some(p) if p.starts_with("vct_") => Some(("vct", s.vct)),
            _ => None,
        };
        if let Some((switch, false)) = switch {
            return Some(format!("search.{switch} is off"));
        }
        let needs = match key {
            "params.order_far" => Some((O::Static, "static")),
            "params.lmr_history" => Some((O::History, "history")),
            "threat_prune" => Some((O::Threat, "threat")),
            _ => None,
        };
        if let Some((kind, word)) = needs
            && !ordered(kind)
        {
            return Some(format!("search.ordering has no \"{word}\""));
        }
        // The number a parameter works through, and whether its value turns the rule
        // off: a depth limit of 0 (the rule applies at no node, every node having at
        // least a ply left), a count of 0 that means "off".
        let p = &s.params;
        let (parent, value, off, meaning) = match key.strip_prefix("params.")? {
            "lmp_defend_max" => ("lmp_defend", p.lmp_defend, p.lmp_defend == 0, "off"),
            "lmp_all_offset" | "lmp_all_max" => ("lmp_all", p.lmp_all, p.lmp_all == 0, "off"),
            "lmp_base" | "lmp_scale" => ("lmp_depth", p.lmp_depth, p.lmp_depth == 0, "no ply"),
            "rfp_margin" => ("rfp_depth", p.rfp_depth, p.rfp_depth == 0, "no ply"),
            "razor_margin" => ("razor_depth", p.razor_depth, p.razor_depth == 0, "no ply"),
            "futility_margin" => (
                "futility_depth",
                p.futility_depth,
                p.futility_depth == 0,
                "no ply",
            ),
            // The bound applies only to defences longer than a four's (2 plies).
            "ext_ply_factor" | "ext_defend_depth" => (
                "ext_defend_plies",
                p.ext_defend_plies,
                p.ext_defend_plies <= 2,
                "only fours extended, which this does not bound",
            ),
            _ => return None,
        };
        let parent = format!("search.params.{parent}");
        (off && !moving.iter().any(|m| m.eq_ignore_ascii_case(&parent)))
            .then(|| format!("{parent} is {value} ({meaning})"))
    }

    /// Checks that every parameter its game uses is within its range; the error names
    /// the first that is not.
    pub fn check_ranges(&self) -> Result<(), String> {
        for p in self.tunable_params() {
            if !(p.value >= p.min && p.value <= p.max) {
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
        let mut wide = gomoku.clone();
        wide.search.params.lmp_scale = 4_000_000_000;
        let e = wide.check_ranges().unwrap_err();
        assert!(e.contains("search.params.lmp_scale = 4000000000"), "{e}");
        assert!(e.contains("0..=100000"), "{e}");
    }
}
