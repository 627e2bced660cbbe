//! Weight tables: TOML files under `configs/tables/`, separate from engine configs so they
//! can be compared, tuned and written back in the same format.
//!
//! Every number in a table is a named parameter (`table.open_three`,
//! `table.points.five`, `table.mobility`) through [`crate::config`].

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{
    net::{AtaxxNet, NetError},
    patterns::{PATTERN_COUNT, Pattern},
};
use crate::config::{self, ConfigError};

/// Number of combinations a cell can make: the per-cell terms of the `lines` score
/// ([`MnkTable::CELL_KEYS`]), as the evaluator counts them.
pub const COMBOS: usize = 6;

/// A weight table for one game family. The file's `family` key (`mnk` or `ataxx`) says
/// which.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)] // a handful of tables per run; boxing buys nothing
pub enum Table {
    /// For m,n,k-games (gomoku, tic-tac-toe, ...).
    Mnk(MnkTable),
    /// For Ataxx.
    Ataxx(AtaxxTable),
}

impl Table {
    /// Reads a table file.
    pub fn load(path: &Path) -> Result<Table, ConfigError> {
        Table::parse(&path.display().to_string(), &config::read(path)?)
    }

    /// Reads a table from TOML text; `source` names it in errors. The family is read
    /// first so that errors about the other keys keep their line numbers.
    pub fn parse(source: &str, text: &str) -> Result<Table, ConfigError> {
        let raw: toml::Table = config::parse(source, text)?;
        let family = raw.get("family").and_then(toml::Value::as_str);
        let table = match family {
            Some("mnk") => Table::Mnk(config::parse(source, text)?),
            Some("ataxx") => Table::Ataxx(config::parse(source, text)?),
            Some(other) => {
                return Err(ConfigError::new(
                    source,
                    format!("key `family`: '{other}' is not 'mnk' or 'ataxx'"),
                ));
            }
            None => {
                return Err(ConfigError::new(
                    source,
                    "key `family` is missing: write family = \"mnk\" or family = \"ataxx\"",
                ));
            }
        };
        table
            .validate()
            .map_err(|e| ConfigError::new(source, e.to_string()))?;
        Ok(table)
    }

    /// Reads a table back from its TOML tree (after named parameters were set).
    pub fn from_toml(source: &str, tree: toml::Table) -> Result<Table, ConfigError> {
        let text = toml::to_string(&tree).map_err(|e| ConfigError::new(source, e.to_string()))?;
        Table::parse(source, &text)
    }

    /// The family name (`mnk` or `ataxx`).
    pub fn family(&self) -> &'static str {
        match self {
            Table::Mnk(_) => "mnk",
            Table::Ataxx(_) => "ataxx",
        }
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        match self {
            Table::Mnk(t) => &t.name,
            Table::Ataxx(t) => &t.name,
        }
    }

    fn validate(&self) -> Result<(), TableError> {
        match self {
            Table::Mnk(t) => t.validate(),
            Table::Ataxx(t) => match &t.net {
                Some(net) => net.validate().map_err(TableError::Net),
                None => Ok(()),
            },
        }
    }

    /// The number `key` of the table as its named parameter `table.KEY` calls it
    /// (`open_three`, `points.five`, `defence`, `endgame.material`, `hole_3`): an integer,
    /// or a float for `defence`; `None` for another key (`family`, `name`, `evaluation`,
    /// a whole section) or a section the table leaves out.
    pub fn weight(&self, key: &str) -> Option<toml::Value> {
        let weight = match self {
            Table::Mnk(t) if key == "defence" => return Some(toml::Value::Float(t.defence)),
            Table::Mnk(t) => match key.strip_prefix("points.") {
                Some(k) => t.points.as_ref()?.weight_ref(k),
                None => t.weight_ref(key),
            },
            Table::Ataxx(t) => match key.strip_prefix("endgame.") {
                Some(k) => t.endgame.weight_ref(k),
                None => t.weight_ref(key),
            },
        };
        weight.map(|w| toml::Value::Integer(*w))
    }

    /// Sets the number `key` (see [`Table::weight`]) to `value`, of the type
    /// [`Table::weight`] gives, and checks the table as reading it does (the message
    /// names the key: `key `defence`: ...`).
    pub fn set_weight(&mut self, key: &str, value: &toml::Value) -> Result<(), TableError> {
        let slot = match (&mut *self, value) {
            (Table::Mnk(t), toml::Value::Float(f)) if key == "defence" => {
                t.defence = *f;
                return self.validate();
            }
            (Table::Mnk(t), toml::Value::Integer(i)) => match key.strip_prefix("points.") {
                Some(k) => t.points.as_mut().and_then(|p| p.weight_mut(k)),
                None => t.weight_mut(key),
            }
            .map(|w| (w, *i)),
            (Table::Ataxx(t), toml::Value::Integer(i)) => match key.strip_prefix("endgame.") {
                Some(k) => t.endgame.weight_mut(k),
                None => t.weight_mut(key),
            }
            .map(|w| (w, *i)),
            _ => None,
        };
        let Some((slot, v)) = slot else {
            return Err(TableError::NoNumber {
                key: key.to_string(),
                value: value.to_string(),
            });
        };
        *slot = v;
        self.validate()
    }
}

