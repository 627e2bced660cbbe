//! Several runs' games as one pool of players, for a rating list over them all (`arena
//! stats DIR1 DIR2 ...`). Engines are matched by name across runs, and two runs' engines
//! of one name must be the same engine: the same resolved entry in their `run.toml`
//! (every parameter of a built-in engine; an outside engine's command, options and
//! limits). Every folder's records are checked as `arena stats` checks one folder's.
//!
//! It knows runs and records; the ratings are [`stats::rating_list`](crate::stats::rating_list)'s.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use super::{
    RunError, Tournament,
    config::resolved_engine,
    validate::{RunShape, read_checked},
};
use crate::{
    game::GameSpec,
    stats::{Wdl, paired::PairedDifference, rating_list::ColouredResult},
};

/// One run of the pool.
#[derive(Clone, Debug)]
pub struct PooledRun {
    /// Its results folder.
    pub dir: PathBuf,
    /// Its name (`run.toml`'s).
    pub name: String,
    /// Games read from it.
    pub games: usize,
    /// Whether a torn last line of its `games.jsonl` was left out.
    pub torn_tail: bool,
}

/// The games of several runs, by player.
#[derive(Clone, Debug)]
pub struct Pool {
    /// The game every run played.
    pub game: GameSpec,
    /// Player names, in the order the runs first list them.
    pub names: Vec<String>,
    /// Results by who moved first (after the opening), player indices into `names` (one
    /// entry per pairing and first mover of each run).
    pub results: Vec<ColouredResult>,
    /// The runs, in the order given.
    pub runs: Vec<PooledRun>,
    /// Every game, in the runs' order.
    pub games: Vec<PooledGame>,
}

/// One game of the pool.
#[derive(Clone, Debug)]
pub struct PooledGame {
    /// Who played black (the first player) and white, indices into [`Pool::names`].
    pub black: usize,
    /// See `black`.
    pub white: usize,
    /// The opening, as the record gives it.
    pub opening: String,
    /// Black's half points (2 a win, 1 a draw, 0 a loss).
    pub black_half_points: u8,
}

/// One player's games against one opponent: (opening, played black) -> (half points,
/// games).
type Cells<'a> = BTreeMap<(&'a str, bool), (u32, u32)>;

/// An engine against one opponent, paired to the base engine on the openings both played
/// against that opponent with the same colours ([`Pool::paired_to`]).
#[derive(Clone, Copy, Debug)]
pub struct PairedRow {
    /// The engine, an index into [`Pool::names`].
    pub engine: usize,
    /// The opponent.
    pub opponent: usize,
    /// The engine's score on the shared openings (a fraction: the mean over openings of
    /// its mean over the shared colours).
    pub engine_score: f64,
    /// The base engine's score there, likewise.
    pub base_score: f64,
    /// Per opening, the engine's score minus the base's.
    pub difference: PairedDifference,
}

impl Pool {
    /// Games in the pool.
    pub fn games(&self) -> usize {
        self.runs.iter().map(|r| r.games).sum()
    }

    /// Every other engine paired to `base`: per opponent (neither of the two), the
    /// openings both met it on with the same colours; on each, each engine's mean score
    /// over the colours both played (over every game of that opening and colour, when
    /// an opening was played more than once), and the engine's minus the base's. Rows
    /// by engine, then opponent, in [`Pool::names`] order; pairings with no shared
    /// opening are left out.
    pub fn paired_to(&self, base: usize) -> Vec<PairedRow> {
        let mut seen: BTreeMap<(usize, usize), Cells> = BTreeMap::new();
        for g in &self.games {
            let sides = [
                (g.black, g.white, true, g.black_half_points),
                (g.white, g.black, false, 2 - g.black_half_points),
            ];
            for (player, opponent, black, half) in sides {
                let cell = seen
                    .entry((player, opponent))
                    .or_default()
                    .entry((g.opening.as_str(), black))
                    .or_default();
                cell.0 += u32::from(half);
                cell.1 += 1;
            }
        }
        let mean = |(half, games): (u32, u32)| f64::from(half) / 2.0 / f64::from(games);
        let mut rows = Vec::new();
        for engine in (0..self.names.len()).filter(|&e| e != base) {
            for opponent in (0..self.names.len()).filter(|&o| o != base && o != engine) {
                let (Some(mine), Some(theirs)) =
                    (seen.get(&(engine, opponent)), seen.get(&(base, opponent)))
                else {
                    continue;
                };
                // Per opening: the colours both played there.
                let mut units: BTreeMap<&str, (f64, f64, u32)> = BTreeMap::new();
                for (&(opening, black), &cell) in mine {
                    if let Some(&other) = theirs.get(&(opening, black)) {
                        let unit = units.entry(opening).or_default();
                        unit.0 += mean(cell);
                        unit.1 += mean(other);
                        unit.2 += 1;
                    }
                }
                let scores: Vec<(f64, f64)> = units
                    .values()
                    .map(|&(a, b, n)| (a / f64::from(n), b / f64::from(n)))
                    .collect();
                let differences: Vec<f64> = scores.iter().map(|(a, b)| a - b).collect();
                let Some(difference) = PairedDifference::of(&differences) else {
                    continue;
                };
                let n = scores.len() as f64;
                rows.push(PairedRow {
                    engine,
                    opponent,
                    engine_score: scores.iter().map(|s| s.0).sum::<f64>() / n,
                    base_score: scores.iter().map(|s| s.1).sum::<f64>() / n,
                    difference,
                });
            }
        }
        rows
    }
}

