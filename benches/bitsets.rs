//! Why the engines keep their own bitsets and the family its rayon queue:
//! the reference engine's set of option values (kernels' `ValueSet`)
//! against `bitvec`'s `BitVec`, and the family's queue (rayon, one member
//! a task) against `crossbeam-channel` workers. Results and the decision
//! are in docs/engine.md ("Bitsets and queues").
//!
//! ```sh
//! cargo bench --bench bitsets
//! ```

use bitvec::prelude::*;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use octal::engine::EngineKind;
use octal_kernels::mex::ValueSet;
use rayon::prelude::*;

/// G(0..n) of 0.6 (Officers): its split pairs are the reference engine's
/// whole work.
fn officers(n: usize) -> Vec<u32> {
    let code = "0.6".parse().unwrap();
    let mut e = EngineKind::Sparse
        .build_with(&code, 1, Default::default())
        .unwrap();
    octal::compute(e.as_mut(), n)
}

/// Heaps whose options the benchmark flags, and the bound on their values.
const HEAPS: std::ops::Range<usize> = 20_000..20_100;
const BOUND: usize = 512;

fn sets(c: &mut Criterion) {
    let g = officers(HEAPS.end);
    let pairs: u64 = HEAPS.map(|n| (n as u64 - 1) / 2).sum();
    let mut group = c.benchmark_group("reference mex, 0.6 heaps 20000..20100");
    group.throughput(Throughput::Elements(pairs));
    group.bench_function("ValueSet (kernels)", |b| {
        let mut set = ValueSet::new();
        b.iter(|| {
            let mut sum = 0;
            for n in HEAPS {
                set.reset(BOUND as u32);
                set.insert(g[n - 1]);
                for a in 1..=(n - 1) / 2 {
                    set.insert(g[a] ^ g[n - 1 - a]);
                }
                sum += set.mex();
            }
            sum
        })
    });
    group.bench_function("BitVec (bitvec)", |b| {
        let mut set: BitVec<u64, Lsb0> = BitVec::repeat(false, BOUND);
        b.iter(|| {
            let mut sum = 0;
            for n in HEAPS {
                set.fill(false);
                set.set(g[n - 1] as usize, true);
                for a in 1..=(n - 1) / 2 {
                    set.set((g[a] ^ g[n - 1 - a]) as usize, true);
                }
                sum += set.first_zero().unwrap_or(BOUND) as u32;
            }
            sum
        })
    });
    group.finish();
}

/// Members a family runs: trivial ones, so that only the queue is timed.
const MEMBERS: usize = 4096;

fn member(i: usize) -> u64 {
    (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7
}

fn queues(c: &mut Criterion) {
    let mut group = c.benchmark_group("family queue, 4096 trivial members, 2 workers");
    group.throughput(Throughput::Elements(MEMBERS as u64));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    group.bench_function("rayon, one member a task", |b| {
        b.iter(|| {
            pool.install(|| {
                (0..MEMBERS)
                    .into_par_iter()
                    .with_max_len(1)
                    .map(member)
                    .collect::<Vec<_>>()
            })
        })
    });
    group.bench_function("crossbeam-channel workers", |b| {
        b.iter_batched(
            || (),
            |()| {
                let (tx, rx) = crossbeam_channel::unbounded::<usize>();
                let (done_tx, done_rx) = crossbeam_channel::unbounded::<(usize, u64)>();
                for i in 0..MEMBERS {
                    tx.send(i).unwrap();
                }
                drop(tx);
                std::thread::scope(|s| {
                    for _ in 0..2 {
                        let (rx, done_tx) = (rx.clone(), done_tx.clone());
                        s.spawn(move || {
                            for i in rx {
                                done_tx.send((i, member(i))).unwrap();
                            }
                        });
                    }
                });
                drop(done_tx);
                let mut rows = vec![0; MEMBERS];
                for (i, v) in done_rx {
                    rows[i] = v;
                }
                rows
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, sets, queues);
criterion_main!(benches);
