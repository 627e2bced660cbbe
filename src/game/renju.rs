//! Renju's forbidden moves (Gomocup rule 4, the RIF definitions): black, the first
//! player, may not make a double three, a double four or an overline; a move that makes
//! exactly five is never forbidden.
//!
//! - A *four* through a stone is a line that one more black stone turns into exactly five
//!   through it; a straight four (`.XXXX.`) is one four, `X.XXX.X` with the middle stone
//!   played is two fours on one line.
//! - A *three* through a stone is a line that one more black stone turns into a straight
//!   four through it, where that stone is itself not forbidden (the recursion). A line
//!   that holds a four does not also count as a three.
//!
//! The checker works on the four lines through the point only. It first rejects the
//! points that cannot be forbidden by counting black stones near them (most points), and
//! only then copies the board and runs the recursive definition, depth-limited at
//! [`MAX_DEPTH`] nested completing points (deeper ones are taken as not forbidden, as
//! renju programs commonly do; real positions never go that deep). This module knows
//! nothing but the board.

use super::mnk::board::{Cell, DIRECTIONS, EMPTY, MAX_CELLS};

/// Black's stone in a cell.
const BLACK: Cell = 1;

/// Nested completing points the recursive three definition follows before it assumes
/// the next one is not forbidden.
pub const MAX_DEPTH: u32 = 6;

/// Why a black move is forbidden under renju.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Forbidden {
    /// Two or more threes at once.
    DoubleThree,
    /// Two or more fours at once (two on one line included).
    DoubleFour,
    /// Six or more in a row.
    Overline,
}

impl Forbidden {
    /// Every kind, in the order the checker reports them (overline before double four
    /// before double three when a move makes several).
    pub const ALL: [Forbidden; 3] = [
        Forbidden::Overline,
        Forbidden::DoubleFour,
        Forbidden::DoubleThree,
    ];

    /// `double-three`, `double-four` or `overline` (as c-gomoku-cli names them).
    pub fn as_str(self) -> &'static str {
        match self {
            Forbidden::DoubleThree => "double-three",
            Forbidden::DoubleFour => "double-four",
            Forbidden::Overline => "overline",
        }
    }
}

/// A board to reason on: cells row by row, `width`×`height`.
struct Board<'a> {
    cells: &'a mut [Cell],
    width: i32,
    height: i32,
}

impl Board<'_> {
    #[inline]
    fn get(&self, x: i32, y: i32) -> Option<Cell> {
        if x < 0 || y < 0 || x >= self.width || y >= self.height {
            None
        } else {
            Some(self.cells[(y * self.width + x) as usize])
        }
    }

    #[inline]
    fn is_black(&self, x: i32, y: i32) -> bool {
        self.get(x, y) == Some(BLACK)
    }

    #[inline]
    fn set(&mut self, x: i32, y: i32, c: Cell) {
        self.cells[(y * self.width + x) as usize] = c;
    }

    /// Length of the black run through (x, y) along (dx, dy), counting (x, y) as black.
    fn run(&self, x: i32, y: i32, dx: i32, dy: i32) -> (i32, i32) {
        let mut lo = 0;
        while self.is_black(x + (lo - 1) * dx, y + (lo - 1) * dy) {
            lo -= 1;
        }
        let mut hi = 0;
        while self.is_black(x + (hi + 1) * dx, y + (hi + 1) * dy) {
            hi += 1;
        }
        (lo, hi)
    }

    /// Number of fours through the black stone on (x, y) along (dx, dy).
    fn fours(&mut self, x: i32, y: i32, dx: i32, dy: i32) -> u32 {
        let mut points = [0i32; 9];
        let mut n = 0;
        for d in -4..=4 {
            let (ex, ey) = (x + d * dx, y + d * dy);
            if d == 0 || self.get(ex, ey) != Some(EMPTY) {
                continue;
            }
            self.set(ex, ey, BLACK);
            let (lo, hi) = self.run(x, y, dx, dy);
            self.set(ex, ey, EMPTY);
            if hi - lo + 1 == 5 {
                points[n] = d;
                n += 1;
            }
        }
        // Two completing points five apart are the two ends of one straight four.
        if n == 2 && points[1] - points[0] == 5 {
            1
        } else {
            n as u32
        }
    }

    /// Whether (x, y), black, makes a three along (dx, dy): some empty point turns the
    /// line into a straight four through (x, y) and is not itself forbidden.
    fn three(&mut self, x: i32, y: i32, dx: i32, dy: i32, depth: u32) -> bool {
        for d in -3..=3 {
            let (ex, ey) = (x + d * dx, y + d * dy);
            if d == 0 || self.get(ex, ey) != Some(EMPTY) {
                continue;
            }
            self.set(ex, ey, BLACK);
            let (lo, hi) = self.run(x, y, dx, dy);
            let straight = hi - lo + 1 == 4
                && lo <= d
                && d <= hi
                && [(lo - 1, -1), (hi + 1, 1)].iter().all(|&(end, step)| {
                    self.get(x + end * dx, y + end * dy) == Some(EMPTY)
                        && !self.is_black(x + (end + step) * dx, y + (end + step) * dy)
                });
            self.set(ex, ey, EMPTY);
            if straight && (depth >= MAX_DEPTH || self.kind(ex, ey, depth + 1).is_none()) {
                return true;
            }
        }
        false
    }

    /// Whether a black stone on the empty (x, y) is forbidden, and why.
    fn kind(&mut self, x: i32, y: i32, depth: u32) -> Option<Forbidden> {
        let mut overline = false;
        for &(dx, dy) in &DIRECTIONS {
            let (lo, hi) = self.run(x, y, dx, dy);
            match hi - lo + 1 {
                5 => return None,
                6.. => overline = true,
                _ => {}
            }
        }
        if overline {
            return Some(Forbidden::Overline);
        }
        self.set(x, y, BLACK);
        let mut fours = [0u32; 4];
        for (i, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            fours[i] = self.fours(x, y, dx, dy);
        }
        let result = if fours.iter().sum::<u32>() >= 2 {
            Some(Forbidden::DoubleFour)
        } else {
            let mut threes = 0;
            for (i, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
                if fours[i] == 0 && self.three(x, y, dx, dy, depth) {
                    threes += 1;
                    if threes >= 2 {
                        break;
                    }
                }
            }
            (threes >= 2).then_some(Forbidden::DoubleThree)
        };
        self.set(x, y, EMPTY);
        result
    }
}