/// What is wrong with a table's weights; each names its key.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TableError {
    /// `defence` outside 0..=100.
    #[error("key `defence`: {0} is outside 0..=100")]
    Defence(f64),
    /// A per-cell term that a `points` evaluation never reads.
    #[error(
        "key `{0}`: a `points` evaluation never reads it (its points add double_four, \
         four_three and double_three instead); use it with evaluation = \"lines\""
    )]
    Unread(&'static str),
    /// A named number the table does not have, or not of the value's type.
    #[error("the table has no number `{key}` that takes {value}")]
    NoNumber {
        /// The key as given.
        key: String,
        /// The value, as TOML writes it.
        value: String,
    },
    /// A bad `[net]` section of an Ataxx table.
    #[error("{0}")]
    Net(NetError),
}

impl TableError {
    /// The key the error is about.
    pub fn key(&self) -> &str {
        match self {
            TableError::Defence(_) => "defence",
            TableError::Unread(key) => key,
            TableError::NoNumber { key, .. } => key,
            TableError::Net(_) => "net",
        }
    }
}

/// The whole-number weights of a table's struct by name: `weight_ref` and `weight_mut`
/// (`None` for another name).
macro_rules! weights_by_name {
    ($ty:ty { $($field:ident),+ $(,)? }) => {
        impl $ty {
            fn weight_ref(&self, key: &str) -> Option<&i64> {
                match key {
                    $( stringify!($field) => Some(&self.$field), )+
                    _ => None,
                }
            }

            fn weight_mut(&mut self, key: &str) -> Option<&mut i64> {
                match key {
                    $( stringify!($field) => Some(&mut self.$field), )+
                    _ => None,
                }
            }
        }
    };
}

weights_by_name!(PatternWeights {
    five,
    open_four,
    rush_four,
    dead_four,
    open_three,
    sleep_three,
    dead_three,
    open_two,
    sleep_two,
    dead_two,
    open_one,
    sleep_one,
    dead_one,
});

weights_by_name!(MnkTable {
    centre,
    double_four,
    four_three,
    double_three,
    cell_double_four,
    cell_four_three,
    cell_double_three,
    cell_four_two,
    cell_three_two,
    cell_double_two,
    five,
    open_four,
    rush_four,
    dead_four,
    open_three,
    sleep_three,
    dead_three,
    open_two,
    sleep_two,
    dead_two,
    open_one,
    sleep_one,
    dead_one,
});

weights_by_name!(AtaxxTable {
    material,
    rectangle,
    mobility,
    frontier,
    corner,
    edge,
    tempo,
    tempo_filled,
    square_a1,
    square_b1,
    square_c1,
    square_d1,
    square_b2,
    square_c2,
    square_d2,
    square_c3,
    square_d3,
    square_d4,
    hole_1,
    hole_2,
    hole_3,
    hole_4,
    hole_5,
    hole_6,
    hole_7,
    hole_8,
    territory,
    capture,
    exposed,
});

weights_by_name!(AtaxxEndgame {
    material,
    rectangle,
    mobility,
    frontier,
    corner,
    edge,
    tempo,
    tempo_filled,
    square_a1,
    square_b1,
    square_c1,
    square_d1,
    square_b2,
    square_c2,
    square_d2,
    square_c3,
    square_d3,
    square_d4,
    hole_1,
    hole_2,
    hole_3,
    hole_4,
    hole_5,
    hole_6,
    hole_7,
    hole_8,
    territory,
    capture,
    exposed,
});

