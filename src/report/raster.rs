//! The PNG plots' drawing backend: plotters' bitmap backend with text drawn properly,
//! and text measured as browsers draw the SVGs.
//!
//! plotters 0.3.7 draws each glyph of a text at the pen position without the glyph's
//! left side bearing, and at whole pixels, so PNG text is unevenly spaced ("h e ad-to-
//! head"). It also sizes PNG text and measures all text with the font's full height
//! (ascent to descent) as the size, while its SVGs say `font-size` = size / 1.24, an em
//! that is about 10 % larger for Noto Sans: text measured for a layout came out shorter
//! than the browser draws it (a legend's last characters cut off at the plot's edge).
//! [`Kerned`] passes every drawing call through to [`BitMapBackend`] except text, which
//! it lays out itself with ab_glyph at the SVG's em ([`em_scale`]): each glyph at its
//! fractional pen position plus kerning, outlined where the font puts it;
//! [`text_width`] measures the same way.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use plotters::prelude::{BitMapBackend, DrawingBackend};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
    text_anchor::{HPos, VPos},
};

/// A bitmap backend whose text is kerned and positioned as the font says.
pub(crate) struct Kerned<'a> {
    inner: BitMapBackend<'a>,
    font: FontRef<'static>,
}

impl<'a> Kerned<'a> {
    /// Wraps `inner`; text is drawn with `font` (the one the plots register).
    ///
    /// # Panics
    /// If `font` is not a font (the bundled Noto Sans is).
    pub(crate) fn new(inner: BitMapBackend<'a>, font: &'static [u8]) -> Kerned<'a> {
        Kerned {
            inner,
            font: FontRef::try_from_slice(font).expect("the bundled font parses"),
        }
    }
}

/// The ab_glyph scale of text plotters calls `size`: an em of `size / 1.24` pixels, the
/// `font-size` its SVG backend writes.
pub(crate) fn em_scale(font: &FontRef<'_>, size: f64) -> PxScale {
    let em = size as f32 / 1.24;
    let upem = font.units_per_em().unwrap_or(1000.0);
    PxScale::from(em * font.height_unscaled() / upem)
}

#[cfg(test)]
thread_local! {
    /// Glyphs measured on this thread, for tests that bound the work of measuring text.
    pub(crate) static GLYPHS_MEASURED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts one glyph measured (in tests only).
fn measured() {
    #[cfg(test)]
    GLYPHS_MEASURED.with(|n| n.set(n.get() + 1));
}

/// Width in pixels of `text` at plotters' `size`, as a browser draws the SVG.
pub(crate) fn text_width(font: &FontRef<'_>, text: &str, size: f64) -> f32 {
    let scaled = font.as_scaled(em_scale(font, size));
    let mut width = 0.0;
    let mut prev = None;
    for c in text.chars() {
        measured();
        let id = scaled.glyph_id(c);
        if let Some(p) = prev {
            width += scaled.kern(p, id);
        }
        width += scaled.h_advance(id);
        prev = Some(id);
    }
    width
}

/// The widths [`text_width`] gives `chars[..n]` followed by `tail`, for every `n` from 0
/// to `chars.len()`: the same sums in the same order, so each is equal to the bit, but
/// all of them in one pass over `chars` (measuring every prefix anew takes time
/// quadratic in the length of the text).
pub(crate) fn prefix_widths_with(
    font: &FontRef<'_>,
    chars: &[char],
    tail: char,
    size: f64,
) -> Vec<f32> {
    let scaled = font.as_scaled(em_scale(font, size));
    let tail_id = scaled.glyph_id(tail);
    let mut widths = Vec::with_capacity(chars.len() + 1);
    let mut width = 0.0;
    let mut prev = None;
    for n in 0..=chars.len() {
        let with_tail = match prev {
            Some(p) => width + scaled.kern(p, tail_id),
            None => width,
        };
        widths.push(with_tail + scaled.h_advance(tail_id));
        let Some(&c) = chars.get(n) else { break };
        measured();
        let id = scaled.glyph_id(c);
        if let Some(p) = prev {
            width += scaled.kern(p, id);
        }
        width += scaled.h_advance(id);
        prev = Some(id);
    }
    widths
}

type Error<'a> = DrawingErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

impl<'a> DrawingBackend for Kerned<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), Error<'a>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), Error<'a>> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Error<'a>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), Error<'a>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Error<'a>> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), Error<'a>> {
        self.inner.blit_bitmap(pos, size, src)
    }

    /// plotters' anchoring and rotation, with each glyph placed at its exact pen
    /// position (kerning and side bearings included).
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), Error<'a>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        // plotters' box for the height; the width as the glyphs are drawn here.
        let ((min_x, min_y), (_, max_y)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let width = text_width(&self.font, text, style.size()).round() as i32;
        let height = max_y - min_y;
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let transform = style.transform();
        let (w, h) = self.get_size();
        let scale = em_scale(&self.font, style.size());
        let font = self.font.as_scaled(scale);
        // plotters puts the baseline half a size below the top of the layout box.
        let baseline = style.size() as f32 / 2.0;
        let mut pen = 0.0f32;
        let mut prev = None;
        let mut pixels = Vec::new();
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                pen += font.kern(p, id);
            }
            prev = Some(id);
            let glyph = id.with_scale_and_position(scale, point(pen, baseline));
            if let Some(outline) = font.outline_glyph(glyph) {
                let bounds = outline.px_bounds();
                outline.draw(|x, y, coverage| {
                    pixels.push((
                        bounds.min.x as i32 + x as i32,
                        bounds.min.y as i32 + y as i32,
                        coverage,
                    ));
                });
            }
            pen += font.h_advance(id);
        }
        for (x, y, coverage) in pixels {
            let (x, y) = transform.transform(x + dx - min_x, y + dy - min_y);
            let (x, y) = (pos.0 + x, pos.1 + y);
            if x >= 0 && x < w as i32 && y >= 0 && y < h as i32 && coverage > 0.0 {
                self.inner.draw_pixel(
                    (x, y),
                    BackendColor {
                        alpha: color.alpha * f64::from(coverage.min(1.0)),
                        rgb: color.rgb,
                    },
                )?;
            }
        }
        Ok(())
    }
}
