//! The verification match of a finished tune or fit (its result against the base
//! engine, through the tournament runner) and its report ([`verify`], [`Verifiable`]);
//! and what every match a tune or fit plays shares with the job ([`MatchPlan`]: the
//! fit's self-play games, the verification of both).
//!
//! It knows the tournament runner and engines; it knows nothing of SPSA or of fitting.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::TuneError;
use crate::{
    game::GameSpec,
    jobs::JobOptions,
    protocol::EngineSpec,
    stats::{EloEstimate, Penta, SprtConfig, Wdl},
    tournament::{
        self, LiveFiles, Tournament, TournamentConfig,
        config::{Adjudication, Format, OpeningKind, OpeningsConfig},
        runner::{Ending, RunOptions, RunOutcome},
        summary::SprtSummary,
    },
    with_game,
};

/// The `[verification]` section: a match of the tuned engine against the base engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerificationConfig {
    /// Game pairs (the most, with an SPRT). 0: no verification.
    #[serde(default = "default_verification_pairs")]
    pub pairs: u32,
    /// Master seed of the match (default: the tune's seed + 1, other games than the
    /// tune's).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::config::toml_u64::option"
    )]
    pub seed: Option<u64>,
    /// Named parameters set on both engines (verify at another depth, say).
    #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
    pub set: toml::Table,
    /// Stop when this SPRT decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtConfig>,
}

fn default_verification_pairs() -> u32 {
    200
}

/// The verification match's results folder.
pub const VERIFICATION_DIR: &str = "verification";

/// What a job's matches share with the job: its name, game, openings and adjudication,
/// and for its verification match its seed and `[verification]`.
#[derive(Clone, Debug)]
pub struct MatchPlan<'a> {
    /// The job's run name (a match is named `<name>-<what>`).
    pub name: &'a str,
    /// The job's master seed (the verification's default is one more).
    pub seed: u64,
    /// The job's `[verification]`.
    pub verification: Option<&'a VerificationConfig>,
    /// The game.
    pub game: GameSpec,
    /// The job's `jobs` (0: all cores).
    pub jobs: u32,
    /// The job's `[openings]`.
    pub openings: &'a OpeningsConfig,
    /// The job's `[adjudication]`.
    pub adjudication: &'a Adjudication,
    /// The job's config file (relative paths start there).
    pub path: &'a Path,
}

impl MatchPlan<'_> {
    /// A round robin of `engines` named `<name>-<what>`, `rounds` pairs from `seed`.
    pub fn tournament(
        &self,
        what: &str,
        rounds: u32,
        seed: u64,
        engines: Vec<EngineSpec>,
    ) -> Tournament {
        Tournament {
            config: TournamentConfig {
                name: format!("{}-{what}", self.name),
                game: self.game,
                format: Format::RoundRobin,
                rounds,
                seed,
                concurrency: self.jobs,
                openings: self.openings.clone(),
                adjudication: self.adjudication.clone(),
                sprt: None,
                anchor: None,
                anchor_elo: 0.0,
                engines: Vec::new(),
                pgnout: None,
                sgfout: None,
            },
            engines,
            path: self.path.to_path_buf(),
        }
    }

    /// How many distinct openings the job's `[openings]` give (None: one per pair).
    pub fn opening_count(&self) -> Result<Option<u64>, TuneError> {
        let o = self.openings;
        match o.kind {
            // Random plies after each opening: every pair its own, as random openings.
            OpeningKind::File | OpeningKind::Balanced if o.random_plies > 0 => Ok(None),
            OpeningKind::File | OpeningKind::Balanced => with_game!(self.game, |G, game| {
                let list = tournament::openings::listed::<G>(o, self.path, &self.game, &game)?
                    .expect("kind = file or balanced: openings from a list");
                let symmetries = if o.transform {
                    <G as tournament::openings::OpeningGame>::symmetries(&game)
                } else {
                    1
                };
                Ok(Some(list.len() as u64 * symmetries as u64))
            }),
            OpeningKind::None => Ok(Some(1)),
            OpeningKind::Random => Ok(None),
        }
    }
}

/// The verification match in a job's report (the tuned or fitted engine's view).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerificationReport {
    /// The results folder, relative to the job's.
    pub dir: String,
    /// [tuned engine, the engine it was played against].
    pub engines: [String; 2],
    /// Game pairs scheduled.
    pub pairs_scheduled: u64,
    /// Whether the match ended (all pairs played, or the SPRT decided).
    pub complete: bool,
    /// Games.
    pub wdl: Wdl,
    /// Game pairs.
    pub penta: Penta,
    /// Elo with its 95 % interval, LOS, draw ratio (none before the first game).
    pub estimate: Option<EloEstimate>,
    /// The SPRT, when configured.
    pub sprt: Option<SprtSummary>,
    /// Why the interval may claim too much (openings repeated with deterministic
    /// engines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// With a tune's opponent: the tuned and the base engine's games against it (the
    /// match is then a round robin of the three).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<OpponentReport>,
}

/// The verification's games against a tune's opponent, each engine's own view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpponentReport {
    /// The opponent's name in the match.
    pub name: String,
    /// The tuned engine against it.
    pub tuned: Versus,
    /// The base engine against it.
    pub base: Versus,
}

/// One engine's games against another in a match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Versus {
    /// Games.
    pub wdl: Wdl,
    /// Game pairs.
    pub penta: Penta,
    /// Elo with its 95 % interval (none before the first game).
    pub estimate: Option<EloEstimate>,
}

