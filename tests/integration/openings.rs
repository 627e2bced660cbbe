//! The "Openings" section of docs/matches.md, through the real binary: balanced openings by
//! default in `arena match`, transforms, and the split-pairs figures.

use std::path::Path;

use arena::tournament::{openings::SHIPPED, read_records};

use crate::common::{arena, root, run_bad_input, run_ok, tictactoe_config, write};

fn engine(name: &str) -> String {
    root()
        .join(format!("configs/engines/{name}.toml"))
        .display()
        .to_string()
}

/// A quick gomoku match (depth 1, 12 plies at most) into `out`, with `extra` flags.
fn gomoku_match(out: &Path, extra: &[&str]) -> String {
    let e = engine("gomoku-seed003-threat");
    let mut args = vec![
        "match",
        &e,
        &e,
        "--depth",
        "1",
        "--max-plies",
        "12",
        "--quiet",
        "--no-report",
        "--out",
    ];
    let out = out.to_str().unwrap();
    args.push(out);
    args.extend_from_slice(extra);
    run_ok(&args)
}

fn openings_of(dir: &Path) -> Vec<(u64, String)> {
    read_records(&dir.join("games.jsonl"))
        .unwrap()
        .records
        .into_iter()
        .map(|r| (r.pair, r.opening))
        .collect()
}

/// docs/matches.md: `arena match` plays the shipped balanced openings of gomoku (and of renju and
/// Ataxx); `run.toml` says `kind = "balanced"`; `--plies N` gives random ones.
#[test]
fn match_plays_the_shipped_balanced_openings_by_default() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m");
    gomoku_match(&out, &["--rounds", "3"]);
    let run = std::fs::read_to_string(out.join("run.toml")).unwrap();
    assert!(run.contains("kind = \"balanced\""), "{run}");
    // The first three lines of the shipped file, in order, as move lists.
    let set = SHIPPED.iter().find(|s| s.game == "gomoku").unwrap();
    let file = root().join(set.path);
    let list = arena::tournament::openings::read_file::<arena::game::Mnk>(
        &file,
        &arena::game::MnkConfig::gomoku(),
    )
    .unwrap();
    let played = openings_of(&out);
    assert_eq!(played.len(), 6);
    for (pair, opening) in &played {
        assert_eq!(*opening, list[*pair as usize].position, "pair {pair}");
    }
    // From another folder, for Ataxx and renju too: the sets are built into the binary.
    let quick = |name: &str, args: &[&str]| {
        let out = tmp.path().join(name);
        let o = arena()
            .current_dir(tmp.path())
            .arg("match")
            .args(args)
            .args(["--depth", "1", "--quiet", "--no-report", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let run = std::fs::read_to_string(out.join("run.toml")).unwrap();
        assert!(run.contains("kind = \"balanced\""), "{run}");
        out
    };
    let ataxx = engine("ataxx-seed004");
    let out = quick("x", &[&ataxx, &ataxx, "--rounds", "1", "--max-plies", "4"]);
    let set = SHIPPED.iter().find(|s| s.game == "ataxx").unwrap();
    let first = set.text.lines().find(|l| !l.starts_with('#')).unwrap();
    assert_eq!(openings_of(&out)[0].1, first);
    // Renju has its own set: a renju match of a gomoku engine plays it.
    let gomoku = engine("gomoku-seed003-threat");
    let out = quick(
        "renju",
        &[
            &gomoku,
            &gomoku,
            "--game",
            "renju",
            "--rounds",
            "2",
            "--max-plies",
            "12",
        ],
    );
    let set = SHIPPED.iter().find(|s| s.game == "renju").unwrap();
    let list = arena::tournament::openings::read_file::<arena::game::Mnk>(
        &root().join(set.path),
        &arena::game::MnkConfig::renju(),
    )
    .unwrap();
    for (pair, opening) in &openings_of(&out) {
        assert_eq!(*opening, list[*pair as usize].position, "renju pair {pair}");
    }
    let random = tmp.path().join("r");
    gomoku_match(&random, &["--rounds", "1", "--plies", "4"]);
    let run = std::fs::read_to_string(random.join("run.toml")).unwrap();
    assert!(
        run.contains("kind = \"random\"") && run.contains("plies = 4"),
        "{run}"
    );
}

/// docs/matches.md: games without a shipped set keep random 2-ply openings (and --help says so);
/// a config asking for a balanced set they do not have is refused.
#[test]
fn games_without_a_shipped_set_keep_random_openings() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    let e = engine("tictactoe-perfect");
    run_ok(&[
        "match",
        &e,
        &e,
        "--rounds",
        "1",
        "--quiet",
        "--no-report",
        "--out",
        out.to_str().unwrap(),
    ]);
    let run = std::fs::read_to_string(out.join("run.toml")).unwrap();
    assert!(run.contains("kind = \"random\""), "{run}");
    let help = run_ok(&["match", "--help"]);
    for set in SHIPPED {
        assert!(help.contains(set.path), "--help names {}: {help}", set.path);
    }
    assert!(
        help.contains("have none and play random 2-ply openings"),
        "{help}"
    );
    let config = tictactoe_config(tmp.path(), "b", "");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("kind = \"random\"\nplies = 1", "kind = \"balanced\"");
    std::fs::write(&config, text).unwrap();
    let e = run_bad_input(&["run", &config, "--quiet"]);
    assert!(
        e.contains("no balanced openings ship for tictactoe")
            && e.contains("arena openings tictactoe --balance"),
        "{e}"
    );
}

