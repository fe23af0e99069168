//! aarch64: the NEON paths (Advanced SIMD, present on every aarch64 chip
//! the engine targets).

pub(crate) mod neon;
