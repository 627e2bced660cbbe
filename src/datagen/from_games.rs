//! `arena datagen --from-games`: training positions from games already played, by any
//! engines (outside ones included), read from results folders' `games.jsonl`. Each
//! record is checked against its run's `run.toml` as every reader of records checks it,
//! replayed from its opening, and each position before a move is written with the score
//! the mover's search reported for it (a record's `stats[i].score`, from the mover's
//! view) and the game's result for the side to move: the labels an outside engine's
//! search gives, in the formats `arena fit` and the field's trainers read.
//!
//! The positions left out are datagen's ([`super::run::samples_of`]): those at or after
//! a forced result (a mate score, or, with `decisive_above`, a `cp` score beyond it, as
//! some engines report their wins), m,n,k positions with a win to make or a four to
//! answer, Ataxx capture swings, moves without a score, moves of players not asked for,
//! whole games that ended by a forfeit or a fault, the first `skip_moves` moves of
//! each game when asked, and duplicates within windows of `dedup_window` games
//! (counted over the sources in order; 0: none dropped).
//!
//! The output is a pure function of the records and the options (any `--jobs`): the
//! games are replayed in parallel and written in source and file order. It is written
//! to a temporary file that replaces nothing until it is whole (`positions.EXT` appears
//! complete or not at all); `datagen.toml` beside it says where it came from.

use std::{
    collections::{BTreeSet, HashSet},
    io::{BufWriter, Write},
    path::{Path, PathBuf},
    time::Instant,
};

use rayon::prelude::*;

use super::{
    format::{self, DATA_STEM, Format},
    run::{GameError, Labelling, OPTIONS_FILE, samples_of},
    sample::{DatagenGame, GameSamples},
};
use crate::{
    engine::SearchConfig,
    files,
    game::GameSpec,
    jobs::lock,
    tournament::{RunError, record::GameRecord},
    tune::fit::positions::{records_file, run_records},
    with_game,
};

/// The largest `--score-scale`.
pub const MAX_SCORE_SCALE: f64 = 1000.0;

/// What to read and how to write it.
#[derive(Clone, Debug, PartialEq)]
pub struct FromGames {
    /// Results folders (or `games.jsonl` files), read in this order.
    pub sources: Vec<PathBuf>,
    /// Only positions where one of these engines moved (by the names the records give);
    /// empty: every engine's.
    pub players: Vec<String>,
    /// A score beyond ±this counts as a forced result (see [`Labelling`]).
    pub decisive_above: Option<i32>,
    /// Leave out the positions before the first this many moves of each game.
    pub skip_moves: usize,
    /// Keep the positions the static look calls forcing (see [`Labelling`]).
    pub keep_forcing: bool,
    /// The format.
    pub format: Format,
    /// Scores are clipped to ±this.
    pub score_clip: i32,
    /// Scores are multiplied by this first (see [`Labelling`]); 1: as recorded.
    pub score_scale: f64,
    /// Duplicates are dropped within windows of this many games (0: none are).
    pub dedup_window: u64,
}

/// What a conversion wrote and left out.
#[derive(Clone, Debug, PartialEq)]
pub struct FromGamesOutcome {
    /// The data file written.
    pub data: PathBuf,
    /// The game the records play.
    pub game: GameSpec,
    /// Records read.
    pub games: u64,
    /// Games left out whole: a forfeit or a fault.
    pub forfeited: u64,
    /// Positions written.
    pub positions: u64,
    /// Skipped: at or after a forced result.
    pub decided: u64,
    /// Skipped: a forced line or a capture swing in sight.
    pub forcing: u64,
    /// Skipped: the move came with no score.
    pub unscored: u64,
    /// Skipped: before the first `skip_moves` moves.
    pub early: u64,
    /// Skipped: a player not asked for moved.
    pub other_players: u64,
    /// Skipped: seen before in the window.
    pub duplicates: u64,
    /// Wall time.
    pub elapsed: std::time::Duration,
}

impl FromGames {
    /// Refuses options that cannot work, naming the flag.
    fn check(&self) -> Result<(), RunError> {
        if self.sources.is_empty() {
            return Err(RunError::Input(
                "--from-games: name at least one results folder".into(),
            ));
        }
        format::check_clip(self.format, self.score_clip).map_err(RunError::Input)?;
        if !(self.score_scale > 0.0 && self.score_scale <= MAX_SCORE_SCALE) {
            return Err(RunError::Input(format!(
                "--score-scale: {} is not a number above 0 and at most {MAX_SCORE_SCALE}",
                self.score_scale
            )));
        }
        if self.decisive_above.is_some_and(|a| a < 1) {
            return Err(RunError::Input(
                "--decisive-above: must be at least 1".into(),
            ));
        }
        Ok(())
    }

