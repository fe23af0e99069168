//! AVX-512 far flags and checked runs (see `crate::runs`).

use std::arch::x86_64::*;

use crate::generic::rows::{row_candidates, store_runs, Check, CANDIDATES, GROUP};

/// Every run `(xs[j], g + starts[j])` into a group of rows (see
/// `Runs::flag_groups`): byte `t · ROW + ((x ⊕ q[t]) mod ROW)` from `p`
/// set to 1, for each `t < GROUP`. A run's 32 offsets are made at once in
/// a vector (they fit in 16 bits: `GROUP · ROW ≤ 65536`) and stored row
/// by row, a batch of runs at a time ([`store_runs`]), leaving about a
/// load and a store per flag where the scalar loop loads, XORs, masks and
/// stores.
///
/// # Safety
/// The avx512 features are present; each `g + starts[j]` must point to
/// GROUP values and `p` to GROUP rows of ROW bytes; `xs` and `starts` of
/// one length.
#[target_feature(enable = "avx512f,avx512bw,bmi1,popcnt")]
pub unsafe fn groups<const ROW: usize>(p: *mut u8, xs: &[u32], starts: &[usize], g: *const u16) {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        const { assert!(GROUP == 32 && ROW * GROUP <= 1 << 16) };
        debug_assert_eq!(xs.len(), starts.len());
        let off = _mm512_loadu_si512(ROW_OFFSETS.as_ptr() as *const _);
        let shift = ROW.trailing_zeros();
        // t · ROW = (t << shift).
        let rows = _mm512_sllv_epi16(off, _mm512_set1_epi16(shift as i16));
        let mask = _mm512_set1_epi16((ROW - 1) as i16);
        // ((x ⊕ v) & (ROW − 1)) + t · ROW.
        let offsets = |x: u32, start: usize| {
            let v = _mm512_loadu_si512(g.add(start) as *const _);
            _mm512_ternarylogic_epi32::<0xf8>(
                rows,
                _mm512_xor_si512(v, _mm512_set1_epi16(x as u16 as i16)),
                mask,
            )
        };
        store_runs(p, xs.len(), |j, o| {
            _mm512_storeu_si512(o as *mut _, offsets(xs[j], starts[j]));
        });
    }
}

/// The checked runs of a group of rows (see `Runs::flag_checked`):
/// each row's candidates are found 64 bytes at a time, then each run's
/// 32 values are compared with the k-th candidate of every row at
/// once, [`CANDIDATES`] compares a run (unused ones never
/// match), and the candidates reached are flagged at the end.
///
/// # Safety
/// As for [`groups`] (the avx512 features), for every run; `lims` has
/// GROUP limits; with `check.low_bytes`, AVX-512 VBMI must be present
/// (`crate::platform::check_group` sends chips without it to the AVX2 check).
#[target_feature(enable = "avx512f,avx512bw,bmi1,popcnt")]
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
        // SAFETY: p points to GROUP rows of ROW bytes (as for `groups`).
        let cand = row_candidates::<ROW>(p, check, lims, |q| {
            let bytes = _mm512_loadu_si512(q as *const _);
            _mm512_testn_epi8_mask(bytes, bytes)
        });
        let hits = if check.low_bytes {
            narrow_hits(&cand, xs, starts, g)
        } else {
            wide_hits(&cand, xs, starts, g)
        };
        for (j, mut h) in hits.into_iter().enumerate() {
            while h != 0 {
                let t = h.trailing_zeros() as usize;
                *p.add(t * ROW + cand[j][t] as usize) = 1;
                h &= h - 1;
            }
        }
    }
}

