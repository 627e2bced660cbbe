//! `arena datagen`: the formats read back by readers written here from the formats'
//! public definitions (not from arena's writer), the output the same for any --jobs,
//! for shards joined with `cat`, and after kills and --resume; bad options refused.

use std::{
    path::{Path, PathBuf},
    process::Stdio,
};

use crate::common::{
    arena, arena_process, run_bad_input, run_ok, shipped_engine, signal, wait_for,
};

/// Runs `arena datagen ENGINE ARGS --out OUT --quiet`, expecting success.
fn datagen(engine: &str, out: &Path, args: &[&str]) -> String {
    let engine = shipped_engine(engine);
    let mut all = vec![
        "datagen",
        engine.as_str(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    all.extend_from_slice(args);
    run_ok(&all)
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A position of the text format, read by this test: the board from the FEN (rows from
/// the top for m,n,k; an Ataxx FEN), whose side moves, the score and the result (half
/// points) for the side to move.
#[derive(Debug, PartialEq)]
struct Position {
    /// `cells[y][x]`: 0 empty, 1 first player (x, black), 2 second (o, white), 3 gap.
    cells: Vec<Vec<u8>>,
    /// 0: the first player moves.
    side: u8,
    score: Option<i32>,
    result: u8,
}

fn text_positions(path: &Path, ataxx: bool) -> Vec<Position> {
    String::from_utf8(read(path))
        .unwrap()
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split(" | ").collect();
            assert_eq!(f.len(), 3, "{line}");
            let (board, side) = if ataxx {
                let mut w = f[0].split(' ');
                let board = w.next().unwrap();
                (board, u8::from(w.next().unwrap() == "o"))
            } else {
                (f[0], 0)
            };
            let mut cells: Vec<Vec<u8>> = board
                .split('/')
                .map(|row| {
                    let mut r = Vec::new();
                    let mut digits = String::new();
                    for ch in row.chars().chain(std::iter::once(' ')) {
                        if ch.is_ascii_digit() {
                            digits.push(ch);
                            continue;
                        }
                        if !digits.is_empty() {
                            r.extend(std::iter::repeat_n(0, digits.parse().unwrap()));
                            digits.clear();
                        }
                        match ch {
                            'x' => r.push(1),
                            'o' => r.push(2),
                            '-' => r.push(3),
                            _ => {}
                        }
                    }
                    r
                })
                .collect();
            let side = if ataxx {
                // Ataxx FEN rows go from rank 7 down: index them by rank from the bottom.
                cells.reverse();
                side
            } else {
                // m,n,k: the first player moves when the stones are even.
                let stones = cells.iter().flatten().filter(|&&c| c != 0).count();
                (stones % 2) as u8
            };
            Position {
                cells,
                side,
                score: Some(f[1].parse().unwrap()),
                result: match f[2] {
                    "1.0" => 2,
                    "0.5" => 1,
                    "0.0" => 0,
                    r => panic!("result {r}"),
                },
            }
        })
        .collect()
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}

/// A board from a move list from the empty board (black first), moves `x << 5 | y`.
fn board_of(moves: &[u16], size: usize) -> Vec<Vec<u8>> {
    let mut cells = vec![vec![0u8; size]; size];
    for (i, m) in moves.iter().enumerate() {
        let (x, y) = (usize::from(m >> 5 & 31), usize::from(m & 31));
        assert_eq!(cells[y][x], 0, "move {i} on a taken cell");
        cells[y][x] = 1 + (i % 2) as u8;
    }
    cells
}

/// c-gomoku-cli's `bin`, per its README ("Binary format") and pytorch-nnue-trainer's
/// `simple_binary.py`: `uint16 result:2, ply:9, boardsize:5; uint16 rule:3, move:13;
/// uint16 position[ply]` (ctypes bit fields, first field in the low bits), moves `(x <<
/// 5) | y`, black first; result 0 loss, 1 draw, 2 win for the side to move.
fn bin_positions(b: &[u8], want_rule: u16) -> Vec<Position> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let (h0, h1) = (u16_at(b, i), u16_at(b, i + 2));
        let (result, ply, size) = (h0 & 3, usize::from(h0 >> 2 & 0x1FF), usize::from(h0 >> 11));
        let (rule, mv) = (h1 & 7, h1 >> 3);
        assert_eq!((size, rule), (15, want_rule));
        let moves: Vec<u16> = (0..ply).map(|k| u16_at(b, i + 4 + 2 * k)).collect();
        let cells = board_of(&moves, size);
        let (x, y) = (usize::from(mv >> 5 & 31), usize::from(mv & 31));
        assert_eq!(cells[y][x], 0, "the engine's move is on an empty cell");
        out.push(Position {
            cells,
            side: (ply % 2) as u8,
            score: None,
            result: result as u8,
        });
        i += 4 + 2 * ply;
    }
    out
}

/// c-gomoku-cli's `binpack`, per its README ("Packed binary format") and
/// pytorch-nnue-trainer's `packed_binary.py`: `uint32 boardSize:5, rule:3, result:4,
/// totalPly:10, initPly:10; uint32 gameTag:14, moveCount:18; uint16 position[initPly];`
/// then per move `uint16 isFirst:1, isLast:1, isNoEval:1, isPass:1, reserved:2, move:10;
/// int16 eval`. Each move group is a sample of the position before it, the result is the
/// side to move's at the initial position and flips with every move.
fn binpack_positions(b: &[u8], want_rule: u32) -> Vec<Position> {
    let mut out = Vec::new();
    let mut i = 0;
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    while i < b.len() {
        let (h0, h1) = (u32_at(i), u32_at(i + 4));
        let (size, rule, mut result) = ((h0 & 31) as usize, h0 >> 5 & 7, (h0 >> 8 & 15) as u8);
        let (total, init) = ((h0 >> 12 & 0x3FF) as usize, (h0 >> 22 & 0x3FF) as usize);
        let count = (h1 >> 14) as usize;
        assert_eq!((size, rule), (15, want_rule));
        assert_eq!(total, init + count);
        let mut moves: Vec<u16> = (0..init).map(|k| u16_at(b, i + 8 + 2 * k)).collect();
        let mut at = i + 8 + 2 * init;
        for _ in 0..count {
            let flags = u16_at(b, at);
            let eval = i16::from_le_bytes([b[at + 2], b[at + 3]]);
            let (first, last, no_eval, pass) =
                (flags & 1, flags >> 1 & 1, flags >> 2 & 1, flags >> 3 & 1);
            assert_eq!((first, last, no_eval, pass), (1, 1, 0, 0));
            out.push(Position {
                cells: board_of(&moves, size),
                side: (moves.len() % 2) as u8,
                score: Some(i32::from(eval)),
                result,
            });
            moves.push(flags >> 6);
            result = 2 - result;
            at += 4;
        }
        i = at;
    }
    out
}

