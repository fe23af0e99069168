//! Proves the period of values computed elsewhere: reads G(0), G(1), …
//! one per line from stdin and prints what the detector finds for the
//! game given as the argument, e.g.
//! `octal values .16 --to 3200000 | cargo run --release --example period_of_values -- .16`

use std::io::BufRead;

use octal::period::{Detector, Period};

fn main() {
    let code: octal::Code = std::env::args()
        .nth(1)
        .expect("usage: period_of_values CODE < values")
        .parse()
        .expect("an octal code");
    let g: Vec<u32> = std::io::stdin()
        .lock()
        .lines()
        .map(|l| {
            l.expect("readable stdin")
                .trim()
                .parse()
                .expect("a value per line")
        })
        .collect();
    let start = std::time::Instant::now();
    let mut d = Detector::new(&code);
    let mut n = 0;
    while n < g.len() && d.proven().is_none() {
        n = (n + (n / 64).clamp(1024, 1 << 22)).min(g.len());
        d.feed(&g[..n]);
    }
    let secs = start.elapsed().as_secs_f64();
    let show = |p: Period| {
        format!(
            "period {} preperiod {} (last irregular {:?}) at {} values, bound {:?}",
            p.period,
            p.preperiod,
            p.last_irregular(),
            p.proven_at,
            p.bound
        )
    };
    match (d.proven(), d.apparent()) {
        (Some(p), _) => println!("{code}: proven: {} ({secs:.3} s)", show(p)),
        (None, Some(a)) => println!(
            "{code}: not proven in {} values; apparent {}",
            g.len(),
            show(a)
        ),
        (None, None) => println!("{code}: no period found in {} values", g.len()),
    }
}
