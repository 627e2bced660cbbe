//! Game records and the results store: `games.jsonl`, one finished game a line, appended
//! and flushed before the game counts. A record is enough to replay the game and to
//! re-derive every statistic. The README's "Records" section documents every field.
//!
//! The written names say what a field is (`depth`, `nodes`, `time_us`, `first_move_by`);
//! files written before they did (`d`, `n`, `t`, `s`, `i`, `first_mover`, seeds and
//! mate scores as plain numbers) still read: every older spelling is accepted here, as
//! a serde alias or by the field's reader, and nowhere else.
//!
//! Reading tolerates exactly one kind of damage, the one a crash can cause: a torn last
//! line, which has no newline (a record is written with one write call that ends in its
//! newline, so a cut write lacks it). It is reported and dropped; damage anywhere else,
//! a complete last line included, is an error, because silently skipping a finished
//! game would lose it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::{
    files::jsonl::{self, Appender},
    game::GameSpec,
};

/// What one move cost and what the mover said about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveStat {
    /// Depth reached.
    #[serde(rename = "depth", alias = "d")]
    pub depth: u32,
    /// Nodes searched; 0 when the mover reported none (an outside engine without
    /// search figures), which is written as no `nodes` field. Files written before
    /// hold `"nodes": 0` there, which reads the same.
    #[serde(
        rename = "nodes",
        alias = "n",
        default,
        skip_serializing_if = "is_zero"
    )]
    pub nodes: u64,
    /// Time in microseconds (measured: differs between runs).
    #[serde(rename = "time_us", alias = "t")]
    pub time_us: u64,
    /// Score for the mover, if reported: in the engine's units, a forced result as
    /// `"win in 5 plies"` / `"loss in 4 plies"` (see [`score_text`]).
    #[serde(
        rename = "score",
        alias = "s",
        default,
        skip_serializing_if = "Option::is_none",
        with = "score_text"
    )]
    pub score: Option<i32>,
    /// Nodes searched when each iteration of iterative deepening completed (depth 1,
    /// 2, ...), cumulative; empty if unknown.
    #[serde(
        rename = "nodes_at_depth",
        alias = "i",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub iterations: Vec<u64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Scores as records write them: a number for an evaluation, `"win in N plies"` or
/// `"loss in N plies"` for a forced result (the search's `WIN - N`, which as a number
/// would read as a huge evaluation). Reads both, and the plain numbers of older files.
pub mod score_text {
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    use crate::search::score::{WIN, plies_to_end};

    /// The text of a decisive score, `None` for an evaluation.
    pub fn describe(score: i32) -> Option<String> {
        plies_to_end(score).map(|n| {
            let what = if score > 0 { "win" } else { "loss" };
            format!("{what} in {n} {}", if n == 1 { "ply" } else { "plies" })
        })
    }

    /// Reads what [`describe`] writes (`win in 5 plies`, `loss in 1 ply`; the unit may
    /// be left out).
    pub fn parse(text: &str) -> Option<i32> {
        let mut words = text.split_whitespace();
        let sign = match words.next()? {
            "win" => 1,
            "loss" => -1,
            _ => return None,
        };
        if words.next()? != "in" {
            return None;
        }
        let n: i32 = words.next()?.parse().ok()?;
        match words.next() {
            None | Some("ply" | "plies") if words.next().is_none() => {}
            _ => return None,
        }
        let score = sign * (WIN - n);
        (plies_to_end(score) == Some(n as u32)).then_some(score)
    }

    /// Serde: writes a decisive score as text, others as numbers.
    pub fn serialize<S: Serializer>(score: &Option<i32>, s: S) -> Result<S::Ok, S::Error> {
        match score {
            Some(v) => match describe(*v) {
                Some(text) => s.serialize_str(&text),
                None => s.serialize_i32(*v),
            },
            None => s.serialize_none(),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Number(i32),
        Text(String),
    }

    /// Serde: reads a number or a text written by [`serialize`].
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i32>, D::Error> {
        match Option::<Raw>::deserialize(d)? {
            None => Ok(None),
            Some(Raw::Number(v)) => Ok(Some(v)),
            Some(Raw::Text(t)) => parse(&t).map(Some).ok_or_else(|| {
                D::Error::custom(format!(
                    "score '{t}' is neither a number nor 'win in N plies' / 'loss in N plies'"
                ))
            }),
        }
    }
}

/// A `u64` written as a decimal string (JavaScript and jq read JSON numbers as doubles,
/// which lose seeds above 2^53); reads a string or, as older files hold, a number.
pub mod u64_text {
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    /// Serde: writes the decimal string.
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Number(u64),
        Text(String),
    }

