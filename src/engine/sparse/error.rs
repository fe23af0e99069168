//! Why the sparse engine cannot run a game or an option: its error type,
//! a leaf every caller of `Sparse::new` matches on.

/// Why an engine cannot run a game or an option.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SparseError {
    /// Moves this engine does not know (e.g. three-heap splits): callers
    /// fall back to the reference engine rather than compute wrong values.
    #[error("the sparse engine does not support the moves of {code}")]
    Unsupported { code: String },
    #[error(
        "mask {mask}: position parity needs all split distances of {code} to have the same parity"
    )]
    PositionParity { mask: String, code: String },
    #[error("--mask applies to the sparse engine only; the reference engine scans every pair (drop --mask or --engine reference)")]
    MaskWithoutSparse,
}
