//! A block of heaps, by phase. Heaps go in blocks: the far flags of a
//! block are made first ([`Sparse::take_flags`]: made ahead by the
//! helper while the block before was finished, or now), the next block
//! is planned ([`Sparse::plan_next`]) and its band listed
//! ([`Sparse::band`]), then the block is finished heap by heap
//! ([`Sparse::finish_heaps`]) while the helper checks the deferred scans
//! and flags the next block; last the buffers go back and the threads are
//! balanced ([`Sparse::sparse_block`] drives the phases). A [`Chooser`]
//! decides whether pipelining pays, by timing blocks both ways.
//!
//! Pipelined, the pairs with a partner in the block before (the band)
//! are flagged by both threads a tile of heaps at a time: this thread
//! from the front, each tile as its heaps reach it, the helper from the
//! back before its other work.
//!
//! Invariant: a block's far flags only use values of heaps before the
//! block (or, pipelined, before the block before it, then the band's);
//! the pairs with partners inside the block wait for their values and
//! are flagged heap by heap.
//!
//! [`Chooser`]: crate::engine::chooser::Chooser

use std::time::Instant;

use octal_kernels::runs::{checks_pay, Runs};
use octal_kernels::Value;

use super::checks::Checks;
use super::engine::Sparse;
use super::far::{
    far_runs, flag_block, low_bytes, row_words, tile_heaps, FarFlags, FarPairs, Tiling,
};
use super::heap::{BlockShape, FarRow};
use super::pairs::{middle_known, Parts};
use super::pipeline::{share_work, Ahead, Claims};
use crate::engine::api::{fit, Overflow};
use crate::engine::helper::wait_until;
use crate::engine::mask::Mask;
use crate::engine::tuning::{CLAIM_HEAPS, FLAG_BUDGET, MAX_BLOCK, MIN_TASK};

/// Where a block lies (`b` heaps from `n0`) and the rows its heaps are
/// flagged in (`row` values, `w` words a bit row, under `mask`).
#[derive(Clone, Copy)]
struct Block {
    n0: usize,
    b: usize,
    row: usize,
    w: usize,
    mask: Mask,
}

/// A block's far flags once taken ([`Sparse::take_flags`]): the pairs of
/// the rare heaps `rare[..new_start]` with partners below `known_end`,
/// with the first round of each heap's witness scan when `middle`.
struct Flagged {
    flags: FarFlags,
    new_start: usize,
    known_end: usize,
    middle: bool,
    /// Made ahead by the second thread (else now, by every thread).
    made_ahead: bool,
}

/// What the heap-by-heap phase of a block reads besides the values: the
/// block, what its heaps share, its band's tiles (flagged with `band`,
/// `per_tile` heaps a tile) and the witness budget, if scans are
/// deferred.
#[derive(Clone, Copy)]
struct Heaps<'h, 't, V> {
    block: Block,
    shape: BlockShape,
    per_tile: usize,
    band_tiles: &'h Claims<'t>,
    band: Option<&'h Tiling<'h, V>>,
    budget: Option<usize>,
}

