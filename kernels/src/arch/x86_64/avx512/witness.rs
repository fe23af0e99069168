//! The AVX-512 witness strike (see `crate::witness`).

use std::arch::x86_64::*;

/// [`crate::witness::strike_xors`] for u16 runs and a set of at most 1024 bits.
///
/// The set stays in two registers for the whole scan: value `v` is bit
/// `v % 16` of 16-bit word `v / 16` (words 0..31 in `t0`, 32..63 in
/// `t1`). A step XORs 32 pairs, looks their values up by a word permute,
/// and strikes each value hit once (lanes with the same value together).
/// The last, partial step uses masked loads instead of a scalar tail.
///
/// # Safety
/// The avx512 features are present (see `arch::x86_64`); `lo` and `hi` have one
/// length; `set` has at most `crate::generic::SIMD_WORDS` words.
#[target_feature(enable = "avx512f,avx512bw,bmi1,popcnt")]
pub unsafe fn strike_xors_u16(set: &mut [u64], lo: &[u16], hi: &[u16]) -> bool {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let words = set.len();
        debug_assert!(words <= crate::generic::SIMD_WORDS);
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
