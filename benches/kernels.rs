//! Each hot kernel under each instruction-set path this host has, in pairs
//! (or bytes) per second: `cargo bench --bench kernels` (about a minute;
//! add a kernel's name to run only it, e.g. `-- strike`).
//!
//! The inputs are cut from a real sequence (0.6 and Cookie Cutter 6, from
//! the engine), so the values and their spread are those the engine sees.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

use octal::code::Code;
use octal::engine::{compute, EngineKind, MaskSpec};
use octal_kernels::diagonal::{or_pair_xors_on, pairs_hit_on};
use octal_kernels::isa::{self, Isa};
use octal_kernels::mex::{first_unflagged_on, unflagged_bits_on};
use octal_kernels::pairs::flag_pairs_on;
use octal_kernels::runs::{Check, Checked, Runs};
use octal_kernels::witness::strike_xors_on;

fn values(code: &Code, n: usize) -> Vec<u16> {
    let mut e = EngineKind::Sparse
        .build_with(code, 1, MaskSpec::Auto)
        .unwrap();
    compute(e.as_mut(), n)
        .into_iter()
        .map(|v| v as u16)
        .collect()
}

fn paths() -> Vec<Isa> {
    isa::available().collect()
}

/// One group: `strike_xors` of the set `set0` by the pairs of `lo` and
/// `hi` on every path, in `pairs` pairs a call.
fn strike_group(
    c: &mut Criterion,
    name: &str,
    set0: [u64; 8],
    lo: &[u16],
    hi: &[u16],
    pairs: usize,
) {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(pairs as u64));
    for isa in paths() {
        g.bench_function(BenchmarkId::from_parameter(isa), |b| {
            b.iter(|| {
                let mut set = set0;
                black_box(strike_xors_on(isa, &mut set, black_box(lo), black_box(hi)))
            })
        });
    }
    g.finish();
}

