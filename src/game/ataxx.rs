//! Ataxx on 7×7 with 64-bit bitboards, exactly as libataxx (and so cuteataxx and the UAI
//! engines) play it: gaps, passes, the 100-half-move rule, FEN and move text.
//!
//! Square `rank * 7 + file`, a1 = 0, g7 = 48; bit `s` of a bitboard is square `s`.

use std::fmt::Write as _;

use super::{EndReason, Game, MoveError, Outcome, PositionError, Side, zobrist};

/// All 49 squares.
pub const FULL: u64 = (1 << 49) - 1;
const FILE_A: u64 = 0x0000_0408_1020_4081;
const FILE_G: u64 = FILE_A << 6;
/// The start position.
pub const START_FEN: &str = "x5o/7/7/7/7/7/o5x x 0 1";

/// Zobrist keys: 49 black, 49 white, 49 gap, one for "white to move".
static KEYS: [u64; 3 * 49 + 1] = zobrist::keys(0x6174_6178_785F_6B65);
const SIDE_KEY: u64 = KEYS[3 * 49];

/// Squares at Chebyshev distance exactly 1 (`SINGLES`) and exactly 2 (`DOUBLES`).
static SINGLES: [u64; 49] = ring_masks(1);
static DOUBLES: [u64; 49] = ring_masks(2);

const fn ring_masks(dist: i32) -> [u64; 49] {
    let mut out = [0u64; 49];
    let mut sq = 0;
    while sq < 49 {
        let (f, r) = ((sq % 7) as i32, (sq / 7) as i32);
        let mut t: i32 = 0;
        while t < 49 {
            let (tf, tr) = (t % 7, t / 7);
            let df = if tf > f { tf - f } else { f - tf };
            let dr = if tr > r { tr - r } else { r - tr };
            let d = if df > dr { df } else { dr };
            if d == dist {
                out[sq] |= 1u64 << t;
            }
            t += 1;
        }
        sq += 1;
    }
    out
}

/// Every square at distance ≤ 1 from a square of `bb`, `bb` included.
#[inline]
pub fn dilate(bb: u64) -> u64 {
    let h = (bb | ((bb << 1) & !FILE_A) | ((bb >> 1) & !FILE_G)) & FULL;
    (h | (h << 7) | (h >> 7)) & FULL
}

/// Squares at distance exactly 1 from `sq`.
#[inline]
pub fn neighbours(sq: usize) -> u64 {
    SINGLES[sq]
}

/// Squares at distance exactly 2 from `sq`.
#[inline]
pub fn jump_targets(sq: usize) -> u64 {
    DOUBLES[sq]
}

/// Iterates over the squares of a bitboard, lowest first.
#[inline]
pub fn squares(mut bb: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if bb == 0 {
            None
        } else {
            let s = bb.trailing_zeros() as usize;
            bb &= bb - 1;
            Some(s)
        }
    })
}

/// An Ataxx move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AtaxxMove {
    /// Clone to an empty square at distance 1 (`b2`); the origin keeps its stone.
    Single(u8),
    /// Jump from the first square to an empty square at distance exactly 2 (`a1a3`).
    Jump(u8, u8),
    /// The only legal move of a side that cannot move while the game goes on (`0000`).
    Pass,
}

impl AtaxxMove {
    /// The destination square (none for a pass).
    pub fn to(self) -> Option<usize> {
        match self {
            AtaxxMove::Single(t) | AtaxxMove::Jump(_, t) => Some(usize::from(t)),
            AtaxxMove::Pass => None,
        }
    }
}

impl std::fmt::Display for AtaxxMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            AtaxxMove::Single(t) => f.write_str(&square_name(usize::from(t))),
            AtaxxMove::Jump(from, to) => write!(
                f,
                "{}{}",
                square_name(usize::from(from)),
                square_name(usize::from(to))
            ),
            AtaxxMove::Pass => f.write_str("0000"),
        }
    }
}

/// `a1` .. `g7`.
pub fn square_name(sq: usize) -> String {
    format!("{}{}", (b'a' + (sq % 7) as u8) as char, sq / 7 + 1)
}

