//! Fit configs (TOML), as tune configs are: unknown keys are errors, and every error
//! names the file, the line and the key.
//!
//! ```toml
//! name = "fit-gomoku"
//! engine = "engines/gomoku-seed003-threat.toml"   # the base engine, its table fitted
//! set = { "search.depth" = 3 }    # named parameters of the base engine
//! games = ["../results/gomoku-tables"]   # results folders to read (optional)
//! data = ["../results/datagen-gomoku-strong"]   # or arena datagen output (streamed)
//! lambda = 0.5                    # datagen: label = lambda·result + (1 - lambda)·score
//! params = "all"                  # or ["table.open_three", { name = "table.defence", min = 0.5, max = 3 }]
//! epochs = 30
//! lr = 0.02                       # Adam's step, a fraction of each parameter's range
//! batch = 16384                   # positions per step
//! loss = "mse"                    # or "log"
//! skip_plies = 6                  # positions with fewer plies on the board are skipped
//! validation = 0.1                # fraction of games held out
//! seed = 1
//!
//! [selfplay]                      # play games of the base engine first (optional)
//! pairs = 500
//! set = { "search.depth" = 2, "search.random_margin" = 200 }
//!
//! [openings]                      # of the self-play games and the verification match
//! [adjudication]
//! [verification]                  # as in tune configs
//! ```

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{
    features::{SlotError, ataxx_slot_of, mnk_slot_of},
    model::Loss,
    net::NetLayout,
};
use crate::{
    config::{self, ConfigError, top_level_line},
    engine::EngineConfig,
    eval::{
        Table,
        net::{AtaxxNet, MAX_HIDDEN},
        patterns::Pattern,
        table::MnkEvaluation,
    },
    protocol::EngineSpec,
    tune::{
        base::{JobBase, JobRead, apply_set, job_file, resolved_job},
        config::{ValueRefused, check_verification_and_openings, job_config, number, param_line},
    },
};

/// One parameter as written: a name, or a table with optional bounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamItem {
    /// `"table.open_three"`: bounds by default.
    Name(String),
    /// `{ name = "table.defence", min = 0.5, max = 3 }`.
    Entry {
        /// The named parameter.
        name: String,
        /// Lowest value (default: see [`default_bounds`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<f64>,
        /// Highest value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<f64>,
    },
}

impl ParamItem {
    fn name(&self) -> &str {
        match self {
            ParamItem::Name(n) | ParamItem::Entry { name: n, .. } => n,
        }
    }
}

/// `params`: `"all"` or a list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Params {
    /// `"all"`: every weight the evaluation reads (but `five`, which no quiet position
    /// shows).
    All(String),
    /// The named ones.
    List(Vec<ParamItem>),
}

/// The `[selfplay]` section: games of the base engine against itself, played first into
/// `<out>/selfplay/`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelfplayConfig {
    /// Game pairs (two games per opening, colours swapped).
    pub pairs: u32,
    /// Master seed (default: the fit's seed + 2).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::config::toml_u64::option"
    )]
    pub seed: Option<u64>,
    /// Named parameters of both players (a depth or node limit, `search.random_margin`
    /// so that a pair's two games differ).
    #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
    pub set: toml::Table,
}

