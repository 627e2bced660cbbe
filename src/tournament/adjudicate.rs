//! The adjudication rules that end a game before its rules do, as managers have them:
//! resignation (one-sided, or two-sided as cutechess's `twosided`), the draw by level
//! scores (cutechess's `-draw movenumber movecount score`), the Ataxx material margin
//! (cuteataxx's `material`, held for some plies) and, in m,n,k-games, a win that arena's
//! own VCF solver proves for the side to move.
//!
//! One [`Adjudicator`] follows a game move by move: [`game`](super::game) asks it after
//! every move whether the game ends, and [`replay`](super::replay) asks it again over a
//! record's moves and scores ([`confirm`]), so a record's adjudication is checked by the
//! very code that made it. Every rule reads only the moves and the scores the record
//! keeps (and the VCF solver is limited by positions, not time), so under depth or node
//! limits adjudication is as deterministic as the games.
//!
//! The `max_plies` draw is not here: it is decided before a move, by the ply count alone.

use std::any::Any;

use super::{config::Adjudication, record::GameRecord, record::GameResult};
use crate::{
    eval::{Evaluator, MnkTable, NodeBudget, ThreatKind, mnk::MnkEval},
    game::{Ataxx, Game, Mnk, Side},
};

/// The reason a record gives for a draw by level scores.
pub const DRAW_SCORE: &str = "draw-score";
/// The reason a record gives for an Ataxx win by material.
pub const MATERIAL: &str = "material";
/// The reason a record gives for a win arena's VCF solver proved.
pub const VCF_WIN: &str = "vcf-win";
/// The reason a record gives for a resignation (one- or two-sided).
pub const RESIGN: &str = "resign";

/// How an adjudication ended a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adjudicated {
    /// The result it gives.
    pub result: GameResult,
    /// The record's reason: [`RESIGN`], [`DRAW_SCORE`], [`MATERIAL`] or [`VCF_WIN`].
    pub reason: &'static str,
}

/// The running state of the adjudication rules through one game.
#[derive(Clone, Debug)]
pub struct Adjudicator<'a> {
    rules: &'a Adjudication,
    /// Per side: its own moves in a row scored at or below `-resign_score`.
    losing: [u32; 2],
    /// Per side: its own moves in a row scored at or above `+resign_score`.
    winning: [u32; 2],
    /// Moves in a row, both sides', scored within ±`draw_score`.
    level: u32,
    /// The side leading by `material_margin` stones, and after how many plies in a row.
    lead: Option<(Side, u32)>,
    /// Whether to run the VCF solver (a replay runs it on the last position only).
    vcf: bool,
}

