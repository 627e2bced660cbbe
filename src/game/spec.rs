//! Game names as users write them (`gomoku`, `mnk:9,9,5,exact`, `ataxx`) and the
//! [`with_game!`](crate::with_game) macro that turns one into a concrete [`Game`](crate::game::Game) type.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{MnkConfig, MnkRule};

/// A game variant chosen by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameSpec {
    /// An m,n,k-game (tic-tac-toe and gomoku are presets).
    Mnk(MnkConfig),
    /// Ataxx on 7×7.
    Ataxx,
}

/// Every name [`GameSpec::from_str`] accepts, for help texts.
pub const GAME_NAMES: &str = "tictactoe, gomoku, gomoku-exact, renju, ataxx, or mnk:WIDTH,HEIGHT,K[,exact|,freestyle|,renju]";

impl GameSpec {
    /// The family: `mnk` or `ataxx` (tables and engines are per family).
    pub fn family(&self) -> &'static str {
        match self {
            GameSpec::Mnk(_) => "mnk",
            GameSpec::Ataxx => "ataxx",
        }
    }
}

/// Why a game name cannot be read (the name as given, and what is wrong with it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameSpecError {
    /// A name that is no game.
    #[error("unknown game '{0}': expected {GAME_NAMES}")]
    Unknown(String),
    /// `mnk:` without three or four parts.
    #[error("bad game '{0}': expected mnk:WIDTH,HEIGHT,K[,exact|,freestyle|,renju]")]
    Shape(String),
    /// A size that is no number.
    #[error("bad game '{text}': '{part}' is not a number")]
    NotANumber {
        /// The name as given.
        text: String,
        /// The part that is no number.
        part: String,
    },
    /// A rule that is none of the three.
    #[error("bad game '{text}': rule '{rule}' is not 'exact', 'freestyle' or 'renju'")]
    Rule {
        /// The name as given.
        text: String,
        /// The rule as given.
        rule: String,
    },
    /// Sizes the board cannot have.
    #[error("bad game '{text}': {why}")]
    Board {
        /// The name as given.
        text: String,
        /// Why the board cannot have them.
        why: String,
    },
}

impl FromStr for GameSpec {
    type Err = GameSpecError;

    fn from_str(s: &str) -> Result<GameSpec, GameSpecError> {
        let name = s.trim().to_ascii_lowercase();
        match name.as_str() {
            "tictactoe" | "tic-tac-toe" => return Ok(GameSpec::Mnk(MnkConfig::tictactoe())),
            "gomoku" | "gomoku-freestyle" => return Ok(GameSpec::Mnk(MnkConfig::gomoku())),
            "gomoku-exact" | "gomoku-standard" => {
                return Ok(GameSpec::Mnk(MnkConfig::gomoku_exact()));
            }
            "renju" => return Ok(GameSpec::Mnk(MnkConfig::renju())),
            "ataxx" => return Ok(GameSpec::Ataxx),
            _ => {}
        }
        let Some(rest) = name.strip_prefix("mnk:") else {
            return Err(GameSpecError::Unknown(s.to_string()));
        };
        let parts: Vec<&str> = rest.split(',').map(str::trim).collect();
        if !(3..=4).contains(&parts.len()) {
            return Err(GameSpecError::Shape(s.to_string()));
        }
        let num = |t: &str| {
            t.parse().map_err(|_| GameSpecError::NotANumber {
                text: s.to_string(),
                part: t.to_string(),
            })
        };
        let rule = match parts.get(3) {
            None | Some(&"freestyle") => MnkRule::Freestyle,
            Some(&"exact") => MnkRule::Exact,
            Some(&"renju") => MnkRule::Renju,
            Some(other) => {
                return Err(GameSpecError::Rule {
                    text: s.to_string(),
                    rule: other.to_string(),
                });
            }
        };
        MnkConfig::new(num(parts[0])?, num(parts[1])?, num(parts[2])?, rule)
            .map(GameSpec::Mnk)
            .map_err(|why| GameSpecError::Board {
                text: s.to_string(),
                why,
            })
    }
}

impl fmt::Display for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameSpec::Ataxx => f.write_str("ataxx"),
            GameSpec::Mnk(c) if *c == MnkConfig::tictactoe() => f.write_str("tictactoe"),
            GameSpec::Mnk(c) if *c == MnkConfig::gomoku() => f.write_str("gomoku"),
            GameSpec::Mnk(c) if *c == MnkConfig::gomoku_exact() => f.write_str("gomoku-exact"),
            GameSpec::Mnk(c) if *c == MnkConfig::renju() => f.write_str("renju"),
            GameSpec::Mnk(c) => {
                write!(f, "mnk:{},{},{}", c.width(), c.height(), c.k())?;
                if c.rule() != MnkRule::Freestyle {
                    write!(f, ",{}", c.rule().as_str())?;
                }
                Ok(())
            }
        }
    }
}

impl Serialize for GameSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for GameSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<GameSpec, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Runs `$body` with `$G` bound to the concrete game type of `$spec` and `$cfg` to its
/// rules config, so generic code can be called from a runtime game choice:
///
/// ```
/// use arena::{game::{Game, GameSpec}, with_game};
/// let spec: GameSpec = "tictactoe".parse().unwrap();
/// let n = with_game!(spec, |G, cfg| G::new(&cfg).perft(2));
/// assert_eq!(n, 72);
/// ```
#[macro_export]
macro_rules! with_game {
    ($spec:expr, |$G:ident, $cfg:ident| $body:expr) => {
        match $spec {
            $crate::game::GameSpec::Mnk(config) => {
                #[allow(non_camel_case_types, unused)]
                type $G = $crate::game::Mnk;
                #[allow(unused_variables)]
                let $cfg = config;
                $body
            }
            $crate::game::GameSpec::Ataxx => {
                #[allow(non_camel_case_types, unused)]
                type $G = $crate::game::Ataxx;
                #[allow(unused_variables)]
                let $cfg = ();
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in [
            "tictactoe",
            "gomoku",
            "gomoku-exact",
            "renju",
            "ataxx",
            "mnk:4,4,3",
            "mnk:20,20,5,exact",
            "mnk:13,13,5,renju",
        ] {
            let spec: GameSpec = name.parse().unwrap();
            assert_eq!(spec.to_string(), name);
        }
        assert_eq!(
            "mnk:3,3,3".parse::<GameSpec>().unwrap().to_string(),
            "tictactoe"
        );
        assert_eq!(
            "mnk:15,15,5,renju".parse::<GameSpec>().unwrap().to_string(),
            "renju"
        );
    }

    #[test]
    fn bad_names_say_what_is_wrong() {
        let e = "chess".parse::<GameSpec>().unwrap_err().to_string();
        assert!(e.contains("unknown game 'chess'"), "{e}");
        let e = "mnk:21,15,5".parse::<GameSpec>().unwrap_err().to_string();
        assert!(e.contains("21x15"), "{e}");
        let e = "mnk:15,15,7".parse::<GameSpec>().unwrap_err().to_string();
        assert!(e.contains("k = 7"), "{e}");
        let e = "mnk:15,x,5".parse::<GameSpec>().unwrap_err().to_string();
        assert!(e.contains("'x' is not a number"), "{e}");
        let e = "mnk:15,15,5,caro"
            .parse::<GameSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("rule 'caro'"), "{e}");
    }
}
