//! Openings judged by play (`arena openings --play N`): each candidate of a random book
//! is played N times by one engine against itself, every game with its own seed for the
//! engine's random choice among near-best root moves, and kept when the first player's
//! score over the N games lies within a [`Band`]. A search's score alone is a weak judge
//! of balance in freestyle gomoku (the first player still scores 70-83 % on openings it
//! calls even); the games are the thing to be balanced.
//!
//! It owns the band, the seeds of the judge games and the batching that makes the kept
//! openings the same on any number of threads. It plays through the tournament's
//! [`play_game`] (the game's own rules: renju's forbidden moves, Ataxx's draws) and draws
//! candidates as the [`OpeningBook`] does; it knows nothing of the command line or of
//! how progress is shown (events go to a sink).

use std::{collections::HashSet, fmt, str::FromStr, sync::atomic::AtomicBool, time::Duration};

use super::{Opening, OpeningBook, OpeningGame, book::MAX_ATTEMPTS};
use crate::{
    engine::{Engine, EngineConfig},
    eval::Evaluator,
    game::GameSpec,
    jobs::pool::{self, Received},
    tournament::{
        config::{Adjudication, OpeningsConfig},
        game::{GameSetup, play_game},
        record::GameResult,
        schedule::ScheduledGame,
        seeds::{Stream, derive_seed},
    },
};

/// How many candidates are played before giving up (as many as balanced random openings
/// are drawn before giving up).
pub const MAX_CANDIDATES: u64 = MAX_ATTEMPTS as u64;

/// The first player's scores an opening may give to be kept: a closed interval within
/// 0..=1 (win 1, draw 1/2, over the games played from it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Band {
    /// Lowest score kept.
    pub low: f64,
    /// Highest score kept.
    pub high: f64,
}

impl Default for Band {
    /// 0.375..0.625: 3 to 5 points of 8 games.
    fn default() -> Band {
        Band {
            low: 0.375,
            high: 0.625,
        }
    }
}

impl Band {
    /// Whether `half_points` half-points of `games` games (a score of
    /// `half_points / (2 games)`) lie in the band.
    pub fn holds(&self, half_points: u32, games: u32) -> bool {
        // Both sides are correctly rounded: a score equal to a bound as a fraction is
        // equal to it as a float too.
        let score = f64::from(half_points) / f64::from(2 * games);
        self.low <= score && score <= self.high
    }

    /// Whether any score of `games` games (a multiple of `1 / (2 games)`) lies in the
    /// band: if none does, no opening can be kept.
    pub fn reachable(&self, games: u32) -> bool {
        (0..=2 * games).any(|h| self.holds(h, games))
    }

    /// Whether a score without draws (a multiple of `1 / games`) lies in the band: if
    /// not, only openings with drawn games can be kept (rare in gomoku).
    pub fn reachable_without_draws(&self, games: u32) -> bool {
        (0..=games).any(|w| self.holds(2 * w, games))
    }
}

/// Why a band of `--play` cannot be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BandError {
    /// Not `LOW..HIGH`.
    #[error("'{0}' is not LOW..HIGH (e.g. 0.4..0.6)")]
    NotABand(String),
    /// A bound that is not a number.
    #[error("'{0}' is not a number (the band is LOW..HIGH)")]
    NotANumber(String),
    /// A bound outside 0..1.
    #[error("{low}..{high} is not within 0..1 (scores: win 1, draw 0.5, loss 0)")]
    OutOfRange {
        /// The low bound.
        low: f64,
        /// The high bound.
        high: f64,
    },
    /// The low bound above the high one.
    #[error("LOW {low} is above HIGH {high}")]
    Reversed {
        /// The low bound.
        low: f64,
        /// The high bound.
        high: f64,
    },
}

impl FromStr for Band {
    type Err = BandError;

    /// `LOW..HIGH`, e.g. `0.4..0.6`.
    fn from_str(s: &str) -> Result<Band, BandError> {
        let (low, high) = s
            .split_once("..")
            .ok_or_else(|| BandError::NotABand(s.to_string()))?;
        let number = |t: &str| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| BandError::NotANumber(t.trim().to_string()))
        };
        let (low, high) = (number(low)?, number(high)?);
        if !(0.0..=1.0).contains(&low) || !(0.0..=1.0).contains(&high) {
            return Err(BandError::OutOfRange { low, high });
        }
        if low > high {
            return Err(BandError::Reversed { low, high });
        }
        Ok(Band { low, high })
    }
}

