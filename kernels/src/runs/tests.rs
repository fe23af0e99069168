//! The far flags and checked runs of every path the host has, pinned to
//! the reference twins on random runs.

use super::*;
use proptest::prelude::*;

proptest! {
    #[test]
    fn runs_match_scalar(
        g in proptest::collection::vec(any::<u16>(), 1..300),
        // A few runs (calls below `ROW_BATCH_MIN`) as often as many
        // (past two batches of full runs, `ROW_BATCH`, and a part).
        runs in prop_oneof![
            proptest::collection::vec(
                (any::<u32>(), any::<usize>(), any::<usize>(), any::<usize>(), any::<bool>()),
                0..20,
            ),
            proptest::collection::vec(
                (any::<u32>(), any::<usize>(), any::<usize>(), any::<usize>(), any::<bool>()),
                20..300,
            ),
        ],
        len_pick in any::<usize>(),
        row_pick in 0usize..5,
        (cut, cut2) in (any::<usize>(), any::<usize>()),
    ) {
        // The widths the kernel dispatches on, and one it does not.
        let row = [64, 128, 256, 512, 1024][row_pick];
        let g: Vec<u16> = g.iter().map(|&v| v % row as u16).collect();
        let len = len_pick % (g.len() + 1);
        let mut list = Runs::default();
        list.reset(len);
        for (x, a, b, at, full) in runs {
            let (a, b) = (a % (len + 1), b % (len + 1));
            let (first, end) = if full { (0, len) } else { (a.min(b), a.max(b)) };
            let at = at % (g.len() - (end - first) + 1);
            list.push(x % row as u32, first..end, at);
        }
        // All the rows, or a window of them (as a tile is flagged).
        let (a0, a1) = (cut % (len + 1), cut2 % (len + 1));
        for rows in [0..len, a0.min(a1)..a0.max(a1)] {
            let mut b = vec![0u8; rows.len() * row];
            list.flag_reference(&mut b, row, &g, rows.clone());
            for isa in isa::available() {
                let mut a = vec![0u8; rows.len() * row];
                list.flag_on(isa, &mut a, row, &g, rows.clone());
                prop_assert_eq!(&a, &b, "{}", isa);
            }
        }
    }

    #[test]
    fn checked_runs_match_scalar_and_keep_the_least_open_value(
        g in proptest::collection::vec(any::<u16>(), 1..400),
        runs in proptest::collection::vec(
            (any::<u32>(), any::<usize>(), any::<usize>(), any::<usize>(), 0u8..3),
            0..60,
        ),
        len_pick in any::<usize>(),
        row_pick in 0usize..4,
        spread in 0usize..3,
        classes in (any::<u64>(), any::<u64>(), any::<bool>()),
        candidates in 1usize..=CANDIDATES,
        low_bytes in any::<bool>(),
        (cut, cut2) in (any::<usize>(), any::<usize>()),
    ) {
        let row = [64, 256, 512, 1024][row_pick];
        // Values packed low (many pairs reach the candidates) or spread.
        let top = [16, 64, row][spread] as u16;
        let g: Vec<u16> = g.iter().map(|&v| v % top).collect();
        let len = len_pick % (g.len() + 1);
        // Two eligible sets, for even and odd rows (the two classes of
        // the sparse engine), or one for every row.
        let words = row / 64;
        let class = |seed: u64| -> Vec<u64> {
            (0..words as u64).map(|w| seed.rotate_left(w as u32 * 7) | 1).collect()
        };
        let (even, odd) = (class(classes.0), class(classes.1));
        let check = Check {
            eligible: |k: usize| -> &[u64] {
                if classes.2 && k % 2 == 1 { &odd } else { &even }
            },
            candidates,
            low_bytes,
        };
        let mut list = Runs::default();
        let mut all = Runs::default();
        list.reset(len);
        all.reset(len);
        for (x, a, b, at, kind) in runs {
            let x = x % top as u32;
            let (a, b) = (a % (len + 1), b % (len + 1));
            let (first, end) = if kind > 0 { (0, len) } else { (a.min(b), a.max(b)) };
            let at = at % (g.len() - (end - first) + 1);
            if kind == 2 {
                list.push_checked(x, at);
            } else {
                list.push(x, first..end, at);
            }
            all.push(x, first..end, at);
        }
        let (a0, a1) = (cut % (len + 1), cut2 % (len + 1));
        for rows in [0..len, a0.min(a1)..a0.max(a1)] {
            let mut b = vec![0u8; rows.len() * row];
            let mut full = b.clone();
            let mut lims_b = vec![u32::MAX; rows.len()];
            list.flag_checked_reference(&mut b, row, &g, rows.clone(), &check, &mut lims_b);
            // Every level the host has, against the twin: each path's, and
            // AVX-512 without VBMI too where the host has VBMI (its low
            // bytes take the AVX2 check). (The `_on` form, a level's
            // lookup in front of the same call, is the one
            // tests/checked_high_candidates.rs takes.)
            let (mut a, mut lims_a) = (b.clone(), lims_b.clone());
            for level in isa::levels_on_host() {
                a.fill(0);
                lims_a.fill(u32::MAX);
                let checked = Checked { check: &check, lims: &mut lims_a };
                list.flag_at(level, &mut a, row, &g, rows.clone(), checked);
                prop_assert_eq!(&a, &b, "{:?}", level);
                prop_assert_eq!(&lims_a, &lims_b, "{:?}", level);
            }
            if low_bytes && row > 256 {
                // Random runs break the condition that makes low bytes
                // exact: only the twins are compared.
                continue;
            }
            // Against every run flagged: nothing more is flagged, and
            // the least open eligible value is the same where it is at
            // most the row's limit.
            all.flag(&mut full, row, &g, rows.clone());
            for (j, k) in rows.clone().enumerate() {
                let (r, f) = (&a[j * row..(j + 1) * row], &full[j * row..(j + 1) * row]);
                prop_assert!(r.iter().zip(f).all(|(&x, &y)| x <= y));
                let el = (check.eligible)(k);
                let least = |r: &[u8]| (0..row).find(|&v| r[v] == 0 && el[v / 64] >> (v % 64) & 1 == 1);
                let (got, want) = (least(r), least(f));
                if got.is_none_or(|v| v as u32 <= lims_a[j]) {
                    prop_assert_eq!(got, want);
                }
            }
        }
    }

    #[test]
    fn a_run_flags_one_value_a_row(
        run in proptest::collection::vec(0u16..512, 0..100),
        x in 0u32..512,
        first_pick in any::<usize>(),
    ) {
        let row = 512;
        let first = first_pick % (run.len() + 1);
        let mut list = Runs::default();
        list.reset(run.len());
        list.push(x, first..run.len(), 0);
        let mut a = vec![0u8; run.len() * row];
        list.flag_reference(&mut a, row, &run, 0..run.len());
        for k in 0..run.len() {
            let set: Vec<usize> = (0..row).filter(|&j| a[k * row + j] != 0).collect();
            let want = if k < first { vec![] } else { vec![(x ^ run[k - first] as u32) as usize] };
            prop_assert_eq!(set, want);
        }
    }
}
