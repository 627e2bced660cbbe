//! The line-pattern classifier for m,n,k-games: one table per (k, rule) that maps the
//! stones around a cell along one line to the [`Pattern`] a stone on that cell belongs to.
//!
//! The whole crate uses this one classifier: the position evaluation reads the pattern of
//! every stone, move ordering reads the pattern a stone *would* make on an empty cell.
//!
//! A *line key* encodes the `2R` cells at offsets `-R..=-1, 1..=R` from a cell along one
//! direction, two bits each (0 empty, 1 first player, 2 second player, 3 off the board),
//! offset `-R` in the lowest bits. `R = k - 1` under the freestyle rule and `R = k` under
//! the exact rule (which must see one cell past a run of k to rule out an overline) and
//! under renju, whose table judges the first player (black) by exactly k and the second
//! (white) by k or more. Black's forbidden points are not the classifier's business: a
//! pattern is about one line, a forbidden move about all four (see `game::renju`).
//!
//! Patterns are defined recursively, as Rapfi's tables are, relative to k ("four" means
//! one stone short of k, "three" two short, and so on), always about lines through the
//! centre stone:
//! - `Five`: the centre is in a winning line (k or more; exactly k under `exact`);
//! - `OpenFour`: two or more empty cells each complete a winning line; `RushFour`: one;
//! - `OpenThree`: some empty cell makes an `OpenFour` (split threes `X_XX` included);
//!   `SleepThree`: none does, but one makes a `RushFour`;
//! - `OpenTwo` / `SleepTwo`: one stone more makes an open / sleep three; likewise `OpenOne`
//!   / `SleepOne` from twos;
//! - `DeadFour` .. `DeadOne`: no winning line through the centre fits between the
//!   blockers; the number is the length of the centre's run of stones, relative to k;
//! - `None`: anything else (for k = 6, a lone stone: five stones short).

use std::sync::{Arc, Mutex, OnceLock};

use crate::game::MnkRule;

/// What a stone is part of along one line. Ordered from worst to best.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Pattern {
    /// Nothing worth a name.
    None = 0,
    /// Blocked on both sides, a run of k-4 (one stone for gomoku).
    DeadOne,
    /// Blocked, a run of k-3.
    DeadTwo,
    /// Blocked, a run of k-2.
    DeadThree,
    /// Blocked, a run of k-1.
    DeadFour,
    /// Can become a sleep two.
    SleepOne,
    /// Can become an open two.
    OpenOne,
    /// Can become a sleep three.
    SleepTwo,
    /// Can become an open three.
    OpenTwo,
    /// Can become a rush four but not an open four.
    SleepThree,
    /// Can become an open four (includes split threes).
    OpenThree,
    /// Exactly one empty cell completes a winning line ("chong" four).
    RushFour,
    /// Two or more empty cells complete a winning line.
    OpenFour,
    /// Part of a winning line.
    Five,
}

/// Number of [`Pattern`] values.
pub const PATTERN_COUNT: usize = 14;

impl Pattern {
    /// Every pattern, in order.
    pub const ALL: [Pattern; PATTERN_COUNT] = [
        Pattern::None,
        Pattern::DeadOne,
        Pattern::DeadTwo,
        Pattern::DeadThree,
        Pattern::DeadFour,
        Pattern::SleepOne,
        Pattern::OpenOne,
        Pattern::SleepTwo,
        Pattern::OpenTwo,
        Pattern::SleepThree,
        Pattern::OpenThree,
        Pattern::RushFour,
        Pattern::OpenFour,
        Pattern::Five,
    ];

    /// The name used in weight tables (`open_three`, `rush_four`, ...).
    pub fn key(self) -> &'static str {
        match self {
            Pattern::None => "none",
            Pattern::DeadOne => "dead_one",
            Pattern::DeadTwo => "dead_two",
            Pattern::DeadThree => "dead_three",
            Pattern::DeadFour => "dead_four",
            Pattern::SleepOne => "sleep_one",
            Pattern::OpenOne => "open_one",
            Pattern::SleepTwo => "sleep_two",
            Pattern::OpenTwo => "open_two",
            Pattern::SleepThree => "sleep_three",
            Pattern::OpenThree => "open_three",
            Pattern::RushFour => "rush_four",
            Pattern::OpenFour => "open_four",
            Pattern::Five => "five",
        }
    }

    #[inline]
    fn from_u8(v: u8) -> Pattern {
        Pattern::ALL[usize::from(v)]
    }

    /// A four of either kind (one stone from a winning line).
    #[inline]
    pub fn is_four(self) -> bool {
        matches!(self, Pattern::RushFour | Pattern::OpenFour)
    }
}

