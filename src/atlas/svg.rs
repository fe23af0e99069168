//! The atlas' two plots as inline SVG, kept lean: one `<path>` for the
//! values (each point a dot, or past [`DOTS`] points one vertical stroke
//! per column from its least to its largest value, so no extreme is
//! lost) and one for the rare positions, every one of them drawn.

use std::fmt::Write as _;

use super::html::{esc, num};

/// Plot area, in SVG units.
const W: f64 = 800.0;
const H: f64 = 260.0;
/// Margins: left for the value axis' labels, bottom for the heaps'.
const LEFT: f64 = 44.0;
const BOTTOM: f64 = 22.0;
const TOP: f64 = 8.0;
/// Right margin, for the last heap's label.
const RIGHT: f64 = 28.0;
/// Points drawn one by one; more are drawn a column at a time.
pub const DOTS: usize = 2048;
/// Columns of a decimated plot: one per SVG unit.
const COLUMNS: usize = 800;

fn frame(out: &mut String, label: &str, x_ticks: &[(f64, String)], max: u32, scale: &Scale) {
    let _ = write!(
        out,
        "<svg class=\"plot\" viewBox=\"0 0 {vw} {vh}\" role=\"img\" aria-label=\"{label}\">\
         <title>{label}</title>\
         <path class=\"axis\" d=\"M{LEFT} {TOP}V{y0}H{x1}\"/>",
        x1 = LEFT + W,
        vw = LEFT + W + RIGHT,
        vh = TOP + H + BOTTOM,
        y0 = TOP + H,
        label = esc(label),
    );
    for (x, text) in x_ticks {
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"tx\">{}</text>",
            x,
            TOP + H + 16.0,
            esc(text)
        );
    }
    for v in [0, max / 2, max] {
        if v == max / 2 && (v == 0 || v == max) {
            continue;
        }
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"ty\">{v}</text>",
            LEFT - 4.0,
            scale.y(v) + 4.0
        );
    }
}

struct Scale {
    max: u32,
}

impl Scale {
    fn y(&self, v: u32) -> f64 {
        TOP + H - H * f64::from(v) / f64::from(self.max.max(1))
    }
}

/// Dots at `(x, y)`: zero-length strokes with round caps.
fn dot(d: &mut String, x: f64, y: f64) {
    let _ = write!(d, "M{x:.1} {y:.1}h0");
}

/// G(n) for n < `values.len()`, with the rare positions `rare` (heap,
/// value) marked.
pub fn values_plot(values: &[u32], rare: &[(u64, u32)]) -> String {
    let n = values.len().max(1);
    let max = values.iter().copied().max().unwrap_or(0).max(1);
    let scale = Scale { max };
    let x = |i: f64| LEFT + W * i / n as f64;
    let ticks: Vec<(f64, String)> = (0..=4)
        .map(|k| {
            let at = (n as u64 * k / 4).min(n as u64 - 1);
            (x(at as f64), num(at))
        })
        .collect();
    let mut out = String::new();
    frame(
        &mut out,
        &format!("G(n) for n from 0 to {}", n - 1),
        &ticks,
        max,
        &scale,
    );
    let mut d = String::new();
    if values.len() <= DOTS {
        for (i, &v) in values.iter().enumerate() {
            dot(&mut d, x(i as f64 + 0.5), scale.y(v));
        }
    } else {
        for c in 0..COLUMNS {
            let (a, b) = (
                c * n / COLUMNS,
                ((c + 1) * n / COLUMNS).max(c * n / COLUMNS + 1),
            );
            let part = &values[a..b.min(n)];
            let (lo, hi) = (
                part.iter().copied().min().unwrap_or(0),
                part.iter().copied().max().unwrap_or(0),
            );
            let cx = LEFT + W * (c as f64 + 0.5) / COLUMNS as f64;
            // A stroke at least 2 units long: butt caps draw no dot.
            let (top, bottom) = (scale.y(hi), scale.y(lo).max(scale.y(hi) + 2.0));
            let _ = write!(d, "M{cx:.1} {top:.1}V{bottom:.1}");
        }
    }
    let class = if values.len() <= DOTS {
        "values"
    } else {
        "values bands"
    };
    let _ = write!(out, "<path class=\"{class}\" d=\"{d}\"/>");
    let mut r = String::new();
    for &(i, v) in rare {
        dot(&mut r, x(i as f64 + 0.5), scale.y(v));
    }
    if !r.is_empty() {
        let _ = write!(out, "<path class=\"rare\" d=\"{r}\"/>");
    }
    out.push_str("</svg>");
    out
}

/// Every rare position (heap, value) up to `reach`, the heaps on a
/// logarithmic scale (log2(n + 1)) so that the early ones stay apart.
pub fn rare_plot(rare: &[(u64, u32)], reach: u64) -> String {
    let max = rare.iter().map(|r| r.1).max().unwrap_or(0).max(1);
    let scale = Scale { max };
    let span = ((reach.max(2)) as f64).log2();
    let x = |n: u64| LEFT + W * ((n + 1) as f64).log2() / span;
    let top = 63 - reach.max(2).leading_zeros() as u64;
    let step = top.div_ceil(6).max(1);
    let ticks: Vec<(f64, String)> = (0..=top)
        .step_by(step as usize)
        .map(|j| (x((1u64 << j) - 1), format!("2^{j}")))
        .collect();
    let mut out = String::new();
    frame(
        &mut out,
        &format!(
            "the {} rare positions up to {} (heaps on a log scale)",
            rare.len(),
            reach
        ),
        &ticks,
        max,
        &scale,
    );
    let mut r = String::new();
    for &(n, v) in rare {
        dot(&mut r, x(n), scale.y(v));
    }
    let _ = write!(out, "<path class=\"rare\" d=\"{r}\"/></svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_plot_keeps_its_extremes_and_every_rare_point() {
        let mut v: Vec<u32> = (0..100_000).map(|i| (i % 7) as u32).collect();
        v[54_321] = 99;
        let rare = [(10u64, 3u32), (54_321, 99), (99_999, 5)];
        let svg = values_plot(&v, &rare);
        // The spike is the top of the plot, y = TOP.
        assert!(svg.contains(&format!("V{:.1}", TOP + H)) || svg.contains(&format!(" {TOP:.1}V")));
        let rare_path = svg.split("class=\"rare\" d=\"").nth(1).unwrap();
        assert_eq!(rare_path.matches("h0").count(), 3);
        assert!(svg.len() < 40_000, "{} bytes", svg.len());
        let small = values_plot(&v[..100], &[]);
        assert_eq!(small.matches("h0").count(), 100);
        assert!(!small.contains("class=\"rare\""));
    }
}
