//! Tuning configs (TOML). Unknown keys are errors; every error names the file, the line
//! and the key.
//!
//! ```toml
//! name = "tune-gomoku"
//! game = "gomoku"                 # default: the engine's game
//! engine = "engines/gomoku-seed003-threat.toml"   # relative to this file
//! set = { "search.depth" = 2 }    # named parameters of the base engine (limits too)
//! pairs = 20000                   # total game pairs N
//! batch = 16                      # pairs per batch (one flip vector, played in parallel)
//! seed = 1
//! # a_ratio = 0.1, alpha = 0.602, gamma = 0.101 (fishtest's defaults)
//! # opponent = "engines/rival.toml"   # plus and minus each play it, not each other
//! # opponent_set = { "search.nodes" = 20000 }   # named parameters of the opponent
//!
//! [[params]]
//! name = "table.open_three"       # start: the base engine's value
//! min = 2000
//! max = 20000
//! # c_end = (max - min) / 20, r_end = 0.002 (Stockfish's suggestions)
//!
//! [openings]                      # as in tournaments
//! [adjudication]                  # as in tournaments
//!
//! [verification]                  # tuned against base (and the opponent) after the tune
//! pairs = 200                     # at most this many game pairs
//! # set = { "search.depth" = 3 }  # both engines, e.g. a deeper search
//! # [verification.sprt]           # stop early, as tournaments do
//! ```

use serde::{Deserialize, Serialize};

use super::{
    base::{JobBase, JobRead, apply_set, engine_table, job_file, resolved_job},
    spsa::{Param, Settings, SpsaError},
    verify::VerificationConfig,
};
use crate::{
    config::{self, ConfigError},
    engine::EngineConfig,
    game::GameSpec,
    protocol::{EngineSpec, Protocol, client::uai::UaiOption, external::ExternalEngine},
    tournament::config::OpeningsConfig,
};

/// One `[[params]]` entry as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamEntry {
    /// The named parameter (`table.open_three`, `search.top_k`).
    pub name: String,
    /// Lowest value (an outside UAI engine's `spin` option may leave it to the
    /// engine's own `min`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// Highest value (likewise from the engine's `max`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// The value tuning starts from (default: the engine's own: a built-in engine's
    /// value, the `options` value of an outside engine's file, or a UAI engine's
    /// `default`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<f64>,
    /// Whole numbers only (outside engines; default: true for options of an outside
    /// engine, except UAI `string` options; a built-in engine says it itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integer: Option<bool>,
    /// Perturbation at the end (default (max - min) / 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c_end: Option<f64>,
    /// Learning rate at the end (default 0.002).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r_end: Option<f64>,
}

