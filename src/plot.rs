//! Pictures of a sequence: G(n) against n as PNG or SVG, like figures 3.4
//! and 5.1 of the thesis.
//!
//! Values come in through [`Values`], so a run in memory, a disk store or an
//! exported file can all be drawn the same way; rare positions and a proven
//! period come in as [`Overlays`]. Up to [`POINT_LIMIT`] values every point
//! is drawn. Beyond that the values are aggregated per pixel column, in one
//! parallel pass, into a density grid, so plotting 10^9 values hands the
//! drawing library at most a few hundred thousand rectangles.

use std::io;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use plotters::coord::ranged1d::{AsRangedCoord, DefaultFormatting, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use rayon::prelude::*;
use thiserror::Error;

use crate::seq::Seq;

/// Up to this many values every point is drawn; beyond, per-column density.
pub const POINT_LIMIT: u64 = 50_000;
/// Smallest and largest accepted picture sides, in pixels (points in a
/// PDF: 100 is a figure 1.4 inches wide).
pub const MIN_SIDE: u32 = 100;
pub const MAX_SIDE: u32 = 10_000;

/// Values are read in chunks of this many.
const CHUNK: usize = 1 << 16;
/// Shades of grey a density plot uses (fewer shades, smaller SVGs).
const SHADES: u32 = 12;

const BACKGROUND: RGBColor = WHITE;
const INK: RGBColor = BLACK;
const RARE: RGBColor = RGBColor(220, 20, 20);
const PERIODIC_FILL: RGBColor = RGBColor(215, 240, 215);
const PERIODIC_LINE: RGBColor = RGBColor(20, 140, 20);

/// A sequence the plot can read: G(0), …, G(len−1).
pub trait Values: Sync {
    /// How many values can be read.
    fn available(&self) -> u64;
    /// Writes G(start), G(start+1), … into `out` (`start + out.len() <= available`).
    fn read(&self, start: u64, out: &mut [u32]) -> io::Result<()>;
}

impl Values for crate::store::Store {
    fn available(&self) -> u64 {
        self.good()
    }
    fn read(&self, start: u64, out: &mut [u32]) -> io::Result<()> {
        let v = self.view(start, start + out.len() as u64);
        for (i, o) in out.iter_mut().enumerate() {
            *o = v.get(i);
        }
        Ok(())
    }
}

impl Values for [u32] {
    fn available(&self) -> u64 {
        <[u32]>::len(self) as u64
    }
    fn read(&self, start: u64, out: &mut [u32]) -> io::Result<()> {
        let s = start as usize;
        out.copy_from_slice(&self[s..s + out.len()]);
        Ok(())
    }
}

impl Values for [u16] {
    fn available(&self) -> u64 {
        <[u16]>::len(self) as u64
    }
    fn read(&self, start: u64, out: &mut [u32]) -> io::Result<()> {
        let s = start as usize;
        let src = &self[s..s + out.len()];
        for (o, &v) in out.iter_mut().zip(src) {
            *o = v as u32;
        }
        Ok(())
    }
}

impl<T: Sync> Values for Vec<T>
where
    [T]: Values,
{
    fn available(&self) -> u64 {
        self.as_slice().available()
    }
    fn read(&self, start: u64, out: &mut [u32]) -> io::Result<()> {
        self.as_slice().read(start, out)
    }
}

impl Values for Seq {
    fn available(&self) -> u64 {
        Seq::len(self) as u64
    }
    fn read(&self, start: u64, out: &mut [u32]) -> io::Result<()> {
        match self {
            Seq::U16(v) => v.as_slice().read(start, out),
            Seq::U32(v) => v.as_slice().read(start, out),
        }
    }
}

/// The picture formats, chosen by the output file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Png,
    Svg,
    /// A one-page vector PDF ([`crate::pdf`]): one pixel is one point.
    Pdf,
}

