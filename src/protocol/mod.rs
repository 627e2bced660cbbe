//! Engine protocols, both ways: Gomocup (piskvork `pbrain-*` engines) for m,n,k-games and
//! UAI for Ataxx. [`serve`] runs a built-in engine on a text stream so other managers
//! (Piskvork, c-gomoku-cli, cuteataxx) can play it; [`client`] drives an outside engine
//! process as a [`Player`](crate::engine::Player), surviving every fault it can commit
//! (crash, hang, garbage, illegal move, early exit) as a lost game with the reason.
//! [`EngineSpec`] is one engine of a match, built in or external, and builds its player.
//!
//! It uses games, search and engines; it knows nothing of tournaments (schedules,
//! results, workers): callers say where an engine's log goes.

pub mod client;
pub mod external;
pub mod info;
pub mod serve;
pub mod spec;

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

pub use self::{
    client::ExternalGame,
    external::ExternalEngine,
    spec::{EngineSpec, PlayerContext},
};

/// An engine protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// Gomocup / piskvork (`START`, `TURN x,y`, ...), for m,n,k-games.
    Gomocup,
    /// UAI (`uai`, `position`, `go`, `bestmove`), for Ataxx.
    Uai,
}

impl Protocol {
    /// The game family (`mnk`, `ataxx`) this protocol plays.
    pub fn family(self) -> &'static str {
        match self {
            Protocol::Gomocup => "mnk",
            Protocol::Uai => "ataxx",
        }
    }

    /// The protocol for a game family.
    pub fn for_family(family: &str) -> Protocol {
        if family == "ataxx" {
            Protocol::Uai
        } else {
            Protocol::Gomocup
        }
    }

    /// The name used in configs and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Gomocup => "gomocup",
            Protocol::Uai => "uai",
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Protocol {
    type Err = String;

    fn from_str(s: &str) -> Result<Protocol, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "gomocup" | "piskvork" | "pbrain" => Ok(Protocol::Gomocup),
            "uai" => Ok(Protocol::Uai),
            _ => Err(format!(
                "unknown protocol '{s}': expected gomocup (m,n,k-games) or uai (ataxx)"
            )),
        }
    }
}
