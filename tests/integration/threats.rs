//! Gomoku's threat knowledge against brute force that shares none of its code:
//! - the VCF solver finds a win exactly when a brute-force search over every four-making
//!   attacker move and every defender reply does (both answers on hundreds of
//!   positions), and the line it gives is a real forced win;
//! - the forcing facts (win with a five or an open four, lost to two fives, a four must
//!   be blocked, an open three stopped) agree with a plain alpha-beta of the same depth;
//! - every VCT win is confirmed by a plain alpha-beta.

use arena::{
    eval::{
        Evaluator, Forcing, LeafVcf, MnkTable, NodeBudget, OrderFlags, ThreatKind, mnk::MnkEval,
    },
    game::{Game, Mnk, MnkConfig, MnkMove, MnkRule},
    search::{
        Limits, SearchSettings, Searcher,
        score::{is_decisive, plies_to_end},
    },
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A bare board for the brute force: 0 empty, 1 and 2 the players' stones.
struct Board {
    w: i32,
    h: i32,
    k: i32,
    exact: bool,
    cells: Vec<u8>,
}

impl Board {
    fn from(pos: &Mnk) -> Board {
        let c = pos.config();
        Board {
            w: c.width() as i32,
            h: c.height() as i32,
            k: c.k() as i32,
            exact: c.rule() == MnkRule::Exact,
            cells: pos.cells()[..c.cells()].to_vec(),
        }
    }

    /// Whether a stone of `colour` on the empty cell `c` makes a winning line.
    fn wins(&mut self, c: usize, colour: u8) -> bool {
        let (x, y) = ((c as i32) % self.w, (c as i32) / self.w);
        for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            let mut run = 1;
            for sign in [1, -1] {
                let (mut cx, mut cy) = (x + sign * dx, y + sign * dy);
                while cx >= 0
                    && cy >= 0
                    && cx < self.w
                    && cy < self.h
                    && self.cells[(cy * self.w + cx) as usize] == colour
                {
                    run += 1;
                    cx += sign * dx;
                    cy += sign * dy;
                }
            }
            if run == self.k || (!self.exact && run > self.k) {
                return true;
            }
        }
        false
    }

    fn empties(&self) -> Vec<usize> {
        (0..self.cells.len())
            .filter(|&c| self.cells[c] == 0)
            .collect()
    }

    /// Cells where `colour` would win at once.
    fn winning_cells(&mut self, colour: u8) -> Vec<usize> {
        self.empties()
            .into_iter()
            .filter(|&c| self.wins(c, colour))
            .collect()
    }

    /// Whether `attacker` (to move) wins within `n` of its moves playing only moves that
    /// threaten to win at once, against every reply.
    fn vcf(&mut self, attacker: u8, n: u32) -> bool {
        let defender = 3 - attacker;
        if !self.winning_cells(attacker).is_empty() {
            return true;
        }
        if n <= 1 {
            return false;
        }
        for c in self.empties() {
            self.cells[c] = attacker;
            let threats = self.winning_cells(attacker);
            let mut won = !threats.is_empty();
            if won {
                for d in self.empties() {
                    if self.wins(d, defender) {
                        won = false; // the defender completes its own line first
                        break;
                    }
                    if !threats.contains(&d) {
                        continue; // the attacker's threat still stands: it wins next
                    }
                    self.cells[d] = defender;
                    let goes_on = self.vcf(attacker, n - 1);
                    self.cells[d] = 0;
                    if !goes_on {
                        won = false;
                        break;
                    }
                }
            }
            self.cells[c] = 0;
            if won {
                return true;
            }
        }
        false
    }
}

