//! The console summary: the standings as `arena run`, `arena stats` and `arena merge`
//! print them, and the verification match of `arena tune` and `arena fit` (like
//! fastchess: ratings, then every pairing). It renders the same [`Summary`] that
//! report.md and report.html render, and the figures the two share (a pairing's Elo,
//! nElo, W/D/L, pentanomial counts, LOS, first player and split pairs; the first
//! player's line) come from the same functions in [`super::text`]. The command line
//! only prints the text.

use std::fmt::{self, Write};

use super::{
    doc::TINY_SEARCH_NODES,
    text::{
        ENGINE_FIGURES, elo, elo_interval, err, first_player, na, nelo, pct, penta, percent, rate,
        split_pairs, wdl,
    },
};
use crate::tournament::{Summary, summary::ranked};

/// The standings of `s` as the console shows them, every line ending in a newline.
pub fn summary_text(s: &Summary) -> String {
    let mut out = String::new();
    write_summary(&mut out, s).expect("writing to a String cannot fail");
    out
}

fn write_summary(out: &mut String, s: &Summary) -> fmt::Result {
    writeln!(
        out,
        "{}: {} ({} of {} games{})",
        s.name,
        s.game,
        s.games,
        s.scheduled_games,
        if s.reproducible {
            ""
        } else {
            ", time-limited: not reproducible"
        }
    )?;
    write_differences(out, s)?;
    write_head_to_head(out, s)?;
    let width = name_width(s.engines.iter().map(|e| e.name.as_str()));
    let figures = ENGINE_FIGURES;
    if !s.ratings_relative_to.is_empty() {
        writeln!(
            out,
            "\nratings relative to {} (95 % intervals, +/- half their width):",
            s.ratings_relative_to
        )?;
    }
    writeln!(
        out,
        "{}{:>4}  {:<width$}  {:>8} {:>7}  {:>6}  {:>6}  {:>13}  {:>11} {:>11} {:>6} {:>10}  {:>6}",
        if s.ratings_relative_to.is_empty() {
            "\n"
        } else {
            ""
        },
        "rank",
        "engine",
        "Elo",
        "±",
        figures[0],
        figures[1],
        figures[2],
        figures[3],
        figures[4],
        figures[5],
        figures[6],
        figures[7]
    )?;
    for (i, e) in ranked(s).into_iter().enumerate() {
        // An engine that reported no figures (an outside engine that prints none) shows
        // "n/a", not 0.
        let (nodes, depth) = (e.reports_nodes(), e.reports_depth());
        writeln!(
            out,
            "{:>4}  {:<width$}  {:>8} {:>7}  {:>6}  {:>5.1}%  {:>13}  {:>11} {:>11} {:>6} {:>10}  {:>6.1}",
            i + 1,
            e.name,
            elo(e.elo),
            err(e.elo_error),
            e.games,
            100.0 * e.score,
            format!("{}-{}-{}", e.wdl.wins, e.wdl.draws, e.wdl.losses),
            na(nodes, format!("{:.0}", e.nodes_mean)),
            na(nodes, format!("{:.0}", e.nodes_median)),
            na(depth, format!("{:.2}", e.depth_mean)),
            na(nodes, rate(e.nps, "")),
            e.game_length
        )?;
    }
    if let Some(note) = &s.ratings_note {
        writeln!(out, "ratings: {note}")?;
    }
    let tiny: Vec<&str> = s
        .engines
        .iter()
        // An engine that reports no nodes has no rate to doubt (n/a).
        .filter(|e| e.moves > 0 && e.reports_nodes() && e.nodes_mean < TINY_SEARCH_NODES)
        .map(|e| e.name.as_str())
        .collect();
    if !tiny.is_empty() {
        writeln!(
            out,
            "nodes/s: {} search under {TINY_SEARCH_NODES} nodes a move; their rates are mostly \
             timer overhead, not speed",
            tiny.join(", ")
        )?;
    }
    writeln!(
        out,
        "\npairings (first engine's view; Elo from game pairs, 95 % intervals):"
    )?;
    for p in &s.pairings {
        let est = p.estimate.as_ref();
        writeln!(
            out,
            "  {} vs {}: {} games {}  penta [{}]  Elo {}  nElo {}  LOS {}  draws {}  first player {}  split {}",
            p.names[0],
            p.names[1],
            p.wdl.games(),
            wdl(&p.wdl),
            penta(&p.penta, ", "),
            elo_interval(est),
            nelo(est),
            percent(est.map(|e| e.los), "%"),
            percent(est.map(|e| e.draw_ratio), "%"),
            first_player(p.first_player.as_ref(), p.first_player_score, "%"),
            split_pairs(&p.pair_shares, "/"),
        )?;
    }
    if let Some(fp) = &s.first_player {
        writeln!(
            out,
            "first player (black, who moves first from the empty board or the start \
             position): {} over {} games; {}",
            first_player(Some(fp), None, "%"),
            fp.games,
            s.pair_shares.describe()
        )?;
    }
    if let Some(sprt) = &s.sprt {
        writeln!(
            out,
            "\nSPRT [{}, {}] ({:?}, alpha {}, beta {}) after {} pairs: {}",
            sprt.config.elo0,
            sprt.config.elo1,
            sprt.config.model,
            sprt.config.alpha,
            sprt.config.beta,
            sprt.pairs,
            sprt.config.decide(sprt.llr).describe(sprt.llr, sprt.bounds)
        )?;
        if let Some(d) = &sprt.debiased {
            writeln!(
                out,
                "SPRT-debiased Elo {:+.1} [{:+.1}, {:+.1}] (fishtest's median-unbiased estimate; \
                 the plain Elo of a stopped test leans towards the bound it crossed)",
                d.elo, d.low, d.high
            )?;
        }
    }
    if !s.reasons.is_empty() {
        let reasons: Vec<String> = s.reasons.iter().map(|(k, v)| format!("{k} {v}")).collect();
        writeln!(out, "endings: {}", reasons.join(", "))?;
    }
    write_faults(out, s)?;
    for warning in &s.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    Ok(())
}

