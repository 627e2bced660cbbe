//! The report's plots, drawn with plotters. Each plot is drawn by one function generic over
//! the drawing backend, once into an SVG string (inlined in the HTML) and once into an RGB
//! buffer encoded as PNG (linked from Markdown and READMEs), so both show the same picture.
//!
//! Conventions: titles say what is shown, axes say what and in which unit; every engine
//! has one colour in every plot (Okabe–Ito palette, by config order); legends and value
//! labels live beside the plotting area, never over data; long names are shortened in
//! plots only (tables show them whole). Text comes from the bundled Noto Sans, registered
//! once, so no system font is needed; plotters escapes `<`, `>`, `&` and quotes in SVG
//! text, so engine names never become markup.

use std::sync::OnceLock;

use plotters::{
    coord::{
        Shift,
        ranged1d::{DefaultFormatting, KeyPointHint},
    },
    element::DashedPathElement,
    prelude::*,
    style::{
        FontStyle, register_font,
        text_anchor::{HPos, Pos, VPos},
    },
};
use rayon::prelude::*;

use super::{
    ReportError,
    load::{Tour, quantile},
    text,
    tuning::Tune,
};
use crate::stats::{
    Wdl,
    branching::{depths_for_ebf, effective_branching_factor},
};

/// A drawn plot: its SVG text and PNG bytes, and what the pages say about it.
#[derive(Debug)]
pub(crate) struct Rendered {
    /// File stem under `plots/`.
    pub name: String,
    /// Title (also drawn in the plot).
    pub title: String,
    /// How to read it (shown under the plot).
    pub caption: String,
    /// The SVG document.
    pub svg: String,
    /// The PNG file.
    pub png: Vec<u8>,
}

/// Okabe & Ito's colour-blind-safe palette, yellow darkened a little to show on white.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x00, 0x00, 0x00), // black
    RGBColor(0xC9, 0xB8, 0x00), // yellow
];
const NEUTRAL: RGBColor = RGBColor(0x7A, 0x8C, 0x99);
const GRID: RGBColor = RGBColor(0xE2, 0xE2, 0xE2);
const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
const WIDTH: u32 = 960;
const TITLE_SIZE: f64 = 22.0;
const LABEL_SIZE: f64 = 14.0;
const DESC_SIZE: f64 = 15.0;
/// The widest a name may be drawn (pixels at [`LABEL_SIZE`]); longer ones are shortened.
const MAX_LABEL: u32 = 300;

/// The colour of engine `index` (config order), the same in every plot.
fn color(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;
type Chart2d<'a, DB> = ChartContext<'a, DB, Cartesian2d<Axis, Axis>>;

/// Registers the bundled font once (plotters looks fonts up by family name).
fn register_fonts() -> Result<(), ReportError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        register_font("sans-serif", FontStyle::Normal, ttf_noto_sans::REGULAR).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(ReportError::Plot {
            name: "(all)".into(),
            message: "the bundled Noto Sans font did not load".into(),
        })
    }
}

fn font(size: f64) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&INK)
}

/// Width in pixels of `s` drawn at `size` (as the SVG's viewer and the PNG draw it).
fn text_width(s: &str, size: f64) -> u32 {
    static FONT: OnceLock<ab_glyph::FontRef<'static>> = OnceLock::new();
    let font = FONT.get_or_init(|| {
        ab_glyph::FontRef::try_from_slice(ttf_noto_sans::REGULAR).expect("the bundled font parses")
    });
    super::raster::text_width(font, s, size).ceil() as u32
}

/// `s`, shortened with an ellipsis to at most `max` pixels at `size`.
fn fit(s: &str, size: f64, max: u32) -> String {
    if text_width(s, size) <= max {
        return s.to_string();
    }
    let chars: Vec<char> = s.chars().collect();
    let mut n = chars.len();
    while n > 1 {
        n -= 1;
        let t: String = chars[..n].iter().collect::<String>() + "…";
        if text_width(&t, size) <= max {
            return t;
        }
    }
    "…".into()
}

/// One axis of a plot, in plot units (log10 of the value on log axes), with its ticks.
#[derive(Clone, Debug)]
struct Axis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    log: bool,
    percent: bool,
    /// Categorical rows: the label of row `i` (0 = top), drawn at `y = n - 1 - i`.
    rows: Option<Vec<String>>,
}