/// Declares a job's config (tune, fit) as written: the keys every job has (the run's
/// name, its base engine and game, the seed, the worker threads, the openings and
/// adjudication of its games, the verification match), then its own keys. Unknown keys
/// are errors.
macro_rules! job_config {
    ($(#[$meta:meta])* pub struct $name:ident { $($own:tt)* }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// Run name: results go to `results/<name>/`.
            pub name: String,
            /// The game (default: the base engine's).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub game: Option<crate::game::GameSpec>,
            /// The base engine config file (relative to this config).
            pub engine: String,
            /// Named parameters set on the base engine (limits too).
            #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
            pub set: toml::Table,
            $($own)*
            /// Master seed (any `u64`, see [`crate::config::toml_u64`]).
            #[serde(
                default = "crate::tune::config::default_seed",
                with = "crate::config::toml_u64"
            )]
            pub seed: u64,
            /// Worker threads (0: all cores): `jobs`, like `--jobs`; `concurrency` is read
            /// too. Results do not depend on it.
            #[serde(default, alias = "concurrency")]
            pub jobs: u32,
            /// Openings of the job's games, as in tournaments.
            #[serde(default)]
            pub openings: crate::tournament::config::OpeningsConfig,
            /// Adjudication of the job's games, as in tournaments.
            #[serde(default)]
            pub adjudication: crate::tournament::config::Adjudication,
            /// The match of the tuned (fitted) engine against the base engine.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub verification: Option<crate::tune::verify::VerificationConfig>,
        }

        impl $name {
            /// Checks the run name, loads the base engine, checks its game and applies
            /// `set` (see [`crate::tune::base::resolve_engine`]); `what` says what the
            /// job does with it ("the tune plays").
            fn resolve_base(
                &self,
                source: &str,
                base: &std::path::Path,
                text: &str,
                what: &str,
            ) -> Result<
                (std::path::PathBuf, crate::protocol::EngineSpec, crate::game::GameSpec),
                crate::config::ConfigError,
            > {
                let r = crate::tune::base::EngineRef {
                    name: &self.name,
                    engine: &self.engine,
                    game: self.game,
                    set: &self.set,
                    what,
                };
                let (path, spec, game) = crate::tune::base::resolve_engine(source, base, text, r)?;
                if let Err((key, message)) = self.adjudication.check(&game) {
                    return Err(crate::config::ConfigError {
                        source: source.to_string(),
                        line: crate::config::line_of(text, key),
                        message,
                    });
                }
                Ok((path, spec, game))
            }

            /// What the job's matches share with it, for the resolved `job`.
            pub fn plan<'a>(
                &'a self,
                job: &'a crate::tune::base::JobBase,
            ) -> crate::tune::verify::MatchPlan<'a> {
                crate::tune::verify::MatchPlan {
                    name: &self.name,
                    seed: self.seed,
                    verification: self.verification.as_ref(),
                    game: job.game,
                    jobs: self.jobs,
                    openings: &self.openings,
                    adjudication: &self.adjudication,
                    path: &job.path,
                }
            }
        }
    };
}
pub(crate) use job_config;

job_config! {
    /// A tuning config as written.
    pub struct TuneConfig {
        /// Total game pairs N.
        pub pairs: u64,
        /// Pairs per batch.
        #[serde(default = "default_batch")]
        pub batch: u64,
        /// A = a_ratio · N.
        #[serde(default = "default_a_ratio")]
        pub a_ratio: f64,
        /// Learning-rate decay.
        #[serde(default = "default_alpha")]
        pub alpha: f64,
        /// Perturbation decay.
        #[serde(default = "default_gamma")]
        pub gamma: f64,
        /// The parameters to tune.
        #[serde(default)]
        pub params: Vec<ParamEntry>,
        /// An engine file (relative to this config) that the plus and the minus engine
        /// each play instead of each other: θ moves by how much better the plus engine
        /// scored against it than the minus engine did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub opponent: Option<String>,
        /// Named parameters set on the opponent (its limits, say).
        #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
        pub opponent_set: toml::Table,
    }
}

fn default_batch() -> u64 {
    16
}
/// The default master seed of every job.
pub(crate) fn default_seed() -> u64 {
    1
}
fn default_a_ratio() -> f64 {
    0.1
}
fn default_alpha() -> f64 {
    0.602
}
fn default_gamma() -> f64 {
    0.101
}

/// A tuning run with the base engine and the parameters resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Tune {
    /// The config as written (`pairs` possibly overridden).
    pub config: TuneConfig,
    /// The base engine, `set` applied, playing `job.game`: a built-in engine or an
    /// outside program (tuned through its options).
    pub base: EngineSpec,
    /// The parameters, with their start values and defaults filled in.
    pub params: Vec<Param>,
    /// The game, the base engine's file and where the config came from.
    pub job: JobBase,
    /// The engine both the plus and the minus engine play (`opponent`, with
    /// `opponent_set` applied); None: they play each other.
    pub opponent: Option<EngineSpec>,
    /// What the config allows but probably did not mean (a range far wider than the
    /// start: see [`wide_range`]), for the command to print before it starts.
    pub warnings: Vec<String>,
}

job_file!(Tune, TuneConfig, Tune, "the tune plays");

/// A tuned (or fitted) parameter's value that the engine refuses.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{param} = {value}: {message}")]
pub struct ValueRefused {
    /// The parameter.
    pub param: String,
    /// The value refused.
    pub value: f64,
    /// The engine's reason.
    pub message: String,
}