/// Reads the runs in `dirs` into one pool. An error when a folder is not a run's, its
/// records fail their checks, a folder is given twice, the runs play different games, or
/// two runs' engines of one name differ (naming both folders and the first difference).
pub fn pool(dirs: &[PathBuf]) -> Result<Pool, RunError> {
    let mut seen: Vec<(PathBuf, &Path)> = Vec::new();
    let mut game: Option<(GameSpec, &Path)> = None;
    // Per player: its resolved entry and the folder it was first read from.
    let mut players: Vec<(String, toml::Table, &Path)> = Vec::new();
    let mut results = Vec::new();
    let mut runs = Vec::new();
    let mut games = Vec::new();
    for dir in dirs {
        let canonical = dir.canonicalize().map_err(|e| RunError::io(dir, e))?;
        if let Some((_, first)) = seen.iter().find(|(c, _)| *c == canonical) {
            return Err(RunError::Input(format!(
                "{} and {} are the same folder: its games would count twice",
                first.display(),
                dir.display()
            )));
        }
        seen.push((canonical, dir));
        let t = Tournament::from_resolved(&dir.join("run.toml"))?;
        match game {
            Some((g, first)) if g != t.config.game => {
                return Err(RunError::Input(format!(
                    "{} plays {g} and {} plays {}: a rating list is of one game",
                    first.display(),
                    dir.display(),
                    t.config.game
                )));
            }
            Some(_) => {}
            None => game = Some((t.config.game, dir)),
        }
        let mut index = Vec::new();
        for spec in &t.engines {
            let entry = identity(spec);
            let name = spec.name();
            let i = match players.iter().position(|(n, _, _)| n == name) {
                Some(i) => {
                    let (_, known, first) = &players[i];
                    if *known != entry {
                        return Err(RunError::Input(format!(
                            "engine '{name}' is not the same engine in {} and {} ({}): give \
                             one of them another name, or rate the folders apart",
                            first.display(),
                            dir.display(),
                            first_difference(known, &entry)
                        )));
                    }
                    i
                }
                None => {
                    players.push((name.to_string(), entry, dir));
                    players.len() - 1
                }
            };
            index.push(i);
        }
        let shape = RunShape::of(&t, None);
        let checked = read_checked(&dir.join("games.jsonl"), &shape)?;
        // One entry per (first mover, other) of this run.
        let mut by_colours: Vec<((usize, usize), Wdl)> = Vec::new();
        for r in &checked.records {
            let second = if r.first_mover == r.black {
                r.white
            } else {
                r.black
            };
            let key = (index[r.first_mover], index[second]);
            let wdl = match by_colours.iter_mut().find(|(k, _)| *k == key) {
                Some((_, wdl)) => wdl,
                None => {
                    by_colours.push((key, Wdl::default()));
                    &mut by_colours.last_mut().expect("just pushed").1
                }
            };
            match r.half_points_of(r.first_mover) {
                Some(2) => wdl.wins += 1,
                Some(1) => wdl.draws += 1,
                _ => wdl.losses += 1,
            }
            games.push(PooledGame {
                black: index[r.black],
                white: index[r.white],
                opening: r.opening.clone(),
                black_half_points: r.half_points_of(r.black).unwrap_or(0),
            });
        }
        results.extend(
            by_colours
                .into_iter()
                .map(|((first, second), wdl)| ColouredResult { first, second, wdl }),
        );
        runs.push(PooledRun {
            dir: dir.clone(),
            name: t.config.name.clone(),
            games: checked.records.len(),
            torn_tail: checked.torn_tail,
        });
    }
    let Some((game, _)) = game else {
        return Err(RunError::Input("no results folder given".into()));
    };
    Ok(Pool {
        game,
        names: players.into_iter().map(|(n, _, _)| n).collect(),
        results,
        runs,
        games,
    })
}

/// An engine's identity across runs: its resolved entry, with the paths of an outside
/// engine's `command` and `working_dir` lexically cleaned of `.` components (`/a/./b` is
/// `/a/b`; runs recorded before arena cleaned them name the same program alike). `..`
/// stays: through a symbolic link it is not the folder above.
fn identity(spec: &crate::protocol::EngineSpec) -> toml::Table {
    let mut entry = resolved_engine(spec);
    for key in ["command", "working_dir"] {
        if let Some(toml::Value::String(path)) = entry.get_mut(key)
            && path.contains('/')
        {
            let clean = Path::new(path.as_str()).components().collect::<PathBuf>();
            *path = clean.display().to_string();
        }
    }
    entry
}

/// The first key whose values differ between two engine entries: `key: a | b`.
fn first_difference(a: &toml::Table, b: &toml::Table) -> String {
    difference_at("", a, b).unwrap_or_else(|| "they differ".to_string())
}

/// The first key (in order, dotted down into tables both sides have) whose values
/// differ, with both values: `search.nodes: 100000 | 20000`.
fn difference_at(prefix: &str, a: &toml::Table, b: &toml::Table) -> Option<String> {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    let show = |v: Option<&toml::Value>| v.map_or("(none)".to_string(), |v| v.to_string());
    let k = keys.into_iter().find(|k| a.get(*k) != b.get(*k))?;
    let path = format!("{prefix}{k}");
    match (a.get(k), b.get(k)) {
        (Some(toml::Value::Table(x)), Some(toml::Value::Table(y))) => {
            difference_at(&format!("{path}."), x, y)
        }
        (x, y) => Some(format!("{path}: {} | {}", show(x), show(y))),
    }
}
