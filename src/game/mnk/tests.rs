//! Tests of the m,n,k rules: wins in every direction, overlines under each rule, the
//! full board, move text and move lists.

use super::*;

/// Plays `x` and `o` stones alternately (x first) from (x, y) pairs.
fn play(config: MnkConfig, x: &[(i32, i32)], o: &[(i32, i32)]) -> Mnk {
    let mut pos = Mnk::new(&config);
    for i in 0..x.len().max(o.len()) {
        for stones in [x, o] {
            if let Some(&(cx, cy)) = stones.get(i) {
                let mv = config.at(cx, cy).expect("test cells are on the board");
                assert!(pos.is_legal(mv), "{} at {i}", pos.format_move(mv));
                pos.play(mv);
            }
        }
    }
    pos
}

fn line(from: (i32, i32), step: (i32, i32), n: i32) -> Vec<(i32, i32)> {
    (0..n)
        .map(|i| (from.0 + i * step.0, from.1 + i * step.1))
        .collect()
}

#[test]
fn five_in_every_direction_and_at_the_edges() {
    let g = MnkConfig::gomoku();
    let cases = [
        ((0, 0), (1, 0)),   // top edge, horizontal
        ((10, 14), (1, 0)), // bottom-right corner, horizontal
        ((14, 3), (0, 1)),  // right edge, vertical
        ((0, 10), (0, 1)),  // left edge down to the corner
        ((0, 0), (1, 1)),   // main diagonal from a corner
        ((10, 10), (1, 1)), // diagonal into the far corner
        ((0, 14), (1, -1)), // anti-diagonal from the lower-left corner
        ((10, 4), (1, -1)), // anti-diagonal into the upper-right corner
    ];
    for (from, step) in cases {
        let x = line(from, step, 5);
        // O plays far away, on cells X never uses.
        let o: Vec<(i32, i32)> = (0..4).map(|i| (5 + i, 7)).collect();
        let x_before: Vec<_> = x[..4].to_vec();
        let almost = play(g, &x_before, &o);
        assert_eq!(almost.outcome(), None, "{from:?} {step:?} four is not five");
        let pos = play(g, &x, &o);
        assert_eq!(
            pos.outcome(),
            Some(Outcome::Win {
                side: Side::First,
                reason: EndReason::KInARow
            }),
            "{from:?} {step:?}\n{}",
            pos.diagram()
        );
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        assert!(moves.is_empty(), "no moves after a win");
    }
}

#[test]
fn the_middle_stone_can_complete_the_line() {
    // X: a1 b1 d1 e1 then c1 fills the gap.
    let g = MnkConfig::gomoku();
    let pos = play(
        g,
        &[(0, 0), (1, 0), (3, 0), (4, 0), (2, 0)],
        &line((0, 5), (1, 0), 4),
    );
    assert_eq!(pos.outcome().and_then(Outcome::winner), Some(Side::First));
}

#[test]
fn overline_wins_under_freestyle_not_under_exact() {
    // X: a1 b1 c1 e1 f1, then d1 makes six.
    let x = [(0, 0), (1, 0), (2, 0), (4, 0), (5, 0), (3, 0)];
    let o = line((0, 5), (2, 0), 5);
    let free = play(MnkConfig::gomoku(), &x, &o);
    assert_eq!(free.outcome().and_then(Outcome::winner), Some(Side::First));
    let exact = play(MnkConfig::gomoku_exact(), &x, &o);
    assert_eq!(exact.outcome(), None, "{}", exact.diagram());
    // Under exact, a clean five still wins (O's row: five on row 6).
    let o_five = line((0, 5), (1, 0), 5);
    let x_scattered = [(0, 0), (2, 0), (4, 0), (6, 0), (8, 0)];
    let pos = play(MnkConfig::gomoku_exact(), &x_scattered, &o_five);
    assert_eq!(pos.outcome().and_then(Outcome::winner), Some(Side::Second));
    // And a six of O under exact does not.
    let o_six = [(0, 5), (1, 5), (2, 5), (4, 5), (5, 5), (3, 5)];
    let x_far = [(0, 9), (2, 9), (4, 9), (6, 9), (8, 9), (10, 9), (12, 9)];
    let pos = play(MnkConfig::gomoku_exact(), &x_far, &o_six);
    assert_eq!(pos.outcome(), None);
}

#[test]
fn full_board_is_a_draw() {
    // X b2 c1 a2 b3 c3, O a1 a3 c2 b1: nobody has three in a row.
    let pos = Mnk::from_text(&MnkConfig::tictactoe(), "b2a1c1a3a2c2b3b1c3").unwrap();
    assert_eq!(
        pos.outcome(),
        Some(Outcome::Draw {
            reason: EndReason::BoardFull
        }),
        "{}",
        pos.diagram()
    );
    // 4x4 with k = 4 filled without a line.
    let c = MnkConfig::new(4, 4, 4, MnkRule::Freestyle).unwrap();
    let pos = Mnk::from_board(&c, "xxoo/ooxx/xxoo/ooxx").unwrap();
    assert_eq!(
        pos.outcome().map(Outcome::reason),
        Some(EndReason::BoardFull)
    );
}

#[test]
fn move_text_in_both_notations() {
    let pos = Mnk::new(&MnkConfig::gomoku());
    let h8 = pos.parse_move("h8").unwrap();
    assert_eq!(pos.parse_move("7,7").unwrap(), h8);
    assert_eq!(pos.format_move(h8), "h8");
    assert_eq!(pos.format_xy(h8), "7,7");
    assert_eq!(pos.format_move(pos.parse_move("a15").unwrap()), "a15");
    assert!(pos.parse_move("p1").is_err());
    assert!(pos.parse_move("a16").is_err());
    assert!(pos.parse_move("a0").is_err());
    assert!(pos.parse_move("15,0").is_err());
    assert!(pos.parse_move("-1,3").is_err());
    assert!(pos.parse_move("h").is_err());
    assert!(pos.parse_move("8h").is_err());
    let big = Mnk::new(&MnkConfig::new(20, 20, 5, MnkRule::Freestyle).unwrap());
    assert_eq!(big.format_move(big.parse_move("t20").unwrap()), "t20");
    assert_eq!(big.format_xy(big.parse_move("t20").unwrap()), "19,19");
}

#[test]
fn move_lists_and_boards() {
    let g = MnkConfig::gomoku();
    let a = Mnk::from_text(&g, "h8g7f6").unwrap();
    let b = Mnk::from_text(&g, "7,7 6,6 5,5").unwrap();
    let c = Mnk::from_text(&g, "h8 g7\tf6").unwrap();
    assert_eq!(a.to_text(), "h8g7f6");
    assert_eq!(a.hash(), b.hash());
    assert_eq!(a.hash(), c.hash());
    let board = "15/15/15/15/15/5x9/6o8/7x7/15/15/15/15/15/15/15";
    let d = Mnk::from_text(&g, board).unwrap();
    assert_eq!(
        d.hash(),
        Mnk::from_text(&g, "h8g7")
            .map(|mut p| {
                p.play(p.parse_move("f6").unwrap());
                p.hash()
            })
            .unwrap()
    );
    assert_eq!(d.side_to_move(), Side::Second);
    let e = Mnk::from_board(&g, "15/15/15/15/15/15/15/15/15/15/15/15/15/15/xx13").unwrap_err();
    assert!(
        e.to_string().contains("2 first-player and 0 second-player"),
        "{e}"
    );
    let e = Mnk::from_board(&g, "15/15").unwrap_err();
    assert!(e.to_string().contains("2 rows"), "{e}");
}
