//! Why an atlas cannot be made: a leaf every part of the atlas reports
//! through.

use std::path::PathBuf;

use crate::store::StoreError;

/// Why an atlas cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum AtlasError {
    /// A census, a row, a certificate or the site directory that cannot
    /// be used as given.
    #[error("{}: {why}", path.display())]
    Input { path: PathBuf, why: String },
    #[error("{} line {line}: {why}", path.display())]
    Row {
        path: PathBuf,
        line: usize,
        why: String,
    },
    /// A row that the values of its game contradict.
    #[error("census row {code}: {why}")]
    Disagrees { code: String, why: String },
    #[error(transparent)]
    Store(StoreError),
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl AtlasError {
    /// Whether the error is in what the user gave (exit 2).
    pub fn is_input(&self) -> bool {
        match self {
            AtlasError::Input { .. } | AtlasError::Row { .. } | AtlasError::Disagrees { .. } => {
                true
            }
            AtlasError::Store(e) => {
                e.is_input() || matches!(e, StoreError::Output { .. } | StoreError::InUse(_))
            }
            AtlasError::Io { .. } => false,
        }
    }
}