/// How an m,n,k table turns patterns into a position score.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MnkEvaluation {
    /// Sum over every stone and each of its four lines of the weight of the pattern the
    /// stone is part of (seeds 000 and 003); kept incrementally.
    #[default]
    Lines,
    /// The best point score on the board for each side (seed 001).
    Points,
}

/// Weights of the thirteen named patterns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
#[allow(missing_docs)]
pub struct PatternWeights {
    pub five: i64,
    pub open_four: i64,
    pub rush_four: i64,
    pub dead_four: i64,
    pub open_three: i64,
    pub sleep_three: i64,
    pub dead_three: i64,
    pub open_two: i64,
    pub sleep_two: i64,
    pub dead_two: i64,
    pub open_one: i64,
    pub sleep_one: i64,
    pub dead_one: i64,
}

impl PatternWeights {
    /// The weights indexed by [`Pattern`] (`None` weighs 0).
    pub fn by_pattern(&self) -> [i64; PATTERN_COUNT] {
        let mut w = [0; PATTERN_COUNT];
        for p in Pattern::ALL {
            w[p as usize] = match p {
                Pattern::None => 0,
                Pattern::DeadOne => self.dead_one,
                Pattern::DeadTwo => self.dead_two,
                Pattern::DeadThree => self.dead_three,
                Pattern::DeadFour => self.dead_four,
                Pattern::SleepOne => self.sleep_one,
                Pattern::OpenOne => self.open_one,
                Pattern::SleepTwo => self.sleep_two,
                Pattern::OpenTwo => self.open_two,
                Pattern::SleepThree => self.sleep_three,
                Pattern::OpenThree => self.open_three,
                Pattern::RushFour => self.rush_four,
                Pattern::OpenFour => self.open_four,
                Pattern::Five => self.five,
            };
        }
        w
    }
}

/// A weight table for m,n,k-games. Pattern names are relative to k (see
/// [`super::patterns`]): for gomoku they mean what they say. The pattern weights at the
/// top level score stones in the position evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MnkTable {
    /// Always `mnk`.
    pub family: String,
    /// A short name for reports.
    #[serde(default)]
    pub name: String,
    /// `lines` (default) or `points`.
    #[serde(default)]
    pub evaluation: MnkEvaluation,
    /// The opponent's patterns weigh `defence` times ours, from the point of view of the
    /// player choosing a move: a position is scored `defence * S(side to move) -
    /// S(side that just moved)` and a point `attack + defence * defence_value`.
    #[serde(default = "one")]
    pub defence: f64,
    /// Bonus per ring towards the centre (0 on the edge ring), for stones in the position
    /// score and for points.
    #[serde(default)]
    pub centre: i64,
    /// Point bonus when one move makes two fours (in two lines).
    #[serde(default)]
    pub double_four: i64,
    /// Point bonus when one move makes a four and an open three.
    #[serde(default)]
    pub four_three: i64,
    /// Point bonus when one move makes two open threes.
    #[serde(default)]
    pub double_three: i64,
    /// Position score (`lines` only), per empty cell where one stone of a side would make
    /// two fours: what the line weights cannot see, since no stone is there yet. 0 by
    /// default (the seed tables' scores are unchanged).
    #[serde(default)]
    pub cell_double_four: i64,
    /// Position score (`lines` only), per empty cell where one stone would make a four
    /// and an open three.
    #[serde(default)]
    pub cell_four_three: i64,
    /// Position score (`lines` only), per empty cell where one stone would make two open
    /// threes.
    #[serde(default)]
    pub cell_double_three: i64,
    /// Position score (`lines` only), per empty cell where one stone would make a four
    /// and an open two.
    #[serde(default)]
    pub cell_four_two: i64,
    /// Position score (`lines` only), per empty cell where one stone would make an open
    /// three and an open two.
    #[serde(default)]
    pub cell_three_two: i64,
    /// Position score (`lines` only), per empty cell where one stone would make two open
    /// twos (next move's double three).
    #[serde(default)]
    pub cell_double_two: i64,
    /// Weight of a stone in a winning line (position score; the same names below).
    #[serde(default)]
    pub five: i64,
    #[serde(default)]
    #[allow(missing_docs)]
    pub open_four: i64,
    #[serde(default)]
    #[allow(missing_docs)]
    pub rush_four: i64,
    #[serde(default)]
    #[allow(missing_docs)]
    pub dead_four: i64,
    #[serde(default)]
    #[allow(missing_docs)]
    pub open_three: i64,
    #[serde(default)]
    #[allow(missing_docs)]
    pub sleep_three: i64,
    #[serde(default)]
    #[allow(missing_docs)]
    pub dead_three: i64,
    #[serde(default)]
    #[allow(missing_docs)]
    pub open_two: i64,
    #[serde(default)]
    #[allow(missing_docs)]
    pub sleep_two: i64,
    #[serde(default)]
    #[allow(missing_docs)]
    pub dead_two: i64,
    #[serde(default)]
    #[allow(missing_docs)]
    pub open_one: i64,
    #[serde(default)]
    #[allow(missing_docs)]
    pub sleep_one: i64,
    #[serde(default)]
    #[allow(missing_docs)]
    pub dead_one: i64,
    /// Weights of the pattern a stone would make on an empty point (move ordering,
    /// `points` evaluation). Left out: the same as the line weights.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<PatternWeights>,
}

