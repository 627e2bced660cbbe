//! Training positions from game records: every game of a results folder's `games.jsonl`
//! is replayed from its opening, and each position before a move becomes a sample
//! labelled with the game's result from the side to move's view, unless it is skipped:
//!
//! - **opening**: fewer than `skip_plies` plies on the board (the opening's stones
//!   count), where the evaluation says little about a result the opening decided;
//! - **not quiet**: in m,n,k games, the evaluator's [`Evaluator::forcing`] sees a forced
//!   win for the side to move (a five or an open four to make), or a four it must
//!   answer: a static score cannot see what the next plies decide (an open three to stop
//!   is kept). In Ataxx, the side to move has a move that gains more than `quiet_gain`
//!   stones of material difference (a single gains 1 and 2 per capture, a jump 2 per
//!   capture): the score swings by that much at the next ply;
//! - **decisive**: the mover's search reported a forced result (`win in 5 plies`) at
//!   this move or an earlier one: the rest of the game is a mating sequence;
//! - whole games that ended by a forfeit or fault (`illegal-move`, `time-forfeit`,
//!   `fault: ...`), whose result says nothing about the positions.
//!
//! Games go to the validation set by a hash of (seed, folder, game index) alone, so the
//! split is the same on any machine and a position never sits in both sets with its
//! game's other positions in the other. Games are replayed in parallel and their
//! positions kept in file order: the datasets are the same on any number of threads.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{
    features::{ataxx_features, lines_features, points_features},
    model::{Dataset, Features},
};
use crate::{
    eval::{
        Evaluator, Forcing, MnkTable,
        mnk::{MnkEval, Shape},
        table::MnkEvaluation,
    },
    game::{
        Ataxx, Game, GameSpec, Mnk, MnkConfig, Side,
        ataxx::{dilate, jump_targets, squares},
    },
    search::score::plies_to_end,
    tournament::{
        Tournament,
        record::{GameRecord, GameResult, ScanError, scan_records},
        seeds::{Stream, derive_seed},
        validate::{Checker, RecordError, RunShape},
    },
};

/// What decides which positions are used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Selection {
    /// Positions with fewer plies on the board are skipped.
    pub skip_plies: u32,
    /// Fraction of games held out for validation.
    pub validation: f64,
    /// Seed of the split.
    pub seed: u64,
    /// Ataxx: positions where the side to move can gain more than this many stones of
    /// material difference in one move are not quiet (`None`: every position is).
    pub quiet_gain: Option<u32>,
}

/// Positions used and skipped, and why.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Games read.
    pub games: u64,
    /// Games left out whole: a forfeit, a fault or an engine's illegal move.
    pub games_forfeited: u64,
    /// Training positions.
    pub train: u64,
    /// Validation positions.
    pub validation: u64,
    /// Skipped: before `skip_plies`.
    pub opening: u64,
    /// Skipped: a forced win or a threat to answer.
    pub not_quiet: u64,
    /// Skipped: at or after a decisive score.
    pub decisive: u64,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.games += o.games;
        self.games_forfeited += o.games_forfeited;
        self.train += o.train;
        self.validation += o.validation;
        self.opening += o.opening;
        self.not_quiet += o.not_quiet;
        self.decisive += o.decisive;
    }
}

/// The positions of a set of records.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Positions {
    /// Training positions.
    pub train: Dataset,
    /// Validation positions.
    pub validation: Dataset,
    /// What was used and skipped.
    pub counts: Counts,
}

/// How positions become features: the evaluator the features come from.
#[derive(Clone, Debug)]
pub enum FeatureSource {
    /// m,n,k: the table (its mode decides lines or points) and the candidate radius.
    Mnk {
        /// The variant.
        config: MnkConfig,
        /// The base table.
        table: Box<MnkTable>,
        /// The engine's candidate radius (the points evaluation reads it).
        radius: usize,
        /// The engine's candidate shape.
        shape: Shape,
    },
    /// Ataxx.
    Ataxx,
}

/// Results a game's record ends with that say something about its positions.
fn is_played_out(reason: &str) -> bool {
    matches!(
        reason,
        "k-in-a-row"
            | "board-full"
            | "no-stones"
            | "no-moves"
            | "halfmove-limit"
            | "max-plies"
            | "resign"
            | "draw-score"
            | "material"
            | "vcf-win"
    )
}

/// The half points of `side` in a game with `result`.
fn half_points(result: GameResult, side: Side) -> u8 {
    let first = result.first_half_points();
    match side {
        Side::First => first,
        Side::Second => 2 - first,
    }
}

