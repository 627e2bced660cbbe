//! Openings: the start position of each round's colour-swapped game pair.
//!
//! `random`: plies chosen by a seeded generator (for m,n,k near the centre), optionally
//! kept only when a neutral engine scores the position within a margin. `file`: one
//! opening a line: Gomocup offset lines (`0,0, 1,0, 1,3`: `dx,dy` pairs from the centre)
//! or pos move lists (`h8i9j7`) for m,n,k; FENs for Ataxx.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::{
    config::{OpeningKind, OpeningOrder, OpeningsConfig, Tournament},
    seeds::{Stream, derive_seed},
};
use crate::{
    config::{self, ConfigError},
    engine::{Engine, EngineConfig, EngineGame},
    game::{Game, Mnk, MnkConfig},
    search::Limits,
};

/// How many times a balanced random opening is drawn before giving up.
const MAX_ATTEMPTS: usize = 10_000;

/// A start position, as the game's position text (move list or FEN).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// `Game::to_text` of the start position.
    pub position: String,
}

/// Games that can make random openings (near the centre for m,n,k-games).
pub trait OpeningGame: EngineGame {
    /// One random opening of `plies` plies; `radius` limits m,n,k stones to the centre.
    fn random_opening(
        config: &Self::Config,
        plies: u32,
        radius: u32,
        rng: &mut ChaCha8Rng,
    ) -> Option<Self>;

    /// Reads one line of an opening file.
    fn opening_from_line(config: &Self::Config, line: &str) -> Result<Self, String>;

    /// Why no opening of `plies` plies can exist on this board, if that is so (an
    /// m,n,k board with fewer cells).
    fn too_many_plies(_config: &Self::Config, _plies: u32) -> Option<String> {
        None
    }
}

