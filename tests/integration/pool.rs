//! Issue 45 item 4: `arena stats DIR1 DIR2 ...` rates every engine over several runs'
//! games (engines matched by name, and checked to be the same engine), with Ordo's
//! options: an anchor, the first-move advantage and the draw rate with their errors,
//! and a LOS matrix.

use std::path::Path;

use crate::common::{data, run_bad_input, run_ok, write};

/// A tic-tac-toe run of deterministic engines (`(name, depth)`), as `format`, on a
/// fixed list of openings in order: each game is a pure function of who plays which
/// colour from which opening, whatever run it is in.
fn tictactoe_run(dir: &Path, name: &str, format: &str, engines: &[(&str, u32)]) -> String {
    write(dir, "openings.txt", "a1\nb2\nc1\nb1\na2b2\nc3a1\n");
    let mut text = format!(
        "name = \"{name}\"\ngame = \"tictactoe\"\nformat = \"{format}\"\nrounds = 6\n\
         seed = {}\n\n[openings]\nkind = \"file\"\nfile = \"openings.txt\"\n\n",
        name.len() * 7
    );
    for (engine, depth) in engines {
        text.push_str(&format!(
            "[[engines]]\nname = \"{engine}\"\nsearch = {{ depth = {depth}, tt_mb = 1 }}\n\n"
        ));
    }
    let config = write(dir, &format!("{name}.toml"), &text);
    let out = dir.join(name);
    run_ok(&[
        "run",
        &config,
        "--quiet",
        "--no-report",
        "--out",
        out.to_str().unwrap(),
    ]);
    out.display().to_string()
}

/// The rating list from its table on: without the header that names the folders.
fn ratings(out: &str) -> String {
    let start = out
        .find("  #  engine")
        .unwrap_or_else(|| panic!("no table in:\n{out}"));
    out[start..].to_string()
}

#[test]
fn stats_over_two_folders_equals_one_folder_holding_both_runs_games() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let a = tictactoe_run(dir, "a", "round-robin", &[("d1", 1), ("d2", 2)]);
    let b = tictactoe_run(dir, "b", "round-robin", &[("d2", 2), ("d4", 4)]);
    // d2 against d1 and d4 from the same openings: the games of a and b together.
    let both = tictactoe_run(dir, "both", "gauntlet", &[("d2", 2), ("d1", 1), ("d4", 4)]);
    let two = run_ok(&["stats", &a, &b]);
    assert!(
        two.starts_with("rating list: tictactoe, 3 engines, 24 games from 2 runs"),
        "{two}"
    );
    let one = run_ok(&["stats", &both, "--list"]);
    assert_eq!(ratings(&two), ratings(&one));
    for line in ["first move ", "draw rate ", "LOS "] {
        assert!(two.contains(line), "{line}: {two}");
    }
    // The same with an anchor and a held first move.
    let flags = [
        "--anchor",
        "d2",
        "--anchor-elo",
        "1500",
        "--first-move",
        "0",
    ];
    let two = run_ok(&[&["stats", a.as_str(), b.as_str()][..], &flags].concat());
    let one = run_ok(&[&["stats", both.as_str()][..], &flags].concat());
    assert_eq!(ratings(&two), ratings(&one));
    assert_eq!(elo_of(&two, "d2"), 1500.0, "{two}");
    // With the first move held at 0 the list is the one-folder standings' ratings.
    let standings = run_ok(&["stats", &both, "--anchor", "d2"]);
    let list = run_ok(&[
        "stats",
        &both,
        "--list",
        "--anchor",
        "d2",
        "--first-move",
        "0",
    ]);
    for engine in ["d1", "d4"] {
        let elo = |text: &str, column: usize| -> String {
            text.lines()
                .find_map(|l| {
                    let words: Vec<&str> = l.split_whitespace().collect();
                    (words.get(1) == Some(&engine)).then(|| words[column].to_string())
                })
                .unwrap_or_else(|| panic!("no {engine} in {text}"))
        };
        assert_eq!(elo(&standings, 2), elo(&list, 2), "{standings}\n{list}");
    }
}

