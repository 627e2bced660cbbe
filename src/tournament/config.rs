//! Tournament configs (TOML). Unknown keys are errors; every error names the file, the
//! line and the key.
//!
//! ```toml
//! name = "gomoku-tables"
//! game = "gomoku"
//! format = "round-robin"      # or "gauntlet": the first engine against each other one
//! rounds = 20                 # game pairs per pairing (each opening, colours swapped)
//! seed = 1
//! jobs = 0                    # worker threads; 0 = all cores
//! pgnout = "games.pgn"        # optional: each game appended as it finishes (sgfout: SGF)
//!
//! [openings]
//! kind = "random"             # "random", "balanced", "file" or "none"
//! plies = 2
//!
//! [adjudication]
//! max_plies = 0               # 0: none
//! # also resign_score/resign_moves/resign_twosided, draw_movenumber/draw_movecount/
//! # draw_score, material_margin/material_moves (Ataxx), vcf_win (m,n,k): see `Adjudication`
//!
//! [[engines]]
//! file = "engines/gomoku-seed003-threat.toml"
//! set = { "search.depth" = 3 }   # named parameters to override
//!
//! [[engines]]                 # or inline, like an engine file
//! name = "mine"
//! table = "tables/gomoku/seed000.toml"
//! search = { depth = 3, ordering = ["threat"] }
//!
//! [[engines]]                 # or an outside program (see `protocol::external`)
//! name = "rapfi"
//! command = "engines/pbrain-rapfi"
//! protocol = "gomocup"
//! tc = "10+0.1"
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{
    config::{self, ConfigError},
    engine::{EngineConfig, SearchConfig, SetError},
    game::GameSpec,
    protocol::{
        EngineSpec, ExternalEngine, external,
        external::keys::{outside_keys, written_outside_form},
    },
    stats::SprtConfig,
};

/// Who plays whom.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every engine against every other.
    #[default]
    RoundRobin,
    /// The first engine against each of the others.
    Gauntlet,
}

/// Where openings come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OpeningKind {
    /// Random plies from the start (near the centre for m,n,k), seeded.
    #[default]
    Random,
    /// Lines of a file: Gomocup offsets or move lists for m,n,k, FENs for Ataxx.
    File,
    /// The balanced set shipped for the game (see `openings::SHIPPED`): gomoku and Ataxx.
    Balanced,
    /// Every game from the start position (only two distinct games per pairing).
    None,
}

/// Order of a file's openings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OpeningOrder {
    /// In file order.
    #[default]
    Sequential,
    /// Shuffled with the master seed.
    Shuffle,
}

/// The `[openings]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OpeningsConfig {
    /// `random`, `file` or `none`.
    pub kind: OpeningKind,
    /// Random: plies to play.
    pub plies: u32,
    /// Random, m,n,k: stones go within this distance of the centre.
    pub radius: u32,
    /// Random: keep only openings that `balance_engine` scores within ±margin (0: off).
    pub balance_margin: i32,
    /// Random with a margin: the engine config that judges balance.
    pub balance_engine: Option<String>,
    /// File: the path (relative to the tournament config).
    pub file: Option<String>,
    /// File: `sequential` or `shuffle`.
    pub order: OpeningOrder,
    /// File or balanced, m,n,k: play each opening in each of the board's symmetries (8
    /// on a square board, 4 on another), so N openings serve 8N distinct game pairs.
    pub transform: bool,
    /// File or balanced: this many random plies after the opening of each round whose
    /// opening an earlier round played already (the list came round again, or an image
    /// of a symmetric opening repeats; m,n,k: three or four cells from the nearest
    /// stone), drawn from the master seed by round, so that every round plays its own
    /// opening (0: none, the list repeats).
    #[serde(skip_serializing_if = "is_zero")]
    pub random_plies: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Default for OpeningsConfig {
    fn default() -> OpeningsConfig {
        OpeningsConfig {
            kind: OpeningKind::Random,
            plies: 2,
            radius: 3,
            balance_margin: 0,
            balance_engine: None,
            file: None,
            order: OpeningOrder::Sequential,
            transform: false,
            random_plies: 0,
        }
    }
}