job_config! {
    /// A fit config as written.
    pub struct FitConfig {
        /// Results folders whose games are read (relative to this config).
        #[serde(default)]
        pub games: Vec<String>,
        /// `arena datagen` output (folders or files, relative to this config), read
        /// instead of game records and streamed from disk every epoch.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub data: Vec<String>,
        /// With `data`: the weight of the game's result in each position's label, the
        /// rest going to the search score as a probability, sigmoid(K · score) (0: the
        /// score alone, 1: the result alone; default 0.5).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub lambda: Option<f64>,
        /// The parameters to fit.
        pub params: Params,
        /// Passes over the training positions.
        #[serde(default = "default_epochs")]
        pub epochs: u64,
        /// Adam's step as a fraction of each parameter's range (decays to a twentieth).
        #[serde(default = "default_lr")]
        pub lr: f64,
        /// Positions per step.
        #[serde(default = "default_batch")]
        pub batch: usize,
        /// What is minimised.
        #[serde(default)]
        pub loss: Loss,
        /// Positions with fewer plies on the board (opening included) are skipped.
        #[serde(default = "default_skip_plies")]
        pub skip_plies: u32,
        /// Fraction of games held out for validation.
        #[serde(default = "default_validation")]
        pub validation: f64,
        /// Ataxx: positions where the side to move can gain more than this many stones
        /// of material difference in one move are skipped as not quiet (default
        /// [`DEFAULT_QUIET_GAIN`]; 0 keeps only positions without a capture, 99 keeps
        /// every position).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub quiet_gain: Option<u32>,
        /// Self-play games to generate first.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub selfplay: Option<SelfplayConfig>,
        /// Ataxx: fit the table's `[net]` too (a new one when the table has none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub net: Option<NetConfig>,
    }
}

/// The `[net]` section of a fit config: the table's net is fitted with its weights
/// (docs/fitting.md, "A net on top of the table").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    /// Hidden units of a new net (default: the table's net's, else 32). A table with a
    /// net of another size is an error: its net is the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<usize>,
    /// Adam's step for the net's numbers, in their own units (decays with `lr`).
    #[serde(default = "default_net_lr")]
    pub lr: f64,
    /// Each training step shows the net every position in one of the board's eight
    /// symmetries (turned or mirrored), drawn by the seed: eight times the positions for
    /// the net to learn from, and a net that scores a position and its mirror alike.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub symmetries: bool,
}

fn default_net_lr() -> f64 {
    0.002
}

/// Hidden units of a new net when `[net]` gives none.
pub const DEFAULT_HIDDEN: usize = 32;

/// The net a fit fits, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct NetFit {
    /// Its shape.
    pub layout: NetLayout,
    /// Its numbers at the start, in the fit's units: the table's net, or a new one.
    pub start: Vec<f64>,
    /// Adam's step for them.
    pub lr: f64,
    /// Whether each step shows the net the positions in drawn symmetries.
    pub symmetries: bool,
}

/// The Ataxx `quiet_gain` when a config has none.
pub const DEFAULT_QUIET_GAIN: u32 = 8;

fn default_epochs() -> u64 {
    20
}
fn default_lr() -> f64 {
    0.02
}
fn default_batch() -> usize {
    16384
}
fn default_skip_plies() -> u32 {
    6
}
fn default_validation() -> f64 {
    0.1
}

/// A fitted parameter, resolved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitParam {
    /// `table.open_three`.
    pub name: String,
    /// Its slot in the weight vector.
    pub slot: usize,
    /// Lowest value.
    pub min: f64,
    /// Highest value.
    pub max: f64,
    /// The base table's value.
    pub start: f64,
    /// Whether the table takes whole numbers only.
    pub integer: bool,
}

/// Bounds of a parameter given none: 0 to four times the start (a factor of four
/// either way for `defence`), ±100 around a start of 0.
pub fn default_bounds(name: &str, start: f64) -> (f64, f64) {
    if name.ends_with("defence") {
        (start / 4.0, start * 4.0)
    } else if start > 0.0 {
        (0.0, start * 4.0)
    } else if start < 0.0 {
        (start * 4.0, 0.0)
    } else {
        (-100.0, 100.0)
    }
}

/// A fit with its base engine and parameters resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// The config as written (or made from flags).
    pub config: FitConfig,
    /// The base engine, `set` applied.
    pub base: EngineConfig,
    /// The parameters.
    pub params: Vec<FitParam>,
    /// The results folders to read, resolved.
    pub games: Vec<PathBuf>,
    /// The datagen folders or files to read, resolved.
    pub data: Vec<PathBuf>,
    /// The game, the base engine's file and where the config came from.
    pub job: JobBase,
    /// The table's `[net]`, when fitted.
    pub net: Option<NetFit>,
}

