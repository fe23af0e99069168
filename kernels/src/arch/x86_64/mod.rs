//! x86-64: the AVX2 paths (every x86-64 chip since 2013) and the AVX-512
//! paths (F and BW; VBMI, VBMI2 and BITALG where a kernel needs them).
//!
//! Every function under `avx2/` is compiled for AVX2, POPCNT and BMI1, and
//! may only run where [`crate::isa::Features::avx2`] holds; every one
//! under `avx512/` for AVX-512 F and BW and those three, where
//! [`crate::isa::Features::avx512`] holds (detection makes the second imply
//! the first). "The avx2 features" and "the avx512 features" in their
//! `# Safety` sections mean exactly these.

pub(crate) mod avx2;
pub(crate) mod avx512;