impl Axis {
    fn linear(lo: f64, hi: f64) -> Axis {
        let (lo, hi) = if hi - lo < 1e-9 {
            (lo - 1.0, hi + 1.0)
        } else {
            (lo, hi)
        };
        let step = nice_step((hi - lo) / 6.0);
        let mut ticks = Vec::new();
        let mut t = (lo / step).ceil() * step;
        while t <= hi + step * 1e-9 {
            ticks.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
            t += step;
        }
        Axis {
            lo,
            hi,
            ticks,
            log: false,
            percent: false,
            rows: None,
        }
    }

    /// Whole numbers from `lo` to `hi` (depths).
    fn integers(lo: u32, hi: u32) -> Axis {
        let step = nice_step(f64::from(hi.saturating_sub(lo).max(1)) / 8.0).max(1.0);
        let mut ticks = Vec::new();
        let mut t = f64::from(lo);
        while t <= f64::from(hi) {
            ticks.push(t);
            t += step;
        }
        Axis {
            lo: f64::from(lo) - 0.3,
            hi: f64::from(hi) + 0.3,
            ticks,
            log: false,
            percent: false,
            rows: None,
        }
    }

    /// A base-10 log axis covering the positive values `lo..hi`.
    fn log(lo: f64, hi: f64) -> Axis {
        let a = lo.max(1.0).log10().floor();
        let mut b = hi.max(1.0).log10().ceil();
        if b <= a {
            b = a + 1.0;
        }
        let mut ticks = Vec::new();
        let mut d = a;
        while d <= b + 1e-9 {
            ticks.push(d);
            if b - a <= 2.0 && d < b {
                ticks.push(d + 2f64.log10());
                ticks.push(d + 5f64.log10());
            }
            d += 1.0;
        }
        Axis {
            lo: a,
            hi: b,
            ticks,
            log: true,
            percent: false,
            rows: None,
        }
    }

    /// 0 % to 100 %.
    fn percent() -> Axis {
        Axis {
            lo: 0.0,
            hi: 1.0,
            ticks: vec![0.0, 0.25, 0.5, 0.75, 1.0],
            log: false,
            percent: true,
            rows: None,
        }
    }

    /// Categorical rows, the first at the top.
    fn rows(labels: Vec<String>) -> Axis {
        let n = labels.len().max(1);
        Axis {
            lo: -0.6,
            hi: n as f64 - 0.4,
            ticks: (0..n).map(|i| i as f64).collect(),
            log: false,
            percent: false,
            rows: Some(labels),
        }
    }

    /// The y of row `i` (0 = top).
    fn row(&self, i: usize) -> f64 {
        let n = self.rows.as_ref().map_or(1, Vec::len);
        (n - 1 - i) as f64
    }

    /// A value in plot units, inside the axis.
    fn at(&self, v: f64) -> f64 {
        let u = if self.log { v.max(1.0).log10() } else { v };
        u.clamp(self.lo, self.hi)
    }

    fn label(&self, t: f64) -> String {
        if let Some(rows) = &self.rows {
            let n = rows.len();
            let i = t.round();
            if i < 0.0 || i >= n as f64 {
                return String::new();
            }
            return fit(&rows[n - 1 - i as usize], LABEL_SIZE, MAX_LABEL);
        }
        if self.percent {
            return format!("{:.0} %", 100.0 * t);
        }
        if self.log {
            return text::si(10f64.powf(t).round());
        }
        let span = self.hi - self.lo;
        if self.ticks.iter().any(|v| v.abs() >= 10_000.0) {
            text::si(t)
        } else if span >= 6.0 {
            format!("{t:.0}")
        } else {
            let step = self.ticks.get(1).map_or(1.0, |b| b - self.ticks[0]).abs();
            let digits = (-step.log10().floor()).max(0.0) as usize;
            format!("{t:.digits$}")
        }
    }

    fn coord(&self) -> Axis {
        self.clone()
    }
}