#[test]
fn same_named_engines_must_be_the_same_engine() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let a = tictactoe_run(dir, "a", "round-robin", &[("d1", 1), ("d2", 2)]);
    let other = tictactoe_run(dir, "other", "round-robin", &[("d2", 3), ("d4", 4)]);
    let e = run_bad_input(&["stats", &a, &other]);
    assert!(
        e.contains("engine 'd2' is not the same engine in")
            && e.contains(&a)
            && e.contains(&other)
            && e.contains("(search.depth: 2 | 3)"),
        "{e}"
    );
    let e = run_bad_input(&["stats", &a, &a]);
    assert!(e.contains("same folder"), "{e}");
    let e = run_bad_input(&["stats", &a, &other, "--sprt", "0,5"]);
    assert!(e.contains("--sprt"), "{e}");
}

/// A shipped engine config, at `depth`.
fn engine(name: &str, depth: u32) -> String {
    let path = data(&format!("../../configs/engines/{name}.toml"));
    format!(
        "[[engines]]\nfile = \"{}\"\nset = {{ \"search.depth\" = {depth} }}\n\n",
        path.display()
    )
}

/// The Elo after `engine`'s name in a rating list.
fn elo_of(out: &str, engine: &str) -> f64 {
    out.lines()
        .find_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            (words.get(1) == Some(&engine)).then(|| words[2].parse().expect("an Elo"))
        })
        .unwrap_or_else(|| panic!("no {engine} in {out}"))
}

/// The number after `label` in the line that starts with it.
fn after(out: &str, label: &str) -> f64 {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or_else(|| panic!("no '{label}' in {out}"));
    line.split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no number after '{label}' in {line}"))
}

/// The rating list agrees with Ordo (michiguel/Ordo 1.2.6, commit 17eec77, built with
/// make) on these 240 games: `arena export DIR --pgn -o h.pgn`, then
/// `ordo -p h.pgn -a 0 -W -D -z 200.24 -N 3` (arena's logistic scale) and
/// `ordo -p h.pgn -A seed000-none -a 1000 -W -D -z 200.24 -N 3` gave the ratings below,
/// "White advantage = -46.89" (arena's PGN names the first player Black, and every
/// opening here leaves black to move: arena's first-move advantage is its negative) and
/// "Draw rate (equal opponents) = 53.85 %". With `-s 2000` Ordo's simulated errors were
/// ±51.6, 48.8, 47.3, 52.0, 59.3 (95 %), white advantage ±19.87 and draw rate ±5.14 %
/// (one standard deviation); arena's are ±51.5, 47.6, 46.5, 50.9, 57.8, ±39.2/1.96 = 20.0
/// and ±9.7/1.96 = 4.9 %.
#[test]
fn rating_list_agrees_with_ordo() {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = "name = \"h\"\ngame = \"mnk:9,9,5\"\nrounds = 12\nseed = 45\n\n\
                    [openings]\nkind = \"random\"\nplies = 2\n\n\
                    [adjudication]\nmax_plies = 30\n\n"
        .to_string();
    for (name, depth) in [
        ("gomoku-seed003-threat", 2),
        ("gomoku-seed000-threat", 1),
        ("gomoku-seed000-none", 2),
        ("gomoku-seed001-topk", 1),
        ("gomoku-seed003-static", 1),
    ] {
        text.push_str(&engine(name, depth));
    }
    let config = write(tmp.path(), "h.toml", &text);
    let out = tmp.path().join("h");
    let d = out.to_str().unwrap();
    run_ok(&["run", &config, "--quiet", "--no-report", "--out", d]);
    let ordo = [
        ("seed003-threat", 210.637, 1080.615),
        ("seed000-none", 130.023, 1000.0),
        ("seed000-threat", 95.656, 965.633),
        ("seed001-topk", -171.963, 698.015),
        ("seed003-static", -264.353, 605.624),
    ];
    let list = run_ok(&["stats", d, "--list"]);
    let anchored = run_ok(&[
        "stats",
        d,
        "--list",
        "--anchor",
        "seed000-none",
        "--anchor-elo",
        "1000",
    ]);
    for (engine, pool, anchor) in ordo {
        let (ours, ours_anchored) = (elo_of(&list, engine), elo_of(&anchored, engine));
        assert!((ours - pool).abs() < 1.0, "{engine}: {ours}, Ordo {pool}");
        assert!(
            (ours_anchored - anchor).abs() < 1.0,
            "{engine}: {ours_anchored}, Ordo {anchor}"
        );
    }
    let first = after(&list, "first move ");
    assert!(
        (first - 46.89).abs() < 0.5,
        "first move {first}, Ordo -(-46.89)"
    );
    let draw = after(&list, "draw rate ");
    assert!((draw - 53.85).abs() < 0.5, "draw rate {draw}, Ordo 53.85");
}

