//! Game records and the results store: `games.jsonl`, one finished game a line, appended
//! and flushed before the game counts. A record is enough to replay the game and to
//! re-derive every statistic.
//!
//! Reading tolerates exactly one kind of damage, the one a crash can cause: a torn last
//! line (no newline, or not valid JSON). It is reported and dropped; damage anywhere else
//! is an error, because silently skipping a finished game would lose it.

use std::{
    fs::{File, OpenOptions},
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};

/// What one move cost and what the mover said about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveStat {
    /// Depth reached.
    #[serde(rename = "d")]
    pub depth: u32,
    /// Nodes searched.
    #[serde(rename = "n")]
    pub nodes: u64,
    /// Time in microseconds (measured: differs between runs).
    #[serde(rename = "t")]
    pub time_us: u64,
    /// Score for the mover, if reported.
    #[serde(rename = "s", default, skip_serializing_if = "Option::is_none")]
    pub score: Option<i32>,
    /// Nodes searched when each iteration of iterative deepening completed (depth 1,
    /// 2, ...), cumulative; empty if unknown.
    #[serde(rename = "i", default, skip_serializing_if = "Vec::is_empty")]
    pub iterations: Vec<u64>,
}

/// The result of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameResult {
    /// The first player won.
    #[serde(rename = "1-0")]
    FirstWins,
    /// The second player won.
    #[serde(rename = "0-1")]
    SecondWins,
    /// Draw.
    #[serde(rename = "1/2-1/2")]
    Draw,
}

impl GameResult {
    /// PGN-style text.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::FirstWins => "1-0",
            GameResult::SecondWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// Points of the first player: 1, ½ or 0, in half points.
    pub fn first_half_points(self) -> u8 {
        match self {
            GameResult::FirstWins => 2,
            GameResult::Draw => 1,
            GameResult::SecondWins => 0,
        }
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Game index in the schedule.
    pub game: u64,
    /// Game pair index (games `2p` and `2p+1`).
    pub pair: u64,
    /// Round (selects the opening).
    pub round: u64,
    /// Pairing index.
    pub pairing: usize,
    /// Index of the engine that moved first.
    pub black: usize,
    /// Index of the engine that moved second.
    pub white: usize,
    /// Name of the engine that moved first.
    pub black_name: String,
    /// Name of the engine that moved second.
    pub white_name: String,
    /// The start position (after the opening), as position text (move list or FEN).
    pub opening: String,
    /// Index of the engine that made the first of `moves` (the side to move in the
    /// opening position, which is not always the first player).
    pub first_mover: usize,
    /// The moves played from the opening.
    pub moves: Vec<String>,
    /// Per move, in order.
    pub stats: Vec<MoveStat>,
    /// The result.
    pub result: GameResult,
    /// Why it ended (`k-in-a-row`, `max-plies`, `resign`, `illegal-move`, ...).
    pub reason: String,
    /// Plies played from the opening.
    pub plies: u32,
    /// The game's seed (derived from the master seed and the game index).
    pub seed: u64,
    /// False when a time limit was involved: replaying may give another game.
    pub reproducible: bool,
    /// Wall time of the game in milliseconds (measured).
    pub duration_ms: u64,
}

impl GameRecord {
    /// The engine that made move `i` of `moves`.
    pub fn mover(&self, i: usize) -> usize {
        let other = if self.first_mover == self.black {
            self.white
        } else {
            self.black
        };
        if i.is_multiple_of(2) {
            self.first_mover
        } else {
            other
        }
    }

    /// The record without its measured fields (times), for comparing runs.
    pub fn without_times(&self) -> GameRecord {
        let mut r = self.clone();
        r.duration_ms = 0;
        for s in &mut r.stats {
            s.time_us = 0;
        }
        r
    }

