//! The head-to-head matrix: the row engine's score against the column engine, on a
//! diverging blue–vermillion scale, with the games played.

use super::*;

/// The matrix's layout: x of its left edge, cell size, and whether the column heads can
/// be names (else numbers, with numbered row labels).
fn h2h_layout(t: &Tour) -> (i32, i32, bool) {
    let n = t.order.len().max(1) as i32;
    let labels = names(t, &t.order);
    let fits = |cell: i32| {
        labels
            .iter()
            .all(|l| text_width(l, 13.0) as i32 <= cell - 8)
    };
    // Numbered rows are wider: "8. name".
    let label_w = label_area(&labels) as i32 + 28;
    let cell = ((WIDTH as i32 - label_w - 60) / n).clamp(46, 110);
    let grid = label_w + cell * n;
    let x0 = label_w + ((WIDTH as i32 - grid) / 2).max(12);
    (x0, cell, fits(cell))
}

pub(super) fn h2h_height(t: &Tour) -> u32 {
    let (_, cell, _) = h2h_layout(t);
    // Title, column heads, the grid, the colour key and its labels.
    48 + 36 + cell as u32 * t.order.len().max(1) as u32 + 80
}

/// Blue (0) through near-white (½) to vermillion (1).
fn diverging(s: f64) -> RGBColor {
    let (lo, mid, hi) = (
        (0u8, 114u8, 178u8),
        (247u8, 247u8, 247u8),
        (213u8, 94u8, 0u8),
    );
    let mix = |a: (u8, u8, u8), b: (u8, u8, u8), f: f64| {
        let m = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * f).round() as u8;
        RGBColor(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
    };
    let s = s.clamp(0.0, 1.0);
    if s < 0.5 {
        mix(lo, mid, s / 0.5)
    } else {
        mix(mid, hi, (s - 0.5) / 0.5)
    }
}

pub(super) fn head_to_head<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &Tour,
) -> DrawResult<DB> {
    let n = t.order.len();
    if n < 2 {
        return message(area, "fewer than two engines");
    }
    let (x0, cell, fits) = h2h_layout(t);
    let y0 = 36;
    let number = |k: usize| format!("{}", k + 1);
    for (k, &e) in t.order.iter().enumerate() {
        let name = &t.summary.engines[e].name;
        let row_label = if fits {
            fit(name, LABEL_SIZE, MAX_LABEL)
        } else {
            format!("{}. {}", k + 1, fit(name, LABEL_SIZE, MAX_LABEL))
        };
        let cy = y0 + cell * k as i32 + cell / 2;
        area.draw(&Text::new(
            row_label,
            (x0 - 10, cy),
            font(LABEL_SIZE).pos(Pos::new(HPos::Right, VPos::Center)),
        ))?;
        let col_label = if fits { name.clone() } else { number(k) };
        area.draw(&Text::new(
            col_label,
            (x0 + cell * k as i32 + cell / 2, y0 - 8),
            font(13.0).pos(Pos::new(HPos::Center, VPos::Bottom)),
        ))?;
    }
    for (i, &ri) in t.order.iter().enumerate() {
        for (j, &cj) in t.order.iter().enumerate() {
            let (x, y) = (x0 + cell * j as i32, y0 + cell * i as i32);
            let rect = [(x + 1, y + 1), (x + cell - 1, y + cell - 1)];
            if ri == cj {
                area.draw(&Rectangle::new(rect, RGBColor(0xEE, 0xEE, 0xEE).filled()))?;
                continue;
            }
            let mut wdl = Wdl::default();
            for p in &t.summary.pairings {
                if (p.a, p.b) == (ri, cj) {
                    wdl.add(p.wdl);
                } else if (p.a, p.b) == (cj, ri) {
                    wdl.add(p.wdl.reversed());
                }
            }
            let centre = (x + cell / 2, y + cell / 2);
            match wdl.score() {
                Some(score) => {
                    area.draw(&Rectangle::new(rect, diverging(score).filled()))?;
                    let ink = if (score - 0.5).abs() > 0.3 {
                        WHITE
                    } else {
                        INK
                    };
                    area.draw(&Text::new(
                        format!("{:.0}%", 100.0 * score),
                        (centre.0, centre.1 - 8),
                        ("sans-serif", 16.0)
                            .into_font()
                            .color(&ink)
                            .pos(Pos::new(HPos::Center, VPos::Center)),
                    ))?;
                    area.draw(&Text::new(
                        format!("{} games", wdl.games()),
                        (centre.0, centre.1 + 11),
                        ("sans-serif", 11.0)
                            .into_font()
                            .color(&ink)
                            .pos(Pos::new(HPos::Center, VPos::Center)),
                    ))?;
                }
                None => {
                    area.draw(&Rectangle::new(rect, RGBColor(0xF6, 0xF6, 0xF6).filled()))?;
                    area.draw(&Text::new(
                        "no games",
                        centre,
                        font(11.0).pos(Pos::new(HPos::Center, VPos::Center)),
                    ))?;
                }
            }
        }
    }
    // The colour key.
    let ky = y0 + cell * n as i32 + 24;
    let kw = (cell * n as i32).min(320);
    let steps = 64;
    for s in 0..steps {
        let a = x0 + kw * s / steps;
        let b = x0 + kw * (s + 1) / steps;
        let v = (f64::from(s) + 0.5) / f64::from(steps);
        area.draw(&Rectangle::new(
            [(a, ky), (b, ky + 14)],
            diverging(v).filled(),
        ))?;
    }
    area.draw(&Rectangle::new(
        [(x0, ky), (x0 + kw, ky + 14)],
        RGBColor(0x88, 0x88, 0x88).stroke_width(1),
    ))?;
    for (v, s) in [(0.0, "0 %"), (0.5, "50 %"), (1.0, "100 %")] {
        area.draw(&Text::new(
            s,
            (x0 + (f64::from(kw) * v) as i32, ky + 20),
            font(12.0).pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
    }
    area.draw(&Text::new(
        "score of the row engine",
        (x0 + kw + 14, ky + 7),
        font(13.0).pos(Pos::new(HPos::Left, VPos::Center)),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diverging_ends() {
        assert_eq!(diverging(0.0), RGBColor(0, 114, 178));
        assert_eq!(diverging(1.0), RGBColor(213, 94, 0));
    }
}
