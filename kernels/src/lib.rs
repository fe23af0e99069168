//! The hot loops of the octal engine, kept apart from everything else so
//! they can be read, tested and tuned on their own.
//!
//! Each kernel's module holds its dispatch, its portable path and its
//! reference twin; the vector paths live under `arch/`, one folder per
//! instruction set, and [`isa`] decides once which of them runs. The tests
//! pin every path the host has to the twin on random inputs.

mod arch;
pub mod diagonal;
pub mod isa;
pub mod mex;
pub mod pairs;
pub mod runs;
pub mod value;
pub mod witness;
pub mod xor_translate;

pub use isa::Isa;
pub use value::Value;

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
