//! Per pairing: game lengths (box plots) and the first player's score with its interval.

use super::*;

pub(super) fn game_lengths<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    t: &Tour,
) -> DrawResult<DB> {
    let s = &t.summary;
    let boxes: Vec<Option<Boxed>> = s
        .pairings
        .iter()
        .map(|p| {
            let mut v: Vec<u64> = p.lengths.iter().map(|&l| u64::from(l)).collect();
            v.sort_unstable();
            Boxed::of(&v)
        })
        .collect();
    let hi = boxes
        .iter()
        .flatten()
        .map(|b| b.p95.max(b.mean))
        .fold(0.0f64, f64::max);
    if hi <= 0.0 {
        return message(area, "no games yet");
    }
    let x = Axis::linear(0.0, hi * 1.05);
    let labels: Vec<String> = (0..s.pairings.len()).map(|i| t.pairing_label(i)).collect();
    let y = Axis::rows(labels.clone());
    let values: Vec<String> = s
        .pairings
        .iter()
        .zip(&boxes)
        .map(|(p, b)| match b {
            Some(b) => format!("mean {:.1} · {} games", b.mean, p.lengths.len()),
            None => "no games".into(),
        })
        .collect();
    let mut chart = rows_chart(area, &x, &y, &values)?;
    mesh(&mut chart, &x, &y, "game length (plies)", "")?;
    for (k, b) in boxes.iter().enumerate() {
        let yv = y.row(k);
        if let Some(b) = b {
            draw_box(&mut chart, &x, yv, b, NEUTRAL)?;
        }
        right_label(root, &chart, yv, &values[k])?;
    }
    Ok(())
}

pub(super) fn first_player<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    t: &Tour,
) -> DrawResult<DB> {
    let s = &t.summary;
    let mut labels: Vec<String> = (0..s.pairings.len()).map(|i| t.pairing_label(i)).collect();
    labels.push("all games".into());
    let mut rows = t.first_player.clone();
    rows.push(t.first_player_all);
    if rows.iter().all(Option::is_none) {
        return message(area, "no games yet");
    }
    let x = Axis::percent();
    let y = Axis::rows(labels.clone());
    let values: Vec<String> = rows
        .iter()
        .map(|f| match f {
            Some(f) => format!(
                "{:.1} % ± {:.1} · {} games",
                100.0 * f.score,
                100.0 * f.error,
                f.games
            ),
            None => "no games".into(),
        })
        .collect();
    let mut chart = rows_chart(area, &x, &y, &values)?;
    mesh(
        &mut chart,
        &x,
        &y,
        "first player's points per game (bar), 95 % interval (line)",
        "",
    )?;
    for (k, f) in rows.iter().enumerate() {
        let yv = y.row(k);
        if let Some(f) = f {
            let fill = if k + 1 == rows.len() { INK } else { NEUTRAL };
            chart.draw_series([Rectangle::new(
                [(0.5, yv - 0.28), (x.at(f.score), yv + 0.28)],
                fill.mix(0.55).filled(),
            )])?;
            let (a, b) = (x.at(f.score - f.error), x.at(f.score + f.error));
            chart.draw_series([
                hline(a, b, yv, INK.stroke_width(2)),
                vline(a, yv - 0.14, yv + 0.14, INK.stroke_width(2)),
                vline(b, yv - 0.14, yv + 0.14, INK.stroke_width(2)),
            ])?;
        }
        right_label(root, &chart, yv, &values[k])?;
    }
    dashed_v(&mut chart, 0.5, &y, INK.mix(0.6).stroke_width(1))?;
    Ok(())
}
