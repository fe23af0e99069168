//! Time to prove a period, and values computed, with the default engine.
//!
//! `cargo bench --bench period` prints one line per game. `.16` (period
//! 149459, thousands of irregular values) needs a few million values and
//! is only attempted when the default engine is not the quadratic
//! reference engine (set OCTAL_BENCH_16=1 to force it).

use std::time::Instant;

use octal::run::{run_until, Job};
use octal::EngineKind;

fn prove(code: &str, to: u64) {
    let job = Job {
        code: code.parse().expect("valid code"),
        to,
        engine: EngineKind::default(),
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
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

fn main() {
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
