//! Engine configs (TOML) and their named parameters.
//!
//! ```toml
//! name = "seed003-threat"
//! game = "gomoku"
//! table = "../tables/gomoku/seed003.toml"   # relative to this file; leave out for none
//!
//! [search]
//! depth = 4                 # limits: depth, nodes, movetime_ms (0 = unset; one needed)
//! ordering = ["tt_move", "threat", "static", "killers", "history"]
//! ```
//!
//! Every number is a named parameter: `search.<key>` for the search settings and
//! `table.<key>` for the weight table's (`table.open_three`, `table.points.five`).
//! Each key of `[search]` is declared once: the switches and `search.params.*` in
//! [`crate::search::params`], the others here in `search_config!`; the registry
//! ([`super::registry`]) reads those declarations.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use serde::{Deserialize, Serialize};

use super::TimeControl;
use crate::{
    config::{self, ConfigError, ParamError},
    eval::{EVAL_LIMIT, OrderFlags, Table, mnk::Shape, net, table::TableError},
    game::GameSpec,
    search::{
        Limits, SearchParams, SearchSettings,
        params::{Bound, SWITCHES, Spec, search_switches},
        time::engine_movetime_limits,
    },
};

/// One move-ordering heuristic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderingKind {
    /// Generation order (seed 002); must stand alone.
    None,
    /// m,n,k: attack + defence point scores (seed 001).
    Static,
    /// m,n,k: seed 000's threat categories and forced-move pruning (`search.threat_prune`).
    Threat,
    /// The transposition table's move first.
    TtMove,
    /// Two killer moves per ply.
    Killers,
    /// The counter move: per side, the move that last refuted each move of the
    /// opponent, tried after the killers.
    Counter,
    /// History heuristic.
    History,
    /// Ataxx: stones gained first (seed 004).
    Captures,
    /// Ataxx: singles before jumps.
    SinglesFirst,
}

impl OrderingKind {
    /// The name used in configs (`tt_move`).
    pub fn as_str(self) -> &'static str {
        match self {
            OrderingKind::None => "none",
            OrderingKind::Static => "static",
            OrderingKind::Threat => "threat",
            OrderingKind::TtMove => "tt_move",
            OrderingKind::Killers => "killers",
            OrderingKind::Counter => "counter",
            OrderingKind::History => "history",
            OrderingKind::Captures => "captures",
            OrderingKind::SinglesFirst => "singles_first",
        }
    }

    fn families(self) -> &'static [&'static str] {
        match self {
            OrderingKind::Static | OrderingKind::Threat => &["mnk"],
            OrderingKind::Captures | OrderingKind::SinglesFirst => &["ataxx"],
            _ => &["mnk", "ataxx"],
        }
    }
}

