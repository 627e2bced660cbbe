//! Reports through the real binary: every file written, plots titled and labelled, the
//! HTML well-formed and self-contained, user strings escaped, tuning folders, bad
//! folders, a screenshot of the page taken by headless Chromium, and live reports of a
//! tune or a tournament being played (with `stats`, without taking their lock).
//!
//! The tests that drive a browser need `chromium`: they are ignored in a plain `cargo
//! test` (a fresh machine with only Rust passes it, and the summary counts them as
//! ignored); `.ci/run` installs Chromium and runs them with `--ignored`, where a missing
//! browser fails them.

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use crate::{
    browser::{HEADLESS, Page, chromium, no_browser, page},
    common::{arena_process, data, finish, lines, run_bad_input, run_ok, signal, wait_for},
};

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
/// no way to fetch anything: no URL, no stylesheet link, no external source, and no
/// script but the game viewer's two inline ones (its data and its code).
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
        "http://",
        "https://",
        "<link",
        "<img",
        "<iframe",
        "src=\"",
        "src=",
        "//cdn",
        "import(",
        "fetch(",
        "xmlhttprequest",
    ] {
        assert!(!lower.contains(bad), "report.html contains `{bad}`");
    }
    let scripts: Vec<&str> = lower
        .match_indices("<script")
        .map(|(i, _)| &lower[i..(i + 60).min(lower.len())])
        .collect();
    assert!(
        scripts.len() <= 2
            && scripts.iter().all(|s| {
                s.starts_with("<script type=\"application/json\" id=\"viewer-data\">")
                    || s.starts_with("<script>//<![cdata[")
            }),
        "only the viewer's inline scripts: {scripts:?}"
    );
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

/// Regression: a move in a decided position completes every depth to the engine's last
/// (255 here, 128 for Autaxx), and the report's depth table grew a column for each of
/// them and the plot's axis stretched to 255. Depths that fewer than a tenth of the moves
/// completed are left out, and said to be; summary.json keeps them.
#[test]
fn depths_few_moves_reach_stay_out_of_the_depth_table() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = small_run(tmp.path(), "deep", &["--no-report"]);
    let games = dir.join("games.jsonl");
    let mut rewritten = 0;
    let text: String = read(&games)
        .lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            // One move of the first game: cumulative nodes at depths 1 to 255.
            if rewritten == 0
                && let Some(st) = v["stats"].as_array_mut().and_then(|a| a.first_mut())
                && st.get("nodes_at_depth").is_some()
            {
                st["nodes_at_depth"] = (1..=255u64).map(|d| 10 * d).collect();
                st["depth"] = 255.into();
                st["nodes"] = 2550.into();
                rewritten += 1;
            }
            serde_json::to_string(&v).unwrap() + "\n"
        })
        .collect();
    assert_eq!(
        rewritten,
        1,
        "a move with nodes by depth in {}",
        games.display()
    );
    fs::write(&games, text).unwrap();
    run_ok(&["stats", dir.to_str().unwrap()]);

    let summary: serde_json::Value =
        serde_json::from_str(&read(&dir.join("summary.json"))).unwrap();
    let deepest = summary["engines"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["nodes_by_depth"].as_array().unwrap())
        .map(|d| d[0].as_u64().unwrap())
        .max()
        .unwrap();
    assert_eq!(deepest, 255, "summary.json keeps every depth");
    let md = read(&dir.join("report.md"));
    let head = md
        .lines()
        .find(|l| l.starts_with("| engine | EBF |"))
        .unwrap_or_else(|| panic!("a depth table in {md}"));
    let columns = head.matches("| depth ").count();
    assert!(
        (1..10).contains(&columns),
        "the depths the engines' moves reach, not 255: {head}"
    );
    assert!(!head.contains("depth 255"), "{head}");
    assert!(
        md.contains("are left out (up to depth 255"),
        "the table says what it leaves out: {md}"
    );
    check_page(&read(&dir.join("report.html")));
}

