//! Openings: the start position of each round's colour-swapped game pair.
//!
//! `random`: plies chosen by a seeded generator (for m,n,k near the centre), optionally
//! kept only when a neutral engine scores the position within a margin. `file`: one
//! opening a line: Gomocup offset lines (`0,0, 1,0, 1,3`: `dx,dy` pairs from the centre)
//! or pos move lists (`h8i9j7`, `h8 i9 j7`) for m,n,k; FENs or EPD lines for Ataxx.
//! `balanced`: the set shipped for the game ([`SHIPPED`]). With `transform`, a list's
//! openings are played in each symmetry of the m,n,k board.
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
        text: include_str!("../../configs/openings/gomoku-balanced.txt"),
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

    /// How many symmetries of the board [`transformed`](OpeningGame::transformed) knows
    /// (1: none but the identity).
    fn symmetries(_config: &Self::Config) -> usize {
        1
    }

    /// The position text `position` under symmetry `symmetry` (below
    /// [`symmetries`](OpeningGame::symmetries); 0 is the identity).
    fn transformed(
        _config: &Self::Config,
        position: &str,
        _symmetry: usize,
    ) -> Result<String, String> {
        Ok(position.to_string())
    }
}

/// Cell `(x, y)` of a `width` × `height` board under symmetry `symmetry`: 0 the identity,
/// 1 a mirror left-right, 2 top-bottom, 3 a half turn; on a square board also 4 the
/// main-diagonal mirror, 5 a quarter turn, 6 three quarters, 7 the anti-diagonal mirror.
/// The first four keep any board's shape, the last four only a square's.
pub fn symmetric_cell(x: i32, y: i32, width: i32, height: i32, symmetry: usize) -> (i32, i32) {
    let (mx, my) = (width - 1 - x, height - 1 - y);
    match symmetry {
        0 => (x, y),
        1 => (mx, y),
        2 => (x, my),
        3 => (mx, my),
        4 => (y, x),
        5 => (height - 1 - y, x),
        6 => (y, width - 1 - x),
        _ => (height - 1 - y, width - 1 - x),
    }
}

impl OpeningGame for Mnk {
    fn symmetries(config: &MnkConfig) -> usize {
        if config.width() == config.height() {
            8
        } else {
            4
        }
    }

