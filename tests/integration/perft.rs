//! Perft against published counts (a data file, as shakmaty does) and against a naive,
//! independently written Ataxx reference on our own positions with gaps and passes.

use std::collections::HashSet;

use arena::game::{Ataxx, Game, Mnk, MnkConfig, Outcome, Side};

use crate::common::data;

struct PerftCase {
    id: String,
    fen: String,
    counts: Vec<(u32, u64)>,
}

fn read_suite(name: &str) -> Vec<PerftCase> {
    let text = std::fs::read_to_string(data(name)).expect("perft suite is readable");
    let mut cases: Vec<PerftCase> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once(' ').expect("lines are 'key value'");
        match key {
            "id" => cases.push(PerftCase {
                id: value.to_string(),
                fen: String::new(),
                counts: Vec::new(),
            }),
            "epd" => cases.last_mut().expect("id before epd").fen = value.to_string(),
            "perft" => {
                let (d, leaves) = value.split_once(' ').expect("perft DEPTH LEAVES");
                cases
                    .last_mut()
                    .expect("id before perft")
                    .counts
                    .push((d.parse().expect("depth"), leaves.parse().expect("leaves")));
            }
            _ => panic!("{name} line {}: unknown key {key}", n + 1),
        }
    }
    cases
}

#[test]
fn ataxx_perft_suite() {
    let cases = read_suite("ataxx-perft.txt");
    assert!(cases.len() >= 10);
    for case in cases {
        let mut pos = Ataxx::from_fen(&case.fen).expect("suite FENs are valid");
        for &(depth, leaves) in &case.counts {
            assert_eq!(pos.perft(depth), leaves, "{} perft {depth}", case.id);
            // The bulk-counting perft and the plain play/undo perft agree.
            if leaves < 3_000_000 {
                assert_eq!(
                    arena::game::perft::perft_generic(&mut pos, depth),
                    leaves,
                    "{} generic perft {depth}",
                    case.id
                );
            }
        }
    }
}

/// A deliberately simple Ataxx: an array of cells and loops, no bitboards.
#[derive(Clone)]
struct Naive {
    /// 0 empty, 1 black, 2 white, 3 gap; index rank * 7 + file.
    cells: [u8; 49],
    side: u8,
    halfmoves: u32,
}

impl Naive {
    fn from_fen(fen: &str) -> Naive {
        let mut parts = fen.split(' ');
        let mut cells = [0u8; 49];
        for (i, rank) in parts.next().unwrap().split('/').enumerate() {
            let r = 6 - i;
            let mut f = 0;
            for ch in rank.chars() {
                match ch {
                    'x' => cells[r * 7 + f] = 1,
                    'o' => cells[r * 7 + f] = 2,
                    '-' => cells[r * 7 + f] = 3,
                    d => {
                        f += d.to_digit(10).unwrap() as usize;
                        continue;
                    }
                }
                f += 1;
            }
        }
        let side = if parts.next() == Some("x") { 1 } else { 2 };
        let halfmoves = parts.next().unwrap().parse().unwrap();
        Naive {
            cells,
            side,
            halfmoves,
        }
    }

    fn dist(a: usize, b: usize) -> usize {
        let (af, ar) = (a % 7, a / 7);
        let (bf, br) = (b % 7, b / 7);
        af.abs_diff(bf).max(ar.abs_diff(br))
    }

    /// (from, to) pairs; from == None for singles; an empty list means no singles or jumps.
    fn moves_of(&self, side: u8) -> Vec<(Option<usize>, usize)> {
        let mut out = Vec::new();
        for to in 0..49 {
            if self.cells[to] != 0 {
                continue;
            }
            if (0..49).any(|s| self.cells[s] == side && Naive::dist(s, to) == 1) {
                out.push((None, to));
            }
            for from in 0..49 {
                if self.cells[from] == side && Naive::dist(from, to) == 2 {
                    out.push((Some(from), to));
                }
            }
        }
        out
    }

    fn over(&self) -> bool {
        let count = |s| self.cells.iter().filter(|&&c| c == s).count();
        count(1) == 0
            || count(2) == 0
            || self.halfmoves >= 100
            || (self.moves_of(1).is_empty() && self.moves_of(2).is_empty())
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.over() {
            return 0;
        }
        let moves = self.moves_of(self.side);
        if moves.is_empty() {
            let mut child = self.clone();
            child.side = 3 - self.side;
            child.halfmoves += 1;
            return child.perft(depth - 1);
        }
        let mut total = 0;
        for (from, to) in moves {
            let mut child = self.clone();
            child.halfmoves += 1;
            match from {
                Some(f) => child.cells[f] = 0,
                None => child.halfmoves = 0,
            }
            child.cells[to] = self.side;
            for s in 0..49 {
                if child.cells[s] == 3 - self.side && Naive::dist(s, to) == 1 {
                    child.cells[s] = self.side;
                }
            }
            child.side = 3 - self.side;
            total += child.perft(depth - 1);
        }
        total
    }
}

