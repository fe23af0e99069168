//! PDF pictures: a plotters drawing backend that writes a one-page vector
//! PDF, so that a figure goes into a paper without being rasterised.
//!
//! plotters draws PNG and SVG only. This backend turns its lines, rectangles,
//! circles, polygons and text into PDF path and text operators (through
//! `pdf-writer`, which writes the file's objects and cross-references). One
//! backend unit is one PDF point (1/72 inch). Text is set in Helvetica, and
//! the mathematical signs and Greek letters Helvetica lacks (`≤`, `≥`, `−`,
//! `≠`, `∞`, `π`, …) in Symbol: both are among the 14 standard fonts every
//! PDF reader has, so nothing is embedded and `≤` prints as `≤`. A
//! character neither has is shown as `?`. The anchor is placed with the
//! metrics of the DejaVu font the other formats draw with.
//! Colours with an alpha below 1 get a graphics state of that opacity.

use std::collections::BTreeMap;

use pdf_writer::{Content, Name, Pdf, Rect, Ref, Str};
use plotters::backend::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontTransform,
};

/// Bézier handle length for a quarter circle, as a fraction of the radius.
const KAPPA: f32 = 0.552_284_8;

/// A page being drawn into `out`, which holds the PDF file once the
/// backend is dropped (as plotters' SVG backend fills its string).
pub struct PdfBackend<'a> {
    out: &'a mut Vec<u8>,
    size: (u32, u32),
    content: Content,
    /// Opacities in use (in thousandths), each with its graphics state.
    alphas: BTreeMap<u32, usize>,
}

/// Drawing into a PDF never fails; the error type is never made.
#[derive(Debug, thiserror::Error)]
#[error("PDF drawing error")]
pub struct PdfError;

type Res = Result<(), DrawingErrorKind<PdfError>>;

impl<'a> PdfBackend<'a> {
    /// A page of `width` × `height` points, to be written to `out`.
    pub fn new(out: &'a mut Vec<u8>, width: u32, height: u32) -> Self {
        PdfBackend {
            out,
            size: (width, height),
            content: Content::new(),
            alphas: BTreeMap::new(),
        }
    }

    /// The PDF file: catalog, one page, its font and opacity states, and
    /// the drawing.
    fn file(&mut self) -> Vec<u8> {
        let (catalog, pages, page, font, content, symbol) = (
            Ref::new(1),
            Ref::new(2),
            Ref::new(3),
            Ref::new(4),
            Ref::new(5),
            Ref::new(6),
        );
        let state = |i: usize| Ref::new(7 + i as i32);
        let mut pdf = Pdf::new();
        pdf.catalog(catalog).pages(pages);
        pdf.pages(pages).kids([page]).count(1);
        {
            let mut p = pdf.page(page);
            let (w, h) = self.size;
            p.media_box(Rect::new(0.0, 0.0, w as f32, h as f32));
            p.parent(pages);
            p.contents(content);
            let mut res = p.resources();
            res.fonts()
                .pair(Name(TEXT), font)
                .pair(Name(SYMBOL), symbol);
            if !self.alphas.is_empty() {
                let mut states = res.ext_g_states();
                for &i in self.alphas.values() {
                    states.pair(Name(state_name(i).as_bytes()), state(i));
                }
            }
        }
        pdf.type1_font(font)
            .base_font(Name(b"Helvetica"))
            .encoding_predefined(Name(b"WinAnsiEncoding"));
        // Symbol's own encoding: no /Encoding entry.
        pdf.type1_font(symbol).base_font(Name(b"Symbol"));
        for (&milli, &i) in &self.alphas {
            let a = milli as f32 / 1000.0;
            pdf.ext_graphics(state(i))
                .non_stroking_alpha(a)
                .stroking_alpha(a);
        }
        let drawing = std::mem::replace(&mut self.content, Content::new()).finish();
        pdf.stream(content, &drawing);
        pdf.finish()
    }

    /// PDF's y grows upwards from the bottom edge.
    fn y(&self, y: i32) -> f32 {
        self.size.1 as f32 - y as f32
    }

    /// Sets the colour for fills (`fill`) or strokes, and its opacity.
    fn color(&mut self, c: BackendColor, fill: bool) {
        let (r, g, b) = c.rgb;
        let (r, g, b) = (r as f32 / 255.0, g as f32 / 255.0, b as f32 / 255.0);
        if fill {
            self.content.set_fill_rgb(r, g, b);
        } else {
            self.content.set_stroke_rgb(r, g, b);
        }
        let milli = (c.alpha.clamp(0.0, 1.0) * 1000.0).round() as u32;
        if milli < 1000 {
            let next = self.alphas.len();
            let i = *self.alphas.entry(milli).or_insert(next);
            self.content.set_parameters(Name(state_name(i).as_bytes()));
        }
    }

