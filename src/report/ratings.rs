//! The report of a rating list over several runs (`arena report DIR1 DIR2 ...`): the
//! list `arena stats DIR1 DIR2 ...` prints, as `report.html` and `report.md`, with
//! `ratings.csv` and `los.csv` for scripts, in a folder of its own.

use std::{fmt::Write as _, fs, path::Path};

use super::{
    ReportError, ReportFiles,
    doc::{Block, Doc},
    html, markdown, write_atomic,
};
use crate::{
    stats::{Anchor, rating_list::RatingList},
    tournament::pool::Pool,
};

/// The files a rating list's folder holds; `ratings.csv` marks the folder as one.
const FILES: [&str; 4] = ["report.html", "report.md", "ratings.csv", "los.csv"];

/// What the rating list's report shows: the pool of runs, its fitted list and the anchor
/// the list is relative to.
#[derive(Clone, Copy, Debug)]
pub struct RatingReport<'a> {
    /// The runs and their engines.
    pub pool: &'a Pool,
    /// The ratings (already on the anchor's scale).
    pub list: &'a RatingList,
    /// What the ratings are relative to.
    pub anchor: Anchor,
}

impl RatingReport<'_> {
    /// Engine indices by rating, best first (ties in the pool's order).
    pub fn order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.pool.names.len()).collect();
        order.sort_by(|&a, &b| {
            self.list.elo[b]
                .total_cmp(&self.list.elo[a])
                .then(a.cmp(&b))
        });
        order
    }
}

/// Writes the rating list's report into `out`: a folder that is not there yet, is empty,
/// or holds an earlier rating list's report (its files are replaced); any other folder
/// is refused, so that nothing of a user's or of a run's is overwritten.
pub fn write_rating_list(out: &Path, r: &RatingReport) -> Result<ReportFiles, ReportError> {
    check_out(out)?;
    crate::files::own_folder(out).map_err(|e| ReportError::io(out, e))?;
    let doc = document(r);
    let csv = ratings_csv(r);
    let los = los_csv(r);
    write_atomic(&out.join("ratings.csv"), csv.as_bytes())?;
    write_atomic(&out.join("los.csv"), los.as_bytes())?;
    let markdown = out.join("report.md");
    write_atomic(&markdown, markdown::render(&doc, &[]).as_bytes())?;
    let html = out.join("report.html");
    write_atomic(&html, html::render(&doc, &[], None).as_bytes())?;
    Ok(ReportFiles {
        html,
        markdown,
        plots: Vec::new(),
    })
}

/// `out` may be written: absent, empty, or a rating list's folder (`ratings.csv` there
/// and nothing but its own files).
fn check_out(out: &Path) -> Result<(), ReportError> {
    let entries = match fs::read_dir(out) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            // A file in the folder's place, or a link: own_folder names it.
            return crate::files::own_folder(out).map_err(|_| ReportError::io(out, e));
        }
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| ReportError::io(out, e))?;
        names.push(entry.file_name().to_string_lossy().to_string());
    }
    let ours = |n: &String| FILES.contains(&n.as_str()) || n.starts_with(".tmp");
    if names.is_empty() || (names.iter().any(|n| n == "ratings.csv") && names.iter().all(ours)) {
        return Ok(());
    }
    names.sort();
    Err(ReportError::input(
        out,
        format!(
            "holds files that are not a rating list's ({}): a rating list's report is \
             written into a new or empty folder, or over an earlier rating list (--out DIR)",
            names.join(", ")
        ),
    ))
}

/// `x` to one decimal with its sign, never `-0.0`.
fn signed(x: f64) -> String {
    let text = format!("{x:+.1}");
    if text == "-0.0" { "+0.0".into() } else { text }
}

