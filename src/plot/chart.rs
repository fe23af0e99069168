//! Drawing one chart: the frame, axes and legend, then the values as dots,
//! marks or a density, the proven period under them and the rare
//! positions' rings over them. [`draw_root`] picks the n axis (linear or
//! logarithmic) and [`draw_chart`] lays the chart out; each layer is a
//! function of its own.

use std::ops::Range;

use plotters::coord::ranged1d::{AsRangedCoord, DefaultFormatting, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::font::font;
use crate::plot::axis::{fmt_n, mark_side, ring_radius, scientific, x_label_count};
use crate::plot::grid::{aggregate, max_value, Grid};
use crate::plot::options::{draw_err, Overlays, PlotError, PlotOptions, POINT_LIMIT};
use crate::plot::raster::{Raster, SENTINEL};
use crate::plot::values::Values;

/// Shades of grey a density plot uses (fewer shades, smaller SVGs).
const SHADES: u32 = 12;

const BACKGROUND: RGBColor = WHITE;
const INK: RGBColor = BLACK;
const RARE: RGBColor = RGBColor(220, 20, 20);
const PERIODIC_FILL: RGBColor = RGBColor(215, 240, 215);
const PERIODIC_LINE: RGBColor = RGBColor(20, 140, 20);

/// The plot area, whether every value was drawn, and the density picture
/// when it was painted rather than drawn.
pub(crate) type Drawn = ((Range<i32>, Range<i32>), bool, Option<Raster>);

pub(crate) fn draw_root<DB: DrawingBackend>(
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

/// Most values a pixel column may hold for every value to be drawn as a
/// mark: beyond, marks merge into a solid block, so a density is drawn.
const MARKS_PER_COLUMN: u64 = 16;

/// The plot area in pixels and where its rows are: row r is at `y0 − r`.
struct Frame {
    px: Range<i32>,
    py: Range<i32>,
    y0: i32,
}

impl Frame {
    #[inline]
    fn y_of(&self, row: usize) -> i32 {
        self.y0 - row as i32
    }
}

/// The values drawn, counted into `grid`, and how.
struct Layer<'a> {
    values: &'a dyn Values,
    grid: &'a Grid,
    from: u64,
    to: u64,
    /// Every value is drawn (no density).
    every_point: bool,
    /// A density is painted into pixels rather than drawn as rectangles.
    paint_density: bool,
    point_size: f64,
    /// The pixel column of n.
    x_of: &'a dyn Fn(u64) -> i32,
}

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
    let top = top_of(values, opts, from..to)?;
    // The legend goes above the plot area, right-aligned, so that no
    // value and no ring covers it, nor it them.
    let rare = rare_in(opts, overlays, from..to);
    let legend = legend(overlays, rare.len());
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
    let frame = Frame {
        px: px.clone(),
        py: py.clone(),
        y0,
    };

    // The proven periodic part goes under everything else.
    if let Some(p) = overlays.period.filter(|p| p.preperiod < to) {
        let x = chart.backend_coord(&(p.preperiod.max(from), 0)).0;
        draw_period(root, &frame, x, p.preperiod >= from)?;
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

    let bounds = column_bounds(&x_of, px.clone(), from..to);
    let grid = aggregate(values, bounds, rows, top, progress)?;
    let every_point = to - from <= POINT_LIMIT
        && to - from <= MARKS_PER_COLUMN * (px.end - px.start).max(1) as u64;
    let layer = Layer {
        values,
        grid: &grid,
        from,
        to,
        every_point,
        paint_density,
        point_size: opts.point_size,
        x_of: &x_of,
    };
    let raster = draw_values(root, &frame, &layer)?;
    draw_rings(root, &frame, &layer, &rare, ring_radius(opts))?;
    let above = py.start - line as i32 * legend.len() as i32 - 2;
    draw_legend(root, &legend, (px.end, above), line as i32, fs)?;
    root.present().map_err(e)?;
    Ok(((px, py), every_point, raster))
}

/// The top of the value axis: the largest value in `range` with head room
/// above it, so its points sit inside the frame.
fn top_of(values: &dyn Values, opts: &PlotOptions, range: Range<u64>) -> Result<u32, PlotError> {
    let max = match opts.max_value {
        Some(m) => m,
        None => max_value(values, range)?,
    };
    Ok(max + (max / 20).max(1))
}

/// The legend's lines, right-aligned at `at` (the first line's top right
/// corner), `line` apart.
fn draw_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    legend: &[(String, RGBColor)],
    at: (i32, i32),
    line: i32,
    fs: u32,
) -> Result<(), PlotError> {
    for (i, (text, c)) in legend.iter().enumerate() {
        let style = TextStyle::from((font(), fs).into_font())
            .color(c)
            .pos(Pos::new(HPos::Right, VPos::Top));
        root.draw_text(text, &style, (at.0, at.1 + line * i as i32))
            .map_err(|e| draw_err(&e))?;
    }
    Ok(())
}

/// The rare positions in `range`, when they are ringed.
fn rare_in(opts: &PlotOptions, overlays: &Overlays, range: Range<u64>) -> Vec<u64> {
    if opts.rings {
        overlays
            .rare
            .iter()
            .copied()
            .filter(|n| range.contains(n))
            .collect()
    } else {
        Vec::new()
    }
}

