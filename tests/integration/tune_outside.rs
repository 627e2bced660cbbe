//! `arena tune` over an outside engine's options (`option.NAME`): an engine served by
//! `arena serve` tunes to the θ of the same engine in-process, bit for bit, over UAI and
//! over Gomocup; what cannot be tuned is refused before any game, with the key at fault.

use std::path::Path;

use crate::common::{arena, arena_bin, fixture, run_bad_input, run_ok, shipped_engine, write};

/// The tune's state (θ as bits, pairs, pentanomial counts) and trajectory.
fn result(dir: &Path) -> (serde_json::Value, String) {
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("state.json")).unwrap()).unwrap();
    let trajectory = std::fs::read_to_string(dir.join("trajectory.csv")).unwrap();
    // The outside tune's columns are named option.*: compare the numbers.
    let numbers = trajectory.lines().skip(1).collect::<Vec<_>>().join("\n");
    (state["state"].clone(), numbers)
}

/// A tune config of `engine` over two `search.params.*` numbers, named `prefix`NAME.
fn tune_config(engine: &str, set: &str, prefix: &str, starts: bool, limit: u32) -> String {
    let start = |v: u32| {
        if starts {
            format!("start = {v}\n")
        } else {
            String::new()
        }
    };
    format!(
        "name = \"t\"\nengine = \"{engine}\"\n{set}\npairs = 12\nbatch = 4\nseed = 7\n\
         [openings]\nkind = \"random\"\nplies = 4\n[adjudication]\nmax_plies = {limit}\n\
         [[params]]\nname = \"{prefix}search.params.lmr_divisor\"\n{}min = 60\nmax = 240\n\
         [[params]]\nname = \"{prefix}search.params.futility_margin\"\n{}min = 20\nmax = 300\n\
         [verification]\npairs = 2\n",
        start(120),
        start(100)
    )
}

fn served(dir: &Path, file: &str, engine: &str, protocol: &str, extra: &str) -> String {
    write(
        dir,
        file,
        &format!(
            "name = \"served\"\ncommand = \"{}\"\nargs = [\"serve\", \"{}\", \"--protocol\", \
             \"{protocol}\"]\nprotocol = \"{protocol}\"\nnodes = 1500\n{extra}",
            arena_bin(),
            shipped_engine(engine)
        ),
    )
}

fn tune(config: &str, out: &Path) {
    run_ok(&[
        "tune",
        config,
        "--quiet",
        "--jobs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
}

/// Tunes `engine` in-process into `dir/in` and as the outside engine file `served` into
/// `dir/out` (`starts`: the configs give the start values), with games of at most
/// `plies` plies; both results, which must be equal.
fn both_ways(
    dir: &Path,
    engine: &str,
    served: &str,
    starts: bool,
    plies: u32,
) -> ((serde_json::Value, String), (serde_json::Value, String)) {
    let set = "set = { \"search.nodes\" = 1500, \"search.depth\" = 0 }";
    let inside = tune_config(&shipped_engine(engine), set, "", starts, plies);
    let outside = tune_config(served, "", "option.", starts, plies);
    tune(&write(dir, "in.toml", &inside), &dir.join("in"));
    tune(&write(dir, "out.toml", &outside), &dir.join("out"));
    (result(&dir.join("in")), result(&dir.join("out")))
}

/// The must-show of issue 18: a UAI-served ataxx-modern, its bounds and start taken from
/// its own `option` lines, tunes to the in-process engine's θ bit for bit.
#[test]
fn a_served_uai_engine_tunes_to_the_in_process_theta_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let served = served(dir.path(), "served.toml", "ataxx-modern.toml", "uai", "");
    let (a, b) = both_ways(dir.path(), "ataxx-modern.toml", &served, false, 200);
    assert_eq!(a, b);
    assert_eq!(a.0["pairs_done"], 12);
    // The tuned engine is the outside program with the tuned options, and it plays.
    let tuned = dir.path().join("out/tuned-engine.toml");
    let text = std::fs::read_to_string(&tuned).unwrap();
    assert!(text.contains("[options]"), "{text}");
    assert!(text.contains("\"search.params.lmr_divisor\" = "), "{text}");
    assert!(
        text.contains(&format!("command = \"{}\"", arena_bin())),
        "{text}"
    );
    let m = dir.path().join("m");
    run_ok(&[
        "match",
        tuned.to_str().unwrap(),
        &served,
        "--rounds",
        "1",
        "--quiet",
        "--no-report",
        "--out",
        m.to_str().unwrap(),
    ]);
    // Each thread's log holds the last pair it played.
    assert!(dir.path().join("out/logs/main-t0-plus.log").is_file());
}

/// The same over Gomocup: the starts are given (a Gomocup engine cannot list its
/// options), the values go as `INFO search.params.NAME V`.
#[test]
fn a_served_gomocup_engine_tunes_to_the_in_process_theta_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    // The command given relative to the engine file (a link to arena in bin/).
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    std::os::unix::fs::symlink(arena_bin(), dir.path().join("bin/arena")).unwrap();
    let served = served(
        dir.path(),
        "served.toml",
        "gomoku-modern.toml",
        "gomocup",
        "",
    );
    let text = std::fs::read_to_string(&served).unwrap();
    std::fs::write(&served, text.replace(arena_bin(), "bin/arena")).unwrap();
    let (a, b) = both_ways(dir.path(), "gomoku-modern.toml", &served, true, 100);
    assert_eq!(a, b);
    // tuned-engine.toml lands in the results folder: its command is written resolved.
    let tuned = std::fs::read_to_string(dir.path().join("out/tuned-engine.toml")).unwrap();
    let resolved = dir.path().join("bin/arena");
    assert!(
        tuned.contains(&format!("command = \"{}\"", resolved.display())),
        "{tuned}"
    );
}