impl Sparse {
    /// Computes a block of heaps from `n0` (at most up to `end`) with the
    /// sparse-space method; returns where it stopped.
    pub(super) fn sparse_block<V: Value>(
        &mut self,
        g: &mut [V],
        n0: usize,
        end: usize,
        mask: Mask,
    ) -> Result<usize, Overflow> {
        let started = Instant::now();
        let block = self.block_at(n0, end, mask);
        let Block { b, row, w, .. } = block;
        let mut flagged = self.take_flags(&g[..n0], &block);
        // Then heap by heap. With two threads, the other one meanwhile
        // flags its share of the band, checks the witness scans the
        // previous block deferred and flags the next block's pairs with
        // partners before this block: all need only the values before
        // this block.
        let (pre, post) = g.split_at_mut(n0);
        let pre: &[V] = pre;
        let (timed, budget) = self.pipeline.plan(n0);
        let jobs = std::mem::take(&mut self.pipeline.pending);
        let (splits, halves) = (self.moves.splits.clone(), self.moves.halves);
        let mut next_runs = std::mem::take(&mut self.pipeline.next_runs);
        let mut next = self.plan_next(pre, &block, budget.is_some(), &mut next_runs);
        // The next block's flags, a tile at a time to whichever thread is
        // free: the helper after its checks, this one after its heaps.
        let per_tile = tile_heaps(row).min(CLAIM_HEAPS);
        let class = self.scratch.class.clone();
        let next_tiling = Tiling {
            known: pre,
            runs: &next_runs,
            h0: n0 + b,
            row,
            splits: &splits,
            halves,
            kept: self.kept,
            middle: next.as_ref().is_some_and(|a| a.middle),
            class: &class,
            mask,
            i0: self.moves.i0,
            candidates: self.far.candidates,
        };
        let tiles = Claims::new(next.as_mut().map(|a| a.flags.tiles(per_tile, w)));
        let fill_tiles = || while tiles.claim(true, Some(&next_tiling), per_tile) {};
        let checks = Checks::new(pre, &jobs, &splits, halves, self.kept, row);
        let mut band_runs = std::mem::take(&mut self.pipeline.band_runs);
        let band = self.band(pre, &block, &flagged, &mut band_runs, &next_tiling);
        // This thread takes the band's tiles from the front, the helper
        // from the back, so this thread seldom reaches a tile the helper is
        // still on. Without a band the tiles are taken as they are.
        let band_tiles = Claims::new(Some(flagged.flags.tiles(per_tile, w)));
        let claim_band = |front: bool| band_tiles.claim(front, band.as_ref(), per_tile);
        let mut helper = self.pipeline.helper.take();
        let job = Heaps {
            block,
            shape: BlockShape {
                row,
                mask,
                new_start: flagged.new_start,
                middle: flagged.middle,
            },
            per_tile,
            band_tiles: &band_tiles,
            band: band.as_ref(),
            budget,
        };
        let sequential = || {
            let t = Instant::now();
            let result = self.finish_heaps(pre, post, &job);
            let heaps = t.elapsed();
            checks.run();
            fill_tiles();
            (result, heaps)
        };
        let other = || {
            let t = Instant::now();
            while claim_band(false) {}
            checks.run();
            fill_tiles();
            t.elapsed()
        };
        let share = !jobs.is_empty() || !tiles.is_empty() || band.is_some();
        let (helped, (result, heaps)) =
            share_work(helper.as_mut(), share, other, || checks.run(), sequential);
        let failed = checks.failure();
        let p = &mut self.pipeline;
        (p.spare_pending, p.band_runs, p.helper) = (jobs, band_runs, helper);
        (p.ahead, p.next_runs) = (next, next_runs);
        p.balance(helped, heaps);
        if let (true, Ok(end)) = (timed, &result) {
            // Pipelined or not, the block's time on the clock per heap
            // done: what the two threads together made of it.
            p.pace.record(started.elapsed(), end - n0);
        }
        p.spare_flags = std::mem::replace(&mut self.far.flags, flagged.flags);
        match failed {
            Some(bad) => Ok(self.fail(g, bad)),
            None => result,
        }
    }

    /// The block from `n0` (below `end`) under `mask`, with the classes of
    /// its rows' values prepared.
    fn block_at(&mut self, n0: usize, end: usize, mask: Mask) -> Block {
        let row = self.bound();
        let w = row_words(row);
        let b = self.block_len(n0, end, row);
        self.scratch.prepare_classes(row, mask);
        Block {
            n0,
            b,
            row,
            w,
            mask,
        }
    }

    /// The first phase: the block's far flags, made ahead by the second
    /// thread while the previous block was computed, or now by every
    /// thread (from `known`, the values before the block).
    fn take_flags<V: Value>(&mut self, known: &[V], block: &Block) -> Flagged {
        let Block {
            n0,
            b,
            row,
            w,
            mask,
        } = *block;
        // (A block cut short by `end` takes the first rows of a longer one.)
        let ahead = self
            .pipeline
            .ahead
            .take()
            .filter(|a| (a.n0, a.row, a.mask) == (n0, row, mask) && a.b >= b);
        // The votes of this block (see [`Far::vote`](super::far::Far::vote)) start from none.
        self.far.middle_votes = 0;
        let made_ahead = ahead.is_some();
        if made_ahead {
            // Its runs were the next ones of the block before.
            std::mem::swap(&mut self.far.block_runs, &mut self.pipeline.next_runs);
        }
        let (mut flags, new_start, known_end, mut middle) = match ahead {
            Some(mut a) => {
                a.flags.truncate(b, w);
                (a.flags, a.new_start, a.known_end, a.middle)
            }
            None => {
                let mut flags = std::mem::take(&mut self.far.flags);
                flags.reset(b, w);
                (flags, self.state.rare.len(), 1, false)
            }
        };
        // A block not made ahead has its pairs with partners before it
        // flagged now, by every thread.
        if !made_ahead {
            middle = self.middle_in_tiles(n0 + b, row, n0);
            self.flag_far(&mut flags, known, block, middle);
        }
        Flagged {
            flags,
            new_start,
            known_end,
            middle,
            made_ahead,
        }
    }

