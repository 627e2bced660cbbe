//! A sweep's plot: each pairing's Elo with its 95 % interval against the swept value.

use super::*;

/// One pairing's Elo at each point of a sweep: (x, Elo, interval low, interval high).
pub type ScalingSeries = (String, Vec<(f64, f64, f64, f64)>);

/// Size of the sweep plot.
const SIZE: (u32, u32) = (760, 420);

/// The sweep plot as SVG: Elo with its 95 % interval against the swept value, one colour
/// per pairing (slightly offset sideways so the bars do not hide each other), the legend
/// beside the plot. An infinite Elo (every game won or lost) is no point on the scale: it
/// is an arrow at the edge, and the legend says what the arrow means; an infinite
/// interval end runs to the edge. Whole-number sweeps (depths) get whole-number ticks.
pub(crate) fn scaling_svg(key: &str, series: &[ScalingSeries]) -> Result<String, ReportError> {
    register_fonts()?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        draw_scaling(&root, key, series)
            .and_then(|()| root.present())
            .map_err(|e| ReportError::Plot {
                name: "scaling".into(),
                message: e.to_string(),
            })?;
    }
    Ok(svg)
}

fn draw_scaling<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    key: &str,
    series: &[ScalingSeries],
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let area = titled(root, &format!("Elo against {key} (95 % intervals)"))?;
    let points = || series.iter().flat_map(|(_, p)| p.iter());
    let finite = points()
        .flat_map(|&(_, e, lo, hi)| [e, lo, hi])
        .filter(|v| v.is_finite());
    let (y0, y1) = finite.fold((-50.0f64, 50.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let pad = 0.05 * (y1 - y0);
    let y = Axis::linear(y0 - pad, y1 + pad);
    let (x0, x1) = points().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
        (a.min(p.0), b.max(p.0))
    });
    let (x0, x1) = if x0.is_finite() { (x0, x1) } else { (0.0, 1.0) };
    let span = (x1 - x0).max(1.0);
    let whole = points().all(|p| p.0.fract() == 0.0 && p.0.abs() < 1e9);
    let x = if whole && x0 >= 0.0 {
        Axis::integers(x0 as u32, x1 as u32)
    } else {
        Axis::linear(x0 - 0.1 * span, x1 + 0.1 * span)
    };
    let mut legend: Vec<(usize, String)> = series
        .iter()
        .enumerate()
        .map(|(i, (label, _))| (i, fit(label, LABEL_SIZE, 220)))
        .collect();
    // What the arrows mean, under the series (an entry without a colour).
    for (sign, note) in [
        (1.0, "▲ Elo +∞: every game won"),
        (-1.0, "▼ Elo −∞: every game lost"),
    ] {
        if points().any(|p| p.1 == sign * f64::INFINITY) {
            legend.push((usize::MAX, note.to_string()));
        }
    }
    let (plot_area, legend_area) = beside_legend(&area, &legend, 70, SIZE.0 / 2);
    let mut chart = build(&plot_area, &x, &y, 64, 10)?;
    mesh(&mut chart, &x, &y, key, "Elo (first engine's view)")?;
    dashed_h(&mut chart, 0.0, &x, INK.mix(0.3).stroke_width(1))?;
    let n = series.len().max(1) as f64;
    for (i, (_, pts)) in series.iter().enumerate() {
        let c = color(i);
        let offset = (i as f64 - (n - 1.0) / 2.0) * 0.03 * span;
        // The line joins the finite estimates only: an infinite one has no place on it.
        for run in pts.split(|p| !p.1.is_finite()).filter(|r| !r.is_empty()) {
            let line: Vec<(f64, f64)> = run.iter().map(|p| (p.0 + offset, y.at(p.1))).collect();
            chart.draw_series(std::iter::once(PathElement::new(line, c.stroke_width(2))))?;
        }
        for p in pts {
            let xv = p.0 + offset;
            chart.draw_series([vline(xv, y.at(p.2), y.at(p.3), c.stroke_width(1))])?;
            if p.1.is_finite() {
                chart.draw_series([Circle::new((xv, y.at(p.1)), 3, c.filled())])?;
            } else {
                arrow(&mut chart, &y, xv, p.1 > 0.0, c)?;
            }
        }
    }
    draw_scaling_legend(&legend_area, &legend)
}

/// An arrow at the top (`up`) or bottom edge: an Elo beyond the scale.
fn arrow<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    y: &Axis,
    x: f64,
    up: bool,
    c: RGBColor,
) -> DrawResult<DB> {
    let (edge, from) = if up {
        (y.hi, y.hi - 0.08 * (y.hi - y.lo))
    } else {
        (y.lo, y.lo + 0.08 * (y.hi - y.lo))
    };
    chart.draw_series([vline(x, from, edge, c.stroke_width(2))])?;
    chart.draw_series([TriangleMarker::new(
        (x, edge),
        if up { 7 } else { -7 },
        c.filled(),
    )])?;
    Ok(())
}

/// The series legend, and the arrows' note (its entry has no colour) in ink.
fn draw_scaling_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(usize, String)],
) -> DrawResult<DB> {
    let (series, note): (Vec<_>, Vec<_>) = entries.iter().cloned().partition(|e| e.0 != usize::MAX);
    draw_legend(area, &series, 20, false)?;
    for (k, (_, text)) in note.iter().enumerate() {
        area.draw(&Text::new(
            text.clone(),
            (8, 20 + 22 * (series.len() + k) as i32 + 8),
            font(LABEL_SIZE).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}
