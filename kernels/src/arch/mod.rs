//! Code for one instruction set each, as memchr's `arch/` and BLAKE3's
//! platform modules keep it: `x86_64/avx2`, `x86_64/avx512` and
//! `aarch64/neon`. Nothing here is called directly by the engine: each
//! kernel's module dispatches on [`crate::isa`] and keeps its portable
//! path and its reference twin beside the dispatch.

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

/// Sets byte `p[o] = 1` for every 16-bit offset `o` packed four to a word
/// in `offsets` (as a vector store leaves them): taken out four at a time
/// through a general register, where extracting lane by lane costs two
/// uops an offset, one of them on the shuffle port (measured on the far
/// flags of 0.6 with AVX-512, run by run: 0.92 of the time), and reloading
/// each from memory more. Every vector path's pair flags end here, and
/// the far flags of a call with few runs ([`ROW_BATCH_MIN`]).
///
/// # Safety
/// Every `p + o` must be writable.
#[inline(always)]
#[allow(dead_code)] // no vector path on other architectures
pub(crate) unsafe fn flag_offsets(p: *mut u8, offsets: &[u64]) {
    for &w in offsets {
        *p.add((w & 0xffff) as usize) = 1;
        *p.add((w >> 16 & 0xffff) as usize) = 1;
        *p.add((w >> 32 & 0xffff) as usize) = 1;
        *p.add((w >> 48) as usize) = 1;
    }
}

/// Runs whose offsets [`flag_rows`] takes at a time: a batch's offsets
/// (64 runs × 32 rows × 2 bytes, 4 KiB) stay in the L1 cache.
#[allow(dead_code)] // no vector path on other architectures
pub(crate) const ROW_BATCH: usize = 64;

/// Fewer runs than this in a call are stored run by run, each from its
/// vector ([`flag_offsets`]), not through [`flag_rows`]: a call with one
/// run (a run cut short at a tile's edge, the most frequent call on two
/// threads) row by row is 32 loops of one store, and through the batch
/// it cost `0.6` 2–3% on two threads (AMD EPYC Zen 5, `OCTAL_ISA=avx2`,
/// to 10^7).
#[allow(dead_code)] // no vector path on other architectures
pub(crate) const ROW_BATCH_MIN: usize = 8;

/// Sets byte `p[o[t]] = 1` for every offset of `offsets` (a run's 32
/// offsets each, one per row `t` of a group), row by row: every run's
/// store into row 0, then into row 1, …. Made run by run, the stores
/// stride the whole group (16 KiB of rows of 512); row by row, 64 in a
/// row land in one row of a few hundred bytes, which the L1 cache takes
/// faster (AMD EPYC Zen 5: 5.4 against 4.0 G flags a second on rows of
/// 512, measured apart from the engine; at 32 runs a batch, no gain).
/// The far flags of every vector path end here (but for calls with
/// fewer than [`ROW_BATCH_MIN`] runs).
///
/// # Safety
/// Every `p + o[t]` must be writable.
#[inline(always)]
#[allow(dead_code)] // no vector path on other architectures
pub(crate) unsafe fn flag_rows(p: *mut u8, offsets: &[[u16; 32]]) {
    for t in 0..32 {
        for o in offsets {
            *p.add(*o.get_unchecked(t) as usize) = 1;
        }
    }
}
