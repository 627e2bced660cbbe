//! What a search costs per move: nodes per move as box plots (log scale) and nodes per
//! second.

use super::*;

pub(super) fn nodes_per_move<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    t: &Tour,
) -> DrawResult<DB> {
    let boxes: Vec<Option<Boxed>> = t.order.iter().map(|&e| Boxed::of(&t.nodes[e])).collect();
    let (lo, hi) = boxes
        .iter()
        .flatten()
        .fold((f64::MAX, 0.0f64), |(lo, hi), b| {
            (lo.min(b.p5.min(b.mean)), hi.max(b.p95.max(b.mean)))
        });
    if hi <= 0.0 {
        return message(area, "no moves recorded yet");
    }
    let x = Axis::log(lo, hi);
    let y = Axis::rows(names(t, &t.order));
    let values: Vec<String> = boxes
        .iter()
        .map(|b| match b {
            Some(b) => format!("median {} · mean {}", text::si(b.median), text::si(b.mean)),
            None => "no moves".into(),
        })
        .collect();
    let mut chart = rows_chart(area, &x, &y, &values)?;
    mesh(&mut chart, &x, &y, "nodes per move (log scale)", "")?;
    for (k, (&e, b)) in t.order.iter().zip(&boxes).enumerate() {
        let yv = y.row(k);
        if let Some(b) = b {
            draw_box(&mut chart, &x, yv, b, color(e))?;
        }
        right_label(root, &chart, yv, &values[k])?;
    }
    Ok(())
}

pub(super) fn nps<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    t: &Tour,
) -> DrawResult<DB> {
    let s = &t.summary;
    let hi = t
        .order
        .iter()
        .map(|&e| s.engines[e].nps)
        .fold(0.0f64, f64::max);
    if hi <= 0.0 {
        return message(area, "no moves recorded yet");
    }
    let x = Axis::linear(0.0, hi * 1.04);
    let y = Axis::rows(names(t, &t.order));
    let values: Vec<String> = t
        .order
        .iter()
        .map(|&e| format!("{} nodes/s", text::si(s.engines[e].nps)))
        .collect();
    let mut chart = rows_chart(area, &x, &y, &values)?;
    mesh(&mut chart, &x, &y, "nodes per second (measured)", "")?;
    for (k, &e) in t.order.iter().enumerate() {
        let yv = y.row(k);
        let v = x.at(s.engines[e].nps);
        chart.draw_series([
            Rectangle::new([(0.0, yv - 0.3), (v, yv + 0.3)], color(e).mix(0.8).filled()),
            Rectangle::new([(0.0, yv - 0.3), (v, yv + 0.3)], color(e).stroke_width(1)),
        ])?;
        right_label(root, &chart, yv, &values[k])?;
    }
    Ok(())
}
