//! Pictures of a sequence: G(n) against n as PNG or SVG, like figures 3.4
//! and 5.1 of the thesis.
//!
//! Values come in through [`Values`], so a run in memory, a disk store or an
//! exported file can all be drawn the same way; rare positions and a proven
//! period come in as [`Overlays`]. Up to [`POINT_LIMIT`] values every point
//! is drawn. Beyond that the values are aggregated per pixel column, in one
//! parallel pass, into a density grid, so plotting 10^9 values hands the
//! drawing library at most a few hundred thousand rectangles.
//!
//! [`options`] is what is asked and what can fail, [`values`] where values
//! come from, [`grid`] the pass over them, `chart` the drawing, `axis` its
//! sizes and labels, `raster` an SVG's painted density; this file picks
//! the backend (PNG, SVG or [`crate::pdf`]).

mod axis;
mod chart;
pub mod grid;
pub mod options;
mod raster;
pub mod values;

use plotters::prelude::*;

use crate::pdf::PdfBackend;
use chart::draw_root;
use options::draw_err;
use raster::embed_raster;

pub use axis::ring_radius;
pub use grid::{aggregate, max_value, Grid};
pub use options::{
    check, Format, Overlays, Period, Picture, PlotError, PlotOptions, MAX_SIDE, MIN_SIDE,
    POINT_LIMIT,
};
pub use values::Values;

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
                let root = PdfBackend::new(&mut pdf, w, h).into_drawing_area();
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::axis::fmt_n;
    use super::grid::row_of;
    use super::raster::base64;
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