/// A random unfinished position with `stones` stones clustered around the centre (so
/// lines form), or `None` if the game ended on the way.
fn clustered(config: &MnkConfig, stones: usize, spread: i32, rng: &mut ChaCha8Rng) -> Option<Mnk> {
    let mut pos = Mnk::new(config);
    let (cx, cy) = (config.width() as i32 / 2, config.height() as i32 / 2);
    let mut tries = 0;
    while pos.stones() < stones {
        tries += 1;
        if tries > 10_000 {
            return None;
        }
        let x = cx + rng.random_range(-spread..=spread);
        let y = cy + rng.random_range(-spread..=spread);
        let Some(mv) = config.at(x, y) else { continue };
        if !pos.is_legal(mv) {
            continue;
        }
        pos.play(mv);
        if pos.outcome().is_some() {
            return None;
        }
    }
    Some(pos)
}

fn evaluator(pos: &Mnk) -> MnkEval {
    evaluator_with_radius(pos, 2)
}

fn evaluator_with_radius(pos: &Mnk, radius: usize) -> MnkEval {
    let mut eval = MnkEval::new(pos.config(), &MnkTable::zero(), radius);
    eval.reset(pos);
    eval
}

/// Replays a VCF line: every attacker move threatens five, every reply is the block
/// (the only cell that stops it), and the last move wins.
fn check_vcf_line(pos: &Mnk, line: &[MnkMove]) {
    let mut p = pos.clone();
    let attacker = 1 + p.side_to_move().index() as u8;
    for (i, &mv) in line.iter().enumerate() {
        assert!(
            p.is_legal(mv),
            "move {i} of the line is illegal in {}",
            p.to_text()
        );
        let mut board = Board::from(&p);
        if i % 2 == 1 {
            // The defender's reply: the attacker's only winning cell.
            let threats = board.winning_cells(attacker);
            assert!(
                threats.len() == 1 && threats[0] == mv.cell() || threats.len() >= 2,
                "reply {i} is not the forced block in {}",
                p.to_text()
            );
        }
        p.play(mv);
        if i + 1 == line.len() {
            assert!(
                p.outcome().is_some_and(|o| o.winner().is_some()),
                "the line ends in a win"
            );
        } else {
            assert!(
                p.outcome().is_none(),
                "the game ended early in {}",
                p.to_text()
            );
            if i % 2 == 0 {
                let mut b = Board::from(&p);
                assert!(
                    !b.winning_cells(attacker).is_empty(),
                    "attacker move {i} is not a four in {}",
                    p.to_text()
                );
            }
        }
    }
}

#[test]
fn vcf_finds_a_win_exactly_when_brute_force_over_fours_does() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (mut wins, mut no_wins) = (0, 0);
    let mut narrowed_wins = [0; NARROWED.len()];
    let mut positions = 0;
    for config in [
        MnkConfig::new(9, 9, 5, MnkRule::Freestyle).unwrap(),
        MnkConfig::new(9, 9, 5, MnkRule::Exact).unwrap(),
        MnkConfig::new(8, 8, 4, MnkRule::Freestyle).unwrap(),
    ] {
        let mut found = 0;
        while found < 120 {
            let stones = rng.random_range(10..26);
            let Some(mut pos) = clustered(&config, stones, 3, &mut rng) else {
                continue;
            };
            let mut eval = evaluator(&pos);
            let me = pos.side_to_move().index();
            if eval
                .threat_cells(me, arena::eval::mnk::level::FOUR)
                .is_empty()
            {
                continue; // no four to start with: nothing to test
            }
            found += 1;
            let moves = 4;
            let mut budget = NodeBudget::new(u64::MAX);
            let before = pos.clone();
            let win = eval.threat_search(&mut pos, ThreatKind::Vcf, moves, &mut budget);
            assert_eq!(pos, before, "the search leaves the position as it was");
            eval.check_kept_state().unwrap();
            let brute = Board::from(&pos).vcf(1 + me as u8, moves);
            assert_eq!(
                win.is_some(),
                brute,
                "VCF within {moves} moves of {}",
                pos.to_text()
            );
            // The leaves' narrowed VCFs (fours on the lines through the previous one,
            // only fours that make more, a few fours a position) find a subset of these
            // wins, each a real one.
            for (i, leaf) in NARROWED.iter().enumerate() {
                let mut leaf_budget = NodeBudget::new(u64::MAX);
                let found = eval.threat_search(
                    &mut pos,
                    ThreatKind::VcfLeaf(*leaf),
                    moves,
                    &mut leaf_budget,
                );
                assert_eq!(pos, before, "{leaf:?} leaves the position as it was");
                eval.check_kept_state().unwrap();
                if let Some(found) = &found {
                    assert!(
                        win.is_some(),
                        "{leaf:?} found a VCF where there is none in {}",
                        pos.to_text()
                    );
                    check_vcf_line(&pos, &found.line);
                    narrowed_wins[i] += 1;
                }
            }
            if let Some(win) = win {
                wins += 1;
                assert_eq!(win.line.len() as u32, win.plies);
                check_vcf_line(&pos, &win.line);
            } else {
                no_wins += 1;
            }
        }
        positions += found;
    }
    assert!(positions >= 300);
    assert!(
        wins >= 60 && no_wins >= 60,
        "{wins} wins, {no_wins} without"
    );
    eprintln!("{wins} wins; found narrowed: {narrowed_wins:?} ({NARROWED:?})");
    // Most wins within 4 fours stay on the lines of the previous four, and most are
    // made of fours that make more than a four.
    for (found, leaf) in narrowed_wins.iter().zip(NARROWED) {
        assert!(
            found * 2 >= wins,
            "{found} of {wins} wins found by {leaf:?}"
        );
    }
    // Each narrowing misses some: the test positions reach them.
    assert!(
        narrowed_wins.iter().all(|&n| n < wins),
        "{narrowed_wins:?} of {wins}"
    );
}