fn parse_square(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    if b.len() != 2 {
        return None;
    }
    let file = b[0].to_ascii_lowercase().wrapping_sub(b'a');
    let rank = b[1].wrapping_sub(b'1');
    (file < 7 && rank < 7).then(|| usize::from(rank) * 7 + usize::from(file))
}

/// An Ataxx position. Small and `Copy`: [`Game::undo`] restores the copy `play` returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ataxx {
    stones: [u64; 2],
    gaps: u64,
    hash: u64,
    halfmoves: u32,
    fullmoves: u32,
    side: Side,
    plies: u32,
}

impl Default for Ataxx {
    fn default() -> Ataxx {
        Ataxx::from_fen(START_FEN).expect("the start FEN is valid")
    }
}

impl Ataxx {
    /// Reads a FEN as libataxx does: ranks 7 to 1 separated by `/`, `x X b B` black,
    /// `o O w W` white, `-` a gap, digits 1-7 empty squares; then the side to move
    /// (`x`/`b` or `o`/`w`), the half-move clock and the full-move number (both optional,
    /// 0 and 1 when left out). `startpos` is the start position.
    pub fn from_fen(fen: &str) -> Result<Ataxx, PositionError> {
        let text = fen.trim();
        let err = |why: String| PositionError::Syntax {
            text: text.to_string(),
            why,
        };
        if text == "startpos" {
            return Ataxx::from_fen(START_FEN);
        }
        let mut fields = text.split_whitespace();
        let board = fields
            .next()
            .ok_or_else(|| err("the FEN is empty".to_string()))?;
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != 7 {
            return Err(err(format!(
                "the board part has {} ranks separated by '/', expected 7",
                ranks.len()
            )));
        }
        let mut stones = [0u64; 2];
        let mut gaps = 0u64;
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = 6 - i;
            let mut file = 0usize;
            for ch in rank_text.chars() {
                if file >= 7 && !ch.is_ascii_digit() {
                    return Err(err(format!("rank {} has more than 7 squares", rank + 1)));
                }
                let bit = |file: usize| 1u64 << (rank * 7 + file);
                match ch {
                    'x' | 'X' | 'b' | 'B' => stones[0] |= bit(file),
                    'o' | 'O' | 'w' | 'W' => stones[1] |= bit(file),
                    '-' => gaps |= bit(file),
                    '1'..='7' => {
                        file += ch as usize - '0' as usize;
                        continue;
                    }
                    _ => {
                        return Err(err(format!(
                            "unexpected character '{ch}' in rank {}",
                            rank + 1
                        )));
                    }
                }
                file += 1;
            }
            if file != 7 {
                return Err(err(format!(
                    "rank {} has {file} squares, expected 7",
                    rank + 1
                )));
            }
        }
        let side = match fields.next() {
            None => Side::First,
            Some("x" | "X" | "b" | "B") => Side::First,
            Some("o" | "O" | "w" | "W") => Side::Second,
            Some(other) => {
                return Err(err(format!(
                    "side to move '{other}' is not one of x, o, b, w"
                )));
            }
        };
        let mut number = |name: &str, default: u32| -> Result<u32, PositionError> {
            match fields.next() {
                None => Ok(default),
                Some(t) => t
                    .parse()
                    .map_err(|_| err(format!("{name} '{t}' is not a number"))),
            }
        };
        let halfmoves = number("half-move clock", 0)?;
        let fullmoves = number("full-move number", 1)?;
        if let Some(extra) = fields.next() {
            return Err(err(format!("unexpected text '{extra}' after the FEN")));
        }
        let mut pos = Ataxx {
            stones,
            gaps,
            hash: 0,
            halfmoves,
            fullmoves,
            side,
            plies: 0,
        };
        pos.hash = pos.hash_from_scratch();
        Ok(pos)
    }

    /// The FEN, as libataxx writes it (`x5o/7/7/7/7/7/o5x x 0 1`).
    pub fn fen(&self) -> String {
        let mut s = String::new();
        for rank in (0..7).rev() {
            let mut empty = 0;
            for file in 0..7 {
                let bit = 1u64 << (rank * 7 + file);
                let ch = if self.stones[0] & bit != 0 {
                    'x'
                } else if self.stones[1] & bit != 0 {
                    'o'
                } else if self.gaps & bit != 0 {
                    '-'
                } else {
                    empty += 1;
                    continue;
                };
                if empty > 0 {
                    let _ = write!(s, "{empty}");
                    empty = 0;
                }
                s.push(ch);
            }
            if empty > 0 {
                let _ = write!(s, "{empty}");
            }
            if rank > 0 {
                s.push('/');
            }
        }
        let side = if self.side == Side::First { 'x' } else { 'o' };
        let _ = write!(s, " {side} {} {}", self.halfmoves, self.fullmoves);
        s
    }

    /// The stones of `side`.
    #[inline]
    pub fn stones(&self, side: Side) -> u64 {
        self.stones[side.index()]
    }

    /// The gaps (blocked squares).
    #[inline]
    pub fn gaps(&self) -> u64 {
        self.gaps
    }

    /// Empty squares (neither stone nor gap).
    #[inline]
    pub fn empty(&self) -> u64 {
        !(self.stones[0] | self.stones[1] | self.gaps) & FULL
    }

    /// The half-move clock: moves since the last single move.
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The full-move number: starts at 1, grows after white moves.
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The single moves of the side to move, by destination (none if the game is over).
    pub fn singles(&self, out: &mut Vec<AtaxxMove>) {
        out.clear();
        if self.is_over() {
            return;
        }
        let targets = dilate(self.stones[self.side.index()]) & self.empty();
        out.extend(squares(targets).map(|t| AtaxxMove::Single(t as u8)));
    }

    /// The jumps of the side to move, by source then destination (none if the game is
    /// over).
    pub fn jumps(&self, out: &mut Vec<AtaxxMove>) {
        out.clear();
        if self.is_over() {
            return;
        }
        let empty = self.empty();
        for from in squares(self.stones[self.side.index()]) {
            for t in squares(DOUBLES[from] & empty) {
                out.push(AtaxxMove::Jump(from as u8, t as u8));
            }
        }
    }

    /// Whether the side to move has a single move.
    #[inline]
    pub fn has_single(&self) -> bool {
        dilate(self.stones[self.side.index()]) & self.empty() != 0
    }

    /// Whether the side to move has a jump.
    #[inline]
    pub fn has_jump(&self) -> bool {
        let us = self.stones[self.side.index()];
        dilate(dilate(us)) & !dilate(us) & self.empty() != 0
            || squares(us).any(|f| DOUBLES[f] & self.empty() != 0)
    }

    /// Stones `side` would gain by moving to `to` (captures only, not the new stone).
    #[inline]
    pub fn captures_at(&self, to: usize) -> u32 {
        (SINGLES[to] & self.stones[self.side.other().index()]).count_ones()
    }

    /// Whether the game is over (no stones for one side, nothing reachable, or 100
    /// half-moves).
    #[inline]
    pub fn is_over(&self) -> bool {
        self.stones[0] == 0
            || self.stones[1] == 0
            || self.halfmoves >= 100
            || dilate(dilate(self.stones[0] | self.stones[1])) & self.empty() == 0
    }

    /// Number of legal moves (a forced pass counts as one); 0 when the game is over.
    #[inline]
    pub fn count_moves(&self) -> u64 {
        if self.is_over() {
            return 0;
        }
        self.count_moves_unchecked()
    }

    /// [`Ataxx::count_moves`] for a position known to be unfinished.
    #[inline]
    fn count_moves_unchecked(&self) -> u64 {
        self.count_moves_unchecked_raw().max(1)
    }

    /// Singles and jumps of the side to move, without the pass.
    #[inline]
    fn count_moves_unchecked_raw(&self) -> u64 {
        let us = self.stones[self.side.index()];
        let empty = self.empty();
        let mut n = u64::from((dilate(us) & empty).count_ones());
        for f in squares(us) {
            n += u64::from((DOUBLES[f] & empty).count_ones());
        }
        n
    }

    /// Plays a move; `HASH = false` skips the Zobrist update (perft's last full ply,
    /// whose children are only counted).
    #[inline]
    fn make<const HASH: bool>(&mut self, mv: AtaxxMove) {
        let us = self.side.index();
        let them = 1 - us;
        self.plies += 1;
        self.halfmoves += 1;
        if self.side == Side::Second {
            self.fullmoves += 1;
        }
        self.hash ^= SIDE_KEY;
        self.side = self.side.other();
        let to = match mv {
            AtaxxMove::Pass => return,
            AtaxxMove::Single(t) => {
                self.halfmoves = 0;
                t as usize
            }
            AtaxxMove::Jump(f, t) => {
                let f = f as usize;
                self.stones[us] ^= 1 << f;
                if HASH {
                    self.hash ^= KEYS[us * 49 + f];
                }
                t as usize
            }
        };
        self.stones[us] |= 1 << to;
        let captured = SINGLES[to] & self.stones[them];
        self.stones[us] |= captured;
        self.stones[them] ^= captured;
        if HASH {
            self.hash ^= KEYS[us * 49 + to];
            for s in squares(captured) {
                self.hash ^= KEYS[s] ^ KEYS[49 + s];
            }
        }
    }

    /// Leaves below a position at depth 1: its number of legal moves, 0 if it is over.
    /// Cheaper than [`Ataxx::is_over`] + count: the reach of both sides is only computed
    /// when the side to move has no move.
    #[inline]
    fn leaf_count(&self) -> u64 {
        let us = self.stones[self.side.index()];
        let them = self.stones[self.side.other().index()];
        if us == 0 || them == 0 || self.halfmoves >= 100 {
            return 0;
        }
        let n = self.count_moves_unchecked_raw();
        if n > 0 {
            n
        } else {
            // A pass if the opponent can still move, else the game is over.
            u64::from(dilate(dilate(them)) & self.empty() != 0)
        }
    }

    /// Calls `f` with each legal move of an unfinished position, in generation order:
    /// singles, then jumps by source square, then the pass if there is nothing else.
    #[inline(always)]
    fn for_each_move(&self, mut f: impl FnMut(AtaxxMove)) {
        let us = self.stones[self.side.index()];
        let empty = self.empty();
        let singles = dilate(us) & empty;
        let mut any = singles != 0;
        for t in squares(singles) {
            f(AtaxxMove::Single(t as u8));
        }
        for from in squares(us) {
            let targets = DOUBLES[from] & empty;
            any |= targets != 0;
            for t in squares(targets) {
                f(AtaxxMove::Jump(from as u8, t as u8));
            }
        }
        if !any {
            f(AtaxxMove::Pass);
        }
    }

    /// Perft of an unfinished position, `depth >= 2`, counting the last ply in bulk.
    fn perft_rec(&self, depth: u32) -> u64 {
        let mut total = 0;
        if depth == 2 {
            self.for_each_move(|mv| {
                let mut child = *self;
                child.make::<false>(mv);
                total += child.leaf_count();
            });
        } else {
            self.for_each_move(|mv| {
                let mut child = *self;
                child.make::<true>(mv);
                if !child.is_over() {
                    total += child.perft_rec(depth - 1);
                }
            });
        }
        total
    }
}

