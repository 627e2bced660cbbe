//! The minimax-rs test: on random positions of small games, plain minimax, alpha-beta
//! with each ordering heuristic, and iterative deepening with the transposition table
//! return the same root value. Heuristics that prune (top_k, threat's forced moves) are
//! checked for what they must never miss instead: a win in one and a forced block.
//! Singular extensions are checked with a margin no move meets, so that the searches
//! they start without the table's move must leave the value as it was.

use std::path::Path;

use arena::{
    engine::builtin,
    eval::{AtaxxTable, Evaluator, MnkTable, OrderFlags, Table, ataxx::AtaxxEval, mnk::MnkEval},
    game::{Ataxx, Game, Mnk, MnkConfig, MnkRule},
    search::{
        Limits, SearchSettings, Searcher,
        score::{INFINITY, win_in},
    },
};
use proptest::prelude::*;

fn gomoku_table() -> MnkTable {
    let text = builtin::file(Path::new("configs/tables/gomoku/seed003.toml")).unwrap();
    match Table::parse("seed003", text).unwrap() {
        Table::Mnk(t) => t,
        _ => unreachable!(),
    }
}

fn ataxx_table() -> AtaxxTable {
    let text = builtin::file(Path::new("configs/tables/ataxx/rich.toml")).unwrap();
    match Table::parse("rich", text).unwrap() {
        Table::Ataxx(t) => t,
        _ => unreachable!(),
    }
}

/// Plain minimax (negamax form) over the evaluator's candidates, no pruning at all.
fn minimax<G: Game, E: Evaluator<G>>(pos: &mut G, eval: &mut E, depth: u32, ply: usize) -> i32 {
    if let Some(outcome) = pos.outcome() {
        return match outcome.winner() {
            None => 0,
            Some(side) if side == pos.side_to_move() => win_in(ply),
            Some(_) => -win_in(ply),
        };
    }
    if depth == 0 {
        return eval.evaluate(pos);
    }
    let mut moves = Vec::new();
    eval.candidates(pos, &mut moves);
    let mut best = -INFINITY;
    for mv in moves {
        let undo = pos.play(mv);
        eval.played(pos, mv);
        best = best.max(-minimax(pos, eval, depth - 1, ply + 1));
        pos.undo(mv, undo);
        eval.undone(pos, mv);
    }
    best
}

/// Every ordering setting that keeps all moves, for one game family.
fn settings(mnk: bool) -> Vec<(&'static str, SearchSettings)> {
    let plain = SearchSettings {
        tt_move: false,
        ..SearchSettings::default()
    };
    let with = |order: OrderFlags| SearchSettings { order, ..plain };
    let mut out = vec![
        ("none", plain),
        ("tt_move", SearchSettings::default()),
        (
            "killers",
            SearchSettings {
                killers: true,
                ..plain
            },
        ),
        (
            "history",
            SearchSettings {
                history: true,
                ..plain
            },
        ),
        (
            "counter",
            SearchSettings {
                counter: true,
                ..plain
            },
        ),
        (
            "aspiration",
            SearchSettings {
                aspiration: 50,
                ..SearchSettings::default()
            },
        ),
        (
            "pvs",
            SearchSettings {
                pvs: true,
                ..SearchSettings::default()
            },
        ),
        (
            "mate distance",
            SearchSettings {
                mate_distance: true,
                ..SearchSettings::default()
            },
        ),
        (
            // Every node from 2 plies left with a table move asks whether the other
            // moves come close, with a margin so wide that none is ever singular and no
            // multi-cut happens: what the asking leaves behind (the table, the PV, the
            // move left out) must not change the value.
            "singular, never singular",
            SearchSettings {
                pvs: true,
                singular: true,
                params: arena::search::SearchParams {
                    se_depth: 2,
                    se_margin: 1_000_000,
                    ..arena::search::SearchParams::default()
                },
                ..SearchSettings::default()
            },
        ),
        (
            // A win or loss in the table cuts off at any depth and on the principal
            // variation: without pruning, a decisive score is the same at every depth.
            "pvs + mate distance + tt decisive",
            SearchSettings {
                pvs: true,
                mate_distance: true,
                tt_decisive: true,
                ..SearchSettings::default()
            },
        ),
        (
            "pvs + staged killers + counter + history + mate distance + aspiration",
            SearchSettings {
                pvs: true,
                staged: true,
                killers: true,
                counter: true,
                history: true,
                mate_distance: true,
                aspiration: 50,
                ..SearchSettings::default()
            },
        ),
    ];
    if mnk {
        out.push((
            "static",
            with(OrderFlags {
                static_score: true,
                ..OrderFlags::default()
            }),
        ));
        out.push((
            "threat (no pruning)",
            with(OrderFlags {
                threat: true,
                ..OrderFlags::default()
            }),
        ));
        out.push((
            "everything",
            SearchSettings {
                order: OrderFlags {
                    static_score: true,
                    threat: true,
                    ..OrderFlags::default()
                },
                killers: true,
                history: true,
                aspiration: 100,
                ..SearchSettings::default()
            },
        ));
        out.push((
            "everything exact, staged with PVS",
            SearchSettings {
                order: OrderFlags {
                    static_score: true,
                    threat: true,
                    ..OrderFlags::default()
                },
                killers: true,
                history: true,
                aspiration: 100,
                pvs: true,
                staged: true,
                mate_distance: true,
                ..SearchSettings::default()
            },
        ));
    } else {
        out.push((
            "captures",
            with(OrderFlags {
                captures: true,
                ..OrderFlags::default()
            }),
        ));
        out.push((
            "singles_first",
            with(OrderFlags {
                singles_first: true,
                ..OrderFlags::default()
            }),
        ));
        out.push((
            "everything",
            SearchSettings {
                order: OrderFlags {
                    captures: true,
                    singles_first: true,
                    ..OrderFlags::default()
                },
                killers: true,
                history: true,
                ..SearchSettings::default()
            },
        ));
        out.push((
            "everything exact, staged with PVS",
            SearchSettings {
                order: OrderFlags {
                    captures: true,
                    singles_first: true,
                    ..OrderFlags::default()
                },
                killers: true,
                history: true,
                pvs: true,
                staged: true,
                mate_distance: true,
                aspiration: 50,
                ..SearchSettings::default()
            },
        ));
    }
    out
}

