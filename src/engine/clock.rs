//! Time controls (`10+0.1`: seconds for the game plus seconds added per move) and the
//! time management rule that turns a clock into a budget for one move.
//!
//! It knows clocks and durations; it knows nothing of who keeps the clock (the harness
//! for a tournament, the manager for a served engine).

use std::{fmt, str::FromStr, time::Duration};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A game time control: `base` for the whole game, `increment` added after each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeControl {
    /// Time for the whole game.
    pub base: Duration,
    /// Added to the mover's clock after each of its moves.
    pub increment: Duration,
}

impl FromStr for TimeControl {
    type Err = String;

    /// Reads `SECONDS[+INCREMENT]` (`10+0.1`, `60`, `0.5+0.05`), as cutechess writes it.
    fn from_str(s: &str) -> Result<TimeControl, String> {
        let text = s.trim();
        let (base, inc) = match text.split_once('+') {
            Some((b, i)) => (b.trim(), Some(i.trim())),
            None => (text, None),
        };
        let seconds = |t: &str| -> Result<Duration, String> {
            let v: f64 = t.parse().map_err(|_| {
                format!("time control '{s}': '{t}' is not a number of seconds (like 10+0.1)")
            })?;
            if !v.is_finite() || !(0.0..=1.0e7).contains(&v) {
                return Err(format!(
                    "time control '{s}': {t} seconds is out of range (0 to 10000000)"
                ));
            }
            Ok(Duration::from_secs_f64(v))
        };
        let base = seconds(base)?;
        if base.is_zero() {
            return Err(format!(
                "time control '{s}': the game needs some time (like 10+0.1)"
            ));
        }
        let increment = inc.map(seconds).transpose()?.unwrap_or(Duration::ZERO);
        Ok(TimeControl { base, increment })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.base.as_secs_f64())?;
        if !self.increment.is_zero() {
            write!(f, "+{}", self.increment.as_secs_f64())?;
        }
        Ok(())
    }
}

impl Serialize for TimeControl {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TimeControl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TimeControl, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The share of a clock one move may use: `remaining / 20 + increment / 2` (or
/// `remaining / moves_to_go` when the moves to the next time control are known), never
/// more than `remaining` minus a safety margin (a tenth of it, at most 50 ms) for the
/// time it takes to send the move back.
pub fn move_budget(remaining: Duration, increment: Duration, moves_to_go: Option<u32>) -> Duration {
    let share = match moves_to_go {
        Some(n) if n > 0 => remaining / n,
        _ => remaining / 20,
    };
    let margin = (remaining / 10).min(Duration::from_millis(50));
    let cap = remaining.saturating_sub(margin);
    (share + increment / 2)
        .min(cap)
        .max(Duration::from_millis(1))
}

/// A per-move time limit less a safety margin (a tenth of it, at most 50 ms) for the
/// search's last check and the reply's way back, for managers that give each move a
/// fixed time (Gomocup's `timeout_turn`, UAI's `go movetime`).
pub fn turn_budget(limit: Duration) -> Duration {
    let margin = (limit / 10).min(Duration::from_millis(50));
    limit.saturating_sub(margin).max(Duration::from_millis(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read_and_write() {
        let tc: TimeControl = "10+0.1".parse().unwrap();
        assert_eq!(tc.base, Duration::from_secs(10));
        assert_eq!(tc.increment, Duration::from_millis(100));
        assert_eq!(tc.to_string(), "10+0.1");
        let tc: TimeControl = " 60 ".parse().unwrap();
        assert_eq!(tc.increment, Duration::ZERO);
        assert_eq!(tc.to_string(), "60");
        for bad in ["", "x+1", "10+y", "0", "-1+1", "inf", "10+-1"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
        let e = "ten".parse::<TimeControl>().unwrap_err();
        assert!(e.contains("'ten' is not a number"), "{e}");
    }

    #[test]
    fn budgets_keep_a_margin() {
        let ms = Duration::from_millis;
        assert_eq!(move_budget(ms(10_000), ms(100), None), ms(550));
        assert_eq!(move_budget(ms(10_000), ms(0), Some(10)), ms(1000));
        // A large increment never takes more than the clock holds.
        assert_eq!(move_budget(ms(100), ms(10_000), None), ms(90));
        assert_eq!(move_budget(ms(0), ms(0), None), ms(1));
        assert_eq!(turn_budget(ms(1000)), ms(950));
        assert_eq!(turn_budget(ms(100)), ms(90));
    }
}