/// A job whose result a verification match can check: the tuned or fitted engine
/// against the base engine.
pub trait Verifiable {
    /// What the job's report holds once the match is recorded (`tune.json`, `fit.json`).
    type Report;
    /// What holds the folder while the match plays (`arena tune (verification)`).
    const WHAT: &'static str;
    /// What the match shares with the job (its seed and `[verification]` too).
    fn plan(&self) -> MatchPlan<'_>;
    /// The finished job's engines in `out`: its result first, then the base; an error
    /// when the folder's job is not finished, or not this one.
    fn engines(&self, out: &Path) -> Result<[EngineSpec; 2], TuneError>;
    /// An engine both are also played against (a tune's opponent).
    fn opponent(&self) -> Option<EngineSpec> {
        None
    }
    /// Records the match in the job's report (and returns it).
    fn record(
        &self,
        out: &Path,
        match_report: VerificationReport,
    ) -> Result<Self::Report, TuneError>;
}

/// Plays the verification match of the finished `job` in `options.out_dir`: its result
/// against the base engine, `pairs` game pairs (default: the `[verification]` section's),
/// through the tournament runner into `<out>/verification/` (and its games to `live`
/// files as they finish), and records it in the job's report; returns the match's
/// outcome and what the report says of it. None when there is nothing to play (no
/// section, or 0 pairs).
pub fn verify<J: Verifiable>(
    job: &J,
    options: &JobOptions,
    pairs: Option<u32>,
    live: &LiveFiles,
    sink: &mut dyn FnMut(&tournament::Event<'_>),
) -> Result<Option<(RunOutcome, VerificationReport)>, TuneError> {
    let plan = job.plan();
    let (seed, section) = (plan.seed, plan.verification);
    if pairs.unwrap_or(section.map_or(0, |v| v.pairs)) == 0 {
        return Ok(None);
    }
    let out = &options.out_dir;
    let _lock = crate::jobs::lock::lock_exclusive(out, J::WHAT)?;
    let engines = job.engines(out)?;
    let played = play_verification(
        &plan,
        seed,
        section,
        pairs,
        (engines, job.opponent()),
        RunOptions {
            live: live.clone(),
            ..RunOptions::for_job(options, out.join(VERIFICATION_DIR))
        },
        sink,
    )?;
    let Some((outcome, report)) = played else {
        return Ok(None);
    };
    job.record(out, report.clone())?;
    Ok(Some((outcome, report)))
}

/// Plays a verification match: `engines` (each given the `[verification]` section's
/// `set`), `pairs` game pairs (default: the section's), as `options` say (into
/// `<out>/verification/`); with an opponent, a round robin of the two and it (`pairs`
/// for each pairing). None when there is nothing to play.
fn play_verification(
    plan: &MatchPlan<'_>,
    seed: u64,
    section: Option<&VerificationConfig>,
    pairs: Option<u32>,
    (engines, opponent): ([EngineSpec; 2], Option<EngineSpec>),
    options: RunOptions,
    sink: &mut dyn FnMut(&tournament::Event<'_>),
) -> Result<Option<(RunOutcome, VerificationReport)>, TuneError> {
    let pairs = pairs.unwrap_or(section.map_or(0, |v| v.pairs));
    if pairs == 0 {
        return Ok(None);
    }
    let names = engines.clone().map(|e| e.name().to_string());
    let mut all: Vec<EngineSpec> = engines.into();
    if let Some(mut o) = opponent {
        // Three names for one tournament: the opponent's gives way.
        if names.iter().any(|n| n == o.name()) {
            let name = crate::engine::config::derived_name(o.name(), "-opponent");
            o.rename(&name);
        }
        all.push(o);
    }
    if let Some(v) = section {
        for (i, engine) in all.iter_mut().enumerate() {
            engine
                .set_all(v.set.iter().map(|(k, v)| (k, v.clone())))
                .map_err(|e| {
                    let whose = if i == 2 { " (the opponent)" } else { "" };
                    TuneError::Input(format!("[verification] set{whose}: {e}"))
                })?;
        }
    }
    let deterministic = all.iter().all(EngineSpec::is_deterministic);
    let opponent_name = all.get(2).map(|o| o.name().to_string());
    let seed = section.and_then(|v| v.seed).unwrap_or(seed.wrapping_add(1));
    let mut t = plan.tournament("verification", pairs, seed, all);
    t.config.sprt = section.and_then(|v| v.sprt);
    // Deterministic engines replay the same pair on the same opening: an interval over
    // repeated pairs claims more than the games show.
    let warning = match plan.opening_count()? {
        Some(n) if deterministic && n < u64::from(pairs) => Some(format!(
            "only {n} distinct opening(s) for {pairs} pairs of engines without randomness: \
             pairs repeat, so the interval is narrower than the evidence (use random \
             openings, a longer opening file, or search.random_margin)"
        )),
        _ => None,
    };
    let outcome = tournament::run(&t, &options, sink)?;
    let pairing = |a: usize, b: usize| {
        outcome
            .summary
            .pairings
            .iter()
            .find(|p| (p.a, p.b) == (a, b))
            .expect("a round robin plays every pairing")
    };
    let versus = |a: usize| {
        let p = pairing(a, 2);
        Versus {
            wdl: p.wdl,
            penta: p.penta,
            estimate: p.estimate,
        }
    };
    let opponent = opponent_name.map(|name| OpponentReport {
        name,
        tuned: versus(0),
        base: versus(1),
    });
    let p = pairing(0, 1);
    let report = VerificationReport {
        dir: VERIFICATION_DIR.to_string(),
        engines: names,
        pairs_scheduled: u64::from(pairs),
        complete: outcome.ending != Ending::Interrupted,
        wdl: p.wdl,
        penta: p.penta,
        estimate: p.estimate,
        sprt: outcome.summary.sprt.clone(),
        warning,
        opponent,
    };
    Ok(Some((outcome, report)))
}
