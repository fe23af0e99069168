//! Engines that compute Grundy sequences, interchangeable behind [`Engine`].
//!
//! An engine is handed a slice whose first `from` values are known and fills
//! in the rest. It keeps whatever state it likes between calls, but must be
//! able to start from any prefix (a resumed store hands it one), so the
//! values themselves are the only state that has to survive a restart.

pub mod api;
pub mod candidates;
pub mod chooser;
pub mod diagonal;
pub mod helper;
pub mod mask;
pub mod reference;
pub mod sparse;
pub mod split3;
pub mod tuning;

use crate::code::Code;

pub use api::{compute, Engine, EngineInfo, Overflow};
// The old path, for a test in src/store/checkpoint.rs.
#[cfg(test)]
pub(crate) use api::fit;
pub use diagonal::Diagonal;
pub use mask::{Mask, MaskSpec, RareClass};
pub use reference::Reference;
pub use sparse::{Halt, Sparse, SparseError, WindowState};

/// The engines a user can pick with `--engine`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// Sparse space with SIMD pair scans and threads: the fast engine.
    #[default]
    Sparse,
    /// Plain bitset mex over every option: the oracle.
    Reference,
}

impl EngineKind {
    pub fn build(self, code: &Code, threads: usize) -> Box<dyn Engine> {
        self.build_with(code, threads, MaskSpec::Auto)
            .expect("the automatic mask suits every game")
    }

    /// As [`build`](Self::build), with a `--mask` choice. Fails when the
    /// mask does not suit the game, and when a mask is asked of the
    /// reference engine, which has no sparse space to use it in.
    pub fn build_with(
        self,
        code: &Code,
        threads: usize,
        mask: MaskSpec,
    ) -> Result<Box<dyn Engine>, SparseError> {
        Ok(match self {
            EngineKind::Sparse => match Sparse::new(code, threads, mask) {
                Ok(e) => Box::new(e),
                // The summary then names the reference engine.
                Err(SparseError::Unsupported { .. }) => Box::new(Reference::new(code)),
                Err(e) => return Err(e),
            },
            EngineKind::Reference if matches!(mask, MaskSpec::Fixed(_)) => {
                return Err(SparseError::MaskWithoutSparse)
            }
            EngineKind::Reference => Box::new(Reference::new(code)),
        })
    }
}
