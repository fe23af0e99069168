//! What the sparse engine tells a windowed run (`src/window/`): the heap
//! it could not decide from the values kept ([`Halt`]), and what of it a
//! checkpoint keeps ([`WindowState`]).

use crate::engine::mask::Mask;

/// A heap a windowed run could not decide from the values it keeps (see
/// `Sparse::keep_window`): `values` values of G(at)'s class, below the
/// least value of the other class that no option reaches, have no
/// witness among the kept split pairs, and the pairs that are not kept
/// might hold one. A new rare position past the prefix always ends here
/// (its value has no witness at all), so the rare positions of a
/// windowed run all lie in its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Halt {
    pub at: usize,
    pub values: u32,
}

/// The engine's state in a windowed run, for its checkpoints: what it
/// derived from all the values, which a resumed run no longer has.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WindowState {
    pub built: u64,
    pub max: u32,
    /// The histogram of values by heap parity (see [`Histogram`](crate::engine::mask::Histogram)).
    pub hist: [Vec<u64>; 2],
    /// The frozen mask: its bits and whether it uses position parity.
    pub mask: (u32, bool),
    /// The rare positions, all in the kept prefix.
    pub rare: Vec<u64>,
}

impl WindowState {
    /// The frozen mask.
    pub fn mask(&self) -> Mask {
        Mask {
            bits: self.mask.0,
            pp: self.mask.1,
        }
    }
}
