//! SGF export of m,n,k games (gomoku, tic-tac-toe): one game tree per game, as
//! c-gomoku-cli writes them, so Piskvork-era viewers, Renlib and any SGF editor open
//! them. `FF[4] GM[4]` (gomoku), `SZ[15]` (`SZ[W:H]` for a board that is not square),
//! `PB`/`PW` the engines playing black (first) and white, `RE[B+]`, `RE[W+]` or
//! `RE[Draw]` (`+R` resignation, `+T` time, `+F` forfeit: a fault or an illegal move),
//! `RU[Renju]` for renju (a forbidden move is played and the game ends there: `W+`).
//!
//! Moves are SGF points: column letter then row letter, both from the top left (`a`
//! first), so `h8` in our notation (column h, row 8 from the top) is `hh`. The opening's
//! stones are the first moves (the root comment says how many); every engine move
//! carries what the mover reported in `C[...]`.

use std::fmt::Write as _;

use super::{
    pgn::{ExportError, ExportInfo, ReadBack, ReadBackError, move_comment},
    record::{GameRecord, GameResult},
};
use crate::game::{Game, Mnk, MnkConfig, MnkRule};

/// SGF text of `records` (m,n,k games of the variant `config`), in game order, one game
/// tree per game (a collection). Errors name the game whose opening cannot be read.
pub fn export(
    info: &ExportInfo<'_>,
    config: &MnkConfig,
    records: &[GameRecord],
) -> Result<String, ExportError> {
    let mut sorted: Vec<&GameRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.game);
    let mut out = String::new();
    for r in sorted {
        write_game(&mut out, info, config, r)?;
    }
    Ok(out)
}

/// SGF text of one game, exactly as [`export`] writes it (a live file appends these).
pub fn game_text(
    info: &ExportInfo<'_>,
    config: &MnkConfig,
    r: &GameRecord,
) -> Result<String, ExportError> {
    let mut out = String::new();
    write_game(&mut out, info, config, r)?;
    Ok(out)
}

/// The games of `event` that an SGF file written by [`game_text`] holds, in file order,
/// and where the last complete one ends (see [`super::pgn::read_back`]): each game tree
/// is read up to its closing parenthesis, property values with their escapes, and its
/// game index taken from `GN[EVENT game N]`.
pub(crate) fn read_back(text: &str, event: &str) -> Result<ReadBack, ReadBackError> {
    let name_prefix = format!("GN[{} game ", escape(event));
    let mut back = ReadBack::default();
    let mut pos = 0;
    while pos < text.len() {
        let rest = &text[pos..];
        match game_tree(rest) {
            Some(len) => {
                let tree = &rest[..len];
                let Some(after) = tree
                    .find(&name_prefix)
                    .map(|i| &tree[i + name_prefix.len()..])
                else {
                    return Err(ReadBackError::OtherName {
                        at: pos,
                        event: event.to_string(),
                        escaped: escape(event),
                    });
                };
                let index = after
                    .split_once(']')
                    .and_then(|(n, _)| n.parse::<u64>().ok())
                    .ok_or(ReadBackError::NoIndexInName { at: pos })?;
                back.games.push(index);
                pos += len;
            }
            None => {
                let start = "(;FF[4]";
                let torn = (rest.starts_with(start) || start.starts_with(rest))
                    && !rest.contains("\n(;FF[4]");
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

/// The length of the game tree `text` starts with, its line end included; None when it
/// does not start with a complete one.
fn game_tree(text: &str) -> Option<usize> {
    if !text.starts_with("(;") {
        return None;
    }
    let (mut depth, mut in_value, mut escaped) = (0u32, false, false);
    for (i, c) in text.char_indices() {
        if in_value {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, ']') => in_value = false,
                _ => {}
            }
            continue;
        }
        match c {
            '[' => in_value = true,
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return text[i + 1..].starts_with('\n').then_some(i + 2);
                }
            }
            _ => {}
        }
    }
    None
}

fn write_game(
    out: &mut String,
    info: &ExportInfo<'_>,
    config: &MnkConfig,
    r: &GameRecord,
) -> Result<(), ExportError> {
    let start = Mnk::from_text(config, &r.opening).map_err(|e| ExportError::new(r, e))?;
    let size = if config.width() == config.height() {
        config.width().to_string()
    } else {
        format!("{}:{}", config.width(), config.height())
    };
    let _ = write!(
        out,
        "(;FF[4]GM[4]CA[UTF-8]AP[arena:{}]SZ[{size}]",
        env!("CARGO_PKG_VERSION")
    );
    let prop = |out: &mut String, name: &str, value: &str| {
        let _ = write!(out, "{name}[{}]", escape(value));
    };
    if config.rule() == MnkRule::Renju {
        // The conventional rule property (Renlib, RenjuNet): black's forbidden moves apply.
        prop(out, "RU", "Renju");
    }
    prop(out, "EV", info.event);
    prop(out, "RO", &(r.round + 1).to_string());
    if let Some((date, _)) = super::pgn::played(info, r) {
        prop(out, "DT", &date.replace('.', "-"));
    }
    prop(out, "PB", &r.black_name);
    prop(out, "PW", &r.white_name);
    prop(out, "RE", &result(r));
    prop(out, "GN", &format!("{} game {}", info.event, r.game));
    let opening = start.history().len();
    prop(
        out,
        "GC",
        &format!(
            "{}; ended by {}; {} opening stone(s), then {} engine move(s); game {} of the \
             run, seed {}",
            info.game, r.reason, opening, r.plies, r.game, r.seed
        ),
    );
    out.push('\n');
    let mut colour = ['B', 'W'].into_iter().cycle();
    for &mv in start.history() {
        let _ = write!(
            out,
            ";{}[{}]",
            colour.next().expect("cycles"),
            point(config, mv)
        );
    }
    if opening > 0 {
        out.push('\n');
    }
    let mut pos = start.clone();
    for (i, text) in r.moves.iter().enumerate() {
        let c = colour.next().expect("cycles");
        let played = pos.parse_move(text).ok().filter(|&mv| pos.is_legal(mv));
        let Some(mv) = played else {
            // An illegal answer lost the game: said, not played.
            let _ = write!(
                out,
                ";C[{} answered with the illegal move '{}' and lost]",
                if c == 'B' { "Black" } else { "White" },
                escape(text)
            );
            break;
        };
        pos.play(mv);
        let _ = write!(out, ";{c}[{}]", point(config, mv));
        if let Some(s) = r.stats.get(i) {
            let _ = write!(out, "C[{}]", escape(&move_comment(s)));
        }
        out.push('\n');
    }
    out.push_str(")\n");
    Ok(())
}

/// An SGF point: column then row, `a` = 0, from the top left.
fn point(config: &MnkConfig, mv: crate::game::MnkMove) -> String {
    let (x, y) = config.xy(mv);
    let letter = |v: i32| char::from(b'a' + v as u8);
    format!("{}{}", letter(x), letter(y))
}

/// `RE`: the winner's colour and how (`B+`, `W+R`, `Draw`).
fn result(r: &GameRecord) -> String {
    let winner = match r.result {
        GameResult::FirstWins => "B",
        GameResult::SecondWins => "W",
        GameResult::Draw => return "Draw".into(),
    };
    let how = match r.reason.as_str() {
        "resign" => "R",
        "time-forfeit" => "T",
        "k-in-a-row" => "",
        _ if super::summary::fault_kind(&r.reason).is_some() => "F",
        _ => "",
    };
    format!("{winner}+{how}")
}

/// SGF text values escape `]` and `\`.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace(']', "\\]")
}
