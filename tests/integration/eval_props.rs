//! The incremental m,n,k evaluator equals the evaluator built from scratch, after any
//! sequence of moves and take-backs, on every rule and k: keys, sums, candidates, and
//! (with tracking) every empty cell's point and the threat sets.

use std::path::Path;

use arena::{
    engine::builtin,
    eval::{
        Evaluator, MnkTable, Table,
        mnk::{MnkEval, Shape},
    },
    game::{Game, Mnk, MnkConfig, MnkRule},
};
use proptest::prelude::*;

fn table() -> MnkTable {
    let text = builtin::file(Path::new("configs/tables/gomoku/seed003.toml")).unwrap();
    match Table::parse("seed003", text).unwrap() {
        Table::Mnk(t) => t,
        _ => unreachable!(),
    }
}

/// Seed 003 with weights on the combination cells, so the `lines` score also keeps (or,
/// without tracking, counts) the cells where one stone makes two fours, a four-three, a
/// double three, a four and a two, a three and a two, or two twos.
fn table_with_cells() -> MnkTable {
    MnkTable {
        cell_double_four: 40_000,
        cell_four_three: 30_000,
        cell_double_three: 3_000,
        cell_four_two: 900,
        cell_three_two: 700,
        cell_double_two: 200,
        ..table()
    }
}

fn check(config: MnkConfig, steps: &[(bool, usize)]) -> Result<(), TestCaseError> {
    for t in [table(), table_with_cells()] {
        check_tracking(config, steps, true, &t, Shape::Square)?;
        check_tracking(config, steps, false, &t, Shape::Square)?;
    }
    // Candidates on the stones' lines only: kept as incrementally as the square.
    check_tracking(config, steps, true, &table(), Shape::Lines)
}

/// With `tracking`, the kept points and threat sets are checked too; the fresh
/// evaluator always tracks, so without tracking the scores computed from the keys are
/// compared with the kept ones.
fn check_tracking(
    config: MnkConfig,
    steps: &[(bool, usize)],
    tracking: bool,
    t: &MnkTable,
    shape: Shape,
) -> Result<(), TestCaseError> {
    let mut pos = Mnk::new(&config);
    let mut eval = MnkEval::with_shape(&config, t, 2, shape);
    eval.set_tracking(tracking);
    eval.reset(&pos);
    let mut played = Vec::new();
    let mut moves = Vec::new();
    for &(undo, choice) in steps {
        if undo && !played.is_empty() {
            let mv = played.pop().unwrap();
            pos.undo(mv, ());
            eval.undone(&pos, mv);
        } else {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                continue;
            }
            let mv = moves[choice % moves.len()];
            pos.play(mv);
            eval.played(&pos, mv);
            played.push(mv);
        }
        let mut fresh = MnkEval::with_shape(&config, t, 2, shape);
        fresh.reset(&pos);
        prop_assert_eq!(eval.keys(), fresh.keys(), "keys after {}", pos.to_text());
        prop_assert_eq!(eval.sums(), fresh.sums(), "sums after {}", pos.to_text());
        prop_assert_eq!(eval.sums(), eval.sums_from_scratch());
        if let Err(e) = eval.check_kept_state() {
            return Err(TestCaseError::fail(format!("{e} after {}", pos.to_text())));
        }
        if pos.outcome().is_none() {
            prop_assert_eq!(eval.evaluate(&pos), fresh.evaluate(&pos));
            let (mut a, mut b) = (Vec::new(), Vec::new());
            eval.candidates(&pos, &mut a);
            fresh.candidates(&pos, &mut b);
            prop_assert_eq!(a, b);
        }
    }
    Ok(())
}

fn steps() -> impl Strategy<Value = Vec<(bool, usize)>> {
    prop::collection::vec((prop::bool::weighted(0.3), any::<usize>()), 1..60)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn gomoku_freestyle(s in steps()) { check(MnkConfig::gomoku(), &s)?; }

    #[test]
    fn gomoku_exact(s in steps()) { check(MnkConfig::gomoku_exact(), &s)?; }

    #[test]
    fn renju(s in steps()) { check(MnkConfig::renju(), &s)?; }

    #[test]
    fn small_boards_and_other_k(s in steps(), k in 3u32..=5, w in 5u32..=9, h in 5u32..=9) {
        let c = MnkConfig::new(w, h, k, MnkRule::Freestyle).unwrap();
        check(c, &s)?;
        let c = MnkConfig::new(w, h, k, MnkRule::Exact).unwrap();
        check(c, &s)?;
    }

    #[test]
    fn k6_on_20x20(s in steps()) {
        check(MnkConfig::new(20, 20, 6, MnkRule::Freestyle).unwrap(), &s)?;
    }
}