    /// The options as `datagen.toml` holds them.
    fn resolved_toml(&self, game: GameSpec) -> Result<String, RunError> {
        let mut t = toml::Table::new();
        t.insert(
            "from_games".into(),
            toml::Value::Array(
                self.sources
                    .iter()
                    .map(|p| toml::Value::String(p.display().to_string()))
                    .collect(),
            ),
        );
        t.insert("game".into(), toml::Value::String(game.to_string()));
        t.insert(
            "players".into(),
            toml::Value::Array(
                self.players
                    .iter()
                    .map(|p| toml::Value::String(p.clone()))
                    .collect(),
            ),
        );
        t.insert(
            "keep_forcing".into(),
            toml::Value::Boolean(self.keep_forcing),
        );
        t.insert(
            "skip_moves".into(),
            toml::Value::Integer(i64::try_from(self.skip_moves).unwrap_or(i64::MAX)),
        );
        if let Some(a) = self.decisive_above {
            t.insert("decisive_above".into(), toml::Value::Integer(a.into()));
        }
        t.insert(
            "format".into(),
            toml::Value::String(self.format.as_str().into()),
        );
        t.insert(
            "score_clip".into(),
            toml::Value::Integer(self.score_clip.into()),
        );
        if self.score_scale != 1.0 {
            t.insert("score_scale".into(), toml::Value::Float(self.score_scale));
        }
        t.insert(
            "dedup_window".into(),
            toml::Value::Integer(i64::try_from(self.dedup_window).unwrap_or(i64::MAX)),
        );
        toml::to_string(&t).map_err(|e| RunError::Input(e.to_string()))
    }
}

