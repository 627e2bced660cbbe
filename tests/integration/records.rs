//! Records read back are trusted only after a replay (issue 20): every reader (`arena
//! stats`, `run --resume`, `arena merge`, `arena export`, `arena report`) refuses a
//! record whose moves, result, reason or sides the rules contradict, with
//! `games.jsonl:LINE: game N: ...` and exit 2 (item 8), while games that ended early
//! (adjudication, resignation) still read; a complete bad last line is refused, only a
//! line without its newline is a torn write (item 9); and a `run.toml` that is not
//! UTF-8, or holds a key of a newer arena, is named as such (item 12).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{copy_folder, run_bad_input, run_ok, tictactoe_config};

/// Plays `config` into `tmp/name` without a report; the folder.
fn played(tmp: &Path, config: &str, name: &str) -> PathBuf {
    let dir = tmp.join(name);
    run_ok(&[
        "run",
        config,
        "--quiet",
        "--no-report",
        "--out",
        dir.to_str().unwrap(),
    ]);
    dir
}

fn lines(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn write_lines(file: &Path, records: &[Value]) {
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(file, text).unwrap();
}

/// A move of tic-tac-toe not yet played in `record` (opening or moves).
fn free_cell(record: &Value) -> String {
    let taken: Vec<String> = record["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    let opening = record["opening"].as_str().unwrap();
    ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]
        .into_iter()
        .find(|c| !taken.iter().any(|t| t == c) && !opening.contains(c))
        .expect("a free cell")
        .to_string()
}

/// `arena stats`, `export` and `run --resume` on the folder `d` (of `config`) exit 2
/// with a line that contains `at`.
fn refused_by_readers(config: &str, d: &str, at: &str) {
    for args in [
        vec!["stats", d],
        vec!["export", d],
        vec!["run", config, "--quiet", "--resume", "--out", d],
    ] {
        let e = run_bad_input(&args);
        assert!(e.contains(at), "arena {args:?}: {e}");
    }
}

type Edit = fn(&mut Value) -> bool;

/// The hand edits of issue 20's item 8 (and their kin), each applied to the first record
/// it fits, with what the refusal must say.
const EDITS: [(&str, Edit, &str); 7] = [
    (
        "a flipped result",
        |r| {
            let won = r["reason"] == "k-in-a-row" && r["result"] == "1-0";
            if won {
                r["result"] = json!("0-1");
            }
            won
        },
        "result is 0-1 (white won), but the moves end in k-in-a-row, which makes it 1-0",
    ),
    (
        "a move onto an occupied cell",
        |r| {
            let long = r["moves"].as_array().unwrap().len() >= 3;
            if long {
                r["moves"][2] = r["moves"][0].clone();
            }
            long
        },
        "move 3: illegal move",
    ),
    (
        "a swapped first_move_by",
        |r| {
            let other = if r["first_move_by"] == r["black"] {
                r["white"].clone()
            } else {
                r["black"].clone()
            };
            r["first_move_by"] = other;
            true
        },
        "first_move_by is",
    ),
    (
        "another reason",
        |r| {
            let won = r["reason"] == "k-in-a-row";
            if won {
                r["reason"] = json!("board-full");
            }
            won
        },
        "reason is board-full, but the moves end in k-in-a-row",
    ),
    (
        "a move after the end",
        |r| {
            let won = r["reason"] == "k-in-a-row";
            if won {
                let free = free_cell(r);
                let stat = r["stats"][0].clone();
                r["moves"].as_array_mut().unwrap().push(json!(free));
                r["stats"].as_array_mut().unwrap().push(stat);
                r["plies"] = json!(r["plies"].as_u64().unwrap() + 1);
            }
            won
        },
        "comes after the game ended (k-in-a-row)",
    ),
    (
        "a reason arena never writes",
        |r| {
            r["reason"] = json!("agreed");
            true
        },
        "reason 'agreed' is not one arena writes",
    ),
    // Issue 44, item 4: a flipped result passed as a time forfeit, though the moves make
    // the three in a row and no engine had a clock.
    (
        "a flipped result as a time forfeit",
        |r| {
            let won = r["reason"] == "k-in-a-row" && r["result"] == "1-0";
            if won {
                r["result"] = json!("0-1");
                r["reason"] = json!("time-forfeit");
            }
            won
        },
        "reason is time-forfeit, but neither engine had a time limit",
    ),
];

/// Applies `edit` to the first record of `records` it fits; that record's 1-based line
/// and game index.
fn edit_first(records: &mut [Value], edit: Edit) -> (usize, u64) {
    for (i, r) in records.iter_mut().enumerate() {
        if edit(r) {
            return (i + 1, r["game"].as_u64().unwrap());
        }
    }
    panic!("no record fits the edit");
}

#[test]
fn records_the_rules_contradict_are_refused_by_every_reader() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tictactoe_config(tmp.path(), "edits", "");
    let good = played(tmp.path(), &config, "good");
    // The untouched folder reads everywhere.
    run_ok(&["stats", good.to_str().unwrap()]);
    run_ok(&["export", good.to_str().unwrap()]);
    for (n, (what, edit, want)) in EDITS.iter().enumerate() {
        let dir = tmp.path().join(format!("edit-{n}"));
        copy_folder(&good, &dir);
        let file = dir.join("games.jsonl");
        let mut records = lines(&file);
        let (line, game) = edit_first(&mut records, *edit);
        write_lines(&file, &records);
        let at = format!("{}:{line}: game {game}: ", file.display());
        let d = dir.to_str().unwrap();
        for args in [
            vec!["stats", d],
            vec!["export", d],
            vec!["report", d],
            vec!["run", &config, "--quiet", "--resume", "--out", d],
        ] {
            let e = run_bad_input(&args);
            assert!(
                e.contains(&at) && e.contains(want),
                "{what}: arena {args:?} should say {at}...{want}: {e}"
            );
        }
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            records.iter().map(|r| format!("{r}\n")).collect::<String>(),
            "{what}: the refused file is left as it was"
        );
    }
}