/// Cell states inside a line key.
pub const KEY_EMPTY: u32 = 0;
/// Off the board.
pub const KEY_WALL: u32 = 3;

/// The classifier for one (k, rule): a pattern for every line key, seen from the first
/// player (use [`PatternTable::pattern`] for either side).
#[derive(Debug)]
pub struct PatternTable {
    k: usize,
    rule: MnkRule,
    radius: usize,
    /// Per key: the first player's pattern in the low byte, the second's in the high byte.
    table: Vec<u16>,
}

const UNKNOWN: u8 = u8::MAX;

impl PatternTable {
    /// The shared table for (k, rule), built on first use (k = 6 exact takes seconds;
    /// the others milliseconds).
    pub fn get(k: usize, rule: MnkRule) -> Arc<PatternTable> {
        static TABLES: OnceLock<Mutex<Vec<Arc<PatternTable>>>> = OnceLock::new();
        let tables = TABLES.get_or_init(|| Mutex::new(Vec::new()));
        // A poisoned lock only means another thread panicked while building; the vector
        // itself is always in a valid state.
        let mut guard = tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = guard.iter().find(|t| t.k == k && t.rule == rule) {
            return Arc::clone(t);
        }
        let t = Arc::new(PatternTable::build(k, rule));
        guard.push(Arc::clone(&t));
        t
    }

    /// Window radius R: the key covers offsets -R..=R.
    pub fn radius_for(k: usize, rule: MnkRule) -> usize {
        match rule {
            MnkRule::Freestyle => k - 1,
            MnkRule::Exact | MnkRule::Renju => k,
        }
    }

    /// Window radius of this table.
    pub fn radius(&self) -> usize {
        self.radius
    }

    /// Builds the table for (k, rule).
    ///
    /// # Panics
    /// If k is outside 3..=6 (the rules layer never makes such a game).
    pub fn build(k: usize, rule: MnkRule) -> PatternTable {
        assert!((3..=6).contains(&k), "k = {k} outside 3..=6");
        let radius = PatternTable::radius_for(k, rule);
        // Each player's view: renju judges black (the first player) by exactly five and
        // white by five or more, both in the wider window.
        let one = |exact: bool| {
            let mut table = vec![UNKNOWN; 1 << (4 * radius)];
            let mut builder = Builder {
                k,
                exact,
                radius,
                table: &mut table,
            };
            for key in 0..(1u32 << (4 * radius)) {
                builder.classify(key);
            }
            table
        };
        let first = one(rule != MnkRule::Freestyle);
        let second_owned;
        let second = if rule == MnkRule::Renju {
            second_owned = one(false);
            &second_owned
        } else {
            &first
        };
        let table = (0..first.len())
            .map(|key| {
                u16::from(first[key]) | u16::from(second[swap_colours(key as u32) as usize]) << 8
            })
            .collect();
        PatternTable {
            k,
            rule,
            radius,
            table,
        }
    }

    /// The pattern of a stone of `side` (0 first player, 1 second) on a cell whose
    /// neighbours along the line are `key`.
    #[inline]
    pub fn pattern(&self, key: u32, side: usize) -> Pattern {
        Pattern::from_u8((self.table[key as usize] >> (8 * side)) as u8)
    }

    /// Both players' patterns as raw bytes (`Pattern as u8`), first player's in the low
    /// byte: for hot loops that index 256-entry tables without bounds checks.
    #[inline]
    pub fn raw(&self, key: u32) -> u16 {
        self.table[key as usize]
    }

    /// The patterns of both players' stones on a cell with neighbours `key`.
    #[inline]
    pub fn patterns(&self, key: u32) -> [Pattern; 2] {
        let both = self.table[key as usize];
        [
            Pattern::from_u8(both as u8),
            Pattern::from_u8((both >> 8) as u8),
        ]
    }

    /// Bit position of offset `d` (`-R..=R`, not 0) in a key.
    #[inline]
    pub fn shift(&self, d: i32) -> u32 {
        offset_shift(self.radius, d)
    }
}