impl Format {
    /// `.png`, `.svg` or `.pdf` (any case); anything else is an input error.
    pub fn from_path(path: &Path) -> Result<Format, PlotError> {
        path.extension()
            .and_then(|e| e.to_str())
            .and_then(Format::from_name)
            .ok_or_else(|| PlotError::UnknownFormat(path.display().to_string()))
    }

    /// `png`, `svg` or `pdf` (any case).
    pub fn from_name(name: &str) -> Option<Format> {
        match name.to_ascii_lowercase().as_str() {
            "png" => Some(Format::Png),
            "svg" => Some(Format::Svg),
            "pdf" => Some(Format::Pdf),
            _ => None,
        }
    }
}

/// A proven period: G(n + period) = G(n) for all n ≥ preperiod.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub preperiod: u64,
    pub period: u64,
}

/// What may be marked on top of the values, when known.
#[derive(Debug, Clone, Default)]
pub struct Overlays {
    /// Rare positions n (any order), drawn as red rings at (n, G(n)).
    pub rare: Vec<u64>,
    /// The proven periodic part, shaded green from the preperiod on.
    pub period: Option<Period>,
}

/// What to draw and how big.
#[derive(Debug, Clone)]
pub struct PlotOptions {
    pub width: u32,
    pub height: u32,
    /// First n drawn.
    pub from: u64,
    /// One past the last n drawn.
    pub to: u64,
    /// Logarithmic n axis (starts at n = 1 at the least).
    pub log_x: bool,
    /// Caption, e.g. the code.
    pub title: String,
    /// The largest value in `from..to` if known (saves a pass over the values).
    pub max_value: Option<u32>,
    /// Axis labels.
    pub xlabel: String,
    pub ylabel: String,
    /// Size of the tick labels in pixels (points in a PDF); the title is
    /// drawn at 18/13 of it and the axis labels at 15/13.
    pub font_size: u32,
    /// Side of a value's mark in pixels (points in a PDF) when every
    /// value is drawn; fractions are drawn at least one unit wide (the
    /// default 2 keeps 1,000 to 50,000 points visible). A few values (a
    /// third of the columns or fewer) are dots of this radius.
    pub point_size: f64,
    /// Whether the rare positions of [`Overlays::rare`] are ringed.
    pub rings: bool,
}

impl Default for PlotOptions {
    fn default() -> Self {
        PlotOptions {
            width: 1200,
            height: 600,
            from: 0,
            to: 0,
            log_x: false,
            title: String::new(),
            max_value: None,
            xlabel: "n".into(),
            ylabel: "G(n)".into(),
            font_size: 13,
            point_size: 2.0,
            rings: true,
        }
    }
}

