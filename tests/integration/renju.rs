//! Renju: the fast forbidden-move checker (`arena::game::renju`) against a slow reference
//! written here from the RIF definitions, on generated positions; then renju games
//! through the real binary.

use arena::game::renju::{Forbidden, forbidden};
use rand::{RngExt, SeedableRng};

const SIZE: i32 = 15;
const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// The reference: a full board, whole lines, no shortcuts and no depth limit.
struct Reference {
    cells: Vec<u8>,
}

impl Reference {
    fn at(&self, x: i32, y: i32) -> Option<u8> {
        (x >= 0 && y >= 0 && x < SIZE && y < SIZE).then(|| self.cells[(y * SIZE + x) as usize])
    }

    /// The whole line through (x, y) along (dx, dy) as board cells, and the index of (x, y).
    fn line(&self, x: i32, y: i32, dx: i32, dy: i32) -> (Vec<(i32, i32)>, usize) {
        let (mut sx, mut sy) = (x, y);
        while self.at(sx - dx, sy - dy).is_some() {
            sx -= dx;
            sy -= dy;
        }
        let mut cells = Vec::new();
        let mut at = 0;
        let (mut cx, mut cy) = (sx, sy);
        while self.at(cx, cy).is_some() {
            if (cx, cy) == (x, y) {
                at = cells.len();
            }
            cells.push((cx, cy));
            cx += dx;
            cy += dy;
        }
        (cells, at)
    }

    fn black(&self, line: &[(i32, i32)], i: i64) -> bool {
        i >= 0
            && (i as usize) < line.len()
            && self.at(line[i as usize].0, line[i as usize].1) == Some(1)
    }

    fn empty(&self, line: &[(i32, i32)], i: i64) -> bool {
        i >= 0
            && (i as usize) < line.len()
            && self.at(line[i as usize].0, line[i as usize].1) == Some(0)
    }

    fn set(&mut self, (x, y): (i32, i32), v: u8) {
        self.cells[(y * SIZE + x) as usize] = v;
    }

    /// Length of the longest black run containing index `at` (black there).
    fn run(&self, line: &[(i32, i32)], at: usize) -> usize {
        let mut lo = at as i64;
        while self.black(line, lo - 1) {
            lo -= 1;
        }
        let mut hi = at as i64;
        while self.black(line, hi + 1) {
            hi += 1;
        }
        (hi - lo + 1) as usize
    }

    /// The distinct fours through `at` (black there): every window of five cells holding
    /// `at`, four black stones and one empty cell, with no black stone just outside it
    /// (so filling it makes exactly five); a four is its set of stones.
    fn fours(&self, line: &[(i32, i32)], at: usize) -> usize {
        let mut sets: Vec<Vec<usize>> = Vec::new();
        for start in 0..line.len().saturating_sub(4) {
            let window = start..start + 5;
            if !window.contains(&at) {
                continue;
            }
            let empties: Vec<usize> = window
                .clone()
                .filter(|&i| self.empty(line, i as i64))
                .collect();
            let stones: Vec<usize> = window
                .clone()
                .filter(|&i| self.black(line, i as i64))
                .collect();
            if empties.len() == 1
                && stones.len() == 4
                && !self.black(line, start as i64 - 1)
                && !self.black(line, start as i64 + 5)
                && !sets.contains(&stones)
            {
                sets.push(stones);
            }
        }
        sets.len()
    }

    /// Whether the line holds a straight four containing `at` and `e`: four black stones
    /// in a row, both ends empty, and no black stone beyond either end.
    fn straight_four(&self, line: &[(i32, i32)], at: usize, e: usize) -> bool {
        (0..line.len().saturating_sub(3)).any(|s| {
            let s = s as i64;
            (s..s + 4).all(|i| self.black(line, i))
                && (s..s + 4).contains(&(at as i64))
                && (s..s + 4).contains(&(e as i64))
                && self.empty(line, s - 1)
                && self.empty(line, s + 4)
                && !self.black(line, s - 2)
                && !self.black(line, s + 5)
        })
    }

