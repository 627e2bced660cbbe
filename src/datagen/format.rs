//! The formats datagen writes, and reads back (for `arena fit`, and to rebuild the
//! duplicate filter on resume). Every format is a plain concatenation of records, so
//! files (shards) concatenate into one.
//!
//! - `text` (`.txt`): one position a line, `FEN | score | result`: the board as `arena
//!   show --fen` reads it, the search score in the evaluation's units from the side to
//!   move, the result for the side to move (`1.0`, `0.5`, `0.0`).
//! - `bin` (`.bin`, m,n,k): c-gomoku-cli's sample format, as pytorch-nnue-trainer's
//!   `simple_binary` dataset reads it: a 4-byte head (two little-endian `u16`: result 2
//!   bits, ply 9, board size 5; rule 3 bits, move 13), then `ply` moves from the empty
//!   board, each `x << 5 | y`. It holds no score.
//! - `binpack` (`.binpack`, m,n,k): c-gomoku-cli's packed format (`packed_binary`): per
//!   run of consecutive positions of a game, an 8-byte head (board size 5 bits, rule 3,
//!   result 4 for the side to move at the first position, total ply 10, initial ply 10;
//!   game tag 14, move count 18), the initial position's moves, then per position the
//!   move played (`u16`: flags first, last, no-eval, pass, 2 reserved, move 10 bits)
//!   and the score (`i16`).
//! - `bullet` (`.data`, Ataxx): bullet's 32-byte `AtaxxBoard`: three little-endian
//!   `u64` bitboards (the side to move's stones, the other side's, the gaps; bit
//!   `7 * rank + file`), the score `i16` and the result `u8` (0 loss, 1 draw, 2 win)
//!   from the side to move, the side to move `u8` (0 `x`, 1 `o`), the full-move number
//!   `u16`, the half-move clock `u8`, one byte 0.

use std::{
    fmt::Write as _,
    fs::File,
    io::{BufRead, BufReader, Read},
    path::{Path, PathBuf},
};

use super::sample::{Board, MnkShape, Sample};
use crate::game::Side;

/// The data files' name before the extension.
pub const DATA_STEM: &str = "positions";

/// An output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `FEN | score | result` lines.
    Text,
    /// c-gomoku-cli's `bin` (m,n,k).
    Bin,
    /// c-gomoku-cli's `binpack` (m,n,k).
    Binpack,
    /// bullet's `AtaxxBoard` (Ataxx).
    Bullet,
}

/// The largest score the binary formats hold (`i16`).
pub const BINARY_SCORE_LIMIT: i32 = i16::MAX as i32;

impl Format {
    /// Every format.
    pub const ALL: [Format; 4] = [Format::Text, Format::Bin, Format::Binpack, Format::Bullet];

    /// The name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Bin => "bin",
            Format::Binpack => "binpack",
            Format::Bullet => "bullet",
        }
    }

    /// The file extension (without the dot).
    pub fn extension(self) -> &'static str {
        match self {
            Format::Text => "txt",
            Format::Bin => "bin",
            Format::Binpack => "binpack",
            Format::Bullet => "data",
        }
    }

    /// The format of a file, by its extension.
    pub fn of_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?;
        Format::ALL.into_iter().find(|f| f.extension() == ext)
    }

    /// Why this format cannot hold positions of `game` (None: it can).
    pub fn refusal(self, game: &crate::game::GameSpec) -> Option<String> {
        use crate::game::GameSpec;
        match (self, game) {
            (Format::Text, _) => None,
            (Format::Bin | Format::Binpack, GameSpec::Mnk(config)) => {
                MnkShape::of(config).err().map(|e| e.to_string())
            }
            (Format::Bin | Format::Binpack, GameSpec::Ataxx) => Some(format!(
                "--format {}: c-gomoku-cli's format is for gomoku and renju; for Ataxx use \
                 bullet or text",
                self.as_str()
            )),
            (Format::Bullet, GameSpec::Mnk(_)) => Some(
                "--format bullet: bullet's AtaxxBoard is for Ataxx; for m,n,k use bin, binpack \
                 or text"
                    .into(),
            ),
            (Format::Bullet, GameSpec::Ataxx) => None,
        }
    }
}

