//! The diagonal method against the reference oracle, value for value:
//! random codes with and without the u suffix (unequal splits), resumed
//! from any prefix, long diagonals split between two threads.

use octal::code::Code;
use octal::engine::{compute, Diagonal, Engine, Reference};
use proptest::prelude::*;

fn reference(code: &Code, n: usize) -> Vec<u32> {
    compute(&mut Reference::new(code), n)
}

fn diagonal(code: &Code, threads: usize, parallel_pairs: usize) -> Diagonal {
    let mut e = Diagonal::new(code, threads).expect("no three-heap splits");
    e.set_parallel_pairs(parallel_pairs);
    e
}

fn first_difference(a: &[u32], b: &[u32]) -> Option<usize> {
    (0..a.len().min(b.len())).find(|&i| a[i] != b[i])
}

/// A code with 1–6 digits after the point, a leading 0 or 4, and the u
/// suffix half the time when it has a two-heap split.
fn code_strategy() -> impl Strategy<Value = Code> {
    (
        prop_oneof![Just(0u8), Just(4u8)],
        proptest::collection::vec(0u8..8, 1..=6),
        any::<bool>(),
    )
        .prop_map(|(lead, mut digits, u)| {
            digits.insert(0, lead);
            let code = Code::from_digits(digits).unwrap();
            if u {
                code.clone().with_unequal_splits().unwrap_or(code)
            } else {
                code
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn random_codes_match_reference(
        code in code_strategy(),
        threads in 1usize..=2,
        from_pick in any::<usize>(),
    ) {
        let n = 3000;
        let want = reference(&code, n);
        // Tiny diagonals already split between the threads.
        let got = compute(&mut diagonal(&code, threads, 64), n);
        prop_assert_eq!(first_difference(&want, &got), None, "{}", code);
        // Resumed from a prefix: every diagonal it needs computed on demand.
        let from = from_pick % n;
        let mut g: Vec<u16> = want.iter().map(|&v| v as u16).collect();
        g[from..].fill(0);
        diagonal(&code, threads, 1 << 20).extend_u16(&mut g, from).unwrap();
        let got: Vec<u32> = g.iter().map(|&v| v as u32).collect();
        prop_assert_eq!(first_difference(&want, &got), None, "{} from {}", code, from);
    }
}

#[test]
fn unequal_codes_parse_and_differ() {
    // The u suffix must reach the engine: 4.0 and 4.0u differ at once.
    let grundy: Code = "grundy".parse().unwrap();
    let plain: Code = "4.0".parse().unwrap();
    let g = compute(&mut diagonal(&grundy, 1, 1 << 20), 6);
    assert_eq!(g, [0, 0, 0, 1, 0, 2]);
    assert_ne!(g, compute(&mut diagonal(&plain, 1, 1 << 20), 6));
    let code: Code = "0.37u".parse().unwrap();
    assert!(code.rules().unequal_splits);
    assert_eq!(
        compute(&mut diagonal(&code, 2, 16), 4000),
        reference(&code, 4000)
    );
}

/// Longer runs of games without sparse space, with and without the u
/// suffix: values beyond 1024 (several lookup tables), long diagonals.
#[test]
fn long_games_match_reference() {
    let games: Vec<(Code, usize)> = vec![
        (Code::cookie_cutter(6), 40_000),
        ("grundy".parse().unwrap(), 40_000),
        ("0.333337u".parse().unwrap(), 20_000),
        ("4.7".parse().unwrap(), 20_000),
    ];
    for (code, n) in games {
        let want = reference(&code, n);
        for threads in [1, 2] {
            let got = compute(&mut diagonal(&code, threads, 4096), n);
            assert_eq!(
                first_difference(&want, &got),
                None,
                "{code}, {threads} threads"
            );
        }
    }
}

/// Games of one split distance with the mex taken by candidates from
/// short diagonals on (so that the dense part, the circle and the helper's
/// share of the next diagonal all run), against the reference.
#[test]
fn candidates_match_reference() {
    let games: Vec<(Code, usize)> = vec![
        (Code::cookie_cutter(6), 30_000),
        (Code::cookie_cutter(4), 20_000),
        ("0.333337u".parse().unwrap(), 20_000),
        ("0.16".parse().unwrap(), 20_000),
        ("0.07".parse().unwrap(), 20_000),
        // Split distance 0: the next diagonal is not known ahead.
        ("grundy".parse().unwrap(), 20_000),
    ];
    for (code, n) in games {
        let want = reference(&code, n);
        for threads in [1, 2] {
            for pairs in [1, 700, 5000] {
                let mut e = diagonal(&code, threads, 4096);
                e.force_candidates(pairs);
                let got = compute(&mut e, n);
                assert_eq!(
                    first_difference(&want, &got),
                    None,
                    "{code}, {threads} threads, from {pairs} pairs"
                );
            }
        }
    }
    // Pieces and a jump back: the next diagonal's prepared dense part
    // must not outlive the values it was made from.
    let code = Code::cookie_cutter(6);
    let n = 12_000;
    let want = reference(&code, n);
    let mut e = diagonal(&code, 2, 4096);
    e.force_candidates(100);
    let mut g = vec![0u16; n];
    let mut done = 0;
    for end in [1, 7, 3000, 3001, 9000, n] {
        e.extend_u16(&mut g[..end], done).unwrap();
        done = end;
    }
    assert!(g.iter().map(|&v| v as u32).eq(want.iter().copied()));
    g[5000..].fill(0);
    e.extend_u16(&mut g, 5000).unwrap();
    assert!(g.iter().map(|&v| v as u32).eq(want.iter().copied()));
    let mut g32 = want.clone();
    g32[8000..].fill(0);
    e.extend_u32(&mut g32, 8000).unwrap();
    assert_eq!(g32, want);
}

#[test]
fn pieces_and_prefixes_give_the_same_values() {
    let code = Code::cookie_cutter(6);
    let n = 20_000;
    let want = reference(&code, n);
    // One engine fed uneven pieces, then jumps back (a fresh prefix).
    let mut e = diagonal(&code, 2, 1024);
    let mut g = vec![0u16; n];
    let mut done = 0;
    for end in [1, 2, 3, 7, 100, 1023, 1024, 5000, 5001, 12_345, n] {
        e.extend_u16(&mut g[..end], done).unwrap();
        done = end;
    }
    assert!(g.iter().map(|&v| v as u32).eq(want.iter().copied()));
    for from in [19_999, 10_000, 2, 0] {
        g[from..].fill(0);
        e.extend_u16(&mut g, from).unwrap();
        assert!(
            g.iter().map(|&v| v as u32).eq(want.iter().copied()),
            "from {from}"
        );
    }
    // u32 values, as after an overflow.
    let mut g32 = want.clone();
    g32[15_000..].fill(0);
    e.extend_u32(&mut g32, 15_000).unwrap();
    assert_eq!(g32, want);
}

#[test]
fn three_heap_splits_are_refused() {
    assert!(Diagonal::new(&"0.8".parse().unwrap(), 1).is_none());
}
