//! AVX2 far flags and checked runs (see `crate::runs`): the AVX-512 method
//! on two vectors of 16 rows.

use std::arch::x86_64::*;

use crate::generic::rows::{row_candidates, store_runs, Check, CANDIDATES, GROUP};

/// Lane t ↦ t, for rows 0..16 and 16..32 (shifted to t · ROW).
///
/// # Safety
/// The avx2 features are present (see `arch::x86_64`).
#[inline]
#[target_feature(enable = "avx2,bmi1,popcnt")]
unsafe fn row_offsets<const ROW: usize>() -> (__m256i, __m256i) {
    let shift = _mm_cvtsi32_si128(ROW.trailing_zeros() as i32);
    let lo = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let hi = _mm256_add_epi16(lo, _mm256_set1_epi16(16));
    (_mm256_sll_epi16(lo, shift), _mm256_sll_epi16(hi, shift))
}

/// Every run `(xs[j], g + starts[j])` into a group of rows: byte
/// `t · ROW + ((x ⊕ q[t]) mod ROW)` from `p` set to 1 for each
/// `t < GROUP`. The 32 offsets of a run are made in two vectors (they fit
/// in 16 bits: `GROUP · ROW ≤ 65536`) and stored row by row, a batch of
/// runs at a time ([`store_runs`]).
///
/// # Safety
/// The avx2 features are present; each `g + starts[j]` points to GROUP
/// values and `p` to GROUP rows of ROW bytes; `xs` and `starts` have one
/// length.
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub unsafe fn groups<const ROW: usize>(p: *mut u8, xs: &[u32], starts: &[usize], g: *const u16) {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        const { assert!(GROUP == 32 && ROW * GROUP <= 1 << 16) };
        debug_assert_eq!(xs.len(), starts.len());
        let (off0, off1) = row_offsets::<ROW>();
        let mask = _mm256_set1_epi16((ROW - 1) as i16);
        // ((x ⊕ v) & (ROW − 1)) | t · ROW, for rows 0..16 and 16..32.
        let offsets = |x: u32, start: usize| {
            let q = g.add(start);
            let x = _mm256_set1_epi16(x as u16 as i16);
            let v0 = _mm256_loadu_si256(q as *const __m256i);
            let v1 = _mm256_loadu_si256(q.add(16) as *const __m256i);
            (
                _mm256_or_si256(_mm256_and_si256(_mm256_xor_si256(v0, x), mask), off0),
                _mm256_or_si256(_mm256_and_si256(_mm256_xor_si256(v1, x), mask), off1),
            )
        };
        store_runs(p, xs.len(), |j, o| {
            let (i0, i1) = offsets(xs[j], starts[j]);
            _mm256_storeu_si256(o as *mut __m256i, i0);
            _mm256_storeu_si256(o.add(16) as *mut __m256i, i1);
        });
    }
}

/// The checked runs of a group of rows (see `Runs::flag_checked`): each
/// row's candidates found 64 bytes (a word of its eligible set) at a time
/// (32 at a time, a branch each, is slower: docs/performance.md), then,
/// for each half of the
/// group (16 rows, one vector), every run's values compared with the j-th
/// candidate of each row: `near[j]` keeps the least `value ⊕ candidate`,
/// 0 where a run reaches it. A half keeps its [`CANDIDATES`] accumulators
/// in registers and takes the candidates from memory (AVX2 has 16
/// registers, too few for both halves at once). With `check.low_bytes`
/// the values and candidates are compared on their low bytes.
///
/// # Safety
/// The avx2 features are present; as for [`groups`], for every run;
/// `lims` has GROUP limits.
#[target_feature(enable = "avx2,bmi1,popcnt")]
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
        // Candidates by row (keyed below); u16::MAX, which no keyed value
        // equals when keyed to low bytes and no value below a row of ≤ 1024
        // reaches, where a row has none. 64 values a step: a word of the
        // eligible set.
        let zero = _mm256_setzero_si256();
        // SAFETY: p points to GROUP rows of ROW bytes (as for `groups`).
        let cand = row_candidates::<ROW>(p, check, lims, |q| {
            let a = _mm256_loadu_si256(q as *const __m256i);
            let b = _mm256_loadu_si256(q.add(32) as *const __m256i);
            let free_a = _mm256_movemask_epi8(_mm256_cmpeq_epi8(a, zero)) as u32 as u64;
            let free_b = _mm256_movemask_epi8(_mm256_cmpeq_epi8(b, zero)) as u32 as u64;
            free_a | free_b << 32
        });
        if check.low_bytes {
            return narrow_hits::<ROW>(p, &cand, xs, starts, g);
        }
        let keyv = _mm256_set1_epi16(key as i16);
        let unused = _mm256_set1_epi16(-1);
        for half in 0..2 {
            let mut keyed = [[0u16; 16]; CANDIDATES];
            for j in 0..CANDIDATES {
                for t in 0..16 {
                    let c = cand[j][16 * half + t];
                    keyed[j][t] = if c == u16::MAX { c } else { c & key };
                }
            }
            let mut near = [unused; CANDIDATES];
            for (&x, &start) in xs.iter().zip(starts) {
                let q = g.add(start + 16 * half);
                let v = _mm256_xor_si256(
                    _mm256_loadu_si256(q as *const __m256i),
                    _mm256_set1_epi16(x as u16 as i16),
                );
                let v = _mm256_and_si256(v, keyv);
                for j in 0..CANDIDATES {
                    let c = _mm256_loadu_si256(keyed[j].as_ptr() as *const __m256i);
                    near[j] = _mm256_min_epu16(near[j], _mm256_xor_si256(v, c));
                }
            }
            for j in 0..CANDIDATES {
                let c = _mm256_loadu_si256(cand[j].as_ptr().add(16 * half) as *const __m256i);
                let hit = _mm256_andnot_si256(
                    _mm256_cmpeq_epi16(c, unused),
                    _mm256_cmpeq_epi16(near[j], zero),
                );
                // Two mask bits a u16 lane: keep the even ones.
                let mut h = even_bits(_mm256_movemask_epi8(hit) as u32);
                while h != 0 {
                    let t = 16 * half + h.trailing_zeros() as usize;
                    *p.add(t * ROW + cand[j][t] as usize) = 1;
                    h &= h - 1;
                }
            }
        }
    }
}

