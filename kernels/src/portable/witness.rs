//! The portable path of `witness::strike_xors`: blocks of pairs tested
//! without a branch against a byte map of the set (u16 runs) or the set's
//! words, and only a block that hit looked at pair by pair.

use crate::generic::{as_u16, members, BLOCK, SIMD_WORDS};
use crate::value::Value;

/// Pairs of a block whose loads are ORed into one hit bit: a block that
/// hit is looked at again only in the groups that hit, which beats looking
/// at the whole block again (sizes compared in docs/performance.md).
const GROUP: usize = 8;

/// The portable path of `witness::strike_xors`: [`BLOCK`] pairs at a time, each
/// tested against the set without a branch, and only a block that hit
/// something struck pair by pair. For u16 runs and sets of at most
/// [`SIMD_WORDS`] words the test is one byte load from a map of every u16
/// value (a thread's 64 KiB: only the set's values are written, and only
/// the bytes of the values the pairs reach are read, the low ones for
/// most games); otherwise a load, a shift and a compare.
pub(crate) fn strike_xors<V: Value>(set: &mut [u64], lo: &[V], hi: &[V]) -> bool {
    let words = set.len();
    if words == 0 || set.iter().all(|&w| w == 0) {
        return true;
    }
    if let Some((lo, hi)) = as_u16(lo, hi).filter(|_| words <= SIMD_WORDS) {
        return PRESENT.with(|p| strike_bytes(&mut p.borrow_mut(), set, lo, hi));
    }
    let bits = (words * 64) as u32;
    let n = lo.len();
    let mut k = 0;
    while k < n {
        let end = (k + BLOCK).min(n);
        let (a, b) = (&lo[k..end], &hi[n - end..n - k]);
        let mut any = 0u64;
        for (x, y) in a.iter().zip(b.iter().rev()) {
            let v = x.get() ^ y.get();
            // Word v / 64 clamped into the set, and nothing where v is past it.
            let w = set[((v >> 6) as usize).min(words - 1)];
            any |= (w >> (v & 63)) & (v < bits) as u64;
        }
        if any != 0 && strike_pairs(set, a, b) {
            return true;
        }
        k = end;
    }
    false
}

thread_local! {
    /// A byte for every u16 value: 1 for the values of the set being
    /// struck, 0 elsewhere between calls.
    static PRESENT: std::cell::RefCell<Box<[u8; 1 << 16]>> =
        std::cell::RefCell::new(vec![0; 1 << 16].into_boxed_slice().try_into().expect("64 KiB"));
}

/// [`strike_xors`] with a byte map: `present` is all 0 on entry
/// and on return.
fn strike_bytes(present: &mut [u8; 1 << 16], set: &mut [u64], lo: &[u16], hi: &[u16]) -> bool {
    let mut left = 0u32;
    for v in members(set) {
        present[v] = 1;
        left += 1;
    }
    let n = lo.len();
    let mut k = 0;
    while k < n {
        let end = (k + BLOCK).min(n);
        let (a, b) = (&lo[k..end], &hi[n - end..n - k]);
        if let (Ok(a), Ok(b)) = (<&[u16; BLOCK]>::try_from(a), <&[u16; BLOCK]>::try_from(b)) {
            // A whole block: its XORs in an array first (a loop the
            // compiler turns into the baseline vectors), then the loads,
            // a bit of `hits` for each group of pairs that reached the set,
            // and only those groups looked at again (a block rescanned
            // pair by pair cost a chain of branches for each hit).
            let x: [u16; BLOCK] = std::array::from_fn(|j| a[j] ^ b[BLOCK - 1 - j]);
            let mut hits = 0u32;
            for (i, q) in x.chunks_exact(GROUP).enumerate() {
                // A tree of ORs: the loads do not wait for one another.
                let h = (present[q[0] as usize] | present[q[1] as usize])
                    | (present[q[2] as usize] | present[q[3] as usize])
                    | (present[q[4] as usize] | present[q[5] as usize])
                    | (present[q[6] as usize] | present[q[7] as usize]);
                hits |= u32::from(h != 0) << i;
            }
            while hits != 0 {
                let i = hits.trailing_zeros() as usize;
                hits &= hits - 1;
                if strike_present(present, set, &x[GROUP * i..GROUP * (i + 1)], &mut left) {
                    return true;
                }
            }
        } else {
            let mut x = [0u16; BLOCK];
            for (v, (p, q)) in x.iter_mut().zip(a.iter().zip(b.iter().rev())) {
                *v = p ^ q;
            }
            if strike_present(present, set, &x[..a.len()], &mut left) {
                return true;
            }
        }
        k = end;
    }
    // Unmark what is left.
    for v in members(set) {
        present[v] = 0;
    }
    false
}

/// Strikes the values `xs` that are marked in `present` (unmarking them);
/// true once the set's `left` values are all struck.
#[inline]
fn strike_present(
    present: &mut [u8; 1 << 16],
    set: &mut [u64],
    xs: &[u16],
    left: &mut u32,
) -> bool {
    for &x in xs {
        let v = x as usize;
        if present[v] != 0 {
            present[v] = 0;
            set[v / 64] &= !(1 << (v % 64));
            *left -= 1;
            if *left == 0 {
                return true;
            }
        }
    }
    false
}

/// Strikes from `set` every value `lo[k] ⊕ hi[hi.len() − 1 − k]` below
/// its bound, pair by pair; true as soon as the set is empty: a block of
/// [`strike_xors`] that hit something.
fn strike_pairs<V: Value>(set: &mut [u64], lo: &[V], hi: &[V]) -> bool {
    let mut left: u32 = set.iter().map(|w| w.count_ones()).sum();
    if left == 0 {
        return true;
    }
    let bits = set.len() * 64;
    for (a, b) in lo.iter().zip(hi.iter().rev()) {
        let x = (a.get() ^ b.get()) as usize;
        if x < bits {
            let bit = 1u64 << (x % 64);
            let w = &mut set[x / 64];
            if *w & bit != 0 {
                *w &= !bit;
                left -= 1;
                if left == 0 {
                    return true;
                }
            }
        }
    }
    false
}
