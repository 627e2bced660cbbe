//! Shards: one run split across processes or machines. Owns the shard files' names and
//! states (`shards/shard-I-of-N.jsonl.part` while playing, renamed to
//! `shard-I-of-N.jsonl` once every game of the shard is in), the sidecar
//! `shard-I-of-N.meta.json` that ties a shard to its config by hash, and choosing the shard
//! from a scheduler's environment (Slurm job arrays, Kubernetes Indexed Jobs, GNU
//! parallel).
//!
//! It does not play games or compute statistics (the runner and `merge` do), and it does
//! not read the process environment itself: callers pass a lookup, so the choice is a
//! pure function that tests can drive.

use std::{
    fs,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::error::{RunError, write_text};

/// Which part of the schedule this process plays: game pairs with `pair % count == index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
}

/// The results file of a run (or of its shard, under the name it gets once complete;
/// while it is played it is [`part_file`]).
pub fn results_file(out_dir: &Path, shard: Option<Shard>) -> PathBuf {
    match shard {
        None => out_dir.join("games.jsonl"),
        Some(s) => out_dir.join(SHARDS_DIR).join(s.file_name()),
    }
}

/// The folder under a run's results folder that holds its shards.
pub const SHARDS_DIR: &str = "shards";

/// The environment variables a scheduler sets to say which shard a process plays, in the
/// order they are consulted.
pub const SHARD_ENV_VARS: [&str; 6] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "JOB_COMPLETION_INDEX",
    "PARALLEL_SEQ",
];

/// SHA-256 of a resolved config (`run.toml`'s text), in hex: equal to `sha256sum run.toml`.
pub fn config_hash(resolved_toml: &str) -> String {
    Sha256::digest(resolved_toml.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Shard {
    /// The whole run as one shard.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Whether game pair `pair` belongs to this shard.
    pub fn has_pair(&self, pair: u64) -> bool {
        pair % u64::from(self.count) == u64::from(self.index)
    }

    /// The shard's `k`-th game pair (counted from 0) in the whole schedule.
    pub fn nth_pair(&self, k: u64) -> u64 {
        u64::from(self.index) + k * u64::from(self.count)
    }

    /// The shard's results file name.
    pub fn file_name(&self) -> String {
        format!("shard-{}-of-{}.jsonl", self.index, self.count)
    }

    /// `I/N`, as on the command line.
    pub fn label(&self) -> String {
        format!("{}/{}", self.index, self.count)
    }

    /// The name of the shard's results while it is being played.
    pub fn part_name(&self) -> String {
        format!("{}.part", self.file_name())
    }

    /// The name of the sidecar that records the shard's config hash.
    pub fn meta_name(&self) -> String {
        format!("shard-{}-of-{}.meta.json", self.index, self.count)
    }

    /// Game pairs of this shard among `pairs` pairs.
    pub fn pairs_of(&self, pairs: u64) -> u64 {
        let (i, n) = (u64::from(self.index), u64::from(self.count));
        if pairs > i {
            (pairs - i).div_ceil(n)
        } else {
            0
        }
    }
}

/// The shard's results while it is being played (`shards/shard-I-of-N.jsonl.part`).
pub fn part_file(out_dir: &Path, shard: Shard) -> PathBuf {
    out_dir.join(SHARDS_DIR).join(shard.part_name())
}

/// The shard's config sidecar (`shards/shard-I-of-N.meta.json`).
pub fn meta_file(out_dir: &Path, shard: Shard) -> PathBuf {
    out_dir.join(SHARDS_DIR).join(shard.meta_name())
}

/// What `shard-I-of-N.meta.json` holds: enough to tell which run a shard belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardMeta {
    /// This shard, `0..count`.
    pub index: u32,
    /// Number of shards of the run.
    pub count: u32,
    /// SHA-256 of the run's resolved config (`run.toml`).
    pub config_sha256: String,
    /// Games this shard plays.
    pub games: u64,
    /// The arena version that wrote it (for readers; not compared).
    pub arena_version: String,
}

/// Reads a shard's sidecar, if there is one.
pub fn read_meta(path: &Path) -> Result<Option<ShardMeta>, RunError> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(RunError::Io {
                path: path.display().to_string(),
                source,
            });
        }
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| RunError::Input(format!("{}: not a shard sidecar ({e})", path.display())))
}

