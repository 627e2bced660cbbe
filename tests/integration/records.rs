//! Records read back are trusted only after a replay (issue 20): every reader (`arena
//! stats`, `run --resume`, `arena merge`, `arena export`, `arena report`) refuses a
//! record whose moves, result, reason or sides the rules contradict, with
//! `games.jsonl:LINE: game N: ...` and exit 2 (item 8), while games that ended early
//! (adjudication, resignation) still read; a complete bad last line is refused, only a
//! line without its newline is a torn write (item 9); and a `run.toml` that is not
//! UTF-8, or holds a key of a newer arena, is named as such (item 12).
//!
//! Records have readable fields in game order. Every record arena reads is checked
//! against the schedule (issue 13), and no mutation of games.jsonl or state.json makes
//! arena panic: refusals name the file and line.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{
    arena, copy_folder, data, root, run_bad_input, run_ok, tictactoe_config, write,
};

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

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn records_have_readable_fields_in_game_order() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    let config = data("tournaments/small.toml");
    run_ok(&[
        "run",
        config.to_str().unwrap(),
        "--rounds",
        "2",
        "--jobs",
        "2",
        "--quiet",
        "--no-report",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = read(&out.join("games.jsonl"));
    let mut last = None;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["variant"], "mnk:9,9,5");
        assert!(v["seed"].is_string(), "seeds are strings: {line}");
        assert!(v["first_move_by"].is_u64(), "{line}");
        let m = &v["stats"][0];
        for key in ["depth", "nodes", "time_us"] {
            assert!(m[key].is_u64(), "{key} in {m}");
        }
        let game = v["game"].as_u64().unwrap();
        assert!(last.is_none_or(|l| l < game), "lines in game order");
        last = Some(game);
    }
    let pairings = read(&out.join("pairings.csv"));
    let lines: Vec<&str> = pairings.lines().collect();
    assert!(lines[0].starts_with("engine_a,engine_b,games,wins,draws,losses,score,elo"));
    assert_eq!(lines.len(), 1 + 3, "a line per pairing: {pairings}");
    assert!(lines[1].starts_with("threat,static,4,"), "{pairings}");

    // The same games written the old way (cryptic keys, numbers) read the same: `arena
    // stats` of the old file prints what it prints for the new one.
    let stats_new = run_ok(&["stats", out.to_str().unwrap()]);
    let old: String = text
        .lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            let o = v.as_object_mut().unwrap();
            o.remove("variant");
            let seed: u64 = o["seed"].as_str().unwrap().parse().unwrap();
            o.insert("seed".into(), seed.into());
            let by = o.remove("first_move_by").unwrap();
            o.insert("first_mover".into(), by);
            for m in o["stats"].as_array_mut().unwrap() {
                let m = m.as_object_mut().unwrap();
                for (new, old) in [
                    ("depth", "d"),
                    ("nodes", "n"),
                    ("time_us", "t"),
                    ("score", "s"),
                    ("nodes_at_depth", "i"),
                ] {
                    if let Some(x) = m.remove(new) {
                        let x = match x
                            .as_str()
                            .and_then(arena::tournament::record::score_text::parse)
                        {
                            Some(v) => v.into(),
                            None => x,
                        };
                        m.insert(old.into(), x);
                    }
                }
            }
            serde_json::to_string(&v).unwrap() + "\n"
        })
        .collect();
    assert!(old.contains("\"d\":") && !old.contains("\"depth\":"));
    std::fs::write(out.join("games.jsonl"), old).unwrap();
    assert_eq!(run_ok(&["stats", out.to_str().unwrap()]), stats_new);
}

/// A tic-tac-toe round robin of three engines, 24 games in about a second: results to
/// read, damage and resume.
fn tictactoe(dir: &Path, name: &str) -> String {
    crate::common::tictactoe_config(dir, name, "")
}

/// A tune of four pairs at depth 1 on 9×9 (well under a second).
fn tiny_tune(dir: &Path) -> String {
    write(
        dir,
        "tiny-tune.toml",
        &format!(
            "name = \"tiny\"\ngame = \"mnk:9,9,5\"\nengine = \"{}\"\n\
             set = {{ \"search.depth\" = 1, \"search.tt_mb\" = 1 }}\npairs = 4\nbatch = 2\n\
             seed = 3\n\n[openings]\nkind = \"random\"\nplies = 3\nradius = 2\n\n\
             [adjudication]\nmax_plies = 40\n\n[[params]]\nname = \"table.open_three\"\n\
             min = 1000\nmax = 20000\n",
            root()
                .join("configs/engines/gomoku-seed003-threat.toml")
                .display()
        ),
    )
}

