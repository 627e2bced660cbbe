//! Time management: a move's soft limit (start no new iteration past it) and hard limit
//! (stop at once), from a fixed time per move or from a game clock, as real engines
//! split them. It knows durations and clocks; nothing of games.

use std::time::{Duration, Instant};

use super::Limits;

/// The soft and hard limits of one search, from its start.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    start: Instant,
    soft: Option<Duration>,
    hard: Option<Duration>,
}

impl Deadline {
    /// No time limit.
    pub fn none() -> Deadline {
        Deadline {
            start: Instant::now(),
            soft: None,
            hard: None,
        }
    }

    /// The limits of `limits` from `start`: the hard limit is `movetime`, the soft one
    /// `soft_time` or half the hard limit.
    pub fn new(start: Instant, limits: &Limits) -> Deadline {
        let hard = limits.movetime;
        Deadline {
            start,
            soft: limits.soft_time.or(hard.map(|h| h / 2)),
            hard,
        }
    }

    /// Whether the soft limit has passed (no new iteration should start).
    #[inline]
    pub fn past_soft(&self) -> bool {
        let elapsed = self.start.elapsed();
        self.soft.is_some_and(|s| elapsed >= s) || self.hard.is_some_and(|h| elapsed >= h)
    }

    /// Whether the hard limit has passed (stop now).
    #[inline]
    pub fn past_hard(&self) -> bool {
        self.hard.is_some_and(|h| self.start.elapsed() >= h)
    }
}

/// Moves still to be made by one side, when the clock does not say (a game of gomoku or
/// Ataxx rarely lasts longer; the estimate only shapes the budget).
const MOVES_TO_GO: u32 = 25;

/// Soft and hard limits for a move on a clock with `remaining` time, `increment` added
/// after the move, and `moves_to_go` moves to the next time control if known.
///
/// The target is `remaining / moves_to_go + 3/4 · increment`; the soft limit is 60 % of it
/// (a new iteration usually costs more than every earlier one together), the hard limit
/// three times the target, never more than `remaining` less a safety margin of a tenth of
/// it (at most 50 ms, at least 1 ms), so a search that stops at its hard limit never
/// loses on time.
pub fn clock_limits(
    remaining: Duration,
    increment: Duration,
    moves_to_go: Option<u32>,
) -> (Duration, Duration) {
    let mtg = moves_to_go.filter(|&n| n > 0).unwrap_or(MOVES_TO_GO);
    let margin = (remaining / 10)
        .min(Duration::from_millis(50))
        .max(Duration::from_millis(1));
    let cap = remaining
        .saturating_sub(margin)
        .max(Duration::from_millis(1));
    let target = remaining / mtg + increment * 3 / 4;
    let hard = (target * 3).min(cap).max(Duration::from_millis(1));
    let soft = (target * 3 / 5).min(hard);
    (soft, hard)
}

/// The limits for a fixed time per move: the hard limit is the move time less a safety
/// margin (a twentieth of it, at most 30 ms), the soft limit half of that.
pub fn movetime_limits(movetime: Duration) -> (Duration, Duration) {
    let margin = (movetime / 20).min(Duration::from_millis(30));
    let hard = movetime
        .saturating_sub(margin)
        .max(Duration::from_millis(1));
    (hard / 2, hard)
}

/// [`movetime_limits`] for an engine: one that keeps what a stopped iteration finds
/// (`search.partial_iterations`) has no reason to stop early, so its soft limit is the
/// hard one.
pub fn engine_movetime_limits(
    movetime: Duration,
    partial_iterations: bool,
) -> (Duration, Duration) {
    let (soft, hard) = movetime_limits(movetime);
    if partial_iterations {
        (hard, hard)
    } else {
        (soft, hard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_limits_never_exceed_the_clock() {
        let ms = Duration::from_millis;
        let (soft, hard) = clock_limits(ms(10_000), ms(100), None);
        assert_eq!(hard, ms(3 * (400 + 75)));
        assert_eq!(soft, ms(285));
        // Short of time: the hard limit keeps a margin.
        let (soft, hard) = clock_limits(ms(100), ms(10_000), None);
        assert_eq!(hard, ms(90));
        assert!(soft <= hard);
        let (_, hard) = clock_limits(ms(0), ms(0), None);
        assert_eq!(hard, ms(1));
        let (_, hard) = clock_limits(ms(10_000), ms(0), Some(2));
        assert_eq!(hard, ms(9_950));
        assert_eq!(movetime_limits(ms(1000)), (ms(485), ms(970)));
        assert_eq!(
            movetime_limits(ms(100)),
            (ms(47) + Duration::from_micros(500), ms(95))
        );
        // An engine that keeps partial iterations (built in, or served) uses it all.
        assert_eq!(engine_movetime_limits(ms(1000), true), (ms(970), ms(970)));
        assert_eq!(engine_movetime_limits(ms(1000), false), (ms(485), ms(970)));
    }
}