/// Writes (atomically) the shard's sidecar; refuses if one from another config is there.
pub fn write_meta(out_dir: &Path, meta: &ShardMeta) -> Result<(), RunError> {
    let shard = Shard {
        index: meta.index,
        count: meta.count,
    };
    let path = meta_file(out_dir, shard);
    if let Some(old) = read_meta(&path)?
        && old.config_sha256 != meta.config_sha256
    {
        return Err(RunError::Input(format!(
            "{}: shard {} was started from another config (sha256 {}, this one {}); \
             use another --out",
            path.display(),
            shard.label(),
            short(&old.config_sha256),
            short(&meta.config_sha256)
        )));
    }
    let text = serde_json::to_string_pretty(meta).expect("a shard sidecar serialises");
    write_text(&path, &(text + "\n"))
}

/// The first 12 hex digits of a hash, for messages.
pub fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

/// A file in `shards/` and what its name says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardFile {
    /// The shard the name claims.
    pub shard: Shard,
    /// What kind of file it is.
    pub kind: ShardFileKind,
    /// Its path.
    pub path: PathBuf,
}

/// The kinds of file a shard leaves in `shards/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ShardFileKind {
    /// `shard-I-of-N.jsonl`: every game of the shard.
    Complete,
    /// `shard-I-of-N.jsonl.part`: still being played (or interrupted).
    Part,
    /// `shard-I-of-N.meta.json`: the config hash.
    Meta,
}

/// Parses a shard file name: `shard-I-of-N.jsonl`, `.jsonl.part` or `.meta.json`. The
/// shard may be out of range (`I >= N`): callers report it.
pub fn parse_file_name(name: &str) -> Option<(u32, u32, ShardFileKind)> {
    let rest = name.strip_prefix("shard-")?;
    let (stem, kind) = if let Some(s) = rest.strip_suffix(".jsonl.part") {
        (s, ShardFileKind::Part)
    } else if let Some(s) = rest.strip_suffix(".jsonl") {
        (s, ShardFileKind::Complete)
    } else if let Some(s) = rest.strip_suffix(".meta.json") {
        (s, ShardFileKind::Meta)
    } else {
        return None;
    };
    let (i, n) = stem.split_once("-of-")?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(i) || !digits(n) {
        return None;
    }
    Some((i.parse().ok()?, n.parse().ok()?, kind))
}

/// Every shard file in `out_dir/shards` (none if the folder does not exist), sorted by
/// count, index and kind. Temporary files and other names are left out.
pub fn list_files(out_dir: &Path) -> Result<Vec<ShardFile>, RunError> {
    let dir = out_dir.join(SHARDS_DIR);
    let entries = match fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(RunError::Io {
                path: dir.display().to_string(),
                source,
            });
        }
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| RunError::Io {
            path: dir.display().to_string(),
            source,
        })?;
        let name = entry.file_name();
        let Some((index, count, kind)) = name.to_str().and_then(parse_file_name) else {
            continue;
        };
        files.push(ShardFile {
            shard: Shard { index, count },
            kind,
            path: entry.path(),
        });
    }
    files.sort_by_key(|f| (f.shard.count, f.shard.index, f.kind));
    Ok(files)
}

/// Refuses to start shard `shard` in a folder that holds shards of another split: their
/// game pairs overlap, and the merge could not use both.
pub fn check_same_split(out_dir: &Path, shard: Shard) -> Result<(), RunError> {
    if let Some(other) = list_files(out_dir)?
        .into_iter()
        .find(|f| f.shard.count != shard.count)
    {
        return Err(RunError::Input(format!(
            "{} splits this run into {} shards, this is shard {} of a {}-way split: pass \
             --shards {} (or --shard I/{}), or use another --out",
            other.path.display(),
            other.shard.count,
            shard.label(),
            shard.count,
            other.shard.count,
            other.shard.count
        )));
    }
    Ok(())
}