/// Known answers for the combination cells: one four-three point (k8: a four along row
/// 8 and a split three h8-k8 along file k), one double-three point (h8), and under renju
/// the double-three point is black's forbidden point, so it counts for nothing.
#[test]
fn combination_cells_are_counted_and_renju_drops_blacks_forbidden_ones() {
    let four_three = "h8a1i8o1j8a15k10o15k11a8";
    let double_three = "i8a1j8o1h9a15h10o15";
    let counts = |config: MnkConfig, text: &str| {
        let pos = Mnk::from_text(&config, text).unwrap();
        let mut eval = MnkEval::new(&config, &table_with_cells(), 2);
        eval.reset(&pos);
        let mut plain = MnkEval::new(&config, &table_with_cells(), 2);
        plain.set_tracking(false);
        plain.reset(&pos);
        let kept = [eval.combo_counts(0), eval.combo_counts(1)];
        assert_eq!(kept, [plain.combo_counts(0), plain.combo_counts(1)]);
        // The first three combinations (those with a four or two threes).
        kept.map(|k| [k[0], k[1], k[2]])
    };
    assert_eq!(counts(MnkConfig::gomoku(), four_three), [[0, 1, 0], [0; 3]]);
    assert_eq!(
        counts(MnkConfig::gomoku(), double_three),
        [[0, 0, 1], [0; 3]]
    );
    assert_eq!(counts(MnkConfig::renju(), double_three), [[0; 3], [0; 3]]);

    // The score adds the weight times the count for the side that has the cell.
    let config = MnkConfig::gomoku();
    let pos = Mnk::from_text(&config, four_three).unwrap();
    let score = |t: &MnkTable| {
        let t = MnkTable {
            defence: 1.0,
            ..t.clone()
        };
        let mut eval = MnkEval::new(&config, &t, 2);
        eval.reset(&pos);
        eval.evaluate(&pos)
    };
    let only_four_three = MnkTable {
        cell_four_three: 30_000,
        ..table()
    };
    assert_eq!(score(&only_four_three) - score(&table()), 30_000);
}

/// Known answers for the combinations of twos: black's lone stones on h8 and i10 (a
/// knight's move apart, so no line holds both and no stone can make a three or a four),
/// white's far away in the corners. A black stone on h9, i9, h10 or i8 makes an open two
/// with each of them, along two lines: those are double-two points, whatever else the
/// pattern table also counts as an open two. The kept sets must count exactly what a
/// scan of every cell's own patterns counts.
#[test]
fn combinations_of_twos_are_counted_as_a_scan_of_the_points_counts_them() {
    let config = MnkConfig::gomoku();
    let pos = Mnk::from_text(&config, "h8a1i10o1").unwrap();
    let mut eval = MnkEval::new(&config, &table_with_cells(), 2);
    eval.reset(&pos);
    let mut slow = [0u32; 6];
    for c in 0..config.cells() {
        if !eval.is_candidate_cell(c) {
            continue;
        }
        let p = eval.point_from_scratch(c, 0);
        let (f, t, w) = (p.fours, p.open_threes, p.open_twos);
        let combos = [
            f >= 2,
            f >= 1 && t >= 1,
            t >= 2,
            f >= 1 && w >= 1,
            t >= 1 && w >= 1,
            w >= 2,
        ];
        for (n, on) in slow.iter_mut().zip(combos) {
            *n += u32::from(on);
        }
    }
    assert_eq!(eval.combo_counts(0), slow);
    assert_eq!(slow[..5], [0; 5], "no fours or threes from two lone stones");
    for cell in ["h9", "i9", "h10", "i8"] {
        let c = pos.parse_move(cell).unwrap().cell();
        assert!(
            eval.point(c, 0).open_twos >= 2,
            "{cell} makes two open twos"
        );
    }
    assert!(slow[5] >= 4, "{slow:?}");
}

#[test]
fn lines_shape_keeps_only_the_cells_on_a_stones_four_lines() {
    let config = MnkConfig::gomoku();
    let moves = |shape: Shape, text: &str| {
        let pos = Mnk::from_text(&config, text).unwrap();
        let mut eval = MnkEval::with_shape(&config, &table(), 2, shape);
        eval.reset(&pos);
        let mut out = Vec::new();
        eval.candidates(&pos, &mut out);
        let mut cells: Vec<String> = out.iter().map(|&m| pos.format_move(m)).collect();
        cells.sort();
        cells
    };
    // One stone in the middle: 24 cells of the 5x5 square, 16 of them on its lines.
    assert_eq!(moves(Shape::Square, "h8").len(), 24);
    let lines = moves(Shape::Lines, "h8");
    assert_eq!(lines.len(), 16);
    // A knight's move away shares no line; two steps along a diagonal does.
    assert!(!lines.contains(&"i10".to_string()), "{lines:?}");
    assert!(lines.contains(&"j10".to_string()), "{lines:?}");
    // In a corner only what is on the board: 8 of the 3x3 square's cells, all on lines.
    assert_eq!(moves(Shape::Square, "a1").len(), 8);
    assert_eq!(moves(Shape::Lines, "a1").len(), 6);
}

#[test]
fn far_moves_lose_half_or_three_quarters_of_their_ordering_score() {
    use arena::eval::{MoveKey, OrderFlags};
    let config = MnkConfig::gomoku();
    // The last four stones are b3, h8, h9, i8 (i8 the latest).
    let pos = Mnk::from_text(&config, "b2b3h8h9i8").unwrap();
    let mut eval = MnkEval::new(&config, &table(), 0);
    eval.reset(&pos);
    let cell = |t: &str| Mnk::from_text(&config, t).unwrap().history()[0];
    let moves = [cell("j9"), cell("c4"), cell("n14")];
    let mut keys = |far: u8| {
        let mut keys = vec![MoveKey::default(); moves.len()];
        let flags = OrderFlags {
            static_score: true,
            far_distance: far,
            ..OrderFlags::default()
        };
        eval.order_keys(&pos, &moves, &mut keys, flags);
        keys.iter().map(|k| k.score).collect::<Vec<_>>()
    };
    let plain = keys(0);
    let scaled = keys(2);
    assert!(plain.iter().all(|&s| s > 0), "{plain:?}");
    // j9: next to i8, the last stone: unchanged.
    assert_eq!(scaled[0], plain[0]);
    // c4: more than 2 steps from h9 and i8, but near b3 (one of the last four): halved.
    assert_eq!(scaled[1], plain[1] / 2);
    // n14: far from all four: quartered.
    assert_eq!(scaled[2], plain[2] / 4);
}