/// Plotters maps values with the axis itself: linear in plot units, ticks (and grid
/// lines) exactly where [`Axis`] put them, labels by [`Axis::label`].
impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let f = (v - self.lo) / (self.hi - self.lo);
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let n = if f < 1.5 {
        1.0
    } else if f < 3.0 {
        2.0
    } else if f < 7.0 {
        5.0
    } else {
        10.0
    };
    n * mag
}

/// The width of a label area holding `labels`.
fn label_area(labels: &[String]) -> u32 {
    labels
        .iter()
        .map(|l| text_width(l, LABEL_SIZE).min(MAX_LABEL))
        .max()
        .unwrap_or(40)
        + 18
}

/// A chart with the axes `x` and `y` on `area`; `left` is the y-label area, `right` the
/// room kept right of the plotting area for value labels.
fn build<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    x: &Axis,
    y: &Axis,
    left: u32,
    right: u32,
) -> Result<Chart2d<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    ChartBuilder::on(area)
        .margin_top(8)
        .margin_left(12)
        .margin_bottom(8)
        .margin_right(right.max(20))
        .x_label_area_size(52)
        .y_label_area_size(left)
        .build_cartesian_2d(x.coord(), y.coord())
}

/// Grid, ticks and axis descriptions.
fn mesh<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    x: &Axis,
    y: &Axis,
    x_desc: &str,
    y_desc: &str,
) -> DrawResult<DB> {
    let xf = |v: &f64| x.label(*v);
    let yf = |v: &f64| y.label(*v);
    let mut m = chart.configure_mesh();
    m.x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style(font(LABEL_SIZE))
        .axis_desc_style(font(DESC_SIZE))
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .axis_style(RGBColor(0x88, 0x88, 0x88))
        .x_desc(x_desc);
    if !y_desc.is_empty() {
        m.y_desc(y_desc);
    }
    if y.rows.is_some() {
        m.disable_y_mesh();
    }
    m.draw()
}

/// Text right of the plotting area, level with `(x, y)` in chart units: value labels.
fn right_label<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Chart2d<'_, DB>,
    y: f64,
    s: &str,
) -> DrawResult<DB> {
    let (px, _) = chart.plotting_area().get_pixel_range();
    let (_, py) = chart.backend_coord(&(0.0, y));
    root.draw(&Text::new(
        s.to_string(),
        (px.end + 12, py),
        font(LABEL_SIZE).pos(Pos::new(HPos::Left, VPos::Center)),
    ))
}

/// Room for value labels right of a plot, with slack for a viewer's wider font.
fn right_width(labels: &[String]) -> u32 {
    let widest = labels
        .iter()
        .map(|l| text_width(l, LABEL_SIZE))
        .max()
        .unwrap_or(0);
    widest + widest / 8 + 28
}

/// A message in the middle of an empty plot.
fn message<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, s: &str) -> DrawResult<DB> {
    let (w, h) = area.dim_in_pixel();
    area.draw(&Text::new(
        s.to_string(),
        (w as i32 / 2, h as i32 / 2),
        font(16.0).pos(Pos::new(HPos::Center, VPos::Center)),
    ))
}

fn titled<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
) -> Result<DrawingArea<DB, Shift>, DrawingAreaErrorKind<DB::ErrorType>> {
    root.titled(title, font(TITLE_SIZE))
}

/// A horizontal line segment in chart units.
fn hline(x0: f64, x1: f64, y: f64, style: ShapeStyle) -> PathElement<(f64, f64)> {
    PathElement::new(vec![(x0, y), (x1, y)], style)
}

fn vline(x: f64, y0: f64, y1: f64, style: ShapeStyle) -> PathElement<(f64, f64)> {
    PathElement::new(vec![(x, y0), (x, y1)], style)
}

fn dashed_v<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    x: f64,
    y: &Axis,
    style: ShapeStyle,
) -> DrawResult<DB> {
    chart.draw_series(std::iter::once(DashedPathElement::new(
        vec![(x, y.lo), (x, y.hi)],
        6,
        4,
        style,
    )))?;
    Ok(())
}

fn dashed_h<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    y: f64,
    x: &Axis,
    style: ShapeStyle,
) -> DrawResult<DB> {
    chart.draw_series(std::iter::once(DashedPathElement::new(
        vec![(x.lo, y), (x.hi, y)],
        6,
        4,
        style,
    )))?;
    Ok(())
}