/// Whether a game belongs to the validation set.
fn is_validation(sel: &Selection, folder: usize, game: u64) -> bool {
    if sel.validation <= 0.0 {
        return false;
    }
    let h = derive_seed(
        sel.seed ^ (folder as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        Stream::Game,
        game,
    );
    ((h >> 11) as f64 / (1u64 << 53) as f64) < sel.validation
}

/// One game's samples.
struct GameSamples {
    data: Dataset,
    counts: Counts,
}

/// What the replay of one position decided.
enum Verdict {
    Use,
    Opening,
    NotQuiet,
}

/// Why the positions of a game record cannot be read: every variant names the game.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SampleError {
    /// The opening is not a position of the game.
    #[error("game {game}: opening '{opening}': {error}")]
    Opening {
        /// The record's game.
        game: u64,
        /// Its opening.
        opening: String,
        /// Why the game refuses it.
        error: String,
    },
    /// Move `n` (1-based) cannot be read.
    #[error("game {game}: move {n} '{text}': {error}")]
    Move {
        /// The record's game.
        game: u64,
        /// The move number.
        n: usize,
        /// The move.
        text: String,
        /// Why the game cannot read it.
        error: String,
    },
    /// Move `n` (1-based) is illegal.
    #[error("game {game}: move {n} '{text}' is illegal: {why}")]
    Illegal {
        /// The record's game.
        game: u64,
        /// The move number.
        n: usize,
        /// The move.
        text: String,
        /// Why it is illegal.
        why: String,
    },
}

/// Why the positions of a fit cannot be read: every variant names the file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PositionsError {
    /// A folder without game records.
    #[error("{}: no game records (expected a results folder with games.jsonl)", path.display())]
    NoRecords {
        /// The records file looked for.
        path: PathBuf,
    },
    /// A record whose positions cannot be read.
    #[error("{}:{line}: {error}", path.display())]
    Game {
        /// The records file.
        path: PathBuf,
        /// The record's line.
        line: usize,
        /// What is wrong.
        error: SampleError,
    },
    /// A records file without the run.toml it was played from.
    #[error(
        "{}: no run.toml beside it: a fit reads a run's results folder (games.jsonl and the \
         run.toml it was played from), whose records it checks as `arena stats` does",
        path.display()
    )]
    NoRunToml {
        /// The records file.
        path: PathBuf,
    },
    /// A run.toml that cannot be read.
    #[error("{0}")]
    Run(String),
    /// A run of another game than the fit's.
    #[error("{}: the run plays {run}, the fit's engine plays {fit}", path.display())]
    OtherGame {
        /// The records file.
        path: PathBuf,
        /// The run's game.
        run: GameSpec,
        /// The fit's.
        fit: GameSpec,
    },
    /// A record that is not the run's as it wrote it.
    #[error("{}:{line}: {error}", path.display())]
    Record {
        /// The records file.
        path: PathBuf,
        /// The record's line.
        line: usize,
        /// What is wrong.
        error: RecordError,
    },
    /// A records file that cannot be read (the message names the file and the line).
    #[error("{0}")]
    Scan(String),
}

/// Replays `record` and collects its samples; an error names what is wrong with it.
fn game_samples<G: Game>(
    record: &GameRecord,
    config: &G::Config,
    mut judge: impl FnMut(&G, Option<G::Move>) -> Verdict,
    mut features: impl FnMut(&G, &mut Dataset),
) -> Result<GameSamples, SampleError> {
    let mut counts = Counts {
        games: 1,
        ..Counts::default()
    };
    let mut data = Dataset::default();
    if !is_played_out(&record.reason) {
        counts.games_forfeited = 1;
        return Ok(GameSamples { data, counts });
    }
    let mut pos = G::from_text(config, &record.opening).map_err(|e| SampleError::Opening {
        game: record.game,
        opening: record.opening.clone(),
        error: e.to_string(),
    })?;
    judge(&pos, None);
    let mut decided = false;
    for (i, text) in record.moves.iter().enumerate() {
        let score = record.stats.get(i).and_then(|s| s.score);
        decided |= score.is_some_and(|s| plies_to_end(s).is_some());
        if decided {
            counts.decisive += 1;
        } else {
            match judge(&pos, None) {
                Verdict::Opening => counts.opening += 1,
                Verdict::NotQuiet => counts.not_quiet += 1,
                Verdict::Use => {
                    features(&pos, &mut data);
                    let half = half_points(record.result, pos.side_to_move());
                    data.labels.push(f32::from(half) / 2.0);
                }
            }
        }
        let mv = pos.parse_move(text).map_err(|e| SampleError::Move {
            game: record.game,
            n: i + 1,
            text: text.clone(),
            error: e.to_string(),
        })?;
        if !pos.is_legal(mv) {
            return Err(SampleError::Illegal {
                game: record.game,
                n: i + 1,
                text: text.clone(),
                why: pos.why_illegal(mv).to_string(),
            });
        }
        pos.play(mv);
        judge(&pos, Some(mv));
    }
    let n = data.labels.len() as u64;
    counts.train = n;
    Ok(GameSamples { data, counts })
}