impl OpeningsConfig {
    /// Why these openings cannot serve `game`, if so: `transform` off a file or the
    /// balanced set, or on Ataxx; `balanced` for a game without a shipped set.
    pub fn refusal(&self, game: &GameSpec) -> Option<String> {
        if self.transform {
            if !matches!(self.kind, OpeningKind::File | OpeningKind::Balanced) {
                return Some(
                    "transform = true needs openings from a file (kind = \"file\" or \
                     \"balanced\"): random openings are all distinct already"
                        .into(),
                );
            }
            if !matches!(game, GameSpec::Mnk(_)) {
                return Some(format!(
                    "transform = true is for m,n,k-games (the board's symmetries), not {game}"
                ));
            }
        }
        if self.random_plies > 0 && !matches!(self.kind, OpeningKind::File | OpeningKind::Balanced)
        {
            return Some(
                "random_plies = K adds random plies to openings from a list (kind = \"file\" \
                 or \"balanced\"); random openings are drawn whole (`plies`)"
                    .into(),
            );
        }
        if self.kind == OpeningKind::Balanced
            && crate::tournament::openings::Shipped::of(game).is_none()
        {
            let have: Vec<&str> = crate::tournament::openings::SHIPPED
                .iter()
                .map(|s| s.game)
                .collect();
            return Some(format!(
                "kind = \"balanced\": no balanced openings ship for {game} (only for {}); \
                 make some with `arena openings {game} --balance ENGINE.toml --margin N` \
                 and use kind = \"file\"",
                match have.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} and {last}", rest.join(", "))
                    }
                    _ => have.join(""),
                }
            ));
        }
        None
    }
}

/// The `[adjudication]` section. The rules after `resign_moves` are written to `run.toml`
/// only when they differ from their defaults, so the runs of configs without them resume
/// as before; [`adjudicate`](super::adjudicate) applies them all.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Adjudication {
    /// A game still going after this many plies (opening included) is a draw (0: never).
    pub max_plies: u32,
    /// Resign when the mover's score is at or below `-resign_score` for `resign_moves`
    /// of its moves in a row (0: never).
    pub resign_score: i32,
    /// See `resign_score`.
    pub resign_moves: u32,
    /// The resignation needs the winner's agreement too (cutechess's `twosided`): its own
    /// last `resign_moves` scores at or above `+resign_score`.
    #[serde(skip_serializing_if = "is_false")]
    pub resign_twosided: bool,
    /// The draw rule starts at this move number (plies / 2, opening included as for
    /// `max_plies`; cutechess's `movenumber`).
    #[serde(skip_serializing_if = "is_zero")]
    pub draw_movenumber: u32,
    /// A draw when both sides' scores stayed within ±`draw_score` for this many moves
    /// each (2 × `draw_movecount` plies in a row; 0: no draw rule).
    #[serde(skip_serializing_if = "is_zero")]
    pub draw_movecount: u32,
    /// See `draw_movecount`.
    #[serde(skip_serializing_if = "is_zero_i32")]
    pub draw_score: i32,
    /// Ataxx: a side that leads by this many stones after `material_moves` plies in a row
    /// wins (cuteataxx's `material`; 0: never).
    #[serde(skip_serializing_if = "is_zero")]
    pub material_margin: u32,
    /// See `material_margin` (1: as soon as a move makes the lead).
    #[serde(skip_serializing_if = "is_default_material_moves")]
    pub material_moves: u32,
    /// m,n,k-games: a win that arena's VCF solver proves for the side to move (within
    /// `vcf_moves` of its moves and `vcf_nodes` positions) ends the game.
    #[serde(skip_serializing_if = "is_false")]
    pub vcf_win: bool,
    /// See `vcf_win`.
    #[serde(skip_serializing_if = "is_default_vcf_moves")]
    pub vcf_moves: u32,
    /// See `vcf_win`.
    #[serde(skip_serializing_if = "is_default_vcf_nodes")]
    pub vcf_nodes: u64,
}

/// `material_moves` unless told.
pub const DEFAULT_MATERIAL_MOVES: u32 = 1;
/// `vcf_moves` unless told: the attacker's moves, the winning one included.
pub const DEFAULT_VCF_MOVES: u32 = 20;
/// `vcf_nodes` unless told: the positions one VCF search may visit.
pub const DEFAULT_VCF_NODES: u64 = 100_000;

