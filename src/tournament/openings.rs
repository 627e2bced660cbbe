//! Openings: the start position of each round's colour-swapped game pair.
//!
//! `random`: plies chosen by a seeded generator (for m,n,k near the centre), optionally
//! kept only when a neutral engine scores the position within a margin. `file`: one
//! opening a line: Gomocup offset lines (`0,0, 1,0, 1,3`: `dx,dy` pairs from the centre)
//! or pos move lists (`h8i9j7`) for m,n,k; FENs for Ataxx.
//!
//! An [`OpeningBook`] gives the opening of any round on demand, so memory does not grow
//! with the number of rounds: a file's openings are held once (the file, not the
//! rounds), and random openings are drawn as rounds come up (see [`OpeningBook`]).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::{
    config::{OpeningKind, OpeningOrder, OpeningsConfig, Tournament},
    seeds::{Stream, derive_seed},
};
use crate::{
    config::ConfigError,
    engine::{Engine, EngineConfig, EngineGame},
    game::{Game, Mnk, MnkConfig},
    search::Limits,
};

/// A balanced opening set shipped with arena: made by `arena openings --balance` (the
/// command is the file's first line), kept in `configs/openings/` and built into the
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
        path: "configs/openings/gomoku-balanced-3.txt",
        text: include_str!("../../configs/openings/gomoku-balanced-3.txt"),
    },
    Shipped {
        game: "ataxx",
        path: "configs/openings/ataxx-6ply-balanced.txt",
        text: include_str!("../../configs/openings/ataxx-6ply-balanced.txt"),
    },
];

impl Shipped {
    /// The shipped balanced set of `game`, if it has one.
    pub fn of(game: &crate::game::GameSpec) -> Option<&'static Shipped> {
        let name = game.to_string();
        SHIPPED.iter().find(|s| s.game == name)
    }
}

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

/// How many distinct random openings a book keeps: rounds past this many get fresh
/// draws (not checked against earlier ones), so a run of any length holds at most this
/// many openings in memory (a few MB).
pub const DISTINCT_WINDOW: usize = 1 << 16;

/// The opening of every round of a tournament, given on demand (deterministic in the
/// master seed, whatever order rounds are asked in, on any number of threads).
///
/// Random openings are drawn lazily: candidate `i` comes from its own seed, candidates
/// are taken in index order and a repeat is skipped, so round `r` gets the `r`-th
/// distinct opening while there are at most [`DISTINCT_WINDOW`] of them. When the space
/// runs out (tic-tac-toe has 9 one-ply openings: after `max(64, 2 × found)` candidates in
/// a row bring nothing new) the distinct ones are cycled and the tournament's replay
/// warning tells the user; rounds past the window get a fresh draw each.
pub struct OpeningBook<G: OpeningGame> {
    source: Source<G>,
}

enum Source<G: OpeningGame> {
    /// Every round starts from the start position.
    Start(Opening),
    /// A file's openings and the order rounds take them in.
    File {
        list: Vec<Opening>,
        order: Vec<usize>,
    },
    /// Random openings, drawn as needed.
    Random(Box<RandomOpenings<G>>),
}

/// The lazily drawn distinct random openings.
struct RandomOpenings<G: OpeningGame> {
    game: G::Config,
    config: OpeningsConfig,
    judge: Option<EngineConfig>,
    seed: u64,
    window: usize,
    /// Draw in batches on the global thread pool (only outside any pool's worker).
    parallel: bool,
    drawn: std::sync::Mutex<Drawn>,
}

#[derive(Default)]
struct Drawn {
    list: Vec<Opening>,
    seen: std::collections::HashSet<String>,
    /// The next candidate index to draw.
    next: u64,
    /// Candidates in a row that brought nothing new.
    fruitless: u64,
    /// No new ones are to be found: cycle `list`.
    exhausted: bool,
    /// Fresh draws past the window, kept for a pair's second game: round -> opening.
    recent: std::collections::VecDeque<(u64, Opening)>,
}