/// Declares [`SearchConfig`] from its own keys (`NAME: TYPE = DEFAULT => SPEC;`, each
/// with its doc) and the search's switches (`search_switches!`): the struct, its
/// `Default`, [`SearchConfig::SPECS`] and what the switches give [`SearchConfig::settings`].
macro_rules! search_config {
    (
        keys { $( $(#[doc = $doc:literal])+ $key:ident: $ty:ty = $default:expr => $spec:expr; )+ }
        switches { $( $(#[doc = $sdoc:literal])+ $switch:ident => $sspec:expr; )+ }
    ) => {
        /// The `[search]` section: limits, transposition table, ordering and pruning.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct SearchConfig {
            $( $(#[doc = $doc])+ pub $key: $ty, )+
            $( $(#[doc = $sdoc])+ pub $switch: bool, )+
            /// Margins, reductions and depth limits of the selective rules
            /// (`search.params.*`).
            pub params: SearchParams,
        }

        impl Default for SearchConfig {
            fn default() -> SearchConfig {
                SearchConfig {
                    $( $key: $default, )+
                    $( $switch: false, )+
                    params: SearchParams::default(),
                }
            }
        }

        impl SearchConfig {
            /// The keys of `[search]` that are neither switches nor `params`, in
            /// declaration order.
            pub const SPECS: &'static [Spec] = &[
                $( Spec {
                    name: concat!("search.", stringify!($key)),
                    doc: concat!($($doc, "\n"),+),
                    ..$spec
                }, )+
            ];

            /// Whether the switch `search.NAME` is on (`None`: no such switch).
            pub fn switch(&self, name: &str) -> Option<bool> {
                match name {
                    $( stringify!($switch) => Some(self.$switch), )+
                    _ => None,
                }
            }

            /// The key `key` of `[search]` (`depth`, `lmr`, `params`) as a TOML value
            /// (`None`: no such key).
            fn value_of(&self, key: &str) -> Option<toml::Value> {
                let value = match key {
                    $( stringify!($key) => toml::Value::try_from(&self.$key)
                        .expect("every [search] value has a TOML form"), )+
                    $( stringify!($switch) => toml::Value::Boolean(self.$switch), )+
                    "params" => toml::Value::Table(config::to_table(&self.params)),
                    _ => return None,
                };
                Some(value)
            }

            /// Sets the key `key` of `[search]` from a TOML value (of its type: see
            /// [`config::coerce_param`]); `None` when there is no such key.
            fn set_value(
                &mut self,
                key: &str,
                value: toml::Value,
            ) -> Option<Result<(), toml::de::Error>> {
                Some(match key {
                    $( stringify!($key) => {
                        <$ty as Deserialize>::deserialize(value).map(|v| self.$key = v)
                    } )+
                    $( stringify!($switch) => bool::deserialize(value).map(|v| self.$switch = v), )+
                    "params" => SearchParams::deserialize(value).map(|v| self.params = v),
                    _ => return None,
                })
            }

            /// The settings the switches give; the rest as by default.
            fn switch_settings(&self) -> SearchSettings {
                SearchSettings {
                    $( $switch: self.$switch, )+
                    ..SearchSettings::default()
                }
            }
        }
    };
}

search_switches!(search_config! {
    keys {
        /// Deepest iteration in plies (0: no depth limit).
        depth: u32 = 0 => Spec::depth().tune(1.0, 16.0);
        /// Node limit per move (0: none). Deterministic.
        nodes: u64 = 0 => Spec::number(0.0, 1e15).tune(1000.0, 1_000_000.0);
        /// Time limit per move in milliseconds (0: none; at most a day). Not
        /// reproducible.
        movetime_ms: u64 = 0 => Spec::number(0.0, 86_400_000.0).tune(10.0, 10_000.0);
        /// Transposition table size in MB (0: none).
        tt_mb: u32 = 16 => Spec::number(0.0, 0.0).up_to(Bound::TtMax).tune(1.0, 256.0);
        /// Ordering heuristics, combined in a fixed precedence: tt_move, then the threat or
        /// singles-first class, then killers and the counter move, then static or capture
        /// scores, then history.
        ordering: Vec<OrderingKind> = vec![OrderingKind::TtMove] => Spec::other();
        /// Search only the best K moves at each node (0: all; seed 001).
        top_k: u32 = 0 => Spec::number(0.0, 1000.0).tune(0.0, 30.0);
        /// m,n,k: candidates are empty cells within this distance of a stone (0: all cells;
        /// the empty board's candidate is its centre).
        radius: u32 = 2 => Spec::number(0.0, 0.0).up_to(Bound::BoardSide).tune(1.0, 4.0).mnk();
        /// m,n,k: `square` (every cell within `radius` of a stone) or `lines` (only those on
        /// the four lines through a stone: 16 cells at radius 2, not 24).
        shape: Shape = Shape::Square => Spec::other().mnk();
        /// m,n,k with `threat`: 0 sort only, 1 a winning point alone, 2 also an opponent's
        /// five must be blocked, 3 also open-four points only, 4 also double-three points only
        /// (3 and 4 are seed 000's heuristics and can miss defences).
        threat_prune: u32 = 2 => Spec::number(0.0, 4.0).mnk().ordering("threat");
        /// Aspiration window half-width, in the evaluator's units (0: off).
        aspiration: i32 = 0 => Spec::number(0.0, EVAL_LIMIT as f64).tune(0.0, 5000.0);
        /// Choose at random (seeded per game) among root moves within this margin (0: off).
        random_margin: i32 = 0 => Spec::number(0.0, EVAL_LIMIT as f64).tune(0.0, 5000.0);
        /// A game clock for the engine, `seconds+increment` (`"10+0.1"`; empty: none): it
        /// manages its time with soft and hard limits and loses on time past its clock.
        tc: String = String::new() => Spec::other();
    }
});

impl SearchConfig {
    /// The limits per move (a move time becomes a hard limit with a safety margin and a
    /// soft limit; a clock's share is added per move from the clock itself).
    pub fn limits(&self) -> Limits {
        let (soft, hard) = match self.movetime_ms {
            0 => (None, None),
            ms => {
                let (soft, hard) =
                    engine_movetime_limits(Duration::from_millis(ms), self.partial_iterations);
                (Some(soft), Some(hard))
            }
        };
        Limits {
            depth: (self.depth > 0).then_some(self.depth),
            nodes: (self.nodes > 0).then_some(self.nodes),
            movetime: hard,
            soft_time: soft,
        }
    }

    /// Whether a time limit (a move time or a clock) makes the search depend on the
    /// machine.
    pub fn is_timed(&self) -> bool {
        self.movetime_ms > 0 || !self.tc.trim().is_empty()
    }

    /// The longest one move may take before the harness calls it lost on time: the move
    /// time plus the tolerance an outside engine gets (none without a move time; with a
    /// clock the clock itself is the limit).
    pub fn move_limit(&self) -> Option<Duration> {
        (self.movetime_ms > 0).then(|| {
            Duration::from_millis(
                self.movetime_ms
                    .saturating_add(super::clock::MOVE_TOLERANCE_MS),
            )
        })
    }

    /// The game clock, if `tc` is set.
    pub fn time_control(&self) -> Option<TimeControl> {
        let tc = self.tc.trim();
        (!tc.is_empty()).then(|| tc.parse().expect("validated: search.tc parses"))
    }

    /// The search settings.
    pub fn settings(&self) -> SearchSettings {
        let has = |k| self.ordering.contains(&k);
        SearchSettings {
            order: OrderFlags {
                static_score: has(OrderingKind::Static),
                threat: has(OrderingKind::Threat),
                threat_prune: self.threat_prune.min(4) as u8,
                captures: has(OrderingKind::Captures),
                singles_first: has(OrderingKind::SinglesFirst),
                far_distance: self.params.order_far.min(255) as u8,
            },
            tt_move: has(OrderingKind::TtMove),
            killers: has(OrderingKind::Killers),
            counter: has(OrderingKind::Counter),
            history: has(OrderingKind::History),
            top_k: self.top_k as usize,
            aspiration: self.aspiration,
            random_margin: self.random_margin,
            params: self.params,
            ..self.switch_settings()
        }
    }

    /// Checks the settings; `need_limit`: whether they must limit a search themselves
    /// (not when a protocol's manager gives the limits).
    fn validate(&self, family: &str, need_limit: bool) -> Result<(), String> {
        let tc = self.tc.trim();
        if !tc.is_empty() {
            tc.parse::<TimeControl>()
                .map_err(|e| format!("search.tc: {e}"))?;
            if self.movetime_ms > 0 {
                return Err("search: give movetime_ms or tc, not both".into());
            }
        }
        if need_limit
            && self.depth == 0
            && self.nodes == 0
            && self.movetime_ms == 0
            && tc.is_empty()
        {
            return Err("[search] needs a limit: set depth, nodes, movetime_ms or tc".into());
        }
        self.params.validate()?;
        // A switch on that the game does not have, or without the switch it works
        // through.
        for spec in SWITCHES {
            let key = spec.name.trim_start_matches("search.");
            if self.switch(key) != Some(true) {
                continue;
            }
            if !spec.games.includes(family) {
                return Err(format!(
                    "search.{key} is gomoku's threat knowledge: it does not apply to {family} games"
                ));
            }
            if let Some(needs) = spec.switch
                && self.switch(needs) != Some(true)
            {
                return Err(format!(
                    "search.{key} works through search.{needs}: it needs search.{needs}"
                ));
            }
        }
        if self.depth as usize >= crate::search::score::MAX_PLY {
            return Err(format!(
                "search.depth = {} is too deep (at most {})",
                self.depth,
                crate::search::score::MAX_PLY - 1
            ));
        }
        if self.ordering.contains(&OrderingKind::None) && self.ordering.len() > 1 {
            return Err(
                "search.ordering: \"none\" means generation order and must stand alone".into(),
            );
        }
        for kind in &self.ordering {
            if !kind.families().contains(&family) {
                return Err(format!(
                    "search.ordering: \"{}\" does not apply to {family} games",
                    kind.as_str()
                ));
            }
        }
        if self.aspiration < 0 || self.random_margin < 0 {
            return Err("search.aspiration and search.random_margin cannot be negative".into());
        }
        crate::search::tt::check_size(u64::from(self.tt_mb))?;
        Ok(())
    }
}

/// The longest engine name, in characters: names head the standings' rows, the
/// report's tables and the plots' axes.
pub const MAX_NAME_CHARS: usize = 64;

/// Refuses an engine name that is empty, longer than [`MAX_NAME_CHARS`], or holds a
/// control character (ESC, BEL, CR, NUL, a line break: printed raw, they would drive
/// the terminal or break a line of a protocol or a report); the error shows the name
/// escaped.
pub fn check_name(name: &str) -> Result<(), NameError> {
    if name.trim().is_empty() {
        return Err(NameError::Empty);
    }
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        let start: String = name.chars().take(24).collect();
        return Err(NameError::TooLong {
            start: start.escape_debug().to_string(),
            chars,
        });
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(NameError::Control {
            name: name.escape_debug().to_string(),
            char: c.escape_unicode().to_string(),
        });
    }
    Ok(())
}

/// Why [`check_name`] refused an engine name (key `name`); names are shown escaped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// An empty name.
    #[error("key `name` is empty")]
    Empty,
    /// More than [`MAX_NAME_CHARS`] characters.
    #[error(
        "key `name`: \"{start}…\" has {chars} characters; an engine name has at most \
         {MAX_NAME_CHARS} (names head the standings, the report's tables and the plots)"
    )]
    TooLong {
        /// Its first 24 characters, escaped.
        start: String,
        /// How many it has.
        chars: usize,
    },
    /// A control character.
    #[error(
        "key `name`: \"{name}\" holds the control character {char}: names are shown on \
         terminals and in reports"
    )]
    Control {
        /// The name, escaped.
        name: String,
        /// The character, escaped (`\u{1b}`).
        char: String,
    },
}

/// Why a built-in engine's config is refused, or one of its named parameters cannot be
/// set; the message names the key.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EngineError {
    /// Its name.
    #[error(transparent)]
    Name(#[from] NameError),
    /// A named parameter it does not have, or a value of another type.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// A weight of its table.
    #[error(transparent)]
    Table(#[from] TableError),
    /// `name` set to something else than a string.
    #[error("parameter `name` must be a string")]
    NameNotString,
    /// A value its type refuses (serde's message, which names the key).
    #[error("{0}")]
    Value(String),
    /// A table of another family of games.
    #[error("key `table`: a {table} table cannot evaluate {family} ({game})")]
    TableFamily {
        /// The table's family.
        table: &'static str,
        /// The engine's.
        family: &'static str,
        /// The engine's game.
        game: GameSpec,
    },
    /// A candidate radius past the board.
    #[error(
        "search.radius = {radius} is larger than the {width}x{height} board: at most {side} \
         (0 means every empty cell)"
    )]
    Radius {
        /// The radius.
        radius: u32,
        /// The board's width.
        width: usize,
        /// The board's height.
        height: usize,
        /// The largest radius that means something.
        side: u32,
    },
    /// A search setting, or a combination of them, refused; or a number outside its
    /// range (the message names the key).
    #[error("{0}")]
    Invalid(String),
}

/// For callers that still report errors as text.
impl From<EngineError> for String {
    fn from(e: EngineError) -> String {
        e.to_string()
    }
}

/// The name of an engine made from the engine `base` (`base-opponent`, `base-a`):
/// `base` and `suffix`, `base` shortened so that the name stays within
/// [`MAX_NAME_CHARS`].
pub fn derived_name(base: &str, suffix: &str) -> String {
    let keep = MAX_NAME_CHARS.saturating_sub(suffix.chars().count());
    base.chars().take(keep).chain(suffix.chars()).collect()
}

/// Why [`EngineConfig::set_all`] refused its assignments.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SetError {
    /// The assignment at fault, or `None` when every one was accepted but the
    /// resulting config is not valid.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// The file form of an engine config.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EngineFile {
    name: String,
    game: GameSpec,
    #[serde(default)]
    table: Option<String>,
    #[serde(default)]
    search: SearchConfig,
}

