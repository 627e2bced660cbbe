//! The SPRT's log-likelihood ratio after each game pair, between its two bounds.

use super::*;

pub(super) fn sprt<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    t: &Tour,
) -> DrawResult<DB> {
    let s = &t.summary;
    let (Some(sprt), Some(p)) = (&s.sprt, s.pairings.first()) else {
        return message(area, "no SPRT");
    };
    let mut pts: Vec<(f64, f64)> = vec![(0.0, 0.0)];
    pts.extend(
        p.trajectory
            .iter()
            .filter_map(|q| q.llr.map(|l| (q.games as f64, l))),
    );
    let (b0, b1) = sprt.bounds;
    let lo = pts.iter().map(|q| q.1).fold(b0, f64::min);
    let hi = pts.iter().map(|q| q.1).fold(b1, f64::max);
    // Room outside the band for the bounds' labels.
    let pad = 0.16 * (hi - lo).max(1.0);
    let gmax = pts.iter().map(|q| q.0).fold(2.0f64, f64::max);
    let x = Axis::linear(0.0, gmax);
    let y = Axis::linear(lo - pad, hi + pad);
    let mut chart = build(area, &x, &y, 70, 20)?;
    mesh(
        &mut chart,
        &x,
        &y,
        "games (complete colour-swapped pairs)",
        "log-likelihood ratio",
    )?;
    let h1 = PALETTE[2];
    let h0 = PALETTE[1];
    dashed_h(&mut chart, b1, &x, h1.stroke_width(2))?;
    dashed_h(&mut chart, b0, &x, h0.stroke_width(2))?;
    dashed_h(&mut chart, 0.0, &x, INK.mix(0.3).stroke_width(1))?;
    let line: Vec<(f64, f64)> = pts.iter().map(|&(g, l)| (g, y.at(l))).collect();
    chart.draw_series(std::iter::once(PathElement::new(
        line,
        PALETTE[0].stroke_width(3),
    )))?;
    let (px, _) = chart.plotting_area().get_pixel_range();
    // Centred on a point 12 px above or 13 px below the line: the same in SVG and bitmap.
    let label = |v: f64, s: String, c: RGBColor, above: bool| {
        let (_, py) = chart.backend_coord(&(0.0, v));
        Text::new(
            s,
            (px.start + 8, if above { py - 12 } else { py + 13 }),
            ("sans-serif", 13.0)
                .into_font()
                .color(&c)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        )
    };
    // `backend_coord` is in the root's pixels.
    root.draw(&label(
        b1,
        format!("accept H1 (elo1 = {}) at LLR ≥ {b1:.2}", sprt.config.elo1),
        h1,
        true,
    ))?;
    root.draw(&label(
        b0,
        format!("accept H0 (elo0 = {}) at LLR ≤ {b0:.2}", sprt.config.elo0),
        h0,
        false,
    ))?;
    Ok(())
}
