//! Witness scans against a whole set of candidate values at once.
//!
//! The sparse engine knows, for each heap, a set of values (up to a few
//! hundred) that must each be shown reachable by some split pair. Scanning
//! the pairs once and striking every value a pair reaches costs one pass
//! for the whole set, where testing the values one or eight at a time costs
//! a pass per batch. With AVX-512 the set (up to 1024 bits) lives in two
//! registers and 32 pairs are tested per step by a two-table word permute
//! and a variable shift.

use crate::Value;
#[cfg(target_arch = "x86_64")]
use std::any::TypeId;

/// Most set words the SIMD path holds in two registers (1024 values).
pub const SIMD_WORDS: usize = 16;

/// Strikes from `set` (a bitset: value `v` is bit `v % 64` of word `v / 64`)
/// every value `lo[k] ⊕ hi[hi.len() − 1 − k]`; values beyond the set are
/// ignored. Returns true, possibly before the end of the runs, as soon as
/// the set is empty; false when the runs are exhausted with values left.
/// `lo` and `hi` have the same length.
#[inline]
pub fn strike_xors<V: Value>(set: &mut [u64], lo: &[V], hi: &[V]) -> bool {
    assert_eq!(lo.len(), hi.len(), "strike_xors: runs of different lengths");
    #[cfg(target_arch = "x86_64")]
    {
        if set.len() <= SIMD_WORDS
            && TypeId::of::<V>() == TypeId::of::<u16>()
            && std::arch::is_x86_feature_detected!("avx512bw")
        {
            // SAFETY: V is u16 (checked above), so the slices are u16
            // slices; AVX-512 F and BW are present (BW implies F).
            return unsafe {
                let lo = std::slice::from_raw_parts(lo.as_ptr() as *const u16, lo.len());
                let hi = std::slice::from_raw_parts(hi.as_ptr() as *const u16, hi.len());
                avx512::strike_xors_u16(set, lo, hi)
            };
        }
    }
    strike_xors_scalar(set, lo, hi)
}

