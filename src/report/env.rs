//! The environment a run was played in: arena's version (and the git commit it was built
//! from, when it was built from a checkout), the OS, the CPU, cores, worker
//! threads and the date. A run records it as `environment.json` in its results folder
//! (the report it writes at its end does), so a report made later, maybe elsewhere, still
//! describes the machine that played the games; without that file the report describes
//! the machine writing it, and says so.

use std::{path::Path, time::SystemTime};

use serde::{Deserialize, Serialize};

use super::{ReportError, write_atomic};

/// Where and with what a run was played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    /// arena's version (`CARGO_PKG_VERSION`).
    pub arena_version: String,
    /// The git commit arena was built from (see `build.rs`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena_commit: Option<String>,
    /// Operating system (`PRETTY_NAME` of `/etc/os-release` when readable) and architecture.
    pub os: String,
    /// CPU model from `/proc/cpuinfo`, when readable.
    pub cpu: Option<String>,
    /// Logical cores available to the process.
    pub cores: usize,
    /// Worker threads the run used, when known.
    pub threads: Option<usize>,
    /// When the run finished (UTC, `YYYY-MM-DD HH:MM UTC`).
    pub date: String,
    /// True when this describes the machine that played the games; false when it only
    /// describes the machine that wrote the report.
    pub recorded_by_run: bool,
}

const FILE: &str = "environment.json";

impl Environment {
    /// This machine, now.
    pub fn current(threads: Option<usize>) -> Environment {
        Environment {
            arena_version: env!("CARGO_PKG_VERSION").to_string(),
            arena_commit: option_env!("ARENA_GIT_COMMIT").map(str::to_string),
            os: os_name(),
            cpu: cpu_model(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            threads,
            date: crate::utc::date_time(SystemTime::now()),
            recorded_by_run: threads.is_some(),
        }
    }
}

/// The environment to show in the report of `dir`; a run (`run_threads` set) records it.
pub(crate) fn for_report(
    dir: &Path,
    run_threads: Option<usize>,
) -> Result<Environment, ReportError> {
    let path = dir.join(FILE);
    if run_threads.is_some() {
        let env = Environment::current(run_threads);
        let json = serde_json::to_string_pretty(&env).expect("an environment serialises");
        write_atomic(&path, (json + "\n").as_bytes())?;
        return Ok(env);
    }
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            ReportError::input(
                format!("{}:{}", path.display(), e.line()),
                format!("not an environment record ({e}); delete it to describe this machine"),
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Environment::current(None)),
        Err(e) => Err(ReportError::io(&path, e)),
    }
}

fn os_name() -> String {
    let pretty = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim().trim_matches('"').to_string())
        })
        .filter(|s| !s.is_empty());
    let arch = std::env::consts::ARCH;
    match pretty {
        Some(p) => format!("{p} ({}, {arch})", std::env::consts::OS),
        None => format!("{} ({arch})", std::env::consts::OS),
    }
}

fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find_map(|l| {
            let (key, value) = l.split_once(':')?;
            matches!(
                key.trim(),
                "model name" | "Model" | "Hardware" | "cpu model"
            )
            .then(|| value.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .filter(|s| !s.is_empty())
}
