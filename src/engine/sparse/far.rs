//! The far flags: the pairs of each rare heap with a partner before the
//! block, flagged for the whole block at once, tile by tile, as bit rows
//! (or, for half of the runs, checked against a few candidate values).
//!
//! Invariant: a far flag is set for value v at heap n only when some
//! pair (rare r, partner m) of n with both values known XORs to v; the
//! flags are exact up to each row's limit (`lims`), and values at or past
//! it are found by flagging those pairs one by one.

use std::cell::RefCell;
use std::ops::Range;

use octal_kernels::mex::unflagged_bits;
use octal_kernels::pairs::flag_pairs;
use octal_kernels::runs::{Check, Runs, CANDIDATES};
use octal_kernels::Value;

use super::pairs::{round_pairs, Halves, Kept};
use crate::engine::mask::Mask;
use crate::engine::tuning::{FLAG_FIRST_ROUND, TILE_BYTES};

/// The engine's far-flag part: the current block's flags and runs, and
/// what the checked runs and the tiles' first round go by.
pub(super) struct Far {
    /// The block's flags from pairs of rare heaps with partners before the
    /// block (a second thread may have made them).
    pub(super) flags: FarFlags,
    /// The far pairs of the current block as runs (see [`far_runs`]), for
    /// the values of its checked runs.
    pub(super) block_runs: Runs,
    /// Candidates a row is checked for, when half of the far runs are
    /// checked rather than flagged (see [`far_runs`]); fewer in tests.
    pub(super) candidates: usize,
    /// Heaps whose mex lay past their row's limit, so that their far pairs
    /// were flagged one by one (a statistic, for tests).
    pub(super) fallbacks: usize,
    /// Whether blocks flagged from now on get the first round of every
    /// heap's witness scan in their tiles, and the votes for it so far in
    /// the current block (see `Sparse::sparse_value`).
    pub(super) middle: bool,
    pub(super) middle_votes: usize,
}

impl Default for Far {
    fn default() -> Far {
        Far {
            flags: FarFlags::default(),
            block_runs: Runs::default(),
            candidates: CANDIDATES,
            fallbacks: 0,
            middle: false,
            middle_votes: 0,
        }
    }
}

impl Far {
    /// Counts a heap's vote for flagging the first round of every witness
    /// scan in the tiles, by its set of `left` values (`small`: a row of
    /// up to 64 values; `middle`: the tiles flagged that round already),
    /// and returns the round its scan goes on from.
    #[inline]
    pub(super) fn vote(&mut self, middle: bool, small: bool, left: u32) -> usize {
        if middle {
            self.middle_votes += usize::from(left >= FLAG_FIRST_ROUND / 4);
            1
        } else {
            if !small && left >= FLAG_FIRST_ROUND {
                self.middle_votes += 1;
            }
            0
        }
    }
}

/// The far flags of a block: a bit row of [`row_words`] words per heap (a
/// second thread makes them, and bits hand over an eighth of the bytes),
/// and each row's limit: a value of the row's mex class above it may be
/// the value of a checked run ([`Runs::flag_checked`]) without a flag.
#[derive(Default)]
pub(super) struct FarFlags {
    pub(super) bits: Vec<u64>,
    pub(super) lims: Vec<u32>,
}

impl FarFlags {
    /// Rows for `b` heaps, nothing flagged, no limit.
    pub(super) fn reset(&mut self, b: usize, w: usize) {
        self.bits.clear();
        self.bits.resize(b * w, 0);
        self.lims.clear();
        self.lims.resize(b, u32::MAX);
    }

    /// Keeps the first `b` rows.
    pub(super) fn truncate(&mut self, b: usize, w: usize) {
        self.bits.truncate(b * w);
        self.lims.truncate(b);
    }

    /// The rows before heap `k` and from it.
    #[allow(clippy::type_complexity)]
    pub(super) fn split_at(
        &mut self,
        k: usize,
        w: usize,
    ) -> ((&mut [u64], &mut [u32]), (&mut [u64], &mut [u32])) {
        let (a, b) = self.bits.split_at_mut(k * w);
        let (c, d) = self.lims.split_at_mut(k);
        ((a, c), (b, d))
    }