/// bullet's Ataxx board, per bulletformat's `AtaxxBoard` (`#[repr(C)]`: `bbs: [u64; 3],
/// score: i16, result: u8, stm: bool, fullm: u16, halfm: u8, extra: u8`, 32 bytes) and
/// its text conversion: the bitboards are the side to move's stones, the other side's,
/// the gaps, square `7 * rank + file`; score and result (0, 1, 2) from the side to move.
fn bullet_positions(b: &[u8]) -> Vec<Position> {
    assert_eq!(b.len() % 32, 0);
    b.chunks_exact(32)
        .map(|r| {
            let bb = |k: usize| u64::from_le_bytes(r[8 * k..8 * k + 8].try_into().unwrap());
            let side = r[27];
            let (stm, other) = if side == 0 { (1, 2) } else { (2, 1) };
            let mut cells = vec![vec![0u8; 7]; 7];
            for sq in 0..49 {
                let bit = 1u64 << sq;
                cells[sq / 7][sq % 7] = if bb(0) & bit != 0 {
                    stm
                } else if bb(1) & bit != 0 {
                    other
                } else if bb(2) & bit != 0 {
                    3
                } else {
                    0
                };
            }
            assert_eq!(r[31], 0);
            Position {
                cells,
                side,
                score: Some(i32::from(i16::from_le_bytes([r[24], r[25]]))),
                result: r[26],
            }
        })
        .collect()
}

/// Text and binary datagen of the same engine and options agree position by position.
fn agree(text: &[Position], binary: &[Position], has_score: bool, what: &str) {
    assert!(!text.is_empty(), "{what}: no positions");
    assert_eq!(text.len(), binary.len(), "{what}: as many positions");
    for (i, (t, b)) in text.iter().zip(binary).enumerate() {
        assert_eq!(t.cells, b.cells, "{what}: position {i}");
        assert_eq!(
            (t.side, t.result),
            (b.side, b.result),
            "{what}: position {i}"
        );
        if has_score {
            assert_eq!(t.score, b.score, "{what}: position {i}");
        }
    }
}

#[test]
fn datagen_binary_formats_agree_with_the_text_format() {
    let dir = tempfile::tempdir().unwrap();
    for (engine, rule) in [("gomoku-strong.toml", 0), ("renju-strong.toml", 4)] {
        let run = |format: &str| {
            let out = dir.path().join(format!("{engine}-{format}"));
            datagen(
                engine,
                &out,
                &["--games", "8", "--depth", "2", "--format", format],
            );
            out
        };
        let text = text_positions(&run("text").join("positions.txt"), false);
        let bin = bin_positions(&read(&run("bin").join("positions.bin")), rule);
        agree(&text, &bin, false, &format!("{engine} bin"));
        let packed = binpack_positions(
            &read(&run("binpack").join("positions.binpack")),
            u32::from(rule),
        );
        agree(&text, &packed, true, &format!("{engine} binpack"));
        // Both sides' positions, and results of every kind but draws.
        assert!(text.iter().any(|p| p.side == 1) && text.iter().any(|p| p.result == 2));
    }
    let out = |f: &str| dir.path().join(format!("ataxx-{f}"));
    datagen(
        "ataxx-strong.toml",
        &out("text"),
        &["--games", "6", "--depth", "2"],
    );
    datagen(
        "ataxx-strong.toml",
        &out("bullet"),
        &["--games", "6", "--depth", "2", "--format", "bullet"],
    );
    let text = text_positions(&out("text").join("positions.txt"), true);
    let bullet = bullet_positions(&read(&out("bullet").join("positions.data")));
    agree(&text, &bullet, true, "ataxx bullet");
    assert!(text.iter().any(|p| p.side == 1) && text.iter().any(|p| p.score != Some(0)));
}

#[test]
fn datagen_text_fens_read_back_with_arena_show() {
    let dir = tempfile::tempdir().unwrap();
    for (engine, game) in [
        ("renju-strong.toml", "renju"),
        ("ataxx-strong.toml", "ataxx"),
    ] {
        let out = dir.path().join(game);
        datagen(engine, &out, &["--games", "3", "--depth", "2"]);
        let text = String::from_utf8(read(&out.join("positions.txt"))).unwrap();
        let first = text.lines().next().unwrap();
        let fen = first.split(" | ").next().unwrap();
        let shown = run_ok(&["show", game, "--fen", fen]);
        assert!(shown.contains("to move"), "{shown}");
    }
}