impl ValueRefused {
    /// `param = value` refused for `message`.
    pub(crate) fn new(param: &str, value: f64, message: impl ToString) -> ValueRefused {
        ValueRefused {
            param: param.to_string(),
            value,
            message: message.to_string(),
        }
    }
}

impl Tune {
    /// Resolves the keys of a tuning config that are its own (see [`job_file`]).
    fn resolve_own(config: TuneConfig, read: JobRead<'_>) -> Result<Tune, ConfigError> {
        let settings_error = Settings {
            pairs: config.pairs,
            batch: config.batch,
            a_ratio: config.a_ratio,
            alpha: config.alpha,
            gamma: config.gamma,
            seed: config.seed,
        }
        .validate();
        if let Err(e) = settings_error {
            return Err(read.at(read.key_line(e.key), e.to_string()));
        }
        if config.params.is_empty() {
            return Err(read.at(
                None,
                "no [[params]]: name at least one parameter to tune".into(),
            ));
        }
        let mut listed: Option<Vec<UaiOption>> = None;
        let mut params = Vec::new();
        let mut warnings = Vec::new();
        let names: Vec<&str> = config.params.iter().map(|p| p.name.as_str()).collect();
        for (i, entry) in config.params.iter().enumerate() {
            let line = |key: &str| param_line(read.text, i, key);
            let err = |key: &str, message: String| {
                read.at(
                    line(key),
                    format!("params[{}] `{}`: {message}", i + 1, entry.name),
                )
            };
            let (min, max, start, integer) = match &read.engine {
                EngineSpec::Builtin(e) => builtin_param(e, entry),
                EngineSpec::External(e) => outside_param(e, entry, &mut listed),
            }
            .map_err(|(key, m)| err(key, m))?;
            if let EngineSpec::Builtin(e) = &read.engine
                && let Some(why) = e.inert_reason_while(&entry.name, &names)
            {
                let fix = if why.starts_with("search.params.") {
                    "set it in the engine file or in this config's `set`, or tune it too"
                } else {
                    "turn it on in the engine file, or in this config's `set`"
                };
                return Err(err(
                    "name",
                    format!("changes no move of '{}': {why} ({fix})", e.name),
                ));
            }
            if params.iter().any(|p: &Param| p.name == entry.name) {
                return Err(err("name", "is tuned twice".into()));
            }
            let param = Param {
                name: entry.name.clone(),
                min,
                max,
                start,
                c_end: entry
                    .c_end
                    .unwrap_or_else(|| Param::default_c_end(min, max)),
                r_end: entry.r_end.unwrap_or(Param::DEFAULT_R_END),
                integer,
            };
            if let Err(e) = param.validate() {
                // A start not given is the engine's value, found by the name.
                let key = match e.key {
                    "start" if entry.start.is_none() => "name",
                    key => key,
                };
                return Err(err(key, e.message));
            }
            // The engine must accept both ends of the range (a table may bound a value).
            for (key, v) in [("min", param.min), ("max", param.max)] {
                let mut probe = read.engine.clone();
                probe
                    .set_all([(param.name.as_str(), number(v, integer))])
                    .map_err(|e| {
                        err(
                            key,
                            format!("the engine refuses {key} = {v}: {}", e.message),
                        )
                    })?;
            }
            if let Some(why) = wide_range(&param) {
                warnings.push(format!("params[{}] `{}`: {why}", i + 1, entry.name));
            }
            params.push(param);
        }
        // Each setting and parameter is in its range; what is left are gains that
        // overflow at the edges of f64 (a range of 1e300), named at the parameter.
        let settings = Settings {
            pairs: config.pairs,
            batch: config.batch,
            a_ratio: config.a_ratio,
            alpha: config.alpha,
            gamma: config.gamma,
            seed: config.seed,
        };
        if let Err(e) = super::spsa::Spsa::new(params.clone(), settings) {
            let name = match &e {
                SpsaError::Param { name, .. } | SpsaError::Gains { name, .. } => Some(name),
                _ => None,
            };
            let i = params
                .iter()
                .position(|p| Some(&p.name) == name)
                .unwrap_or(0);
            return Err(read.at(param_line(read.text, i, "c_end"), e.to_string()));
        }
        check_verification_and_openings(
            read.source,
            read.text,
            &read.engine,
            read.job.game,
            config.verification.as_ref(),
            &config.openings,
        )?;
        let opponent = match &config.opponent {
            Some(file) => Some(resolve_opponent(&read, file, &config.opponent_set)?),
            None if !config.opponent_set.is_empty() => {
                return Err(read.at(
                    read.key_line("opponent_set"),
                    "key `opponent_set` without `opponent`: name the opponent's engine file".into(),
                ));
            }
            None => None,
        };
        if let (Some(o), Some(v)) = (&opponent, &config.verification) {
            if v.sprt.is_some() {
                return Err(read.at(
                    config::line_of(read.text, "[verification.sprt]"),
                    "[verification.sprt]: with an opponent the verification is a round robin \
                     of the tuned engine, the base engine and the opponent, and an SPRT \
                     needs two engines"
                        .into(),
                ));
            }
            apply_set(
                &mut o.clone(),
                &v.set,
                read.source,
                read.text,
                config::line_of(read.text, "[verification]"),
                "[verification] set (the opponent)",
            )?;
        }
        Ok(Tune {
            config,
            base: read.engine,
            params,
            job: read.job,
            opponent,
            warnings,
        })
    }
}