    /// A path through `points`: stroked `width` wide, or closed and filled.
    fn polyline(
        &mut self,
        points: impl IntoIterator<Item = BackendCoord>,
        color: BackendColor,
        fill: bool,
        width: f32,
    ) {
        if color.alpha == 0.0 {
            return;
        }
        let points: Vec<(f32, f32)> = points
            .into_iter()
            .map(|(x, y)| (x as f32, self.y(y)))
            .collect();
        let Some((&(x, y), rest)) = points.split_first() else {
            return;
        };
        self.with_color(color, fill, |c| {
            // The width is graphics state: set before the path begins.
            if !fill {
                c.set_line_width(width);
            }
            c.move_to(x, y);
            for &(x, y) in rest {
                c.line_to(x, y);
            }
            if fill {
                c.close_path().fill_nonzero();
            } else {
                c.stroke();
            }
        });
    }

    /// Draws with `c` at its opacity, then goes back to opaque drawing.
    fn with_color(&mut self, c: BackendColor, fill: bool, draw: impl FnOnce(&mut Content)) {
        self.content.save_state();
        self.color(c, fill);
        draw(&mut self.content);
        self.content.restore_state();
    }
}

fn state_name(i: usize) -> String {
    format!("GS{i}")
}

/// The resource names of the two fonts: Helvetica and Symbol.
const TEXT: &[u8] = b"F1";
const SYMBOL: &[u8] = b"F2";

/// `c` in WinAnsiEncoding (Helvetica's), if it has it.
fn win_ansi(c: char) -> Option<u8> {
    Some(match c {
        ' '..='~' | '\u{a0}'..='\u{ff}' => c as u32 as u8,
        '€' => 0x80,
        '…' => 0x85,
        '‘' => 0x91,
        '’' => 0x92,
        '“' => 0x93,
        '”' => 0x94,
        '•' => 0x95,
        '–' => 0x96,
        '—' => 0x97,
        _ => return None,
    })
}

/// `c` in the Symbol font's built-in encoding, for what WinAnsi lacks.
fn symbol(c: char) -> Option<u8> {
    const GREEK: &str = "ΑΒΧΔΕΦΓΗΙ ΚΛΜΝΟΠΘΡΣΤΥ ΩΞΨΖ";
    const GREEK_SMALL: &str = "αβχδεφγηι κλμνοπθρστυ ωξψζ";
    if let Some(i) = GREEK.chars().position(|g| g == c && g != ' ') {
        return Some(b'A' + i as u8);
    }
    if let Some(i) = GREEK_SMALL.chars().position(|g| g == c && g != ' ') {
        return Some(b'a' + i as u8);
    }
    Some(match c {
        '−' => 0x2d,
        '≤' => 0xa3,
        '∞' => 0xa5,
        '←' => 0xac,
        '→' => 0xae,
        '≥' => 0xb3,
        '∝' => 0xb5,
        '∂' => 0xb6,
        '≠' => 0xb9,
        '≡' => 0xba,
        '≈' => 0xbb,
        '∈' => 0xce,
        '∉' => 0xcf,
        '∇' => 0xd1,
        '∏' => 0xd5,
        '√' => 0xd6,
        '⋅' => 0xd7,
        '∑' => 0xe5,
        _ => return None,
    })
}

/// `text` as runs of (font, bytes): Helvetica where WinAnsi has the
/// character, Symbol where it has it, `?` in Helvetica otherwise.
fn runs(text: &str) -> Vec<(&'static [u8], Vec<u8>)> {
    let mut out: Vec<(&'static [u8], Vec<u8>)> = Vec::new();
    for c in text.chars() {
        let (font, byte) = match (win_ansi(c), symbol(c)) {
            (Some(b), _) => (TEXT, b),
            (None, Some(b)) => (SYMBOL, b),
            (None, None) => (TEXT, b'?'),
        };
        match out.last_mut() {
            Some((f, bytes)) if *f == font => bytes.push(byte),
            _ => out.push((font, vec![byte])),
        }
    }
    out
}

impl Drop for PdfBackend<'_> {
    fn drop(&mut self) {
        *self.out = self.file();
    }
}

