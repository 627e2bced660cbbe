//! `arena openings --play N` through the real binary: the same file for any --jobs,
//! kept openings that really give the first player a score within the band (checked
//! against tic-tac-toe solved here by plain minimax), and the refusals.

use crate::common::{arena, root};

fn engine(name: &str) -> String {
    root()
        .join(format!("configs/engines/{name}.toml"))
        .display()
        .to_string()
}

/// Runs `arena openings ARGS`: exit code, stdout, stderr.
fn openings(args: &[&str]) -> (Option<i32>, String, String) {
    let out = arena()
        .arg("openings")
        .args(args)
        .output()
        .expect("arena runs");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("arena prints UTF-8");
    (out.status.code(), text(out.stdout), text(out.stderr))
}

/// The openings of a file (its lines but the `#` ones).
fn lines(file: &str) -> Vec<&str> {
    file.lines().filter(|l| !l.starts_with('#')).collect()
}

#[test]
fn played_openings_are_the_same_for_any_jobs() {
    let judge = engine("gomoku-seed003-threat");
    let run = |jobs: &str, seed: &str| {
        let args = [
            "gomoku",
            "--plies",
            "3",
            "--count",
            "6",
            "--balance",
            &judge,
            "--set",
            "search.depth=1",
            "--set",
            "search.tt_mb=1",
            "--margin",
            "4000",
            "--play",
            "3",
            "--band",
            "0.3..0.7",
            "--seed",
            seed,
            "-j",
            jobs,
        ];
        let (code, out, err) = openings(&args);
        assert_eq!(code, Some(0), "{err}");
        assert!(err.contains("6 kept"), "progress on stderr: {err}");
        out
    };
    let one = run("1", "3");
    let two = run("2", "3");
    assert_eq!(one, two, "-j 1 and -j 2 differ");
    let header = one.lines().next().unwrap();
    assert!(
        header.starts_with(
            "# 6 random openings of 3 plies for gomoku (seed 3, kept when \
             'seed003-threat' scores within ±4000 and the first player scored 0.3..0.7 in \
             3 games of 'seed003-threat' against itself at random margin 750; \
             'seed003-threat' with --set search.depth=1 --set search.tt_mb=1)"
        ),
        "{header}"
    );
    let command = one.lines().nth(1).unwrap();
    assert!(
        command.starts_with("# arena openings gomoku --plies 3 --count 6 --balance ")
            && command.ends_with(
                "--set search.depth=1 --set search.tt_mb=1 --margin 4000 --play 3 \
                 --band 0.3..0.7 --play-margin 750 --seed 3"
            ),
        "{command}"
    );
    assert_eq!(lines(&one).len(), 6, "{one}");
    // A valid opening file.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("o.txt");
    std::fs::write(&file, &one).unwrap();
    let read = arena::tournament::openings::read_file::<arena::game::Mnk>(
        &file,
        &arena::game::MnkConfig::gomoku(),
    )
    .unwrap();
    assert_eq!(read.len(), 6);
    // Another seed, other openings.
    assert_ne!(lines(&run("2", "4")), lines(&one));
}

/// Tic-tac-toe from a move list (`c3b1b2`): the first player's result under perfect
/// play, 1, 1/2 or 0.
fn solved(moves: &str) -> f64 {
    let mut board = [0i8; 9];
    let mut side = 1;
    let mut chars = moves.chars().peekable();
    while let Some(col) = chars.next() {
        let row = chars.next().expect("a move is a letter and a digit");
        let cell = (row as u8 - b'1') as usize * 3 + (col as u8 - b'a') as usize;
        assert_eq!(board[cell], 0, "{moves}");
        board[cell] = side;
        side = -side;
    }
    // Negamax value for `side` to move: 1 win, 0 draw, -1 loss.
    fn value(board: &mut [i8; 9], side: i8) -> i8 {
        const LINES: [[usize; 3]; 8] = [
            [0, 1, 2],
            [3, 4, 5],
            [6, 7, 8],
            [0, 3, 6],
            [1, 4, 7],
            [2, 5, 8],
            [0, 4, 8],
            [2, 4, 6],
        ];
        if LINES.iter().any(|l| l.iter().all(|&c| board[c] == -side)) {
            return -1;
        }
        let mut best = None;
        for c in 0..9 {
            if board[c] == 0 {
                board[c] = side;
                let v = -value(board, -side);
                board[c] = 0;
                best = Some(best.map_or(v, |b: i8| b.max(v)));
            }
        }
        best.unwrap_or(0)
    }
    let v = value(&mut board, side);
    // For the first player (X, side 1).
    f64::from(v * side + 1) / 2.0
}

