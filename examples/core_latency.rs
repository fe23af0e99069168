//! Prints the round trip between two threads, in nanoseconds: one thread
//! raises a counter, the other answers by raising it again, up to 200,000
//! times or for 100 ms (the least of three such rounds).
//!
//! Why it exists: the engine's two threads hand work and data between two
//! cores, and what that costs depends on how far apart the cores are.
//! On shared virtual machines it changes for seconds to minutes at a
//! time, and runs on two threads change with it (the figures are in
//! docs/performance.md, "How to measure"). `scripts/compare-peers.sh`
//! prints it beside each game, so that a table says which kind of spell
//! it was made in. `cargo run --release --example core_latency`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Most trips a round, and the most time it takes (a core shared with
/// another program can make each trip a time slice long).
const TRIPS: u64 = 200_000;
const MAX_ROUND: Duration = Duration::from_millis(100);
const QUIT: u64 = u64::MAX;

/// One round: the mean round trip in nanoseconds.
fn round() -> f64 {
    let flag = Arc::new(AtomicU64::new(0));
    let other = {
        let flag = Arc::clone(&flag);
        thread::spawn(move || {
            let mut seen = 0;
            loop {
                let now = flag.load(Ordering::Acquire);
                if now == QUIT {
                    return;
                }
                if now != seen && now % 2 == 1 {
                    seen = now + 1;
                    flag.store(seen, Ordering::Release);
                }
                std::hint::spin_loop();
            }
        })
    };
    let start = Instant::now();
    let mut trips = 0;
    while trips < TRIPS && (trips % 1024 != 0 || start.elapsed() < MAX_ROUND) {
        flag.store(2 * trips + 1, Ordering::Release);
        while flag.load(Ordering::Acquire) != 2 * trips + 2 {
            std::hint::spin_loop();
        }
        trips += 1;
    }
    let ns = start.elapsed().as_nanos() as f64 / trips.max(1) as f64;
    flag.store(QUIT, Ordering::Release);
    other.join().expect("the answering thread");
    ns
}

fn main() {
    let best = (0..3).map(|_| round()).fold(f64::INFINITY, f64::min);
    println!("{best:.0}");
}