impl Game for Ataxx {
    type Move = AtaxxMove;
    type Undo = Ataxx;
    type Config = ();

    fn new(_config: &()) -> Ataxx {
        Ataxx::default()
    }

    fn from_text(_config: &(), text: &str) -> Result<Ataxx, PositionError> {
        Ataxx::from_fen(text)
    }

    fn config(&self) -> &() {
        &()
    }

    #[inline]
    fn side_to_move(&self) -> Side {
        self.side
    }

    fn plies(&self) -> u32 {
        self.plies
    }

    fn legal_moves(&self, moves: &mut Vec<AtaxxMove>) {
        moves.clear();
        if !self.is_over() {
            self.for_each_move(|mv| moves.push(mv));
        }
    }

    /// Singles by destination (0..49), jumps by source and destination (49..2450), the
    /// pass last (2450).
    #[inline]
    fn move_index(&self, mv: AtaxxMove) -> usize {
        match mv {
            AtaxxMove::Single(t) => usize::from(t),
            AtaxxMove::Jump(f, t) => 49 + usize::from(f) * 49 + usize::from(t),
            AtaxxMove::Pass => 49 + 49 * 49,
        }
    }

    fn move_index_bound(&self) -> usize {
        49 + 49 * 49 + 1
    }

    fn is_legal(&self, mv: AtaxxMove) -> bool {
        if self.is_over() {
            return false;
        }
        let us = self.stones[self.side.index()];
        let empty = self.empty();
        match mv {
            AtaxxMove::Single(t) => t < 49 && dilate(us) & empty & (1 << t) != 0,
            AtaxxMove::Jump(f, t) => {
                f < 49
                    && t < 49
                    && us & (1 << f) != 0
                    && DOUBLES[f as usize] & empty & (1 << t) != 0
            }
            AtaxxMove::Pass => dilate(dilate(us)) & empty == 0,
        }
    }

