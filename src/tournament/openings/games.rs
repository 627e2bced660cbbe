//! The games' side of openings: random openings of m,n,k and Ataxx, how a line of an
//! opening file reads in each game (Gomocup offsets, move lists, FENs, EPD lines), and
//! the symmetries of the m,n,k board. Knows nothing of books or tournaments.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::{LineError, OpeningGame};
use crate::game::{Game, Mnk, MnkConfig, symmetric_cell};

impl OpeningGame for Mnk {
    fn symmetries(config: &MnkConfig) -> usize {
        if config.width() == config.height() {
            8
        } else {
            4
        }
    }

    fn transformed(
        config: &MnkConfig,
        position: &str,
        symmetry: usize,
    ) -> Result<String, LineError> {
        let pos =
            Mnk::from_text(config, position).map_err(|e| LineError::Position(e.to_string()))?;
        if position.contains('/') {
            return Err(LineError::NotAMoveList);
        }
        let (w, h) = (config.width() as i32, config.height() as i32);
        let mut image = Mnk::new(config);
        for &mv in pos.history() {
            let (x, y) = config.xy(mv);
            let (tx, ty) = symmetric_cell(x, y, w, h, symmetry);
            let t = config
                .at(tx, ty)
                .expect("a symmetry of the board's shape maps the board onto itself");
            image.play(t);
        }
        Ok(image.to_text())
    }

    fn too_many_plies(config: &MnkConfig, plies: u32) -> Option<String> {
        (plies as usize >= config.cells()).then(|| {
            format!(
                "the {}x{} board has {} cells, so {plies} plies leave no game to play",
                config.width(),
                config.height(),
                config.cells()
            )
        })
    }

    fn random_opening(
        config: &MnkConfig,
        plies: u32,
        radius: u32,
        rng: &mut ChaCha8Rng,
    ) -> Option<Mnk> {
        let mut pos = Mnk::new(config);
        let (cx, cy) = config.centre();
        // Only cells on the board: a huge radius costs the board, not the radius.
        let r = radius.min(config.width().max(config.height()) as u32) as i32;
        let mut near = Vec::new();
        for _ in 0..plies {
            near.clear();
            for y in (cy - r).max(0)..=(cy + r).min(config.height() as i32 - 1) {
                for x in (cx - r).max(0)..=(cx + r).min(config.width() as i32 - 1) {
                    if let Some(mv) = config.at(x, y)
                        && pos.is_legal(mv)
                    {
                        near.push(mv);
                    }
                }
            }
            if near.is_empty() {
                pos.legal_moves(&mut near);
            }
            if near.is_empty() {
                return None;
            }
            pos.play(near[rng.random_range(0..near.len())]);
            if pos.outcome().is_some() {
                return None;
            }
        }
        Some(pos)
    }

    fn random_plies(start: &Mnk, plies: u32, rng: &mut ChaCha8Rng) -> Option<Mnk> {
        // Three or four cells (Chebyshev) from the nearest stone: close enough to play a
        // part in the game, far enough not to decide the opening's fight (measured on
        // configs/tune-gomoku.toml: 55.0 % of pairs split with these, 58.1 % with plies
        // next to the stones). A board without such cells takes any cell within two.
        const RINGS: [(i32, i32); 2] = [(3, 4), (1, 2)];
        let config = *start.config();
        let (w, h) = (config.width() as i32, config.height() as i32);
        let mut pos = start.clone();
        let mut cells = Vec::new();
        for _ in 0..plies {
            let stones: Vec<(i32, i32)> = pos.history().iter().map(|&m| config.xy(m)).collect();
            let centre = [config.centre()];
            let around: &[(i32, i32)] = if stones.is_empty() { &centre } else { &stones };
            for (near, far) in RINGS {
                cells.clear();
                for y in 0..h {
                    for x in 0..w {
                        let d = around
                            .iter()
                            .map(|&(sx, sy)| (sx - x).abs().max((sy - y).abs()))
                            .min()
                            .unwrap_or(0);
                        if (near..=far).contains(&d)
                            && let Some(mv) = config.at(x, y)
                            && pos.is_legal(mv)
                        {
                            cells.push(mv);
                        }
                    }
                }
                if !cells.is_empty() {
                    break;
                }
            }
            if cells.is_empty() {
                return None;
            }
            pos.play(cells[rng.random_range(0..cells.len())]);
            if pos.outcome().is_some() {
                return None;
            }
        }
        Some(pos)
    }

    fn opening_from_line(config: &MnkConfig, line: &str) -> Result<Mnk, LineError> {
        if line.chars().any(|c| c.is_ascii_alphabetic()) {
            return Mnk::from_text(config, line).map_err(|e| LineError::Position(e.to_string()));
        }
        // Gomocup offsets: dx,dy pairs from the centre.
        let numbers: Vec<&str> = line
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        if !numbers.len().is_multiple_of(2) {
            return Err(LineError::OddOffsets(numbers.len()));
        }
        let (cx, cy) = config.centre();
        let mut pos = Mnk::new(config);
        for (i, pair) in numbers.chunks(2).enumerate() {
            let num = |t: &str| {
                t.parse::<i32>()
                    .map_err(|_| LineError::NotANumber(t.to_string()))
            };
            let (dx, dy) = (num(pair[0])?, num(pair[1])?);
            let mv = config.at(cx + dx, cy + dy).ok_or(LineError::Outside {
                stone: i + 1,
                dx,
                dy,
            })?;
            if !pos.is_legal(mv) {
                return Err(LineError::Taken {
                    stone: i + 1,
                    dx,
                    dy,
                    cell: pos.format_move(mv),
                });
            }
            pos.play(mv);
        }
        Ok(pos)
    }
}