#[test]
fn kept_openings_give_the_first_player_a_score_within_the_band() {
    let judge = engine("tictactoe-perfect");
    let run = |band: &str, count: &str| {
        let (code, out, err) = openings(&[
            "tictactoe",
            "--plies",
            "3",
            "--count",
            count,
            "--format",
            "moves",
            "--balance",
            &judge,
            "--play",
            "2",
            "--band",
            band,
        ]);
        assert_eq!(code, Some(0), "{err}");
        lines(&out)
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    // A perfect engine wins every game it can win and draws the rest: the openings kept
    // are the first player's wins (X moved first and second: not the side to move),
    // then its draws.
    let wins = run("0.75..1", "12");
    assert_eq!(wins.len(), 12);
    for w in &wins {
        assert_eq!(solved(w), 1.0, "{w} is no win for the first player");
    }
    let draws = run("0.5..0.5", "12");
    assert_eq!(draws.len(), 12);
    for d in &draws {
        assert_eq!(solved(d), 0.5, "{d} is no draw");
    }
    // The test's solver does tell them apart.
    assert_eq!(solved("a1b1b2"), 1.0);
    assert_eq!(solved("b2a1"), 0.5);
}

#[test]
fn play_refusals_say_what_is_wrong() {
    let judge = engine("tictactoe-perfect");
    let ttt = |extra: &[&str]| {
        let mut args = vec!["tictactoe", "--balance", &judge];
        args.extend_from_slice(extra);
        openings(&args)
    };
    for (args, why) in [
        (vec!["--play", "0"], "0 is not in 1.."),
        (
            vec!["--play", "2", "--band", "0.7..0.3"],
            "LOW 0.7 is above HIGH 0.3",
        ),
        (
            vec!["--play", "2", "--band", "0.5"],
            "'0.5' is not LOW..HIGH",
        ),
        (
            vec!["--play", "2", "--band", "0..1.2"],
            "is not within 0..1",
        ),
        (vec!["--play", "2", "--band", "x..1"], "'x' is not a number"),
        (vec!["--play", "2", "--play-margin", "0"], "0 is not in 1.."),
        (
            vec!["--play", "1", "--band", "0.6..0.9"],
            "no score of 1 game(s) lies within the band 0.6..0.9",
        ),
        (
            vec![],
            "--balance needs --margin (its search score) or --play N",
        ),
        (
            vec![
                "--plies", "1", "--count", "3", "--play", "2", "--band", "0.9..1",
            ],
            "no opening within the band 0.9..1 after all 9 distinct openings of the game \
             (18 games): widen the band",
        ),
    ] {
        let (code, out, err) = ttt(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(lines(&out).is_empty(), "{args:?}: {out}");
    }
    // --play and --band need a judge.
    for args in [
        vec!["tictactoe", "--play", "2"],
        vec!["tictactoe", "--band", "0..1"],
    ] {
        let (code, _, err) = openings(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("--balance <ENGINE.toml>"), "{args:?}: {err}");
    }
    // Fewer than asked: those found are written (a valid file), and the error says so.
    let (code, out, err) = ttt(&[
        "--plies", "1", "--count", "30", "--play", "2", "--band", "0.5..0.5",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(lines(&out).len(), 9, "{out}");
    assert!(
        err.contains("only 9 of 30 openings within the band 0.5..0.5 after all 9 distinct"),
        "{err}"
    );
}

#[test]
fn help_explains_play_and_band() {
    let (code, out, _) = openings(&["--help"]);
    assert_eq!(code, Some(0));
    for word in [
        "--play <N>",
        "--band <LOW..HIGH>",
        "--play-margin <UNITS>",
        "--jobs <JOBS>",
        "first player's score",
        "default: 0.375..0.625",
        "search.random_margin",
        "--play 8 --band 0.375..0.625",
    ] {
        assert!(out.contains(word), "--help lacks {word}: {out}");
    }
}