/// Issue 44 (item 16): the README's recipe, a served ataxx-modern tuned over
/// `option.search.params.lmr_divisor` and `futility_margin` without `min` and `max`,
/// took the options' validity bounds (futility_margin 0..=1000000 for a start of 100: a
/// step of 50,000, a flat trajectory), and the in-process tune refused to start without
/// them. Now both take the registry's tune ranges (25..=400) and end with the same θ;
/// a range far wider than its start (given, or advertised by an outside engine) warns
/// on stderr and suggests `min` and `max`.
#[test]
fn the_readme_recipe_tunes_a_served_engine_in_sensible_ranges_and_wide_ones_warn() {
    let dir = tempfile::tempdir().unwrap();
    let served = served(dir.path(), "served.toml", "ataxx-modern.toml", "uai", "");
    let config = |engine: &str, set: &str, prefix: &str, bounds: &str| {
        format!(
            "name = \"t\"\nengine = \"{engine}\"\n{set}\npairs = 4\nbatch = 2\nseed = 7\n\
             [openings]\nkind = \"random\"\nplies = 4\n[adjudication]\nmax_plies = 60\n\
             [[params]]\nname = \"{prefix}search.params.lmr_divisor\"\n\
             [[params]]\nname = \"{prefix}search.params.futility_margin\"\n{bounds}"
        )
    };
    let tune = |name: &str, text: &str| {
        let file = write(dir.path(), &format!("{name}.toml"), text);
        let out = arena()
            .args(["tune", &file, "--quiet", "--jobs", "2", "--out"])
            .arg(dir.path().join(name))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{name}: {stderr}");
        let report: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(name).join("tune.json")).unwrap(),
        )
        .unwrap();
        (result(&dir.path().join(name)), report, stderr)
    };
    let set = "set = { \"search.nodes\" = 1500, \"search.depth\" = 0 }";
    let (outside, report, stderr) = tune("out", &config(&served, "", "option.", ""));
    assert!(!stderr.contains("warning"), "{stderr}");
    let range = |report: &serde_json::Value, i: usize| {
        let p = &report["params"][i];
        (
            p["min"].as_f64().unwrap(),
            p["max"].as_f64().unwrap(),
            p["start"].as_f64().unwrap(),
        )
    };
    assert_eq!(range(&report, 0), (40.0, 400.0, 120.0));
    assert_eq!(range(&report, 1), (25.0, 400.0, 100.0));
    let engine = shipped_engine("ataxx-modern.toml");
    let (inside, report, stderr) = tune("in", &config(&engine, set, "", ""));
    assert!(!stderr.contains("warning"), "{stderr}");
    assert_eq!(range(&report, 1), (25.0, 400.0, 100.0));
    assert_eq!(inside, outside, "in-process and served, bit for bit");

    // Bounds 10,000 times the start: a warning that suggests a quarter to four times it.
    let (_, _, stderr) = tune(
        "wide",
        &config(&served, "", "option.", "min = 0\nmax = 1000000\n"),
    );
    assert!(
        stderr.contains(
            "warning: params[2] `option.search.params.futility_margin`: its range \
             0..=1000000 is 10000x its start 100"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("say min = 25, max = 400"), "{stderr}");
    assert!(!stderr.contains("params[1]"), "{stderr}");
}

/// A fake UAI engine that lists `options` (lines after `option name `) and plays
/// nothing: enough for the checks made before any game.
fn lister(dir: &Path, options: &[&str]) -> String {
    let echo: String = options
        .iter()
        .map(|o| format!("echo 'option name {o}'; "))
        .collect();
    let script = write(
        dir,
        "lister.sh",
        &format!(
            "#!/bin/sh\nwhile read -r l; do case $l in uai) echo 'id name lister'; {echo}echo \
             uaiok;; quit) exit 0;; esac; done\n"
        ),
    );
    write(
        dir,
        "lister.toml",
        &format!("command = \"/bin/sh\"\nargs = [\"{script}\"]\nprotocol = \"uai\"\nnodes = 100\n"),
    )
}

