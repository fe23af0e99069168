//! What the portable paths and the `arch/` paths share, at the bottom of
//! the crate: they depend on this module and this module on nothing above
//! it (only [`crate::value`]), so no path calls back into the kernel that
//! dispatches to it.
//!
//! The kernels' public modules re-export the constants and types a caller
//! needs ([`SIMD_WORDS`], [`HIT_CANDIDATES`], [`rows::Check`], …).

pub(crate) mod rows;

use crate::value::Value;

/// Most set words the vector paths of `witness::strike_xors` take (1024
/// values: two registers on AVX-512); larger sets take the portable path.
pub const SIMD_WORDS: usize = 16;

/// Pairs the portable path of `witness::strike_xors` tests before it looks
/// at what they hit: a block's membership tests have no branch, and a
/// block that hit nothing (most of them, once the first few thousand pairs
/// have struck the easy values) is never looked at again.
pub const BLOCK: usize = 64;

/// How many candidates `diagonal::pairs_hit` compares each pair's XOR with.
pub const HIT_CANDIDATES: usize = 4;

/// The two runs as `u16` slices, when `V` is `u16`: the width every vector
/// path takes.
#[inline(always)]
pub(crate) fn as_u16<'a, V: Value>(lo: &'a [V], hi: &'a [V]) -> Option<(&'a [u16], &'a [u16])> {
    if std::any::TypeId::of::<V>() == std::any::TypeId::of::<u16>() {
        // SAFETY: V is u16, so the slices are u16 slices.
        Some(unsafe {
            (
                std::slice::from_raw_parts(lo.as_ptr() as *const u16, lo.len()),
                std::slice::from_raw_parts(hi.as_ptr() as *const u16, hi.len()),
            )
        })
    } else {
        None
    }
}

/// Witness sets of at most this many values are struck by comparing each
/// XOR with each value (the AVX2 path's `strike_few`, which the AVX-512
/// levels take too): cheaper than a table lookup a lane, which costs the
/// same whatever the set holds (docs/performance.md).
pub(crate) const FEW_VALUES: usize = 4;

/// Whether `set` holds at most [`FEW_VALUES`] values.
#[inline]
pub(crate) fn has_few_values(set: &[u64]) -> bool {
    set.iter().map(|w| w.count_ones()).sum::<u32>() as usize <= FEW_VALUES
}

/// The values of a bitset (value `v` is bit `v % 64` of word `v / 64`), in
/// increasing order.
#[inline]
pub(crate) fn members(set: &[u64]) -> impl Iterator<Item = usize> + '_ {
    set.iter().enumerate().flat_map(|(w, &word)| {
        let mut m = word;
        std::iter::from_fn(move || {
            (m != 0).then(|| {
                let v = 64 * w + m.trailing_zeros() as usize;
                m &= m - 1;
                v
            })
        })
    })
}

/// The first index `j` with `flags[j] == 0`, or `flags.len()`: the byte
/// by byte end of every path of `mex::first_unflagged`.
#[inline]
pub(crate) fn first_zero(flags: &[u8]) -> usize {
    flags.iter().position(|&f| f == 0).unwrap_or(flags.len())
}

/// The byte by byte end of every path of `mex::unflagged_bits`: sets the
/// bit of each unflagged byte from `j` on (the bits are clear on entry).
#[inline]
pub(crate) fn unflagged_tail(flags: &[u8], j: usize, out: &mut [u64]) {
    for (j, &f) in flags.iter().enumerate().skip(j) {
        if f == 0 {
            out[j / 64] |= 1 << (j % 64);
        }
    }
}

/// Sets byte `p[o] = 1` for every 16-bit offset `o` packed four to a word
/// in `offsets` (as a vector store leaves them): taken out four at a time
/// through a general register, where extracting lane by lane costs two
/// uops an offset, one of them on the shuffle port, and reloading each
/// from memory more (docs/performance.md). Every vector path's pair flags
/// end here, and the far flags of a call with few runs
/// ([`rows::ROW_BATCH_MIN`]).
///
/// # Safety
/// Every `p + o` must be writable.
#[inline(always)]
pub(crate) unsafe fn flag_offsets(p: *mut u8, offsets: &[u64]) {
    for &w in offsets {
        // SAFETY: each offset is one the caller vouches for (see above).
        unsafe {
            *p.add((w & 0xffff) as usize) = 1;
            *p.add((w >> 16 & 0xffff) as usize) = 1;
            *p.add((w >> 32 & 0xffff) as usize) = 1;
            *p.add((w >> 48) as usize) = 1;
        }
    }
}
