//! `merge`: combines the shards of a run (`shards/shard-I-of-N.jsonl`) into the run's
//! `games.jsonl` and computes its statistics exactly as a single-process run does.
//!
//! Every problem is found before anything is written: a missing, incomplete, duplicate or
//! foreign shard (another config, another split, games that are not its own) is named in
//! one line, and `games.jsonl` is left as it was. The merge checks records against the
//! schedule and their derived seeds, so a shard file copied in from another run is caught
//! even if its sidecar was copied too.
//!
//! It does not play games and knows no scheduler; it reads only files.

use std::{
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
};

use super::{
    Tournament,
    error::{RunError, write_text},
    record::{GameRecord, read_records},
    schedule::Schedule,
    shard::{self, Shard, ShardFileKind},
    summary::{self, Summary},
    validate::{GameSet, RunShape, read_checked},
};

/// What a merge did.
#[derive(Debug)]
pub struct MergeOutcome {
    /// The run's statistics (also written to `summary.json` and `standings.csv`).
    pub summary: Summary,
    /// Number of shards merged.
    pub shards: u32,
    /// Games merged.
    pub games: u64,
    /// The merged results (`games.jsonl`).
    pub results: PathBuf,
    /// Whether `games.jsonl` already held exactly these games (a repeated merge).
    pub unchanged: bool,
}

