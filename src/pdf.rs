//! PDF pictures: a plotters drawing backend that writes a one-page vector
//! PDF, so that a figure goes into a paper without being rasterised.
//!
//! plotters draws PNG and SVG only. This backend turns its lines, rectangles,
//! circles, polygons and text into PDF path and text operators (through
//! `pdf-writer`, which writes the file's objects and cross-references). One
//! backend unit is one PDF point (1/72 inch). Text is set in DejaVu Sans,
//! the font the other formats draw with, **embedded**: a subset of the
//! glyphs the page uses (the `subsetter` crate), as a CID font with a
//! ToUnicode map, so that `≤`, `−` and Greek print as drawn, text can be
//! copied out, and journals that ask for every font embedded take the file.
//! A character the font lacks is shown as `?`. Colours with an alpha below
//! 1 get a graphics state of that opacity.

use std::collections::BTreeMap;

use ab_glyph::{Font as _, FontRef, GlyphId};
use pdf_writer::types::{CidFontType, FontFlags, SystemInfo, UnicodeCmap};
use pdf_writer::{Content, Filter, Name, Pdf, Rect, Ref, Str};
use plotters::backend::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontTransform,
};
use subsetter::GlyphRemapper;

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
    /// The glyphs the text uses, numbered as in the embedded subset.
    glyphs: Glyphs,
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
            glyphs: Glyphs::new(),
        }
    }

    /// The PDF file: catalog, one page, its font and opacity states, and
    /// the drawing.
    fn file(&mut self) -> Vec<u8> {
        let (catalog, pages, page, font, content) = (
            Ref::new(1),
            Ref::new(2),
            Ref::new(3),
            Ref::new(4),
            Ref::new(5),
        );
        let state = |i: usize| Ref::new(10 + i as i32);
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
            if !self.glyphs.is_empty() {
                res.fonts().pair(Name(TEXT), font);
            }
            if !self.alphas.is_empty() {
                let mut states = res.ext_g_states();
                for &i in self.alphas.values() {
                    states.pair(Name(state_name(i).as_bytes()), state(i));
                }
            }
        }
        if !self.glyphs.is_empty() {
            self.glyphs.write(&mut pdf, font);
        }
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

/// The resource name of the text's font.
const TEXT: &[u8] = b"F1";
/// The embedded subset's name: a six-letter tag, as PDF asks of subsets.
const FONT_NAME: &[u8] = b"OCTALF+DejaVuSans";

/// The glyphs of DejaVu Sans a page's text uses, renumbered for the subset
/// embedded in it, with the characters they show.
struct Glyphs {
    font: FontRef<'static>,
    remapper: GlyphRemapper,
    /// By new glyph id: the character it shows.
    chars: BTreeMap<u16, char>,
}