job_file!(Fit, FitConfig, Fit, "the fit reads");

impl Fit {
    /// Resolves the keys of a fit config that are its own (see [`job_file`]).
    fn resolve_own(config: FitConfig, read: JobRead<'_>) -> Result<Fit, ConfigError> {
        let Some(engine) = read.engine.builtin() else {
            return Err(read.at(
                read.key_line("engine"),
                format!(
                    "key `engine`: '{}' is an outside engine: arena fit fits a built-in \
                     engine's weight table (tune an outside engine's options with arena tune)",
                    read.engine.name()
                ),
            ));
        };
        if engine.table.is_none() || engine.table_path.is_none() {
            return Err(read.at(
                read.key_line("engine"),
                format!(
                    "key `engine`: '{}' has no weight table file to fit (`table = ...`)",
                    engine.name
                ),
            ));
        }
        let checks: [(&str, bool, &str); 7] = [
            ("epochs", config.epochs >= 1, "must be at least 1"),
            (
                "lr",
                config.lr > 0.0 && config.lr <= 1.0,
                "must be in (0, 1]: a fraction of each parameter's range",
            ),
            ("batch", config.batch >= 1, "must be at least 1"),
            (
                "validation",
                (0.0..0.9).contains(&config.validation),
                "must be in [0, 0.9): the fraction of games held out",
            ),
            (
                "games",
                !config.games.is_empty() || config.selfplay.is_some() || !config.data.is_empty(),
                "no positions to fit: name results folders in `games`, datagen output in \
                 `data`, or add [selfplay]",
            ),
            (
                "data",
                config.data.is_empty() || (config.games.is_empty() && config.selfplay.is_none()),
                "a fit reads either datagen output (`data`) or game records (`games`, \
                 [selfplay]), not both",
            ),
            (
                "lambda",
                config.lambda.is_none_or(|l| (0.0..=1.0).contains(&l)),
                "must be in [0, 1]: the weight of the result in the label",
            ),
        ];
        for (key, ok, why) in checks {
            if !ok {
                return Err(read.at(read.key_line(key), format!("key `{key}`: {why}")));
            }
        }
        let net = resolve_net(engine, config.net.as_ref(), config.seed)
            .map_err(|m| read.at(config::line_of(read.text, "[net]"), m))?;
        let params = resolve_params(engine, &config.params, read.text, net.is_some())
            .map_err(|(line, m)| read.at(line.or(read.key_line("params")), m))?;
        if let Some(s) = &config.selfplay {
            let line = config::line_of(read.text, "[selfplay]");
            if s.pairs == 0 {
                return Err(read.at(line, "[selfplay] pairs: must be at least 1".into()));
            }
            let mut probe = EngineSpec::Builtin(engine.clone());
            apply_set(
                &mut probe,
                &s.set,
                read.source,
                read.text,
                line,
                "[selfplay] set",
            )?;
            if probe.builtin().is_some_and(|c| c.search.is_timed()) {
                return Err(read.at(
                    line,
                    "[selfplay]: the games must be limited by depth or nodes (a time limit \
                     makes them unreproducible, and a resumed fit would differ)"
                        .into(),
                ));
            }
        }
        check_verification_and_openings(
            read.source,
            read.text,
            &EngineSpec::Builtin(engine.clone()),
            read.job.game,
            config.verification.as_ref(),
            &config.openings,
        )?;
        let games: Vec<PathBuf> = config.games.iter().map(|g| read.job.resolve(g)).collect();
        if let Some(g) = games
            .iter()
            .find(|g| !super::positions::records_file(g).is_file())
        {
            return Err(read.at(
                read.key_line("games"),
                format!(
                    "key `games`: {} holds no game records (expected a results folder with \
                     games.jsonl)",
                    g.display()
                ),
            ));
        }
        let data: Vec<PathBuf> = config.data.iter().map(|g| read.job.resolve(g)).collect();
        if let Some(e) = data
            .iter()
            .find_map(|d| crate::datagen::format::data_files(d).err())
        {
            let missing = data
                .iter()
                .find(|d| !d.exists())
                .map_or(String::new(), |_| {
                    "; make the data first with `arena datagen ENGINE.toml --out DIR` (a \
                 shipped config's comment gives the command)"
                        .to_string()
                });
            return Err(read.at(read.key_line("data"), format!("key `data`: {e}{missing}")));
        }
        Ok(Fit {
            config,
            base: engine.clone(),
            params,
            games,
            data,
            job: read.job,
            net,
        })
    }
}

