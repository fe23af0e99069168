//! The AVX2 pair flags (see `crate::pairs`).

use std::arch::x86_64::*;

use super::{step_at, xors32};

/// `row[lo[k] ⊕ hi[n − 1 − k]] = 1` (indices wrapped into the row, a
/// power of two ≤ 65536); returns the OR of the XORs. 32 XORs at a
/// time into a buffer, then 32 plain byte stores; the last step ends at
/// the last pair (flagging some again), so only runs of fewer than 32
/// pairs take the scalar loop.
///
/// # Safety
/// The avx2 features are present (see `arch::x86_64`); `row.len()` is a power
/// of two ≤ 65536; `lo` and `hi` have one length.
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub unsafe fn flag_pairs_u16(row: &mut [u8], lo: &[u16], hi: &[u16]) -> u16 {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = lo.len();
        let mask = (row.len() - 1) as u16;
        let m = _mm256_set1_epi16(mask as i16);
        let base = row.as_mut_ptr();
        let mut buf = [0u16; 32];
        let mut or = _mm256_setzero_si256();
        let mut k = 0;
        // A step taking pairs again flags them again, which changes nothing.
        while let Some(at) = step_at(k, n) {
            let (x0, x1) = xors32(lo, hi, at);
            or = _mm256_or_si256(or, _mm256_or_si256(x0, x1));
            let mut offsets = [0u64; 8];
            _mm256_storeu_si256(
                offsets.as_mut_ptr() as *mut __m256i,
                _mm256_and_si256(x0, m),
            );
            _mm256_storeu_si256(
                offsets.as_mut_ptr().add(4) as *mut __m256i,
                _mm256_and_si256(x1, m),
            );
            crate::generic::flag_offsets(base, &offsets);
            k = at + 32;
        }
        _mm256_storeu_si256(buf.as_mut_ptr() as *mut __m256i, or);
        let mut or = buf[..16].iter().fold(0, |a, &b| a | b);
        for j in k..n {
            let x = lo[j] ^ hi[n - 1 - j];
            or |= x;
            *base.add((x & mask) as usize) = 1;
        }
        or
    }
}
