//! Opening lists: opening files (one opening a line, read line by line within size
//! limits, a bad line refused with its number) and the balanced sets shipped in the
//! binary ([`SHIPPED`]).

use super::{Opening, OpeningGame};
use crate::{
    config::ConfigError,
    tournament::config::{OpeningKind, OpeningsConfig},
};

/// A balanced opening set shipped with arena: made by `arena openings --balance` (the
/// command is in the file's header), kept in `configs/openings/` and built into the
/// binary, so `[openings] kind = "balanced"` finds it from any folder.
#[derive(Debug)]
pub struct Shipped {
    /// The game it is for, as `GameSpec` prints it.
    pub game: &'static str,
    /// Where it lives in the repository.
    pub path: &'static str,
    /// The file.
    pub text: &'static str,
}

/// The shipped balanced sets, one per game that has one.
pub const SHIPPED: &[Shipped] = &[
    Shipped {
        game: "gomoku",
        path: "configs/openings/gomoku-balanced.txt",
        text: include_str!("../../../configs/openings/gomoku-balanced.txt"),
    },
    Shipped {
        game: "renju",
        path: "configs/openings/renju-balanced.txt",
        text: include_str!("../../../configs/openings/renju-balanced.txt"),
    },
    Shipped {
        game: "ataxx",
        path: "configs/openings/ataxx-6ply-balanced.txt",
        text: include_str!("../../../configs/openings/ataxx-6ply-balanced.txt"),
    },
];

impl Shipped {
    /// The shipped balanced set of `game`, if it has one.
    pub fn of(game: &crate::game::GameSpec) -> Option<&'static Shipped> {
        let name = game.to_string();
        SHIPPED.iter().find(|s| s.game == name)
    }

    /// The start positions of this set as the records write them
    /// ([`Opening::position`](super::Opening)) on `game`'s board, in every symmetry a
    /// transform may play them in; empty when the set does not read on that board.
    pub fn positions(&self, game: &crate::game::GameSpec) -> std::collections::HashSet<String> {
        crate::with_game!(*game, |G, config| {
            let list = read_lines::<G, _>(self.path, std::io::Cursor::new(self.text), &config)
                .unwrap_or_default();
            let symmetries = G::symmetries(&config);
            list.iter()
                .flat_map(|o| {
                    (0..symmetries).filter_map(|s| G::transformed(&config, &o.position, s).ok())
                })
                .collect()
        })
    }

    /// Whether every opening of `played` (records' start positions) is one of this set's
    /// on `game`'s board: a file of lines taken from it, such as the held-out openings
    /// docs/experiments.md measures on, is balanced as the set is. False without
    /// openings.
    pub fn holds_all<'a>(
        &self,
        game: &crate::game::GameSpec,
        played: impl IntoIterator<Item = &'a str>,
    ) -> bool {
        let positions = self.positions(game);
        let mut any = false;
        for opening in played {
            if !positions.contains(opening) {
                return false;
            }
            any = true;
        }
        any
    }
}

/// The largest opening file read (64 MB: a million Ataxx FENs); a larger one is
/// refused before it is read.
pub const MAX_OPENINGS_FILE: u64 = 64 << 20;

/// The longest line of an opening file (a move list of a 20×20 board is under 2 KB).
pub const MAX_OPENING_LINE: usize = 64 << 10;

/// The openings of a list (`kind = "file"` or `"balanced"`), read and checked whole;
/// `None` for random openings or none. `base` locates a relative `file`.
pub fn listed<G: OpeningGame>(
    o: &OpeningsConfig,
    base: &std::path::Path,
    spec: &crate::game::GameSpec,
    game: &G::Config,
) -> Result<Option<Vec<Opening>>, ConfigError> {
    match o.kind {
        OpeningKind::File => {
            let file = o
                .file
                .as_deref()
                .expect("validated: kind = file has a file");
            read_file::<G>(&crate::config::resolve(base, file), game).map(Some)
        }
        OpeningKind::Balanced => {
            let set = Shipped::of(spec).ok_or_else(|| {
                ConfigError::new(
                    base.display().to_string(),
                    format!(
                        "[openings]: {}",
                        o.refusal(spec)
                            .unwrap_or_else(|| "no balanced openings".into())
                    ),
                )
            })?;
            read_lines::<G, _>(set.path, std::io::Cursor::new(set.text), game).map(Some)
        }
        OpeningKind::Random | OpeningKind::None => Ok(None),
    }
}

/// Reads an opening file: one opening a line; blank lines and `#` comments skipped.
/// The file is read line by line (a bad line is refused before the rest is read), at
/// most [`MAX_OPENINGS_FILE`] bytes with lines of at most [`MAX_OPENING_LINE`].
///
/// m,n,k lines are Gomocup / c-gomoku-cli offsets (`0,0, 1,-1, -1,1`: `dx,dy` from the
/// centre) or pos move lists (`h8 i7 g9`, `h8i7g9`); Ataxx lines are FENs or EPD lines
/// whose operations (`; id "x";`) are ignored.
pub fn read_file<G: OpeningGame>(
    path: &std::path::Path,
    game: &G::Config,
) -> Result<Vec<Opening>, ConfigError> {
    let source = path.display().to_string();
    let file = std::fs::File::open(path)
        .map_err(|e| ConfigError::new(&source, format!("cannot read: {e}")))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size > MAX_OPENINGS_FILE {
        return Err(ConfigError::new(
            &source,
            format!(
                "an opening file of {} MB is more than {} MB: use fewer openings (rounds \
                 cycle through them)",
                size >> 20,
                MAX_OPENINGS_FILE >> 20
            ),
        ));
    }
    read_lines::<G, _>(&source, std::io::BufReader::new(file), game)
}