impl fmt::Display for Band {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.low, self.high)
    }
}

/// The judge of `--play`: an engine config (its own limits, its random margin set), how
/// many games it plays from each candidate, and the band.
#[derive(Clone, Debug)]
pub struct PlayJudge {
    /// The engine of both sides, with `search.random_margin` as the games use it.
    pub engine: EngineConfig,
    /// Games per candidate (at least 1).
    pub games: u32,
    /// The first player's scores kept.
    pub band: Band,
}

impl PlayJudge {
    /// `engine` plays `games` games from each candidate, choosing at random among root
    /// moves within `margin` of the best (None: the config's own `random_margin`, or
    /// [`default_margin`] when it has none, so that the games differ). Fails when the
    /// engine cannot be built for `game`, `games` is 0, the margin is negative or no
    /// score of `games` games lies within `band`.
    pub fn new<G: OpeningGame>(
        engine: &EngineConfig,
        game: &G::Config,
        games: u32,
        band: Band,
        margin: Option<i32>,
    ) -> Result<PlayJudge, PlayError> {
        if games == 0 {
            return Err(PlayError::Setup(
                "0 games per opening judge nothing: play at least 1".into(),
            ));
        }
        if !band.reachable(games) {
            return Err(PlayError::Unreachable { games, band });
        }
        let margin = match margin {
            Some(m) if m <= 0 => {
                return Err(PlayError::Setup(format!(
                    "a random margin of {m} makes every game from an opening the same: \
                     use at least 1"
                )));
            }
            Some(m) => m,
            None if engine.search.random_margin > 0 => engine.search.random_margin,
            None => default_margin::<G>(engine, game)?,
        };
        let mut engine = engine.clone();
        engine.search.random_margin = margin;
        Engine::<G>::new(&engine, game).map_err(PlayError::Setup)?;
        Ok(PlayJudge {
            engine,
            games,
            band,
        })
    }

    /// The random margin of the games.
    pub fn margin(&self) -> i32 {
        self.engine.search.random_margin
    }
}

/// The random margin of judge games when neither the user nor the config gives one: a
/// tenth of the evaluator's unit (an open three for m,n,k-games, a stone for Ataxx), at
/// least 1. Small enough that the engine plays moves it finds nearly as good, large
/// enough that games from one opening differ.
pub fn default_margin<G: OpeningGame>(
    engine: &EngineConfig,
    game: &G::Config,
) -> Result<i32, PlayError> {
    let eval = G::evaluator(game, engine.table.as_ref(), &engine.search)
        .map_err(|e| PlayError::Setup(e.to_string()))?;
    Ok((eval.unit() / 10).max(1))
}

/// One candidate and its games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judged {
    /// Its index among the distinct candidates (0 first).
    pub candidate: u64,
    /// The opening.
    pub opening: Opening,
    /// The first player's half-points (win 2, draw 1).
    pub half_points: u32,
    /// Games played.
    pub games: u32,
    /// How many of them differ in their moves.
    pub distinct: u32,
}

impl Judged {
    /// The first player's score, 0..=1.
    pub fn score(&self) -> f64 {
        f64::from(self.half_points) / f64::from(2 * self.games)
    }
}

/// How far the search is: candidates considered in order, kept, their games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayProgress {
    /// Candidates judged, in candidate order (those of a batch past the last one needed
    /// are not counted: the count is the same on any number of threads).
    pub tried: u64,
    /// Openings kept.
    pub kept: u64,
    /// Games of the candidates judged.
    pub games: u64,
    /// Of them, how many differ from the other games of their candidate.
    pub distinct: u64,
}

/// What [`play_balanced`] reports as it goes.
#[derive(Debug)]
pub enum PlayEvent<'a> {
    /// An opening was kept (in candidate order).
    Kept(&'a Judged),
    /// A batch of candidates was judged.
    Progress(PlayProgress),
}

/// Why [`play_balanced`] failed.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// The judge or the candidates could not be set up or drawn.
    #[error("{0}")]
    Setup(String),
    /// No score of so many games lies in the band.
    #[error(
        "no score of {games} game(s) lies within the band {band} (scores are multiples of \
         1/{}): widen the band or play more games per opening",
        2 * games
    )]
    Unreachable {
        /// Games per candidate.
        games: u32,
        /// The band.
        band: Band,
    },
    /// Fewer openings than asked for lie in the band.
    #[error("{}", short(*.kept, *.count, *.tried, *.games, *.exhausted, .band))]
    Short {
        /// Openings kept.
        kept: u64,
        /// Openings asked for.
        count: u64,
        /// Candidates played.
        tried: u64,
        /// Their games.
        games: u64,
        /// The game had no more distinct openings (else the candidate limit was reached).
        exhausted: bool,
        /// The band.
        band: Band,
    },
    /// The sink failed (stdout closed).
    #[error(transparent)]
    Sink(#[from] std::io::Error),
}

