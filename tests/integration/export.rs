//! `arena export` through the real binary: gomoku as SGF that replays to each game's
//! final position, Ataxx as full PGN (FEN, SetUp, every move) that replays with our own
//! rules, colours and results as the records have them, the Seven Tag Roster, and the
//! default format per game.

use std::path::Path;

use arena::{
    game::{Ataxx, Game, Mnk, MnkConfig},
    tournament::{GameRecord, read_records, record::GameResult},
};

use crate::common::{data, run_bad_input, run_ok};

fn records(dir: &Path) -> Vec<GameRecord> {
    let mut r = read_records(&dir.join("games.jsonl")).unwrap().records;
    r.sort_by_key(|r| r.game);
    r
}

fn gomoku_run(tmp: &Path) -> std::path::PathBuf {
    let out = tmp.join("gomoku");
    run_ok(&[
        "run",
        data("tournaments/small.toml").to_str().unwrap(),
        "--rounds",
        "2",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    out
}

fn ataxx_run(tmp: &Path) -> std::path::PathBuf {
    let out = tmp.join("ataxx");
    run_ok(&[
        "match",
        data("../../configs/engines/ataxx-seed004.toml")
            .to_str()
            .unwrap(),
        data("../../configs/engines/ataxx-rich.toml")
            .to_str()
            .unwrap(),
        "--depth",
        "1",
        "--rounds",
        "3",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    out
}

/// The properties of one SGF node or root: (name, values) in order.
fn sgf_props(node: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = node.chars().peekable();
    let mut name = String::new();
    while let Some(c) = chars.next() {
        if c.is_ascii_uppercase() {
            name.push(c);
        } else if c == '[' {
            let mut value = String::new();
            while let Some(v) = chars.next() {
                match v {
                    '\\' => value.extend(chars.next()),
                    ']' => break,
                    v => value.push(v),
                }
            }
            out.push((name.clone(), value));
            if chars.peek() != Some(&'[') {
                name.clear();
            }
        }
    }
    out
}

/// Splits a game tree `(;root;B[..];W[..])` into its nodes (values may hold `;`).
fn sgf_nodes(tree: &str) -> Vec<String> {
    let mut nodes = Vec::new();
    let mut current = String::new();
    let (mut in_value, mut escaped) = (false, false);
    for c in tree
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .chars()
    {
        if in_value {
            current.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == ']' {
                in_value = false;
            }
        } else if c == ';' {
            if !current.trim().is_empty() {
                nodes.push(std::mem::take(&mut current));
            }
            current.clear();
        } else {
            if c == '[' {
                in_value = true;
            }
            current.push(c);
        }
    }
    if !current.trim().is_empty() {
        nodes.push(current);
    }
    nodes
}

#[test]
fn sgf_of_gomoku_games_replays_to_their_final_positions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = gomoku_run(tmp.path());
    // SGF is the default for m,n,k games.
    let sgf = run_ok(&["export", dir.to_str().unwrap()]);
    let games = records(&dir);
    let trees: Vec<&str> = sgf.split("\n(;").collect();
    assert_eq!(trees.len(), games.len(), "a game tree per game");
    let config = MnkConfig::new(9, 9, 5, arena::game::MnkRule::Freestyle).unwrap();
    for (tree, r) in trees.iter().zip(&games) {
        let nodes = sgf_nodes(tree);
        let root = sgf_props(&nodes[0]);
        let get = |k: &str| {
            root.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.as_str())
                .unwrap_or_else(|| panic!("{k} in {tree}"))
        };
        assert_eq!(get("FF"), "4");
        assert_eq!(get("GM"), "4");
        assert_eq!(get("SZ"), "9");
        assert_eq!(get("PB"), r.black_name, "black is the first player");
        assert_eq!(get("PW"), r.white_name);
        let want = match r.result {
            GameResult::FirstWins => "B+",
            GameResult::SecondWins => "W+",
            GameResult::Draw => "Draw",
        };
        assert!(
            get("RE").starts_with(want),
            "{} for {:?}",
            get("RE"),
            r.result
        );
        // Replay the SGF's moves with our rules: colours alternate from black and the
        // final position is the record's.
        let mut from_sgf = Mnk::new(&config);
        let mut colour = 'B';
        for node in &nodes[1..] {
            for (name, value) in sgf_props(node) {
                if name == "B" || name == "W" {
                    assert_eq!(name, colour.to_string(), "colours alternate");
                    let b = value.as_bytes();
                    let mv = config
                        .at(i32::from(b[0] - b'a'), i32::from(b[1] - b'a'))
                        .expect("on the board");
                    assert!(from_sgf.is_legal(mv), "legal: {value}");
                    from_sgf.play(mv);
                    colour = if colour == 'B' { 'W' } else { 'B' };
                }
            }
        }
        let mut from_record = Mnk::from_text(&config, &r.opening).unwrap();
        for m in &r.moves {
            from_record.try_play(m).unwrap();
        }
        assert_eq!(from_sgf.cells(), from_record.cells(), "game {}", r.game);
        assert_eq!(from_sgf.outcome(), from_record.outcome());
    }
    // --pgn on m,n,k: headers only (for rating tools), colours as in the records.
    let pgn = run_ok(&["export", dir.to_str().unwrap(), "--pgn"]);
    assert_eq!(pgn.matches("[White \"").count(), games.len());
    let first = &games[0];
    assert!(pgn.contains(&format!(
        "[White \"{}\"]\n[Black \"{}\"]",
        first.white_name, first.black_name
    )));
}

#[test]
fn ataxx_pgn_replays_with_our_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = ataxx_run(tmp.path());
    let out = tmp.path().join("games.pgn");
    // PGN is the default for Ataxx.
    run_ok(&["export", dir.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let pgn = std::fs::read_to_string(&out).unwrap();
    let games = records(&dir);
    let parts: Vec<&str> = pgn.split("\n\n[Event ").collect();
    assert_eq!(parts.len(), games.len(), "a game per record");
    for (text, r) in parts.iter().zip(&games) {
        let (headers, movetext) = text.split_once("\n\n").expect("headers, then moves");
        let tag = |name: &str| {
            headers
                .lines()
                .find_map(|l| l.strip_prefix(&format!("[{name} \"")))
                .and_then(|v| v.strip_suffix("\"]"))
                .unwrap_or_else(|| panic!("[{name}] in {headers}"))
        };
        for seven in ["Site", "Date", "Round", "White", "Black", "Result"] {
            tag(seven);
        }
        assert_eq!(tag("SetUp"), "1");
        assert_eq!(tag("Black"), r.black_name, "x is Black, as in the records");
        assert_eq!(tag("White"), r.white_name);
        // Results from White's side, as PGN readers (Ordo, BayesElo) take them.
        let want = match r.result {
            GameResult::FirstWins => "0-1",
            GameResult::SecondWins => "1-0",
            GameResult::Draw => "1/2-1/2",
        };
        assert_eq!(tag("Result"), want);
        // Replay: the FEN, then every move token (comments, move numbers and the result
        // left out), with our rules.
        let mut pos = Ataxx::from_fen(tag("FEN")).expect("the FEN reads");
        let mut depth = 0;
        let mut tokens = Vec::new();
        let mut word = String::new();
        for c in movetext.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                c if depth == 0 && c.is_whitespace() => {
                    tokens.push(std::mem::take(&mut word));
                }
                c if depth == 0 => word.push(c),
                _ => {}
            }
        }
        tokens.push(word);
        let moves: Vec<&str> = tokens
            .iter()
            .map(String::as_str)
            .filter(|t| !t.is_empty() && !t.ends_with('.') && *t != want)
            .collect();
        assert_eq!(moves.len(), r.moves.len(), "every move, game {}", r.game);
        for m in &moves {
            pos.try_play(m)
                .unwrap_or_else(|e| panic!("game {}: {e}", r.game));
        }
        let mut from_record = Ataxx::from_fen(&r.opening).unwrap();
        for m in &r.moves {
            from_record.try_play(m).unwrap();
        }
        assert_eq!(pos.fen(), from_record.fen(), "game {}", r.game);
        assert!(pos.outcome().is_some(), "the game ended on the board");
    }
    let e = run_bad_input(&["export", dir.to_str().unwrap(), "--sgf"]);
    assert!(e.contains("SGF is for m,n,k games"), "{e}");
}

/// The value of tag `name` in one PGN game's headers.
fn pgn_tag<'a>(headers: &'a str, name: &str) -> Option<&'a str> {
    headers
        .lines()
        .find_map(|l| l.strip_prefix(&format!("[{name} \"")))
        .and_then(|v| v.strip_suffix("\"]"))
}