impl Tune {
    /// The SPSA settings.
    pub fn settings(&self) -> Settings {
        Settings {
            pairs: self.config.pairs,
            batch: self.config.batch,
            a_ratio: self.config.a_ratio,
            alpha: self.config.alpha,
            gamma: self.config.gamma,
            seed: self.config.seed,
        }
    }

    /// Whether the tune's games are reproducible: no time limit on the base engine nor
    /// on the opponent.
    pub fn is_reproducible(&self) -> bool {
        self.base.is_reproducible() && self.opponent.as_ref().is_none_or(|o| o.is_reproducible())
    }

    /// The base engine with the parameters set to `values` (one per parameter), named
    /// `name`: for an outside engine, its options set to the values.
    pub fn engine_with(&self, name: &str, values: &[f64]) -> Result<EngineSpec, ValueRefused> {
        let mut engine = self.base.clone();
        engine.rename(name);
        for (p, &v) in self.params.iter().zip(values) {
            engine
                .set_all([(p.name.as_str(), number(v, p.integer))])
                .map_err(|e| ValueRefused::new(&p.name, v, e.message))?;
        }
        Ok(engine)
    }

    /// Everything that decides the tune's games and updates, as TOML: a checkpoint is
    /// resumed only under the same text. (Worker count and verification are left out:
    /// they change no tuning result.)
    pub fn resolved_toml(&self) -> String {
        let params = self.params.iter().map(config::to_table).collect();
        let mut tree = resolved_job(
            &self.config,
            &["opponent", "opponent_set"],
            self.job.game,
            &self.base,
            params,
        );
        // The opponent's every parameter, as the base engine's (`[base]`).
        if let Some(o) = &self.opponent {
            tree.insert(
                "opponent".into(),
                toml::Value::Table(engine_table(o, self.job.game)),
            );
        }
        toml::to_string(&tree).expect("a resolved tune serialises")
    }
}

/// The `opponent` engine file (relative to the config), checked to play the tune's game,
/// with `opponent_set` applied.
fn resolve_opponent(
    read: &JobRead<'_>,
    file: &str,
    set: &toml::Table,
) -> Result<EngineSpec, ConfigError> {
    let line = read.key_line("opponent");
    let game = read.job.game;
    let (mut engine, own_game) = EngineSpec::load(&read.job.resolve(file))
        .map_err(|e| read.at(line, format!("key `opponent`: {e}")))?;
    if own_game.family() != game.family() {
        return Err(read.at(
            line,
            format!(
                "key `opponent`: the engine '{}' plays {own_game}, the tune plays {game}",
                engine.name()
            ),
        ));
    }
    match &mut engine {
        EngineSpec::Builtin(c) => c.game = game,
        EngineSpec::External(e) => e
            .validate(game)
            .map_err(|m| read.at(line, format!("key `opponent`: {m}")))?,
    }
    apply_set(
        &mut engine,
        set,
        read.source,
        read.text,
        read.key_line("opponent_set"),
        "key `opponent_set`",
    )?;
    Ok(engine)
}