#[derive(Debug, Error)]
pub enum PlotError {
    #[error(
        "{0}: unknown picture format (the name must end in .png, .svg or .pdf, or give --format)"
    )]
    UnknownFormat(String),
    #[error("--to must be at least 1")]
    Empty,
    #[error("--from {from} must be below --to {to}")]
    EmptyRange { from: u64, to: u64 },
    #[error("--log-x starts at n = 1, so --to must be at least 2")]
    LogFromZero,
    #[error("--to {to} is beyond the {len} values available")]
    BeyondEnd { to: u64, len: u64 },
    #[error("picture size {width}x{height}: each side must be {MIN_SIDE} to {MAX_SIDE} pixels")]
    Size { width: u32, height: u32 },
    #[error("--{what} {size} is larger than the picture: at most {side}, its shorter side")]
    Mark {
        what: &'static str,
        size: f64,
        side: u32,
    },
    #[error("--{what} {size}: must be a positive number")]
    NotPositive { what: &'static str, size: f64 },
    #[error("reading values: {0}")]
    Read(#[from] io::Error),
    #[error("drawing: {0}")]
    Draw(String),
}

impl PlotError {
    /// True for errors in what the user asked for (exit code 2).
    pub fn is_input(&self) -> bool {
        !matches!(self, PlotError::Read(_) | PlotError::Draw(_))
    }
}

/// A finished picture.
#[derive(Debug, Clone)]
pub struct Picture {
    /// The file's bytes (PNG, SVG or PDF).
    pub bytes: Vec<u8>,
    /// The plot area in pixels (x range, y range), inside axes and labels.
    pub plot_area: (Range<i32>, Range<i32>),
    /// True if every value was drawn as a point, false for a density plot.
    pub every_point: bool,
}

/// Checks the options against each other and against `values`.
pub fn check(opts: &PlotOptions, len: u64) -> Result<(), PlotError> {
    if opts.to == 0 {
        return Err(PlotError::Empty);
    }
    if opts.from >= opts.to {
        return Err(PlotError::EmptyRange {
            from: opts.from,
            to: opts.to,
        });
    }
    if opts.log_x && opts.to < 2 {
        return Err(PlotError::LogFromZero);
    }
    if opts.to > len {
        return Err(PlotError::BeyondEnd { to: opts.to, len });
    }
    let side = MIN_SIDE..=MAX_SIDE;
    if !side.contains(&opts.width) || !side.contains(&opts.height) {
        return Err(PlotError::Size {
            width: opts.width,
            height: opts.height,
        });
    }
    // A glyph or mark larger than the picture shows nothing, and would
    // be drawn at the cost of its size squared.
    let side = opts.width.min(opts.height);
    for (what, size) in [
        ("font-size", opts.font_size as f64),
        ("point-size", opts.point_size),
    ] {
        if size.is_nan() || size <= 0.0 {
            return Err(PlotError::NotPositive { what, size });
        }
        if size > side as f64 {
            return Err(PlotError::Mark { what, size, side });
        }
    }
    Ok(())
}

/// The largest of G(range), in one parallel pass.
pub fn max_value(values: &dyn Values, range: Range<u64>) -> io::Result<u32> {
    let chunks: Vec<Range<u64>> = chunked(range, CHUNK as u64).collect();
    chunks
        .into_par_iter()
        .map_init(Vec::new, |buf, r| {
            buf.resize((r.end - r.start) as usize, 0);
            values.read(r.start, buf)?;
            Ok(buf.iter().copied().max().unwrap_or(0))
        })
        .try_reduce(|| 0, |a, b| Ok(a.max(b)))
}

fn chunked(range: Range<u64>, size: u64) -> impl Iterator<Item = Range<u64>> {
    (range.start..range.end)
        .step_by(size as usize)
        .map(move |s| s..(s + size).min(range.end))
}

/// Counts of values per (column, row) cell: `counts[c][r]` is how many n in
/// `bounds[c]..bounds[c + 1]` have a value in row r (row 0 is value 0, row
/// `rows − 1` is `top`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    pub bounds: Vec<u64>,
    pub rows: usize,
    pub top: u32,
    pub counts: Vec<Vec<u32>>,
}

impl Grid {
    /// The row value `v` falls in.
    #[inline]
    pub fn row(&self, v: u32) -> usize {
        row_of(v, self.top, self.rows)
    }
}

#[inline]
fn row_of(v: u32, top: u32, rows: usize) -> usize {
    if top == 0 {
        return 0;
    }
    let r = (v as f64 * (rows - 1) as f64 / top as f64 + 0.5) as usize;
    r.min(rows - 1)
}

/// Aggregates the values into a grid in one parallel pass over the columns
/// `bounds[c]..bounds[c+1]` (non-decreasing). `progress` is told how many
/// values are done so far.
pub fn aggregate(
    values: &dyn Values,
    bounds: Vec<u64>,
    rows: usize,
    top: u32,
    progress: &(dyn Fn(u64) + Sync),
) -> io::Result<Grid> {
    assert!(rows > 0 && bounds.windows(2).all(|w| w[0] <= w[1]));
    let done = AtomicU64::new(0);
    // Values up to 2^16 find their row in a table; larger ones compute it.
    let table: Vec<u32> = (0..=top.min(1 << 16))
        .map(|v| row_of(v, top, rows) as u32)
        .collect();
    let counts = bounds
        .par_windows(2)
        .map_init(Vec::new, |buf, w| {
            let mut col = vec![0u32; rows];
            for r in chunked(w[0]..w[1], CHUNK as u64) {
                buf.resize((r.end - r.start) as usize, 0);
                values.read(r.start, buf)?;
                for &v in buf.iter() {
                    let row = match table.get(v as usize) {
                        Some(&r) => r as usize,
                        None => row_of(v, top, rows),
                    };
                    col[row] += 1;
                }
                let d = done.fetch_add(r.end - r.start, Ordering::Relaxed) + (r.end - r.start);
                progress(d);
            }
            Ok(col)
        })
        .collect::<io::Result<Vec<_>>>()?;
    Ok(Grid {
        bounds,
        rows,
        top,
        counts,
    })
}

