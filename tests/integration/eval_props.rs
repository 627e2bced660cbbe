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

fn check(config: MnkConfig, steps: &[(bool, usize)]) -> Result<(), TestCaseError> {
    check_tracking(config, steps, true)?;
    check_tracking(config, steps, false)
}

/// With `tracking`, the kept points and threat sets are checked too.
fn check_tracking(
    config: MnkConfig,
    steps: &[(bool, usize)],
    tracking: bool,
) -> Result<(), TestCaseError> {
    let t = table();
    let mut pos = Mnk::new(&config);
    let mut eval = MnkEval::new(&config, &t, 2);
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
        let mut fresh = MnkEval::new(&config, &t, 2);
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