/// Issue 44, item 4: a time forfeit reads where a clock could have run out: the side to
/// move on a clock loses, the late move left out, in a game the moves do not end.
#[test]
fn a_time_forfeit_reads_only_where_a_clock_could_have_run_out() {
    let tmp = tempfile::tempdir().unwrap();
    let config = crate::common::write(
        tmp.path(),
        "clocked.toml",
        "name = \"clocked\"\ngame = \"tictactoe\"\nrounds = 4\nseed = 5\n\n[openings]\n\
         kind = \"random\"\nplies = 1\n\n\
         [[engines]]\nname = \"a\"\nsearch = { tc = \"5+0.05\", random_margin = 5 }\n\n\
         [[engines]]\nname = \"b\"\nsearch = { tc = \"5+0.05\", depth = 1 }\n",
    );
    let dir = played(tmp.path(), &config, "clocked");
    let file = dir.join("games.jsonl");
    let mut records = lines(&file);
    // A won game cut before its winning move: the winner, now to move, lost on time.
    let (line, game) = edit_first(&mut records, |r| {
        let won = r["reason"] == "k-in-a-row";
        if won {
            r["moves"].as_array_mut().unwrap().pop();
            r["stats"].as_array_mut().unwrap().pop();
            r["plies"] = json!(r["plies"].as_u64().unwrap() - 1);
            r["result"] = json!(if r["result"] == "1-0" { "0-1" } else { "1-0" });
            r["reason"] = json!("time-forfeit");
        }
        won
    });
    write_lines(&file, &records);
    let d = dir.to_str().unwrap();
    run_ok(&["stats", d]);
    run_ok(&["export", d]);
    // The same game given to the other side: nobody had a move time, so only the side
    // to move can have lost on time.
    let r = &mut records[line - 1];
    r["result"] = json!(if r["result"] == "1-0" { "0-1" } else { "1-0" });
    write_lines(&file, &records);
    let e = run_bad_input(&["stats", d]);
    assert!(
        e.contains(&format!(":{line}: game {game}: result is"))
            && e.contains("to move, ran out of its clock"),
        "{e}"
    );
}

