//! How fast `plot` turns many values into a picture: the per-column
//! aggregation alone, then the whole PNG render, on a synthetic sequence
//! (the plot's cost does not depend on the game).
//!
//! `cargo bench --bench plot` (10^8 values; `PLOT_BENCH_N=1e9` for more,
//! `PLOT_BENCH_OUT=x.png` to keep the picture).

use std::time::Instant;

use octal::count::parse_count;
use octal::plot::{aggregate, render, Format, Overlays, PlotOptions};

fn main() {
    let n = std::env::var("PLOT_BENCH_N")
        .ok()
        .map(|s| parse_count(&s).expect("PLOT_BENCH_N is a count"))
        .unwrap_or(100_000_000);
    // A sequence with 0.6-like structure: a slowly rising band plus noise.
    let values: Vec<u16> = (0..n)
        .map(|i| {
            let h = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56;
            ((i as f64).sqrt() as u64 % 200 + h) as u16
        })
        .collect();
    let columns = 1100u64;
    let bounds: Vec<u64> = (0..=columns).map(|c| c * n / columns).collect();
    let start = Instant::now();
    let grid = aggregate(&values, bounds, 500, 460, &|_| {}).unwrap();
    let s = start.elapsed().as_secs_f64();
    let total: u64 = grid.counts.iter().flatten().map(|&c| c as u64).sum();
    assert_eq!(total, n);
    println!(
        "aggregate {n} values: {s:.3} s ({:.3e} values/s, {} threads)",
        n as f64 / s,
        rayon::current_num_threads()
    );
    let opts = PlotOptions {
        to: n,
        title: "bench".into(),
        ..PlotOptions::default()
    };
    let start = Instant::now();
    let pic = render(&values, &opts, &Overlays::default(), Format::Png, &|_| {}).unwrap();
    let s = start.elapsed().as_secs_f64();
    if let Ok(path) = std::env::var("PLOT_BENCH_OUT") {
        std::fs::write(path, &pic.bytes).expect("writing PLOT_BENCH_OUT");
    }
    println!(
        "render {n} values to a 1200x600 PNG (max value found by a pass): {s:.3} s, {} bytes",
        pic.bytes.len()
    );
}
