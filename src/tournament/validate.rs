//! Checking game records against the run they claim to belong to, wherever records are
//! read (`arena stats`, `--resume`, `arena merge`, `arena export`): a record's index must
//! be in the schedule (and in the shard), its pair, round, pairing and colours must be
//! the schedule's for that index, its engine names the config's, its seed the one derived
//! from the master seed, and no game may appear twice; and the game itself must replay by
//! the rules (see [`replay`](super::replay)): legal moves from the opening, the side to
//! move, the result and the reason. A record that fails is refused
//! with `file:line` and what is wrong, so a hand-edited, truncated-and-glued or foreign
//! `games.jsonl` is an error (exit 2), never a panic or a silently wrong statistic.
//!
//! It takes parsed records ([`GameRecord`]) and knows nothing of how they are stored.

use std::path::Path;

use super::{
    Tournament,
    config::Adjudication,
    error::RunError,
    record::{GameRecord, ReadError, Scan, ScanError, scan_records},
    replay::{ReplayError, TimeLimits},
    schedule::Schedule,
    seeds::{Stream, derive_seed},
    shard::Shard,
};
use crate::game::GameSpec;

/// Why a game record does not belong to the run it is read for: every variant names the
/// record's game.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RecordError {
    /// The index is past the schedule's end.
    #[error("game {game} is not in the schedule, which has games 0 to {last}")]
    NotScheduled {
        /// The record's game.
        game: u64,
        /// The schedule's last game.
        last: u64,
    },
    /// Another game variant than the run's.
    #[error("game {game}: variant is {variant}, the run plays {run}")]
    Variant {
        /// The record's game.
        game: u64,
        /// The record's variant.
        variant: GameSpec,
        /// The run's.
        run: GameSpec,
    },
    /// A field that is not the schedule's (pair, round, pairing, colours, names).
    #[error("game {game}: {field} is {got}, the schedule says {want}")]
    Schedule {
        /// The record's game.
        game: u64,
        /// The field.
        field: String,
        /// The record's value.
        got: String,
        /// The schedule's.
        want: String,
    },
    /// A seed not derived from the run's master seed.
    #[error(
        "game {game}: another seed ({seed}; the run's is {want}, from the master seed \
         {master}): the record comes from another run"
    )]
    Seed {
        /// The record's game.
        game: u64,
        /// The record's seed.
        seed: u64,
        /// The run's seed for the game.
        want: u64,
        /// The run's master seed.
        master: u64,
    },
    /// A game of another shard.
    #[error("game {game} belongs to shard {owner}, not {shard}")]
    Shard {
        /// The record's game.
        game: u64,
        /// The shard it belongs to.
        owner: String,
        /// The shard read.
        shard: String,
    },
    /// `first_mover` is neither colour's engine.
    #[error(
        "game {game}: first_mover {first_mover} is neither black ({black}) nor white ({white})"
    )]
    FirstMover {
        /// The record's game.
        game: u64,
        /// Its first_mover.
        first_mover: usize,
        /// Its black engine.
        black: usize,
        /// Its white engine.
        white: usize,
    },
    /// Moves, move stats and plies that do not agree.
    #[error("game {game}: {moves} moves, {stats} move stats and plies = {plies} do not agree")]
    Lengths {
        /// The record's game.
        game: u64,
        /// Its moves.
        moves: usize,
        /// Its move stats.
        stats: usize,
        /// Its plies.
        plies: u32,
    },
    /// The game does not replay by the rules.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// A game index read before.
    #[error("game {0} appears twice")]
    Twice(u64),
}

/// Which games a results file may hold: the run's game, schedule, names and seed, and
/// the shard (the whole run when `None`).
#[derive(Clone, Debug)]
pub struct RunShape {
    /// The game played.
    pub game: GameSpec,
    /// The schedule.
    pub schedule: Schedule,
    /// The master seed.
    pub seed: u64,
    /// Engine names, by engine index.
    pub names: Vec<String>,
    /// The shard the file belongs to.
    pub shard: Option<Shard>,
    /// The run's adjudication (`max-plies` and `resign` endings are checked against it).
    pub adjudication: Adjudication,
    /// Engine time limits, by engine index (a `time-forfeit` needs one on the loser).
    pub limits: Vec<TimeLimits>,
}

impl RunShape {
    /// The shape of tournament `t` (or of its shard).
    pub fn of(t: &Tournament, shard: Option<Shard>) -> RunShape {
        RunShape {
            game: t.config.game,
            schedule: Schedule::new(t.config.format, t.engines.len(), u64::from(t.config.rounds)),
            seed: t.config.seed,
            names: t.engines.iter().map(|e| e.name().to_string()).collect(),
            shard,
            adjudication: t.config.adjudication.clone(),
            limits: t
                .engines
                .iter()
                .map(|e| TimeLimits {
                    clock: e.time_control().is_some(),
                    per_move: e.move_limit().is_some(),
                })
                .collect(),
        }
    }

