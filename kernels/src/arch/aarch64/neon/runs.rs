//! NEON far flags and checked runs (see `crate::runs`): the AVX2 method on
//! four vectors of 8 rows. With 32 registers, a quarter of the group's
//! checks keeps both its [`CANDIDATES`] accumulators and its candidates
//! in registers.

use std::arch::aarch64::*;

use crate::generic::rows::{row_candidates, store_runs, Check, CANDIDATES, GROUP};

use super::zero_mask64;

/// Lane t ↦ t · ROW, for the rows 0..8, 8..16, 16..24 and 24..32.
///
/// # Safety
/// NEON is present.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn row_offsets<const ROW: usize>() -> [uint16x8_t; 4] {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let mut off = [0u16; GROUP];
        for (t, o) in off.iter_mut().enumerate() {
            *o = (t * ROW) as u16;
        }
        let p = off.as_ptr();
        [
            vld1q_u16(p),
            vld1q_u16(p.add(8)),
            vld1q_u16(p.add(16)),
            vld1q_u16(p.add(24)),
        ]
    }
}

/// Every run `(xs[j], g + starts[j])` into a group of rows: byte
/// `t · ROW + ((x ⊕ q[t]) mod ROW)` from `p` set to 1 for each
/// `t < GROUP`. The 32 offsets of a run are made in four vectors (they fit
/// in 16 bits: `GROUP · ROW ≤ 65536`) and stored row by row, a batch of
/// runs at a time ([`store_runs`]).
///
/// # Safety
/// NEON is present; each `g + starts[j]` points to GROUP values and `p` to
/// GROUP rows of ROW bytes; `xs` and `starts` have one length.
#[target_feature(enable = "neon")]
pub unsafe fn groups<const ROW: usize>(p: *mut u8, xs: &[u32], starts: &[usize], g: *const u16) {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        const { assert!(GROUP == 32 && ROW * GROUP <= 1 << 16) };
        debug_assert_eq!(xs.len(), starts.len());
        let off = row_offsets::<ROW>();
        let mask = vdupq_n_u16(ROW.wrapping_sub(1) as u16);
        // ((x ⊕ v) & (ROW − 1)) | t · ROW, the 32 rows' offsets into `o`.
        let offsets = |x: u32, start: usize, o: *mut u16| {
            let q = g.add(start);
            let x = vdupq_n_u16(x as u16);
            for (i, &off) in off.iter().enumerate() {
                let v = vld1q_u16(q.add(8 * i));
                vst1q_u16(
                    o.add(8 * i),
                    vorrq_u16(vandq_u16(veorq_u16(v, x), mask), off),
                );
            }
        };
        store_runs(p, xs.len(), |j, o| offsets(xs[j], starts[j], o));
    }
}

/// The checked runs of a group of rows (see `Runs::flag_checked`): each
/// row's candidates found 64 bytes at a time, then, for each quarter of
/// the group (8 rows, one vector), every run's values compared with the
/// j-th candidate of each row: `near[j]` keeps the least
/// `value ⊕ candidate` (`vminq_u16`), 0 where a run reaches it. With
/// `check.low_bytes` the values and candidates are compared on their low
/// bytes.
///
/// # Safety
/// NEON is present; as for [`groups`], for every run; `lims` has GROUP
/// limits.
#[target_feature(enable = "neon")]
pub unsafe fn check_group<'e, const ROW: usize>(
    p: *mut u8,
    xs: &[u32],
    starts: &[usize],
    g: *const u16,
    check: &Check<impl Fn(usize) -> &'e [u64]>,
    lims: &mut [u32],
) {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let key: u16 = if check.low_bytes { 0xff } else { 0xffff };
        // Candidates by row; u16::MAX, which no keyed value equals when keyed
        // to low bytes and no value below a row of ≤ 1024 reaches, where a
        // row has none.
        // SAFETY: p points to GROUP rows of ROW bytes (as for `groups`).
        let cand = row_candidates::<ROW>(p, check, lims, |q| zero_mask64(q));
        let keyv = vdupq_n_u16(key);
        let unused = vdupq_n_u16(u16::MAX);
        // Lane t's bit of a hit mask.
        const LANE_BITS: [u16; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
        let lane_bits = vld1q_u16(LANE_BITS.as_ptr());
        for quarter in 0..GROUP / 8 {
            let at = 8 * quarter;
            let mut keyed = [unused; CANDIDATES];
            let mut near = [unused; CANDIDATES];
            for (j, kj) in keyed.iter_mut().enumerate() {
                let c = vld1q_u16(cand[j].as_ptr().add(at));
                // Unused candidates stay u16::MAX.
                *kj = vbslq_u16(vceqq_u16(c, unused), c, vandq_u16(c, keyv));
            }
            for (&x, &start) in xs.iter().zip(starts) {
                let v = veorq_u16(vld1q_u16(g.add(start + at)), vdupq_n_u16(x as u16));
                let v = vandq_u16(v, keyv);
                for j in 0..CANDIDATES {
                    near[j] = vminq_u16(near[j], veorq_u16(v, keyed[j]));
                }
            }
            for (j, &nj) in near.iter().enumerate() {
                let c = vld1q_u16(cand[j].as_ptr().add(at));
                let hit = vbicq_u16(vceqzq_u16(nj), vceqq_u16(c, unused));
                let mut h = vaddvq_u16(vandq_u16(hit, lane_bits));
                while h != 0 {
                    let t = at + h.trailing_zeros() as usize;
                    *p.add(t * ROW + cand[j][t] as usize) = 1;
                    h &= h - 1;
                }
            }
        }
    }
}