/// Writes the positions of the games in `fg.sources` into `out` (a new folder, or one
/// without data), on `jobs` threads (0: all cores).
pub fn from_games(fg: &FromGames, out: &Path, jobs: usize) -> Result<FromGamesOutcome, RunError> {
    let started = Instant::now();
    fg.check()?;
    // Every source is read and checked before the output folder is touched.
    let mut game = None;
    let mut sources = Vec::new();
    for source in &fg.sources {
        let path = records_file(source);
        if !path.is_file() {
            return Err(RunError::Input(format!(
                "{}: no game records (expected a results folder with games.jsonl, or the \
                 file itself)",
                source.display()
            )));
        }
        let (played, records) =
            run_records(&path, None).map_err(|e| RunError::Input(e.to_string()))?;
        match game {
            None => game = Some(played),
            Some(g) if g != played => {
                return Err(RunError::Input(format!(
                    "{}: plays {played}, but {} plays {g}: one data file holds one game",
                    path.display(),
                    fg.sources[0].display()
                )));
            }
            Some(_) => {}
        }
        sources.push((path, records));
    }
    let game = game.expect("checked: at least one source");
    if let Some(why) = fg.format.refusal(&game) {
        return Err(RunError::Input(why));
    }
    let names: BTreeSet<&str> = sources
        .iter()
        .flat_map(|(_, r)| r.iter())
        .flat_map(|(_, r)| [r.black_name.as_str(), r.white_name.as_str()])
        .collect();
    if let Some(missing) = fg.players.iter().find(|p| !names.contains(p.as_str())) {
        return Err(RunError::Input(format!(
            "--player {missing}: no game of the sources has a player of that name (they have: \
             {})",
            names.iter().copied().collect::<Vec<_>>().join(", ")
        )));
    }

    let folder_lock = lock::lock_exclusive(out, "arena datagen --from-games")?;
    files::remove_stale_temporaries(out);
    if let Ok(existing) = format::data_files(out) {
        return Err(RunError::Input(format!(
            "{}: already holds data ({}): choose another --out",
            out.display(),
            existing
                .iter()
                .map(|(p, _)| p
                    .file_name()
                    .map_or(String::new(), |n| n.to_string_lossy().into()))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| RunError::Input(format!("--jobs: {e}")))?;
    let data = out.join(format!("{DATA_STEM}.{}", fg.format.extension()));
    let mut outcome = FromGamesOutcome {
        data: data.clone(),
        game,
        games: 0,
        forfeited: 0,
        positions: 0,
        decided: 0,
        forcing: 0,
        unscored: 0,
        early: 0,
        other_players: 0,
        duplicates: 0,
        elapsed: started.elapsed(),
    };
    // A game's error is kept aside: the writer closure must return an io error.
    let mut failure: Option<RunError> = None;
    let resolved = fg.resolved_toml(game)?;
    files::write_atomic(&out.join(OPTIONS_FILE), resolved.as_bytes(), true)?;
    let written = files::write_atomic_with(&data, true, |file| {
        let mut w = BufWriter::with_capacity(1 << 20, file);
        let mut keys = HashSet::new();
        let mut index = 0u64;
        let mut buf = Vec::new();
        for (path, records) in &sources {
            let games = match pool.install(|| replay(fg, game, records)) {
                Ok(g) => g,
                Err((line, e)) => {
                    failure = Some(RunError::Input(format!("{}:{line}: {e}", path.display())));
                    return Err(std::io::Error::other("a game could not be replayed"));
                }
            };
            for (played_out, samples) in games {
                if fg.dedup_window > 0 && index.is_multiple_of(fg.dedup_window) {
                    keys.clear();
                }
                index += 1;
                outcome.games += 1;
                if !played_out {
                    outcome.forfeited += 1;
                    continue;
                }
                outcome.decided += samples.decided;
                outcome.forcing += samples.forcing;
                outcome.unscored += samples.unscored;
                outcome.other_players += samples.other_side;
                outcome.early += samples.early;
                let kept: Vec<_> = samples
                    .samples
                    .iter()
                    .filter(|s| fg.dedup_window == 0 || keys.insert(s.key))
                    .collect();
                outcome.duplicates += (samples.samples.len() - kept.len()) as u64;
                outcome.positions += kept.len() as u64;
                buf.clear();
                format::encode(fg.format, samples.mnk, &samples.moves, &kept, &mut buf);
                w.write_all(&buf)?;
            }
        }
        w.flush()
    });
    if let Some(e) = failure {
        return Err(e);
    }
    written?;
    drop(folder_lock);
    outcome.elapsed = started.elapsed();
    Ok(outcome)
}

/// Every record of one source replayed into its positions, in file order: (whether the
/// game was played out, its positions); or the line of the first that cannot be.
fn replay(
    fg: &FromGames,
    game: GameSpec,
    records: &[(usize, GameRecord)],
) -> Result<Vec<(bool, GameSamples)>, (usize, GameError)> {
    with_game!(game, |G, config| replay_game::<G>(fg, &config, records))
}

fn replay_game<G: DatagenGame>(
    fg: &FromGames,
    config: &G::Config,
    records: &[(usize, GameRecord)],
) -> Result<Vec<(bool, GameSamples)>, (usize, GameError)> {
    // The static look that skips forcing positions needs no weights: an empty table's
    // evaluator, with the threat tracking of a forced search.
    let search = SearchConfig {
        forced: true,
        ..SearchConfig::default()
    };
    let evaluator = || G::evaluator(config, None, &search).map_err(|e| e.to_string());
    evaluator().map_err(|e| (0, GameError::Evaluator(e)))?;
    let text = fg.format == Format::Text;
    records
        .par_iter()
        .map_init(evaluator, |eval, (line, record)| {
            let eval = eval
                .as_mut()
                .map_err(|e| (*line, GameError::Evaluator(e.clone())))?;
            let labels = Labelling {
                clip: fg.score_clip,
                score_scale: fg.score_scale,
                decisive_above: fg.decisive_above,
                keep_forcing: fg.keep_forcing,
                skip_moves: fg.skip_moves,
                sides: [
                    wanted(&fg.players, &record.black_name),
                    wanted(&fg.players, &record.white_name),
                ],
            };
            let start = G::from_text(config, &record.opening).map_err(|e| {
                (
                    *line,
                    GameError::Opening {
                        opening: record.opening.clone(),
                        error: e.to_string(),
                    },
                )
            })?;
            let played = super::run::played_out(&record.reason);
            samples_of(&start, record, eval, &labels, text)
                .map(|s| (played, s))
                .map_err(|e| (*line, e))
        })
        .collect()
}

fn wanted(players: &[String], name: &str) -> bool {
    players.is_empty() || players.iter().any(|p| p == name)
}
