//! The evaluations as functions of their weights: what each position contributes to the
//! score per weight (its *features*), read from the evaluators' public API, so that
//! `arena fit` can compute a score and its exact gradient for any weights without
//! building an evaluator per trial.
//!
//! - Gomoku, `lines` tables ([`MnkEval`] in its default mode): per side, the number of
//!   stone-lines of each [`Pattern`] (every stone counts each of its four lines, as
//!   `stone_value` does) and the sum of the stones' rings (the centre bonus); the score
//!   is `defence · ours − theirs`.
//! - Gomoku, `points` tables: per side, every candidate cell's four point patterns and
//!   ring; a cell scores its point weights, centre bonus and combination bonuses, a side
//!   its best cell (at least 0), and the score is `defence · best(ours) − best(theirs)`.
//! - Ataxx ([`AtaxxEval`]): per term, the side to move's count minus the opponent's
//!   ([`AtaxxEval::term_differences`]); the score is `(weights + phase · endgame) ·
//!   differences`.
//!
//! Nothing here changes the evaluators: a test checks `features · weights` against
//! `evaluate()` on random positions and tables, so a change to an evaluator that this
//! file does not follow fails there.

use crate::{
    eval::{
        AtaxxTable, MnkTable,
        ataxx::{AtaxxEval, all_term_differences},
        mnk::MnkEval,
        patterns::{PATTERN_COUNT, Pattern},
        table::{ATAXX_TERM_COUNT, MnkEvaluation},
    },
    game::{
        Ataxx, Game, Mnk,
        mnk::{EMPTY, MnkMove},
    },
};

/// Slots of the m,n,k weight vector: the fourteen patterns (0 is `None`, always 0),
/// then these.
pub mod mnk_slot {
    /// Bonus per ring towards the centre.
    pub const CENTRE: usize = super::PATTERN_COUNT;
    /// Point bonus for two fours.
    pub const DOUBLE_FOUR: usize = CENTRE + 1;
    /// Point bonus for a four and an open three.
    pub const FOUR_THREE: usize = CENTRE + 2;
    /// Point bonus for two open threes.
    pub const DOUBLE_THREE: usize = CENTRE + 3;
    /// The opponent-weighting factor.
    pub const DEFENCE: usize = CENTRE + 4;
    /// `lines` score per cell where a stone makes two fours, then per cell of each
    /// other combination ([`MnkTable::cell_weights`](crate::eval::MnkTable)).
    pub const CELL_DOUBLE_FOUR: usize = CENTRE + 5;
    /// Length of the vector.
    pub const COUNT: usize = CELL_DOUBLE_FOUR + crate::eval::table::COMBOS;
}

/// The Ataxx terms that `params = "all"` fits: the scalar terms of
/// [`AtaxxTable::TERM_KEYS`] (the square classes and holes are fitted by name: the
/// squares add up to the material and overlap the corner and edge terms, and the holes
/// are 0 unless a table gives them, so `all` fits what it fitted before they existed).
pub const ATAXX_TERMS: [&str; 8] = [
    "material",
    "rectangle",
    "mobility",
    "frontier",
    "corner",
    "edge",
    "tempo",
    "tempo_filled",
];

/// Slots of the Ataxx weight vector: every term of [`AtaxxTable::TERM_KEYS`] (its
/// weight on an empty board), then the same terms' `endgame.*` changes.
pub const ATAXX_SLOTS: usize = 2 * ATAXX_TERM_COUNT;

/// Features of a `lines` position: per side (side to move first), the count of each
/// pattern in 0..14, at 14 the rings of its stones summed, and from 15 on its
/// combination cells ([`MnkEval::combo_counts`]).
pub type LinesFeatures = [[u16; LINES_WIDTH]; 2];

/// Length of a side's row of [`LinesFeatures`].
pub const LINES_WIDTH: usize = PATTERN_COUNT + 1 + crate::eval::table::COMBOS;