/// The leaf VCF's narrowings the VCF test compares with the full VCF.
const NARROWED: [LeafVcf; 4] = [
    LeafVcf {
        near: true,
        breadth: 0,
        threes: false,
    },
    LeafVcf {
        near: false,
        breadth: 0,
        threes: true,
    },
    LeafVcf {
        near: false,
        breadth: 2,
        threes: false,
    },
    LeafVcf {
        near: true,
        breadth: 2,
        threes: true,
    },
];

/// Plain alpha-beta (no selectivity: threat and point ordering without pruning, a
/// table) to exactly `depth`.
fn plain(pos: &Mnk, depth: u32) -> i32 {
    let settings = SearchSettings {
        order: OrderFlags {
            threat: true,
            static_score: true,
            threat_prune: 0,
            ..OrderFlags::default()
        },
        ..SearchSettings::default()
    };
    // Every empty cell a candidate: nothing is missed for being far from the stones.
    let mut s = Searcher::new(evaluator_with_radius(pos, 0), settings, 4);
    s.new_game(0);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    s.search(pos, limits, |_| {}).score
}

#[test]
fn forcing_facts_agree_with_plain_alpha_beta() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let mut seen = [0usize; 4];
    let configs = [
        MnkConfig::new(7, 7, 4, MnkRule::Freestyle).unwrap(),
        MnkConfig::new(7, 7, 4, MnkRule::Exact).unwrap(),
        MnkConfig::new(9, 9, 5, MnkRule::Freestyle).unwrap(),
    ];
    let mut checked = 0;
    while checked < 400 {
        let config = configs[checked % configs.len()];
        let stones = rng.random_range(6..20);
        let Some(pos) = clustered(&config, stones, 2, &mut rng) else {
            continue;
        };
        checked += 1;
        let mut eval = evaluator(&pos);
        match eval.forcing(&pos) {
            Forcing::Quiet => seen[0] += 1,
            Forcing::Win { mv, plies } => {
                seen[1] += 1;
                assert!(pos.is_legal(mv));
                let score = plain(&pos, plies);
                assert!(
                    is_decisive(score) && score > 0 && plies_to_end(score) == Some(plies),
                    "a win in {plies} in {}: plain search says {score}",
                    pos.to_text()
                );
            }
            Forcing::Loss { plies, .. } => {
                seen[2] += 1;
                let score = plain(&pos, plies);
                assert!(
                    is_decisive(score) && score < 0 && plies_to_end(score) == Some(plies),
                    "a loss in {plies} in {}: plain search says {score}",
                    pos.to_text()
                );
            }
            Forcing::Defend { plies } => {
                seen[3] += 1;
                let mut keep = Vec::new();
                let left_out = eval.forced_moves(&pos, &mut keep);
                let mut all = Vec::new();
                pos.legal_moves(&mut all);
                assert_eq!(left_out, keep.len() < all.len());
                for mv in all.into_iter().filter(|m| !keep.contains(m)) {
                    let mut after = pos.clone();
                    after.play(mv);
                    // The opponent wins in plies - 1 after any other move.
                    let score = plain(&after, plies - 1);
                    assert!(
                        is_decisive(score) && score > 0 && plies_to_end(score) <= Some(plies - 1),
                        "{} is left out in {} but the opponent's score is {score}",
                        pos.format_move(mv),
                        pos.to_text()
                    );
                }
            }
        }
    }
    assert!(
        seen.iter().all(|&n| n >= 10),
        "quiet, win, loss, defend: {seen:?}"
    );
}

