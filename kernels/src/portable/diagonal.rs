//! The portable paths of the diagonal method's kernels
//! (`diagonal::or_pair_xors`, `diagonal::pairs_hit`).

use crate::generic::HIT_CANDIDATES;
use crate::value::Value;

/// The values of the pairs set bit by bit: the path of
/// `diagonal::or_pair_xors` for runs too short to pay for a byte row.
pub(crate) fn set_pair_xors<V: Value>(bits: &mut [u64], lo: &[V], hi: &[V]) {
    for (a, b) in lo.iter().zip(hi.iter().rev()) {
        let v = (a.get() ^ b.get()) as usize;
        bits[v / 64] |= 1 << (v % 64);
    }
}

/// The portable path of `diagonal::pairs_hit` on u16 runs: 16 pairs a
/// step (two baseline vectors; at 32 the accumulators no longer fit in
/// SSE2's 16 registers), each compared with every candidate into mask
/// lanes, reduced once at the end.
pub(crate) fn pairs_hit(lo: &[u16], partners: &[u16], cands: &[u16; HIT_CANDIDATES]) -> u32 {
    const STEP: usize = 16;
    let mut acc = [[0u16; STEP]; HIT_CANDIDATES];
    let mut a = lo.chunks_exact(STEP);
    let mut b = partners.chunks_exact(STEP);
    for (a, b) in (&mut a).zip(&mut b) {
        let x: [u16; STEP] = std::array::from_fn(|j| a[j] ^ b[j]);
        for (acc, &c) in acc.iter_mut().zip(cands) {
            for (l, &v) in acc.iter_mut().zip(&x) {
                *l |= if v == c { !0 } else { 0 };
            }
        }
    }
    let mut hit = 0;
    for (j, acc) in acc.iter().enumerate() {
        hit |= u32::from(acc.iter().any(|&l| l != 0)) << j;
    }
    for (x, y) in a.remainder().iter().zip(b.remainder()) {
        for (j, &c) in cands.iter().enumerate() {
            hit |= u32::from(x ^ y == c) << j;
        }
    }
    hit
}

/// `diagonal::pairs_hit` on runs wider than u16: each pair's XOR compared
/// with every candidate.
pub(crate) fn pairs_hit_wide<V: Value>(
    lo: &[V],
    partners: &[V],
    cands: &[u32; HIT_CANDIDATES],
) -> u32 {
    let mut hit = 0;
    for (a, b) in lo.iter().zip(partners) {
        let x = a.get() ^ b.get();
        for (j, &c) in cands.iter().enumerate() {
            if x == c {
                hit |= 1 << j;
            }
        }
    }
    hit
}