/// A complete engine config: the table file already read.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineConfig {
    /// Name in results and reports.
    pub name: String,
    /// The game it plays.
    pub game: GameSpec,
    /// Where the table came from (for reports and write-back), if from a file.
    pub table_path: Option<PathBuf>,
    /// The weight table (none: search alone).
    pub table: Option<Table>,
    /// Search settings.
    pub search: SearchConfig,
}

impl EngineConfig {
    /// Reads an engine config and its table (a path relative to the config's folder).
    pub fn load(path: &Path) -> Result<EngineConfig, ConfigError> {
        let text = config::read(path)?;
        EngineConfig::parse(&path.display().to_string(), path, &text)
            .map_err(|e| config::with_kind_hint(e, path, config::Kind::Engine))
    }

    /// Reads an engine config from text; `base` is the file the text came from (table
    /// paths are relative to its folder).
    pub fn parse(source: &str, base: &Path, text: &str) -> Result<EngineConfig, ConfigError> {
        EngineConfig::parse_with(source, base, text, &config::read)
    }

    /// [`EngineConfig::parse`] with the table file read by `read` (embedded configs).
    pub fn parse_with(
        source: &str,
        base: &Path,
        text: &str,
        read: &dyn Fn(&Path) -> Result<String, ConfigError>,
    ) -> Result<EngineConfig, ConfigError> {
        let file: EngineFile = config::parse(source, text)?;
        EngineConfig::from_parts(source, base, file, read)
    }

