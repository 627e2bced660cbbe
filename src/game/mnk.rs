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

/// Largest supported board side (Gomocup's 20×20).
pub const MAX_SIDE: u8 = 20;
/// Largest number of cells.
pub const MAX_CELLS: usize = MAX_SIDE as usize * MAX_SIDE as usize;
/// Smallest and largest supported k.
pub const K_RANGE: std::ops::RangeInclusive<u8> = 3..=6;

/// The four line directions as (dx, dy): horizontal, vertical, diagonal, anti-diagonal.
pub const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

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

/// What occupies a cell: 0 empty, 1 the first player's stone, 2 the second's.
pub type Cell = u8;
/// An empty cell.
pub const EMPTY: Cell = 0;

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
    /// second player). The stones are replayed alternately, so a board where a line was
    /// already complete before its last stone is refused.
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
        let mut pos = Mnk::new(config);
        for i in 0..nx {
            for side_stones in &stones {
                if let Some(&mv) = side_stones.get(i) {
                    if pos.won {
                        return Err(err(
                            "a line is complete before the last stone: not a reachable position"
                                .to_string(),
                        ));
                    }
                    if let Some(f) = pos.forbidden {
                        return Err(err(format!(
                            "black's stone {} is a forbidden {} under renju: not a reachable \
                             position",
                            pos.format_move(pos.history.last().copied().expect("a stone")),
                            f.as_str()
                        )));
                    }
                    pos.play(mv);
                }
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
mod tests {
    use super::*;

    /// Plays `x` and `o` stones alternately (x first) from (x, y) pairs.
    fn play(config: MnkConfig, x: &[(i32, i32)], o: &[(i32, i32)]) -> Mnk {
        let mut pos = Mnk::new(&config);
        for i in 0..x.len().max(o.len()) {
            for stones in [x, o] {
                if let Some(&(cx, cy)) = stones.get(i) {
                    let mv = config.at(cx, cy).expect("test cells are on the board");
                    assert!(pos.is_legal(mv), "{} at {i}", pos.format_move(mv));
                    pos.play(mv);
                }
            }
        }
        pos
    }

    fn line(from: (i32, i32), step: (i32, i32), n: i32) -> Vec<(i32, i32)> {
        (0..n)
            .map(|i| (from.0 + i * step.0, from.1 + i * step.1))
            .collect()
    }

    #[test]
    fn five_in_every_direction_and_at_the_edges() {
        let g = MnkConfig::gomoku();
        let cases = [
            ((0, 0), (1, 0)),   // top edge, horizontal
            ((10, 14), (1, 0)), // bottom-right corner, horizontal
            ((14, 3), (0, 1)),  // right edge, vertical
            ((0, 10), (0, 1)),  // left edge down to the corner
            ((0, 0), (1, 1)),   // main diagonal from a corner
            ((10, 10), (1, 1)), // diagonal into the far corner
            ((0, 14), (1, -1)), // anti-diagonal from the lower-left corner
            ((10, 4), (1, -1)), // anti-diagonal into the upper-right corner
        ];
        for (from, step) in cases {
            let x = line(from, step, 5);
            // O plays far away, on cells X never uses.
            let o: Vec<(i32, i32)> = (0..4).map(|i| (5 + i, 7)).collect();
            let x_before: Vec<_> = x[..4].to_vec();
            let almost = play(g, &x_before, &o);
            assert_eq!(almost.outcome(), None, "{from:?} {step:?} four is not five");
            let pos = play(g, &x, &o);
            assert_eq!(
                pos.outcome(),
                Some(Outcome::Win {
                    side: Side::First,
                    reason: EndReason::KInARow
                }),
                "{from:?} {step:?}\n{}",
                pos.diagram()
            );
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            assert!(moves.is_empty(), "no moves after a win");
        }
    }

    #[test]
    fn the_middle_stone_can_complete_the_line() {
        // X: a1 b1 d1 e1 then c1 fills the gap.
        let g = MnkConfig::gomoku();
        let pos = play(
            g,
            &[(0, 0), (1, 0), (3, 0), (4, 0), (2, 0)],
            &line((0, 5), (1, 0), 4),
        );
        assert_eq!(pos.outcome().and_then(Outcome::winner), Some(Side::First));
    }

    #[test]
    fn overline_wins_under_freestyle_not_under_exact() {
        // X: a1 b1 c1 e1 f1, then d1 makes six.
        let x = [(0, 0), (1, 0), (2, 0), (4, 0), (5, 0), (3, 0)];
        let o = line((0, 5), (2, 0), 5);
        let free = play(MnkConfig::gomoku(), &x, &o);
        assert_eq!(free.outcome().and_then(Outcome::winner), Some(Side::First));
        let exact = play(MnkConfig::gomoku_exact(), &x, &o);
        assert_eq!(exact.outcome(), None, "{}", exact.diagram());
        // Under exact, a clean five still wins (O's row: five on row 6).
        let o_five = line((0, 5), (1, 0), 5);
        let x_scattered = [(0, 0), (2, 0), (4, 0), (6, 0), (8, 0)];
        let pos = play(MnkConfig::gomoku_exact(), &x_scattered, &o_five);
        assert_eq!(pos.outcome().and_then(Outcome::winner), Some(Side::Second));
        // And a six of O under exact does not.
        let o_six = [(0, 5), (1, 5), (2, 5), (4, 5), (5, 5), (3, 5)];
        let x_far = [(0, 9), (2, 9), (4, 9), (6, 9), (8, 9), (10, 9), (12, 9)];
        let pos = play(MnkConfig::gomoku_exact(), &x_far, &o_six);
        assert_eq!(pos.outcome(), None);
    }

    #[test]
    fn full_board_is_a_draw() {
        // X b2 c1 a2 b3 c3, O a1 a3 c2 b1: nobody has three in a row.
        let pos = Mnk::from_text(&MnkConfig::tictactoe(), "b2a1c1a3a2c2b3b1c3").unwrap();
        assert_eq!(
            pos.outcome(),
            Some(Outcome::Draw {
                reason: EndReason::BoardFull
            }),
            "{}",
            pos.diagram()
        );
        // 4x4 with k = 4 filled without a line.
        let c = MnkConfig::new(4, 4, 4, MnkRule::Freestyle).unwrap();
        let pos = Mnk::from_board(&c, "xxoo/ooxx/xxoo/ooxx").unwrap();
        assert_eq!(
            pos.outcome().map(Outcome::reason),
            Some(EndReason::BoardFull)
        );
    }

    #[test]
    fn move_text_in_both_notations() {
        let pos = Mnk::new(&MnkConfig::gomoku());
        let h8 = pos.parse_move("h8").unwrap();
        assert_eq!(pos.parse_move("7,7").unwrap(), h8);
        assert_eq!(pos.format_move(h8), "h8");
        assert_eq!(pos.format_xy(h8), "7,7");
        assert_eq!(pos.format_move(pos.parse_move("a15").unwrap()), "a15");
        assert!(pos.parse_move("p1").is_err());
        assert!(pos.parse_move("a16").is_err());
        assert!(pos.parse_move("a0").is_err());
        assert!(pos.parse_move("15,0").is_err());
        assert!(pos.parse_move("-1,3").is_err());
        assert!(pos.parse_move("h").is_err());
        assert!(pos.parse_move("8h").is_err());
        let big = Mnk::new(&MnkConfig::new(20, 20, 5, MnkRule::Freestyle).unwrap());
        assert_eq!(big.format_move(big.parse_move("t20").unwrap()), "t20");
        assert_eq!(big.format_xy(big.parse_move("t20").unwrap()), "19,19");
    }

    #[test]
    fn move_lists_and_boards() {
        let g = MnkConfig::gomoku();
        let a = Mnk::from_text(&g, "h8g7f6").unwrap();
        let b = Mnk::from_text(&g, "7,7 6,6 5,5").unwrap();
        let c = Mnk::from_text(&g, "h8 g7\tf6").unwrap();
        assert_eq!(a.to_text(), "h8g7f6");
        assert_eq!(a.hash(), b.hash());
        assert_eq!(a.hash(), c.hash());
        let board = "15/15/15/15/15/5x9/6o8/7x7/15/15/15/15/15/15/15";
        let d = Mnk::from_text(&g, board).unwrap();
        assert_eq!(
            d.hash(),
            Mnk::from_text(&g, "h8g7")
                .map(|mut p| {
                    p.play(p.parse_move("f6").unwrap());
                    p.hash()
                })
                .unwrap()
        );
        assert_eq!(d.side_to_move(), Side::Second);
        let e = Mnk::from_board(&g, "15/15/15/15/15/15/15/15/15/15/15/15/15/15/xx13").unwrap_err();
        assert!(
            e.to_string().contains("2 first-player and 0 second-player"),
            "{e}"
        );
        let e = Mnk::from_board(&g, "15/15").unwrap_err();
        assert!(e.to_string().contains("2 rows"), "{e}");
    }
}

#[cfg(test)]
mod renju_tests {
    use super::*;
    use crate::game::perft;

    /// Black f3 f4 d5 e5, white far away on row 15: f5 makes two threes.
    const DOUBLE_THREE_SETUP: &str = "f3a15f4c15d5e15e5g15";

    #[test]
    fn a_forbidden_move_is_legal_and_loses_with_its_reason() {
        let mut pos = Mnk::from_text(&MnkConfig::renju(), DOUBLE_THREE_SETUP).unwrap();
        let f5 = pos.parse_move("f5").unwrap();
        assert_eq!(pos.forbidden(f5), Some(Forbidden::DoubleThree));
        assert!(pos.is_legal(f5));
        pos.play(f5);
        assert_eq!(
            pos.outcome(),
            Some(Outcome::Win {
                side: Side::Second,
                reason: EndReason::Forbidden(Forbidden::DoubleThree)
            })
        );
        assert_eq!(
            pos.outcome().map(|o| o.reason().as_str()),
            Some("forbidden: double-three")
        );
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        assert!(moves.is_empty());
        assert!(
            pos.diagram()
                .contains("white wins (black's forbidden double-three)")
        );
        pos.undo(f5, ());
        assert_eq!(pos.outcome(), None);
        assert_eq!(pos.hash(), pos.hash_from_scratch());
        // The same point is free for black under freestyle, and for white under renju.
        let free = Mnk::from_text(&MnkConfig::gomoku(), DOUBLE_THREE_SETUP).unwrap();
        assert_eq!(free.forbidden(f5), None);
        let mut white = Mnk::from_text(&MnkConfig::renju(), DOUBLE_THREE_SETUP).unwrap();
        white.play(white.parse_move("o1").unwrap());
        assert_eq!(white.forbidden(f5), None);
    }

    #[test]
    fn overline_loses_for_black_and_wins_for_white() {
        // Black a1 b1 c1 e1 f1 then d1: six in a row.
        let o_far = ["a15", "c15", "e15", "g15", "i15"];
        let x = ["a1", "b1", "c1", "e1", "f1"];
        let mut text = String::new();
        for (a, b) in x.iter().zip(o_far) {
            text.push_str(a);
            text.push_str(b);
        }
        let mut pos = Mnk::from_text(&MnkConfig::renju(), &text).unwrap();
        pos.try_play("d1").unwrap();
        assert_eq!(
            pos.outcome(),
            Some(Outcome::Win {
                side: Side::Second,
                reason: EndReason::Forbidden(Forbidden::Overline)
            })
        );
        // White's six wins.
        let x_far = ["a8", "c8", "e8", "g8", "i8", "k8"];
        let o = ["a1", "b1", "c1", "e1", "f1", "d1"];
        let mut pos = Mnk::new(&MnkConfig::renju());
        for (a, b) in x_far.iter().zip(o) {
            pos.try_play(a).unwrap();
            pos.try_play(b).unwrap();
        }
        assert_eq!(
            pos.outcome(),
            Some(Outcome::Win {
                side: Side::Second,
                reason: EndReason::KInARow
            })
        );
    }

    #[test]
    fn five_wins_for_black_even_with_a_forbidden_shape() {
        // Black's d1 makes a1-e1 (five) and a double four beside it (d1-d4 down, d1 c2
        // b3 a4 on the anti-diagonal): the five wins.
        let x = ["a1", "b1", "c1", "e1", "d2", "d3", "d4", "c2", "b3", "a4"];
        let o = [
            "a15", "c15", "e15", "g15", "i15", "k15", "m15", "o15", "o13", "o11",
        ];
        let mut pos = Mnk::new(&MnkConfig::renju());
        for (a, b) in x.iter().zip(o) {
            pos.try_play(a).unwrap();
            pos.try_play(b).unwrap();
        }
        let d1 = pos.parse_move("d1").unwrap();
        assert_eq!(pos.forbidden(d1), None);
        pos.play(d1);
        assert_eq!(
            pos.outcome(),
            Some(Outcome::Win {
                side: Side::First,
                reason: EndReason::KInARow
            })
        );
    }

    #[test]
    fn boards_with_a_forbidden_stone_are_refused() {
        // Black f3 f4 d5 e5 f5 (f5 forbidden) with white's five stones far off.
        let mut rows = vec!["15".to_string(); 15];
        rows[2] = "5x9".into();
        rows[3] = "5x9".into();
        rows[4] = "3xxx9".into();
        rows[14] = "o.o.o.o.o6".into();
        let e = Mnk::from_board(&MnkConfig::renju(), &rows.join("/")).unwrap_err();
        assert!(e.to_string().contains("forbidden double-three"), "{e}");
    }

    #[test]
    fn perft_counts_forbidden_moves_as_game_ends() {
        // From the empty board nothing can be forbidden in the first plies.
        let mut pos = Mnk::new(&MnkConfig::renju());
        assert_eq!(perft(&mut pos, 1), 225);
        assert_eq!(perft(&mut pos, 2), 225 * 224);
        assert_eq!(perft(&mut pos, 3), 225 * 224 * 223);
        // With black to move after DOUBLE_THREE_SETUP: 217 empty cells, each a legal
        // move; only f5 is forbidden (every other point makes at most one three), and it
        // ends the game: 216 moves leave white 216 replies. Freestyle: 217 * 216.
        let mut pos = Mnk::from_text(&MnkConfig::renju(), DOUBLE_THREE_SETUP).unwrap();
        assert_eq!(perft(&mut pos, 1), 217);
        assert_eq!(perft(&mut pos, 2), 216 * 216);
        let mut free = Mnk::from_text(&MnkConfig::gomoku(), DOUBLE_THREE_SETUP).unwrap();
        assert_eq!(perft(&mut free, 2), 217 * 216);
    }
}