/// The net of a fit with `[net]` (None without): the table's own as the start, or a new
/// one drawn by the fit's seed.
fn resolve_net(
    engine: &EngineConfig,
    config: Option<&NetConfig>,
    seed: u64,
) -> Result<Option<NetFit>, String> {
    let Some(config) = config else {
        return Ok(None);
    };
    let Some(Table::Ataxx(table)) = &engine.table else {
        return Err(format!(
            "[net]: '{}' has an m,n,k table; only Ataxx tables have a net",
            engine.name
        ));
    };
    if !(config.lr > 0.0 && config.lr <= 1.0) {
        return Err(format!("[net] lr: {} is outside (0, 1]", config.lr));
    }
    let own = table.net.as_ref().map(|n| n.hidden);
    let hidden = match (config.hidden, own) {
        (Some(h), Some(o)) if h != o => {
            return Err(format!(
                "[net] hidden: {h}, but the table's net has {o} hidden units and is where \
                 the fit starts (leave `hidden` out, or fit a table without a net)"
            ));
        }
        (Some(h), _) => h,
        (None, Some(o)) => o,
        (None, None) => DEFAULT_HIDDEN,
    };
    if hidden == 0 || hidden > MAX_HIDDEN {
        return Err(format!(
            "[net] hidden: {hidden} is outside 1..={MAX_HIDDEN}"
        ));
    }
    let layout = NetLayout { hidden };
    let start = match &table.net {
        Some(net) => NetLayout::from_table(net),
        None => layout.start(seed),
    };
    Ok(Some(NetFit {
        layout,
        start,
        lr: config.lr,
        symmetries: config.symmetries,
    }))
}

impl Fit {
    /// Everything that decides the fitted table, as TOML: a checkpoint is resumed only
    /// under the same text (worker count and verification are left out).
    pub fn resolved_toml(&self) -> String {
        let params = self.params.iter().map(config::to_table).collect();
        let base = EngineSpec::Builtin(self.base.clone());
        let mut tree = resolved_job(
            &self.config,
            &["games", "data"],
            self.job.game,
            &base,
            params,
        );
        if !self.data.is_empty() {
            tree.insert(
                "data".into(),
                toml::Value::Array(
                    self.data
                        .iter()
                        .map(|g| toml::Value::String(g.display().to_string()))
                        .collect(),
                ),
            );
        }
        tree.insert(
            "games".into(),
            toml::Value::Array(
                self.games
                    .iter()
                    .map(|g| toml::Value::String(g.display().to_string()))
                    .collect(),
            ),
        );
        toml::to_string(&tree).expect("a resolved fit serialises")
    }

    /// The base engine with the parameters set to `values` and its table's `[net]` to
    /// `net` (when given), named `name`.
    pub fn engine_with(
        &self,
        name: &str,
        values: &[f64],
        net: Option<&AtaxxNet>,
    ) -> Result<EngineConfig, ValueRefused> {
        let mut engine = self.base.clone();
        engine.name = name.to_string();
        for (p, &v) in self.params.iter().zip(values) {
            engine
                .set(&p.name, number(v, p.integer))
                .map_err(|e| ValueRefused::new(&p.name, v, e))?;
        }
        if let (Some(net), Some(Table::Ataxx(table))) = (net, engine.table.as_mut()) {
            table.net = Some(net.clone());
        }
        Ok(engine)
    }
}

