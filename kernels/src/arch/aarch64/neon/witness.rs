//! The NEON witness strike (see `crate::witness`): the AVX2 method. A set
//! larger than [`LIST`] values is struck by the portable blocked loop (the
//! caller's `block`) until it is not; then its values, splatted once into registers (NEON
//! has 32), are compared with 32 pairs a step, four vectors of 8.

use std::arch::aarch64::*;

use super::xors32;
use crate::generic::{members, BLOCK};

/// Most values the compare loop takes.
pub const LIST: usize = 12;

/// See [`crate::witness::strike_xors`]; `block(set, lo, hi)` strikes a
/// block of at most [`BLOCK`] pairs (the portable path's loop), true once
/// the set is empty.
///
/// # Safety
/// NEON is present; `lo` and `hi` have one length; `set` has at most
/// `crate::generic::SIMD_WORDS` words.
#[target_feature(enable = "neon")]
pub unsafe fn strike_xors_u16(
    set: &mut [u64],
    lo: &[u16],
    hi: &[u16],
    mut block: impl FnMut(&mut [u64], &[u16], &[u16]) -> bool,
) -> bool {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
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
            let end = (k + BLOCK).min(n);
            if block(set, &lo[k..end], &hi[n - end..n - k]) {
                return true;
            }
            k = end;
        }
        // The values left, as a list; the set is emptied as they are struck.
        let mut vals = [0u16; LIST];
        let mut c = 0;
        for v in members(set) {
            vals[c] = v as u16;
            c += 1;
        }
        debug_assert!(bits <= 1 << 16);
        let strike = |v: u16, vals: &mut [u16; LIST], c: &mut usize, set: &mut [u64]| {
            if let Some(i) = vals[..*c].iter().position(|&u| u == v) {
                *c -= 1;
                vals[i] = vals[*c];
                set[v as usize / 64] &= !(1 << (v % 64));
            }
        };
        let splat = |vals: &[u16; LIST]| vals.map(|v| vdupq_n_u16(v));
        let mut vv = splat(&vals);
        while k + 32 <= n {
            let x = xors32(lo, hi, k);
            let mut hit = vdupq_n_u16(0);
            for &v in &vv[..c] {
                let h01 = vorrq_u16(vceqq_u16(x[0], v), vceqq_u16(x[1], v));
                let h23 = vorrq_u16(vceqq_u16(x[2], v), vceqq_u16(x[3], v));
                hit = vorrq_u16(hit, vorrq_u16(h01, h23));
            }
            if vmaxvq_u16(hit) != 0 {
                let mut xs = [0u16; 32];
                for (i, &x) in x.iter().enumerate() {
                    vst1q_u16(xs.as_mut_ptr().add(8 * i), x);
                }
                for &x in &xs {
                    strike(x, &mut vals, &mut c, set);
                }
                if c == 0 {
                    return true;
                }
                vv = splat(&vals);
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
}