    fn why_illegal(&self, mv: AtaxxMove) -> String {
        let us = self.stones[self.side.index()];
        let empty = self.empty();
        let side = self.side;
        match mv {
            AtaxxMove::Single(t) if empty & (1 << t) == 0 => {
                format!("{} is not empty", square_name(t.into()))
            }
            AtaxxMove::Single(t) => {
                format!("{side} has no stone next to {}", square_name(t.into()))
            }
            AtaxxMove::Jump(f, _) if us & (1 << f) == 0 => {
                format!("{side} has no stone on {}", square_name(f.into()))
            }
            AtaxxMove::Jump(_, t) => format!("{} is not empty", square_name(t.into())),
            AtaxxMove::Pass => format!("{side} has a move, so it cannot pass"),
        }
    }

    #[inline]
    fn play(&mut self, mv: AtaxxMove) -> Ataxx {
        let before = *self;
        self.make::<true>(mv);
        before
    }

    #[inline]
    fn undo(&mut self, _mv: AtaxxMove, undo: Ataxx) {
        *self = undo;
    }

    /// A pass whether or not the side to move has moves (it counts towards the
    /// half-move clock, as a real pass does).
    #[inline]
    fn play_null(&mut self) -> Ataxx {
        let before = *self;
        self.make::<true>(AtaxxMove::Pass);
        before
    }