/// Refuses a score clip below 1, or beyond what `format` holds (`--score-clip`).
pub fn check_clip(format: Format, clip: i32) -> Result<(), String> {
    if clip < 1 {
        return Err("--score-clip: must be at least 1".into());
    }
    if format != Format::Text && clip > BINARY_SCORE_LIMIT {
        return Err(format!(
            "--score-clip {clip}: the {format} format holds scores up to {BINARY_SCORE_LIMIT}"
        ));
    }
    Ok(())
}

/// A data format arena does not write.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown format '{0}': text, bin, binpack or bullet")]
pub struct UnknownFormat(pub String);

impl std::str::FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Format, UnknownFormat> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| UnknownFormat(s.to_string()))
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text of a result in half points: `1.0`, `0.5`, `0.0`.
pub fn result_text(half_points: u8) -> &'static str {
    match half_points {
        2 => "1.0",
        1 => "0.5",
        _ => "0.0",
    }
}

fn clip16(score: i32) -> i16 {
    score.clamp(-BINARY_SCORE_LIMIT, BINARY_SCORE_LIMIT) as i16
}

/// Appends the records of `samples` (positions of one game, in game order) to `out`.
/// `moves` and `shape` are the game's moves and board (m,n,k).
pub fn encode(
    format: Format,
    shape: Option<MnkShape>,
    moves: &[u16],
    samples: &[&Sample],
    out: &mut Vec<u8>,
) {
    match format {
        Format::Text => {
            let mut s = String::new();
            for sample in samples {
                s.clear();
                let _ = writeln!(
                    s,
                    "{} | {} | {}",
                    sample.fen,
                    sample.score,
                    result_text(sample.result)
                );
                out.extend_from_slice(s.as_bytes());
            }
        }
        Format::Bin => {
            let shape = shape.expect("checked: bin is for m,n,k boards it can hold");
            for sample in samples {
                let Board::Mnk { ply } = sample.board else {
                    unreachable!("bin is for m,n,k")
                };
                let head0 =
                    u16::from(sample.result) & 0x3 | (ply & 0x1FF) << 2 | (shape.size & 0x1F) << 11;
                let head1 = shape.rule & 0x7 | (sample.mv & 0x1FFF) << 3;
                out.extend_from_slice(&head0.to_le_bytes());
                out.extend_from_slice(&head1.to_le_bytes());
                for m in &moves[..usize::from(ply)] {
                    out.extend_from_slice(&m.to_le_bytes());
                }
            }
        }
        Format::Binpack => {
            let shape = shape.expect("checked: binpack is for m,n,k boards it can hold");
            let ply_of = |s: &Sample| match s.board {
                Board::Mnk { ply } => ply,
                Board::Ataxx { .. } => unreachable!("binpack is for m,n,k"),
            };
            // Runs of consecutive positions: each run one entry.
            let mut start = 0;
            while start < samples.len() {
                let mut end = start + 1;
                while end < samples.len() && ply_of(samples[end]) == ply_of(samples[end - 1]) + 1 {
                    end += 1;
                }
                let run = &samples[start..end];
                let init = u32::from(ply_of(run[0]));
                let count = run.len() as u32;
                let total = init + count;
                let head0 = u32::from(shape.size) & 0x1F
                    | (u32::from(shape.rule) & 0x7) << 5
                    | (u32::from(run[0].result) & 0xF) << 8
                    | (total & 0x3FF) << 12
                    | (init & 0x3FF) << 22;
                let head1 = (count & 0x3FFFF) << 14;
                out.extend_from_slice(&head0.to_le_bytes());
                out.extend_from_slice(&head1.to_le_bytes());
                for m in &moves[..init as usize] {
                    out.extend_from_slice(&m.to_le_bytes());
                }
                for s in run {
                    // First and last of its (one-move) multipv group, with an eval.
                    let flags: u16 = 0b11 | (s.mv & 0x3FF) << 6;
                    out.extend_from_slice(&flags.to_le_bytes());
                    out.extend_from_slice(&clip16(s.score).to_le_bytes());
                }
                start = end;
            }
        }
        Format::Bullet => {
            for sample in samples {
                let Board::Ataxx {
                    stones,
                    gaps,
                    side,
                    halfmoves,
                    fullmoves,
                } = sample.board
                else {
                    unreachable!("bullet is for Ataxx")
                };
                let (us, them) = (stones[side.index()], stones[side.other().index()]);
                for bb in [us, them, gaps] {
                    out.extend_from_slice(&bb.to_le_bytes());
                }
                out.extend_from_slice(&clip16(sample.score).to_le_bytes());
                out.push(sample.result);
                out.push(u8::from(side == Side::Second));
                out.extend_from_slice(&fullmoves.to_le_bytes());
                out.push(halfmoves);
                out.push(0);
            }
        }
    }
}

