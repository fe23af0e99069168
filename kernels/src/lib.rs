//! The hot loops of the octal engine, kept apart from everything else so
//! they can be read, tested and tuned on their own.
//!
//! Every kernel with a SIMD (or autovectorised) path has a scalar twin, and
//! the tests pin the two equal on random inputs.

pub mod mex;
pub mod pairs;
pub mod value;
pub mod witness;
pub mod xor_translate;

pub use value::Value;
