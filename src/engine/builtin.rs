//! The configs shipped in `configs/`, embedded in the binary so `arena bench` and the
//! tests work from any folder. The files on disk stay the ones users copy and edit.

use std::path::{Component, Path, PathBuf};

use super::EngineConfig;
use crate::config::ConfigError;

/// (path relative to the repository root, contents).
pub const FILES: &[(&str, &str)] = &[
    (
        "configs/engines/gomoku-seed000-threat.toml",
        include_str!("../../configs/engines/gomoku-seed000-threat.toml"),
    ),
    (
        "configs/engines/gomoku-seed000-none.toml",
        include_str!("../../configs/engines/gomoku-seed000-none.toml"),
    ),
    (
        "configs/engines/gomoku-seed001-topk.toml",
        include_str!("../../configs/engines/gomoku-seed001-topk.toml"),
    ),
    (
        "configs/engines/gomoku-seed003-threat.toml",
        include_str!("../../configs/engines/gomoku-seed003-threat.toml"),
    ),
    (
        "configs/engines/gomoku-seed003-static.toml",
        include_str!("../../configs/engines/gomoku-seed003-static.toml"),
    ),
    (
        "configs/engines/gomoku-seed003-none.toml",
        include_str!("../../configs/engines/gomoku-seed003-none.toml"),
    ),
    (
        "configs/engines/gomoku-modern.toml",
        include_str!("../../configs/engines/gomoku-modern.toml"),
    ),
    (
        "configs/engines/ataxx-seed004.toml",
        include_str!("../../configs/engines/ataxx-seed004.toml"),
    ),
    (
        "configs/engines/ataxx-rich.toml",
        include_str!("../../configs/engines/ataxx-rich.toml"),
    ),
    (
        "configs/engines/ataxx-modern.toml",
        include_str!("../../configs/engines/ataxx-modern.toml"),
    ),
    (
        "configs/engines/tictactoe-perfect.toml",
        include_str!("../../configs/engines/tictactoe-perfect.toml"),
    ),
    (
        "configs/tables/gomoku/seed000.toml",
        include_str!("../../configs/tables/gomoku/seed000.toml"),
    ),
    (
        "configs/tables/gomoku/seed001.toml",
        include_str!("../../configs/tables/gomoku/seed001.toml"),
    ),
    (
        "configs/tables/gomoku/seed003.toml",
        include_str!("../../configs/tables/gomoku/seed003.toml"),
    ),
    (
        "configs/tables/ataxx/seed004.toml",
        include_str!("../../configs/tables/ataxx/seed004.toml"),
    ),
    (
        "configs/tables/ataxx/rich.toml",
        include_str!("../../configs/tables/ataxx/rich.toml"),
    ),
    (
        "configs/tables/ataxx/rich-tempo.toml",
        include_str!("../../configs/tables/ataxx/rich-tempo.toml"),
    ),
];

/// `a/b/../c` → `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The embedded file at `path` (relative to the repository root, `..` allowed).
pub fn file(path: &Path) -> Option<&'static str> {
    let wanted = normalize(path);
    FILES
        .iter()
        .find(|(p, _)| Path::new(p) == wanted)
        .map(|&(_, text)| text)
}

/// An embedded engine config by file name (`gomoku-seed003-threat`), its table included.
pub fn engine(name: &str) -> Result<EngineConfig, ConfigError> {
    let path = format!("configs/engines/{name}.toml");
    let text =
        file(Path::new(&path)).ok_or_else(|| ConfigError::new(&path, "no such built-in engine"))?;
    EngineConfig::parse_with(&path, Path::new(&path), text, &|p: &Path| {
        file(p)
            .map(str::to_string)
            .ok_or_else(|| ConfigError::new(p.display().to_string(), "no such built-in file"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_engine_loads() {
        for (path, _) in FILES.iter().filter(|(p, _)| p.contains("/engines/")) {
            let name = Path::new(path).file_stem().unwrap().to_str().unwrap();
            let e = engine(name).unwrap_or_else(|e| panic!("{e}"));
            assert!(!e.name.is_empty());
        }
    }
}