#[test]
fn merge_replays_the_shards_records() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tictactoe_config(tmp.path(), "shards", "");
    let dir = tmp.path().join("sharded");
    let d = dir.to_str().unwrap();
    for shard in ["0/2", "1/2"] {
        run_ok(&["run", &config, "--quiet", "--shard", shard, "--out", d]);
    }
    let file = dir.join("shards/shard-1-of-2.jsonl");
    let mut records = lines(&file);
    let (line, game) = edit_first(&mut records, EDITS[0].1);
    write_lines(&file, &records);
    let e = run_bad_input(&["merge", d]);
    assert!(
        e.contains(&format!(
            "{}:{line}: game {game}: result is",
            file.display()
        )),
        "{e}"
    );
    assert!(!dir.join("games.jsonl").exists(), "nothing merged: {e}");
}

#[test]
fn games_that_ended_early_still_read() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, extra, reason) in [
        ("capped", "\n[adjudication]\nmax_plies = 4\n", "max-plies"),
        (
            "resigned",
            "\n[adjudication]\nresign_score = 1000\nresign_moves = 1\n",
            "resign",
        ),
    ] {
        let config = tictactoe_config(tmp.path(), name, extra);
        let dir = played(tmp.path(), &config, name);
        let records = lines(&dir.join("games.jsonl"));
        assert!(
            records.iter().any(|r| r["reason"] == reason),
            "{name}: some game ends by {reason}"
        );
        let d = dir.to_str().unwrap();
        run_ok(&["stats", d]);
        run_ok(&["export", d]);
        run_ok(&["report", d, "--quiet"]);
        run_ok(&["run", &config, "--quiet", "--resume", "--out", d]);
        // A resignation is checked against the rule: here, its score.
        if reason == "resign" {
            let mut records = records;
            let (line, game) = edit_first(&mut records, |r| {
                let resigned = r["reason"] == "resign";
                if resigned {
                    let last = r["stats"].as_array().unwrap().len() - 1;
                    r["stats"][last]["score"] = json!(0);
                }
                resigned
            });
            write_lines(&dir.join("games.jsonl"), &records);
            let e = run_bad_input(&["stats", d]);
            assert!(
                e.contains(&format!(":{line}: game {game}: reason is resign")),
                "{e}"
            );
        }
    }
}

#[test]
fn a_complete_bad_last_line_is_refused_and_only_a_line_without_newline_is_torn() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tictactoe_config(tmp.path(), "tail", "");
    let good = played(tmp.path(), &config, "good");
    let text = std::fs::read_to_string(good.join("games.jsonl")).unwrap();
    let count = text.lines().count();
    // The last line damaged but complete (it ends in its newline): not a torn write.
    let last_start = text[..text.len() - 1].rfind('\n').unwrap() + 1;
    let damaged = format!(
        "{}{}x\n",
        &text[..last_start],
        &text[last_start..text.len() - 5]
    );
    let dir = tmp.path().join("damaged");
    copy_folder(&good, &dir);
    std::fs::write(dir.join("games.jsonl"), &damaged).unwrap();
    let d = dir.to_str().unwrap();
    let at = format!(
        "{}:{count}: not a game record",
        dir.join("games.jsonl").display()
    );
    refused_by_readers(&config, d, &at);
    assert!(
        std::fs::read_to_string(dir.join("games.jsonl")).unwrap() == damaged,
        "the refused file is left as it was"
    );
    // The same line cut short, without its newline, is a torn write: dropped, replayed.
    let torn = &text[..text.len() - 5];
    std::fs::write(dir.join("games.jsonl"), torn).unwrap();
    let out = crate::common::arena()
        .args(["stats", d])
        .output()
        .expect("arena runs");
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("torn"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    run_ok(&["run", &config, "--quiet", "--resume", "--out", d]);
    let games = |dir: &Path| -> Vec<arena::tournament::GameRecord> {
        arena::tournament::read_records(&dir.join("games.jsonl"))
            .unwrap()
            .records
            .iter()
            .map(|r| r.without_times())
            .collect()
    };
    assert!(games(&dir) == games(&good), "the torn game is played again");
}

