//! Messages a user reads (issue 20, item 21): a config error names the key's own line,
//! never a comment that mentions it; a mistyped `--set` name gets the nearest names
//! first and the error names the flag that was given; a type error says the TOML type
//! and how to write it; `arena bench --help` says what each switch saves.

use std::path::PathBuf;

use crate::common::{run_bad_input, run_ok, write};

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
fn a_config_error_names_the_key_line_never_a_comment() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("engines")).unwrap();
    write(
        &tmp.path().join("engines"),
        "bad.toml",
        "name = \"bad\"\ngame = \"gomoku\"\ntable = \"missing.toml\"\n[search]\ndepth = 1\n",
    );
    let config = write(
        tmp.path(),
        "t.toml",
        "# engines/bad.toml names missing.toml, a table that is not there\n\
         name = \"t\"\ngame = \"gomoku\"\nrounds = 1\n\n\
         [[engines]]\nname = \"ok\"\nsearch = { depth = 1 }\n\n\
         [[engines]]\n# mine: table = \"tables/none.toml\"\nname = \"mine\"\n\
         table = \"tables/none.toml\"\nsearch = { depth = 1 }\n\n\
         [[engines]]\nfile = \"engines/bad.toml\"\n",
    );
    // The inline engine's missing table: line 13 holds `table = ...` (line 12 is a
    // comment saying the same).
    let e = run_bad_input(&["run", &config, "--quiet"]);
    assert!(e.contains("t.toml:13: engines[2]: key `table`"), "{e}");
    // The file engine's missing table: at its `file = ...` line, not the comment on line 1.
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "table = \"tables/none.toml\"\nsearch",
        "table = \"none\"\nsearch",
    );
    std::fs::write(&config, text).unwrap();
    let e = run_bad_input(&["run", &config, "--quiet"]);
    assert!(e.contains("t.toml:17: engines[3]: key `file`"), "{e}");
}

#[test]
fn a_mistyped_set_gets_the_nearest_names_and_the_flag_given() {
    let seed = engine("gomoku-seed003-threat.toml");
    let e = run_bad_input(&["analyse", &seed, "--depth", "1", "--set", "search.dpth=3"]);
    let guess = e
        .find("did you mean `search.depth`?")
        .unwrap_or_else(|| panic!("a guess: {e}"));
    let list = e.find("numeric parameters:").expect("then the list");
    assert!(guess < list, "the guess comes first: {e}");
    for (flag, which) in [
        ("--set", "first"),
        ("--set-a", "first"),
        ("--set-b", "second"),
    ] {
        let e = run_bad_input(&["match", &seed, &seed, "--depth", "1", flag, "search.dpth=3"]);
        assert!(
            e.contains(&format!("the {which} engine"))
                && e.contains(&format!(": {flag} search.dpth=3:")),
            "{flag}: {e}"
        );
        assert!(e.contains("did you mean `search.depth`?"), "{e}");
    }
    // No guess for a name nowhere near one.
    let e = run_bad_input(&["analyse", &seed, "--depth", "1", "--set", "colour=3"]);
    assert!(!e.contains("did you mean"), "{e}");
}

#[test]
fn type_errors_say_the_toml_type_and_how_to_write_it() {
    let seed = engine("gomoku-seed003-threat.toml");
    let e = run_bad_input(&["analyse", &seed, "--set", "search.ordering=3"]);
    assert!(
        e.contains("expected an array (TOML: ordering = [\"tt_move\"")
            && e.contains("found an integer"),
        "{e}"
    );
    let e = run_bad_input(&["analyse", &seed, "--set", "search.depth=[3]"]);
    assert!(e.contains("expected an integer (TOML: depth = "), "{e}");
    let tmp = tempfile::tempdir().unwrap();
    for (value, want) in [
        (
            "3",
            "expected an array (TOML: ordering = [1, 2]), found an integer `3`",
        ),
        (
            "\"threat\"",
            "expected an array (TOML: ordering = [1, 2]), found a string",
        ),
    ] {
        let bad = write(
            tmp.path(),
            "bad.toml",
            &format!("name = \"x\"\ngame = \"gomoku\"\n[search]\ndepth = 1\nordering = {value}\n"),
        );
        let e = run_bad_input(&["analyse", &bad]);
        assert!(
            e.contains("bad.toml:5: key `ordering`: ") && e.contains(want),
            "{e}"
        );
        assert!(!e.contains("a array") && !e.contains("sequence"), "{e}");
    }
    let bad = write(
        tmp.path(),
        "bad.toml",
        "name = \"x\"\ngame = \"gomoku\"\n[search]\ndepth = 1.5\n",
    );
    let e = run_bad_input(&["analyse", &bad]);
    assert!(
        e.contains("expected an integer (TOML: depth = 3), found a float `1.5`"),
        "{e}"
    );
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

/// Issue 43: a number out of its range was refused under a key that does not exist
/// (`--set search.params.lmr_divisor=0` said "search.lmr_divisor must be at least 1");
/// every range error now comes from the parameter registry and names the real key and
/// its range, for an engine file's `[search.params]` as for `--set`.
#[test]
fn a_number_out_of_its_range_is_refused_under_its_real_key() {
    let err = run_bad_input(&[
        "bench",
        &engine("gomoku-modern.toml"),
        "--set",
        "search.params.lmr_divisor=0",
    ]);
    assert!(
        err.contains("search.params.lmr_divisor = 0 is outside its range 1..=100000"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "e.toml",
        "name = \"e\"\ngame = \"ataxx\"\n[search]\ndepth = 2\n[search.params]\nvcf_near = 2\n",
    );
    let err = run_bad_input(&["bench", &file]);
    assert!(
        err.contains("search.params.vcf_near = 2 is outside its range 0..=1"),
        "{err}"
    );
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

/// Issue 44, item 21: a weight out of its range in a table file was reported against
/// the engine file that names the table; the error names the table file, the key's
/// line and the key.
#[test]
fn a_table_weight_out_of_range_names_the_table_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let table = std::fs::read_to_string(root().join("configs/tables/gomoku/seed003.toml"))
        .unwrap()
        .replace("\nopen_three = 7500\n", "\nopen_three = 99999999999999\n");
    let line = table
        .lines()
        .position(|l| l.starts_with("open_three ="))
        .unwrap()
        + 1;
    write(tmp.path(), "wide.toml", &table);
    let engine = write(
        tmp.path(),
        "e.toml",
        "name = \"e\"\ngame = \"gomoku\"\ntable = \"wide.toml\"\n[search]\ndepth = 1\n",
    );
    let e = run_bad_input(&["bench", &engine, "--depth", "1"]);
    assert!(
        e.contains(&format!("wide.toml:{line}:")),
        "the table file and line: {e}"
    );
    assert!(e.contains("open_three"), "{e}");
    assert!(e.contains("99999999999999"), "{e}");
}
