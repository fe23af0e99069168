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
/// the far flags of a call with few runs (`crate::runs::ROW_BATCH_MIN`).
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
