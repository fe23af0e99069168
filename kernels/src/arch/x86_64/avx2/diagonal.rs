//! The AVX2 candidate test of a diagonal's pairs (see
//! `crate::diagonal::pairs_hit`).

use std::arch::x86_64::*;

use super::step_at;
use crate::generic::HIT_CANDIDATES;

/// Bit `j` set when some pair's XOR `lo[k] ⊕ partners[k]` equals
/// `cands[j]` (as a u16; the caller masks out candidates above u16). 32
/// XORs a step, each compared with every candidate (a compare and an OR),
/// no store; runs of fewer than 32 pairs take the scalar loop.
///
/// # Safety
/// The avx2 features are present; `lo.len() == partners.len()`.
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub unsafe fn pairs_hit_u16(lo: &[u16], partners: &[u16], cands: &[u16; HIT_CANDIDATES]) -> u32 {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = lo.len();
        let (lo, hi) = (lo.as_ptr(), partners.as_ptr());
        let c: [__m256i; HIT_CANDIDATES] =
            std::array::from_fn(|j| _mm256_set1_epi16(cands[j] as i16));
        let mut acc = [_mm256_setzero_si256(); HIT_CANDIDATES];
        let mut k = 0;
        while let Some(at) = step_at(k, n) {
            let x0 = _mm256_xor_si256(
                _mm256_loadu_si256(lo.add(at) as *const __m256i),
                _mm256_loadu_si256(hi.add(at) as *const __m256i),
            );
            let x1 = _mm256_xor_si256(
                _mm256_loadu_si256(lo.add(at + 16) as *const __m256i),
                _mm256_loadu_si256(hi.add(at + 16) as *const __m256i),
            );
            for j in 0..HIT_CANDIDATES {
                let e = _mm256_or_si256(_mm256_cmpeq_epi16(x0, c[j]), _mm256_cmpeq_epi16(x1, c[j]));
                acc[j] = _mm256_or_si256(acc[j], e);
            }
            k = at + 32;
        }
        let mut hit = 0;
        for (j, a) in acc.iter().enumerate() {
            hit |= ((_mm256_testz_si256(*a, *a) == 0) as u32) << j;
        }
        for j in k..n {
            let x = *lo.add(j) ^ *hi.add(j);
            for (i, &c) in cands.iter().enumerate() {
                hit |= ((x == c) as u32) << i;
            }
        }
        hit
    }
}