/// docs/matches.md: each shipped set's header holds the `arena openings --balance` command that
/// made it.
#[test]
fn the_shipped_sets_say_how_they_were_made() {
    for set in SHIPPED {
        let command = set
            .text
            .lines()
            .take_while(|l| l.starts_with('#'))
            .find(|l| l.starts_with("# arena openings "))
            .unwrap_or_else(|| panic!("{}: no command in the header", set.path));
        assert!(
            command.contains(set.game) && command.contains("--balance"),
            "{command}"
        );
        let on_disk = std::fs::read_to_string(root().join(set.path)).unwrap();
        assert_eq!(on_disk, set.text, "{} is the built-in set", set.path);
    }
}

/// docs/matches.md: `--transform` plays a file's openings in the board's symmetries: one line
/// serves 8 distinct pairs, both games of a pair have the same image, and the games are
/// the same when the match is played again.
#[test]
fn transforms_serve_eight_pairs_from_one_line_deterministically() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), "one.txt", "# one line\n0,0, 1,0, 1,2\n");
    let play = |name: &str| {
        let out = tmp.path().join(name);
        gomoku_match(&out, &["--rounds", "8", "--openings", &file, "--transform"]);
        out
    };
    let first = play("a");
    let played = openings_of(&first);
    let mut by_pair = std::collections::BTreeMap::new();
    for (pair, opening) in &played {
        let o = by_pair.entry(*pair).or_insert_with(|| opening.clone());
        assert_eq!(o, opening, "both games of pair {pair} start alike");
    }
    let distinct: std::collections::HashSet<&String> = by_pair.values().collect();
    assert_eq!(distinct.len(), 8, "{by_pair:?}");
    let again = play("b");
    let records = |dir: &Path| -> Vec<_> {
        let mut r = read_records(&dir.join("games.jsonl")).unwrap().records;
        r.sort_by_key(|r| r.game);
        r.into_iter().map(|r| r.without_times()).collect()
    };
    assert_eq!(records(&first), records(&again));
}

/// docs/matches.md: the console and summary.json give the split pairs and the first player's
/// score with its interval.
#[test]
fn the_summary_shows_split_pairs_and_the_first_players_interval() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("s");
    let printed = gomoku_match(&out, &["--rounds", "2"]);
    let line = printed
        .lines()
        .find(|l| l.starts_with("first player (black, who moves first"))
        .unwrap_or_else(|| panic!("{printed}"));
    assert!(
        line.contains("over 4 games") && line.contains(" of 2 pairs split 1-1 ("),
        "{line}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["pair_shares"]["pairs"], 2);
    let fp = &summary["first_player"];
    assert!(fp["low"].as_f64().unwrap() <= fp["score"].as_f64().unwrap());
    assert!(fp["score"].as_f64().unwrap() <= fp["high"].as_f64().unwrap());
    // `arena stats` prints the same line from the records, and the report has it.
    let stats = run_ok(&["stats", out.to_str().unwrap()]);
    assert!(stats.contains(line), "{stats}");
    run_ok(&["report", out.to_str().unwrap()]);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("split pairs") && md.contains("first player \\[95 %\\]"),
        "{md}"
    );
    assert!(
        md.contains("Over all games the first player scored "),
        "{md}"
    );
    assert!(md.contains(" of 2 pairs split 1-1 ("), "{md}");
}

