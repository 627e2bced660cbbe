//! Replaying a game record by the rules: the opening must be a position of the game, the
//! moves legal from it in turn, `first_move_by` the side to move after the opening, and
//! the result and reason what the moves (or the record's reason for ending early) make
//! of them. [`validate`](super::validate) calls it for every record it reads back, so a
//! hand-edited result, a move onto a taken cell or a swapped `first_move_by` is refused
//! instead of skewing the statistics.
//!
//! A game may end early for a reason the rules cannot see (a fault, a time forfeit, an
//! adjudication, an outside engine's illegal move); those records are accepted with what
//! can be checked: that the game was not over before its last move, who lost, and for
//! `illegal-move` that only the last move may be unplayable (it is the engine's text).
//! A time forfeit needs a time limit on the engine that lost ([`TimeLimits`]): a clock
//! that ran out loses for the side to move (the late move is left out, and the moves must
//! not have ended the game), a move over its move time loses for the side that made it
//! (that late move is the record's last).
//!
//! It knows the rules and the record; nothing of how records are stored or scheduled.

use super::{
    adjudicate,
    config::Adjudication,
    record::{GameRecord, GameResult},
};
use crate::{
    game::{EndReason, Game, GameSpec, Outcome, Side},
    with_game,
};

/// Why a game ended early, as records write it; `None` for a reason arena never writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Early {
    /// `max-plies`: adjudicated a draw.
    MaxPlies,
    /// `resign`: the last mover's score stayed below the threshold.
    Resign,
    /// `illegal-move`: the last move (as the engine wrote it) was not legal.
    IllegalMove,
    /// `time-forfeit`: a move past its limit (recorded) or a clock run out (not).
    TimeForfeit,
    /// `no-move`: the side to move returned none.
    NoMove,
    /// `fault: ...`: the side to move (or, before any move, either side) failed.
    Fault,
    /// `draw-score`, `material` or `vcf-win`: an adjudication rule of
    /// [`adjudicate`] (checked by replaying it).
    Adjudicated,
}

/// The time limits an engine played under, as far as a time forfeit goes: the harness
/// calls a game lost on time only for an engine with one of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeLimits {
    /// A game clock (`tc`) the harness keeps: when it runs out, the side to move loses
    /// and its late move is not recorded.
    pub clock: bool,
    /// A limit per move (a built-in engine's `movetime_ms`): a move over it loses and is
    /// recorded as the game's last.
    pub per_move: bool,
}

impl TimeLimits {
    /// Whether the engine had any time limit.
    pub fn any(self) -> bool {
        self.clock || self.per_move
    }
}

/// How the record says the game ended.
enum Ending {
    /// By the rules.
    Rules(EndReason),
    /// Early.
    Early(Early),
}

fn ending(reason: &str) -> Option<Ending> {
    if let Some(r) = EndReason::ALL.into_iter().find(|r| r.as_str() == reason) {
        return Some(Ending::Rules(r));
    }
    let early = match reason {
        "max-plies" => Early::MaxPlies,
        "resign" => Early::Resign,
        "illegal-move" => Early::IllegalMove,
        "time-forfeit" => Early::TimeForfeit,
        "no-move" => Early::NoMove,
        adjudicate::DRAW_SCORE | adjudicate::MATERIAL | adjudicate::VCF_WIN => Early::Adjudicated,
        _ if reason.starts_with("fault: ") => Early::Fault,
        _ => return None,
    };
    Some(Ending::Early(early))
}

/// The result in which `side` loses.
fn loss_of(side: Side) -> GameResult {
    match side {
        Side::First => GameResult::SecondWins,
        Side::Second => GameResult::FirstWins,
    }
}

fn result_of(outcome: Outcome) -> GameResult {
    match outcome.winner() {
        Some(Side::First) => GameResult::FirstWins,
        Some(Side::Second) => GameResult::SecondWins,
        None => GameResult::Draw,
    }
}

/// The result as words: `1-0 (black won)`.
fn describe(result: GameResult) -> String {
    let what = match result {
        GameResult::FirstWins => "black won",
        GameResult::SecondWins => "white won",
        GameResult::Draw => "a draw",
    };
    format!("{} ({what})", result.as_str())
}

