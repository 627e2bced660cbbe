//! The opening of each round: [`OpeningBook`] (the start position, a list's openings in
//! order or shuffled and in each board symmetry, or random openings drawn lazily and
//! optionally balanced by a judge engine), and [`generate`] for `arena openings`.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::{LineError, Opening, OpeningError, OpeningGame, listed};
use crate::{
    config::ConfigError,
    engine::{Engine, EngineConfig},
    search::Limits,
    tournament::{
        config::{OpeningKind, OpeningOrder, OpeningsConfig, Tournament},
        seeds::{Stream, derive_seed},
    },
};

/// How many times a balanced random opening is drawn before giving up.
pub(super) const MAX_ATTEMPTS: usize = 10_000;

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
        /// `random_plies`: the random plies after each round's opening.
        plies: Option<Box<ExtraPlies>>,
    },
    /// Random openings, drawn as needed.
    Random(Box<RandomOpenings<G>>),
}

/// `random_plies = K`: a round whose opening an earlier round played already (the list
/// came round again, or a symmetric opening has the same image under two symmetries)
/// plays it with K random plies after it, drawn by round from the master seed, so that
/// no two rounds play the same opening. A round with an opening not played before plays
/// it as it is: random plies cost the balance a list was chosen for (see
/// `configs/tune-gomoku.toml`). Rounds are settled in order, each to a position no
/// earlier round has (a repeat is drawn again), so the first [`DISTINCT_WINDOW`] rounds
/// are all distinct whatever order they are asked in; later rounds get a fresh draw.
struct ExtraPlies {
    plies: u32,
    seed: u64,
    drawn: std::sync::Mutex<PliesDrawn>,
}

#[derive(Default)]
struct PliesDrawn {
    /// The openings of rounds `0..`, in order.
    list: Vec<Opening>,
    seen: std::collections::HashSet<String>,
}

/// How many times a round's random plies are drawn before a repeat of an earlier
/// round is accepted (a list too small for its rounds).
const PLIES_ATTEMPTS: usize = 64;