/// The message of [`PlayError::Short`].
fn short(kept: u64, count: u64, tried: u64, games: u64, exhausted: bool, band: &Band) -> String {
    let found = if kept == 0 {
        "no opening".to_string()
    } else {
        format!("only {kept} of {count} openings")
    };
    let after = if exhausted {
        format!("all {tried} distinct openings of the game")
    } else {
        format!("{tried} candidates")
    };
    let fewer = if kept == 0 {
        ""
    } else {
        " or ask for fewer openings"
    };
    format!("{found} within the band {band} after {after} ({games} games): widen the band{fewer}")
}

/// Up to `count` openings of `plies` random plies (`o`, drawn as [`OpeningBook`] draws
/// random openings from `seed`, first kept only when `filter` scores them within
/// `o.balance_margin`) whose games under `judge` give the first player a score within
/// its band, given to `sink` in candidate order as they are found. The candidates are
/// played in batches by the long jobs' worker pool ([`crate::jobs::pool`]), with as many
/// threads as the current rayon pool; what is kept does not depend on their number.
/// Fewer than `count` after [`MAX_CANDIDATES`] candidates (or every distinct opening of a
/// small game) is [`PlayError::Short`], after the kept ones went to the sink.
#[allow(clippy::too_many_arguments)]
pub fn play_balanced<G: OpeningGame>(
    spec: GameSpec,
    game: &G::Config,
    o: &OpeningsConfig,
    filter: Option<&EngineConfig>,
    judge: &PlayJudge,
    seed: u64,
    count: u64,
    mut sink: impl FnMut(PlayEvent<'_>) -> std::io::Result<()>,
) -> Result<PlayProgress, PlayError> {
    // Called from the command line, outside any pool's worker: draw in parallel.
    let book = OpeningBook::<G>::random(
        game,
        o,
        filter.cloned(),
        seed,
        MAX_CANDIDATES as usize,
        true,
    );
    let threads = rayon::current_num_threads().max(1);
    let names = vec![judge.engine.name.clone(); 2];
    let batch = 2 * threads as u64;
    let mut progress = PlayProgress::default();
    let mut next = 0;
    let mut exhausted = false;
    pool::run(
        threads,
        // Engines of each worker thread, built at its first game: a game starts with
        // `new_game`, which forgets everything, so which thread plays it does not matter.
        |_, _| {
            let mut engines: Option<[Engine<G>; 2]> = None;
            let names = &names;
            move |(slot, index, g, start): (usize, u64, u32, G)| {
                if engines.is_none() {
                    match (
                        Engine::<G>::new(&judge.engine, game),
                        Engine::<G>::new(&judge.engine, game),
                    ) {
                        (Ok(a), Ok(b)) => engines = Some([a, b]),
                        (Err(e), _) | (_, Err(e)) => return Some((slot, Err(e))),
                    }
                }
                let [a, b] = engines.as_mut().expect("built above");
                let played = play_one(spec, judge, names, [a, b], &start, seed, index, g);
                Some((slot, Ok(played)))
            }
        },
        |pool| {
            while progress.kept < count && next < MAX_CANDIDATES && !exhausted {
                let mut candidates = Vec::new();
                while (candidates.len() as u64) < batch && next < MAX_CANDIDATES {
                    match book
                        .distinct_candidate(next)
                        .map_err(|e| PlayError::Setup(e.to_string()))?
                    {
                        Some(opening) => {
                            let start = G::from_text(game, &opening.position)
                                .map_err(|e| PlayError::Setup(format!("candidate {next}: {e}")))?;
                            candidates.push((next, opening, start));
                            next += 1;
                        }
                        None => {
                            exhausted = true;
                            break;
                        }
                    }
                }
                // Every game of the batch is one task, so a candidate's games spread over
                // the threads too; the answers go back in their slots, in task order.
                let mut tasks = 0;
                for (index, _, start) in &candidates {
                    for g in 0..judge.games {
                        pool.push((tasks, *index, g, start.clone()));
                        tasks += 1;
                    }
                }
                let mut slots: Vec<Option<Played>> = (0..tasks).map(|_| None).collect();
                let mut answered = 0;
                while answered < tasks {
                    match pool.recv(Duration::from_secs(1)) {
                        Received::Answer((slot, record)) => {
                            slots[slot] = Some(record);
                            answered += 1;
                        }
                        Received::Idle => {}
                        Received::Finished => {
                            return Err(PlayError::Setup("the worker threads stopped".into()));
                        }
                    }
                }
                let mut records = slots
                    .into_iter()
                    .map(|r| r.expect("every task is answered"));
                for (index, opening, _) in candidates {
                    let mut judged = Judged {
                        candidate: index,
                        opening,
                        half_points: 0,
                        games: judge.games,
                        distinct: 0,
                    };
                    let mut seen = HashSet::new();
                    for _ in 0..judge.games {
                        let (result, moves) = records
                            .next()
                            .expect("one record per game of each candidate")
                            .map_err(PlayError::Setup)?;
                        judged.half_points += match result {
                            GameResult::FirstWins => 2,
                            GameResult::Draw => 1,
                            GameResult::SecondWins => 0,
                        };
                        seen.insert(moves);
                    }
                    judged.distinct = seen.len() as u32;
                    progress.tried = index + 1;
                    progress.games += u64::from(judged.games);
                    progress.distinct += u64::from(judged.distinct);
                    if judge.band.holds(judged.half_points, judged.games) {
                        progress.kept += 1;
                        sink(PlayEvent::Kept(&judged))?;
                        if progress.kept >= count {
                            break;
                        }
                    }
                }
                sink(PlayEvent::Progress(progress))?;
            }
            Ok::<(), PlayError>(())
        },
    )?;
    if progress.kept < count {
        return Err(PlayError::Short {
            kept: progress.kept,
            count,
            tried: progress.tried,
            games: progress.games,
            exhausted,
            band: judge.band,
        });
    }
    Ok(progress)
}

/// One judging game's result and moves, or why it could not be played.
type Played = Result<(GameResult, Vec<String>), String>;

/// The seed of game `game` of candidate `candidate`: from the master seed, the candidate
/// and the game alone (never from thread timing).
pub fn judge_seed(master: u64, candidate: u64, game: u32) -> u64 {
    derive_seed(
        derive_seed(master, Stream::Judge, candidate),
        Stream::Judge,
        u64::from(game),
    )
}

/// Game `game` of candidate `candidate`, from `start`: its result and moves.
#[allow(clippy::too_many_arguments)]
fn play_one<G: OpeningGame>(
    spec: GameSpec,
    judge: &PlayJudge,
    names: &[String],
    players: [&mut Engine<G>; 2],
    start: &G,
    master: u64,
    candidate: u64,
    game: u32,
) -> (GameResult, Vec<String>) {
    let stop = AtomicBool::new(false);
    let adjudication = Adjudication::default();
    let [a, b] = players;
    let search = &judge.engine.search;
    let setup = GameSetup {
        variant: spec,
        scheduled: ScheduledGame {
            game: u64::from(game),
            pair: candidate,
            round: candidate,
            pairing: 0,
            black: 0,
            white: 1,
        },
        names,
        start,
        seed: judge_seed(master, candidate, game),
        adjudication: &adjudication,
        reproducible: !search.is_timed(),
        stop: &stop,
        time_controls: [search.time_control(); 2],
        move_limits: [search.move_limit(); 2],
    };
    let record = play_game(&setup, [a, b]).expect("never abandoned: nothing raises the stop flag");
    (record.result, record.moves)
}

#[cfg(test)]
mod tests {
    use super::{super::testing::gomoku, *};
    use crate::{engine::builtin, game::Mnk};

    #[test]
    fn bands_parse_and_hold_their_ends() {
        let b: Band = "0.375..0.625".parse().unwrap();
        assert_eq!((b.low, b.high), (0.375, 0.625));
        assert_eq!(b, Band::default());
        // 3 and 5 points of 8 are in, 2.5 and 5.5 out.
        assert!(b.holds(6, 8) && b.holds(10, 8));
        assert!(!b.holds(5, 8) && !b.holds(11, 8));
        // A bound equal to a score as a fraction holds it (0.3 = 3/10).
        let b: Band = " 0.3 .. 0.7 ".parse().unwrap();
        assert!(b.holds(3, 5) && b.holds(7, 5) && !b.holds(2, 5));
        for (text, why) in [
            ("0.5", "not LOW..HIGH"),
            ("a..0.5", "'a' is not a number"),
            ("0.2..NaN", "'NaN' is not a number"),
            ("0.7..0.3", "LOW 0.7 is above HIGH 0.3"),
            ("-0.1..0.5", "not within 0..1"),
            ("0.5..1.5", "not within 0..1"),
        ] {
            let e = text.parse::<Band>().unwrap_err().to_string();
            assert!(e.contains(why), "{text}: {e}");
        }
        // One game scores 0, 1/2 or 1: a band between them holds nothing.
        let narrow: Band = "0.6..0.9".parse().unwrap();
        assert!(!narrow.reachable(1) && narrow.reachable(2));
        let draws_only: Band = "0.5..0.5".parse().unwrap();
        assert!(draws_only.reachable_without_draws(2) && !draws_only.reachable_without_draws(3));
    }

    #[test]
    fn judge_seeds_depend_on_the_candidate_and_the_game() {
        let mut seen = HashSet::new();
        for candidate in 0..20 {
            for game in 0..20 {
                assert!(seen.insert(judge_seed(7, candidate, game)));
            }
        }
        assert_eq!(judge_seed(7, 3, 4), judge_seed(7, 3, 4));
        assert_ne!(judge_seed(7, 3, 4), judge_seed(8, 3, 4));
    }

    fn quick_engine() -> EngineConfig {
        let mut e = builtin::engine("gomoku-seed003-threat").unwrap();
        e.search.depth = 1;
        e.search.tt_mb = 1;
        e
    }

    /// Everything kept (and how it scored) on a pool of `threads`.
    fn kept_on(threads: usize, judge: &PlayJudge, count: u64) -> (Vec<Judged>, PlayProgress) {
        let o = OpeningsConfig {
            plies: 3,
            ..OpeningsConfig::default()
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut kept = Vec::new();
        let progress = pool
            .install(|| {
                play_balanced::<Mnk>(
                    GameSpec::Mnk(gomoku()),
                    &gomoku(),
                    &o,
                    None,
                    judge,
                    5,
                    count,
                    |event| {
                        if let PlayEvent::Kept(j) = event {
                            kept.push(j.clone());
                        }
                        Ok(())
                    },
                )
            })
            .unwrap();
        (kept, progress)
    }

    #[test]
    fn kept_openings_do_not_depend_on_the_threads_and_lie_in_the_band() {
        let band: Band = "0.25..0.75".parse().unwrap();
        let judge = PlayJudge::new::<Mnk>(&quick_engine(), &gomoku(), 4, band, None).unwrap();
        // The config has no random margin: a tenth of an open three (7500).
        assert_eq!(judge.margin(), 750);
        let (one, p1) = kept_on(1, &judge, 5);
        let (three, p3) = kept_on(3, &judge, 5);
        assert_eq!(one, three);
        assert_eq!(p1, p3);
        assert_eq!(one.len(), 5);
        assert_eq!(p1.kept, 5);
        assert_eq!(p1.games, 4 * p1.tried);
        for j in &one {
            assert!(band.holds(j.half_points, 4), "{j:?}");
            assert!((0.25..=0.75).contains(&j.score()), "{j:?}");
        }
        // Candidates in order, and the games of one opening differ.
        assert!(one.windows(2).all(|w| w[0].candidate < w[1].candidate));
        assert!(
            p1.distinct > p1.tried,
            "{p1:?}: the games of an opening all alike"
        );
    }

    #[test]
    fn the_judge_refuses_what_can_keep_nothing() {
        let e = quick_engine();
        let g = gomoku();
        let err = PlayJudge::new::<Mnk>(&e, &g, 0, Band::default(), None).unwrap_err();
        assert!(err.to_string().contains("0 games"), "{err}");
        let narrow: Band = "0.6..0.9".parse().unwrap();
        let err = PlayJudge::new::<Mnk>(&e, &g, 1, narrow, None).unwrap_err();
        assert!(
            err.to_string()
                .contains("no score of 1 game(s) lies within the band 0.6..0.9"),
            "{err}"
        );
        // The config's own margin, or the one asked for.
        let mut own = e.clone();
        own.search.random_margin = 42;
        let j = PlayJudge::new::<Mnk>(&own, &g, 2, Band::default(), None).unwrap();
        assert_eq!(j.margin(), 42);
        let j = PlayJudge::new::<Mnk>(&own, &g, 2, Band::default(), Some(7)).unwrap();
        assert_eq!(j.margin(), 7);
    }
}