impl Glyphs {
    fn new() -> Self {
        let font =
            FontRef::try_from_slice(dejavu::sans::regular()).expect("the DejaVu Sans font parses");
        Glyphs {
            font,
            remapper: GlyphRemapper::new(),
            chars: BTreeMap::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    /// `text` as the subset's glyph ids, two bytes each (Identity-H); a
    /// character the font lacks as `?`.
    fn encode(&mut self, text: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(2 * text.len());
        for c in text.chars() {
            let (c, GlyphId(old)) = match self.font.glyph_id(c) {
                GlyphId(0) => ('?', self.font.glyph_id('?')),
                g => (c, g),
            };
            let new = self.remapper.remap(old);
            self.chars.entry(new).or_insert(c);
            out.extend_from_slice(&new.to_be_bytes());
        }
        out
    }

    /// A length in the font's units as thousandths of an em.
    fn per_mille(&self, units: f32) -> f32 {
        units * 1000.0 / self.font.units_per_em().unwrap_or(1000.0)
    }

    /// The union of the used glyphs' outlines, in thousandths of an em.
    fn bbox(&self) -> Rect {
        let mut b = Rect::new(0.0, 0.0, 0.0, 0.0);
        for old in self.remapper.remapped_gids() {
            if let Some(o) = self.font.outline(GlyphId(old)) {
                b.x1 = b.x1.min(self.per_mille(o.bounds.min.x));
                b.y1 = b.y1.min(self.per_mille(o.bounds.min.y));
                b.x2 = b.x2.max(self.per_mille(o.bounds.max.x));
                b.y2 = b.y2.max(self.per_mille(o.bounds.max.y));
            }
        }
        b
    }

    /// The font objects: the Type 0 font at `font`, its CID font, its
    /// descriptor, the subset and the ToUnicode map.
    fn write(&self, pdf: &mut Pdf, font: Ref) {
        let (cid, descriptor, file, cmap) = (
            Ref::new(font.get() + 1000),
            Ref::new(font.get() + 1001),
            Ref::new(font.get() + 1002),
            Ref::new(font.get() + 1003),
        );
        let info = SystemInfo {
            registry: Str(b"Adobe"),
            ordering: Str(b"Identity"),
            supplement: 0,
        };
        pdf.type0_font(font)
            .base_font(Name(FONT_NAME))
            .encoding_predefined(Name(b"Identity-H"))
            .descendant_font(cid)
            .to_unicode(cmap);
        let widths: Vec<f32> = self
            .remapper
            .remapped_gids()
            .map(|old| self.per_mille(self.font.h_advance_unscaled(GlyphId(old))))
            .collect();
        let mut c = pdf.cid_font(cid);
        c.subtype(CidFontType::Type2)
            .base_font(Name(FONT_NAME))
            .system_info(info)
            .font_descriptor(descriptor)
            .default_width(0.0)
            .cid_to_gid_map_predefined(Name(b"Identity"));
        c.widths().consecutive(0, widths);
        drop(c);
        let (ascent, descent) = (
            self.per_mille(self.font.ascent_unscaled()),
            self.per_mille(self.font.descent_unscaled()),
        );
        let cap_height = self
            .font
            .outline(self.font.glyph_id('H'))
            .map_or(ascent, |o| self.per_mille(o.bounds.max.y));
        pdf.font_descriptor(descriptor)
            .name(Name(FONT_NAME))
            .flags(FontFlags::NON_SYMBOLIC)
            .bbox(self.bbox())
            .italic_angle(0.0)
            .ascent(ascent)
            .descent(descent)
            .cap_height(cap_height)
            .stem_v(80.0)
            .font_file2(file);
        let subset = subsetter::subset(dejavu::sans::regular(), 0, &self.remapper)
            .expect("DejaVu Sans can be subset");
        let packed = deflate(&subset);
        pdf.stream(file, &packed)
            .filter(Filter::FlateDecode)
            .pair(Name(b"Length1"), subset.len() as i32);
        let mut unicode = UnicodeCmap::new(Name(b"OCTAL-UCS"), info);
        for (&gid, &ch) in &self.chars {
            unicode.pair(gid, ch);
        }
        pdf.cmap(cmap, &unicode.finish());
    }
}

/// `bytes` compressed for a FlateDecode stream.
fn deflate(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(bytes).expect("writing to memory");
    z.finish().expect("writing to memory")
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
        // Baseline below the box's top by the font's ascent.
        let size = style.size() as f32;
        let ascent = self.glyphs.per_mille(self.glyphs.font.ascent_unscaled()) / 1000.0;
        let dy = match style.anchor().v_pos {
            VPos::Top => 0.0,
            VPos::Center => -h / 2.0,
            VPos::Bottom => -h,
        } + ascent * size;
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
        let shown = self.glyphs.encode(text);
        self.with_color(color, true, |c| {
            c.begin_text().set_text_matrix([cos, -sin, sin, cos, x, y]);
            c.set_font(Name(TEXT), size).show(Str(&shown));
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

    /// A page of 200 × 100 points with `words` on it, as a PDF file.
    fn page_with(words: &str) -> Vec<u8> {
        let mut pdf = Vec::new();
        let mut b = PdfBackend::new(&mut pdf, 200, 100);
        let font = (crate::font::font(), 12).into_font();
        b.draw_text(words, &font.color(&BLACK), (10, 50)).unwrap();
        drop(b);
        pdf
    }

    /// The embedded font file, inflated.
    fn embedded_font(pdf: &[u8]) -> Vec<u8> {
        let find = |from: usize, what: &[u8]| {
            from + pdf[from..]
                .windows(what.len())
                .position(|w| w == what)
                .unwrap_or_else(|| panic!("{} in the file", text(what)))
        };
        let at = find(0, b"/Length1");
        let start = find(at, b"stream\n") + b"stream\n".len();
        let end = find(start, b"\nendstream");
        let mut out = Vec::new();
        use std::io::Read;
        flate2::read::ZlibDecoder::new(&pdf[start..end])
            .read_to_end(&mut out)
            .unwrap();
        out
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
        // The one font is embedded, none is left to the reader's.
        assert!(s.contains("/Subtype /Type0"), "{s}");
        assert!(s.contains("/BaseFont /OCTALF+DejaVuSans"), "{s}");
        assert!(s.contains("/FontFile2"), "{s}");
        assert!(!s.contains("/Helvetica") && !s.contains("/Symbol"));
        // The 25% green fill has its graphics state.
        assert!(s.contains("/ca 0.25"), "{s}");
    }

    #[test]
    fn y_is_flipped() {
        let mut out = Vec::new();
        let mut b = PdfBackend::new(&mut out, 100, 50);
        b.draw_line((0, 0), (100, 0), &BLACK).unwrap();
        let content = text(&std::mem::replace(&mut b.content, Content::new()).finish());
        // plotters' top edge (y = 0) is PDF's y = 50.
        assert!(content.contains("0 50 m"), "{content}");
        assert!(content.contains("100 50 l"), "{content}");
    }

    #[test]
    fn text_is_glyphs_of_the_subset_and_unknown_characters_are_question_marks() {
        let mut g = Glyphs::new();
        // .notdef is glyph 0 of every subset; then glyphs in order of use.
        assert_eq!(g.encode("a≤a"), [0, 1, 0, 2, 0, 1]);
        // DejaVu Sans has no CJK: 漢 is shown as ?, one glyph for both.
        assert_eq!(g.encode("漢?"), [0, 3, 0, 3]);
        assert_eq!(g.chars.get(&3), Some(&'?'));
        assert_eq!(g.chars.get(&2), Some(&'≤'));
    }

    #[test]
    fn the_embedded_subset_holds_the_glyphs_the_text_shows() {
        let words = "0 ≤ n − π";
        let pdf = page_with(words);
        let s = text(&pdf);
        // Text can be copied out: each glyph maps back to its character.
        for hex in ["<2264>", "<2212>", "<03C0>"] {
            assert!(s.contains(hex), "{hex} in the ToUnicode map: {s}");
        }
        let subset = embedded_font(&pdf);
        let original = FontRef::try_from_slice(dejavu::sans::regular()).unwrap();
        let font = FontRef::try_from_slice(&subset).expect("the subset is a font");
        // .notdef and the six distinct characters: 0, space, ≤, n, −, π.
        assert_eq!(font.glyph_count(), 7);
        assert!(subset.len() < dejavu::sans::regular().len() / 20);
        // Each glyph of the subset is the original's, outline for outline.
        let mut g = Glyphs::new();
        let shown = g.encode(words);
        for (c, new) in words.chars().zip(shown.chunks(2)) {
            let new = GlyphId(u16::from_be_bytes([new[0], new[1]]));
            let old = original.glyph_id(c);
            assert_eq!(
                font.h_advance_unscaled(new),
                original.h_advance_unscaled(old)
            );
            let bounds = |f: &FontRef, id| f.outline(id).map(|o| o.bounds);
            assert_eq!(bounds(&font, new), bounds(&original, old), "{c}");
            assert_eq!(bounds(&font, new).is_some(), c != ' ', "{c}");
        }
    }
}
