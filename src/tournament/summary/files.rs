//! The summary's files: `summary.json`, `standings.csv` and `pairings.csv`.

use std::{fmt::Write as _, path::Path};

use super::{Summary, ranked};
use crate::tournament::error::{RunError, write_text};

/// Writes `summary.json`, `standings.csv` and `pairings.csv` into `dir` (atomically).
pub fn write_files(dir: &Path, summary: &Summary) -> Result<(), RunError> {
    let json = serde_json::to_string_pretty(summary).map_err(|e| RunError::Io {
        path: dir.join("summary.json").display().to_string(),
        source: std::io::Error::other(e),
    })?;
    write_text(
        &dir.join("summary.json"),
        &(json
            + "
"),
    )?;
    write_text(&dir.join("standings.csv"), &standings_csv(summary))?;
    write_text(&dir.join("pairings.csv"), &pairings_csv(summary))?;
    Ok(())
}

/// One line per pairing, in schedule order, from the first engine's side: what
/// `standings.csv` is for engines. Elo and its interval (`elo_low`, `elo_high`, as
/// `scaling.csv` has them) come from the game pairs when there are any (`pentanomial` =
/// true), else from the games. An infinite figure (every game won) is `+inf` or `-inf`,
/// as in `scaling.csv`; an empty cell is one without games.
pub fn pairings_csv(s: &Summary) -> String {
    let mut out = String::from(
        "engine_a,engine_b,games,wins,draws,losses,score,elo,elo_error,elo_low,elo_high,\
         nelo,nelo_error,los,draw_ratio,pentanomial,pairs,penta_ll,penta_ld,penta_dd_wl,\
         penta_wd,penta_ww,first_player_score,game_length\n",
    );
    let f = |v: Option<f64>, digits: usize| match v {
        Some(x) if x.is_finite() => format!("{x:.digits$}"),
        Some(x) if x > 0.0 => "+inf".to_string(),
        Some(x) if x < 0.0 => "-inf".to_string(),
        _ => String::new(),
    };
    for p in &s.pairings {
        let e = p.estimate.as_ref();
        let c = p.penta.counts;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.1}",
            csv_field(&p.names[0]),
            csv_field(&p.names[1]),
            p.wdl.games(),
            p.wdl.wins,
            p.wdl.draws,
            p.wdl.losses,
            f(e.map(|e| e.score), 4),
            f(e.map(|e| e.elo), 2),
            f(e.map(|e| e.elo_error), 2),
            f(e.map(|e| e.elo_low), 2),
            f(e.map(|e| e.elo_high), 2),
            f(e.map(|e| e.nelo), 2),
            f(e.map(|e| e.nelo_error), 2),
            f(e.map(|e| e.los), 4),
            f(e.map(|e| e.draw_ratio), 4),
            e.map_or(String::new(), |e| e.pentanomial.to_string()),
            p.penta.pairs(),
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            f(p.first_player_score, 4),
            p.game_length
        );
    }
    out
}

/// One line per engine, ranked: what a spreadsheet or script reads.
pub fn standings_csv(s: &Summary) -> String {
    let mut out = String::from(
        "rank,engine,elo,elo_error,games,wins,draws,losses,score,score_as_first,\
         nodes_per_move_mean,nodes_per_move_median,depth_mean,nps,game_length\n",
    );
    for (rank, e) in ranked(s).into_iter().enumerate() {
        let f = |v: Option<f64>| {
            v.filter(|x| x.is_finite())
                .map_or(String::new(), |x| format!("{x:.2}"))
        };
        // An engine that reported no figures has empty cells, not zeros.
        let (nodes, depth) = (e.reports_nodes(), e.reports_depth());
        let figure = |shown: bool, v: f64, digits: usize| {
            if shown {
                format!("{v:.digits$}")
            } else {
                String::new()
            }
        };
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{:.4},{},{},{},{},{},{:.1}",
            rank + 1,
            csv_field(&e.name),
            f(e.elo),
            f(e.elo_error),
            e.games,
            e.wdl.wins,
            e.wdl.draws,
            e.wdl.losses,
            e.score,
            e.score_as_first
                .map_or(String::new(), |v| format!("{v:.4}")),
            figure(nodes, e.nodes_mean, 1),
            figure(nodes, e.nodes_median, 1),
            figure(depth, e.depth_mean, 2),
            figure(nodes, e.nps, 0),
            e.game_length
        );
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