/// docs/matches.md: a file of lines of the shipped balanced set (held-out openings) is
/// that set: when most pairs split, the warning does not send the run to the set it
/// already plays, but to a set balanced for its engines.
#[test]
fn held_out_lines_of_the_shipped_set_get_the_shipped_sets_advice() {
    let tmp = tempfile::tempdir().unwrap();
    let set = SHIPPED.iter().find(|s| s.game == "gomoku").unwrap();
    let held: Vec<&str> = set
        .text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .skip(100)
        .take(12)
        .collect();
    let file = tmp.path().join("held.txt");
    std::fs::write(&file, held.join("\n") + "\n").unwrap();
    // One engine against itself: each pair's two games are one game with the colours
    // swapped, so every decided pair splits.
    let e = engine("gomoku-seed003-threat");
    let out = tmp.path().join("held");
    let printed = run_ok(&[
        "match",
        &e,
        &e,
        "--depth",
        "1",
        "--rounds",
        "12",
        "--openings",
        file.to_str().unwrap(),
        "--quiet",
        "--no-report",
        "--out",
        out.to_str().unwrap(),
    ]);
    let warning = printed
        .lines()
        .find(|l| l.contains("pairs split 1-1") && l.starts_with("warning"))
        .unwrap_or_else(|| panic!("a split-pairs warning in {printed}"));
    assert!(
        warning.contains("already the shipped balanced openings"),
        "{warning}"
    );
    assert!(!warning.contains("use the shipped"), "{warning}");
}

/// `arena match --help`: a file of openings in order plays the same games whatever the
/// seed; `--shuffle` draws the order from `--seed` (the same order for the same seed);
/// with random openings it is refused, naming the flag.
#[test]
fn shuffle_draws_the_opening_order_from_the_seed() {
    let tmp = tempfile::tempdir().unwrap();
    let play = |name: &str, extra: &[&str]| {
        let out = tmp.path().join(name);
        let mut args = vec!["--rounds", "4"];
        args.extend_from_slice(extra);
        gomoku_match(&out, &args);
        let mut played = openings_of(&out);
        played.sort();
        played.dedup();
        played.into_iter().map(|(_, o)| o).collect::<Vec<_>>()
    };
    let in_order = play("o1", &["--seed", "1"]);
    assert_eq!(in_order.len(), 4, "{in_order:?}");
    assert_eq!(
        in_order,
        play("o2", &["--seed", "2"]),
        "the seed leaves the order"
    );
    // ... and, at a depth limit, the games themselves (move for move; each record's
    // own seed differs).
    let games = |dir: &str| -> Vec<_> {
        let mut r = read_records(&tmp.path().join(dir).join("games.jsonl"))
            .unwrap()
            .records;
        r.sort_by_key(|r| r.game);
        r.into_iter()
            .map(|r| (r.game, r.opening, r.moves))
            .collect()
    };
    assert_eq!(games("o1"), games("o2"), "another seed, the same games");
    let run = std::fs::read_to_string(tmp.path().join("o1/run.toml")).unwrap();
    assert!(!run.contains("shuffle"), "{run}");

    let shuffled = play("s1", &["--seed", "1", "--shuffle"]);
    let run = std::fs::read_to_string(tmp.path().join("s1/run.toml")).unwrap();
    assert!(run.contains("order = \"shuffle\""), "{run}");
    assert_eq!(shuffled.len(), 4);
    assert_ne!(
        shuffled, in_order,
        "shuffled openings are not the file's first four"
    );
    assert_eq!(
        shuffled,
        play("s1b", &["--seed", "1", "--shuffle"]),
        "same seed, same order"
    );
    let other = play("s2", &["--seed", "2", "--shuffle"]);
    assert_ne!(shuffled, other, "another seed, another order");
    // Every shuffled opening is one of the shipped set's (as a move list it starts some
    // game of a long match in order).
    let all: std::collections::HashSet<String> = {
        let out = tmp.path().join("all");
        let set = SHIPPED.iter().find(|s| s.game == "gomoku").unwrap();
        let lines = set
            .text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
        let n = lines.count().to_string();
        gomoku_match(&out, &["--rounds", &n]);
        openings_of(&out).into_iter().map(|(_, o)| o).collect()
    };
    for o in shuffled.iter().chain(&other) {
        assert!(all.contains(o), "{o} is not a shipped opening");
    }

    let (a, b) = (
        engine("gomoku-seed003-threat"),
        engine("gomoku-seed000-threat"),
    );
    let refused = run_bad_input(&["match", &a, &b, "--plies", "4", "--shuffle"]);
    assert!(refused.contains("--shuffle"), "{refused}");
}