/// A position read back from a data file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The position as `Game::from_text` reads it: an m,n,k board or move list, an Ataxx
    /// FEN.
    pub position: String,
    /// The score from the side to move (`None`: the format holds none, `bin`).
    pub score: Option<i32>,
    /// The result for the side to move in half points.
    pub result: u8,
}

/// A data file that cannot be read: the file, where, and why.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {place}: {why}")]
pub struct ReadError {
    /// The file.
    pub path: String,
    /// `line 12` or `byte 4096`.
    pub place: String,
    /// What is wrong.
    pub why: String,
}

/// Reads the records of one data file, in order, one at a time (memory does not grow
/// with the file).
pub struct DataReader {
    format: Format,
    path: PathBuf,
    input: BufReader<File>,
    /// Lines read (text) or bytes read (binary).
    at: u64,
    /// binpack: the records of the entry being read, in reverse.
    pending: Vec<Record>,
    line: String,
}

/// The board of an m,n,k game as a move list `Mnk::from_text` reads (`h8i9`).
fn moves_text(moves: &[u16]) -> String {
    let mut s = String::with_capacity(3 * moves.len());
    for &m in moves {
        let (x, y) = (m >> 5 & 31, m & 31);
        let _ = write!(s, "{}{}", (b'a' + x as u8) as char, y + 1);
    }
    s
}

