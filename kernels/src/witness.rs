//! Witness scans against a whole set of candidate values at once.
//!
//! The sparse engine knows, for each heap, a set of values (up to a few
//! hundred) that must each be shown reachable by some split pair. Scanning
//! the pairs once and striking every value a pair reaches costs one pass
//! for the whole set, where testing the values one or eight at a time costs
//! a pass per batch. With AVX-512 the set (up to 1024 bits) lives in two
//! registers and 32 pairs are tested per step by a two-table word permute
//! and a variable shift.

use crate::platform::{self, isa};
use crate::value::Value;
use isa::Isa;

pub use crate::generic::{BLOCK, SIMD_WORDS};

/// Strikes from `set` (a bitset: value `v` is bit `v % 64` of word `v / 64`)
/// every value `lo[k] ⊕ hi[hi.len() − 1 − k]`; values beyond the set are
/// ignored. Returns true, possibly before the end of the runs, as soon as
/// the set is empty; false when the runs are exhausted with values left.
/// `lo` and `hi` have the same length.
#[inline]
pub fn strike_xors<V: Value>(set: &mut [u64], lo: &[V], hi: &[V]) -> bool {
    assert_eq!(lo.len(), hi.len(), "strike_xors: runs of different lengths");
    platform::strike_xors(isa::level(), set, lo, hi)
}

/// [`strike_xors`] on the path `isa` (which the host must have).
#[inline]
pub fn strike_xors_on<V: Value>(isa: Isa, set: &mut [u64], lo: &[V], hi: &[V]) -> bool {
    assert_eq!(lo.len(), hi.len(), "strike_xors: runs of different lengths");
    platform::strike_xors(isa::on_host_level(isa), set, lo, hi)
}