/// Where the shard's results go and in which state they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardFiles {
    /// The file to read and append to: the `.part` file, or the complete file when the
    /// shard is already complete.
    pub current: PathBuf,
    /// The complete file's name.
    pub complete: PathBuf,
    /// Whether the shard is already complete.
    pub is_complete: bool,
}

/// Finds the shard's results; refuses when both the `.part` and the complete file exist
/// (one of them was copied in by hand, and which one holds the truth is unclear).
pub fn locate(out_dir: &Path, shard: Shard) -> Result<ShardFiles, RunError> {
    let complete = results_file(out_dir, Some(shard));
    let part = part_file(out_dir, shard);
    let is_complete = complete.exists();
    if is_complete && part.exists() {
        return Err(RunError::Input(format!(
            "shard {} is there twice: {} and {}; keep one",
            shard.label(),
            complete.display(),
            part.display()
        )));
    }
    Ok(ShardFiles {
        current: if is_complete { complete.clone() } else { part },
        complete,
        is_complete,
    })
}

/// Marks a shard complete: renames its `.part` file to the complete name (and makes the
/// rename durable).
pub fn mark_complete(files: &ShardFiles) -> Result<(), RunError> {
    if files.is_complete {
        return Ok(());
    }
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| RunError::Io { path, source }
    };
    // The games are already synced one by one; create the file if the shard has none.
    crate::files::open_regular(
        &files.current,
        fs::OpenOptions::new().create(true).append(true),
    )
    .and_then(|f| f.sync_all())
    .map_err(io(&files.current))?;
    fs::rename(&files.current, &files.complete).map_err(io(&files.complete))?;
    if let Some(dir) = files.complete.parent() {
        // A directory fsync makes the rename survive a crash; not every file system
        // allows opening a directory, and then the rename is as durable as it gets.
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// The shard a process plays, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardChoice {
    /// The shard.
    pub shard: Shard,
    /// Where it came from, e.g. `SLURM_ARRAY_TASK_ID=3, SLURM_ARRAY_TASK_COUNT=64`.
    pub reason: String,
}

