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

mod branching;
mod ladder;
mod lengths;
mod matrix;
mod nodes;
mod progress;
mod scaling;
mod sprt;
mod tuning;

pub use self::scaling::ScalingSeries;
pub(crate) use self::scaling::scaling_svg;
use self::{
    branching::nodes_by_depth,
    ladder::elo_ladder,
    lengths::{first_player, game_lengths},
    matrix::{h2h_height, head_to_head},
    nodes::{nodes_per_move, nps},
    progress::{convergence, convergence_height, convergence_pairings},
    sprt::sprt,
    tuning::{loss, tuning},
};
use super::{
    ReportError,
    load::{Tour, quantile},
    text,
    tuning::Tune,
};
use crate::stats::{
    Wdl,
    branching::{deepest_shown_of, ebf_span, effective_branching_factor},
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

/// The bundled font, as the plots measure text.
fn measuring_font() -> &'static ab_glyph::FontRef<'static> {
    static FONT: OnceLock<ab_glyph::FontRef<'static>> = OnceLock::new();
    FONT.get_or_init(|| {
        ab_glyph::FontRef::try_from_slice(ttf_noto_sans::REGULAR).expect("the bundled font parses")
    })
}

/// Width in pixels of `s` drawn at `size` (as the SVG's viewer and the PNG draw it).
fn text_width(s: &str, size: f64) -> u32 {
    super::raster::text_width(measuring_font(), s, size).ceil() as u32
}

/// `s`, shortened with an ellipsis to at most `max` pixels at `size`: the longest
/// prefix that fits with the ellipsis, every prefix measured in one pass (time linear in
/// the length of `s`).
fn fit(s: &str, size: f64, max: u32) -> String {
    if text_width(s, size) <= max {
        return s.to_string();
    }
    let chars: Vec<char> = s.chars().collect();
    let widths = super::raster::prefix_widths_with(measuring_font(), &chars, '…', size);
    match (1..chars.len())
        .rev()
        .find(|&n| widths[n].ceil() as u32 <= max)
    {
        Some(n) => chars[..n].iter().collect::<String>() + "…",
        None => "…".into(),
    }
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
    mesh_sized(chart, x, y, (x_desc, y_desc), (LABEL_SIZE, DESC_SIZE))
}

/// [`mesh`] with the tick labels and axis descriptions at `sizes` (small panels).
fn mesh_sized<DB: DrawingBackend>(
    chart: &mut Chart2d<'_, DB>,
    x: &Axis,
    y: &Axis,
    (x_desc, y_desc): (&str, &str),
    (label, desc): (f64, f64),
) -> DrawResult<DB> {
    let xf = |v: &f64| x.label(*v);
    let yf = |v: &f64| y.label(*v);
    let mut m = chart.configure_mesh();
    m.x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style(font(label))
        .axis_desc_style(font(desc))
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
                      deepest depth D that at least half the moves completed (solid), \
                      from the first depth whose count grows (an outside engine may \
                      report more nodes at depth 1 than at depth 2); depths outside \
                      that span are dashed, and depths fewer than a tenth of the moves \
                      reached are left out."
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

/// Splits `area` into the plotting area and, right of it, the room the legend `entries`
/// need (a line sample and `extra` pixels besides the text; at most `max`), so a legend
/// never sits on data.
fn beside_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(usize, String)],
    extra: u32,
    max: u32,
) -> (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>) {
    let legend_w = entries
        .iter()
        .map(|(_, l)| text_width(l, LABEL_SIZE))
        .max()
        .unwrap_or(0)
        + extra;
    let (w, _) = area.dim_in_pixel();
    area.split_horizontally(w.saturating_sub(legend_w.min(max)))
}

/// A chart of the categorical rows `y` on `area`: their labels on the left, room on the
/// right for `values`, one per row.
fn rows_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    x: &Axis,
    y: &Axis,
    values: &[String],
) -> Result<Chart2d<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    let labels = y.rows.clone().unwrap_or_default();
    build(area, x, y, label_area(&labels), right_width(values))
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

#[cfg(test)]
mod tests;
