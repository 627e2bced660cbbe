//! Reports through the real binary: every file written, plots titled and labelled, the
//! HTML well-formed and self-contained, user strings escaped, tuning folders, bad
//! folders, and a screenshot of the page taken by headless Chromium.
//!
//! The screenshot test needs `chromium`. Without it the test is skipped and says so on
//! stderr (a fresh machine with only Rust passes `cargo test`); with
//! `ARENA_REQUIRE_BROWSER=1`, as `.ci/run` sets after installing Chromium, a missing
//! browser fails it.

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use crate::support::{data, run_bad_input, run_ok};

/// The plots every tournament report has (an SPRT run adds `sprt`).
const PLOTS: [&str; 8] = [
    "elo",
    "head-to-head",
    "nodes-per-move",
    "nodes-by-depth",
    "nps",
    "game-length",
    "first-player",
    "convergence",
];

fn small_run(tmp: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let out = tmp.join(name);
    let config = data("tournaments/small.toml");
    let mut args = vec![
        "run",
        config.to_str().unwrap(),
        "--rounds",
        "2",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run_ok(&args);
    out
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The page parses as XML (so every element is closed and every entity known), and has
/// no way to fetch anything: no URL, no script, no stylesheet link, no external source.
fn check_page(html: &str) {
    if let Err(e) = roxmltree::Document::parse_with_options(
        html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    ) {
        panic!("report.html is not well-formed: {e}");
    }
    let lower = html.to_lowercase();
    for bad in [
        "http://", "https://", "<script", "<link", "<img", "<iframe", "src=\"", "//cdn",
    ] {
        assert!(!lower.contains(bad), "report.html contains `{bad}`");
    }
    // Links are in-page anchors only.
    for (i, _) in lower.match_indices("href=\"") {
        assert_eq!(
            &lower[i + 6..i + 7],
            "#",
            "an href that is not an anchor: {}",
            &html[i..(i + 60).min(html.len())]
        );
    }
    // url(...) only for the embedded font.
    for (i, _) in lower.match_indices("url(") {
        assert!(
            lower[i..].starts_with("url(data:font/ttf;base64,"),
            "a url() that is not embedded data"
        );
    }
}

#[test]
fn report_of_a_small_run_has_every_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = small_run(tmp.path(), "small", &[]);
    // `arena run` wrote a report at its end.
    assert!(dir.join("report.html").exists());
    assert!(dir.join("environment.json").exists());
    // `arena report` writes it again from the folder alone.
    fs::remove_dir_all(dir.join("plots")).unwrap();
    fs::remove_file(dir.join("report.html")).unwrap();
    fs::remove_file(dir.join("report.md")).unwrap();
    let out = run_ok(&["report", dir.to_str().unwrap()]);
    assert!(out.contains("report.html"), "{out}");
    let html = read(&dir.join("report.html"));
    let md = read(&dir.join("report.md"));
    check_page(&html);
    for plot in PLOTS {
        for ext in ["svg", "png"] {
            let path = dir.join("plots").join(format!("{plot}.{ext}"));
            assert!(path.exists(), "{} is missing", path.display());
        }
        assert!(
            md.contains(&format!("](plots/{plot}.svg)")),
            "report.md links {plot}"
        );
        assert!(
            html.contains(&format!("id=\"plot-{plot}\"")),
            "HTML has {plot}"
        );
    }
    // Titles and axis labels (with units) are in the SVGs.
    let svg = |name: &str| read(&dir.join("plots").join(format!("{name}.svg")));
    for (plot, texts) in [
        ("elo", vec!["Elo ladder", "95 % interval"]),
        (
            "head-to-head",
            vec!["Head-to-head", "score of the row engine"],
        ),
        ("nodes-per-move", vec!["Nodes per move", "(log scale)"]),
        (
            "nodes-by-depth",
            vec!["search depth (plies)", "mean nodes by then", "EBF"],
        ),
        ("nps", vec!["Search speed", "nodes per second"]),
        ("game-length", vec!["Game length", "game length (plies)"]),
        ("first-player", vec!["First player", "points per game"]),
        ("convergence", vec!["Elo as the games came in", "games"]),
    ] {
        let text = svg(plot);
        assert!(text.starts_with("<svg"), "{plot}.svg is an SVG document");
        for t in texts {
            assert!(text.contains(t), "{plot}.svg lacks `{t}`");
        }
    }
    // Every engine is named in the plots and the tables.
    for name in ["threat", "static", "seed001-topk"] {
        assert!(
            svg("elo").contains(&format!(">\n{name}\n</text>")),
            "{name} in elo.svg"
        );
        assert!(md.contains(name), "{name} in report.md");
        assert!(html.contains(name), "{name} in report.html");
    }
    // The exact config and the environment are on the page.
    assert!(html.contains("run.toml: the exact config"));
    assert!(html.contains(&format!(
        "arena</td><td class=\"t\">{}",
        env!("CARGO_PKG_VERSION")
    )));
    assert!(html.contains("master seed</td><td class=\"t\">7<"));
    assert!(md.contains("](run.toml)"), "report.md links the config");
    // PNGs decode, with the plot's size.
    let png = read_png(&dir.join("plots/elo.png"));
    assert_eq!(png.width, 960);
    assert!(png.distinct_colours() > 20);
}

#[test]
fn engine_names_are_escaped_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let table = data("../../configs/tables/gomoku/seed003.toml");
    let evil = "<script>alert(1)</script>";
    let config = tmp.path().join("evil.toml");
    fs::write(
        &config,
        format!(
            r#"name = "evil"
game = "mnk:9,9,5"
rounds = 1
seed = 3
[openings]
kind = "random"
plies = 2
[adjudication]
max_plies = 40
[[engines]]
name = "{evil}"
table = "{table}"
search = {{ depth = 1, ordering = ["static"] }}
[[engines]]
name = "a & \"b\" | *c*"
table = "{table}"
search = {{ depth = 1, ordering = ["none"] }}
"#,
            table = table.display()
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    run_ok(&[
        "run",
        config.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    let html = read(&out.join("report.html"));
    check_page(&html);
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the name is shown, escaped"
    );
    let md = read(&out.join("report.md"));
    assert!(md.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{md}");
    let mut files = vec![out.join("report.html"), out.join("report.md")];
    for entry in fs::read_dir(out.join("plots")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "svg") {
            files.push(path);
        }
    }
    for path in &files {
        let text = read(path);
        assert!(
            !text.contains(evil),
            "{} holds the raw name",
            path.display()
        );
        assert!(
            !text.contains("a & \"b\""),
            "{} holds a raw &",
            path.display()
        );
    }
    assert!(read(&out.join("plots/elo.svg")).contains("&lt;script&gt;"));
}

#[test]
fn sprt_runs_plot_the_llr_between_its_bounds() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sprt");
    run_ok(&[
        "run",
        data("tournaments/sprt.toml").to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    let svg = read(&out.join("plots/sprt.svg"));
    for t in ["log-likelihood ratio", "accept H1", "accept H0", "games"] {
        assert!(svg.contains(t), "sprt.svg lacks `{t}`");
    }
    assert!(out.join("plots/sprt.png").exists());
    let html = read(&out.join("report.html"));
    assert!(html.contains("SPRT [0, 20]"), "the headline gives the SPRT");
}

#[test]
fn tuning_folders_get_a_tuning_report() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tune");
    fs::create_dir_all(&dir).unwrap();
    for f in ["tune.json", "trajectory.csv"] {
        fs::copy(data(&format!("tuning/{f}")), dir.join(f)).unwrap();
    }
    // Without a verification match yet: the trajectory alone.
    run_ok(&["report", dir.to_str().unwrap()]);
    let html = read(&dir.join("report.html"));
    check_page(&html);
    assert!(html.contains("No verification match yet"));
    // With one.
    let verification = dir.join("verification");
    run_ok(&[
        "run",
        data("tuning/verification.toml").to_str().unwrap(),
        "--quiet",
        "--no-report",
        "--out",
        verification.to_str().unwrap(),
    ]);
    assert!(!verification.join("report.html").exists(), "--no-report");
    run_ok(&["report", dir.to_str().unwrap()]);
    let html = read(&dir.join("report.html"));
    check_page(&html);
    let svg = read(&dir.join("plots/tuning.svg"));
    for t in [
        "Parameters during tuning",
        "game pairs played",
        "fraction of its range",
        "table.open_three",
        "table.defence: 1 → 1.62",
    ] {
        assert!(svg.contains(t), "tuning.svg lacks `{t}`");
    }
    assert!(dir.join("plots/tuning.png").exists());
    for plot in ["verification-elo", "verification-head-to-head"] {
        assert!(dir.join(format!("plots/{plot}.svg")).exists(), "{plot}");
    }
    assert!(
        html.contains("Verification: tuned against start:"),
        "headline"
    );
    assert!(html.contains("table.rush_four"));
    let md = read(&dir.join("report.md"));
    assert!(md.contains("](plots/tuning.svg)"));
    assert!(md.contains("table.open\\_three"));
}

#[test]
fn shard_runs_write_no_report_and_stats_rewrites_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = small_run(tmp.path(), "shard", &["--shard", "0/2"]);
    assert!(
        !dir.join("report.html").exists(),
        "a shard is not a whole run"
    );
    let dir = small_run(tmp.path(), "whole", &["--no-report"]);
    assert!(!dir.join("report.html").exists());
    run_ok(&["stats", dir.to_str().unwrap()]);
    assert!(
        dir.join("report.html").exists(),
        "arena stats writes the report"
    );
    // No games at all: still a report, saying so.
    fs::write(dir.join("games.jsonl"), "").unwrap();
    run_ok(&["stats", dir.to_str().unwrap()]);
    let html = read(&dir.join("report.html"));
    check_page(&html);
    assert!(html.contains("0 of 12 games played"));
}

#[test]
fn bad_folders_are_one_line_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nope");
    let e = run_bad_input(&["report", missing.to_str().unwrap()]);
    assert!(e.contains("no such results folder"), "{e}");
    let e = run_bad_input(&["report", tmp.path().to_str().unwrap()]);
    assert!(
        e.contains("summary.json") && e.contains("arena stats"),
        "{e}"
    );
    fs::write(tmp.path().join("summary.json"), "{\"name\": 3}").unwrap();
    let e = run_bad_input(&["report", tmp.path().to_str().unwrap()]);
    assert!(e.contains("summary.json:1"), "{e}");
    // A tuning folder with a broken trajectory names the file and line.
    let tune = tmp.path().join("tune");
    fs::create_dir_all(&tune).unwrap();
    fs::copy(data("tuning/tune.json"), tune.join("tune.json")).unwrap();
    fs::write(
        tune.join("trajectory.csv"),
        "pairs,table.open_three\n4,2600\n8,lots\n",
    )
    .unwrap();
    let e = run_bad_input(&["report", tune.to_str().unwrap()]);
    assert!(
        e.contains("trajectory.csv:3") && e.contains("`lots`"),
        "{e}"
    );
}

struct Png {
    width: u32,
    height: u32,
    rgb: Vec<[u8; 3]>,
}

impl Png {
    fn distinct_colours(&self) -> usize {
        let mut v: Vec<[u8; 3]> = self.rgb.clone();
        v.sort_unstable();
        v.dedup();
        v.len()
    }

    /// Pixels within `tol` of `c` in every channel.
    fn count_near(&self, c: [u8; 3], tol: u8) -> usize {
        self.rgb
            .iter()
            .filter(|p| (0..3).all(|i| p[i].abs_diff(c[i]) <= tol))
            .count()
    }
}

fn read_png(path: &Path) -> Png {
    let decoder = png::Decoder::new(fs::File::open(path).expect("the PNG exists"));
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG data");
    let channels = info.color_type.samples();
    assert_eq!(info.bit_depth, png::BitDepth::Eight, "8-bit PNG");
    let rgb = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| match channels {
            1 | 2 => [p[0], p[0], p[0]],
            _ => [p[0], p[1], p[2]],
        })
        .collect();
    Png {
        width: info.width,
        height: info.height,
        rgb,
    }
}