    /// Whether black on the empty (x, y) is forbidden, by the definitions.
    fn judge(&mut self, x: i32, y: i32) -> Option<Forbidden> {
        self.set((x, y), 1);
        let lines: Vec<(Vec<(i32, i32)>, usize)> = DIRS
            .iter()
            .map(|&(dx, dy)| self.line(x, y, dx, dy))
            .collect();
        let runs: Vec<usize> = lines.iter().map(|(l, at)| self.run(l, *at)).collect();
        let verdict = if runs.contains(&5) {
            None
        } else if runs.iter().any(|&r| r >= 6) {
            Some(Forbidden::Overline)
        } else {
            let fours: Vec<usize> = lines.iter().map(|(l, at)| self.fours(l, *at)).collect();
            if fours.iter().sum::<usize>() >= 2 {
                Some(Forbidden::DoubleFour)
            } else {
                let mut threes = 0;
                for (i, (line, at)) in lines.iter().enumerate() {
                    if fours[i] > 0 {
                        continue;
                    }
                    let is_three = (0..line.len()).any(|e| {
                        if !self.empty(line, e as i64) {
                            return false;
                        }
                        self.set(line[e], 1);
                        let straight = self.straight_four(line, *at, e);
                        self.set(line[e], 0);
                        straight && self.judge(line[e].0, line[e].1).is_none()
                    });
                    threes += usize::from(is_three);
                }
                (threes >= 2).then_some(Forbidden::DoubleThree)
            }
        };
        self.set((x, y), 0);
        verdict
    }
}

/// A random position and an empty cell to judge: stones thrown around the cell, and
/// more along the four lines through it, so that threes and fours through it (and
/// completing points that are forbidden themselves) are common.
fn position(rng: &mut rand_chacha::ChaCha8Rng) -> (Vec<u8>, usize) {
    let mut cells = vec![0u8; (SIZE * SIZE) as usize];
    let (tx, ty) = (rng.random_range(0..SIZE), rng.random_range(0..SIZE));
    let mut plan = rand_chacha::ChaCha8Rng::seed_from_u64(rng.random());
    let mut put = |cells: &mut Vec<u8>, x: i32, y: i32, black: f64| {
        if (0..SIZE).contains(&x) && (0..SIZE).contains(&y) && (x, y) != (tx, ty) {
            cells[(y * SIZE + x) as usize] = if rng.random_bool(black) { 1 } else { 2 };
        }
    };
    let spread = plan.random_range(2..=5);
    for _ in 0..plan.random_range(0..=24) {
        let x = tx + plan.random_range(-spread..=spread);
        let y = ty + plan.random_range(-spread..=spread);
        put(&mut cells, x, y, 0.65);
    }
    for (dx, dy) in DIRS {
        if plan.random_bool(0.4) {
            continue;
        }
        let density = plan.random_range(0.15..0.6);
        for d in -5..=5 {
            if d != 0 && plan.random_bool(density) {
                put(&mut cells, tx + d * dx, ty + d * dy, 0.8);
            }
        }
    }
    (cells, (ty * SIZE + tx) as usize)
}

#[test]
fn fast_checker_agrees_with_the_reference_on_generated_positions() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(19);
    let n = 300_000;
    let mut kinds = [0usize; 4];
    for i in 0..n {
        let (cells, c) = position(&mut rng);
        let fast = forbidden(&cells, SIZE as usize, SIZE as usize, c);
        let mut reference = Reference {
            cells: cells.clone(),
        };
        let want = reference.judge(c as i32 % SIZE, c as i32 / SIZE);
        if fast != want {
            let board: String = cells
                .chunks(SIZE as usize)
                .map(|r| {
                    r.iter()
                        .map(|&v| ['.', 'X', 'O'][usize::from(v)])
                        .collect::<String>()
                        + "\n"
                })
                .collect();
            panic!(
                "position {i}, cell ({}, {}): fast {fast:?}, reference {want:?}\n{board}",
                c as i32 % SIZE,
                c as i32 / SIZE
            );
        }
        kinds[match want {
            None => 0,
            Some(Forbidden::DoubleThree) => 1,
            Some(Forbidden::DoubleFour) => 2,
            Some(Forbidden::Overline) => 3,
        }] += 1;
    }
    eprintln!(
        "{n} positions agree: {} allowed, {} double-three, {} double-four, {} overline",
        kinds[0], kinds[1], kinds[2], kinds[3]
    );
    // The generator must exercise every kind often.
    assert!(kinds[1..].iter().all(|&k| k > 1000), "{kinds:?}");
}

