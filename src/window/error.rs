//! Why a windowed run cannot start or go on.

use thiserror::Error;

use crate::engine::SparseError;
use crate::store::StoreError;

/// Why a windowed run cannot start or go on.
#[derive(Debug, Error)]
pub enum WindowError {
    /// The game has no sparse space (or moves the engine cannot window).
    #[error("{code} cannot run in a window: {why}; every split pair is needed, and so is every value: run it without --window")]
    Unsupported { code: String, why: String },
    /// The window or prefix asked for cannot work.
    #[error("{0}")]
    Size(String),
    /// A target below what a checkpointed run has done: the window keeps
    /// too little to summarise it.
    #[error("{path} has done {done} values and a window keeps too few to summarise the first {to}; ask for {done} or more")]
    Below { path: String, done: u64, to: u64 },
    /// An export asked of a run already begun (its first values are gone).
    #[error("{0} is a run already begun; an export is for a new one (`octal export` cannot read a window; start anew with another store)")]
    ExportBegun(String),
    #[error("cannot reserve the address range of {values} values ({error}): a windowed run reserves 2 bytes of addresses a value, without memory; use a smaller --to (about 2^45 at most on x86-64 Linux)")]
    Reserve { values: u64, error: std::io::Error },
    #[error("memory for the window: {what}: {error}")]
    Memory {
        what: &'static str,
        error: std::io::Error,
    },
    /// A prefix recomputed from scratch does not match the values kept.
    #[error("the prefix recomputed from G(0) differs from the values kept at G({0}): a fault in this machine or the engine; the checkpoint is kept")]
    Recompute(u64),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The engine refuses the game (a --mask it cannot use).
    #[error(transparent)]
    Engine(#[from] SparseError),
}

impl WindowError {
    /// Whether the user's input is at fault (exit code 2).
    pub fn is_input(&self) -> bool {
        match self {
            WindowError::Unsupported { .. }
            | WindowError::Size(_)
            | WindowError::Below { .. }
            | WindowError::ExportBegun(_)
            | WindowError::Reserve { .. } => true,
            WindowError::Memory { .. } | WindowError::Recompute(_) => false,
            WindowError::Store(e) => e.is_input(),
            WindowError::Engine(_) => true,
        }
    }
}
