//! The integer widths a Grundy sequence is stored in.
//!
//! Sequences start as `u16` (2 bytes a value) and are widened to `u32` only
//! when a value ≥ 65536 appears, so every kernel is generic over [`Value`].

/// An unsigned width that holds Grundy values.
pub trait Value: Copy + Default + Eq + Ord + Send + Sync + std::fmt::Debug + 'static {
    /// The largest value this width holds.
    const MAX: u32;
    /// Bytes per value.
    const BYTES: usize;
    /// Widens to `u32`.
    fn get(self) -> u32;
    /// Narrows from `u32`; the caller has checked `v <= Self::MAX`.
    fn from_u32(v: u32) -> Self;
}

impl Value for u16 {
    const MAX: u32 = u16::MAX as u32;
    const BYTES: usize = 2;
    #[inline(always)]
    fn get(self) -> u32 {
        self as u32
    }
    #[inline(always)]
    fn from_u32(v: u32) -> Self {
        v as u16
    }
}

impl Value for u32 {
    const MAX: u32 = u32::MAX;
    const BYTES: usize = 4;
    #[inline(always)]
    fn get(self) -> u32 {
        self
    }
    #[inline(always)]
    fn from_u32(v: u32) -> Self {
        v
    }
}
