//! The NEON diagonal (see `crate::diagonal`): a set of at most
//! [`SET_MAX`] values sits in 16 registers as four 64-byte tables, each
//! batch of 32 XORs is looked up there (TBL, then TBX for the tables
//! above), and only a batch with a value not yet in the set touches
//! memory: its values are set in the byte copy of the set, and the tables
//! reloaded. The AVX-512 method on 128-bit vectors, smaller sets; its
//! speed against the byte-row fallback is unmeasured (no aarch64 machine
//! here, only qemu).

use std::arch::aarch64::*;

use super::xors32;

/// Largest set (in values) this path takes: 256 bytes, four tables of 64.
pub const SET_MAX: usize = 2048;

/// The set's bytes, in the four tables.
///
/// # Safety
/// NEON is present.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn tables(bytes: &[u8; SET_MAX / 8]) -> [uint8x16x4_t; 4] {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let p = bytes.as_ptr();
        [
            vld1q_u8_x4(p),
            vld1q_u8_x4(p.add(64)),
            vld1q_u8_x4(p.add(128)),
            vld1q_u8_x4(p.add(192)),
        ]
    }
}

/// Sets bit `lo[k] ⊕ hi[n − 1 − k]` (wrapped into the set) of `bits` for
/// every `k`, and returns the OR of the XORs: every one was in the set
/// when the OR is below `64 · bits.len()`.
///
/// # Safety
/// NEON is present; `lo` and `hi` have one length; `bits.len()` is a
/// power of two and `64 · bits.len() ≤ SET_MAX`.
#[target_feature(enable = "neon")]
pub unsafe fn or_pair_xors(bits: &mut [u64], lo: &[u16], hi: &[u16]) -> u16 {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = lo.len();
        let bound = 64 * bits.len();
        debug_assert!(bound.is_power_of_two() && bound <= SET_MAX && hi.len() == n);
        let mask = (bound - 1) as u16;
        // The set as bytes (bit v is bit v % 8 of byte v / 8), zero past it.
        let mut bytes = [0u8; SET_MAX / 8];
        for (b, w) in bytes.chunks_exact_mut(8).zip(bits.iter()) {
            b.copy_from_slice(&w.to_le_bytes());
        }
        let mut t = tables(&bytes);
        let (seven, one) = (vdupq_n_u8(7), vdupq_n_u8(1));
        let (c64, c128, c192) = (vdupq_n_u8(64), vdupq_n_u8(128), vdupq_n_u8(192));
        let mut or = vdupq_n_u16(0);
        let mut k = 0;
        while k + 32 <= n {
            let x = xors32(lo, hi, k);
            or = vorrq_u16(or, vorrq_u16(vorrq_u16(x[0], x[1]), vorrq_u16(x[2], x[3])));
            // Whether each XOR is in the set, 16 at a time: its byte (v / 8,
            // below 256 for every value below SET_MAX; larger values are
            // caught by the OR) looked up, its bit (v % 8) tested.
            let have = |a: uint16x8_t, b: uint16x8_t| {
                let idx = vcombine_u8(
                    vmovn_u16(vshrq_n_u16::<3>(a)),
                    vmovn_u16(vshrq_n_u16::<3>(b)),
                );
                let low = vandq_u8(vcombine_u8(vmovn_u16(a), vmovn_u16(b)), seven);
                let bit = vshlq_u8(one, vreinterpretq_s8_u8(low));
                let mut y = vqtbl4q_u8(t[0], idx);
                y = vqtbx4q_u8(y, t[1], vsubq_u8(idx, c64));
                y = vqtbx4q_u8(y, t[2], vsubq_u8(idx, c128));
                y = vqtbx4q_u8(y, t[3], vsubq_u8(idx, c192));
                vtstq_u8(y, bit)
            };
            let all = vandq_u8(have(x[0], x[1]), have(x[2], x[3]));
            if vminvq_u8(all) == 0 {
                for j in k..k + 32 {
                    let v = (lo[j] ^ hi[n - 1 - j]) & mask;
                    bytes[v as usize / 8] |= 1 << (v % 8);
                }
                t = tables(&bytes);
            }
            k += 32;
        }
        let mut or = super::or_lanes(or);
        for j in k..n {
            let x = lo[j] ^ hi[n - 1 - j];
            or |= x;
            let v = x & mask;
            bytes[v as usize / 8] |= 1 << (v % 8);
        }
        for (w, b) in bits.iter_mut().zip(bytes.chunks_exact(8)) {
            *w = u64::from_le_bytes(b.try_into().expect("8 bytes"));
        }
        or
    }
}
