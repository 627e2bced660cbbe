//! Engine protocols through the real binary: a served engine plays exactly the games of
//! the in-process one (Gomocup and UAI), every fault of an outside engine is a recorded
//! loss and the run goes on, `arena serve` transcripts, time controls kept by the
//! harness, and config errors about external engines.
//!
//! `arena serve` survives what real managers send.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use arena::{
    protocol::info::round_trip,
    tournament::{GameRecord, read_records},
};

use crate::common::{
    arena_bin, assert_refused, fixture, root, run_bad_input, run_ok, serve_answered, serve_ok,
    serve_script, write,
};

/// Writes an engine config into `dir` with the table `table` (under configs/tables).
fn engine_file(dir: &Path, name: &str, game: &str, table: &str, search: &str) -> String {
    let path = dir.join(format!("{name}.toml"));
    let table = root().join("configs/tables").join(table);
    std::fs::write(
        &path,
        format!(
            "name = \"{name}\"\ngame = \"{game}\"\ntable = \"{}\"\n\n[search]\n{search}\n",
            table.display()
        ),
    )
    .unwrap();
    path.display().to_string()
}

/// A served engine entry: this arena binary running `arena serve FILE`.
fn served(name: &str, file: &str, protocol: &str, extra: &str) -> String {
    format!(
        "[[engines]]\nname = \"{name}\"\ncommand = \"{}\"\nargs = [\"serve\", \"{file}\", \
         \"--protocol\", \"{protocol}\"]\nprotocol = \"{protocol}\"\n{extra}\n",
        arena_bin()
    )
}

fn faulty(name: &str, script: &str, mode: &str, file: &str, extra: &str) -> String {
    format!(
        "[[engines]]\nname = \"{name}\"\ncommand = \"/bin/sh\"\nargs = [\"{}\", \"{mode}\", \
         \"{}\", \"{file}\"]\n{extra}\n",
        fixture(script),
        arena_bin()
    )
}

fn records(dir: &Path) -> Vec<GameRecord> {
    let read = read_records(&dir.join("games.jsonl")).unwrap();
    assert!(!read.torn_tail);
    let mut v = read.records;
    v.sort_by_key(|r| r.game);
    v
}

/// Records without measured times, with scores as a protocol carries them.
fn comparable(records: &[GameRecord], protocol_side: &str) -> BTreeMap<u64, GameRecord> {
    records
        .iter()
        .map(|r| {
            let mut r = r.without_times();
            for i in 0..r.stats.len() {
                let mover = if r.mover(i) == r.black {
                    &r.black_name
                } else {
                    &r.white_name
                };
                if mover == protocol_side {
                    r.stats[i].score = r.stats[i].score.map(round_trip);
                }
            }
            (r.game, r)
        })
        .collect()
}

fn run_dir(tmp: &tempfile::TempDir, config: &str, name: &str, jobs: &str) -> (PathBuf, String) {
    let out = tmp.path().join(name);
    let stdout = run_ok(&[
        "run",
        config,
        "--quiet",
        "--jobs",
        jobs,
        "--out",
        out.to_str().unwrap(),
    ]);
    (out, stdout)
}