fn kernels(c: &mut Criterion) {
    let officers = values(&"0.6".parse().unwrap(), 1 << 18);
    let cookie = values(&Code::cookie_cutter(6), 60_000);
    let n = officers.len();

    // Witness strike: a set of ten values of a heap near the end, struck
    // by the pairs (a, m − a) of 2048 a's from the middle, where a scan
    // spends its time.
    let m = n - 1;
    let (lo, hi) = (
        &officers[m / 2 - 2048..m / 2],
        &officers[m / 2 + 1..m / 2 + 2049],
    );
    let mut set0 = [0u64; 8];
    for v in [3usize, 70, 131, 200, 260, 301, 333, 400, 450, 500] {
        set0[v / 64] |= 1 << (v % 64);
    }
    strike_group(
        c,
        "strike_xors (10 values, 2048 pairs)",
        set0,
        lo,
        hi,
        lo.len(),
    );

    // Far flags: 200 runs over a tile of 128 rows of 512 bytes.
    let rows = 128;
    let mut runs = Runs::default();
    runs.reset(rows);
    for r in 0..200 {
        runs.push((r * 37 % 512) as u32, 0..rows, 1000 + r * 517);
    }
    let mut flags = vec![0u8; rows * 512];
    let mut g = c.benchmark_group("Runs::flag (200 runs x 128 rows of 512)");
    g.throughput(Throughput::Elements((200 * rows) as u64));
    for isa in paths() {
        g.bench_function(BenchmarkId::from_parameter(isa), |b| {
            b.iter(|| runs.flag_on(isa, &mut flags, 512, black_box(&officers), 0..rows))
        });
    }
    g.finish();

    // Checked runs: half of them checked for 12 candidates a row.
    let mut checked = Runs::default();
    checked.reset(rows);
    for r in 0..200 {
        let (x, at) = ((r * 37 % 512) as u32, 1000 + r * 517);
        if r % 2 == 0 {
            checked.push(x, 0..rows, at);
        } else {
            checked.push_checked(x, at);
        }
    }
    let even: Vec<u64> = vec![0x5555_5555_5555_5555; 8];
    let check = Check {
        eligible: |_| &even[..],
        candidates: 12,
        low_bytes: false,
    };
    let mut lims = vec![u32::MAX; rows];
    let mut g = c.benchmark_group("Runs::flag_checked (100 + 100 checked runs x 128 rows)");
    g.throughput(Throughput::Elements((200 * rows) as u64));
    for isa in paths() {
        g.bench_function(BenchmarkId::from_parameter(isa), |b| {
            b.iter(|| {
                flags.fill(0);
                let limits = Checked {
                    check: &check,
                    lims: &mut lims,
                };
                checked.flag_checked_on(isa, &mut flags, 512, &officers, 0..rows, limits)
            })
        });
    }
    g.finish();

    // The long tail of a scan: one value that none of 8192 pairs reaches
    // (the strike of a few values, compares without tables), and one
    // first reached after 400 or more pairs (a call's fixed cost besides).
    let (lo, hi) = (
        &officers[m / 2 - 8192..m / 2],
        &officers[m / 2 + 1..m / 2 + 8193],
    );
    let xs: Vec<u16> = lo.iter().zip(hi.iter().rev()).map(|(a, b)| a ^ b).collect();
    let open = (0..512)
        .find(|v| !xs.contains(v))
        .expect("a value below 512 not reached");
    let (at, late) = (400..xs.len())
        .map(|j| (j, xs[j]))
        .find(|&(j, v)| v < 512 && !xs[..j].contains(&v))
        .expect("a value first reached after 400 pairs");
    for (v, name) in [
        (open, "not reached".to_string()),
        (late, format!("first reached at pair {at}")),
    ] {
        let mut set0 = [0u64; 8];
        set0[v as usize / 64] |= 1 << (v % 64);
        let name = format!("strike_xors (1 value {name}, of 8192 pairs)");
        let pairs = if v == open { lo.len() } else { at + 1 };
        strike_group(c, &name, set0, lo, hi, pairs);
    }

    // Pair flags: one heap's 1024 middle pairs into its row of 512.
    let mut row = vec![0u8; 512];
    let (lo, hi) = (
        &officers[m / 2 - 1024..m / 2],
        &officers[m / 2 + 1..m / 2 + 1025],
    );
    let mut g = c.benchmark_group("flag_pairs (1024 pairs)");
    g.throughput(Throughput::Elements(lo.len() as u64));
    for isa in paths() {
        g.bench_function(BenchmarkId::from_parameter(isa), |b| {
            b.iter(|| flag_pairs_on(isa, &mut row, black_box(lo), black_box(hi)))
        });
    }
    g.finish();

    // Diagonal: the whole last diagonal of Cookie Cutter 6.
    let s = cookie.len() - 1;
    let top = s / 2;
    let (lo, hi) = (&cookie[1..top + 1], &cookie[s - top..s]);
    let bound = (lo.iter().chain(hi).map(|&v| v as usize).max().unwrap() + 1)
        .next_power_of_two()
        .max(64);
    let mut bits = vec![0u64; 2 * bound / 64];
    let mut bytes = Vec::new();
    let mut g = c.benchmark_group(format!("or_pair_xors ({top} pairs)"));
    g.throughput(Throughput::Elements(top as u64));
    for isa in paths() {
        g.bench_function(BenchmarkId::from_parameter(isa), |b| {
            b.iter(|| {
                bits.fill(0);
                or_pair_xors_on(isa, &mut bits, black_box(lo), black_box(hi), &mut bytes)
            })
        });
    }
    g.finish();

    // The same diagonal compared with four candidates (none present, so
    // every pair is compared with all four, as for a heap's mex).
    let mut g = c.benchmark_group(format!("pairs_hit ({top} pairs, 4 candidates)"));
    g.throughput(Throughput::Elements(top as u64));
    let cands = [65_535, 65_534, 65_533, 65_532];
    let partners: Vec<u16> = hi.iter().rev().copied().collect();
    for isa in paths() {
        g.bench_function(BenchmarkId::from_parameter(isa), |b| {
            b.iter(|| pairs_hit_on(isa, black_box(lo), black_box(&partners), &cands))
        });
    }
    g.finish();

    // Flag-row scans: a row of 512 with its first open value near the end.
    let mut row = vec![1u8; 512];
    row[500] = 0;
    let mut out = [0u64; 8];
    let mut g = c.benchmark_group("flag rows (512 bytes)");
    g.throughput(Throughput::Bytes(row.len() as u64));
    for isa in paths() {
        g.bench_function(BenchmarkId::new("first_unflagged", isa), |b| {
            b.iter(|| first_unflagged_on(isa, black_box(&row)))
        });
        g.bench_function(BenchmarkId::new("unflagged_bits", isa), |b| {
            b.iter(|| unflagged_bits_on(isa, black_box(&row), &mut out))
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(20);
    targets = kernels
}
criterion_main!(benches);