impl<G: OpeningGame> RandomOpenings<G> {
    fn settled(d: &Drawn, window: usize) -> bool {
        d.exhausted || d.list.len() >= window
    }

    /// Candidates `from..from + count`, in index order: in parallel when the book may
    /// use the global pool (drawing a file's worth up front), else on this thread.
    fn draw(&self, from: u64, count: u64) -> Result<Vec<Opening>, String> {
        let one =
            |i| random_balanced::<G>(&self.game, &self.config, self.judge.as_ref(), self.seed, i);
        if self.parallel {
            (from..from + count).into_par_iter().map(one).collect()
        } else {
            (from..from + count).map(one).collect()
        }
    }

    /// Takes drawn candidates (those from `d.next` on) in index order: new ones join the
    /// list, repeats count towards exhaustion.
    fn take(&self, d: &mut Drawn, drawn: Vec<Opening>) {
        for opening in drawn {
            if Self::settled(d, self.window) {
                break;
            }
            d.next += 1;
            if d.seen.insert(opening.position.clone()) {
                d.list.push(opening);
                d.fruitless = 0;
            } else {
                d.fruitless += 1;
                if d.fruitless >= (2 * d.list.len() as u64).max(64) {
                    d.exhausted = true;
                }
            }
        }
    }

    /// The list with at least `round + 1` openings, or settled. Candidates are drawn
    /// without holding the lock: a worker that waited on it inside a thread pool could
    /// otherwise be handed another game that needs the same lock (a deadlock); two
    /// workers may then draw the same candidates, and the second's are dropped.
    fn extended(&self, round: u64) -> Result<std::sync::MutexGuard<'_, Drawn>, String> {
        loop {
            let d = self.drawn.lock().unwrap_or_else(|p| p.into_inner());
            if d.list.len() as u64 > round || Self::settled(&d, self.window) {
                return Ok(d);
            }
            let from = d.next;
            let missing = (round + 1 - d.list.len() as u64).min(self.window as u64);
            let count = if self.parallel {
                missing.clamp(16, 4096)
            } else {
                missing.clamp(1, 64)
            };
            drop(d);
            let drawn = self.draw(from, count)?;
            let mut d = self.drawn.lock().unwrap_or_else(|p| p.into_inner());
            if d.next == from {
                self.take(&mut d, drawn);
            }
        }
    }

    fn get(&self, round: u64) -> Result<Opening, String> {
        let d = self.extended(round)?;
        if (round as usize) < d.list.len() {
            return Ok(d.list[round as usize].clone());
        }
        if d.exhausted {
            if d.list.is_empty() {
                return Err("no opening could be drawn".into());
            }
            return Ok(d.list[(round % d.list.len() as u64) as usize].clone());
        }
        // Past the window: a fresh draw, from the candidates after the window's.
        if let Some((_, o)) = d.recent.iter().find(|(r, _)| *r == round) {
            return Ok(o.clone());
        }
        let index = d.next + (round - self.window as u64);
        drop(d);
        let opening = random_balanced::<G>(
            &self.game,
            &self.config,
            self.judge.as_ref(),
            self.seed,
            index,
        )?;
        let mut d = self.drawn.lock().unwrap_or_else(|p| p.into_inner());
        if d.recent.len() >= 256 {
            d.recent.pop_front();
        }
        d.recent.push_back((round, opening.clone()));
        Ok(opening)
    }
}

