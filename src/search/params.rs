//! Every number the search's selective rules use, in one struct with defaults (as
//! viridithas keeps them): listable and settable by name (`search.lmr_divisor`), so a
//! tuner can move them like any table weight. Margins are in hundredths of the
//! evaluator's unit ([`crate::eval::Evaluator::unit`]: a stone in Ataxx, a stone's share
//! of an open three in gomoku), so they mean the same with any table.

use serde::{Deserialize, Serialize};

/// Margins, reductions and depth limits of the selective search rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchParams {
    /// Null move: least remaining depth.
    pub nmp_min_depth: u32,
    /// Null move: reduction `R = nmp_base + depth / nmp_divisor`.
    pub nmp_base: u32,
    /// Null move: depth divisor of the reduction.
    pub nmp_divisor: u32,
    /// LMR: least remaining depth.
    pub lmr_min_depth: u32,
    /// LMR: moves searched at full depth before reductions start.
    pub lmr_min_moves: u32,
    /// LMR: `r = (lmr_base + 100 · ln(depth) · ln(moves) / (lmr_divisor / 100)) / 100`
    /// plies, in hundredths.
    pub lmr_base: u32,
    /// LMR: the divisor of the log-log term, in hundredths.
    pub lmr_divisor: u32,
    /// LMR: 1 = tactical moves late in the order (gomoku: one that makes a four or an open
    /// three, or stops the opponent's five or open four; Ataxx: three captures or more)
    /// are reduced as quiet ones are, never the table's move or a killer (late-move
    /// pruning and futility still leave them alone); 0 = never reduced.
    pub lmr_tactical: u32,
    /// LMR with `history`: 0 = off; N = the history table is bounded (±16384, a malus for
    /// the quiet moves searched before a cutoff) and a quiet move is reduced by its entry
    /// / N plies less (more for a move that tends to fail).
    pub lmr_history: u32,
    /// Extension (with `extensions`): a node whose side to move must stop a threat that
    /// wins within this many plies searches one ply deeper (gomoku: 2 = a four, 4 = an
    /// open three too).
    pub ext_defend_plies: u32,
    /// The longer defence extensions (`ext_defend_plies` above 2) stop this many times
    /// the iteration's depth from the root.
    pub ext_ply_factor: u32,
    /// The longer defence extensions only where at most this many plies of depth
    /// remain (near the horizon, where a threat line would be cut off); 0 = at any
    /// depth.
    pub ext_defend_depth: u32,
    /// Reverse futility: deepest remaining depth.
    pub rfp_depth: u32,
    /// Reverse futility: margin per ply, hundredths of a unit.
    pub rfp_margin: u32,
    /// Razoring: deepest remaining depth.
    pub razor_depth: u32,
    /// Razoring: margin per ply below alpha, hundredths of a unit.
    pub razor_margin: u32,
    /// Futility: deepest remaining depth.
    pub futility_depth: u32,
    /// Futility: margin per ply, hundredths of a unit.
    pub futility_margin: u32,
    /// Late-move pruning: deepest remaining depth.
    pub lmp_depth: u32,
    /// Late-move pruning: quiet moves searched at depth d: `lmp_base + lmp_scale · d² /
    /// 100`.
    pub lmp_base: u32,
    /// Late-move pruning: growth with depth (see `lmp_base`).
    pub lmp_scale: u32,
    /// Move-count pruning where a threat must be stopped (gomoku: a four or an open
    /// three; off the principal variation): at remaining depth d only the first
    /// `lmp_defend · √d / 100 − 2` moves (at least 2, at most `lmp_defend_max`) are
    /// searched, the defences and the counter-fours alike; 0 = every one.
    pub lmp_defend: u32,
    /// The most moves `lmp_defend` keeps.
    pub lmp_defend_max: u32,
    /// Move-count pruning of every move (with `late_move_pruning`): where no threat must
    /// be stopped, from the root's grandchildren on (on the principal variation too), at
    /// remaining depth d only the first `lmp_all · √d / 100 − lmp_all_offset / 100` moves
    /// (at least 1, at most `lmp_all_max`) are searched, tactical ones and all, at any
    /// depth; 0 = off.
    pub lmp_all: u32,
    /// Move-count pruning of every move: what `lmp_all` subtracts, in hundredths.
    pub lmp_all_offset: u32,
    /// The most moves `lmp_all` keeps.
    pub lmp_all_max: u32,
    /// m,n,k with `static` ordering: a move farther than this many king steps from both
    /// of the last two stones has its point score halved, from all of the last four
    /// quartered, so play near the fight is tried first; 0 = off.
    pub order_far: u32,
    /// Internal iterative reduction: least remaining depth.
    pub iir_depth: u32,
    /// Singular extensions: least remaining depth (the table's entry must be at most 3
    /// plies shallower, the other moves are searched to half the depth).
    pub se_depth: u32,
    /// Singular extensions: how far below the table's score every other move must stay,
    /// per ply of remaining depth, in hundredths of a unit.
    pub se_margin: u32,
    /// VCF at a leaf: the attacker's moves at most (the winning one included).
    pub vcf_moves: u32,
    /// VCF at a leaf: positions at most.
    pub vcf_nodes: u32,
    /// VCF at a leaf: 1 = after its first four the attacker plays only fours on the
    /// lines through its previous four (a cheaper check that can miss a win needing an
    /// unrelated four, never claims a false one); 0 = any four, as the root's VCF.
    pub vcf_near: u32,
    /// VCF at a leaf: after its first four, at most this many fours tried in a position
    /// (as PentaZen's VCF tries two); 0 = every one.
    pub vcf_breadth: u32,
    /// VCF at a leaf: 1 = only fours that make besides a second four or a three (open or
    /// sleeping) on another line (a four that makes nothing else leaves only a blocked
    /// line behind); 0 = every four.
    pub vcf_threes: u32,
    /// VCF at the root: the attacker's moves at most.
    pub vcf_root_moves: u32,
    /// VCF at the root: positions at most.
    pub vcf_root_nodes: u32,
    /// VCT at the root: the attacker's moves at most.
    pub vct_moves: u32,
    /// VCT at the root: positions at most.
    pub vct_nodes: u32,
}