    /// Checks one record on its own (not whether it repeats another). The message says
    /// what is wrong, starting with the game.
    pub fn check(&self, r: &GameRecord) -> Result<(), RecordError> {
        let s = &self.schedule;
        if r.game >= s.games() {
            return Err(RecordError::NotScheduled {
                game: r.game,
                last: s.games().saturating_sub(1),
            });
        }
        if let Some(variant) = r.variant
            && variant != self.game
        {
            return Err(RecordError::Variant {
                game: r.game,
                variant,
                run: self.game,
            });
        }
        let want = s.game(r.game);
        let what = |field: &str, got: String, want: String| {
            Err(RecordError::Schedule {
                game: r.game,
                field: field.to_string(),
                got,
                want,
            })
        };
        if r.pair != want.pair {
            return what("pair", r.pair.to_string(), want.pair.to_string());
        }
        if r.round != want.round {
            return what("round", r.round.to_string(), want.round.to_string());
        }
        if r.pairing != want.pairing {
            return what("pairing", r.pairing.to_string(), want.pairing.to_string());
        }
        if (r.black, r.white) != (want.black, want.white) {
            return what(
                "the colours (black, white)",
                format!("({}, {})", r.black, r.white),
                format!("({}, {})", want.black, want.white),
            );
        }
        for (side, index, name) in [
            ("black", r.black, &r.black_name),
            ("white", r.white, &r.white_name),
        ] {
            if self.names.get(index) != Some(name) {
                return what(
                    &format!("{side}_name"),
                    format!("'{name}'"),
                    format!("'{}'", self.names.get(index).map_or("?", |n| n.as_str())),
                );
            }
        }
        let seed = derive_seed(self.seed, Stream::Game, r.game);
        if r.seed != seed {
            return Err(RecordError::Seed {
                game: r.game,
                seed: r.seed,
                want: seed,
                master: self.seed,
            });
        }
        if let Some(shard) = self.shard
            && !shard.has_pair(r.pair)
        {
            let owner = Shard {
                index: (r.pair % u64::from(shard.count)) as u32,
                count: shard.count,
            };
            return Err(RecordError::Shard {
                game: r.game,
                owner: owner.label(),
                shard: shard.label(),
            });
        }
        if r.first_mover != r.black && r.first_mover != r.white {
            return Err(RecordError::FirstMover {
                game: r.game,
                first_mover: r.first_mover,
                black: r.black,
                white: r.white,
            });
        }
        if r.stats.len() != r.moves.len() || r.plies as usize != r.moves.len() {
            return Err(RecordError::Lengths {
                game: r.game,
                moves: r.moves.len(),
                stats: r.stats.len(),
                plies: r.plies,
            });
        }
        let limits = |engine: usize| self.limits.get(engine).copied().unwrap_or_default();
        super::replay::replay(
            self.game,
            &self.adjudication,
            [limits(r.black), limits(r.white)],
            r,
        )?;
        Ok(())
    }
}

/// A set of game indices, one bit each: memory grows with the highest index added, not
/// with the schedule.
#[derive(Clone, Debug, Default)]
pub struct GameSet {
    words: Vec<u64>,
    len: u64,
}

impl GameSet {
    /// Adds `game`; false if it was there already.
    pub fn insert(&mut self, game: u64) -> bool {
        let (word, bit) = ((game / 64) as usize, game % 64);
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let was = self.words[word] & (1 << bit) != 0;
        self.words[word] |= 1 << bit;
        self.len += u64::from(!was);
        !was
    }

    /// Whether `game` is in the set.
    pub fn contains(&self, game: u64) -> bool {
        self.words
            .get((game / 64) as usize)
            .is_some_and(|w| w & (1 << (game % 64)) != 0)
    }

    /// How many games are in the set.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Checks records one after the other: each against the shape, and none twice.
#[derive(Clone, Debug)]
pub struct Checker<'a> {
    shape: &'a RunShape,
    seen: GameSet,
}

