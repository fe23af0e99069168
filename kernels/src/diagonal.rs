//! The values of a whole diagonal of splits, as a set: the inner loop of
//! the diagonal method, which games without sparse space run on.
//!
//! Every split `a + b` of every heap lies on a diagonal `a + b = s`; the
//! engine collects the values `G(a) ⊕ G(s − a)` of long stretches of one
//! diagonal at once ([`or_pair_xors`]), so each pair costs a few vector
//! operations rather than a store.

use crate::platform::{self, isa};
use crate::value::Value;
use isa::{Isa, Level};

pub use crate::generic::HIT_CANDIDATES;
pub use crate::platform::REGISTER_SET_MAX;

/// Whether [`or_pair_xors`] on the current path keeps long diagonals' sets
/// in registers (AVX-512 with VBMI), where a pair costs a few vector
/// operations; elsewhere it stores a byte a pair, and a caller that needs
/// only the mex does better with [`pairs_hit`].
pub fn sets_in_registers() -> bool {
    platform::sets_in_registers(isa::level())
}

/// For every `k < lo.len()`: sets bit `lo[k] ⊕ hi[hi.len() − 1 − k]` of
/// `bits` (bit `v` is bit `v % 64` of `bits[v / 64]`).
///
/// The values of all the splits along one diagonal, as a set: `lo` and
/// `hi` have the same length, `bits.len()` is a power of two and every XOR
/// must be below `64 · bits.len()` (else this panics; `bits` is then left
/// with wrapped values, never written out of bounds). `bytes` is scratch.
///
/// With AVX-512 VBMI (and VBMI2, BITALG), at least 256 pairs and a set of
/// at most [`REGISTER_SET_MAX`] values, the set itself sits in registers
/// as lookup tables: each batch of 32 XORs is looked up there and only
/// values not yet in the set are written (to a list applied and reloaded
/// every chunk). After the first few thousand pairs almost every value is
/// known, so this costs a few vector instructions per 32 pairs instead of
/// a store per pair. NEON does the same with `tbl` tables for sets of at
/// most 2048 values. Otherwise every pair is a byte store in a row (no
/// read-modify-write), packed at the end.
pub fn or_pair_xors<V: Value>(bits: &mut [u64], lo: &[V], hi: &[V], bytes: &mut Vec<u8>) {
    or_pair_xors_at(isa::level(), bits, lo, hi, bytes);
}

/// [`or_pair_xors`] on the path `isa` (which the host must have).
pub fn or_pair_xors_on<V: Value>(
    isa: Isa,
    bits: &mut [u64],
    lo: &[V],
    hi: &[V],
    bytes: &mut Vec<u8>,
) {
    or_pair_xors_at(isa::on_host_level(isa), bits, lo, hi, bytes);
}

#[inline]
fn or_pair_xors_at<V: Value>(
    level: Level,
    bits: &mut [u64],
    lo: &[V],
    hi: &[V],
    bytes: &mut Vec<u8>,
) {
    assert_eq!(
        lo.len(),
        hi.len(),
        "or_pair_xors: runs of different lengths"
    );
    assert!(
        bits.len().is_power_of_two(),
        "or_pair_xors: bits not a power of two"
    );
    platform::or_pair_xors(level, bits, lo, hi, bytes);
}

/// Sets bit `v` of `bits` (bit `v % 64` of `bits[v / 64]`) for every
/// flagged (non-zero) byte `row[v]`: a row of byte flags added to a set.
/// `row` has a multiple of 64 bytes, at most `64 · bits.len()`.
pub fn or_flagged(bits: &mut [u64], row: &[u8]) {
    or_flagged_at(isa::level(), bits, row);
}

/// [`or_flagged`] on the path `isa` (which the host must have).
pub fn or_flagged_on(isa: Isa, bits: &mut [u64], row: &[u8]) {
    or_flagged_at(isa::on_host_level(isa), bits, row);
}

#[inline]
fn or_flagged_at(level: Level, bits: &mut [u64], row: &[u8]) {
    assert!(
        row.len() <= 64 * bits.len() && row.len().is_multiple_of(64),
        "or_flagged: a row of {} bytes for {} words",
        row.len(),
        bits.len()
    );
    platform::or_flagged(level, bits, row);
}

/// Reference twin of [`or_pair_xors`].
pub fn or_pair_xors_reference<V: Value>(bits: &mut [u64], lo: &[V], hi: &[V]) {
    assert_eq!(
        lo.len(),
        hi.len(),
        "or_pair_xors: runs of different lengths"
    );
    let n = lo.len();
    for k in 0..n {
        let v = lo[k].get() ^ hi[n - 1 - k].get();
        bits[(v >> 6) as usize] |= 1u64 << (v & 63);
    }
}