/// Issue 20, item 19: a run played with --no-report (no environment.json) still dates
/// its games (each record says when it was played), `Round` and SGF `RO` are the round
/// (not the game index + 1), and `--result-convention ataxx` writes the first player's
/// win as `1-0`, as cuteataxx and python-ataxx do, with a comment saying which.
#[test]
fn games_are_dated_by_their_records_with_their_round_and_either_result_convention() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ataxx");
    run_ok(&[
        "match",
        data("../../configs/engines/ataxx-seed004.toml")
            .to_str()
            .unwrap(),
        data("../../configs/engines/ataxx-rich.toml")
            .to_str()
            .unwrap(),
        "--depth",
        "1",
        "--rounds",
        "3",
        "--quiet",
        "--no-report",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(!dir.join("environment.json").exists());
    let games = records(&dir);
    let d = dir.to_str().unwrap();
    let split = |pgn: &str| -> Vec<(String, String)> {
        pgn.split("\n\n[Event ")
            .map(|g| {
                let (h, m) = g.split_once("\n\n").expect("headers, then moves");
                (h.to_string(), m.to_string())
            })
            .collect()
    };
    let chess = split(&run_ok(&["export", d]));
    let ataxx = split(&run_ok(&["export", d, "--result-convention", "ataxx"]));
    assert_eq!(chess.len(), games.len());
    assert!(
        games.iter().any(|r| r.game + 1 != r.round + 1),
        "rounds differ"
    );
    let mut decisive = 0;
    let played_at = |dir: &Path| -> Vec<String> {
        let mut lines: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("games.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        lines.sort_by_key(|v| v["game"].as_u64());
        lines
            .iter()
            .map(|v| {
                v["played_at"]
                    .as_str()
                    .expect("a new record says when")
                    .to_string()
            })
            .collect()
    };
    let dates = played_at(&dir);
    for (((chess, ataxx), r), played) in chess.iter().zip(&ataxx).zip(&games).zip(&dates) {
        let date = played[..10].replace('-', ".");
        assert_eq!(
            pgn_tag(&chess.0, "Date"),
            Some(date.as_str()),
            "{}",
            chess.0
        );
        assert_eq!(pgn_tag(&chess.0, "UTCTime"), Some(&played[11..19]));
        assert_eq!(
            pgn_tag(&chess.0, "Round"),
            Some((r.round + 1).to_string().as_str()),
            "game {} is of round {}",
            r.game,
            r.round
        );
        let (want_chess, want_ataxx) = match r.result {
            GameResult::FirstWins => ("0-1", "1-0"),
            GameResult::SecondWins => ("1-0", "0-1"),
            GameResult::Draw => ("1/2-1/2", "1/2-1/2"),
        };
        decisive += usize::from(r.result != GameResult::Draw);
        assert_eq!(pgn_tag(&chess.0, "Result"), Some(want_chess));
        assert_eq!(pgn_tag(&ataxx.0, "Result"), Some(want_ataxx));
        assert!(chess.1.trim_end().ends_with(want_chess));
        assert!(ataxx.1.trim_end().ends_with(want_ataxx));
        assert!(
            chess
                .1
                .starts_with("{Result is from White's side, as in chess"),
            "{}",
            chess.1
        );
        assert!(
            ataxx
                .1
                .starts_with("{Result is from the first player's side"),
            "{}",
            ataxx.1
        );
    }
    assert!(decisive > 0, "some game is decisive");
    let e = run_bad_input(&["export", d, "--result-convention", "go"]);
    assert!(e.contains("'go' is not chess or ataxx"), "{e}");

    // SGF: RO[] is the round, DT[] the day the game was played.
    let gomoku = tmp.path().join("gomoku");
    run_ok(&[
        "run",
        data("tournaments/small.toml").to_str().unwrap(),
        "--rounds",
        "2",
        "--quiet",
        "--no-report",
        "--out",
        gomoku.to_str().unwrap(),
    ]);
    let sgf = run_ok(&["export", gomoku.to_str().unwrap()]);
    let games = records(&gomoku);
    let trees: Vec<&str> = sgf.split("(;FF[4]").skip(1).collect();
    assert_eq!(trees.len(), games.len());
    for ((tree, r), played) in trees.iter().zip(&games).zip(&played_at(&gomoku)) {
        assert!(tree.contains(&format!("RO[{}]", r.round + 1)), "{tree}");
        let day = &played[..10];
        assert!(tree.contains(&format!("DT[{day}]")), "{tree}");
    }

    // A record from before `played_at` still reads; its date is unknown without a
    // report's environment.json.
    let file = dir.join("games.jsonl");
    let text: String = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("played_at");
            format!("{v}\n")
        })
        .collect();
    std::fs::write(&file, text).unwrap();
    let old = run_ok(&["export", d]);
    assert!(old.contains("[Date \"????.??.??\"]"), "{old}");
    assert!(!old.contains("[UTCTime"), "{old}");
}

/// Issue 44, item 22: `1-0` is black's win in the records and the report but White's
/// in the PGN `arena export` writes by default; export says which side its `Result` is
/// from, beside the PGN it writes.
#[test]
fn export_says_whose_side_a_pgn_result_is_from() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = gomoku_run(tmp.path());
    let d = dir.to_str().unwrap();
    let note = |args: &[&str]| {
        let o = crate::common::arena().args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let chess = note(&["export", d, "--pgn"]);
    assert!(
        chess.contains("Result is from White's side") && chess.contains("1-0 in games.jsonl"),
        "{chess}"
    );
    let ataxx = note(&["export", d, "--pgn", "--result-convention", "ataxx"]);
    assert!(
        ataxx.contains("Result is from the first player's side"),
        "{ataxx}"
    );
    let sgf = note(&["export", d]);
    assert!(
        !sgf.contains("Result is from"),
        "SGF's RE says B+ or W+: {sgf}"
    );
}