impl Default for Adjudication {
    fn default() -> Adjudication {
        Adjudication {
            max_plies: 0,
            resign_score: 0,
            resign_moves: 0,
            resign_twosided: false,
            draw_movenumber: 0,
            draw_movecount: 0,
            draw_score: 0,
            material_margin: 0,
            material_moves: DEFAULT_MATERIAL_MOVES,
            vcf_win: false,
            vcf_moves: DEFAULT_VCF_MOVES,
            vcf_nodes: DEFAULT_VCF_NODES,
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero_i32(n: &i32) -> bool {
    *n == 0
}

fn is_default_material_moves(n: &u32) -> bool {
    *n == DEFAULT_MATERIAL_MOVES
}

fn is_default_vcf_moves(n: &u32) -> bool {
    *n == DEFAULT_VCF_MOVES
}

fn is_default_vcf_nodes(n: &u64) -> bool {
    *n == DEFAULT_VCF_NODES
}

impl Adjudication {
    /// Checks the rules against each other and the game: the key at fault and why.
    pub fn check(&self, game: &GameSpec) -> Result<(), (&'static str, String)> {
        let fail = |key: &'static str, why: &str| Err((key, format!("[adjudication]: {why}")));
        if self.resign_score < 0 {
            return fail("resign_score", "resign_score cannot be negative");
        }
        if self.resign_twosided && (self.resign_score == 0 || self.resign_moves == 0) {
            return fail(
                "resign_twosided",
                "resign_twosided needs the resign rule (resign_score and resign_moves)",
            );
        }
        if self.draw_score < 0 {
            return fail(
                "draw_score",
                "draw_score cannot be negative (it is a ± margin)",
            );
        }
        if self.draw_movecount == 0 && (self.draw_movenumber > 0 || self.draw_score > 0) {
            return fail(
                if self.draw_movenumber > 0 {
                    "draw_movenumber"
                } else {
                    "draw_score"
                },
                "the draw rule needs draw_movecount (how many moves each side's score stays \
                 within ±draw_score)",
            );
        }
        let ataxx = matches!(game, GameSpec::Ataxx);
        if self.material_margin > 0 && !ataxx {
            return fail(
                "material_margin",
                &format!("material_margin is an Ataxx rule, and this game is {game}"),
            );
        }
        if self.material_moves == 0 {
            return fail("material_moves", "material_moves must be at least 1");
        }
        if self.material_moves != DEFAULT_MATERIAL_MOVES && self.material_margin == 0 {
            return fail("material_moves", "material_moves needs material_margin");
        }
        if self.vcf_win && ataxx {
            return fail(
                "vcf_win",
                "vcf_win is a rule of m,n,k-games (gomoku, renju), and this game is ataxx",
            );
        }
        if self.vcf_moves == 0 || self.vcf_nodes == 0 {
            return fail(
                if self.vcf_moves == 0 {
                    "vcf_moves"
                } else {
                    "vcf_nodes"
                },
                "vcf_moves and vcf_nodes must be at least 1",
            );
        }
        if !self.vcf_win
            && (self.vcf_moves != DEFAULT_VCF_MOVES || self.vcf_nodes != DEFAULT_VCF_NODES)
        {
            return fail(
                if self.vcf_moves != DEFAULT_VCF_MOVES {
                    "vcf_moves"
                } else {
                    "vcf_nodes"
                },
                "vcf_moves and vcf_nodes need vcf_win = true",
            );
        }
        Ok(())
    }
}

outside_keys!(written_outside_form! {
    /// One `[[engines]]` entry: a file with overrides, inline engine fields, or an outside
    /// program (`command`, with the keys after it declared in
    /// [`crate::protocol::external::keys`]).
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct EngineEntry {
        /// An engine config file (relative to the tournament config).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub file: Option<String>,
        /// Name (required inline; overrides the file's name).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// Inline: the game (default: the tournament's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub game: Option<GameSpec>,
        /// Inline: the table file (relative to the tournament config).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub table: Option<String>,
        /// Inline: the search settings.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub search: Option<SearchConfig>,
        /// Named parameters to set (`"search.depth" = 3`, `"table.defence" = 2.0`).
        #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
        pub set: toml::Table,
        /// External: the program to start (relative to the tournament config when it
        /// holds a `/`, else looked up in `PATH`). Makes the entry an outside engine.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub command: Option<String>,
    }
});

impl EngineEntry {
    /// The keys of a built-in engine's entry besides `name`, in the order messages
    /// list them.
    pub const BUILTIN_KEYS: [&'static str; 5] = ["file", "game", "table", "search", "set"];

    /// The keys of [`EngineEntry::BUILTIN_KEYS`] this entry gives, in that order.
    fn builtin_keys_given(&self) -> impl Iterator<Item = &'static str> {
        let given = [
            self.file.is_some(),
            self.game.is_some(),
            self.table.is_some(),
            self.search.is_some(),
            !self.set.is_empty(),
        ];
        Self::BUILTIN_KEYS
            .into_iter()
            .zip(given)
            .filter_map(|(key, given)| given.then_some(key))
    }
}

/// A tournament config as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentConfig {
    /// Run name: results go to `results/<name>/`.
    pub name: String,
    /// The game.
    pub game: GameSpec,
    /// `round-robin` or `gauntlet`.
    #[serde(default)]
    pub format: Format,
    /// Game pairs per pairing.
    pub rounds: u32,
    /// Master seed: every game's seed derives from it and the game index (any `u64`:
    /// above 2^63 - 1 a string, see [`config::toml_u64`]).
    #[serde(default = "default_seed", with = "config::toml_u64")]
    pub seed: u64,
    /// Worker threads (0: all cores): `jobs` in configs, like `--jobs`; `concurrency`
    /// (the name `run.toml` keeps, so existing results folders resume) is read too.
    #[serde(default, alias = "jobs")]
    pub concurrency: u32,
    /// Openings.
    #[serde(default)]
    pub openings: OpeningsConfig,
    /// Adjudication.
    #[serde(default)]
    pub adjudication: Adjudication,
    /// Optional SPRT (two engines only): stop when it decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtConfig>,
    /// Optional anchor for ratings: this engine's rating is fixed (default: pool average
    /// is 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// Rating of the anchor engine.
    #[serde(default)]
    pub anchor_elo: f64,
    /// The engines.
    #[serde(default)]
    pub engines: Vec<EngineEntry>,
    /// A PGN file each finished game is appended to, as `arena export --pgn` writes it
    /// (relative to the config). Where the games go, not what they are: `run.toml`
    /// leaves it out, so a run resumes with or without it.
    #[serde(default, skip_serializing)]
    pub pgnout: Option<String>,
    /// An SGF file (m,n,k games) each finished game is appended to, likewise.
    #[serde(default, skip_serializing)]
    pub sgfout: Option<String>,
}

fn default_seed() -> u64 {
    1
}

/// A tournament with every engine resolved: what `run.toml` stores.
#[derive(Clone, Debug, PartialEq)]
pub struct Tournament {
    /// The config as written (engines as entries).
    pub config: TournamentConfig,
    /// The resolved engines, in order: built in or external.
    pub engines: Vec<EngineSpec>,
    /// Where the config came from (for relative paths).
    pub path: PathBuf,
}

impl Tournament {
    /// Reads a tournament config and every engine it names.
    pub fn load(path: &Path) -> Result<Tournament, ConfigError> {
        let text = config::read(path)?;
        Tournament::parse(&path.display().to_string(), path, &text)
            .map_err(|e| config::with_kind_hint(e, path, config::Kind::Tournament))
    }

    /// Reads a tournament from text; `base` locates relative paths.
    pub fn parse(source: &str, base: &Path, text: &str) -> Result<Tournament, ConfigError> {
        let config: TournamentConfig = config::parse(source, text)?;
        Tournament::build(source, base, config, Some(text))
    }

    /// A tournament from a config built in the program (`arena match`): checked and
    /// resolved as [`Tournament::parse`] does, with errors naming `source` (no line).
    pub fn from_config(
        source: &str,
        base: &Path,
        config: TournamentConfig,
    ) -> Result<Tournament, ConfigError> {
        Tournament::build(source, base, config, None)
    }

    /// Checks `config` and resolves its engines; `text`, when it was read from one,
    /// gives errors their line.
    fn build(
        source: &str,
        base: &Path,
        config: TournamentConfig,
        text: Option<&str>,
    ) -> Result<Tournament, ConfigError> {
        let at = |needle: &str, message: String| ConfigError {
            source: source.to_string(),
            line: text.and_then(|text| config::line_of(text, needle)),
            message,
        };
        let key_line = |path: &str| text.and_then(|text| config::key_line(text, path));
        if config.name.trim().is_empty()
            || config.name.contains(['/', '\\'])
            || config.name.starts_with('.')
        {
            return Err(at(
                "name",
                format!(
                    "key `name`: '{}' cannot name a results folder (no slashes, no leading dot)",
                    config.name
                ),
            ));
        }
        if config.rounds == 0 {
            return Err(at("rounds", "key `rounds`: must be at least 1".into()));
        }
        let mut engines = Vec::new();
        for (i, entry) in config.engines.iter().enumerate() {
            // The entry's own key line (never a comment or another entry that names the
            // same file).
            let entry_line = || {
                let key = if entry.file.is_some() {
                    "file"
                } else if entry.command.is_some() {
                    "command"
                } else {
                    "name"
                };
                key_line(&format!("engines[{i}].{key}"))
                    .or_else(|| key_line(&format!("engines[{i}]")))
            };
            let engine = resolve_engine(source, base, &config, entry).map_err(|e| {
                // The line of the entry's key at fault, if the entry has it.
                let named = e
                    .key
                    .as_ref()
                    .and_then(|key| key_line(&format!("engines[{i}].{key}")));
                ConfigError {
                    source: source.to_string(),
                    line: named.or_else(entry_line),
                    message: format!("engines[{}]: {}", i + 1, e),
                }
            })?;
            let engine = match engine {
                EngineSpec::Builtin(mut engine) => {
                    // An engine plays the tournament's variant of its family (a gomoku
                    // engine plays 9x9 or exact-five just as well; its table adapts to
                    // k and the rule).
                    if engine.game.family() != config.game.family() {
                        return Err(ConfigError {
                            source: source.to_string(),
                            line: entry_line(),
                            message: format!(
                                "engines[{}] '{}' plays {}, the tournament plays {}",
                                i + 1,
                                engine.name,
                                engine.game,
                                config.game
                            ),
                        });
                    }
                    engine.game = config.game;
                    EngineSpec::Builtin(engine)
                }
                external => external,
            };
            engines.push(engine);
        }
        let min = match config.format {
            Format::RoundRobin | Format::Gauntlet => 2,
        };
        if engines.len() < min {
            return Err(at(
                "engines",
                format!(
                    "key `engines`: {} engine(s); a tournament needs at least 2",
                    engines.len()
                ),
            ));
        }
        for (i, e) in engines.iter().enumerate() {
            if engines[..i].iter().any(|o| o.name() == e.name()) {
                return Err(at(
                    e.name(),
                    format!(
                        "engines[{}]: the name '{}' is used twice; give one a `name`",
                        i + 1,
                        e.name()
                    ),
                ));
            }
        }
        if let Some(sprt) = &config.sprt {
            if engines.len() != 2 {
                return Err(at(
                    "[sprt]",
                    format!(
                        "[sprt] needs exactly 2 engines, this tournament has {}",
                        engines.len()
                    ),
                ));
            }
            sprt.validate()
                .map_err(|e| at("[sprt]", format!("[sprt]: {e}")))?;
        }
        if let Some(anchor) = &config.anchor
            && !engines.iter().any(|e| e.name() == anchor)
        {
            return Err(at(
                "anchor",
                format!("key `anchor`: no engine is named '{anchor}'"),
            ));
        }
        let o = &config.openings;
        match o.kind {
            OpeningKind::File if o.file.is_none() => {
                return Err(at(
                    "[openings]",
                    "[openings]: kind = \"file\" needs `file`".into(),
                ));
            }
            OpeningKind::Random if o.balance_margin > 0 && o.balance_engine.is_none() => {
                return Err(at(
                    "balance_margin",
                    "[openings]: balance_margin needs balance_engine (an engine config)".into(),
                ));
            }
            _ => {}
        }
        if let Some(why) = o.refusal(&config.game) {
            return Err(at("[openings]", format!("[openings]: {why}")));
        }
        if let Err((key, why)) = config.adjudication.check(&config.game) {
            return Err(at(key, why));
        }
        Ok(Tournament {
            config,
            engines,
            path: base.to_path_buf(),
        })
    }

    /// A path in the config, resolved against the config's folder.
    pub fn resolve(&self, path: &str) -> PathBuf {
        config::resolve(&self.path, path)
    }

    /// The exact resolved config as TOML: the tournament settings and every engine with
    /// every parameter (what `run.toml` stores and `--resume` compares).
    pub fn resolved_toml(&self) -> String {
        let mut tree = config::to_table(&self.config);
        tree.remove("engines");
        let engines: Vec<toml::Value> = self
            .engines
            .iter()
            .map(|spec| toml::Value::Table(resolved_engine(spec)))
            .collect();
        tree.insert("engines".into(), toml::Value::Array(engines));
        toml::to_string(&tree).expect("a resolved tournament serialises")
    }
}

impl Tournament {
    /// Reads the resolved config a run stored in `run.toml` (engines fully resolved).
    pub fn from_resolved(path: &Path) -> Result<Tournament, ConfigError> {
        let text = config::read(path)?;
        Tournament::from_resolved_text(path, &text).map_err(|e| newer_arena(e, &text))
    }

    fn from_resolved_text(path: &Path, text: &str) -> Result<Tournament, ConfigError> {
        let source = path.display().to_string();
        let mut tree: toml::Table = config::parse(&source, text)?;
        let engines = match tree.remove("engines") {
            Some(toml::Value::Array(list)) => list
                .into_iter()
                .map(|v| match v {
                    toml::Value::Table(t) if t.contains_key("command") => {
                        ExternalEngine::from_resolved(&source, t).map(EngineSpec::External)
                    }
                    toml::Value::Table(t) => {
                        EngineConfig::from_resolved(&source, t).map(EngineSpec::Builtin)
                    }
                    _ => Err(ConfigError::new(&source, "`engines` holds a non-table")),
                })
                .collect::<Result<Vec<_>, _>>()?,
            _ => {
                return Err(ConfigError::new(
                    &source,
                    "no `engines` in the run's config",
                ));
            }
        };
        let config: TournamentConfig = config::from_table(&source, tree)?;
        Ok(Tournament {
            config,
            engines,
            path: path.to_path_buf(),
        })
    }
}

/// An engine as `run.toml` stores it: every parameter of a built-in engine (with its name
/// and game), or an outside engine's resolved entry. Two runs' engines of the same name
/// are the same engine when these are equal.
pub fn resolved_engine(spec: &EngineSpec) -> toml::Table {
    match spec {
        EngineSpec::Builtin(e) => {
            let mut t = e.params();
            t.insert("name".into(), toml::Value::String(e.name.clone()));
            t.insert("game".into(), toml::Value::String(e.game.to_string()));
            t
        }
        EngineSpec::External(e) => e.to_resolved(),
    }
}

/// A key of `run.toml` that this arena does not know was written by a newer one (arena
/// writes every key it reads, and reads every key it writes): say so, at the key's line.
fn newer_arena(e: ConfigError, text: &str) -> ConfigError {
    let key = ["unknown field `", "unknown key `"]
        .iter()
        .find_map(|start| {
            let (_, rest) = e.message.split_once(start)?;
            Some(rest.split_once('`')?.0.to_string())
        });
    match key {
        Some(key) => ConfigError {
            line: e.line.or_else(|| config::any_key_line(text, &key)),
            message: format!(
                "key `{key}` is not one this arena ({}) knows: the results were written by a \
                 newer arena, which can read them",
                env!("CARGO_PKG_VERSION")
            ),
            ..e
        },
        None => e,
    }
}

/// Why an `[[engines]]` entry cannot be resolved: the key at fault (when the message
/// names one) and the message.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct EntryError {
    /// The entry's key at fault (`table`, `file`, `tc`, ...), when known.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl EntryError {
    /// An error about the entry's `key`; `message` starts with ``key `KEY`: ``.
    fn at_key(key: &str, message: String) -> EntryError {
        EntryError {
            key: Some(key.to_string()),
            message,
        }
    }

    /// An error passed on from an engine's own checks: the key is the first one the
    /// message names (``key `KEY` ``), if any.
    fn passed_on(message: String) -> EntryError {
        let key = message
            .split_once("key `")
            .and_then(|(_, rest)| rest.split_once('`'))
            .map(|(key, _)| key.to_string());
        EntryError { key, message }
    }
}

fn resolve_engine(
    source: &str,
    base: &Path,
    config: &TournamentConfig,
    entry: &EngineEntry,
) -> Result<EngineSpec, EntryError> {
    if let Some(command) = &entry.command {
        return resolve_external(base, config, entry, command).map(EngineSpec::External);
    }
    if let Some(key) = entry.outside_keys_given().next() {
        return Err(EntryError::at_key(
            key,
            format!(
                "key `{key}` is for external engines (give `command`, or put it in the engine \
                 file); with `file`, set limits with `set` (`search.depth`, `search.nodes`, \
                 `search.movetime_ms`, `search.tc`; `option.NAME` for an outside engine's \
                 options)"
            ),
        ));
    }
    if let Some(file) = &entry.file {
        return resolve_file(base, config, entry, file);
    }
    resolve_builtin(source, base, config, entry).map(EngineSpec::Builtin)
}

fn resolve_external(
    base: &Path,
    config: &TournamentConfig,
    entry: &EngineEntry,
    command: &str,
) -> Result<ExternalEngine, EntryError> {
    if let Some(key) = entry.builtin_keys_given().next() {
        let (last, rest) = EngineEntry::OUTSIDE_KEYS
            .split_last()
            .expect("an outside engine has keys");
        return Err(EntryError::at_key(
            key,
            format!(
                "key `{key}` is for built-in engines; an external engine (`command`) takes \
                 name, {} and {last}",
                rest.join(", ")
            ),
        ));
    }
    external::resolve(
        entry.name.as_deref(),
        command,
        &entry.outside_keys(),
        base,
        config.game,
    )
    .map_err(|e| EntryError::passed_on(e.to_string()))
}

/// An engine file named by `file = ...`: a built-in engine's config, or an outside
/// program's; `name` and `set` apply to either.
fn resolve_file(
    base: &Path,
    config: &TournamentConfig,
    entry: &EngineEntry,
    file: &str,
) -> Result<EngineSpec, EntryError> {
    let inline = [
        ("game", entry.game.is_some()),
        ("table", entry.table.is_some()),
        ("search", entry.search.is_some()),
    ];
    if let Some(&(key, _)) = inline.iter().find(|(_, given)| *given) {
        return Err(EntryError::at_key(
            key,
            format!(
                "key `{key}`: with `file = \"{file}\"` only `name` and `set` may be given (put \
                 the rest in `set`)"
            ),
        ));
    }
    let path = config::resolve(base, file);
    let (mut engine, _) = EngineSpec::load(&path)
        .map_err(|e| EntryError::at_key("file", format!("key `file`: {e}")))?;
    if let Some(name) = &entry.name {
        engine.rename(name);
    }
    engine
        .set_all(entry.set.iter().map(|(k, v)| (k, v.clone())))
        .map_err(set_error)?;
    if let EngineSpec::External(e) = &engine {
        e.validate(config.game).map_err(|m| {
            EntryError::at_key("file", format!("key `file`: {}: {m}", path.display()))
        })?;
    }
    Ok(engine)
}

/// An inline built-in engine (`name`, `game`, `table`, `search`, `set`).
fn resolve_builtin(
    _source: &str,
    base: &Path,
    config: &TournamentConfig,
    entry: &EngineEntry,
) -> Result<EngineConfig, EntryError> {
    let name = entry.name.clone().ok_or_else(|| {
        EntryError::passed_on("an inline engine needs `name` (or give `file`)".into())
    })?;
    let mut tree = toml::Table::new();
    tree.insert("name".into(), toml::Value::String(name.clone()));
    tree.insert(
        "game".into(),
        toml::Value::String(entry.game.unwrap_or(config.game).to_string()),
    );
    if let Some(table) = &entry.table {
        tree.insert("table".into(), toml::Value::String(table.clone()));
    }
    if let Some(search) = &entry.search {
        tree.insert(
            "search".into(),
            toml::Value::Table(config::to_table(search)),
        );
    }
    let mut engine = EngineConfig::from_toml(&format!("engine '{name}'"), base, tree)
        .map_err(|e| EntryError::passed_on(e.message))?;
    engine
        .set_all(entry.set.iter().map(|(k, v)| (k, v.clone())))
        .map_err(set_error)?;
    Ok(engine)
}

/// A `set` assignment the engine refuses (`set `KEY`: ...`).
fn set_error(e: SetError) -> EntryError {
    EntryError::passed_on(match e.key {
        Some(key) => format!("set `{key}`: {}", e.message),
        None => format!("set: {}", e.message),
    })
}