/// Bit `j` of the result set when `lo[k] ⊕ partners[k] == cands[j]` for
/// some `k`: whether a few values occur among a stretch of a diagonal's
/// splits, given with each split's partner in the same place (the
/// diagonal's values read backwards, from a reversed copy).
///
/// The other half of the diagonal method's mex without the whole set: a
/// heap's mex is decided by its least missing values, so once part of a
/// diagonal has been flagged, the rest need only be compared with the
/// least values still unseen, a compare a pair and no store (see the
/// engine's `candidates` module). `lo` and `partners` have one length.
/// AVX2 compares 32 XORs a step; the portable path 16 a step in the
/// baseline vectors (SSE2, NEON) the compiler makes of its loop.
pub fn pairs_hit<V: Value>(lo: &[V], partners: &[V], cands: &[u32; HIT_CANDIDATES]) -> u32 {
    pairs_hit_at(isa::level(), lo, partners, cands)
}

/// [`pairs_hit`] on the path `isa` (which the host must have).
pub fn pairs_hit_on<V: Value>(
    isa: Isa,
    lo: &[V],
    partners: &[V],
    cands: &[u32; HIT_CANDIDATES],
) -> u32 {
    pairs_hit_at(isa::on_host_level(isa), lo, partners, cands)
}

#[inline]
fn pairs_hit_at<V: Value>(
    level: Level,
    lo: &[V],
    partners: &[V],
    cands: &[u32; HIT_CANDIDATES],
) -> u32 {
    same_lengths(lo, partners);
    platform::pairs_hit(level, lo, partners, cands)
}

/// The input check [`pairs_hit`] and its twin share: the two runs pair
/// up element by element.
#[inline]
fn same_lengths<V: Value>(lo: &[V], partners: &[V]) {
    assert_eq!(
        lo.len(),
        partners.len(),
        "pairs_hit: runs of different lengths"
    );
}

