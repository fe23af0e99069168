//! The split pairs of one heap: a run of the sequence against a reversed
//! run ([`flag_pairs`]), or a list of rare heaps against their partners
//! ([`flag_xor_gather`], [`xor_gather_bits`]), flagged in the heap's row.
//!
//! The gathers read one partner at a random place per pair, so they are
//! one portable loop on every path.

use crate::platform::{self, isa};
use crate::value::Value;
use isa::Isa;

/// For every `k < lo.len()`: `row[lo[k] ⊕ hi[hi.len() − 1 − k]] = 1`.
///
/// The split values of one heap, flagged in its row (`row.len()` a power
/// of two above every XOR). `lo` and `hi` have the same length.
#[inline]
pub fn flag_pairs<V: Value>(row: &mut [u8], lo: &[V], hi: &[V]) {
    flag_pairs_at(isa::level(), row, lo, hi);
}

/// [`flag_pairs`] on the path `isa` (which the host must have).
#[inline]
pub fn flag_pairs_on<V: Value>(isa: Isa, row: &mut [u8], lo: &[V], hi: &[V]) {
    flag_pairs_at(isa::on_host_level(isa), row, lo, hi);
}

#[inline]
fn flag_pairs_at<V: Value>(level: isa::Level, row: &mut [u8], lo: &[V], hi: &[V]) {
    let or = flag_pairs_or(level, row, lo, hi);
    debug_assert!((or as usize) < row.len(), "flag_pairs: XOR out of range");
}

/// [`flag_pairs`] at `level`, returning the OR of every XOR (so a caller
/// can check cheaply that all of them were below `row.len()`: above, they
/// were wrapped into the row, never written outside it).
#[inline]
fn flag_pairs_or<V: Value>(level: isa::Level, row: &mut [u8], lo: &[V], hi: &[V]) -> u32 {
    assert_eq!(lo.len(), hi.len(), "flag_pairs: runs of different lengths");
    assert!(
        row.len().is_power_of_two(),
        "flag_pairs: row not a power of two"
    );
    platform::flag_pairs(level, row, lo, hi)
}

/// Reference twin of [`flag_pairs`].
pub fn flag_pairs_reference<V: Value>(row: &mut [u8], lo: &[V], hi: &[V]) {
    for (a, b) in lo.iter().zip(hi.iter().rev()) {
        row[(a.get() ^ b.get()) as usize] = 1;
    }
}

/// For every `j < xs.len()`: `row[xs[j] ⊕ g[top − rs[j]]] = 1`.
///
/// The pairs of one heap with a list of (rare) heaps `rs` whose values are
/// `xs`: the partner of `rs[j]` is `top − rs[j]`. Every `rs[j]` must be in
/// `1..=top`, `top ≤ g.len()`, and every XOR below `row.len()`, a power of
/// two. The row is indexed through that mask, without a bounds check, and
/// the partner with one compare: the gain over the twin.
#[inline]
pub fn flag_xor_gather<V: Value>(row: &mut [u8], xs: &[u32], rs: &[usize], g: &[V], top: usize) {
    assert_eq!(
        xs.len(),
        rs.len(),
        "flag_xor_gather: lists of different lengths"
    );
    assert!(
        row.len().is_power_of_two(),
        "flag_xor_gather: row not a power of two"
    );
    let mask = row.len() - 1;
    let g = &g[..top];
    for (&x, &r) in xs.iter().zip(rs) {
        // Heaps outside 1..=top index past g (wrapping) and panic.
        let v = g[top.wrapping_sub(r)].get();
        let j = ((x ^ v) as usize) & mask;
        debug_assert_eq!(j, (x ^ v) as usize);
        row[j] = 1;
    }
}

/// [`flag_xor_gather`] for a row of at most 64 values, kept in a register:
/// returns the bits `xs[j] ⊕ g[top − rs[j]]` (each below 64) set.
#[inline]
pub fn xor_gather_bits<V: Value>(xs: &[u32], rs: &[usize], g: &[V], top: usize) -> u64 {
    assert_eq!(
        xs.len(),
        rs.len(),
        "xor_gather_bits: lists of different lengths"
    );
    let g = &g[..top];
    // Two accumulators, so that consecutive ORs do not wait for each other.
    let (mut a, mut b) = (0u64, 0u64);
    let mut pairs = xs.chunks_exact(2).zip(rs.chunks_exact(2));
    for (x, r) in &mut pairs {
        // Heaps outside 1..=top index past g (wrapping) and panic.
        a |= 1 << ((x[0] ^ g[top.wrapping_sub(r[0])].get()) & 63);
        b |= 1 << ((x[1] ^ g[top.wrapping_sub(r[1])].get()) & 63);
    }
    if xs.len() % 2 == 1 {
        let j = xs.len() - 1;
        a |= 1 << ((xs[j] ^ g[top.wrapping_sub(rs[j])].get()) & 63);
    }
    a | b
}

