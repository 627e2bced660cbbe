//! Tables and lines that long jobs print on standard output: a table of parameters
//! (start, tuned or fitted, bounds), parameter values for a live view, and the
//! verification's line.

use std::io::{self, Write};

use arena::tune::verify::VerificationReport;

/// An estimate as the verification lines print it: `+12.3 ± 20.1 (95 %), LOS 88.1 %`.
fn elo_text(estimate: Option<arena::stats::EloEstimate>) -> String {
    estimate.map_or("-".to_string(), |e| {
        format!(
            "{:+.1} ± {:.1} (95 %), LOS {:.1} %",
            e.elo,
            e.elo_error,
            100.0 * e.los
        )
    })
}

/// The verification line: games, W/D/L, Elo with its interval; with an opponent, the
/// tuned and the base engine's lines against it; and any warning.
pub(crate) fn print_verification(out: &mut impl Write, v: &VerificationReport) -> io::Result<()> {
    let elo = elo_text(v.estimate);
    writeln!(
        out,
        "\nverification: {} vs {}: {} games +{} ={} -{}  Elo {elo}",
        v.engines[0],
        v.engines[1],
        v.wdl.games(),
        v.wdl.wins,
        v.wdl.draws,
        v.wdl.losses
    )?;
    if let Some(o) = &v.opponent {
        for (who, versus) in [(&v.engines[0], &o.tuned), (&v.engines[1], &o.base)] {
            let w = versus.wdl;
            writeln!(
                out,
                "against {}: {who} {} games +{} ={} -{}  {:.1} %  Elo {}",
                o.name,
                w.games(),
                w.wins,
                w.draws,
                w.losses,
                100.0 * w.score().unwrap_or(0.5),
                elo_text(versus.estimate)
            )?;
        }
    }
    if let Some(w) = &v.warning {
        writeln!(out, "warning: {w}")?;
    }
    Ok(())
}

/// A parameter's value as tables show it: whole numbers for integers, four decimals
/// for small floats.
pub(crate) fn fmt_value(v: f64, integer: bool) -> String {
    if integer {
        format!("{v:.0}")
    } else if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.4}")
    }
}

/// A parameter's row in a table of parameters: its name, then `values` (start, tuned or
/// fitted, min, max) as tables show them.
pub(crate) fn value_row(name: &str, integer: bool, values: &[f64]) -> Vec<String> {
    std::iter::once(name.to_string())
        .chain(values.iter().map(|&v| fmt_value(v, integer)))
        .collect()
}

/// Parameter values for a live view: `open_three 7512  defence 1.31` (names without
/// `table.`), from (name, whole numbers only) pairs and the values in their order.
pub(crate) fn live_values<'a>(
    params: impl IntoIterator<Item = (&'a str, bool)>,
    values: &[f64],
) -> String {
    params
        .into_iter()
        .zip(values)
        .map(|((name, integer), v)| {
            let short = name.strip_prefix("table.").unwrap_or(name);
            format!("{short} {}", fmt_value(*v, integer))
        })
        .collect::<Vec<_>>()
        .join("  ")
}

/// A table for the terminal: the first column left-aligned, the others right-aligned,
/// each as wide as its widest cell (or heading), two spaces apart.
pub(crate) fn print_table(
    out: &mut impl Write,
    head: &[&str],
    rows: &[Vec<String>],
) -> io::Result<()> {
    let mut widths: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut text = String::new();
        for (i, (cell, w)) in cells.zip(&widths).enumerate() {
            let pad = w.saturating_sub(cell.chars().count());
            if i == 0 {
                text.push_str(cell);
                text.push_str(&" ".repeat(pad));
            } else {
                text.push_str("  ");
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            }
        }
        text.trim_end().to_string()
    };
    writeln!(out, "{}", line(&mut head.iter().copied()))?;
    for row in rows {
        writeln!(out, "{}", line(&mut row.iter().map(String::as_str)))?;
    }
    Ok(())
}