    /// Half points of engine `engine` in this game (None if it did not play).
    pub fn half_points_of(&self, engine: usize) -> Option<u8> {
        let first = self.result.first_half_points();
        if self.black == engine {
            Some(first)
        } else if self.white == engine {
            Some(2 - first)
        } else {
            None
        }
    }
}

/// Appends records to `games.jsonl`, one line each, flushed to the OS before returning.
#[derive(Debug)]
pub struct RecordWriter {
    file: File,
    path: PathBuf,
}

impl RecordWriter {
    /// Opens (creating if needed) the results file for appending.
    pub fn open(path: &Path) -> std::io::Result<RecordWriter> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(RecordWriter {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Writes one record as a line and flushes it; the game counts only after this.
    pub fn append(&mut self, record: &GameRecord) -> std::io::Result<()> {
        let mut line = serde_json::to_string(record).map_err(std::io::Error::other)?;
        line.push('\n');
        // One write call per line, so a crash tears at most the last line.
        self.file.write_all(line.as_bytes())?;
        self.file.flush()?;
        self.file.sync_data()
    }

    /// The file written to.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// What [`read_records`] found.
#[derive(Debug, Default)]
pub struct ReadRecords {
    /// Every complete record, in file order.
    pub records: Vec<GameRecord>,
    /// Byte length of the valid part (a torn tail starts here).
    pub valid_len: u64,
    /// Whether a torn last line was found (and left out).
    pub torn_tail: bool,
}

/// Why a results file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// I/O.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// A damaged line that is not the last one.
    #[error("{path}:{line}: not a game record ({why}); only a torn last line can be dropped")]
    Corrupt {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// The parse error.
        why: String,
    },
}

/// Reads every record of a results file (a missing file has none).
pub fn read_records(path: &Path) -> Result<ReadRecords, ReadError> {
    let mut records = Vec::new();
    let scan = scan_records(path, |_, record| {
        records.push(record);
        Ok::<(), std::convert::Infallible>(())
    })
    .map_err(|e| match e {
        ScanError::Read(e) => e,
        ScanError::Record(never) => match never {},
    })?;
    Ok(ReadRecords {
        records,
        valid_len: scan.valid_len,
        torn_tail: scan.torn_tail,
    })
}

/// What [`scan_records`] found besides the records it handed over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// Complete records handed to the callback.
    pub records: u64,
    /// Byte length of the valid part (a torn tail starts here).
    pub valid_len: u64,
    /// Whether a torn last line was found (and left out).
    pub torn_tail: bool,
    /// Lines read (a torn last line included).
    pub lines: usize,
}

/// Why [`scan_records`] stopped.
#[derive(Debug)]
pub enum ScanError<E> {
    /// The file could not be read, or a line that is not the last is damaged.
    Read(ReadError),
    /// The callback refused a record.
    Record(E),
}

/// Hands every complete record of a results file to `each` with its 1-based line
/// number, in file order, without holding them all in memory (a missing file has none).
/// A torn last line is left out, as [`read_records`] does.
pub fn scan_records<E>(
    path: &Path,
    mut each: impl FnMut(usize, GameRecord) -> Result<(), E>,
) -> Result<Scan, ScanError<E>> {
    let io = |source| {
        ScanError::Read(ReadError::Io {
            path: path.display().to_string(),
            source,
        })
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Scan::default()),
        Err(e) => return Err(io(e)),
    };
    let mut reader = BufReader::new(file);
    let mut out = Scan::default();
    let mut line = Vec::new();
    let mut number = 0;
    let mut pending_error: Option<(usize, String)> = None;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(io)?;
        if n == 0 {
            break;
        }
        number += 1;
        if let Some((at, why)) = pending_error.take() {
            // A bad line followed by more lines: real corruption, not a torn tail.
            return Err(ScanError::Read(ReadError::Corrupt {
                path: path.display().to_string(),
                line: at,
                why,
            }));
        }
        let complete = line.last() == Some(&b'\n');
        let parsed = std::str::from_utf8(&line)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                serde_json::from_str::<GameRecord>(text.trim_end()).map_err(|e| e.to_string())
            });
        match parsed {
            Ok(record) if complete => {
                each(number, record).map_err(ScanError::Record)?;
                out.records += 1;
                out.valid_len += n as u64;
            }
            Ok(_) => {
                // Valid JSON without its newline: the write was cut just before the end.
                out.torn_tail = true;
            }
            Err(_) if line.iter().all(u8::is_ascii_whitespace) => {
                out.valid_len += n as u64;
            }
            Err(why) => pending_error = Some((number, why)),
        }
    }
    if pending_error.is_some() {
        out.torn_tail = true;
    }
    out.lines = number;
    Ok(out)
}

/// Cuts a torn tail off the results file so appending continues on a clean line.
pub fn truncate_to(path: &Path, len: u64) -> std::io::Result<()> {
    let file = OpenOptions::new().write(true).open(path)?;
    file.set_len(len)?;
    file.sync_all()
}