/// The openings of `reader`, one a line, as [`read_file`] reads them; errors name
/// `source` and the line.
pub(super) fn read_lines<G: OpeningGame, R: std::io::BufRead>(
    source: &str,
    reader: R,
    game: &G::Config,
) -> Result<Vec<Opening>, ConfigError> {
    let at = |line: usize, message: String| ConfigError {
        source: source.to_string(),
        line: Some(line),
        message,
    };
    let mut reader = reader.take(MAX_OPENINGS_FILE + 1);
    let mut list = Vec::new();
    let mut buf = Vec::new();
    for n in 1.. {
        let read = crate::files::read_line_capped(&mut reader, MAX_OPENING_LINE, &mut buf)
            .map_err(|e| ConfigError::new(source, format!("cannot read: {e}")))?;
        if read == 0 {
            break;
        }
        if buf.len() > MAX_OPENING_LINE {
            return Err(at(
                n,
                format!("a line of more than {MAX_OPENING_LINE} bytes is not an opening"),
            ));
        }
        let line = std::str::from_utf8(&buf)
            .map_err(|_| at(n, "the line is not UTF-8 text".into()))?
            .trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let pos = G::opening_from_line(game, line).map_err(|e| at(n, e.to_string()))?;
        if pos.outcome().is_some() {
            return Err(at(n, "the game is already over in this opening".into()));
        }
        list.push(Opening {
            position: pos.to_text(),
        });
    }
    if list.is_empty() {
        return Err(ConfigError::new(source, "no openings in the file"));
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::{
        super::testing::{file, gomoku},
        *,
    };
    use crate::game::Mnk;

    #[test]
    fn gomocup_offsets_and_pos_lines_read_alike() {
        let (_dir, path) = file(
            "o.txt",
            "0,0, 1,-1, -1,1\n0,0,1,-1,-1,1\nh8 i7 g9\nh8i7g9\n  0, 0,  1, -1, -1, 1  \n",
        );
        let list = read_file::<Mnk>(&path, &gomoku()).unwrap();
        assert_eq!(list.len(), 5);
        for o in &list {
            assert_eq!(o.position, "h8i7g9");
        }
    }

    #[test]
    fn bad_opening_lines_name_the_file_and_line() {
        let g = gomoku();
        for (text, why) in [
            ("h8\n0,0, 1\n", "3 numbers: offsets come in dx,dy pairs"),
            ("h8\n0,0, 8,0\n", "stone 2: offset 8,0 is outside the board"),
            ("h8\n0,0, 0,0\n", "stone 2: offset 0,0 (h8) is taken"),
            ("h8\n0,0, x,1\n", "move 1"),
            ("h8\nh8 h8\n", "move 2"),
            ("h8\nh8 z99\n", "move 2"),
        ] {
            let (_dir, path) = file("o.txt", text);
            let e = read_file::<Mnk>(&path, &g).unwrap_err().to_string();
            let at = format!("{}:2: ", path.display());
            assert!(e.starts_with(&at), "{text:?}: {e}");
            assert!(e.contains(why), "{text:?}: {e}");
        }
    }

    #[test]
    fn ataxx_epd_lines_keep_the_position_and_drop_the_operations() {
        let (_dir, path) = file(
            "book.epd",
            "x5o/7/7/7/7/7/o5x x 0 1; id \"start\";\n\
             x5o/7/7/7/7/7/o5x o hmvc 3; fmvn 2; id \"b\";\n\
             x5o/7/7/7/7/7/o5x x; c0 \"no counters\";\n\
             x5o/7/7/7/7/7/o5x x 0 1\n",
        );
        let list = read_file::<crate::game::Ataxx>(&path, &()).unwrap();
        let fens: Vec<&str> = list.iter().map(|o| o.position.as_str()).collect();
        assert_eq!(
            fens,
            [
                "x5o/7/7/7/7/7/o5x x 0 1",
                "x5o/7/7/7/7/7/o5x o 3 2",
                "x5o/7/7/7/7/7/o5x x 0 1",
                "x5o/7/7/7/7/7/o5x x 0 1",
            ]
        );
        for (text, why) in [
            (
                "x5o/7/7/7/7/7/o5x x 0 1 7; id \"a\";\n",
                "two counters at most",
            ),
            ("x5o/7/7 x 0 1; id \"a\";\n", "ranks"),
            (
                "x5o/7/7/7/7/7/o5x; id \"a\";\n",
                "starts with the board and the side",
            ),
            ("x5o/7/7/7/7/7/o5x q 0 1; id \"a\";\n", "side to move 'q'"),
        ] {
            let (_dir, path) = file("book.epd", &format!("x5o/7/7/7/7/7/o5x x 0 1\n{text}"));
            let e = read_file::<crate::game::Ataxx>(&path, &())
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(&format!("{}:2: ", path.display())), "{e}");
            assert!(e.contains(why), "{text:?}: {e}");
        }
    }
}
