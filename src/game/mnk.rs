//! m,n,k-games: a `width`×`height` board, players alternately place one stone, the first
//! to make `k` in a row (horizontally, vertically or diagonally) wins; a full board is a
//! draw. Tic-tac-toe is 3,3,3 and gomoku 15,15,5.
//!
//! Layout: cell `y * width + x`, (0,0) the upper-left corner, as in the Gomocup protocol.
//! A move changes only its own cell, so an evaluator that keeps state per (cell, line
//! direction) needs to revisit only the cells within k-1 of the move along the four
//! lines through it ([`DIRECTIONS`] gives the steps).

use std::fmt::Write as _;

use super::{
    EndReason, Game, MoveError, Outcome, PositionError, Side,
    renju::{self, Forbidden},
    zobrist,
};

pub mod board;

pub use board::{Cell, DIRECTIONS, EMPTY, MAX_CELLS, MAX_SIDE};

/// Smallest and largest supported k.
pub const K_RANGE: std::ops::RangeInclusive<u8> = 3..=6;

/// Zobrist keys: one per (cell, side) and one for "second player to move".
static KEYS: [u64; 2 * MAX_CELLS + 1] = zobrist::keys(0x6D6E_6B5F_6172_656E);

/// Which lines win.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MnkRule {
    /// k or more in a row wins (gomoku "freestyle").
    Freestyle,
    /// Exactly k in a row wins; an overline does not (Gomocup "standard").
    Exact,
    /// Renju (Gomocup rule 4): the first player (black) wins only with exactly k and may
    /// not make a double three, a double four or an overline (such a move is legal but
    /// loses at once, see [`crate::game::renju`]); the second player (white) wins with k
    /// or more.
    Renju,
}

impl MnkRule {
    /// `freestyle` or `exact`.
    pub fn as_str(self) -> &'static str {
        match self {
            MnkRule::Freestyle => "freestyle",
            MnkRule::Exact => "exact",
            MnkRule::Renju => "renju",
        }
    }
}

/// An m,n,k variant: board size, k and rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MnkConfig {
    width: u8,
    height: u8,
    k: u8,
    rule: MnkRule,
}

impl MnkConfig {
    /// A variant, checked: sides 1..=20, k 3..=6 and k no longer than the longer side.
    pub fn new(width: u32, height: u32, k: u32, rule: MnkRule) -> Result<MnkConfig, String> {
        let side = 1..=u32::from(MAX_SIDE);
        if !side.contains(&width) || !side.contains(&height) {
            return Err(format!(
                "board {width}x{height} is not supported: each side must be 1 to {MAX_SIDE}"
            ));
        }
        if !(u32::from(*K_RANGE.start())..=u32::from(*K_RANGE.end())).contains(&k) {
            return Err(format!(
                "k = {k} is not supported: k must be {} to {}",
                K_RANGE.start(),
                K_RANGE.end()
            ));
        }
        if k > width.max(height) {
            return Err(format!(
                "k = {k} cannot fit on a {width}x{height} board: nobody could ever win"
            ));
        }
        // The checks above bound every value to at most 20.
        Ok(MnkConfig {
            width: width as u8,
            height: height as u8,
            k: k as u8,
            rule,
        })
    }

    /// Tic-tac-toe: 3,3,3.
    pub fn tictactoe() -> MnkConfig {
        MnkConfig::new(3, 3, 3, MnkRule::Freestyle).expect("3,3,3 is a valid variant")
    }

    /// Gomoku: 15,15,5 freestyle.
    pub fn gomoku() -> MnkConfig {
        MnkConfig::new(15, 15, 5, MnkRule::Freestyle).expect("15,15,5 is a valid variant")
    }

    /// Gomoku with the exact-five rule: 15,15,5 exact.
    pub fn gomoku_exact() -> MnkConfig {
        MnkConfig::new(15, 15, 5, MnkRule::Exact).expect("15,15,5 is a valid variant")
    }

    /// Renju: 15,15,5 under the renju rule.
    pub fn renju() -> MnkConfig {
        MnkConfig::new(15, 15, 5, MnkRule::Renju).expect("15,15,5 is a valid variant")
    }

    /// Board width (number of columns, x).
    pub fn width(&self) -> usize {
        usize::from(self.width)
    }

