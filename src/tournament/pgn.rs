//! PGN export, for rating tools (Ordo, BayesElo) and Ataxx GUIs and tools.
//!
//! Every game has the Seven Tag Roster (`Event`, `Site`, `Date`, `Round`, `White`,
//! `Black`, `Result`): `Date` (and `UTCDate`, `UTCTime`) from when the record says the
//! game was played (older records: the run's date, if its report recorded one), `Round`
//! the record's round, 1-based. Colours are the records' own: the engine playing black
//! (`x`, the first player) is `Black`, white (`o`) is `White`. By default `Result`
//! follows chess, from White's side as PGN defines it (`1-0` White won, `0-1` Black
//! won), so a rating tool credits the right engine (black moves first in both of our
//! games; a tool's "white advantage" is therefore the second player's). Ataxx tools
//! (cuteataxx, python-ataxx) write the first player's win as `1-0` instead:
//! [`ResultConvention::Ataxx`] writes theirs, and every Ataxx game says in a comment
//! which one it follows.
//!
//! Ataxx games are complete: `FEN` and `SetUp` give the start position (after the
//! opening, as libataxx and cuteataxx write it), then every move (`b2`, `a1a3`, `0000`
//! for a pass) numbered from the FEN's move counter, each with a comment of what the
//! mover reported (`{depth 5, nodes 1234, score +35, 12.3 ms}`). m,n,k games have no
//! move notation PGN tools know: their PGN is headers only (their moves go to SGF, see
//! [`super::sgf`]).

use std::fmt::Write as _;

use super::record::{GameRecord, GameResult, MoveStat, score_text};
use crate::game::{Ataxx, Game, GameSpec, Side};

/// What a live file holds, read back on resume.
#[derive(Debug, Default)]
pub(crate) struct ReadBack {
    /// The game index of each complete game, in file order.
    pub games: Vec<u64>,
    /// Bytes up to the end of the last complete game (a torn game may follow: a write
    /// cut short).
    pub valid_len: u64,
}

/// What every exported game shares.
#[derive(Clone, Copy, Debug)]
pub struct ExportInfo<'a> {
    /// The run's name (`Event`).
    pub event: &'a str,
    /// The game played.
    pub game: GameSpec,
    /// When the run was played, `YYYY.MM.DD`, for records that do not say when they were
    /// played (unknown: `????.??.??`, as PGN writes it).
    pub date: Option<&'a str>,
    /// Whose side PGN's `Result` is written from.
    pub convention: ResultConvention,
}

/// Whose side a PGN `Result` is from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ResultConvention {
    /// As in chess: from White's side (`1-0` White won; our black moves first, so its
    /// win is `0-1`). Ordo and BayesElo then credit the right engine.
    #[default]
    Chess,
    /// As cuteataxx and python-ataxx write Ataxx: from the first player's side (`1-0`
    /// black, `x`, won).
    Ataxx,
}

/// A result convention that is neither `chess` nor `ataxx`.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("'{0}' is not chess or ataxx")]
pub struct UnknownConvention(pub String);

impl std::str::FromStr for ResultConvention {
    type Err = UnknownConvention;

    fn from_str(s: &str) -> Result<ResultConvention, UnknownConvention> {
        match s.trim().to_ascii_lowercase().as_str() {
            "chess" => Ok(ResultConvention::Chess),
            "ataxx" => Ok(ResultConvention::Ataxx),
            _ => Err(UnknownConvention(s.to_string())),
        }
    }
}

/// A game that cannot be written because its opening cannot be read (a damaged record).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("game {game}: its opening: {error}")]
pub struct ExportError {
    /// The record's game.
    pub game: u64,
    /// Why the game refuses the opening.
    pub error: String,
}

impl ExportError {
    pub(crate) fn new(r: &GameRecord, error: impl std::fmt::Display) -> ExportError {
        ExportError {
            game: r.game,
            error: error.to_string(),
        }
    }
}

/// Why a live PGN or SGF file is not one this run wrote, at byte `at`.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReadBackError {
    /// PGN: a game whose Event tag is another run's.
    #[error("at byte {at}: a game of another run ({tag}; this run is '{event}')")]
    OtherRun {
        /// The byte offset of the game.
        at: usize,
        /// The game's Event tag.
        tag: String,
        /// This run's event.
        event: String,
    },
    /// SGF: a game whose name is not this run's.
    #[error("at byte {at}: not a game of this run ('{event}': no GN[{escaped} game N])")]
    OtherName {
        /// The byte offset of the game.
        at: usize,
        /// This run's event.
        event: String,
        /// The event as SGF writes it.
        escaped: String,
    },
    /// PGN: a game without its GameIndex tag.
    #[error("at byte {at}: a game without GameIndex")]
    NoGameIndex {
        /// The byte offset of the game.
        at: usize,
    },
    /// SGF: a game whose GN has no index.
    #[error("at byte {at}: a game without its index in GN")]
    NoIndexInName {
        /// The byte offset of the game.
        at: usize,
    },
    /// Text that is not a game as arena writes them.
    #[error("at byte {at}: not a game as arena writes them")]
    NotAGame {
        /// The byte offset of the text.
        at: usize,
    },
}

