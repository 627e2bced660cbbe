//! The scaling files of a sweep (`arena sweep`): each pairing's Elo against the swept
//! value as `scaling.csv`, `scaling.md` and the plot `scaling.svg`, from the summaries
//! of its points. Like every report, written through a temporary name and a rename.

use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
};

use super::{
    ReportError,
    charts::{self, ScalingSeries},
};
use crate::tournament::Summary;

/// What [`write_scaling`] wrote, and the table as Markdown (to print).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalingFiles {
    /// `scaling.csv`: one row per (pairing, value).
    pub csv: PathBuf,
    /// `scaling.md`: the same table in Markdown.
    pub markdown: PathBuf,
    /// `scaling.svg`: each pairing's Elo with its 95 % interval against the value.
    pub svg: PathBuf,
    /// The Markdown table itself.
    pub table: String,
}

/// Writes the scaling files of a sweep over `key` into `out`, from each point's value
/// and summary in the order of the sweep.
pub fn write_scaling(
    out: &Path,
    key: &str,
    summaries: &[(String, Summary)],
) -> Result<ScalingFiles, ReportError> {
    let (csv, table) = scaling_table(key, summaries);
    let svg = charts::scaling_svg(key, &series(summaries))?;
    let files = ScalingFiles {
        csv: out.join("scaling.csv"),
        markdown: out.join("scaling.md"),
        svg: out.join("scaling.svg"),
        table,
    };
    for (path, text) in [
        (&files.csv, &csv),
        (&files.markdown, &files.table),
        (&files.svg, &svg),
    ] {
        crate::files::write_atomic(path, text.as_bytes(), true)
            .map_err(|e| ReportError::io(path, e.error))?;
    }
    Ok(files)
}

/// Each pairing's (value, Elo, low, high) for the plot: values that are not numbers are
/// placed by their order.
fn series(summaries: &[(String, Summary)]) -> Vec<ScalingSeries> {
    let pairings = summaries.first().map_or(0, |(_, s)| s.pairings.len());
    (0..pairings)
        .map(|i| {
            let label = summaries[0].1.pairings[i].names.join(" vs ");
            let points = summaries
                .iter()
                .enumerate()
                .filter_map(|(k, (v, s))| {
                    let e = s.pairings.get(i)?.estimate?;
                    Some((v.parse().unwrap_or(k as f64), e.elo, e.elo_low, e.elo_high))
                })
                .collect();
            (label, points)
        })
        .collect()
}

/// The scaling table: one row per (pairing, value), as CSV and as Markdown.
fn scaling_table(key: &str, summaries: &[(String, Summary)]) -> (String, String) {
    let mut csv = format!("pairing,{key},games,elo,elo_low,elo_high,nelo,nelo_error,los\n");
    let mut md = format!(
        "# Elo against {key}\n\nFirst engine's view, 95 % intervals; every point plays the \
         same openings.\n\n| pairing | {key} | games | Elo [95 %] | nElo | LOS |\n|---|---:|---:|---|---|---:|\n"
    );
    let number = |x: f64| {
        if x.is_finite() {
            format!("{x:.1}")
        } else if x.is_nan() {
            // Unknown (nElo from too few pairs): an empty cell, as for no games.
            String::new()
        } else if x > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    };
    let pairings = summaries.first().map_or(0, |(_, s)| s.pairings.len());
    for i in 0..pairings {
        for (v, s) in summaries {
            let Some(p) = s.pairings.get(i) else { continue };
            let label = format!("{} vs {}", p.names[0], p.names[1]);
            let cells = match &p.estimate {
                Some(e) => vec![
                    p.wdl.games().to_string(),
                    number(e.elo),
                    number(e.elo_low),
                    number(e.elo_high),
                    number(e.nelo),
                    number(e.nelo_error),
                    format!("{:.4}", e.los),
                ],
                None => vec![
                    "0".into(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ],
            };
            let _ = writeln!(csv, "{label},{v},{}", cells.join(","));
            let _ = match p.estimate {
                Some(e) => writeln!(
                    md,
                    "| {label} | {v} | {} | {} [{}, {}] | {} ± {} | {:.1} % |",
                    cells[0],
                    cells[1],
                    cells[2],
                    cells[3],
                    cells[4],
                    cells[5],
                    100.0 * e.los
                ),
                None => writeln!(md, "| {label} | {v} | 0 | - | - | - |"),
            };
        }
    }
    (csv, md)
}