    /// Flags in `flags` (the block, bit rows for the values below its
    /// `row`) the pairs of every rare heap with a partner in `known`
    /// (`G(..n0)`): a block not made ahead, split with the helper when it
    /// is long enough to pay for the hand-over.
    fn flag_far<V: Value>(
        &mut self,
        flags: &mut FarFlags,
        known: &[V],
        block: &Block,
        middle: bool,
    ) {
        let Block {
            n0, row, w, mask, ..
        } = *block;
        let b = flags.lims.len();
        let (splits, halves) = (&self.moves.splits[..], self.moves.halves);
        let checked = checks_pay::<V>(row, low_bytes(row, mask));
        let runs = &mut self.far.block_runs;
        let pairs = FarPairs {
            known,
            from: 1,
            heaps: &self.state.rare,
            splits,
            halves,
        };
        far_runs(pairs, n0..n0 + b, checked, runs);
        let tiling = Tiling {
            known,
            runs,
            h0: n0,
            row,
            splits,
            halves,
            kept: self.kept,
            middle,
            class: &self.scratch.class,
            mask,
            i0: self.moves.i0,
            candidates: self.far.candidates,
        };
        match self.pipeline.helper.as_mut() {
            Some(helper) if b >= 2 * MIN_TASK => {
                let half = b / 2;
                let (x, y) = flags.split_at(half, w);
                helper.join(
                    || flag_block(&tiling, y.0, y.1, half),
                    || flag_block(&tiling, x.0, x.1, 0),
                );
            }
            _ => flag_block(&tiling, &mut flags.bits, &mut flags.lims, 0),
        }
    }

    /// The second phase: the next block, made ahead when pipelining
    /// (`spec`), even past `end` (the caller's chunk, which may be a few
    /// blocks long): its flags need only G(..n0), and the next call starts
    /// with it. Up to the mask's next choice. Its far pairs go into
    /// `next_runs` as one list of runs, made here for all its tiles.
    fn plan_next<V: Value>(
        &mut self,
        pre: &[V],
        block: &Block,
        spec: bool,
        next_runs: &mut Runs,
    ) -> Option<Ahead> {
        let Block {
            n0,
            b,
            row,
            w,
            mask,
        } = *block;
        let n1 = n0 + b;
        let horizon = self.state.next_choice;
        let next = (spec && n1 < horizon).then(|| {
            let b1 = self.block_len(n1, horizon, row);
            let mut flags = std::mem::take(&mut self.pipeline.spare_flags);
            flags.reset(b1, w);
            Ahead {
                n0: n1,
                b: b1,
                row,
                mask,
                new_start: self.state.rare.len(),
                known_end: n0,
                middle: self.middle_in_tiles(n1 + b1, row, n0),
                flags,
            }
        });
        let checked = checks_pay::<V>(row, low_bytes(row, mask));
        if let Some(a) = &next {
            let pairs = FarPairs {
                known: pre,
                from: 1,
                heaps: &self.state.rare,
                splits: &self.moves.splits,
                halves: self.moves.halves,
            };
            far_runs(pairs, n1..n1 + a.b, checked, next_runs);
        }
        next
    }