/// Every weight `params = "all"` fits for this engine's table.
fn all_names(engine: &EngineConfig) -> Vec<String> {
    match &engine.table {
        Some(Table::Mnk(t)) => {
            let prefix = if t.evaluation == MnkEvaluation::Points && t.points.is_some() {
                "table.points."
            } else {
                "table."
            };
            let mut names: Vec<String> = Pattern::ALL
                .iter()
                .filter(|p| !matches!(p, Pattern::None | Pattern::Five))
                .map(|p| format!("{prefix}{}", p.key()))
                .collect();
            if t.evaluation == MnkEvaluation::Points {
                for c in ["double_four", "four_three", "double_three"] {
                    names.push(format!("table.{c}"));
                }
            }
            // The combination cells of a `lines` score are left out: 0 unless a table
            // gives them, they are fitted by name (configs/fit-gomoku-cells.toml), so
            // `all` fits what it fitted before they existed.
            names.push("table.centre".into());
            names.push("table.defence".into());
            names
        }
        Some(Table::Ataxx(_)) => super::features::ATAXX_TERMS
            .iter()
            .map(|t| format!("table.{t}"))
            .collect(),
        None => Vec::new(),
    }
}

/// Line of the `index`-th item of an inline `params = [...]` list: the `params` line
/// (items are rarely on lines of their own), or a `[[params]]` table's.
fn item_line(text: &str, index: usize, key: &str) -> Option<usize> {
    if text.contains("[[params]]") {
        param_line(text, index, key)
    } else {
        top_level_line(text, "params")
    }
}