impl OpeningGame for crate::game::Ataxx {
    fn random_opening(
        _config: &(),
        plies: u32,
        _radius: u32,
        rng: &mut ChaCha8Rng,
    ) -> Option<crate::game::Ataxx> {
        let mut pos = crate::game::Ataxx::default();
        let mut moves = Vec::new();
        for _ in 0..plies {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                return None;
            }
            pos.play(moves[rng.random_range(0..moves.len())]);
            if pos.outcome().is_some() {
                return None;
            }
        }
        Some(pos)
    }

    fn random_plies(
        start: &crate::game::Ataxx,
        plies: u32,
        rng: &mut ChaCha8Rng,
    ) -> Option<crate::game::Ataxx> {
        let mut pos = *start;
        let mut moves = Vec::new();
        for _ in 0..plies {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                return None;
            }
            pos.play(moves[rng.random_range(0..moves.len())]);
            if pos.outcome().is_some() {
                return None;
            }
        }
        Some(pos)
    }

    fn opening_from_line(_config: &(), line: &str) -> Result<crate::game::Ataxx, LineError> {
        crate::game::Ataxx::from_fen(&epd_position(line)?)
            .map_err(|e| LineError::Position(e.to_string()))
    }
}

/// The FEN of an Ataxx opening line: the line itself, or, for an EPD line with operations
/// (`x5o/7/7/7/7/7/o5x x 0 1; id "start";`, as cuteataxx books have them, or
/// `x5o/7/7/7/7/7/o5x x hmvc 0; fmvn 1;`), the position without its operations (the
/// counters of `hmvc` and `fmvn` kept).
fn epd_position(line: &str) -> Result<String, LineError> {
    let Some((head, _)) = line.split_once(';') else {
        return Ok(line.to_string());
    };
    let tokens: Vec<&str> = head.split_whitespace().collect();
    if tokens.len() < 2 {
        return Err(LineError::EpdTooShort);
    }
    let numbers = tokens[2..]
        .iter()
        .take_while(|t| t.bytes().all(|b| b.is_ascii_digit()))
        .count();
    if numbers > 2 {
        return Err(LineError::EpdCounters(tokens[2..].join(" ")));
    }
    let mut fen = tokens[..2 + numbers].join(" ");
    if numbers == 0 {
        // Counters as operations, if the line has them.
        let op = |name: &str| {
            line.split(';').find_map(|o| {
                let mut w = o.split_whitespace().skip_while(|t| t.contains('/'));
                let w: Vec<&str> = w.by_ref().collect();
                let at = w.iter().position(|t| *t == name)?;
                w.get(at + 1).map(|v| v.to_string())
            })
        };
        if let (Some(h), Some(f)) = (op("hmvc"), op("fmvn")) {
            fen = format!("{fen} {h} {f}");
        } else if let Some(h) = op("hmvc") {
            fen = format!("{fen} {h}");
        }
    }
    Ok(fen)
}

#[cfg(test)]
mod tests {
    use super::{super::testing::gomoku, *};
    use crate::game::MnkRule;

    #[test]
    fn the_eight_symmetries_of_a_corner() {
        let g = gomoku();
        let images: Vec<String> = (0..8)
            .map(|s| Mnk::transformed(&g, "a1b1", s).unwrap())
            .collect();
        assert_eq!(
            images,
            [
                "a1b1", "o1n1", "a15b15", "o15n15", "a1a2", "o1o2", "a15a14", "o15o14"
            ]
        );
    }

    #[test]
    fn an_asymmetric_opening_has_eight_distinct_images_of_the_same_shape() {
        let g = gomoku();
        let opening = "h8i8i10";
        let images: std::collections::HashSet<String> = (0..8)
            .map(|s| Mnk::transformed(&g, opening, s).unwrap())
            .collect();
        assert_eq!(images.len(), 8, "{images:?}");
        // Every image keeps the stones' count, colours and distances.
        let distances = |text: &str| {
            let pos = Mnk::from_text(&g, text).unwrap();
            let xy: Vec<(i32, i32)> = pos.history().iter().map(|&m| g.xy(m)).collect();
            let mut d: Vec<i32> = Vec::new();
            for i in 0..xy.len() {
                for j in i + 1..xy.len() {
                    d.push((xy[i].0 - xy[j].0).pow(2) + (xy[i].1 - xy[j].1).pow(2));
                }
            }
            d
        };
        for image in &images {
            assert_eq!(distances(image), distances(opening), "{image}");
        }
        // The centre stone stays at the centre (an odd board's symmetries fix it).
        for s in 0..8 {
            assert!(Mnk::transformed(&g, opening, s).unwrap().starts_with("h8"));
        }
        // A symmetric opening (one centre stone) has one image.
        let one: std::collections::HashSet<String> = (0..8)
            .map(|s| Mnk::transformed(&g, "h8", s).unwrap())
            .collect();
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn a_board_that_is_not_square_keeps_four_symmetries() {
        let g = MnkConfig::new(9, 6, 4, MnkRule::Freestyle).unwrap();
        assert_eq!(Mnk::symmetries(&g), 4);
        assert_eq!(Mnk::symmetries(&gomoku()), 8);
        let images: Vec<String> = (0..4)
            .map(|s| Mnk::transformed(&g, "a1c2", s).unwrap())
            .collect();
        assert_eq!(images, ["a1c2", "i1g2", "a6c5", "i6g5"]);
    }
}