/// Which rows each checked run reaches the j-th candidate of (bit t
/// for row t), runs `(xs[i], g + starts[i])`, candidates `cand[j][t]`
/// (u16::MAX where the row has none): 32 rows a vector. Lane t of
/// `near[j]` is the least `value ⊕ candidate` over the runs, 0 where
/// one reaches it. (Two vector operations a compare and no mask
/// registers: compares into masks, OR-ed through general registers,
/// took longer: docs/performance.md.)
///
/// # Safety
/// The avx512 features are present (see `arch::x86_64`); each `g + starts[i]`
/// points to GROUP values.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,bmi1,popcnt")]
unsafe fn wide_hits(
    cand: &[[u16; GROUP]; CANDIDATES],
    xs: &[u32],
    starts: &[usize],
    g: *const u16,
) -> [u32; CANDIDATES] {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let cv: [__m512i; CANDIDATES] =
            std::array::from_fn(|j| _mm512_loadu_si512(cand[j].as_ptr() as *const _));
        let mut near = [_mm512_set1_epi16(-1); CANDIDATES];
        for (&x, &start) in xs.iter().zip(starts) {
            let v = _mm512_xor_si512(
                _mm512_loadu_si512(g.add(start) as *const _),
                _mm512_set1_epi16(x as u16 as i16),
            );
            for j in 0..CANDIDATES {
                near[j] = _mm512_min_epu16(near[j], _mm512_xor_si512(v, cv[j]));
            }
        }
        let unused = _mm512_set1_epi16(-1);
        std::array::from_fn(|j| {
            _mm512_testn_epi16_mask(near[j], near[j]) & _mm512_cmpneq_epi16_mask(cv[j], unused)
        })
    }
}

/// [`wide_hits`] on the low bytes of the values only (see
/// `Runs::flag_checked`): two runs a vector, 64 byte lanes, half the
/// operations.
///
/// # Safety
/// The avx512 features are present (see `arch::x86_64`), and VBMI; each `g +
/// starts[i]` points to GROUP values.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,bmi1,popcnt")]
unsafe fn narrow_hits(
    cand: &[[u16; GROUP]; CANDIDATES],
    xs: &[u32],
    starts: &[usize],
    g: *const u16,
) -> [u32; CANDIDATES] {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let lows = _mm512_loadu_si512(super::LOW_BYTES.as_ptr() as *const _);
        // Each row's candidate in byte t and byte 32 + t.
        let cv: [__m512i; CANDIDATES] = std::array::from_fn(|j| {
            let c = _mm512_loadu_si512(cand[j].as_ptr() as *const _);
            _mm512_permutex2var_epi8(c, lows, c)
        });
        let mut near = [_mm512_set1_epi8(-1); CANDIDATES];
        let mut step = |(xa, sa): (u32, usize), (xb, sb): (u32, usize)| {
            let v = _mm512_permutex2var_epi8(
                _mm512_loadu_si512(g.add(sa) as *const _),
                lows,
                _mm512_loadu_si512(g.add(sb) as *const _),
            );
            let x = _mm512_mask_set1_epi8(_mm512_set1_epi8(xa as i8), !0u64 << 32, xb as i8);
            let v = _mm512_xor_si512(v, x);
            for j in 0..CANDIDATES {
                near[j] = _mm512_min_epu8(near[j], _mm512_xor_si512(v, cv[j]));
            }
        };
        let mut runs = xs.iter().copied().zip(starts.iter().copied());
        while let Some(a) = runs.next() {
            // An odd last run goes with itself.
            step(a, runs.next().unwrap_or(a));
        }
        let unused = _mm512_set1_epi16(-1);
        std::array::from_fn(|j| {
            let m = _mm512_testn_epi8_mask(near[j], near[j]);
            let c = _mm512_loadu_si512(cand[j].as_ptr() as *const _);
            (m as u32 | (m >> 32) as u32) & _mm512_cmpneq_epi16_mask(c, unused)
        })
    }
}

/// Lane t ↦ t (shifted to t · ROW by [`groups`]).
const ROW_OFFSETS: [u16; 32] = {
    let mut r = [0u16; 32];
    let mut j = 0;
    while j < 32 {
        r[j] = j as u16;
        j += 1;
    }
    r
};