/// Merges the shards of the run in `dir` (holding `run.toml` and `shards/`).
///
/// On success `dir/games.jsonl` holds every game sorted by game index (written to a
/// temporary file and renamed), and `summary.json` and `standings.csv` are written. An
/// existing `games.jsonl` is replaced only if it holds exactly the merged games (a
/// repeated merge); otherwise the merge refuses rather than lose anything.
pub fn merge(dir: &Path) -> Result<MergeOutcome, RunError> {
    let run_toml = dir.join("run.toml");
    if !run_toml.exists() {
        return Err(RunError::Input(format!(
            "{}: no run.toml, so not a run's results folder (shard runs write it)",
            dir.display()
        )));
    }
    let text = fs::read(&run_toml).map_err(|source| RunError::Io {
        path: run_toml.display().to_string(),
        source,
    })?;
    let text = crate::config::utf8_text(&run_toml, text)?;
    let t = Tournament::from_resolved(&run_toml)?;
    // One writer per folder: no shard may be at work, nor another merge.
    let _lock = crate::jobs::lock::lock_exclusive(dir, "arena merge")?;
    // What a killed writer left half-written (no writer can be at work now).
    crate::files::remove_stale_temporaries(dir);
    if t.config.sprt.is_some() {
        return Err(RunError::Input(format!(
            "{}: the run has [sprt], which cannot be split into shards",
            run_toml.display()
        )));
    }
    let hash = shard::config_hash(&text);
    let schedule = Schedule::new(t.config.format, t.engines.len(), u64::from(t.config.rounds));

    let files = shard::list_files(dir)?;
    let shards_dir = dir.join(shard::SHARDS_DIR);
    let Some(first) = files.first() else {
        return Err(RunError::Input(format!(
            "{}: no shard files (shard-I-of-N.jsonl); play them with `{}`",
            shards_dir.display(),
            crate::invocation::command(&format!("run CONFIG --shard I/N --out {}", dir.display()))
        )));
    };
    // One split only: shards of a 2-way and a 4-way split hold the same games twice.
    let count = first.shard.count;
    if let Some(other) = files.iter().find(|f| f.shard.count != count) {
        return Err(RunError::Input(format!(
            "{} mixes two splits of the run: {} is one of {count} shards, {} one of {}; \
             their games overlap, move one split's files away",
            shards_dir.display(),
            file_name(&first.path),
            file_name(&other.path),
            other.shard.count
        )));
    }
    if let Some(bad) = files.iter().find(|f| f.shard.index >= count) {
        return Err(RunError::Input(format!(
            "{}: shard {} does not exist in a {count}-way split",
            bad.path.display(),
            bad.shard.label()
        )));
    }

    let mut problems = Problems::default();
    let mut records: Vec<GameRecord> = Vec::new();
    for index in 0..count {
        let s = Shard { index, count };
        let expected = 2 * s.pairs_of(schedule.pairs());
        let of = |kind| {
            files
                .iter()
                .find(|f| f.shard == s && f.kind == kind)
                .map(|f| f.path.clone())
        };
        let (complete, part, meta) = (
            of(ShardFileKind::Complete),
            of(ShardFileKind::Part),
            of(ShardFileKind::Meta),
        );
        let complete = match (complete, part) {
            (Some(c), Some(p)) => {
                problems.duplicate.push(format!(
                    "shard {} is there twice ({} and {})",
                    s.label(),
                    file_name(&c),
                    file_name(&p)
                ));
                continue;
            }
            (None, Some(p)) => {
                let n = read_records(&p).map(|r| r.records.len()).unwrap_or(0);
                problems.incomplete.push(index);
                problems.detail.push(format!(
                    "shard {} is incomplete ({} holds {n} of {expected} games)",
                    s.label(),
                    file_name(&p)
                ));
                continue;
            }
            (None, None) => {
                problems.missing.push(index);
                continue;
            }
            (Some(c), None) => c,
        };
        // Which config made it: the sidecar's hash against run.toml's.
        let meta_path = meta.unwrap_or_else(|| shard::meta_file(dir, s));
        match shard::read_meta(&meta_path) {
            Ok(Some(m)) if m.config_sha256 == hash && m.index == index && m.count == count => {}
            Ok(Some(m)) if m.config_sha256 != hash => {
                problems.foreign.push(format!(
                    "shard {} was made from a different config (its {} says sha256 {}, \
                     run.toml has {})",
                    s.label(),
                    file_name(&meta_path),
                    shard::short(&m.config_sha256),
                    shard::short(&hash)
                ));
                continue;
            }
            Ok(Some(m)) => {
                problems.foreign.push(format!(
                    "shard {}: {} describes shard {}/{}",
                    s.label(),
                    file_name(&meta_path),
                    m.index,
                    m.count
                ));
                continue;
            }
            Ok(None) => {
                problems.foreign.push(format!(
                    "shard {} has no {} (its config is unknown)",
                    s.label(),
                    file_name(&meta_path)
                ));
                continue;
            }
            Err(e) => {
                problems.foreign.push(format!("shard {}: {e}", s.label()));
                continue;
            }
        }
        // Every record against the schedule, the shard and the seeds: a shard file copied
        // in from another run is caught even if its sidecar was copied too.
        let shape = RunShape::of(&t, Some(s));
        let read = match read_checked(&complete, &shape) {
            Ok(r) => r,
            Err(e) => {
                problems
                    .foreign
                    .push(format!("shard {}: {e}", s.label()).replace('\n', " "));
                continue;
            }
        };
        let seen = read.records.len();
        if read.torn_tail || seen as u64 != expected {
            let mut have = GameSet::default();
            for r in &read.records {
                have.insert(r.game);
            }
            let missing: Vec<String> = (0..expected)
                .map(|k| 2 * s.nth_pair(k / 2) + k % 2)
                .filter(|&g| !have.contains(g))
                .take(3)
                .map(|g| g.to_string())
                .collect();
            problems.incomplete.push(index);
            problems.detail.push(format!(
                "shard {} is marked complete but {} holds {} of {expected} games{} \
                 ({}:{} is its last line{})",
                s.label(),
                file_name(&complete),
                seen,
                if read.torn_tail {
                    " and a torn last line"
                } else {
                    ""
                },
                file_name(&complete),
                read.lines,
                if missing.is_empty() {
                    String::new()
                } else {
                    format!("; missing: game {}", missing.join(", "))
                }
            ));
            continue;
        }
        records.extend(read.records);
    }
    if let Some(message) = problems.message(dir, count) {
        return Err(RunError::Input(message));
    }

    records.sort_by_key(|r| r.game);
    let mut text = String::new();
    for r in &records {
        let line = serde_json::to_string(r).map_err(|e| RunError::Io {
            path: dir.join("games.jsonl").display().to_string(),
            source: std::io::Error::other(e),
        })?;
        text.push_str(&line);
        text.push('\n');
    }
    let results = dir.join("games.jsonl");
    let unchanged = match fs::read_to_string(&results) {
        Ok(old) if old == text => true,
        Ok(old) if old.trim().is_empty() => false,
        Ok(_) => {
            return Err(RunError::Input(format!(
                "{} already exists and holds other games than the shards; move it away to \
                 merge",
                results.display()
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(source) => {
            return Err(RunError::Io {
                path: results.display().to_string(),
                source,
            });
        }
    };
    if !unchanged {
        write_text(&results, &text)?;
    }
    let summary = summary::summarize(&t, &schedule, &records, None);
    summary::write_files(dir, &summary)?;
    // The report (a layer above tournaments) is written by the caller: `arena merge`.
    Ok(MergeOutcome {
        summary,
        shards: count,
        games: records.len() as u64,
        results,
        unchanged,
    })
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    )
}

/// Everything wrong with the shards, gathered so one message names them all.
#[derive(Default)]
struct Problems {
    missing: Vec<u32>,
    incomplete: Vec<u32>,
    /// One phrase per incomplete shard.
    detail: Vec<String>,
    duplicate: Vec<String>,
    foreign: Vec<String>,
}

impl Problems {
    /// One line naming every bad shard and how to fix it, or `None` if all are good.
    fn message(&self, dir: &Path, count: u32) -> Option<String> {
        let mut parts: Vec<String> = Vec::new();
        if !self.missing.is_empty() {
            let list = list(&self.missing, count);
            parts.push(if self.missing.len() == 1 {
                format!(
                    "shard {list} is missing (no shards/{})",
                    Shard {
                        index: self.missing[0],
                        count
                    }
                    .file_name()
                )
            } else {
                format!("shards {list} are missing")
            });
        }
        parts.extend(self.detail.iter().cloned());
        parts.extend(self.duplicate.iter().cloned());
        parts.extend(self.foreign.iter().cloned());
        if parts.is_empty() {
            return None;
        }
        let mut message = format!("cannot merge {}: {}", dir.display(), parts.join("; "));
        let rerun: Vec<u32> = {
            let mut v: Vec<u32> = self
                .missing
                .iter()
                .chain(&self.incomplete)
                .copied()
                .collect();
            v.sort_unstable();
            v
        };
        if !rerun.is_empty() {
            let ids: Vec<String> = rerun.iter().map(u32::to_string).collect();
            let _ = write!(
                message,
                " (play them with `{}`, \
                 or on Slurm `sbatch --array={} scripts/slurm/tournament.sbatch CONFIG {} {count}`)",
                crate::invocation::command(&format!(
                    "run CONFIG --shard I/{count} --resume --out {}",
                    dir.display()
                )),
                ids.join(","),
                dir.display()
            );
        }
        Some(message)
    }
}

/// `3/64` or `3, 17, 40 of 64` (at most 12 listed).
fn list(indices: &[u32], count: u32) -> String {
    if indices.len() == 1 {
        return format!("{}/{count}", indices[0]);
    }
    let mut shown: Vec<String> = indices.iter().take(12).map(u32::to_string).collect();
    if indices.len() > 12 {
        shown.push(format!("and {} more", indices.len() - 12));
    }
    format!("{} of {count}", shown.join(", "))
}
