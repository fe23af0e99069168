//! Code for one instruction set each, as memchr's `arch/` keeps it:
//! `x86_64/avx2`, `x86_64/avx512` and `aarch64/neon`. Nothing here is
//! called by the kernels' public modules: `crate::platform` chooses a path
//! once per call, and the code here depends only on `crate::generic` (what
//! the portable paths share with it) and on `crate::value`; what it needs
//! of the portable path (NEON's witness blocks) the caller passes in.

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;
