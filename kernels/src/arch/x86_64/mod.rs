//! x86-64: the AVX2 paths (every x86-64 chip since 2013) and the AVX-512
//! paths (F and BW; VBMI, VBMI2 and BITALG where a kernel needs them).

pub(crate) mod avx2;
pub(crate) mod avx512;