/// Why a game record does not replay by the rules: the game and what does not match.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("game {game}: {fault}")]
pub struct ReplayError {
    /// The record's game index.
    pub game: u64,
    /// What does not match.
    pub fault: Mismatch,
}

/// What in a game record does not match the rules or the run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Mismatch {
    /// The opening is not a position of the game.
    #[error("opening '{opening}': {error}")]
    Opening {
        /// The record's opening.
        opening: String,
        /// Why the game refuses it.
        error: String,
    },
    /// `first_move_by` is not the side to move after the opening.
    #[error(
        "first_move_by is {recorded}, but after the opening {side} is to move, engine {engine}"
    )]
    FirstMover {
        /// The record's `first_move_by`.
        recorded: usize,
        /// The side to move after the opening.
        side: Side,
        /// The engine that plays it.
        engine: usize,
    },
    /// A reason arena never writes.
    #[error(
        "reason '{0}' is not one arena writes (k-in-a-row, board-full, no-stones, no-moves, \
         halfmove-limit, forbidden: double-three|double-four|overline, max-plies, resign, \
         draw-score, material, vcf-win, illegal-move, time-forfeit, no-move, fault: ...)"
    )]
    UnknownReason(String),
    /// Move `n` (1-based) comes after the rules ended the game.
    #[error("move {n} '{text}' comes after the game ended ({reason})")]
    AfterEnd {
        /// The move number.
        n: usize,
        /// The move.
        text: String,
        /// How the game had ended.
        reason: EndReason,
    },
    /// Move `n` (1-based) comes after `max_plies`.
    #[error("move {n} '{text}' comes after max_plies = {max}, where the game is a draw")]
    AfterMaxPlies {
        /// The move number.
        n: usize,
        /// The move.
        text: String,
        /// The run's max_plies.
        max: u32,
    },
    /// Move `n` (1-based) cannot be played.
    #[error("move {n}: {error}")]
    Move {
        /// The move number.
        n: usize,
        /// Why the game refuses it.
        error: String,
    },
    /// The reason does not fit the moves, the rules or the run's settings.
    #[error("{0}")]
    Reason(String),
    /// The result is not one the moves and the reason allow.
    #[error(
        "result is {}, but {why}, which makes it {}",
        describe(*recorded),
        allowed.iter().map(|&a| describe(a)).collect::<Vec<_>>().join(" or ")
    )]
    Result {
        /// The record's result.
        recorded: GameResult,
        /// Why the others are allowed.
        why: String,
        /// The results allowed.
        allowed: Vec<GameResult>,
    },
}

impl Mismatch {
    fn opening(r: &GameRecord, error: impl std::fmt::Display) -> Mismatch {
        Mismatch::Opening {
            opening: r.opening.clone(),
            error: error.to_string(),
        }
    }
}

/// Replays `r` by the rules of `game`, with the run's adjudication and the time limits
/// of its black and white engine (`limits[0]`, `limits[1]`: what a time forfeit needs);
/// the message says what does not match, starting with the game.
pub fn replay(
    game: GameSpec,
    adjudication: &Adjudication,
    limits: [TimeLimits; 2],
    r: &GameRecord,
) -> Result<(), ReplayError> {
    with_game!(game, |G, config| replay_in::<G>(
        &config,
        adjudication,
        limits,
        r
    ))
    .map_err(|fault| ReplayError {
        game: r.game,
        fault,
    })
}