#[test]
fn naive_reference_agrees_with_published_counts() {
    // The reference is only trusted because it reproduces libataxx's numbers.
    let start = Naive::from_fen("x5o/7/7/7/7/7/o5x x 0 1");
    assert_eq!(start.perft(3), 6460);
    let gaps = Naive::from_fen("x5o/7/2-1-2/3-3/2-1-2/7/o5x x 0 1");
    assert_eq!(gaps.perft(3), 4100);
    let pass = Naive::from_fen("7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1");
    assert_eq!(pass.perft(3), 249);
}

/// Our own positions: gaps, forced passes, the half-move clock running out, wipe-outs.
const OWN_POSITIONS: &[(&str, u32)] = &[
    ("x5o/1-3-1/2-1-2/3x3/2-1-2/1-3-1/o5x o 7 12", 3),
    ("7/7/7/7/ooo4/ooo4/xoo4 x 0 1", 3),
    ("7/7/7/7/ooo4/ooo4/xoo4 o 0 1", 3),
    ("x5o/7/7/7/7/7/o5x x 98 30", 3),
    ("x5o/7/7/7/7/7/o5x o 99 30", 2),
    ("7/7/7/7/7/1o5/xo5 o 0 1", 3),
    ("xxxxooo/xxxxooo/xxx1ooo/-------/7/7/7 x 0 1", 3),
    (
        "xoxoxox/oxoxoxo/xoxoxox/oxo1oxo/xoxoxox/oxoxoxo/xoxoxo1 x 0 1",
        3,
    ),
    ("-------/-x---o-/-------/7/-------/-o---x-/------- x 0 1", 4),
];

#[test]
fn own_positions_match_the_naive_reference_and_the_suite() {
    let suite = read_suite("ataxx-perft-own.txt");
    assert_eq!(suite.len(), OWN_POSITIONS.len());
    for (&(fen, depth), case) in OWN_POSITIONS.iter().zip(&suite) {
        assert_eq!(case.fen, fen, "suite order follows OWN_POSITIONS");
        let naive = Naive::from_fen(fen);
        let mut pos = Ataxx::from_fen(fen).unwrap();
        for d in 0..=depth {
            let expected = naive.perft(d);
            assert_eq!(pos.perft(d), expected, "{fen} perft {d}");
            assert_eq!(
                case.counts.iter().find(|c| c.0 == d).map(|c| c.1),
                Some(expected),
                "{} perft {d} in the suite file",
                case.id
            );
        }
    }
}

#[test]
fn tictactoe_perft_matches_known_counts() {
    let expected = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872];
    let mut pos = Mnk::new(&MnkConfig::tictactoe());
    for (d, &n) in expected.iter().enumerate() {
        assert_eq!(pos.perft(d as u32 + 1), n, "tic-tac-toe perft {}", d + 1);
    }
}

#[test]
fn tictactoe_has_5478_reachable_positions() {
    fn visit(pos: &mut Mnk, seen: &mut HashSet<u64>) {
        if !seen.insert(pos.hash()) {
            return;
        }
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        for mv in moves {
            pos.play(mv);
            visit(pos, seen);
            pos.undo(mv, ());
        }
    }
    let mut seen = HashSet::new();
    visit(&mut Mnk::new(&MnkConfig::tictactoe()), &mut seen);
    assert_eq!(seen.len(), 5478);
}

#[test]
fn tictactoe_is_a_draw() {
    /// +1 the side to move wins, 0 draw, -1 it loses: plain exhaustive negamax.
    fn value(pos: &mut Mnk) -> i32 {
        match pos.outcome() {
            Some(Outcome::Win { side, .. }) => {
                return if side == pos.side_to_move() { 1 } else { -1 };
            }
            Some(Outcome::Draw { .. }) => return 0,
            None => {}
        }
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        let mut best = -1;
        for mv in moves {
            pos.play(mv);
            best = best.max(-value(pos));
            pos.undo(mv, ());
        }
        best
    }
    let mut pos = Mnk::new(&MnkConfig::tictactoe());
    assert_eq!(value(&mut pos), 0);
    // And a position where X has two threats is a win for X.
    let mut pos = Mnk::from_text(&MnkConfig::tictactoe(), "a1b2c1c3").unwrap();
    assert_eq!(pos.side_to_move(), Side::First);
    assert_eq!(value(&mut pos), 1);
}