/// The PGN result of a record under `convention`.
pub fn pgn_result(result: GameResult, convention: ResultConvention) -> &'static str {
    match (result, convention) {
        (GameResult::Draw, _) => "1/2-1/2",
        (GameResult::FirstWins, ResultConvention::Chess)
        | (GameResult::SecondWins, ResultConvention::Ataxx) => "0-1",
        (GameResult::SecondWins, ResultConvention::Chess)
        | (GameResult::FirstWins, ResultConvention::Ataxx) => "1-0",
    }
}

/// The comment an Ataxx game starts with: which side `Result` is from.
fn convention_comment(convention: ResultConvention) -> &'static str {
    match convention {
        ResultConvention::Chess => {
            "{Result is from White's side, as in chess: Black (x) moves first and its win \
             is 0-1; cuteataxx and python-ataxx write 1-0 for it (arena export \
             --result-convention ataxx)}"
        }
        ResultConvention::Ataxx => {
            "{Result is from the first player's side, as cuteataxx and python-ataxx write \
             it: 1-0 is a win for Black (x, who moves first), unlike chess (arena export \
             --result-convention chess)}"
        }
    }
}

/// When `r` was played: `(YYYY.MM.DD, Some(HH:MM:SS))` from its record, else the run's
/// date from `info` (no time), else `None`.
pub fn played(info: &ExportInfo<'_>, r: &GameRecord) -> Option<(String, Option<String>)> {
    match r.played_at.as_deref().and_then(crate::utc::split_timestamp) {
        Some((date, time)) => Some((date.replace('-', "."), Some(time.to_string()))),
        None => info.date.map(|d| (d.to_string(), None)),
    }
}

/// PGN text of `records`, in game order. Errors name the game whose opening cannot be
/// read (a damaged record).
pub fn export(info: &ExportInfo<'_>, records: &[GameRecord]) -> Result<String, ExportError> {
    let mut sorted: Vec<&GameRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.game);
    let mut out = String::new();
    for r in sorted {
        write_game(&mut out, info, r)?;
    }
    Ok(out)
}

/// PGN text of one game, exactly as [`export`] writes it (a live file appends these).
pub fn game_text(info: &ExportInfo<'_>, r: &GameRecord) -> Result<String, ExportError> {
    let mut out = String::new();
    write_game(&mut out, info, r)?;
    Ok(out)
}

/// The games of `event` that a PGN file written by [`game_text`] holds, in file order,
/// and where the last complete one ends: a write cut short (a run killed mid-write)
/// leaves a torn last game, which is not counted. Errors: text that is no game of
/// `event` as arena writes them.
pub(crate) fn read_back(text: &str, event: &str) -> Result<ReadBack, ReadBackError> {
    let event_tag = format!("[Event \"{}\"]", escape(event));
    let mut back = ReadBack::default();
    let mut pos = 0;
    while pos < text.len() {
        let rest = &text[pos..];
        // Tags up to a blank line, then movetext ending in a result and a blank line.
        let whole = rest.split_once("\n\n").and_then(|(tags, after)| {
            let (movetext, _) = after.split_once("\n\n")?;
            let tags_ok = tags.lines().all(|l| l.starts_with('[') && l.ends_with(']'));
            let moves_ok = !movetext.lines().any(|l| l.starts_with('['))
                && movetext
                    .split_whitespace()
                    .last()
                    .is_some_and(|t| ["1-0", "0-1", "1/2-1/2", "*"].contains(&t));
            let index = tags
                .lines()
                .find_map(|l| l.strip_prefix("[GameIndex \"")?.strip_suffix("\"]"))
                .and_then(|n| n.parse::<u64>().ok());
            let len = tags.len() + 2 + movetext.len() + 2;
            (tags_ok && moves_ok).then_some((tags, index, len))
        });
        match whole {
            Some((tags, Some(index), len)) => {
                if tags.lines().next() != Some(event_tag.as_str()) {
                    return Err(ReadBackError::OtherRun {
                        at: pos,
                        tag: tags.lines().next().unwrap_or_default().to_string(),
                        event: event.to_string(),
                    });
                }
                back.games.push(index);
                pos += len;
            }
            Some((_, None, _)) => return Err(ReadBackError::NoGameIndex { at: pos }),
            None => {
                // A torn last game: the start of one, and no game after it.
                let start = "[Event \"";
                let torn = (rest.starts_with(start) || start.starts_with(rest))
                    && !rest.contains("\n\n[Event \"");
                if !torn {
                    return Err(ReadBackError::NotAGame { at: pos });
                }
                break;
            }
        }
    }
    back.valid_len = pos as u64;
    Ok(back)
}

