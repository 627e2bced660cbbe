//! The help a user reads, through the real binary: `arena bench --help` says what each
//! switch saves, the examples of the help (`stats --anchor`, move lists) run as written,
//! and bench rows label every figure.

use std::path::PathBuf;

use crate::common::run_ok;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn engine(name: &str) -> String {
    root()
        .join("configs/engines")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn bench_help_says_what_each_switch_saves() {
    let help = run_ok(&["bench", "--help"]);
    assert!(
        !help.lines().any(|l| l.trim_end().ends_with("issue 11:")),
        "no sentence left unfinished: {help}"
    );
    // The figures it gives are the bench's own (node counts: the same on any machine).
    for (figure, args) in [
        (
            "depth 7: 45,122 with all on",
            vec!["ataxx-modern.toml", "ataxx-middlegame.txt", "7"],
        ),
        (
            "without lmr 103,210",
            vec!["ataxx-modern.toml", "ataxx-middlegame.txt", "7", "lmr"],
        ),
        (
            "depth 8: 68,019 with all on",
            vec!["gomoku-modern.toml", "gomoku-15x15.txt", "8"],
        ),
    ] {
        assert!(help.contains(figure), "{figure}: {help}");
        let positions = root().join("configs/positions").join(args[1]);
        let mut cmd = vec![
            "bench".to_string(),
            engine(args[0]),
            "--positions".into(),
            positions.display().to_string(),
            "--depth".into(),
            args[2].into(),
        ];
        if let Some(off) = args.get(3) {
            cmd.extend(["--set".into(), format!("search.{off}=false")]);
        }
        let cmd: Vec<&str> = cmd.iter().map(String::as_str).collect();
        let out = run_ok(&cmd);
        let nodes: String = figure
            .rsplit(' ')
            .find(|w| w.contains(','))
            .unwrap()
            .replace(',', "");
        assert!(
            out.lines()
                .last()
                .unwrap()
                .trim_start()
                .starts_with(&format!("{nodes} nodes")),
            "{figure}: {out}"
        );
    }
}

/// Issue 44, item 21: `arena stats --help` anchored its example to `seed000-threat`, an
/// engine the run it names does not have; the example's folder is a shipped config's
/// run, and its anchor one of that config's engines.
#[test]
fn the_stats_example_anchors_an_engine_of_its_run() {
    let help = run_ok(&["stats", "--help"]);
    let example = help
        .lines()
        .find_map(|l| l.trim().strip_prefix("arena stats "))
        .unwrap_or_else(|| panic!("{help}"));
    let words: Vec<&str> = example.split_whitespace().collect();
    let run = words[0]
        .strip_prefix("results/")
        .unwrap_or_else(|| panic!("{example}"));
    let anchor = words
        .iter()
        .skip_while(|w| **w != "--anchor")
        .nth(1)
        .unwrap_or_else(|| panic!("{example}"));
    let config = root().join("configs").join(format!("{run}.toml"));
    let text = std::fs::read_to_string(&config).unwrap();
    let parsed: toml::Table = text.parse().unwrap();
    assert_eq!(parsed["name"].as_str(), Some(run));
    let names: Vec<&str> = parsed["engines"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e.get("name").and_then(|n| n.as_str()))
        .collect();
    assert!(names.contains(anchor), "--anchor {anchor}: {names:?}");
}

/// Issue 44, item 21: the help of `--moves` gave `b2 a1a3 0000` for Ataxx, illegal from
/// the start (b2 touches white's a1, and a pass needs a side without moves). Every move
/// list the help gives is played from the start of its game.
#[test]
fn the_moves_examples_of_the_help_are_legal() {
    let help = run_ok(&["show", "--help"]);
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let doc = flat
        .split("--moves <MOVES>")
        .nth(1)
        .unwrap_or_else(|| panic!("{help}"));
    let examples: Vec<&str> = doc.split('`').skip(1).step_by(2).take(3).collect();
    assert_eq!(examples.len(), 3, "{doc}");
    let after = |example: &str| {
        doc.split(&format!("`{example}`"))
            .nth(1)
            .unwrap_or_default()
            .to_string()
    };
    for example in examples {
        let game = if after(example).trim_start().starts_with("(Ataxx") {
            "ataxx"
        } else {
            "gomoku"
        };
        let out = crate::common::arena()
            .args(["show", game, "--moves", example])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "arena show {game} --moves '{example}': {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(doc.contains("(Ataxx"), "an Ataxx example: {doc}");
}

/// Issue 44, item 21: `arena bench`'s rows had no labels ("best j8 20450 nodes 74778"
/// read as 20450 nodes); the score is labelled, and the totals are as they were.
#[test]
fn bench_rows_label_every_figure() {
    let out = run_ok(&["bench", &engine("ataxx-seed004.toml"), "--depth", "2"]);
    let rows: Vec<&str> = out.lines().filter(|l| l.contains(" best ")).collect();
    assert!(!rows.is_empty(), "{out}");
    for row in rows {
        let words: Vec<&str> = row.split_whitespace().collect();
        let at = |w: &str| words.iter().position(|x| *x == w);
        let (best, score, nodes) = (at("best"), at("score"), at("nodes"));
        assert!(
            best.is_some() && best < score && score < nodes,
            "best, score, nodes: {row}"
        );
        assert!(row.trim_end().ends_with(" ms"), "{row}");
    }
    let last = out.lines().last().unwrap();
    let total: u64 = last.split_whitespace().next().unwrap().parse().unwrap();
    assert!(total > 0 && last.contains(" nodes "), "{last}");
}