/// Checks a `[verification]` section against the engine and the `[openings]` section:
/// shared by tune and fit configs.
pub(crate) fn check_verification_and_openings(
    source: &str,
    text: &str,
    engine: &EngineSpec,
    game: GameSpec,
    verification: Option<&VerificationConfig>,
    openings: &OpeningsConfig,
) -> Result<(), ConfigError> {
    let at = |line, message| ConfigError::at(source, line, message);
    if let Some(v) = verification {
        apply_set(
            &mut engine.clone(),
            &v.set,
            source,
            text,
            config::line_of(text, "[verification]"),
            "[verification] set",
        )?;
        if let Some(sprt) = &v.sprt {
            sprt.validate().map_err(|e| {
                at(
                    config::line_of(text, "[verification.sprt]"),
                    format!("[verification.sprt]: {e}"),
                )
            })?;
        }
    }
    let o = openings;
    use crate::tournament::config::OpeningKind;
    match o.kind {
        OpeningKind::File if o.file.is_none() => {
            return Err(at(
                config::line_of(text, "[openings]"),
                "[openings]: kind = \"file\" needs `file`".into(),
            ));
        }
        OpeningKind::Random if o.balance_margin > 0 && o.balance_engine.is_none() => {
            return Err(at(
                config::line_of(text, "balance_margin"),
                "[openings]: balance_margin needs balance_engine (an engine config)".into(),
            ));
        }
        _ => {}
    }
    if let Some(why) = o.refusal(&game) {
        return Err(at(
            config::line_of(text, "[openings]"),
            format!("[openings]: {why}"),
        ));
    }
    Ok(())
}