    /// Serde: reads a string of digits or a number.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        match Raw::deserialize(d)? {
            Raw::Number(v) => Ok(v),
            Raw::Text(t) => t
                .parse()
                .map_err(|_| D::Error::custom(format!("'{t}' is not a 64-bit unsigned number"))),
        }
    }
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
    /// The game played (`gomoku`, `ataxx`, `mnk:9,9,5`); `None` in files written
    /// before records named it (the run's `run.toml` says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<GameSpec>,
    /// Game index in the schedule.
    pub game: u64,
    /// Game pair index (games `2p` and `2p+1`).
    pub pair: u64,
    /// Round (selects the opening).
    pub round: u64,
    /// Pairing index.
    pub pairing: usize,
    /// Index of the engine playing black: the first player (`x`), who moves first
    /// from the empty board or the standard start.
    pub black: usize,
    /// Index of the engine playing white: the second player (`o`).
    pub white: usize,
    /// Name of the engine playing black.
    pub black_name: String,
    /// Name of the engine playing white.
    pub white_name: String,
    /// The start position (after the opening), as position text (move list or FEN).
    pub opening: String,
    /// Index of the engine that played the first of `moves`: the side to move after the
    /// opening, which is white after an odd number of opening stones.
    #[serde(rename = "first_move_by", alias = "first_mover")]
    pub first_mover: usize,
    /// The moves played from the opening.
    pub moves: Vec<String>,
    /// Per move, in order.
    pub stats: Vec<MoveStat>,
    /// The result, from black's (the first player's) side: `1-0` black won.
    pub result: GameResult,
    /// Why it ended (`k-in-a-row`, `max-plies`, `resign`, `illegal-move`, ...).
    pub reason: String,
    /// Plies played from the opening.
    pub plies: u32,
    /// The game's seed (derived from the master seed and the game index), written as
    /// a string: it uses all 64 bits.
    #[serde(with = "u64_text")]
    pub seed: u64,
    /// False when a time limit was involved: replaying may give another game.
    pub reproducible: bool,
    /// Wall time of the game in milliseconds (measured).
    pub duration_ms: u64,
    /// When the game ended, UTC (`2026-12-02T00:41:07Z`; measured); `None` in files
    /// written before records said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub played_at: Option<String>,
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

    /// The record without its measured fields (times, the date), for comparing runs.
    pub fn without_times(&self) -> GameRecord {
        let mut r = self.clone();
        r.duration_ms = 0;
        r.played_at = None;
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

/// Appends records to `games.jsonl`, one line each, flushed to the disk before returning
/// (the durable log of [`crate::files::jsonl`]).
#[derive(Debug)]
pub struct RecordWriter {
    log: Appender,
}

impl RecordWriter {
    /// Opens (creating if needed) the results file for appending; never through a
    /// symbolic link, and only a regular file (see [`crate::files::open_regular`]).
    pub fn open(path: &Path) -> std::io::Result<RecordWriter> {
        Ok(RecordWriter {
            log: Appender::open(path)?,
        })
    }

    /// Writes one record as a line and flushes it; the game counts only after this.
    pub fn append(&mut self, record: &GameRecord) -> std::io::Result<()> {
        let mut line = serde_json::to_string(record).map_err(std::io::Error::other)?;
        line.push('\n');
        self.log.append_line(&line)
    }

    /// The file written to.
    pub fn path(&self) -> &Path {
        self.log.path()
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
    /// A damaged line that ends in its newline (so not a torn write).
    #[error(
        "{path}:{line}: not a game record ({why}); only a torn last line (no newline) can \
         be dropped"
    )]
    Corrupt {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// The parse error.
        why: String,
    },
    /// A line longer than [`MAX_RECORD_LINE`]: read no further.
    #[error(
        "{path}:{line}: a line of more than {} MB is not a game record (none is near that \
         long); the file is damaged",
        MAX_RECORD_LINE >> 20
    )]
    TooLong {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
    },
    /// Not a regular file (a FIFO, a device, or a link to one): never read.
    #[error("{path}: is {what}, not a regular file: a results file is read only from a file")]
    NotAFile {
        /// The file.
        path: String,
        /// What it is.
        what: String,
    },
}

/// The longest line of a results file read. A record holds every move's figures (its
/// nodes at each depth), so a long Ataxx game searched deep outgrows the 64 KB line of
/// an opening file; no game comes near this, and a longer line (a damaged file, or a
/// torn write that never ends) is refused before it fills the memory.
pub const MAX_RECORD_LINE: usize = 16 << 20;

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
    let shown = || path.display().to_string();
    let mut records = 0;
    let lines = jsonl::scan(path, MAX_RECORD_LINE, |number, line| {
        let parsed = std::str::from_utf8(line)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                serde_json::from_str::<GameRecord>(text.trim_end()).map_err(|e| e.to_string())
            });
        match parsed {
            Ok(record) => {
                each(number, record).map_err(ScanError::Record)?;
                records += 1;
                Ok(())
            }
            Err(_) if line.iter().all(u8::is_ascii_whitespace) => Ok(()),
            // A complete line that is not a record: damage, not a torn write, even when
            // it is the last line.
            Err(why) => Err(ScanError::Read(ReadError::Corrupt {
                path: shown(),
                line: number,
                why,
            })),
        }
    })
    .map_err(|e| match e {
        jsonl::ScanError::Io(source) => ScanError::Read(ReadError::Io {
            path: shown(),
            source,
        }),
        jsonl::ScanError::NotAFile(what) => ScanError::Read(ReadError::NotAFile {
            path: shown(),
            what: what.to_string(),
        }),
        jsonl::ScanError::TooLong(line) => ScanError::Read(ReadError::TooLong {
            path: shown(),
            line,
        }),
        jsonl::ScanError::Line(e) => e,
    })?;
    Ok(Scan {
        records,
        valid_len: lines.valid_len,
        torn_tail: lines.torn_tail,
        lines: lines.lines,
    })
}