    /// Builds a config from an already parsed TOML table (inline engines in tournament
    /// configs); `source` names it in errors.
    pub fn from_toml(
        source: &str,
        base: &Path,
        tree: toml::Table,
    ) -> Result<EngineConfig, ConfigError> {
        let text = toml::to_string(&tree).map_err(|e| ConfigError::new(source, e.to_string()))?;
        EngineConfig::parse(source, base, &text)
    }

    fn from_parts(
        source: &str,
        base: &Path,
        file: EngineFile,
        read: &dyn Fn(&Path) -> Result<String, ConfigError>,
    ) -> Result<EngineConfig, ConfigError> {
        let (table_path, table, table_text) = match file.table.as_deref() {
            None | Some("none") => (None, None, None),
            Some(rel) => {
                let path = config::resolve(base, rel);
                let (table, text) = read(&path)
                    .and_then(|text| {
                        Table::parse(&path.display().to_string(), &text).map(|t| (t, text))
                    })
                    .map_err(|e| config::with_kind_hint(e, &path, config::Kind::Table))
                    .map_err(|e| ConfigError::new(source, format!("key `table`: {e}")))?;
                (Some(path), Some(table), Some(text))
            }
        };
        let engine = EngineConfig {
            name: file.name,
            game: file.game,
            table_path,
            table,
            search: file.search,
        };
        engine.validate().map_err(|e| {
            let e = e.to_string();
            // A weight of the table file out of its range: the table's file and line.
            if let (Some(path), Some(text)) = (&engine.table_path, &table_text)
                && let Some((key, rest)) =
                    e.strip_prefix("table.").and_then(|r| r.split_once(" = "))
                && let Some(line) = config::key_line(text, key)
            {
                return ConfigError::at(
                    &path.display().to_string(),
                    Some(line),
                    format!("key `{key}`: {rest} (the table of {source})"),
                );
            }
            ConfigError::new(source, e)
        })?;
        Ok(engine)
    }