/// The legend's lines and their colours: the period, then the rare count.
fn legend(overlays: &Overlays, rare: usize) -> Vec<(String, RGBColor)> {
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
    if rare != 0 {
        legend.push((format!("{rare} rare positions"), RARE));
    }
    legend
}

/// The proven periodic part, shaded from pixel column `x` on, with a line
/// where it starts when that is in the range drawn.
fn draw_period<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    frame: &Frame,
    x: i32,
    starts_inside: bool,
) -> Result<(), PlotError> {
    let (px, py) = (&frame.px, &frame.py);
    root.draw(&Rectangle::new(
        [(x, py.start), (px.end, py.end)],
        PERIODIC_FILL.filled(),
    ))
    .map_err(|e| draw_err(&e))?;
    if starts_inside {
        root.draw(&PathElement::new(
            vec![(x, py.start), (x, py.end - 1)],
            PERIODIC_LINE.stroke_width(1),
        ))
        .map_err(|e| draw_err(&e))?;
    }
    Ok(())
}

/// Column c covers the n whose pixel is `px.start + c`: the first n of
/// each column, then `range.end`.
fn column_bounds(x_of: &dyn Fn(u64) -> i32, px: Range<i32>, range: Range<u64>) -> Vec<u64> {
    let (from, to) = (range.start, range.end);
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
    let mut bounds: Vec<u64> = px.map(first_at).collect();
    bounds.push(to);
    bounds
}

/// Draws the values: a dot each when they are few, a square mark each when
/// every one is drawn, else a density; returns the density when painted.
fn draw_values<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    frame: &Frame,
    layer: &Layer,
) -> Result<Option<Raster>, PlotError> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| draw_err(&e);
    let (from, to, grid) = (layer.from, layer.to, layer.grid);
    let px = &frame.px;
    let sparse = layer.every_point && (to - from) * 3 <= (px.end - px.start) as u64;
    if sparse {
        // Few points: each one a dot.
        let mut buf = vec![0u32; (to - from) as usize];
        layer.values.read(from, &mut buf)?;
        for (i, &v) in buf.iter().enumerate() {
            let at = ((layer.x_of)(from + i as u64), frame.y_of(grid.row(v)));
            root.draw(&Circle::new(at, mark_side(layer.point_size), INK.filled()))
                .map_err(e)?;
        }
    } else if layer.every_point && mark_side(layer.point_size) > 1 {
        // Every value a square mark of point_size pixels, centred on its
        // cell: visible where a pixel would not be.
        let side = mark_side(layer.point_size) as i32;
        for (c, col) in grid.counts.iter().enumerate() {
            let x = px.start + c as i32 - side / 2;
            for (r, _) in col.iter().enumerate().filter(|(_, &k)| k != 0) {
                let y = frame.y_of(r) - side / 2;
                root.draw(&Rectangle::new(
                    [(x, y), (x + side, y + side)],
                    INK.filled(),
                ))
                .map_err(e)?;
            }
        }
    } else {
        return draw_density(root, frame, layer);
    }
    Ok(None)
}

/// The grey a count is drawn in, as a shade 1..SHADES: logarithmic, so a
/// lone value still shows and the thickest cell (`peak`) is black.
#[inline]
fn shade(count: u32, every_point: bool, peak: u32) -> u32 {
    if every_point || peak == 1 {
        SHADES - 1
    } else {
        let t = (count as f64).ln_1p() / (peak as f64).ln_1p();
        ((t * (SHADES - 1) as f64).ceil() as u32).clamp(1, SHADES - 1)
    }
}

#[inline]
fn colour(s: u32) -> RGBColor {
    let g = (190 - 190 * s / (SHADES - 1)) as u8;
    RGBColor(g, g, g)
}

/// Draws the grid's cells in greys, a run of equal cells at a time, as
/// rectangles or (for an SVG's density) painted into a [`Raster`].
fn draw_density<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    frame: &Frame,
    layer: &Layer,
) -> Result<Option<Raster>, PlotError> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| draw_err(&e);
    let (grid, every_point) = (layer.grid, layer.every_point);
    let (px, py) = (&frame.px, &frame.py);
    let (rows, top) = (grid.rows, grid.top);
    let peak = grid
        .counts
        .iter()
        .flat_map(|c| c.iter().copied())
        .max()
        .unwrap_or(1)
        .max(1);
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
    let mut paint = (layer.paint_density && !every_point).then(|| Raster {
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
            let s = shade(col[r], every_point, peak);
            let mut end = r + 1;
            while end < col.len()
                && (gap[end] || col[end] != 0 && shade(col[end], every_point, peak) == s)
            {
                end += 1;
            }
            // Rows r..end, upwards from y_of(r); corners half-open.
            let (y0, y1) = (frame.y_of(end - 1), frame.y_of(r) + 1);
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
    Ok(paint)
}

/// A red ring at each rare position (one per pixel); none when `rare` is
/// empty.
fn draw_rings<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    frame: &Frame,
    layer: &Layer,
    rare: &[u64],
    radius: u32,
) -> Result<(), PlotError> {
    let mut seen = std::collections::HashSet::new();
    let mut v = [0u32];
    for &n in rare {
        layer.values.read(n, &mut v)?;
        let at = ((layer.x_of)(n), frame.y_of(layer.grid.row(v[0])));
        if seen.insert(at) {
            root.draw(&Circle::new(at, radius, RARE.stroke_width(1)))
                .map_err(|e| draw_err(&e))?;
        }
    }
    Ok(())
}