    /// Board height (number of rows, y).
    pub fn height(&self) -> usize {
        usize::from(self.height)
    }

    /// Stones in a row needed to win.
    pub fn k(&self) -> usize {
        usize::from(self.k)
    }

    /// The winning rule.
    pub fn rule(&self) -> MnkRule {
        self.rule
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.width() * self.height()
    }

    /// The move at column `x`, row `y` (0-based from the upper-left), if on the board.
    pub fn at(&self, x: i32, y: i32) -> Option<MnkMove> {
        if x < 0 || y < 0 || x >= i32::from(self.width) || y >= i32::from(self.height) {
            return None;
        }
        Some(MnkMove((y as usize * self.width() + x as usize) as u16))
    }

    /// The centre cell as Gomocup opening files define it: (width/2, height/2).
    pub fn centre(&self) -> (i32, i32) {
        (i32::from(self.width) / 2, i32::from(self.height) / 2)
    }

    /// Column and row of a move.
    pub fn xy(&self, mv: MnkMove) -> (i32, i32) {
        let c = mv.cell();
        ((c % self.width()) as i32, (c / self.width()) as i32)
    }
}

/// A move: the index `y * width + x` of the cell that receives a stone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MnkMove(pub u16);

impl MnkMove {
    /// The cell index.
    #[inline]
    pub fn cell(self) -> usize {
        usize::from(self.0)
    }
}

/// An m,n,k position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mnk {
    config: MnkConfig,
    cells: [Cell; MAX_CELLS],
    history: Vec<MnkMove>,
    hash: u64,
    /// The last move made k in a row (so its player won).
    won: bool,
    /// Renju: the last move was black's forbidden move (so black lost).
    forbidden: Option<Forbidden>,
    /// Null moves in effect (the search's passes): each one flips the side to move.
    nulls: u32,
}