/// A parameter's (min, max, start, integer), or the key at fault and why.
type Resolved = Result<(f64, f64, f64, bool), (&'static str, String)>;

/// A built-in engine's parameter: a numeric parameter it has, its start its value.
fn builtin_param(engine: &EngineConfig, entry: &ParamEntry) -> Resolved {
    let numeric = engine.numeric_params();
    let Some(&(_, own, integer)) = numeric.iter().find(|(n, _, _)| *n == entry.name) else {
        // The engine's own error lists every numeric parameter.
        let why = match engine.get(&entry.name) {
            Some(v) => format!("is not a number (it is {})", v.type_str()),
            None => engine
                .clone()
                .set(&entry.name, toml::Value::Integer(0))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_else(|| "is not a numeric parameter".into()),
        };
        return Err(("name", why));
    };
    if entry.integer.is_some_and(|i| i != integer) {
        return Err((
            "integer",
            format!(
                "the engine takes {} here: leave `integer` out for a built-in engine",
                if integer {
                    "whole numbers"
                } else {
                    "fractions"
                }
            ),
        ));
    }
    // Without min or max, the range sensible to tune it in (the registry's, holding
    // the engine's value): the same `arena serve` advertises.
    let (min, max) = match (entry.min, entry.max) {
        (Some(min), Some(max)) => (min, max),
        (min, max) => match engine.tunable_param(&entry.name) {
            Some(p) => (min.unwrap_or(p.tune_min), max.unwrap_or(p.tune_max)),
            None => {
                let key = if min.is_none() { "min" } else { "max" };
                return Err((
                    key,
                    format!("needs `{key}` (a {} engine does not use it)", engine.game),
                ));
            }
        },
    };
    Ok((min, max, entry.start.unwrap_or(own), integer))
}

/// An outside engine's parameter `option.NAME`: the bounds and start as written, else
/// as a UAI engine lists the option (asked once, in `listed`), else the engine file's
/// `options` value for the start. A UAI option the engine does not list is refused.
fn outside_param(
    engine: &ExternalEngine,
    entry: &ParamEntry,
    listed: &mut Option<Vec<UaiOption>>,
) -> Resolved {
    let Some(option) = entry.name.strip_prefix("option.") else {
        return Err((
            "name",
            format!(
                "'{}' is an outside engine: it is tuned through its options, written \
                 `option.NAME` (UAI `setoption name NAME`, Gomocup `INFO NAME`)",
                engine.name
            ),
        ));
    };
    let own_start = engine
        .options
        .iter()
        .find(|(k, _)| k.as_str() == option)
        .map(|(_, v)| v.clone());
    let parse_start = |text: &str, from: &str| -> Result<f64, (&'static str, String)> {
        text.trim().parse::<f64>().map_err(|_| {
            (
                "start",
                format!("{from} is '{text}', not a number: give `start`"),
            )
        })
    };
    let mut integer_default = true;
    let (mut min, mut max, mut start) = (entry.min, entry.max, entry.start);
    if engine.protocol == Protocol::Uai {
        if listed.is_none() {
            let options = crate::protocol::client::uai::list_options(engine).map_err(|e| {
                (
                    "name",
                    format!("cannot list the options of '{}': {e}", engine.name),
                )
            })?;
            *listed = Some(options);
        }
        let options = listed.as_deref().unwrap_or_default();
        let Some(o) = options.iter().find(|o| o.name.eq_ignore_ascii_case(option)) else {
            let names: Vec<&str> = options.iter().map(|o| o.name.as_str()).collect();
            return Err((
                "name",
                format!(
                    "'{}' lists no option '{option}' in its answer to `uai` (it lists: {})",
                    engine.name,
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
        };
        match o.kind.as_str() {
            "spin" => {
                if entry.integer == Some(false) {
                    return Err((
                        "integer",
                        format!("'{option}' is a spin option: it takes whole numbers"),
                    ));
                }
                min = min.or(o.min);
                max = max.or(o.max);
            }
            // A number carried as text (arena serve lists fractions so).
            "string" => integer_default = false,
            kind => {
                return Err((
                    "name",
                    format!(
                        "'{option}' is a {kind} option: only spin options (or string \
                         options holding a number, with min and max) can be tuned"
                    ),
                ));
            }
        }
        if start.is_none()
            && own_start.is_none()
            && let Some(d) = &o.default
        {
            start = Some(parse_start(
                d,
                &format!("the engine's default for '{option}'"),
            )?);
        }
    }
    if start.is_none()
        && let Some(text) = &own_start
    {
        start = Some(parse_start(
            text,
            &format!("the engine file's options.{option}"),
        )?);
    }
    let missing = |key: &'static str| {
        let why = if engine.protocol == Protocol::Uai {
            "the engine's answer to `uai` gives none"
        } else {
            "a Gomocup engine cannot list its options"
        };
        (key, format!("needs `{key}` ({why})"))
    };
    let min = min.ok_or_else(|| missing("min"))?;
    let max = max.ok_or_else(|| missing("max"))?;
    let start = start.ok_or_else(|| missing("start"))?;
    Ok((min, max, start, entry.integer.unwrap_or(integer_default)))
}

/// How many times wider than its start's magnitude a parameter's range may be before
/// the tune warns.
pub const WIDE_RANGE: f64 = 100.0;

/// Why `param`'s range is too wide to tune well, if it is: more than [`WIDE_RANGE`]
/// times its start's magnitude (a start of 0 gives no scale, and no warning). SPSA's
/// steps scale with the range (`c_end` = a twentieth of it by default), so a start of 100
/// tuned over 0..=1000000 (an outside engine's validity bounds, advertised as its
/// option's min and max) takes steps of 50,000 and learns nothing; the warning suggests
/// a range a quarter to four times the start.
pub fn wide_range(param: &Param) -> Option<String> {
    let scale = param.start.abs();
    let width = param.max - param.min;
    if scale == 0.0 || width <= WIDE_RANGE * scale {
        return None;
    }
    let (lo, hi) = crate::engine::registry::range_around(param.start, param.integer);
    let (lo, hi) = (lo.max(param.min), hi.min(param.max));
    Some(format!(
        "its range {}..={} is {:.0}x its start {} (c_end {}): give `min` and `max` near \
         the start, say min = {lo}, max = {hi}",
        param.min,
        param.max,
        width / scale,
        param.start,
        param.c_end
    ))
}

/// A parameter value as the engine takes it: an integer or a float.
pub fn number(v: f64, integer: bool) -> toml::Value {
    if integer {
        toml::Value::Integer(v.round() as i64)
    } else {
        toml::Value::Float(v)
    }
}

/// The line of `key` in the `index`-th `[[params]]` table (its header line when the key
/// is not written there).
pub(crate) fn param_line(text: &str, index: usize, key: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("[[params]]"))
        .nth(index)?
        .0;
    for (i, line) in lines.iter().enumerate().skip(header + 1) {
        let t = line.trim_start();
        if t.starts_with('[') {
            break;
        }
        if let Some(rest) = t.strip_prefix(key)
            && rest.trim_start().starts_with('=')
        {
            return Some(i + 1);
        }
    }
    Some(header + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ConfigFile, tests::*};

    const GOOD: &str = "name = \"t\"\n\
                        engine = \"engines/gomoku-seed003-threat.toml\"\n\
                        set = { \"search.depth\" = 2 }\n\
                        pairs = 100\n\
                        \n\
                        [[params]]\n\
                        name = \"table.open_three\"\n\
                        min = 1000\n\
                        max = 20000\n\
                        \n\
                        [[params]]\n\
                        name = \"table.defence\"\n\
                        min = 0.5\n\
                        max = 3\n\
                        r_end = 0.001\n";

    #[test]
    fn a_good_config_resolves_starts_types_and_defaults() {
        let t = Tune::parse("t.toml", &in_configs("tune-test.toml"), GOOD).unwrap();
        // The resolved text decides resume: it changes with what changes the tune,
        // not with the worker count.
        check_resolved(
            &t,
            Tune::resolved_toml,
            |t| &mut t.config.jobs,
            |t| t.config.pairs = 200,
        );
        assert_eq!(t.job.game.to_string(), "gomoku");
        assert_eq!(t.base.builtin().unwrap().search.depth, 2);
        assert_eq!(t.params.len(), 2);
        let p = &t.params[0];
        assert_eq!((p.start, p.integer), (7500.0, true));
        assert_eq!(p.c_end, 950.0);
        assert_eq!(p.r_end, 0.002);
        let d = &t.params[1];
        assert_eq!((d.start, d.integer), (1.0, false));
        assert_eq!(d.r_end, 0.001);
        assert_eq!(t.settings().batch, 16);
        let e = t.engine_with("x", &[9000.0, 1.5]).unwrap();
        let e = e.builtin().unwrap();
        assert_eq!(e.get("table.open_three"), Some(toml::Value::Integer(9000)));
        assert_eq!(e.get("table.defence"), Some(toml::Value::Float(1.5)));
    }

    #[test]
    fn bad_configs_name_the_line_and_key() {
        let cases: &[(&str, &str, Option<usize>, &str)] = &[
            (
                "table.open_three",
                "table.open_tree",
                Some(7),
                "unknown parameter `table.open_tree`",
            ),
            (
                "table.open_three",
                "table.open_tree",
                Some(7),
                "table.open_three",
            ),
            (
                "max = 20000",
                "max = 1000",
                Some(8),
                "min (1000) must be less than max (1000)",
            ),
            (
                "min = 1000",
                "min = 8000",
                Some(7),
                "start value 7500 is outside",
            ),
            ("max = 3", "max = 300", None, "refuses max = 300"),
            (
                "table.defence",
                "search.ordering",
                None,
                "is not a number (it is array)",
            ),
            ("pairs = 100", "pairs = 100\nbatchh = 3", Some(5), "batchh"),
            ("pairs = 100", "pairs = 0", Some(4), ""),
            ("min = 1000", "min = 1000.5", None, "whole"),
            ("table.defence", "table.open_three", None, "tuned twice"),
            ("gomoku-seed003", "gomoku-seed999", Some(2), "key `engine`"),
            (
                "name = \"t\"",
                "name = \"t\"\ngame = \"ataxx\"",
                None,
                "plays gomoku",
            ),
        ];
        check_bad_configs::<Tune>(&in_configs("tune-test.toml"), GOOD, cases);
    }
}
