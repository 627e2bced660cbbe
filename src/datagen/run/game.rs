//! One datagen game: played by the engines from its opening and random plies, and the
//! positions it gives (the ones a trainer learns from: not the opening, not the random
//! plies, nothing at or after a forced result).

use super::*;
use crate::game::Side;

/// Why a datagen worker cannot play or read a game.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GameError {
    /// An engine that cannot be built.
    #[error("engine '{name}': {error}")]
    Engine {
        /// The engine's name.
        name: String,
        /// Why.
        error: String,
    },
    /// The evaluator of the samples' scores cannot be built.
    #[error("{0}")]
    Evaluator(String),
    /// An opening that is not a position of the game.
    #[error("opening '{opening}': {error}")]
    Opening {
        /// The opening.
        opening: String,
        /// Why the game refuses it.
        error: String,
    },
    /// Move `n` (1-based) of a played game cannot be read back.
    #[error("game {game}: move {n}: {error}")]
    Move {
        /// The game.
        game: u64,
        /// The move number.
        n: usize,
        /// Why.
        error: String,
    },
    /// Move `n` (1-based) of a played game is illegal.
    #[error("game {game}: move {n} '{text}' is illegal")]
    Illegal {
        /// The game.
        game: u64,
        /// The move number.
        n: usize,
        /// The move.
        text: String,
    },
}

/// Plays game `g` and collects its positions; `None` when it was abandoned (stop).
#[allow(clippy::too_many_arguments)]
pub(super) fn one_game<G: DatagenGame>(
    d: &Datagen,
    game: &G::Config,
    g: u64,
    openings: Option<&[Opening]>,
    names: &[String],
    stop: &AtomicBool,
    players: [&mut Engine<G>; 2],
    eval: &mut G::Eval,
    text: bool,
) -> Result<Option<GameSamples>, GameError> {
    let mut start = match openings {
        Some(list) => {
            let o = &list[(g % list.len() as u64) as usize];
            G::from_text(game, &o.position).map_err(|e| GameError::Opening {
                opening: o.position.clone(),
                error: e.to_string(),
            })?
        }
        None => G::new(game),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(d.seed, Stream::Datagen, g));
    for _ in 0..d.random_plies {
        match start.random_move(&mut rng) {
            Some(mv) => {
                start.play(mv);
            }
            // Every move ends the game: a game without positions.
            None => return Ok(Some(GameSamples::default())),
        }
    }
    if start.outcome().is_some() {
        return Ok(Some(GameSamples::default()));
    }
    let adjudication = Adjudication::default();
    // Against another engine, it moves first in odd games (engine index 1, `players[1]`).
    let swapped = d.against.is_some() && g % 2 == 1;
    let (black, white) = if swapped { (1, 0) } else { (0, 1) };
    let setup = GameSetup {
        variant: d.engine.game,
        scheduled: ScheduledGame {
            game: g,
            pair: g / 2,
            round: g,
            pairing: 0,
            black,
            white,
        },
        names,
        start: &start,
        seed: derive_seed(d.seed, Stream::Game, g),
        adjudication: &adjudication,
        reproducible: true,
        stop,
        time_controls: [None, None],
        move_limits: [None, None],
    };
    let [a, b] = players;
    let players: [&mut dyn Player<G>; 2] = if swapped { [b, a] } else { [a, b] };
    let record = match play_game(&setup, players) {
        Ok(r) => r,
        Err(_abandoned) => return Ok(None),
    };
    samples_of(&start, &record, eval, &Labelling::own(d.score_clip), text).map(Some)
}

