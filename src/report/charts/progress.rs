//! Elo as the games came in: each pairing's estimate and 95 % band after each game pair.

use super::*;

/// Pairings with at least one Elo on their trajectory.
pub(super) fn convergence_pairings(t: &Tour) -> Vec<usize> {
    (0..t.summary.pairings.len())
        .filter(|&i| {
            t.summary.pairings[i]
                .trajectory
                .iter()
                .any(|p| p.elo.is_some())
        })
        .collect()
}

fn convergence_grid(n: usize) -> (usize, usize) {
    let cols = match n {
        0 | 1 => 1,
        2..=4 => 2,
        _ => 3,
    };
    (n.div_ceil(cols).max(1), cols)
}

pub(super) fn convergence_height(n: usize) -> u32 {
    let (rows, cols) = convergence_grid(n);
    if cols == 1 {
        440
    } else {
        50 + 270 * rows as u32
    }
}

pub(super) fn convergence<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &Tour,
) -> DrawResult<DB> {
    let list = convergence_pairings(t);
    let (rows, cols) = convergence_grid(list.len());
    let panels = area.split_evenly((rows, cols));
    let small = cols > 1;
    for (&i, panel) in list.iter().zip(&panels) {
        let p = &t.summary.pairings[i];
        let pts: Vec<(f64, f64, f64)> = p
            .trajectory
            .iter()
            .filter_map(|q| {
                q.elo
                    .map(|e| (q.games as f64, e, q.error.unwrap_or(f64::INFINITY)))
            })
            .collect();
        let gmax = pts.iter().map(|p| p.0).fold(1.0f64, f64::max);
        // The y range holds every estimate, and the later ones' intervals: the first
        // pairs' intervals are huge (their bands run off the plot), their estimates not.
        let late: Vec<&(f64, f64, f64)> = pts.iter().filter(|p| p.0 >= 0.25 * gmax).collect();
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        for &&(_, e, err) in &late {
            let err = if err.is_finite() { err } else { 0.0 };
            lo = lo.min(e - err);
            hi = hi.max(e + err);
        }
        for &(_, e, _) in pts.iter().filter(|p| p.1.is_finite()) {
            lo = lo.min(e);
            hi = hi.max(e);
        }
        if hi - lo < 100.0 {
            let mid = (hi + lo) / 2.0;
            (lo, hi) = (mid - 50.0, mid + 50.0);
        }
        let pad = 0.08 * (hi - lo);
        let x = Axis::linear(0.0, gmax);
        let y = Axis::linear(lo - pad, hi + pad);
        let (pw, _) = panel.dim_in_pixel();
        let caption = fit(&t.pairing_label(i), 14.0, pw.saturating_sub(30));
        let size = if small { 12.0 } else { LABEL_SIZE };
        let mut chart = ChartBuilder::on(panel)
            .caption(caption, font(14.0))
            .margin(8)
            .margin_right(18)
            .x_label_area_size(if small { 40 } else { 52 })
            .y_label_area_size(if small { 56 } else { 70 })
            .build_cartesian_2d(x.coord(), y.coord())?;
        let y_desc = if small {
            "Elo"
        } else {
            "Elo of the first engine"
        };
        mesh_sized(&mut chart, &x, &y, ("games", y_desc), (size, size))?;
        let c = color(p.a);
        // One band per stretch of finite intervals (an all-win start has none).
        for run in pts.split(|q| !q.2.is_finite()).filter(|r| r.len() >= 2) {
            let band: Vec<(f64, f64)> = run
                .iter()
                .map(|&(g, e, err)| (g, y.at(e + err)))
                .chain(run.iter().rev().map(|&(g, e, err)| (g, y.at(e - err))))
                .collect();
            chart.draw_series(std::iter::once(Polygon::new(band, c.mix(0.18).filled())))?;
        }
        dashed_h(&mut chart, 0.0, &x, INK.mix(0.5).stroke_width(1))?;
        let line: Vec<(f64, f64)> = pts.iter().map(|&(g, e, _)| (g, y.at(e))).collect();
        chart.draw_series(std::iter::once(PathElement::new(
            line.clone(),
            c.stroke_width(2),
        )))?;
        if line.len() == 1 {
            chart.draw_series(line.iter().map(|&q| Circle::new(q, 4, c.filled())))?;
        }
    }
    Ok(())
}
