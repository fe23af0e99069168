//! Time to prove a period, and values computed, with the default engine.
//!
//! `cargo bench --bench period` prints one line per game. `.16` (period
//! 149459, thousands of irregular values) needs a few million values and
//! is only attempted when the default engine is not the quadratic
//! reference engine (set OCTAL_BENCH_16=1 to force it).

use std::time::Instant;

use octal::period::{Bound, Detector};
use octal::run::{run_until, Job};
use octal::EngineKind;

fn prove(code: &str, to: u64) {
    let job = Job {
        code: code.parse().expect("valid code"),
        to,
        engine: EngineKind::default(),
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        mask: Default::default(),
    };
    let start = Instant::now();
    let out = run_until(&job, true, &mut |_| {}).expect("job runs");
    let secs = start.elapsed().as_secs_f64();
    let s = &out.summary;
    match &s.period {
        Some(p) => println!(
            "{code:>6}: period {} preperiod {} proven at {} (bound {:?}), {} values computed, {secs:.4} s, engine {}",
            p.period, p.preperiod, p.proven_at, p.bound, s.values, s.engine.engine
        ),
        None => println!(
            "{code:>6}: no period proven in {} values, {secs:.3} s, engine {}",
            s.values, s.engine.engine
        ),
    }
}

/// Pseudo-random values below 64 (xorshift), a stand-in for a long
/// aperiodic run.
fn noise(len: usize, seed: u64) -> Vec<u16> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 64) as u16
        })
        .collect()
}

/// Feeds `g` to a detector in run-sized blocks; returns (seconds, what it
/// proved).
fn feed(g: &[u16], code: &str) -> (f64, Option<octal::period::Period>) {
    let code: octal::Code = code.parse().unwrap();
    let mut d = Detector::with_bound(Bound::of(&code));
    let start = Instant::now();
    let mut n = 0;
    while n < g.len() && d.proven().is_none() {
        n = (n + (n / 64).clamp(1 << 10, 1 << 22)).min(g.len());
        d.feed(&g[..n]);
    }
    (start.elapsed().as_secs_f64(), d.proven())
}

/// The detector alone: its cost per value on an aperiodic sequence, and
/// the time to find and prove a period of 10^8.
fn detector_alone() {
    let len = 100_000_000;
    let g = noise(len, 7);
    let (secs, p) = feed(&g, "0.77");
    assert!(p.is_none());
    println!(
        "detector on {len} aperiodic values: {secs:.2} s ({:.1} ns/value)",
        secs * 1e9 / len as f64
    );
    let (pre, period) = (1_234_567usize, 100_000_000usize);
    let mut g = noise(pre + period, 11);
    g[pre - 1] = 64; // irregular: no other value is 64
    let need = Bound::of(&"0.77".parse().unwrap())
        .unwrap()
        .needed(period as u64, pre as u64) as usize;
    g.reserve(need + need / 50 - g.len());
    while g.len() < need + need / 50 {
        g.push(g[g.len() - period]);
    }
    let (secs, p) = feed(&g, "0.77");
    let p = p.expect("the period is found");
    assert_eq!((p.period, p.preperiod), (period as u64, pre as u64));
    println!(
        "synthetic period {period}, preperiod {pre}: proven at {} (bound {:?}) in {secs:.2} s",
        p.proven_at, p.bound
    );
}

fn main() {
    detector_alone();
    // Criterion passes --bench; a plain harness ignores its arguments.
    prove("0.77", 1_000_000_000);
    prove("0.137", 1_000_000_000);
    let reference = EngineKind::default() == EngineKind::Reference;
    if reference && std::env::var_os("OCTAL_BENCH_16").is_none() {
        println!("  0.16: skipped (the default engine is the reference engine; OCTAL_BENCH_16=1 forces it)");
    } else {
        prove("0.16", 20_000_000);
    }
}