    /// Rebuilds a config from its resolved form (`name`, `game`, and the `search` and
    /// `table` trees of [`EngineConfig::params`]), as `run.toml` stores it.
    pub fn from_resolved(source: &str, mut tree: toml::Table) -> Result<EngineConfig, ConfigError> {
        let err = |m: String| ConfigError::new(source, m);
        let name = match tree.remove("name") {
            Some(toml::Value::String(s)) => s,
            _ => return Err(err("an engine without `name`".into())),
        };
        let game: GameSpec = match tree.remove("game") {
            Some(toml::Value::String(s)) => s
                .parse()
                .map_err(|e: crate::game::GameSpecError| err(e.to_string()))?,
            _ => return Err(err(format!("engine '{name}' without `game`"))),
        };
        let search: SearchConfig = match tree.remove("search") {
            Some(toml::Value::Table(t)) => config::from_table(source, t)?,
            _ => SearchConfig::default(),
        };
        let table = match tree.remove("table") {
            Some(toml::Value::Table(t)) => Some(Table::from_toml(source, t)?),
            _ => None,
        };
        if let Some(key) = tree.keys().next() {
            return Err(err(format!("engine '{name}': unknown key `{key}`")));
        }
        let engine = EngineConfig {
            name,
            game,
            table_path: None,
            table,
            search,
        };
        engine.validate().map_err(|e| err(e.to_string()))?;
        Ok(engine)
    }