    /// The rows `per` heaps at a time.
    pub(super) fn tiles(
        &mut self,
        per: usize,
        w: usize,
    ) -> impl Iterator<Item = (&mut [u64], &mut [u32])> {
        self.bits.chunks_mut(per * w).zip(self.lims.chunks_mut(per))
    }
}

/// What every tile of a block's far flags shares (see [`flag_block`]).
pub(super) struct Tiling<'a, V> {
    /// The values the runs read.
    pub(super) known: &'a [V],
    /// The block's far pairs, for rows `0..` from heap `h0`.
    pub(super) runs: &'a Runs,
    pub(super) h0: usize,
    /// Rows of `row` bytes.
    pub(super) row: usize,
    pub(super) splits: &'a [usize],
    pub(super) halves: Halves,
    /// The values a windowed run keeps (which moves its first round).
    pub(super) kept: Kept,
    /// Whether the first round of each heap's witness scan is flagged too.
    pub(super) middle: bool,
    /// For the checked runs: heap h's eligible values are the class
    /// `mask.q(h, i0) ^ 1` of `class`, the class of its mex, with
    /// `candidates` a row.
    pub(super) class: &'a [Vec<u64>; 2],
    pub(super) mask: Mask,
    pub(super) i0: usize,
    pub(super) candidates: usize,
}

/// Whether the checked runs of rows of `row` values compare low bytes
/// under `mask` (see [`Check::low_bytes`]): values of rows of 512 that
/// share their low byte have different classes when the mask holds bit 8,
/// and every checked run reaches only the row's class (see [`far_runs`]).
pub(super) fn low_bytes(row: usize, mask: Mask) -> bool {
    row <= 256 || (row == 512 && mask.bits & 0x100 != 0)
}

/// Flags into `bits` (bit rows of [`row_words`] words, values below `row`)
/// and `lims` rows `first..` of the runs of `t`. A tile of byte rows at a
/// time is filled (a group of rows at a time, which stays in the L1 cache
/// while every run flags into it: [`Runs::flag_checked`]) and then packed
/// into the bit rows. With `middle`, the first round of each heap's
/// witness scan too.
pub(super) fn flag_block<V: Value>(
    t: &Tiling<V>,
    bits: &mut [u64],
    lims: &mut [u32],
    first: usize,
) {
    // Each thread keeps its scratch: the pipeline calls this once per
    // claimed tile, and a fresh zeroed tile each time was dear.
    thread_local! {
        static SCRATCH: RefCell<TileScratch> = RefCell::default();
    }
    let Tiling {
        known,
        runs,
        h0,
        row,
        splits,
        halves,
        middle,
        ..
    } = *t;
    // Values of rows of 512 that share their low byte have different
    // classes when the mask holds bit 8, and every checked run reaches only
    // the row's class (see [`far_runs`]): their low bytes tell them apart.
    let check = Check {
        eligible: |k: usize| &t.class[(t.mask.q(h0 + k, t.i0) ^ 1) as usize][..],
        candidates: t.candidates,
        low_bytes: low_bytes(row, t.mask),
    };
    SCRATCH.with_borrow_mut(|scratch| {
        let w = row_words(row);
        let per_tile = tile_heaps(row);
        let TileScratch { tile, tile_open } = scratch;
        let need = per_tile.min(bits.len() / w) * row;
        if tile.len() < need {
            tile.resize(need, 0);
        }
        let tiles = bits.chunks_mut(per_tile * w).zip(lims.chunks_mut(per_tile));
        for (j, (bits, lims)) in tiles.enumerate() {
            let k0 = first + j * per_tile;
            let heaps = bits.len() / w;
            let rows = &mut tile[..heaps * row];
            // Zeroed here, not left zero by the call before: nothing rests on
            // what an earlier call (or a panic in it) left behind.
            rows.fill(0);
            runs.flag_checked(rows, row, known, k0..k0 + heaps, &check, lims);
            if middle {
                // The first round of each heap's witness scan (the pairs
                // nearest the middle), which the caller made sure is known.
                for (k, r) in rows.chunks_mut(row).enumerate() {
                    for &i in splits {
                        if let Some((m, a0, a1)) = round_pairs(h0 + k0 + k, i, halves, 0, t.kept) {
                            flag_pairs(r, &known[a0..a1], &known[m + 1 - a1..m + 1 - a0]);
                        }
                    }
                }
            }
            // One pass over the whole tile: a row of 64 values or more is whole
            // words of it, narrower rows share a word.
            tile_open.resize(rows.len().div_ceil(64), 0);
            unflagged_bits(rows, tile_open);
            if row <= 64 {
                let per_word = 64 / row;
                let used = u64::MAX >> (64 - row);
                for (h, b) in bits.iter_mut().enumerate() {
                    let o = tile_open[h / per_word] >> (h % per_word * row);
                    *b |= !o & used;
                }
            } else {
                for (b, o) in bits.iter_mut().zip(tile_open.iter()) {
                    *b |= !o;
                }
            }
        }
    });
}