    /// The third phase: the rest of the far pairs of a block made ahead,
    /// those with a partner in the block before (the band), listed in
    /// `band_runs`; their tiling is `next`'s, with those runs. The heap by
    /// heap gather would cost each heap a pass over every rare heap below
    /// two blocks; they are on this thread's way to the heaps, so both
    /// threads flag them, a tile at a time: the helper before its other
    /// work, this thread up to the tile of the heap it is at.
    fn band<'a, V: Value>(
        &self,
        pre: &[V],
        block: &Block,
        flagged: &Flagged,
        band_runs: &'a mut Runs,
        next: &Tiling<'a, V>,
    ) -> Option<Tiling<'a, V>> {
        let Block { n0, b, .. } = *block;
        let (new_start, known_end) = (flagged.new_start, flagged.known_end);
        if !flagged.made_ahead || known_end >= n0 {
            return None;
        }
        // Heap h's partner h − i − r lies at or after known_end only
        // for r < h − known_end: the rest of the (sorted) list has no
        // pair here, and skipping it saves a pass over every rare heap
        // per tile.
        let rare = &self.state.rare;
        let reach = rare[..new_start].partition_point(|&r| r < n0 + b - known_end);
        let pairs = FarPairs {
            known: pre,
            from: known_end,
            heaps: &rare[..reach],
            splits: &self.moves.splits,
            halves: self.moves.halves,
        };
        far_runs(pairs, n0..n0 + b, false, band_runs);
        Some(Tiling {
            runs: band_runs,
            h0: n0,
            middle: false,
            ..*next
        })
    }

    /// The fourth phase: the block heap by heap, each once its tile of far
    /// flags is done (by this thread, or by the helper when it has it);
    /// returns where it stopped. The witness scans it defers become the
    /// pending ones, and its votes decide whether the next blocks' tiles
    /// flag the first round of every scan.
    fn finish_heaps<V: Value>(
        &mut self,
        pre: &[V],
        post: &mut [V],
        job: &Heaps<V>,
    ) -> Result<usize, Overflow> {
        let Heaps {
            block: Block { n0, b, w, .. },
            shape,
            per_tile,
            band_tiles,
            band,
            budget,
        } = *job;
        let row = shape.row;
        let claim_band = |front: bool| band_tiles.claim(front, band, per_tile);
        self.scratch.cursors.clear();
        self.scratch.cursors.resize(self.moves.splits.len(), 0);
        let mut deferred = std::mem::take(&mut self.pipeline.spare_pending);
        deferred.reuse();
        let mut k = 0;
        let mut tile = None;
        let result = loop {
            if k == b {
                break Ok(n0 + k);
            }
            let j = k / per_tile;
            if k % per_tile == 0 {
                // This tile's rows, once flagged: by this thread, or
                // by the helper when it has them (all tiles are taken).
                while !band_tiles.done(j) {
                    if !claim_band(true) {
                        break;
                    }
                }
                wait_until(|| band_tiles.done(j));
                tile = Some(band_tiles.lock(j));
            }
            let (bits, lims) = &**tile.as_ref().expect("the tile of heap k");
            let r = k - j * per_tile;
            let (done, rest) = post.split_at_mut(k);
            let parts = Parts { pre, post: done };
            let far = FarRow {
                bits: &bits[r * w..(r + 1) * w],
                lim: lims[r],
            };
            let v = self.sparse_value(parts, far, shape, budget.map(|b| (b, &mut deferred)));
            match fit(v, n0 + k) {
                Ok(x) => rest[0] = x,
                Err(e) => break Err(e),
            }
            self.note_new(n0 + k, v);
            k += 1;
            if self.halt.is_some() {
                // A windowed run could not decide a heap: no more.
                break Ok(n0 + k);
            }
            if v as usize >= row {
                // Later rows are too narrow for the new values.
                break Ok(n0 + k);
            }
        };
        drop(tile);
        // A block cut short needs no more of the band.
        band_tiles.close();
        self.pipeline.pending = deferred;
        self.far.middle = 2 * self.far.middle_votes > b;
        result
    }

    /// Whether the tiles of a block ending at `end` (rows of `row` bytes,
    /// values `G(..known)` known when it is flagged) flag the first round
    /// of every heap's witness scan: when the last block voted for it, the
    /// rows are wide (narrow ones never take that round as flags) and every
    /// pair of the round is known.
    fn middle_in_tiles(&self, end: usize, row: usize, known: usize) -> bool {
        self.far.middle
            && row > 64
            && middle_known(end, &self.moves.splits, self.moves.halves, self.kept) <= known
    }

    /// Heaps in the block from `n0` (below `end`), with rows of `row` bytes.
    fn block_len(&self, n0: usize, end: usize, row: usize) -> usize {
        (end - n0)
            .min((n0 / 4).max(1))
            .min((FLAG_BUDGET / row).max(1))
            .min(MAX_BLOCK)
    }
}