/// An Ataxx FEN from bitboards: `ours` the side to move's stones.
fn ataxx_fen(ours: u64, theirs: u64, gaps: u64, side: Side, fullm: u16, halfm: u8) -> String {
    let stones = match side {
        Side::First => [ours, theirs],
        Side::Second => [theirs, ours],
    };
    let mut s = String::new();
    for rank in (0..7).rev() {
        let mut empty = 0;
        for file in 0..7 {
            let bit = 1u64 << (rank * 7 + file);
            let ch = if stones[0] & bit != 0 {
                'x'
            } else if stones[1] & bit != 0 {
                'o'
            } else if gaps & bit != 0 {
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
    let side = if side == Side::First { 'x' } else { 'o' };
    let _ = write!(s, " {side} {halfm} {fullm}");
    s
}

impl DataReader {
    /// Opens `path`, written in `format`.
    pub fn open(path: &Path, format: Format) -> Result<DataReader, ReadError> {
        let file = File::open(path).map_err(|e| ReadError {
            path: path.display().to_string(),
            place: "open".into(),
            why: e.to_string(),
        })?;
        Ok(DataReader {
            format,
            path: path.to_path_buf(),
            input: BufReader::with_capacity(1 << 20, file),
            at: 0,
            pending: Vec::new(),
            line: String::new(),
        })
    }

    /// Goes to byte `offset` of the file (a record boundary: an offset datagen's log
    /// gave).
    pub fn seek(&mut self, offset: u64) -> std::io::Result<()> {
        use std::io::Seek;
        self.input.seek(std::io::SeekFrom::Start(offset))?;
        self.pending.clear();
        if self.format != Format::Text {
            self.at = offset;
        }
        Ok(())
    }

    fn err(&self, why: impl Into<String>) -> ReadError {
        let place = match self.format {
            Format::Text => format!("line {}", self.at),
            _ => format!("byte {}", self.at),
        };
        ReadError {
            path: self.path.display().to_string(),
            place,
            why: why.into(),
        }
    }

    /// Fills `buf` from the file: `Ok(false)` at a clean end (nothing read).
    fn fill(&mut self, buf: &mut [u8]) -> Result<bool, ReadError> {
        let mut got = 0;
        while got < buf.len() {
            match self.input.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.err(e.to_string())),
            }
        }
        if got == 0 {
            return Ok(false);
        }
        if got < buf.len() {
            return Err(self.err(format!(
                "the file ends inside a record ({got} of {} bytes)",
                buf.len()
            )));
        }
        self.at += got as u64;
        Ok(true)
    }

    fn read_moves(&mut self, n: usize) -> Result<Vec<u16>, ReadError> {
        let mut bytes = vec![0u8; 2 * n];
        if n > 0 && !self.fill(&mut bytes)? {
            return Err(self.err("the file ends inside a record"));
        }
        Ok(bytes
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect())
    }

    /// The next record, `None` at the end of the file.
    pub fn next_record(&mut self) -> Result<Option<Record>, ReadError> {
        if let Some(r) = self.pending.pop() {
            return Ok(Some(r));
        }
        match self.format {
            Format::Text => loop {
                self.line.clear();
                let n = self
                    .input
                    .read_line(&mut self.line)
                    .map_err(|e| self.err(e.to_string()))?;
                if n == 0 {
                    return Ok(None);
                }
                self.at += 1;
                let line = self.line.trim();
                if line.is_empty() {
                    continue;
                }
                return parse_text_line(line)
                    .map(Some)
                    .map_err(|why| self.err(why.to_string()));
            },
            Format::Bin => {
                let mut head = [0u8; 4];
                if !self.fill(&mut head)? {
                    return Ok(None);
                }
                let h0 = u16::from_le_bytes([head[0], head[1]]);
                let result = (h0 & 3) as u8;
                let ply = usize::from(h0 >> 2 & 0x1FF);
                if result > 2 {
                    return Err(self.err(format!("result {result} is not 0, 1 or 2")));
                }
                let moves = self.read_moves(ply)?;
                Ok(Some(Record {
                    position: moves_text(&moves),
                    score: None,
                    result,
                }))
            }
            Format::Binpack => {
                let mut head = [0u8; 8];
                if !self.fill(&mut head)? {
                    return Ok(None);
                }
                let h0 = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
                let h1 = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
                let mut result = (h0 >> 8 & 0xF) as u8;
                let init = (h0 >> 22 & 0x3FF) as usize;
                let count = (h1 >> 14) as usize;
                if result > 2 {
                    return Err(self.err(format!("result {result} is not 0, 1 or 2")));
                }
                let mut moves = self.read_moves(init)?;
                let mut records = Vec::with_capacity(count);
                for _ in 0..count {
                    let mut m = [0u8; 4];
                    if !self.fill(&mut m)? {
                        return Err(self.err("the file ends inside a record"));
                    }
                    let flags = u16::from_le_bytes([m[0], m[1]]);
                    let eval = i16::from_le_bytes([m[2], m[3]]);
                    if flags & 0b11 != 0b11 || flags & 0b1000 != 0 {
                        return Err(
                            self.err("a multipv group or a pass: arena reads one move a position")
                        );
                    }
                    records.push(Record {
                        position: moves_text(&moves),
                        score: (flags & 0b100 == 0).then_some(i32::from(eval)),
                        result,
                    });
                    moves.push(flags >> 6);
                    result = 2 - result;
                }
                records.reverse();
                self.pending = records;
                Ok(self.pending.pop())
            }
            Format::Bullet => {
                let mut b = [0u8; 32];
                if !self.fill(&mut b)? {
                    return Ok(None);
                }
                let bb =
                    |i: usize| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"));
                let score = i16::from_le_bytes([b[24], b[25]]);
                let result = b[26];
                if result > 2 {
                    return Err(self.err(format!("result {result} is not 0, 1 or 2")));
                }
                let side = if b[27] == 0 {
                    Side::First
                } else {
                    Side::Second
                };
                let fullm = u16::from_le_bytes([b[28], b[29]]);
                Ok(Some(Record {
                    position: ataxx_fen(bb(0), bb(1), bb(2), side, fullm, b[30]),
                    score: Some(i32::from(score)),
                    result,
                }))
            }
        }
    }
}

/// Why a line of a text data file is not `FEN | score | result`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextLineError {
    /// Not three fields.
    #[error("expected `FEN | score | result`, found {0} field(s)")]
    Fields(usize),
    /// A score that is not a whole number.
    #[error("score '{0}' is not a whole number")]
    Score(String),
    /// A result that is not 1.0, 0.5 or 0.0.
    #[error("result '{0}' is not 1.0, 0.5 or 0.0")]
    Result(String),
}

