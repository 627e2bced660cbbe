//! Statistics of match results: Elo from a score with its 95 % interval, normalized Elo,
//! LOS and draw ratio from game results or colour-swapped game pairs ([`elo`]), the
//! sequential probability ratio test ([`sprt`]) and its planning ([`sprt_plan`]), and maximum-likelihood ratings of many
//! players from their pairwise results ([`ratings`]; with colours, a first-move advantage and
//! a draw rate, [`rating_list`]), the paired difference of two players over shared units
//! ([`paired`]), and the effective branching factor
//! of a search from its node counts ([`branching`]).
//!
//! This layer owns only numbers. It must not know about tournaments, engines or games:
//! callers hand it counts of wins, draws and losses (or of game pairs) and get estimates
//! back, each with its interval and the number of games behind it.

pub mod branching;
pub mod elo;
pub mod paired;
pub mod rating_list;
pub mod ratings;
pub mod sprt;
pub mod sprt_plan;

pub use self::{
    elo::{
        EloEstimate, GameScore, MIN_INTERVAL_UNITS, Penta, ScoreInterval, Wdl, Z95, elo_from_score,
        score_from_elo,
    },
    ratings::{Anchor, PairResult, Ratings, RatingsError, fit_ratings},
    sprt::{DEFAULT_ERROR_RATE, SprtConfig, SprtDecision, SprtEstimate, SprtModel},
    sprt_plan::{PlanError, ResultSpread, SprtPlan},
};