/// Reference twin of [`pairs_hit`]: bit `j` set when some pair's XOR is
/// `cands[j]`.
pub fn pairs_hit_reference<V: Value>(
    lo: &[V],
    partners: &[V],
    cands: &[u32; HIT_CANDIDATES],
) -> u32 {
    same_lengths(lo, partners);
    let xors: Vec<u32> = lo
        .iter()
        .zip(partners)
        .map(|(a, b)| a.get() ^ b.get())
        .collect();
    (0..HIT_CANDIDATES)
        .filter(|&j| xors.contains(&cands[j]))
        .fold(0, |hit, j| hit | 1 << j)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `len` values below `bound`: mostly a few common ones, with rare
    /// others scattered to the end (as in a Grundy sequence, where new
    /// XORs keep turning up late in a diagonal).
    fn skewed(seed: u64, len: usize, bound: u32, common: u32) -> Vec<u16> {
        let mut s = seed | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let v = if s.is_multiple_of(16) {
                    s >> 8
                } else {
                    (s >> 8) % common as u64
                };
                (v % bound as u64) as u16
            })
            .collect()
    }

    fn check_or_pair_xors(bound: usize, lo: &[u16], hi: &[u16], init: u64) {
        let words = bound / 64;
        let start: Vec<u64> = (0..words as u64)
            .map(|j| init.rotate_left(j as u32) & init.rotate_right(3 * j as u32))
            .collect();
        let mut want = start.clone();
        or_pair_xors_reference(&mut want, lo, hi);
        let mut bytes = Vec::new();
        let lo32: Vec<u32> = lo.iter().map(|&x| x as u32).collect();
        let hi32: Vec<u32> = hi.iter().map(|&x| x as u32).collect();
        for isa in isa::available() {
            let mut got = start.clone();
            or_pair_xors_on(isa, &mut got, lo, hi, &mut bytes);
            assert_eq!(got, want, "{isa}, bound {bound}, {} pairs", lo.len());
            let mut got = start.clone();
            or_pair_xors_on(isa, &mut got, &lo32, &hi32, &mut bytes);
            assert_eq!(got, want, "{isa}, u32, bound {bound}, {} pairs", lo.len());
        }
        // Every level, AVX-512 without VBMI too where the host has VBMI.
        for level in isa::levels_on_host() {
            let mut got = start.clone();
            or_pair_xors_at(level, &mut got, lo, hi, &mut bytes);
            assert_eq!(got, want, "{level:?}, bound {bound}, {} pairs", lo.len());
        }
    }

    proptest! {
        #[test]
        fn or_pair_xors_matches_scalar(
            log in 6u32..=15,
            len in 0usize..5000,
            seed in any::<u64>(),
            common in 1u32..300,
            init in any::<u64>(),
        ) {
            let bound = 1usize << log;
            let g = skewed(seed, 2 * len, bound as u32, common);
            check_or_pair_xors(bound, &g[..len], &g[len..], init);
            // The same run with an unrelated tail: lengths not a multiple of 32.
            let cut = len - len % 7;
            check_or_pair_xors(bound, &g[..cut], &g[len..len + cut], 0);
        }
    }

    /// Every path against the twin, at both widths: candidates taken from
    /// the XORs present (hits), from values absent and above u16 (misses).
    fn check_pairs_hit(lo: &[u16], hi: &[u16], cands: [u32; HIT_CANDIDATES]) {
        let want = pairs_hit_reference(lo, hi, &cands);
        let lo32: Vec<u32> = lo.iter().map(|&x| x as u32).collect();
        let hi32: Vec<u32> = hi.iter().map(|&x| x as u32).collect();
        for isa in isa::available() {
            assert_eq!(
                pairs_hit_on(isa, lo, hi, &cands),
                want,
                "{isa}, {} pairs, {cands:?}",
                lo.len()
            );
            assert_eq!(pairs_hit_on(isa, &lo32, &hi32, &cands), want, "{isa}, u32");
        }
    }

    proptest! {
        #[test]
        fn pairs_hit_matches_scalar(
            len in 0usize..3000,
            seed in any::<u64>(),
            common in 1u32..300,
            picks in proptest::array::uniform4(any::<u32>()),
        ) {
            let g = skewed(seed, 2 * len, 1 << 13, common);
            let (lo, hi) = (&g[..len], &g[len..]);
            // Each candidate: a pair's XOR (a hit), a value at most 2^13
            // (a hit or a miss), or one above u16 whose low bits may match.
            let cands = picks.map(|p| match p % 3 {
                0 if len > 0 => {
                    let k = (p as usize / 3) % len;
                    (lo[k] ^ hi[k]) as u32
                }
                1 => (p / 3) % (1 << 13),
                _ => 0x10000 | ((p / 3) % (1 << 13)),
            });
            check_pairs_hit(lo, hi, cands);
        }
    }

    #[test]
    fn pairs_hit_finds_a_single_pair_anywhere() {
        // One pair XORs to 7, all others to 0: every position, every slot.
        for len in [1usize, 31, 32, 33, 64, 95, 1000] {
            for k in 0..len {
                let lo = vec![5u16; len];
                let mut hi = vec![5u16; len];
                hi[k] = 2;
                let mut cands = [1u32, 3, 0x10007, 9];
                for slot in 0..HIT_CANDIDATES {
                    cands[slot] = 7;
                    assert_eq!(pairs_hit_reference(&lo, &hi, &cands) >> slot & 1, 1);
                    check_pairs_hit(&lo, &hi, cands);
                    cands[slot] = 11 + slot as u32;
                }
            }
        }
    }

    #[test]
    fn or_flagged_adds_the_flagged_bytes() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        for (len, words) in [(64, 1), (64, 16), (1024, 16), (2048, 32), (3072, 64)] {
            let row: Vec<u8> = (0..len)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    [0, 0, 1, 255][(s % 4) as usize]
                })
                .collect();
            let start: Vec<u64> = (0..words as u64)
                .map(|j| j.wrapping_mul(s) & 0x8421)
                .collect();
            let mut want = start.clone();
            for (v, &f) in row.iter().enumerate() {
                if f != 0 {
                    want[v / 64] |= 1 << (v % 64);
                }
            }
            // Every path the host has, and the dispatched one.
            for isa in isa::available() {
                let mut got = start.clone();
                or_flagged_on(isa, &mut got, &row);
                assert_eq!(got, want, "{isa}: {len} bytes, {words} words");
            }
            let mut got = start;
            or_flagged(&mut got, &row);
            assert_eq!(got, want, "{len} bytes, {words} words");
        }
    }

    #[test]
    fn or_pair_xors_long_diagonals() {
        // Long enough for every chunk size, every table count.
        for log in [6, 9, 10, 11, 12, 13, 14] {
            let bound = 1usize << log;
            for len in [100_000, 65_537] {
                let g = skewed(log as u64 * 977 + len as u64, 2 * len, bound as u32, 700);
                check_or_pair_xors(bound, &g[..len], &g[len..], 0);
            }
        }
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn or_pair_xors_refuses_values_above_the_bound() {
        let g = skewed(5, 4000, 2048, 100);
        let mut bits = vec![0u64; 16];
        or_pair_xors(&mut bits, &g[..2000], &g[2000..], &mut Vec::new());
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn or_pair_xors_refuses_values_above_the_bound_bytes() {
        let g = skewed(5, 40_000, 1 << 15, 100);
        let mut bits = vec![0u64; 256];
        or_pair_xors(&mut bits, &g[..20_000], &g[20_000..], &mut Vec::new());
    }
}
