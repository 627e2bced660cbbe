//! The parameter registry of the search: every switch and every number the search's
//! selective rules use, each declared once, here, with its type, default, the range it
//! is valid in, the range it is sensible to tune in, the games that use it, the switch
//! (or ordering, or other number) it works through, and one line of doc.
//!
//! From these declarations come the structs ([`SearchParams`]; the switches of
//! `SearchSettings` and of the engine's `[search]` section, through `search_switches!`),
//! their defaults and serde forms, and the tables ([`SearchParams::SPECS`],
//! [`SWITCHES`]) that the engine layer reads for `--set`, ranges, tune and served
//! option lists, inert-parameter warnings and the generated `docs/parameters.md`.
//! A new number is one line in `search_params!` below plus its use in the search.
//!
//! Margins are in hundredths of the evaluator's unit ([`crate::eval::Evaluator::unit`]:
//! a stone in Ataxx, a stone's share of an open three in gomoku), so they mean the same
//! with any table. This module knows no engine config and no protocol.

use serde::{Deserialize, Serialize};

use super::score::MAX_PLY;

/// The deepest meaningful depth of a search rule (plies).
pub const DEPTH: f64 = (MAX_PLY - 1) as f64;

/// The games a parameter is used in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Games {
    /// Every game.
    All,
    /// m,n,k games only (gomoku's threat knowledge): an Ataxx engine does not have it.
    Mnk,
}

impl Games {
    /// Whether a game of `family` (`"mnk"`, `"ataxx"`) uses it.
    pub fn includes(self, family: &str) -> bool {
        self == Games::All || family == "mnk"
    }

    /// As the parameter page writes it.
    pub fn label(self) -> &'static str {
        match self {
            Games::All => "all",
            Games::Mnk => "m,n,k",
        }
    }
}

/// One end of a parameter's validity range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// A fixed value.
    Value(f64),
    /// The board's longest side (7 in Ataxx).
    BoardSide,
    /// The largest transposition table this machine can hold ([`super::tt::max_mb`]).
    TtMax,
}

impl Bound {
    /// The value, on a board whose longest side is `side`.
    pub fn resolve(self, side: f64) -> f64 {
        match self {
            Bound::Value(v) => v,
            Bound::BoardSide => side,
            Bound::TtMax => super::tt::max_mb() as f64,
        }
    }

    /// As the parameter page writes it.
    pub fn label(self) -> String {
        match self {
            Bound::Value(v) => format!("{v}"),
            Bound::BoardSide => "board side".into(),
            Bound::TtMax => "half the memory".into(),
        }
    }
}

/// What kind of value a parameter takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole number.
    Integer,
    /// `true` or `false`.
    Switch,
    /// Anything else (a list, a word, a time control): set in configs, never tuned.
    Other,
}

/// A number whose value turns another number's rule off (`lmp_defend = 0` turns
/// `lmp_defend_max` off): the other one is then inert, unless this one moves too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffWhen {
    /// The number's key within `search.params` (`lmp_defend`).
    pub key: &'static str,
    /// Its values up to this one turn the rule off.
    pub at_most: u32,
    /// What such a value means (`off`, `no ply`).
    pub meaning: &'static str,
}

/// Everything the program knows about one search parameter besides its use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spec {
    /// The dotted name (`search.params.lmr_divisor`, `search.lmr`).
    pub name: &'static str,
    /// The doc comment of its declaration.
    pub doc: &'static str,
    /// Its kind of value.
    pub kind: Kind,
    /// The values it is valid in (inclusive): a config, `--set`, UAI `setoption` and
    /// Gomocup `INFO` take no other.
    pub valid: (Bound, Bound),
    /// The range sensible to tune it in (inclusive): what `arena serve` advertises as
    /// an option's min and max, and what `arena tune` takes when `[[params]]` gives none
    /// (widened to hold the engine's value).
    pub tune: (f64, f64),
    /// The games that use it.
    pub games: Games,
    /// The switch of `[search]` it works through (`lmr`; for a switch: the one it needs).
    pub switch: Option<&'static str>,
    /// The ordering heuristic of `search.ordering` it works through (`static`).
    pub ordering: Option<&'static str>,
    /// The number whose value can turn its rule off.
    pub off_when: Option<OffWhen>,
}

