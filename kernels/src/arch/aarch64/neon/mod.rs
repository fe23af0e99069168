//! NEON paths: 128-bit vectors, the AVX2 methods on eight u16 lanes (or
//! sixteen bytes) a register. NEON has no byte movemask, so the masks the
//! scans need are made here by [`zero_mask16`] and [`zero_mask64`].

use std::arch::aarch64::*;

pub(crate) mod diagonal;
pub(crate) mod mex;
pub(crate) mod pairs;
pub(crate) mod runs;
pub(crate) mod witness;

/// The OR of the eight lanes of `v`.
///
/// # Safety
/// NEON is present.
#[inline]
#[target_feature(enable = "neon")]
pub(crate) unsafe fn or_lanes(v: uint16x8_t) -> u16 {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let mut lanes = [0u16; 8];
        vst1q_u16(lanes.as_mut_ptr(), v);
        lanes.iter().fold(0, |a, &b| a | b)
    }
}

/// The XORs of the 32 pairs `(lo[k + j], hi[n − 1 − k − j])`, `j < 32`,
/// `n = lo.len()`, as four vectors of 8 (pairs k.., k + 8.., k + 16..,
/// k + 24..).
///
/// # Safety
/// NEON is present; `k + 32 ≤ n = lo.len() = hi.len()`.
#[inline]
#[target_feature(enable = "neon")]
pub(crate) unsafe fn xors32(lo: &[u16], hi: &[u16], k: usize) -> [uint16x8_t; 4] {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = lo.len();
        debug_assert!(k + 32 <= n && hi.len() == n);
        let (a, b) = (lo.as_ptr().add(k), hi.as_ptr().add(n - k));
        [
            veorq_u16(vld1q_u16(a), rev16(vld1q_u16(b.sub(8)))),
            veorq_u16(vld1q_u16(a.add(8)), rev16(vld1q_u16(b.sub(16)))),
            veorq_u16(vld1q_u16(a.add(16)), rev16(vld1q_u16(b.sub(24)))),
            veorq_u16(vld1q_u16(a.add(24)), rev16(vld1q_u16(b.sub(32)))),
        ]
    }
}

/// Reverses the 8 `u16` lanes of `x`.
///
/// # Safety
/// NEON is present.
#[inline]
#[target_feature(enable = "neon")]
pub(crate) unsafe fn rev16(x: uint16x8_t) -> uint16x8_t {
    // Reverse within each 64-bit half, then swap the halves.
    let r = vrev64q_u16(x);
    vextq_u16::<4>(r, r)
}

/// Bit `j` set for each of the 16 bytes from `p` that is zero.
///
/// # Safety
/// NEON is present; `p` points to 16 readable bytes.
#[inline]
#[target_feature(enable = "neon")]
pub(crate) unsafe fn zero_mask16(p: *const u8) -> u64 {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let m = vandq_u8(vceqzq_u8(vld1q_u8(p)), bit_weights());
        (vaddv_u8(vget_low_u8(m)) as u64) | (vaddv_u8(vget_high_u8(m)) as u64) << 8
    }
}

/// Bit `j` set for each of the 64 bytes from `p` that is zero: four
/// compares, each byte's weight (1 to 128 within its half) kept, and
/// three pairwise adds that pack the 64 weights into eight bytes.
///
/// # Safety
/// NEON is present; `p` points to 64 readable bytes.
#[inline]
#[target_feature(enable = "neon")]
pub(crate) unsafe fn zero_mask64(p: *const u8) -> u64 {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let w = bit_weights();
        let m0 = vandq_u8(vceqzq_u8(vld1q_u8(p)), w);
        let m1 = vandq_u8(vceqzq_u8(vld1q_u8(p.add(16))), w);
        let m2 = vandq_u8(vceqzq_u8(vld1q_u8(p.add(32))), w);
        let m3 = vandq_u8(vceqzq_u8(vld1q_u8(p.add(48))), w);
        // Pairs, quads, then eighths: byte i of the last is bits 8i..8i + 8.
        let s = vpaddq_u8(vpaddq_u8(m0, m1), vpaddq_u8(m2, m3));
        let s = vpaddq_u8(s, s);
        vgetq_lane_u64::<0>(vreinterpretq_u64_u8(s))
    }
}

/// Byte `j` of each 8-byte half: `1 << j`.
///
/// # Safety
/// NEON is present.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn bit_weights() -> uint8x16_t {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        const W: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
        vld1q_u8(W.as_ptr())
    }
}