/// A box plot row: box from the quartiles, a bar at the median, whiskers to the 5th
/// and 95th percentiles, a white dot at the mean.
#[derive(Clone, Copy, Debug)]
struct Boxed {
    p5: f64,
    q1: f64,
    median: f64,
    q3: f64,
    p95: f64,
    mean: f64,
}

impl Boxed {
    fn of(sorted: &[u64]) -> Option<Boxed> {
        if sorted.is_empty() {
            return None;
        }
        Some(Boxed {
            p5: quantile(sorted, 0.05),
            q1: quantile(sorted, 0.25),
            median: quantile(sorted, 0.5),
            q3: quantile(sorted, 0.75),
            p95: quantile(sorted, 0.95),
            mean: sorted.iter().map(|&v| v as f64).sum::<f64>() / sorted.len() as f64,
        })
    }
}

fn draw_box<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    x: &Axis,
    y: f64,
    b: &Boxed,
    c: RGBColor,
) -> DrawResult<DB> {
    let (h, cap) = (0.3, 0.16);
    let whisker = INK.stroke_width(1);
    chart.draw_series([
        hline(x.at(b.p5), x.at(b.q1), y, whisker),
        hline(x.at(b.q3), x.at(b.p95), y, whisker),
        vline(x.at(b.p5), y - cap, y + cap, whisker),
        vline(x.at(b.p95), y - cap, y + cap, whisker),
    ])?;
    chart.draw_series([
        Rectangle::new(
            [(x.at(b.q1), y - h), (x.at(b.q3), y + h)],
            c.mix(0.45).filled(),
        ),
        Rectangle::new(
            [(x.at(b.q1), y - h), (x.at(b.q3), y + h)],
            c.stroke_width(2),
        ),
    ])?;
    chart.draw_series([vline(x.at(b.median), y - h, y + h, INK.stroke_width(3))])?;
    chart.draw_series([
        Circle::new((x.at(b.mean), y), 5, WHITE.filled()),
        Circle::new((x.at(b.mean), y), 5, INK.stroke_width(1)),
    ])?;
    Ok(())
}