/// The shard a scheduler asks for, from its environment variables (`env` looks one up).
///
/// Consulted in order: `SLURM_ARRAY_TASK_ID` (count from `shards`, else from
/// `SLURM_ARRAY_TASK_COUNT`, else from `SLURM_ARRAY_TASK_MIN`/`MAX`; without `shards` the
/// array must be `0..N-1`, because a partial resubmission such as `--array=3,17` says
/// nothing of the run's shard count), `JOB_COMPLETION_INDEX` (a Kubernetes Indexed Job;
/// count from `shards`), `PARALLEL_SEQ` (GNU parallel, 1-based; count from `shards`).
/// With none of them set: `None`, unless `shards` was given, which is then an error.
/// Errors are one line, for the user.
pub fn choose_from_env(
    env: &dyn Fn(&str) -> Option<String>,
    shards: Option<u32>,
) -> Result<Option<ShardChoice>, String> {
    let get = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let number = |name: &str| -> Result<Option<u32>, String> {
        get(name)
            .map(|v| {
                v.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("{name}='{v}' is not a shard number"))
            })
            .transpose()
    };
    if shards == Some(0) {
        return Err("--shards: must be at least 1".into());
    }
    let with_count = |index: u32, n: u32, what: String| -> Result<Option<ShardChoice>, String> {
        if index >= n {
            return Err(format!(
                "{what} is not a shard of {n} (shards are numbered 0 to {})",
                n - 1
            ));
        }
        Ok(Some(ShardChoice {
            shard: Shard { index, count: n },
            reason: what,
        }))
    };
    if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        if let Some(n) = shards {
            return with_count(id, n, format!("SLURM_ARRAY_TASK_ID={id}, --shards {n}"));
        }
        let (count, min, max) = (
            number("SLURM_ARRAY_TASK_COUNT")?,
            number("SLURM_ARRAY_TASK_MIN")?,
            number("SLURM_ARRAY_TASK_MAX")?,
        );
        let (n, what) = match (count, min, max) {
            (Some(c), ..) => (c, format!("SLURM_ARRAY_TASK_COUNT={c}")),
            (None, Some(lo), Some(hi)) if hi >= lo => (
                hi - lo + 1,
                format!("SLURM_ARRAY_TASK_MIN={lo}, SLURM_ARRAY_TASK_MAX={hi}"),
            ),
            _ => {
                return Err(format!(
                    "SLURM_ARRAY_TASK_ID={id} is set but not SLURM_ARRAY_TASK_COUNT (nor \
                     SLURM_ARRAY_TASK_MIN/MAX): pass --shards N"
                ));
            }
        };
        if n == 0 {
            return Err("SLURM_ARRAY_TASK_COUNT=0: pass --shards N".into());
        }
        let contiguous = min.is_none_or(|lo| lo == 0) && max.is_none_or(|hi| hi + 1 == n);
        if !contiguous {
            return Err(format!(
                "the Slurm array runs ids {}..{} ({n} tasks), not 0..{}: the shard count is \
                 unclear; pass --shards N, the run's shard count (needed when resubmitting \
                 some shards, e.g. --array=3,17)",
                min.map_or("?".into(), |v| v.to_string()),
                max.map_or("?".into(), |v| v.to_string()),
                n - 1
            ));
        }
        return with_count(id, n, format!("SLURM_ARRAY_TASK_ID={id}, {what}"));
    }
    let needs_count = |what: String| {
        format!("{what} is set but not the shard count: pass --shards N ({what} picks the shard)")
    };
    if let Some(i) = number("JOB_COMPLETION_INDEX")? {
        let what = format!("JOB_COMPLETION_INDEX={i}");
        return match shards {
            Some(n) => with_count(i, n, format!("{what}, --shards {n}")),
            None => Err(needs_count(format!("{what} (a Kubernetes Indexed Job)"))),
        };
    }
    if let Some(seq) = number("PARALLEL_SEQ")? {
        let what = format!("PARALLEL_SEQ={seq}");
        if seq == 0 {
            return Err(format!("{what}: GNU parallel counts jobs from 1"));
        }
        return match shards {
            Some(n) => with_count(seq - 1, n, format!("{what} (1-based), --shards {n}")),
            None => Err(needs_count(format!("{what} (GNU parallel)"))),
        };
    }
    match shards {
        Some(n) => Err(format!(
            "--shards {n} needs a shard index from SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX \
             or PARALLEL_SEQ, and none is set (or choose one with --shard I/{n})"
        )),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn choose(vars: &[(&str, &str)], shards: Option<u32>) -> Result<Option<Shard>, String> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        choose_from_env(&|k| map.get(k).cloned(), shards).map(|c| c.map(|c| c.shard))
    }

    fn shard(index: u32, count: u32) -> Option<Shard> {
        Some(Shard { index, count })
    }

    #[test]
    fn slurm_arrays() {
        let id3 = ("SLURM_ARRAY_TASK_ID", "3");
        assert_eq!(
            choose(&[id3, ("SLURM_ARRAY_TASK_COUNT", "64")], None),
            Ok(shard(3, 64))
        );
        assert_eq!(
            choose(
                &[
                    id3,
                    ("SLURM_ARRAY_TASK_MIN", "0"),
                    ("SLURM_ARRAY_TASK_MAX", "7")
                ],
                None
            ),
            Ok(shard(3, 8))
        );
        // A resubmission of failed shards: the array's own count is not the run's.
        let resubmitted = [
            ("SLURM_ARRAY_TASK_ID", "17"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
            ("SLURM_ARRAY_TASK_MIN", "3"),
            ("SLURM_ARRAY_TASK_MAX", "17"),
        ];
        let e = choose(&resubmitted, None).unwrap_err();
        assert!(e.contains("--shards N"), "{e}");
        assert_eq!(choose(&resubmitted, Some(64)), Ok(shard(17, 64)));
        // 1-based arrays are refused rather than shifted.
        let e = choose(
            &[
                ("SLURM_ARRAY_TASK_ID", "4"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "4"),
            ],
            None,
        )
        .unwrap_err();
        assert!(e.contains("1..4"), "{e}");
        assert!(
            choose(&[id3], None)
                .unwrap_err()
                .contains("SLURM_ARRAY_TASK_COUNT")
        );
        assert!(choose(&[id3], Some(3)).unwrap_err().contains("0 to 2"));
        assert!(
            choose(
                &[
                    ("SLURM_ARRAY_TASK_ID", "x"),
                    ("SLURM_ARRAY_TASK_COUNT", "4")
                ],
                None
            )
            .unwrap_err()
            .contains("'x'")
        );
    }

    #[test]
    fn kubernetes_and_gnu_parallel() {
        assert_eq!(
            choose(&[("JOB_COMPLETION_INDEX", "0")], Some(4)),
            Ok(shard(0, 4))
        );
        assert!(choose(&[("JOB_COMPLETION_INDEX", "0")], None).is_err());
        assert_eq!(choose(&[("PARALLEL_SEQ", "1")], Some(3)), Ok(shard(0, 3)));
        assert_eq!(choose(&[("PARALLEL_SEQ", "3")], Some(3)), Ok(shard(2, 3)));
        assert!(choose(&[("PARALLEL_SEQ", "4")], Some(3)).is_err());
        assert!(choose(&[("PARALLEL_SEQ", "0")], Some(3)).is_err());
        // Slurm comes first when several are set.
        assert_eq!(
            choose(
                &[("SLURM_ARRAY_TASK_ID", "1"), ("PARALLEL_SEQ", "1")],
                Some(2)
            ),
            Ok(shard(1, 2))
        );
    }

    #[test]
    fn nothing_set_means_the_whole_run() {
        assert_eq!(choose(&[], None), Ok(None));
        assert_eq!(choose(&[("SLURM_ARRAY_TASK_ID", " ")], None), Ok(None));
        assert!(choose(&[], Some(4)).unwrap_err().contains("--shard I/4"));
        assert!(choose(&[], Some(0)).is_err());
    }

    #[test]
    fn shard_sizes_add_up() {
        for pairs in 0..40u64 {
            for count in 1..10u32 {
                let sum: u64 = (0..count)
                    .map(|index| Shard { index, count }.pairs_of(pairs))
                    .sum();
                assert_eq!(sum, pairs);
                for index in 0..count {
                    let s = Shard { index, count };
                    let direct = (0..pairs).filter(|&p| s.has_pair(p)).count() as u64;
                    assert_eq!(s.pairs_of(pairs), direct);
                }
            }
        }
    }

    #[test]
    fn file_names() {
        let s = Shard {
            index: 3,
            count: 64,
        };
        for name in [s.file_name(), s.part_name(), s.meta_name()] {
            let (i, n, _) = parse_file_name(&name).unwrap();
            assert_eq!((i, n), (3, 64), "{name}");
        }
        assert_eq!(
            parse_file_name("shard-1-of-4.jsonl.part").map(|p| p.2),
            Some(ShardFileKind::Part)
        );
        assert_eq!(parse_file_name("shard-1-of-4.jsonl.tmp"), None);
        assert_eq!(parse_file_name(".shard-1-of-4.meta.json.123.tmp"), None);
        assert_eq!(parse_file_name("shard--of-4.jsonl"), None);
        assert_eq!(parse_file_name("shard-+1-of-4.jsonl"), None);
    }

    #[test]
    fn config_hash_is_sha256() {
        assert_eq!(
            config_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