/// Whether a black stone on the empty cell `cell` of the `width`×`height` board `cells`
/// (0 empty, 1 black, 2 white) is forbidden under renju, and why. Whose turn it is does
/// not matter here: the caller asks only for black's moves.
///
/// # Panics
/// If `cells` is shorter than `width * height` or `cell` is outside it.
pub fn forbidden(cells: &[Cell], width: usize, height: usize, cell: usize) -> Option<Forbidden> {
    let n = width * height;
    assert!(
        cell < n && cells.len() >= n,
        "cell {cell} outside the board"
    );
    let (w, h) = (width as i32, height as i32);
    let (x, y) = ((cell % width) as i32, (cell / width) as i32);
    let black = |cx: i32, cy: i32| {
        cx >= 0 && cy >= 0 && cx < w && cy < h && cells[(cy * w + cx) as usize] == BLACK
    };
    // Cheap rejection: a three or a four along a line needs two other black stones
    // within 4 on it, two fours on one line four, and an overline five within 5.
    let mut lines = 0;
    let mut crowded = false;
    for &(dx, dy) in &DIRECTIONS {
        let near = (1..=4)
            .map(|d| {
                u32::from(black(x + d * dx, y + d * dy)) + u32::from(black(x - d * dx, y - d * dy))
            })
            .sum::<u32>();
        let far =
            u32::from(black(x + 5 * dx, y + 5 * dy)) + u32::from(black(x - 5 * dx, y - 5 * dy));
        lines += u32::from(near >= 2);
        crowded |= near >= 4 || near + far >= 5;
    }
    if lines < 2 && !crowded {
        return None;
    }
    let mut scratch = [EMPTY; MAX_CELLS];
    scratch[..n].copy_from_slice(&cells[..n]);
    let mut board = Board {
        cells: &mut scratch[..n],
        width: w,
        height: h,
    };
    board.kind(x, y, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Judges `*` on a board drawn row by row: `X` black, `O` white, `.` empty.
    fn judge(rows: &[&str]) -> Option<Forbidden> {
        let width = rows[0].len();
        let mut cells = Vec::new();
        let mut target = None;
        for row in rows {
            assert_eq!(row.len(), width, "rows of one width: {row}");
            for ch in row.chars() {
                if ch == '*' {
                    target = Some(cells.len());
                }
                cells.push(match ch {
                    'X' => 1,
                    'O' => 2,
                    _ => 0,
                });
            }
        }
        forbidden(
            &cells,
            width,
            rows.len(),
            target.expect("a '*' on the board"),
        )
    }

    #[test]
    fn a_lone_three_and_a_lone_four_are_allowed() {
        assert_eq!(judge(&["...........", "...XX*.....", "..........."]), None);
        assert_eq!(judge(&["...........", "..XXX*.....", "..........."]), None);
    }

    #[test]
    fn double_three_across_two_lines() {
        let rows = [
            "...........",
            "...........",
            ".....X.....",
            ".....X.....",
            "...XX*.....",
            "...........",
            "...........",
        ];
        assert_eq!(judge(&rows), Some(Forbidden::DoubleThree));
    }

    #[test]
    fn a_three_whose_completing_move_is_forbidden_is_not_a_three() {
        // Vertically `*XX` under a white stone at a distance: only the point below the
        // two stones makes a straight four, and that point is an overline for black (the
        // row of five around it). So only the horizontal line is a three: allowed.
        let with_trap = [
            "...............",
            "...............",
            ".......O.......",
            "...............",
            ".......*XX.....",
            ".......X.......",
            ".......X.......",
            ".....XX.XXX....",
            "...............",
            "...............",
        ];
        assert_eq!(judge(&with_trap), None);
        // Without the row, the point below is free and the double three forbidden.
        let mut without = with_trap;
        without[7] = "...............";
        assert_eq!(judge(&without), Some(Forbidden::DoubleThree));
    }

    #[test]
    fn four_four_on_one_line() {
        assert_eq!(judge(&["...X.X*X.X....."]), Some(Forbidden::DoubleFour));
        assert_eq!(judge(&["..XX.*X.XX....."]), Some(Forbidden::DoubleFour));
        assert_eq!(judge(&["..XXX.*.XXX...."]), Some(Forbidden::DoubleFour));
        // A straight four is one four.
        assert_eq!(judge(&["....XX*X......."]), None);
    }

    #[test]
    fn double_four_across_two_lines_and_four_three() {
        let rows = [
            "...........",
            ".....X.....",
            ".....X.....",
            ".....X.....",
            "..XXX*.....",
            "...........",
        ];
        assert_eq!(judge(&rows), Some(Forbidden::DoubleFour));
        // A four and a three are allowed.
        let rows = [
            "...........",
            "...........",
            ".....X.....",
            ".....X.....",
            "..XXX*.....",
            "...........",
            "...........",
        ];
        assert_eq!(judge(&rows), None);
    }

    #[test]
    fn overline_is_forbidden_unless_it_also_makes_five() {
        assert_eq!(judge(&["..XXX*XX......."]), Some(Forbidden::Overline));
        assert_eq!(judge(&["..XX*XXX......."]), Some(Forbidden::Overline));
        assert_eq!(judge(&["..XX*XX........"]), None, "exactly five");
        // Exactly five on another line wins.
        let rows = [
            "..............",
            ".....X........",
            ".....X........",
            ".....X........",
            ".....X........",
            "..XXX*XX......",
            "..............",
        ];
        assert_eq!(judge(&rows), None);
    }

    #[test]
    fn five_beats_double_four_and_double_three() {
        // Five across; a four down and a four on the diagonal.
        let with_five = [
            "X...X......",
            ".X..X......",
            "..X.X......",
            "...........",
            "XXXX*......",
            "...........",
        ];
        assert_eq!(judge(&with_five), None);
        let mut no_five = with_five;
        no_five[4] = "....*......";
        assert_eq!(judge(&no_five), Some(Forbidden::DoubleFour));
        // Five across with a double three (down and on the anti-diagonal).
        let with_five = [
            "...........",
            "...........",
            "....X.X....",
            "....XX.....",
            "XXXX*......",
            "...........",
            "...........",
        ];
        assert_eq!(judge(&with_five), None);
        let mut no_five = with_five;
        no_five[4] = "....*......";
        assert_eq!(judge(&no_five), Some(Forbidden::DoubleThree));
    }

    #[test]
    fn a_blocked_three_is_not_a_three() {
        let rows = [
            "...........",
            ".....O.....",
            ".....X.....",
            ".....X.....",
            "...XX*.....",
            "...........",
            "...........",
        ];
        assert_eq!(judge(&rows), None);
    }

    #[test]
    fn a_split_three_counts() {
        // Vertically X.X* (a split three), horizontally XX*: a double three.
        let rows = [
            "...........",
            "...........",
            ".....X.....",
            "...........",
            ".....X.....",
            "...XX*.....",
            "...........",
            "...........",
        ];
        assert_eq!(judge(&rows), Some(Forbidden::DoubleThree));
    }
}