/// Sets `key` of the JSON object on line `line` (1-based) of `text`.
fn set_field(text: &str, line: usize, key: &str, value: serde_json::Value) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut v: serde_json::Value = serde_json::from_str(&lines[line - 1]).unwrap();
    v[key] = value;
    lines[line - 1] = v.to_string();
    lines.join("\n") + "\n"
}

/// Whether `message` points at `file` with a line: `file:LINE` or `line LINE`.
fn names_file_and_line(message: &str, file: &str) -> bool {
    let at_line = message.match_indices(file).any(|(at, _)| {
        let rest = &message[at + file.len()..];
        rest.strip_prefix(':')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    });
    at_line
        || (message.contains(file)
            && message
                .match_indices("line ")
                .any(|(at, _)| message[at + 5..].starts_with(|c: char| c.is_ascii_digit())))
}

/// Regressions: `"pairing":99` on one line panicked `arena stats`, `arena run --resume`
/// and `arena merge`; `"black":99` panicked `arena stats`; a state.json with
/// `pairs_done=100, batches_done=1` panicked `arena tune --resume`; a duplicated record
/// was counted ("25 of 24 games"), as was an index outside the schedule; `--resume`
/// took another run's games.jsonl silently.
#[test]
fn records_that_do_not_match_the_schedule_are_refused_with_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tictactoe(tmp.path(), "ttt");
    let good = tmp.path().join("good");
    let d = good.to_str().unwrap();
    run_ok(&["run", &config, "--quiet", "--no-report", "--out", d]);
    let games = std::fs::read_to_string(good.join("games.jsonl")).unwrap();
    assert_eq!(games.lines().count(), 24);
    let damaged = |name: &str, text: &str| -> PathBuf {
        let dir = tmp.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(good.join("run.toml"), dir.join("run.toml")).unwrap();
        std::fs::write(dir.join("games.jsonl"), text).unwrap();
        dir
    };
    let cases = [
        (
            "pairing",
            set_field(&games, 3, "pairing", 99.into()),
            3,
            "pairing is 99",
        ),
        (
            "black",
            set_field(&games, 5, "black", 99.into()),
            5,
            "colours",
        ),
        (
            "twice",
            format!("{games}{}\n", games.lines().nth(6).unwrap()),
            25,
            "appears twice",
        ),
        (
            "outside",
            set_field(&games, 2, "game", 5000.into()),
            2,
            "not in the schedule",
        ),
        (
            "seed",
            set_field(&games, 4, "seed", 1.into()),
            4,
            "another seed",
        ),
    ];
    for (name, text, line, want) in &cases {
        let dir = damaged(name, text);
        let d = dir.to_str().unwrap();
        for args in [
            vec!["stats", d],
            vec!["run", &config, "--resume", "--quiet", "--out", d],
            vec!["export", d, "--pgn"],
        ] {
            let e = run_bad_input(&args);
            assert!(
                e.contains(&format!("games.jsonl:{line}:")) && e.contains(want),
                "{args:?}: {e}"
            );
        }
    }
    // Another run's results (another seed) are not resumed.
    let other = tmp.path().join("other");
    run_ok(&[
        "run",
        &config,
        "--quiet",
        "--no-report",
        "--seed",
        "77",
        "--out",
        other.to_str().unwrap(),
    ]);
    let foreign = damaged(
        "foreign",
        &std::fs::read_to_string(other.join("games.jsonl")).unwrap(),
    );
    let e = run_bad_input(&[
        "run",
        &config,
        "--resume",
        "--out",
        foreign.to_str().unwrap(),
    ]);
    assert!(
        e.contains("games.jsonl:1:") && e.contains("another seed"),
        "{e}"
    );

    // A merge checks every shard's records the same way.
    let sharded = tmp.path().join("sharded");
    let s = sharded.to_str().unwrap();
    for shard in ["0/2", "1/2"] {
        run_ok(&["run", &config, "--quiet", "--shard", shard, "--out", s]);
    }
    let shard0 = sharded.join("shards/shard-0-of-2.jsonl");
    let text = std::fs::read_to_string(&shard0).unwrap();
    std::fs::write(&shard0, set_field(&text, 2, "pairing", 99.into())).unwrap();
    let e = run_bad_input(&["merge", s]);
    assert!(
        e.contains("shard-0-of-2.jsonl:2:") && e.contains("pairing is 99"),
        "{e}"
    );
    assert!(!sharded.join("games.jsonl").exists(), "nothing written");

    // tune --resume checks its checkpoint.
    let tune = tiny_tune(tmp.path());
    let t = tmp.path().join("tune");
    run_ok(&[
        "tune",
        &tune,
        "--quiet",
        "--verify-pairs",
        "0",
        "--out",
        t.to_str().unwrap(),
    ]);
    let state = std::fs::read_to_string(t.join("state.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&state).unwrap();
    v["state"]["pairs_done"] = 100.into();
    v["state"]["batches_done"] = 1.into();
    std::fs::write(t.join("state.json"), v.to_string()).unwrap();
    let e = run_bad_input(&[
        "tune",
        &tune,
        "--resume",
        "--quiet",
        "--out",
        t.to_str().unwrap(),
    ]);
    assert!(e.contains("state.json:1: key `pairs_done`"), "{e}");
}

/// A tiny deterministic generator for the fuzz (SplitMix64).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A value that a damaged or hand-edited file could hold instead of the right one.
fn odd_value(rng: &mut Mix, near: &serde_json::Value) -> serde_json::Value {
    use serde_json::json;
    match rng.below(12) {
        0 => json!(rng.below(4)),
        1 => json!(99),
        2 => json!(-1),
        3 => json!(u64::MAX),
        4 => json!(1.5),
        5 => json!("x"),
        6 => serde_json::Value::Null,
        7 => json!(true),
        8 => json!([]),
        9 => json!({}),
        10 => json!(near.as_u64().map_or(0, |n| n.saturating_add(1))),
        _ => json!(near.as_u64().map_or(7, |n| n.saturating_sub(1))),
    }
}

/// Replaces one value somewhere in `v` (any depth), or deletes an object's key.
fn mutate_value(rng: &mut Mix, v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) if !map.is_empty() => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let key = &keys[rng.below(keys.len())];
            match rng.below(5) {
                0 => {
                    map.remove(key);
                }
                1 | 2 => {
                    let old = map[key].clone();
                    map[key] = odd_value(rng, &old);
                }
                _ => mutate_value(rng, map.get_mut(key).unwrap()),
            }
        }
        serde_json::Value::Array(items) if !items.is_empty() => {
            let i = rng.below(items.len());
            match rng.below(4) {
                0 => {
                    items.remove(i);
                }
                1 => {
                    let old = items[i].clone();
                    items[i] = odd_value(rng, &old);
                }
                _ => mutate_value(rng, &mut items[i]),
            }
        }
        other => {
            let old = other.clone();
            *other = odd_value(rng, &old);
        }
    }
}

