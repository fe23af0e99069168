//! The portable path of `pairs::flag_pairs`: what every architecture
//! without a vector path gets, and the short runs of those that have one.

use crate::value::Value;

/// The portable path of `pairs::flag_pairs` (returning the OR of the XORs): 32
/// pairs a step, their XORs made in an array first (a loop the compiler
/// turns into the baseline vectors, SSE2 or NEON), then stored one by one.
pub(crate) fn flag_pairs<V: Value>(row: &mut [u8], lo: &[V], hi: &[V]) -> u32 {
    let mask = row.len() - 1;
    let base = row.as_mut_ptr();
    let mut or = 0;
    let n = lo.len();
    let mut k = 0;
    while k + 32 <= n {
        let a: &[V; 32] = lo[k..k + 32].try_into().expect("32 pairs");
        let b: &[V; 32] = hi[n - k - 32..n - k].try_into().expect("32 pairs");
        let x: [u32; 32] = std::array::from_fn(|j| a[j].get() ^ b[31 - j].get());
        or |= x.iter().fold(0, |o, &v| o | v);
        for v in x {
            // SAFETY: masked below row.len().
            unsafe { *base.add(v as usize & mask) = 1 };
        }
        k += 32;
    }
    for (a, b) in lo[k..].iter().zip(hi[..n - k].iter().rev()) {
        let x = a.get() ^ b.get();
        or |= x;
        // SAFETY: masked below row.len().
        unsafe { *base.add(x as usize & mask) = 1 };
    }
    or
}
