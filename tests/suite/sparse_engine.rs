//! The sparse engine against the reference oracle, value for value: random
//! codes (with and without the `u` suffix of unequal splits), the classic
//! games and Grundy's game at 10^5, resuming from a prefix, forced masks and
//! the u16 → u32 overflow.

use octal::code::Code;
use octal::engine::{compute, Engine, EngineKind, Mask, MaskSpec, Overflow, Reference, Sparse};
use proptest::prelude::*;
use rayon::prelude::*;

fn reference(code: &Code, n: usize) -> Vec<u32> {
    compute(&mut Reference::new(code), n)
}

fn sparse(code: &Code, n: usize, threads: usize, mask: MaskSpec) -> Vec<u32> {
    compute(&mut Sparse::new(code, threads, mask).unwrap(), n)
}

/// Games where between one position in 64 and one in 5 is rare, where
/// `--mask auto` times sparse space against the diagonal method at each
/// doubling: the values are the reference's whichever wins, on one
/// thread and two, and trials were made (each game has sparse space by
/// 2^14; `4.364` from 2^11, and a decisive trial skips one doubling, so
/// it has at least two).
#[test]
fn trials_of_both_methods_change_no_value() {
    let n = 1 << 15;
    ["0.005", "4.364", "0.14"].par_iter().for_each(|c| {
        let code: Code = c.parse().unwrap();
        let want = reference(&code, n);
        for threads in [1, 2] {
            let mut e = Sparse::new(&code, threads, MaskSpec::Auto).unwrap();
            e.trial_from(1 << 10);
            let got = compute(&mut e, n);
            assert_eq!(first_difference(&want, &got), None, "{c} on {threads}");
            let least = if *c == "4.364" { 2 } else { 1 };
            assert!(e.trials().0 >= least, "{c} on {threads}: {:?}", e.trials());
        }
    });
}

fn first_difference(a: &[u32], b: &[u32]) -> Option<usize> {
    (0..a.len().min(b.len())).find(|&i| a[i] != b[i])
}

/// A code with 1–6 digits after the point and a leading 0 or 4.
fn code_strategy() -> impl Strategy<Value = Code> {
    (
        prop_oneof![Just(0u8), Just(4u8)],
        proptest::collection::vec(0u8..8, 1..=6),
    )
        .prop_map(|(lead, mut digits)| {
            digits.insert(0, lead);
            Code::from_digits(digits).unwrap()
        })
}