/// Rewrites a complete results file in game order (through a temporary file, flushed,
/// renamed), when its lines are in another order: games finish in whatever order the
/// workers end them, and a finished run should read the same on any number of threads.
/// Returns whether it rewrote the file.
pub fn rewrite_in_game_order(path: &Path, records: &mut [GameRecord]) -> std::io::Result<bool> {
    if records.is_sorted_by_key(|r| r.game) {
        return Ok(false);
    }
    records.sort_by_key(|r| r.game);
    rewrite_records(path, records)?;
    Ok(true)
}

/// Replaces a results file with `records`, one a line in the order given (through a
/// temporary file, flushed, renamed).
pub fn rewrite_records(path: &Path, records: &[GameRecord]) -> std::io::Result<()> {
    let mut text = String::new();
    for r in records.iter() {
        text.push_str(&serde_json::to_string(r).map_err(std::io::Error::other)?);
        text.push('\n');
    }
    crate::files::write_atomic(path, text.as_bytes(), true).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
impl GameRecord {
    /// A record for unit tests: game 0 of pairing 0, engine `a` (black, moving first
    /// after the opening) against `b`, every move reported at depth 1 with 1 node and
    /// `score`.
    pub(crate) fn for_tests(
        variant: Option<GameSpec>,
        opening: &str,
        moves: &[&str],
        score: Option<i32>,
        result: GameResult,
        reason: &str,
    ) -> GameRecord {
        GameRecord {
            variant,
            game: 0,
            pair: 0,
            round: 0,
            pairing: 0,
            black: 0,
            white: 1,
            black_name: "a".into(),
            white_name: "b".into(),
            opening: opening.into(),
            first_mover: 0,
            moves: moves.iter().map(|m| m.to_string()).collect(),
            stats: moves
                .iter()
                .map(|_| MoveStat {
                    depth: 1,
                    nodes: 1,
                    time_us: 0,
                    score,
                    iterations: Vec::new(),
                })
                .collect(),
            result,
            reason: reason.into(),
            plies: moves.len() as u32,
            seed: 1,
            reproducible: true,
            duration_ms: 0,
            played_at: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::WIN;

    /// A line as `games.jsonl` held it before the fields were renamed: it must still read.
    const OLD_LINE: &str = r#"{"game":3,"pair":1,"round":1,"pairing":0,"black":1,"white":0,"black_name":"b","white_name":"a","opening":"h8","first_mover":0,"moves":["i9","h9"],"stats":[{"d":3,"n":120,"t":55,"s":-12,"i":[4,30,120]},{"d":2,"n":9,"t":7,"s":999999998}],"result":"0-1","reason":"resign","plies":2,"seed":18446744073709551615,"reproducible":true,"duration_ms":3}"#;

    #[test]
    fn old_records_still_read() {
        let r: GameRecord = serde_json::from_str(OLD_LINE).unwrap();
        assert_eq!(r.variant, None);
        assert_eq!(r.first_mover, 0);
        assert_eq!(r.seed, u64::MAX);
        assert_eq!(r.stats[0].iterations, vec![4, 30, 120]);
        assert_eq!(r.stats[0].score, Some(-12));
        assert_eq!(r.stats[1].score, Some(WIN - 2));
    }

    #[test]
    fn new_records_use_readable_names_and_round_trip() {
        let mut r: GameRecord = serde_json::from_str(OLD_LINE).unwrap();
        r.variant = Some("gomoku".parse().unwrap());
        r.stats[0].score = Some(-(WIN - 1));
        let line = serde_json::to_string(&r).unwrap();
        for key in [
            r#""variant":"gomoku""#,
            r#""first_move_by":0"#,
            r#""seed":"18446744073709551615""#,
            r#"{"depth":3,"nodes":120,"time_us":55,"score":"loss in 1 ply","nodes_at_depth":[4,30,120]}"#,
            r#""score":"win in 2 plies""#,
        ] {
            assert!(line.contains(key), "{key} in {line}");
        }
        let back: GameRecord = serde_json::from_str(&line).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn score_texts() {
        assert_eq!(score_text::describe(35), None);
        assert_eq!(
            score_text::describe(WIN - 5).as_deref(),
            Some("win in 5 plies")
        );
        assert_eq!(score_text::parse("win in 5 plies"), Some(WIN - 5));
        assert_eq!(score_text::parse("loss in 4"), Some(-(WIN - 4)));
        assert_eq!(score_text::parse("win in 5 moves"), None);
        assert_eq!(score_text::parse("draw"), None);
        // Past the decisive range is not a forced result.
        assert_eq!(score_text::parse("win in 100000 plies"), None);
    }
}
