//! The block pipeline. Heaps go in blocks: the far flags of a block are
//! made first (with two threads, the next block's by the helper while
//! this one is finished), then the block is finished heap by heap.
//! A [`Chooser`] decides whether pipelining pays, by timing blocks both
//! ways.
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

use super::*;
use std::sync::atomic::AtomicU64;

/// Heaps per tile when the pipeline hands the next block's flags out a
/// tile at a time (0.6, two threads: 128 was slower, the balance coarser).
pub(super) const CLAIM_HEAPS: usize = 64;
/// Most heaps per block. The pairs of a rare heap with partners in the
/// block itself wait for their values and are flagged one heap at a time,
/// at about twice the cost of the runs flagged for the whole block (or,
/// pipelined, for the band); their number grows with the block. 512
/// measured 6–10% faster than 4096 on 0.6 (one thread).
pub(super) const MAX_BLOCK: usize = 512;
/// Least heaps per worker in the parallel phase.
pub(super) const MIN_TASK: usize = 128;
/// With two threads, witness scans longer than a budget are checked by the
/// second thread from this heap on (below it, rare positions still appear
/// often, and each makes a deferred check fail and the block be redone).
pub(super) const SPEC_FROM: usize = 1 << 15;
/// Most pairs the main thread scans before deferring, and the least but
/// none (a budget of 0 defers every scan the flagged rounds leave open).
pub(super) const MAX_BUDGET: usize = 1 << 20;
pub(super) const MIN_BUDGET: usize = 64;
/// Blocks per trial of pipelining or not (the way not in use).
pub(super) const PACE_TRIAL: u32 = 32;
/// Blocks the faster way runs between trials of the other: about a million
/// heaps, so the trials cost little where pipelining pays (`0.6`), yet a
/// machine that turns busy is followed within a second or so.
pub(super) const PACE_EPOCH: u32 = 2048;

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
        let row = self.bound();
        let w = row_words(row);
        let b = self.block_len(n0, end, row);
        self.prepare_classes(row, mask);
        // The flags of this block: made ahead by the second thread while
        // the previous block was computed, or now by every thread.
        // (A block cut short by `end` takes the first rows of a longer one.)
        let ahead = self
            .ahead
            .take()
            .filter(|a| (a.n0, a.row, a.mask) == (n0, row, mask) && a.b >= b);
        let made_ahead = ahead.is_some();
        if made_ahead {
            // Its runs were the next ones of the block before.
            std::mem::swap(&mut self.block_runs, &mut self.next_runs);
        }
        let (mut flags, new_start, known_end, mut middle) = match ahead {
            Some(mut a) => {
                a.flags.truncate(b, w);
                (a.flags, a.new_start, a.known_end, a.middle)
            }
            None => {
                let mut flags = std::mem::take(&mut self.flags);
                flags.reset(b, w);
                (flags, self.state.rare.len(), 1, false)
            }
        };
        // A block not made ahead has its pairs with partners before it
        // flagged now, by every thread.
        if !made_ahead {
            middle = self.middle_in_tiles(n0 + b, row, n0);
            self.flag_far(&mut flags, &g[..n0], n0, row, mask, middle);
        }
        self.middle_votes = 0;
        // Then heap by heap. With two threads, the other one meanwhile
        // flags its share of the band, checks the witness scans the
        // previous block deferred and flags the next block's pairs with
        // partners before this block: all need only the values before
        // this block.
        let (pre, post) = g.split_at_mut(n0);
        let pre: &[V] = pre;
        let timed = self.helper.is_some() && n0 >= self.spec_from;
        let spec = timed && self.pace.on();
        let budget = spec.then_some(self.budget);
        let jobs = std::mem::take(&mut self.pending);
        let (splits, halves) = (self.splits.clone(), self.halves);
        let n1 = n0 + b;
        // The next block is made ahead even past `end` (the caller's chunk,
        // which may be a few blocks long): its flags need only G(..n0), and
        // the next call starts with it. Up to the mask's next choice.
        let horizon = self.state.next_choice;
        let mut next = (spec && n1 < horizon).then(|| {
            let b1 = self.block_len(n1, horizon, row);
            let mut flags = std::mem::take(&mut self.spare_flags);
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
        // Its far pairs as one list of runs, made here for all its tiles.
        let mut next_runs = std::mem::take(&mut self.next_runs);
        let checked = checks_pay::<V>(row, low_bytes(row, mask));
        if let Some(a) = &next {
            let rare = &self.state.rare;
            let h1 = n1 + a.b;
            far_runs(
                pre,
                1,
                rare,
                &splits,
                halves,
                n1,
                h1,
                checked,
                &mut next_runs,
            );
        }
        // The next block's flags, a tile at a time to whichever thread is
        // free: the helper after its checks, this one after its heaps.
        let per_tile = tile_heaps(row).min(CLAIM_HEAPS);
        let class = self.class.clone();
        let next_tiling = Tiling {
            known: pre,
            runs: &next_runs,
            h0: n1,
            row,
            splits: &splits,
            halves,
            kept: self.kept,
            middle: next.as_ref().is_some_and(|a| a.middle),
            class: &class,
            mask,
            i0: self.i0,
            candidates: self.candidates,
        };
        let tiles = Claims::new(next.as_mut().map(|a| a.flags.tiles(per_tile, w)));
        let fill_tiles = || while tiles.claim(true, Some(&next_tiling), per_tile) {};
        let checks = Checks::new(pre, &jobs, &splits, halves, self.kept, row);
        // The rest of this block's far pairs: those with a partner in the
        // block before (the heap by heap gather would cost each heap a pass
        // over every rare heap below two blocks). They are on this thread's
        // way to the heaps, so both threads flag them, a tile at a time:
        // the helper before its other work, this thread up to the tile of
        // the heap it is at.
        let mut band_runs = std::mem::take(&mut self.runs);
        let band = if made_ahead && known_end < n0 {
            // Heap h's partner h − i − r lies at or after known_end only
            // for r < h − known_end: the rest of the (sorted) list has no
            // pair here, and skipping it saves a pass over every rare heap
            // per tile.
            let rare = &self.state.rare;
            let reach = rare[..new_start].partition_point(|&r| r < n0 + b - known_end);
            let band = &rare[..reach];
            far_runs(
                pre,
                known_end,
                band,
                &splits,
                halves,
                n0,
                n0 + b,
                false,
                &mut band_runs,
            );
            Some(Tiling {
                runs: &band_runs,
                h0: n0,
                middle: false,
                ..next_tiling
            })
        } else {
            None
        };
        // This thread takes the band's tiles from the front, the helper
        // from the back, so this thread seldom reaches a tile the helper is
        // still on. Without a band the tiles are taken as they are.
        let band_tiles = Claims::new(Some(flags.tiles(per_tile, w)));
        let claim_band = |front: bool| band_tiles.claim(front, band.as_ref(), per_tile);
        let mut helper = self.helper.take();
        let mut sequential = || {
            let t = Instant::now();
            self.cursors.clear();
            self.cursors.resize(self.splits.len(), 0);
            let mut deferred = std::mem::take(&mut self.spare_pending);
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
                let v = self.sparse_value(
                    parts,
                    &bits[r * w..(r + 1) * w],
                    lims[r],
                    row,
                    mask,
                    new_start,
                    budget.map(|b| (b, &mut deferred)),
                    middle,
                );
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
            self.pending = deferred;
            self.middle = 2 * self.middle_votes > b;
            let heaps = t.elapsed();
            checks.run();
            fill_tiles();
            (result, heaps)
        };
        let (helped, (result, heaps)) = match &mut helper {
            Some(helper) if !jobs.is_empty() || !tiles.is_empty() || band.is_some() => {
                let other = || {
                    let t = Instant::now();
                    while claim_band(false) {}
                    checks.run();
                    fill_tiles();
                    t.elapsed()
                };
                // The block stays on this thread (and its cache); the other
                // work goes to the helper.
                let (helped, out) = helper.join(other, sequential);
                (Some(helped), out)
            }
            _ => {
                checks.run();
                (None, sequential())
            }
        };
        let failed = checks.failure();
        self.spare_pending = jobs;
        drop(tiles);
        drop(band_tiles);
        self.runs = band_runs;
        self.helper = helper;
        self.ahead = next;
        self.next_runs = next_runs;
        // Balance the threads: the main one defers more of its witness
        // scans when the helper ran out of work before the heaps were done,
        // fewer when it did not. (Whatever is left of the checks and the
        // next block's flags goes to whichever thread is free.)
        if let Some(helped) = helped {
            if helped > heaps {
                self.budget = (self.budget * 2).clamp(MIN_BUDGET, MAX_BUDGET);
            } else if helped < heaps {
                self.budget /= 2;
                if self.budget < MIN_BUDGET {
                    self.budget = 0;
                }
            }
        }
        if let (true, Ok(end)) = (timed, &result) {
            // Pipelined or not, the block's time on the clock per heap
            // done: what the two threads together made of it.
            self.pace.record(started.elapsed(), end - n0);
        }
        self.spare_flags = std::mem::replace(&mut self.flags, flags);
        match failed {
            Some(bad) => Ok(self.fail(g, bad)),
            None => result,
        }
    }

    /// Whether the tiles of a block ending at `end` (rows of `row` bytes,
    /// values `G(..known)` known when it is flagged) flag the first round
    /// of every heap's witness scan: when the last block voted for it, the
    /// rows are wide (narrow ones never take that round as flags) and every
    /// pair of the round is known.
    pub(super) fn middle_in_tiles(&self, end: usize, row: usize, known: usize) -> bool {
        self.middle && row > 64 && middle_known(end, &self.splits, self.halves, self.kept) <= known
    }

    /// Heaps in the block from `n0` (below `end`), with rows of `row` bytes.
    pub(super) fn block_len(&self, n0: usize, end: usize, row: usize) -> usize {
        (end - n0)
            .min((n0 / 4).max(1))
            .min((FLAG_BUDGET / row).max(1))
            .min(MAX_BLOCK)
    }
}