#[test]
fn datagen_is_the_same_for_any_jobs_and_for_shards_joined_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--games", "12", "--depth", "2", "--dedup-window", "2"];
    let one = dir.path().join("one");
    datagen(
        "ataxx-strong.toml",
        &one,
        &[&args[..], &["-j", "1"]].concat(),
    );
    let two = dir.path().join("two");
    datagen(
        "ataxx-strong.toml",
        &two,
        &[&args[..], &["-j", "2"]].concat(),
    );
    let whole = read(&one.join("positions.txt"));
    assert!(whole.len() > 1000);
    assert_eq!(whole, read(&two.join("positions.txt")), "--jobs 1 and 2");
    assert_eq!(
        read(&one.join("datagen.log")),
        read(&two.join("datagen.log"))
    );
    // Three shards in one folder, joined with cat in shard order.
    let shards = dir.path().join("shards");
    for i in 0..3 {
        let shard = format!("{i}/3");
        datagen(
            "ataxx-strong.toml",
            &shards,
            &[&args[..], &["--shard", &shard]].concat(),
        );
    }
    let mut joined = Vec::new();
    for i in 0..3 {
        let part = read(&shards.join(format!("positions.shard-{i}-of-3.txt")));
        assert!(!part.is_empty(), "shard {i} has positions");
        joined.extend(part);
    }
    assert_eq!(joined, whole, "cat of the shards");
    // Binary shards join the same way.
    let bin = dir.path().join("bin");
    datagen(
        "ataxx-strong.toml",
        &bin,
        &[&args[..], &["--format", "bullet"]].concat(),
    );
    let binshards = dir.path().join("binshards");
    let mut joined = Vec::new();
    for i in 0..3 {
        let shard = format!("{i}/3");
        datagen(
            "ataxx-strong.toml",
            &binshards,
            &[&args[..], &["--format", "bullet", "--shard", &shard]].concat(),
        );
        joined.extend(read(
            &binshards.join(format!("positions.shard-{i}-of-3.data")),
        ));
    }
    assert_eq!(joined, read(&bin.join("positions.data")));
}

#[test]
fn datagen_after_five_kills_and_resume_equals_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let engine = shipped_engine("ataxx-strong.toml");
    let out = dir.path().join("killed");
    let args = |out: &PathBuf, jobs: &str| -> Vec<String> {
        [
            "datagen",
            &engine,
            "--games",
            "400",
            "--depth",
            "4",
            "--format",
            "bullet",
            "-j",
            jobs,
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let log = out.join("datagen.log");
    let data = out.join("positions.data");
    let logged = || crate::common::lines(&log);
    // The data bytes the log vouches for, and the bytes in the data file.
    let logged_bytes = || -> u64 {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.lines()
            .last()
            .and_then(|l| l.split(' ').nth(2))
            .and_then(|b| b.parse().ok())
            .unwrap_or(0)
    };
    let written = || std::fs::metadata(&data).map_or(0, |m| m.len());
    for kill in 0..5 {
        let before = logged();
        let mut a = args(&out, "1");
        if kill > 0 {
            a.push("--resume".into());
        }
        let mut child = arena_process()
            .args(&a)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Killed once this session has logged games of its own, or (every other time)
        // while it holds games it wrote but has not logged yet.
        if kill % 2 == 0 {
            wait_for(&mut child, "games logged", || logged() > before);
            if kill == 0 {
                // One writer per folder: a second datagen there is refused.
                let a: Vec<&str> = a.iter().map(String::as_str).chain(["--resume"]).collect();
                let e = run_bad_input(&a);
                assert!(e.contains("in use by another arena"), "{e}");
            }
        } else {
            wait_for(&mut child, "games written", || {
                logged() > before && written() > logged_bytes()
            });
        }
        signal(child.id(), libc::SIGKILL);
        child.wait().unwrap();
    }
    let mut a = args(&out, "2");
    a.push("--resume".into());
    let done = run_ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(done.contains("from 400 games"), "{done}");
    let fresh = dir.path().join("fresh");
    run_ok(
        &args(&fresh, "2")
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert_eq!(read(&data), read(&fresh.join("positions.data")));
    assert_eq!(read(&log), read(&fresh.join("datagen.log")));
}

#[test]
fn datagen_resume_cuts_a_torn_log_line_and_unlogged_data() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--games", "10", "--depth", "2", "--dedup-window", "4"];
    let whole = dir.path().join("whole");
    datagen("gomoku-strong.toml", &whole, &args);
    // The same folder cut after game 5 as a kill leaves it: data of games it never
    // logged, and half a log line.
    let cut = dir.path().join("cut");
    datagen("gomoku-strong.toml", &cut, &args);
    let log = String::from_utf8(read(&cut.join("datagen.log"))).unwrap();
    let kept: Vec<&str> = log.lines().take(6).collect();
    let bytes: usize = kept[5].split(' ').nth(2).unwrap().parse().unwrap();
    let data = read(&whole.join("positions.txt"));
    std::fs::write(cut.join("positions.txt"), &data[..bytes + 40]).unwrap();
    std::fs::write(cut.join("datagen.log"), format!("{}\n6 1", kept.join("\n"))).unwrap();
    // Without --resume the folder is refused.
    let engine = shipped_engine("gomoku-strong.toml");
    let e = run_bad_input(
        &[
            &["datagen", engine.as_str(), "--out", cut.to_str().unwrap()][..],
            &args[..],
        ]
        .concat(),
    );
    assert!(e.contains("--resume"), "{e}");
    datagen(
        "gomoku-strong.toml",
        &cut,
        &[&args[..], &["--resume"]].concat(),
    );
    assert_eq!(read(&cut.join("positions.txt")), data);
    assert_eq!(
        read(&cut.join("datagen.log")),
        read(&whole.join("datagen.log"))
    );
}

#[test]
fn datagen_counts_positions_and_shows_progress() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p");
    let engine = shipped_engine("gomoku-strong.toml");
    let o = arena()
        .args([
            "datagen",
            &engine,
            "--positions",
            "150",
            "--depth",
            "2",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stderr.contains("datagen: "), "{stderr}");
    assert!(
        stdout.contains("150 positions") && stdout.contains("positions/s"),
        "{stdout}"
    );
    assert_eq!(crate::common::lines(&out.join("positions.txt")), 150);
    // Quiet: nothing on standard error.
    let quiet = dir.path().join("q");
    let o = arena()
        .args([
            "datagen",
            &engine,
            "--positions",
            "20",
            "--depth",
            "2",
            "--quiet",
            "--out",
        ])
        .arg(&quiet)
        .output()
        .unwrap();
    assert!(o.status.success() && o.stderr.is_empty());
}

#[test]
fn datagen_refuses_bad_options_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let o = out.to_str().unwrap();
    let gomoku = shipped_engine("gomoku-strong.toml");
    let ataxx = shipped_engine("ataxx-strong.toml");
    for (args, needle) in [
        (
            vec![
                "datagen", &ataxx, "--games", "2", "--format", "bin", "--out", o,
            ],
            "c-gomoku-cli",
        ),
        (
            vec![
                "datagen", &gomoku, "--games", "2", "--format", "bullet", "--out", o,
            ],
            "AtaxxBoard",
        ),
        (
            vec![
                "datagen",
                &gomoku,
                "--positions",
                "9",
                "--shard",
                "0/2",
                "--out",
                o,
            ],
            "--games",
        ),
        (
            vec!["datagen", &gomoku, "--out", o],
            "--positions N or --games N",
        ),
        (
            vec![
                "datagen",
                &gomoku,
                "--games",
                "2",
                "--format",
                "bin",
                "--score-clip",
                "40000",
                "--out",
                o,
            ],
            "32767",
        ),
    ] {
        let e = run_bad_input(&args);
        assert!(e.contains(needle), "{args:?}: {e}");
    }
    assert!(!out.join("positions.txt").exists());
    // Resume with other options.
    datagen(
        "gomoku-strong.toml",
        &out,
        &["--games", "2", "--depth", "2"],
    );
    let e = run_bad_input(&[
        "datagen", &gomoku, "--games", "2", "--depth", "3", "--resume", "--out", o,
    ]);
    assert!(e.contains("datagen.toml") && e.contains("depth"), "{e}");
}