/// One candidate cell of a `points` position: its four point patterns and its ring.
pub type PointCell = [u8; 5];

/// Features of an Ataxx position: per term of [`AtaxxTable::TERM_KEYS`], the side to
/// move's count minus the opponent's (the tempo terms are the side to move's alone: 1
/// and the filled squares), and the phase (stones over playable squares) that scales
/// the `endgame.*` changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AtaxxFeatures {
    /// The term differences.
    pub terms: [i16; ATAXX_TERM_COUNT],
    /// Stones on the board over playable squares: 0 empty, 1 full.
    pub phase: f32,
    /// The side to move's stones and the opponent's (the inputs of a table's `[net]`).
    pub stones: [u64; 2],
}

/// The ring of a cell: 0 on the edge, one more per step towards the centre.
pub fn ring(config: &crate::game::MnkConfig, cell: usize) -> u16 {
    let (x, y) = config.xy(MnkMove(cell as u16));
    let (w, h) = (config.width() as i32, config.height() as i32);
    x.min(y).min(w - 1 - x).min(h - 1 - y) as u16
}

/// `lines` features of `pos`, read from `eval` (which must be in step with `pos`).
pub fn lines_features(eval: &MnkEval, pos: &Mnk) -> LinesFeatures {
    let me = pos.side_to_move().index();
    let mut f = [[0u16; LINES_WIDTH]; 2];
    for (c, &stone) in pos.cells().iter().enumerate() {
        if stone == EMPTY {
            continue;
        }
        let side = usize::from(stone - 1);
        let row = &mut f[usize::from(side != me)];
        for dir in 0..4 {
            row[eval.pattern_at(c, dir, side) as usize] += 1;
        }
        row[PATTERN_COUNT] += ring(pos.mnk(), c);
    }
    for side in 0..2 {
        let row = &mut f[usize::from(side != me)];
        for (k, n) in eval.combo_counts(side).into_iter().enumerate() {
            row[PATTERN_COUNT + 1 + k] = n as u16;
        }
    }
    f
}

/// `points` features of `pos`: per side (side to move first), every candidate cell.
/// The candidates are the evaluator's own (its radius and shape), so `eval` must hold
/// `pos`.
pub fn points_features(eval: &MnkEval, pos: &Mnk) -> [Vec<PointCell>; 2] {
    let me = pos.side_to_move().index();
    let mut out = [Vec::new(), Vec::new()];
    for c in 0..pos.mnk().cells() {
        if !eval.is_candidate_cell(c) {
            continue;
        }
        let r = ring(pos.mnk(), c) as u8;
        for side in 0..2 {
            let p = |dir| eval.pattern_at(c, dir, side) as u8;
            out[usize::from(side != me)].push([p(0), p(1), p(2), p(3), r]);
        }
    }
    out
}

/// Ataxx features of `pos`.
pub fn ataxx_features(pos: &Ataxx) -> AtaxxFeatures {
    let d = all_term_differences(pos);
    let (stones, playable) = AtaxxEval::phase(pos);
    let me = pos.side_to_move();
    AtaxxFeatures {
        terms: std::array::from_fn(|i| d[i] as i16),
        phase: stones as f32 / playable.max(1) as f32,
        stones: [pos.stones(me), pos.stones(me.other())],
    }
}

/// The m,n,k weight vector of `table` for its evaluation mode: the pattern weights the
/// evaluation reads (line weights for `lines`, point weights for `points`), centre,
/// the combination bonuses and defence.
pub fn mnk_weights(table: &MnkTable) -> [f64; mnk_slot::COUNT] {
    let patterns = match table.evaluation {
        MnkEvaluation::Lines => table.line_weights().by_pattern(),
        MnkEvaluation::Points => table.point_weights().by_pattern(),
    };
    let mut w = [0.0; mnk_slot::COUNT];
    for (i, p) in patterns.iter().enumerate() {
        w[i] = *p as f64;
    }
    w[mnk_slot::CENTRE] = table.centre as f64;
    w[mnk_slot::DOUBLE_FOUR] = table.double_four as f64;
    w[mnk_slot::FOUR_THREE] = table.four_three as f64;
    w[mnk_slot::DOUBLE_THREE] = table.double_three as f64;
    w[mnk_slot::DEFENCE] = table.defence;
    if table.evaluation == MnkEvaluation::Lines {
        for (k, v) in table.cell_weights().into_iter().enumerate() {
            w[mnk_slot::CELL_DOUBLE_FOUR + k] = v as f64;
        }
    }
    w
}