/// A block's flags made ahead: the pairs of the rare heaps
/// `rare[..new_start]` with partners below `known_end`, for the `b` heaps
/// from `n0`, in bit rows for the values below `row`, under `mask`.
pub(super) struct Ahead {
    pub(super) n0: usize,
    pub(super) b: usize,
    pub(super) row: usize,
    pub(super) mask: Mask,
    pub(super) new_start: usize,
    pub(super) known_end: usize,
    /// The first scan round of every heap is in `flags` too.
    pub(super) middle: bool,
    pub(super) flags: FarFlags,
}

/// Calls `f(lo, hi)` on the runs of the pairs `(a, m − a)`,
/// `a0 ≤ a < a1`, cut where either run would cross the seam of `g`;
/// stops (and returns true) as soon as `f` does.
#[inline]
pub(super) fn seam_pieces<V: Value>(
    g: Parts<V>,
    m: usize,
    a0: usize,
    a1: usize,
    mut f: impl FnMut(&[V], &[V]) -> bool,
) -> bool {
    if a0 >= a1 {
        return false;
    }
    let s = g.pre.len();
    // Most calls have each run on one side of the seam: one piece, without
    // the cuts (their sort cost `.16` 4%).
    let (b0, b1) = (m + 1 - a1, m + 1 - a0);
    if (a1 <= s || a0 >= s) && (b1 <= s || b0 >= s) {
        return f(g.slice(a0, a1), g.slice(b0, b1));
    }
    let mut cuts = [a0, a1, a1, a1];
    let mut k = 1;
    for c in [s, (m + 1).saturating_sub(s)] {
        if a0 < c && c < a1 {
            cuts[k] = c;
            k += 1;
        }
    }
    cuts[..=k].sort_unstable();
    for w in cuts[..=k].windows(2) {
        let (a, b) = (w[0], w[1]);
        if a < b && f(g.slice(a, b), g.slice(m + 1 - b, m + 1 - a)) {
            return true;
        }
    }
    false
}

