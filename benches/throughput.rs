//! Throughput of the engines in values per second (not a timed test: run
//! with `cargo bench --bench throughput`, optionally `-- quick`).
//!
//! Games: `0.6` (sparse space, thousands of rare positions), `.16` (sparse
//! space, few rare positions), Cookie Cutter 6 and 20 (`0.333337`, no
//! sparse space: the diagonal method, one full scan of a diagonal per
//! heap) and Grundy's game (`4.0u`, unequal splits, sparse space), each
//! with 1 and 2 threads.

use std::time::Instant;

use octal::code::Code;
use octal::engine::{compute, EngineKind, MaskSpec};

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let scale = if quick { 10 } else { 1 };
    let games: [(&str, Code, usize); 5] = [
        ("0.6", "0.6".parse().unwrap(), 1_000_000),
        (".16", ".16".parse().unwrap(), 10_000_000),
        ("cookie cutter 6", Code::cookie_cutter(6), 100_000),
        ("cookie cutter 20", Code::cookie_cutter(20), 200_000),
        ("grundy", "grundy".parse().unwrap(), 1 << 22),
    ];
    println!(
        "{:<16} {:>10} {:>8} {:>12} {:>14}",
        "game", "values", "threads", "seconds", "values/s"
    );
    for (name, code, n) in games {
        let n = n / scale;
        let mut rate1 = 0.0;
        for threads in [1, 2] {
            let mut engine = EngineKind::Sparse
                .build_with(&code, threads, MaskSpec::Auto)
                .unwrap();
            let t = Instant::now();
            let g = compute(engine.as_mut(), n);
            let s = t.elapsed().as_secs_f64();
            std::hint::black_box(&g);
            let rate = n as f64 / s;
            if threads == 1 {
                rate1 = rate;
            }
            println!(
                "{name:<16} {n:>10} {threads:>8} {s:>12.3} {rate:>14.0}{}",
                if threads == 2 {
                    format!("  ({:.2}x over 1 thread)", rate / rate1)
                } else {
                    String::new()
                }
            );
        }
    }
}