fn one_param(engine: &str, param: &str) -> String {
    format!("name = \"t\"\nengine = \"{engine}\"\npairs = 4\nbatch = 2\n[[params]]\n{param}\n")
}

#[test]
fn what_an_outside_engine_cannot_tune_is_refused_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let engine = lister(
        dir.path(),
        &[
            "Hash type spin default 16 min 1 max 1024",
            "Ponder type check default false",
            "Style type string default sharp",
            "Margin type string default 1.5",
            "Wide type spin default 5",
        ],
    );
    let out = dir.path().join("r");
    let cases: [(&str, &str); 7] = [
        (
            "name = \"option.Contempt\"",
            "lists no option 'Contempt' in its answer to `uai` (it lists: Hash, Ponder, Style, Margin, Wide)",
        ),
        ("name = \"option.Ponder\"", "'Ponder' is a check option"),
        (
            "name = \"option.Style\"\nmin = 0\nmax = 3",
            "the engine's default for 'Style' is 'sharp', not a number: give `start`",
        ),
        (
            "name = \"option.Margin\"",
            "needs `min` (the engine's answer to `uai` gives none)",
        ),
        ("name = \"option.Wide\"\nmin = 0", "needs `max`"),
        (
            "name = \"option.Hash\"\nmin = 1\nmax = 64\ninteger = false",
            "'Hash' is a spin option: it takes whole numbers",
        ),
        (
            "name = \"search.depth\"\nmin = 1\nmax = 4",
            "is an outside engine: it is tuned through its options, written `option.NAME`",
        ),
    ];
    for (param, expected) in cases {
        let config = write(dir.path(), "t.toml", &one_param(&engine, param));
        let err = run_bad_input(&["tune", &config, "--quiet", "--out", out.to_str().unwrap()]);
        assert!(err.contains("t.toml:"), "{param}: {err}");
        assert!(err.contains(expected), "{param}: {err}");
        assert!(
            !out.exists(),
            "{param}: nothing is written before the checks pass"
        );
    }
    // A listed spin option takes its bounds and start from the engine (the tune then
    // fails at its first game: the lister plays nothing; the config was taken).
    let config = write(
        dir.path(),
        "t.toml",
        &one_param(&engine, "name = \"option.Hash\""),
    );
    let text = std::fs::read_to_string(&config).unwrap();
    let tune: arena::tune::config::Tune =
        <arena::tune::config::Tune as arena::config::ConfigFile>::load(Path::new(&config))
            .unwrap_or_else(|e| panic!("{text}: {e}"));
    let p = &tune.params[0];
    assert_eq!(
        (p.min, p.max, p.start, p.integer),
        (1.0, 1024.0, 16.0, true)
    );
    // A string option holding a number is tuned as a fraction from its default; a start
    // in the engine file's `options` comes before the engine's default.
    let load = |engine: &str, param: &str| {
        let config = write(dir.path(), "t.toml", &one_param(engine, param));
        <arena::tune::config::Tune as arena::config::ConfigFile>::load(Path::new(&config))
            .unwrap_or_else(|e| panic!("{param}: {e}"))
            .params[0]
            .clone()
    };
    let p = load(&engine, "name = \"option.Margin\"\nmin = 0\nmax = 3");
    assert_eq!((p.start, p.integer), (1.5, false));
    let own = write(
        dir.path(),
        "own.toml",
        &std::fs::read_to_string(&engine)
            .unwrap()
            .replace("nodes = 100\n", "nodes = 100\noptions = { Hash = 64 }\n"),
    );
    assert_eq!(load(&own, "name = \"option.Hash\"").start, 64.0);
    // Gomocup: whole numbers unless `integer = false`; the start from the file's options.
    let gomocup_own = write(
        dir.path(),
        "go.toml",
        &format!(
            "command = \"{}\"\nargs = [\"serve\"]\nprotocol = \"gomocup\"\nnodes = 100\n\
             options = {{ x = 4 }}\n",
            arena_bin()
        ),
    );
    let p = load(&gomocup_own, "name = \"option.x\"\nmin = 0\nmax = 9");
    assert_eq!((p.start, p.integer), (4.0, true));
    let p = load(
        &gomocup_own,
        "name = \"option.x\"\nmin = 0\nmax = 9\ninteger = false",
    );
    assert!(!p.integer);
    // A Gomocup engine lists nothing: the bounds and start must be written.
    let gomocup = write(
        dir.path(),
        "g.toml",
        &format!(
            "command = \"{}\"\nargs = [\"serve\"]\nprotocol = \"gomocup\"\nnodes = 100\n",
            arena_bin()
        ),
    );
    let config = write(
        dir.path(),
        "t.toml",
        &one_param(&gomocup, "name = \"option.x\"\nmin = 0\nmax = 9"),
    );
    let err = run_bad_input(&["tune", &config, "--quiet", "--out", out.to_str().unwrap()]);
    assert!(
        err.contains("needs `start` (a Gomocup engine cannot list its options)"),
        "{err}"
    );
}