impl ExtraPlies {
    /// `base` (round `round`'s opening) with the random plies: the candidates in the
    /// order the round's generator draws them.
    fn candidates<G: OpeningGame>(
        &self,
        game: &G::Config,
        base: &Opening,
        round: u64,
    ) -> Result<impl Iterator<Item = Opening>, OpeningError> {
        let start =
            G::from_text(game, &base.position).map_err(|e| LineError::Position(e.to_string()))?;
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(self.seed, Stream::Plies, round));
        let plies = self.plies;
        let mut tries = 0;
        Ok(std::iter::from_fn(move || {
            while tries < MAX_ATTEMPTS {
                tries += 1;
                if let Some(pos) = G::random_plies(&start, plies, &mut rng) {
                    return Some(Opening {
                        position: pos.to_text(),
                    });
                }
            }
            None
        }))
    }

    /// Round `round`'s opening: `base(r)` gives round r's opening from the list.
    fn get<G: OpeningGame>(
        &self,
        game: &G::Config,
        round: u64,
        base: impl Fn(u64) -> Result<Opening, OpeningError>,
    ) -> Result<Opening, OpeningError> {
        let no_room = |b: &Opening| OpeningError::NoRoom {
            plies: self.plies,
            opening: b.position.clone(),
        };
        if round >= DISTINCT_WINDOW as u64 {
            let b = base(round)?;
            return self
                .candidates::<G>(game, &b, round)?
                .next()
                .ok_or_else(|| no_room(&b));
        }
        let mut d = self.drawn.lock().unwrap_or_else(|p| p.into_inner());
        while d.list.len() as u64 <= round {
            let r = d.list.len() as u64;
            let b = base(r)?;
            let opening = if d.seen.contains(&b.position) {
                let mut first = None;
                let mut chosen = None;
                for candidate in self.candidates::<G>(game, &b, r)?.take(PLIES_ATTEMPTS) {
                    if !d.seen.contains(&candidate.position) {
                        chosen = Some(candidate);
                        break;
                    }
                    first.get_or_insert(candidate);
                }
                chosen.or(first).ok_or_else(|| no_room(&b))?
            } else {
                b
            };
            d.seen.insert(opening.position.clone());
            d.list.push(opening);
        }
        Ok(d.list[round as usize].clone())
    }
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
    fn draw(&self, from: u64, count: u64) -> Result<Vec<Opening>, OpeningError> {
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
    fn extended(&self, round: u64) -> Result<std::sync::MutexGuard<'_, Drawn>, OpeningError> {
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

    fn get(&self, round: u64) -> Result<Opening, OpeningError> {
        let d = self.extended(round)?;
        if (round as usize) < d.list.len() {
            return Ok(d.list[round as usize].clone());
        }
        if d.exhausted {
            if d.list.is_empty() {
                return Err(OpeningError::NoneDrawn);
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
                let plies = (o.random_plies > 0).then(|| {
                    Box::new(ExtraPlies {
                        plies: o.random_plies,
                        seed,
                        drawn: std::sync::Mutex::new(PliesDrawn::default()),
                    })
                });
                OpeningBook {
                    source: Source::File {
                        list,
                        order,
                        symmetries,
                        first,
                        plies,
                    },
                    game: game.clone(),
                }
            }
        };
        book.get(0)
            .map_err(|e| ConfigError::new(&source, format!("[openings]: {e}")))?;
        Ok(book)
    }

    pub(super) fn random(
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
    pub fn get(&self, round: u64) -> Result<Opening, OpeningError> {
        match &self.source {
            Source::Start(o) => Ok(o.clone()),
            Source::File {
                list,
                order,
                symmetries,
                first,
                plies,
            } => {
                let base = |round: u64| -> Result<Opening, OpeningError> {
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
                };
                match plies {
                    Some(p) => p.get::<G>(&self.game, round, base),
                    None => base(round),
                }
            }
            Source::Random(r) => r.get(round),
        }
    }

    /// Random openings: the `index`-th distinct one, or None past the window or when the
    /// game has no more (where [`get`](OpeningBook::get) would cycle or draw afresh).
    /// Other books: the opening of round `index`.
    pub(super) fn distinct_candidate(&self, index: u64) -> Result<Option<Opening>, OpeningError> {
        match &self.source {
            Source::Random(r) => Ok(r.extended(index)?.list.get(index as usize).cloned()),
            _ => self.get(index).map(Some),
        }
    }

    /// How many distinct openings the book can give (None: one per round, as random
    /// openings are).
    pub fn distinct(&self) -> Option<u64> {
        match &self.source {
            Source::Start(_) => Some(1),
            // Random plies make each round's opening its own, as random openings are.
            Source::File { plies: Some(_), .. } => None,
            Source::File {
                list, symmetries, ..
            } => Some(list.len() as u64 * *symmetries as u64),
            Source::Random(_) => None,
        }
    }

    /// Refuses openings that leave no move to play under `max_plies` (0: no limit): every
    /// game would be a draw at 0 plies. The error names the opening (the file's line).
    pub fn check_max_plies(&self, game: &G::Config, max_plies: u32) -> Result<(), OpeningError> {
        if max_plies == 0 {
            return Ok(());
        }
        let (openings, extra): (Vec<(Option<usize>, Opening)>, u32) = match &self.source {
            Source::File { list, plies, .. } => (
                list.iter()
                    .enumerate()
                    .map(|(i, o)| (Some(i + 1), o.clone()))
                    .collect(),
                plies.as_ref().map_or(0, |p| p.plies),
            ),
            _ => (vec![(None, self.get(0)?)], 0),
        };
        for (n, o) in openings {
            let pos = G::from_text(game, &o.position)
                .map_err(|e| OpeningError::Opening(e.to_string()))?;
            if pos.plies() + extra >= max_plies {
                return Err(OpeningError::MaxPlies {
                    line: n,
                    plies: pos.plies(),
                    extra,
                    max_plies,
                });
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
) -> Result<Opening, OpeningError> {
    if let Some(why) = G::too_many_plies(game, o.plies) {
        return Err(OpeningError::TooManyPlies {
            plies: o.plies,
            why,
        });
    }
    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, Stream::Opening, round));
    let mut engine = match judge {
        Some(config) => Some(Engine::<G>::new(config, game).map_err(OpeningError::Judge)?),
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
        Some(_) => OpeningError::OutsideMargin {
            plies: o.plies,
            margin: o.balance_margin,
            tries: MAX_ATTEMPTS,
        },
        None => OpeningError::Finished {
            plies: o.plies,
            radius: o.radius,
            tries: MAX_ATTEMPTS,
        },
    })
}

/// Random openings for an opening file: `count` distinct ones (as many as the game
/// has), as lines, drawn exactly as a tournament's [`OpeningBook`] draws them.
pub fn generate<G: OpeningGame>(
    game: &G::Config,
    o: &OpeningsConfig,
    judge: Option<&EngineConfig>,
    seed: u64,
    count: u64,
) -> Result<Vec<String>, OpeningError> {
    let window = usize::try_from(count).map_err(|_| OpeningError::TooMany(count))?;
    // Called from the command line, outside any pool: draw in parallel.
    let book = OpeningBook::<G>::random(game, o, judge.cloned(), seed, window, true);
    (0..count)
        .map(|round| book.get(round).map(|o| o.position))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{
        super::{
            SHIPPED,
            file::read_lines,
            testing::{file, gomoku},
        },
        *,
    };
    use crate::game::{Game, Mnk, MnkConfig, MnkRule};

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
            e.contains(
                "no balanced openings ship for tictactoe (only for gomoku, renju and ataxx)"
            ),
            "{e}"
        );
    }

    /// Issue 44, item 17: the balanced set in its symmetries, then, once it is used up,
    /// random plies after each opening, so that every round plays its own.
    #[test]
    fn random_plies_make_every_round_past_a_list_distinct_and_seeded() {
        let dir = tempfile::tempdir().unwrap();
        let o = "kind = \"balanced\"\ntransform = true\nrandom_plies = 2";
        let t = tournament_with(o, "gomoku", dir.path());
        let g = gomoku();
        let book = OpeningBook::<Mnk>::new(&t, &g).unwrap();
        assert_eq!(book.distinct(), None, "one opening per round");
        let plain = OpeningBook::<Mnk>::new(
            &tournament_with(
                "kind = \"balanced\"\ntransform = true",
                "gomoku",
                dir.path(),
            ),
            &g,
        )
        .unwrap();
        let n = plain.distinct().unwrap();
        // The list's images as they are, then each round that comes back to an image
        // (a symmetric opening has fewer than 8, and the list ends) that image with two
        // more stones: every round its own opening.
        let rounds: Vec<String> = (0..n + 500)
            .map(|r| book.get(r).unwrap().position)
            .collect();
        let distinct: std::collections::HashSet<&String> = rounds.iter().collect();
        assert_eq!(distinct.len() as u64, n + 500);
        let mut seen = std::collections::HashSet::new();
        let mut plied_in_the_list = 0;
        for (r, p) in rounds.iter().enumerate() {
            let base = plain.get(r as u64).unwrap().position;
            if seen.insert(base.clone()) {
                assert_eq!(p, &base, "round {r}");
                continue;
            }
            plied_in_the_list += u64::from((r as u64) < n);
            let (b, e) = (
                Mnk::from_text(&g, &base).unwrap(),
                Mnk::from_text(&g, p).unwrap(),
            );
            assert_eq!(&e.history()[..b.history().len()], b.history(), "round {r}");
            assert_eq!(e.history().len(), b.history().len() + 2, "round {r}");
            assert!(e.outcome().is_none());
        }
        // The shipped set has symmetric openings, whose images repeat within its pass.
        assert!(plied_in_the_list > 0);
        // The same seed, asked in another order (as threads, shards and workers do),
        // gives the same rounds; another seed others.
        let again = OpeningBook::<Mnk>::new(&t, &g).unwrap();
        for r in (0..n + 500).rev().step_by(7) {
            assert_eq!(
                again.get(r).unwrap().position,
                rounds[r as usize],
                "round {r}"
            );
        }
        let mut other = t.clone();
        other.config.seed += 1;
        let reseeded = OpeningBook::<Mnk>::new(&other, &g).unwrap();
        assert_ne!(reseeded.get(n).unwrap().position, rounds[n as usize]);
        // Ataxx's set takes them too; random openings do not.
        let t = tournament_with("kind = \"balanced\"\nrandom_plies = 2", "ataxx", dir.path());
        let book = OpeningBook::<crate::game::Ataxx>::new(&t, &()).unwrap();
        let n = OpeningBook::<crate::game::Ataxx>::new(
            &tournament_with("kind = \"balanced\"", "ataxx", dir.path()),
            &(),
        )
        .unwrap()
        .distinct()
        .unwrap();
        assert_ne!(book.get(n).unwrap().position, book.get(0).unwrap().position);
        let text = "name = \"t\"\ngame = \"gomoku\"\nrounds = 1\n\n[openings]\nkind = \"random\"\n\
                    random_plies = 2\n\n[[engines]]\nname = \"a\"\nsearch = { depth = 1 }\n\n\
                    [[engines]]\nname = \"b\"\nsearch = { depth = 1 }\n";
        let e = Tournament::parse("t.toml", &dir.path().join("t.toml"), text)
            .expect_err("refused")
            .to_string();
        assert!(e.contains("random_plies = K adds random plies"), "{e}");
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
}
