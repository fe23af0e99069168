//! What a plot is asked for ([`PlotOptions`], [`Overlays`], [`Format`]),
//! what it gives back ([`Picture`]) and what can go wrong ([`PlotError`]):
//! the leaf every other part of the plot reads.

use std::io;
use std::ops::Range;
use std::path::Path;

use thiserror::Error;

/// Up to this many values every point is drawn; beyond, per-column density.
pub const POINT_LIMIT: u64 = 50_000;
/// Smallest and largest accepted picture sides, in pixels (points in a
/// PDF: 100 is a figure 1.4 inches wide).
pub const MIN_SIDE: u32 = 100;
pub const MAX_SIDE: u32 = 10_000;

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

/// A drawing error as a [`PlotError`].
pub(crate) fn draw_err(e: &dyn std::fmt::Display) -> PlotError {
    PlotError::Draw(e.to_string())
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