fn resolve_params(
    engine: &EngineConfig,
    params: &Params,
    text: &str,
    net: bool,
) -> Result<Vec<FitParam>, (Option<usize>, String)> {
    let items: Vec<ParamItem> = match params {
        Params::All(s) if s == "all" => {
            all_names(engine).into_iter().map(ParamItem::Name).collect()
        }
        Params::All(s) => {
            return Err((
                None,
                format!("key `params`: '{s}' is neither \"all\" nor a list of parameters"),
            ));
        }
        Params::List(items) => items.clone(),
    };
    if items.is_empty() && !net {
        return Err((
            None,
            "key `params`: name at least one parameter (or fit a net alone: `params = []` \
             with [net])"
                .into(),
        ));
    }
    let numeric = engine.numeric_params();
    let mut out: Vec<FitParam> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let name = item.name();
        let err = |key: &str, m: String| {
            (
                item_line(text, i, key),
                format!("params[{}] `{name}`: {m}", i + 1),
            )
        };
        if !name.starts_with("table.") {
            return Err(err(
                "name",
                "only table weights can be fitted (`table.*`); tune search settings with \
                 arena tune"
                    .into(),
            ));
        }
        let slot = match &engine.table {
            Some(Table::Mnk(t)) => mnk_slot_of(t, name),
            Some(Table::Ataxx(_)) => ataxx_slot_of(name),
            None => Err(SlotError::NoTable),
        }
        .map_err(|e| err("name", e.to_string()))?;
        let Some(&(_, start, integer)) = numeric.iter().find(|(n, _, _)| n == name) else {
            return Err(err(
                "name",
                "is not a numeric parameter of the engine".into(),
            ));
        };
        if out.iter().any(|p| p.slot == slot) {
            return Err(err("name", "is fitted twice".into()));
        }
        let (dmin, dmax) = default_bounds(name, start);
        let (min, max) = match item {
            ParamItem::Name(_) => (dmin, dmax),
            ParamItem::Entry { min, max, .. } => (min.unwrap_or(dmin), max.unwrap_or(dmax)),
        };
        if !(min.is_finite() && max.is_finite() && min < max) {
            return Err(err(
                "min",
                format!("min ({min}) must be less than max ({max})"),
            ));
        }
        if integer && (min.fract() != 0.0 || max.fract() != 0.0) {
            return Err(err(
                "min",
                "the table takes whole numbers: min and max must be whole".into(),
            ));
        }
        if !(min..=max).contains(&start) {
            return Err(err(
                "min",
                format!("the start value {start} is outside [{min}, {max}]"),
            ));
        }
        for (key, v) in [("min", min), ("max", max)] {
            engine
                .clone()
                .set(name, number(v, integer))
                .map_err(|e| err(key, format!("the engine refuses {key} = {v}: {e}")))?;
        }
        out.push(FitParam {
            name: name.to_string(),
            slot,
            min,
            max,
            start,
            integer,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ConfigFile, tests::*};

    const GOOD: &str = "name = \"f\"\n\
                        engine = \"engines/gomoku-seed003-threat.toml\"\n\
                        params = [\"table.open_three\", { name = \"table.defence\", min = 0.5, max = 3 }]\n\
                        epochs = 5\n\
                        \n\
                        [selfplay]\n\
                        pairs = 10\n\
                        set = { \"search.depth\" = 1 }\n";

    #[test]
    fn a_good_config_resolves_params_bounds_and_defaults() {
        let f = Fit::parse("f.toml", &in_configs("fit-test.toml"), GOOD).unwrap();
        // The resolved text decides resume: it changes with what changes the fit,
        // not with the worker count.
        check_resolved(
            &f,
            Fit::resolved_toml,
            |f| &mut f.config.jobs,
            |f| f.config.epochs = 6,
        );
        assert_eq!(f.params.len(), 2);
        let p = &f.params[0];
        assert_eq!(
            (p.start, p.min, p.max, p.integer),
            (7500.0, 0.0, 30000.0, true)
        );
        let d = &f.params[1];
        assert_eq!((d.start, d.min, d.max, d.integer), (1.0, 0.5, 3.0, false));
        assert_eq!((f.config.lr, f.config.skip_plies), (0.02, 6));
        let all = Fit::parse(
            "f.toml",
            &in_configs("fit-test.toml"),
            &GOOD.replace(
                "params = [\"table.open_three\", { name = \"table.defence\", min = 0.5, max = 3 }]",
                "params = \"all\"",
            ),
        )
        .unwrap();
        let names: Vec<&str> = all.params.iter().map(|p| p.name.as_str()).collect();
        assert!(names.contains(&"table.sleep_two") && names.contains(&"table.defence"));
        assert!(!names.contains(&"table.five"), "{names:?}");
    }

    #[test]
    fn bad_configs_name_the_line_and_key() {
        let cases: &[(&str, &str, Option<usize>, &str)] = &[
            (
                "table.open_three",
                "search.depth",
                None,
                "only table weights",
            ),
            (
                "table.open_three",
                "table.open_tree",
                Some(3),
                "not a weight",
            ),
            ("min = 0.5", "min = 1.5", None, "start value 1 is outside"),
            ("epochs = 5", "epochs = 0", Some(4), ""),
            ("epochs = 5", "epoch = 5", None, "epoch"),
            ("pairs = 10", "pairs = 0", Some(6), ""),
            ("\"search.depth\" = 1", "\"search.dept\" = 1", Some(8), ""),
            (
                "[selfplay]\npairs = 10\nset = { \"search.depth\" = 1 }\n",
                "",
                None,
                "no positions",
            ),
            (
                "\"table.open_three\", ",
                "\"table.defence\", ",
                None,
                "fitted twice",
            ),
        ];
        check_bad_configs::<Fit>(&in_configs("fit-test.toml"), GOOD, cases);
    }
}
