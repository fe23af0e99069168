//! How far the reference engine gets on hexadecimal games (three-heap
//! splits) in a given CPU time: prints heaps done and values/s as it goes.
//!
//! ```sh
//! cargo bench --bench hexadecimal                 # 0.8 and 0.F, 10 s each
//! cargo bench --bench hexadecimal -- 0.8 600      # one code, 10 minutes
//! ```
//!
//! The budget is CPU time of this process (from /proc/self/stat, where
//! available; wall time elsewhere), so a busy machine slows the run down
//! without shrinking how far it gets.

use std::time::Instant;

use octal::code::Code;
use octal::engine::{Engine, Reference};

/// User + system CPU seconds of this process, if /proc says.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) start at
    // field 3; utime and stime are fields 14 and 15, in clock ticks (100/s
    // on Linux).
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

fn run(code: &Code, budget: f64) {
    let mut engine = Reference::new(code);
    let mut g: Vec<u32> = Vec::new();
    let wall = Instant::now();
    let cpu0 = cpu_seconds();
    let spent = || match (cpu0, cpu_seconds()) {
        (Some(a), Some(b)) => b - a,
        _ => wall.elapsed().as_secs_f64(),
    };
    let mut chunk = 1024;
    let mut next_report = 1.0;
    loop {
        let before = spent();
        if before >= budget {
            break;
        }
        let from = g.len();
        g.resize(from + chunk, 0);
        engine.extend_u32(&mut g, from).expect("u32 values");
        let t = spent();
        if t >= next_report {
            let max = g.iter().max().copied().unwrap_or(0);
            println!(
                "{code}: {:>9} values in {t:>7.1} s CPU ({:>9.0} values/s overall), max value {max}",
                g.len(),
                g.len() as f64 / t
            );
            next_report = (t * 1.5).max(t + 1.0);
        }
        // Keep each chunk near a tenth of a second as the cost per heap
        // grows (it does, at least linearly).
        let per_heap = (t - before) / chunk as f64;
        chunk = ((0.1 / per_heap.max(1e-9)) as usize).clamp(1, 2 * chunk);
    }
    let t = spent();
    println!(
        "{code}: done, {} values in {t:.1} s CPU, {:.1} s wall ({:.0} values/s overall)",
        g.len(),
        wall.elapsed().as_secs_f64(),
        g.len() as f64 / t
    );
}

fn main() {
    // cargo bench passes --bench; positional arguments are CODE [SECONDS].
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let (codes, seconds) = match args.as_slice() {
        [] => (vec!["0.8".to_string(), "0.F".to_string()], 10.0),
        [code] => (vec![code.clone()], 10.0),
        [code, s, ..] => (vec![code.clone()], s.parse().expect("seconds")),
    };
    for code in codes {
        let code: Code = code.parse().unwrap_or_else(|e| panic!("{e}"));
        run(&code, seconds);
    }
}