fn replay_in<G: Game>(
    config: &G::Config,
    adjudication: &Adjudication,
    limits: [TimeLimits; 2],
    r: &GameRecord,
) -> Result<(), Mismatch> {
    let start = G::from_text(config, &r.opening).map_err(|e| Mismatch::opening(r, e))?;
    let first = match start.side_to_move() {
        Side::First => r.black,
        Side::Second => r.white,
    };
    if r.first_mover != first {
        return Err(Mismatch::FirstMover {
            recorded: r.first_mover,
            side: start.side_to_move(),
            engine: first,
        });
    }
    let Some(ending) = ending(&r.reason) else {
        return Err(Mismatch::UnknownReason(r.reason.clone()));
    };
    let illegal_last = matches!(ending, Ending::Early(Early::IllegalMove));
    let max = adjudication.max_plies;
    let mut pos = start;
    // The side that made the last move, and whether that move was played.
    let mut last_mover = None;
    for (i, text) in r.moves.iter().enumerate() {
        let n = i + 1;
        if let Some(outcome) = pos.outcome() {
            return Err(Mismatch::AfterEnd {
                n,
                text: text.clone(),
                reason: outcome.reason(),
            });
        }
        if max > 0 && pos.plies() >= max {
            return Err(Mismatch::AfterMaxPlies {
                n,
                text: text.clone(),
                max,
            });
        }
        last_mover = Some(pos.side_to_move());
        let is_last = n == r.moves.len();
        match pos.try_play(text) {
            Ok(_) => {}
            // The engine's text for the move that lost it the game.
            Err(_) if is_last && illegal_last => {}
            Err(e) => {
                return Err(Mismatch::Move {
                    n,
                    error: e.to_string(),
                });
            }
        }
    }
    let to_move = pos.side_to_move();
    let end = pos.outcome();
    // The results the record's ending allows.
    let (allowed, why): (Vec<GameResult>, String) = match ending {
        Ending::Rules(reason) => match end {
            Some(outcome) if outcome.reason() == reason => (
                vec![result_of(outcome)],
                format!("the moves end in {reason}"),
            ),
            Some(outcome) => {
                return Err(Mismatch::Reason(format!(
                    "reason is {reason}, but the moves end in {}",
                    outcome.reason()
                )));
            }
            None => {
                return Err(Mismatch::Reason(format!(
                    "reason is {reason}, but the game is not over after its {} moves",
                    r.moves.len()
                )));
            }
        },
        Ending::Early(early) => {
            // A late move over its move time, or an illegal one, may end the game as
            // played; a time forfeit's other checks are its own.
            if let Some(outcome) = end
                && !matches!(early, Early::IllegalMove | Early::TimeForfeit)
            {
                return Err(Mismatch::Reason(format!(
                    "reason is {}, but the moves end the game ({})",
                    r.reason,
                    outcome.reason()
                )));
            }
            if early == Early::Adjudicated {
                let start =
                    G::from_text(config, &r.opening).map_err(|e| Mismatch::opening(r, e))?;
                let (result, why) =
                    adjudicate::confirm(&start, r, adjudication).map_err(Mismatch::Reason)?;
                (vec![result], why)
            } else {
                let over = end.map(|o| o.reason());
                early_results(
                    early,
                    r,
                    adjudication,
                    &pos,
                    to_move,
                    last_mover,
                    limits,
                    over,
                )?
            }
        }
    };
    if !allowed.contains(&r.result) {
        return Err(Mismatch::Result {
            recorded: r.result,
            why,
            allowed,
        });
    }
    Ok(())
}