/// The records of a results folder, in game order.
fn records(dir: &std::path::Path) -> Vec<arena::tournament::record::GameRecord> {
    let read = arena::tournament::record::read_records(&dir.join("games.jsonl")).unwrap();
    let mut v = read.records;
    v.sort_by_key(|r| r.game);
    v
}

fn engine(name: &str) -> String {
    crate::common::root()
        .join("configs/engines")
        .join(format!("{name}.toml"))
        .display()
        .to_string()
}

#[test]
fn built_in_engines_play_renju_without_forbidden_moves() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m");
    let text = crate::common::run_ok(&[
        "match",
        &engine("gomoku-modern"),
        &engine("gomoku-seed003-threat"),
        "--game",
        "renju",
        "--depth",
        "3",
        "--rounds",
        "6",
        "--plies",
        "4",
        "-j",
        "1",
        "--no-report",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    let run = std::fs::read_to_string(out.join("run.toml")).unwrap();
    assert!(run.contains("game = \"renju\""), "{run}");
    let games = records(&out);
    assert_eq!(games.len(), 12, "{text}");
    for r in &games {
        assert!(
            r.reason == "k-in-a-row" || r.reason == "board-full",
            "game {}: {}",
            r.game,
            r.reason
        );
    }
    // Every record replays under renju (the forbidden checks included).
    let stats = crate::common::run_ok(&["stats", out.to_str().unwrap()]);
    assert!(stats.contains("gomoku-modern"), "{stats}");
}

#[test]
fn a_served_engine_plays_renju_over_gomocup() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m");
    let served = format!(
        "cmd={},arg=serve,arg={},proto=gomocup,name=served",
        crate::common::arena_bin(),
        engine("gomoku-seed003-threat")
    );
    crate::common::run_ok(&[
        "match",
        &engine("gomoku-modern"),
        &served,
        "--game",
        "renju",
        "--depth",
        "3",
        "--rounds",
        "3",
        "--plies",
        "4",
        "-j",
        "1",
        "--no-report",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    let games = records(&out);
    assert_eq!(games.len(), 6);
    for r in &games {
        assert!(
            r.reason == "k-in-a-row" || r.reason == "board-full",
            "game {}: {}",
            r.game,
            r.reason
        );
    }
}

#[test]
fn an_outside_engine_that_plays_a_forbidden_move_loses() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m");
    let script = crate::common::fixture("scripted-gomocup.sh");
    // As black: f3 f4 d5 e5, then f5 (a double three). As white the same stones are
    // harmless; the other side plays along row 15.
    let doubler = format!(
        "cmd=/bin/sh,arg={script},arg=5.2,arg=5.3,arg=3.4,arg=4.4,arg=5.4,arg=9.9,name=doubler"
    );
    let row = format!(
        "cmd=/bin/sh,arg={script},arg=0.14,arg=2.14,arg=4.14,arg=6.14,arg=8.14,arg=10.14,\
         name=row"
    );
    crate::common::run_ok(&[
        "match",
        &doubler,
        &row,
        "--game",
        "renju",
        "--plies",
        "0",
        "--rounds",
        "1",
        "--max-plies",
        "12",
        "--depth",
        "1",
        "-j",
        "1",
        "--no-report",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    let games = records(&out);
    let summary: Vec<(String, String, String, usize)> = games
        .iter()
        .map(|r| {
            (
                r.black_name.clone(),
                r.result.as_str().to_string(),
                r.reason.clone(),
                r.moves.len(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "doubler".to_string(),
                "0-1".to_string(),
                "forbidden: double-three".to_string(),
                9
            ),
            (
                "row".to_string(),
                "1/2-1/2".to_string(),
                "max-plies".to_string(),
                12
            ),
        ]
    );
    // The record replays: `stats` checks every game.
    crate::common::run_ok(&["stats", out.to_str().unwrap()]);
    // SGF says the rule.
    let sgf = crate::common::run_ok(&["export", out.to_str().unwrap()]);
    assert!(sgf.contains("RU[Renju]"), "{sgf}");
}

/// docs/matches.md (Renju): the perft example, and the game's names.
#[test]
fn perft_counts_a_forbidden_move_as_the_end_of_the_game() {
    let moves = "f3a15f4c15d5e15e5g15";
    let renju = crate::common::run_ok(&["perft", "renju", "2", "--moves", moves]);
    assert_eq!(renju.lines().next(), Some("46656"), "{renju}");
    let same = crate::common::run_ok(&["perft", "mnk:15,15,5,renju", "2", "--moves", moves]);
    assert_eq!(same.lines().next(), Some("46656"), "{same}");
    let gomoku = crate::common::run_ok(&["perft", "gomoku", "2", "--moves", moves]);
    assert_eq!(gomoku.lines().next(), Some("46872"), "{gomoku}");
}

/// docs/matches.md (Renju): `arena stats` refuses a forbidden reason the moves do not give.
#[test]
fn stats_checks_the_forbidden_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m");
    let script = crate::common::fixture("scripted-gomocup.sh");
    let doubler = format!(
        "cmd=/bin/sh,arg={script},arg=5.2,arg=5.3,arg=3.4,arg=4.4,arg=5.4,arg=9.9,name=doubler"
    );
    let row = format!(
        "cmd=/bin/sh,arg={script},arg=0.14,arg=2.14,arg=4.14,arg=6.14,arg=8.14,arg=10.14,\
         name=row"
    );
    let out_s = out.to_str().unwrap();
    crate::common::run_ok(&[
        "match",
        &doubler,
        &row,
        "--game",
        "renju",
        "--plies",
        "0",
        "--rounds",
        "1",
        "--max-plies",
        "12",
        "--depth",
        "1",
        "-j",
        "1",
        "--no-report",
        "-q",
        "--out",
        out_s,
    ]);
    let path = out.join("games.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"forbidden: double-three\""), "{text}");
    std::fs::write(
        &path,
        text.replace("\"forbidden: double-three\"", "\"forbidden: overline\""),
    )
    .unwrap();
    let e = crate::common::run_bad_input(&["stats", out_s]);
    assert!(
        e.contains("reason is forbidden: overline, but the moves end in forbidden: double-three"),
        "{e}"
    );
}

/// docs/matches.md (Renju): `arena serve` with `INFO rule 4` does not play black's forbidden
/// double four (the winning move under freestyle).
#[test]
fn serve_plays_renju_on_info_rule_4() {
    let board = "BOARD\n5,1,1\n5,0,2\n5,2,1\n1,4,2\n5,3,1\n0,14,2\n2,4,1\n2,14,2\n3,4,1\n\
                 13,14,2\n4,4,1\n14,11,2\nDONE\n";
    let file = engine("gomoku-seed003-threat");
    let reply = |rule: &str| {
        let out = crate::common::serve_answered(
            &[&file, "--set", "search.depth=2"],
            format!("START 15\nINFO rule {rule}\n{board}").as_bytes(),
            1,
        );
        out.lines()
            .rfind(|l| !l.starts_with("MESSAGE"))
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(reply("0"), "5,4");
    let renju = reply("4");
    assert!(
        !renju.is_empty() && renju != "5,4" && !renju.starts_with("ERROR"),
        "{renju}"
    );
}