    /// Checks limits, ordering and that the table suits the game.
    pub fn validate(&self) -> Result<(), EngineError> {
        self.validate_with(true)
    }

    /// [`EngineConfig::validate`], with the limit check only when `need_limit`.
    fn validate_with(&self, need_limit: bool) -> Result<(), EngineError> {
        check_name(&self.name)?;
        let family = self.game.family();
        if let Some(t) = &self.table
            && t.family() != family
        {
            return Err(EngineError::TableFamily {
                table: t.family(),
                family,
                game: self.game,
            });
        }
        if let GameSpec::Mnk(board) = self.game {
            // Candidates come from the cells within `radius` of a stone: past the
            // board's side every cell is one, and a larger radius only costs time.
            let side = board.width().max(board.height()) as u32;
            if self.search.radius > side {
                return Err(EngineError::Radius {
                    radius: self.search.radius,
                    width: board.width(),
                    height: board.height(),
                    side,
                });
            }
        }
        self.search
            .validate(family, need_limit)
            .map_err(EngineError::Invalid)?;
        self.check_ranges().map_err(EngineError::Invalid)
    }

    /// Every parameter as a TOML tree: `search.*` and `table.*`.
    pub fn params(&self) -> toml::Table {
        let mut tree = toml::Table::new();
        tree.insert(
            "search".into(),
            toml::Value::Table(config::to_table(&self.search)),
        );
        if let Some(table) = &self.table {
            tree.insert("table".into(), toml::Value::Table(config::to_table(table)));
        }
        tree
    }

    /// Every numeric parameter: (name, value, is_integer). An Ataxx table's `[net]` is
    /// data, not parameters: its numbers are not listed.
    pub fn numeric_params(&self) -> Vec<(String, f64, bool)> {
        let mut params = config::numeric_params(&self.params());
        params.retain(|(name, _, _)| !net::is_param(name));
        params
    }

    /// The value of a named parameter.
    pub fn get(&self, name: &str) -> Option<toml::Value> {
        config::get_path(&self.params(), name).cloned()
    }

    /// Sets a named parameter (`search.depth`, `table.open_three`, `name`), checking the
    /// result.
    pub fn set(&mut self, name: &str, value: toml::Value) -> Result<(), EngineError> {
        let updated = self.with_param(name, value)?;
        updated.validate()?;
        *self = updated;
        Ok(())
    }

    /// [`EngineConfig::set`] for a served engine (see [`EngineConfig::set_all_served`]).
    pub fn set_served(&mut self, name: &str, value: toml::Value) -> Result<(), EngineError> {
        let updated = self.with_param(name, value)?;
        updated.validate_with(false)?;
        *self = updated;
        Ok(())
    }

    /// Sets several named parameters, then checks the result once: overrides that only
    /// make sense together (`search.depth = 0` with `search.movetime_ms = 20`) are
    /// accepted in any order. Each value's name and type are checked as it is set; the
    /// error says which assignment failed ([`SetError::key`]), or none when the final
    /// combination is refused. Nothing changes on error.
    pub fn set_all<K: AsRef<str>>(
        &mut self,
        assignments: impl IntoIterator<Item = (K, toml::Value)>,
    ) -> Result<(), SetError> {
        self.set_all_checked(assignments, true)
    }