/// Issue 44, item 17: `random_plies = K` keeps a list distinct: once its openings (here
/// one line in its 8 symmetries) come round again, each round plays its opening with K
/// seeded random plies after it; the same on one thread, two threads and two shards
/// merged.
#[test]
fn random_plies_give_every_pair_its_own_opening_on_any_split() {
    let tmp = tempfile::tempdir().unwrap();
    let e = engine("gomoku-seed003-threat");
    let file = write(tmp.path(), "one.txt", "0,0, 1,0, 1,2\n");
    let config = |name: &str, plies: &str| {
        write(
            tmp.path(),
            &format!("{name}.toml"),
            &format!(
                "name = \"{name}\"\ngame = \"gomoku\"\nrounds = 12\nseed = 5\n\n[openings]\n\
                 kind = \"file\"\nfile = \"{file}\"\ntransform = true\n{plies}\n\n\
                 [adjudication]\nmax_plies = 14\n\n\
                 [[engines]]\nfile = \"{e}\"\nname = \"a\"\nset = {{ \"search.depth\" = 1 }}\n\n\
                 [[engines]]\nfile = \"{e}\"\nname = \"b\"\nset = {{ \"search.depth\" = 1, \
                 \"table.defence\" = 1.5 }}\n"
            ),
        )
    };
    let with = config("plies", "random_plies = 2");
    let records = |dir: &Path| -> Vec<_> {
        let mut r = read_records(&dir.join("games.jsonl")).unwrap().records;
        r.sort_by_key(|r| r.game);
        r.into_iter().map(|r| r.without_times()).collect()
    };
    let run = |config: &str, name: &str, extra: &[&str]| {
        let out = tmp.path().join(name);
        let mut args = vec!["run", config, "--quiet", "--no-report", "--out"];
        args.push(out.to_str().unwrap());
        args.extend_from_slice(extra);
        run_ok(&args);
        out
    };
    let one = run(&with, "one", &["--jobs", "1"]);
    let played = records(&one);
    assert_eq!(played.len(), 24);
    let plain = records(&run(&config("plain", ""), "plain", &["--jobs", "1"]));
    let mut by_pair = std::collections::BTreeMap::new();
    for (r, base) in played.iter().zip(&plain) {
        let o = by_pair.entry(r.pair).or_insert_with(|| r.opening.clone());
        assert_eq!(o, &r.opening, "both games of pair {} start alike", r.pair);
        if r.pair < 8 {
            // The first pass: the line's 8 images as they are.
            assert_eq!(r.opening, base.opening, "pair {}", r.pair);
        } else {
            // Then the image of the round with two more stones.
            assert!(
                r.opening.starts_with(&base.opening) && r.opening.len() > base.opening.len(),
                "pair {}: {} from {}",
                r.pair,
                r.opening,
                base.opening
            );
        }
    }
    let distinct: std::collections::HashSet<&String> = by_pair.values().collect();
    assert_eq!(distinct.len(), 12);
    assert_eq!(records(&run(&with, "two", &["--jobs", "2"])), played);
    let sharded = tmp.path().join("sharded");
    for shard in ["0/2", "1/2"] {
        let mut args = vec![
            "run",
            with.as_str(),
            "--quiet",
            "--no-report",
            "--shard",
            shard,
        ];
        args.extend_from_slice(&["--out", sharded.to_str().unwrap()]);
        run_ok(&args);
    }
    run_ok(&["merge", sharded.to_str().unwrap()]);
    assert_eq!(records(&sharded), played);
}
