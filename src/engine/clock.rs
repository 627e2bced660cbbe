//! Time controls (`10+0.1`: seconds for the game plus seconds added per move). The rule
//! that turns a clock into limits for one move is the search's time manager
//! ([`crate::search::time`]).
//!
//! It knows clocks and durations; it knows nothing of who keeps the clock (the harness
//! for a tournament, the manager for a served engine).

use std::{fmt, str::FromStr, time::Duration};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How long past its move time a move may take before it counts as lost on time (or, for
/// an outside engine, as hung), in milliseconds: the default for every engine.
pub const MOVE_TOLERANCE_MS: u64 = 1000;

/// A game time control: `base` for the whole game, `increment` added after each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeControl {
    /// Time for the whole game.
    pub base: Duration,
    /// Added to the mover's clock after each of its moves.
    pub increment: Duration,
}

/// Why a time control cannot be read: the whole text and the part that is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    /// A part that is no number.
    #[error("time control '{text}': '{part}' is not a number of seconds (like 10+0.1)")]
    NotANumber {
        /// The time control as given.
        text: String,
        /// The part that is no number.
        part: String,
    },
    /// A negative, infinite or huge number of seconds.
    #[error("time control '{text}': {part} seconds is out of range (0 to 10000000)")]
    OutOfRange {
        /// The time control as given.
        text: String,
        /// The part out of range.
        part: String,
    },
    /// No time for the game.
    #[error("time control '{text}': the game needs some time (like 10+0.1)")]
    NoTime {
        /// The time control as given.
        text: String,
    },
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    /// Reads `SECONDS[+INCREMENT]` (`10+0.1`, `60`, `0.5+0.05`), as cutechess writes it.
    fn from_str(s: &str) -> Result<TimeControl, TimeControlError> {
        let text = s.trim();
        let (base, inc) = match text.split_once('+') {
            Some((b, i)) => (b.trim(), Some(i.trim())),
            None => (text, None),
        };
        let seconds = |t: &str| {
            let v: f64 = t.parse().map_err(|_| TimeControlError::NotANumber {
                text: s.to_string(),
                part: t.to_string(),
            })?;
            if !v.is_finite() || !(0.0..=1.0e7).contains(&v) {
                return Err(TimeControlError::OutOfRange {
                    text: s.to_string(),
                    part: t.to_string(),
                });
            }
            Ok(Duration::from_secs_f64(v))
        };
        let base = seconds(base)?;
        if base.is_zero() {
            return Err(TimeControlError::NoTime {
                text: s.to_string(),
            });
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
        let e = "ten".parse::<TimeControl>().unwrap_err().to_string();
        assert!(e.contains("'ten' is not a number"), "{e}");
    }
}