fn one() -> f64 {
    1.0
}

impl MnkTable {
    fn validate(&self) -> Result<(), TableError> {
        if !(self.defence.is_finite() && self.defence >= 0.0 && self.defence <= 100.0) {
            return Err(TableError::Defence(self.defence));
        }
        if self.evaluation == MnkEvaluation::Points {
            for (key, v) in Self::CELL_KEYS.iter().zip(self.cell_weights()) {
                if v != 0 {
                    return Err(TableError::Unread(key));
                }
            }
        }
        Ok(())
    }

    /// The keys of the per-cell combination terms of the `lines` score, in
    /// [`MnkTable::cell_weights`] order.
    pub const CELL_KEYS: [&'static str; COMBOS] = [
        "cell_double_four",
        "cell_four_three",
        "cell_double_three",
        "cell_four_two",
        "cell_three_two",
        "cell_double_two",
    ];

    /// The per-cell combination weights of the `lines` score: [two fours, a four and an
    /// open three, two open threes, a four and an open two, an open three and an open
    /// two, two open twos].
    pub fn cell_weights(&self) -> [i64; COMBOS] {
        [
            self.cell_double_four,
            self.cell_four_three,
            self.cell_double_three,
            self.cell_four_two,
            self.cell_three_two,
            self.cell_double_two,
        ]
    }

    /// The weights of stone patterns in the position score.
    pub fn line_weights(&self) -> PatternWeights {
        PatternWeights {
            five: self.five,
            open_four: self.open_four,
            rush_four: self.rush_four,
            dead_four: self.dead_four,
            open_three: self.open_three,
            sleep_three: self.sleep_three,
            dead_three: self.dead_three,
            open_two: self.open_two,
            sleep_two: self.sleep_two,
            dead_two: self.dead_two,
            open_one: self.open_one,
            sleep_one: self.sleep_one,
            dead_one: self.dead_one,
        }
    }

    /// The point weights (the line weights when the table has no `[points]`).
    pub fn point_weights(&self) -> PatternWeights {
        self.points.unwrap_or_else(|| self.line_weights())
    }

    /// A table of zeros: search alone decides (tic-tac-toe's perfect engine).
    pub fn zero() -> MnkTable {
        let text = "family = \"mnk\"\nname = \"none\"\n";
        toml::from_str(text).expect("an empty table is valid")
    }
}