/// One to three seeded mutations of a JSON-lines text: values, keys, whole lines
/// (duplicated, dropped, swapped, cut, garbage) and bytes.
fn mutate_lines(rng: &mut Mix, text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(3) {
        if lines.is_empty() {
            break;
        }
        let i = rng.below(lines.len());
        match rng.below(9) {
            0..=2 => {
                if let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&lines[i]) {
                    mutate_value(rng, &mut v);
                    lines[i] = v.to_string();
                }
            }
            3 => {
                let copy = lines[i].clone();
                let at = rng.below(lines.len() + 1);
                lines.insert(at, copy);
            }
            4 => {
                lines.remove(i);
            }
            5 => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            6 => {
                let mut cut = rng.below(lines[i].len());
                while !lines[i].is_char_boundary(cut) {
                    cut -= 1;
                }
                lines[i].truncate(cut);
            }
            7 => {
                let garbage = ["{", "not json", "[]", "{}", "null"][rng.below(5)];
                lines.insert(i, garbage.to_string());
            }
            _ => {
                let mut bytes = lines[i].clone().into_bytes();
                if !bytes.is_empty() {
                    let at = rng.below(bytes.len());
                    bytes[at] = b"0123456789,:{}[]\"ax-"[rng.below(20)];
                }
                lines[i] = String::from_utf8_lossy(&bytes).into_owned();
            }
        }
    }
    let mut out = lines.join("\n");
    // Sometimes the last line is torn (no newline), as a crash leaves it.
    if rng.below(5) != 0 {
        out.push('\n');
    }
    out
}