/// The most material difference the side to move can gain in one Ataxx move: a single
/// adds a stone and each capture turns one over (2 each), a jump only turns them over.
pub fn best_gain(pos: &Ataxx) -> u32 {
    let me = pos.side_to_move();
    let (own, empty) = (pos.stones(me), pos.empty());
    let near = dilate(own) & empty;
    let mut best = 0;
    for to in squares(empty) {
        let captures = pos.captures_at(to);
        let gain = if near & (1 << to) != 0 {
            1 + 2 * captures
        } else if jump_targets(to) & own != 0 {
            // The squares a jump reaches are the squares it comes from.
            2 * captures
        } else {
            0
        };
        best = best.max(gain);
    }
    best
}

/// `mv` just played (Some) or a fresh position (None): keep the evaluator in step, and
/// judge the position when asked for a verdict (the replay calls with `None` before
/// each move).
fn mnk_judge<'a>(
    eval: &'a std::cell::RefCell<MnkEval>,
    sel: &'a Selection,
) -> impl FnMut(&Mnk, Option<<Mnk as Game>::Move>) -> Verdict + 'a {
    let mut fresh = true;
    move |pos, mv| {
        let mut eval = eval.borrow_mut();
        match mv {
            Some(mv) => {
                eval.played(pos, mv);
                return Verdict::Use;
            }
            None if fresh => {
                eval.reset(pos);
                fresh = false;
                return Verdict::Use;
            }
            None => {}
        }
        if pos.plies() < sel.skip_plies {
            return Verdict::Opening;
        }
        // An open three to stop (`Defend` in 4 plies) is kept: it is how the opponent's
        // open threes are seen at all, and the static score knows it.
        match eval.forcing(pos) {
            Forcing::Quiet => Verdict::Use,
            Forcing::Defend { plies } if plies > 2 => Verdict::Use,
            _ => Verdict::NotQuiet,
        }
    }
}

fn one_game(
    record: &GameRecord,
    source: &FeatureSource,
    sel: &Selection,
) -> Result<GameSamples, SampleError> {
    match source {
        FeatureSource::Mnk {
            config,
            table,
            radius,
            shape,
        } => {
            let mut eval = MnkEval::with_shape(config, table, *radius, *shape);
            eval.set_tracking(true);
            // The judge keeps the evaluator in step with the replay (incrementally, as a
            // search does), and the features read that same evaluator: the position is
            // never rebuilt from scratch per sample.
            let eval = std::cell::RefCell::new(eval);
            let points = table.evaluation == MnkEvaluation::Points;
            game_samples::<Mnk>(record, config, mnk_judge(&eval, sel), |pos, data| {
                let reader = eval.borrow();
                let one = if points {
                    let [a, b] = points_features(&reader, pos);
                    let bounds = vec![[0, a.len() as u32, (a.len() + b.len()) as u32]];
                    Features::Points {
                        cells: a.into_iter().chain(b).collect(),
                        bounds,
                    }
                } else {
                    Features::Lines(vec![lines_features(&reader, pos)])
                };
                data.extend(Dataset {
                    features: one,
                    labels: Vec::new(),
                });
            })
        }
        FeatureSource::Ataxx => game_samples::<Ataxx>(
            record,
            &(),
            |pos, mv| {
                if mv.is_some() {
                    Verdict::Use
                } else if pos.plies() < sel.skip_plies {
                    Verdict::Opening
                } else if sel.quiet_gain.is_some_and(|g| best_gain(pos) > g) {
                    Verdict::NotQuiet
                } else {
                    Verdict::Use
                }
            },
            |pos, data| {
                data.extend(Dataset {
                    features: Features::Ataxx(vec![ataxx_features(pos)]),
                    labels: Vec::new(),
                })
            },
        ),
    }
}