/// A weight table for Ataxx. Every term is scored for the side to move minus the same
/// term for the opponent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AtaxxTable {
    /// Always `ataxx`.
    pub family: String,
    /// A short name for reports.
    #[serde(default)]
    pub name: String,
    /// Per stone.
    #[serde(default)]
    pub material: i64,
    /// Per square of the largest rectangle made only of one's own stones (seed 004).
    #[serde(default)]
    pub rectangle: i64,
    /// Per legal move (singles and jumps).
    #[serde(default)]
    pub mobility: i64,
    /// Per stone next to an empty square (usually negative: such stones can be flipped).
    #[serde(default)]
    pub frontier: i64,
    /// Per stone on a corner square.
    #[serde(default)]
    pub corner: i64,
    /// Per stone on an edge square that is not a corner.
    #[serde(default)]
    pub edge: i64,
    /// For the side to move alone (not minus the opponent's): in Ataxx the mover
    /// usually captures next, so a static score that ignores whose turn it is swings by
    /// stones between odd and even depths. Tiktaxx gives 200 + 300 x (filled squares /
    /// 49) with 100 a stone; here `tempo` + `tempo_filled` x filled squares.
    #[serde(default)]
    pub tempo: i64,
    /// For the side to move alone, per filled square (stones of both sides and gaps):
    /// the tempo grows as the board fills.
    #[serde(default)]
    pub tempo_filled: i64,
    // A square table, one value per class of squares under the board's eight symmetries
    // (the square's file and rank folded towards a1, then the smaller of the two taken as
    // the rank: a1, b1, c1, d1, b2, c2, d2, c3, d3, d4). Zero by default: a table without
    // them scores as before. Tiktaxx and most UAI Ataxx engines have such a table.
    /// Per stone on a square of class `a1` (see [`AtaxxTable::squares`]).
    #[serde(default)]
    pub square_a1: i64,
    /// Per stone on a square of class `b1` (see [`AtaxxTable::squares`]).
    #[serde(default)]
    pub square_b1: i64,
    /// Per stone on a square of class `c1` (see [`AtaxxTable::squares`]).
    #[serde(default)]
    pub square_c1: i64,
    /// Per stone on a square of class `d1` (see [`AtaxxTable::squares`]).
    #[serde(default)]
    pub square_d1: i64,
    /// Per stone on a square of class `b2` (see [`AtaxxTable::squares`]).
    #[serde(default)]
    pub square_b2: i64,
    /// Per stone on a square of class `c2` (see [`AtaxxTable::squares`]).
    #[serde(default)]
    pub square_c2: i64,
    /// Per stone on a square of class `d2` (see [`AtaxxTable::squares`]).
    #[serde(default)]
    pub square_d2: i64,
    /// Per stone on a square of class `c3` (see [`AtaxxTable::squares`]).
    #[serde(default)]
    pub square_c3: i64,
    /// Per stone on a square of class `d3` (see [`AtaxxTable::squares`]).
    #[serde(default)]
    pub square_d3: i64,
    /// Per stone on a square of class `d4` (see [`AtaxxTable::squares`]).
    #[serde(default)]
    pub square_d4: i64,
    // Holes: an empty square next to one's stones that the opponent can reach (a single
    // or a jump) is a capture waiting to happen; `hole_N` is the value of such a square
    // with N of one's stones around it (the stones the opponent's move there would
    // take). Zero by default: a table without them scores as before.
    /// Per hole with 1 own stone around it (see [`AtaxxTable::holes`]).
    #[serde(default)]
    pub hole_1: i64,
    /// Per hole with 2 own stones around it.
    #[serde(default)]
    pub hole_2: i64,
    /// Per hole with 3 own stones around it.
    #[serde(default)]
    pub hole_3: i64,
    /// Per hole with 4 own stones around it.
    #[serde(default)]
    pub hole_4: i64,
    /// Per hole with 5 own stones around it.
    #[serde(default)]
    pub hole_5: i64,
    /// Per hole with 6 own stones around it.
    #[serde(default)]
    pub hole_6: i64,
    /// Per hole with 7 own stones around it.
    #[serde(default)]
    pub hole_7: i64,
    /// Per hole with 8 own stones around it.
    #[serde(default)]
    pub hole_8: i64,
    /// Per empty square that one's stones reach (a single or a jump) and the
    /// opponent's do not: a square only one side can fill. Zero by default: a table
    /// without it scores as before.
    #[serde(default)]
    pub territory: i64,
    /// For the side to move alone (as the tempo): the stones its best move captures
    /// now (0 when no move captures). Zero by default: a table without it scores as
    /// before.
    #[serde(default)]
    pub capture: i64,
    /// Per stone of one's own next to an empty square the opponent reaches (a single
    /// or a jump): a stone the opponent's next move could take. Zero by default: a
    /// table without it scores as before.
    #[serde(default)]
    pub exposed: i64,
    /// `[endgame]`: how much each term's weight changes from an empty board to a full
    /// one. A term is worth `weight + endgame.weight × phase`, where the phase is the
    /// share of the playable squares (not gaps) that hold stones: 4/49 at the start, 1
    /// on a full board. All 0 by default: the table scores as before.
    #[serde(default)]
    pub endgame: AtaxxEndgame,
    /// `[net]`: a small network whose score is added to the terms' (see
    /// [`super::net`]). None by default: the table scores as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<AtaxxNet>,
}

