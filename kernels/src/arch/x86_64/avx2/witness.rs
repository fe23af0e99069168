//! The AVX2 witness strike (see `crate::witness`).
//!
//! AVX2 has no 16-bit permute across a register, so the AVX-512 method
//! (the set as a table of words in two registers) does not carry over.
//! Instead the set, as bytes, is split into tables of 16 bytes (128
//! values each, up to 8 for 1024 values) broadcast to both halves of a
//! register, and each of 32 values is looked up with `vpshufb` in every
//! table: its byte (value / 8) in the table whose number its high nibble
//! names, then its bit (value % 8). A step of 32 pairs costs the same
//! whatever the set holds, and a value struck only reloads the tables.
//! Once a few values are left, each is compared with the XORs instead.

use std::arch::x86_64::*;

use super::{step_at, xors32};
use crate::generic::members;

/// Sets of at most this many values are struck by [`strike_few`]'s
/// compares (from the start, or once the tables have struck the rest);
/// larger ones go through the tables, their hits taken lane by lane
/// through memory.
const FEW: usize = crate::generic::FEW_VALUES;

/// See [`crate::witness::strike_xors`]; `set.len() ≤ 16`.
///
/// # Safety
/// The avx2 features are present (see `arch::x86_64`).
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub unsafe fn strike_xors_u16(set: &mut [u64], lo: &[u16], hi: &[u16]) -> bool {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        debug_assert!(set.len() <= crate::generic::SIMD_WORDS);
        // Most calls have a few values: they go to the compares straight from
        // the set, without the tables' padded copy and count.
        let mut vals = [0usize; FEW];
        if let Some(left) = few_values(set, &mut vals) {
            return left == 0 || strike_few(set, &vals, lo, hi, 0, left);
        }
        match set.len() {
            // As many tables as the set's words need (0.6's sets of 5 words
            // take 3, not a power of two).
            0..=2 => strike_in::<1, 2>(set, lo, hi),
            3..=4 => strike_in::<2, 4>(set, lo, hi),
            5..=6 => strike_in::<3, 6>(set, lo, hi),
            7..=8 => strike_in::<4, 8>(set, lo, hi),
            9..=10 => strike_in::<5, 10>(set, lo, hi),
            11..=12 => strike_in::<6, 12>(set, lo, hi),
            13..=14 => strike_in::<7, 14>(set, lo, hi),
            _ => strike_in::<8, 16>(set, lo, hi),
        }
    }
}

/// The set's values in increasing order into `vals`, and how many, if at
/// most [`FEW`] (a bit loop that stops at the one past them). Written in
/// place: an array made here and returned was reloaded as one vector from
/// its scalar stores, a failed store forward (docs/performance.md).
///
/// # Safety
/// The avx2 features are present (see `arch::x86_64`).
#[inline]
#[target_feature(enable = "avx2,bmi1,popcnt")]
unsafe fn few_values(set: &[u64], vals: &mut [usize; FEW]) -> Option<u32> {
    let mut left = 0;
    for (i, &w) in set.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            if left == FEW {
                return None;
            }
            vals[left] = 64 * i + w.trailing_zeros() as usize;
            left += 1;
            w &= w - 1;
        }
    }
    Some(left as u32)
}

/// The set's `W − 1` or `W` words (as the dispatch pairs them: an empty
/// set never reaches the tables, so the last branch is only a fallback),
/// copied in or out of a zero-padded array in copies of known length: a
/// copy of the set's length was a call of `memmove`.
#[inline(always)]
fn copy_words<const W: usize>(dst: &mut [u64], src: &[u64]) {
    let l = dst.len().min(src.len());
    if l == W {
        dst[..W].copy_from_slice(&src[..W]);
    } else if l + 1 == W {
        dst[..W - 1].copy_from_slice(&src[..W - 1]);
    } else {
        dst[..l].copy_from_slice(&src[..l]);
    }
}

/// The tables of a set: `T` times 16 bytes, each in both halves.
///
/// # Safety
/// The avx2 features are present (see `arch::x86_64`).
#[inline]
#[target_feature(enable = "avx2,bmi1,popcnt")]
unsafe fn tables<const T: usize, const W: usize>(buf: &[u64; W]) -> [__m256i; T] {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        const { assert!(W == 2 * T) };
        let bytes = buf.as_ptr() as *const u8;
        std::array::from_fn(|t| {
            _mm256_broadcastsi128_si256(_mm_loadu_si128(bytes.add(16 * t) as *const __m128i))
        })
    }
}