/// What a plot shows and from which data.
enum Kind<'a> {
    Elo(&'a Tour),
    HeadToHead(&'a Tour),
    Nodes(&'a Tour),
    Depth(&'a Tour),
    Nps(&'a Tour),
    Lengths(&'a Tour),
    FirstPlayer(&'a Tour),
    Convergence(&'a Tour),
    Sprt(&'a Tour),
    Tuning(&'a Tune),
    Loss(&'a Tune),
}

struct Spec<'a> {
    name: String,
    title: String,
    caption: String,
    size: (u32, u32),
    kind: Kind<'a>,
}

/// Height of a plot with `n` rows.
fn rows_height(n: usize) -> u32 {
    (120 + 40 * n as u32).max(260)
}

/// The plots of a tournament, file names prefixed with `prefix`.
pub(crate) fn render_tournament(t: &Tour, prefix: &str) -> Result<Vec<Rendered>, ReportError> {
    // Layouts measure text: the font must be there before the first size is computed.
    register_fonts()?;
    let s = &t.summary;
    let n = s.engines.len();
    let np = s.pairings.len();
    let mut specs = vec![
        Spec {
            name: "elo".into(),
            title: "Elo ladder".into(),
            caption: "Each engine's rating (dot) with its 95 % interval (bar), fitted by \
                      maximum likelihood to all games. 0 (dashed) is the pool's average, \
                      or the anchor engine's rating when the config names one."
                .into(),
            size: (WIDTH, rows_height(n)),
            kind: Kind::Elo(t),
        },
        Spec {
            name: "head-to-head".into(),
            title: "Head-to-head: score of the row engine against the column engine".into(),
            caption: "Points per game of the row engine (a win is 1, a draw ½) against the \
                      column engine, and the games played. Orange: the row engine scored \
                      more; blue: less."
                .into(),
            size: (WIDTH, h2h_height(t)),
            kind: Kind::HeadToHead(t),
        },
        Spec {
            name: "nodes-per-move".into(),
            title: "Nodes per move".into(),
            caption: "Positions searched per move, log scale. Box: middle half of the moves \
                      (quartiles); black bar: median; whiskers: 5th to 95th percentile; \
                      white dot: mean."
                .into(),
            size: (WIDTH, rows_height(n)),
            kind: Kind::Nodes(t),
        },
    ];
    if s.engines.iter().any(|e| !e.nodes_by_depth.is_empty()) {
        specs.push(Spec {
            name: "nodes-by-depth".into(),
            title: "Mean nodes to complete each search depth".into(),
            caption: "Mean positions searched (cumulative) by the time iterative deepening \
                      completed each depth, log scale: what move ordering buys shows as a \
                      flatter line. EBF, the effective branching factor, is the geometric \
                      mean of N(d) / N(d−1), that is (N(D) / N(1))^(1/(D−1)), up to the \
                      deepest depth D that at least half the moves completed (solid); \
                      depths fewer moves reached are dashed."
                .into(),
            size: (WIDTH, 520),
            kind: Kind::Depth(t),
        });
    }
    specs.extend([
        Spec {
            name: "nps".into(),
            title: "Search speed".into(),
            caption: "Nodes per second over all of an engine's moves. Measured: it depends \
                      on the machine and on what else ran, unlike node counts."
                .into(),
            size: (WIDTH, rows_height(n)),
            kind: Kind::Nps(t),
        },
        Spec {
            name: "game-length".into(),
            title: "Game length by pairing".into(),
            caption: "Plies played from the opening position. Box: quartiles; black bar: \
                      median; whiskers: 5th to 95th percentile; white dot: mean."
                .into(),
            size: (WIDTH, rows_height(np)),
            kind: Kind::Lengths(t),
        },
        Spec {
            name: "first-player".into(),
            title: "First player's score by pairing".into(),
            caption: "Points per game of whoever moved first (from the opening), with a 95 % \
                      interval. Right of 50 % the first move is an advantage."
                .into(),
            size: (WIDTH, rows_height(np + 1)),
            kind: Kind::FirstPlayer(t),
        },
    ]);
    let with_trajectory = convergence_pairings(t).len();
    if with_trajectory > 0 {
        specs.push(Spec {
            name: "convergence".into(),
            title: "Elo as the games came in".into(),
            caption: "Each pairing's Elo (first engine's view) after each complete game \
                      pair, with its 95 % interval (shaded): where the estimate settles and \
                      how fast the interval narrows."
                .into(),
            size: (WIDTH, convergence_height(with_trajectory)),
            kind: Kind::Convergence(t),
        });
    }
    let has_llr = s
        .pairings
        .first()
        .is_some_and(|p| p.trajectory.iter().any(|q| q.llr.is_some()));
    if let (Some(sprt), true) = (&s.sprt, has_llr) {
        specs.push(Spec {
            name: "sprt".into(),
            title: format!(
                "SPRT [{}, {}]: LLR {:.2} after {} game pairs, {}",
                sprt.config.elo0, sprt.config.elo1, sprt.llr, sprt.pairs, sprt.decision
            ),
            caption: "The test stops when the LLR leaves the band: above the upper bound it \
                      accepts H1 (the first engine is stronger by elo1), below the lower \
                      bound H0."
                .into(),
            size: (WIDTH, 440),
            kind: Kind::Sprt(t),
        });
    }
    for spec in &mut specs {
        spec.name = format!("{prefix}{}", spec.name);
    }
    render_all(specs)
}

/// The plots of a tuning run (a fit's loss curve too).
pub(crate) fn render_tuning(tune: &Tune) -> Result<Vec<Rendered>, ReportError> {
    register_fonts()?;
    let (title, caption) = if tune.x == "epoch" {
        (
            "Parameters during the fit (fraction of each range)",
            "Each fitted parameter's value after each epoch, as a fraction of its range \
             (0 % = min, 100 % = max). The legend gives start → fitted values.",
        )
    } else {
        (
            "Parameters during tuning (fraction of each range)",
            "Each tuned parameter's value after each batch, as a fraction of its \
             range (0 % = min, 100 % = max), against the game pairs played. The \
             legend gives start → tuned values.",
        )
    };
    let mut specs = vec![Spec {
        name: "tuning".into(),
        title: title.into(),
        caption: caption.into(),
        size: (WIDTH, (140 + 22 * tune.params.len() as u32).max(480)),
        kind: Kind::Tuning(tune),
    }];
    if !tune.losses.is_empty() {
        specs.push(Spec {
            name: "loss".into(),
            title: "Loss per epoch".into(),
            caption: "Mean loss of sigmoid(K · eval) against the game results, on the \
                      training positions and on the held-out validation games (epoch 0: \
                      the base table). Validation rising while training falls is \
                      over-fitting."
                .into(),
            size: (WIDTH, 440),
            kind: Kind::Loss(tune),
        });
    }
    render_all(specs)
}

fn render_all(specs: Vec<Spec<'_>>) -> Result<Vec<Rendered>, ReportError> {
    register_fonts()?;
    specs.into_par_iter().map(render).collect()
}

fn render(spec: Spec<'_>) -> Result<Rendered, ReportError> {
    let (w, h) = spec.size;
    let fail = |message: String| ReportError::Plot {
        name: spec.name.clone(),
        message,
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        draw(&spec, &root).map_err(|e| fail(e.to_string()))?;
        root.present().map_err(|e| fail(e.to_string()))?;
    }
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    {
        let backend = super::raster::Kerned::new(
            BitMapBackend::with_buffer(&mut rgb, (w, h)),
            ttf_noto_sans::REGULAR,
        );
        let root = backend.into_drawing_area();
        draw(&spec, &root).map_err(|e| fail(e.to_string()))?;
        root.present().map_err(|e| fail(e.to_string()))?;
    }
    let png = encode_png(&rgb, w, h).map_err(|e| fail(e.to_string()))?;
    // Opened on its own, an SVG uses the viewer's fonts: ask for the font the layout was
    // measured with first, then ones of similar or smaller width.
    let svg = svg.replace(
        "font-family=\"sans-serif\"",
        "font-family=\"Noto Sans, Liberation Sans, Arial, Helvetica, sans-serif\"",
    );
    Ok(Rendered {
        name: spec.name,
        title: spec.title,
        caption: spec.caption,
        svg,
        png,
    })
}

fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(rgb)?;
        writer.finish()?;
    }
    Ok(out)
}

fn draw<DB: DrawingBackend>(spec: &Spec<'_>, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let area = titled(root, &spec.title)?;
    match spec.kind {
        Kind::Elo(t) => elo_ladder(root, &area, t),
        Kind::HeadToHead(t) => head_to_head(&area, t),
        Kind::Nodes(t) => nodes_per_move(root, &area, t),
        Kind::Depth(t) => nodes_by_depth(&area, t),
        Kind::Nps(t) => nps(root, &area, t),
        Kind::Lengths(t) => game_lengths(root, &area, t),
        Kind::FirstPlayer(t) => first_player(root, &area, t),
        Kind::Convergence(t) => convergence(&area, t),
        Kind::Sprt(t) => sprt(root, &area, t),
        Kind::Tuning(tune) => tuning(&area, tune),
        Kind::Loss(tune) => loss(&area, tune),
    }
}

fn names(t: &Tour, engines: &[usize]) -> Vec<String> {
    engines
        .iter()
        .map(|&e| t.summary.engines[e].name.clone())
        .collect()
}

fn elo_ladder<DB: DrawingBackend>(
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
    let labels = y.rows.clone().unwrap_or_default();
    let mut chart = build(area, &x, &y, label_area(&labels), right_width(&values))?;
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

fn h2h_height(t: &Tour) -> u32 {
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

fn head_to_head<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, t: &Tour) -> DrawResult<DB> {
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

fn nodes_per_move<DB: DrawingBackend>(
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
    let labels = y.rows.clone().unwrap_or_default();
    let mut chart = build(area, &x, &y, label_area(&labels), right_width(&values))?;
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

fn nodes_by_depth<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, t: &Tour) -> DrawResult<DB> {
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
    let legend_w = legend
        .iter()
        .map(|(_, l)| text_width(l, LABEL_SIZE))
        .max()
        .unwrap_or(0)
        + 70;
    let (plot_area, legend_area) = area.split_horizontally(WIDTH.saturating_sub(legend_w));
    let all = s.engines.iter().flat_map(|e| e.nodes_by_depth.iter());
    let (mut dmax, mut lo, mut hi) = (1u32, f64::MAX, 0.0f64);
    for &(d, _, n) in all {
        dmax = dmax.max(d);
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
        let used = depths_for_ebf(by_depth).len();
        let pts: Vec<(f64, f64)> = by_depth
            .iter()
            .map(|&(d, _, n)| (f64::from(d), y.at(n)))
            .collect();
        chart.draw_series(std::iter::once(PathElement::new(
            pts[..used].to_vec(),
            c.stroke_width(3),
        )))?;
        if used < pts.len() {
            chart.draw_series(std::iter::once(DashedPathElement::new(
                pts[used - 1..].to_vec(),
                6,
                4,
                c.stroke_width(2),
            )))?;
        }
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
    }
    draw_legend(&legend_area, &legend, 20, false)
}

/// A legend in its own area (never over data): a line sample in the entry's colour and
/// its text, one entry a row. `tuning`: lines without point markers, dashed past the
/// palette (as the tuning plot draws them).
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(usize, String)],
    top: i32,
    tuning: bool,
) -> DrawResult<DB> {
    for (k, (c, label)) in entries.iter().enumerate() {
        let y = top + 22 * k as i32;
        let style = color(*c).stroke_width(3);
        if tuning && *c >= PALETTE.len() {
            area.draw(&DashedPathElement::new(vec![(8, y), (40, y)], 6, 4, style))?;
        } else {
            area.draw(&PathElement::new(vec![(8, y), (40, y)], style))?;
        }
        if !tuning {
            area.draw(&Circle::new((24, y), 4, color(*c).filled()))?;
        }
        area.draw(&Text::new(
            label.clone(),
            (48, y),
            font(LABEL_SIZE).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

fn nps<DB: DrawingBackend>(
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
    let labels = y.rows.clone().unwrap_or_default();
    let mut chart = build(area, &x, &y, label_area(&labels), right_width(&values))?;
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

fn game_lengths<DB: DrawingBackend>(
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
    let mut chart = build(area, &x, &y, label_area(&labels), right_width(&values))?;
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

fn first_player<DB: DrawingBackend>(
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
    let mut chart = build(area, &x, &y, label_area(&labels), right_width(&values))?;
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

/// Pairings with at least one Elo on their trajectory.
fn convergence_pairings(t: &Tour) -> Vec<usize> {
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

fn convergence_height(n: usize) -> u32 {
    let (rows, cols) = convergence_grid(n);
    if cols == 1 {
        440
    } else {
        50 + 270 * rows as u32
    }
}

fn convergence<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, t: &Tour) -> DrawResult<DB> {
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
        let xf = |v: &f64| x.label(*v);
        let yf = |v: &f64| y.label(*v);
        chart
            .configure_mesh()
            .x_label_formatter(&xf)
            .y_label_formatter(&yf)
            .label_style(font(size))
            .axis_desc_style(font(size))
            .bold_line_style(GRID)
            .light_line_style(TRANSPARENT)
            .axis_style(RGBColor(0x88, 0x88, 0x88))
            .x_desc("games")
            .y_desc(if small {
                "Elo"
            } else {
                "Elo of the first engine"
            })
            .draw()?;
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

fn sprt<DB: DrawingBackend>(
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

fn tuning<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, tune: &Tune) -> DrawResult<DB> {
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
    let legend_w = legend
        .iter()
        .map(|(_, l)| text_width(l, LABEL_SIZE))
        .max()
        .unwrap_or(0)
        + 60;
    let (plot_area, legend_area) =
        area.split_horizontally(WIDTH.saturating_sub(legend_w.min(WIDTH / 2)));
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

fn loss<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, tune: &Tune) -> DrawResult<DB> {
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

/// One pairing's Elo at each point of a sweep: (x, Elo, interval low, interval high).
pub type ScalingSeries = (String, Vec<(f64, f64, f64, f64)>);

/// The sweep plot as SVG: Elo with its 95 % interval against the swept value, one colour
/// per pairing (slightly offset sideways so the bars do not hide each other). Infinite
/// Elo values and interval ends are drawn at the edge of the plot.
pub(crate) fn scaling_svg(key: &str, series: &[ScalingSeries]) -> Result<String, ReportError> {
    register_fonts()?;
    let finite = series
        .iter()
        .flat_map(|(_, points)| points.iter())
        .flat_map(|&(_, e, lo, hi)| [e, lo, hi])
        .filter(|v| v.is_finite());
    let (mut y0, mut y1) = finite.fold((-50.0f64, 50.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let pad = 0.05 * (y1 - y0);
    (y0, y1) = (y0 - pad, y1 + pad);
    let xs = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.0));
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let (x0, x1) = if x0.is_finite() { (x0, x1) } else { (0.0, 1.0) };
    let span = (x1 - x0).max(1.0);
    let (x0, x1) = (x0 - 0.1 * span, x1 + 0.1 * span);
    let clamp = |v: f64| v.clamp(y0, y1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, 420)).into_drawing_area();
        let plot = |root: &DrawingArea<SVGBackend<'_>, Shift>| -> DrawResult<SVGBackend<'_>> {
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(root)
                .caption(format!("Elo against {key} (95 % intervals)"), font(14.0))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(56)
                .build_cartesian_2d(x0..x1, y0..y1)?;
            chart
                .configure_mesh()
                .label_style(font(LABEL_SIZE))
                .axis_desc_style(font(DESC_SIZE))
                .bold_line_style(GRID)
                .light_line_style(TRANSPARENT)
                .x_desc(key)
                .y_desc("Elo (first engine's view)")
                .draw()?;
            chart.draw_series(std::iter::once(hline(x0, x1, 0.0, GRID.stroke_width(1))))?;
            let n = series.len().max(1) as f64;
            for (i, (label, points)) in series.iter().enumerate() {
                let c = color(i);
                let offset = (i as f64 - (n - 1.0) / 2.0) * 0.03 * span;
                let at = |p: &(f64, f64, f64, f64)| (p.0 + offset, clamp(p.1));
                chart
                    .draw_series(LineSeries::new(points.iter().map(at), c.stroke_width(2)))?
                    .label(label.clone())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                    });
                for p in points {
                    let x = p.0 + offset;
                    chart.draw_series(std::iter::once(vline(
                        x,
                        clamp(p.2),
                        clamp(p.3),
                        c.stroke_width(1),
                    )))?;
                    chart.draw_series(std::iter::once(Circle::new(at(p), 3, c.filled())))?;
                }
            }
            chart
                .configure_series_labels()
                .label_font(font(LABEL_SIZE))
                .background_style(WHITE.mix(0.8))
                .border_style(GRID)
                .position(SeriesLabelPosition::UpperLeft)
                .draw()?;
            root.present()
        };
        plot(&root).map_err(|e| ReportError::Plot {
            name: "scaling".into(),
            message: e.to_string(),
        })?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_covers_the_values() {
        let a = Axis::log(37.0, 52_000.0);
        assert_eq!((a.lo, a.hi), (1.0, 5.0));
        assert_eq!(a.label(3.0), "1k");
        assert!(a.at(37.0) > 1.5 && a.at(37.0) < 1.6);
    }

    #[test]
    fn linear_ticks_are_nice() {
        let a = Axis::linear(-13.0, 47.0);
        assert_eq!(a.ticks, vec![-10.0, 0.0, 10.0, 20.0, 30.0, 40.0]);
        assert_eq!(nice_step(0.7), 0.5);
    }

    #[test]
    fn rows_run_top_down() {
        let a = Axis::rows(vec!["first".into(), "second".into(), "third".into()]);
        assert_eq!(a.row(0), 2.0);
        assert_eq!(a.label(2.0), "first");
        assert_eq!(a.label(0.0), "third");
    }

    #[test]
    fn long_names_are_shortened() {
        register_fonts().unwrap();
        let long = "x".repeat(400);
        let f = fit(&long, LABEL_SIZE, 100);
        assert!(f.ends_with('…') && text_width(&f, LABEL_SIZE) <= 100, "{f}");
        assert_eq!(fit("short", LABEL_SIZE, 100), "short");
    }

    #[test]
    fn diverging_ends() {
        assert_eq!(diverging(0.0), RGBColor(0, 114, 178));
        assert_eq!(diverging(1.0), RGBColor(213, 94, 0));
    }
}
