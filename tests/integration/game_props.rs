//! Properties of the rules layer on random games: play then undo (and a null move then
//! its undo) restores the position and its hash, the incremental hash equals the hash
//! from scratch, and position text (FEN, move list) round-trips.

use arena::game::{Ataxx, Game, Mnk, MnkConfig, MnkRule};
use proptest::prelude::*;

/// Plays moves chosen by `choices` (indices into the legal move list) until the game ends
/// or the choices run out, checking the properties at every step.
fn walk<G: Game + PartialEq>(mut pos: G, choices: &[usize]) -> Result<(), TestCaseError> {
    let mut moves = Vec::new();
    for &choice in choices {
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            prop_assert!(pos.outcome().is_some(), "no moves but not over");
            break;
        }
        prop_assert!(pos.outcome().is_none(), "moves in a finished game");
        let mv = moves[choice % moves.len()];
        prop_assert!(pos.is_legal(mv));
        let before = pos.clone();
        let undo = pos.play(mv);
        prop_assert_eq!(pos.hash(), pos.hash_from_scratch(), "incremental hash");
        prop_assert_ne!(pos.hash(), before.hash());
        let after = pos.clone();
        pos.undo(mv, undo);
        prop_assert!(pos == before, "undo restores the position");
        prop_assert_eq!(pos.hash(), before.hash());
        // A null move (the search's pass) flips the side to move and the hash, and its
        // undo restores both; a move played after it is the other side's.
        let null = pos.play_null();
        prop_assert_eq!(
            pos.hash(),
            pos.hash_from_scratch(),
            "hash after a null move"
        );
        prop_assert_ne!(pos.hash(), before.hash());
        prop_assert_eq!(pos.side_to_move(), before.side_to_move().other());
        pos.legal_moves(&mut moves);
        if let Some(&reply) = moves.first() {
            let u = pos.play(reply);
            prop_assert_eq!(
                pos.hash(),
                pos.hash_from_scratch(),
                "a move after a null move"
            );
            pos.undo(reply, u);
        }
        pos.undo_null(null);
        prop_assert!(pos == before, "undo_null restores the position");
        prop_assert_eq!(pos.hash(), before.hash());
        pos = after;
        // Text round trip.
        let text = pos.to_text();
        let back =
            G::from_text(pos.config(), &text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back.hash(), pos.hash(), "round trip of {}", text);
        prop_assert_eq!(back.to_text(), text);
        // Each move's text reads back as the same move.
        prop_assert_eq!(pos.parse_move(&before.format_move(mv)).ok(), Some(mv));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn tictactoe(choices in prop::collection::vec(any::<usize>(), 0..10)) {
        walk(Mnk::new(&MnkConfig::tictactoe()), &choices)?;
    }

    #[test]
    fn mnk_small_exact(choices in prop::collection::vec(any::<usize>(), 0..30)) {
        let c = MnkConfig::new(6, 5, 4, MnkRule::Exact).unwrap();
        walk(Mnk::new(&c), &choices)?;
    }

    #[test]
    fn gomoku(choices in prop::collection::vec(any::<usize>(), 0..80)) {
        walk(Mnk::new(&MnkConfig::gomoku()), &choices)?;
    }

    #[test]
    fn ataxx_start(choices in prop::collection::vec(any::<usize>(), 0..120)) {
        walk(Ataxx::default(), &choices)?;
    }

    #[test]
    fn ataxx_gaps(choices in prop::collection::vec(any::<usize>(), 0..120)) {
        walk(Ataxx::from_fen("x5o/7/2-1-2/3-3/2-1-2/7/o5x x 0 1").unwrap(), &choices)?;
    }

    #[test]
    fn mnk_board_text_round_trip(choices in prop::collection::vec(any::<usize>(), 0..40)) {
        // The board form (rows with '/') gives the same stones and side to move.
        let c = MnkConfig::new(9, 7, 5, MnkRule::Freestyle).unwrap();
        let mut pos = Mnk::new(&c);
        let mut moves = Vec::new();
        for &choice in &choices {
            pos.legal_moves(&mut moves);
            if moves.is_empty() { break; }
            pos.play(moves[choice % moves.len()]);
        }
        if pos.outcome().is_none() {
            let rows: Vec<String> = pos.cells().chunks(c.width())
                .map(|r| r.iter().map(|&s| ['.', 'x', 'o'][usize::from(s)]).collect())
                .collect();
            let back = Mnk::from_text(&c, &rows.join("/")).unwrap();
            prop_assert_eq!(back.cells(), pos.cells());
            prop_assert_eq!(back.hash(), pos.hash());
            prop_assert_eq!(back.side_to_move(), pos.side_to_move());
        }
    }
}