/// The in-process engine `b` with `params` set (`set = { ... }`) and the served one given
/// them as options (Gomocup `INFO NAME VALUE`, UAI `setoption`) play the same games,
/// moves and nodes included; with parameters, those games differ from `b`'s own.
fn fidelity(
    game: &str,
    header: &str,
    (a, b): (&str, &str),
    protocol: &str,
    depth: u32,
    params: &[(&str, &str)],
) {
    let tmp = tempfile::tempdir().unwrap();
    let set: Vec<String> = params
        .iter()
        .map(|(k, v)| format!("\"{k}\" = {v}"))
        .collect();
    let options: Vec<String> = params
        .iter()
        .map(|(k, v)| format!("\"{k}\" = \"{v}\""))
        .collect();
    let builtin = format!(
        "{header}\n[[engines]]\nfile = \"{a}\"\n\n[[engines]]\nfile = \"{b}\"\nset = {{ {} }}\n",
        set.join(", ")
    );
    let external = format!(
        "{header}\n[[engines]]\nfile = \"{a}\"\n\n{}",
        served(
            "b",
            b,
            protocol,
            &format!("depth = {depth}\noptions = {{ {} }}", options.join(", "))
        )
    );
    let c1 = write(tmp.path(), "in-process.toml", &builtin);
    let c2 = write(tmp.path(), "served.toml", &external);
    let (d1, _) = run_dir(&tmp, &c1, "in-process", "1");
    let (d2, _) = run_dir(&tmp, &c2, "served", "2");
    let (r1, r2) = (records(&d1), records(&d2));
    if !params.is_empty() {
        let plain =
            format!("{header}\n[[engines]]\nfile = \"{a}\"\n\n[[engines]]\nfile = \"{b}\"\n");
        let c0 = write(tmp.path(), "plain.toml", &plain);
        let (d0, _) = run_dir(&tmp, &c0, "plain", "1");
        assert_ne!(
            comparable(&records(&d0), "b"),
            comparable(&r1, "b"),
            "{game}: the parameters {params:?} change the games"
        );
    }
    assert!(r1.len() >= 6, "{game}: {} games", r1.len());
    assert_eq!(
        comparable(&r1, "b"),
        comparable(&r2, "b"),
        "{game}: the served engine plays the in-process games, nodes included"
    );
    // The served engine reported its search: nodes and iterations are in the records.
    let b_nodes: u64 = r2
        .iter()
        .flat_map(|r| {
            (0..r.stats.len())
                .filter(|&i| r.mover(i) == 1)
                .map(|i| r.stats[i].nodes)
        })
        .sum();
    assert!(b_nodes > 0, "{game}");
    assert!(
        r2.iter().all(|r| r.reproducible),
        "{game}: depth limits are reproducible"
    );
    // Its log holds the exchange.
    let log = std::fs::read_to_string(d2.join("logs/b-w0.log"))
        .or_else(|_| std::fs::read_to_string(d2.join("logs/b-w1.log")))
        .unwrap();
    assert!(log.contains("# started pid"), "{log}");
}

#[test]
fn gomocup_served_engine_plays_the_in_process_games() {
    let tmp = tempfile::tempdir().unwrap();
    let a = engine_file(
        tmp.path(),
        "a",
        "gomoku",
        "gomoku/seed003.toml",
        "depth = 2\nordering = [\"tt_move\", \"threat\", \"static\"]",
    );
    let b = engine_file(
        tmp.path(),
        "b",
        "gomoku",
        "gomoku/seed000.toml",
        "depth = 2\nordering = [\"tt_move\", \"static\", \"killers\", \"history\"]",
    );
    let header = "name = \"fidelity\"\ngame = \"mnk:9,9,5\"\nrounds = 4\nseed = 11\n\n\
                  [openings]\nkind = \"random\"\nplies = 3\nradius = 2\n\n\
                  [adjudication]\nmax_plies = 60\n";
    fidelity("gomoku", header, (&a, &b), "gomocup", 2, &[]);
}

#[test]
fn uai_served_engine_plays_the_in_process_games() {
    let tmp = tempfile::tempdir().unwrap();
    let a = engine_file(
        tmp.path(),
        "a",
        "ataxx",
        "ataxx/seed004.toml",
        "depth = 2\nordering = [\"captures\"]",
    );
    let b = engine_file(
        tmp.path(),
        "b",
        "ataxx",
        "ataxx/rich.toml",
        "depth = 2\nordering = [\"tt_move\", \"singles_first\", \"captures\", \"killers\", \"history\"]",
    );
    let header = "name = \"fidelity\"\ngame = \"ataxx\"\nrounds = 3\nseed = 5\n\n\
                  [openings]\nkind = \"random\"\nplies = 2\n\n\
                  [adjudication]\nmax_plies = 80\n";
    fidelity("ataxx", header, (&a, &b), "uai", 2, &[]);
}

