//! The NEON pair flags (see `crate::pairs`): the AVX2 method, 32 XORs a
//! step in four vectors.

use std::arch::aarch64::*;

use super::xors32;

/// `row[lo[k] ⊕ hi[n − 1 − k]] = 1` (indices wrapped into the row, a
/// power of two ≤ 65536); returns the OR of the XORs. 32 XORs at a
/// time into a buffer, then 32 plain byte stores.
///
/// # Safety
/// NEON is present; `lo` and `hi` have one length; `row.len()` is a power
/// of two ≤ 65536.
#[target_feature(enable = "neon")]
pub unsafe fn flag_pairs_u16(row: &mut [u8], lo: &[u16], hi: &[u16]) -> u16 {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = lo.len();
        let mask = (row.len() - 1) as u16;
        let m = vdupq_n_u16(mask);
        let base = row.as_mut_ptr();
        let mut or = vdupq_n_u16(0);
        let mut k = 0;
        while k + 32 <= n {
            let x = xors32(lo, hi, k);
            or = vorrq_u16(or, vorrq_u16(vorrq_u16(x[0], x[1]), vorrq_u16(x[2], x[3])));
            let mut offsets = [0u64; 8];
            let o = offsets.as_mut_ptr() as *mut u16;
            for (i, &x) in x.iter().enumerate() {
                vst1q_u16(o.add(8 * i), vandq_u16(x, m));
            }
            crate::generic::flag_offsets(base, &offsets);
            k += 32;
        }
        let mut or = super::or_lanes(or);
        for j in k..n {
            let x = lo[j] ^ hi[n - 1 - j];
            or |= x;
            *base.add((x & mask) as usize) = 1;
        }
        or
    }
}
