//! Config errors a user reads (issue 20, item 21): a config error names the key's own
//! line, never a comment that mentions it; a mistyped `--set` name gets the nearest
//! names first and the error names the flag that was given; a type error says the TOML
//! type and how to write it; a number out of its range, or a table weight, is refused
//! under its real key, file and line.

use std::path::PathBuf;

use crate::common::{run_bad_input, write};

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

/// Issue 43, item 2: an `[[engines]]` entry with `file` and a built-in engine's key
/// (`table`, `game`, `search`) was refused without naming the key, at the `file` line.
#[test]
fn an_engine_file_with_an_inline_key_names_the_key_and_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let seed = engine("gomoku-seed003-threat.toml");
    let config = write(
        tmp.path(),
        "t.toml",
        &format!(
            "name = \"t\"\ngame = \"gomoku\"\nrounds = 1\n\n\
             [[engines]]\nname = \"ok\"\nsearch = {{ depth = 1 }}\n\n\
             [[engines]]\nfile = \"{seed}\"\ntable = \"tables/x.toml\"\n"
        ),
    );
    let e = run_bad_input(&["run", &config, "--quiet"]);
    assert!(
        e.contains("t.toml:11: engines[2]: key `table`: with `file = \""),
        "{e}"
    );
    assert!(
        e.contains("only `name` and `set` may be given (put the rest in `set`)"),
        "{e}"
    );
}