#[test]
fn datagen_memory_does_not_grow_with_the_positions() {
    let dir = tempfile::tempdir().unwrap();
    let peak = |games: &str| {
        let out = dir.path().join(games);
        let engine = shipped_engine("ataxx-strong.toml");
        let child = arena_process()
            .args([
                "datagen", &engine, "--games", games, "--depth", "2", "-j", "1", "--quiet",
            ])
            .args(["--set", "search.tt_mb=1", "--dedup-window", "8", "--out"])
            .arg(&out)
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let (status, kib) = crate::common::wait_with_peak(child);
        assert_eq!(status, 0);
        (kib, crate::common::lines(&out.join("positions.txt")))
    };
    let (small, few) = peak("8");
    let (large, many) = peak("200");
    assert!(many > 20 * few / 2, "{few} and {many} positions");
    // Twenty-five times the positions, the same memory (a few MB of allocator slack).
    assert!(
        large < small + 4096,
        "{small} KiB for {few} positions, {large} KiB for {many}"
    );
}

#[test]
fn datagen_against_another_engine_is_its_own_data_the_same_for_any_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let modern = shipped_engine("ataxx-modern.toml");
    let rich = shipped_engine("ataxx-rich.toml");
    let args = ["--games", "6", "--depth", "2"];
    let selfplay = dir.path().join("self");
    datagen("ataxx-strong.toml", &selfplay, &args);
    let one = dir.path().join("one");
    datagen(
        "ataxx-strong.toml",
        &one,
        &[&args[..], &["--against", &modern, "-j", "1"]].concat(),
    );
    let two = dir.path().join("two");
    datagen(
        "ataxx-strong.toml",
        &two,
        &[&args[..], &["--against", &modern, "-j", "2"]].concat(),
    );
    let against = read(&one.join("positions.txt"));
    assert!(against.len() > 500);
    assert_eq!(against, read(&two.join("positions.txt")), "--jobs 1 and 2");
    assert_ne!(
        against,
        read(&selfplay.join("positions.txt")),
        "not self-play"
    );
    // The engine moves first in even games, the other in odd ones: from one opening
    // without random plies, game 1 of strong-against-modern is game 0 of
    // modern-against-strong and the other way round.
    let opening =
        std::fs::read_to_string(crate::common::root().join("configs/openings/ataxx-4ply.txt"))
            .unwrap()
            .lines()
            .find(|l| !l.starts_with('#') && !l.trim().is_empty())
            .unwrap()
            .to_string();
    let openings = dir.path().join("one.txt");
    std::fs::write(&openings, format!("{opening}\n")).unwrap();
    let fixed = [
        "--games",
        "2",
        "--depth",
        "2",
        "--random-plies",
        "0",
        "--dedup-window",
        "1",
        "--openings",
        openings.to_str().unwrap(),
    ];
    let games = |engine: &str, against: &str, name: &str| {
        let out = dir.path().join(name);
        datagen(
            engine,
            &out,
            &[&fixed[..], &["--against", &shipped_engine(against)]].concat(),
        );
        let data = read(&out.join("positions.txt"));
        let log = String::from_utf8(read(&out.join("datagen.log"))).unwrap();
        let cut: usize = log
            .lines()
            .next()
            .unwrap()
            .split(' ')
            .nth(2)
            .unwrap()
            .parse()
            .unwrap();
        (data[..cut].to_vec(), data[cut..].to_vec())
    };
    let (ab0, ab1) = games("ataxx-strong.toml", "ataxx-modern.toml", "ab");
    let (ba0, ba1) = games("ataxx-modern.toml", "ataxx-strong.toml", "ba");
    assert_ne!(ab0, ab1, "the engines play differently");
    assert_eq!(ab0, ba1, "strong first");
    assert_eq!(ab1, ba0, "modern first");
    let options = String::from_utf8(read(&one.join("datagen.toml"))).unwrap();
    assert!(
        options.contains("[against]") && options.contains("ataxx-modern"),
        "{options}"
    );
    // A resume against another engine, or without one, is refused naming the option.
    let strong = shipped_engine("ataxx-strong.toml");
    let o = one.to_str().unwrap();
    for other in [vec!["--against", rich.as_str()], vec![]] {
        let all = [
            &[
                "datagen",
                strong.as_str(),
                "--resume",
                "--quiet",
                "--out",
                o,
            ][..],
            &args[..],
            &other[..],
        ]
        .concat();
        let e = run_bad_input(&all);
        assert!(e.contains("--against") && e.contains("ataxx-modern"), "{e}");
    }
    assert_eq!(against, read(&one.join("positions.txt")), "nothing written");
    // Engines of two games are refused.
    let gomoku = shipped_engine("gomoku-strong.toml");
    let e = run_bad_input(&[
        "datagen",
        &strong,
        "--against",
        &gomoku,
        "--games",
        "2",
        "--depth",
        "1",
        "--out",
        dir.path().join("x").to_str().unwrap(),
    ]);
    assert!(e.contains("same game"), "{e}");
}

