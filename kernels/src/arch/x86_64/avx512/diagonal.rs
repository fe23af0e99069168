//! The AVX-512 diagonal kernel (see `crate::diagonal`): the set of values
//! in registers as byte tables, looked up with VBMI's two-table permutes.

use std::arch::x86_64::*;

/// Pairs per chunk at most, between two reloads of the tables.
const CHUNK: usize = 2048;
/// Pairs in the first chunk (where most values are new).
const FIRST_CHUNK: usize = 128;
/// A chunk with fewer new values than one per this many pairs makes
/// the next one take the branchy loop.
const QUIET: usize = 256;
/// Pairs per batch: two vectors of 32 XORs, looked up as 64 bytes.
const BATCH: usize = 64;

/// See [`crate::diagonal::or_pair_xors`]; returns the OR of every XOR. Needs
/// `64 · bits.len() ≤ REGISTER_SET_MAX`.
///
/// # Safety
/// The avx512 features and VBMI, VBMI2 and BITALG are present; `lo` and `hi`
/// have one length; `bits.len()` is a power of two and `64 · bits.len() ≤
/// REGISTER_SET_MAX`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,bmi1,popcnt")]
pub unsafe fn or_pair_xors(bits: &mut [u64], lo: &[u16], hi: &[u16]) -> u16 {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        // The set as bytes (bit v is bit v % 8 of byte v / 8: the same bits
        // as the u64 words on a little-endian machine), padded to whole
        // tables of 1024 values.
        let bound = 64 * bits.len();
        if bound >= 1024 {
            let bytes = std::slice::from_raw_parts_mut(bits.as_mut_ptr() as *mut u8, bound / 8);
            match bound / 1024 {
                1 => run::<1>(bytes, lo, hi),
                2 => run::<2>(bytes, lo, hi),
                4 => run::<4>(bytes, lo, hi),
                8 => run::<8>(bytes, lo, hi),
                16 => run::<16>(bytes, lo, hi),
                _ => unreachable!("bound checked by the caller"),
            }
        } else {
            let mut bytes = [0u8; 128];
            for (j, w) in bits.iter().enumerate() {
                bytes[8 * j..8 * j + 8].copy_from_slice(&w.to_le_bytes());
            }
            let or = run::<1>(&mut bytes, lo, hi);
            for (j, w) in bits.iter_mut().enumerate() {
                *w = u64::from_le_bytes(bytes[8 * j..8 * j + 8].try_into().unwrap());
            }
            or
        }
    }
}

/// Looks up the XORs of pairs `k0..k1` (whole batches) in the tables
/// `t`; appends those not found to `news`, returns how many.
///
/// Each batch: 2 × 32 XORs (u16 lanes), packed into 64 byte lanes:
/// the byte of the set holding each value (`vpermi2b` from each pair
/// of table registers, 128 bytes = 1024 values, then picked by the
/// value's high bits), and the value's bit in that byte
/// (`vpshufbitqmb`).
///
/// # Safety
/// The avx512 features and VBMI, VBMI2 and BITALG are present; `k0 ≤ k1`, whole
/// batches within `lo` and `hi` (of one length), and `t` the tables of `P ·
/// 1024` values.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,bmi1,popcnt")]
unsafe fn step<const P: usize, const BRANCHY: bool>(
    lo: &[u16],
    hi: &[u16],
    k0: usize,
    k1: usize,
    t: &[__m512i; 32],
    or: &mut __m512i,
    news: &mut [u16; CHUNK + BATCH],
) -> usize {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        let n = lo.len();
        debug_assert!(k1 <= n && k1 - k0 <= CHUNK && (k1 - k0).is_multiple_of(BATCH));
        // Byte j of the result is byte `rev[j]` of the source: the 32
        // u16 lanes in reverse order.
        let rev = _mm512_loadu_si512(REV_WORDS.as_ptr() as *const _);
        // Low (even) bytes of two vectors of u16 lanes, then high ones.
        let lows = _mm512_loadu_si512(super::LOW_BYTES.as_ptr() as *const _);
        let highs = _mm512_add_epi8(lows, _mm512_set1_epi8(1));
        // Bit b of byte lane j is bit 8 (j % 8) + b of its qword.
        let lane = _mm512_loadu_si512(LANE_BITS.as_ptr() as *const _);
        let seven = _mm512_set1_epi8(7);
        let mut acc = *or;
        let mut fill = 0usize;
        let mut k = k0;
        while k < k1 {
            let a0 = _mm512_loadu_si512(lo.as_ptr().add(k) as *const _);
            let a1 = _mm512_loadu_si512(lo.as_ptr().add(k + 32) as *const _);
            let b0 = _mm512_loadu_si512(hi.as_ptr().add(n - k - 32) as *const _);
            let b1 = _mm512_loadu_si512(hi.as_ptr().add(n - k - 64) as *const _);
            let x0 = _mm512_xor_si512(a0, _mm512_permutexvar_epi8(rev, b0));
            let x1 = _mm512_xor_si512(a1, _mm512_permutexvar_epi8(rev, b1));
            // acc | x0 | x1.
            acc = _mm512_ternarylogic_epi32::<0xfe>(acc, x0, x1);
            let y0 = _mm512_srli_epi16::<3>(x0);
            let y1 = _mm512_srli_epi16::<3>(x1);
            // Byte of the set within a table (low 7 bits), and bit 10 of
            // the value (bit 7) for the first choice between tables.
            let idx = _mm512_permutex2var_epi8(y0, lows, y1);
            // (value & 7) | lane bits.
            let bit = _mm512_ternarylogic_epi32::<0xea>(
                _mm512_permutex2var_epi8(x0, lows, x1),
                seven,
                lane,
            );
            let mut r = [_mm512_setzero_si512(); 16];
            for p in 0..P {
                r[p] = _mm512_permutex2var_epi8(t[2 * p], idx, t[2 * p + 1]);
            }
            if P > 1 {
                let m = _mm512_movepi8_mask(idx);
                for p in 0..P / 2 {
                    r[p] = _mm512_mask_blend_epi8(m, r[2 * p], r[2 * p + 1]);
                }
            }
            if P > 2 {
                // Bits 11, 12, … of the value.
                let high = _mm512_permutex2var_epi8(y0, highs, y1);
                let mut q = P / 2;
                let mut b = 1;
                while q > 1 {
                    let m = _mm512_test_epi8_mask(high, _mm512_set1_epi8(b));
                    for p in 0..q / 2 {
                        r[p] = _mm512_mask_blend_epi8(m, r[2 * p], r[2 * p + 1]);
                    }
                    q /= 2;
                    b *= 2;
                }
            }
            let miss = !_mm512_bitshuffle_epi64_mask(r[0], bit);
            // At most 64 values from `fill ≤ k − k0 ≤ CHUNK − 64`: inside.
            if !BRANCHY || miss != 0 {
                let m0 = miss as u32;
                let m1 = (miss >> 32) as u32;
                _mm512_storeu_si512(
                    news.as_mut_ptr().add(fill) as *mut _,
                    _mm512_maskz_compress_epi16(m0, x0),
                );
                fill += m0.count_ones() as usize;
                _mm512_storeu_si512(
                    news.as_mut_ptr().add(fill) as *mut _,
                    _mm512_maskz_compress_epi16(m1, x1),
                );
                fill += m1.count_ones() as usize;
            }
            k += BATCH;
        }
        *or = acc;
        fill
    }
}