/// What differs between the engines (their resolved configs), one line a setting.
fn write_differences(out: &mut String, s: &Summary) -> fmt::Result {
    if s.engines.len() < 2 {
        return Ok(());
    }
    if s.differences.is_empty() {
        return writeln!(out, "the engines differ in nothing but their names");
    }
    let names: Vec<&str> = s.engines.iter().map(|e| e.name.as_str()).collect();
    writeln!(
        out,
        "what differs between the engines ({}):",
        names.join(" | ")
    )?;
    for d in &s.differences {
        writeln!(out, "  {}", d.describe())?;
    }
    Ok(())
}

/// With two engines the answer is the head-to-head, not two ratings against their mean.
fn write_head_to_head(out: &mut String, s: &Summary) -> fmt::Result {
    let [p] = &s.pairings[..] else {
        return Ok(());
    };
    let Some(e) = &p.estimate else {
        return Ok(());
    };
    writeln!(
        out,
        "\nhead-to-head: {} vs {}: Elo {} (95 %), nElo {}, LOS {}, {} games",
        p.names[0],
        p.names[1],
        elo_interval(Some(e)),
        nelo(Some(e)),
        pct(Some(e.los)),
        p.wdl.games()
    )
}

/// The width of a column of engine names: the longest name, at least 6. A name longer
/// than any a config allows (from a hand-edited file) sticks out of its column rather
/// than widen it past what a format width can hold.
fn name_width<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    // Bytes, as the column always measured them; a valid name has at most 4 a character.
    let most = 4 * crate::engine::config::MAX_NAME_CHARS;
    names.map(str::len).max().unwrap_or(6).clamp(6, most)
}

/// Games lost to engine faults, one line per engine, when there are any (the details
/// are in the records' reasons and in `logs/`).
fn write_faults(out: &mut String, s: &Summary) -> fmt::Result {
    if s.faults.is_empty() {
        return Ok(());
    }
    let kinds: std::collections::BTreeSet<&String> =
        s.faults.values().flat_map(|m| m.keys()).collect();
    let width = name_width(s.faults.keys().map(String::as_str));
    write!(out, "\nfaults (games lost):\n  {:<width$}", "engine")?;
    for k in &kinds {
        write!(out, "  {k:>12}")?;
    }
    writeln!(out)?;
    for (engine, counts) in &s.faults {
        write!(out, "  {engine:<width$}")?;
        for k in &kinds {
            write!(out, "  {:>12}", counts.get(*k).copied().unwrap_or(0))?;
        }
        writeln!(out)?;
    }
    Ok(())
}