    /// [`EngineConfig::set_all`] for an engine served over a protocol (`arena serve`):
    /// the result may have no limit of its own (`search.depth = 0`), as its manager
    /// gives the limits (`go depth`, `INFO max_depth`, the clocks).
    pub fn set_all_served<K: AsRef<str>>(
        &mut self,
        assignments: impl IntoIterator<Item = (K, toml::Value)>,
    ) -> Result<(), SetError> {
        self.set_all_checked(assignments, false)
    }

    fn set_all_checked<K: AsRef<str>>(
        &mut self,
        assignments: impl IntoIterator<Item = (K, toml::Value)>,
        need_limit: bool,
    ) -> Result<(), SetError> {
        let mut updated = self.clone();
        let mut keys = Vec::new();
        for (key, value) in assignments {
            let key = key.as_ref();
            updated = updated.with_param(key, value).map_err(|e| SetError {
                key: Some(key.to_string()),
                message: e.to_string(),
            })?;
            keys.push(key.to_string());
        }
        updated.validate_with(need_limit).map_err(|e| SetError {
            key: None,
            message: if keys.is_empty() {
                e.to_string()
            } else {
                format!("{e} (after setting {})", keys.join(", "))
            },
        })?;
        *self = updated;
        Ok(())
    }

    /// This config with one parameter changed, its name and type checked but the whole
    /// not yet validated. The field is set directly: a key of `[search]` or
    /// `[search.params]` as its declaration gives its type, a weight of the table through
    /// the table; the table's other keys (`family`, `name`, `evaluation`, a whole
    /// section) through its TOML form ([`EngineConfig::with_param_through_toml`]). The
    /// messages are [`config::set_path`]'s.
    fn with_param(&self, name: &str, value: toml::Value) -> Result<EngineConfig, EngineError> {
        net::refuse_param(name).map_err(EngineError::Value)?;
        if name == "name" {
            let name = value
                .as_str()
                .ok_or(EngineError::NameNotString)?
                .to_string();
            return Ok(EngineConfig {
                name,
                ..self.clone()
            });
        }
        let serde_error = |e: toml::de::Error| EngineError::Value(e.message().replace('\n', " "));
        let mut updated = self.clone();
        if name == "search" {
            let current = toml::Value::Table(config::to_table(&self.search));
            let value = config::coerce_param(&current, value, name)?;
            updated.search = SearchConfig::deserialize(value).map_err(serde_error)?;
            return Ok(updated);
        }
        if let Some(key) = name.strip_prefix("search.") {
            let number = key.strip_prefix("params.");
            let current = match number {
                // Every number of `[search.params]` is a whole number (its `Spec`).
                Some(number) => self
                    .search
                    .params
                    .get(number)
                    .map(|v| toml::Value::Integer(v as i64)),
                None => self.search.value_of(key),
            };
            let Some(current) = current else {
                return Err(self.unknown_param(name));
            };
            let value = config::coerce_param(&current, value, name)?;
            let set = match number {
                Some(number) => updated.search.params.set(number, value),
                None => updated.search.set_value(key, value),
            };
            set.expect("a key that has a value can be set")
                .map_err(serde_error)?;
            return Ok(updated);
        }
        if name == "table" || name.starts_with("table.") {
            let Some(table) = &self.table else {
                return Err(self.unknown_param(name));
            };
            let key = name.strip_prefix("table.").unwrap_or("");
            let Some(current) = table.weight(key) else {
                return self.with_param_through_toml(name, value);
            };
            let value = config::coerce_param(&current, value, name)?;
            updated
                .table
                .as_mut()
                .expect("a clone of a config with a table")
                .set_weight(key, &value)?;
            return Ok(updated);
        }
        Err(self.unknown_param(name))
    }

    /// `unknown parameter `NAME`...`, with the names it has.
    fn unknown_param(&self, name: &str) -> EngineError {
        config::unknown_parameter_error(&self.params(), name).into()
    }