/// The `[endgame]` section of an [`AtaxxTable`]: per term, the change of its weight
/// from an empty board to a full one (see [`AtaxxTable::endgame`]). Its keys are the
/// table's term names ([`AtaxxTable::TERM_KEYS`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AtaxxEndgame {
    /// The change of the term of this name.
    pub material: i64,
    /// The change of the term of this name.
    pub rectangle: i64,
    /// The change of the term of this name.
    pub mobility: i64,
    /// The change of the term of this name.
    pub frontier: i64,
    /// The change of the term of this name.
    pub corner: i64,
    /// The change of the term of this name.
    pub edge: i64,
    /// The change of the term of this name.
    pub tempo: i64,
    /// The change of the term of this name.
    pub tempo_filled: i64,
    /// The change of the term of this name.
    pub square_a1: i64,
    /// The change of the term of this name.
    pub square_b1: i64,
    /// The change of the term of this name.
    pub square_c1: i64,
    /// The change of the term of this name.
    pub square_d1: i64,
    /// The change of the term of this name.
    pub square_b2: i64,
    /// The change of the term of this name.
    pub square_c2: i64,
    /// The change of the term of this name.
    pub square_d2: i64,
    /// The change of the term of this name.
    pub square_c3: i64,
    /// The change of the term of this name.
    pub square_d3: i64,
    /// The change of the term of this name.
    pub square_d4: i64,
    /// The change of the term of this name.
    pub hole_1: i64,
    /// The change of the term of this name.
    pub hole_2: i64,
    /// The change of the term of this name.
    pub hole_3: i64,
    /// The change of the term of this name.
    pub hole_4: i64,
    /// The change of the term of this name.
    pub hole_5: i64,
    /// The change of the term of this name.
    pub hole_6: i64,
    /// The change of the term of this name.
    pub hole_7: i64,
    /// The change of the term of this name.
    pub hole_8: i64,
    /// The change of the term of this name.
    pub territory: i64,
    /// The change of the term of this name.
    pub capture: i64,
    /// The change of the term of this name.
    pub exposed: i64,
}

impl AtaxxEndgame {
    /// The changes in [`AtaxxTable::TERM_KEYS`] order.
    pub fn values(&self) -> [i64; ATAXX_TERM_COUNT] {
        [
            self.material,
            self.rectangle,
            self.mobility,
            self.frontier,
            self.corner,
            self.edge,
            self.tempo,
            self.tempo_filled,
            self.square_a1,
            self.square_b1,
            self.square_c1,
            self.square_d1,
            self.square_b2,
            self.square_c2,
            self.square_d2,
            self.square_c3,
            self.square_d3,
            self.square_d4,
            self.hole_1,
            self.hole_2,
            self.hole_3,
            self.hole_4,
            self.hole_5,
            self.hole_6,
            self.hole_7,
            self.hole_8,
            self.territory,
            self.capture,
            self.exposed,
        ]
    }
}

/// How many terms an Ataxx table has ([`AtaxxTable::TERM_KEYS`]).
pub const ATAXX_TERM_COUNT: usize = 29;

impl AtaxxTable {
    /// Material only, 100 per stone.
    pub fn material_only() -> AtaxxTable {
        AtaxxTable {
            family: "ataxx".to_string(),
            name: "material".to_string(),
            material: 100,
            rectangle: 0,
            mobility: 0,
            frontier: 0,
            corner: 0,
            edge: 0,
            tempo: 0,
            tempo_filled: 0,
            square_a1: 0,
            square_b1: 0,
            square_c1: 0,
            square_d1: 0,
            square_b2: 0,
            square_c2: 0,
            square_d2: 0,
            square_c3: 0,
            square_d3: 0,
            square_d4: 0,
            hole_1: 0,
            hole_2: 0,
            hole_3: 0,
            hole_4: 0,
            hole_5: 0,
            hole_6: 0,
            hole_7: 0,
            hole_8: 0,
            territory: 0,
            capture: 0,
            exposed: 0,
            endgame: AtaxxEndgame::default(),
            net: None,
        }
    }