/// Issue 18 (item 2): `arena serve` takes every numeric parameter of its engine by
/// name, so arena's own engines can be tuned as outside programs: `INFO
/// search.params.futility_margin 30` (Gomocup) and `setoption name
/// search.params.futility_margin value 30` (UAI) make the served engine play the
/// in-process engine's games with the same `set`, nodes included. A value out of
/// range, or not a number, gets an error and leaves the engine as it was (before,
/// `lmp_scale = 4000000000`, which overflows, was taken).
#[test]
fn served_engines_take_every_parameter_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let search = "depth = 3\nordering = [\"tt_move\", \"threat\"]\nfutility = true";
    let a = engine_file(tmp.path(), "a", "gomoku", "gomoku/seed003.toml", search);
    let b = engine_file(tmp.path(), "b", "gomoku", "gomoku/seed003.toml", search);
    let header = "name = \"params\"\ngame = \"mnk:9,9,5\"\nrounds = 3\nseed = 11\n\n\
                  [openings]\nkind = \"random\"\nplies = 3\nradius = 2\n\n\
                  [adjudication]\nmax_plies = 40\n";
    fidelity(
        "gomoku",
        header,
        (&a, &b),
        "gomocup",
        3,
        &[
            ("search.params.futility_margin", "30"),
            ("table.open_three", "9000"),
            ("table.defence", "1.5"),
        ],
    );
    let search = "depth = 3\nordering = [\"tt_move\", \"captures\"]\nfutility = true";
    let tmp = tempfile::tempdir().unwrap();
    let a = engine_file(tmp.path(), "a", "ataxx", "ataxx/rich.toml", search);
    let b = engine_file(tmp.path(), "b", "ataxx", "ataxx/rich.toml", search);
    let header = "name = \"params\"\ngame = \"ataxx\"\nrounds = 3\nseed = 5\n\n\
                  [openings]\nkind = \"random\"\nplies = 2\n\n[adjudication]\nmax_plies = 40\n";
    fidelity(
        "ataxx",
        header,
        (&a, &b),
        "uai",
        3,
        &[
            ("search.params.futility_margin", "30"),
            ("table.mobility", "7"),
        ],
    );

    // Out of range or not a number: an error, and the next move is the engine's own.
    let gomoku = root().join("configs/engines/gomoku-modern.toml");
    let g = [gomoku.to_str().unwrap(), "--set", "search.depth=2"];
    let plain = serve(&g, "START 9\nBEGIN\n", 1);
    let refused = serve(
        &g,
        "START 9\nINFO search.params.lmp_scale 4000000000\nINFO search.params.lmr_divisor x\n\
         INFO search.params.lmr_divisor 0\nBEGIN\n",
        1,
    );
    let errors: Vec<&str> = refused.lines().filter(|l| l.starts_with("ERROR")).collect();
    assert_eq!(errors.len(), 3, "{refused}");
    assert!(
        errors[0].contains("search.params.lmp_scale = 4000000000 is outside its range 0..=100000"),
        "{refused}"
    );
    // Without the measured speed and time.
    let moves = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.starts_with("ERROR"))
            .map(|l| l.split(" nps ").next().unwrap_or(l).to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(moves(&plain), moves(&refused), "the engine is as it was");
    let ataxx = root().join("configs/engines/ataxx-modern.toml");
    let x = [ataxx.to_str().unwrap()];
    let go = "position startpos\ngo depth 3\n";
    let plain = serve(&x, &format!("uai\n{go}"), 1);
    let refused = serve(
        &x,
        &format!(
            "uai\nsetoption name search.params.lmp_scale value 4000000000\n\
             setoption name search.params.lmr_divisor value x\n{go}"
        ),
        1,
    );
    let errors: Vec<&str> = refused
        .lines()
        .filter(|l| l.starts_with("info string error"))
        .collect();
    assert_eq!(errors.len(), 2, "{refused}");
    let search = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.starts_with("info depth") || l.starts_with("bestmove"))
            .map(|l| l.split(" nps ").next().unwrap_or(l).to_string())
            .collect()
    };
    assert_eq!(search(&plain), search(&refused), "the engine is as it was");
    // The option lists the range sensible to tune it in; any valid value is taken.
    let lmr = plain
        .lines()
        .find(|l| l.starts_with("option name search.params.lmr_divisor "))
        .unwrap();
    assert!(lmr.ends_with("min 40 max 400"), "{lmr}");
    let wide = serve(
        &x,
        &format!(
            "uai
setoption name search.params.lmr_divisor value 5000
{go}"
        ),
        1,
    );
    assert!(!wide.contains("info string error"), "{wide}");
}

