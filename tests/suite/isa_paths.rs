//! The fast engine on every instruction-set path this host has (as
//! `OCTAL_ISA` would force it), against the reference engine: the classic
//! games, Grundy's game, Cookie Cutter (the diagonal method), the checked
//! runs' fallback, and random codes.
//!
//! The path is a process-wide choice (`isa::select`), so this file holds a
//! single test: no other test of this binary runs beside it on another
//! path.

use octal::code::Code;
use octal::engine::{compute, MaskSpec, Reference, Sparse};
use octal_kernels::isa::{self, Isa};

fn reference(code: &Code, n: usize) -> Vec<u32> {
    compute(&mut Reference::new(code), n)
}

fn first_difference(a: &[u32], b: &[u32]) -> Option<usize> {
    (0..a.len().min(b.len())).find(|&i| a[i] != b[i])
}

/// A small xorshift: the random codes must be the same on every path.
fn codes(count: usize) -> Vec<Code> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    (0..count)
        .map(|_| {
            let len = 1 + (next() % 6) as usize;
            let mut digits = vec![if next() % 2 == 0 { 0 } else { 4 }];
            digits.extend((0..len).map(|_| (next() % 8) as u8));
            Code::from_digits(digits).unwrap()
        })
        .collect()
}

#[test]
fn every_path_matches_the_reference() {
    let paths: Vec<Isa> = isa::available().collect();
    assert!(paths.contains(&Isa::Scalar));
    let games: Vec<(Code, usize)> = [("0.6", 100_000), (".16", 30_000), ("grundy", 30_000)]
        .iter()
        .map(|&(s, n)| (s.parse().unwrap(), n))
        .chain([(Code::cookie_cutter(14), 30_000)])
        .chain(codes(40).into_iter().map(|c| (c, 5000)))
        .collect();
    let wants: Vec<Vec<u32>> = games.iter().map(|(c, n)| reference(c, *n)).collect();
    for &path in &paths {
        isa::select(path).unwrap();
        assert_eq!(isa::current(), path);
        for ((code, n), want) in games.iter().zip(&wants) {
            for threads in [1, 2] {
                // In sparse space wherever there is any, as on every CPU before
                // the choice became the CPU's (see sparse_engine.rs).
                let got = compute(
                    &mut Sparse::new(code, threads, MaskSpec::Sparse).unwrap(),
                    *n,
                );
                assert_eq!(
                    first_difference(want, &got),
                    None,
                    "{code}, {threads} threads, {path}"
                );
            }
        }
        // One candidate a row: heaps past their candidates fall back to
        // their checked runs' flags, on the paths that check.
        let (code, want) = (&games[0].0, &wants[0][..40_000]);
        let mut e = Sparse::new(code, 1, MaskSpec::Sparse).unwrap();
        e.check_candidates(1);
        let got = compute(&mut e, want.len());
        assert_eq!(
            first_difference(want, &got),
            None,
            "{code} fallbacks, {path}"
        );
        if octal_kernels::runs::checks_pay::<u16>(512, true) {
            assert!(e.fallbacks() > 100, "{path}: {} fallbacks", e.fallbacks());
        }
    }
}