impl<'a> Checker<'a> {
    /// A checker for files of `shape`.
    pub fn new(shape: &'a RunShape) -> Checker<'a> {
        Checker {
            shape,
            seen: GameSet::default(),
        }
    }

    /// Checks `r` (see [`RunShape::check`]) and that no earlier record had its index.
    pub fn check(&mut self, r: &GameRecord) -> Result<(), RecordError> {
        self.shape.check(r)?;
        if !self.seen.insert(r.game) {
            return Err(RecordError::Twice(r.game));
        }
        Ok(())
    }

    /// The games checked so far.
    pub fn seen(&self) -> &GameSet {
        &self.seen
    }

    /// Gives up the set of games checked.
    pub fn into_seen(self) -> GameSet {
        self.seen
    }
}

/// Hands every record of `path` to `each` after checking it against `shape`; the first
/// bad record is an error naming `path:line`. Returns the checked games and the scan.
pub fn scan_checked(
    path: &Path,
    shape: &RunShape,
    mut each: impl FnMut(&GameRecord),
) -> Result<(GameSet, Scan), RunError> {
    let mut checker = Checker::new(shape);
    let scan = scan_records(path, |line, record| {
        checker
            .check(&record)
            .map_err(|why| format!("{}:{line}: {why}", path.display()))?;
        each(&record);
        Ok(())
    })
    .map_err(|e| match e {
        ScanError::Read(ReadError::Io { path, source }) => RunError::Io { path, source },
        ScanError::Read(e) => RunError::Input(e.to_string()),
        ScanError::Record(message) => RunError::Input(message),
    })?;
    Ok((checker.into_seen(), scan))
}

/// Every record of `path`, checked against `shape` (see [`scan_checked`]).
pub fn read_checked(path: &Path, shape: &RunShape) -> Result<Checked, RunError> {
    let mut records = Vec::new();
    let (_, scan) = scan_checked(path, shape, |r| records.push(r.clone()))?;
    Ok(Checked {
        records,
        torn_tail: scan.torn_tail,
        valid_len: scan.valid_len,
        lines: scan.lines,
    })
}

/// The records of a file that passed [`read_checked`].
#[derive(Debug, Default)]
pub struct Checked {
    /// In file order.
    pub records: Vec<GameRecord>,
    /// Whether a torn last line was left out.
    pub torn_tail: bool,
    /// Byte length of the valid part.
    pub valid_len: u64,
    /// Lines read (a torn last line included).
    pub lines: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::{config::Format, record::GameResult};

    fn shape() -> RunShape {
        RunShape {
            game: GameSpec::Ataxx,
            schedule: Schedule::new(Format::RoundRobin, 3, 2),
            seed: 7,
            names: vec!["a".into(), "b".into(), "c".into()],
            shard: None,
            adjudication: Adjudication {
                max_plies: 1,
                ..Adjudication::default()
            },
            limits: vec![TimeLimits::default(); 3],
        }
    }

    fn record(shape: &RunShape, game: u64) -> GameRecord {
        let g = shape.schedule.game(game);
        GameRecord {
            variant: Some(GameSpec::Ataxx),
            game,
            pair: g.pair,
            round: g.round,
            pairing: g.pairing,
            black: g.black,
            white: g.white,
            black_name: shape.names[g.black].clone(),
            white_name: shape.names[g.white].clone(),
            opening: "x5o/7/7/7/7/7/o5x x 0 1".into(),
            first_mover: g.black,
            moves: vec!["b6".into()],
            stats: vec![crate::tournament::record::MoveStat {
                depth: 1,
                nodes: 1,
                time_us: 1,
                score: None,
                iterations: vec![],
            }],
            result: GameResult::Draw,
            reason: "max-plies".into(),
            plies: 1,
            seed: derive_seed(shape.seed, Stream::Game, game),
            reproducible: true,
            duration_ms: 1,
            played_at: None,
        }
    }

    #[test]
    fn records_must_match_the_schedule() {
        let s = shape();
        for g in 0..s.schedule.games() {
            s.check(&record(&s, g)).unwrap();
        }
        type Mutation = fn(&mut GameRecord);
        let cases: [(&str, Mutation); 10] = [
            ("variant is tictactoe", |r| {
                r.variant = Some("tictactoe".parse().unwrap())
            }),
            ("not in the schedule", |r| r.game = 99),
            ("pairing is 99", |r| r.pairing = 99),
            ("colours", |r| r.black = 99),
            ("colours", |r| std::mem::swap(&mut r.black, &mut r.white)),
            ("black_name", |r| r.black_name = "x".into()),
            ("another run", |r| r.seed ^= 1),
            ("pair is", |r| r.pair += 1),
            ("first_mover", |r| r.first_mover = 0),
            ("do not agree", |r| r.plies = 5),
        ];
        for (want, mutate) in cases {
            let mut r = record(&s, 4);
            mutate(&mut r);
            let e = s.check(&r).unwrap_err().to_string();
            assert!(e.contains(want), "{want}: {e}");
        }
        let mut c = Checker::new(&s);
        c.check(&record(&s, 3)).unwrap();
        assert_eq!(c.check(&record(&s, 3)), Err(RecordError::Twice(3)));
        let sharded = RunShape {
            shard: Some(Shard { index: 1, count: 2 }),
            ..shape()
        };
        assert!(sharded.check(&record(&s, 2)).is_ok());
        let e = sharded.check(&record(&s, 0)).unwrap_err();
        assert!(
            matches!(&e, RecordError::Shard { owner, .. } if owner == "0/2"),
            "{e}"
        );
        assert!(e.to_string().contains("belongs to shard 0/2"), "{e}");
    }

    #[test]
    fn game_sets_grow_with_the_highest_index() {
        let mut set = GameSet::default();
        assert!(set.insert(5) && !set.insert(5) && set.insert(1000));
        assert!(set.contains(5) && set.contains(1000) && !set.contains(6));
        assert_eq!(set.len(), 2);
        assert_eq!(set.words.len(), 1000 / 64 + 1);
    }
}