fn random_position<G: Game>(mut pos: G, choices: &[usize]) -> G {
    let mut moves = Vec::new();
    for &c in choices {
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        let mv = moves[c % moves.len()];
        let undo = pos.play(mv);
        if pos.outcome().is_some() {
            // Keep positions where the game goes on.
            pos.undo(mv, undo);
            break;
        }
    }
    pos
}

fn check_all_orderings<G: Game, E: Evaluator<G> + Clone>(
    pos: &G,
    eval: &E,
    depth: u32,
    mnk: bool,
) -> Result<(), TestCaseError> {
    let mut reference = eval.clone();
    reference.reset(pos);
    let expected = minimax(&mut pos.clone(), &mut reference, depth, 0);
    for (name, s) in settings(mnk) {
        for tt_mb in [0, 1] {
            let mut searcher = Searcher::new(eval.clone(), s, tt_mb);
            searcher.new_game(1);
            // Iterative deepening to `depth` (the TT carries entries between iterations).
            let result = searcher.search(
                pos,
                Limits {
                    depth: Some(depth),
                    ..Limits::default()
                },
                |_| {},
            );
            prop_assert_eq!(
                result.score,
                expected,
                "{} tt {} MB at depth {} on {}",
                name,
                tt_mb,
                depth,
                pos.to_text()
            );
            prop_assert!(result.best.is_some());
            // The PV's first move is the move played, and it is legal.
            prop_assert!(pos.is_legal(result.best.unwrap()));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn tictactoe_every_ordering_equals_minimax(choices in prop::collection::vec(any::<usize>(), 0..5)) {
        let pos = random_position(Mnk::new(&MnkConfig::tictactoe()), &choices);
        let eval = MnkEval::new(&MnkConfig::tictactoe(), &MnkTable::zero(), 0);
        let left = 9 - pos.stones() as u32;
        check_all_orderings(&pos, &eval, left, true)?;
    }

    #[test]
    fn mnk_443_every_ordering_equals_minimax(choices in prop::collection::vec(any::<usize>(), 2..8)) {
        let c = MnkConfig::new(4, 4, 3, MnkRule::Freestyle).unwrap();
        let pos = random_position(Mnk::new(&c), &choices);
        let eval = MnkEval::new(&c, &gomoku_table(), 0);
        check_all_orderings(&pos, &eval, 4, true)?;
    }

    #[test]
    fn mnk_554_every_ordering_equals_minimax(choices in prop::collection::vec(any::<usize>(), 2..10)) {
        let c = MnkConfig::new(5, 5, 4, MnkRule::Exact).unwrap();
        let pos = random_position(Mnk::new(&c), &choices);
        let eval = MnkEval::new(&c, &gomoku_table(), 1);
        check_all_orderings(&pos, &eval, 3, true)?;
    }

    #[test]
    fn ataxx_every_ordering_equals_minimax(choices in prop::collection::vec(any::<usize>(), 2..16)) {
        let pos = random_position(Ataxx::default(), &choices);
        let eval = AtaxxEval::new(&ataxx_table());
        check_all_orderings(&pos, &eval, 3, false)?;
    }
}
