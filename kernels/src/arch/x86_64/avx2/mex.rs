//! AVX2 flag-row scans (see `crate::mex`).

use std::arch::x86_64::*;

/// See [`crate::mex::first_unflagged`]: 32 bytes a compare.
///
/// # Safety
/// The avx2 features are present (see `arch::x86_64`).
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub unsafe fn first_unflagged(flags: &[u8]) -> usize {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = flags.len();
        let zero = _mm256_setzero_si256();
        let mut j = 0;
        while j + 32 <= n {
            let f = _mm256_loadu_si256(flags.as_ptr().add(j) as *const __m256i);
            let m = _mm256_movemask_epi8(_mm256_cmpeq_epi8(f, zero)) as u32;
            if m != 0 {
                return j + m.trailing_zeros() as usize;
            }
            j += 32;
        }
        j + crate::generic::first_zero(&flags[j..])
    }
}

/// See [`crate::mex::unflagged_bits`]: a word of the bitset from two
/// byte compares' masks.
///
/// # Safety
/// The avx2 features are present (see `arch::x86_64`); `out` holds
/// `flags.len()` bits.
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub unsafe fn unflagged_bits(flags: &[u8], out: &mut [u64]) {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = flags.len();
        let zero = _mm256_setzero_si256();
        let open = |j: usize| {
            let f = _mm256_loadu_si256(flags.as_ptr().add(j) as *const __m256i);
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(f, zero)) as u32 as u64
        };
        // Whole words first, each written once; then a half word (rows of 32
        // values, small games, are one) and the tail into the words left.
        // (32 bytes a step OR-ed into words zeroed first is slower:
        // docs/performance.md.)
        let mut j = 0;
        while j + 64 <= n {
            out[j / 64] = open(j) | open(j + 32) << 32;
            j += 64;
        }
        out[j / 64..].fill(0);
        if j + 32 <= n {
            out[j / 64] = open(j);
            j += 32;
        }
        crate::generic::unflagged_tail(flags, j, out);
    }
}