/// Reads the positions of every game in `folders` (each a results folder holding
/// `games.jsonl`, or the file itself). Errors name the file and line.
pub fn read_positions(
    folders: &[PathBuf],
    game: GameSpec,
    source: &FeatureSource,
    sel: &Selection,
) -> Result<Positions, PositionsError> {
    let mut out = Positions::default();
    for (f, folder) in folders.iter().enumerate() {
        let path = records_file(folder);
        if !path.is_file() {
            return Err(PositionsError::NoRecords { path });
        }
        let records = checked_records(&path, game)?;
        let samples: Vec<Result<GameSamples, PositionsError>> = records
            .par_iter()
            .map(|(line, record)| {
                one_game(record, source, sel).map_err(|error| PositionsError::Game {
                    path: path.clone(),
                    line: *line,
                    error,
                })
            })
            .collect();
        for ((_, record), s) in records.iter().zip(samples) {
            let mut s = s?;
            if is_validation(sel, f, record.game) {
                s.counts.validation = s.counts.train;
                s.counts.train = 0;
                out.validation.extend(s.data);
            } else {
                out.train.extend(s.data);
            }
            out.counts.add(&s.counts);
        }
    }
    Ok(out)
}

/// The records of the results file `path`, with their lines, checked as every reader of
/// records checks them (`arena stats`, `export`, `--resume`: see
/// [`validate`](crate::tournament::validate)) against the run's `run.toml` beside the
/// file: a hand-edited result, a line twice or another run's record is an error naming
/// the file and line, never a sample. The run must play `game`, the fit's game.
fn checked_records(
    path: &Path,
    game: GameSpec,
) -> Result<Vec<(usize, GameRecord)>, PositionsError> {
    let (played, records) = run_records(path, Some(game))?;
    debug_assert_eq!(played, game);
    Ok(records)
}

/// The records of the results file `path` with their lines, checked against the
/// `run.toml` beside it as [`read_positions`] checks them, and the game the run plays
/// (which must be `game` when given). `arena datagen --from-games` reads them so.
pub fn run_records(
    path: &Path,
    game: Option<GameSpec>,
) -> Result<(GameSpec, Vec<(usize, GameRecord)>), PositionsError> {
    let folder = path.parent().unwrap_or(Path::new("."));
    let run_toml = folder.join("run.toml");
    if !run_toml.is_file() {
        return Err(PositionsError::NoRunToml {
            path: path.to_path_buf(),
        });
    }
    let run =
        Tournament::from_resolved(&run_toml).map_err(|e| PositionsError::Run(e.to_string()))?;
    if let Some(game) = game
        && run.config.game != game
    {
        return Err(PositionsError::OtherGame {
            path: path.to_path_buf(),
            run: run.config.game,
            fit: game,
        });
    }
    let shape = RunShape::of(&run, None);
    let mut checker = Checker::new(&shape);
    let mut records = Vec::new();
    scan_records(path, |line, record| {
        checker
            .check(&record)
            .map_err(|error| PositionsError::Record {
                path: path.to_path_buf(),
                line,
                error,
            })?;
        records.push((line, record));
        Ok(())
    })
    .map_err(|e| match e {
        ScanError::Read(e) => PositionsError::Scan(e.to_string()),
        ScanError::Record(e) => e,
    })?;
    Ok((run.config.game, records))
}