impl OpeningGame for Mnk {
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
        let r = radius as i32;
        let mut near = Vec::new();
        for _ in 0..plies {
            near.clear();
            for y in cy - r..=cy + r {
                for x in cx - r..=cx + r {
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

    fn opening_from_line(config: &MnkConfig, line: &str) -> Result<Mnk, String> {
        if line.chars().any(|c| c.is_ascii_alphabetic()) {
            return Mnk::from_text(config, line).map_err(|e| e.to_string());
        }
        // Gomocup offsets: dx,dy pairs from the centre.
        let numbers: Vec<&str> = line
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        if !numbers.len().is_multiple_of(2) {
            return Err(format!(
                "{} numbers: offsets come in dx,dy pairs",
                numbers.len()
            ));
        }
        let (cx, cy) = config.centre();
        let mut pos = Mnk::new(config);
        for (i, pair) in numbers.chunks(2).enumerate() {
            let num = |t: &str| {
                t.parse::<i32>()
                    .map_err(|_| format!("'{t}' is not a number"))
            };
            let (dx, dy) = (num(pair[0])?, num(pair[1])?);
            let mv = config
                .at(cx + dx, cy + dy)
                .ok_or_else(|| format!("stone {}: offset {dx},{dy} is outside the board", i + 1))?;
            if !pos.is_legal(mv) {
                return Err(format!(
                    "stone {}: offset {dx},{dy} ({}) is taken or the game is over",
                    i + 1,
                    pos.format_move(mv)
                ));
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

    fn opening_from_line(_config: &(), line: &str) -> Result<crate::game::Ataxx, String> {
        crate::game::Ataxx::from_fen(line).map_err(|e| e.to_string())
    }
}

/// One opening per round for `tournament` (`rounds` of them), deterministic in the
/// master seed.
pub fn openings<G: OpeningGame>(
    tournament: &Tournament,
    game: &G::Config,
    rounds: u64,
) -> Result<Vec<Opening>, ConfigError> {
    let o = &tournament.config.openings;
    let source = tournament.path.display().to_string();
    let seed = tournament.config.seed;
    match o.kind {
        OpeningKind::None => Ok(vec![
            Opening {
                position: G::new(game).to_text(),
            };
            rounds as usize
        ]),
        OpeningKind::Random => {
            let judge = match (&o.balance_engine, o.balance_margin) {
                (Some(path), margin) if margin > 0 => {
                    let path = tournament.resolve(path);
                    let e = EngineConfig::load(&path).map_err(|e| {
                        ConfigError::new(&source, format!("[openings] balance_engine: {e}"))
                    })?;
                    Some(e)
                }
                _ => None,
            };
            let list = distinct::<G>(game, o, judge.as_ref(), seed, rounds)
                .map_err(|e| ConfigError::new(&source, format!("[openings]: {e}")))?;
            Ok(list
                .into_iter()
                .map(|position| Opening { position })
                .collect())
        }
        OpeningKind::File => {
            let file = o
                .file
                .as_deref()
                .expect("validated: kind = file has a file");
            let path = tournament.resolve(file);
            let list = read_file::<G>(&path, game)?;
            let mut order: Vec<usize> = (0..list.len()).collect();
            if o.order == OpeningOrder::Shuffle {
                let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, Stream::Shuffle, 0));
                for i in (1..order.len()).rev() {
                    order.swap(i, rng.random_range(0..=i));
                }
            }
            Ok((0..rounds as usize)
                .map(|r| list[order[r % order.len()]].clone())
                .collect())
        }
    }
}

fn random_balanced<G: OpeningGame>(
    game: &G::Config,
    o: &OpeningsConfig,
    judge: Option<&EngineConfig>,
    seed: u64,
    round: u64,
) -> Result<Opening, String> {
    if let Some(why) = G::too_many_plies(game, o.plies) {
        return Err(format!(
            "no opening of {} plies: {why}; use fewer plies",
            o.plies
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, Stream::Opening, round));
    let mut engine = match judge {
        Some(config) => Some(Engine::<G>::new(config, game)?),
        None => None,
    };
    for _ in 0..MAX_ATTEMPTS {
        let Some(pos) = G::random_opening(game, o.plies, o.radius, &mut rng) else {
            continue;
        };
        if let Some(engine) = engine.as_mut() {
            let limits: Limits = engine.limits();
            engine.searcher().new_game(0);
            let result = engine.search(&pos, limits, |_| {});
            if result.score.abs() > o.balance_margin {
                continue;
            }
        }
        return Ok(Opening {
            position: pos.to_text(),
        });
    }
    Err(match engine {
        Some(_) => format!(
            "no opening of {} plies within the balance margin {} after {MAX_ATTEMPTS} tries: \
             widen the margin or use fewer plies",
            o.plies, o.balance_margin
        ),
        None => format!(
            "no random opening of {} plies leaves the game unfinished after {MAX_ATTEMPTS} \
             tries: use fewer plies (m,n,k stones go within {} of the centre: a larger \
             radius leaves more room)",
            o.plies, o.radius
        ),
    })
}

/// Reads an opening file: one opening a line; blank lines and `#` comments skipped.
pub fn read_file<G: OpeningGame>(
    path: &std::path::Path,
    game: &G::Config,
) -> Result<Vec<Opening>, ConfigError> {
    let text = config::read(path)?;
    let mut list = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let pos = G::opening_from_line(game, line).map_err(|e| ConfigError {
            source: path.display().to_string(),
            line: Some(n + 1),
            message: e,
        })?;
        if pos.outcome().is_some() {
            return Err(ConfigError {
                source: path.display().to_string(),
                line: Some(n + 1),
                message: "the game is already over in this opening".into(),
            });
        }
        list.push(Opening {
            position: pos.to_text(),
        });
    }
    if list.is_empty() {
        return Err(ConfigError::new(
            path.display().to_string(),
            "no openings in the file",
        ));
    }
    Ok(list)
}

/// Random openings for an opening file: `count` distinct ones, as lines.
pub fn generate<G: OpeningGame>(
    game: &G::Config,
    o: &OpeningsConfig,
    judge: Option<&EngineConfig>,
    seed: u64,
    count: u64,
) -> Result<Vec<String>, String> {
    distinct::<G>(game, o, judge, seed, count)
}

/// `count` random (balanced) openings, all different when the game has that many:
/// candidate `i` is drawn from its own seed, candidates are taken in index order and a
/// repeat is skipped, so the list depends only on the seed (drawn in parallel batches).
/// When the space runs out (tic-tac-toe has 9 one-ply openings) the distinct ones are
/// cycled; the tournament's replay warning then tells the user.
fn distinct<G: OpeningGame>(
    game: &G::Config,
    o: &OpeningsConfig,
    judge: Option<&EngineConfig>,
    seed: u64,
    count: u64,
) -> Result<Vec<String>, String> {
    let wanted = count as usize;
    let mut seen = std::collections::HashSet::new();
    let mut list = Vec::with_capacity(wanted);
    // Give up looking for new ones after this many candidates, or when a whole batch
    // brings nothing new (the space is exhausted).
    let budget = 4 * count + 200;
    let mut next = 0u64;
    let mut exhausted = false;
    while list.len() < wanted && next < budget && !exhausted {
        let batch = (wanted - list.len()).max(16) as u64;
        let drawn: Result<Vec<Opening>, String> = (next..next + batch)
            .into_par_iter()
            .map(|i| random_balanced::<G>(game, o, judge, seed, i))
            .collect();
        next += batch;
        let before = list.len();
        for opening in drawn? {
            if list.len() < wanted && seen.insert(opening.position.clone()) {
                list.push(opening.position);
            }
        }
        exhausted = list.len() == before;
    }
    if list.is_empty() {
        return Err("no opening could be drawn".into());
    }
    let distinct = list.len();
    while list.len() < wanted {
        list.push(list[list.len() % distinct].clone());
    }
    Ok(list)
}
