//! The portable paths: plain Rust, no intrinsics, what every architecture
//! without a vector path runs (the `scalar` path) and what the vector paths
//! leave to it (u32 values, sets too large for their registers). Each is
//! written for speed (blocked, branch-light, in shapes the compiler turns
//! into the baseline vectors); the reference twins beside each kernel's
//! dispatch are the plain statements the tests pin these to.

pub(crate) mod diagonal;
pub(crate) mod mex;
pub(crate) mod pairs;
pub(crate) mod runs;
pub(crate) mod witness;