impl Mnk {
    /// Reads a board written row by row from the top, rows separated by `/`: `x` (or `X`,
    /// `b`) a first-player stone, `o` (or `O`, `w`) a second-player stone, `.` or `-` an
    /// empty cell, a number that many empty cells (`15` is a whole gomoku row). The side to
    /// move follows from the counts (equal: first player; one more first-player stone:
    /// second player). The stones are replayed alternately (a stone that would end the
    /// game early waits for a later turn), so a board where a line was already complete
    /// before its last stone is refused, and under renju one whose black stones cannot
    /// all be placed without a forbidden one.
    pub fn from_board(config: &MnkConfig, text: &str) -> Result<Mnk, PositionError> {
        let t = text.trim();
        let err = |why: String| PositionError::Syntax {
            text: t.to_string(),
            why,
        };
        let rows: Vec<&str> = t.split('/').collect();
        if rows.len() != config.height() {
            return Err(err(format!(
                "{} rows separated by '/', expected {}",
                rows.len(),
                config.height()
            )));
        }
        let mut stones: [Vec<MnkMove>; 2] = [Vec::new(), Vec::new()];
        for (y, row) in rows.iter().enumerate() {
            let mut x = 0usize;
            let mut chars = row.chars().peekable();
            while let Some(ch) = chars.next() {
                let mut place = |side: usize, x: usize| -> Result<(), PositionError> {
                    if x >= config.width() {
                        return Err(err(format!(
                            "row {} has more than {} cells",
                            y + 1,
                            config.width()
                        )));
                    }
                    stones[side].push(MnkMove((y * config.width() + x) as u16));
                    Ok(())
                };
                match ch {
                    'x' | 'X' | 'b' | 'B' => place(0, x)?,
                    'o' | 'O' | 'w' | 'W' => place(1, x)?,
                    '.' | '-' => {}
                    '0'..='9' => {
                        let mut n = ch as usize - '0' as usize;
                        while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                            n = n * 10 + d as usize;
                            chars.next();
                        }
                        x += n;
                        continue;
                    }
                    _ => {
                        return Err(err(format!("unexpected character '{ch}' in row {}", y + 1)));
                    }
                }
                x += 1;
            }
            if x != config.width() {
                return Err(err(format!(
                    "row {} has {x} cells, expected {}",
                    y + 1,
                    config.width()
                )));
            }
        }
        let (nx, no) = (stones[0].len(), stones[1].len());
        if nx != no && nx != no + 1 {
            return Err(err(format!(
                "{nx} first-player and {no} second-player stones: the first player must have \
                 as many stones as the second or one more"
            )));
        }
        // The stones are replayed alternately, each side's in reading order, except that
        // a stone that would end the game before the last one (a line, or under renju a
        // forbidden black stone) waits for a later turn: a game may well have played it
        // after the others (a black stone that is a double three with its blockers not yet
        // placed). A board where no stone of the side to place is possible is refused.
        let mut pos = Mnk::new(config);
        let mut left = stones;
        let total = nx + no;
        for placed in 0..total {
            let side = placed % 2;
            let last = placed + 1 == total;
            let mut refusal = None;
            let pick = left[side].iter().position(|&mv| {
                pos.play(mv);
                let why = if let Some(f) = pos.forbidden {
                    Some(format!(
                        "black's stone {} is a forbidden {} under renju: not a reachable \
                         position",
                        pos.format_move(mv),
                        f.as_str()
                    ))
                } else if pos.won && !last {
                    Some(
                        "a line is complete before the last stone: not a reachable position"
                            .to_string(),
                    )
                } else {
                    None
                };
                pos.undo(mv, ());
                let ok = why.is_none();
                if refusal.is_none() {
                    refusal = why;
                }
                ok
            });
            match pick {
                Some(i) => {
                    let mv = left[side].remove(i);
                    pos.play(mv);
                }
                None => return Err(err(refusal.expect("every stone was refused for a reason"))),
            }
        }
        Ok(pos)
    }

    /// What is on cell `c` (0 empty, 1 first player, 2 second player).
    #[inline]
    pub fn cell(&self, c: usize) -> Cell {
        self.cells[c]
    }

    /// All cells, row by row.
    pub fn cells(&self) -> &[Cell] {
        &self.cells[..self.config.cells()]
    }

    /// The moves played so far, oldest first.
    pub fn history(&self) -> &[MnkMove] {
        &self.history
    }

    /// The last move, if any.
    pub fn last_move(&self) -> Option<MnkMove> {
        self.history.last().copied()
    }

    /// The variant.
    pub fn mnk(&self) -> &MnkConfig {
        &self.config
    }

    /// Number of stones on the board.
    pub fn stones(&self) -> usize {
        self.history.len()
    }

    /// Formats a move as Gomocup protocol coordinates `x,y`.
    pub fn format_xy(&self, mv: MnkMove) -> String {
        let (x, y) = self.config.xy(mv);
        format!("{x},{y}")
    }

    /// Renju: whether black's stone on `mv` would be forbidden here, and why (`None`
    /// under the other rules, for a taken cell, and when white is to move). A move that
    /// makes exactly five is never forbidden.
    #[inline]
    pub fn forbidden(&self, mv: MnkMove) -> Option<Forbidden> {
        if self.config.rule != MnkRule::Renju
            || self.side_to_move() != Side::First
            || mv.cell() >= self.config.cells()
            || self.cells[mv.cell()] != EMPTY
        {
            return None;
        }
        renju::forbidden(
            &self.cells,
            self.config.width(),
            self.config.height(),
            mv.cell(),
        )
    }

    /// Whether the game has ended by a line or a forbidden move.
    #[inline]
    fn decided(&self) -> bool {
        self.won || self.forbidden.is_some()
    }

    /// Length of the run of `stone` through cell (x, y) along (dx, dy), the cell included.
    fn run_length(&self, x: i32, y: i32, dx: i32, dy: i32, stone: Cell) -> usize {
        let mut n = 1;
        for sign in [1, -1] {
            let (mut cx, mut cy) = (x + sign * dx, y + sign * dy);
            while let Some(mv) = self.config.at(cx, cy) {
                if self.cells[mv.cell()] != stone {
                    break;
                }
                n += 1;
                cx += sign * dx;
                cy += sign * dy;
            }
        }
        n
    }

    /// Whether the stone on `mv` is part of a winning line under the rule.
    fn makes_line(&self, mv: MnkMove) -> bool {
        let stone = self.cells[mv.cell()];
        let (x, y) = self.config.xy(mv);
        let k = self.config.k();
        DIRECTIONS.iter().any(|&(dx, dy)| {
            let n = self.run_length(x, y, dx, dy, stone);
            match self.config.rule {
                MnkRule::Freestyle => n >= k,
                MnkRule::Exact => n == k,
                MnkRule::Renju => n == k || (n > k && stone != 1),
            }
        })
    }
}

