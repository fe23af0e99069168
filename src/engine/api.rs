//! What every engine shares: the [`Engine`] trait, its summary facts and
//! its overflow, and the small helpers every engine's inner loop uses.
//! A leaf: the engines import it, and it imports none of them.

use octal_kernels::Value;
use thiserror::Error;

use super::mask::RareClass;

/// A value did not fit the width of the slice; `g[..at]` are good.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("G({at}) = {value} does not fit the current value width")]
pub struct Overflow {
    pub at: usize,
    pub value: u32,
}

/// Facts about an engine's run that go into summaries.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct EngineInfo {
    pub engine: &'static str,
    pub threads: usize,
    /// The sparse-space mask in use, if the engine has one.
    pub rare_mask: Option<u32>,
    /// How many positions n ≥ 1 are rare under that mask. Heap 0 is left
    /// out: it is never a part of a split, so the engine never pairs it.
    pub rare_positions: Option<u64>,
    /// The same count with heap 0 included when its value (0) is of the
    /// rare class, as the literature counts (1,584 for `0.6`, where
    /// `rare_positions` is 1,583).
    pub rare_positions_with_0: Option<u64>,
    pub last_rare_at: Option<u64>,
}

/// The two widths of [`Engine`]'s `extend`, for an engine whose own
/// `extend` is generic over the value type (every engine here).
macro_rules! extend_at_both_widths {
    () => {
        fn extend_u16(&mut self, g: &mut [u16], from: usize) -> Result<(), Overflow> {
            self.extend(g, from)
        }
        fn extend_u32(&mut self, g: &mut [u32], from: usize) -> Result<(), Overflow> {
            self.extend(g, from)
        }
    };
}
pub(crate) use extend_at_both_widths;

/// Computes Grundy values of one game.
pub trait Engine: Send {
    /// Fills `g[from..]`, given that `g[..from]` hold G(0), …, G(from−1).
    fn extend_u16(&mut self, g: &mut [u16], from: usize) -> Result<(), Overflow>;
    /// As [`extend_u16`](Engine::extend_u16), for `u32` values.
    fn extend_u32(&mut self, g: &mut [u32], from: usize) -> Result<(), Overflow>;
    /// Name, threads and sparse-space facts for the summary.
    fn info(&self) -> EngineInfo;
    /// The rare positions n ≥ 1 under the sparse-space mask in use, in
    /// order: none for engines without one.
    fn rare_positions(&self) -> Vec<u64> {
        Vec::new()
    }
    /// Which values make a position rare: none for engines without a
    /// sparse-space mask.
    fn rare_class(&self) -> Option<RareClass> {
        None
    }
}

/// Computes G(0), …, G(n−1) as `u32`s with the given engine: the easy
/// entry point for tests and small jobs.
pub fn compute(engine: &mut dyn Engine, n: usize) -> Vec<u32> {
    let mut g16 = vec![0u16; n];
    match engine.extend_u16(&mut g16, 0) {
        Ok(()) => g16.into_iter().map(u32::from).collect(),
        Err(Overflow { at, .. }) => {
            let mut g32: Vec<u32> = g16.into_iter().map(u32::from).collect();
            engine.extend_u32(&mut g32, at).expect("values fit in u32");
            g32
        }
    }
}

/// Every option value of a heap is below this bound when `max` is the
/// largest value so far: XORs of numbers below a power of two stay below it.
#[inline]
pub(crate) fn value_bound(max: u32) -> usize {
    (max as usize + 1).next_power_of_two().max(64)
}

/// Narrows `v` into `V`, or reports the overflow at heap `n`.
#[inline(always)]
pub(crate) fn fit<V: Value>(v: u32, n: usize) -> Result<V, Overflow> {
    if v <= V::MAX {
        Ok(V::from_u32(v))
    } else {
        Err(Overflow { at: n, value: v })
    }
}
