//! `arena perft` and `arena show` through the real binary: results and bad input.

use crate::common::{run_bad_input, run_ok};

#[test]
fn perft_ataxx_6_prints_the_known_count() {
    let out = run_ok(&["perft", "ataxx", "6"]);
    assert_eq!(out.lines().next(), Some("141865520"), "{out}");
    assert!(out.contains("leaves/s"), "{out}");
}

#[test]
fn perft_accepts_every_game_name() {
    assert_eq!(
        run_ok(&["perft", "tictactoe", "9"]).lines().next(),
        Some("127872")
    );
    assert_eq!(
        run_ok(&["perft", "gomoku", "2"]).lines().next(),
        Some("50400")
    );
    assert_eq!(
        run_ok(&["perft", "gomoku-exact", "1"]).lines().next(),
        Some("225")
    );
    assert_eq!(
        run_ok(&["perft", "mnk:4,4,3", "2"]).lines().next(),
        Some("240")
    );
    assert_eq!(
        run_ok(&["perft", "mnk:20,20,5,exact", "1"]).lines().next(),
        Some("400")
    );
}

#[test]
fn perft_from_a_position_and_divided() {
    let out = run_ok(&["perft", "gomoku", "1", "--moves", "h8 i9 h9"]);
    assert_eq!(out.lines().next(), Some("222"));
    let out = run_ok(&["perft", "ataxx", "2", "--divide"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 16 + 1 + 2, "{out}");
    assert!(
        lines
            .iter()
            .all(|l| l.is_empty() || !l.starts_with("error"))
    );
    assert!(lines.contains(&"a7a5 16"), "{out}");
    assert!(lines.contains(&"256"), "{out}");
    let fen = "-------/-x---o-/-------/7/-------/-o---x-/------- x 0 1";
    assert_eq!(
        run_ok(&["perft", "ataxx", "1", "--fen", fen])
            .lines()
            .next(),
        Some("8")
    );
}

#[test]
fn show_prints_a_board() {
    let out = run_ok(&["show", "tictactoe", "--moves", "b2a1c3"]);
    assert!(out.contains("    a b c\n"), "{out}");
    assert!(out.contains("  1 O . .\n"), "{out}");
    assert!(out.contains("  2 . X .\n"), "{out}");
    assert!(out.contains("  3 . .(X)\n"), "{out}");
    assert!(out.contains("white to move"), "{out}");
    let out = run_ok(&["show", "ataxx", "--moves", "g2 a1b3"]);
    assert!(out.contains("fen: x5o/7/7/7/1o5/6x/6x x 1 2"), "{out}");
}

#[test]
fn bad_input_exits_2_with_a_message_naming_the_bad_part() {
    let e = run_bad_input(&["perft", "chess", "3"]);
    assert!(e.contains("unknown game 'chess'"), "{e}");
    let e = run_bad_input(&["perft", "mnk:25,25,5", "1"]);
    assert!(e.contains("25x25"), "{e}");
    let e = run_bad_input(&["perft", "ataxx", "2", "--fen", "x5o/7/7/7/7/o5x x 0 1"]);
    assert!(e.contains("--fen") && e.contains("6 ranks"), "{e}");
    let e = run_bad_input(&["perft", "ataxx", "2", "--fen", "x5o/7/7/7/7/7/o5z x 0 1"]);
    assert!(e.contains("unexpected character 'z' in rank 1"), "{e}");
    let e = run_bad_input(&["perft", "ataxx", "2", "--moves", "g2 a1a2"]);
    assert!(e.contains("move 2") && e.contains("a1a2"), "{e}");
    let e = run_bad_input(&["perft", "ataxx", "2", "--moves", "b2"]);
    assert!(e.contains("black has no stone next to b2"), "{e}");
    let e = run_bad_input(&["perft", "tictactoe", "2", "--moves", "a1 a1"]);
    assert!(e.contains("move 2") && e.contains("already taken"), "{e}");
    let e = run_bad_input(&["perft", "tictactoe", "1", "--moves", "a1b1a2b2a3b3"]);
    assert!(
        e.contains("move 6") && e.contains("game is already over"),
        "{e}"
    );
    let e = run_bad_input(&["perft", "tictactoe", "10"]);
    assert!(
        e.contains("depth 10 is too large") && e.contains("9 empty cells"),
        "{e}"
    );
    let e = run_bad_input(&["perft", "gomoku", "2", "--moves", "h8 z99"]);
    assert!(
        e.contains("z99") && e.contains("outside the 15x15 board"),
        "{e}"
    );
    let e = run_bad_input(&["show", "ataxx", "--moves", "0000"]);
    assert!(e.contains("cannot pass"), "{e}");
}
