//! Mean nodes to complete each search depth, with each engine's effective branching
//! factor.

use super::*;

pub(super) fn nodes_by_depth<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &Tour,
) -> DrawResult<DB> {
    let s = &t.summary;
    let legend: Vec<(usize, String)> = t
        .order
        .iter()
        .filter(|&&e| !s.engines[e].nodes_by_depth.is_empty())
        .map(|&e| {
            let ebf = effective_branching_factor(&s.engines[e].nodes_by_depth)
                .map_or("EBF n/a".to_string(), |v| format!("EBF {v:.2}"));
            (
                e,
                format!("{}  {ebf}", fit(&s.engines[e].name, LABEL_SIZE, 220)),
            )
        })
        .collect();
    let (plot_area, legend_area) = beside_legend(area, &legend, 70, WIDTH);
    // Depths few moves reached (decided positions run on to the last depth) would
    // squeeze the rest into the left edge: the axis ends where the table does.
    let dmax = deepest_shown_of(s.engines.iter().map(|e| e.nodes_by_depth.as_slice()))
        .unwrap_or(1)
        .max(1);
    let shown = |e: usize| {
        s.engines[e]
            .nodes_by_depth
            .iter()
            .filter(move |&&(d, _, _)| d <= dmax)
    };
    let (mut lo, mut hi) = (f64::MAX, 0.0f64);
    for &(_, _, n) in (0..s.engines.len()).flat_map(shown) {
        lo = lo.min(n);
        hi = hi.max(n);
    }
    let x = Axis::integers(1, dmax);
    let y = Axis::log(lo, hi);
    let mut chart = build(&plot_area, &x, &y, 70, 10)?;
    mesh(
        &mut chart,
        &x,
        &y,
        "search depth (plies)",
        "mean nodes by then (log scale)",
    )?;
    for &(e, _) in &legend {
        let c = color(e);
        let by_depth = &s.engines[e].nodes_by_depth;
        let pts: Vec<(f64, f64)> = shown(e).map(|&(d, _, n)| (f64::from(d), y.at(n))).collect();
        // Solid over the depths the EBF is measured over, dashed before and after them.
        let span = ebf_span(by_depth);
        let (start, end) = (span.start.min(pts.len()), span.end.min(pts.len()));
        if start > 0 {
            chart.draw_series(std::iter::once(DashedPathElement::new(
                pts[..=start.min(pts.len() - 1)].to_vec(),
                6,
                4,
                c.stroke_width(2),
            )))?;
        }
        if end > start {
            chart.draw_series(std::iter::once(PathElement::new(
                pts[start..end].to_vec(),
                c.stroke_width(3),
            )))?;
        }
        if end > 0 && end < pts.len() {
            chart.draw_series(std::iter::once(DashedPathElement::new(
                pts[end - 1..].to_vec(),
                6,
                4,
                c.stroke_width(2),
            )))?;
        }
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
    }
    draw_legend(&legend_area, &legend, 20, false)
}
