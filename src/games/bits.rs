//! The small pieces both exact searches use: the set of option values
//! whose mex is a position's value ([`Seen`]), and a fast hash map for
//! bitboard keys ([`BitMap`]).

use std::hash::{BuildHasherDefault, Hasher};

/// The values of a position's options (all below 256), for their mex: a
/// bitvec array on the stack.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Seen(bitvec::BitArr!(for 256, in u64));

impl Seen {
    #[inline]
    pub(crate) fn insert(&mut self, v: u8) {
        self.0.set(v as usize, true);
    }

    /// The smallest value not in the set.
    #[inline]
    pub(crate) fn mex(&self) -> u8 {
        self.0
            .first_zero()
            .expect("a position with at most 128 squares has fewer than 256 option values")
            as u8
    }
}

/// A fast hash for bitboard keys (multiply-rotate, as in FxHash); the keys
/// are our own positions, so no protection against crafted collisions is
/// needed.
#[derive(Default, Clone, Copy)]
pub(crate) struct BitHasher(u64);

impl Hasher for BitHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // Fold the well-mixed high bits into the low ones the table uses.
        self.0 ^ (self.0 >> 29)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    #[inline]
    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
    }

    #[inline]
    fn write_u8(&mut self, x: u8) {
        self.write_u64(x as u64);
    }
}

pub(crate) type BitMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<BitHasher>>;