/// Splits a move list into move texts: whitespace-separated tokens; a token with a comma
/// is one `x,y` move, any other token is a run of pos moves (`h8g7f6`), each starting at
/// a letter.
fn split_move_list(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for token in text.split_whitespace() {
        if token.contains(',') {
            out.push(token);
            continue;
        }
        let mut start = 0;
        for (i, ch) in token.char_indices().skip(1) {
            if ch.is_ascii_alphabetic() {
                out.push(&token[start..i]);
                start = i;
            }
        }
        out.push(&token[start..]);
    }
    out
}

impl Game for Mnk {
    type Move = MnkMove;
    type Undo = ();
    type Config = MnkConfig;

    fn new(config: &MnkConfig) -> Mnk {
        Mnk {
            config: *config,
            cells: [EMPTY; MAX_CELLS],
            history: Vec::with_capacity(config.cells()),
            hash: 0,
            won: false,
            forbidden: None,
            nulls: 0,
        }
    }

    /// Reads a move list (`h8g7f6`, `7,7 6,6`) or, when the text contains `/`, a board
    /// (see [`Mnk::from_board`]).
    fn from_text(config: &MnkConfig, text: &str) -> Result<Mnk, PositionError> {
        if text.contains('/') {
            return Mnk::from_board(config, text);
        }
        let mut pos = Mnk::new(config);
        pos.play_move_list(text)?;
        Ok(pos)
    }

    fn config(&self) -> &MnkConfig {
        &self.config
    }