/// Issue 44 (item 16): `arena serve` advertised each option's validity bounds as its
/// min and max (`futility_margin` 0..=1000000 for a start of 100, so a tune that took
/// them stepped by 50,000), and an Ataxx engine listed gomoku's defence extensions.
/// Now an option's min and max are the registry's range sensible to tune it in (widened
/// to hold the engine's value), an Ataxx engine lists no m,n,k-only number, and
/// `--list-options` prints the same lines for a gomoku engine (Gomocup cannot list
/// options).
#[test]
fn served_option_lists_give_tune_ranges_and_only_the_games_own_numbers() {
    let ataxx = root().join("configs/engines/ataxx-modern.toml");
    let ataxx = ataxx.to_str().unwrap();
    let uai = serve(
        &[ataxx],
        "uai
quit
",
        0,
    );
    let options: Vec<&str> = uai
        .lines()
        .filter(|l| l.starts_with("option name ") && !l.starts_with("option name Hash "))
        .collect();
    let line = |options: &[&str], name: &str| -> String {
        options
            .iter()
            .find(|l| l.starts_with(&format!("option name {name} ")))
            .unwrap_or_else(|| panic!("no option {name}: {options:#?}"))
            .to_string()
    };
    assert_eq!(
        line(&options, "search.params.futility_margin"),
        "option name search.params.futility_margin type spin default 100 min 25 max 400"
    );
    // ataxx-modern's razor_margin (150) within 40..=600; lmr_divisor 120 within 40..=400.
    assert!(line(&options, "search.params.razor_margin").ends_with("default 150 min 40 max 600"));
    assert!(line(&options, "search.params.lmr_divisor").ends_with("default 120 min 40 max 400"));
    for gomoku_only in [
        "ext_defend_plies",
        "ext_ply_factor",
        "ext_defend_depth",
        "lmp_defend",
        "order_far",
        "vcf_",
        "vct_",
        "radius",
        "threat_prune",
    ] {
        assert!(
            !options.iter().any(|o| o.contains(gomoku_only)),
            "{gomoku_only}: {options:#?}"
        );
    }
    // No spin spans more than 100 times its default's magnitude (or 100 from 0), but for
    // the limits (nodes, move time), which a tune rarely moves.
    for o in &options {
        let words: Vec<&str> = o.split_whitespace().collect();
        let n = |k: &str| -> f64 {
            let i = words.iter().position(|w| *w == k).unwrap();
            words[i + 1].parse().unwrap()
        };
        if words[4] != "spin" || o.contains("search.nodes") || o.contains("movetime_ms") {
            continue;
        }
        let (default, min, max) = (n("default"), n("min"), n("max"));
        assert!(min <= default && default <= max, "{o}");
        assert!(
            max - min <= 100.0 * default.abs().max(1.0) || max <= 20_000.0,
            "{o}"
        );
    }
    // The same lines from --list-options.
    let listed = run_ok(&["serve", ataxx, "--list-options"]);
    assert_eq!(listed.lines().collect::<Vec<_>>(), options);

    // A gomoku engine lists its threat knowledge and its defence extensions.
    let gomoku = root().join("configs/engines/gomoku-tuned.toml");
    let listed = run_ok(&["serve", gomoku.to_str().unwrap(), "--list-options"]);
    let options: Vec<&str> = listed.lines().collect();
    assert_eq!(
        line(&options, "search.params.ext_ply_factor"),
        "option name search.params.ext_ply_factor type spin default 3 min 1 max 6"
    );
    assert_eq!(
        line(&options, "search.params.futility_margin"),
        "option name search.params.futility_margin type spin default 107 min 25 max 400"
    );
    assert!(line(&options, "search.params.ext_defend_depth").contains("default 1 min 0 max 6"));
    assert!(line(&options, "search.params.vcf_nodes").contains("default 500 min 50 max 5000"));
    assert!(line(&options, "search.radius").contains("default 2 min 1 max 4"));
    // A fraction is a string option (UAI spins are whole).
    assert!(line(&options, "table.defence").contains("type string default"));
    // --set applies first: a value past the tune range widens it.
    let listed = run_ok(&[
        "serve",
        gomoku.to_str().unwrap(),
        "--set",
        "search.params.futility_margin=900",
        "--list-options",
    ]);
    assert!(
        listed.contains(
            "option name search.params.futility_margin type spin default 900 min 25 max 900"
        ),
        "{listed}"
    );
}

