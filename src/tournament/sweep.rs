//! What a sweep (`arena sweep`: one tournament per value of a setting) keeps in its
//! folder besides its points: the folder name of each point, kept inside the sweep's
//! folder whatever the value, the claim `sweep.toml` that refuses a second sweep into
//! the same folder, and which engines take the swept setting. The scaling files are the
//! report layer's ([`crate::report::write_scaling`]).

use std::path::{Path, PathBuf};

use crate::{jobs::folder::first_difference, protocol::EngineSpec};

/// The folder name of the point `key` = `value` inside the sweep's folder: `KEY=VALUE`,
/// with `/`, `\`, `%`, control characters and a leading dot written as `%XX` (their
/// UTF-8 bytes), so that no value (`../../x`, an option's path) names a folder outside
/// the sweep's or a hidden one, and two values never share a folder.
pub fn point_folder(key: &str, value: &str) -> String {
    let mut name = String::new();
    for (i, c) in format!("{key}={value}").char_indices() {
        if matches!(c, '/' | '\\' | '%') || c.is_control() || (i == 0 && c == '.') {
            let mut bytes = [0; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                name.push_str(&format!("%{b:02X}"));
            }
        } else {
            name.push(c);
        }
    }
    name
}

/// What `sweep.toml` records of a sweep: its config and its `--over`, so that a second
/// sweep into the same folder is refused and a resume is the same sweep.
pub const SWEEP_FILE: &str = "sweep.toml";

/// Why a folder cannot take a sweep.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// The folder holds a sweep and this is not a resume.
    #[error("{} already holds a sweep ({over}): add --resume to continue it, or choose another --out", folder.display())]
    Held {
        /// The sweep's folder.
        folder: PathBuf,
        /// The `over = ...` line of the sweep it holds.
        over: String,
    },
    /// A resume of another sweep (another config or `--over`).
    #[error("{}: made by another sweep ({difference}); --resume continues only the same sweep (the same config and --over)", file.display())]
    Other {
        /// `sweep.toml`.
        file: PathBuf,
        /// The first line that differs.
        difference: String,
    },
    /// Reading or writing `sweep.toml` failed.
    #[error("{}: {source}", file.display())]
    Io {
        /// `sweep.toml`.
        file: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
}

/// Refuses a folder that holds another sweep (or, without `resume`, any sweep), then
/// records this one: the config's name and `key=V1,V2,...`.
pub fn claim_sweep(
    out: &Path,
    config_name: &str,
    key: &str,
    values: &[&str],
    resume: bool,
) -> Result<(), SweepError> {
    let mut record = toml::Table::new();
    record.insert("config".into(), config_name.into());
    record.insert("over".into(), format!("{key}={}", values.join(",")).into());
    let text = toml::to_string(&record).expect("a sweep record serialises");
    let path = out.join(SWEEP_FILE);
    match std::fs::read(&path) {
        Ok(old) if !resume => Err(SweepError::Held {
            folder: out.to_path_buf(),
            over: String::from_utf8_lossy(&old)
                .lines()
                .find(|l| l.starts_with("over"))
                .unwrap_or("")
                .trim()
                .to_string(),
        }),
        Ok(old) if old != text.as_bytes() => Err(SweepError::Other {
            difference: first_difference(&String::from_utf8_lossy(&old), &text),
            file: path,
        }),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            crate::files::write_atomic(&path, text.as_bytes(), true).map_err(|e| SweepError::Io {
                file: path.clone(),
                source: e.error,
            })
        }
        Err(source) => Err(SweepError::Io { file: path, source }),
    }
}

/// Whether a sweep over `key` sets it on `spec`: a built-in engine has every parameter
/// but an outside engine's option (its own errors name a missing one); an outside engine
/// has its options and its limits and waits.
pub fn has_parameter(spec: &EngineSpec, key: &str) -> bool {
    match spec {
        EngineSpec::Builtin(_) => !key.starts_with("option."),
        EngineSpec::External(_) => {
            key.starts_with("option.")
                || matches!(
                    key.strip_prefix("search.").unwrap_or(key),
                    "depth" | "nodes" | "movetime_ms" | "tc"
                )
                || matches!(key, "tolerance_ms" | "reply_timeout_ms" | "restart")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::point_folder;

    #[test]
    fn point_folders_stay_inside_the_sweep() {
        assert_eq!(point_folder("search.depth", "3"), "search.depth=3");
        assert_eq!(
            point_folder("option.foo", "../../../pwn1"),
            "option.foo=..%2F..%2F..%2Fpwn1"
        );
        assert_eq!(
            point_folder("option.f", "a\\b%2F\n"),
            "option.f=a%5Cb%252F%0A"
        );
        assert_ne!(
            point_folder("option.f", "%2F"),
            point_folder("option.f", "/")
        );
    }
}