/// Registers the font shipped with the `dejavu` crate, once: plotters draws
/// text with it, so no system font libraries are needed.
pub(crate) fn font() -> &'static str {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .map_err(|_| ())
            .expect("the DejaVu Sans font parses");
    });
    "sans-serif"
}

/// Draws G(from..to) and returns the picture's bytes.
pub fn render(
    values: &dyn Values,
    opts: &PlotOptions,
    overlays: &Overlays,
    format: Format,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Picture, PlotError> {
    check(opts, values.available())?;
    let (w, h) = (opts.width, opts.height);
    match format {
        Format::Png => {
            let mut rgb = vec![0u8; w as usize * h as usize * 3];
            let (plot_area, every_point, _) = {
                let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
                draw_root(root, values, opts, overlays, progress, false)?
            };
            let mut bytes = Vec::new();
            let mut enc = png::Encoder::new(&mut bytes, w, h);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            enc.set_compression(png::Compression::Best);
            let mut writer = enc.write_header().map_err(|e| draw_err(&e))?;
            writer.write_image_data(&rgb).map_err(|e| draw_err(&e))?;
            writer.finish().map_err(|e| draw_err(&e))?;
            Ok(Picture {
                bytes,
                plot_area,
                every_point,
            })
        }
        Format::Svg => {
            let mut svg = String::new();
            let (plot_area, every_point, raster) = {
                let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
                // A density as one embedded PNG, not a rectangle a run.
                draw_root(root, values, opts, overlays, progress, true)?
            };
            if let Some(r) = &raster {
                svg = embed_raster(svg, r)?;
            }
            Ok(Picture {
                bytes: svg.into_bytes(),
                plot_area,
                every_point,
            })
        }
        Format::Pdf => {
            let mut pdf = Vec::new();
            let (plot_area, every_point, _) = {
                let root = crate::pdf::PdfBackend::new(&mut pdf, w, h).into_drawing_area();
                draw_root(root, values, opts, overlays, progress, false)?
            };
            Ok(Picture {
                bytes: pdf,
                plot_area,
                every_point,
            })
        }
    }
}

fn draw_err(e: &dyn std::fmt::Display) -> PlotError {
    PlotError::Draw(e.to_string())
}

/// The plot area, whether every value was drawn, and the density picture
/// when it was painted rather than drawn.
type Drawn = ((Range<i32>, Range<i32>), bool, Option<Raster>);

/// A density plot painted into pixels (an SVG embeds it as one PNG rather
/// than as a rectangle per run of cells: 2·10^6 values of `0.6` took
/// 9.2 MB as rectangles). Its place in the drawing is marked by a 1×1
/// rectangle of [`SENTINEL`], which [`embed_raster`] replaces.
struct Raster {
    x: i32,
    y: i32,
    width: u32,
    height: u32,
    /// RGBA, row by row; transparent where no value is.
    rgba: Vec<u8>,
}

/// The colour of the mark a [`Raster`] replaces (no other element has it).
const SENTINEL: RGBColor = RGBColor(1, 2, 3);

/// `svg` with the sentinel mark replaced by `r` as an embedded PNG.
fn embed_raster(svg: String, r: &Raster) -> Result<String, PlotError> {
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
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn draw_root<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    values: &dyn Values,
    opts: &PlotOptions,
    overlays: &Overlays,
    progress: &(dyn Fn(u64) + Sync),
    paint_density: bool,
) -> Result<Drawn, PlotError> {
    let from = if opts.log_x {
        opts.from.max(1)
    } else {
        opts.from
    };
    let to = opts.to.max(from + 1);
    if opts.log_x {
        draw_chart(
            &root,
            (from..to).log_scale(),
            values,
            opts,
            overlays,
            progress,
            paint_density,
        )
    } else {
        draw_chart(
            &root,
            from..to,
            values,
            opts,
            overlays,
            progress,
            paint_density,
        )
    }
}

/// Numbers on the n axis, all in one notation: plain when the axis ends
/// below 10^6, otherwise all like `2.5e8` (`0` stays `0`), so that no
/// axis reads `900000 1e6`.
fn fmt_n(n: u64, scientific: bool) -> String {
    if !scientific || n == 0 {
        n.to_string()
    } else {
        let e = (n as f64).log10().floor() as i32;
        let m = n as f64 / 10f64.powi(e);
        let m = format!("{m:.2}");
        let m = m.trim_end_matches('0').trim_end_matches('.');
        format!("{m}e{e}")
    }
}

/// Whether the n axis ending before `to` is labelled like `2.5e8`.
fn scientific(to: u64) -> bool {
    to > 1_000_000
}

/// How many labels the n axis has room for: each as wide as the longest
/// (about 0.6 em a character; round numbers such as `2.5e8` or the
/// axis' end written out) and 60% of that again between two.
fn x_label_count(plot_width: u32, to: u64, font_size: u32) -> usize {
    let widest = if scientific(to) {
        fmt_n(
            2_500_000_000 * 10u64.pow(to.ilog10().saturating_sub(9)),
            true,
        )
        .len()
    } else {
        fmt_n(to.saturating_sub(1), false).len()
    };
    let per_label = 1.6 * 0.6 * font_size.max(1) as f64 * widest as f64;
    ((plot_width as f64 / per_label) as usize).clamp(2, 12)
}

/// Radius of a rare position's ring: in proportion to the picture (4 at
/// the default 1200 × 600, 1/150 of its shorter side), at least a point's
/// side, and 2 at the least.
pub fn ring_radius(opts: &PlotOptions) -> u32 {
    let by_side = opts.width.min(opts.height) as f64 / 150.0;
    by_side.max(opts.point_size).round().max(2.0) as u32
}

/// A mark's side (a dot's radius) in whole units: at least one.
fn mark_side(point_size: f64) -> u32 {
    point_size.round().max(1.0) as u32
}

/// Most values a pixel column may hold for every value to be drawn as a
/// mark: beyond, marks merge into a solid block, so a density is drawn.
const MARKS_PER_COLUMN: u64 = 16;

fn draw_chart<DB: DrawingBackend, X>(
    root: &DrawingArea<DB, Shift>,
    x_spec: X,
    values: &dyn Values,
    opts: &PlotOptions,
    overlays: &Overlays,
    progress: &(dyn Fn(u64) + Sync),
    paint_density: bool,
) -> Result<Drawn, PlotError>
where
    X: AsRangedCoord<Value = u64>,
    X::CoordDescType: Ranged<FormatOption = DefaultFormatting>,
    X::CoordDescType: ValueFormatter<u64>,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| draw_err(&e);
    let font = font();
    // Font sizes in proportion to the tick labels' (13, 15 and 18 at the
    // default), and the label areas with them.
    let fs = opts.font_size.max(1);
    let scaled = |k: u32| (k * fs).div_ceil(13);
    root.fill(&BACKGROUND).map_err(e)?;
    let x_range: X::CoordDescType = x_spec.into();
    let (from, to) = {
        let r = x_range.range();
        (r.start, r.end)
    };
    let max = match opts.max_value {
        Some(m) => m,
        None => max_value(values, from..to)?,
    };
    // Head room above the largest value, so its points sit inside the frame.
    let top = max + (max / 20).max(1);
    // The legend goes above the plot area, right-aligned, so that no
    // value and no ring covers it, nor it them.
    let rare: Vec<u64> = if opts.rings {
        overlays
            .rare
            .iter()
            .copied()
            .filter(|n| (from..to).contains(n))
            .collect()
    } else {
        Vec::new()
    };
    let mut legend = Vec::new();
    if let Some(p) = overlays.period {
        legend.push((
            format!(
                "periodic from n = {} with period {}",
                fmt_n(p.preperiod, p.preperiod >= 1_000_000),
                p.period
            ),
            PERIODIC_LINE,
        ));
    }
    if !rare.is_empty() {
        legend.push((format!("{} rare positions", rare.len()), RARE));
    }
    let line = scaled(16);
    // The title (if any) at the top, then the legend's lines under it.
    let area = root.margin(12, 0, 0, 0);
    let area = if opts.title.is_empty() {
        area
    } else {
        area.titled(&opts.title, (font, scaled(18))).map_err(e)?
    };
    let mut chart = ChartBuilder::on(&area)
        .margin(12)
        .margin_top(line * legend.len() as u32)
        .margin_right(36)
        .x_label_area_size(scaled(40))
        .y_label_area_size(scaled(60))
        .build_cartesian_2d(x_range, 0u32..top)
        .map_err(e)?;
    let (px, py) = chart.plotting_area().get_pixel_range();
    let y0 = chart.backend_coord(&(from, 0)).1;
    let y_top = chart.backend_coord(&(from, top)).1;
    let rows = (y0 - y_top) as usize + 1;
    let y_of = |row: usize| y0 - row as i32;

    // The proven periodic part goes under everything else.
    if let Some(p) = overlays.period {
        if p.preperiod < to {
            let x = chart.backend_coord(&(p.preperiod.max(from), 0)).0;
            root.draw(&Rectangle::new(
                [(x, py.start), (px.end, py.end)],
                PERIODIC_FILL.filled(),
            ))
            .map_err(e)?;
            if p.preperiod >= from {
                root.draw(&PathElement::new(
                    vec![(x, py.start), (x, py.end - 1)],
                    PERIODIC_LINE.stroke_width(1),
                ))
                .map_err(e)?;
            }
        }
    }

    let sci = scientific(to);
    let x_labels = x_label_count((px.end - px.start) as u32, to, fs);
    chart
        .configure_mesh()
        .x_desc(&opts.xlabel)
        .y_desc(&opts.ylabel)
        .label_style((font, fs))
        .axis_desc_style((font, scaled(15)))
        .x_labels(x_labels)
        .x_label_formatter(&|n| fmt_n(*n, sci))
        .light_line_style(RGBColor(238, 238, 238))
        .bold_line_style(RGBColor(215, 215, 215))
        .draw()
        .map_err(e)?;
    let x_of = |n: u64| chart.backend_coord(&(n, 0)).0;

    // Column c covers the n whose pixel is px.start + c.
    let first_at = |x: i32| -> u64 {
        let (mut lo, mut hi) = (from, to);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if x_of(mid) < x {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    };
    let mut bounds: Vec<u64> = (px.start..px.end).map(first_at).collect();
    bounds.push(to);
    let grid = aggregate(values, bounds, rows, top, progress)?;
    let every_point = to - from <= POINT_LIMIT
        && to - from <= MARKS_PER_COLUMN * (px.end - px.start).max(1) as u64;
    let peak = grid
        .counts
        .iter()
        .flat_map(|c| c.iter().copied())
        .max()
        .unwrap_or(1)
        .max(1);
    let shade = |count: u32| -> u32 {
        if every_point || peak == 1 {
            SHADES - 1
        } else {
            // Logarithmic: a lone value still shows, the thickest cell is black.
            let t = (count as f64).ln_1p() / (peak as f64).ln_1p();
            ((t * (SHADES - 1) as f64).ceil() as u32).clamp(1, SHADES - 1)
        }
    };
    let colour = |s: u32| {
        let g = (190 - 190 * s / (SHADES - 1)) as u8;
        RGBColor(g, g, g)
    };
    let sparse = every_point && (to - from) * 3 <= (px.end - px.start) as u64;
    let mut raster = None;
    if sparse {
        // Few points: each one a dot.
        let mut buf = vec![0u32; (to - from) as usize];
        values.read(from, &mut buf)?;
        for (i, &v) in buf.iter().enumerate() {
            let at = (x_of(from + i as u64), y_of(grid.row(v)));
            root.draw(&Circle::new(at, mark_side(opts.point_size), INK.filled()))
                .map_err(e)?;
        }
    } else if every_point && mark_side(opts.point_size) > 1 {
        // Every value a square mark of point_size pixels, centred on its
        // cell: visible where a pixel would not be.
        let side = mark_side(opts.point_size) as i32;
        for (c, col) in grid.counts.iter().enumerate() {
            let x = px.start + c as i32 - side / 2;
            for (r, _) in col.iter().enumerate().filter(|(_, &k)| k != 0) {
                let y = y_of(r) - side / 2;
                root.draw(&Rectangle::new(
                    [(x, y), (x + side, y + side)],
                    INK.filled(),
                ))
                .map_err(e)?;
            }
        }
    } else {
        // With a little more rows than values some rows are no value's
        // row; in a density plot a value's cell reaches up to the next
        // value's row, so the picture shows no false white stripes.
        let mut gap = vec![false; rows];
        if !every_point && (top as usize) < rows && (top as usize + 1) * 2 >= rows {
            gap.fill(true);
            for v in 0..=top {
                gap[grid.row(v)] = false;
            }
        }
        // Painted into pixels (an SVG's density), or drawn as rectangles.
        let mut paint = (paint_density && !every_point).then(|| Raster {
            x: px.start,
            y: py.start,
            width: (px.end - px.start) as u32,
            height: (py.end - py.start) as u32,
            rgba: vec![0; 4 * (px.end - px.start) as usize * (py.end - py.start) as usize],
        });
        for (c, col) in grid.counts.iter().enumerate() {
            let x = px.start + c as i32;
            let mut r = 0;
            while r < col.len() {
                if col[r] == 0 {
                    r += 1;
                    continue;
                }
                let s = shade(col[r]);
                let mut end = r + 1;
                while end < col.len() && (gap[end] || col[end] != 0 && shade(col[end]) == s) {
                    end += 1;
                }
                // Rows r..end, upwards from y_of(r); corners half-open.
                let (y0, y1) = (y_of(end - 1), y_of(r) + 1);
                match &mut paint {
                    Some(p) => {
                        let RGBColor(g, _, _) = colour(s);
                        let w = p.width as i32;
                        for y in y0.max(p.y)..y1.min(p.y + p.height as i32) {
                            let i = 4 * ((y - p.y) * w + (x - p.x)) as usize;
                            p.rgba[i..i + 4].copy_from_slice(&[g, g, g, 255]);
                        }
                    }
                    None => root
                        .draw(&Rectangle::new([(x, y0), (x + 1, y1)], colour(s).filled()))
                        .map_err(e)?,
                }
                r = end;
            }
        }
        if let Some(p) = &paint {
            root.draw(&Rectangle::new(
                [(p.x, p.y), (p.x + 1, p.y + 1)],
                SENTINEL.filled(),
            ))
            .map_err(e)?;
        }
        raster = paint;
    }

    if !rare.is_empty() {
        let radius = ring_radius(opts);
        let mut seen = std::collections::HashSet::new();
        let mut v = [0u32];
        for &n in &rare {
            values.read(n, &mut v)?;
            let at = (x_of(n), y_of(grid.row(v[0])));
            if seen.insert(at) {
                root.draw(&Circle::new(at, radius, RARE.stroke_width(1)))
                    .map_err(e)?;
            }
        }
    }
    let above = py.start - line as i32 * legend.len() as i32 - 2;
    for (i, (text, c)) in legend.iter().enumerate() {
        let style = TextStyle::from((font, fs).into_font())
            .color(c)
            .pos(Pos::new(HPos::Right, VPos::Top));
        root.draw_text(text, &style, (px.end, above + line as i32 * i as i32))
            .map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(((px, py), every_point, raster))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_as_rfc_4648_gives_it() {
        // The RFC's test vectors.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded);
        }
    }

    #[test]
    fn formats_by_extension() {
        assert_eq!(Format::from_path(Path::new("a.png")).unwrap(), Format::Png);
        assert_eq!(
            Format::from_path(Path::new("a/b.SVG")).unwrap(),
            Format::Svg
        );
        assert!(Format::from_path(Path::new("a.jpg")).is_err());
        assert!(Format::from_path(Path::new("png")).is_err());
    }

    #[test]
    fn aggregate_counts_every_value_once() {
        // G(n) = n mod 7 over 1000 values, 10 columns of 100, 7 rows.
        let v: Vec<u32> = (0..1000).map(|n| n % 7).collect();
        let bounds: Vec<u64> = (0..=10).map(|c| c * 100).collect();
        let g = aggregate(&v, bounds, 7, 6, &|_| {}).unwrap();
        for (c, col) in g.counts.iter().enumerate() {
            assert_eq!(col.iter().sum::<u32>(), 100);
            // Count by hand: the n in c*100..c*100+100 with n % 7 == r.
            for (r, &k) in col.iter().enumerate() {
                let want = (c * 100..c * 100 + 100).filter(|n| n % 7 == r).count();
                assert_eq!(k as usize, want, "column {c} row {r}");
            }
        }
    }

    #[test]
    fn aggregate_large_values() {
        // Beyond the row table: top 100000 over 11 rows, 10000 a row.
        let v: Vec<u32> = vec![0, 50_000, 100_000, 100_000, 94_999, 95_000];
        let g = aggregate(&v, vec![0, 3, 6], 11, 100_000, &|_| {}).unwrap();
        let mut want = vec![vec![0u32; 11]; 2];
        want[0][0] = 1;
        want[0][5] = 1;
        want[0][10] = 1;
        want[1][10] = 2;
        want[1][9] = 1;
        assert_eq!(g.counts, want);
    }

    #[test]
    fn rows_scale_to_the_top() {
        assert_eq!(row_of(0, 100, 11), 0);
        assert_eq!(row_of(100, 100, 11), 10);
        assert_eq!(row_of(50, 100, 11), 5);
        assert_eq!(row_of(7, 0, 5), 0);
    }

    #[test]
    fn numbers_on_the_axis() {
        assert_eq!(fmt_n(30000, false), "30000");
        assert_eq!(fmt_n(1_000_000_000, true), "1e9");
        assert_eq!(fmt_n(250_000_000, true), "2.5e8");
        assert_eq!(fmt_n(900_000, true), "9e5");
        assert_eq!(fmt_n(0, true), "0");
    }

    #[test]
    fn bad_options_are_refused() {
        let v = vec![0u32; 10];
        let o = |from, to, width| PlotOptions {
            from,
            to,
            width,
            ..PlotOptions::default()
        };
        assert!(matches!(check(&o(0, 0, 1200), 10), Err(PlotError::Empty)));
        assert!(matches!(
            check(&o(5, 5, 1200), 10),
            Err(PlotError::EmptyRange { .. })
        ));
        assert!(matches!(
            check(&o(0, 11, 1200), 10),
            Err(PlotError::BeyondEnd { .. })
        ));
        assert!(matches!(
            check(&o(0, 10, 10), 10),
            Err(PlotError::Size { .. })
        ));
        assert!(check(&o(0, 10, 1200), v.available()).is_ok());
        let log = PlotOptions {
            log_x: true,
            ..o(0, 1, 1200)
        };
        assert!(matches!(check(&log, 10), Err(PlotError::LogFromZero)));
    }
}
