//! Tests of the renju rule: forbidden moves lose, with their reason.

use super::*;
use crate::game::perft;

/// Black f3 f4 d5 e5, white far away on row 15: f5 makes two threes.
const DOUBLE_THREE_SETUP: &str = "f3a15f4c15d5e15e5g15";

#[test]
fn a_forbidden_move_is_legal_and_loses_with_its_reason() {
    let mut pos = Mnk::from_text(&MnkConfig::renju(), DOUBLE_THREE_SETUP).unwrap();
    let f5 = pos.parse_move("f5").unwrap();
    assert_eq!(pos.forbidden(f5), Some(Forbidden::DoubleThree));
    assert!(pos.is_legal(f5));
    pos.play(f5);
    assert_eq!(
        pos.outcome(),
        Some(Outcome::Win {
            side: Side::Second,
            reason: EndReason::Forbidden(Forbidden::DoubleThree)
        })
    );
    assert_eq!(
        pos.outcome().map(|o| o.reason().as_str()),
        Some("forbidden: double-three")
    );
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert!(
        pos.diagram()
            .contains("white wins (black's forbidden double-three)")
    );
    pos.undo(f5, ());
    assert_eq!(pos.outcome(), None);
    assert_eq!(pos.hash(), pos.hash_from_scratch());
    // The same point is free for black under freestyle, and for white under renju.
    let free = Mnk::from_text(&MnkConfig::gomoku(), DOUBLE_THREE_SETUP).unwrap();
    assert_eq!(free.forbidden(f5), None);
    let mut white = Mnk::from_text(&MnkConfig::renju(), DOUBLE_THREE_SETUP).unwrap();
    white.play(white.parse_move("o1").unwrap());
    assert_eq!(white.forbidden(f5), None);
}

#[test]
fn overline_loses_for_black_and_wins_for_white() {
    // Black a1 b1 c1 e1 f1 then d1: six in a row.
    let o_far = ["a15", "c15", "e15", "g15", "i15"];
    let x = ["a1", "b1", "c1", "e1", "f1"];
    let mut text = String::new();
    for (a, b) in x.iter().zip(o_far) {
        text.push_str(a);
        text.push_str(b);
    }
    let mut pos = Mnk::from_text(&MnkConfig::renju(), &text).unwrap();
    pos.try_play("d1").unwrap();
    assert_eq!(
        pos.outcome(),
        Some(Outcome::Win {
            side: Side::Second,
            reason: EndReason::Forbidden(Forbidden::Overline)
        })
    );
    // White's six wins.
    let x_far = ["a8", "c8", "e8", "g8", "i8", "k8"];
    let o = ["a1", "b1", "c1", "e1", "f1", "d1"];
    let mut pos = Mnk::new(&MnkConfig::renju());
    for (a, b) in x_far.iter().zip(o) {
        pos.try_play(a).unwrap();
        pos.try_play(b).unwrap();
    }
    assert_eq!(
        pos.outcome(),
        Some(Outcome::Win {
            side: Side::Second,
            reason: EndReason::KInARow
        })
    );
}

#[test]
fn five_wins_for_black_even_with_a_forbidden_shape() {
    // Black's d1 makes a1-e1 (five) and a double four beside it (d1-d4 down, d1 c2
    // b3 a4 on the anti-diagonal): the five wins.
    let x = ["a1", "b1", "c1", "e1", "d2", "d3", "d4", "c2", "b3", "a4"];
    let o = [
        "a15", "c15", "e15", "g15", "i15", "k15", "m15", "o15", "o13", "o11",
    ];
    let mut pos = Mnk::new(&MnkConfig::renju());
    for (a, b) in x.iter().zip(o) {
        pos.try_play(a).unwrap();
        pos.try_play(b).unwrap();
    }
    let d1 = pos.parse_move("d1").unwrap();
    assert_eq!(pos.forbidden(d1), None);
    pos.play(d1);
    assert_eq!(
        pos.outcome(),
        Some(Outcome::Win {
            side: Side::First,
            reason: EndReason::KInARow
        })
    );
}

#[test]
fn boards_with_a_forbidden_stone_are_refused() {
    // Black f3 f4 d5 e5 f5 (f5 forbidden) with white's five stones far off.
    let mut rows = vec!["15".to_string(); 15];
    rows[2] = "5x9".into();
    rows[3] = "5x9".into();
    rows[4] = "3xxx9".into();
    rows[14] = "o.o.o.o.o6".into();
    let e = Mnk::from_board(&MnkConfig::renju(), &rows.join("/")).unwrap_err();
    assert!(e.to_string().contains("forbidden double-three"), "{e}");
}

#[test]
fn boards_read_whatever_order_black_played_its_stones_in() {
    // A position of a real game (arena datagen, renju-strong): read row by row, black's
    // i10 would come before white's blockers and be a double three; played after them
    // it is not.
    let board = "15/15/15/15/15/15/4x10/5oo1x6/5ooox6/5xxox6/6oxo6/9x5/15/15/15";
    let pos = Mnk::from_board(&MnkConfig::renju(), board).unwrap();
    assert_eq!(pos.outcome(), None);
    assert_eq!(crate::datagen::sample::mnk_board_text(&pos), board);
}

#[test]
fn perft_counts_forbidden_moves_as_game_ends() {
    // From the empty board nothing can be forbidden in the first plies.
    let mut pos = Mnk::new(&MnkConfig::renju());
    assert_eq!(perft(&mut pos, 1), 225);
    assert_eq!(perft(&mut pos, 2), 225 * 224);
    assert_eq!(perft(&mut pos, 3), 225 * 224 * 223);
    // With black to move after DOUBLE_THREE_SETUP: 217 empty cells, each a legal
    // move; only f5 is forbidden (every other point makes at most one three), and it
    // ends the game: 216 moves leave white 216 replies. Freestyle: 217 * 216.
    let mut pos = Mnk::from_text(&MnkConfig::renju(), DOUBLE_THREE_SETUP).unwrap();
    assert_eq!(perft(&mut pos, 1), 217);
    assert_eq!(perft(&mut pos, 2), 216 * 216);
    let mut free = Mnk::from_text(&MnkConfig::gomoku(), DOUBLE_THREE_SETUP).unwrap();
    assert_eq!(perft(&mut free, 2), 217 * 216);
}