/// Chromium, if installed.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ARENA_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
}

#[test]
fn headless_chromium_renders_the_report() {
    let Some(browser) = chromium() else {
        // A fresh machine with only Rust must pass the README's `cargo test`: without a
        // browser the check is skipped, loudly. CI installs Chromium and sets
        // ARENA_REQUIRE_BROWSER=1, so there the check cannot silently not run.
        if std::env::var("ARENA_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
            panic!(
                "ARENA_REQUIRE_BROWSER=1 but no Chromium was found: install it (Debian: \
                 apt-get install -y chromium) or point ARENA_CHROMIUM at it"
            );
        }
        // Straight to the process's stderr, past the test harness's capture, so the skip
        // shows in a plain `cargo test` (a captured eprintln! of a passing test never does).
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "\nSKIPPED report::headless_chromium_renders_the_report: no Chromium on PATH \
             (install it, e.g. apt-get install -y chromium, or set ARENA_CHROMIUM; \
             .ci/run installs it and sets ARENA_REQUIRE_BROWSER=1 so CI never skips)"
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = small_run(tmp.path(), "small", &[]);
    let shot = tmp.path().join("shot.png");
    let profile = tmp.path().join("chromium-profile");
    let page = format!("file://{}", dir.join("report.html").display());
    let mut child = Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--window-size=1400,4000")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&page)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", browser.display()));
    // Not a timed assertion: a guard so a stuck browser fails the test instead of hanging.
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("chromium runs") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(300) {
            let _ = child.kill();
            panic!("chromium did not finish in 5 minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut stderr);
    }
    assert!(
        status.success() && shot.exists(),
        "chromium failed ({status}): {stderr}"
    );
    let png = read_png(&shot);
    assert_eq!((png.width, png.height), (1400, 4000), "the window's size");
    let total = png.rgb.len();
    let white = png.count_near([255, 255, 255], 0);
    assert!(white < total * 97 / 100, "the page is not blank");
    assert!(
        png.distinct_colours() > 200,
        "text, plots and tables: many colours, has {}",
        png.distinct_colours()
    );
    // The first engines' colours (Okabe–Ito blue and vermillion) are drawn: the inline
    // SVG plots rendered.
    assert!(png.count_near([0, 114, 178], 12) > 200, "blue plot marks");
    assert!(
        png.count_near([213, 94, 0], 12) > 200,
        "vermillion plot marks"
    );
}