fn write_game(out: &mut String, info: &ExportInfo<'_>, r: &GameRecord) -> Result<(), ExportError> {
    let tag = |out: &mut String, name: &str, value: &str| {
        let _ = writeln!(out, "[{name} \"{}\"]", escape(value));
    };
    let result = pgn_result(r.result, info.convention);
    let when = played(info, r);
    tag(out, "Event", info.event);
    tag(out, "Site", "?");
    tag(
        out,
        "Date",
        when.as_ref()
            .map_or("????.??.??", |(date, _)| date.as_str()),
    );
    tag(out, "Round", &(r.round + 1).to_string());
    tag(out, "White", &r.white_name);
    tag(out, "Black", &r.black_name);
    tag(out, "Result", result);
    if let Some((date, Some(time))) = &when {
        tag(out, "UTCDate", date);
        tag(out, "UTCTime", time);
    }
    let is_ataxx = matches!(info.game, GameSpec::Ataxx);
    if is_ataxx {
        tag(out, "FEN", &r.opening);
        tag(out, "SetUp", "1");
    }
    tag(out, "Variant", &info.game.to_string());
    tag(out, "Termination", &r.reason);
    tag(out, "PlyCount", &r.plies.to_string());
    tag(out, "GameIndex", &r.game.to_string());
    tag(out, "Seed", &r.seed.to_string());
    out.push('\n');
    let mut text = Vec::new();
    if is_ataxx {
        text.push(convention_comment(info.convention).to_string());
        let start = Ataxx::from_fen(&r.opening).map_err(|e| ExportError::new(r, e))?;
        let mut number = start.fullmoves();
        let mut side = start.side_to_move();
        // An illegal last move lost the game: it is said in a comment, not played, so a
        // reader replaying the moves meets only legal ones.
        let illegal = (r.reason == "illegal-move")
            .then(|| r.moves.last())
            .flatten();
        let played = &r.moves[..r.moves.len() - usize::from(illegal.is_some())];
        for (i, mv) in played.iter().enumerate() {
            // Black (`x`) moves first in a move number, as in libataxx's counter.
            if side == Side::First {
                text.push(format!("{number}."));
            } else if i == 0 {
                text.push(format!("{number}..."));
            }
            text.push(mv.clone());
            if let Some(s) = r.stats.get(i) {
                text.push(format!("{{{}}}", move_comment(s)));
            }
            if side == Side::Second {
                number += 1;
            }
            side = side.other();
        }
        if let Some(mv) = illegal {
            let by = if side == Side::First {
                "Black"
            } else {
                "White"
            };
            text.push(format!(
                "{{{by} answered with the illegal move '{}' and lost}}",
                mv.replace(['{', '}'], "")
            ));
        }
    }
    text.push(result.to_string());
    wrap(out, &text);
    out.push('\n');
    Ok(())
}

/// What the mover reported: `depth 5, nodes 1234, score +35, 12.3 ms`.
pub fn move_comment(s: &MoveStat) -> String {
    let score = match s.score {
        Some(v) => match score_text::describe(v) {
            Some(text) => format!(", {text}"),
            None => format!(", score {v:+}"),
        },
        None => String::new(),
    };
    format!(
        "depth {}, nodes {}{score}, {:.1} ms",
        s.depth,
        s.nodes,
        s.time_us as f64 / 1e3
    )
}

/// Movetext in lines of at most 79 characters (PGN export format), never breaking a
/// comment's words apart from its braces.
fn wrap(out: &mut String, tokens: &[String]) {
    let mut line = 0;
    for token in tokens.iter().flat_map(|t| t.split(' ')) {
        if line > 0 && line + 1 + token.len() > 79 {
            out.push('\n');
            line = 0;
        }
        if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(token);
        line += token.len();
    }
    out.push('\n');
}

/// A tag value: backslash and quote escaped as PGN says, and line breaks (and other
/// control characters) made spaces, since a tag must stay on its line.
fn escape(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: a line break in an engine's name broke the tag in two.
    #[test]
    fn tags_stay_on_their_line() {
        assert_eq!(escape("a\"b\\c"), "a\\\"b\\\\c");
        assert_eq!(escape("two\nlines\r\tx"), "two lines  x");
    }

    #[test]
    fn results_are_from_whites_side_unless_asked_for_ataxx_tools() {
        use ResultConvention::{Ataxx, Chess};
        // The records' `1-0` is black's (the first player's) win: PGN's `0-1`.
        assert_eq!(pgn_result(GameResult::FirstWins, Chess), "0-1");
        assert_eq!(pgn_result(GameResult::SecondWins, Chess), "1-0");
        assert_eq!(pgn_result(GameResult::Draw, Chess), "1/2-1/2");
        assert_eq!(pgn_result(GameResult::FirstWins, Ataxx), "1-0");
        assert_eq!(pgn_result(GameResult::SecondWins, Ataxx), "0-1");
        assert_eq!(pgn_result(GameResult::Draw, Ataxx), "1/2-1/2");
    }

    #[test]
    fn long_movetext_wraps() {
        let tokens: Vec<String> = (0..60).map(|i| format!("{i}. a1a3")).collect();
        let mut out = String::new();
        wrap(&mut out, &tokens);
        assert!(out.lines().all(|l| l.len() <= 79), "{out}");
        assert_eq!(
            out.split_whitespace().count(),
            120,
            "no token lost or split"
        );
    }
}