/// Runs a gauntlet of the healthy engine against every faulty mode; checks reasons.
fn fault_matrix(header: &str, healthy: &str, entries: &[(String, &str)], jobs: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = format!("{header}\n{healthy}\n");
    for (entry, _) in entries {
        text.push_str(entry);
    }
    let config = write(tmp.path(), "faults.toml", &text);
    let (dir, stdout) = run_dir(&tmp, &config, "faults", jobs);
    let records = records(&dir);
    let rounds = 1;
    assert_eq!(
        records.len(),
        2 * rounds * entries.len(),
        "every game of the healthy engine is recorded"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    for (i, (_, want)) in entries.iter().enumerate() {
        let name = format!("e{i}");
        let games: Vec<&GameRecord> = records
            .iter()
            .filter(|r| r.black_name == name || r.white_name == name)
            .collect();
        assert_eq!(games.len(), 2 * rounds, "{name}");
        for r in games {
            let healthy_won = r.half_points_of(0) == Some(2);
            if want.is_empty() {
                // A healthy (if chatty) engine: no fault either way.
                assert!(
                    arena::tournament::summary::fault_kind(&r.reason).is_none(),
                    "{name}: {}",
                    r.reason
                );
            } else {
                assert!(
                    r.reason.starts_with(want),
                    "{name}: reason '{}' should start with '{want}'",
                    r.reason
                );
                assert!(healthy_won, "{name}: the faulty engine loses: {r:?}");
            }
        }
        if !want.is_empty() {
            let kind = arena::tournament::summary::fault_kind(want).unwrap();
            assert_eq!(
                summary["faults"][&name][kind],
                serde_json::json!(2 * rounds),
                "{name}: {}",
                summary["faults"]
            );
        }
    }
    assert!(
        summary["faults"].get("healthy").is_none(),
        "{}",
        summary["faults"]
    );
    assert!(stdout.contains("faults (games lost):"), "{stdout}");
    // Logs: one per external engine and worker that played it.
    let logs: Vec<String> = std::fs::read_dir(dir.join("logs"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(
        logs.iter().any(|l| l.contains("flood 299")),
        "flood lines are logged"
    );
    assert!(logs.iter().any(|l| l.contains("killed: timeout")));
    // The stored config reads back with its external engines.
    let again = run_ok(&["stats", dir.to_str().unwrap()]);
    assert!(again.contains("faults (games lost):"), "{again}");
}

#[test]
fn gomocup_faults_are_losses_with_reasons() {
    let tmp = tempfile::tempdir().unwrap();
    let file = engine_file(
        tmp.path(),
        "served",
        "gomoku",
        "gomoku/seed003.toml",
        "depth = 1\nordering = [\"tt_move\", \"threat\"]",
    );
    let header = "name = \"faults\"\ngame = \"mnk:9,9,5\"\nformat = \"gauntlet\"\nrounds = 1\n\
                  seed = 3\n\n[openings]\nkind = \"random\"\nplies = 2\nradius = 1\n\n\
                  [adjudication]\nmax_plies = 70\n";
    let healthy = format!(
        "[[engines]]\nname = \"healthy\"\ntable = \"{}\"\nsearch = {{ depth = 2, ordering = \
         [\"tt_move\", \"threat\", \"static\"] }}\n",
        root().join("configs/tables/gomoku/seed003.toml").display()
    );
    let modes = [
        ("crash", "depth = 1", "fault: crash (exit code 3)"),
        (
            "hang",
            "depth = 1\nreply_timeout_ms = 1500",
            "fault: timeout",
        ),
        ("illegal", "depth = 1", "illegal-move"),
        ("garbage", "depth = 1", "fault: garbage 'xyz'"),
        ("exit", "depth = 1", "fault: crash"),
        ("refuse", "depth = 1", "fault: handshake 'ERROR not today'"),
        ("flood", "depth = 1", ""),
    ];
    let entries: Vec<(String, &str)> = modes
        .iter()
        .enumerate()
        .map(|(i, (mode, extra, want))| {
            (
                faulty(
                    &format!("e{i}"),
                    "faulty-gomocup.sh",
                    mode,
                    &file,
                    &format!("protocol = \"gomocup\"\n{extra}"),
                ),
                *want,
            )
        })
        .collect();
    // One worker: each engine's process plays both its games (and is restarted or
    // reused in between).
    fault_matrix(header, &healthy, &entries, "1");
}

#[test]
fn uai_faults_are_losses_with_reasons() {
    let tmp = tempfile::tempdir().unwrap();
    let file = engine_file(
        tmp.path(),
        "served",
        "ataxx",
        "ataxx/seed004.toml",
        "depth = 1\nordering = [\"captures\"]",
    );
    let header = "name = \"faults\"\ngame = \"ataxx\"\nformat = \"gauntlet\"\nrounds = 1\n\
                  seed = 3\n\n[openings]\nkind = \"random\"\nplies = 2\n\n\
                  [adjudication]\nmax_plies = 40\n";
    let healthy = format!(
        "[[engines]]\nname = \"healthy\"\ntable = \"{}\"\nsearch = {{ depth = 2, ordering = \
         [\"captures\"] }}\n",
        root().join("configs/tables/ataxx/seed004.toml").display()
    );
    let modes = [
        ("crash", "depth = 1", "fault: crash (exit code 3)"),
        (
            "hang",
            "depth = 1\nreply_timeout_ms = 1500",
            "fault: timeout",
        ),
        ("illegal", "depth = 1", "illegal-move"),
        ("garbage", "depth = 1", "fault: garbage 'bestmove xyz'"),
        ("exit", "depth = 1", "fault: crash"),
        (
            "mute",
            "depth = 1\nreply_timeout_ms = 1500",
            "fault: handshake 'no \"uaiok\"",
        ),
        ("flood", "depth = 1", ""),
    ];
    let entries: Vec<(String, &str)> = modes
        .iter()
        .enumerate()
        .map(|(i, (mode, extra, want))| {
            (
                faulty(&format!("e{i}"), "faulty-uai.sh", mode, &file, extra),
                *want,
            )
        })
        .collect();
    fault_matrix(header, &healthy, &entries, "2");
}

/// Feeds `input` to `arena serve ARGS`, waits for `answers` answers (moves), closes
/// the input and returns the output.
fn serve(args: &[&str], input: &str, answers: usize) -> String {
    serve_answered(args, input.as_bytes(), answers)
}

#[test]
fn serve_speaks_both_protocols() {
    let gomoku = root().join("configs/engines/gomoku-seed003-threat.toml");
    // END stops a search at once: it is sent after the moves, as a manager does.
    let out = serve_script(
        &[gomoku.to_str().unwrap(), "--set", "search.depth=2"],
        &[
            (
                b"ABOUT\nSTART 15\nINFO timeout_turn 5000\nBEGIN\nTURN 8,8\nSTART 3\nBOGUS\n",
                2,
            ),
            (b"END\n", 2),
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let out = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with("MESSAGE")).collect();
    assert!(lines[0].starts_with("name=\"seed003-threat\""), "{out}");
    assert_eq!(lines[1], "OK");
    assert_eq!(lines[2], "7,7");
    assert!(lines[3].split(',').count() == 2, "{out}");
    assert!(lines[4].starts_with("ERROR unsupported size 3x3"), "{out}");
    assert_eq!(lines[5], "UNKNOWN command 'BOGUS'");
    assert!(out.contains("MESSAGE depth 2 score"), "{out}");

    let ataxx = root().join("configs/engines/ataxx-seed004.toml");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("uai.log");
    let out = serve(
        &[
            ataxx.to_str().unwrap(),
            "--protocol",
            "uai",
            "--log",
            log.to_str().unwrap(),
        ],
        "uai\nisready\nuainewgame\nposition startpos moves g2\ngo depth 2\n",
        1,
    );
    assert!(out.contains("id name ataxx-seed004\n"), "{out}");
    assert!(out.contains("uaiok\nreadyok\n"), "{out}");
    assert!(out.contains("info depth 2 score cp"), "{out}");
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(
        log.contains("> go depth 2") && log.contains("< bestmove"),
        "{log}"
    );

    let e = run_bad_input(&["serve", gomoku.to_str().unwrap(), "--protocol", "uai"]);
    assert!(e.contains("--protocol uai"), "{e}");
    let e = run_bad_input(&["serve", gomoku.to_str().unwrap(), "--protocol", "chess"]);
    assert!(e.contains("unknown protocol 'chess'"), "{e}");
}

#[test]
fn external_engine_errors_are_caught_before_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let gomoku = root().join("configs/engines/gomoku-seed003-threat.toml");
    let header = "name = \"bad\"\ngame = \"mnk:9,9,5\"\nrounds = 1\n\n";
    let first = format!("[[engines]]\nfile = \"{}\"\n\n", gomoku.display());
    let out = tmp.path().join("out");
    let cases: Vec<(String, Vec<&str>)> = vec![
        (
            "[[engines]]\nname = \"ghost\"\ncommand = \"/no/such/engine\"\nargs = [\"-v\"]\n\
             depth = 3\n"
                .to_string(),
            vec!["engine 'ghost'", "cannot start '/no/such/engine -v'", "No such file"],
        ),
        (
            "[[engines]]\nname = \"x\"\ncommand = \"/bin/sh\"\ntc = \"fast\"\n".to_string(),
            vec!["'fast' is not a number", ":11:"],
        ),
        (
            "[[engines]]\nname = \"x\"\ncommand = \"/bin/sh\"\nprotocol = \"uai\"\ndepth = 2\n"
                .to_string(),
            vec!["engines[2]", "protocol \"uai\" plays ataxx"],
        ),
        (
            "[[engines]]\nname = \"x\"\ncommand = \"/bin/sh\"\n".to_string(),
            vec!["needs a limit"],
        ),
        (
            "[[engines]]\nname = \"x\"\ncommand = \"/bin/sh\"\ndepth = 2\nprotocl = \"uai\"\n"
                .to_string(),
            vec!["unknown field `protocl`", ":12:"],
        ),
        (
            format!(
                "[[engines]]\nname = \"x\"\ntable = \"{}\"\nsearch = {{ depth = 1 }}\ndepth = 2\n",
                root().join("configs/tables/gomoku/seed003.toml").display()
            ),
            vec!["key `depth` is for external engines"],
        ),
        (
            "[[engines]]\nname = \"x\"\ncommand = \"/bin/sh\"\ndepth = 2\nworking_dir = \"/no/dir\"\n"
                .to_string(),
            vec!["working_dir '/no/dir' is not a folder"],
        ),
    ];
    for (i, (entry, needles)) in cases.iter().enumerate() {
        let path = write(
            tmp.path(),
            &format!("bad{i}.toml"),
            &format!("{header}{first}{entry}"),
        );
        assert_refused("run", &path, &out, needles, i);
    }
}

#[test]
fn clocks_are_kept_by_the_harness() {
    let tmp = tempfile::tempdir().unwrap();
    let file = engine_file(
        tmp.path(),
        "served",
        "gomoku",
        "gomoku/seed003.toml",
        "depth = 2\nordering = [\"tt_move\", \"threat\"]",
    );
    let header = "name = \"clock\"\ngame = \"mnk:9,9,5\"\nformat = \"gauntlet\"\nrounds = 1\n\n\
                  [adjudication]\nmax_plies = 30\n";
    let healthy = format!("[[engines]]\nfile = \"{file}\"\nname = \"healthy\"\n\n");
    // A slow engine: 0.2 s for the game, and it sleeps 0.6 s before its second move (the
    // generous tolerance keeps that a loss on time, not a hang).
    let slow = faulty(
        "slow",
        "faulty-gomocup.sh",
        "slow",
        &file,
        "tc = \"0.2\"\ntolerance_ms = 10000",
    );
    let timed = served("timed", &file, "gomocup", "tc = \"30+0.1\"");
    let config = write(
        tmp.path(),
        "clock.toml",
        &format!("{header}{healthy}{slow}{timed}"),
    );
    let (dir, _) = run_dir(&tmp, &config, "clock", "1");
    let records = records(&dir);
    assert_eq!(records.len(), 4);
    for r in &records {
        assert!(!r.reproducible, "a clock makes a game unrepeatable: {r:?}");
        if r.black_name == "slow" || r.white_name == "slow" {
            assert_eq!(r.reason, "time-forfeit", "{r:?}");
            assert_eq!(r.half_points_of(0), Some(2));
        }
    }
    let log = std::fs::read_to_string(dir.join("logs/timed-w0.log")).unwrap();
    assert!(log.contains("> INFO timeout_match 30000"), "{log}");
    assert!(log.contains("> INFO time_left "), "{log}");
}

/// `arena serve ARGS` started as a manager starts an engine: its input, and its output
/// lines as they come.
fn served_process(
    args: &[&str],
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::sync::mpsc::Receiver<String>,
) {
    use std::{
        io::{BufRead, BufReader},
        process::Stdio,
    };
    let mut child = crate::common::arena_process()
        .arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, stdin, rx)
}

/// The first line from `lines` that `wanted` accepts; fails after a minute without one
/// (a safety net for what never comes, not a timing assertion: every answer here takes
/// milliseconds, and the searches it stops would take hours).
fn line_where(lines: &std::sync::mpsc::Receiver<String>, wanted: impl Fn(&str) -> bool) -> String {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut seen = Vec::new();
    loop {
        let left = until.saturating_duration_since(std::time::Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) if wanted(&line) => return line,
            Ok(line) => seen.push(line),
            Err(e) => panic!("no such line ({e}) after: {seen:#?}"),
        }
    }
}

/// Issue 44, item 15: a UAI search with a clock (`go wtime 100000000 btime 100000000`)
/// followed by `position` could not be stopped: the loop waited for the search before
/// it read on, so `stop` behind the `position` came when the search ended by itself.
/// And the end of input did not end a search (`go depth 60` then EOF searched on, in
/// Gomocup likewise): an engine whose manager died kept a core busy. Now `stop` ends the
/// search at once and the `position` runs after it; the end of input stops the search
/// and ends arena.
#[test]
fn a_served_search_stops_behind_other_commands_and_at_the_end_of_input() {
    use std::io::Write;
    let ataxx = root().join("configs/engines/ataxx-seed004.toml");
    let (mut child, mut stdin, lines) = served_process(&[ataxx.to_str().unwrap()]);
    stdin
        .write_all(b"uai\nisready\nposition startpos\ngo wtime 100000000 btime 100000000\n")
        .unwrap();
    line_where(&lines, |l| l.starts_with("info depth 1 "));
    stdin
        .write_all(b"position startpos moves g2\nstop\n")
        .unwrap();
    let best = line_where(&lines, |l| l.starts_with("bestmove "));
    assert_ne!(best, "bestmove 0000");
    // The queued `position` was played after the search: a search from it answers.
    stdin.write_all(b"go depth 1\nisready\n").unwrap();
    let best = line_where(&lines, |l| l.starts_with("bestmove "));
    let mv = best.trim_start_matches("bestmove ");
    let mut after_g2 = arena::game::Ataxx::default();
    arena::game::Game::play_move_list(&mut after_g2, "g2").unwrap();
    assert!(
        arena::game::Game::parse_move(&after_g2, mv).is_ok(),
        "a move of the position after g2: {best}"
    );
    // A search that would take hours, then the end of input.
    stdin.write_all(b"go depth 60\n").unwrap();
    line_where(&lines, |l| l.starts_with("info depth 2 "));
    drop(stdin);
    let status = crate::common::wait_or_kill(&mut child, std::time::Duration::from_secs(60));
    assert!(
        status.is_some_and(|s| s.success()),
        "the end of input ends the search and arena: {status:?}"
    );

    let gomoku = root().join("configs/engines/gomoku-seed003-threat.toml");
    let (mut child, mut stdin, lines) = served_process(&[gomoku.to_str().unwrap()]);
    stdin
        .write_all(b"START 15\nINFO max_depth 60\nTURN 7,7\n")
        .unwrap();
    line_where(&lines, |l| l.starts_with("MESSAGE depth 2 "));
    drop(stdin);
    let status = crate::common::wait_or_kill(&mut child, std::time::Duration::from_secs(60));
    assert!(
        status.is_some_and(|s| s.success()),
        "the end of input ends the search and arena: {status:?}"
    );
}

/// Issue 44, item 18: `arena serve ENGINE --set search.depth=0` was refused ("needs a
/// limit"), though a served engine's limits come from its manager (`go depth`, `INFO
/// max_depth`, the clocks); with none from either, UAI's `go` searches until `stop`.
#[test]
fn a_served_engine_needs_no_limit_of_its_own() {
    let ataxx = root().join("configs/engines/ataxx-seed004.toml");
    let a = [ataxx.to_str().unwrap(), "--set", "search.depth=0"];
    let out = serve(&a, "uai\nposition startpos\ngo depth 2\n", 1);
    assert!(out.contains("info depth 2 score cp"), "{out}");
    assert!(!out.contains("info depth 3 "), "{out}");
    let out = serve_script(
        &a,
        &[
            (b"uai\nposition startpos\ngo\n", 0),
            (b"isready\n", 0),
            (b"stop\n", 1),
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("readyok\n"), "{text}");
    assert_eq!(text.matches("bestmove ").count(), 1, "{text}");

    let gomoku = root().join("configs/engines/gomoku-seed003-threat.toml");
    let g = [gomoku.to_str().unwrap(), "--set", "search.depth=0"];
    let out = serve(&g, "START 15\nINFO max_depth 2\nTURN 7,7\n", 1);
    assert!(out.contains("MESSAGE depth 2 "), "{out}");
    assert!(!out.contains("MESSAGE depth 3 "), "{out}");
}

/// Regressions in `arena serve`: a byte that is not UTF-8 (`INFO folder C:\Jürgen` in
/// Latin-1) ended the protocol loop with exit 2; after `go infinite` a `position` blocked
/// the loop so `stop` and `quit` were never read; a `YXBOARD` block got one `UNKNOWN`
/// per line; `INFO rule 8` (caro) was played as freestyle. The search is deep enough
/// that `END` always arrives before it ends (at depth 1 the move could be printed first).
#[test]
fn serve_survives_what_real_managers_send() {
    let gomoku = root().join("configs/engines/gomoku-seed003-threat.toml");
    let g = gomoku.to_str().unwrap();
    let mut input = b"START 15\nINFO folder C:\\J".to_vec();
    input.push(0xFC);
    input.extend_from_slice(b"rgen\nYXBOARD\n7,7,1\n8,8,2\nDONE\nINFO rule 8\nBEGIN\nEND\n");
    let out = serve_ok(&[g, "--set", "search.depth=60"], &input);
    let replies: Vec<&str> = out.lines().filter(|l| !l.starts_with("MESSAGE")).collect();
    assert_eq!(replies[0], "OK", "{out}");
    assert_eq!(
        replies[1], "UNKNOWN command 'YXBOARD'",
        "one answer for the block: {out}"
    );
    assert!(
        replies[2].starts_with("ERROR rule 8: caro is not supported"),
        "{out}"
    );
    assert_eq!(replies.len(), 3, "END stops BEGIN's search silently: {out}");

    let ataxx = root().join("configs/engines/ataxx-seed004.toml");
    let out = serve_ok(
        &[ataxx.to_str().unwrap(), "--protocol", "uai"],
        b"uai\nposition startpos\ngo infinite\nposition startpos moves g2\nisready\nstop\n\
          go depth 1\nstop\nquit\n",
    );
    assert!(out.contains("readyok"), "{out}");
    assert_eq!(
        out.matches("bestmove").count(),
        2,
        "stop, then the queued position's go: {out}"
    );
}
