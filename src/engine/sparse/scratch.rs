//! The buffers a heap is finished in, kept from heap to heap so that the
//! hot path allocates nothing: its byte row, its open values, its
//! witness set, the value classes of the block's rows and the cursors of
//! its near pairs.

use super::far::row_words;
use crate::engine::mask::Mask;

/// Scratch of the heap-by-heap phase; nothing in it outlives a block
/// except its capacity.
#[derive(Default)]
pub(super) struct Scratch {
    /// The current heap's other flags, a byte per value.
    pub(super) row8: Vec<u8>,
    /// The values of the current heap not flagged, as a bitset.
    pub(super) open: Vec<u64>,
    /// Bit `v` of `class[q]` is set when `v` has class `q` under the mask.
    pub(super) class: [Vec<u64>; 2],
    /// The values still looking for a witness, as a bitset.
    pub(super) set: Vec<u64>,
    /// Per split distance, how many rare heaps (a prefix of the sorted
    /// list) have their partner inside the block: it only grows along a
    /// block, so it is kept, not searched for.
    pub(super) cursors: Vec<usize>,
}

impl Scratch {
    /// Fills `class` for masks on values below `row`.
    pub(super) fn prepare_classes(&mut self, row: usize, mask: Mask) {
        for q in 0..2 {
            let c = &mut self.class[q];
            c.clear();
            c.resize(row_words(row), 0);
            for v in 0..row {
                if mask.parity(v as u32) == q as u32 {
                    c[v / 64] |= 1 << (v % 64);
                }
            }
        }
    }
}
