//! Reports: turns a run's results folder into something to look at. It reads `run.toml`,
//! `summary.json` and `games.jsonl` (or, for a tuning run, `trajectory.csv`, `tune.json`
//! and the verification match in `verification/`) and writes `report.html` (one
//! self-contained file: plots inline as SVG, tables, the exact config, the environment),
//! `report.md` (the same tables, plots linked as `plots/*.svg`) and `plots/*.svg` +
//! `plots/*.png`. The console summary ([`summary_text`]) is a third rendering of the same
//! summary, with the figures it shares with `report.md` written by the same functions.
//!
//! This layer knows the results' file formats and nothing of how games are played: it
//! never runs an engine and never recomputes a rating. Every file is written through a
//! temporary name and a rename, so a failed report never leaves a half-written file and
//! never touches the results themselves.

mod charts;
mod console;
mod doc;
mod env;
mod html;
mod load;
mod markdown;
mod raster;
mod ratings;
mod scaling;
mod text;
mod tuning;
mod viewer;

use std::path::{Path, PathBuf};

use self::{charts::Rendered, load::Tour, tuning::Tune};
pub use self::{
    charts::ScalingSeries,
    console::summary_text,
    env::Environment,
    ratings::{RatingReport, write_rating_list},
    scaling::{ScalingFiles, write_scaling},
    text::rate,
};
pub use crate::stats::branching::effective_branching_factor;

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Reading or writing a file failed (the machine's fault, not the input's).
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// A results file is missing or is not what it should be.
    #[error("{path}: {message}")]
    Input {
        /// The file, with `:line` when one line is at fault.
        path: String,
        /// What is wrong, and how to fix it when we know.
        message: String,
    },
    /// Drawing a plot failed.
    #[error("plot {name}: {message}")]
    Plot {
        /// The plot's file stem.
        name: String,
        /// The drawing backend's error.
        message: String,
    },
}

impl ReportError {
    pub(crate) fn input(path: impl AsRef<Path>, message: impl Into<String>) -> ReportError {
        ReportError::Input {
            path: path.as_ref().display().to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn io(path: impl AsRef<Path>, source: std::io::Error) -> ReportError {
        // A link or a special file where the report keeps its own is bad input.
        if crate::files::is_refusal(&source) {
            return ReportError::input(path, source.to_string());
        }
        ReportError::Io {
            path: path.as_ref().display().to_string(),
            source,
        }
    }
}

/// What [`write_report`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportFiles {
    /// `report.html`: one self-contained page.
    pub html: PathBuf,
    /// `report.md`: tables, plots linked from `plots/`.
    pub markdown: PathBuf,
    /// Every plot written, SVG and PNG.
    pub plots: Vec<PathBuf>,
}

/// How a report is made.
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    /// Set by a run that just played the results' games on this machine: the worker
    /// threads it used. The report then records this machine as the run's environment
    /// (`environment.json`), which later reports of the same folder show.
    pub run_threads: Option<usize>,
    /// Set by `arena report --live`: the page reloads itself every this many seconds
    /// (the report is being rewritten while the job runs).
    pub refresh_s: Option<u64>,
    /// Set when the process writing the report writes the results too (a run at its
    /// end, `arena stats` under the folder's lock): a live holder line in the folder's
    /// lock files is its own, not another arena still playing.
    pub by_writer: bool,
}

/// Writes the report of the results folder `dir` (a tournament, or a tuning run when
/// `dir` holds `trajectory.csv` and `tune.json`).
pub fn write_report(dir: &Path) -> Result<ReportFiles, ReportError> {
    write_report_with(dir, &ReportOptions::default())
}

/// [`write_report`] with options.
pub fn write_report_with(dir: &Path, options: &ReportOptions) -> Result<ReportFiles, ReportError> {
    if !dir.is_dir() {
        return Err(ReportError::input(dir, "no such results folder"));
    }
    let environment = env::for_report(dir, options.run_threads)?;
    let is_tuning = ["trajectory.csv", "tune.json", "fit.json"]
        .iter()
        .any(|f| dir.join(f).exists());
    if is_tuning {
        let tune = Tune::load(dir)?;
        let verification = dir.join("verification");
        let verification = if verification.join("summary.json").exists() {
            Some(Tour::load(&verification, options.by_writer)?)
        } else {
            None
        };
        let mut plots = charts::render_tuning(&tune)?;
        if let Some(v) = &verification {
            plots.extend(charts::render_tournament(v, "verification-")?);
        }
        let doc = doc::tuning(&tune, verification.as_ref(), &environment);
        write_all(dir, &doc, &plots, options.refresh_s)
    } else {
        let tour = Tour::load(dir, options.by_writer)?;
        let plots = charts::render_tournament(&tour, "")?;
        let doc = doc::tournament(&tour, &environment);
        write_all(dir, &doc, &plots, options.refresh_s)
    }
}

fn write_all(
    dir: &Path,
    doc: &doc::Doc,
    plots: &[Rendered],
    refresh_s: Option<u64>,
) -> Result<ReportFiles, ReportError> {
    let page = html::render(doc, plots, refresh_s);
    let md = markdown::render(doc, plots);
    let plots_dir = dir.join("plots");
    crate::files::own_folder(&plots_dir).map_err(|e| ReportError::io(&plots_dir, e))?;
    let mut written = Vec::new();
    for plot in plots {
        let svg = plots_dir.join(format!("{}.svg", plot.name));
        write_atomic(&svg, plot.svg.as_bytes())?;
        let png = plots_dir.join(format!("{}.png", plot.name));
        write_atomic(&png, &plot.png)?;
        written.extend([svg, png]);
    }
    let markdown = dir.join("report.md");
    write_atomic(&markdown, md.as_bytes())?;
    let html = dir.join("report.html");
    write_atomic(&html, page.as_bytes())?;
    Ok(ReportFiles {
        html,
        markdown,
        plots: written,
    })
}

/// Writes through a temporary file and a rename: a reader sees the old file or the new
/// one, never half of one.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    crate::files::write_atomic(path, bytes, false).map_err(|e| ReportError::io(&e.path, e.error))
}
