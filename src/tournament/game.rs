//! Playing one game between two players, with adjudication and clocks, into a
//! [`GameRecord`].

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

use super::{
    adjudicate::Adjudicator,
    config::Adjudication,
    record::{GameRecord, GameResult, MoveStat},
    schedule::ScheduledGame,
};
use crate::{
    engine::{Clock, Player, PlayerError, TimeControl, Turn},
    game::{Game, GameSpec, Outcome, Side},
};

/// The game was abandoned (Ctrl-C): nothing is recorded, `--resume` replays it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abandoned;

/// Everything about a game but the players.
pub struct GameSetup<'a, G: Game> {
    /// The game played (recorded, so a record names its game).
    pub variant: GameSpec,
    /// Where it sits in the schedule.
    pub scheduled: ScheduledGame,
    /// Names of the engines, by engine index.
    pub names: &'a [String],
    /// The start position (after the opening).
    pub start: &'a G,
    /// The game's seed.
    pub seed: u64,
    /// Adjudication rules.
    pub adjudication: &'a Adjudication,
    /// Whether both players are reproducible (no time limits).
    pub reproducible: bool,
    /// Set when the run is being stopped.
    pub stop: &'a AtomicBool,
    /// The time control of the player that moves first and of the other one (None: no
    /// clock). The harness keeps the clocks: a move made after its clock ran out loses
    /// on time (`time-forfeit`).
    pub time_controls: [Option<TimeControl>; 2],
    /// The longest a move of the first and of the other player may take (a built-in
    /// engine's move time plus the tolerance an outside engine gets): a move that takes
    /// longer loses on time (`time-forfeit`). Outside engines are timed by their protocol
    /// client instead.
    pub move_limits: [Option<Duration>; 2],
}

/// Plays a game: `players[0]` moves first. Player faults (no move, an illegal move, an
/// error) lose the game with the reason recorded.
pub fn play_game<G: Game>(
    setup: &GameSetup<'_, G>,
    players: [&mut dyn Player<G>; 2],
) -> Result<GameRecord, Abandoned> {
    let started = Instant::now();
    let mut players = players;
    // Each player's randomness: its own seed derived from the game's.
    for (i, p) in players.iter_mut().enumerate() {
        let seed = setup.seed ^ (0x9E37_79B9_7F4A_7C15u64.wrapping_mul(i as u64 + 1));
        if let Err(e) = p.new_game_at(seed, setup.start) {
            // A handshake cut short by the stop is no fault of the engine.
            if setup.stop.load(Ordering::Relaxed) {
                return Err(Abandoned);
            }
            let loser = if i == 0 { Side::First } else { Side::Second };
            return Ok(finish(
                setup,
                Vec::new(),
                Vec::new(),
                lose(loser),
                &format!("fault: {e}"),
                started,
            ));
        }
    }
    let mut pos = setup.start.clone();
    let mut moves: Vec<G::Move> = Vec::new();
    let mut texts = Vec::new();
    let mut stats = Vec::new();
    let mut adjudicator = Adjudicator::new(setup.adjudication);
    let mut remaining: [Option<Duration>; 2] = setup.time_controls.map(|tc| tc.map(|t| t.base));
    loop {
        if setup.stop.load(Ordering::Relaxed) {
            return Err(Abandoned);
        }
        if let Some(outcome) = pos.outcome() {
            let result = match outcome {
                Outcome::Win {
                    side: Side::First, ..
                } => GameResult::FirstWins,
                Outcome::Win {
                    side: Side::Second, ..
                } => GameResult::SecondWins,
                Outcome::Draw { .. } => GameResult::Draw,
            };
            return Ok(finish(
                setup,
                texts,
                stats,
                result,
                outcome.reason().as_str(),
                started,
            ));
        }
        // Plies since the start position was set up: an m,n,k opening's stones count
        // (the position is its move list), an Ataxx FEN's history is unknown.
        let max = setup.adjudication.max_plies;
        if max > 0 && pos.plies() >= max {
            return Ok(finish(
                setup,
                texts,
                stats,
                GameResult::Draw,
                "max-plies",
                started,
            ));
        }
        let side = pos.side_to_move();
        // Only a player with a time control sees a clock (a built-in engine manages its
        // time from it, with soft and hard limits, and is then not reproducible).
        let clock = setup.time_controls[side.index()].and_then(|tc| {
            let own = remaining[side.index()]?;
            let other = remaining[side.other().index()].unwrap_or(own);
            let mut both = [own; 2];
            both[side.other().index()] = other;
            Some(Clock {
                remaining: both,
                increment: tc.increment,
            })
        });
        let turn = Turn {
            start: setup.start,
            moves: &moves,
            position: &pos,
            clock,
        };
        let asked = Instant::now();
        let report = players[side.index()].play(&turn);
        let took = asked.elapsed();
        if setup.stop.load(Ordering::Relaxed) {
            return Err(Abandoned);
        }
        let report = match report {
            Ok(r) => r,
            Err(PlayerError::NoMove) => {
                return Ok(finish(setup, texts, stats, lose(side), "no-move", started));
            }
            Err(PlayerError::Illegal(text)) => {
                texts.push(text);
                stats.push(MoveStat {
                    depth: 0,
                    nodes: 0,
                    time_us: took.as_micros().min(u128::from(u64::MAX)) as u64,
                    score: None,
                    iterations: Vec::new(),
                });
                return Ok(finish(
                    setup,
                    texts,
                    stats,
                    lose(side),
                    "illegal-move",
                    started,
                ));
            }
            Err(e) => {
                return Ok(finish(
                    setup,
                    texts,
                    stats,
                    lose(side),
                    &format!("fault: {e}"),
                    started,
                ));
            }
        };
        if !pos.is_legal(report.mv) {
            texts.push(pos.format_move(report.mv));
            stats.push(stat(&report));
            return Ok(finish(
                setup,
                texts,
                stats,
                lose(side),
                "illegal-move",
                started,
            ));
        }
        if setup.move_limits[side.index()].is_some_and(|limit| took > limit) {
            texts.push(pos.format_move(report.mv));
            stats.push(stat(&report));
            return Ok(finish(
                setup,
                texts,
                stats,
                lose(side),
                "time-forfeit",
                started,
            ));
        }
        if let (Some(tc), Some(left)) = (
            setup.time_controls[side.index()],
            remaining[side.index()].as_mut(),
        ) {
            if took > *left {
                return Ok(finish(
                    setup,
                    texts,
                    stats,
                    lose(side),
                    "time-forfeit",
                    started,
                ));
            }
            *left = *left - took + tc.increment;
        }
        texts.push(pos.format_move(report.mv));
        stats.push(stat(&report));
        pos.play(report.mv);
        moves.push(report.mv);
        if let Some(a) = adjudicator.after_move(&pos, side, report.score) {
            return Ok(finish(setup, texts, stats, a.result, a.reason, started));
        }
    }
}

