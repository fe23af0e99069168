//! A density plot painted into pixels, for an SVG to embed as one PNG.

use base64::Engine as _;
use plotters::style::RGBColor;

use crate::plot::options::{draw_err, PlotError};

/// A density plot painted into pixels (an SVG embeds it as one PNG rather
/// than as a rectangle per run of cells: 2·10^6 values of `0.6` took
/// 9.2 MB as rectangles). Its place in the drawing is marked by a 1×1
/// rectangle of [`SENTINEL`], which [`embed_raster`] replaces.
pub(crate) struct Raster {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    /// RGBA, row by row; transparent where no value is.
    pub rgba: Vec<u8>,
}

/// The colour of the mark a [`Raster`] replaces (no other element has it).
pub(crate) const SENTINEL: RGBColor = RGBColor(1, 2, 3);

/// `svg` with the sentinel mark replaced by `r` as an embedded PNG.
pub(crate) fn embed_raster(svg: String, r: &Raster) -> Result<String, PlotError> {
    let mut png_bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut png_bytes, r.width, r.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Best);
        let mut w = enc.write_header().map_err(|e| draw_err(&e))?;
        w.write_image_data(&r.rgba).map_err(|e| draw_err(&e))?;
    }
    let mark = "fill=\"#010203\"";
    let at = svg
        .find(mark)
        .ok_or_else(|| draw_err(&"density mark missing"))?;
    let start = svg[..at].rfind('<').expect("the mark is inside an element");
    let end = at + svg[at..].find("/>").expect("the element ends") + 2;
    let image = format!(
        "<image x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64,{}\"/>",
        r.x,
        r.y,
        r.width,
        r.height,
        base64(&png_bytes)
    );
    Ok(format!("{}{image}{}", &svg[..start], &svg[end..]))
}

/// Standard base64 with padding (RFC 4648), as a data URI wants it.
pub(crate) fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