/// The Ataxx weight vector of `table`: its weights in [`AtaxxTable::TERM_KEYS`]
/// order, then its `endgame.*` changes.
pub fn ataxx_weights(table: &AtaxxTable) -> [f64; ATAXX_SLOTS] {
    let (weights, changes) = (table.weights(), table.endgame.values());
    std::array::from_fn(|i| {
        if i < ATAXX_TERM_COUNT {
            weights[i] as f64
        } else {
            changes[i - ATAXX_TERM_COUNT] as f64
        }
    })
}

/// Why a `table.*` parameter cannot be fitted: the message follows the parameter's name
/// (`params[1] `table.x`: is not a weight of an m,n,k table`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SlotError {
    /// A `lines` score weight, which a `points` evaluation never reads.
    #[error(
        "is a `lines` score weight: a `points` evaluation never reads it (fit \
         table.double_four, four_three or double_three)"
    )]
    LinesScore,
    /// No weight of an m,n,k table.
    #[error("is not a weight of an m,n,k table")]
    NotMnk,
    /// A point weight, which a `lines` evaluation never reads.
    #[error(
        "is a point weight (move ordering): a `lines` evaluation never reads it, so no \
         position can fit it"
    )]
    PointWeight,
    /// A line weight of a `points` table with a `[points]` section (the pattern's key).
    #[error(
        "is a line weight: this `points` table has a [points] section, which its evaluation \
         reads instead (fit table.points.{0})"
    )]
    LineWeight(String),
    /// A point weight of a `points` table without a `[points]` section (the pattern's key).
    #[error(
        "this `points` table has no [points] section: its point weights are its line \
         weights (fit table.{0})"
    )]
    NoPoints(String),
    /// No weight of an Ataxx table.
    #[error("is not a weight of an Ataxx table")]
    NotAtaxx,
    /// An engine without a table.
    #[error("the engine has no table")]
    NoTable,
}

/// The slot a `table.*` parameter fills, for a table of this evaluation mode, or why
/// the evaluation never reads it.
pub fn mnk_slot_of(table: &MnkTable, name: &str) -> Result<usize, SlotError> {
    let key = name.strip_prefix("table.").unwrap_or(name);
    let fixed = match key {
        "centre" => Some(mnk_slot::CENTRE),
        "defence" => Some(mnk_slot::DEFENCE),
        _ => None,
    };
    if let Some(slot) = fixed {
        return Ok(slot);
    }
    if let Some(k) = MnkTable::CELL_KEYS.iter().position(|c| *c == key) {
        return match table.evaluation {
            MnkEvaluation::Lines => Ok(mnk_slot::CELL_DOUBLE_FOUR + k),
            MnkEvaluation::Points => Err(SlotError::LinesScore),
        };
    }
    let pattern = |k: &str| {
        Pattern::ALL
            .iter()
            .position(|p| p.key() == k && *p != Pattern::None)
    };
    let combo = match key {
        "double_four" => Some(mnk_slot::DOUBLE_FOUR),
        "four_three" => Some(mnk_slot::FOUR_THREE),
        "double_three" => Some(mnk_slot::DOUBLE_THREE),
        _ => None,
    };
    let (point_key, line_key) = match key.strip_prefix("points.") {
        Some(rest) => (pattern(rest), None),
        None => (None, pattern(key)),
    };
    let known = combo.is_some() || point_key.is_some() || line_key.is_some();
    if !known {
        return Err(SlotError::NotMnk);
    }
    match table.evaluation {
        MnkEvaluation::Lines => line_key.ok_or(SlotError::PointWeight),
        MnkEvaluation::Points => {
            if let Some(slot) = combo {
                return Ok(slot);
            }
            match (table.points.is_some(), point_key, line_key) {
                (true, Some(slot), _) | (false, _, Some(slot)) => Ok(slot),
                (true, None, _) => Err(SlotError::LineWeight(key.to_string())),
                (false, _, None) => Err(SlotError::NoPoints(
                    key.trim_start_matches("points.").to_string(),
                )),
            }
        }
    }
}

