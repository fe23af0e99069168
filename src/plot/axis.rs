//! Sizes and labels read off the options: the n axis' numbers and how many
//! fit, a ring's radius, a mark's side.

use crate::plot::options::PlotOptions;

/// Numbers on the n axis, all in one notation: plain when the axis ends
/// below 10^6, otherwise all like `2.5e8` (`0` stays `0`), so that no
/// axis reads `900000 1e6`.
pub(crate) fn fmt_n(n: u64, scientific: bool) -> String {
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
pub(crate) fn scientific(to: u64) -> bool {
    to > 1_000_000
}

/// How many labels the n axis has room for: each as wide as the longest
/// (about 0.6 em a character; round numbers such as `2.5e8` or the
/// axis' end written out) and 60% of that again between two.
pub(crate) fn x_label_count(plot_width: u32, to: u64, font_size: u32) -> usize {
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
pub(crate) fn mark_side(point_size: f64) -> u32 {
    point_size.round().max(1.0) as u32
}