    #[inline]
    fn undo_null(&mut self, undo: Ataxx) {
        *self = undo;
    }

    fn outcome(&self) -> Option<Outcome> {
        if !self.is_over() {
            return None;
        }
        let [black, white] = self.stones;
        let no_stones = black == 0 || white == 0;
        let stuck = dilate(dilate(black | white)) & self.empty() == 0;
        if no_stones || stuck {
            let reason = if no_stones {
                EndReason::NoStones
            } else {
                EndReason::NoMoves
            };
            let (b, w) = (black.count_ones(), white.count_ones());
            return Some(match b.cmp(&w) {
                std::cmp::Ordering::Greater => Outcome::Win {
                    side: Side::First,
                    reason,
                },
                std::cmp::Ordering::Less => Outcome::Win {
                    side: Side::Second,
                    reason,
                },
                std::cmp::Ordering::Equal => Outcome::Draw { reason },
            });
        }
        Some(Outcome::Draw {
            reason: EndReason::HalfmoveLimit,
        })
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let mut h = 0;
        for s in squares(self.stones[0]) {
            h ^= KEYS[s];
        }
        for s in squares(self.stones[1]) {
            h ^= KEYS[49 + s];
        }
        for s in squares(self.gaps) {
            h ^= KEYS[98 + s];
        }
        if self.side == Side::Second {
            h ^= SIDE_KEY;
        }
        h
    }

