//! NEON flag-row scans (see `crate::mex`): the AVX2 scans, with the byte
//! masks made by `zero_mask16`/`zero_mask64` (NEON has no movemask).

use std::arch::aarch64::*;

use super::{zero_mask16, zero_mask64};

/// See [`crate::mex::first_unflagged`].
///
/// # Safety
/// NEON is present.
#[target_feature(enable = "neon")]
pub unsafe fn first_unflagged(flags: &[u8]) -> usize {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = flags.len();
        let p = flags.as_ptr();
        let mut j = 0;
        while j + 32 <= n {
            // Any zero in 32 bytes: the least of them is 0.
            let f = vminq_u8(vld1q_u8(p.add(j)), vld1q_u8(p.add(j + 16)));
            if vminvq_u8(f) == 0 {
                break;
            }
            j += 32;
        }
        while j + 16 <= n {
            let eq = vceqzq_u8(vld1q_u8(p.add(j)));
            // Four bits a byte: the shift-and-narrow in place of a movemask.
            let m = vget_lane_u64::<0>(vreinterpret_u64_u8(vshrn_n_u16::<4>(
                vreinterpretq_u16_u8(eq),
            )));
            if m != 0 {
                return j + m.trailing_zeros() as usize / 4;
            }
            j += 16;
        }
        j + crate::generic::first_zero(&flags[j..])
    }
}

/// See [`crate::mex::unflagged_bits`].
///
/// # Safety
/// NEON is present; `out` holds `flags.len()` bits.
#[target_feature(enable = "neon")]
pub unsafe fn unflagged_bits(flags: &[u8], out: &mut [u64]) {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = flags.len();
        let p = flags.as_ptr();
        out.fill(0);
        let mut j = 0;
        while j + 64 <= n {
            out[j / 64] = zero_mask64(p.add(j));
            j += 64;
        }
        // 16 bytes a step, so that rows of 16 or 32 values are whole steps.
        while j + 16 <= n {
            out[j / 64] |= zero_mask16(p.add(j)) << (j % 64);
            j += 16;
        }
        crate::generic::unflagged_tail(flags, j, out);
    }
}