#[test]
fn the_ebf_starts_where_an_engines_counts_grow() {
    // Autaxx reports more nodes at depth 1 than at depth 2: an EBF based on depth 1
    // would flatter it. Every move here counts 503, 100, 300 and 900 nodes by depths 1
    // to 4: an EBF of 3 from depth 2, where (900 / 503)^(1/3) would say 1.21.
    let tmp = tempfile::tempdir().unwrap();
    let dir = small_run(tmp.path(), "ebf", &["--no-report"]);
    let games = dir.join("games.jsonl");
    let text: String = read(&games)
        .lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            for st in v["stats"].as_array_mut().into_iter().flatten() {
                if st.get("nodes_at_depth").is_some() {
                    st["nodes_at_depth"] = serde_json::json!([503, 100, 300, 900]);
                    st["depth"] = 4.into();
                    st["nodes"] = 900.into();
                }
            }
            serde_json::to_string(&v).unwrap() + "\n"
        })
        .collect();
    fs::write(&games, text).unwrap();
    run_ok(&["stats", dir.to_str().unwrap()]);
    let md = read(&dir.join("report.md"));
    let rows: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with("| engine | EBF |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(!rows.is_empty(), "a depth table in {md}");
    for row in rows {
        assert_eq!(row.split('|').nth(2).map(str::trim), Some("3.00"), "{row}");
    }
    check_page(&read(&dir.join("report.html")));
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

#[test]
#[ignore = "needs Chromium: cargo test -- --ignored headless_chromium (.ci/run does)"]
fn headless_chromium_renders_the_report() {
    let browser = chromium("report::headless_chromium_renders_the_report");
    let tmp = tempfile::tempdir().unwrap();
    let dir = small_run(tmp.path(), "small", &[]);
    let shot = tmp.path().join("shot.png");
    let profile = tmp.path().join("chromium-profile");
    let page = format!("file://{}", dir.join("report.html").display());
    let test = "report::headless_chromium_renders_the_report";
    let spawned = Command::new(&browser)
        .args(HEADLESS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--window-size=1400,4000")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&page)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            let why = format!("{} cannot start: {e}", browser.display());
            no_browser(test, &why);
        }
    };
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
    if !status.success() && !shot.exists() {
        let why = format!("{} does not run ({status}): {stderr}", browser.display());
        no_browser(test, why.trim());
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

/// The board a record reaches after its opening and `plies` of its moves, as the viewer
/// draws it: a character per cell row by row from the top (`x`, `o`, `.`, `#` a gap),
/// computed with the game layer's rules (Ataxx through its FEN).
fn expected_board(game: &str, r: &arena::tournament::GameRecord, plies: usize) -> String {
    use arena::game::{Ataxx, Game, GameSpec, Mnk};
    match game.parse::<GameSpec>().unwrap() {
        GameSpec::Mnk(config) => {
            let mut pos = Mnk::from_text(&config, &r.opening).unwrap();
            for m in &r.moves[..plies] {
                pos.try_play(m).unwrap();
            }
            pos.cells()
                .iter()
                .map(|&c| match c {
                    1 => 'x',
                    2 => 'o',
                    _ => '.',
                })
                .collect()
        }
        GameSpec::Ataxx => {
            let mut pos = Ataxx::from_fen(&r.opening).unwrap();
            for m in &r.moves[..plies] {
                pos.try_play(m).unwrap();
            }
            let fen = pos.fen();
            let board = fen.split(' ').next().unwrap();
            board
                .split('/')
                .flat_map(|row| {
                    row.chars().flat_map(|c| match c.to_digit(10) {
                        Some(n) => vec!['.'; n as usize],
                        None if c == '-' => vec!['#'],
                        None => vec![c],
                    })
                })
                .collect()
        }
    }
}

/// What the viewer's board shows now, in [`expected_board`]'s form.
fn shown_board(page: &mut Page) -> String {
    page.eval(
        "(() => { const n = document.querySelectorAll('#viewer-board circle').length; \
         let s = ''; for (let i = 0; i < n; i++) { \
         const c = document.getElementById('vc' + i).getAttribute('class').split(' '); \
         const q = document.getElementById('vq' + i).getAttribute('class').split(' '); \
         s += c.includes('x') ? 'x' : c.includes('o') ? 'o' : q.includes('gap') ? '#' : '.'; } \
         return s; })()",
    )
    .as_str()
    .expect("a board string")
    .to_string()
}

/// The board's picture (scrolled into view first).
fn board_shot(page: &mut Page) -> Png {
    let rect = page.eval(
        "(() => { const b = document.getElementById('viewer-board'); b.scrollIntoView(); \
         const r = b.getBoundingClientRect(); \
         return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height]; })()",
    );
    let r: Vec<f64> = rect
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let bytes = page.screenshot((r[0], r[1], r[2], r[3]));
    let tmp = tempfile::NamedTempFile::new().unwrap();
    fs::write(tmp.path(), bytes).unwrap();
    read_png(tmp.path())
}

fn click(page: &mut Page, id: &str, times: usize) -> u64 {
    page.eval(&format!(
        "(() => {{ for (let i = 0; i < {times}; i++) document.getElementById('{id}').click(); \
         return Number(document.getElementById('viewer-board').getAttribute('data-ply')); }})()"
    ))
    .as_u64()
    .expect("a ply")
}

fn select(page: &mut Page, id: &str, value: &str) -> u64 {
    page.eval(&format!(
        "(() => {{ const s = document.getElementById('{id}'); s.value = '{value}'; \
         s.dispatchEvent(new Event('change')); \
         return document.getElementById('viewer-games').options.length; }})()"
    ))
    .as_u64()
    .expect("a count")
}

/// Drives the viewer of the report in `dir` like a user: every game listed, pick the
/// longest, step through it (the board after each step is the game layer's position),
/// filter by result and pairing, and a picture of the board that is not blank and
/// changes as the moves are played.
fn drive_viewer(page: &mut Page, dir: &Path, game: &str) {
    let records = arena::tournament::read_records(&dir.join("games.jsonl"))
        .unwrap()
        .records;
    page.open(&format!("file://{}", dir.join("report.html").display()));
    let listed = page
        .eval("document.getElementById('viewer-games').options.length")
        .as_u64()
        .unwrap();
    assert_eq!(listed, records.len() as u64, "every game is listed");
    let r = records.iter().max_by_key(|r| r.moves.len()).unwrap();
    let n = r.moves.len();
    assert!(n >= 4, "a game with moves to step through");
    let picked = page.eval(&format!(
        "(() => {{ const s = document.getElementById('viewer-games'); \
         const o = Array.from(s.options).find(o => o.textContent.startsWith('game {}:')); \
         s.value = o.value; s.dispatchEvent(new Event('change')); \
         return document.getElementById('viewer-info').textContent; }})()",
        r.game
    ));
    assert!(
        picked
            .as_str()
            .unwrap()
            .starts_with(&format!("game {},", r.game)),
        "{picked}"
    );
    assert_eq!(shown_board(page), expected_board(game, r, 0), "the start");
    let start_shot = board_shot(page);
    assert_eq!(click(page, "viewer-next", 3), 3);
    assert_eq!(
        shown_board(page),
        expected_board(game, r, 3),
        "after 3 moves"
    );
    assert_eq!(click(page, "viewer-last", 1), n as u64);
    assert_eq!(shown_board(page), expected_board(game, r, n), "the end");
    let info = page.eval("document.getElementById('viewer-info').textContent");
    assert!(
        info.as_str().unwrap().contains(r.result.as_str()),
        "the result at the end: {info}"
    );
    let end_shot = board_shot(page);
    assert_eq!(click(page, "viewer-prev", 1), n as u64 - 1);
    assert_eq!(shown_board(page), expected_board(game, r, n - 1));
    // Each move's depth, nodes and score are in the move table.
    let first = page.eval(
        "Array.from(document.getElementById('viewer-moves').rows[0].cells).map(c => c.textContent)",
    );
    let first: Vec<&str> = first
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(first[3], r.moves[0]);
    assert_eq!(first[4], r.stats[0].depth.to_string());
    assert_eq!(first[5], r.stats[0].nodes.to_string());
    // The pictures: a drawn board (not one colour), different once the moves are on it.
    for shot in [&start_shot, &end_shot] {
        assert!(
            shot.width > 100 && shot.height > 100,
            "a board-sized picture"
        );
        assert!(shot.distinct_colours() > 8, "not blank");
    }
    assert_ne!(
        start_shot.rgb, end_shot.rgb,
        "the board changes as moves are played"
    );
    // Filters.
    for result in ["1-0", "0-1", "1/2-1/2"] {
        let want = records
            .iter()
            .filter(|g| g.result.as_str() == result)
            .count();
        assert_eq!(
            select(page, "viewer-result", result),
            want as u64,
            "{result}"
        );
    }
    select(page, "viewer-result", "");
    let pairings = records.iter().map(|g| g.pairing).max().unwrap() + 1;
    for p in 0..pairings {
        let want = records.iter().filter(|g| g.pairing == p).count();
        assert_eq!(select(page, "viewer-pairing", &p.to_string()), want as u64);
    }
    // A link to a position opens it (from another page: a fragment change alone is
    // no new load).
    page.open("about:blank");
    page.open(&format!(
        "file://{}#game={}&ply=2",
        dir.join("report.html").display(),
        r.game
    ));
    assert_eq!(
        shown_board(page),
        expected_board(game, r, 2),
        "report.html#game=..&ply=2"
    );
}

#[test]
#[ignore = "needs Chromium: cargo test -- --ignored headless_chromium (.ci/run does)"]
fn headless_chromium_drives_the_game_viewer() {
    let browser = chromium("report::headless_chromium_drives_the_game_viewer");
    let tmp = tempfile::tempdir().unwrap();
    let gomoku = small_run(tmp.path(), "small", &[]);
    let ataxx = tmp.path().join("ataxx");
    let engine = data("../../configs/engines/ataxx-seed004.toml");
    run_ok(&[
        "match",
        engine.to_str().unwrap(),
        data("../../configs/engines/ataxx-rich.toml")
            .to_str()
            .unwrap(),
        "--rounds",
        "2",
        "--depth",
        "1",
        "--quiet",
        "--out",
        ataxx.to_str().unwrap(),
    ]);
    let test = "report::headless_chromium_drives_the_game_viewer";
    let mut page = page(test, &browser, &tmp.path().join("profile"), (1400, 1000));
    drive_viewer(&mut page, &gomoku, "mnk:9,9,5");
    drive_viewer(&mut page, &ataxx, "ataxx");

    // An engine named like markup is shown as text: its name is in the game list as
    // written, and the page holds no element it did not have (no injected script).
    let evil = "<script>document.title='owned'</script><b id=injected>";
    let out = tmp.path().join("evil");
    let table = data("../../configs/tables/gomoku/seed003.toml");
    let config = tmp.path().join("evil.toml");
    fs::write(
        &config,
        format!(
            "name = \"evil\"\ngame = \"mnk:7,7,4\"\nrounds = 1\n\
             [[engines]]\nname = \"{}\"\ntable = \"{}\"\nsearch = {{ depth = 1 }}\n\
             [[engines]]\nname = \"plain\"\ntable = \"{}\"\nsearch = {{ depth = 1 }}\n",
            evil.replace('"', "\\\""),
            table.display(),
            table.display()
        ),
    )
    .unwrap();
    run_ok(&[
        "run",
        config.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    page.open(&format!("file://{}", out.join("report.html").display()));
    let seen = page.eval(
        "[document.title, document.querySelectorAll('script').length, \
          document.getElementById('injected') === null, \
          document.getElementById('viewer-games').options[0].textContent]",
    );
    assert_eq!(seen[0], "arena report: evil", "no script of the name ran");
    assert_eq!(seen[1], 2, "the viewer's two scripts only");
    assert_eq!(seen[2], true, "no element made from the name");
    assert!(
        seen[3].as_str().unwrap().contains(evil),
        "the name is shown as written: {seen}"
    );
}

/// Issue 20, item 18: a fit's `k` of about 3e-5 is shown as such (it read `k | 0`); a
/// sweep whose pairing won every game draws that infinite Elo as an arrow the legend
/// explains (no point at the top edge), keeps the legend beside the data, puts
/// whole-number ticks on whole-number values; and `pairings.csv` writes the infinite
/// Elo as `+inf` with `elo_low`/`elo_high`, as `scaling.csv` does.
#[test]
fn small_numbers_infinite_elo_and_whole_number_sweeps_are_shown_as_they_are() {
    let tmp = tempfile::tempdir().unwrap();
    let fit = tmp.path().join("fit");
    run_ok(&[
        "fit",
        data("fit/small.toml").to_str().unwrap(),
        "--quiet",
        "--out",
        fit.to_str().unwrap(),
    ]);
    let json: serde_json::Value = serde_json::from_str(&read(&fit.join("fit.json"))).unwrap();
    let k = json["k"].as_f64().unwrap();
    assert!(k > 0.0 && k < 1e-3, "a small k to show: {k}");
    let md = read(&fit.join("report.md"));
    let shown: f64 = md
        .lines()
        .find_map(|l| l.strip_prefix("| k | "))
        .and_then(|v| v.strip_suffix(" |"))
        .unwrap_or_else(|| panic!("a k row in {md}"))
        .parse()
        .expect("k is shown as a number");
    assert!((shown / k - 1.0).abs() < 1e-3, "k {k} is shown as {shown}");

    let config = crate::common::write(
        tmp.path(),
        "inf.toml",
        "name = \"inf\"\ngame = \"tictactoe\"\nrounds = 2\nseed = 5\n\n[openings]\n\
         kind = \"random\"\nplies = 1\n\n[[engines]]\nname = \"perfect\"\n\
         search = { depth = 9, tt_mb = 1 }\n\n[[engines]]\nname = \"d1\"\n\
         search = { depth = 1, tt_mb = 1, ordering = [\"none\"] }\n\n[[engines]]\n\
         name = \"d2\"\nsearch = { depth = 2, tt_mb = 1 }\n",
    );
    let sweep = tmp.path().join("sweep");
    run_ok(&[
        "sweep",
        &config,
        "--over",
        "search.tt_mb=1,2",
        "--quiet",
        "--no-report",
        "--out",
        sweep.to_str().unwrap(),
    ]);
    let scaling = read(&sweep.join("scaling.csv"));
    assert!(
        scaling.contains("perfect vs d1,1,4,+inf,"),
        "the pairing won every game: {scaling}"
    );
    let pairings = read(&sweep.join("search.tt_mb=1/pairings.csv"));
    let header: Vec<&str> = pairings.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = pairings
        .lines()
        .find(|l| l.starts_with("perfect,d1,"))
        .unwrap()
        .split(',')
        .collect();
    let cell = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(cell("elo"), "+inf", "{pairings}");
    assert_eq!(cell("elo_high"), "+inf", "{pairings}");
    assert!(cell("elo_low").parse::<f64>().is_ok(), "{pairings}");

    let svg = read(&sweep.join("scaling.svg"));
    let doc = roxmltree::Document::parse(&svg).expect("the SVG parses");
    let texts: Vec<(f64, String)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            let x = n.attribute("x").unwrap().parse().unwrap();
            (x, n.text().unwrap_or("").trim().to_string())
        })
        .collect();
    let marks: Vec<f64> = doc
        .descendants()
        .filter_map(|n| match n.tag_name().name() {
            // Data points have radius 3 (the legend's samples 4).
            "circle" if n.attribute("r") == Some("3") => {
                n.attribute("cx").and_then(|v| v.parse().ok())
            }
            "polygon" => n.attribute("points").map(|p| {
                p.split_whitespace()
                    .filter_map(|xy| xy.split(',').next()?.parse::<f64>().ok())
                    .fold(0.0, f64::max)
            }),
            _ => None,
        })
        .collect();
    let rightmost = marks.iter().copied().fold(0.0, f64::max);
    let legend = |label: &str| {
        texts
            .iter()
            .find(|(_, t)| t == label)
            .unwrap_or_else(|| panic!("'{label}' in the legend: {texts:?}"))
            .0
    };
    for label in ["perfect vs d1", "perfect vs d2", "d1 vs d2"] {
        assert!(legend(label) > rightmost, "{label} is beside the data");
    }
    assert!(legend("▲ Elo +∞: every game won") > rightmost);
    assert!(
        doc.descendants().any(|n| n.has_tag_name("polygon")),
        "an arrow head for +inf"
    );
    for tick in ["1", "2"] {
        assert!(
            texts.iter().any(|(_, t)| t == tick),
            "tick {tick}: {texts:?}"
        );
    }
    assert!(
        !texts.iter().any(|(_, t)| t == "1.5" || t == "1.2"),
        "no fractional ticks on whole-number values: {texts:?}"
    );
}

/// One key press in the page (DevTools input events, as a keyboard sends them).
fn press(page: &mut Page, key: &str, code: u32) -> u64 {
    for kind in ["rawKeyDown", "keyUp"] {
        page.call(
            "Input.dispatchKeyEvent",
            serde_json::json!({"type": kind, "key": key, "code": key,
                "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}),
        );
    }
    page.eval("Number(document.getElementById('viewer-board').getAttribute('data-ply'))")
        .as_u64()
        .expect("a ply")
}

/// Issue 20, item 17: the arrow keys, Home and End step through the game (the page had
/// two elements with id `viewer`, and the keys were bound to the heading), and a link
/// `report.html#game=N&ply=P` scrolls the viewer into view instead of leaving the page
/// at the top.
#[test]
#[ignore = "needs Chromium: cargo test -- --ignored headless_chromium (.ci/run does)"]
fn headless_chromium_viewer_takes_keys_and_links_scroll_to_it() {
    let test = "report::headless_chromium_viewer_takes_keys_and_links_scroll_to_it";
    let browser = chromium(test);
    let tmp = tempfile::tempdir().unwrap();
    let dir = small_run(tmp.path(), "small", &[]);
    let html = read(&dir.join("report.html"));
    assert_eq!(
        html.matches("id=\"viewer\"").count(),
        1,
        "one element is #viewer"
    );
    let records = arena::tournament::read_records(&dir.join("games.jsonl"))
        .unwrap()
        .records;
    let r = records.iter().max_by_key(|r| r.moves.len()).unwrap();
    let n = r.moves.len() as u64;
    let mut page = page(test, &browser, &tmp.path().join("profile"), (1400, 900));
    page.open(&format!(
        "file://{}#game={}&ply=2",
        dir.join("report.html").display(),
        r.game
    ));
    let seen = page.eval(
        "(() => { const h = document.getElementById('viewer').getBoundingClientRect(); \
         return [window.scrollY, h.top, window.innerHeight, \
         Number(document.getElementById('viewer-board').getAttribute('data-ply'))]; })()",
    );
    let seen: Vec<f64> = seen
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(seen[3], 2.0, "the linked move is shown");
    assert!(seen[0] > 0.0, "the page scrolled: {seen:?}");
    assert!(
        seen[1] >= -1.0 && seen[1] < seen[2] / 2.0,
        "the viewer's heading is at the top of the window: {seen:?}"
    );
    assert_eq!(press(&mut page, "ArrowRight", 39), 3);
    assert_eq!(press(&mut page, "End", 35), n);
    assert_eq!(press(&mut page, "ArrowLeft", 37), n - 1);
    assert_eq!(press(&mut page, "Home", 36), 0);
    assert_eq!(
        press(&mut page, "ArrowLeft", 37),
        0,
        "no move before the start"
    );
    // A click on the board gives the viewer the keys again after focus went elsewhere.
    page.eval("document.activeElement.blur(); document.body.focus(); 0");
    let centre = page.eval(
        "(() => { const b = document.getElementById('viewer-board'); b.scrollIntoView(); \
         const r = b.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()",
    );
    let (x, y) = (centre[0].as_f64().unwrap(), centre[1].as_f64().unwrap());
    for kind in ["mousePressed", "mouseReleased"] {
        page.call(
            "Input.dispatchMouseEvent",
            serde_json::json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
        );
    }
    assert_eq!(press(&mut page, "ArrowRight", 39), 1);
}

/// Issue 44, item 22: the report's environment gave no arena commit (only the version),
/// and the report did not say whose side a result is from: `1-0` is black's win in the
/// records and the report, White's in the PGN `arena export` writes by default.
#[test]
fn the_report_names_arenas_commit_and_whose_side_a_result_is_from() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = small_run(tmp.path(), "small", &[]);
    let md = read(&dir.join("report.md"));
    let html = read(&dir.join("report.html"));
    let env = read(&dir.join("environment.json"));
    assert!(md.contains(env!("CARGO_PKG_VERSION")), "{md}");
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    match head {
        Ok(o) if o.status.success() => {
            let commit = String::from_utf8(o.stdout).unwrap().trim().to_string();
            assert!(md.contains(&commit), "built from {commit}: {md}");
            assert!(html.contains(&commit), "built from {commit}");
            assert!(env.contains(&commit), "{env}");
        }
        // Not a git checkout (a crate archive): the version alone.
        _ => {}
    }
    for page in [&md, &html] {
        assert!(
            page.contains("1-0 is a win for black"),
            "whose side 1-0 is: {page:.2000}"
        );
        assert!(page.contains("--result-convention"), "{page:.2000}");
    }
}

/// A three-engine round robin whose engine names (18 characters) make the pairings
/// table the widest the report has: `a vs b` labels of 40 characters, not wrapped.
fn wide_names_run(tmp: &Path) -> PathBuf {
    let table = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("configs/tables/gomoku")
            .join(name)
            .display()
            .to_string()
    };
    let mut text = "name = \"wide\"\ngame = \"mnk:9,9,5\"\nrounds = 6\nseed = 7\n\n\
                    [openings]\nkind = \"random\"\nplies = 2\nradius = 2\n\n\
                    [adjudication]\nmax_plies = 60\n\n"
        .to_string();
    for (name, file) in [
        ("seed003-threat-dp", "seed003.toml"),
        ("seed000-threat-dp", "seed000.toml"),
        ("seed001-threat-dp", "seed001.toml"),
    ] {
        text.push_str(&format!(
            "[[engines]]\nname = \"{name}1\"\ntable = \"{}\"\n\
             search = {{ depth = 1, ordering = [\"tt_move\", \"threat\"] }}\n\n",
            table(file)
        ));
    }
    let config = tmp.join("wide.toml");
    fs::write(&config, text).unwrap();
    let out = tmp.join("wide");
    run_ok(&[
        "run",
        config.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    out
}

/// Issue 44, item 21: the pairings table of report.html was wider than the page's 1180
/// px column at a 1400 px window (its figures and headers never wrapped), so its right
/// part was cut off behind a scroll bar. Every table sits in a container that scrolls
/// rather than overflow, and headers and text cells wrap.
#[test]
fn tables_scroll_in_their_own_box_and_their_headers_wrap() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = small_run(tmp.path(), "small", &[]);
    let html = read(&dir.join("report.html"));
    // Every table but the game viewer's list of moves (a box of its own, which scrolls).
    let tables = html.matches("<table>").count() - 1;
    assert!(
        html.contains("class=\"moves\"><table>"),
        "the viewer's moves"
    );
    assert!(tables >= 4, "{tables} tables");
    assert_eq!(
        html.matches("<div class=\"scroll\"><table>").count(),
        tables,
        "every table in its own scrolling box"
    );
    let style = &html[html.find("<style>").unwrap()..html.find("</style>").unwrap()];
    let rule = |selector: &str| {
        style
            .lines()
            .find(|l| l.starts_with(&format!("{selector} {{")))
            .unwrap_or_else(|| panic!("no rule for {selector}"))
            .to_string()
    };
    assert!(rule(".scroll").contains("overflow-x: auto"), "{style}");
    assert!(rule("th").contains("white-space: normal"), "{style}");
    assert!(rule("td.t").contains("white-space: normal"), "{style}");
    assert!(
        html.contains("first player [95\u{a0}%]"),
        "no break before %"
    );
}

/// Issue 44, item 21, in a browser: at a 1400 px window no table of a report is wider
/// than its box, with the widest pairing labels that do not wrap by themselves.
#[test]
#[ignore = "needs Chromium: cargo test -- --ignored headless_chromium (.ci/run does)"]
fn headless_chromium_tables_fit_a_1400_px_window() {
    let test = "report::headless_chromium_tables_fit_a_1400_px_window";
    let browser = chromium(test);
    let tmp = tempfile::tempdir().unwrap();
    let dir = wide_names_run(tmp.path());
    let mut page = page(test, &browser, &tmp.path().join("profile"), (1400, 1000));
    page.open(&format!("file://{}", dir.join("report.html").display()));
    let seen = page.eval(
        "Array.from(document.querySelectorAll('div.scroll')).map(d => \
         [d.querySelector('th').textContent, d.scrollWidth, d.clientWidth])",
    );
    let boxes = seen.as_array().expect("an array");
    assert!(boxes.len() >= 4, "{seen}");
    for b in boxes {
        assert!(
            b[1].as_f64() <= b[2].as_f64(),
            "a table wider than its box: {b} (all: {seen})"
        );
    }
}

/// Issue 18, item 5: a tune in progress has a report (θ so far, how far, pairs an hour)
/// made without its lock; `arena report --live` keeps it up to date (the page reloads
/// itself) while the tune runs, and writes it once more, final, when the tune stops.
#[test]
fn a_live_report_follows_a_tune_until_it_stops() {
    use crate::common::{wait_for_file, wait_or_kill};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let mut tune = arena_process()
        .args(["tune"])
        .arg(data("tune/small.toml"))
        .args(["--pairs", "400000", "--jobs", "1", "--quiet", "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let trajectory = out.join("trajectory.csv");
    wait_for(&mut tune, "a batch applied", || {
        std::fs::read_to_string(&trajectory).is_ok_and(|t| t.lines().count() >= 5)
    });
    // A plain report while the tune writes: no lock needed, θ so far.
    let o = arena_process()
        .args(["report", "--quiet"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("In progress: "), "{md}");
    assert!(md.contains(" of 400000 pairs ("), "{md}");
    assert!(md.contains("pairs an hour"), "{md}");
    assert!(md.contains("the tuned values below are θ so far"), "{md}");
    // --live: the page reloads itself while the tune runs.
    std::fs::remove_file(out.join("report.html")).unwrap();
    let live = arena_process()
        .args(["report", "--live", "1"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let html = out.join("report.html");
    wait_for_file(&html, std::time::Duration::from_secs(300), |t| {
        t.contains("<meta http-equiv=\"refresh\" content=\"1\"/>")
    });
    // The tune stops cleanly (SIGTERM): the live report sees no writer and ends.
    signal(tune.id(), libc::SIGTERM);
    let (code, _, stderr) = finish(tune);
    assert_eq!(code, Some(130), "{stderr}");
    let mut live = live;
    let status = wait_or_kill(&mut live, std::time::Duration::from_secs(300))
        .expect("the live report ends when the tune does");
    assert!(status.success());
    let (_, stdout, _) = finish(live);
    assert!(
        stdout.contains("no arena writes here; the report is final"),
        "{stdout}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        !page.contains("http-equiv=\"refresh\""),
        "the final page does not reload"
    );
}

/// A 9×9 gomoku tournament of two depth-2 engines that takes far longer than any test
/// waits for it: `rounds` pairs.
fn long_run(dir: &Path, rounds: u32) -> PathBuf {
    let table = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/tables/gomoku/seed003.toml");
    let path = dir.join("long.toml");
    std::fs::write(
        &path,
        format!(
            "name = \"long\"\ngame = \"mnk:9,9,5\"\nrounds = {rounds}\nseed = 5\n\n\
             [openings]\nkind = \"random\"\nplies = 2\nradius = 2\n\n\
             [adjudication]\nmax_plies = 50\n\n\
             [[engines]]\nname = \"a\"\ntable = \"{t}\"\n\
             search = {{ depth = 2, tt_mb = 1, ordering = [\"tt_move\", \"threat\"] }}\n\n\
             [[engines]]\nname = \"b\"\ntable = \"{t}\"\n\
             search = {{ depth = 2, tt_mb = 1, ordering = [\"tt_move\", \"static\"] }}\n",
            t = table.display()
        ),
    )
    .unwrap();
    path
}

/// Issue 44, item 11: `arena report` failed on a tournament still being played
/// ("summary.json: missing: not a run's results folder"), and `arena stats` took the
/// folder's lock to do its work. Both read the folder as it is now, without the lock
/// (the run's holder line is left as it was), and `--live` follows the run to its end.
#[test]
fn a_tournament_being_played_has_a_report_and_stats_without_its_lock() {
    use crate::common::{wait_for_file, wait_or_kill};
    let tmp = tempfile::tempdir().unwrap();
    let config = long_run(tmp.path(), 5000);
    let out = tmp.path().join("run");
    let mut run = arena_process()
        .arg("run")
        .arg(&config)
        .args(["--jobs", "1", "--quiet", "--no-report", "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let games = out.join("games.jsonl");
    wait_for(&mut run, "played two games", || lines(&games) >= 2);
    let lock = out.join(".arena.lock");
    let holder = std::fs::read_to_string(&lock).unwrap();
    assert!(holder.contains(&format!("pid {}", run.id())), "{holder}");

    let o = arena_process()
        .args(["report", "--quiet"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("In progress: "), "{md}");
    assert!(md.contains(" of 10000 games"), "{md}");
    assert!(
        !out.join("summary.json").exists(),
        "a reader writes no results"
    );

    let o = arena_process().arg("stats").arg(&out).output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains(" of 10000 games"), "{stdout}");
    assert!(stderr.contains("being written"), "{stderr}");
    assert!(!out.join("summary.json").exists(), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&lock).unwrap(),
        holder,
        "readers leave the run's lock as it was"
    );

    // --live: the page reloads itself while the run plays, and is final when it stops.
    std::fs::remove_file(out.join("report.html")).unwrap();
    let mut live = arena_process()
        .args(["report", "--live", "1"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let html = out.join("report.html");
    wait_for_file(&html, std::time::Duration::from_secs(300), |t| {
        t.contains("<meta http-equiv=\"refresh\" content=\"1\"/>")
    });
    signal(run.id(), libc::SIGTERM);
    let (code, _, stderr) = finish(run);
    assert_eq!(code, Some(130), "{stderr}");
    let status = wait_or_kill(&mut live, std::time::Duration::from_secs(300))
        .expect("the live report ends when the run does");
    assert!(status.success());
    let (_, stdout, _) = finish(live);
    assert!(
        stdout.contains("no arena writes here; the report is final"),
        "{stdout}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        !page.contains("http-equiv=\"refresh\""),
        "final: {page:.300}"
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        !md.contains("In progress: "),
        "the run wrote its summary: {md:.600}"
    );
}
