//! The AVX2 witness strike (see `crate::witness`).
//!
//! AVX2 has no 16-bit permute across a register, so the AVX-512 method
//! (the set as a lookup table in registers) does not carry over. But a
//! scan usually starts with about ten values and strikes them one by one,
//! so once the set is small its values are compared with 32 pairs at a
//! time instead: a compare and an OR per value and 16 pairs. A set still
//! larger than [`LIST`] is struck by the portable blocked loop until it
//! is not.

use std::arch::x86_64::*;

use super::xors32;

/// Most values the compare loop takes.
pub const LIST: usize = 12;

/// See [`crate::witness::strike_xors`].
///
/// # Safety
/// AVX2 is present.
#[target_feature(enable = "avx2")]
pub unsafe fn strike_xors_u16(set: &mut [u64], lo: &[u16], hi: &[u16]) -> bool {
    let n = lo.len();
    let bits = set.len() * 64;
    let mut k = 0;
    loop {
        let left: u32 = set.iter().map(|w| w.count_ones()).sum();
        if left == 0 {
            return true;
        }
        if k == n {
            return false;
        }
        if left as usize <= LIST {
            break;
        }
        let end = (k + crate::witness::BLOCK).min(n);
        if crate::witness::strike_xors_portable(set, &lo[k..end], &hi[n - end..n - k]) {
            return true;
        }
        k = end;
    }
    // The values left, as a list; the set is emptied as they are struck.
    let mut vals = [0u16; LIST];
    let mut c = 0;
    for (w, &word) in set.iter().enumerate() {
        let mut m = word;
        while m != 0 {
            vals[c] = (64 * w) as u16 + m.trailing_zeros() as u16;
            c += 1;
            m &= m - 1;
        }
    }
    debug_assert!(bits <= 1 << 16);
    let strike = |v: u16, vals: &mut [u16; LIST], c: &mut usize, set: &mut [u64]| {
        if let Some(i) = vals[..*c].iter().position(|&u| u == v) {
            *c -= 1;
            vals[i] = vals[*c];
            set[v as usize / 64] &= !(1 << (v % 64));
        }
    };
    while k + 32 <= n {
        let (x0, x1) = xors32(lo, hi, k);
        let mut hit = _mm256_setzero_si256();
        for &v in &vals[..c] {
            let v = _mm256_set1_epi16(v as i16);
            hit = _mm256_or_si256(
                hit,
                _mm256_or_si256(_mm256_cmpeq_epi16(x0, v), _mm256_cmpeq_epi16(x1, v)),
            );
        }
        if _mm256_testz_si256(hit, hit) == 0 {
            let mut xs = [0u16; 32];
            _mm256_storeu_si256(xs.as_mut_ptr() as *mut __m256i, x0);
            _mm256_storeu_si256(xs.as_mut_ptr().add(16) as *mut __m256i, x1);
            for &x in &xs {
                strike(x, &mut vals, &mut c, set);
            }
            if c == 0 {
                return true;
            }
        }
        k += 32;
    }
    for j in k..n {
        strike(lo[j] ^ hi[n - 1 - j], &mut vals, &mut c, set);
        if c == 0 {
            return true;
        }
    }
    false
}
