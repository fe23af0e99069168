//! What a game command cannot take ([`GameError`]), with the limits its
//! messages state: a leaf, so the games use it without importing each other
//! or their parent.

use thiserror::Error;

/// Largest Cookie Cutter board the search accepts: one bit per square in a
/// `u128`.
pub const MAX_CELLS: usize = 128;
/// Largest finite cutter accepted (its octal code has k+1 digits).
pub const MAX_K: u64 = 1 << 20;
/// Largest digraph the exact Vertex Deletion search accepts (its memo has
/// 2^n bytes).
pub const MAX_VERTICES: usize = 24;

/// Input a game command cannot take, reported with exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    #[error("grid {0:?}: expected ROWSxCOLS with positive sizes, e.g. 3x5")]
    BadGrid(String),
    #[error(
        "cutter size {0:?}: expected a positive integer, or 'inf' for an arbitrarily large cutter"
    )]
    BadCutter(String),
    #[error("cutter size {0} is too large (at most {max}; use --k inf for an arbitrarily large cutter)", max = MAX_K)]
    CutterTooLarge(u64),
    #[error("board {rows}x{cols} has {cells} squares; the exact search handles at most {max} (strips 1xN and Nx1 go through the octal engine)", max = MAX_CELLS)]
    BoardTooLarge { rows: u64, cols: u64, cells: u128 },
    #[error("arc list {list:?}: {why}")]
    BadArcs { list: String, why: String },
    #[error("{0} vertices: the exact search handles at most {max}", max = MAX_VERTICES)]
    TooManyVertices(u64),
    #[error("path lengths {0:?}: expected comma-separated counts such as 5,8,13")]
    BadPaths(String),
}