/// Reference twin of [`strike_xors`]: every pair struck, then whether the
/// set is empty (striking on past that changes nothing).
pub fn strike_xors_reference<V: Value>(set: &mut [u64], lo: &[V], hi: &[V]) -> bool {
    assert_eq!(lo.len(), hi.len(), "strike_xors: runs of different lengths");
    for (a, b) in lo.iter().zip(hi.iter().rev()) {
        let x = (a.get() ^ b.get()) as usize;
        if let Some(w) = set.get_mut(x / 64) {
            *w &= !(1u64 << (x % 64));
        }
    }
    set.iter().all(|&w| w == 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the scan must leave: the set less every reached value.
    fn naive<V: Value>(set: &[u64], lo: &[V], hi: &[V]) -> Vec<u64> {
        let mut s = set.to_vec();
        for k in 0..lo.len() {
            let x = (lo[k].get() ^ hi[hi.len() - 1 - k].get()) as usize;
            if x < s.len() * 64 {
                s[x / 64] &= !(1 << (x % 64));
            }
        }
        s
    }

    fn check<V: Value>(set: &[u64], lo: &[V], hi: &[V]) {
        let want = naive(set, lo, hi);
        let empty = want.iter().all(|&w| w == 0);
        let mut b = set.to_vec();
        let rb = strike_xors_reference(&mut b, lo, hi);
        assert_eq!(rb, empty);
        if empty {
            // Stopping early is allowed only once every value is struck.
            assert!(b.iter().all(|&w| w == 0));
        } else {
            assert_eq!(b, want);
        }
        // Every path the host has, and the portable one by name.
        let paths = isa::available().map(Some).chain([None]);
        for isa in paths {
            let mut a = set.to_vec();
            let ra = match isa {
                Some(isa) => strike_xors_on(isa, &mut a, lo, hi),
                None => crate::portable::witness::strike_xors(&mut a, lo, hi),
            };
            assert_eq!((ra, &a), (rb, &b), "{isa:?} and the reference differ");
        }
    }

    proptest! {
        #[test]
        fn strike_matches_scalar_and_naive(
            pairs in proptest::collection::vec((0u16..1100, 0u16..1100), 0..400),
            words in 1usize..=17,
            seed in proptest::collection::vec(any::<u64>(), 17),
            sparse in any::<bool>(),
        ) {
            let (lo, hi): (Vec<u16>, Vec<u16>) = pairs.into_iter().unzip();
            // Dense random sets, or a few values (so that sets empty often).
            let set: Vec<u64> = seed[..words]
                .iter()
                .map(|&w| if sparse { w & w.rotate_left(17) & w.rotate_left(31) } else { w })
                .collect();
            check(&set, &lo, &hi);
            let lo32: Vec<u32> = lo.iter().map(|&v| v as u32).collect();
            let hi32: Vec<u32> = hi.iter().map(|&v| v as u32).collect();
            check(&set, &lo32, &hi32);
        }

        #[test]
        fn strike_any_u16_values(
            pairs in proptest::collection::vec((any::<u16>(), any::<u16>()), 0..400),
            words in 1usize..=16,
            seed in proptest::collection::vec(any::<u64>(), 16),
        ) {
            // XORs of 2048 and more, which the AVX2 tables saturate, and
            // every set width the vector paths take.
            let (lo, hi): (Vec<u16>, Vec<u16>) = pairs.into_iter().unzip();
            check(&seed[..words], &lo, &hi);
        }

        #[test]
        fn strike_few_values_in_long_runs(
            pairs in proptest::collection::vec((0u16..1024, 0u16..1024), 0..3000),
            picks in proptest::collection::vec(any::<usize>(), 1..20),
            words in 1usize..=16,
            absent in 0u16..1024,
        ) {
            // A handful of values, most of them reached somewhere in a long
            // run (as the sets a witness scan keeps), one perhaps never:
            // the compare loops of the vector paths.
            let (lo, hi): (Vec<u16>, Vec<u16>) = pairs.into_iter().unzip();
            let mut set = vec![0u64; words];
            let bits = words * 64;
            for p in picks {
                let v = if lo.is_empty() {
                    p % bits
                } else {
                    let k = p % lo.len();
                    (lo[k] ^ hi[hi.len() - 1 - k]) as usize % bits
                };
                set[v / 64] |= 1 << (v % 64);
            }
            let a = absent as usize % bits;
            set[a / 64] |= 1 << (a % 64);
            check(&set, &lo, &hi);
        }

        #[test]
        fn strike_small_values_empty_the_set(
            pairs in proptest::collection::vec((0u16..8, 0u16..8), 0..200),
        ) {
            let (lo, hi): (Vec<u16>, Vec<u16>) = pairs.into_iter().unzip();
            check(&[0xff], &lo, &hi);
            check(&[0xff, 0, 0, 0, 0, 0, 0, 1], &lo, &hi);
        }
    }

    proptest! {
        #[test]
        fn strike_a_few_values_in_runs_of_every_length(
            n in prop_oneof![0usize..32, 32usize..64, 64usize..130, 130usize..3000],
            seed in proptest::collection::vec((0u16..1024, 0u16..1024), 3000),
            picks in proptest::collection::vec(any::<usize>(), 1..5),
            words in 1usize..=16,
        ) {
            // One to four values, each reached somewhere in the run (or
            // nowhere, for an empty run): the few-value compares from the
            // first pair, on runs of one step, of two, and longer.
            let (lo, hi): (Vec<u16>, Vec<u16>) = seed[..n].iter().copied().unzip();
            let bits = words * 64;
            let mut set = vec![0u64; words];
            for p in picks {
                let v = if n == 0 {
                    p % bits
                } else {
                    let k = p % n;
                    (lo[k] ^ hi[n - 1 - k]) as usize % bits
                };
                set[v / 64] |= 1 << (v % 64);
            }
            check(&set, &lo, &hi);
        }
    }

    #[test]
    fn strike_a_few_values_at_the_edges_of_the_steps() {
        // Every run length around the 32- and 64-pair steps, one to four
        // values of a 16-word set (in both of its registers), each
        // witnessed at one place at a step's edge, or never.
        let values = [5u16, 70, 700, 1023];
        for n in [0usize, 1, 31, 32, 33, 63, 64, 65, 96, 97, 127, 128, 129] {
            for c in 1..=4 {
                let places = [0, 31, 32, 63, 64, n.saturating_sub(1), usize::MAX];
                for p in places {
                    // Pairs XOR to 1 except the witness of the first value
                    // at p; the others are witnessed at the ends, if at all.
                    let mut lo = vec![1u16; n];
                    let hi = vec![0u16; n];
                    if p < n {
                        lo[p] = values[0];
                    }
                    if c > 1 && n > 0 {
                        lo[n - 1] = values[1];
                    }
                    if c > 2 && n > 1 {
                        lo[0] = values[2];
                    }
                    // values[3], when taken, is never reached.
                    let mut set = vec![0u64; 16];
                    for &v in &values[..c] {
                        set[v as usize / 64] |= 1 << (v % 64);
                    }
                    check(&set, &lo, &hi);
                }
            }
        }
        // The tables' hand-off: pairs 0..5 reach 0..4 in the first step,
        // pair 35 reaches 5 after it, 600 is never reached.
        for n in [40, 70, 100] {
            let mut lo = vec![1u16; n];
            let hi = vec![0u16; n];
            for (k, l) in lo.iter_mut().take(5).enumerate() {
                *l = k as u16;
            }
            lo[35] = 5;
            let mut set = vec![0u64; 16];
            set[0] = 0b11_1111;
            set[600 / 64] |= 1 << (600 % 64);
            check(&set, &lo, &hi);
            let mut want = vec![0u64; 16];
            want[600 / 64] = 1 << (600 % 64);
            for isa in isa::available() {
                let mut a = set.clone();
                assert!(!strike_xors_on(isa, &mut a, &lo, &hi), "{isa}: n = {n}");
                assert_eq!(a, want, "{isa}: n = {n}");
            }
        }
    }

    #[test]
    fn strike_by_hand() {
        for isa in isa::available() {
            strike_by_hand_on(isa);
        }
    }

    fn strike_by_hand_on(isa: Isa) {
        let strike_xors =
            |set: &mut [u64], lo: &[u16], hi: &[u16]| strike_xors_on(isa, set, lo, hi);
        // Pairs (1,6) (2,5) (3,4) (5,0): 7, 7, 7, 5.
        let lo = [1u16, 2, 3, 5];
        let hi = [0u16, 4, 5, 6];
        let mut set = [1u64 << 7 | 1 << 5 | 1 << 6];
        assert!(!strike_xors(&mut set, &lo, &hi));
        assert_eq!(set, [1 << 6]);
        let mut set = [1u64 << 7];
        assert!(strike_xors(&mut set, &lo, &hi));
        // A long run (SIMD body and tail) with the witness at the end.
        let mut lo = vec![0u16; 100];
        let hi = vec![0u16; 100];
        lo[99] = 300;
        let mut set = [0u64; 8];
        set[300 / 64] = 1 << (300 % 64);
        assert!(strike_xors(&mut set, &lo, &hi));
        lo[99] = 0;
        lo[40] = 300;
        let mut set = [0u64; 8];
        set[300 / 64] = 1 << (300 % 64);
        set[0] = 2;
        assert!(!strike_xors(&mut set, &lo, &hi));
        assert_eq!(set[0], 2);
        assert_eq!(set[300 / 64], 0);
        // In the second register (values 512..1023).
        lo[40] = 1000;
        let mut set = [0u64; 16];
        set[1000 / 64] = 1 << (1000 % 64);
        set[15] |= 1 << 63;
        assert!(!strike_xors(&mut set, &lo, &hi));
        assert_eq!(set[15], 1 << 63, "1000 = word 15, bit 40, struck");
        // An empty set is empty before any pair, with or without pairs,
        // whatever its length.
        for words in 0..=16 {
            for n in [0, 5, 100] {
                let mut set = vec![0u64; words];
                assert!(
                    strike_xors(&mut set, &lo[..n], &hi[..n]),
                    "{isa}: {words} words, {n} pairs"
                );
                assert!(set.iter().all(|&w| w == 0));
            }
        }
    }
}
