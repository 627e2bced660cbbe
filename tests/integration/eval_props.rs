//! The incremental m,n,k evaluator equals the evaluator built from scratch, after any
//! sequence of moves and take-backs, on every rule and k: keys, sums, candidates, and
//! (with tracking) every empty cell's point and the threat sets.

use std::path::Path;

use arena::{
    engine::builtin,
    eval::{Evaluator, MnkTable, Table, mnk::MnkEval},
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
/// without tracking, counts) the cells where one stone makes two fours, a four-three or
/// a double three.
fn table_with_cells() -> MnkTable {
    MnkTable {
        cell_double_four: 40_000,
        cell_four_three: 30_000,
        cell_double_three: 3_000,
        ..table()
    }
}

fn check(config: MnkConfig, steps: &[(bool, usize)]) -> Result<(), TestCaseError> {
    for t in [table(), table_with_cells()] {
        check_tracking(config, steps, true, &t)?;
        check_tracking(config, steps, false, &t)?;
    }
    Ok(())
}

/// With `tracking`, the kept points and threat sets are checked too; the fresh
/// evaluator always tracks, so without tracking the scores computed from the keys are
/// compared with the kept ones.
fn check_tracking(
    config: MnkConfig,
    steps: &[(bool, usize)],
    tracking: bool,
    t: &MnkTable,
) -> Result<(), TestCaseError> {
    let mut pos = Mnk::new(&config);
    let mut eval = MnkEval::new(&config, t, 2);
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
        let mut fresh = MnkEval::new(&config, t, 2);
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
        kept
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
    assert_eq!(
        score(&table_with_cells()) - score(&table()),
        table_with_cells().cell_four_three as i32
    );
}