    /// [`EngineConfig::with_param`] through the config's TOML form: the tree of
    /// [`EngineConfig::params`] with the value set at its dotted path, read back.
    fn with_param_through_toml(
        &self,
        name: &str,
        value: toml::Value,
    ) -> Result<EngineConfig, EngineError> {
        net::refuse_param(name).map_err(EngineError::Value)?;
        let mut tree = self.params();
        config::set_path(&mut tree, name, value)?;
        let search: SearchConfig = match tree.remove("search") {
            Some(toml::Value::Table(t)) => {
                config::from_table("search", t).map_err(|e| EngineError::Value(e.message))?
            }
            _ => unreachable!("params() always has a search table"),
        };
        let table = match tree.remove("table") {
            Some(toml::Value::Table(t)) => {
                Some(Table::from_toml("table", t).map_err(|e| EngineError::Value(e.message))?)
            }
            _ => None,
        };
        Ok(EngineConfig {
            search,
            table,
            ..self.clone()
        })
    }

    /// A short description: table and ordering, for reports.
    pub fn summary(&self) -> String {
        let table = self
            .table
            .as_ref()
            .map_or("none".to_string(), |t| t.name().to_string());
        let ordering: Vec<String> = self
            .search
            .ordering
            .iter()
            .map(|o| o.as_str().to_string())
            .collect();
        format!("table {table}, ordering [{}]", ordering.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every dotted name of `tree`, tables included (`search.params`, `table.points`),
    /// in file order.
    fn every_path(prefix: &str, tree: &toml::Table, out: &mut Vec<String>) {
        for (k, v) in tree {
            let name = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            out.push(name.clone());
            if let toml::Value::Table(t) = v {
                every_path(&name, t, out);
            }
        }
    }

    /// The typed setter sets what the config's TOML form set before it (the tree of every
    /// parameter with one value changed, read back): the same config, or the same
    /// message, for every parameter of every shipped engine (and one without a table),
    /// whatever the value's type or range.
    #[test]
    fn parameters_set_typed_as_through_the_toml_form() {
        use toml::Value::{Array, Boolean, Float, Integer, String as Text};
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/engines");
        let mut engines: Vec<EngineConfig> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| EngineConfig::load(&e.unwrap().path()).unwrap())
            .collect();
        let mut bare = engines[0].clone();
        bare.table = None;
        engines.push(bare);
        let mut tables = toml::Table::new();
        tables.insert("lmr_base".into(), Integer(7));
        let values = [
            Integer(0),
            Integer(1),
            Integer(-1),
            Integer(3),
            Integer(150),
            Integer(5_000_000_000),
            Integer(i64::MAX),
            Float(2.0),
            Float(1.5),
            Float(-0.0),
            Float(1e300),
            Float(f64::NAN),
            Text("x".into()),
            Text("10+0.1".into()),
            Text("lines".into()),
            Text("points".into()),
            Text("lines".into()),
            Text("ataxx".into()),
            Text(String::new()),
            Boolean(true),
            Boolean(false),
            Array(vec![Text("tt_move".into()), Text("history".into())]),
            Array(vec![Text("none".into())]),
            Array(vec![Integer(1)]),
            toml::Value::Table(toml::Table::new()),
            toml::Value::Table(tables),
        ];
        let mut checked = 0;
        for engine in &engines {
            let tree = engine.params();
            let mut names = Vec::new();
            every_path("", &tree, &mut names);
            names.extend(
                [
                    "search",
                    "table",
                    "search.dpth",
                    "search.depth.x",
                    "search.params.nope",
                    "table.points.five",
                    "table.endgame.material",
                    "table.open_tree",
                    "foo",
                ]
                .map(String::from),
            );
            if let Some(table) = &engine.table {
                // Every number of the table is a weight it sets itself.
                for (name, value, _) in config::numeric_params(&config::to_table(table))
                    .into_iter()
                    .filter(|(name, _, _)| !name.starts_with("net."))
                {
                    let weight = table.weight(&name).unwrap_or_else(|| panic!("{name}"));
                    assert_eq!(
                        weight.as_float().or(weight.as_integer().map(|i| i as f64)),
                        Some(value)
                    );
                }
            }
            for name in &names {
                for value in &values {
                    // The same config, or the same message.
                    let typed = engine
                        .with_param(name, value.clone())
                        .map_err(|e| e.to_string());
                    let through = engine
                        .with_param_through_toml(name, value.clone())
                        .map_err(|e| e.to_string());
                    assert_eq!(typed, through, "{} {name} = {value}", engine.name);
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }
}