/// Copies the files of `from` (not its folders) into a fresh folder under `tmp`.
fn scratch(tmp: &Path, from: &Path, n: usize) -> PathBuf {
    let dir = tmp.join(format!("scratch-{n}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
    }
    dir
}

/// Runs `f`, failing the test (with what was fed) if it panics; its error text.
fn no_panic<T, E: std::fmt::Display>(
    what: &str,
    f: impl FnOnce() -> Result<T, E>,
) -> Option<String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(_)) => None,
        Ok(Err(e)) => Some(e.to_string()),
        Err(_) => panic!("{what}: panicked"),
    }
}

/// The fuzz the issue asks for: thousands of seeded mutations of a valid games.jsonl
/// (fed to the statistics, a resume and a merge) and of a tune's state.json (fed to
/// `tune --resume`): no panic, and every refusal names the file and the line. The bulk
/// runs in this process (the library the commands call); a sample goes through the
/// binary, where exit code 2 and a one-line error are checked too.
#[test]
fn mutated_records_and_checkpoints_never_panic_and_refusals_name_file_and_line() {
    use std::sync::{Arc, atomic::AtomicBool};

    use arena::{
        jobs::JobOptions,
        tournament::{RunOptions, Tournament, merge, summary, validate},
        tune::Tune,
    };

    let tmp = tempfile::tempdir().unwrap();
    let config = tictactoe(tmp.path(), "fuzz");
    let good = tmp.path().join("good");
    run_ok(&[
        "run",
        &config,
        "--quiet",
        "--no-report",
        "--out",
        good.to_str().unwrap(),
    ]);
    let games = std::fs::read_to_string(good.join("games.jsonl")).unwrap();
    let sharded = tmp.path().join("sharded");
    for shard in ["0/2", "1/2"] {
        run_ok(&[
            "run",
            &config,
            "--quiet",
            "--shard",
            shard,
            "--out",
            sharded.to_str().unwrap(),
        ]);
    }
    let shard_text = std::fs::read_to_string(sharded.join("shards/shard-0-of-2.jsonl")).unwrap();
    let tune_config = tiny_tune(tmp.path());
    let tuned = tmp.path().join("tuned");
    run_ok(&[
        "tune",
        &tune_config,
        "--quiet",
        "--verify-pairs",
        "0",
        "--out",
        tuned.to_str().unwrap(),
    ]);
    let state = std::fs::read_to_string(tuned.join("state.json")).unwrap();

    let t = Tournament::load(Path::new(&config)).unwrap();
    use arena::config::ConfigFile;
    let tune = Tune::load(Path::new(&tune_config)).unwrap();
    let shape = validate::RunShape::of(&t, None);
    let stop = Arc::new(AtomicBool::new(false));
    let mut rng = Mix(0x13);
    let (mut refused, mut accepted) = (0, 0);
    let mut tally = |what: &str, file: &str, fed: &str, outcome: Option<String>| match outcome {
        Some(message) => {
            assert!(
                names_file_and_line(&message, file),
                "{what}: the refusal does not name {file} and a line: {message}\nfed:\n{fed}"
            );
            refused += 1;
        }
        None => accepted += 1,
    };
    const RECORD_CASES: usize = 1500;
    for n in 0..RECORD_CASES {
        let text = mutate_lines(&mut rng, &games);
        // `arena stats`: checked reading, then the statistics.
        let path = tmp.path().join("stats.jsonl");
        std::fs::write(&path, &text).unwrap();
        let outcome = no_panic("stats", || {
            validate::read_checked(&path, &shape)
                .map(|c| summary::summarize(&t, &shape.schedule, &c.records, None))
        });
        tally("stats", "stats.jsonl", &text, outcome);
        // `arena run --resume` (every fourth case: a resume may replay games).
        if n % 4 == 0 {
            let dir = scratch(tmp.path(), &good, n);
            std::fs::write(dir.join("games.jsonl"), &text).unwrap();
            let options = RunOptions {
                jobs: 1,
                resume: true,
                out_dir: dir,
                shard: None,
                stop: Arc::clone(&stop),
                live: Default::default(),
            };
            let outcome = no_panic("resume", || {
                arena::tournament::run(&t, &options, &mut |_| {})
            });
            tally("resume", "games.jsonl", &text, outcome);
        }
        // `arena merge`, with the first shard damaged.
        if n % 2 == 0 {
            let text = mutate_lines(&mut rng, &shard_text);
            let dir = scratch(tmp.path(), &sharded, n);
            std::fs::create_dir_all(dir.join("shards")).unwrap();
            for entry in std::fs::read_dir(sharded.join("shards")).unwrap().flatten() {
                std::fs::copy(entry.path(), dir.join("shards").join(entry.file_name())).unwrap();
            }
            std::fs::write(dir.join("shards/shard-0-of-2.jsonl"), &text).unwrap();
            let outcome = no_panic("merge", || merge::merge(&dir));
            tally("merge", "shard-0-of-2.jsonl", &text, outcome);
        }
    }
    const STATE_CASES: usize = 1000;
    for n in 0..STATE_CASES {
        let text = match rng.below(4) {
            0 => mutate_lines(&mut rng, &state),
            _ => {
                let mut v: serde_json::Value = serde_json::from_str(&state).unwrap();
                for _ in 0..1 + rng.below(2) {
                    mutate_value(&mut rng, &mut v);
                }
                v.to_string()
            }
        };
        let dir = scratch(tmp.path(), &tuned, n);
        std::fs::write(dir.join("state.json"), &text).unwrap();
        let options = JobOptions {
            jobs: 1,
            resume: true,
            out_dir: dir,
            stop: Arc::clone(&stop),
        };
        let outcome = no_panic("tune --resume", || {
            arena::tune::run(&tune, &options, None, &mut |_| {})
        });
        tally("tune --resume", "state.json", &text, outcome);
    }
    eprintln!("record and checkpoint fuzz: {refused} refused, {accepted} accepted");
    assert!(
        refused > 1000 && accepted > 100,
        "{refused} refused, {accepted} accepted"
    );

    // A sample through the binary: exit 0 or 2 with one line naming file and line.
    for n in 0..12 {
        let text = mutate_lines(&mut rng, &games);
        let dir = scratch(tmp.path(), &good, 10_000 + n);
        std::fs::write(dir.join("games.jsonl"), &text).unwrap();
        let d = dir.to_str().unwrap();
        for args in [
            vec!["stats", d],
            vec![
                "run",
                &config,
                "--resume",
                "--quiet",
                "--no-report",
                "--out",
                d,
            ],
        ] {
            binary_outcome(&args, "games.jsonl", &text);
        }
        let mut v: serde_json::Value = serde_json::from_str(&state).unwrap();
        mutate_value(&mut rng, &mut v);
        let dir = scratch(tmp.path(), &tuned, 20_000 + n);
        std::fs::write(dir.join("state.json"), v.to_string()).unwrap();
        binary_outcome(
            &[
                "tune",
                &tune_config,
                "--resume",
                "--quiet",
                "--verify-pairs",
                "0",
                "--out",
                dir.to_str().unwrap(),
            ],
            "state.json",
            &v.to_string(),
        );
    }
}

/// Runs arena: success, or exit 2 with one line that names `file` and a line.
fn binary_outcome(args: &[&str], file: &str, fed: &str) {
    let out = arena().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked"),
        "{args:?} panicked: {stderr}\nfed:\n{fed}"
    );
    match out.status.code() {
        Some(0) => {}
        Some(2) => {
            let errors: Vec<&str> = stderr
                .lines()
                .filter(|l| l.starts_with("arena: error"))
                .collect();
            assert_eq!(errors.len(), 1, "{args:?}: {stderr}");
            assert!(
                names_file_and_line(errors[0], file),
                "{args:?}: {stderr}\nfed:\n{fed}"
            );
        }
        other => panic!("{args:?}: exit {other:?}: {stderr}\nfed:\n{fed}"),
    }
}