/// The slot of an Ataxx `table.*` parameter: a term's weight, or its
/// `table.endgame.*` change.
pub fn ataxx_slot_of(name: &str) -> Result<usize, SlotError> {
    let key = name.strip_prefix("table.").unwrap_or(name);
    let (offset, term) = match key.strip_prefix("endgame.") {
        Some(term) => (ATAXX_TERM_COUNT, term),
        None => (0, key),
    };
    AtaxxTable::TERM_KEYS
        .iter()
        .position(|t| *t == term)
        .map(|i| offset + i)
        .ok_or(SlotError::NotAtaxx)
}

/// Combination flags of a point from its four patterns: [double four, four-three,
/// double three], as the evaluator's `finish_point` adds them.
#[inline]
pub fn combos(patterns: &[u8]) -> [bool; 3] {
    let (mut fours, mut threes) = (0u8, 0u8);
    for &p in &patterns[..4] {
        fours += u8::from(p == Pattern::RushFour as u8 || p == Pattern::OpenFour as u8);
        threes += u8::from(p == Pattern::OpenThree as u8);
    }
    [fours >= 2, fours >= 1 && threes >= 1, threes >= 2]
}

/// A `points` cell's score under the weights `w` (float, for fitting).
#[inline]
pub fn point_score(w: &[f64], cell: &PointCell) -> f64 {
    let mut s = w[mnk_slot::CENTRE] * f64::from(cell[4]);
    for &p in &cell[..4] {
        s += w[usize::from(p)];
    }
    let [df, ft, dt] = combos(cell);
    if df {
        s += w[mnk_slot::DOUBLE_FOUR];
    }
    if ft {
        s += w[mnk_slot::FOUR_THREE];
    }
    if dt {
        s += w[mnk_slot::DOUBLE_THREE];
    }
    s
}