    /// Every term's name, in the order of [`AtaxxTable::weights`]: the eight scalar
    /// terms, the square classes ([`AtaxxTable::SQUARE_KEYS`]), the holes
    /// ([`AtaxxTable::HOLE_KEYS`]), the territory, the side to move's capture and the exposed stones.
    pub const TERM_KEYS: [&'static str; ATAXX_TERM_COUNT] = [
        "material",
        "rectangle",
        "mobility",
        "frontier",
        "corner",
        "edge",
        "tempo",
        "tempo_filled",
        "square_a1",
        "square_b1",
        "square_c1",
        "square_d1",
        "square_b2",
        "square_c2",
        "square_d2",
        "square_c3",
        "square_d3",
        "square_d4",
        "hole_1",
        "hole_2",
        "hole_3",
        "hole_4",
        "hole_5",
        "hole_6",
        "hole_7",
        "hole_8",
        "territory",
        "capture",
        "exposed",
    ];

    /// The names of the hole terms, in [`AtaxxTable::holes`] order.
    pub const HOLE_KEYS: [&'static str; 8] = [
        "hole_1", "hole_2", "hole_3", "hole_4", "hole_5", "hole_6", "hole_7", "hole_8",
    ];

    /// The hole values for 1 to 8 own stones around the hole.
    pub fn holes(&self) -> [i64; 8] {
        [
            self.hole_1,
            self.hole_2,
            self.hole_3,
            self.hole_4,
            self.hole_5,
            self.hole_6,
            self.hole_7,
            self.hole_8,
        ]
    }

    /// Every term's weight on an empty board, in [`AtaxxTable::TERM_KEYS`] order.
    pub fn weights(&self) -> [i64; ATAXX_TERM_COUNT] {
        let head = [
            self.material,
            self.rectangle,
            self.mobility,
            self.frontier,
            self.corner,
            self.edge,
            self.tempo,
            self.tempo_filled,
        ];
        let (squares, holes) = (self.squares(), self.holes());
        std::array::from_fn(|i| match i {
            0..8 => head[i],
            8..18 => squares[i - 8],
            18..26 => holes[i - 18],
            26 => self.territory,
            27 => self.capture,
            _ => self.exposed,
        })
    }

    /// The names of the square classes, in [`AtaxxTable::squares`] order.
    pub const SQUARE_KEYS: [&'static str; 10] = [
        "square_a1",
        "square_b1",
        "square_c1",
        "square_d1",
        "square_b2",
        "square_c2",
        "square_d2",
        "square_c3",
        "square_d3",
        "square_d4",
    ];

    /// The square table's ten values, in [`AtaxxTable::SQUARE_KEYS`] order.
    pub fn squares(&self) -> [i64; 10] {
        [
            self.square_a1,
            self.square_b1,
            self.square_c1,
            self.square_d1,
            self.square_b2,
            self.square_c2,
            self.square_d2,
            self.square_c3,
            self.square_d3,
            self.square_d4,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_parse_and_round_trip() {
        let text = "family = \"mnk\"\nname = \"t\"\nfive = 100\nopen_three = 7\n\
                    [points]\nfive = 5\n";
        let t = Table::parse("t.toml", text).unwrap();
        let Table::Mnk(m) = &t else { panic!() };
        assert_eq!(m.line_weights().five, 100);
        assert_eq!(m.point_weights().five, 5);
        assert_eq!(m.defence, 1.0);
        let back = Table::from_toml("t", crate::config::to_table(&t)).unwrap();
        assert_eq!(back, t);
        let names: Vec<String> = crate::config::numeric_params(&crate::config::to_table(&t))
            .into_iter()
            .map(|p| p.0)
            .collect();
        assert!(names.contains(&"open_three".to_string()), "{names:?}");
        assert!(names.contains(&"points.five".to_string()), "{names:?}");
        assert!(names.contains(&"defence".to_string()), "{names:?}");
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors() {
        let e = Table::parse("t.toml", "family = \"mnk\"\nopen_tree = 3\n").unwrap_err();
        assert!(e.to_string().contains("open_tree"), "{e}");
        let e = Table::parse("t.toml", "family = \"chess\"\n").unwrap_err();
        assert!(e.to_string().contains("chess"), "{e}");
        let e = Table::parse("t.toml", "family = \"mnk\"\ndefence = -1.0\n").unwrap_err();
        assert!(e.to_string().contains("defence"), "{e}");
        let e =
            Table::parse("t.toml", "family = \"ataxx\"\nmaterial = 1\nmobilty = 2\n").unwrap_err();
        assert!(e.to_string().contains("mobilty"), "{e}");
    }
}