/// Bit position of offset `d` in a key of radius `radius`.
#[inline]
pub fn offset_shift(radius: usize, d: i32) -> u32 {
    let r = radius as i32;
    let slot = if d < 0 { d + r } else { d + r - 1 };
    2 * slot as u32
}

/// Exchanges the two players' stones in a key (walls stay walls).
#[inline]
pub fn swap_colours(key: u32) -> u32 {
    const LOW: u32 = 0x5555_5555;
    let low = key & LOW;
    let high = (key >> 1) & LOW;
    // 01 <-> 10; 11 and 00 unchanged.
    (low << 1) | high
}

struct Builder<'a> {
    k: usize,
    /// Exactly k wins (else k or more).
    exact: bool,
    radius: usize,
    table: &'a mut [u8],
}

impl Builder<'_> {
    /// The window as cells: index `radius` is the centre (own stone). 0 empty, 1 own,
    /// 2 blocked (opponent or wall).
    fn cells(&self, key: u32) -> [u8; 13] {
        let mut cells = [2u8; 13];
        let r = self.radius as i32;
        for d in -r..=r {
            let i = (d + r) as usize;
            cells[i] = if d == 0 {
                1
            } else {
                match (key >> offset_shift(self.radius, d)) & 3 {
                    0 => 0,
                    1 => 1,
                    _ => 2,
                }
            };
        }
        cells
    }

    fn five(&self, cells: &[u8; 13]) -> bool {
        let c = self.radius;
        let n = 2 * self.radius + 1;
        let mut lo = c;
        while lo > 0 && cells[lo - 1] == 1 {
            lo -= 1;
        }
        let mut hi = c;
        while hi + 1 < n && cells[hi + 1] == 1 {
            hi += 1;
        }
        let run = hi - lo + 1;
        if self.exact {
            run == self.k
        } else {
            run >= self.k
        }
    }

    fn key_with_own(&self, key: u32, d: i32) -> u32 {
        key | (1 << offset_shift(self.radius, d))
    }

    fn classify(&mut self, key: u32) -> u8 {
        let known = self.table[key as usize];
        if known != UNKNOWN {
            return known;
        }
        let p = self.compute(key);
        self.table[key as usize] = p as u8;
        p as u8
    }

    fn compute(&mut self, key: u32) -> Pattern {
        let mut cells = self.cells(key);
        if self.five(&cells) {
            return Pattern::Five;
        }
        let r = self.radius as i32;
        let empties: Vec<i32> = (-r..=r)
            .filter(|&d| d != 0 && cells[(d + r) as usize] == 0)
            .collect();
        let mut wins = 0;
        for &d in &empties {
            cells[(d + r) as usize] = 1;
            if self.five(&cells) {
                wins += 1;
            }
            cells[(d + r) as usize] = 0;
        }
        match wins {
            0 => {}
            1 => return Pattern::RushFour,
            _ => return Pattern::OpenFour,
        }
        let mut best = Pattern::None;
        for &d in &empties {
            let next = Pattern::from_u8(self.classify(self.key_with_own(key, d)));
            let up = match next {
                Pattern::OpenFour => Pattern::OpenThree,
                Pattern::RushFour => Pattern::SleepThree,
                Pattern::OpenThree => Pattern::OpenTwo,
                Pattern::SleepThree => Pattern::SleepTwo,
                Pattern::OpenTwo => Pattern::OpenOne,
                Pattern::SleepTwo => Pattern::SleepOne,
                _ => Pattern::None,
            };
            best = best.max(up);
        }
        if best != Pattern::None {
            return best;
        }
        if self.fits_a_line(&cells) {
            return Pattern::None;
        }
        // Dead: name it by the run through the centre, relative to k.
        let c = self.radius;
        let mut lo = c;
        while lo > 0 && cells[lo - 1] == 1 {
            lo -= 1;
        }
        let mut hi = c;
        while hi < 2 * self.radius && cells[hi + 1] == 1 {
            hi += 1;
        }
        let short = self.k.saturating_sub(hi - lo + 1);
        match short {
            1 => Pattern::DeadFour,
            2 => Pattern::DeadThree,
            3 => Pattern::DeadTwo,
            4 => Pattern::DeadOne,
            _ => Pattern::None,
        }
    }

    /// Whether some k consecutive cells through the centre hold no blocker.
    fn fits_a_line(&self, cells: &[u8; 13]) -> bool {
        let c = self.radius as i32;
        let k = self.k as i32;
        (c - k + 1..=c).any(|start| {
            start >= 0
                && start + k - 1 <= 2 * c
                && (start..start + k).all(|i| cells[i as usize] != 2)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key from a picture of the window, centre included: `X` own (first player),
    /// `O` opponent, `.` empty, `|` wall. The centre must be `X`.
    fn key(t: &PatternTable, line: &str) -> u32 {
        let cells: Vec<char> = line.chars().collect();
        let r = t.radius() as i32;
        assert_eq!(cells.len() as i32, 2 * r + 1, "window of {line}");
        assert_eq!(cells[r as usize], 'X', "centre of {line}");
        let mut k = 0;
        for d in -r..=r {
            if d == 0 {
                continue;
            }
            let v = match cells[(d + r) as usize] {
                '.' => 0,
                'X' => 1,
                'O' => 2,
                '|' => 3,
                c => panic!("bad cell {c}"),
            };
            k |= v << t.shift(d);
        }
        k
    }

    fn check(t: &PatternTable, cases: &[(&str, Pattern)]) {
        for &(line, expected) in cases {
            let k = key(t, line);
            assert_eq!(t.pattern(k, 0), expected, "{line} for the first player");
            // The same picture with colours exchanged, seen by the second player.
            assert_eq!(t.pattern(swap_colours(k), 1), expected, "{line} swapped");
        }
    }

    #[test]
    fn gomoku_freestyle_patterns() {
        let t = PatternTable::build(5, MnkRule::Freestyle);
        check(
            &t,
            &[
                ("..XXXXX..", Pattern::Five),
                ("XXXXXXXXX", Pattern::Five),
                ("...XXXX..", Pattern::OpenFour),
                ("..OXXXX..", Pattern::RushFour),
                ("..XXX.X..", Pattern::RushFour),
                ("XX.XX.XX.", Pattern::OpenFour),
                ("..OXXXXO.", Pattern::DeadFour),
                ("...XXX...", Pattern::OpenThree),
                ("...XX.X..", Pattern::OpenThree),
                ("..OXXX...", Pattern::SleepThree),
                ("..X.X.X..", Pattern::SleepThree),
                ("..OXXX.O.", Pattern::DeadThree),
                ("..OXXXO..", Pattern::DeadThree),
                ("....XX...", Pattern::OpenTwo),
                ("...OXX...", Pattern::SleepTwo),
                ("....X....", Pattern::OpenOne),
                ("...OX....", Pattern::SleepOne),
                ("...OXO...", Pattern::DeadOne),
                ("|||XXXX..", Pattern::RushFour),
                ("||||XX...", Pattern::SleepTwo),
            ],
        );
    }

    #[test]
    fn exact_rule_overlines_do_not_win() {
        let t = PatternTable::build(5, MnkRule::Exact);
        check(
            &t,
            &[
                ("...XXXXX...", Pattern::Five),
                ("..XXXXXX...", Pattern::None),
                ("...XXXX....", Pattern::OpenFour),
                ("..X.XXXX...", Pattern::RushFour),
                ("..XX.XX....", Pattern::RushFour),
            ],
        );
    }

    #[test]
    fn names_are_relative_to_k() {
        let t = PatternTable::build(3, MnkRule::Freestyle);
        check(
            &t,
            &[
                ("XXX..", Pattern::Five),
                (".XX..", Pattern::OpenFour),
                ("OXX..", Pattern::RushFour),
                ("X.X..", Pattern::RushFour),
                ("..X..", Pattern::OpenThree),
                ("|OX..", Pattern::SleepThree),
                ("OXXO|", Pattern::DeadFour),
            ],
        );
        let t = PatternTable::build(6, MnkRule::Freestyle);
        check(
            &t,
            &[
                ("..XXXXXX...", Pattern::Five),
                ("...XXXXX...", Pattern::OpenFour),
                (".....X.....", Pattern::None),
                ("....XX.....", Pattern::OpenOne),
            ],
        );
    }

    #[test]
    fn swap_exchanges_players_and_keeps_walls() {
        assert_eq!(swap_colours(0b11_10_01_00), 0b11_01_10_00);
    }
}
