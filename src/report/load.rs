//! Reading a tournament's results folder for a report: `summary.json` (the statistics),
//! `run.toml` (shown verbatim) and `games.jsonl` (per-move node counts and per-game
//! first-player results, which the summary only holds as averages), every record checked
//! and replayed against the run as `arena stats` does. A run still being played has no
//! summary yet (or the last session's): its statistics are then the tournament layer's
//! summary of `games.jsonl` as it is now, as `arena stats` makes them; the report takes
//! no lock.

use std::path::Path;

use crate::{
    jobs::lock,
    stats::elo::Z95,
    tournament::{
        RunError, Summary, Tournament, read_records,
        record::{ReadError, ReadRecords},
        summary::{self, ranked},
        validate::{RunShape, read_checked},
    },
};

use super::ReportError;

/// The first player's score in one pairing, with its 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FirstPlayer {
    /// Points per game of whoever moved first.
    pub score: f64,
    /// Half-width of the 95 % interval (normal approximation over games).
    pub error: f64,
    /// Games.
    pub games: u64,
}

/// Why a report's summary was made from `games.jsonl` rather than read from
/// `summary.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Progress {
    /// An arena writes the folder now: the run is being played.
    Writing,
    /// No arena writes it, and it has no `summary.json` (a run stopped before writing
    /// one).
    NoSummary,
}

/// A tournament's results, as the report needs them.
#[derive(Debug)]
pub(crate) struct Tour {
    /// `run.toml`, verbatim (empty when missing).
    pub config_text: String,
    /// `summary.json`, or the summary of `games.jsonl` as it is now (see `progress`).
    pub summary: Summary,
    /// Set when the summary was made from `games.jsonl`, and why.
    pub progress: Option<Progress>,
    /// The run's `concurrency` setting (0 = all cores), when `run.toml` has one.
    pub concurrency: Option<i64>,
    /// Engine indices, best first (the order of every per-engine table and plot).
    pub order: Vec<usize>,
    /// Nodes of every move, per engine (config order), sorted ascending.
    pub nodes: Vec<Vec<u64>>,
    /// Per pairing (schedule order): the first player's score, when it has games.
    pub first_player: Vec<Option<FirstPlayer>>,
    /// The first player's score over all games.
    pub first_player_all: Option<FirstPlayer>,
    /// Whether `games.jsonl` ended in a torn line (left out).
    pub torn_tail: bool,
    /// The game viewer's data (none without games).
    pub viewer: Option<super::viewer::Viewer>,
}

impl Tour {
    /// Reads the results folder `dir`. While another arena writes it (its lock files
    /// name a live process; `by_writer`: the caller is the folder's writer itself), and
    /// when it has no `summary.json` yet, the summary is made from `games.jsonl` and
    /// `run.toml` as `arena stats` makes it, without the folder's lock.
    pub fn load(dir: &Path, by_writer: bool) -> Result<Tour, ReportError> {
        let summary_path = dir.join("summary.json");
        let writing = !by_writer && lock::writer_at_work(dir);
        // A summary.json beside a run at work is the last session's: stale.
        let stored = if writing {
            None
        } else {
            match std::fs::read_to_string(&summary_path) {
                Ok(t) => Some(t),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(ReportError::io(&summary_path, e)),
            }
        };
        let run_toml = dir.join("run.toml");
        let config_text = match std::fs::read_to_string(&run_toml) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(ReportError::io(&run_toml, e)),
        };
        let games_path = dir.join("games.jsonl");
        // Neither a summary nor a run at work nor its games: nothing to report on.
        if stored.is_none() && (config_text.is_empty() || !(writing || games_path.exists())) {
            return Err(ReportError::input(
                &summary_path,
                format!(
                    "missing: not a run's results folder (if it holds run.toml and \
                     games.jsonl, `{}` writes it)",
                    crate::invocation::command(&format!("stats {}", dir.display()))
                ),
            ));
        }
        let concurrency = config_text
            .parse::<toml::Table>()
            .ok()
            .and_then(|t| t.get("concurrency").and_then(toml::Value::as_integer));
        let (tournament, records) = read_games(&run_toml, &games_path)?;
        let (summary, progress) = match (stored, tournament) {
            (Some(text), _) => {
                let summary: Summary = serde_json::from_str(&text).map_err(|e| {
                    ReportError::input(
                        format!("{}:{}", summary_path.display(), e.line()),
                        format!(
                            "not a run summary ({e}); `{}` rewrites it",
                            crate::invocation::command(&format!("stats {}", dir.display()))
                        ),
                    )
                })?;
                (summary, None)
            }
            (None, Some(t)) => (
                summary::of_records(&t, &records.records),
                Some(if writing {
                    Progress::Writing
                } else {
                    Progress::NoSummary
                }),
            ),
            (None, None) => unreachable!("run.toml is there: read_games read it"),
        };
        let n = summary.engines.len();
        let stale = |what: String| {
            ReportError::input(
                &games_path,
                format!(
                    "{what}, which summary.json does not have: the summary is stale \
                     (`{}` rewrites it)",
                    crate::invocation::command(&format!("stats {}", dir.display()))
                ),
            )
        };
        let mut nodes = vec![Vec::new(); n];
        let mut first_points: Vec<Vec<f64>> = vec![Vec::new(); summary.pairings.len()];
        for r in &records.records {
            let points = first_points
                .get_mut(r.pairing)
                .ok_or_else(|| stale(format!("game {} is of pairing {}", r.game, r.pairing)))?;
            points.push(f64::from(r.result.first_half_points()) / 2.0);
            for (i, s) in r.stats.iter().enumerate() {
                let e = r.mover(i);
                let engine_nodes = nodes
                    .get_mut(e)
                    .ok_or_else(|| stale(format!("game {} names engine {e}", r.game)))?;
                // 0: the engine reported no count (see the summary's n/a).
                if s.nodes > 0 {
                    engine_nodes.push(s.nodes);
                }
            }
        }
        for v in &mut nodes {
            v.sort_unstable();
        }
        let order = ranked(&summary)
            .into_iter()
            .map(|e| {
                summary
                    .engines
                    .iter()
                    .position(|x| std::ptr::eq(x, e))
                    .expect("ranked() returns the summary's own engines")
            })
            .collect();
        let per_pairing = first_points.iter().map(|p| first_player(p)).collect();
        let all: Vec<f64> = first_points.concat();
        let viewer = super::viewer::build(&summary, &records.records);
        Ok(Tour {
            config_text,
            summary,
            progress,
            concurrency,
            order,
            nodes,
            first_player: per_pairing,
            first_player_all: first_player(&all),
            torn_tail: records.torn_tail,
            viewer,
        })
    }

    /// Pairing label: `a vs b`.
    pub fn pairing_label(&self, i: usize) -> String {
        let p = &self.summary.pairings[i];
        format!("{} vs {}", p.names[0], p.names[1])
    }
}