fn lose(side: Side) -> GameResult {
    match side {
        Side::First => GameResult::SecondWins,
        Side::Second => GameResult::FirstWins,
    }
}

fn stat<M>(report: &crate::engine::MoveReport<M>) -> MoveStat {
    MoveStat {
        depth: report.depth,
        nodes: report.nodes,
        time_us: report.time.as_micros().min(u128::from(u64::MAX)) as u64,
        score: report.score,
        iterations: report.iterations.clone(),
    }
}

fn finish<G: Game>(
    setup: &GameSetup<'_, G>,
    moves: Vec<String>,
    stats: Vec<MoveStat>,
    result: GameResult,
    reason: &str,
    started: Instant,
) -> GameRecord {
    let s = setup.scheduled;
    GameRecord {
        variant: Some(setup.variant),
        game: s.game,
        pair: s.pair,
        round: s.round,
        pairing: s.pairing,
        black: s.black,
        white: s.white,
        black_name: setup.names[s.black].clone(),
        white_name: setup.names[s.white].clone(),
        opening: setup.start.to_text(),
        first_mover: match setup.start.side_to_move() {
            Side::First => s.black,
            Side::Second => s.white,
        },
        plies: moves.len() as u32,
        moves,
        stats,
        result,
        reason: reason.to_string(),
        seed: setup.seed,
        reproducible: setup.reproducible,
        duration_ms: started.elapsed().as_millis().min(u128::from(u64::MAX)) as u64,
        played_at: Some(crate::utc::timestamp(std::time::SystemTime::now())),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::{
        engine::MoveReport,
        game::{Mnk, MnkConfig},
    };

    /// Plays the first legal move after sleeping `delay`.
    struct Slow {
        delay: Duration,
    }

    impl Player<Mnk> for Slow {
        fn name(&self) -> &str {
            "slow"
        }

        fn new_game(&mut self, _seed: u64) -> Result<(), PlayerError> {
            Ok(())
        }

        fn play(
            &mut self,
            turn: &Turn<'_, Mnk>,
        ) -> Result<MoveReport<crate::game::MnkMove>, PlayerError> {
            std::thread::sleep(self.delay);
            let mut moves = Vec::new();
            turn.position.legal_moves(&mut moves);
            Ok(MoveReport {
                mv: moves[0],
                depth: 1,
                nodes: 1,
                time: self.delay,
                score: None,
                pv: Vec::new(),
                iterations: Vec::new(),
            })
        }
    }

    fn play(setup_limits: [Option<Duration>; 2], tcs: [Option<TimeControl>; 2]) -> GameRecord {
        let names = vec!["a".to_string(), "b".to_string()];
        let start = Mnk::new(&MnkConfig::tictactoe());
        let stop = AtomicBool::new(false);
        let setup = GameSetup {
            variant: GameSpec::Mnk(MnkConfig::tictactoe()),
            scheduled: ScheduledGame {
                game: 0,
                pair: 0,
                round: 0,
                pairing: 0,
                black: 0,
                white: 1,
            },
            names: &names,
            start: &start,
            seed: 1,
            adjudication: &Adjudication::default(),
            reproducible: false,
            stop: &stop,
            time_controls: tcs,
            move_limits: setup_limits,
        };
        let (mut fast, mut slow) = (
            Slow {
                delay: Duration::ZERO,
            },
            Slow {
                delay: Duration::from_millis(30),
            },
        );
        play_game(&setup, [&mut fast, &mut slow]).expect("not abandoned")
    }

    #[test]
    fn a_move_past_its_limit_or_its_clock_loses_on_time() {
        // Past the move limit: the second player's first move loses.
        let r = play([None, Some(Duration::from_millis(10))], [None, None]);
        assert_eq!(
            (r.result, r.reason.as_str()),
            (GameResult::FirstWins, "time-forfeit")
        );
        assert_eq!(r.moves.len(), 2, "the late move is recorded");
        // Within the limit: the game is played out.
        let r = play([None, Some(Duration::from_secs(60))], [None, None]);
        assert_ne!(r.reason, "time-forfeit");
        // A clock of 50 ms runs out on the second 30 ms move.
        let tc = TimeControl {
            base: Duration::from_millis(50),
            increment: Duration::ZERO,
        };
        let r = play([None, None], [None, Some(tc)]);
        assert_eq!(
            (r.result, r.reason.as_str()),
            (GameResult::FirstWins, "time-forfeit")
        );
        assert_eq!(r.moves.len(), 3);
    }
}