#[test]
fn the_shipped_datagen_config_runs_with_flags_over_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let config = crate::common::root().join("configs/datagen-ataxx.toml");
    let out = dir.path().join("out");
    run_ok(&[
        "datagen",
        config.to_str().unwrap(),
        "--positions",
        "200",
        "--depth",
        "1",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    // The file's format (bullet: 32 bytes a position), its opponent and random plies;
    // the flags' count and depth.
    assert_eq!(read(&out.join("positions.data")).len(), 200 * 32);
    let options = String::from_utf8(read(&out.join("datagen.toml"))).unwrap();
    for needle in [
        "positions = 200",
        "random_plies = 4",
        "format = \"bullet\"",
        "[against]",
        "name = \"ataxx-modern\"",
        "depth = 1",
        "tt_mb = 4",
    ] {
        assert!(options.contains(needle), "{needle} not in {options}");
    }
}

#[test]
fn bad_datagen_configs_name_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let engine = shipped_engine("ataxx-strong.toml");
    let out = dir.path().join("out");
    for (i, (body, needles)) in [
        (
            "games = 2\ndepth = 1\nplies = 3\n",
            &["d.toml:6", "plies"][..],
        ),
        (
            "games = 2\nformat = \"csv\"\n",
            &["d.toml:5", "format", "csv"],
        ),
        ("games = 2\npositions = 3\n", &["d.toml:4", "games"]),
        (
            "games = 2\nset = { \"search.nope\" = 1 }\n",
            &["d.toml:5", "search.nope"],
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let path = dir.path().join("d.toml");
        std::fs::write(&path, format!("engine = \"{engine}\"\n\n[datagen]\n{body}")).unwrap();
        crate::common::assert_refused("datagen", path.to_str().unwrap(), &out, needles, i);
    }
    // Given to another command, a datagen config is named for what it is.
    let config = crate::common::root().join("configs/datagen-ataxx.toml");
    let e = run_bad_input(&[
        "run",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(e.contains("looks like a datagen config"), "{e}");
}

#[test]
fn datagen_workers_join_into_what_one_process_writes_after_a_killed_worker() {
    let dir = tempfile::tempdir().unwrap();
    let engine = shipped_engine("ataxx-strong.toml");
    let args = |out: &Path, worker: Option<&str>| -> Vec<String> {
        let mut a: Vec<String> = [
            "datagen",
            &engine,
            "--games",
            "120",
            "--depth",
            "3",
            "--dedup-window",
            "40",
            "-j",
            "1",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if let Some(w) = worker {
            a.extend(["--worker".to_string(), w.to_string()]);
        }
        a
    };
    let run = |a: &[String]| run_ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let single = dir.path().join("single");
    run(&args(&single, None));
    let out = dir.path().join("workers");
    // Worker 1 is killed while it plays a chunk (games of it logged, not all): its claim
    // is a dead worker's, its chunk half played. (A kill that lands between two chunks
    // leaves no such claim: then worker 1 starts again, resuming, and is killed again.)
    let claims = out.join("datagen.claims");
    let half_played = || {
        std::fs::read_to_string(&claims)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.split(' ').nth(1) == Some("1"))
            .filter_map(|l| l.split(' ').next())
            .any(|c| {
                let n = crate::common::lines(&out.join(format!("datagen.chunk-{c}.log")));
                n > 0 && n < 40
            })
    };
    for attempt in 0.. {
        assert!(attempt < 10, "no kill landed inside a chunk");
        let mut first = arena_process()
            .args(args(&out, Some("1")))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for(&mut first, "chunk games logged", half_played);
        signal(first.id(), libc::SIGKILL);
        first.wait().unwrap();
        if half_played() {
            break;
        }
    }
    // A plain run (or a shard) on the half-done workers' folder is refused: it would
    // play the games again beside the chunks and leave them behind.
    let mut plain = args(&out, None);
    plain.push("--resume".into());
    let e = run_bad_input(&plain.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        e.contains("--workers") && e.contains("datagen.claims"),
        "{e}"
    );
    // Two workers at once take the dead worker's chunk over and share the rest (a
    // worker that never took it over would wait for it forever: a safety deadline).
    let mut workers: Vec<_> = ["2", "3"]
        .iter()
        .map(|w| {
            arena_process()
                .args(args(&out, Some(w)))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    loop {
        let mut running = 0;
        for w in &mut workers {
            match w.try_wait().unwrap() {
                Some(status) => assert!(status.success(), "a worker failed: {status}"),
                None => running += 1,
            }
        }
        if running == 0 {
            break;
        }
        if std::time::Instant::now() > deadline {
            for w in &mut workers {
                let _ = w.kill();
            }
            panic!("the workers never finished: the dead worker's chunk was not taken over");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(
        read(&out.join("positions.txt")),
        read(&single.join("positions.txt"))
    );
    assert_eq!(
        read(&out.join("datagen.log")),
        read(&single.join("datagen.log"))
    );
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("chunk") || n.contains("claims"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // A worker on the finished folder, and the plain command, find nothing to do.
    let again = run(&args(&out, Some("4")));
    assert!(
        again.contains("from 120 games") && again.contains("0 this session"),
        "{again}"
    );
    let mut plain = args(&out, None);
    plain.push("--resume".into());
    let again = run(&plain);
    assert!(again.contains("from 120 games"), "{again}");
    // Workers count games, not positions.
    let mut bad = args(&dir.path().join("bad"), Some("1"));
    bad[3] = "--positions".into();
    let e = run_bad_input(&bad.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(e.contains("--games"), "{e}");
}

/// Plays `arena match ARGS` into `out` (quietly), expecting success.
fn play_match(out: &Path, args: &[&str]) {
    let mut all = vec!["match"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", out.to_str().unwrap(), "--quiet"]);
    run_ok(&all);
}

/// `arena datagen --from-games ARGS --out OUT --quiet`; returns stdout.
fn from_games(out: &Path, args: &[&str]) -> String {
    let mut all = vec!["datagen"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", out.to_str().unwrap(), "--quiet"]);
    run_ok(&all)
}

/// One position before a move of a record, as this test replays it: the FEN, the mover's
/// name, its score and the result (half points) for the side to move.
#[derive(Clone, Debug)]
struct Replayed {
    fen: String,
    mover: String,
    score: Option<i64>,
    result: u8,
}

/// An Ataxx position replayed by this test from the rules (not arena's code): stones
/// `x` and `o` by (file, rank), a move `b2` (a single), `b2d4` (a jump) or `0000` (a
/// pass) converts the neighbours of its target.
struct Board {
    cells: std::collections::HashMap<(i32, i32), char>,
    side: char,
    half: u32,
    full: u32,
}

impl Board {
    fn from_fen(fen: &str) -> Board {
        let w: Vec<&str> = fen.split(' ').collect();
        let mut cells = std::collections::HashMap::new();
        for (r, row) in w[0].split('/').enumerate() {
            let mut f = 0;
            for ch in row.chars() {
                if let Some(d) = ch.to_digit(10) {
                    f += d as i32;
                } else {
                    cells.insert((f, 6 - r as i32), ch);
                    f += 1;
                }
            }
        }
        Board {
            cells,
            side: w[1].chars().next().unwrap(),
            half: w[2].parse().unwrap(),
            full: w[3].parse().unwrap(),
        }
    }

    fn fen(&self) -> String {
        let mut rows = Vec::new();
        for rank in (0..7).rev() {
            let (mut s, mut empty) = (String::new(), 0);
            for f in 0..7 {
                match self.cells.get(&(f, rank)) {
                    None => empty += 1,
                    Some(&ch) => {
                        if empty > 0 {
                            s += &empty.to_string();
                            empty = 0;
                        }
                        s.push(ch);
                    }
                }
            }
            if empty > 0 {
                s += &empty.to_string();
            }
            rows.push(s);
        }
        format!(
            "{} {} {} {}",
            rows.join("/"),
            self.side,
            self.half,
            self.full
        )
    }

    fn play(&mut self, mv: &str) {
        let sq = |t: &str| {
            let b = t.as_bytes();
            (i32::from(b[0] - b'a'), i32::from(b[1] - b'1'))
        };
        let other = if self.side == 'x' { 'o' } else { 'x' };
        if mv == "0000" {
            self.half += 1;
        } else {
            let to = if mv.len() == 2 {
                self.half = 0;
                sq(mv)
            } else {
                assert_eq!(self.cells.remove(&sq(&mv[..2])), Some(self.side), "{mv}");
                self.half += 1;
                sq(&mv[2..])
            };
            assert!(!self.cells.contains_key(&to), "{mv}");
            self.cells.insert(to, self.side);
            for df in -1..=1 {
                for dr in -1..=1 {
                    let n = (to.0 + df, to.1 + dr);
                    if self.cells.get(&n) == Some(&other) {
                        self.cells.insert(n, self.side);
                    }
                }
            }
        }
        if self.side == 'o' {
            self.full += 1;
        }
        self.side = other;
    }
}

/// Every position before a move of every Ataxx record in `folder`, by game.
fn replay_ataxx(folder: &Path) -> Vec<Vec<Replayed>> {
    let text = std::fs::read_to_string(folder.join("games.jsonl")).unwrap();
    text.lines()
        .map(|line| {
            let g: serde_json::Value = serde_json::from_str(line).unwrap();
            let first = match g["result"].as_str().unwrap() {
                "1-0" => 2,
                "0-1" => 0,
                _ => 1,
            };
            let mut board = Board::from_fen(g["opening"].as_str().unwrap());
            let names = [
                g["black_name"].as_str().unwrap(),
                g["white_name"].as_str().unwrap(),
            ];
            let mut out = Vec::new();
            for (i, mv) in g["moves"].as_array().unwrap().iter().enumerate() {
                let (side, result) = if board.side == 'x' {
                    (0, first)
                } else {
                    (1, 2 - first)
                };
                out.push(Replayed {
                    fen: board.fen(),
                    mover: names[side].to_string(),
                    score: g["stats"][i]["score"].as_i64(),
                    result,
                });
                board.play(mv.as_str().unwrap());
            }
            out
        })
        .collect()
}

/// Parses `FEN | score | result` lines.
fn text_lines(path: &Path) -> Vec<(String, i64, u8)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(" | ").collect();
            let result = match f[2] {
                "1.0" => 2,
                "0.5" => 1,
                "0.0" => 0,
                r => panic!("{r}"),
            };
            (f[0].to_string(), f[1].parse().unwrap(), result)
        })
        .collect()
}

#[test]
fn datagen_from_games_writes_the_recorded_scores_of_the_positions_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    let strong = shipped_engine("ataxx-strong.toml");
    let modern = shipped_engine("ataxx-modern.toml");
    play_match(
        &games,
        &[
            &strong,
            &modern,
            "--depth",
            "2",
            "--rounds",
            "3",
            "--max-plies",
            "60",
        ],
    );
    let g = games.to_str().unwrap();
    let replayed = replay_ataxx(&games);
    // A position may come up in several games (with other scores): the line is one of
    // them.
    let mut all: std::collections::HashMap<String, Vec<Replayed>> = Default::default();
    for game in &replayed {
        for p in game {
            all.entry(p.fen.clone()).or_default().push(p.clone());
        }
    }
    // Whether a line is a position where `name` moved, with its score and result.
    let moved = |line: &(String, i64, u8), name: &str| {
        all[&line.0]
            .iter()
            .any(|p| p.mover == name && (p.score, p.result) == (Some(line.1), line.2))
    };
    // Every line is a position of the games with the score its mover reported and the
    // result for the side to move; the output is the same on one thread or two.
    let one = dir.path().join("one");
    let said = from_games(&one, &["--from-games", g, "--jobs", "1"]);
    let lines = text_lines(&one.join("positions.txt"));
    assert!(lines.len() > 40, "{said}");
    assert!(
        said.contains(&format!("{} positions from 6 games of ataxx", lines.len())),
        "{said}"
    );
    for (fen, score, result) in &lines {
        let seen = all
            .get(fen)
            .unwrap_or_else(|| panic!("{fen}: not a position of the games"));
        assert!(
            seen.iter()
                .any(|p| (p.score, p.result) == (Some(*score), *result)),
            "{fen}: {score} {result} is not what the games say: {seen:?}"
        );
    }
    let two = dir.path().join("two");
    from_games(&two, &["--from-games", g, "--jobs", "2"]);
    assert_eq!(
        read(&one.join("positions.txt")),
        read(&two.join("positions.txt"))
    );
    // bullet holds the same positions.
    let bullet = dir.path().join("bullet");
    from_games(&bullet, &["--from-games", g, "--format", "bullet"]);
    agree(
        &text_positions(&one.join("positions.txt"), true),
        &bullet_positions(&read(&bullet.join("positions.data"))),
        true,
        "from-games bullet",
    );
    // One player's positions only: each side's are its own, and together they hold
    // what both give (fewer: a position both reached is written once).
    let mut each = 0;
    for name in ["ataxx-modern", "ataxx-strong"] {
        let only = dir.path().join(name);
        from_games(&only, &["--from-games", g, "--player", name]);
        let mine = text_lines(&only.join("positions.txt"));
        assert!(!mine.is_empty() && mine.len() < lines.len(), "{name}");
        assert!(mine.iter().all(|l| moved(l, name)), "{name}");
        each += mine.len();
    }
    assert!(each >= lines.len());
    // A score beyond --decisive-above ends what a game gives, as a mate score does.
    let cut = dir.path().join("cut");
    from_games(&cut, &["--from-games", g, "--decisive-above", "300"]);
    let kept: std::collections::HashSet<String> = text_lines(&cut.join("positions.txt"))
        .into_iter()
        .map(|l| l.0)
        .collect();
    assert!(!kept.is_empty());
    // A kept position comes before the cut in some game (it may come up after it in
    // another).
    let mut before_cut = std::collections::HashSet::new();
    let mut cut_somewhere = false;
    for game in &replayed {
        let mut decided = false;
        for p in game {
            decided |= p.score.is_some_and(|s| s.abs() > 300);
            if decided {
                cut_somewhere = true;
            } else {
                before_cut.insert(p.fen.clone());
            }
        }
    }
    assert!(cut_somewhere, "the games have scores beyond 300");
    for fen in &kept {
        assert!(
            before_cut.contains(fen),
            "{fen}: after a score beyond 300 in every game"
        );
    }
    assert!(kept.len() < lines.len());
    // --score-scale multiplies each score (rounded, halves away from zero) and keeps the
    // same positions and results; --decisive-above reads the scores as recorded.
    for (scale, decisive) in [("0.5", None), ("2.5", None), ("0.5", Some("300"))] {
        let scaled = dir.path().join(format!("scaled-{scale}-{decisive:?}"));
        let base = match decisive {
            Some(d) => {
                let plain = dir.path().join(format!("plain-{d}"));
                from_games(&plain, &["--from-games", g, "--decisive-above", d]);
                text_lines(&plain.join("positions.txt"))
            }
            None => lines.clone(),
        };
        let mut args = vec!["--from-games", g, "--score-scale", scale];
        if let Some(d) = decisive {
            args.extend(["--decisive-above", d]);
        }
        from_games(&scaled, &args);
        let got = text_lines(&scaled.join("positions.txt"));
        assert_eq!(got.len(), base.len(), "{scale}");
        let f: f64 = scale.parse().unwrap();
        let mut changed = 0;
        for (a, b) in base.iter().zip(&got) {
            assert_eq!((&a.0, a.2), (&b.0, b.2), "{scale}");
            let want = ((a.1 as f64 * f).round() as i64).clamp(-32_000, 32_000);
            assert_eq!(b.1, want, "{scale}: {}", a.0);
            changed += usize::from(a.1 != b.1);
        }
        assert!(
            changed > base.len() / 2,
            "{scale}: {changed} of {}",
            base.len()
        );
        let options = std::fs::read_to_string(scaled.join("datagen.toml")).unwrap();
        assert!(
            options.contains(&format!("score_scale = {scale}")),
            "{options}"
        );
    }
    // --skip-moves leaves out each game's first moves.
    let late = dir.path().join("late");
    from_games(&late, &["--from-games", g, "--skip-moves", "10"]);
    let after: std::collections::HashSet<&str> = replayed
        .iter()
        .flat_map(|game| game.iter().skip(10).map(|p| p.fen.as_str()))
        .collect();
    let options = std::fs::read_to_string(late.join("datagen.toml")).unwrap();
    assert!(options.contains("skip_moves = 10"), "{options}");
    let kept_late = text_lines(&late.join("positions.txt"));
    assert!(!kept_late.is_empty() && kept_late.len() < lines.len());
    for l in &kept_late {
        assert!(
            after.contains(l.0.as_str()),
            "{}: among the first 10 moves",
            l.0
        );
    }
    // What `datagen.toml` says it was made from.
    let options = std::fs::read_to_string(one.join("datagen.toml")).unwrap();
    assert!(
        options.contains("from_games") && options.contains(g),
        "{options}"
    );
}

#[test]
fn datagen_from_games_of_gomoku_agrees_in_the_binary_formats() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    let strong = shipped_engine("gomoku-strong.toml");
    play_match(&games, &[&strong, &strong, "--depth", "2", "--rounds", "2"]);
    let g = games.to_str().unwrap();
    let run = |format: &str| {
        let out = dir.path().join(format);
        from_games(&out, &["--from-games", g, "--format", format]);
        out
    };
    let text = text_positions(&run("text").join("positions.txt"), false);
    let bin = bin_positions(&read(&run("bin").join("positions.bin")), 0);
    agree(&text, &bin, false, "from-games bin");
    let packed = binpack_positions(&read(&run("binpack").join("positions.binpack")), 0);
    agree(&text, &packed, true, "from-games binpack");
    // --keep-forcing adds the positions with a four to make or answer, and keeps the rest.
    let all = dir.path().join("all");
    from_games(&all, &["--from-games", g, "--keep-forcing"]);
    let quiet = text_lines(&dir.path().join("text/positions.txt"));
    let every = text_lines(&all.join("positions.txt"));
    assert!(every.len() > quiet.len(), "{} {}", every.len(), quiet.len());
    for line in &quiet {
        assert!(every.contains(line), "{line:?}");
    }
}

#[test]
fn datagen_from_games_refuses_what_it_cannot_read_and_overwrites_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ataxx_games = dir.path().join("ataxx");
    let gomoku_games = dir.path().join("gomoku");
    let ataxx = shipped_engine("ataxx-strong.toml");
    let gomoku = shipped_engine("gomoku-strong.toml");
    play_match(
        &ataxx_games,
        &[&ataxx, &ataxx, "--depth", "1", "--rounds", "1"],
    );
    play_match(
        &gomoku_games,
        &[&gomoku, &gomoku, "--depth", "1", "--rounds", "1"],
    );
    let (a, m) = (
        ataxx_games.to_str().unwrap(),
        gomoku_games.to_str().unwrap(),
    );
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let e = empty.to_str().unwrap();
    for (args, needle) in [
        (vec!["--from-games", e], "no game records"),
        (vec!["--from-games", a, "--from-games", m], "one game"),
        (
            vec!["--from-games", a, "--player", "nobody"],
            "ataxx-strong",
        ),
        (vec!["--from-games", a, "--format", "bin"], "c-gomoku-cli"),
        (vec!["--from-games", a, "--decisive-above", "0"], "0"),
        (
            vec!["--from-games", a, "--score-scale", "0"],
            "--score-scale",
        ),
        (
            vec!["--from-games", a, "--score-scale", "nan"],
            "--score-scale",
        ),
        (
            vec!["--from-games", a, "--score-scale", "1001"],
            "at most 1000",
        ),
        (
            vec![&ataxx, "--games", "1", "--score-scale", "2"],
            "--from-games",
        ),
        (
            vec![&ataxx, "--games", "1", "--player", "x"],
            "--from-games",
        ),
    ] {
        let args = [vec!["datagen", "--quiet", "--out", o], args].concat();
        let err = run_bad_input(&args);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // A usage error (clap's, with the usage line): an engine and --from-games.
    let usage = arena()
        .args(["datagen", &ataxx, "--from-games", a])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&usage.stderr);
    assert_eq!(usage.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
    assert!(!out.join("positions.txt").exists());
    // A records file without its run.toml, and an edited record, are refused by name.
    let copy = dir.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    std::fs::copy(ataxx_games.join("games.jsonl"), copy.join("games.jsonl")).unwrap();
    let c = copy.to_str().unwrap();
    let err = run_bad_input(&["datagen", "--quiet", "--from-games", c, "--out", o]);
    assert!(err.contains("run.toml"), "{err}");
    std::fs::copy(ataxx_games.join("run.toml"), copy.join("run.toml")).unwrap();
    let records = std::fs::read_to_string(copy.join("games.jsonl")).unwrap();
    let first = records.lines().next().unwrap();
    let result = if first.contains("\"result\":\"1-0\"") {
        "1-0"
    } else {
        "0-1"
    };
    let flipped = if result == "1-0" { "0-1" } else { "1-0" };
    let edited = records.replacen(
        &format!("\"result\":\"{result}\""),
        &format!("\"result\":\"{flipped}\""),
        1,
    );
    assert_ne!(edited, records, "the first game is decisive: {first}");
    std::fs::write(copy.join("games.jsonl"), edited).unwrap();
    let err = run_bad_input(&["datagen", "--quiet", "--from-games", c, "--out", o]);
    assert!(err.contains("games.jsonl:1"), "{err}");
    // Self-play of one engine at a depth limit plays a pair's two games alike: the
    // default window writes the second's positions once, --dedup-window 1 twice.
    let twice = dir.path().join("twice");
    from_games(&twice, &["--from-games", a, "--dedup-window", "1"]);
    // A folder another arena writes into is refused at once.
    let busy = dir.path().join("busy");
    let mut running = arena_process()
        .args([
            "datagen", &ataxx, "--games", "100000", "--depth", "3", "--quiet",
        ])
        .args(["--jobs", "1", "--out", busy.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&mut running, "datagen started", || {
        crate::common::lines(&busy.join("datagen.log")) > 0
    });
    let err = run_bad_input(&[
        "datagen",
        "--quiet",
        "--from-games",
        a,
        "--out",
        busy.to_str().unwrap(),
    ]);
    running.kill().unwrap();
    running.wait().unwrap();
    assert!(err.contains("in use by another arena"), "{err}");
    // A folder that holds data is left as it is.
    from_games(&out, &["--from-games", a]);
    let (once, both) = (
        text_lines(&out.join("positions.txt")),
        text_lines(&twice.join("positions.txt")),
    );
    assert!(!once.is_empty());
    assert_eq!(both.len(), 2 * once.len());
    let none = dir.path().join("none");
    from_games(&none, &["--from-games", a, "--dedup-window", "0"]);
    assert_eq!(
        read(&none.join("positions.txt")),
        read(&twice.join("positions.txt"))
    );
    let before = read(&out.join("positions.txt"));
    let err = run_bad_input(&["datagen", "--quiet", "--from-games", a, "--out", o]);
    assert!(err.contains("already holds data"), "{err}");
    assert_eq!(read(&out.join("positions.txt")), before);
}