/// Reads `FEN | score | result`.
pub fn parse_text_line(line: &str) -> Result<Record, TextLineError> {
    let fields: Vec<&str> = line.split('|').map(str::trim).collect();
    let [fen, score, result] = fields[..] else {
        return Err(TextLineError::Fields(fields.len()));
    };
    let score: i32 = score
        .parse()
        .map_err(|_| TextLineError::Score(score.to_string()))?;
    let result = match result {
        "1.0" | "1" => 2,
        "0.5" => 1,
        "0.0" | "0" => 0,
        other => return Err(TextLineError::Result(other.to_string())),
    };
    Ok(Record {
        position: fen.to_string(),
        score: Some(score),
        result,
    })
}

/// Why the data files of a path cannot be listed: every variant names the path.
#[derive(Debug, thiserror::Error)]
pub enum DataFilesError {
    /// A file that is no datagen data.
    #[error("{}: not a datagen file (.txt, .bin, .binpack or .data)", path.display())]
    NotData {
        /// The file.
        path: PathBuf,
    },
    /// A folder that cannot be listed.
    #[error("{}: {error}", path.display())]
    Io {
        /// The folder.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// A folder with the data of more than one run.
    #[error(
        "{}: holds the data of more than one run (positions.* and shard files, or several \
         formats): name the file to read",
        path.display()
    )]
    MoreThanOneRun {
        /// The folder.
        path: PathBuf,
    },
    /// Shard files that are not every shard of one split.
    #[error(
        "{}: the shard files are not shards 0 to {} of one split of {count}: join the \
         complete ones with cat, or name the files to read",
        path.display(),
        count - 1
    )]
    Shards {
        /// The folder.
        path: PathBuf,
        /// The split the first shard file names.
        count: u32,
    },
    /// A folder without datagen data.
    #[error("{}: no datagen data (positions.txt, .bin, .binpack or .data)", path.display())]
    NoData {
        /// The folder.
        path: PathBuf,
    },
}