/// The run of `run.toml`, and the records of `games.jsonl`, each checked against it and
/// replayed by the rules (see [`validate`](crate::tournament::validate)); a folder
/// without `run.toml` has no schedule to check against, and its records are read as they
/// are. A run that has played nothing yet has no `games.jsonl`: no records.
fn read_games(
    run_toml: &Path,
    games_path: &Path,
) -> Result<(Option<Tournament>, ReadRecords), ReportError> {
    if !run_toml.exists() {
        let records = read_records(games_path).map_err(|e| match e {
            ReadError::Io { source, .. } => ReportError::io(games_path, source),
            other => ReportError::input(games_path, other.to_string()),
        })?;
        return Ok((None, records));
    }
    let t = Tournament::from_resolved(run_toml)
        .map_err(|e| ReportError::input(run_toml, format!("not a run's config: {e}")))?;
    if !games_path.exists() {
        let none = ReadRecords {
            records: Vec::new(),
            valid_len: 0,
            torn_tail: false,
        };
        return Ok((Some(t), none));
    }
    let checked = read_checked(games_path, &RunShape::of(&t, None)).map_err(|e| match e {
        RunError::Io { source, .. } => ReportError::io(games_path, source),
        RunError::Input(message) => {
            // The message names `games.jsonl:LINE` itself: keep the line in the path.
            let prefix = format!("{}:", games_path.display());
            match message
                .strip_prefix(&prefix)
                .and_then(|rest| rest.split_once(": "))
            {
                Some((line, why)) => {
                    ReportError::input(format!("{}:{line}", games_path.display()), why)
                }
                None => ReportError::input(games_path, message),
            }
        }
    })?;
    let records = ReadRecords {
        records: checked.records,
        valid_len: checked.valid_len,
        torn_tail: checked.torn_tail,
    };
    Ok((Some(t), records))
}

fn first_player(points: &[f64]) -> Option<FirstPlayer> {
    if points.is_empty() {
        return None;
    }
    let n = points.len() as f64;
    let mean = points.iter().sum::<f64>() / n;
    let var = if points.len() > 1 {
        points.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    Some(FirstPlayer {
        score: mean,
        error: Z95 * (var / n).sqrt(),
        games: points.len() as u64,
    })
}

/// A quantile of sorted values (linear interpolation between order statistics).
pub(crate) fn quantile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    let frac = pos - lo as f64;
    sorted[lo] as f64 * (1.0 - frac) + sorted[hi] as f64 * frac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_player_interval() {
        let fp = first_player(&[1.0, 0.0, 1.0, 0.0]).unwrap();
        assert_eq!(fp.score, 0.5);
        assert_eq!(fp.games, 4);
        // sd = sqrt(1/3), se = sd / 2.
        assert!((fp.error - Z95 * (1.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-12);
        assert_eq!(first_player(&[]), None);
    }

    #[test]
    fn quantiles_interpolate() {
        let v = [1, 2, 3, 4, 5];
        assert_eq!(quantile(&v, 0.5), 3.0);
        assert_eq!(quantile(&v, 0.25), 2.0);
        assert_eq!(quantile(&[10, 20], 0.5), 15.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }
}