/// `arena report DIR1 DIR2 ...` writes the rating list `arena stats` prints as a report
/// of its own (report.html, report.md, ratings.csv, los.csv) into `--out`, reading the
/// runs' folders only; it refuses a folder that holds anything else.
#[test]
fn report_over_two_folders_writes_the_rating_list_stats_prints() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let a = tictactoe_run(dir, "a", "round-robin", &[("d1", 1), ("d2", 2)]);
    let b = tictactoe_run(dir, "b", "round-robin", &[("d2", 2), ("d4", 4)]);
    let listing = |d: &str| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        v.sort();
        v
    };
    let (before_a, before_b) = (listing(&a), listing(&b));
    let out = dir.join("ratings");
    let out_s = out.to_str().unwrap();
    let flags = ["--anchor", "d2", "--anchor-elo", "1500"];
    let printed = run_ok(
        &[
            &["report", a.as_str(), b.as_str(), "--out", out_s][..],
            &flags,
        ]
        .concat(),
    );
    assert!(
        printed.contains("report.html") && printed.contains("ratings.csv"),
        "{printed}"
    );
    assert_eq!(listing(&a), before_a, "the runs' folders are only read");
    assert_eq!(listing(&b), before_b);
    assert_eq!(
        listing(out_s),
        ["los.csv", "ratings.csv", "report.html", "report.md"]
    );
    // ratings.csv holds the Elo stats prints, engine by engine.
    let stats = run_ok(&[&["stats", a.as_str(), b.as_str()][..], &flags].concat());
    let csv = std::fs::read_to_string(out.join("ratings.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("rank,engine,elo,error,games,score,draws")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 3, "{csv}");
    for row in &rows {
        let elo: f64 = row[2].parse().unwrap();
        assert!(
            (elo - elo_of(&stats, row[1])).abs() < 0.051,
            "{}: {elo} in ratings.csv, {} printed:\n{stats}",
            row[1],
            elo_of(&stats, row[1])
        );
    }
    let d2 = rows.iter().find(|r| r[1] == "d2").unwrap();
    assert_eq!(d2[2], "1500.00");
    // The LOS matrix: a row and a column per engine, empty on the diagonal, and the two
    // halves add up to 1.
    let los = std::fs::read_to_string(out.join("los.csv")).unwrap();
    let m: Vec<Vec<&str>> = los.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(m.len(), 4, "{los}");
    for (i, row) in m.iter().enumerate().skip(1) {
        for (j, cell) in row.iter().enumerate().skip(1) {
            if i == j {
                assert_eq!(*cell, "", "{los}");
            } else {
                let (x, y): (f64, f64) = (cell.parse().unwrap(), m[j][i].parse().unwrap());
                assert!((x + y - 1.0).abs() < 1e-3, "{los}");
            }
        }
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for text in [
        "# arena rating list: 3 engines, 24 games",
        "| d2 |",
        "Draw rate",
        "First move",
        "Anchor: d2 at 1500.0",
    ] {
        assert!(md.contains(text), "{text}: {md}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<td class=\"t\">d4</td>"), "{html}");
    // Again over its own earlier report: replaced. A folder holding something else, or a
    // run's folder, is refused and left as it was.
    run_ok(&["report", &a, &b, "--out", out_s, "--quiet"]);
    let e = run_bad_input(&["report", &a, &b, "--out", &a]);
    assert!(e.contains("not a rating list's"), "{e}");
    assert_eq!(listing(&a), before_a);
    // --live watches one folder only.
    let e = run_bad_input(&["report", &a, &b, "--live", "5"]);
    assert!(e.contains("--live"), "{e}");
}

/// `arena stats --paired` recounted from the records: per opening against the shared
/// opponent, each engine's mean score over the colours both played, the candidate's
/// minus the base's, averaged, with a normal 95 % interval.
fn paired_by_hand(folders: &[&str], base: &str, engine: &str, opponent: &str) -> (usize, f64, f64) {
    use std::collections::BTreeMap;
    // (player, opening, played black) -> (points, games)
    let mut cells: BTreeMap<(String, String, bool), (f64, f64)> = BTreeMap::new();
    for folder in folders {
        let text = std::fs::read_to_string(Path::new(folder).join("games.jsonl")).unwrap();
        for line in text.lines() {
            let g: serde_json::Value = serde_json::from_str(line).unwrap();
            let black_points = match g["result"].as_str().unwrap() {
                "1-0" => 1.0,
                "0-1" => 0.0,
                _ => 0.5,
            };
            let (b, w) = (
                g["black_name"].as_str().unwrap(),
                g["white_name"].as_str().unwrap(),
            );
            let opening = g["opening"].as_str().unwrap().to_string();
            for (me, them, black, points) in [
                (b, w, true, black_points),
                (w, b, false, 1.0 - black_points),
            ] {
                if them == opponent && (me == base || me == engine) {
                    let cell = cells
                        .entry((me.to_string(), opening.clone(), black))
                        .or_default();
                    cell.0 += points;
                    cell.1 += 1.0;
                }
            }
        }
    }
    let mut differences = Vec::new();
    let openings: std::collections::BTreeSet<&String> = cells.keys().map(|k| &k.1).collect();
    for opening in openings {
        let (mut mine, mut theirs, mut colours) = (0.0, 0.0, 0.0);
        for black in [true, false] {
            let a = cells.get(&(engine.to_string(), opening.clone(), black));
            let b = cells.get(&(base.to_string(), opening.clone(), black));
            if let (Some(a), Some(b)) = (a, b) {
                mine += a.0 / a.1;
                theirs += b.0 / b.1;
                colours += 1.0;
            }
        }
        if colours > 0.0 {
            differences.push((mine - theirs) / colours);
        }
    }
    let n = differences.len() as f64;
    let mean = differences.iter().sum::<f64>() / n;
    let sd = (differences.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    (
        differences.len(),
        100.0 * mean,
        100.0 * 1.959963984540054 * sd / n.sqrt(),
    )
}

#[test]
fn paired_differences_equal_a_recount_of_the_games_over_one_or_two_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // A gauntlet of two variants against one opponent, and a third variant against the
    // same opponent in a run of its own, on the same openings.
    let g = tictactoe_run(
        dir,
        "g",
        "gauntlet",
        &[("opp", 2), ("base", 1), ("cand", 4)],
    );
    let h = tictactoe_run(dir, "h", "gauntlet", &[("opp", 2), ("cand2", 3)]);
    let out = run_ok(&["stats", &g, &h, "--paired", "base"]);
    assert!(
        out.starts_with("paired to base: 36 games from 2 runs"),
        "{out}"
    );
    let rows: Vec<&str> = out.lines().filter(|l| l.contains(" opp ")).collect();
    assert_eq!(rows.len(), 2, "one row per variant against opp:\n{out}");
    let mut moved = 0;
    for (engine, row) in ["cand", "cand2"].into_iter().zip(&rows) {
        let (n, mean, error) = paired_by_hand(&[&g, &h], "base", engine, "opp");
        assert_eq!(n, 6, "six openings");
        let words: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(words[..3], [engine, "opp", "6"], "{row}");
        assert_eq!(
            words[words.len() - 3..],
            [
                format!("{mean:+.1}"),
                "±".to_string(),
                format!("{error:.1}")
            ],
            "{row}"
        );
        moved += usize::from(mean != 0.0);
    }
    assert!(
        moved > 0,
        "the depths should score differently somewhere:\n{out}"
    );
    // One folder: the gauntlet's variant alone.
    // It writes nothing: the folder's files and their bytes stay as they were.
    let snapshot = |dir: &str| {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
            .collect();
        files.sort();
        files
    };
    let before = snapshot(&g);
    let one = run_ok(&["stats", &g, "--paired", "base"]);
    assert!(before == snapshot(&g), "--paired changed {g}");
    let row = one.lines().find(|l| l.contains(" opp ")).unwrap();
    assert!(row.starts_with("cand "), "{one}");
    assert_eq!(
        one.lines().filter(|l| l.contains(" opp ")).count(),
        1,
        "{one}"
    );
}

#[test]
fn paired_refuses_an_unknown_engine_and_runs_with_nothing_to_pair() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let a = tictactoe_run(dir, "a", "round-robin", &[("d1", 1), ("d2", 2)]);
    let e = run_bad_input(&["stats", &a, "--paired", "d9"]);
    assert!(e.contains("no engine 'd9'") && e.contains("d1, d2"), "{e}");
    // Two engines: no third one for both to meet.
    let e = run_bad_input(&["stats", &a, "--paired", "d1"]);
    assert!(e.contains("nothing to pair"), "{e}");
    let e = run_bad_input(&["stats", &a, "--paired", "d1", "--anchor", "d2"]);
    assert!(
        e.contains("--paired prints the paired differences alone"),
        "{e}"
    );
}