/// The results a game that ended early for `early` can have, and why. `over`: how the
/// moves end the game, if they do.
#[allow(clippy::too_many_arguments)]
fn early_results<G: Game>(
    early: Early,
    r: &GameRecord,
    adjudication: &Adjudication,
    pos: &G,
    to_move: Side,
    last_mover: Option<Side>,
    limits: [TimeLimits; 2],
    over: Option<EndReason>,
) -> Result<(Vec<GameResult>, String), Mismatch> {
    let decisive = vec![GameResult::FirstWins, GameResult::SecondWins];
    let reason = &r.reason;
    Ok(match early {
        Early::MaxPlies => {
            let max = adjudication.max_plies;
            if max == 0 || pos.plies() < max {
                return Err(Mismatch::Reason(format!(
                    "reason is max-plies, but the game has {} plies and the run's max_plies \
                     is {max}{}",
                    pos.plies(),
                    if max == 0 { " (none)" } else { "" }
                )));
            }
            (vec![GameResult::Draw], "max-plies is a draw".into())
        }
        Early::Resign => {
            let Some(loser) = last_mover else {
                return Err(Mismatch::Reason(
                    "reason is resign, but no move was played".into(),
                ));
            };
            check_resign(r, adjudication)?;
            check_resign_twosided(r, adjudication)?;
            (
                vec![loss_of(loser)],
                format!("{loser} made the last move and resigned"),
            )
        }
        Early::IllegalMove => {
            let Some(loser) = last_mover else {
                return Err(Mismatch::Reason(
                    "reason is illegal-move, but the record has no move".into(),
                ));
            };
            (
                vec![loss_of(loser)],
                format!("{loser} made the illegal last move"),
            )
        }
        Early::NoMove => (vec![loss_of(to_move)], format!("{to_move} had no move")),
        Early::Fault if r.moves.is_empty() => (decisive, format!("{reason} loses the game")),
        Early::Fault => (
            vec![loss_of(to_move)],
            format!("{to_move}, to move, made the fault"),
        ),
        Early::TimeForfeit => time_forfeit(to_move, last_mover, limits, over)?,
        Early::Adjudicated => unreachable!("adjudications are confirmed by replaying them"),
    })
}

/// Who can have lost on time: the side to move when its clock ran out (the late move is
/// left out, so the moves must not end the game), or the side that made the last move
/// when that move was over its move time (it is recorded, and may end the game).
fn time_forfeit(
    to_move: Side,
    last_mover: Option<Side>,
    limits: [TimeLimits; 2],
    over: Option<EndReason>,
) -> Result<(Vec<GameResult>, String), Mismatch> {
    let limit = |side: Side| limits[side.index()];
    if !limits.iter().any(|l| l.any()) {
        return Err(Mismatch::Reason(
            "reason is time-forfeit, but neither engine had a time limit (no clock, no \
             move time): no game of this run can be lost on time"
                .into(),
        ));
    }
    let mut allowed = Vec::new();
    let mut why = Vec::new();
    if limit(to_move).clock && over.is_none() {
        allowed.push(loss_of(to_move));
        why.push(format!("{to_move}, to move, ran out of its clock"));
    }
    if let Some(mover) = last_mover
        && limit(mover).per_move
        && !allowed.contains(&loss_of(mover))
    {
        allowed.push(loss_of(mover));
        why.push(format!("{mover} made the last move, over its move time"));
    }
    if allowed.is_empty() {
        let clock = match over {
            Some(reason) => format!("the moves end the game ({reason})"),
            None => format!("{to_move}, to move, had no clock"),
        };
        let per_move = match last_mover {
            Some(mover) => format!("{mover}, who made the last move, had no move time"),
            None => "no move was played".into(),
        };
        return Err(Mismatch::Reason(format!(
            "reason is time-forfeit, but nobody can have lost on time: {clock}, and \
             {per_move}"
        )));
    }
    Ok((allowed, why.join(" or ")))
}

/// Under `resign_twosided`, the winner agreed: its own last `resign_moves` scores (the
/// moves before the loser's last) at or above `+resign_score`.
fn check_resign_twosided(r: &GameRecord, adjudication: &Adjudication) -> Result<(), Mismatch> {
    if !adjudication.resign_twosided {
        return Ok(());
    }
    let (score, moves) = (adjudication.resign_score, adjudication.resign_moves);
    let high = r
        .stats
        .iter()
        .rev()
        .skip(1)
        .step_by(2)
        .take(moves as usize)
        .filter(|s| s.score.is_some_and(|v| v >= score))
        .count();
    if high < moves as usize {
        return Err(Mismatch::Reason(format!(
            "reason is resign, but the winner's last {moves} scores are not all at or above \
             {score} (resign_twosided)"
        )));
    }
    Ok(())
}