/// One random code against the reference: automatic mask (1 or 2
/// threads), two threads deferring every witness scan from the start (each
/// new rare position makes a deferred check fail and the engine roll back),
/// and a forced (usually poor) mask that sends every game down the sparse
/// path.
fn check_random_code(
    code: &Code,
    threads: usize,
    forced: Option<u32>,
) -> Result<(), TestCaseError> {
    let n = 5000;
    let want = reference(code, n);
    let mut auto = Sparse::new(code, threads, MaskSpec::Auto).unwrap();
    let got = compute(&mut auto, n);
    prop_assert_eq!(first_difference(&want, &got), None, "{}", code);
    // The rare positions reported are those of the reported mask, by its
    // definition, whatever mask the engine computed with.
    if let Some(c) = auto.rare_class() {
        let by_definition: Vec<u64> = (1..n)
            .filter(|&i| c.is_rare(i as u64, got[i]))
            .map(|i| i as u64)
            .collect();
        prop_assert_eq!(auto.rare_positions(), by_definition, "{}", code);
    }
    // Timing sparse space against the diagonal method from the first
    // choice on switches between them a few times a doubling.
    let mut trying = Sparse::new(code, threads, MaskSpec::Auto).unwrap();
    trying.trial_from(0);
    prop_assert_eq!(
        first_difference(&want, &compute(&mut trying, n)),
        None,
        "{} with trials",
        code
    );
    let mut e = Sparse::new(code, 2, MaskSpec::Sparse).unwrap();
    e.defer_from(0, 0);
    prop_assert_eq!(
        first_difference(&want, &compute(&mut e, n)),
        None,
        "{} deferred",
        code
    );
    if let Some(bits) = forced {
        let mask = MaskSpec::Fixed(Mask { bits, pp: false });
        let got = sparse(code, 2000, threads, mask);
        prop_assert_eq!(
            first_difference(&want[..2000], &got),
            None,
            "{} {}",
            code,
            mask
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn random_codes_match_reference(
        code in code_strategy(),
        threads in 1usize..=2,
        forced in proptest::option::of(1u32..64),
    ) {
        check_random_code(&code, threads, forced)?;
    }
}

/// The same codes with the `u` suffix (two-heap splits must be unequal),
/// the last digit given a split so that the suffix means something.
fn unequal_code_strategy() -> impl Strategy<Value = Code> {
    code_strategy().prop_map(|c| {
        let mut digits = c.digits().to_vec();
        *digits.last_mut().unwrap() |= 4;
        let c = Code::from_digits(digits).unwrap();
        format!("{c}u").parse().unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]
    #[test]
    fn random_unequal_codes_match_reference(
        code in unequal_code_strategy(),
        threads in 1usize..=2,
        forced in proptest::option::of(1u32..64),
    ) {
        check_random_code(&code, threads, forced)?;
    }
}

/// Grundy's game (split a heap into two unequal heaps) on the fast engine,
/// which must use its sparse space (values with bit 0 ignored), to 10^5.
#[test]
fn grundys_game_matches_reference_to_1e5() {
    let code: Code = "grundy".parse().unwrap();
    let n = 100_000;
    let want = reference(&code, n);
    let mut e = Sparse::new(&code, 2, MaskSpec::Sparse).unwrap();
    let got = compute(&mut e, n);
    assert_eq!(first_difference(&want, &got), None);
    let mut deferring = Sparse::new(&code, 2, MaskSpec::Sparse).unwrap();
    deferring.defer_from(0, 0);
    assert_eq!(first_difference(&want, &compute(&mut deferring, n)), None);
    let info = e.info();
    let mask = info.rare_mask.expect("Grundy's game has sparse space");
    assert_eq!(mask & 1, 0, "bit 0 is ignored by the classes: {mask:#x}");
    let rare = info.rare_positions.unwrap();
    assert!(rare < 2000, "{rare} rare positions");
}

/// Half of the far runs of a heap are checked for a few candidates rather
/// than flagged; a heap whose mex lies past them has its checked runs
/// flagged after all. With one candidate a row that happens all the time
/// on 0.6 (rows of 512 values), on one thread and pipelined on two
/// (deferring every witness scan, so that the blocks are made ahead).
/// .16 (rows of 32, never checked) is the control: the knob must not
/// change a game whose runs are all flagged.
#[test]
fn heaps_past_their_candidates_stay_exact() {
    for (code, n) in [("0.6", 40_000), (".16", 40_000)] {
        let code: Code = code.parse().unwrap();
        let want = reference(&code, n);
        for threads in [1, 2] {
            let mut e = Sparse::new(&code, threads, MaskSpec::Sparse).unwrap();
            e.check_candidates(1);
            if threads == 2 {
                e.defer_from(0, 0);
            }
            let got = compute(&mut e, n);
            assert_eq!(
                first_difference(&want, &got),
                None,
                "{code}, {threads} threads"
            );
            // Where the kernel checks whole groups (AVX-512), the fallback
            // must have happened.
            if code.to_string() == "0.6" && octal_kernels::runs::checks_pay::<u16>(512, true) {
                assert!(e.fallbacks() > 100, "{code}: {} fallbacks", e.fallbacks());
            }
        }
    }
}

/// Compares the classic games with the reference, `n(code)` values each,
/// in parallel (the reference is quadratic: this is the slowest test).
fn classic_games(n: impl Fn(&str) -> usize + Sync) {
    let codes: Vec<(String, Code)> = ["0.6", ".77", ".07", ".137", ".16", "0.37"]
        .iter()
        .map(|s| (s.to_string(), s.parse().unwrap()))
        .chain([("cc14".to_string(), Code::cookie_cutter(14))])
        .collect();
    codes.par_iter().for_each(|(name, code)| {
        let n = n(name);
        let want = reference(code, n);
        // Threads only change the sparse path; one game is enough for both.
        let threads: &[usize] = if name == "0.6" { &[1, 2] } else { &[2] };
        for &threads in threads {
            let got = sparse(code, n, threads, MaskSpec::Auto);
            assert_eq!(
                first_difference(&want, &got),
                None,
                "{code} with {threads} threads"
            );
        }
    });
}

/// 10^5 values of 0.6 and Cookie Cutter 14 (sparse space and none), 3·10^4
/// of the others, to keep CI fast; `classic_games_to_1e5` does all.
#[test]
fn classic_games_match_reference() {
    classic_games(|name| match name {
        "0.6" | "cc14" => 100_000,
        _ => 30_000,
    });
}

/// Every classic game to 10^5 (about a minute of CPU for the reference):
/// `cargo test --release --test suite sparse_engine -- --ignored`.
#[test]
#[ignore]
fn classic_games_to_1e5() {
    classic_games(|_| 100_000);
}

#[test]
fn sparse_space_is_found_for_officers() {
    // 0.6 has few rare positions under a good mask: the engine must use one.
    let mut e = Sparse::new(&"0.6".parse().unwrap(), 1, MaskSpec::Auto).unwrap();
    compute(&mut e, 20_000);
    let info = e.info();
    assert!(info.rare_mask.is_some(), "{info:?}");
    assert!(info.rare_positions.unwrap() < 2000, "{info:?}");
    // Cookie Cutter with an even cutter has no sparse space.
    let mut e = Sparse::new(&Code::cookie_cutter(6), 1, MaskSpec::Auto).unwrap();
    compute(&mut e, 5000);
    assert_eq!(e.info().rare_mask, None);
}

#[test]
fn forced_masks_are_exact_even_when_bad() {
    let code: Code = "0.6".parse().unwrap();
    let n = 20_000;
    let want = reference(&code, n);
    for spec in ["0x1ee", "0x1ee+p", "0x1", "0x3+p", "0+p", "none", "0xffff"] {
        let mask: MaskSpec = spec.parse().unwrap();
        for threads in [1, 2] {
            let got = sparse(&code, n, threads, mask);
            assert_eq!(first_difference(&want, &got), None, "mask {spec}");
        }
    }
    // A split without removal (4.) pairs heap n0 of a block with a rare
    // heap of the block before: found by the random codes once.
    let code: Code = "4.340444".parse().unwrap();
    let want = reference(&code, 3000);
    for spec in ["0xf7", "auto"] {
        assert_eq!(
            sparse(&code, 3000, 1, spec.parse().unwrap()),
            want,
            "{spec}"
        );
    }
    // Position parity needs split distances of one parity: .77 splits at 1 and 2.
    let kayles: Code = ".77".parse().unwrap();
    assert!(Sparse::new(&kayles, 1, "0x3+p".parse().unwrap()).is_err());
    let want = reference(&kayles, 5000);
    assert_eq!(sparse(&kayles, 5000, 1, "0x3".parse().unwrap()), want);
}

#[test]
fn resuming_from_any_prefix_gives_the_same_values() {
    for code in ["0.6", ".16", ".77", "grundy"] {
        let code: Code = code.parse().unwrap();
        let n = 30_000;
        let want = sparse(&code, n, 1, MaskSpec::Auto);
        assert_eq!(want, reference(&code, n), "{code}");
        for from in [1, 500, 1024, 1025, 4097, 12_345, 29_999] {
            let mut g: Vec<u16> = want.iter().map(|&v| v as u16).collect();
            g[from..].fill(0);
            for threads in [1, 2] {
                let mut e = Sparse::new(&code, threads, MaskSpec::Auto).unwrap();
                e.extend_u16(&mut g, from).unwrap();
                assert!(
                    g.iter().map(|&v| v as u32).eq(want.iter().copied()),
                    "{code} from {from}"
                );
                g[from..].fill(0);
            }
        }
        // The same engine, fed in uneven pieces, deferring witness scans
        // from the start (each piece must end with every check settled).
        let mut e = Sparse::new(&code, 2, MaskSpec::Sparse).unwrap();
        e.defer_from(0, 0);
        let mut g = vec![0u16; n];
        let mut done = 0;
        for end in [1, 2, 3, 100, 1023, 1024, 3000, 3001, 20_000, n] {
            e.extend_u16(&mut g[..end], done).unwrap();
            done = end;
        }
        assert!(
            g.iter().map(|&v| v as u32).eq(want.iter().copied()),
            "{code} in pieces"
        );
    }
}

/// A prefix of `.6` (take one, leave one or two heaps) whose heap `at` has
/// every value 0..65535 among its splits, so G(at) = 65536.
fn overflow_prefix() -> (Code, Vec<u32>, usize) {
    let code: Code = ".6".parse().unwrap();
    let at = 131_074;
    let m = at - 1;
    let mut g = vec![0u32; at + 10];
    for (a, v) in g.iter_mut().enumerate().take(65537).skip(1) {
        *v = a as u32 - 1;
    }
    assert!(m - 65536 > 65536);
    (code, g, m + 1)
}

#[test]
fn overflow_is_reported_like_the_reference() {
    let (code, g32, at) = overflow_prefix();
    let g16: Vec<u16> = g32.iter().map(|&v| v as u16).collect();
    let mut want16 = g16.clone();
    let want = Reference::new(&code).extend_u16(&mut want16, at);
    assert_eq!(want, Err(Overflow { at, value: 65536 }));
    let masks = [
        MaskSpec::Auto,
        MaskSpec::Off,
        MaskSpec::Fixed(Mask { bits: 1, pp: false }),
    ];
    for mask in masks {
        let mut e = Sparse::new(&code, 2, mask).unwrap();
        let mut got16 = g16.clone();
        assert_eq!(e.extend_u16(&mut got16, at), want, "{mask}");
        assert_eq!(got16[..at], want16[..at]);
        // Then the same engine carries on at u32, as run.rs does.
        let mut want32 = g32.clone();
        Reference::new(&code).extend_u32(&mut want32, at).unwrap();
        let mut got32 = g32.clone();
        e.extend_u32(&mut got32, at).unwrap();
        assert_eq!(got32, want32, "{mask}");
        assert_eq!(got32[at], 65536);
    }
}

#[test]
fn the_fast_engine_is_the_default() {
    assert_eq!(EngineKind::default(), EngineKind::Sparse);
}

/// `--mask auto` computes in sparse space only where that is faster on
/// this CPU (docs/performance.md, "sparse space"), `--mask sparse`
/// wherever there is any; both report the same sparse space. `4.364` has
/// about one position in 10 rare under 0x3e: that pays against the
/// byte-row diagonal (AVX2, portable), not against AVX-512 VBMI's set in
/// registers. The values are the reference's either way.
#[test]
fn auto_computes_in_sparse_space_where_it_pays_and_reports_it_always() {
    let code: Code = "4.364".parse().unwrap();
    let n = 1 << 16;
    let want = reference(&code, 3000);
    let mut any = Sparse::new(&code, 1, MaskSpec::Sparse).unwrap();
    let g = compute(&mut any, n);
    let m = any.mask().expect("sparse space at one in ten rare");
    let rare: Vec<u64> = (1..n)
        .filter(|&i| m.is_rare(i, g[i], 0))
        .map(|i| i as u64)
        .collect();
    assert!(
        rare.len() * 12 > n && rare.len() * 8 <= n,
        "{} of {n} rare under {m:?}",
        rare.len()
    );
    let mut auto = Sparse::new(&code, 1, MaskSpec::Auto).unwrap();
    let h = compute(&mut auto, n);
    let in_registers = octal_kernels::diagonal::sets_in_registers();
    assert_eq!(auto.mask().is_some(), !in_registers, "{:?}", auto.mask());
    assert_eq!(g[..3000], want[..]);
    assert_eq!(g, h);
    // What both report: the same mask and rare positions, by definition.
    for e in [&any as &dyn Engine, &auto] {
        assert_eq!(e.info().rare_mask, Some(m.bits));
        assert_eq!(e.rare_positions(), rare);
    }
}
