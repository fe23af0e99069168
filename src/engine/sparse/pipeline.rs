//! The two-thread pipeline's part of the sparse engine: the second
//! thread, the block it flags ahead, the witness scans deferred to it and
//! the budget that balances the two, the clock that decides whether
//! pipelining pays, and the tiles both threads claim from either end.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use octal_kernels::runs::Runs;
use octal_kernels::Value;

use super::checks::Deferred;
use super::far::{flag_block, FarFlags, Tiling};
use crate::engine::chooser::Chooser;
use crate::engine::helper::Helper;
use crate::engine::mask::Mask;
use crate::engine::tuning::{
    FIRST_BUDGET, MAX_BUDGET, MIN_BUDGET, PACE_EPOCH, PACE_TRIAL, SPEC_FROM,
};

/// What the engine keeps for its second thread, from block to block.
pub(super) struct Pipeline {
    /// 2 with a helper, else 1.
    pub(super) threads: usize,
    /// With two threads, the second one for the pipelined blocks.
    pub(super) helper: Option<Helper>,
    /// The next block's flags, made ahead by the second thread.
    pub(super) ahead: Option<Ahead>,
    /// A second flag buffer, for the block made ahead.
    pub(super) spare_flags: FarFlags,
    /// Witness scans deferred by the last block, not yet checked (and a
    /// list to reuse).
    pub(super) pending: Deferred,
    pub(super) spare_pending: Deferred,
    /// Pairs the main thread scans before deferring the rest (adapted).
    pub(super) budget: usize,
    /// No deferring below this heap (raised after each roll-back).
    pub(super) spec_from: usize,
    /// Whether pipelining the blocks pays (with two threads): `on` when
    /// it does, by the blocks' measured time per heap.
    pub(super) pace: Chooser,
    /// The far pairs of the block made ahead, and of the current block's
    /// band, as runs (see `far_runs`).
    pub(super) next_runs: Runs,
    pub(super) band_runs: Runs,
}

impl Pipeline {
    /// With a helper when `threads` > 1 and one can be started: two
    /// threads at most, this one and the helper.
    pub(super) fn new(threads: usize) -> Pipeline {
        let helper = (threads > 1).then(Helper::new).flatten();
        Pipeline {
            threads: if helper.is_some() { 2 } else { 1 },
            helper,
            ahead: None,
            spare_flags: FarFlags::default(),
            pending: Deferred::default(),
            spare_pending: Deferred::default(),
            budget: FIRST_BUDGET,
            spec_from: SPEC_FROM,
            pace: Chooser::new(PACE_TRIAL, PACE_EPOCH),
            next_runs: Runs::default(),
            band_runs: Runs::default(),
        }
    }

    /// Whether a block from `n0` is timed for the pace (with a helper,
    /// past `spec_from`), and the witness budget when it is pipelined.
    pub(super) fn plan(&self, n0: usize) -> (bool, Option<usize>) {
        let timed = self.helper.is_some() && n0 >= self.spec_from;
        let spec = timed && self.pace.on();
        (timed, spec.then_some(self.budget))
    }

    /// Balances the threads after a block in which the helper worked for
    /// `helped` (if it did) and this thread on its heaps for `heaps`: the
    /// main one defers more of its witness scans when the helper ran out
    /// of work before the heaps were done, fewer when it did not.
    /// (Whatever is left of the checks and the next block's flags goes to
    /// whichever thread is free.)
    pub(super) fn balance(&mut self, helped: Option<Duration>, heaps: Duration) {
        let Some(helped) = helped else {
            return;
        };
        if helped > heaps {
            self.budget = (self.budget * 2).clamp(MIN_BUDGET, MAX_BUDGET);
        } else if helped < heaps {
            self.budget /= 2;
            if self.budget < MIN_BUDGET {
                self.budget = 0;
            }
        }
    }
}

/// Runs `heaps` on this thread and, when `share` and there is a helper,
/// `other` on the helper meanwhile (the block stays on this thread and
/// its cache), returning the helper's time too; else `alone`, then
/// `heaps`, here.
pub(super) fn share_work<R>(
    helper: Option<&mut Helper>,
    share: bool,
    other: impl FnOnce() -> Duration + Send,
    alone: impl FnOnce(),
    heaps: impl FnOnce() -> R,
) -> (Option<Duration>, R) {
    match helper {
        Some(helper) if share => {
            let (helped, out) = helper.join(other, heaps);
            (Some(helped), out)
        }
        _ => {
            alone();
            (None, heaps())
        }
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

/// Sets its flag when dropped, on unwinding too.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// A block's flag rows in tiles, each flagged once (by [`flag_block`]) by
/// whichever thread takes it, from the front or the back ([`TwoEnds`]).
pub(super) struct Claims<'a> {
    tiles: Vec<Mutex<(&'a mut [u64], &'a mut [u32])>>,
    done: Vec<AtomicBool>,
    ends: TwoEnds,
}

impl<'a> Claims<'a> {
    /// The tiles of `rows`, none if `None`.
    pub(super) fn new(
        rows: Option<impl Iterator<Item = (&'a mut [u64], &'a mut [u32])>>,
    ) -> Claims<'a> {
        let tiles: Vec<_> = rows.into_iter().flatten().map(Mutex::new).collect();
        let done = tiles.iter().map(|_| AtomicBool::new(false)).collect();
        let ends = TwoEnds::new(tiles.len());
        Claims { tiles, done, ends }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// Takes the next tile from the front or the back and flags it with
    /// `tiling` (of `per_tile` heaps a tile; `None`: nothing to flag, the
    /// tile is only marked done); false when none is left.
    pub(super) fn claim<V: Value>(
        &self,
        front: bool,
        tiling: Option<&Tiling<V>>,
        per_tile: usize,
    ) -> bool {
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
    pub(super) fn done(&self, t: usize) -> bool {
        self.done[t].load(Ordering::Acquire)
    }

    /// Tile `t`'s rows and limits.
    pub(super) fn lock(
        &self,
        t: usize,
    ) -> std::sync::MutexGuard<'_, (&'a mut [u64], &'a mut [u32])> {
        self.tiles[t].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Gives out no more tiles.
    pub(super) fn close(&self) {
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
    use std::sync::atomic::AtomicUsize;

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