impl<G: OpeningGame> OpeningBook<G> {
    /// The openings of `tournament` on the variant `game`. A file is read and checked
    /// whole; the first random opening is drawn now, so a config that cannot make any
    /// is an error before the run.
    pub fn new(tournament: &Tournament, game: &G::Config) -> Result<OpeningBook<G>, ConfigError> {
        let o = &tournament.config.openings;
        let source = tournament.path.display().to_string();
        let seed = tournament.config.seed;
        let book = match o.kind {
            OpeningKind::None => OpeningBook {
                source: Source::Start(Opening {
                    position: G::new(game).to_text(),
                }),
            },
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
                OpeningBook::random(game, o, judge, seed, DISTINCT_WINDOW, false)
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
                OpeningBook {
                    source: Source::File { list, order },
                }
            }
        };
        book.get(0)
            .map_err(|e| ConfigError::new(&source, format!("[openings]: {e}")))?;
        Ok(book)
    }

    fn random(
        game: &G::Config,
        config: &OpeningsConfig,
        judge: Option<EngineConfig>,
        seed: u64,
        window: usize,
        parallel: bool,
    ) -> OpeningBook<G> {
        OpeningBook {
            source: Source::Random(Box::new(RandomOpenings {
                game: game.clone(),
                config: config.clone(),
                judge,
                seed,
                window: window.max(1),
                parallel,
                drawn: std::sync::Mutex::new(Drawn::default()),
            })),
        }
    }

    /// The opening of round `round`. Fails only when a random opening cannot be drawn
    /// (no position within the balance margin).
    pub fn get(&self, round: u64) -> Result<Opening, String> {
        match &self.source {
            Source::Start(o) => Ok(o.clone()),
            Source::File { list, order } => {
                Ok(list[order[(round % order.len() as u64) as usize]].clone())
            }
            Source::Random(r) => r.get(round),
        }
    }

    /// How many distinct openings the book can give (None: one per round, as random
    /// openings are).
    pub fn distinct(&self) -> Option<u64> {
        match &self.source {
            Source::Start(_) => Some(1),
            Source::File { list, .. } => Some(list.len() as u64),
            Source::Random(_) => None,
        }
    }

    /// Refuses openings that leave no move to play under `max_plies` (0: no limit): every
    /// game would be a draw at 0 plies. The error names the opening (the file's line).
    pub fn check_max_plies(&self, game: &G::Config, max_plies: u32) -> Result<(), String> {
        if max_plies == 0 {
            return Ok(());
        }
        let openings: Vec<(Option<usize>, Opening)> = match &self.source {
            Source::File { list, .. } => list
                .iter()
                .enumerate()
                .map(|(i, o)| (Some(i + 1), o.clone()))
                .collect(),
            _ => vec![(None, self.get(0)?)],
        };
        for (n, o) in openings {
            let pos = G::from_text(game, &o.position).map_err(|e| format!("opening: {e}"))?;
            if pos.plies() >= max_plies {
                let which = n.map_or("the openings".to_string(), |n| format!("opening {n}"));
                return Err(format!(
                    "{which} already has {} plies, and [adjudication] max_plies = {max_plies}                      would draw every game before its first move: raise max_plies or use                      shorter openings",
                    pos.plies()
                ));
            }
        }
        Ok(())
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

/// The largest opening file read (64 MB: a million Ataxx FENs); a larger one is
/// refused before it is read.
pub const MAX_OPENINGS_FILE: u64 = 64 << 20;

/// The longest line of an opening file (a move list of a 20×20 board is under 2 KB).
pub const MAX_OPENING_LINE: usize = 64 << 10;

/// Reads an opening file: one opening a line; blank lines and `#` comments skipped.
/// The file is read line by line (a bad line is refused before the rest is read), at
/// most [`MAX_OPENINGS_FILE`] bytes with lines of at most [`MAX_OPENING_LINE`].
pub fn read_file<G: OpeningGame>(
    path: &std::path::Path,
    game: &G::Config,
) -> Result<Vec<Opening>, ConfigError> {
    use std::io::{BufRead, Read};
    let source = path.display().to_string();
    let at = |line: usize, message: String| ConfigError {
        source: source.clone(),
        line: Some(line),
        message,
    };
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
    let mut reader = std::io::BufReader::new(file).take(MAX_OPENINGS_FILE + 1);
    let mut list = Vec::new();
    let mut buf = Vec::new();
    for n in 1.. {
        buf.clear();
        let read = (&mut reader)
            .take(MAX_OPENING_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| ConfigError::new(&source, format!("cannot read: {e}")))?;
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
        let pos = G::opening_from_line(game, line).map_err(|e| at(n, e))?;
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

/// Random openings for an opening file: `count` distinct ones (as many as the game
/// has), as lines, drawn exactly as a tournament's [`OpeningBook`] draws them.
pub fn generate<G: OpeningGame>(
    game: &G::Config,
    o: &OpeningsConfig,
    judge: Option<&EngineConfig>,
    seed: u64,
    count: u64,
) -> Result<Vec<String>, String> {
    let window = usize::try_from(count).map_err(|_| format!("{count} openings are too many"))?;
    // Called from the command line, outside any pool: draw in parallel.
    let book = OpeningBook::<G>::random(game, o, judge.cloned(), seed, window, true);
    (0..count)
        .map(|round| book.get(round).map(|o| o.position))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{MnkConfig, MnkRule};

    fn book(game: &MnkConfig, plies: u32, window: usize) -> OpeningBook<Mnk> {
        let o = OpeningsConfig {
            plies,
            radius: 2,
            ..OpeningsConfig::default()
        };
        OpeningBook::random(game, &o, None, 7, window, false)
    }

    #[test]
    fn random_openings_do_not_depend_on_the_order_rounds_are_asked_in() {
        let game = MnkConfig::new(9, 9, 5, MnkRule::Freestyle).unwrap();
        let ahead = book(&game, 2, 100);
        let in_order: Vec<String> = (0..150).map(|r| ahead.get(r).unwrap().position).collect();
        let back = book(&game, 2, 100);
        for r in (0..150).rev() {
            assert_eq!(
                back.get(r).unwrap().position,
                in_order[r as usize],
                "round {r}"
            );
        }
        // Distinct within the window; fresh draws after it.
        let distinct: std::collections::HashSet<&String> = in_order[..100].iter().collect();
        assert_eq!(distinct.len(), 100);
        // The generator of `arena openings` draws the same sequence.
        let o = OpeningsConfig {
            plies: 2,
            radius: 2,
            ..OpeningsConfig::default()
        };
        assert_eq!(
            generate::<Mnk>(&game, &o, None, 7, 100).unwrap(),
            in_order[..100]
        );
    }

    #[test]
    fn a_small_space_is_cycled() {
        let game = MnkConfig::new(3, 3, 3, MnkRule::Freestyle).unwrap();
        let b = book(&game, 1, DISTINCT_WINDOW);
        let list: Vec<String> = (0..20).map(|r| b.get(r).unwrap().position).collect();
        let distinct: std::collections::HashSet<&String> = list.iter().collect();
        assert_eq!(distinct.len(), 9, "{list:?}");
        assert_eq!(list[0], list[9]);
    }

    /// Regression: a worker that drew openings under the book's lock with the pool's
    /// threads could be handed another game needing that lock, and a tune hung.
    #[test]
    fn workers_of_a_pool_share_a_book_without_deadlock() {
        let game = MnkConfig::new(9, 9, 5, MnkRule::Freestyle).unwrap();
        let b = book(&game, 3, 500);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let got = std::sync::Mutex::new(Vec::new());
        pool.scope(|s| {
            for r in 0..400u64 {
                let (b, got) = (&b, &got);
                s.spawn(move |_| {
                    let o = b.get(r).unwrap();
                    got.lock().unwrap().push((r, o.position));
                });
            }
        });
        let mut got = got.into_inner().unwrap();
        got.sort();
        let alone = book(&game, 3, 500);
        for (r, position) in got {
            assert_eq!(position, alone.get(r).unwrap().position);
        }
    }
}