/// The low bytes of two vectors of 16 u16 lanes, in one of 32 bytes
/// (`packus` order: lanes 0–7 of `a`, 0–7 of `b`, 8–15 of `a`, 8–15 of `b`).
///
/// # Safety
/// The avx2 features are present (see `arch::x86_64`).
#[inline]
#[target_feature(enable = "avx2,bmi1,popcnt")]
unsafe fn low_bytes(a: __m256i, b: __m256i) -> __m256i {
    let low = _mm256_set1_epi16(0xff);
    _mm256_packus_epi16(_mm256_and_si256(a, low), _mm256_and_si256(b, low))
}

/// The row of byte `i` of [`low_bytes`] of rows 0–15 and 16–31.
#[inline(always)]
fn packed_row(i: usize) -> usize {
    match i {
        8..=15 => i + 8,
        16..=23 => i - 8,
        _ => i,
    }
}

/// The checked runs compared on their low bytes (see [`check_group`]):
/// the group's 32 rows in one vector of bytes, so a run costs two loads,
/// a pack and two operations a candidate, about half the two halves'.
///
/// # Safety
/// The avx2 features are present; as for [`groups`], for every run.
#[inline]
#[target_feature(enable = "avx2,bmi1,popcnt")]
unsafe fn narrow_hits<const ROW: usize>(
    p: *mut u8,
    cand: &[[u16; GROUP]; CANDIDATES],
    xs: &[u32],
    starts: &[usize],
    g: *const u16,
) {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let mut cv = [_mm256_setzero_si256(); CANDIDATES];
        for (c, row) in cv.iter_mut().zip(cand) {
            let a = _mm256_loadu_si256(row.as_ptr() as *const __m256i);
            let b = _mm256_loadu_si256(row.as_ptr().add(16) as *const __m256i);
            *c = low_bytes(a, b);
        }
        let mut near = [_mm256_set1_epi8(-1); CANDIDATES];
        for (&x, &start) in xs.iter().zip(starts) {
            let q = g.add(start);
            let v = low_bytes(
                _mm256_loadu_si256(q as *const __m256i),
                _mm256_loadu_si256(q.add(16) as *const __m256i),
            );
            let v = _mm256_xor_si256(v, _mm256_set1_epi8(x as u8 as i8));
            for (n, c) in near.iter_mut().zip(&cv) {
                *n = _mm256_min_epu8(*n, _mm256_xor_si256(v, *c));
            }
        }
        let zero = _mm256_setzero_si256();
        for (j, n) in near.iter().enumerate() {
            let mut h = _mm256_movemask_epi8(_mm256_cmpeq_epi8(*n, zero)) as u32;
            while h != 0 {
                let t = packed_row(h.trailing_zeros() as usize);
                // A row with fewer candidates has u16::MAX in their place,
                // whose low byte a value may share: never a hit.
                if cand[j][t] != u16::MAX {
                    *p.add(t * ROW + cand[j][t] as usize) = 1;
                }
                h &= h - 1;
            }
        }
    }
}

/// The even bits of `m` (one a u16 lane of a byte mask), packed.
#[inline(always)]
fn even_bits(m: u32) -> u32 {
    let mut x = m & 0x5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333;
    x = (x | (x >> 2)) & 0x0f0f_0f0f;
    x = (x | (x >> 4)) & 0x00ff_00ff;
    (x | (x >> 8)) & 0x0000_ffff
}