const REV_WORDS: [u8; 64] = {
    let mut r = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        r[j] = (2 * (31 - j / 2) + j % 2) as u8;
        j += 1;
    }
    r
};
const LANE_BITS: [u8; 64] = {
    let mut r = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        r[j] = (8 * (j % 8)) as u8;
        j += 1;
    }
    r
};

/// The set of `P · 1024` values in `2P` registers of 64 bytes each
/// (`P ≤ 16`).
///
/// # Safety
/// The avx512 features and VBMI, VBMI2 and BITALG are present; `lo` and `hi`
/// have one length.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,bmi1,popcnt")]
unsafe fn run<const P: usize>(bytes: &mut [u8], lo: &[u16], hi: &[u16]) -> u16 {
    // SAFETY: the caller meets the `# Safety` contract above (the features
    // present, the pointers and lengths as stated).
    unsafe {
        assert_eq!(bytes.len(), 128 * P);
        let n = lo.len();
        let bmask = 128 * P - 1;
        let base = bytes.as_mut_ptr();
        let mut news = [0u16; CHUNK + BATCH];
        let mut t = [_mm512_setzero_si512(); 32];
        let mut or = _mm512_setzero_si512();
        let mut k = 0;
        let mut chunk = FIRST_CHUNK;
        let mut quiet = false;
        let whole = n - n % BATCH;
        while k < whole {
            for (j, tj) in t.iter_mut().enumerate().take(2 * P) {
                *tj = _mm512_loadu_si512(base.add(64 * j) as *const _);
            }
            let end = (k + chunk).min(whole);
            // Few new values lately: a branch (rarely taken) is cheaper
            // than compressing every batch.
            let fill = if quiet {
                step::<P, true>(lo, hi, k, end, &t, &mut or, &mut news)
            } else {
                step::<P, false>(lo, hi, k, end, &t, &mut or, &mut news)
            };
            let len = end - k;
            k = end;
            for &v in &news[..fill] {
                *base.add((v as usize >> 3) & bmask) |= 1 << (v & 7);
            }
            if fill * 8 < len {
                chunk = (chunk * 2).min(CHUNK);
            }
            quiet = fill * QUIET < len;
        }
        let mut or = {
            let mut x = [0u16; 32];
            _mm512_storeu_si512(x.as_mut_ptr() as *mut _, or);
            x.iter().fold(0, |a, &b| a | b)
        };
        for j in whole..n {
            let v = lo[j] ^ hi[n - 1 - j];
            or |= v;
            *base.add((v as usize >> 3) & bmask) |= 1 << (v & 7);
        }
        or
    }
}
