//! The game's moves as the sparse engine uses them: the non-split options
//! of a heap, the split distances and which pairs they leave, and where a
//! heap's options are flagged ([`Marks`]).

use octal_kernels::pairs::{flag_xor_gather, xor_gather_bits};
use octal_kernels::Value;

use super::pairs::Halves;
use crate::code::Rules;
use crate::engine::mask::split_parity;

/// The moves of one game, split by how the engine treats them.
pub(super) struct Moves {
    /// A heap of exactly `i` may be removed whole.
    pub(super) take_all: Vec<usize>,
    /// Take `i`, leave one heap.
    pub(super) take_leave_one: Vec<usize>,
    /// Take `i`, leave two heaps: the split distances.
    pub(super) splits: Vec<usize>,
    /// Which pairs each split leaves (all, or only unequal ones).
    pub(super) halves: Halves,
    /// A split distance (all share its parity when position parity is on).
    pub(super) i0: usize,
    /// Whether masks may use position parity.
    pub(super) allow_pp: bool,
}

impl Moves {
    /// The moves of `rules`; `None` for three-heap splits, which this
    /// engine does not know.
    pub(super) fn new(rules: Rules) -> Option<Moves> {
        if rules.has_split3() {
            return None;
        }
        // Exhaustive on purpose: a new kind of move must be taught to this
        // engine before it compiles, never silently ignored.
        let Rules {
            take_all,
            take_leave_one,
            take_split,
            take_split3: _,
            unequal_splits,
        } = rules;
        let (i0, allow_pp) = split_parity(&take_split);
        Some(Moves {
            take_all,
            take_leave_one,
            splits: take_split,
            halves: Halves { unequal_splits },
            i0,
            allow_pp,
        })
    }

    /// Options of heap `n` that are not splits, flagged in `row`.
    #[inline]
    pub(super) fn flag_simple(&self, n: usize, g: impl Fn(usize) -> u32, row: &mut impl Marks) {
        for &i in &self.take_all {
            if n == i {
                row.mark(0);
            }
        }
        for &i in &self.take_leave_one {
            if n > i {
                row.mark(g(n - i));
            }
        }
    }
}

/// Where a heap's options are flagged: a row of a byte per value, or (for
/// rows of up to 64 values) the bits of one register.
pub(super) trait Marks {
    /// Flags value `v` (below the row's width).
    fn mark(&mut self, v: u32);
    /// Flags `xs[j] ⊕ g[top − rs[j]]` for every `j`.
    fn gather<V: Value>(&mut self, xs: &[u32], rs: &[usize], g: &[V], top: usize);
}

impl Marks for &mut [u8] {
    #[inline]
    fn mark(&mut self, v: u32) {
        self[v as usize] = 1;
    }
    #[inline]
    fn gather<V: Value>(&mut self, xs: &[u32], rs: &[usize], g: &[V], top: usize) {
        flag_xor_gather(self, xs, rs, g, top);
    }
}

impl Marks for u64 {
    #[inline]
    fn mark(&mut self, v: u32) {
        debug_assert!(v < 64);
        *self |= 1 << (v & 63);
    }
    #[inline]
    fn gather<V: Value>(&mut self, xs: &[u32], rs: &[usize], g: &[V], top: usize) {
        *self |= xor_gather_bits(xs, rs, g, top);
    }
}