/// A resignation follows the run's rule: `resign_moves` moves of the loser in a row
/// (its last ones) scored at or below `-resign_score`.
fn check_resign(r: &GameRecord, adjudication: &Adjudication) -> Result<(), Mismatch> {
    let (score, moves) = (adjudication.resign_score, adjudication.resign_moves);
    if score <= 0 || moves == 0 {
        return Err(Mismatch::Reason(
            "reason is resign, but the run's [adjudication] has no resign rule".to_string(),
        ));
    }
    let low = r
        .stats
        .iter()
        .rev()
        .step_by(2)
        .take(moves as usize)
        .filter(|s| s.score.is_some_and(|v| v <= -score))
        .count();
    if low < moves as usize {
        return Err(Mismatch::Reason(format!(
            "reason is resign, but the loser's last {moves} scores are not all at or below \
             -{score} (resign_score)"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::record::MoveStat;

    fn stat(score: Option<i32>) -> MoveStat {
        MoveStat {
            depth: 1,
            nodes: 1,
            time_us: 1,
            score,
            iterations: vec![],
        }
    }

    /// A tic-tac-toe record: black 0 moves first from the empty board.
    fn ttt(moves: &[&str], result: GameResult, reason: &str) -> GameRecord {
        GameRecord {
            variant: None,
            game: 3,
            pair: 1,
            round: 0,
            pairing: 0,
            black: 0,
            white: 1,
            black_name: "a".into(),
            white_name: "b".into(),
            opening: String::new(),
            first_mover: 0,
            moves: moves.iter().map(|m| m.to_string()).collect(),
            stats: moves.iter().map(|_| stat(None)).collect(),
            result,
            reason: reason.into(),
            plies: moves.len() as u32,
            seed: 0,
            reproducible: true,
            duration_ms: 0,
            played_at: None,
        }
    }

    fn check(r: &GameRecord) -> Result<(), ReplayError> {
        check_timed(r, TimeLimits::default())
    }

    /// As [`check`], both engines under `limits`.
    fn check_timed(r: &GameRecord, limits: TimeLimits) -> Result<(), ReplayError> {
        replay(
            "tictactoe".parse().unwrap(),
            &Adjudication {
                max_plies: 0,
                resign_score: 100,
                resign_moves: 2,
                ..Adjudication::default()
            },
            [limits; 2],
            r,
        )
    }

    const WIN: [&str; 5] = ["a1", "b1", "a2", "b2", "a3"];

    #[test]
    fn finished_games_must_end_as_recorded() {
        use GameResult::*;
        check(&ttt(&WIN, FirstWins, "k-in-a-row")).unwrap();
        let cases = [
            (ttt(&WIN, SecondWins, "k-in-a-row"), "result is 0-1"),
            (ttt(&WIN, FirstWins, "board-full"), "end in k-in-a-row"),
            (ttt(&WIN[..4], FirstWins, "k-in-a-row"), "not over"),
            (ttt(&["a1", "a1"], FirstWins, "no-move"), "move 2: illegal"),
            (ttt(&["a1", "z9"], FirstWins, "no-move"), "move 2: invalid"),
            (
                ttt(&[&WIN[..], &["c3"]].concat(), FirstWins, "k-in-a-row"),
                "after the game ended",
            ),
            (ttt(&WIN, FirstWins, "resign"), "end the game"),
            (ttt(&WIN, FirstWins, "typo"), "not one arena writes"),
            (ttt(&WIN[..2], Draw, "max-plies"), "max_plies"),
        ];
        for (r, want) in cases {
            let e = check(&r).unwrap_err().to_string();
            assert!(e.starts_with("game 3: ") && e.contains(want), "{want}: {e}");
        }
        let mut swapped = ttt(&WIN, FirstWins, "k-in-a-row");
        swapped.first_mover = 1;
        let e = check(&swapped).unwrap_err();
        assert!(
            matches!(e.fault, Mismatch::FirstMover { recorded: 1, .. }) && e.game == 3,
            "{e}"
        );
        assert!(e.to_string().contains("first_move_by"));
    }

    #[test]
    fn early_endings_check_who_lost() {
        use GameResult::*;
        // Black made the illegal second move of its own (move 3), as text.
        check(&ttt(&["a1", "b1", "b1"], SecondWins, "illegal-move")).unwrap();
        check(&ttt(&["a1", "b1", "zz"], SecondWins, "illegal-move")).unwrap();
        let e = check(&ttt(&["a1", "b1", "b1"], FirstWins, "illegal-move"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("black made the illegal last move"), "{e}");
        // Only the last move may be illegal.
        assert!(check(&ttt(&["a1", "a1", "b1"], FirstWins, "illegal-move")).is_err());
        // no-move and a fault: the side to move (white after one move) loses.
        check(&ttt(&["a1"], FirstWins, "no-move")).unwrap();
        check(&ttt(&["a1"], FirstWins, "fault: crash (exit 1)")).unwrap();
        assert!(check(&ttt(&["a1"], SecondWins, "fault: timeout")).is_err());
        // Before any move a fault may be either engine's (its handshake).
        check(&ttt(&[], FirstWins, "fault: timeout")).unwrap();
        check(&ttt(&[], SecondWins, "fault: timeout")).unwrap();
        // Resign: the last mover, with its last two scores low enough.
        let mut r = ttt(&["a1", "b1", "c1", "a2"], FirstWins, "resign");
        r.stats[1].score = Some(-100);
        r.stats[3].score = Some(-300);
        check(&r).unwrap();
        r.stats[1].score = Some(-99);
        assert!(check(&r).unwrap_err().to_string().contains("resign_score"));
        r.stats[1].score = Some(-100);
        r.result = SecondWins;
        assert!(
            check(&r)
                .unwrap_err()
                .to_string()
                .contains("white made the last move")
        );
    }

    /// Issue 44, item 4: a flipped result passed as a time forfeit, even where no engine
    /// had a clock and the moves made the five.
    #[test]
    fn a_time_forfeit_needs_a_time_limit_on_the_loser_and_a_game_not_over() {
        use GameResult::*;
        let clock = TimeLimits {
            clock: true,
            per_move: false,
        };
        let per_move = TimeLimits {
            clock: false,
            per_move: true,
        };
        let both = TimeLimits {
            clock: true,
            per_move: true,
        };
        // Depth-limited engines never lose on time.
        for r in [
            ttt(&WIN, SecondWins, "time-forfeit"),
            ttt(&["a1", "b1"], FirstWins, "time-forfeit"),
            ttt(&[], FirstWins, "time-forfeit"),
        ] {
            let e = check(&r).unwrap_err().to_string();
            assert!(e.contains("neither engine had a time limit"), "{e}");
        }
        // A clock that ran out: the side to move (black after two moves) lost.
        check_timed(&ttt(&["a1", "b1"], SecondWins, "time-forfeit"), clock).unwrap();
        let e = check_timed(&ttt(&["a1", "b1"], FirstWins, "time-forfeit"), clock)
            .unwrap_err()
            .to_string();
        assert!(e.contains("black, to move, ran out of its clock"), "{e}");
        check_timed(&ttt(&[], SecondWins, "time-forfeit"), clock).unwrap();
        // A move over its move time: the side that made it (white) lost.
        check_timed(&ttt(&["a1", "b1"], FirstWins, "time-forfeit"), per_move).unwrap();
        let e = check_timed(&ttt(&["a1", "b1"], SecondWins, "time-forfeit"), per_move)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("white made the last move, over its move time"),
            "{e}"
        );
        let e = check_timed(&ttt(&[], SecondWins, "time-forfeit"), per_move)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no move was played"), "{e}");
        // With both kinds of limit either may have happened; never a draw.
        check_timed(&ttt(&["a1", "b1"], FirstWins, "time-forfeit"), both).unwrap();
        check_timed(&ttt(&["a1", "b1"], SecondWins, "time-forfeit"), both).unwrap();
        assert!(check_timed(&ttt(&["a1", "b1"], Draw, "time-forfeit"), both).is_err());
        // A late winning move still loses on time, but only by its move time: a clock
        // that ran out leaves the late move out, and these moves end the game.
        check_timed(&ttt(&WIN, SecondWins, "time-forfeit"), per_move).unwrap();
        let e = check_timed(&ttt(&WIN, SecondWins, "time-forfeit"), clock)
            .unwrap_err()
            .to_string();
        assert!(e.contains("the moves end the game (k-in-a-row)"), "{e}");
        // One engine timed, the other not: only the timed one can lose on time.
        let limits = [TimeLimits::default(), per_move];
        let spec: GameSpec = "tictactoe".parse().unwrap();
        let adj = Adjudication::default();
        let r = ttt(&["a1", "b1"], FirstWins, "time-forfeit");
        replay(spec, &adj, limits, &r).unwrap();
        let r = ttt(&["a1", "b1", "c1"], SecondWins, "time-forfeit");
        let e = replay(spec, &adj, limits, &r).unwrap_err().to_string();
        assert!(
            e.contains("black, who made the last move, had no move time"),
            "{e}"
        );
    }

    #[test]
    fn max_plies_counts_the_opening() {
        let adj = Adjudication {
            max_plies: 4,
            ..Adjudication::default()
        };
        let spec: GameSpec = "tictactoe".parse().unwrap();
        let mut r = ttt(&["b1", "a2"], GameResult::Draw, "max-plies");
        r.opening = "a1c3".into();
        replay(spec, &adj, [TimeLimits::default(); 2], &r).unwrap();
        r.moves.push("b2".into());
        r.stats.push(stat(None));
        let e = replay(spec, &adj, [TimeLimits::default(); 2], &r)
            .unwrap_err()
            .to_string();
        assert!(e.contains("after max_plies = 4"), "{e}");
    }

    #[test]
    fn forbidden_endings_are_checked_on_replay() {
        use GameResult::*;
        let spec: GameSpec = "renju".parse().unwrap();
        // Black f3 f4 d5 e5 then f5, a double three.
        let moves = ["f3", "a15", "f4", "c15", "d5", "e15", "e5", "g15", "f5"];
        let mut r = ttt(&moves, SecondWins, "forbidden: double-three");
        replay(
            spec,
            &Adjudication::default(),
            [TimeLimits::default(); 2],
            &r,
        )
        .unwrap();
        r.reason = "forbidden: overline".into();
        let e = replay(
            spec,
            &Adjudication::default(),
            [TimeLimits::default(); 2],
            &r,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(
                "reason is forbidden: overline, but the moves end in forbidden: double-three"
            ),
            "{e}"
        );
        r.reason = "forbidden: double-three".into();
        r.result = FirstWins;
        assert!(
            replay(
                spec,
                &Adjudication::default(),
                [TimeLimits::default(); 2],
                &r
            )
            .is_err()
        );
        // Under freestyle the same moves do not end the game.
        let e = replay(
            "gomoku".parse().unwrap(),
            &Adjudication::default(),
            [TimeLimits::default(); 2],
            &r,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("not over"), "{e}");
    }
}

/// Records ended by each rule replay, and refuse to once edited.
#[cfg(test)]
mod adjudicated_tests {
    use super::*;
    use crate::tournament::adjudicate::{DRAW_SCORE, MATERIAL, RESIGN, VCF_WIN};

    fn record(
        spec: &str,
        opening: &str,
        moves: &[(&str, Option<i32>)],
        result: GameResult,
        reason: &str,
    ) -> (GameSpec, GameRecord) {
        let spec: GameSpec = spec.parse().expect("a game");
        let texts: Vec<&str> = moves.iter().map(|(m, _)| *m).collect();
        let mut r = GameRecord::for_tests(Some(spec), opening, &texts, None, result, reason);
        for (stat, (_, score)) in r.stats.iter_mut().zip(moves) {
            stat.score = *score;
        }
        (spec, r)
    }

    fn refused(spec: GameSpec, rules: &Adjudication, r: &GameRecord, want: &str) {
        let e = replay(spec, rules, [TimeLimits::default(); 2], r)
            .expect_err("an edited record")
            .to_string();
        assert!(e.contains(want), "want '{want}' in: {e}");
    }

    #[test]
    fn draw_score() {
        let rules = Adjudication {
            draw_movenumber: 2,
            draw_movecount: 2,
            draw_score: 10,
            ..Adjudication::default()
        };
        let moves = [
            ("h8", Some(50)),
            ("a1", Some(-10)),
            ("h9", Some(0)),
            ("a2", Some(3)),
            ("o15", Some(1)),
        ];
        let (spec, r) = record("gomoku", "", &moves, GameResult::Draw, DRAW_SCORE);
        replay(spec, &rules, [TimeLimits::default(); 2], &r).expect("the rule holds");
        let mut edited = r.clone();
        edited.stats[2].score = Some(11);
        refused(spec, &rules, &edited, "the draw rule does not hold");
        let mut edited = r.clone();
        edited.result = GameResult::FirstWins;
        refused(spec, &rules, &edited, "which makes it 1/2-1/2");
        refused(
            spec,
            &Adjudication::default(),
            &r,
            "no such rule (draw_movecount)",
        );
        // One more level move: the game would have ended a move earlier.
        let longer = [&moves[..], &[("o14", Some(0))]].concat();
        let (_, r) = record("gomoku", "", &longer, GameResult::Draw, DRAW_SCORE);
        refused(spec, &rules, &r, "ends by draw-score after move 5");
    }

    #[test]
    fn two_sided_resign() {
        let rules = Adjudication {
            resign_score: 500,
            resign_moves: 2,
            resign_twosided: true,
            ..Adjudication::default()
        };
        let moves = [
            ("h8", Some(-600)),
            ("a1", Some(600)),
            ("h9", Some(-700)),
            ("a2", Some(600)),
            ("h10", Some(-800)),
        ];
        let (spec, r) = record("gomoku", "", &moves, GameResult::SecondWins, RESIGN);
        replay(spec, &rules, [TimeLimits::default(); 2], &r).expect("both sides agree");
        let mut edited = r.clone();
        edited.stats[3].score = Some(499);
        refused(spec, &rules, &edited, "resign_twosided");
        // The one-sided rule takes the same record.
        let one = Adjudication {
            resign_twosided: false,
            ..rules
        };
        replay(spec, &one, [TimeLimits::default(); 2], &edited).expect("one-sided");
    }

    #[test]
    fn material() {
        let rules = Adjudication {
            material_margin: 3,
            material_moves: 2,
            ..Adjudication::default()
        };
        let fen = "xoo4/7/7/7/7/7/6x x 0 1";
        let moves = [("a6", None), ("c7e5", None)];
        let (spec, r) = record("ataxx", fen, &moves, GameResult::FirstWins, MATERIAL);
        replay(spec, &rules, [TimeLimits::default(); 2], &r).expect("x led by 3 for 2 plies");
        let mut edited = r.clone();
        edited.result = GameResult::SecondWins;
        refused(spec, &rules, &edited, "result is 0-1");
        let wider = Adjudication {
            material_margin: 4,
            ..rules.clone()
        };
        refused(spec, &wider, &r, "no side led by 4 stones");
        let (_, took_back) = record(
            "ataxx",
            fen,
            &[("a6", None), ("c6", None)],
            GameResult::FirstWins,
            MATERIAL,
        );
        refused(spec, &rules, &took_back, "no side led by 3 stones");
    }

    #[test]
    fn vcf_win() {
        let rules = Adjudication {
            vcf_win: true,
            ..Adjudication::default()
        };
        let moves = [
            ("h8", None),
            ("a1", None),
            ("i8", None),
            ("a3", None),
            ("j8", None),
            ("a5", None),
        ];
        let (spec, r) = record("gomoku", "", &moves, GameResult::FirstWins, VCF_WIN);
        replay(spec, &rules, [TimeLimits::default(); 2], &r).expect("black has a VCF");
        let mut edited = r.clone();
        edited.result = GameResult::SecondWins;
        refused(spec, &rules, &edited, "result is 0-1");
        // White blocks the three instead: no VCF for black.
        let mut blocked = r.clone();
        blocked.moves[5] = "g8".into();
        refused(spec, &rules, &blocked, "VCF solver finds no win for black");
        refused(spec, &Adjudication::default(), &r, "no such rule (vcf_win)");
    }
}