/// Sets its flag when dropped, on unwinding too.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// A block's flag rows in tiles, each flagged once (by [`flag_block`]) by
/// whichever thread takes it, from the front or the back ([`TwoEnds`]).
struct Claims<'a> {
    tiles: Vec<Mutex<(&'a mut [u64], &'a mut [u32])>>,
    done: Vec<AtomicBool>,
    ends: TwoEnds,
}

impl<'a> Claims<'a> {
    /// The tiles of `rows`, none if `None`.
    fn new(rows: Option<impl Iterator<Item = (&'a mut [u64], &'a mut [u32])>>) -> Claims<'a> {
        let tiles: Vec<_> = rows.into_iter().flatten().map(Mutex::new).collect();
        let done = tiles.iter().map(|_| AtomicBool::new(false)).collect();
        let ends = TwoEnds::new(tiles.len());
        Claims { tiles, done, ends }
    }

    fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// Takes the next tile from the front or the back and flags it with
    /// `tiling` (of `per_tile` heaps a tile; `None`: nothing to flag, the
    /// tile is only marked done); false when none is left.
    fn claim<V: Value>(&self, front: bool, tiling: Option<&Tiling<V>>, per_tile: usize) -> bool {
        let Some(t) = self.ends.take(front) else {
            return false;
        };
        // Done even if flagging panics: the panic then reaches the caller
        // through the join, and no thread waits for the tile.
        let _done = SetOnDrop(&self.done[t]);
        if let Some(tiling) = tiling {
            let mut tile = self.lock(t);
            let (bits, lims) = &mut *tile;
            flag_block(tiling, bits, lims, t * per_tile);
        }
        true
    }

    /// Whether tile `t` is flagged.
    fn done(&self, t: usize) -> bool {
        self.done[t].load(Ordering::Acquire)
    }

    /// Tile `t`'s rows and limits.
    fn lock(&self, t: usize) -> std::sync::MutexGuard<'_, (&'a mut [u64], &'a mut [u32])> {
        self.tiles[t].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Gives out no more tiles.
    fn close(&self) {
        self.ends.close();
    }
}