/// The records file of a results folder (or the path itself when it is a file).
pub fn records_file(folder: &Path) -> PathBuf {
    if folder.is_file() {
        folder.to_path_buf()
    } else {
        folder.join("games.jsonl")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(opening: &str, moves: &[&str], result: GameResult, reason: &str) -> GameRecord {
        let variant = Some(GameSpec::Mnk(MnkConfig::gomoku()));
        GameRecord::for_tests(variant, opening, moves, Some(0), result, reason)
    }

    fn source() -> FeatureSource {
        FeatureSource::Mnk {
            config: MnkConfig::gomoku(),
            table: Box::new(MnkTable::zero()),
            radius: 2,
            shape: Shape::Square,
        }
    }

    const SEL: Selection = Selection {
        skip_plies: 2,
        validation: 0.0,
        seed: 1,
        quiet_gain: None,
    };

    /// The best gain by trying every legal move and counting.
    fn best_gain_by_play(pos: &Ataxx) -> u32 {
        let me = pos.side_to_move();
        let diff =
            |p: &Ataxx| p.stones(me).count_ones() as i32 - p.stones(me.other()).count_ones() as i32;
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        moves
            .iter()
            .map(|&mv| {
                let mut next = *pos;
                next.play(mv);
                (diff(&next) - diff(pos)).max(0) as u32
            })
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn ataxx_positions_with_a_big_capture_are_not_quiet() {
        // Each position of this game, judged by the best gain of its side to move.
        let moves = ["b6", "f6", "c6", "e6", "d6"];
        let start = Ataxx::default().fen();
        let mut r = record(&start, &moves, GameResult::FirstWins, "max-plies");
        r.variant = Some(GameSpec::Ataxx);
        let gains: Vec<u32> = {
            let mut pos = Ataxx::default();
            moves
                .iter()
                .map(|m| {
                    let g = best_gain(&pos);
                    pos.play(pos.parse_move(m).unwrap());
                    g
                })
                .collect()
        };
        let sel = Selection {
            skip_plies: 0,
            ..SEL
        };
        let all = one_game(&r, &FeatureSource::Ataxx, &sel).unwrap().counts;
        assert_eq!((all.train, all.not_quiet), (5, 0));
        for limit in 0..6 {
            let sel = Selection {
                quiet_gain: Some(limit),
                ..sel
            };
            let c = one_game(&r, &FeatureSource::Ataxx, &sel).unwrap().counts;
            let loud = gains.iter().filter(|&&g| g > limit).count() as u64;
            assert_eq!(
                (c.train, c.not_quiet),
                (5 - loud, loud),
                "{limit} {gains:?}"
            );
        }
        // Every position here has a single to play (a gain of at least 1), and the
        // later ones captures.
        assert!(
            gains.iter().all(|&g| g >= 1) && gains.iter().any(|&g| g >= 3),
            "{gains:?}"
        );
    }

    #[test]
    fn ataxx_gain_equals_playing_every_move() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        let mut moves = Vec::new();
        let mut checked = 0;
        for _ in 0..60 {
            let mut pos = Ataxx::default();
            for _ in 0..rng.random_range(1..100) {
                pos.legal_moves(&mut moves);
                if moves.is_empty() || pos.outcome().is_some() {
                    break;
                }
                assert_eq!(best_gain(&pos), best_gain_by_play(&pos), "{}", pos.fen());
                checked += 1;
                pos.play(moves[rng.random_range(0..moves.len())]);
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn positions_are_labelled_from_the_side_to_move_and_skipped_for_cause() {
        // Black builds five on row h while white plays elsewhere: black wins.
        let moves = ["h8", "a1", "i8", "a3", "j8", "a5", "k8", "a7", "l8"];
        let r = record("", &moves, GameResult::FirstWins, "k-in-a-row");
        let s = one_game(&r, &source(), &SEL).unwrap();
        let c = s.counts;
        assert_eq!(c.opening, 2, "{c:?}");
        // White must stop black's open three (kept); then black can make an open four,
        // white faces two fives, black has a five to make: not quiet.
        assert_eq!(c.not_quiet, 3, "{c:?}");
        assert_eq!(c.train, 4);
        assert_eq!(s.data.labels, [1.0, 0.0, 1.0, 0.0]);
        // A decisive score ends the samples there.
        let mut d = r.clone();
        d.stats[4].score = Some(crate::search::score::WIN - 5);
        let c = one_game(&d, &source(), &SEL).unwrap().counts;
        assert_eq!((c.train, c.decisive), (2, 5), "{c:?}");
        // A forfeit: nothing.
        let f = record("", &moves, GameResult::SecondWins, "illegal-move");
        let c = one_game(&f, &source(), &SEL).unwrap().counts;
        assert_eq!((c.games_forfeited, c.train), (1, 0));
        // A move that is not legal is an error naming the game and move.
        let bad = record("", &["h8", "h8"], GameResult::Draw, "max-plies");
        let e = one_game(&bad, &source(), &SEL).err().unwrap();
        assert!(matches!(&e, SampleError::Illegal { n: 2, .. }), "{e}");
        assert!(e.to_string().contains("move 2 'h8'"), "{e}");
    }

    #[test]
    fn the_split_is_by_game_and_seeded() {
        let sel = Selection {
            validation: 0.25,
            ..SEL
        };
        let held: Vec<bool> = (0..400).map(|g| is_validation(&sel, 0, g)).collect();
        let n = held.iter().filter(|h| **h).count();
        assert!((70..130).contains(&n), "{n}");
        let again: Vec<bool> = (0..400).map(|g| is_validation(&sel, 0, g)).collect();
        assert_eq!(held, again);
        let other: Vec<bool> = (0..400).map(|g| is_validation(&sel, 1, g)).collect();
        assert_ne!(held, other, "folders draw apart");
    }
}
