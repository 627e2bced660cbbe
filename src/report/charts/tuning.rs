//! A tuning run's parameters (fraction of each range) and a fit's loss per epoch.

use super::*;

pub(super) fn tuning<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    tune: &Tune,
) -> DrawResult<DB> {
    if tune.rows.is_empty() || tune.columns.is_empty() {
        return message(area, "no tuning batches recorded yet");
    }
    let legend: Vec<(usize, String)> = tune
        .columns
        .iter()
        .enumerate()
        .map(|(k, &p)| {
            let param = &tune.params[p];
            (
                k,
                format!(
                    "{}: {} → {}",
                    fit(&param.name, LABEL_SIZE, 200),
                    short(param.start),
                    short(param.value)
                ),
            )
        })
        .collect();
    let (plot_area, legend_area) = beside_legend(area, &legend, 60, WIDTH / 2);
    let gmax = tune.rows.iter().map(|r| r.0).fold(1.0f64, f64::max);
    let x = Axis::linear(0.0, gmax);
    let mut y = Axis::percent();
    y.lo = -0.02;
    y.hi = 1.02;
    let mut chart = build(&plot_area, &x, &y, 70, 10)?;
    let x_label = if tune.x == "epoch" {
        "epochs"
    } else {
        "game pairs played"
    };
    mesh(&mut chart, &x, &y, x_label, "value (fraction of its range)")?;
    for (k, &p) in tune.columns.iter().enumerate() {
        let param = &tune.params[p];
        let mut pts: Vec<(f64, f64)> = Vec::new();
        if tune.rows.first().is_some_and(|r| r.0 > 0.0) {
            pts.push((0.0, y.at(param.fraction(param.start))));
        }
        pts.extend(
            tune.rows
                .iter()
                .map(|(g, v)| (*g, y.at(param.fraction(v[k])))),
        );
        let style = color(k).stroke_width(2);
        if k >= PALETTE.len() {
            chart.draw_series(std::iter::once(DashedPathElement::new(pts, 6, 4, style)))?;
        } else {
            chart.draw_series(std::iter::once(PathElement::new(pts, style)))?;
        }
    }
    draw_legend(&legend_area, &legend, 20, true)
}

pub(super) fn loss<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    tune: &Tune,
) -> DrawResult<DB> {
    let rows = &tune.losses;
    let has_validation = rows.iter().any(|r| r.validation > 0.0);
    let values = rows.iter().flat_map(|r| {
        [r.train]
            .into_iter()
            .chain(has_validation.then_some(r.validation))
    });
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !(lo.is_finite() && hi.is_finite()) {
        return message(area, "no epochs recorded yet");
    }
    let pad = ((hi - lo) * 0.05).max(1e-6);
    let last = rows.iter().map(|r| r.epoch).fold(1.0f64, f64::max);
    let x = Axis::linear(0.0, last);
    let y = Axis::linear(lo - pad, hi + pad);
    let (plot_area, legend_area) = area.split_horizontally(WIDTH - 160);
    let mut chart = build(&plot_area, &x, &y, 70, 10)?;
    mesh(&mut chart, &x, &y, "epochs", "mean loss")?;
    let mut series: Vec<(&str, Vec<(f64, f64)>)> = vec![(
        "training",
        rows.iter().map(|r| (r.epoch, y.at(r.train))).collect(),
    )];
    if has_validation {
        series.push((
            "validation",
            rows.iter().map(|r| (r.epoch, y.at(r.validation))).collect(),
        ));
    }
    let mut legend = Vec::new();
    for (k, (name, pts)) in series.into_iter().enumerate() {
        let style = color(k).stroke_width(2);
        chart.draw_series(std::iter::once(PathElement::new(pts, style)))?;
        legend.push((k, name.to_string()));
    }
    draw_legend(&legend_area, &legend, 20, true)
}

/// A parameter value, short.
fn short(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e9 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}