    /// Reads `b2` (single), `a1a3` (jump: distance exactly 2) or `0000` (pass; `pass`,
    /// as ataxx.cpp writes it, and `null`, as libataxx reads it, are read too).
    fn parse_move(&self, text: &str) -> Result<AtaxxMove, MoveError> {
        let t = text.trim();
        let syntax = |why: &str| MoveError::Syntax {
            text: t.to_string(),
            why: why.to_string(),
        };
        match t.len() {
            4 if matches!(t, "0000" | "pass" | "null") => Ok(AtaxxMove::Pass),
            2 => parse_square(t)
                .map(|s| AtaxxMove::Single(s as u8))
                .ok_or_else(|| syntax("not a square a1..g7")),
            4 => {
                let from = parse_square(&t[..2])
                    .ok_or_else(|| syntax("the source is not a square a1..g7"))?;
                let to = parse_square(&t[2..])
                    .ok_or_else(|| syntax("the destination is not a square a1..g7"))?;
                if DOUBLES[from] & (1 << to) == 0 {
                    return Err(syntax(
                        "a jump must go exactly 2 squares (write a single move as its destination)",
                    ));
                }
                Ok(AtaxxMove::Jump(from as u8, to as u8))
            }
            _ => Err(syntax(
                "expected a single (b2), a jump (a1a3) or a pass (0000)",
            )),
        }
    }

    fn format_move(&self, mv: AtaxxMove) -> String {
        mv.to_string()
    }

    fn to_text(&self) -> String {
        self.fen()
    }

    fn diagram(&self) -> String {
        let mut s = String::new();
        for rank in (0..7).rev() {
            let _ = write!(s, "{} ", rank + 1);
            for file in 0..7 {
                let bit = 1u64 << (rank * 7 + file);
                let ch = if self.stones[0] & bit != 0 {
                    'x'
                } else if self.stones[1] & bit != 0 {
                    'o'
                } else if self.gaps & bit != 0 {
                    '#'
                } else {
                    '.'
                };
                s.push(' ');
                s.push(ch);
            }
            s.push('\n');
        }
        s.push_str("   a b c d e f g\n");
        let status = match self.outcome() {
            Some(Outcome::Win { side, reason }) => format!("{side} wins ({reason})"),
            Some(Outcome::Draw { reason }) => format!("draw ({reason})"),
            None => format!("{} to move", self.side),
        };
        let _ = writeln!(
            s,
            "x {} o {}, {status}; fen: {}",
            self.stones[0].count_ones(),
            self.stones[1].count_ones(),
            self.fen()
        );
        s
    }