fn document(r: &RatingReport) -> Doc {
    let (pool, list) = (r.pool, r.list);
    let runs = pool.runs.len();
    let mut doc = Doc {
        title: format!(
            "arena rating list: {} engines, {} games",
            pool.names.len(),
            pool.games()
        ),
        numbers: Some("`ratings.csv`, `los.csv`".into()),
        ..Doc::default()
    };
    doc.blocks.push(Block::Title(doc.title.clone()));
    doc.para(format!(
        "{} engines rated over {} games of {} from {runs} run{} at once (maximum \
         likelihood, as Ordo does with -W -D): engines are matched by name, and an engine of \
         one name is the same engine in every run. Intervals are 95 %.",
        pool.names.len(),
        pool.games(),
        pool.game,
        if runs == 1 { "" } else { "s" }
    ));
    doc.heading("ratings", "Ratings");
    let rows = r
        .order()
        .iter()
        .enumerate()
        .map(|(rank, &i)| {
            vec![
                (rank + 1).to_string(),
                pool.names[i].clone(),
                signed(list.elo[i]),
                format!("± {:.1}", list.error[i]),
                list.games[i].to_string(),
                format!("{:.1} %", 100.0 * list.score[i]),
                format!("{:.1} %", 100.0 * list.draws[i]),
            ]
        })
        .collect();
    doc.table(
        &["#", "engine", "Elo", "95 %", "games", "score", "draws"],
        2,
        rows,
    );
    doc.para(match list.first_move_error {
        Some(error) => format!(
            "First move: {} ± {error:.1} Elo for the side to move after the opening, fitted \
             (Ordo's -W; arena's PGN names the first player Black, so Ordo's White advantage \
             is {}).",
            signed(list.first_move),
            signed(-list.first_move)
        ),
        None => format!(
            "First move: {} Elo for the side to move after the opening, held (--first-move).",
            signed(list.first_move)
        ),
    });
    doc.para(format!(
        "Draw rate between equal engines: {:.1} % ± {:.1} %, fitted (Ordo's -D).",
        100.0 * list.draw_rate,
        100.0 * list.draw_rate_error
    ));
    doc.para(match r.anchor {
        Anchor::PoolAverage => format!(
            "Anchor: the pool average, {:.1}.",
            list.elo.iter().sum::<f64>() / list.elo.len().max(1) as f64
        ),
        Anchor::Player { index, elo } => format!(
            "Anchor: {} at {elo:.1}; the errors are relative to it.",
            pool.names[index]
        ),
    });
    if list.regularized {
        doc.para(
            "Warning: an engine won or lost every game (or the first movers did): one virtual \
             draw per engine keeps the ratings finite.",
        );
    }
    doc.heading("los", "Likelihood of superiority");
    doc.para(
        "LOS in %: the probability that the row's engine is stronger than the column's \
         (columns by rank), from the fit's covariance.",
    );
    let order = r.order();
    let mut head: Vec<String> = vec!["#".into(), "engine".into()];
    head.extend((1..=order.len()).map(|k| k.to_string()));
    let rows = order
        .iter()
        .enumerate()
        .map(|(rank, &i)| {
            let mut row = vec![(rank + 1).to_string(), pool.names[i].clone()];
            row.extend(order.iter().map(|&j| {
                if i == j {
                    "-".to_string()
                } else {
                    format!("{:.1}", 100.0 * list.los(i, j))
                }
            }));
            row
        })
        .collect();
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    doc.table(&head, 2, rows);
    doc.heading("runs", "Runs");
    let rows = pool
        .runs
        .iter()
        .map(|run| {
            vec![
                run.dir.display().to_string(),
                run.name.clone(),
                run.games.to_string(),
            ]
        })
        .collect();
    doc.table(&["folder", "run", "games"], 2, rows);
    doc
}

/// `rank,engine,elo,error,games,score,draws`, best first.
fn ratings_csv(r: &RatingReport) -> String {
    let mut out = String::from("rank,engine,elo,error,games,score,draws\n");
    for (rank, &i) in r.order().iter().enumerate() {
        let _ = writeln!(
            out,
            "{},{},{:.2},{:.2},{},{:.4},{:.4}",
            rank + 1,
            csv_field(&r.pool.names[i]),
            r.list.elo[i],
            r.list.error[i],
            r.list.games[i],
            r.list.score[i],
            r.list.draws[i]
        );
    }
    out
}

/// The LOS matrix: a header of engine names (by rank), then a row per engine.
fn los_csv(r: &RatingReport) -> String {
    let order = r.order();
    let names: Vec<String> = order.iter().map(|&i| csv_field(&r.pool.names[i])).collect();
    let mut out = format!("engine,{}\n", names.join(","));
    for (k, &i) in order.iter().enumerate() {
        let cells: Vec<String> = order
            .iter()
            .map(|&j| {
                if i == j {
                    String::new()
                } else {
                    format!("{:.4}", r.list.los(i, j))
                }
            })
            .collect();
        let _ = writeln!(out, "{},{}", names[k], cells.join(","));
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