    fn transformed(config: &MnkConfig, position: &str, symmetry: usize) -> Result<String, String> {
        let pos = Mnk::from_text(config, position).map_err(|e| e.to_string())?;
        if position.contains('/') {
            return Err(
                "transform = true needs openings as move lists or offsets, not boards".into(),
            );
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
        crate::game::Ataxx::from_fen(&epd_position(line)?).map_err(|e| e.to_string())
    }
}

/// The FEN of an Ataxx opening line: the line itself, or, for an EPD line with operations
/// (`x5o/7/7/7/7/7/o5x x 0 1; id "start";`, as cuteataxx books have them, or
/// `x5o/7/7/7/7/7/o5x x hmvc 0; fmvn 1;`), the position without its operations (the
/// counters of `hmvc` and `fmvn` kept).
fn epd_position(line: &str) -> Result<String, String> {
    let Some((head, _)) = line.split_once(';') else {
        return Ok(line.to_string());
    };
    let tokens: Vec<&str> = head.split_whitespace().collect();
    if tokens.len() < 2 {
        return Err("an EPD line starts with the board and the side to move".into());
    }
    let numbers = tokens[2..]
        .iter()
        .take_while(|t| t.bytes().all(|b| b.is_ascii_digit()))
        .count();
    if numbers > 2 {
        return Err(format!(
            "'{}' before the first ';': a position has two counters at most",
            tokens[2..].join(" ")
        ));
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
    /// The variant (for transforms).
    game: G::Config,
}

enum Source<G: OpeningGame> {
    /// Every round starts from the start position.
    Start(Opening),
    /// A file's openings and the order rounds take them in; with `symmetries` > 1,
    /// round `r` plays opening `order[r % n]` under symmetry `(first[i] + r / n) % s`
    /// (`first[i]` drawn from the master seed), so every opening comes in each symmetry
    /// once every `s` passes through the file.
    File {
        list: Vec<Opening>,
        order: Vec<usize>,
        symmetries: usize,
        first: Vec<usize>,
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
        OpeningBook::with_config(tournament, game)
    }

    fn with_config(
        tournament: &Tournament,
        game: &G::Config,
    ) -> Result<OpeningBook<G>, ConfigError> {
        let o = &tournament.config.openings;
        let source = tournament.path.display().to_string();
        let seed = tournament.config.seed;
        let book = match o.kind {
            OpeningKind::None => OpeningBook {
                source: Source::Start(Opening {
                    position: G::new(game).to_text(),
                }),
                game: game.clone(),
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
            OpeningKind::File | OpeningKind::Balanced => {
                let list = listed::<G>(o, &tournament.path, &tournament.config.game, game)?
                    .expect("kind = file or balanced: openings from a list");
                let mut order: Vec<usize> = (0..list.len()).collect();
                if o.order == OpeningOrder::Shuffle {
                    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, Stream::Shuffle, 0));
                    for i in (1..order.len()).rev() {
                        order.swap(i, rng.random_range(0..=i));
                    }
                }
                let symmetries = if o.transform { G::symmetries(game) } else { 1 };
                let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, Stream::Transform, 0));
                let first: Vec<usize> = (0..list.len())
                    .map(|_| rng.random_range(0..symmetries))
                    .collect();
                if symmetries > 1 {
                    for (n, opening) in list.iter().enumerate() {
                        G::transformed(game, &opening.position, 1).map_err(|e| {
                            ConfigError::new(&source, format!("[openings] opening {}: {e}", n + 1))
                        })?;
                    }
                }
                OpeningBook {
                    source: Source::File {
                        list,
                        order,
                        symmetries,
                        first,
                    },
                    game: game.clone(),
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
            game: game.clone(),
        }
    }

    /// The opening of round `round`. Fails only when a random opening cannot be drawn
    /// (no position within the balance margin).
    pub fn get(&self, round: u64) -> Result<Opening, String> {
        match &self.source {
            Source::Start(o) => Ok(o.clone()),
            Source::File {
                list,
                order,
                symmetries,
                first,
            } => {
                let n = order.len() as u64;
                let i = order[(round % n) as usize];
                if *symmetries <= 1 {
                    return Ok(list[i].clone());
                }
                let symmetry =
                    (first[i] + ((round / n) % *symmetries as u64) as usize) % symmetries;
                Ok(Opening {
                    position: G::transformed(&self.game, &list[i].position, symmetry)?,
                })
            }
            Source::Random(r) => r.get(round),
        }
    }

    /// How many distinct openings the book can give (None: one per round, as random
    /// openings are).
    pub fn distinct(&self) -> Option<u64> {
        match &self.source {
            Source::Start(_) => Some(1),
            Source::File {
                list, symmetries, ..
            } => Some(list.len() as u64 * *symmetries as u64),
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
fn read_lines<G: OpeningGame, R: std::io::BufRead>(
    source: &str,
    reader: R,
    game: &G::Config,
) -> Result<Vec<Opening>, ConfigError> {
    use std::io::{BufRead, Read};
    let at = |line: usize, message: String| ConfigError {
        source: source.to_string(),
        line: Some(line),
        message,
    };
    let mut reader = reader.take(MAX_OPENINGS_FILE + 1);
    let mut list = Vec::new();
    let mut buf = Vec::new();
    for n in 1.. {
        buf.clear();
        let read = (&mut reader)
            .take(MAX_OPENING_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
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

    fn gomoku() -> MnkConfig {
        MnkConfig::new(15, 15, 5, MnkRule::Freestyle).unwrap()
    }

    /// A file in a temporary folder, its path.
    fn file(name: &str, text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

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

    fn tournament_with(openings: &str, game: &str, dir: &std::path::Path) -> Tournament {
        let text = format!(
            "name = \"t\"\ngame = \"{game}\"\nrounds = 4\nseed = 3\n\n[openings]\n{openings}\n\n\
             [[engines]]\nname = \"a\"\nsearch = {{ depth = 1 }}\n\n\
             [[engines]]\nname = \"b\"\nsearch = {{ depth = 1 }}\n"
        );
        Tournament::parse("t.toml", &dir.join("t.toml"), &text).unwrap()
    }

    #[test]
    fn transforms_make_eight_distinct_openings_of_each_line_deterministically() {
        let (dir, _) = file("o.txt", "0,0, 1,0, 1,2\n# a comment\nh8 g7 g9\n");
        let o = "kind = \"file\"\nfile = \"o.txt\"\ntransform = true";
        let t = tournament_with(o, "gomoku", dir.path());
        let g = gomoku();
        let book = OpeningBook::<Mnk>::new(&t, &g).unwrap();
        assert_eq!(book.distinct(), Some(16));
        let rounds: Vec<String> = (0..16).map(|r| book.get(r).unwrap().position).collect();
        let distinct: std::collections::HashSet<&String> = rounds.iter().collect();
        assert_eq!(distinct.len(), 16, "{rounds:?}");
        // Round r plays line r % 2; the next pass starts again.
        for (r, p) in rounds.iter().enumerate() {
            let line = if r % 2 == 0 { "h8i8i10" } else { "h8g7g9" };
            assert!(
                (0..8).any(|s| Mnk::transformed(&g, line, s).unwrap() == *p),
                "round {r}: {p} is not an image of {line}"
            );
        }
        assert_eq!(book.get(16).unwrap().position, rounds[0]);
        // The same seed gives the same rounds; the symmetries depend on it.
        let again = OpeningBook::<Mnk>::new(&t, &g).unwrap();
        for r in 0..16 {
            assert_eq!(again.get(r).unwrap().position, rounds[r as usize]);
        }
        let mut other = t.clone();
        other.config.seed = 4;
        let reseeded = OpeningBook::<Mnk>::new(&other, &g).unwrap();
        let theirs: Vec<String> = (0..16).map(|r| reseeded.get(r).unwrap().position).collect();
        assert_ne!(theirs, rounds);
        // Without transforms: the two lines as they are.
        let plain = tournament_with("kind = \"file\"\nfile = \"o.txt\"", "gomoku", dir.path());
        let book = OpeningBook::<Mnk>::new(&plain, &g).unwrap();
        assert_eq!(book.distinct(), Some(2));
        assert_eq!(book.get(0).unwrap().position, "h8i8i10");
        assert_eq!(book.get(3).unwrap().position, "h8g7g9");
    }

    #[test]
    fn transform_and_balanced_are_refused_where_they_mean_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let bad = |openings: &str, game: &str| {
            let text = format!(
                "name = \"t\"\ngame = \"{game}\"\nrounds = 1\n\n[openings]\n{openings}\n\n\
                 [[engines]]\nname = \"a\"\nsearch = {{ depth = 1 }}\n\n\
                 [[engines]]\nname = \"b\"\nsearch = {{ depth = 1 }}\n"
            );
            Tournament::parse("t.toml", &dir.path().join("t.toml"), &text)
                .expect_err("refused")
                .to_string()
        };
        let e = bad("kind = \"random\"\ntransform = true", "gomoku");
        assert!(
            e.starts_with("t.toml:5: [openings]: transform = true needs openings from a file"),
            "{e}"
        );
        let e = bad("kind = \"balanced\"\ntransform = true", "ataxx");
        assert!(e.contains("transform = true is for m,n,k-games"), "{e}");
        let e = bad("kind = \"balanced\"", "tictactoe");
        assert!(
            e.contains("no balanced openings ship for tictactoe (only for gomoku and ataxx)"),
            "{e}"
        );
    }

    #[test]
    fn the_shipped_sets_read_and_transform() {
        let dir = tempfile::tempdir().unwrap();
        let t = tournament_with(
            "kind = \"balanced\"\ntransform = true",
            "gomoku",
            dir.path(),
        );
        let book = OpeningBook::<Mnk>::new(&t, &gomoku()).unwrap();
        let n = read_lines::<Mnk, _>("x", std::io::Cursor::new(SHIPPED[0].text), &gomoku())
            .unwrap()
            .len() as u64;
        assert!(n >= 100, "{n} gomoku openings");
        assert_eq!(book.distinct(), Some(8 * n));
        let t = tournament_with("kind = \"balanced\"", "ataxx", dir.path());
        let book = OpeningBook::<crate::game::Ataxx>::new(&t, &()).unwrap();
        assert!(book.distinct().unwrap() >= 100);
    }

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
