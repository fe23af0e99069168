//! AVX-512 flag-row scans (see `crate::mex`).

use std::arch::x86_64::*;

/// A word of the bitset per step: the byte test gives the 64 bits at once.
///
/// # Safety
/// The avx512 features are present (see `arch::x86_64`); `out` holds
/// `flags.len()` bits.
#[target_feature(enable = "avx512f,avx512bw,bmi1,popcnt")]
pub unsafe fn unflagged_bits(flags: &[u8], out: &mut [u64]) {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = flags.len();
        out.fill(0);
        let mut j = 0;
        while j + 64 <= n {
            let f = _mm512_loadu_si512(flags.as_ptr().add(j) as *const _);
            out[j / 64] = _mm512_testn_epi8_mask(f, f);
            j += 64;
        }
        crate::generic::unflagged_tail(flags, j, out);
    }
}
