//! The Elo ladder: each engine's rating with its 95 % interval, best first.

use super::*;

pub(super) fn elo_ladder<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    t: &Tour,
) -> DrawResult<DB> {
    let s = &t.summary;
    let rows: Vec<usize> = t
        .order
        .iter()
        .copied()
        .filter(|&e| s.engines[e].elo.is_some_and(f64::is_finite))
        .collect();
    if rows.is_empty() {
        let why = s.ratings_note.as_deref().unwrap_or("no games yet");
        return message(area, &format!("no ratings: {why}"));
    }
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for &e in &rows {
        let (elo, err) = (s.engines[e].elo.unwrap_or(0.0), s.engines[e].elo_error);
        let err = err.filter(|v| v.is_finite()).unwrap_or(0.0);
        lo = lo.min(elo - err);
        hi = hi.max(elo + err);
    }
    let pad = 0.06 * (hi - lo).max(20.0);
    let x = Axis::linear(lo - pad, hi + pad);
    let y = Axis::rows(names(t, &rows));
    let values: Vec<String> = rows
        .iter()
        .map(|&e| {
            format!(
                "{} ± {}",
                text::elo(s.engines[e].elo),
                text::err(s.engines[e].elo_error)
            )
        })
        .collect();
    let mut chart = rows_chart(area, &x, &y, &values)?;
    mesh(
        &mut chart,
        &x,
        &y,
        "Elo (dot) and its 95 % interval (bar)",
        "",
    )?;
    dashed_v(&mut chart, 0.0, &y, INK.mix(0.5).stroke_width(1))?;
    for (k, &e) in rows.iter().enumerate() {
        let yv = y.row(k);
        let c = color(e);
        let elo = s.engines[e].elo.unwrap_or(0.0);
        if let Some(err) = s.engines[e].elo_error {
            let (a, b) = if err.is_finite() {
                (x.at(elo - err), x.at(elo + err))
            } else {
                (x.lo, x.hi)
            };
            chart.draw_series([
                hline(a, b, yv, c.stroke_width(3)),
                vline(a, yv - 0.18, yv + 0.18, c.stroke_width(2)),
                vline(b, yv - 0.18, yv + 0.18, c.stroke_width(2)),
            ])?;
        }
        chart.draw_series([
            Circle::new((x.at(elo), yv), 7, c.filled()),
            Circle::new((x.at(elo), yv), 7, WHITE.stroke_width(2)),
        ])?;
        right_label(root, &chart, yv, &values[k])?;
    }
    Ok(())
}
