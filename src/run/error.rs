//! Why a run cannot be made: bad input ([`JobError`]), or, for a run kept
//! in a store, the store's or the engine's failure ([`RunError`]). The
//! store knows only its file format, so the run's errors wrap its errors
//! rather than the other way round.

use thiserror::Error;

use crate::engine::SparseError;
use crate::store::StoreError;

/// Input that cannot be run, reported with exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JobError {
    #[error("--to must be at least 1")]
    Empty,
    #[error("{values} values need {need} of memory, but this machine has {have}; a sparse-space game runs in a window of fixed size whatever --to (--window 2^24: 40 MiB)")]
    TooBig {
        values: u64,
        need: String,
        have: String,
    },
    #[error(transparent)]
    Engine(#[from] SparseError),
}

/// Why a run kept in a store stopped with an error: the store's (a full
/// disk, damage) or the engine's (a --mask it cannot use).
#[derive(Debug, Error)]
pub enum RunError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Job(#[from] JobError),
}

impl From<SparseError> for RunError {
    fn from(e: SparseError) -> RunError {
        RunError::Job(JobError::Engine(e))
    }
}