/// The indices `0..n`, each taken once, from the front or from the back.
struct TwoEnds(AtomicU64);

impl TwoEnds {
    fn new(n: usize) -> TwoEnds {
        let n = u32::try_from(n).expect("fewer than 2^32 tiles");
        TwoEnds(AtomicU64::new(u64::from(n) << 32))
    }

    /// Takes the indices left, so that none is given out any more.
    fn close(&self) {
        self.0.store(0, Ordering::Release);
    }

    /// The front's or the back's next index, if any is left.
    fn take(&self, front: bool) -> Option<usize> {
        let mut now = self.0.load(Ordering::Acquire);
        loop {
            let (lo, hi) = (now as u32, (now >> 32) as u32);
            if lo >= hi {
                return None;
            }
            let (t, lo, hi) = if front {
                (lo, lo + 1, hi)
            } else {
                (hi - 1, lo, hi - 1)
            };
            let next = u64::from(lo) | u64::from(hi) << 32;
            match self
                .0
                .compare_exchange_weak(now, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Some(t as usize),
                Err(seen) => now = seen,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seam_pieces_cover_each_pair_once_on_one_side() {
        // Every seam and every run of pairs (a, m − a), a0 ≤ a < a1, of a
        // sequence of 12 values: the pieces, in order, are the whole run,
        // each part of each piece on one side of the seam.
        let all: Vec<u16> = (100..112).collect();
        for s in 0..=all.len() {
            let g = Parts {
                pre: &all[..s],
                post: &all[s..],
            };
            for m in 0..all.len() {
                for a0 in 0..=m + 1 {
                    for a1 in a0..=m + 1 {
                        let mut pairs = Vec::new();
                        let stopped = seam_pieces(g, m, a0, a1, |lo, hi| {
                            assert_eq!(lo.len(), hi.len());
                            assert!(!lo.is_empty());
                            for (x, y) in lo.iter().zip(hi.iter().rev()) {
                                pairs.push((*x, *y));
                            }
                            false
                        });
                        assert!(!stopped);
                        let want: Vec<(u16, u16)> =
                            (a0..a1).map(|a| (all[a], all[m - a])).collect();
                        assert_eq!(pairs, want, "s {s}, m {m}, a {a0}..{a1}");
                        // The first piece's answer is the call's.
                        let mut calls = 0;
                        let stopped = seam_pieces(g, m, a0, a1, |_, _| {
                            calls += 1;
                            true
                        });
                        assert_eq!((stopped, calls), (a0 < a1, usize::from(a0 < a1)));
                    }
                }
            }
        }
    }

    #[test]
    fn two_ends_give_every_index_once_front_and_back() {
        let ends = TwoEnds::new(5);
        assert_eq!(ends.take(true), Some(0));
        assert_eq!(ends.take(false), Some(4));
        assert_eq!(ends.take(false), Some(3));
        assert_eq!(ends.take(true), Some(1));
        assert_eq!(ends.take(true), Some(2));
        assert_eq!(ends.take(false), None);
        assert_eq!(ends.take(true), None);
        assert_eq!(TwoEnds::new(0).take(true), None);
        let closed = TwoEnds::new(9);
        assert_eq!(closed.take(true), Some(0));
        closed.close();
        assert_eq!((closed.take(true), closed.take(false)), (None, None));
        // Two threads at once, one from each end, started together: each
        // index exactly once, and both ends reach the middle.
        for (n, rounds) in [(1, 50), (2, 50), (7, 50), (100_000, 20)] {
            for _ in 0..rounds {
                let ends = TwoEnds::new(n);
                let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                let start = std::sync::Barrier::new(2);
                let take_all = |front: bool| {
                    start.wait();
                    let (mut last, mut taken) = (None, 0);
                    while let Some(t) = ends.take(front) {
                        // Each end moves one way only.
                        assert!(last.is_none_or(|l| if front { t > l } else { t < l }));
                        last = Some(t);
                        taken += 1;
                        hits[t].fetch_add(1, Ordering::Relaxed);
                    }
                    taken
                };
                let (back, front) = std::thread::scope(|s| {
                    let back = s.spawn(|| take_all(false));
                    let front = take_all(true);
                    (back.join().unwrap(), front)
                });
                assert!(
                    hits.iter().all(|h| h.load(Ordering::Relaxed) == 1),
                    "n = {n}"
                );
                assert_eq!(back + front, n);
            }
        }
    }
}