/// Reference twin of [`flag_xor_gather`].
pub fn flag_xor_gather_reference<V: Value>(
    row: &mut [u8],
    xs: &[u32],
    rs: &[usize],
    g: &[V],
    top: usize,
) {
    for (&x, &r) in xs.iter().zip(rs) {
        row[(x ^ g[top - r].get()) as usize] = 1;
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn xor_gather_bits_matches_flag_xor_gather(
            g in proptest::collection::vec(0u16..64, 1..200),
            picks in proptest::collection::vec((0u32..64, any::<usize>()), 0..100),
            top_pick in any::<usize>(),
        ) {
            let top = 1 + top_pick % g.len();
            let (xs, rs): (Vec<u32>, Vec<usize>) =
                picks.into_iter().map(|(x, r)| (x, 1 + r % top)).unzip();
            let mut row = vec![0u8; 64];
            flag_xor_gather_reference(&mut row, &xs, &rs, &g, top);
            let want = (0..64).filter(|&v| row[v] != 0).fold(0u64, |b, v| b | 1 << v);
            prop_assert_eq!(xor_gather_bits(&xs, &rs, &g, top), want);
        }
    }

    proptest! {
        #[test]
        fn flag_pairs_matches_scalar(
            bits in 6u32..=14,
            pairs in proptest::collection::vec((any::<u16>(), any::<u16>()), 0..200),
        ) {
            // Rows of 64 to 16384 values, each XOR below the row's width.
            let width = 1usize << bits;
            let (lo, hi): (Vec<u16>, Vec<u16>) = pairs
                .into_iter()
                .map(|(a, b)| (a % width as u16, b % width as u16))
                .unzip();
            let mut b = vec![0u8; width];
            flag_pairs_reference(&mut b, &lo, &hi);
            let mut a = b.clone();
            // The OR of the XORs, which callers check the range by.
            let or = (0..lo.len()).fold(0, |o, k| o | u32::from(lo[k] ^ hi[hi.len() - 1 - k]));
            for isa in isa::available() {
                a.fill(0);
                flag_pairs_on(isa, &mut a, &lo, &hi);
                prop_assert_eq!(&a, &b, "{}", isa);
                a.fill(0);
                prop_assert_eq!(flag_pairs_or(isa.level(), &mut a, &lo, &hi), or, "{}", isa);
            }
            // u32 values: the portable path of any other value type.
            let (lo32, hi32): (Vec<u32>, Vec<u32>) = lo
                .iter()
                .zip(&hi)
                .map(|(&a, &b)| (u32::from(a), u32::from(b)))
                .unzip();
            a.fill(0);
            flag_pairs_on(Isa::Scalar, &mut a, &lo32, &hi32);
            prop_assert_eq!(&a, &b, "u32");
            let want: std::collections::BTreeSet<usize> = (0..lo.len())
                .map(|k| (lo[k] ^ hi[hi.len() - 1 - k]) as usize)
                .collect();
            let got: std::collections::BTreeSet<usize> = (0..width).filter(|&j| a[j] != 0).collect();
            prop_assert_eq!(got, want);
        }
    }

    /// One pair with an XOR, the others 0: the OR names it, wherever in
    /// a step of 32 (or the tail) it stands and whichever bit it has.
    #[test]
    fn flag_pairs_or_takes_every_lane() {
        let mut row = vec![0u8; 1 << 16];
        for isa in isa::available() {
            for n in [32, 64, 70] {
                for j in 0..n {
                    for bit in [0, 5, 11, 15] {
                        let (mut lo, hi) = (vec![0u16; n], vec![0u16; n]);
                        lo[j] = 1 << bit;
                        let or = flag_pairs_or(isa.level(), &mut row, &lo, &hi);
                        assert_eq!(or, 1 << bit, "{isa}: pair {j} of {n}");
                    }
                }
            }
        }
    }

    proptest! {
        #[test]
        fn flag_xor_gather_matches_scalar(
            g in proptest::collection::vec(0u16..64, 1..200),
            picks in proptest::collection::vec((0u32..64, any::<usize>()), 0..100),
            top_pick in any::<usize>(),
        ) {
            let top = top_pick % (g.len() + 1);
            let mut xs = Vec::new();
            let mut rs = Vec::new();
            if top >= 1 {
                for &(x, r) in &picks {
                    xs.push(x);
                    rs.push(1 + r % top);
                }
            }
            let mut a = vec![0u8; 64];
            let mut b = a.clone();
            flag_xor_gather(&mut a, &xs, &rs, &g, top);
            flag_xor_gather_reference(&mut b, &xs, &rs, &g, top);
            prop_assert_eq!(&a, &b);
            let want: std::collections::BTreeSet<usize> = xs
                .iter()
                .zip(&rs)
                .map(|(&x, &r)| (x ^ g[top - r] as u32) as usize)
                .collect();
            let got: std::collections::BTreeSet<usize> = (0..64).filter(|&j| a[j] != 0).collect();
            prop_assert_eq!(got, want);
        }
    }
}
