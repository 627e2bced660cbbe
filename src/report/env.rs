//! The environment a run was played in: arena's version, the OS, the CPU, cores, worker
//! threads and the date. A run records it as `environment.json` in its results folder
//! (the report it writes at its end does), so a report made later, maybe elsewhere, still
//! describes the machine that played the games; without that file the report describes
//! the machine writing it, and says so.

use std::{
    path::Path,
    time::{SystemTime, UNIX_EPOCH},
};

use serde::{Deserialize, Serialize};

use super::{ReportError, write_atomic};

/// Where and with what a run was played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    /// arena's version (`CARGO_PKG_VERSION`).
    pub arena_version: String,
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
            os: os_name(),
            cpu: cpu_model(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            threads,
            date: utc_date(SystemTime::now()),
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

/// `YYYY-MM-DD HH:MM UTC` for a time (no time-zone database needed).
pub(crate) fn utc_date(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        (rem % 3600) / 60
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn dates_known_answers() {
        assert_eq!(utc_date(UNIX_EPOCH), "1970-01-01 00:00 UTC");
        // 2000-02-29 12:34 UTC: a leap day in a century leap year.
        let t = UNIX_EPOCH + Duration::from_secs(951_827_640);
        assert_eq!(utc_date(t), "2000-02-29 12:34 UTC");
        // 2024-12-31 23:59 UTC.
        let t = UNIX_EPOCH + Duration::from_secs(1_735_689_540);
        assert_eq!(utc_date(t), "2024-12-31 23:59 UTC");
    }
}