impl DrawingBackend for PdfBackend<'_> {
    type ErrorType = PdfError;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Res {
        Ok(())
    }

    fn present(&mut self) -> Res {
        Ok(())
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Res {
        if color.alpha > 0.0 {
            let (x, y) = (point.0 as f32, self.y(point.1) - 1.0);
            self.with_color(color, true, |c| {
                c.rect(x, y, 1.0, 1.0).fill_nonzero();
            });
        }
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Res {
        self.draw_path([from, to], style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Res {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (x0, x1) = (upper_left.0 as f32, bottom_right.0 as f32);
        let (y0, y1) = (self.y(bottom_right.1), self.y(upper_left.1));
        let width = style.stroke_width() as f32;
        self.with_color(style.color(), fill, |c| {
            if fill {
                c.rect(x0, y0, x1 - x0 + 1.0, y1 - y0 + 1.0).fill_nonzero();
            } else {
                c.set_line_width(width)
                    .rect(x0, y0, x1 - x0, y1 - y0)
                    .stroke();
            }
        });
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Res {
        self.polyline(path, style.color(), false, style.stroke_width() as f32);
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Res {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (x, y, r) = (center.0 as f32, self.y(center.1), radius as f32);
        let k = KAPPA * r;
        let width = style.stroke_width() as f32;
        self.with_color(style.color(), fill, |c| {
            if !fill {
                c.set_line_width(width);
            }
            c.move_to(x + r, y)
                .cubic_to(x + r, y + k, x + k, y + r, x, y + r)
                .cubic_to(x - k, y + r, x - r, y + k, x - r, y)
                .cubic_to(x - r, y - k, x - k, y - r, x, y - r)
                .cubic_to(x + k, y - r, x + r, y - k, x + r, y)
                .close_path();
            if fill {
                c.fill_nonzero();
            } else {
                c.stroke();
            }
        });
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Res {
        self.polyline(vert, style.color(), true, 0.0);
        Ok(())
    }

    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, pos: BackendCoord) -> Res {
        let color = style.color();
        if color.alpha == 0.0 || text.is_empty() {
            return Ok(());
        }
        // The anchor as the other formats place it, from the layout box.
        let ((x0, y0), (x1, y1)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let (w, h) = ((x1 - x0) as f32, (y1 - y0) as f32);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0.0,
            HPos::Center => -w / 2.0,
            HPos::Right => -w,
        };
        // Baseline below the box's top: Helvetica's ascent, about 0.72 em.
        let size = style.size() as f32;
        let dy = match style.anchor().v_pos {
            VPos::Top => 0.0,
            VPos::Center => -h / 2.0,
            VPos::Bottom => -h,
        } + 0.72 * size;
        // Rotations turn the offset and the text about the anchor.
        let (cos, sin) = match style.transform() {
            FontTransform::None => (1.0, 0.0),
            FontTransform::Rotate90 => (0.0, 1.0),
            FontTransform::Rotate180 => (-1.0, 0.0),
            FontTransform::Rotate270 => (0.0, -1.0),
        };
        // (dx, dy) in plotters' frame (y down), turned, then flipped.
        let (ox, oy) = (dx * cos - dy * sin, dx * sin + dy * cos);
        let (x, y) = (pos.0 as f32 + ox, self.y(pos.1) - oy);
        self.with_color(color, true, |c| {
            c.begin_text().set_text_matrix([cos, -sin, sin, cos, x, y]);
            // Each show moves the pen on: the runs follow each other.
            for (font, bytes) in runs(text) {
                c.set_font(Name(font), size).show(Str(&bytes));
            }
            c.end_text();
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    fn text(bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).into_owned()
    }

    #[test]
    fn a_page_of_the_asked_size_with_shapes_and_text() {
        let mut pdf = Vec::new();
        let mut b = PdfBackend::new(&mut pdf, 432, 216);
        let red = RGBColor(255, 0, 0);
        b.draw_line((10, 20), (110, 20), &red).unwrap();
        b.draw_circle((50, 50), 4, &red, false).unwrap();
        b.draw_rect((0, 0), (9, 9), &GREEN.mix(0.25), true).unwrap();
        let font = (crate::font::font(), 12).into_font();
        b.draw_text("G(n) 2·10", &font.color(&BLACK), (30, 100))
            .unwrap();
        drop(b);
        let s = text(&pdf);
        assert!(s.starts_with("%PDF-"), "{}", &s[..20]);
        assert!(s.trim_end().ends_with("%%EOF"));
        assert!(s.contains("/MediaBox [0 0 432 216]"), "{s}");
        assert!(s.contains("/BaseFont /Helvetica"));
        // The 25% green fill has its graphics state.
        assert!(s.contains("/ca 0.25"), "{s}");
    }

    #[test]
    fn y_is_flipped_and_text_is_win_ansi() {
        let mut out = Vec::new();
        let mut b = PdfBackend::new(&mut out, 100, 50);
        b.draw_line((0, 0), (100, 0), &BLACK).unwrap();
        let content = text(&std::mem::replace(&mut b.content, Content::new()).finish());
        // plotters' top edge (y = 0) is PDF's y = 50.
        assert!(content.contains("0 50 m"), "{content}");
        assert!(content.contains("100 50 l"), "{content}");
        let runs = runs("a−b·c✓ 0 ≤ n π");
        let want: Vec<(&[u8], Vec<u8>)> = vec![
            (TEXT, b"a".to_vec()),
            (SYMBOL, b"-".to_vec()),
            (TEXT, b"b\xb7c? 0 ".to_vec()),
            (SYMBOL, b"\xa3".to_vec()),
            (TEXT, b" n ".to_vec()),
            (SYMBOL, b"p".to_vec()),
        ];
        assert_eq!(runs, want);
    }
}