/// An engine that crashes mid-game stops the tune with the pair, the fault and the log;
/// the pair is not recorded, so a resume with a healthy engine plays it.
#[test]
fn a_crashing_outside_engine_stops_the_tune_without_recording_the_pair() {
    let dir = tempfile::tempdir().unwrap();
    let engine = write(
        dir.path(),
        "crash.toml",
        &format!(
            "command = \"/bin/sh\"\nargs = [\"{}\", \"crash\", \"{}\", \"{}\"]\nprotocol = \
             \"uai\"\nnodes = 300\n",
            fixture("faulty-uai.sh"),
            arena_bin(),
            shipped_engine("ataxx-modern.toml")
        ),
    );
    let config = write(
        dir.path(),
        "t.toml",
        &one_param(
            &engine,
            "name = \"option.search.params.lmr_divisor\"\nmin = 60\nmax = 240",
        ),
    );
    let out = dir.path().join("r");
    let o = arena()
        .args([
            "tune",
            &config,
            "--quiet",
            "--jobs",
            "1",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains("pair 1 game 1: the plus engine lost by 'fault: crash"),
        "{stderr}"
    );
    assert!(stderr.contains("logs/main-t0-plus.log"), "{stderr}");
    assert!(stderr.contains("fix the engine and resume"), "{stderr}");
    let journal = std::fs::read_to_string(out.join("pairs/main.jsonl")).unwrap_or_default();
    assert_eq!(journal, "", "no pair was recorded");
}

/// `arena sweep --over` sets a limit on built-in and outside engines alike, and an
/// option on the outside engines only; a key no engine has is refused with the list.
#[test]
fn a_sweep_sets_outside_engines_limits_and_options() {
    let dir = tempfile::tempdir().unwrap();
    let served = served(
        dir.path(),
        "served.toml",
        "gomoku-modern.toml",
        "gomocup",
        "",
    );
    let config = write(
        dir.path(),
        "t.toml",
        &format!(
            "name = \"s\"\ngame = \"gomoku\"\nrounds = 1\n[openings]\nkind = \"random\"\n\
             plies = 4\n[adjudication]\nmax_plies = 30\n\
             [[engines]]\nfile = \"{}\"\nname = \"inside\"\n\
             [[engines]]\nfile = \"{served}\"\n",
            shipped_engine("gomoku-modern.toml")
        ),
    );
    let out = dir.path().join("sw");
    let o = out.to_str().unwrap();
    run_ok(&[
        "sweep",
        &config,
        "--over",
        "search.depth=1,2",
        "--quiet",
        "--no-report",
        "--out",
        o,
    ]);
    let run = std::fs::read_to_string(out.join("search.depth=2/run.toml")).unwrap();
    let tree: toml::Table = toml::from_str(&run).unwrap();
    let engines = tree["engines"].as_array().unwrap();
    let depth_of = |name: &str| {
        let e = engines
            .iter()
            .find(|e| e["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("{name} in {run}"));
        e.get("depth")
            .or_else(|| e.get("search").and_then(|s| s.get("depth")))
            .and_then(toml::Value::as_integer)
    };
    assert_eq!(depth_of("inside"), Some(2), "{run}");
    assert_eq!(depth_of("served"), Some(2), "{run}");
    let out2 = dir.path().join("sw2");
    run_ok(&[
        "sweep",
        &config,
        "--over",
        "option.search.params.lmr_divisor=100",
        "--quiet",
        "--no-report",
        "--out",
        out2.to_str().unwrap(),
    ]);
    let run = std::fs::read_to_string(out2.join("option.search.params.lmr_divisor=100/run.toml"))
        .unwrap();
    assert!(
        run.contains("\"search.params.lmr_divisor\" = \"100\""),
        "{run}"
    );
    let t = write(
        dir.path(),
        "b.toml",
        &std::fs::read_to_string(&config).unwrap().replace(
            &format!("[[engines]]\nfile = \"{served}\"\n"),
            &format!(
                "[[engines]]\nfile = \"{}\"\nname = \"b\"\n",
                shipped_engine("gomoku-modern.toml")
            ),
        ),
    );
    let err = run_bad_input(&["sweep", &t, "--over", "option.x=1", "--out", o]);
    assert!(
        err.contains("no engine of") && err.contains("option.NAME"),
        "{err}"
    );
}
