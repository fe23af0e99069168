//! AVX2 paths: 256-bit vectors, for every x86-64 chip since 2013 (and
//! the kernels whose AVX-512 form needs VBMI on chips without it).

use std::arch::x86_64::*;

pub(crate) mod diagonal;
pub(crate) mod mex;
pub(crate) mod pairs;
pub(crate) mod runs;
pub(crate) mod witness;

/// Where the 32-pair step after pair `k` of a run of `n` pairs starts:
/// at `k`, or, for the last pairs of a run that 32 does not divide, at
/// `n − 32`, so that the last step ends at the last pair and takes some
/// pairs again (the kernels that use it lose nothing by that: a flag set
/// twice, a value already struck); `None` once the run is done, and for
/// runs of fewer than 32 pairs (a scalar loop's). The step ends at the
/// result + 32.
#[inline(always)]
pub(crate) fn step_at(k: usize, n: usize) -> Option<usize> {
    (k < n && n >= 32).then(|| k.min(n - 32))
}

/// The XORs of the 32 pairs `(lo[k + j], hi[n − 1 − k − j])`, `j < 32`,
/// `n = lo.len()`, as two vectors of 16 (pairs k.. and k + 16..).
///
/// # Safety
/// The avx2 features are present; `k + 32 ≤ n = lo.len() = hi.len()`.
#[inline]
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub(crate) unsafe fn xors32(lo: &[u16], hi: &[u16], k: usize) -> (__m256i, __m256i) {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = lo.len();
        let a0 = _mm256_loadu_si256(lo.as_ptr().add(k) as *const __m256i);
        let a1 = _mm256_loadu_si256(lo.as_ptr().add(k + 16) as *const __m256i);
        let b0 = _mm256_loadu_si256(hi.as_ptr().add(n - k - 16) as *const __m256i);
        let b1 = _mm256_loadu_si256(hi.as_ptr().add(n - k - 32) as *const __m256i);
        (
            _mm256_xor_si256(a0, rev16(b0)),
            _mm256_xor_si256(a1, rev16(b1)),
        )
    }
}

/// Reverses the 16 `u16` lanes of `x`.
///
/// # Safety
/// The avx2 features are present (see `arch::x86_64`).
#[inline]
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub(crate) unsafe fn rev16(x: __m256i) -> __m256i {
    let m = _mm256_setr_epi8(
        14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, //
        14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1,
    );
    _mm256_permute4x64_epi64(_mm256_shuffle_epi8(x, m), 0x4e)
}