impl Spec {
    /// A whole number valid within `lo..=hi`, tuned in the same range unless told.
    pub const fn number(lo: f64, hi: f64) -> Spec {
        Spec {
            name: "",
            doc: "",
            kind: Kind::Integer,
            valid: (Bound::Value(lo), Bound::Value(hi)),
            tune: (lo, hi),
            games: Games::All,
            switch: None,
            ordering: None,
            off_when: None,
        }
    }

    /// A depth limit: valid from 0 to the deepest search.
    pub const fn depth() -> Spec {
        Spec::number(0.0, DEPTH)
    }

    /// A `true`/`false` switch, off by default.
    pub const fn switch() -> Spec {
        Spec {
            kind: Kind::Switch,
            tune: (0.0, 1.0),
            ..Spec::number(0.0, 1.0)
        }
    }

    /// A value that is not a number (a list, a word).
    pub const fn other() -> Spec {
        Spec {
            kind: Kind::Other,
            ..Spec::number(0.0, 0.0)
        }
    }

    /// Valid up to `hi` (a bound known only with the board or the machine).
    pub const fn up_to(self, hi: Bound) -> Spec {
        Spec {
            valid: (self.valid.0, hi),
            ..self
        }
    }

    /// Sensible to tune within `lo..=hi`.
    pub const fn tune(self, lo: f64, hi: f64) -> Spec {
        Spec {
            tune: (lo, hi),
            ..self
        }
    }

    /// Used in m,n,k games only.
    pub const fn mnk(self) -> Spec {
        Spec {
            games: Games::Mnk,
            ..self
        }
    }

    /// Works through the switch `search.NAME` (for a switch: needs it on).
    pub const fn through(self, switch: &'static str) -> Spec {
        Spec {
            switch: Some(switch),
            ..self
        }
    }

    /// Works through the ordering heuristic `NAME` of `search.ordering`.
    pub const fn ordering(self, kind: &'static str) -> Spec {
        Spec {
            ordering: Some(kind),
            ..self
        }
    }

    /// Its rule is off while `search.params.KEY` is at most `at_most` (`meaning`).
    pub const fn off_when(self, key: &'static str, at_most: u32, meaning: &'static str) -> Spec {
        Spec {
            off_when: Some(OffWhen {
                key,
                at_most,
                meaning,
            }),
            ..self
        }
    }