/// Scalar twin of [`strike_xors`].
pub fn strike_xors_scalar<V: Value>(set: &mut [u64], lo: &[V], hi: &[V]) -> bool {
    assert_eq!(lo.len(), hi.len(), "strike_xors: runs of different lengths");
    let mut left: u32 = set.iter().map(|w| w.count_ones()).sum();
    if left == 0 {
        return true;
    }
    let bits = set.len() * 64;
    for (a, b) in lo.iter().zip(hi.iter().rev()) {
        let x = (a.get() ^ b.get()) as usize;
        if x < bits {
            let bit = 1u64 << (x % 64);
            let w = &mut set[x / 64];
            if *w & bit != 0 {
                *w &= !bit;
                left -= 1;
                if left == 0 {
                    return true;
                }
            }
        }
    }
    false
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// [`super::strike_xors`] for u16 runs and a set of at most 1024 bits.
    ///
    /// The set stays in two registers for the whole scan: value `v` is bit
    /// `v % 16` of 16-bit word `v / 16` (words 0..31 in `t0`, 32..63 in
    /// `t1`). A step XORs 32 pairs, looks their values up by a word permute,
    /// and strikes each value hit once (lanes with the same value together).
    /// The last, partial step uses masked loads instead of a scalar tail.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn strike_xors_u16(set: &mut [u64], lo: &[u16], hi: &[u16]) -> bool {
        let words = set.len();
        debug_assert!(words <= super::SIMD_WORDS);
        let ptr = set.as_mut_ptr() as *mut i64;
        let m0 = (((1u32 << words.min(8)) - 1) & 0xff) as __mmask8;
        let m1 = (((1u32 << words.saturating_sub(8)) - 1) & 0xff) as __mmask8;
        let mut t0 = _mm512_maskz_loadu_epi64(m0, ptr);
        // Only formed (never dereferenced past the end) when m1 is empty.
        let mut t1 = _mm512_maskz_loadu_epi64(m1, ptr.wrapping_add(8));
        let empty = |t0: __m512i, t1: __m512i| {
            let any = _mm512_or_si512(t0, t1);
            _mm512_test_epi64_mask(any, any) == 0
        };
        if empty(t0, t1) {
            return true;
        }
        let limit = _mm512_set1_epi16((words * 64).min(1024) as i16);
        let fifteen = _mm512_set1_epi16(15);
        let one = _mm512_set1_epi16(1);
        let thirty_one = _mm512_set1_epi16(31);
        let thirty_two = _mm512_set1_epi16(32);
        // Lane j of a reversed load takes element 31 − j.
        let iota = _mm512_set_epi16(
            31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10,
            9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
        );
        let rev = _mm512_sub_epi16(_mm512_set1_epi16(31), iota);
        // Up to 512 values, one table register and a one-register permute.
        let wide = words > 8;
        let n = lo.len();
        let mut k = 0;
        while k < n {
            let (a, b, lanes) = if k + 32 <= n {
                (
                    _mm512_loadu_si512(lo.as_ptr().add(k) as *const _),
                    _mm512_permutexvar_epi16(
                        rev,
                        _mm512_loadu_si512(hi.as_ptr().add(n - k - 32) as *const _),
                    ),
                    u32::MAX,
                )
            } else {
                // The last r < 32 pairs: lane j pairs lo[k + j] with
                // hi[r − 1 − j].
                let r = n - k;
                let lanes = (1u32 << r) - 1;
                let b = _mm512_maskz_loadu_epi16(lanes, hi.as_ptr() as *const _);
                let back = _mm512_sub_epi16(_mm512_set1_epi16(r as i16 - 1), iota);
                (
                    _mm512_maskz_loadu_epi16(lanes, lo.as_ptr().add(k) as *const _),
                    _mm512_permutexvar_epi16(back, b),
                    lanes,
                )
            };
            let x = _mm512_xor_si512(a, b);
            // Word x / 16 of the set (the permute reads only 6 index bits,
            // so values beyond the set are masked off below), bit x % 16.
            let i = _mm512_srli_epi16::<4>(x);
            let w = if wide {
                _mm512_permutex2var_epi16(t0, i, t1)
            } else {
                _mm512_permutexvar_epi16(i, t0)
            };
            let bit = _mm512_srlv_epi16(w, _mm512_and_si512(x, fifteen));
            let mut hit =
                _mm512_test_epi16_mask(bit, one) & _mm512_cmplt_epu16_mask(x, limit) & lanes;
            if hit != 0 {
                // Each value hit, struck without leaving the registers: its
                // lane broadcast, the word and bit it sits at, and every
                // lane with the same value dropped from `hit`.
                loop {
                    let j = _mm512_set1_epi16(hit.trailing_zeros() as i16);
                    let v = _mm512_permutexvar_epi16(j, x);
                    let word = _mm512_srli_epi16::<4>(v);
                    let at = _mm512_cmpeq_epi16_mask(_mm512_and_si512(word, thirty_one), iota);
                    let off = _mm512_sllv_epi16(one, _mm512_and_si512(v, fifteen));
                    // `word` is the same in every lane: below 32 it is in t0.
                    let low = _mm512_cmplt_epu16_mask(word, thirty_two);
                    t0 = _mm512_mask_mov_epi16(t0, at & low, _mm512_andnot_si512(off, t0));
                    t1 = _mm512_mask_mov_epi16(t1, at & !low, _mm512_andnot_si512(off, t1));
                    hit &= !_mm512_cmpeq_epi16_mask(x, v);
                    if hit == 0 {
                        break;
                    }
                }
                if empty(t0, t1) {
                    set.fill(0);
                    return true;
                }
            }
            k += 32;
        }
        _mm512_mask_storeu_epi64(ptr, m0, t0);
        _mm512_mask_storeu_epi64(ptr.wrapping_add(8), m1, t1);
        false
    }
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
        let mut a = set.to_vec();
        let mut b = set.to_vec();
        let ra = strike_xors(&mut a, lo, hi);
        let rb = strike_xors_scalar(&mut b, lo, hi);
        assert_eq!((ra, &a), (rb, &b), "SIMD and scalar differ");
        assert_eq!(ra, empty);
        if empty {
            // Stopping early is allowed only once every value is struck.
            assert!(a.iter().all(|&w| w == 0));
        } else {
            assert_eq!(a, want);
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
        fn strike_small_values_empty_the_set(
            pairs in proptest::collection::vec((0u16..8, 0u16..8), 0..200),
        ) {
            let (lo, hi): (Vec<u16>, Vec<u16>) = pairs.into_iter().unzip();
            check(&[0xff], &lo, &hi);
            check(&[0xff, 0, 0, 0, 0, 0, 0, 1], &lo, &hi);
        }
    }

    #[test]
    fn strike_by_hand() {
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
    }
}