impl Default for SearchParams {
    fn default() -> SearchParams {
        SearchParams {
            nmp_min_depth: 3,
            nmp_base: 2,
            nmp_divisor: 4,
            lmr_min_depth: 3,
            lmr_min_moves: 2,
            lmr_base: 50,
            lmr_divisor: 200,
            lmr_tactical: 0,
            lmr_history: 0,
            ext_defend_plies: 2,
            ext_ply_factor: 2,
            ext_defend_depth: 0,
            rfp_depth: 4,
            rfp_margin: 100,
            razor_depth: 3,
            razor_margin: 300,
            futility_depth: 2,
            futility_margin: 100,
            lmp_depth: 4,
            lmp_base: 3,
            lmp_scale: 100,
            lmp_defend: 0,
            lmp_defend_max: 8,
            lmp_all: 0,
            lmp_all_offset: 1200,
            lmp_all_max: 32,
            order_far: 0,
            iir_depth: 4,
            se_depth: 6,
            se_margin: 50,
            vcf_moves: 10,
            vcf_nodes: 500,
            vcf_near: 1,
            vcf_breadth: 0,
            vcf_threes: 0,
            vcf_root_moves: 30,
            vcf_root_nodes: 200_000,
            vct_moves: 6,
            vct_nodes: 50_000,
        }
    }
}

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

    /// Checks the values that would make a rule meaningless.
    pub fn validate(&self) -> Result<(), String> {
        if self.nmp_divisor == 0 {
            return Err("search.nmp_divisor must be at least 1".into());
        }
        if self.lmr_divisor == 0 {
            return Err("search.lmr_divisor must be at least 1".into());
        }
        if self.lmp_base == 0 && self.lmp_scale == 0 {
            return Err("search.lmp_base and search.lmp_scale cannot both be 0".into());
        }
        if self.lmr_tactical > 1 {
            return Err(format!(
                "search.lmr_tactical = {} must be 0 (tactical moves are never reduced) or 1",
                self.lmr_tactical
            ));
        }
        if self.vcf_near > 1 {
            return Err(format!(
                "search.vcf_near = {} must be 0 (any four) or 1 (fours on the lines through the previous one)",
                self.vcf_near
            ));
        }
        if self.vcf_threes > 1 {
            return Err(format!(
                "search.vcf_threes = {} must be 0 (every four) or 1 (only fours that make a three or a second four besides)",
                self.vcf_threes
            ));
        }
        for (name, v) in [
            ("vcf_moves", self.vcf_moves),
            ("vcf_root_moves", self.vcf_root_moves),
            ("vct_moves", self.vct_moves),
        ] {
            if v > 100 {
                return Err(format!("search.{name} = {v} is more than 100"));
            }
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

    #[test]
    fn switch_like_numbers_refuse_other_values() {
        for (p, key) in [
            (
                SearchParams {
                    lmr_tactical: 2,
                    ..SearchParams::default()
                },
                "search.lmr_tactical = 2",
            ),
            (
                SearchParams {
                    vcf_near: 3,
                    ..SearchParams::default()
                },
                "search.vcf_near = 3",
            ),
            (
                SearchParams {
                    vcf_threes: 2,
                    ..SearchParams::default()
                },
                "search.vcf_threes = 2",
            ),
        ] {
            let e = p.validate().unwrap_err();
            assert!(e.starts_with(key), "{e}");
        }
        let on = SearchParams {
            lmr_tactical: 1,
            ..SearchParams::default()
        };
        assert_eq!(on.validate(), Ok(()));
    }
}
