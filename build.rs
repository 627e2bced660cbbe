//! Records the git commit arena is built from, as `ARENA_GIT_COMMIT`, for the report's
//! environment section. Built outside a git checkout of arena (a crate archive) or
//! without git, there is none and the report gives the version alone; a packager may
//! set `ARENA_GIT_COMMIT` in the build's environment instead.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=ARENA_GIT_COMMIT");
    if let Some(given) = std::env::var("ARENA_GIT_COMMIT")
        .ok()
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
    {
        println!("cargo:rustc-env=ARENA_GIT_COMMIT={given}");
        return;
    }
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    // Only arena's own checkout: a copy of arena inside another project's repository
    // is not built from that project's commit.
    let top = git(&here, &["rev-parse", "--show-toplevel"]);
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !top.is_some_and(|t| same(Path::new(&t), &here)) {
        return;
    }
    let Some(commit) = git(&here, &["rev-parse", "HEAD"]) else {
        return;
    };
    // Built again when HEAD moves: HEAD itself, the branch it names, the packed refs.
    let dir = |args: &[&str]| git(&here, args).map(|d| here.join(d));
    if let (Some(git_dir), Some(common)) = (
        dir(&["rev-parse", "--git-dir"]),
        dir(&["rev-parse", "--git-common-dir"]),
    ) {
        watch(&git_dir.join("HEAD"));
        if let Ok(head) = std::fs::read_to_string(git_dir.join("HEAD"))
            && let Some(branch) = head.trim().strip_prefix("ref: ")
        {
            watch(&common.join(branch));
            watch(&git_dir.join(branch));
        }
        watch(&common.join("packed-refs"));
    }
    println!("cargo:rustc-env=ARENA_GIT_COMMIT={commit}");
}

/// Reruns the build script when `path` changes (only paths that exist: cargo would
/// rerun it on every build for one that does not).
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

/// `git ARGS` in `dir`: its trimmed output, or `None` when git is missing or fails.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!text.is_empty()).then_some(text)
}