/// The evaluator's own integer arithmetic on features, for the cross-check: `defence` in
/// 1/256ths and floored as `((q8 · ours) >> 8) − theirs`, then clamped.
pub fn exact_mnk(ours: i64, theirs: i64, defence: f64) -> i32 {
    let q8 = (defence * 256.0).round() as i64;
    crate::eval::clamp_eval(((q8 * ours) >> 8) - theirs)
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::{
        eval::{Evaluator, ataxx::AtaxxEval, mnk::Shape, table::PatternWeights},
        game::MnkConfig,
    };

    fn random_weights(rng: &mut ChaCha8Rng) -> PatternWeights {
        let mut r = |hi: i64| rng.random_range(-hi / 10..=hi);
        PatternWeights {
            five: r(1_000_000),
            open_four: r(100_000),
            rush_four: r(10_000),
            dead_four: r(100),
            open_three: r(10_000),
            sleep_three: r(3000),
            dead_three: r(50),
            open_two: r(1000),
            sleep_two: r(300),
            dead_two: r(20),
            open_one: r(100),
            sleep_one: r(50),
            dead_one: r(10),
        }
    }

    fn random_table(rng: &mut ChaCha8Rng, mode: MnkEvaluation) -> MnkTable {
        let w = random_weights(rng);
        let mut t = MnkTable::zero();
        t.evaluation = mode;
        t.defence = f64::from(rng.random_range(0..=800)) / 256.0 + rng.random_range(0.0..0.01);
        t.centre = rng.random_range(-20..=40);
        t.double_four = rng.random_range(0..200_000);
        t.four_three = rng.random_range(0..200_000);
        t.double_three = rng.random_range(0..20_000);
        if mode == MnkEvaluation::Lines {
            t.cell_double_four = rng.random_range(-1000..50_000);
            t.cell_four_three = rng.random_range(-1000..50_000);
            t.cell_double_three = rng.random_range(-1000..10_000);
            t.cell_four_two = rng.random_range(-1000..10_000);
            t.cell_three_two = rng.random_range(-1000..10_000);
            t.cell_double_two = rng.random_range(-1000..5_000);
        }
        t.five = w.five;
        t.open_four = w.open_four;
        t.rush_four = w.rush_four;
        t.dead_four = w.dead_four;
        t.open_three = w.open_three;
        t.sleep_three = w.sleep_three;
        t.dead_three = w.dead_three;
        t.open_two = w.open_two;
        t.sleep_two = w.sleep_two;
        t.dead_two = w.dead_two;
        t.open_one = w.open_one;
        t.sleep_one = w.sleep_one;
        t.dead_one = w.dead_one;
        if rng.random_bool(0.5) {
            t.points = Some(random_weights(rng));
        }
        t
    }

    /// The slow reference for the candidates: whether `c` is empty and, unless the radius
    /// is 0, within `radius` of a stone, in `shape` around it.
    fn near_a_stone(pos: &Mnk, c: usize, radius: usize, shape: Shape) -> bool {
        if pos.cells()[c] != EMPTY {
            return false;
        }
        if radius == 0 {
            return true;
        }
        let config = pos.mnk();
        let (x, y) = config.xy(MnkMove(c as u16));
        let r = radius as i32;
        (y - r..=y + r).any(|ny| {
            (x - r..=x + r).any(|nx| {
                shape.reaches(nx - x, ny - y)
                    && config
                        .at(nx, ny)
                        .is_some_and(|n| pos.cells()[n.cell()] != EMPTY)
            })
        })
    }

    /// Random unfinished positions of a variant, reached by random moves near the
    /// stones (so that lines form), with the evaluator kept in step.
    fn positions(config: MnkConfig, rng: &mut ChaCha8Rng, games: usize) -> Vec<Mnk> {
        let mut out = Vec::new();
        let mut moves = Vec::new();
        for _ in 0..games {
            let mut pos = Mnk::new(&config);
            let length = rng.random_range(1..config.cells().min(60));
            for _ in 0..length {
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                let near: Vec<MnkMove> = moves
                    .iter()
                    .copied()
                    .filter(|m| near_a_stone(&pos, m.cell(), 2, Shape::Square))
                    .collect();
                let pool = if near.is_empty() { &moves } else { &near };
                let mv = pool[rng.random_range(0..pool.len())];
                let mut next = pos.clone();
                next.play(mv);
                if next.outcome().is_some() {
                    break;
                }
                pos = next;
                out.push(pos.clone());
            }
        }
        out
    }

    /// The regression this pins: `features · weights` must equal the real evaluator's
    /// `evaluate()` for every mode, table and variant, or the fit optimises something
    /// the engine never computes.
    #[test]
    fn mnk_features_times_weights_equal_the_evaluator() {
        let mut rng = ChaCha8Rng::seed_from_u64(15);
        let variants = [
            MnkConfig::gomoku(),
            MnkConfig::gomoku_exact(),
            MnkConfig::renju(),
            MnkConfig::new(9, 7, 4, crate::game::MnkRule::Freestyle).unwrap(),
        ];
        let mut checked = 0;
        let mut with_combos = 0;
        for config in variants {
            for mode in [MnkEvaluation::Lines, MnkEvaluation::Points] {
                for (radius, shape) in [(0, Shape::Square), (2, Shape::Square), (2, Shape::Lines)] {
                    let table = random_table(&mut rng, mode);
                    let w = mnk_weights(&table);
                    let mut eval = MnkEval::with_shape(&config, &table, radius, shape);
                    for pos in positions(config, &mut rng, 6) {
                        eval.reset(&pos);
                        let want = eval.evaluate(&pos);
                        let got = match mode {
                            MnkEvaluation::Lines => {
                                let f = lines_features(&eval, &pos);
                                if f.iter().any(|row| {
                                    row[PATTERN_COUNT + 1..] != [0; crate::eval::table::COMBOS]
                                }) {
                                    with_combos += 1;
                                }
                                let side = |row: &[u16]| -> i64 {
                                    (0..LINES_WIDTH)
                                        .map(|j| {
                                            let slot = match j {
                                                PATTERN_COUNT => mnk_slot::CENTRE,
                                                j if j > PATTERN_COUNT => {
                                                    mnk_slot::CELL_DOUBLE_FOUR + j
                                                        - PATTERN_COUNT
                                                        - 1
                                                }
                                                j => j,
                                            };
                                            w[slot] as i64 * i64::from(row[j])
                                        })
                                        .sum()
                                };
                                exact_mnk(side(&f[0]), side(&f[1]), table.defence)
                            }
                            MnkEvaluation::Points => {
                                // The features' candidates are the evaluator's own:
                                // check them against the slow reference first.
                                for c in 0..config.cells() {
                                    assert_eq!(
                                        eval.is_candidate_cell(c),
                                        near_a_stone(&pos, c, radius, shape),
                                        "cell {c} of {}",
                                        pos.to_text()
                                    );
                                }
                                let f = points_features(&eval, &pos);
                                let best = |cells: &[PointCell]| -> i64 {
                                    cells
                                        .iter()
                                        .map(|c| point_score(&w, c) as i64)
                                        .fold(0, i64::max)
                                };
                                exact_mnk(best(&f[0]), best(&f[1]), table.defence)
                            }
                        };
                        assert_eq!(
                            got,
                            want,
                            "{mode:?} radius {radius} {shape:?} {}",
                            pos.to_text()
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 500, "only {checked} positions checked");
        assert!(
            with_combos > 20,
            "only {with_combos} positions had a combination cell"
        );
    }

    #[test]
    fn ataxx_features_times_weights_equal_the_evaluator() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut moves = Vec::new();
        let (mut checked, mut tapered) = (0, 0);
        for round in 0..60 {
            let mut r = |lo: i64, hi: i64| rng.random_range(lo..=hi);
            let mut table = AtaxxTable {
                family: "ataxx".into(),
                name: "random".into(),
                material: r(1, 200),
                rectangle: r(-10, 10),
                mobility: r(-10, 10),
                frontier: r(-20, 5),
                corner: r(-20, 30),
                edge: r(-10, 10),
                tempo: r(-100, 400),
                tempo_filled: r(-5, 10),
                square_a1: r(-20, 20),
                square_b1: r(-20, 20),
                square_c1: r(-20, 20),
                square_d1: r(-20, 20),
                square_b2: r(-20, 20),
                square_c2: r(-20, 20),
                square_d2: r(-20, 20),
                square_c3: r(-20, 20),
                square_d3: r(-20, 20),
                square_d4: r(-20, 20),
                hole_1: r(-50, 50),
                hole_2: r(-50, 50),
                hole_3: r(-80, 20),
                hole_4: r(-100, 20),
                hole_5: r(-150, 0),
                hole_6: r(-200, 0),
                hole_7: r(-300, 0),
                hole_8: r(-400, 0),
                territory: r(-30, 60),
                capture: r(-20, 80),
                exposed: r(-60, 60),
                ..AtaxxTable::material_only()
            };
            // Every other table has endgame changes: a tapered score, which the
            // features give before the evaluator rounds it to a whole number.
            if round % 2 == 1 {
                table.endgame.material = r(-60, 60);
                table.endgame.mobility = r(-10, 10);
                table.endgame.tempo = r(-100, 200);
                table.endgame.square_b1 = r(-30, 30);
                table.endgame.hole_3 = r(-50, 50);
                table.endgame.territory = r(-50, 50);
                table.endgame.capture = r(-50, 50);
                table.endgame.exposed = r(-50, 50);
            }
            let w = ataxx_weights(&table);
            let mut eval = AtaxxEval::new(&table);
            let mut pos = Ataxx::default();
            for _ in 0..rng.random_range(1..120) {
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                pos.play(moves[rng.random_range(0..moves.len())]);
                if pos.outcome().is_some() {
                    break;
                }
                let f = ataxx_features(&pos);
                let got: f64 = (0..ATAXX_TERM_COUNT)
                    .map(|i| {
                        let t = f64::from(f.terms[i]);
                        t * w[i] + t * w[ATAXX_TERM_COUNT + i] * f64::from(f.phase)
                    })
                    .sum();
                let want = f64::from(eval.evaluate(&pos));
                if round % 2 == 1 {
                    assert!(
                        (got - want).abs() < 1.0 + 1e-3,
                        "{got} {want} {}",
                        pos.fen()
                    );
                    tapered += 1;
                } else {
                    assert_eq!(got, want, "{}", pos.fen());
                }
                checked += 1;
            }
        }
        assert!(checked > 500, "only {checked} positions checked");
        assert!(tapered > 200, "only {tapered} tapered positions checked");
    }

    #[test]
    fn parameter_names_map_to_what_the_evaluation_reads() {
        let mut t = MnkTable::zero();
        assert_eq!(
            mnk_slot_of(&t, "table.open_three"),
            Ok(Pattern::OpenThree as usize)
        );
        assert_eq!(mnk_slot_of(&t, "table.defence"), Ok(mnk_slot::DEFENCE));
        let e = mnk_slot_of(&t, "table.points.open_three").unwrap_err();
        assert_eq!(e, SlotError::PointWeight);
        assert!(e.to_string().contains("never reads it"), "{e}");
        assert!(mnk_slot_of(&t, "table.double_four").is_err());
        assert!(
            mnk_slot_of(&t, "table.open_tree")
                .unwrap_err()
                .to_string()
                .contains("not a weight")
        );
        t.evaluation = MnkEvaluation::Points;
        assert_eq!(
            mnk_slot_of(&t, "table.open_three"),
            Ok(Pattern::OpenThree as usize)
        );
        assert!(mnk_slot_of(&t, "table.points.open_three").is_err());
        assert_eq!(
            mnk_slot_of(&t, "table.four_three"),
            Ok(mnk_slot::FOUR_THREE)
        );
        t.points = Some(PatternWeights::default());
        assert_eq!(
            mnk_slot_of(&t, "table.points.five"),
            Ok(Pattern::Five as usize)
        );
        assert!(
            mnk_slot_of(&t, "table.five")
                .unwrap_err()
                .to_string()
                .contains("[points]")
        );
        assert_eq!(ataxx_slot_of("table.frontier"), Ok(3));
        assert_eq!(ataxx_slot_of("table.square_d4"), Ok(17));
        assert_eq!(ataxx_slot_of("table.hole_8"), Ok(25));
        assert_eq!(ataxx_slot_of("table.territory"), Ok(26));
        assert_eq!(ataxx_slot_of("table.capture"), Ok(27));
        assert_eq!(ataxx_slot_of("table.exposed"), Ok(28));
        assert_eq!(ataxx_slot_of("table.endgame.material"), Ok(29));
        assert_eq!(ataxx_slot_of("table.endgame.hole_1"), Ok(29 + 18));
        assert_eq!(ataxx_slot_of("table.endgame.territory"), Ok(29 + 26));
        assert!(ataxx_slot_of("table.endgame.open_three").is_err());
        assert!(ataxx_slot_of("table.open_three").is_err());
    }
}
