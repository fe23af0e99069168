//! Games from the thesis that reduce to octal games on some positions:
//! Cookie Cutter (strips are `0.33…37`, thesis Lemma 5.1.2) and Vertex
//! Deletion on digraphs (a directed path is `0.6`, Theorem 3.2.2).
//!
//! Each module has two halves: the reduction, which names the octal code and
//! heap so the octal engine answers, and an exact game-tree search written
//! without the reduction, which solves the positions the reduction does not
//! cover and checks it where both apply.

pub mod cookie_cutter;
pub mod vertex_deletion;

use std::hash::{BuildHasherDefault, Hasher};

use thiserror::Error;

/// Input a game command cannot take, reported with exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    #[error("grid {0:?}: expected ROWSxCOLS with positive sizes, e.g. 3x5")]
    BadGrid(String),
    #[error(
        "cutter size {0:?}: expected a positive integer, or 'inf' for an arbitrarily large cutter"
    )]
    BadCutter(String),
    #[error("cutter size {0} is too large (at most {max}; use --k inf for an arbitrarily large cutter)", max = cookie_cutter::MAX_K)]
    CutterTooLarge(u64),
    #[error("board {rows}x{cols} has {cells} squares; the exact search handles at most {max} (strips 1xN and Nx1 go through the octal engine)", max = cookie_cutter::MAX_CELLS)]
    BoardTooLarge { rows: u64, cols: u64, cells: u128 },
    #[error("arc list {list:?}: {why}")]
    BadArcs { list: String, why: String },
    #[error("{vertices} vertices: the exact search handles at most {max}")]
    TooManyVertices { vertices: u64, max: usize },
    #[error("path lengths {0:?}: expected comma-separated counts such as 5,8,13")]
    BadPaths(String),
}

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