/// The data files of a datagen folder, in game order: `positions.EXT`, or the shards'
/// `positions.shard-I-of-N.EXT` by shard index. A file is taken as it is.
pub fn data_files(path: &Path) -> Result<Vec<(PathBuf, Format)>, DataFilesError> {
    let path_buf = || path.to_path_buf();
    if path.is_file() {
        let format =
            Format::of_path(path).ok_or_else(|| DataFilesError::NotData { path: path_buf() })?;
        return Ok(vec![(path.to_path_buf(), format)]);
    }
    let entries = std::fs::read_dir(path).map_err(|error| DataFilesError::Io {
        path: path_buf(),
        error,
    })?;
    let mut whole = Vec::new();
    let mut shards = Vec::new();
    for entry in entries.flatten() {
        let p = entry.path();
        let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(format) = Format::of_path(&p) else {
            continue;
        };
        let stem = name
            .strip_suffix(format.extension())
            .and_then(|s| s.strip_suffix('.'))
            .unwrap_or("");
        if stem == DATA_STEM {
            whole.push((p, format));
        } else if let Some(shard) = stem
            .strip_prefix(DATA_STEM)
            .and_then(|s| s.strip_prefix(".shard-"))
            .and_then(|s| s.split_once("-of-"))
            .and_then(|(i, n)| Some((i.parse::<u32>().ok()?, n.parse::<u32>().ok()?)))
        {
            shards.push((shard, p, format));
        }
    }
    shards.sort_by_key(|s| s.0);
    // One run's data: the whole run's file, or every shard of one split.
    if !whole.is_empty() && !shards.is_empty() || whole.len() > 1 {
        return Err(DataFilesError::MoreThanOneRun { path: path_buf() });
    }
    if let Some(&((_, count), _, _)) = shards.first() {
        let indices: Vec<(u32, u32)> = shards.iter().map(|s| s.0).collect();
        if indices != (0..count).map(|i| (i, count)).collect::<Vec<_>>() {
            return Err(DataFilesError::Shards {
                path: path_buf(),
                count,
            });
        }
    }
    let mut files = whole;
    files.extend(shards.into_iter().map(|(_, p, f)| (p, f)));
    if files.is_empty() {
        return Err(DataFilesError::NoData { path: path_buf() });
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lines_read_and_refuse() {
        let r = parse_text_line("x5o/7/7/7/7/7/o5x x 0 1 | -35 | 0.5").unwrap();
        assert_eq!(r.position, "x5o/7/7/7/7/7/o5x x 0 1");
        assert_eq!((r.score, r.result), (Some(-35), 1));
        for bad in ["a | 1", "a | x | 1.0", "a | 1 | 0.7"] {
            assert!(parse_text_line(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_folder_reads_one_run_whole_or_every_shard_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let touch = |name: &str| std::fs::write(dir.path().join(name), "").unwrap();
        let names = |files: Vec<(PathBuf, Format)>| -> Vec<String> {
            files
                .iter()
                .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        touch("positions.shard-1-of-2.data");
        let e = data_files(dir.path()).unwrap_err();
        assert!(matches!(e, DataFilesError::Shards { count: 2, .. }), "{e}");
        assert!(e.to_string().contains("not shards 0 to 1"), "{e}");
        touch("positions.shard-0-of-2.data");
        touch("datagen.shard-0-of-2.log");
        assert_eq!(
            names(data_files(dir.path()).unwrap()),
            ["positions.shard-0-of-2.data", "positions.shard-1-of-2.data"]
        );
        touch("positions.shard-2-of-3.data");
        assert!(data_files(dir.path()).is_err());
        let whole = tempfile::tempdir().unwrap();
        std::fs::write(whole.path().join("positions.bin"), "").unwrap();
        assert_eq!(names(data_files(whole.path()).unwrap()), ["positions.bin"]);
        std::fs::write(whole.path().join("positions.txt"), "").unwrap();
        assert!(
            data_files(whole.path())
                .unwrap_err()
                .to_string()
                .contains("more than one run")
        );
        assert!(data_files(&whole.path().join("nothing")).is_err());
    }

    #[test]
    fn ataxx_fen_from_bitboards() {
        let start = crate::game::Ataxx::default();
        let fen = ataxx_fen(
            start.stones(Side::First),
            start.stones(Side::Second),
            0,
            Side::First,
            1,
            0,
        );
        assert_eq!(fen, start.fen());
    }
}