    fn perft(&mut self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if depth == 1 {
            return self.leaf_count();
        }
        if self.is_over() {
            return 0;
        }
        self.perft_rec(depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Ataxx {
        Ataxx::from_fen(fen).unwrap()
    }

    #[test]
    fn move_text() {
        let p = Ataxx::default();
        assert_eq!(p.parse_move("b2").unwrap(), AtaxxMove::Single(8));
        assert_eq!(p.parse_move("a1a3").unwrap(), AtaxxMove::Jump(0, 14));
        assert_eq!(p.parse_move("0000").unwrap(), AtaxxMove::Pass);
        // ataxx.cpp writes its pass `pass`, libataxx reads `null` too: both are `0000`.
        for pass in ["pass", "null", " pass "] {
            assert_eq!(p.parse_move(pass).unwrap(), AtaxxMove::Pass, "{pass}");
            assert_eq!(p.format_move(p.parse_move(pass).unwrap()), "0000");
        }
        for bad in [
            "g1f2", "g1g1", "00000", "h1", "a8", "a1a4", "", "b2b", "000", "PASS", "pas", "passs",
            "f1h1",
        ] {
            assert!(p.parse_move(bad).is_err(), "{bad} must be rejected");
        }
        for text in ["b2", "a1a3", "g7e5", "0000"] {
            assert_eq!(p.format_move(p.parse_move(text).unwrap()), text);
        }
    }

    #[test]
    fn fen_round_trip_and_defaults() {
        for fen in [
            START_FEN,
            "x5o/7/2-1-2/3-3/2-1-2/7/o5x o 17 9",
            "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1",
            "-------/-x---o-/-------/7/-------/-o---x-/------- x 3 4",
        ] {
            assert_eq!(pos(fen).fen(), fen);
        }
        assert_eq!(pos("x5o/7/7/7/7/7/o5x").fen(), START_FEN);
        assert_eq!(pos("startpos").fen(), START_FEN);
        assert_eq!(pos("X5W/7/7/7/7/7/O5B b 0 1").fen(), START_FEN);
        for (bad, says) in [
            ("x5o/7/7/7/7/7 x 0 1", "6 ranks"),
            ("x6o/7/7/7/7/7/o5x x 0 1", "rank 7 has more than 7"),
            ("x4o/7/7/7/7/7/o5x x 0 1", "rank 7 has 6 squares"),
            ("x5o/7/7/7/7/7/o5x z 0 1", "side to move 'z'"),
            ("x5o/7/7/7/7/7/o5x x y 1", "half-move clock 'y'"),
            ("x5o/7/7/7/7/7/o5x x 0 1 9", "unexpected text '9'"),
        ] {
            let e = Ataxx::from_fen(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn clocks_follow_libataxx() {
        let mut p = Ataxx::default();
        p.try_play("a7a5").unwrap(); // jump: +1
        assert_eq!((p.halfmoves(), p.fullmoves()), (1, 1));
        p.try_play("g7e6").unwrap(); // white jump: +1, full-move number grows after white
        assert_eq!((p.halfmoves(), p.fullmoves()), (2, 2));
        p.try_play("b6").unwrap(); // single captures... and resets
        assert_eq!((p.halfmoves(), p.fullmoves()), (0, 2));
        // A capturing jump does not reset the clock.
        let mut p = pos("7/7/7/7/7/1o5/x6 x 5 1");
        p.try_play("a1c2").unwrap();
        assert_eq!(p.stones(Side::First).count_ones(), 2, "b2 was captured");
        assert_eq!(p.halfmoves(), 6);
        // A pass increases it.
        let mut p = pos("7/7/7/7/ooooooo/ooooooo/xxxxxxx x 4 1");
        p.try_play("0000").unwrap();
        assert_eq!((p.halfmoves(), p.side_to_move()), (5, Side::Second));
    }

    #[test]
    fn outcomes() {
        assert_eq!(Ataxx::default().outcome(), None);
        let gone = pos("7/7/7/7/7/7/x6 o 0 1");
        assert_eq!(
            gone.outcome(),
            Some(Outcome::Win {
                side: Side::First,
                reason: EndReason::NoStones
            })
        );
        // Nothing reachable: decided by count, even with the clock at 100.
        let full = pos("xxxxxxx/xxxxxxx/xxxxxxx/xxxxooo/ooooooo/ooooooo/ooooooo o 100 40");
        assert_eq!(
            full.outcome(),
            Some(Outcome::Win {
                side: Side::First,
                reason: EndReason::NoMoves
            })
        );
        let even = pos("xxxxxxx/xxxxxxx/xxxxxxx/xxx-ooo/ooooooo/ooooooo/ooooooo o 0 40");
        assert_eq!(
            even.outcome(),
            Some(Outcome::Draw {
                reason: EndReason::NoMoves
            })
        );
        let clock = pos("x5o/7/7/7/7/7/o5x x 100 60");
        assert_eq!(
            clock.outcome(),
            Some(Outcome::Draw {
                reason: EndReason::HalfmoveLimit
            })
        );
        // Black cannot move but white can: a pass, not the end.
        let pass = pos("7/7/7/7/ooo4/ooo4/xoo4 x 0 1");
        assert_eq!(pass.outcome(), None);
        let mut moves = Vec::new();
        pass.legal_moves(&mut moves);
        assert_eq!(moves, vec![AtaxxMove::Pass]);
        assert!(pass.is_legal(AtaxxMove::Pass));
        assert!(!Ataxx::default().is_legal(AtaxxMove::Pass));
    }

    #[test]
    fn captures_flip_neighbours_only() {
        let mut p = pos("7/7/7/2ooo2/2o1o2/2ooo2/x6 x 0 1");
        // x cannot reach d4 yet; put x next to the ring and clone into the centre later.
        assert!(!p.is_legal(p.parse_move("d3").unwrap()));
        p = pos("7/7/7/2ooo2/2o1o2/2ooo2/1x5 x 0 1");
        p.try_play("b1d3").unwrap();
        assert_eq!(p.stones(Side::Second), 0, "all eight flipped");
        assert_eq!(p.stones(Side::First).count_ones(), 9);
        assert_eq!(p.hash(), p.hash_from_scratch());
    }
}