/// Which positions of a record are written, and how their scores are read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Labelling {
    /// Scores are clipped to ±this.
    pub clip: i32,
    /// Each score is multiplied by this (rounded to the nearest whole number, halves away
    /// from zero) before the clip: an outside engine's units into the table's. A score
    /// is checked against `decisive_above` before, in the engine's own units.
    pub score_scale: f64,
    /// A score beyond ±this counts as a forced result, as a mate score does (outside
    /// engines that report a win as a large `cp`); `None`: only mate scores do.
    pub decisive_above: Option<i32>,
    /// Positions before the first this many moves of the record (after its opening)
    /// are not written.
    pub skip_moves: usize,
    /// Whether positions the static look calls forcing (a capture swing, a four to make
    /// or answer) are written too.
    pub keep_forcing: bool,
    /// Whether the positions where the first player (`[0]`) or the second (`[1]`) moved
    /// are written; a position of the other is still replayed, and its forced result
    /// still ends what the game gives.
    pub sides: [bool; 2],
}

impl Labelling {
    /// Datagen's own games: every side, only mate scores are forced results.
    pub fn own(clip: i32) -> Labelling {
        Labelling {
            clip,
            score_scale: 1.0,
            decisive_above: None,
            keep_forcing: false,
            skip_moves: 0,
            sides: [true, true],
        }
    }

    /// A recorded score in the units of the data: scaled, then clipped.
    fn label(&self, score: i32) -> i32 {
        let scaled = if self.score_scale == 1.0 {
            score
        } else {
            (f64::from(score) * self.score_scale)
                .round()
                .clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
        };
        scaled.clamp(-self.clip, self.clip)
    }

    fn is_decisive(&self, score: i32) -> bool {
        is_decisive(score)
            || self
                .decisive_above
                .is_some_and(|a| score.unsigned_abs() > a.unsigned_abs())
    }
}

/// Whether a game ended on the board (or by adjudication), so its result says something
/// about its positions (not a forfeit or a fault).
pub(in crate::datagen) fn played_out(reason: &str) -> bool {
    crate::game::EndReason::ALL
        .iter()
        .any(|r| r.as_str() == reason)
        || matches!(reason, "max-plies" | "resign")
}

/// The positions of a played game, replayed from `start`.
pub fn samples_of<G: DatagenGame>(
    start: &G,
    record: &GameRecord,
    eval: &mut G::Eval,
    labels: &Labelling,
    text: bool,
) -> Result<GameSamples, GameError> {
    let mut out = GameSamples {
        mnk: G::mnk_shape(start.config()).and_then(Result::ok),
        ..GameSamples::default()
    };
    for s in &record.stats {
        out.searched += 1;
        out.search_us += s.time_us;
        out.nodes += s.nodes;
    }
    if !played_out(&record.reason) {
        return Ok(out);
    }
    if out.mnk.is_some() {
        out.moves = start.moves_from_empty();
    }
    let first = record.result.first_half_points();
    let mut pos = start.clone();
    eval.reset(&pos);
    let mut decided = false;
    for (i, text_move) in record.moves.iter().enumerate() {
        let mv = pos.parse_move(text_move).map_err(|e| GameError::Move {
            game: record.game,
            n: i + 1,
            error: e.to_string(),
        })?;
        if !pos.is_legal(mv) {
            return Err(GameError::Illegal {
                game: record.game,
                n: i + 1,
                text: text_move.clone(),
            });
        }
        let score = record.stats.get(i).and_then(|s| s.score);
        decided |= score.is_some_and(|s| labels.is_decisive(s));
        let side = match pos.side_to_move() {
            Side::First => 0,
            Side::Second => 1,
        };
        if i < labels.skip_moves {
            out.early += 1;
        } else if !labels.sides[side] {
            out.other_side += 1;
        } else if decided {
            out.decided += 1;
        } else if let Some(score) = score {
            if !labels.keep_forcing && pos.forcing(eval) {
                out.forcing += 1;
            } else {
                out.samples.push(Sample {
                    fen: if text {
                        pos.board_text()
                    } else {
                        String::new()
                    },
                    score: labels.label(score),
                    result: half_points(first, pos.side_to_move()),
                    key: pos.hash(),
                    board: pos.board(),
                    mv: pos.move_code(mv),
                });
            }
        } else {
            out.unscored += 1;
        }
        if out.mnk.is_some() {
            out.moves.push(pos.move_code(mv));
        }
        pos.play(mv);
        eval.played(&pos, mv);
    }
    Ok(out)
}