/// [`strike_xors_u16`] with the set (`set.len() ≤ W = 2T` words) in `T`
/// tables.
///
/// # Safety
/// The avx2 features are present (see `arch::x86_64`); `set.len() ≤ W`; `lo`
/// and `hi` have one length.
#[inline]
#[target_feature(enable = "avx2,bmi1,popcnt")]
unsafe fn strike_in<const T: usize, const W: usize>(
    set: &mut [u64],
    lo: &[u16],
    hi: &[u16],
) -> bool {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = lo.len();
        let bits = set.len() * 64;
        // The set, zero-padded to the tables; struck values leave it here.
        let mut buf = [0u64; W];
        copy_words::<W>(&mut buf, set);
        // Bit by bit: a sum of counts over the array was vectorized into a
        // dozen operations, even with POPCNT.
        let mut left = members(&buf).count() as u32;
        debug_assert!(left as usize > FEW, "few values take strike_few");
        let mut t = tables::<T, W>(&buf);
        let seven = _mm256_set1_epi16(7);
        let zero = _mm256_setzero_si256();
        let room = _mm256_set1_epi8(0x70);
        // Byte b ↦ 1 << b, for b < 8, in both halves.
        let bit_of = _mm256_setr_epi8(
            1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, //
            1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0,
        );
        let mut k = 0;
        // A step taking pairs again finds only values struck already, which
        // the tables no longer hold.
        while let Some(at) = step_at(k, n) {
            let (x0, x1) = xors32(lo, hi, at);
            // Bytes 0–7 are pairs 0–7, 8–15 pairs 16–23, 16–23 pairs 8–15 and
            // 24–31 pairs 24–31 (the order of packus); values of 2048 and
            // more saturate to byte 255, which no table holds.
            let idx = _mm256_packus_epi16(_mm256_srli_epi16::<3>(x0), _mm256_srli_epi16::<3>(x1));
            let low = _mm256_packus_epi16(_mm256_and_si256(x0, seven), _mm256_and_si256(x1, seven));
            let bit = _mm256_shuffle_epi8(bit_of, low);
            let mut byte = zero;
            for (j, tj) in t.iter().enumerate() {
                // Below 16 (bit 7 clear once 0x70 is added) only where the
                // byte's high nibble is j; vpshufb gives 0 for bit 7 set.
                let sel =
                    _mm256_adds_epu8(_mm256_xor_si256(idx, _mm256_set1_epi8(16 * j as i8)), room);
                byte = _mm256_or_si256(byte, _mm256_shuffle_epi8(*tj, sel));
            }
            let hit = _mm256_and_si256(byte, bit);
            if _mm256_testz_si256(hit, hit) == 0 {
                let mut m = !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hit, zero)) as u32);
                let mut xs = [0u16; 32];
                _mm256_storeu_si256(xs.as_mut_ptr() as *mut __m256i, x0);
                _mm256_storeu_si256(xs.as_mut_ptr().add(16) as *mut __m256i, x1);
                while m != 0 {
                    let j = m.trailing_zeros() as usize;
                    let pair = match j {
                        8..=15 => j + 8,
                        16..=23 => j - 8,
                        _ => j,
                    };
                    if strike(xs[pair] as usize, &mut buf, &mut left) {
                        set.fill(0);
                        return true;
                    }
                    m &= m - 1;
                }
                if left as usize <= FEW {
                    let mut vals = [0usize; FEW];
                    let few = few_values(&buf, &mut vals);
                    debug_assert_eq!(few, Some(left));
                    let empty = strike_few(&mut buf, &vals, lo, hi, at + 32, left);
                    return finish(set, &buf, empty);
                }
                t = tables::<T, W>(&buf);
            }
            k = at + 32;
        }
        for j in k..n {
            let v = (lo[j] ^ hi[n - 1 - j]) as usize;
            if v < bits && strike(v, &mut buf, &mut left) {
                set.fill(0);
                return true;
            }
        }
        finish(set, &buf, false)
    }
}

/// Copies what is left of `buf` back to `set`; passes `empty` on.
#[inline(always)]
fn finish<const W: usize>(set: &mut [u64], buf: &[u64; W], empty: bool) -> bool {
    copy_words::<W>(set, buf);
    empty
}