impl<'a> Adjudicator<'a> {
    /// Before the first move of a game played under `rules`.
    pub fn new(rules: &'a Adjudication) -> Adjudicator<'a> {
        Adjudicator {
            rules,
            losing: [0; 2],
            winning: [0; 2],
            level: 0,
            lead: None,
            vcf: true,
        }
    }

    /// `mover` just played a move it scored `score` (its own view; `None`: no score), and
    /// `pos` is the position after it. Says whether a rule ends the game here, checking
    /// resignation, the level-score draw, material and a proven VCF in that order; never
    /// when the move ended the game by its rules.
    pub fn after_move<G: Game>(
        &mut self,
        pos: &G,
        mover: Side,
        score: Option<i32>,
    ) -> Option<Adjudicated> {
        let r = self.rules;
        let m = mover.index();
        let resign_rule = r.resign_score > 0 && r.resign_moves > 0;
        if resign_rule {
            let threshold = r.resign_score;
            self.losing[m] = streak(self.losing[m], score.is_some_and(|s| s <= -threshold));
            self.winning[m] = streak(self.winning[m], score.is_some_and(|s| s >= threshold));
        }
        if r.draw_movecount > 0 {
            let within = score.is_some_and(|s| s.unsigned_abs() <= r.draw_score.unsigned_abs());
            self.level = streak(self.level, within);
        }
        if r.material_margin > 0 {
            self.lead = match (material_leader(pos, r.material_margin), self.lead) {
                (Some(side), Some((led, n))) if side == led => Some((side, n.saturating_add(1))),
                (Some(side), _) => Some((side, 1)),
                (None, _) => None,
            };
        }
        if pos.outcome().is_some() {
            return None;
        }
        if resign_rule
            && self.losing[m] >= r.resign_moves
            && (!r.resign_twosided || self.winning[mover.other().index()] >= r.resign_moves)
        {
            return Some(Adjudicated {
                result: win_of(mover.other()),
                reason: RESIGN,
            });
        }
        if r.draw_movecount > 0
            && pos.plies() / 2 >= r.draw_movenumber
            && u64::from(self.level) >= 2 * u64::from(r.draw_movecount)
        {
            return Some(Adjudicated {
                result: GameResult::Draw,
                reason: DRAW_SCORE,
            });
        }
        if let Some((side, n)) = self.lead
            && n >= r.material_moves
        {
            return Some(Adjudicated {
                result: win_of(side),
                reason: MATERIAL,
            });
        }
        if r.vcf_win && self.vcf && vcf_proves_win(pos, r) {
            return Some(Adjudicated {
                result: win_of(pos.side_to_move()),
                reason: VCF_WIN,
            });
        }
        None
    }
}

/// A count of events in a row, after one more that `holds` or not.
fn streak(count: u32, holds: bool) -> u32 {
    if holds { count.saturating_add(1) } else { 0 }
}

fn win_of(side: Side) -> GameResult {
    match side {
        Side::First => GameResult::FirstWins,
        Side::Second => GameResult::SecondWins,
    }
}

/// In Ataxx, the side with at least `margin` more stones than the other.
fn material_leader<G: Game>(pos: &G, margin: u32) -> Option<Side> {
    let ataxx = (pos as &dyn Any).downcast_ref::<Ataxx>()?;
    let count = |side| ataxx.stones(side).count_ones();
    let (black, white) = (count(Side::First), count(Side::Second));
    if black >= white + margin {
        Some(Side::First)
    } else if white >= black + margin {
        Some(Side::Second)
    } else {
        None
    }
}

/// In an m,n,k-game, whether arena's VCF solver finds a win by continuous fours for the
/// side to move within `vcf_moves` of its moves and `vcf_nodes` positions. A fresh
/// evaluator each time: the answer depends on the position alone, not on the game's
/// earlier searches.
fn vcf_proves_win<G: Game>(pos: &G, rules: &Adjudication) -> bool {
    let Some(mnk) = (pos as &dyn Any).downcast_ref::<Mnk>() else {
        return false;
    };
    let mut pos = mnk.clone();
    let mut eval = MnkEval::new(pos.config(), &MnkTable::zero(), 0);
    eval.reset(&pos);
    let mut budget = NodeBudget::new(rules.vcf_nodes);
    eval.threat_search(&mut pos, ThreatKind::Vcf, rules.vcf_moves, &mut budget)
        .is_some()
}

/// Checks that the game of `r`, from `start`, ended by the adjudication its reason names
/// (one of [`DRAW_SCORE`], [`MATERIAL`], [`VCF_WIN`]) exactly at its last move: no rule
/// ended it earlier, and this one holds after the last move. Returns the result that
/// makes and why; the error says what does not hold.
pub fn confirm<G: Game>(
    start: &G,
    r: &GameRecord,
    rules: &Adjudication,
) -> Result<(GameResult, String), String> {
    let reason = r.reason.as_str();
    let off = match reason {
        DRAW_SCORE => (rules.draw_movecount == 0).then_some("draw_movecount"),
        MATERIAL => (rules.material_margin == 0).then_some("material_margin"),
        VCF_WIN => (!rules.vcf_win).then_some("vcf_win"),
        _ => return Err(format!("reason {reason} is not an adjudication")),
    };
    if let Some(key) = off {
        return Err(format!(
            "reason is {reason}, but the run's [adjudication] has no such rule ({key})"
        ));
    }
    if r.moves.is_empty() {
        return Err(format!("reason is {reason}, but no move was played"));
    }
    let mut pos = start.clone();
    let mut judge = Adjudicator::new(rules);
    let last = r.moves.len();
    for (i, text) in r.moves.iter().enumerate() {
        let n = i + 1;
        let mover = pos.side_to_move();
        pos.try_play(text).map_err(|e| format!("move {n}: {e}"))?;
        judge.vcf = n == last;
        let score = r.stats.get(i).and_then(|s| s.score);
        match judge.after_move(&pos, mover, score) {
            Some(a) if n < last => {
                return Err(format!(
                    "reason is {reason}, but the game ends by {} after move {n}",
                    a.reason
                ));
            }
            Some(a) if a.reason == reason => {
                return Ok((a.result, format!("{reason} ends the game there")));
            }
            Some(a) => {
                return Err(format!(
                    "reason is {reason}, but the game ends by {} after its last move",
                    a.reason
                ));
            }
            None => {}
        }
    }
    Err(match reason {
        DRAW_SCORE => format!(
            "reason is {reason}, but the draw rule does not hold after the last move: move \
             number {} (draw_movenumber {}) with the last {} scores within ±{} \
             (2 × draw_movecount = {})",
            pos.plies() / 2,
            rules.draw_movenumber,
            judge.level,
            rules.draw_score,
            2 * u64::from(rules.draw_movecount)
        ),
        MATERIAL => format!(
            "reason is {reason}, but no side led by {} stones (material_margin) after the \
             last {} plies (material_moves){}",
            rules.material_margin,
            rules.material_moves,
            match judge.lead {
                Some((side, n)) => format!(": {side} did after {n}"),
                None => String::new(),
            }
        ),
        _ => format!(
            "reason is {reason}, but arena's VCF solver finds no win for {} (to move) within \
             {} moves (vcf_moves) and {} positions (vcf_nodes)",
            pos.side_to_move(),
            rules.vcf_moves,
            rules.vcf_nodes
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Adjudication {
        Adjudication::default()
    }

    /// Plays `moves` (text) from `start`, each scored as given, through an adjudicator.
    fn run<G: Game>(
        start: &G,
        rules: &Adjudication,
        moves: &[(&str, Option<i32>)],
    ) -> Option<(usize, Adjudicated)> {
        let mut pos = start.clone();
        let mut judge = Adjudicator::new(rules);
        for (i, (text, score)) in moves.iter().enumerate() {
            let mover = pos.side_to_move();
            pos.try_play(text).expect("legal move");
            if let Some(a) = judge.after_move(&pos, mover, *score) {
                return Some((i + 1, a));
            }
        }
        None
    }

    fn gomoku() -> Mnk {
        Mnk::new(&crate::game::MnkConfig::gomoku())
    }

    #[test]
    fn draw_after_movecount_level_scores_of_each_side_past_movenumber() {
        let rules = Adjudication {
            draw_movenumber: 3,
            draw_movecount: 2,
            draw_score: 10,
            ..rules()
        };
        let moves = [
            ("h8", Some(5)),
            ("a1", Some(-10)),
            ("h9", Some(0)),
            ("a2", Some(3)),
            ("o15", Some(1)),
            ("a3", Some(2)),
        ];
        // Four level scores in a row after move 2 (ply 4), but move number 3 is ply 6.
        assert_eq!(
            run(&gomoku(), &rules, &moves),
            Some((
                6,
                Adjudicated {
                    result: GameResult::Draw,
                    reason: DRAW_SCORE
                }
            ))
        );
        // A score out of the margin (or none) starts the count again.
        let mut broken = moves;
        broken[4].1 = Some(11);
        assert_eq!(run(&gomoku(), &rules, &broken), None);
        broken[4].1 = None;
        assert_eq!(run(&gomoku(), &rules, &broken), None);
        // Without movenumber the rule fires after four level scores.
        let early = Adjudication {
            draw_movenumber: 0,
            ..rules
        };
        assert_eq!(run(&gomoku(), &early, &moves).map(|(n, _)| n), Some(4));
    }

    #[test]
    fn two_sided_resignation_needs_the_winner_to_agree() {
        let one = Adjudication {
            resign_score: 500,
            resign_moves: 2,
            ..rules()
        };
        let two = Adjudication {
            resign_twosided: true,
            ..one.clone()
        };
        // Black's scores fall; white's own scores rise only from its second move on.
        let moves = [
            ("h8", Some(-600)),
            ("a1", Some(100)),
            ("h9", Some(-700)),
            ("a2", Some(600)),
            ("h10", Some(-800)),
            ("a3", Some(700)),
            ("h12", Some(-900)),
        ];
        let white_wins = Adjudicated {
            result: GameResult::SecondWins,
            reason: RESIGN,
        };
        assert_eq!(run(&gomoku(), &one, &moves), Some((3, white_wins)));
        assert_eq!(run(&gomoku(), &two, &moves), Some((7, white_wins)));
    }

    #[test]
    fn ataxx_material_margin_held_for_plies() {
        // x on a7 and g1, o on b7 and c7: x's a6 takes b7 (4 against 1).
        let pos = Ataxx::from_text(&(), "xoo4/7/7/7/7/7/6x x 0 1").expect("a FEN");
        let rules = |margin, moves| Adjudication {
            material_margin: margin,
            material_moves: moves,
            ..rules()
        };
        let x_wins = Adjudicated {
            result: GameResult::FirstWins,
            reason: MATERIAL,
        };
        assert_eq!(run(&pos, &rules(3, 1), &[("a6", None)]), Some((1, x_wins)));
        assert_eq!(run(&pos, &rules(4, 1), &[("a6", None)]), None);
        // Held for two plies: o's c6 takes b7 back (3 against 3), its jump away does not.
        let took_back = [("a6", None), ("c6", None)];
        assert_eq!(run(&pos, &rules(3, 2), &took_back), None);
        let ran = [("a6", None), ("c7e5", None)];
        assert_eq!(run(&pos, &rules(3, 2), &ran), Some((2, x_wins)));
        // Not a rule of gomoku: stones there are never counted.
        assert_eq!(material_leader(&gomoku(), 1), None);
    }

    #[test]
    fn vcf_win_ends_the_game_for_the_side_to_move() {
        // Black has an open three on row 8 and white wasted its moves: black to move has
        // a VCF (the open four, then five).
        let moves = [
            ("h8", None),
            ("a1", None),
            ("i8", None),
            ("a3", None),
            ("j8", None),
            ("a5", None),
        ];
        let rules = Adjudication {
            vcf_win: true,
            ..rules()
        };
        let (n, a) = run(&gomoku(), &rules, &moves).expect("a VCF");
        assert_eq!(n, 6);
        assert_eq!(
            a,
            Adjudicated {
                result: GameResult::FirstWins,
                reason: VCF_WIN
            }
        );
        assert_eq!(run(&gomoku(), &Adjudication::default(), &moves), None);
    }
}

#[cfg(test)]
mod config_tests {
    use super::*;
    use crate::tournament::Tournament;

    /// Runs of configs without the new keys write the same `run.toml` as before (and so
    /// resume), because defaults are left out.
    #[test]
    fn defaults_are_not_written() {
        let text = toml::to_string(&Adjudication::default()).expect("serialises");
        assert_eq!(text, "max_plies = 0\nresign_score = 0\nresign_moves = 0\n");
    }

    fn refusal(game: &str, adjudication: &str) -> String {
        let text = format!(
            "name = \"t\"\ngame = \"{game}\"\nrounds = 1\n\n[adjudication]\n{adjudication}\n\n\
             [[engines]]\nname = \"a\"\nsearch = {{ depth = 1 }}\n\n\
             [[engines]]\nname = \"b\"\nsearch = {{ depth = 1 }}\n"
        );
        match Tournament::parse("t.toml", std::path::Path::new("."), &text) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn rules_that_do_not_fit_are_refused_at_their_key() {
        let e = refusal("gomoku", "material_margin = 10");
        assert!(e.contains("t.toml:6:") && e.contains("Ataxx rule"), "{e}");
        let e = refusal("ataxx", "vcf_win = true");
        assert!(e.contains("t.toml:6:") && e.contains("m,n,k"), "{e}");
        let e = refusal("gomoku", "draw_score = 10");
        assert!(e.contains("draw_movecount"), "{e}");
        let e = refusal("gomoku", "resign_twosided = true");
        assert!(e.contains("resign rule"), "{e}");
        let e = refusal("gomoku", "vcf_nodes = 5");
        assert!(e.contains("vcf_win"), "{e}");
        let e = refusal("ataxx", "material_margin = 3\nmaterial_moves = 0");
        assert!(e.contains("at least 1"), "{e}");
        assert_eq!(
            refusal("ataxx", "material_margin = 3\nmaterial_moves = 2"),
            ""
        );
        assert_eq!(
            refusal(
                "gomoku",
                "vcf_win = true\ndraw_movecount = 4\nresign_score = 900\nresign_moves = 2\nresign_twosided = true"
            ),
            ""
        );
    }
}