    #[inline]
    fn side_to_move(&self) -> Side {
        if (self.history.len() + self.nulls as usize).is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        }
    }

    fn plies(&self) -> u32 {
        self.history.len() as u32
    }

    fn legal_moves(&self, moves: &mut Vec<MnkMove>) {
        moves.clear();
        if self.decided() {
            return;
        }
        let n = self.config.cells();
        moves.extend(
            self.cells[..n]
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c == EMPTY)
                .map(|(i, _)| MnkMove(i as u16)),
        );
    }

    #[inline]
    fn move_index(&self, mv: MnkMove) -> usize {
        mv.cell()
    }

    fn move_index_bound(&self) -> usize {
        self.config.cells()
    }

    fn is_legal(&self, mv: MnkMove) -> bool {
        !self.decided() && mv.cell() < self.config.cells() && self.cells[mv.cell()] == EMPTY
    }

    fn why_illegal(&self, _mv: MnkMove) -> String {
        "the cell is already taken".to_string()
    }

    #[inline]
    fn play(&mut self, mv: MnkMove) {
        let side = self.side_to_move();
        let c = mv.cell();
        // Checked before the stone lands: the checker places it itself.
        if self.config.rule == MnkRule::Renju && side == Side::First {
            self.forbidden = self.forbidden(mv);
        }
        self.cells[c] = side.index() as u8 + 1;
        self.hash ^= KEYS[2 * c + side.index()] ^ KEYS[2 * MAX_CELLS];
        self.history.push(mv);
        self.won = self.makes_line(mv);
    }

    #[inline]
    fn undo(&mut self, mv: MnkMove, _undo: ()) {
        self.history.pop();
        let side = self.side_to_move();
        let c = mv.cell();
        self.cells[c] = EMPTY;
        self.hash ^= KEYS[2 * c + side.index()] ^ KEYS[2 * MAX_CELLS];
        // A move is only played in an unfinished game, so undoing it reopens the game.
        self.won = false;
        self.forbidden = None;
    }

    #[inline]
    fn play_null(&mut self) {
        self.nulls += 1;
        self.hash ^= KEYS[2 * MAX_CELLS];
    }

    #[inline]
    fn undo_null(&mut self, _undo: ()) {
        self.nulls -= 1;
        self.hash ^= KEYS[2 * MAX_CELLS];
    }

    fn outcome(&self) -> Option<Outcome> {
        if let Some(f) = self.forbidden {
            Some(Outcome::Win {
                side: Side::Second,
                reason: EndReason::Forbidden(f),
            })
        } else if self.won {
            Some(Outcome::Win {
                side: self.side_to_move().other(),
                reason: EndReason::KInARow,
            })
        } else if self.history.len() == self.config.cells() {
            Some(Outcome::Draw {
                reason: EndReason::BoardFull,
            })
        } else {
            None
        }
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let mut h = 0;
        for (c, &stone) in self.cells().iter().enumerate() {
            if stone != EMPTY {
                h ^= KEYS[2 * c + usize::from(stone) - 1];
            }
        }
        if self.side_to_move() == Side::Second {
            h ^= KEYS[2 * MAX_CELLS];
        }
        h
    }

    /// Reads `h8` (column letter, row number from the top, 1-based) or `7,7` (Gomocup
    /// `x,y`, 0-based).
    fn parse_move(&self, text: &str) -> Result<MnkMove, MoveError> {
        let t = text.trim();
        let syntax = |why: String| MoveError::Syntax {
            text: t.to_string(),
            why,
        };
        let (x, y) = if let Some((xs, ys)) = t.split_once(',') {
            let x: i32 = xs
                .trim()
                .parse()
                .map_err(|_| syntax(format!("'{}' is not a column number", xs.trim())))?;
            let y: i32 = ys
                .trim()
                .parse()
                .map_err(|_| syntax(format!("'{}' is not a row number", ys.trim())))?;
            (x, y)
        } else {
            let mut chars = t.chars();
            let letter = chars
                .next()
                .filter(char::is_ascii_alphabetic)
                .ok_or_else(|| {
                    syntax("expected a column letter then a row number, like h8".into())
                })?;
            let digits = chars.as_str();
            let row: i32 = digits
                .parse()
                .ok()
                .filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| syntax(format!("'{digits}' is not a row number")))?;
            (i32::from(letter.to_ascii_lowercase() as u8 - b'a'), row - 1)
        };
        self.config.at(x, y).ok_or_else(|| {
            syntax(format!(
                "outside the {}x{} board",
                self.config.width, self.config.height
            ))
        })
    }

    fn format_move(&self, mv: MnkMove) -> String {
        let (x, y) = self.config.xy(mv);
        format!("{}{}", (b'a' + x as u8) as char, y + 1)
    }

    fn to_text(&self) -> String {
        self.history.iter().map(|&m| self.format_move(m)).collect()
    }

    fn diagram(&self) -> String {
        let mut s = String::new();
        let w = self.config.width();
        s.push_str("   ");
        for x in 0..w {
            let _ = write!(s, " {}", (b'a' + x as u8) as char);
        }
        s.push('\n');
        let last = self.last_move();
        for y in 0..self.config.height() {
            let _ = write!(s, "{:>3}", y + 1);
            for x in 0..w {
                let c = y * w + x;
                let mark = if last == Some(MnkMove(c as u16)) {
                    '('
                } else if x > 0 && last == Some(MnkMove(c as u16 - 1)) {
                    ')'
                } else {
                    ' '
                };
                let stone = match self.cells[c] {
                    1 => 'X',
                    2 => 'O',
                    _ => '.',
                };
                s.push(mark);
                s.push(stone);
            }
            if last.is_some_and(|m| m.cell() == y * w + w - 1) {
                s.push(')');
            }
            s.push('\n');
        }
        let status = match self.outcome() {
            Some(Outcome::Win {
                side,
                reason: EndReason::Forbidden(f),
            }) => format!("{side} wins (black's forbidden {})", f.as_str()),
            Some(Outcome::Win { side, .. }) => format!("{side} wins ({} in a row)", self.config.k),
            Some(Outcome::Draw { .. }) => "draw (board full)".to_string(),
            None => format!("{} to move", self.side_to_move()),
        };
        let _ = writeln!(
            s,
            "{} stones, {status}; moves: {}",
            self.history.len(),
            if self.history.is_empty() {
                "(none)".to_string()
            } else {
                self.to_text()
            }
        );
        s
    }

    fn split_move_list(text: &str) -> Vec<&str> {
        split_move_list(text)
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod renju_tests;