/// The rest of a scan, from pair `k`, once at most [`FEW`] values are
/// left (`left`, at least one): each value is compared with the XORs of
/// the pairs, in registers, without the tables, and what each finds is
/// gathered in a register of its own until every value has been found or
/// the run ends; then the values found are struck at once. The scan stops
/// only when all are found, so a hit costs no branch of its own: the long
/// tails of the scans, where one or two hard values are left, take a third
/// of the table path's operations a step and a branch every two steps.
///
/// # Safety
/// The avx2 features are present (see `arch::x86_64`); `lo` and `hi` have one
/// length; `left ≤ FEW` values in `vals`.
#[inline]
#[target_feature(enable = "avx2,bmi1,popcnt")]
unsafe fn strike_few(
    set: &mut [u64],
    vals: &[usize; FEW],
    lo: &[u16],
    hi: &[u16],
    k: usize,
    left: u32,
) -> bool {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let found = match left {
            1 => few_found::<1>(vals, lo, hi, k),
            2 => few_found::<2>(vals, lo, hi, k),
            3 => few_found::<3>(vals, lo, hi, k),
            _ => few_found::<4>(vals, lo, hi, k),
        };
        for (i, &v) in vals[..left as usize].iter().enumerate() {
            let hit = u64::from(found >> i & 1);
            set[v / 64] &= !(hit << (v % 64));
        }
        found == (1 << left) - 1
    }
}

/// Which of the `C` values `vals[..C]` the pairs from `k` on reach (a bit
/// each): all of them as soon as all are found. The caller has seen the
/// pairs before `k`: none of them reaches a value of `vals`. So the last
/// single step may end at the last pair and take again some pairs before
/// `k` (those of the step before, or, from [`strike_in`], of its tables'
/// last step) without finding anything new; only runs of fewer than 32
/// pairs have a scalar loop.
///
/// # Safety
/// The avx2 features are present (see `arch::x86_64`); `lo` and `hi` have one
/// length, `k ≤ lo.len()`.
#[inline]
#[target_feature(enable = "avx2,bmi1,popcnt")]
unsafe fn few_found<const C: usize>(
    vals: &[usize; FEW],
    lo: &[u16],
    hi: &[u16],
    mut k: usize,
) -> u32 {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = lo.len();
        let all = (1u32 << C) - 1;
        let e: [__m256i; C] = std::array::from_fn(|i| _mm256_set1_epi16(vals[i] as i16));
        let mut acc = [_mm256_setzero_si256(); C];
        let found = |acc: &[__m256i; C]| {
            acc.iter().enumerate().fold(0, |f, (i, a)| {
                f | u32::from(_mm256_testz_si256(*a, *a) == 0) << i
            })
        };
        // Two steps a check while 64 pairs are left.
        while k + 64 <= n {
            let (x0, x1) = xors32(lo, hi, k);
            let (x2, x3) = xors32(lo, hi, k + 32);
            for (a, &ei) in acc.iter_mut().zip(&e) {
                let eq = _mm256_or_si256(equal(x0, x1, ei), equal(x2, x3, ei));
                *a = _mm256_or_si256(*a, eq);
            }
            k += 64;
            if found(&acc) == all {
                return all;
            }
        }
        while let Some(at) = step_at(k, n) {
            let (x0, x1) = xors32(lo, hi, at);
            for (a, &ei) in acc.iter_mut().zip(&e) {
                *a = _mm256_or_si256(*a, equal(x0, x1, ei));
            }
            k = at + 32;
        }
        let mut hit = found(&acc);
        for j in k..n {
            let v = (lo[j] ^ hi[n - 1 - j]) as usize;
            for (i, &w) in vals[..C].iter().enumerate() {
                hit |= u32::from(v == w) << i;
            }
        }
        hit
    }
}

/// The lanes of `x0` or `x1` equal to `e`'s (all ones), in one vector.
///
/// # Safety
/// The avx2 features are present (see `arch::x86_64`).
#[inline]
#[target_feature(enable = "avx2,bmi1,popcnt")]
unsafe fn equal(x0: __m256i, x1: __m256i, e: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_cmpeq_epi16(x0, e), _mm256_cmpeq_epi16(x1, e))
}

/// Takes `v` out of the set `buf` (`left` values); true once it is empty.
#[inline(always)]
fn strike<const W: usize>(v: usize, buf: &mut [u64; W], left: &mut u32) -> bool {
    let (w, b) = (v / 64, 1u64 << (v % 64));
    if buf[w] & b != 0 {
        buf[w] &= !b;
        *left -= 1;
    }
    *left == 0
}