/// What [`flag_block`] reuses from call to call, per thread: the tile of byte rows and
/// its packed bits.
#[derive(Default)]
pub(super) struct TileScratch {
    pub(super) tile: Vec<u8>,
    pub(super) tile_open: Vec<u64>,
}

/// Heaps per tile of byte rows of `row` bytes.
pub(super) fn tile_heaps(row: usize) -> usize {
    (TILE_BYTES / row).max(8)
}

/// Words of a bit row for the values below `row`.
pub(super) fn row_words(row: usize) -> usize {
    row.div_ceil(64)
}

/// Whose pairs [`far_runs`] lists: each heap `r` of `heaps` with a known
/// partner at or after `from`, at each split distance of `splits`.
pub(super) struct FarPairs<'a, V> {
    /// The values the partners are read from.
    pub(super) known: &'a [V],
    pub(super) from: usize,
    pub(super) heaps: &'a [usize],
    pub(super) splits: &'a [usize],
    pub(super) halves: Halves,
}

/// Lists in `runs` (rows `0..h1 − h0`, row `k` for heap `h0 + k`) the
/// pairs of each heap `r` in `pairs.heaps` with a known partner
/// `from ≤ h − i − r < known.len()` (`from ≥ 1`), never the equal pair
/// `h = 2r + i` when `halves` forbids it, for the heaps `h` of `rows`
/// (`h0..h1`). Made once per block, the list serves all its tiles (made
/// per tile, it was dearer).
///
/// With `checked`, every second run over all the rows whose partners are
/// all common (not in `heaps`) is checked rather than flagged
/// ([`Runs::push_checked`]): its pairs are rare × common, whose values
/// are all of the class of the heap's mex, so all the sparse engine needs
/// of them is whether they reach the row's least candidates. (Replayed on
/// 0.6 near 3·10^6: with half of the far runs flagged, the mex is among
/// the first 10 values of its class left open in 99% of the heaps, among
/// the first 13 in 99.9%.)
pub(super) fn far_runs<V: Value>(
    pairs: FarPairs<V>,
    rows: Range<usize>,
    checked: bool,
    runs: &mut Runs,
) {
    let FarPairs {
        known,
        from,
        heaps,
        splits,
        halves,
    } = pairs;
    let (h0, h1) = (rows.start, rows.end);
    let n0 = known.len();
    let len = h1 - h0;
    runs.reset(len);
    // Whether a rare heap lies among the partners `at..at + len` (at once
    // when they all come after the last).
    let last = heaps.last().copied().unwrap_or(0);
    let rare_within =
        |at: usize| at <= last && heaps[heaps.partition_point(|&r| r < at)] < at + len;
    let mut alternate = false;
    for &r in heaps {
        let x = known[r].get();
        for &i in splits {
            let lo = h0.max(i + r + from.max(1));
            let hi = h1.min(n0 + i + r);
            // The heaps h of [lo, hi), less the one whose pair is equal.
            let equal = 2 * r + i;
            let parts = if halves.allows(r, r) || !(lo..hi).contains(&equal) {
                [lo..hi, hi..hi]
            } else {
                [lo..equal, equal + 1..hi]
            };
            for h in parts {
                // (An empty part may end before h0.)
                if h.start >= h.end {
                    continue;
                }
                let at = h.start - i - r;
                if checked && h.end - h.start == len && !rare_within(at) {
                    alternate = !alternate;
                    if alternate {
                        runs.push_checked(x, at);
                        continue;
                    }
                }
                runs.push(x, h.start - h0..h.end - h0, at);
            }
        }
    }
}