#[test]
fn every_vct_win_is_confirmed_by_plain_alpha_beta() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let config = MnkConfig::new(7, 7, 4, MnkRule::Freestyle).unwrap();
    let (mut wins, mut tried) = (0, 0);
    while tried < 150 {
        let stones = rng.random_range(6..14);
        let Some(mut pos) = clustered(&config, stones, 2, &mut rng) else {
            continue;
        };
        tried += 1;
        let mut eval = evaluator(&pos);
        let mut budget = NodeBudget::new(200_000);
        let Some(win) = eval.threat_search(&mut pos, ThreatKind::Vct, 3, &mut budget) else {
            continue;
        };
        eval.check_kept_state().unwrap();
        wins += 1;
        assert!(win.plies <= 5 && pos.is_legal(win.line[0]));
        let score = plain(&pos, win.plies);
        assert!(
            is_decisive(score) && score > 0 && plies_to_end(score) <= Some(win.plies),
            "VCT in {} plies in {}: plain search says {score}",
            win.plies,
            pos.to_text()
        );
    }
    assert!(wins >= 20, "{wins} VCT wins");
}

/// The defences against an open three read from the keys (a stone's effect on the one
/// line it shares with each open-four point) are exactly those found by placing the
/// stone and reading the points again, in the same order.
#[test]
fn open_three_defences_read_from_the_keys_equal_those_found_by_playing() {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    for config in [
        MnkConfig::new(15, 15, 5, MnkRule::Freestyle).unwrap(),
        MnkConfig::new(15, 15, 5, MnkRule::Exact).unwrap(),
        MnkConfig::new(9, 9, 5, MnkRule::Exact).unwrap(),
        MnkConfig::new(8, 8, 4, MnkRule::Freestyle).unwrap(),
    ] {
        let (mut tested, mut with_defence, mut many) = (0, 0, 0);
        while tested < 300 {
            let stones = rng.random_range(6..30);
            let Some(pos) = clustered(&config, stones, 4, &mut rng) else {
                continue;
            };
            let mut eval = evaluator(&pos);
            for defender in 0..2 {
                let attacker = 1 - defender;
                if eval
                    .threat_cells(attacker, arena::eval::mnk::level::OPEN_FOUR)
                    .is_empty()
                {
                    continue; // no open three: nothing to defend
                }
                tested += 1;
                let (mut fast, mut slow) = (Vec::new(), Vec::new());
                eval.open_three_defences(defender, &mut fast);
                eval.open_three_defences_by_play(defender, &mut slow);
                assert_eq!(
                    fast,
                    slow,
                    "defences of side {defender} in {} ({config:?})",
                    pos.to_text()
                );
                eval.check_kept_state().unwrap();
                with_defence += usize::from(!fast.is_empty());
                many += usize::from(fast.len() >= 4);
            }
        }
        // Both kinds of answer, and long lists, were compared.
        assert!(
            with_defence > 100 && with_defence < tested,
            "{with_defence} of {tested}"
        );
        assert!(many > 20, "{many} of {tested} with 4 defences or more");
    }
}