    /// The doc comment as one line.
    pub fn doc_line(&self) -> String {
        self.doc.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// Declares [`SearchParams`]: its fields (with their doc), its `Default`, its serde form
/// and [`SearchParams::SPECS`], from one line per number: `NAME: TYPE = DEFAULT =>
/// SPEC;`.
macro_rules! search_params {
    ($( $(#[doc = $doc:literal])+ $name:ident: $ty:ty = $default:expr => $spec:expr; )+) => {
        /// Margins, reductions and depth limits of the selective search rules
        /// (`search.params.*`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct SearchParams {
            $( $(#[doc = $doc])+ pub $name: $ty, )+
        }

        impl Default for SearchParams {
            fn default() -> SearchParams {
                SearchParams { $( $name: $default, )+ }
            }
        }

        impl SearchParams {
            /// Every number, in declaration order.
            pub const SPECS: &'static [Spec] = &[
                $( Spec {
                    name: concat!("search.params.", stringify!($name)),
                    doc: concat!($($doc, "\n"),+),
                    ..$spec
                }, )+
            ];

            /// The value of the number `key` (`lmr_divisor`).
            pub fn get(&self, key: &str) -> Option<f64> {
                match key {
                    $( stringify!($name) => Some(f64::from(self.$name)), )+
                    _ => None,
                }
            }

            /// Sets the number `key` (`lmr_divisor`) from `value`, any serde form of its
            /// type (a config's value); `None` when there is no such number. Its range is
            /// the engine's to check.
            pub fn set<'de, D: serde::Deserializer<'de>>(
                &mut self,
                key: &str,
                value: D,
            ) -> Option<Result<(), D::Error>> {
                match key {
                    $( stringify!($name) => {
                        Some(<$ty as Deserialize>::deserialize(value).map(|v| self.$name = v))
                    } )+
                    _ => None,
                }
            }
        }
    };
}

search_params! {
    /// Null move: least remaining depth.
    nmp_min_depth: u32 = 3 => Spec::depth().tune(1.0, 8.0).through("null_move");
    /// Null move: reduction `R = nmp_base + depth / nmp_divisor`.
    nmp_base: u32 = 2 => Spec::depth().tune(1.0, 5.0).through("null_move");
    /// Null move: depth divisor of the reduction.
    nmp_divisor: u32 = 4 => Spec::number(1.0, DEPTH).tune(1.0, 12.0).through("null_move");
    /// LMR: least remaining depth.
    lmr_min_depth: u32 = 3 => Spec::depth().tune(1.0, 8.0).through("lmr");
    /// LMR: moves searched at full depth before reductions start.
    lmr_min_moves: u32 = 2 => Spec::number(0.0, 1000.0).tune(0.0, 12.0).through("lmr");
    /// LMR: `r = (lmr_base + 100 · ln(depth) · ln(moves) / (lmr_divisor / 100)) / 100`
    /// plies, in hundredths.
    lmr_base: u32 = 50 => Spec::number(0.0, 10_000.0).tune(0.0, 200.0).through("lmr");
    /// LMR: the divisor of the log-log term, in hundredths.
    lmr_divisor: u32 = 200 => Spec::number(1.0, 100_000.0).tune(40.0, 400.0).through("lmr");
    /// LMR: 1 = tactical moves late in the order (gomoku: one that makes a four or an open
    /// three, or stops the opponent's five or open four; Ataxx: three captures or more)
    /// are reduced as quiet ones are, never the table's move or a killer (late-move
    /// pruning and futility still leave them alone); 0 = never reduced.
    lmr_tactical: u32 = 0 => Spec::number(0.0, 1.0).through("lmr");
    /// LMR with `history`: 0 = off; N = the history table is bounded (±16384, a malus for
    /// the quiet moves searched before a cutoff) and a quiet move is reduced by its entry
    /// / N plies less (more for a move that tends to fail).
    lmr_history: u32 = 0 => Spec::number(0.0, 100_000.0)
        .tune(0.0, 16_384.0)
        .through("lmr")
        .ordering("history");
    /// Extension (with `extensions`): a node whose side to move must stop a threat that
    /// wins within this many plies searches one ply deeper (gomoku: 2 = a four, 4 = an
    /// open three too).
    ext_defend_plies: u32 = 2 => Spec::depth().tune(2.0, 6.0).mnk().through("extensions");
    /// The longer defence extensions (`ext_defend_plies` above 2) stop this many times
    /// the iteration's depth from the root.
    ext_ply_factor: u32 = 2 => Spec::depth()
        .tune(1.0, 6.0)
        .mnk()
        .through("extensions")
        .off_when("ext_defend_plies", 2, "only fours extended, which this does not bound");
    /// The longer defence extensions only where at most this many plies of depth
    /// remain (near the horizon, where a threat line would be cut off); 0 = at any
    /// depth.
    ext_defend_depth: u32 = 0 => Spec::depth()
        .tune(0.0, 6.0)
        .mnk()
        .through("extensions")
        .off_when("ext_defend_plies", 2, "only fours extended, which this does not bound");
    /// Reverse futility: deepest remaining depth.
    rfp_depth: u32 = 4 => Spec::depth().tune(1.0, 10.0).through("reverse_futility");
    /// Reverse futility: margin per ply, hundredths of a unit.
    rfp_margin: u32 = 100 => Spec::number(0.0, 1_000_000.0)
        .tune(10.0, 400.0)
        .through("reverse_futility")
        .off_when("rfp_depth", 0, "no ply");
    /// Razoring: deepest remaining depth.
    razor_depth: u32 = 3 => Spec::depth().tune(1.0, 6.0).through("razoring");
    /// Razoring: margin per ply below alpha, hundredths of a unit.
    razor_margin: u32 = 300 => Spec::number(0.0, 1_000_000.0)
        .tune(40.0, 600.0)
        .through("razoring")
        .off_when("razor_depth", 0, "no ply");
    /// Futility: deepest remaining depth.
    futility_depth: u32 = 2 => Spec::depth().tune(1.0, 6.0).through("futility");
    /// Futility: margin per ply, hundredths of a unit.
    futility_margin: u32 = 100 => Spec::number(0.0, 1_000_000.0)
        .tune(25.0, 400.0)
        .through("futility")
        .off_when("futility_depth", 0, "no ply");
    /// Late-move pruning: deepest remaining depth (`lmp_scale · d² / 100` stays within
    /// 32 bits for every depth up to 64).
    lmp_depth: u32 = 4 => Spec::number(0.0, 64.0).tune(1.0, 16.0).through("late_move_pruning");
    /// Late-move pruning: quiet moves searched at depth d: `lmp_base + lmp_scale · d² /
    /// 100`.
    lmp_base: u32 = 3 => Spec::number(0.0, 1000.0)
        .tune(0.0, 12.0)
        .through("late_move_pruning")
        .off_when("lmp_depth", 0, "no ply");
    /// Late-move pruning: growth with depth (see `lmp_base`).
    lmp_scale: u32 = 100 => Spec::number(0.0, 100_000.0)
        .tune(25.0, 400.0)
        .through("late_move_pruning")
        .off_when("lmp_depth", 0, "no ply");
    /// Move-count pruning where a threat must be stopped (gomoku: a four or an open
    /// three; off the principal variation): at remaining depth d only the first
    /// `lmp_defend · √d / 100 − 2` moves (at least 2, at most `lmp_defend_max`) are
    /// searched, the defences and the counter-fours alike; 0 = every one.
    lmp_defend: u32 = 0 => Spec::number(0.0, 100_000.0)
        .tune(0.0, 1000.0)
        .mnk()
        .through("late_move_pruning");
    /// The most moves `lmp_defend` keeps.
    lmp_defend_max: u32 = 8 => Spec::number(0.0, 1000.0)
        .tune(2.0, 20.0)
        .mnk()
        .through("late_move_pruning")
        .off_when("lmp_defend", 0, "off");
    /// Move-count pruning of every move (with `late_move_pruning`): where no threat must
    /// be stopped, from the root's grandchildren on (on the principal variation too), at
    /// remaining depth d only the first `lmp_all · √d / 100 − lmp_all_offset / 100` moves
    /// (at least 1, at most `lmp_all_max`) are searched, tactical ones and all, at any
    /// depth; 0 = off.
    lmp_all: u32 = 0 => Spec::number(0.0, 100_000.0)
        .tune(0.0, 3000.0)
        .through("late_move_pruning");
    /// Move-count pruning of every move: what `lmp_all` subtracts, in hundredths.
    lmp_all_offset: u32 = 1200 => Spec::number(0.0, 100_000.0)
        .tune(0.0, 3000.0)
        .through("late_move_pruning")
        .off_when("lmp_all", 0, "off");
    /// The most moves `lmp_all` keeps.
    lmp_all_max: u32 = 32 => Spec::number(0.0, 1000.0)
        .tune(4.0, 64.0)
        .through("late_move_pruning")
        .off_when("lmp_all", 0, "off");
    /// m,n,k with `static` ordering: a move farther than this many king steps from both
    /// of the last two stones has its point score halved, from all of the last four
    /// quartered, so play near the fight is tried first; 0 = off.
    order_far: u32 = 0 => Spec::number(0.0, 0.0)
        .up_to(Bound::BoardSide)
        .tune(0.0, 6.0)
        .mnk()
        .ordering("static");
    /// Internal iterative reduction: least remaining depth.
    iir_depth: u32 = 4 => Spec::depth().tune(1.0, 10.0).through("iir");
    /// Singular extensions: least remaining depth (the table's entry must be at most 3
    /// plies shallower, the other moves are searched to half the depth).
    se_depth: u32 = 6 => Spec::depth().tune(4.0, 12.0).through("singular");
    /// Singular extensions: how far below the table's score every other move must stay,
    /// per ply of remaining depth, in hundredths of a unit.
    se_margin: u32 = 50 => Spec::number(0.0, 1_000_000.0).tune(10.0, 400.0).through("singular");
    /// VCF at a leaf: the attacker's moves at most (the winning one included).
    vcf_moves: u32 = 10 => Spec::number(0.0, 100.0).tune(2.0, 30.0).mnk().through("vcf");
    /// VCF at a leaf: positions at most.
    vcf_nodes: u32 = 500 => Spec::number(0.0, 100_000_000.0)
        .tune(50.0, 5000.0)
        .mnk()
        .through("vcf");
    /// VCF at a leaf: 1 = after its first four the attacker plays only fours on the
    /// lines through its previous four (a cheaper check that can miss a win needing an
    /// unrelated four, never claims a false one); 0 = any four, as the root's VCF.
    vcf_near: u32 = 1 => Spec::number(0.0, 1.0).mnk().through("vcf");
    /// VCF at a leaf: after its first four, at most this many fours tried in a position
    /// (as PentaZen's VCF tries two); 0 = every one.
    vcf_breadth: u32 = 0 => Spec::number(0.0, 100.0).tune(0.0, 10.0).mnk().through("vcf");
    /// VCF at a leaf: 1 = only fours that make besides a second four or a three (open or
    /// sleeping) on another line (a four that makes nothing else leaves only a blocked
    /// line behind); 0 = every four.
    vcf_threes: u32 = 0 => Spec::number(0.0, 1.0).mnk().through("vcf");
    /// VCF at the root: the attacker's moves at most.
    vcf_root_moves: u32 = 30 => Spec::number(0.0, 100.0).tune(5.0, 60.0).mnk().through("vcf");
    /// VCF at the root: positions at most.
    vcf_root_nodes: u32 = 200_000 => Spec::number(0.0, 100_000_000.0)
        .tune(10_000.0, 1_000_000.0)
        .mnk()
        .through("vcf");
    /// VCT at the root: the attacker's moves at most.
    vct_moves: u32 = 6 => Spec::number(0.0, 100.0).tune(2.0, 20.0).mnk().through("vct");
    /// VCT at the root: positions at most.
    vct_nodes: u32 = 50_000 => Spec::number(0.0, 100_000_000.0)
        .tune(5_000.0, 500_000.0)
        .mnk()
        .through("vct");
}

/// The switches of the search, declared once: each is a `bool` of `[search]`, off by
/// default. Hands the declarations (`NAME => SPEC;`, with their doc) to the macro
/// `$then`, after the tokens given it, so that `SearchSettings`, the engine's
/// `SearchConfig` and [`SWITCHES`] are all built from this one list.
macro_rules! search_switches {
    ($then:ident! { $($head:tt)* }) => {
        $then! {
            $($head)*
            switches {
                /// Principal variation search: every move after the first with a zero
                /// window, re-searched on a fail high; no table cutoffs at PV nodes.
                pvs => Spec::switch();
                /// Staged move picking: the table's move and the killers before the list
                /// is generated.
                staged => Spec::switch();
                /// The evaluator's forced-move knowledge (gomoku: win with a five or an
                /// open four, a double four against us is lost, a four must be blocked, an
                /// open three stopped: only those moves are searched).
                forced => Spec::switch().mnk();
                /// With `forced`: a forced block costs no depth (searched one ply deeper).
                extensions => Spec::switch().mnk().through("forced");
                /// Mate-distance pruning.
                mate_distance => Spec::switch();
                /// Null-move pruning (when the evaluator says passing is safe; gomoku:
                /// never against a four or an open three).
                null_move => Spec::switch();
                /// Late-move reductions.
                lmr => Spec::switch();
                /// Futility pruning of quiet moves near the leaves.
                futility => Spec::switch();
                /// Reverse futility pruning (static null move).
                reverse_futility => Spec::switch();
                /// Razoring: a node this far below alpha near the leaves takes the leaf's
                /// answer (the static score, in gomoku with the leaf VCF) when that stays
                /// below alpha.
                razoring => Spec::switch();
                /// Late-move pruning: at low depth only the first quiet moves.
                late_move_pruning => Spec::switch();
                /// Internal iterative reduction: one ply less where the table has no move.
                iir => Spec::switch();
                /// Singular extensions: the table's move searches a ply deeper when every
                /// other move, searched shallower, stays below its stored score by a
                /// margin.
                singular => Spec::switch();
                /// A win or loss in the table cuts off at any depth, on the principal
                /// variation too (when its bound is exact or beyond the window), so a win
                /// proved once is not searched again from scratch next move.
                tt_decisive => Spec::switch();
                /// Gomoku: threat search (VCF) at the leaves and at the root.
                vcf => Spec::switch().mnk();
                /// Gomoku: threat search with threes (VCT) at the root.
                vct => Spec::switch().mnk();
                /// A stopped iteration's best root move counts when that iteration's
                /// search proved it better than the last completed iteration's; with a
                /// move time the engine then starts iterations until its hard limit.
                partial_iterations => Spec::switch();
            }
        }
    };
}
pub(crate) use search_switches;

/// Builds [`SWITCHES`] from the declarations.
macro_rules! switch_specs {
    (switches { $( $(#[doc = $doc:literal])+ $name:ident => $spec:expr; )+ }) => {
        /// Every switch of `[search]`, in declaration order.
        pub const SWITCHES: &[Spec] = &[
            $( Spec {
                name: concat!("search.", stringify!($name)),
                doc: concat!($($doc, "\n"),+),
                ..$spec
            }, )+
        ];
    };
}

search_switches!(switch_specs! {});

impl SearchParams {
    /// Reductions by remaining depth (0..64) and moves searched (0..64), in plies.
    pub fn lmr_table(&self) -> Vec<[u8; 64]> {
        let base = f64::from(self.lmr_base) / 100.0;
        let divisor = f64::from(self.lmr_divisor.max(1)) / 100.0;
        (0..64)
            .map(|d| {
                std::array::from_fn(|m| {
                    if d == 0 || m == 0 {
                        0
                    } else {
                        let r = base + (d as f64).ln() * (m as f64).ln() / divisor;
                        r.clamp(0.0, 63.0) as u8
                    }
                })
            })
            .collect()
    }

    /// Quiet moves late-move pruning keeps at remaining depth `depth`.
    #[inline]
    pub fn lmp_count(&self, depth: i32) -> u32 {
        let d = depth.max(0) as u32;
        self.lmp_base + self.lmp_scale * d * d / 100
    }

    /// Moves [`SearchParams::lmp_defend`] keeps at remaining depth `depth` where a threat
    /// must be stopped (`None`: off).
    #[inline]
    pub fn lmp_defend_count(&self, depth: i32) -> Option<usize> {
        if self.lmp_defend == 0 {
            return None;
        }
        let n = (f64::from(self.lmp_defend) * f64::from(depth.max(1)).sqrt() / 100.0).round() - 2.0;
        Some((n.max(2.0) as usize).min(self.lmp_defend_max.max(2) as usize))
    }

    /// Moves [`SearchParams::lmp_all`] keeps at remaining depth `depth` (`None`: off).
    #[inline]
    pub fn lmp_all_count(&self, depth: i32) -> Option<usize> {
        if self.lmp_all == 0 {
            return None;
        }
        let n = (f64::from(self.lmp_all) * f64::from(depth.max(1)).sqrt()
            - f64::from(self.lmp_all_offset))
            / 100.0;
        Some((n.round().max(1.0) as usize).min(self.lmp_all_max.max(1) as usize))
    }

    /// Checks what no single range says: the values that would make a rule meaningless
    /// together. Each number's own range is checked from [`SearchParams::SPECS`] by the
    /// engine, which knows the board.
    pub fn validate(&self) -> Result<(), String> {
        if self.lmp_base == 0 && self.lmp_scale == 0 {
            return Err(
                "search.params.lmp_base and search.params.lmp_scale cannot both be 0".into(),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_grow_with_depth_and_move_number() {
        let t = SearchParams::default().lmr_table();
        assert_eq!(t[1][1], 0);
        assert!(t[10][30] > t[3][3]);
        for d in 1..64 {
            for m in 1..64 {
                assert!(t[d][m] >= t[d][m - 1] && t[d][m] >= t[d - 1][m]);
            }
        }
        let p = SearchParams::default();
        assert_eq!(p.lmp_count(1), 4);
        assert_eq!(p.lmp_count(3), 12);
        assert_eq!(p.lmp_defend_count(4), None);
        assert_eq!(p.lmp_all_count(4), None);
        let all = SearchParams {
            lmp_all: 1500,
            ..SearchParams::default()
        };
        // round(15·√d − 12), at least 1, at most 32.
        let counts: Vec<_> = [1, 2, 4, 9, 20]
            .into_iter()
            .map(|d| all.lmp_all_count(d).unwrap())
            .collect();
        assert_eq!(counts, [3, 9, 18, 32, 32]);
        let few = SearchParams {
            lmp_all: 100,
            ..SearchParams::default()
        };
        assert_eq!(few.lmp_all_count(1), Some(1));
        let defend = SearchParams {
            lmp_defend: 500,
            ..SearchParams::default()
        };
        // round(5 √d) − 2, within [2, 8].
        let counts: Vec<_> = (0..6)
            .map(|d| defend.lmp_defend_count(d).unwrap())
            .collect();
        assert_eq!(counts, [3, 3, 5, 7, 8, 8]);
    }

    /// The registry is consistent: every default within its validity and tune ranges
    /// (the tune range within the validity range), every name once, every number a
    /// parameter works through declared.
    #[test]
    fn every_declaration_is_consistent() {
        let p = SearchParams::default();
        let mut names: Vec<&str> = SearchParams::SPECS
            .iter()
            .chain(SWITCHES)
            .map(|s| s.name)
            .collect();
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all, "a name declared twice");
        for s in SearchParams::SPECS {
            let key = s.name.strip_prefix("search.params.").unwrap();
            let v = p.get(key).unwrap();
            let (lo, hi) = (s.valid.0.resolve(15.0), s.valid.1.resolve(15.0));
            assert!(
                lo <= v && v <= hi,
                "{}: default {v} outside {lo}..={hi}",
                s.name
            );
            assert!(
                lo <= s.tune.0 && s.tune.0 < s.tune.1 && s.tune.1 <= hi,
                "{}: tune range {:?} not within {lo}..={hi}",
                s.name,
                s.tune
            );
            assert!(!s.doc_line().is_empty(), "{}", s.name);
            if let Some(sw) = s.switch {
                assert!(
                    SWITCHES.iter().any(|x| x.name == format!("search.{sw}")),
                    "{}: no switch {sw}",
                    s.name
                );
            }
            if let Some(o) = s.off_when {
                assert!(p.get(o.key).is_some(), "{}: no number {}", s.name, o.key);
            }
        }
        assert_eq!(p.get("nonsense"), None);
        assert_eq!(p.get("lmr_divisor"), Some(200.0));
    }

    #[test]
    fn numbers_that_together_mean_nothing_are_refused_by_their_real_keys() {
        let p = SearchParams {
            lmp_base: 0,
            lmp_scale: 0,
            ..SearchParams::default()
        };
        let e = p.validate().unwrap_err();
        assert!(
            e.starts_with("search.params.lmp_base and search.params.lmp_scale"),
            "{e}"
        );
        assert_eq!(SearchParams::default().validate(), Ok(()));
    }
}
