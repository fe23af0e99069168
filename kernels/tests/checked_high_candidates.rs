//! The checked runs with candidates above 255, on every path the host
//! has: the random rows of `runs::tests` leave most values open, so their
//! candidates stay below 256, where comparing low bytes and comparing
//! whole values agree. Here only values ≥ 256 are eligible, so the low
//! byte keying of the vector checks (candidates and values) is exercised.

use octal_kernels::isa;
use octal_kernels::runs::{Check, Checked, Runs, CANDIDATES};
use proptest::prelude::*;

proptest! {
    #[test]
    fn high_candidates_match_the_twin(
        g in proptest::collection::vec(any::<u16>(), 64..200),
        runs in proptest::collection::vec((any::<u32>(), any::<usize>(), any::<bool>()), 1..40),
        wide in any::<bool>(),
        seed in any::<u64>(),
        candidates in 1usize..=CANDIDATES,
        low_bytes in any::<bool>(),
    ) {
        let row = if wide { 1024 } else { 512 };
        let g: Vec<u16> = g.iter().map(|&v| v % row as u16).collect();
        let len = g.len() / 2;
        // Values 256.. eligible (a random half of them), none below.
        let eligible: Vec<u64> = (0..row as u64 / 64)
            .map(|w| if w < 4 { 0 } else { seed.rotate_left(w as u32 * 11) | 1 << (w % 64) })
            .collect();
        let check = Check { eligible: |_: usize| eligible.as_slice(), candidates, low_bytes };
        let mut list = Runs::default();
        list.reset(len);
        for (x, at, checked) in runs {
            let (x, at) = (x % row as u32, at % (g.len() - len + 1));
            if checked {
                list.push_checked(x, at);
            } else {
                list.push(x, 0..len, at);
            }
        }
        let mut b = vec![0u8; len * row];
        let mut lims_b = vec![u32::MAX; len];
        list.flag_checked_reference(&mut b, row, &g, 0..len, &check, &mut lims_b);
        for isa in isa::available() {
            let mut a = vec![0u8; len * row];
            let mut lims_a = vec![u32::MAX; len];
            let checked = Checked { check: &check, lims: &mut lims_a };
            list.flag_checked_on(isa, &mut a, row, &g, 0..len, checked);
            prop_assert!(a == b, "{}: flags differ", isa);
            prop_assert_eq!(&lims_a, &lims_b, "{}", isa);
        }
    }
}