#[test]
fn a_run_toml_that_is_not_utf8_or_from_a_newer_arena_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tictactoe_config(tmp.path(), "toml", "");
    let good = played(tmp.path(), &config, "good");
    let run_toml = std::fs::read_to_string(good.join("run.toml")).unwrap();

    let dir = tmp.path().join("binary");
    copy_folder(&good, &dir);
    let mut bytes = run_toml.clone().into_bytes();
    // A byte that is not UTF-8 on the third line.
    let third = run_toml.match_indices('\n').nth(1).unwrap().0 + 1;
    bytes.insert(third, 0xff);
    std::fs::write(dir.join("run.toml"), bytes).unwrap();
    let d = dir.to_str().unwrap();
    let at = format!("{}:3: not UTF-8 text", dir.join("run.toml").display());
    refused_by_readers(&config, d, &at);
    let e = run_bad_input(&["merge", d]);
    assert!(e.contains(&at), "arena merge: {e}");

    let dir = tmp.path().join("newer");
    copy_folder(&good, &dir);
    std::fs::write(
        dir.join("run.toml"),
        format!("{run_toml}\n[future]\nsetting = 1\n"),
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    for args in [vec!["stats", d], vec!["export", d]] {
        let e = run_bad_input(&args);
        assert!(
            e.contains("key `future`") && e.contains("written by a newer arena"),
            "arena {args:?}: {e}"
        );
        assert!(!e.contains("not a run's results folder"), "{e}");
    }
}

/// The shipped engine config `name`.
fn shipped(name: &str) -> String {
    crate::common::data(&format!("../../configs/engines/{name}.toml"))
        .display()
        .to_string()
}

/// Issue 45 item 3: each adjudication rule (a config's `[adjudication]` keys, or `arena
/// match`'s flags) ends games with its reason, the folder reads everywhere, and an edit
/// the rule contradicts is refused by the readers.
#[test]
fn each_adjudication_ends_games_and_an_edit_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let gomoku = [
        shipped("gomoku-seed003-threat"),
        shipped("gomoku-seed000-threat"),
    ];
    let ataxx = shipped("ataxx-seed004");
    let level = tictactoe_config(
        tmp.path(),
        "level",
        "\n[adjudication]\ndraw_movecount = 1\ndraw_score = 50\n",
    );
    let flip: Edit = |r| {
        let flipped = if r["result"] == "1-0" { "0-1" } else { "1-0" };
        r["result"] = json!(flipped);
        true
    };
    let cases: [(&str, Vec<&str>, &str, Edit, &str); 4] = [
        (
            "level",
            vec!["run", &level],
            "draw-score",
            |r| {
                let last = r["stats"].as_array().unwrap().len() - 1;
                r["stats"][last]["score"] = json!(5000);
                true
            },
            "the draw rule does not hold",
        ),
        (
            "vcf",
            vec![
                "match",
                &gomoku[0],
                &gomoku[1],
                "--game",
                "mnk:9,9,5",
                "--vcf-win",
            ],
            "vcf-win",
            flip,
            "result is",
        ),
        (
            "resign",
            vec![
                "match",
                &gomoku[0],
                &gomoku[1],
                "--game",
                "mnk:9,9,5",
                "--resign",
                "movecount=2,score=1000,twosided=true",
            ],
            "resign",
            |r| {
                // The winner's last score before the loser's last move.
                let winner = r["stats"].as_array().unwrap().len() - 2;
                r["stats"][winner]["score"] = json!(0);
                true
            },
            "resign_twosided",
        ),
        (
            "material",
            vec!["match", &ataxx, &ataxx, "--material", "margin=3"],
            "material",
            flip,
            "result is",
        ),
    ];
    for (name, command, reason, edit, want) in cases {
        let dir = tmp.path().join(name);
        let d = dir.to_str().unwrap();
        let mut args = command.clone();
        if args[0] == "match" {
            args.extend(["--depth", "1", "--rounds", "3"]);
        }
        args.extend(["--quiet", "--no-report", "--out", d]);
        run_ok(&args);
        let file = dir.join("games.jsonl");
        let mut records = lines(&file);
        assert!(
            records.iter().any(|r| r["reason"] == reason),
            "{name}: some game ends by {reason}: {records:?}"
        );
        run_ok(&["stats", d]);
        run_ok(&["export", d]);
        let mut index = None;
        for (i, r) in records.iter_mut().enumerate() {
            if r["reason"] == reason && edit(r) {
                index = Some((i + 1, r["game"].as_u64().unwrap()));
                break;
            }
        }
        let (line, game) = index.expect("a record to edit");
        write_lines(&file, &records);
        let e = run_bad_input(&["stats", d]);
        assert!(
            e.contains(&format!(":{line}: game {game}: ")) && e.contains(want),
            "{name}: {e}"
        );
    }
}
