//! The built-in engines on known positions: perfect tic-tac-toe, gomoku tactics, what
//! ordering buys in nodes, Ataxx's greedy capture, and pruning that never misses a win in
//! one or a forced block.

use std::collections::HashMap;

use arena::{
    engine::{Engine, EngineConfig, builtin},
    eval::{Evaluator, mnk::MnkEval},
    game::{Ataxx, Game, Mnk, MnkConfig, MnkMove, Outcome},
    search::{
        Limits,
        score::{is_decisive, plies_to_end},
    },
};

fn engine(name: &str, set: &[(&str, i64)]) -> EngineConfig {
    let mut e = builtin::engine(name).unwrap();
    for &(k, v) in set {
        e.set(k, toml::Value::Integer(v)).unwrap();
    }
    e
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

fn gomoku(moves: &str) -> Mnk {
    Mnk::from_text(&MnkConfig::gomoku(), moves).unwrap()
}

/// Exact value of a tic-tac-toe position for the side to move (+1 win, 0 draw, -1 loss).
fn value(pos: &mut Mnk, memo: &mut HashMap<u64, i32>) -> i32 {
    if let Some(o) = pos.outcome() {
        return match o.winner() {
            None => 0,
            Some(s) if s == pos.side_to_move() => 1,
            Some(_) => -1,
        };
    }
    if let Some(&v) = memo.get(&pos.hash()) {
        return v;
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let mut best = -1;
    for mv in moves {
        pos.play(mv);
        best = best.max(-value(pos, memo));
        pos.undo(mv, ());
    }
    memo.insert(pos.hash(), best);
    best
}

#[test]
fn tictactoe_engine_plays_perfectly_from_every_reachable_position() {
    perfect_from_every_position(engine("tictactoe-perfect", &[]));
}

/// The sound parts of the modern search (forced-move knowledge, VCF, PVS, staged
/// picking, mate-distance pruning; nothing that prunes by a margin) keep tic-tac-toe
/// perfect: its threats are the smallest case of gomoku's.
#[test]
fn tictactoe_with_forced_moves_and_vcf_plays_perfectly_too() {
    let mut config = engine("tictactoe-perfect", &[]);
    for key in [
        "forced",
        "extensions",
        "vcf",
        "vct",
        "pvs",
        "staged",
        "mate_distance",
    ] {
        config
            .set(&format!("search.{key}"), toml::Value::Boolean(true))
            .unwrap();
    }
    perfect_from_every_position(config);
}

fn perfect_from_every_position(config: EngineConfig) {
    let mut e = Engine::<Mnk>::new(&config, &MnkConfig::tictactoe()).unwrap();
    let mut memo = HashMap::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![Mnk::new(&MnkConfig::tictactoe())];
    let mut checked = 0;
    while let Some(pos) = stack.pop() {
        if !seen.insert(pos.hash()) || pos.outcome().is_some() {
            continue;
        }
        let v = value(&mut pos.clone(), &mut memo);
        e.searcher().new_game(0);
        let result = e.search(&pos, depth(9), |_| {});
        let mut after = pos.clone();
        after.play(result.best.unwrap());
        // The move keeps the position's value: it never loses a drawn or won game, and
        // it wins a won one (the score says how).
        assert_eq!(-value(&mut after, &mut memo), v, "{}", pos.to_text());
        assert_eq!(result.score.signum(), v, "{}", pos.to_text());
        checked += 1;
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        for mv in moves {
            let mut next = pos.clone();
            next.play(mv);
            stack.push(next);
        }
    }
    assert_eq!(checked, 4520, "every unfinished reachable position");
}

#[test]
fn tictactoe_engine_draws_against_itself() {
    let config = engine("tictactoe-perfect", &[]);
    let mut e = Engine::<Mnk>::new(&config, &MnkConfig::tictactoe()).unwrap();
    let mut pos = Mnk::new(&MnkConfig::tictactoe());
    while pos.outcome().is_none() {
        let r = e.search(&pos, depth(9), |_| {});
        pos.play(r.best.unwrap());
    }
    assert!(
        matches!(pos.outcome(), Some(Outcome::Draw { .. })),
        "{}",
        pos.diagram()
    );
}

fn best(config: &EngineConfig, pos: &Mnk, d: u32) -> (String, i32, u64) {
    let mut e = Engine::<Mnk>::new(config, &MnkConfig::gomoku()).unwrap();
    e.searcher().new_game(0);
    let r = e.search(pos, depth(d), |_| {});
    (pos.format_move(r.best.unwrap()), r.score, r.nodes)
}

#[test]
fn gomoku_finds_a_win_in_one() {
    // Black has an open four h8..k8.
    let pos = gomoku("h8a1i8a3j8a5k8a7");
    for name in [
        "gomoku-seed003-threat",
        "gomoku-seed003-none",
        "gomoku-seed000-threat",
        "gomoku-modern",
    ] {
        let (mv, score, _) = best(&engine(name, &[]), &pos, 4);
        assert!(mv == "g8" || mv == "l8", "{name} played {mv}");
        assert_eq!(plies_to_end(score), Some(1), "{name}");
    }
}

#[test]
fn gomoku_blocks_a_four() {
    // White's h7..k7 is blocked at g7 by black: black must take l7.
    let pos = gomoku("g7h7a1i7a3j7a15k7");
    for name in [
        "gomoku-seed003-threat",
        "gomoku-seed001-topk",
        "gomoku-seed000-threat",
        "gomoku-modern",
    ] {
        let (mv, _, _) = best(&engine(name, &[]), &pos, 4);
        assert_eq!(mv, "l7", "{name}");
    }
}

#[test]
fn gomoku_blocks_an_open_three_when_it_has_nothing_better() {
    // White's open three h7 i7 j7; black's stones are scattered on the edge.
    let pos = gomoku("a1h7a3i7a15j7c15o15");
    for name in [
        "gomoku-seed003-threat",
        "gomoku-seed000-threat",
        "gomoku-modern",
    ] {
        let (mv, _, _) = best(&engine(name, &[]), &pos, 4);
        assert!(
            ["g7", "k7", "f7", "l7"].contains(&mv.as_str()),
            "{name} played {mv}"
        );
    }
}

#[test]
fn gomoku_finds_a_four_three() {
    // Black: h8 i8 j8 (g8 blocked by white) and k9 k10: k8 makes a four and an open three.
    let pos = gomoku("h8g8i8a1j8a3k9a5k10a7");
    let (mv, score, _) = best(&engine("gomoku-seed003-threat", &[]), &pos, 5);
    assert_eq!(mv, "k8");
    assert_eq!(
        plies_to_end(score),
        Some(5),
        "four-three, block, open four, block, five"
    );
    // At depth 3 the four-three is already the choice.
    let (mv, _, _) = best(&engine("gomoku-seed003-threat", &[]), &pos, 3);
    assert_eq!(mv, "k8");
    // The modern engine proves it before searching (a VCF: four-three, block, four,
    // block, five), at any depth, and says so in a single iteration.
    for d in [1, 3, 5] {
        let (mv, score, _) = best(&engine("gomoku-modern", &[]), &pos, d);
        assert_eq!(mv, "k8", "depth {d}");
        assert_eq!(plies_to_end(score), Some(5), "depth {d}");
    }
}

#[test]
fn threat_ordering_searches_far_fewer_nodes_for_the_same_score() {
    let pos = gomoku("h8i9h9h10g8i8i7g9j9j10");
    let none = engine("gomoku-seed003-none", &[]);
    // Threat ordering without its pruning: the same tree, searched in a better order.
    let threat = engine("gomoku-seed003-threat", &[("search.threat_prune", 0)]);
    let (_, none_score, none_nodes) = best(&none, &pos, 4);
    let (_, threat_score, threat_nodes) = best(&threat, &pos, 4);
    assert_eq!(threat_score, none_score);
    assert!(
        threat_nodes * 20 < none_nodes,
        "threat {threat_nodes} nodes, none {none_nodes}"
    );
    let static_only = engine("gomoku-seed003-static", &[]);
    let (_, static_score, static_nodes) = best(&static_only, &pos, 4);
    assert_eq!(static_score, none_score);
    assert!(
        static_nodes * 10 < none_nodes,
        "static {static_nodes}, none {none_nodes}"
    );
}

#[test]
fn ataxx_depth_one_takes_the_biggest_capture() {
    let config = engine("ataxx-seed004", &[]);
    let pos = Ataxx::from_fen("7/7/7/2ooo2/2o1o2/2ooo2/1x5 x 0 1").unwrap();
    let mut e = Engine::<Ataxx>::new(&config, &()).unwrap();
    let r = e.search(&pos, depth(1), |_| {});
    assert_eq!(pos.format_move(r.best.unwrap()), "b1d3");
}

/// A random gomoku position where the game goes on, plus a cell that completes five for
/// the given side (found by playing it out), if any.
fn five_point(pos: &Mnk, eval: &MnkEval, side: usize) -> Vec<MnkMove> {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves
        .into_iter()
        .filter(|m| eval.point(m.cell(), side).is_win())
        .collect()
}

/// top_k and threat pruning (at its most aggressive) never miss a win in one, and never
/// fail to block the opponent's five when they cannot win at once: 300 seeded random
/// positions on 9x9, of which enough have a win or a forced block to mean something.
#[test]
fn pruning_never_misses_a_win_or_a_forced_block() {
    use rand::{RngExt, SeedableRng};
    let config = MnkConfig::new(9, 9, 5, arena::game::MnkRule::Freestyle).unwrap();
    let engines: Vec<(&str, Engine<Mnk>)> = [
        (
            "top_k 2",
            vec![("search.top_k", 2), ("search.threat_prune", 0)],
        ),
        (
            "top_k 1 + threat 4",
            vec![("search.top_k", 1), ("search.threat_prune", 4)],
        ),
        ("threat 4", vec![("search.threat_prune", 4)]),
    ]
    .into_iter()
    .map(|(name, set)| {
        let mut cfg = engine("gomoku-seed000-threat", &set);
        cfg.game = arena::game::GameSpec::Mnk(config);
        (name, Engine::<Mnk>::new(&cfg, &config).unwrap())
    })
    .collect();
    let mut engines = engines;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let (mut with_win, mut with_block) = (0, 0);
    let mut moves = Vec::new();
    for _ in 0..300 {
        let mut pos = Mnk::new(&config);
        let mut eval = MnkEval::new(&config, &arena::eval::MnkTable::zero(), 1);
        eval.reset(&pos);
        for _ in 0..rng.random_range(8..36) {
            eval.candidates(&pos, &mut moves);
            let mv = moves[rng.random_range(0..moves.len())];
            pos.play(mv);
            if pos.outcome().is_some() {
                pos.undo(mv, ());
                break;
            }
            eval.played(&pos, mv);
        }
        let me = pos.side_to_move().index();
        let wins = five_point(&pos, &eval, me);
        let blocks = five_point(&pos, &eval, 1 - me);
        with_win += usize::from(!wins.is_empty());
        with_block += usize::from(wins.is_empty() && !blocks.is_empty());
        for (name, e) in &mut engines {
            e.searcher().new_game(0);
            let r = e.search(&pos, depth(2), |_| {});
            let mv = r.best.unwrap();
            if !wins.is_empty() {
                assert!(
                    wins.contains(&mv),
                    "{name}: missed a win in one in {}",
                    pos.to_text()
                );
                assert!(is_decisive(r.score) && r.score > 0, "{name}");
            } else if !blocks.is_empty() {
                assert!(
                    blocks.contains(&mv),
                    "{name}: did not block in {}",
                    pos.to_text()
                );
            }
        }
    }
    assert!(
        with_win >= 20 && with_block >= 20,
        "wins {with_win}, blocks {with_block}"
    );
}

/// Regression: with a node limit, the root's threat search once spent every node, the
/// first iteration stopped before the root was searched, and the engine played the
/// first move of an earlier search's principal variation, already on the board
/// (`illegal-move` in a gauntlet). Every move asked for along that game is legal now.
#[test]
fn a_node_limited_modern_engine_never_plays_a_stale_move() {
    let mut config = engine("gomoku-modern", &[]);
    config
        .set_all([
            ("search.depth", toml::Value::Integer(0)),
            ("search.nodes", toml::Value::Integer(20_000)),
            ("search.null_move", toml::Value::Boolean(false)),
        ])
        .unwrap();
    let mut e = Engine::<Mnk>::new(&config, &MnkConfig::gomoku()).unwrap();
    e.searcher().new_game(1);
    let mut pos = gomoku("k7g11k6j5");
    // The game as it was played; the engine had black (the even plies).
    let moves: Vec<&str> = "j7 k5 l5 i8 l6 l7 j6 m6 j8 i9 i7 h6 k8 h7 l8 m9 i6 l9"
        .split(' ')
        .collect();
    for (i, mv) in moves.iter().enumerate() {
        if i % 2 == 0 {
            let limits = e.limits();
            let r = e.search(&pos, limits, |_| {});
            let best = r.best.unwrap();
            assert!(
                pos.is_legal(best),
                "{} after {}",
                pos.format_move(best),
                pos.to_text()
            );
        }
        pos.try_play(mv).unwrap();
    }
    let limits = e.limits();
    let r = e.search(&pos, limits, |_| {});
    let best = r.best.unwrap();
    assert!(
        pos.is_legal(best),
        "{} after {}",
        pos.format_move(best),
        pos.to_text()
    );
}

#[test]
fn partial_iterations_keep_only_a_move_the_stopped_iteration_proved_better() {
    let moves: Vec<&str> = "j7 k5 l5 i8 l6 l7 j6 m6 j8 i9 i7 h6 k8 h7 l8 m9 i6 l9"
        .split(' ')
        .collect();
    let mut changed = 0;
    let mut searched = 0;
    for nodes in [3_000, 7_000, 20_000] {
        let mut engines = [false, true].map(|partial| {
            let mut config = engine("gomoku-modern", &[]);
            config
                .set_all([
                    ("search.depth", toml::Value::Integer(0)),
                    ("search.nodes", toml::Value::Integer(nodes)),
                    ("search.partial_iterations", toml::Value::Boolean(partial)),
                ])
                .unwrap();
            let mut e = Engine::<Mnk>::new(&config, &MnkConfig::gomoku()).unwrap();
            e.searcher().new_game(1);
            e
        });
        let mut pos = gomoku("k7g11k6j5");
        for mv in &moves {
            let mut results = Vec::new();
            for e in &mut engines {
                let mut last = None;
                let limits = e.limits();
                let r = e.search(&pos, limits, |it| last = it.pv.first().copied());
                results.push((r.best.unwrap(), last, r.depth));
            }
            let [
                (plain, plain_last, plain_depth),
                (partial, partial_last, partial_depth),
            ] = results[..]
            else {
                unreachable!()
            };
            // Without the switch the move is the last completed iteration's; with it the
            // same iterations complete, and the move differs only by the stopped one.
            assert_eq!(Some(plain), plain_last.or(Some(plain)), "{}", pos.to_text());
            assert_eq!(
                (plain_last, plain_depth),
                (partial_last, partial_depth),
                "{}",
                pos.to_text()
            );
            assert!(pos.is_legal(partial), "{}", pos.to_text());
            if partial != plain {
                changed += 1;
            }
            searched += 1;
            pos.try_play(mv).unwrap();
        }
    }
    // The switch does something: some stopped iterations found a better move.
    assert!(changed > 0, "no move changed in {searched} searches");
    assert!(
        changed < searched,
        "every move changed in {searched} searches"
    );
}

/// The modern Ataxx engine prunes, reduces and razors, but a move that takes the
/// opponent's last stones is never pruned away: on random positions where the side to
/// move can win at once, ataxx-modern plays such a move with a winning score at every
/// depth from 1 to 5 (and ataxx-seed004, without selectivity, agrees).
#[test]
fn ataxx_modern_never_prunes_away_a_win_in_one() {
    use rand::{RngExt, SeedableRng};
    let mut modern = Engine::<Ataxx>::new(&builtin::engine("ataxx-modern").unwrap(), &()).unwrap();
    let mut plain = Engine::<Ataxx>::new(&engine("ataxx-seed004", &[]), &()).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut moves = Vec::new();
    let mut checked = 0;
    for _ in 0..400 {
        // Own stones scattered, the opponent's few and together, empty elsewhere.
        let mut cells = [b'-'; 49];
        for c in cells.iter_mut() {
            *c = if rng.random_range(0..100) < 30 {
                b'x'
            } else {
                b'.'
            };
        }
        let at = rng.random_range(0..49);
        for k in 0..rng.random_range(1..4) {
            let sq = (at + k) % 49;
            cells[sq] = b'o';
        }
        let rows: Vec<String> = (0..7)
            .rev()
            .map(|rank| {
                let mut row = String::new();
                let mut empty = 0;
                for file in 0..7 {
                    match cells[rank * 7 + file] {
                        b'.' => empty += 1,
                        c => {
                            if empty > 0 {
                                row.push_str(&empty.to_string());
                                empty = 0;
                            }
                            row.push(c as char);
                        }
                    }
                }
                if empty > 0 {
                    row.push_str(&empty.to_string());
                }
                row
            })
            .collect();
        let fen = format!("{} x 0 1", rows.join("/"));
        let pos = Ataxx::from_fen(&fen).unwrap();
        if pos.outcome().is_some() {
            continue;
        }
        pos.legal_moves(&mut moves);
        let wins: Vec<_> = moves
            .iter()
            .copied()
            .filter(|&mv| {
                let mut next = pos;
                next.play(mv);
                next.outcome()
                    .is_some_and(|o| o.winner() == Some(pos.side_to_move()))
            })
            .collect();
        if wins.is_empty() {
            continue;
        }
        checked += 1;
        for d in 1..=5 {
            for (name, e) in [("ataxx-modern", &mut modern), ("ataxx-seed004", &mut plain)] {
                e.searcher().new_game(0);
                let r = e.search(&pos, depth(d), |_| {});
                let mv = r.best.unwrap();
                assert!(
                    wins.contains(&mv),
                    "{name} at depth {d} played {} in {fen}, missing a win in one",
                    pos.format_move(mv)
                );
                assert!(is_decisive(r.score) && r.score > 0, "{name} {fen}");
            }
        }
    }
    assert!(checked >= 30, "only {checked} positions with a win in one");
}
