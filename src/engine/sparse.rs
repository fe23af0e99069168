//! The fast engine: sparse space where it exists, the diagonal method
//! ([`super::diagonal`]) where it does not, and a second core for both.
//!
//! For a mask `m` (see [`super::mask`]) common × common splits of heap `n`
//! only reach values of one parity class `Q(n)`. The other class is reached
//! only by pairs with a rare heap and by the non-split options, so flagging
//! those gives `mo`, the least unreachable value of the other class, and
//! G(n) ≤ mo. The values of class `Q(n)` below `mo` that are not flagged
//! form a set that one scan of *all* split pairs strikes out (the witness
//! scan, which usually stops early); the least value left is G(n),
//! otherwise G(n) = mo. No pair is ever skipped unproved.
//!
//! Heaps are processed in blocks `[n0, n0 + B)`: the pairs of a rare heap
//! and a partner below `n0` depend only on known values, so they are
//! flagged first (cache-friendly: one contiguous run per rare heap and
//! split distance). Then the block is finished heap by heap. With two
//! threads the blocks are pipelined: see [`Sparse::sparse_block`].

use octal_kernels::mex::{first_unflagged, unflagged_bits};
use octal_kernels::pairs::{flag_pairs, flag_xor_gather, xor_gather_bits};
use octal_kernels::runs::{checks_pay, Check, Runs, CANDIDATES};
use octal_kernels::witness::strike_xors;
use octal_kernels::Value;
use std::cell::RefCell;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::diagonal::Diagonals;
use super::helper::Helper;
use super::mask::{Histogram, Mask, MaskSpec};
use super::{fit, value_bound, Engine, EngineInfo, Overflow};
use crate::code::{Code, Rules};

/// The mask is first chosen at this many values, then at each doubling.
const FIRST_CHOICE: usize = 1024;
/// Sparse space is used when at most this fraction (1/x) of positions is rare.
const MAX_RARE_FRACTION: usize = 5;
/// Most bytes a block's byte rows would take (one byte per value per
/// heap): keeps blocks of wide rows short.
const FLAG_BUDGET: usize = 1 << 20;
/// Bytes of flag rows filled at a time. The stores go a group of rows at a
/// time ([`Runs::flag`]), so the tile may exceed the L1 data cache; a
/// longer tile spreads each rare heap's set-up over more rows (0.6, one
/// thread: 64 KiB ~8% faster than 32 KiB, 128 KiB slower again).
const TILE_BYTES: usize = 64 << 10;
/// Heaps per tile when the pipeline hands the next block's flags out a
/// tile at a time (0.6, two threads: 128 was slower, the balance coarser).
const CLAIM_HEAPS: usize = 64;
/// Most heaps per block. The pairs of a rare heap with partners in the
/// block itself (or, pipelined on two threads, in the block before) wait
/// for their values and are flagged one heap at a time, at about twice the
/// cost of the runs flagged for the whole block; their number grows with
/// the block. 512 measured 6–10% faster than 4096 on 0.6 (one thread).
const MAX_BLOCK: usize = 512;
/// Least heaps per worker in the parallel phase.
const MIN_TASK: usize = 128;
/// Pairs examined per split distance before moving to the next distance.
const CHUNK: usize = 512;
/// Pairs nearest the middle that the witness scan tries first.
const MIDDLE_PAIRS: usize = 1024;
/// Pairs of the middle scanned per round.
const MIDDLE_STEP: usize = 256;
const MIDDLE_ROUNDS: usize = MIDDLE_PAIRS / MIDDLE_STEP;
/// Sets of at least this many values have the first round of their
/// witness scan flagged rather than struck (see [`Sparse::sparse_value`]).
const FLAG_FIRST_ROUND: u32 = 16;
/// The pairs `(a, m − a)` with `a ≤ LOW_PAIRS` make the second round of
/// a witness scan. Their first values are the start of the sequence, and
/// they reach values the middle rarely does: on 0.6 near 3·10^6 a set of
/// ~23 values after the first round keeps ~8 once they are flagged too.
const LOW_PAIRS: usize = 256;
/// Sets of at least this many values after the first round have the
/// second flagged too (a flag costs a store; a value struck costs a chain
/// of dependent steps and, often, a mispredicted branch).
const FLAG_LOW_ROUND: u32 = 8;
/// Rounds before the chunks: the middle's steps and the low round.
const FIXED_ROUNDS: usize = MIDDLE_ROUNDS + 1;
/// With two threads, witness scans longer than a budget are checked by the
/// second thread from this heap on (below it, rare positions still appear
/// often, and each makes a deferred check fail and the block be redone).
const SPEC_FROM: usize = 1 << 15;
/// Most pairs the main thread scans before deferring, and the least but
/// none (a budget of 0 defers every scan the flagged rounds leave open).
const MAX_BUDGET: usize = 1 << 20;
const MIN_BUDGET: usize = 64;

/// Why an engine cannot run a game or an option.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SparseError {
    /// Moves this engine does not know (e.g. three-heap splits): callers
    /// fall back to the reference engine rather than compute wrong values.
    #[error("the sparse engine does not support the moves of {code}")]
    Unsupported { code: String },
    #[error(
        "mask {mask}: position parity needs all split distances of {code} to have the same parity"
    )]
    PositionParity { mask: String, code: String },
    #[error("--mask applies to the sparse engine only; the reference engine scans every pair (drop --mask or --engine reference)")]
    MaskWithoutSparse,
}

/// The sparse-space engine (`--engine sparse`, the default).
pub struct Sparse {
    take_all: Vec<usize>,
    take_leave_one: Vec<usize>,
    splits: Vec<usize>,
    /// Which pairs each split leaves (all, or only unequal ones).
    halves: Halves,
    /// A split distance (all share its parity when position parity is on).
    i0: usize,
    allow_pp: bool,
    spec: MaskSpec,
    threads: usize,
    state: State,
    /// The block's flags from pairs of rare heaps with partners before the
    /// block: a second thread makes them.
    flags: FarFlags,
    /// The current heap's other flags, a byte per value.
    row8: Vec<u8>,
    /// Scratch: the values of the current heap not flagged, as a bitset.
    open: Vec<u64>,
    /// Bit `v` of `class[q]` is set when `v` has class `q` under the mask.
    class: [Vec<u64>; 2],
    /// The values still looking for a witness, as a bitset.
    set: Vec<u64>,
    /// The next block's flags, made ahead by the second thread.
    ahead: Option<Ahead>,
    /// A second flag buffer, for the block made ahead.
    spare_flags: FarFlags,
    /// Witness scans deferred by the last block, not yet checked (and a
    /// list to reuse).
    pending: Deferred,
    spare_pending: Deferred,
    /// Pairs the main thread scans before deferring the rest (adapted).
    budget: usize,
    /// Whether blocks flagged from now on get the first round of every
    /// heap's witness scan in their tiles, and the votes for it so far in
    /// the current block (see [`Sparse::sparse_value`]).
    middle: bool,
    middle_votes: usize,
    /// No deferring below this heap (raised after each roll-back).
    spec_from: usize,
    /// Whether pipelining the blocks pays (with two threads).
    pace: Pace,
    /// Without sparse space, the diagonal method (for games with splits).
    diagonals: Option<Diagonals>,
    /// With two threads, the second one for the pipelined blocks.
    helper: Option<Helper>,
    /// The far pairs of the block made ahead, of the current block (for
    /// the values of its checked runs), and of its band, as runs (see
    /// [`far_runs`]).
    next_runs: Runs,
    block_runs: Runs,
    runs: Runs,
    /// Per split distance, how many rare heaps (a prefix of the sorted
    /// list) have their partner inside the block: it only grows along a
    /// block, so it is kept, not searched for.
    cursors: Vec<usize>,
    /// Candidates a row is checked for, when half of the far runs are
    /// checked rather than flagged (see [`far_runs`]); fewer in tests.
    candidates: usize,
    /// Heaps whose mex lay past their row's limit, so that their far pairs
    /// were flagged one by one.
    fallbacks: usize,
}

/// Everything derived from `g[..built]`; rebuilt from any prefix.
#[derive(Default)]
struct State {
    built: usize,
    max: u32,
    hist: Histogram,
    mask: Option<Mask>,
    rare: Vec<usize>,
    /// `rare_x[j] = G(rare[j])`.
    rare_x: Vec<u32>,
    next_choice: usize,
}

impl Sparse {
    pub fn new(code: &Code, threads: usize, spec: MaskSpec) -> Result<Sparse, SparseError> {
        // Exhaustive on purpose: a new kind of move must be taught to this
        // engine before it compiles, never silently ignored.
        let rules = code.rules();
        let diagonals = Diagonals::new(&rules, threads).filter(|_| Diagonals::worth_it(&rules));
        if rules.has_split3() {
            return Err(SparseError::Unsupported {
                code: code.to_string(),
            });
        }
        let Rules {
            take_all,
            take_leave_one,
            take_split,
            take_split3: _,
            unequal_splits,
        } = rules;
        let i0 = take_split.first().copied().unwrap_or(0);
        let allow_pp = take_split.iter().all(|&i| (i ^ i0) & 1 == 0);
        if let MaskSpec::Fixed(m) = spec {
            if m.pp && !allow_pp {
                return Err(SparseError::PositionParity {
                    mask: spec.to_string(),
                    code: code.to_string(),
                });
            }
        }
        // Two threads at most: this one and the helper.
        let helper = (threads > 1).then(Helper::new).flatten();
        Ok(Sparse {
            take_all,
            take_leave_one,
            splits: take_split,
            halves: Halves { unequal_splits },
            i0,
            allow_pp,
            spec,
            threads: if helper.is_some() { 2 } else { 1 },
            state: State::default(),
            flags: FarFlags::default(),
            row8: Vec::new(),
            open: Vec::new(),
            class: [Vec::new(), Vec::new()],
            set: Vec::new(),
            pending: Deferred::default(),
            spare_pending: Deferred::default(),
            ahead: None,
            spare_flags: FarFlags::default(),
            budget: 4 * MIDDLE_PAIRS,
            spec_from: SPEC_FROM,
            pace: Pace::default(),
            middle: false,
            middle_votes: 0,
            diagonals,
            helper,
            next_runs: Runs::default(),
            block_runs: Runs::default(),
            runs: Runs::default(),
            cursors: Vec::new(),
            candidates: CANDIDATES,
            fallbacks: 0,
        })
    }

    /// Defers witness scans (with two threads) from heap `from` on, after
    /// `budget` pairs at first. For tests, which need the roll-back of a
    /// failed check to happen often: the default waits for heap 2^15.
    #[doc(hidden)]
    pub fn defer_from(&mut self, from: usize, budget: usize) {
        self.spec_from = from;
        self.budget = budget;
    }

    /// Checks the checked far runs of each heap for `k` candidates (1 to
    /// [`CANDIDATES`]), for tests, which need the mex to lie past a row's
    /// limit often (see [`far_runs`]).
    #[doc(hidden)]
    pub fn check_candidates(&mut self, k: usize) {
        self.candidates = k.clamp(1, CANDIDATES);
    }

    /// How many heaps had their mex past their row's limit.
    #[doc(hidden)]
    pub fn fallbacks(&self) -> usize {
        self.fallbacks
    }

    /// Makes the state describe `g` (all known values).
    fn rebuild<V: Value>(&mut self, g: &[V]) {
        self.state = State::default();
        self.ahead = None;
        if let Some(d) = &mut self.diagonals {
            d.clear();
        }
        for (n, v) in g.iter().enumerate() {
            self.note(n, v.get());
        }
        self.state.built = g.len();
        self.choose(g);
    }

    /// Records G(n) = v in the statistics (not the rare list).
    #[inline]
    fn note(&mut self, n: usize, v: u32) {
        self.state.max = self.state.max.max(v);
        if n >= 1 {
            self.state.hist.push(n, v, self.i0);
        }
    }

    /// Picks the mask for the values `g` and rebuilds the rare list.
    fn choose<V: Value>(&mut self, g: &[V]) {
        let n = g.len();
        let st = &mut self.state;
        st.next_choice = (n + 1).next_power_of_two().max(FIRST_CHOICE);
        let mask = if self.splits.is_empty() {
            None
        } else {
            match self.spec {
                MaskSpec::Off => None,
                MaskSpec::Fixed(m) => Some(m),
                MaskSpec::Auto if n < FIRST_CHOICE => None,
                MaskSpec::Auto => st
                    .hist
                    .best(self.allow_pp)
                    .filter(|&(_, rare)| rare as usize * MAX_RARE_FRACTION <= n)
                    .map(|(m, _)| m),
            }
        };
        if mask != st.mask {
            st.mask = mask;
            st.rare.clear();
            st.rare_x.clear();
            if let Some(m) = mask {
                let i0 = self.i0;
                st.rare
                    .extend((1..n).filter(|&r| m.is_rare(r, g[r].get(), i0)));
                st.rare_x.extend(st.rare.iter().map(|&r| g[r].get()));
            }
        }
    }

    /// Stores G(n) = v, or reports that it does not fit `V`.
    #[inline]
    fn push<V: Value>(&mut self, g: &mut [V], n: usize, v: u32) -> Result<(), Overflow> {
        g[n] = fit(v, n)?;
        self.note_new(n, v);
        Ok(())
    }

    /// Records G(n) = v, stored by the caller, as the next value.
    #[inline]
    fn note_new(&mut self, n: usize, v: u32) {
        self.note(n, v);
        if let Some(m) = self.state.mask {
            if n >= 1 && m.is_rare(n, v, self.i0) {
                self.state.rare.push(n);
                self.state.rare_x.push(v);
            }
        }
        self.state.built = n + 1;
    }

    fn extend<V: Value>(&mut self, g: &mut [V], from: usize) -> Result<(), Overflow> {
        if from != self.state.built || from == 0 {
            self.rebuild(&g[..from]);
        }
        let mut n = from;
        loop {
            // Deferred witness scans are all checked before values leave
            // the engine, before an overflow is reported, and before the
            // heap-by-heap path (which does not check them).
            let must_settle = n >= g.len() || self.state.mask.is_none();
            if must_settle && !self.pending.is_empty() {
                if let Some(again) = self.settle(g) {
                    n = again;
                    continue;
                }
            }
            if n >= g.len() {
                return Ok(());
            }
            if n >= self.state.next_choice {
                self.choose(&g[..n]);
                continue;
            }
            let end = g.len().min(self.state.next_choice);
            n = match self.state.mask {
                Some(mask) => match self.sparse_block(g, n, end, mask) {
                    Ok(n) => n,
                    Err(e) => match self.settle(g) {
                        Some(again) => again,
                        None => return Err(e),
                    },
                },
                None => {
                    for k in n..end {
                        let v = self.full_value(&g[..k]);
                        self.push(g, k, v)?;
                    }
                    end
                }
            };
        }
    }

    /// Values below this bound cover every option so far (XORs included).
    fn bound(&self) -> usize {
        value_bound(self.state.max)
    }

    /// Options of heap `n` that are not splits, flagged in `row`.
    #[inline]
    fn flag_simple(&self, n: usize, g: impl Fn(usize) -> u32, row: &mut impl Marks) {
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

    /// Flags in `row` the options of heap `n = g.len()` that are not
    /// flagged with its block: the non-split options, and the pairs of
    /// rare heaps with partners in the block (`rare[..new_start]`, whose
    /// other pairs were flagged with the block) or rare heaps in it.
    #[inline]
    fn flag_near<V: Value>(&mut self, g: Parts<V>, new_start: usize, row: &mut impl Marks) {
        let n = g.len();
        let n0 = g.pre.len();
        self.flag_simple(n, |i| g.get(i), row);
        let rare = &self.state.rare;
        let xs = &self.state.rare_x;
        // Those with a partner in the block are a prefix of the sorted
        // list (r ≤ n − n0 − i), so each split keeps a cursor.
        for (&i, k) in self.splits.iter().zip(&mut self.cursors) {
            if n >= n0 + i {
                while *k < new_start && rare[*k] + n0 + i <= n {
                    *k += 1;
                }
                row.gather(&xs[..*k], &rare[..*k], g.post, n - i - n0);
            }
        }
        // Rare heaps of this block, with any partner.
        for &r in &rare[new_start..] {
            let x = g.get(r);
            for &i in &self.splits {
                if n > i + r && self.halves.allows(r, n - i - r) {
                    row.mark(x ^ g.get(n - i - r));
                }
            }
        }
    }

    /// G(n) for `n = g.len()` without sparse space: by the diagonal method
    /// when the game has splits, else the mex of the other options.
    fn full_value<V: Value>(&mut self, g: &[V]) -> u32 {
        let n = g.len();
        let bound = self.bound();
        if let Some(d) = &mut self.diagonals {
            return d.value(g, bound);
        }
        let mut row = std::mem::take(&mut self.row8);
        row.clear();
        row.resize(bound, 0);
        self.flag_simple(n, |i| g[i].get(), &mut &mut row[..]);
        let v = first_unflagged(&row) as u32;
        self.row8 = row;
        v
    }

    /// Computes a block of heaps from `n0` (at most up to `end`) with the
    /// sparse-space method; returns where it stopped.
    fn sparse_block<V: Value>(
        &mut self,
        g: &mut [V],
        n0: usize,
        end: usize,
        mask: Mask,
    ) -> Result<usize, Overflow> {
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
        // checks the witness scans the previous block deferred and flags
        // the next block's pairs with partners before this block: both
        // need only the values before this block.
        let (pre, post) = g.split_at_mut(n0);
        let pre: &[V] = pre;
        let spec = self.helper.is_some() && n0 >= self.spec_from && self.pace.pipelined(n0);
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
            middle: next.as_ref().is_some_and(|a| a.middle),
            class: &class,
            mask,
            i0: self.i0,
            candidates: self.candidates,
        };
        let tiles: Vec<Mutex<(&mut [u64], &mut [u32])>> = match &mut next {
            Some(a) => a.flags.tiles(per_tile, w).map(Mutex::new).collect(),
            None => Vec::new(),
        };
        let claimed = AtomicUsize::new(0);
        let fill_tiles = || loop {
            let t = claimed.fetch_add(1, Ordering::Relaxed);
            let Some(tile) = tiles.get(t) else { break };
            let mut tile = tile.lock().unwrap_or_else(|e| e.into_inner());
            let (bits, lims) = &mut *tile;
            flag_block(&next_tiling, bits, lims, t * per_tile);
        };
        let checks = Checks::new(pre, &jobs, &splits, halves);
        let mut helper = self.helper.take();
        let mut sequential = || {
            let t = Instant::now();
            if made_ahead && known_end < n0 {
                // While the helper works, this thread flags the rest of the
                // far pairs: those with a partner in the block before (the
                // heap by heap gather would cost each heap a pass over every
                // rare heap below two blocks).
                let (rare, splits, halves) = (&self.state.rare, &self.splits[..], self.halves);
                // Heap h's partner h − i − r lies at or after known_end only
                // for r < h − known_end: the rest of the (sorted) list has no
                // pair here, and skipping it saves a pass over every rare
                // heap per tile.
                let reach = rare[..new_start].partition_point(|&r| r < n0 + b - known_end);
                let band = &rare[..reach];
                let runs = &mut self.runs;
                far_runs(
                    pre,
                    known_end,
                    band,
                    splits,
                    halves,
                    n0,
                    n0 + b,
                    false,
                    runs,
                );
                let band = Tiling {
                    runs,
                    h0: n0,
                    middle: false,
                    ..next_tiling
                };
                flag_block(&band, &mut flags.bits, &mut flags.lims, 0);
            }
            self.cursors.clear();
            self.cursors.resize(self.splits.len(), 0);
            let mut deferred = std::mem::take(&mut self.spare_pending);
            deferred.clear();
            let mut k = 0;
            let result = loop {
                if k == b {
                    break Ok(n0 + k);
                }
                let (done, rest) = post.split_at_mut(k);
                let parts = Parts { pre, post: done };
                let v = self.sparse_value(
                    parts,
                    &flags.bits[k * w..(k + 1) * w],
                    flags.lims[k],
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
                if v as usize >= row {
                    // Later rows are too narrow for the new values.
                    break Ok(n0 + k);
                }
            };
            self.pending = deferred;
            self.middle = 2 * self.middle_votes > b;
            let heaps = t.elapsed();
            checks.run();
            fill_tiles();
            (result, heaps, t.elapsed())
        };
        let (helped, (result, heaps, took)) = match &mut helper {
            Some(helper) if !jobs.is_empty() || !tiles.is_empty() => {
                let other = || {
                    let t = Instant::now();
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
        self.helper = helper;
        self.ahead = next;
        self.next_runs = next_runs;
        // Balance the threads: the main one defers more of its witness
        // scans when the helper ran out of work before the heaps were done,
        // fewer when it did not. (Whatever is left of the checks and the
        // next block's flags goes to whichever thread is free.)
        if let Some(helped) = helped {
            let idle = self.budget == 0;
            let (h, m) = (helped.as_secs_f64(), took.as_secs_f64());
            self.pace.record(h, m, idle, n0 + b);
            if helped > heaps {
                self.budget = (self.budget * 2).clamp(MIN_BUDGET, MAX_BUDGET);
            } else if helped < heaps {
                self.budget /= 2;
                if self.budget < MIN_BUDGET {
                    self.budget = 0;
                }
            }
        }
        self.spare_flags = std::mem::replace(&mut self.flags, flags);
        match failed {
            Some(bad) => Ok(self.roll_back(g, bad)),
            None => result,
        }
    }

    /// A deferred check failed: G(n) = v, not the value taken. Everything
    /// after heap n is recomputed, without deferring before 2n.
    fn roll_back<V: Value>(&mut self, g: &mut [V], (n, v): (usize, u32)) -> usize {
        g[n] = V::from_u32(v);
        self.pending.clear();
        self.rebuild(&g[..n + 1]);
        self.spec_from = self.spec_from.max(2 * (n + 1));
        n + 1
    }

    /// Checks every deferred witness scan; on a failure, rolls back and
    /// returns where to go on from.
    fn settle<V: Value>(&mut self, g: &mut [V]) -> Option<usize> {
        let jobs = std::mem::take(&mut self.pending);
        let (splits, halves) = (&self.splits[..], self.halves);
        let known: &[V] = g;
        let checks = Checks::new(known, &jobs, splits, halves);
        match self.helper.as_mut() {
            Some(helper) if jobs.len() > 1 => {
                helper.join(|| checks.run(), || checks.run());
            }
            _ => checks.run(),
        }
        let failed = checks.failure();
        failed.map(|bad| self.roll_back(g, bad))
    }

    /// Whether the tiles of a block ending at `end` (rows of `row` bytes,
    /// values `G(..known)` known when it is flagged) flag the first round
    /// of every heap's witness scan: when the last block voted for it, the
    /// rows are wide (narrow ones never take that round as flags) and every
    /// pair of the round is known.
    fn middle_in_tiles(&self, end: usize, row: usize, known: usize) -> bool {
        self.middle && row > 64 && middle_known(end, &self.splits, self.halves) <= known
    }

    /// Heaps in the block from `n0` (below `end`), with rows of `row` bytes.
    fn block_len(&self, n0: usize, end: usize, row: usize) -> usize {
        (end - n0)
            .min((n0 / 4).max(1))
            .min((FLAG_BUDGET / row).max(1))
            .min(MAX_BLOCK)
    }

    /// Flags in `flags` (the block from `n0`, bit rows for the values
    /// below `row`) the pairs of every rare heap with a partner in `known`
    /// (`G(..n0)`): a block not made ahead, split with the helper when it
    /// is long enough to pay for the hand-over.
    #[allow(clippy::too_many_arguments)]
    fn flag_far<V: Value>(
        &mut self,
        flags: &mut FarFlags,
        known: &[V],
        n0: usize,
        row: usize,
        mask: Mask,
        middle: bool,
    ) {
        let w = row_words(row);
        let b = flags.lims.len();
        let (splits, halves) = (&self.splits[..], self.halves);
        let checked = checks_pay::<V>(row, low_bytes(row, mask));
        let runs = &mut self.block_runs;
        far_runs(
            known,
            1,
            &self.state.rare,
            splits,
            halves,
            n0,
            n0 + b,
            checked,
            runs,
        );
        let tiling = Tiling {
            known,
            runs,
            h0: n0,
            row,
            splits,
            halves,
            middle,
            class: &self.class,
            mask,
            i0: self.i0,
            candidates: self.candidates,
        };
        match self.helper.as_mut() {
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

    /// Fills `class` for masks on values below `row`.
    fn prepare_classes(&mut self, row: usize, mask: Mask) {
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

    /// G(n) for `n = g.len()`, given the flags of the far rare pairs
    /// (`far`, a bit row for the values below `row`, exact up to `lim`;
    /// with `middle`, also the first round of the witness scan). With a
    /// `budget` of pairs, a witness scan still open after it is added to
    /// the [`Deferred`] checks and G(n) is taken to be `mo` until the check
    /// says otherwise.
    #[allow(clippy::too_many_arguments)]
    fn sparse_value<V: Value>(
        &mut self,
        g: Parts<V>,
        far: &[u64],
        lim: u32,
        row_len: usize,
        mask: Mask,
        new_start: usize,
        budget: Option<(usize, &mut Deferred)>,
        middle: bool,
    ) -> u32 {
        let n = g.len();
        let mut row8 = std::mem::take(&mut self.row8);
        let mut open = std::mem::take(&mut self.open);
        open.resize(far.len(), 0);
        // Rows of up to 64 values are flagged in a register; wider ones a
        // byte per value. Either way `open` gets the values not flagged.
        let small = row_len <= 64;
        let mut bits = 0u64;
        if small {
            self.flag_near(g, new_start, &mut bits);
        } else {
            row8.clear();
            row8.resize(row_len, 0);
            self.flag_near(g, new_start, &mut &mut row8[..]);
        }
        let q = mask.q(n, self.i0) as usize;
        // mo: the least open value of the other class (or the row's end).
        open_values(small.then_some(bits), &row8, far, &mut open, row_len);
        let mut mo = least_of(&open, &self.class[q ^ 1], row_len);
        if mo > lim as usize {
            // The far runs checked rather than flagged were checked only
            // for the values up to the limit: flag their values here
            // (rare; see [`far_runs`]).
            self.fallbacks += 1;
            let k = n - g.pre.len();
            let values = self.block_runs.checked_values(k, g.pre);
            if small {
                values.for_each(|v| bits.mark(v));
            } else {
                values.for_each(|v| (&mut row8[..]).mark(v));
            }
            open_values(small.then_some(bits), &row8, far, &mut open, row_len);
            mo = least_of(&open, &self.class[q ^ 1], row_len);
        }
        let row = &mut row8[..];
        // Values of class q below mo that nothing flagged yet each need a
        // witness among all split pairs: the least without one is G(n),
        // else G(n) = mo.
        let mut set = std::mem::take(&mut self.set);
        set.clear();
        set.extend(
            open.iter()
                .zip(&self.class[q])
                .take(mo.div_ceil(64))
                .map(|(o, c)| o & c),
        );
        if !mo.is_multiple_of(64) {
            set[mo / 64] &= (1 << (mo % 64)) - 1;
        }
        // A large set loses most of its values in the first round of the
        // scan (the pairs nearest the middle). Striking them one at a time
        // costs a chain of dependent steps each; flagging the round's pairs
        // costs a store each, and then the scan goes on from the next
        // round. Every split pair is an option, so the row stays exact.
        // The tiles may have flagged that round already (`middle`): they do
        // for the blocks after one in which most heaps voted for it, by a
        // large set here or, with the round flagged, a set it left not
        // small (so a game whose sets are small goes back to scanning it).
        // A set still not small after it has the second round (the low
        // pairs, whose partners are the newest values) flagged here too.
        let left = members(&set);
        let mut from = 0;
        // Flags round c of every split into the row, and takes what it
        // reached out of the set.
        let splits = &self.splits;
        let halves = self.halves;
        let mut flag_round = |c: usize, row: &mut [u8], set: &mut [u64]| {
            for &i in splits {
                if let Some((m, a0, a1)) = round_pairs(n, i, halves, c) {
                    seam_pieces(g, m, a0, a1, |lo, hi| {
                        flag_pairs(row, lo, hi);
                        false
                    });
                }
            }
            // The set's values lie below mo ≤ row_len.
            let len = (set.len() * 64).min(row_len);
            let words = set.len();
            unflagged_bits(&row[..len], &mut open[..words]);
            for (s, o) in set.iter_mut().zip(&open) {
                *s &= o;
            }
        };
        if middle {
            from = 1;
            self.middle_votes += usize::from(left >= FLAG_FIRST_ROUND / 4);
        } else if !small && left >= FLAG_FIRST_ROUND {
            self.middle_votes += 1;
            flag_round(0, row, &mut set);
            from = 1;
        }
        // With a budget of 0 the helper is the idle one: the low round is
        // left to the check it takes.
        let defer_all = budget.as_ref().is_some_and(|b| b.0 == 0);
        if from == 1 && !small && !defer_all && members(&set) >= FLAG_LOW_ROUND {
            flag_round(1, row, &mut set);
            from = 2;
        }
        self.row8 = row8;
        self.open = open;
        let (splits, halves) = (&self.splits[..], self.halves);
        let limit = budget.as_ref().map(|b| b.0);
        let out = match strike_witnessed(g, n, splits, halves, &mut set, from, limit) {
            Strike::Empty => mo as u32,
            Strike::Exhausted => least_member(&set).expect("values left"),
            Strike::Paused(round) => {
                budget.expect("paused by a budget").1.push(n, round, &set);
                mo as u32
            }
        };
        self.set = set;
        out
    }
}

/// Where a heap's options are flagged: a row of a byte per value, or (for
/// rows of up to 64 values) the bits of one register.
trait Marks {
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

/// Whether pipelining the blocks pays, judged by how busy the helper is.
/// A game whose heaps cost little beyond the work that must stay on the
/// main thread (`.16`: small rows, few rare heaps, short scans) leaves the
/// helper idle most of a block even when it takes every deferrable scan,
/// and then the hand-overs cost more than they save: the blocks run on one
/// thread for a while ([`Pace::SOLO`] heaps), then the pipeline is tried
/// again.
#[derive(Debug, Default)]
struct Pace {
    /// Seconds the helper and the main thread were busy in the pipelined
    /// blocks since the last verdict, and how many blocks.
    helper: f64,
    main: f64,
    blocks: u32,
    /// No pipelining below this heap.
    solo_until: usize,
}

impl Pace {
    /// Pipelined blocks per verdict.
    const BLOCKS: u32 = 64;
    /// Heaps on one thread after a verdict against the pipeline.
    const SOLO: usize = 1 << 19;

    /// Whether the block from `n0` should be pipelined.
    fn pipelined(&self, n0: usize) -> bool {
        n0 >= self.solo_until
    }

    /// Records a pipelined block that ended at `n1`; `idle` says whether
    /// the main thread already defers all it can.
    fn record(&mut self, helper: f64, main: f64, idle: bool, n1: usize) {
        self.helper += helper;
        self.main += main;
        self.blocks += 1;
        if self.blocks == Self::BLOCKS {
            if idle && 3.0 * self.helper < self.main {
                self.solo_until = n1 + Self::SOLO;
            }
            *self = Pace {
                solo_until: self.solo_until,
                ..Pace::default()
            };
        }
    }
}

/// A block's flags made ahead: the pairs of the rare heaps
/// `rare[..new_start]` with partners below `known_end`, for the `b` heaps
/// from `n0`, in bit rows for the values below `row`, under `mask`.
struct Ahead {
    n0: usize,
    b: usize,
    row: usize,
    mask: Mask,
    new_start: usize,
    known_end: usize,
    /// The first scan round of every heap is in `flags` too.
    middle: bool,
    flags: FarFlags,
}

/// The far flags of a block: a bit row of [`row_words`] words per heap (a
/// second thread makes them, and bits hand over an eighth of the bytes),
/// and each row's limit: a value of the row's mex class above it may be
/// the value of a checked run ([`Runs::flag_checked`]) without a flag.
#[derive(Default)]
struct FarFlags {
    bits: Vec<u64>,
    lims: Vec<u32>,
}

impl FarFlags {
    /// Rows for `b` heaps, nothing flagged, no limit.
    fn reset(&mut self, b: usize, w: usize) {
        self.bits.clear();
        self.bits.resize(b * w, 0);
        self.lims.clear();
        self.lims.resize(b, u32::MAX);
    }

    /// Keeps the first `b` rows.
    fn truncate(&mut self, b: usize, w: usize) {
        self.bits.truncate(b * w);
        self.lims.truncate(b);
    }

    /// The rows before heap `k` and from it.
    #[allow(clippy::type_complexity)]
    fn split_at(
        &mut self,
        k: usize,
        w: usize,
    ) -> ((&mut [u64], &mut [u32]), (&mut [u64], &mut [u32])) {
        let (a, b) = self.bits.split_at_mut(k * w);
        let (c, d) = self.lims.split_at_mut(k);
        ((a, c), (b, d))
    }

    /// The rows `per` heaps at a time.
    fn tiles(&mut self, per: usize, w: usize) -> impl Iterator<Item = (&mut [u64], &mut [u32])> {
        self.bits.chunks_mut(per * w).zip(self.lims.chunks_mut(per))
    }
}

/// What every tile of a block's far flags shares (see [`flag_block`]).
struct Tiling<'a, V> {
    /// The values the runs read.
    known: &'a [V],
    /// The block's far pairs, for rows `0..` from heap `h0`.
    runs: &'a Runs,
    h0: usize,
    /// Rows of `row` bytes.
    row: usize,
    splits: &'a [usize],
    halves: Halves,
    /// Whether the first round of each heap's witness scan is flagged too.
    middle: bool,
    /// For the checked runs: heap h's eligible values are the class
    /// `mask.q(h, i0) ^ 1` of `class`, the class of its mex, with
    /// `candidates` a row.
    class: &'a [Vec<u64>; 2],
    mask: Mask,
    i0: usize,
    candidates: usize,
}

/// Whether the checked runs of rows of `row` values compare low bytes
/// under `mask` (see [`Check::low_bytes`]): values of rows of 512 that
/// share their low byte have different classes when the mask holds bit 8,
/// and every checked run reaches only the row's class (see [`far_runs`]).
fn low_bytes(row: usize, mask: Mask) -> bool {
    row <= 256 || (row == 512 && mask.bits & 0x100 != 0)
}

/// Flags into `bits` (bit rows of [`row_words`] words, values below `row`)
/// and `lims` rows `first..` of the runs of `t`. A tile of byte rows at a
/// time is filled (a group of rows at a time, which stays in the L1 cache
/// while every run flags into it: [`Runs::flag_checked`]) and then packed
/// into the bit rows. With `middle`, the first round of each heap's
/// witness scan too.
fn flag_block<V: Value>(t: &Tiling<V>, bits: &mut [u64], lims: &mut [u32], first: usize) {
    // Each thread keeps its scratch: the pipeline calls this once per
    // claimed tile, where a fresh zeroed tile each time cost ~15% of the
    // two-thread time on 0.6.
    thread_local! {
        static SCRATCH: RefCell<Scratch> = RefCell::default();
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
        let Scratch { tile, tile_open } = scratch;
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
                        if let Some((m, a0, a1)) = round_pairs(h0 + k0 + k, i, halves, 0) {
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

/// What [`flag_block`] reuses from call to call: the tile of byte rows and
/// its packed bits.
#[derive(Default)]
struct Scratch {
    tile: Vec<u8>,
    tile_open: Vec<u64>,
}

/// Heaps per tile of byte rows of `row` bytes.
fn tile_heaps(row: usize) -> usize {
    (TILE_BYTES / row).max(8)
}

/// Words of a bit row for the values below `row`.
fn row_words(row: usize) -> usize {
    row.div_ceil(64)
}

/// Witness scans left open by the main thread: heap `n` was given the
/// value `mo` on the condition that every value in its set has a witness
/// among the pairs from scan round `round` on. A second thread checks them
/// while the next block is computed; a failed check rolls the sequence
/// back. The sets lie one after another in `words` (a block defers
/// hundreds: an allocation each cost ~2% of the main thread's time).
#[derive(Debug, Default)]
struct Deferred {
    scans: Vec<(usize, usize, Range<usize>)>,
    words: Vec<u64>,
}

impl Deferred {
    fn push(&mut self, n: usize, round: usize, set: &[u64]) {
        let at = self.words.len();
        self.words.extend_from_slice(set);
        self.scans.push((n, round, at..self.words.len()));
    }

    /// Scan `j`: its heap, round and set.
    fn get(&self, j: usize) -> Option<(usize, usize, &[u64])> {
        let (n, round, at) = self.scans.get(j)?;
        Some((*n, *round, &self.words[at.clone()]))
    }

    fn len(&self) -> usize {
        self.scans.len()
    }

    fn is_empty(&self) -> bool {
        self.scans.is_empty()
    }

    fn clear(&mut self) {
        self.scans.clear();
        self.words.clear();
    }
}

/// Deferred witness scans to check, a job at a time to whichever thread
/// is free; each is checked against `g` (which holds at least G(0..n) of
/// each). The first that fails in heap order gives its heap and true value
/// (the least value left without a witness): the checks of later heaps may
/// rest on that wrong value, so theirs do not count (and are skipped once
/// the failure is known).
struct Checks<'a, V> {
    g: &'a [V],
    jobs: &'a Deferred,
    splits: &'a [usize],
    halves: Halves,
    next: AtomicUsize,
    failed: Mutex<Option<(usize, u32)>>,
}

impl<'a, V: Value> Checks<'a, V> {
    fn new(g: &'a [V], jobs: &'a Deferred, splits: &'a [usize], halves: Halves) -> Self {
        Checks {
            g,
            jobs,
            splits,
            halves,
            next: AtomicUsize::new(0),
            failed: Mutex::new(None),
        }
    }

    /// Claims and checks jobs until none is left.
    fn run(&self) {
        let failed_at = || {
            let f = self.failed.lock().unwrap_or_else(|e| e.into_inner());
            f.map_or(usize::MAX, |(n, _)| n)
        };
        let mut set = Vec::new();
        loop {
            let j = self.next.fetch_add(1, Ordering::Relaxed);
            let Some((n, round, words)) = self.jobs.get(j) else {
                break;
            };
            if failed_at() < n {
                continue;
            }
            set.clear();
            set.extend_from_slice(words);
            let parts = Parts {
                pre: self.g,
                post: &[],
            };
            let (splits, halves) = (self.splits, self.halves);
            if strike_witnessed(parts, n, splits, halves, &mut set, round, None) != Strike::Empty {
                let v = least_member(&set).expect("values left");
                let mut f = self.failed.lock().unwrap_or_else(|e| e.into_inner());
                if f.is_none_or(|(m, _)| n < m) {
                    *f = Some((n, v));
                }
            }
        }
    }

    /// The first failure in heap order, once every job has been run.
    fn failure(self) -> Option<(usize, u32)> {
        self.failed.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// The known values `G(0..n)` in two pieces, `pre` (the values before the
/// current block, which a second thread may be reading) and `post` (the
/// block's values so far): the block is written while `pre` is shared.
#[derive(Clone, Copy)]
struct Parts<'a, V> {
    pre: &'a [V],
    post: &'a [V],
}

impl<'a, V: Value> Parts<'a, V> {
    fn len(&self) -> usize {
        self.pre.len() + self.post.len()
    }

    #[inline]
    fn get(&self, i: usize) -> u32 {
        match i.checked_sub(self.pre.len()) {
            None => self.pre[i].get(),
            Some(j) => self.post[j].get(),
        }
    }

    /// `G(a..b)`, which must lie on one side of the seam.
    #[inline]
    fn slice(&self, a: usize, b: usize) -> &'a [V] {
        let s = self.pre.len();
        if b <= s {
            &self.pre[a..b]
        } else {
            &self.post[a - s..b - s]
        }
    }
}

/// Which pairs `a + b = m` a two-heap split leaves: all of them, or (the
/// `u` suffix, Grundy's game) only those with `a ≠ b`. Every pair loop of
/// this engine asks it, so an equal split is never flagged or witnessed.
#[derive(Debug, Clone, Copy)]
struct Halves {
    unequal_splits: bool,
}

impl Halves {
    /// The largest smaller part `a` of a split of `m` (pairs `1 ≤ a ≤ last`).
    #[inline]
    fn last(self, m: usize) -> usize {
        if self.unequal_splits {
            (m - 1) / 2
        } else {
            m / 2
        }
    }

    /// Whether the parts `a` and `b` may be left together.
    #[inline]
    fn allows(self, a: usize, b: usize) -> bool {
        !self.unequal_splits || a != b
    }
}

/// Lists in `runs` (rows `0..h1 − h0`, row `k` for heap `h0 + k`) the
/// pairs of each heap `r` in `heaps` with a known partner
/// `from ≤ h − i − r < known.len()` (`from ≥ 1`), never the equal pair
/// `h = 2r + i` when `halves` forbids it. Made once per block, the list
/// serves all its tiles (made per tile, it cost ~5% of the time).
///
/// With `checked`, every second run over all the rows whose partners are
/// all common (not in `heaps`) is checked rather than flagged
/// ([`Runs::push_checked`]): its pairs are rare × common, whose values
/// are all of the class of the heap's mex, so all the sparse engine needs
/// of them is whether they reach the row's least candidates. (Replayed on
/// 0.6 near 3·10^6: with half of the far runs flagged, the mex is among
/// the first 10 values of its class left open in 99% of the heaps, among
/// the first 13 in 99.9%.)
#[allow(clippy::too_many_arguments)]
fn far_runs<V: Value>(
    known: &[V],
    from: usize,
    heaps: &[usize],
    splits: &[usize],
    halves: Halves,
    h0: usize,
    h1: usize,
    checked: bool,
    runs: &mut Runs,
) {
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

/// Into `open`, the values below `row_len` that a row leaves open: those
/// of neither its near flags (`bits` for rows of up to 64 values, else the
/// bytes `row8`) nor its far flags `far`.
fn open_values(bits: Option<u64>, row8: &[u8], far: &[u64], open: &mut [u64], row_len: usize) {
    if let Some(bits) = bits {
        open[0] = !bits & !far[0] & (u64::MAX >> (64 - row_len));
        return;
    }
    unflagged_bits(row8, open);
    for (o, f) in open.iter_mut().zip(far) {
        *o &= !f;
    }
}

/// The least value (below `end`) in both bitsets, or `end`.
fn least_of(a: &[u64], b: &[u64], end: usize) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x & y != 0)
        .map_or(end, |k| k * 64 + (a[k] & b[k]).trailing_zeros() as usize)
        .min(end)
}

/// How many values a bitset holds.
fn members(set: &[u64]) -> u32 {
    set.iter().map(|w| w.count_ones()).sum()
}

/// The least value in a bitset, if any.
fn least_member(set: &[u64]) -> Option<u32> {
    let k = set.iter().position(|&w| w != 0)?;
    Some(k as u32 * 64 + set[k].trailing_zeros())
}

/// How a witness scan ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strike {
    /// Every value of the set has a witness.
    Empty,
    /// Every pair was scanned; the values left are unreachable.
    Exhausted,
    /// The budget ran out; the scan goes on from this round.
    Paused(usize),
}

/// Strikes from `set` every value that a split of heap `n` reaches, until
/// the set is empty or the pairs run out. Each split distance is scanned in
/// rounds of a chunk, interleaved with the other distances: first the
/// [`MIDDLE_PAIRS`] pairs nearest the middle (which witness most values),
/// then from the smallest heaps up. Measured on `0.6`, the small heaps (with
/// the irregular values of the sequence's start) witness the last, hardest
/// values within a few thousand pairs, where going on outwards from the
/// middle takes tens of thousands. Starts at round `from`; with a `budget`,
/// pauses after the round in which that many pairs have been scanned.
fn strike_witnessed<V: Value>(
    g: Parts<V>,
    n: usize,
    splits: &[usize],
    halves: Halves,
    set: &mut [u64],
    from: usize,
    budget: Option<usize>,
) -> Strike {
    if set.iter().all(|&w| w == 0) {
        return Strike::Empty;
    }
    let mut scanned = 0;
    let mut c = from;
    loop {
        if budget.is_some_and(|b| scanned >= b) {
            return Strike::Paused(c);
        }
        let mut any = false;
        for &i in splits {
            let Some((m, a0, a1)) = round_pairs(n, i, halves, c) else {
                continue;
            };
            any = true;
            scanned += a1 - a0;
            if seam_pieces(g, m, a0, a1, |lo, hi| strike_xors(set, lo, hi)) {
                return Strike::Empty;
            }
        }
        // Every round before the chunks may be empty (a short heap has
        // no low pairs, or no middle beyond the first step); a chunk
        // round only once the chunks are done.
        if !any && c >= FIXED_ROUNDS {
            return Strike::Exhausted;
        }
        c += 1;
    }
}

/// The pairs `(a, m − a)`, `a0 ≤ a < a1`, of split distance `i` of heap
/// `n` that round `c` of a witness scan takes (none if empty). The
/// pairs `(mid, half]` come first, [`MIDDLE_STEP`] a round from the centre
/// out (so that a budget may pause within them), with the low pairs
/// `[1, LOW_PAIRS]` as the second round; then the rest of `[1, mid]` a
/// [`CHUNK`] at a time. Every pair is in exactly one round.
#[inline]
fn round_pairs(n: usize, i: usize, halves: Halves, c: usize) -> Option<(usize, usize, usize)> {
    if n < i + 2 {
        return None;
    }
    let m = n - i;
    let half = halves.last(m);
    let mid = half.saturating_sub(MIDDLE_PAIRS);
    let low = LOW_PAIRS.min(mid);
    let (a0, a1) = if c == 1 {
        (1, low + 1)
    } else if c < FIXED_ROUNDS {
        // Middle step 0 is round 0, steps 1, 2, … rounds 2, 3, ….
        let step = c.saturating_sub(1);
        let a1 = (half + 1).saturating_sub(step * MIDDLE_STEP).max(mid + 1);
        (a1.saturating_sub(MIDDLE_STEP).max(mid + 1), a1)
    } else {
        let a0 = low + 1 + (c - FIXED_ROUNDS) * CHUNK;
        (a0, (a0 + CHUNK).min(mid + 1))
    };
    (a0 < a1).then_some((m, a0, a1))
}

/// How many values the first scan round of every heap below `end` reads
/// (the end of the highest run): a tile may flag that round only when they
/// are all known.
fn middle_known(end: usize, splits: &[usize], halves: Halves) -> usize {
    // The round's highest partner, m + 1 − a0 (about m/2 + 256), never
    // falls as the heap grows: the last heap reaches the highest.
    let Some(n) = end.checked_sub(1) else {
        return 0;
    };
    splits
        .iter()
        .filter_map(|&i| round_pairs(n, i, halves, 0))
        .map(|(m, a0, _)| m + 1 - a0)
        .max()
        .unwrap_or(0)
}

/// Calls `f(lo, hi)` on the runs of the pairs `(a, m − a)`,
/// `a0 ≤ a < a1`, cut where either run would cross the seam of `g`;
/// stops (and returns true) as soon as `f` does.
#[inline]
fn seam_pieces<V: Value>(
    g: Parts<V>,
    m: usize,
    a0: usize,
    a1: usize,
    mut f: impl FnMut(&[V], &[V]) -> bool,
) -> bool {
    let s = g.pre.len();
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

impl Engine for Sparse {
    fn extend_u16(&mut self, g: &mut [u16], from: usize) -> Result<(), Overflow> {
        self.extend(g, from)
    }
    fn extend_u32(&mut self, g: &mut [u32], from: usize) -> Result<(), Overflow> {
        self.extend(g, from)
    }
    fn info(&self) -> EngineInfo {
        let st = &self.state;
        EngineInfo {
            engine: "sparse",
            threads: self.threads,
            rare_mask: st.mask.map(|m| m.bits),
            rare_positions: st.mask.map(|_| st.rare.len() as u64),
            // G(0) = 0 in every game: heap 0 has no move.
            rare_positions_with_0: st
                .mask
                .map(|m| st.rare.len() as u64 + u64::from(m.is_rare(0, 0, self.i0))),
            last_rare_at: st.mask.and(st.rare.last().map(|&r| r as u64)),
        }
    }
    fn rare_positions(&self) -> Vec<u64> {
        let st = &self.state;
        match st.mask {
            Some(_) => st.rare.iter().map(|&r| r as u64).collect(),
            None => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{middle_known, round_pairs, Halves, Pace};

    #[test]
    fn middle_known_covers_the_first_round_of_every_heap_below_end() {
        // Against the highest value read by round 0 of every heap below
        // `end`, taken heap by heap (the function looks at the last only).
        for unequal_splits in [false, true] {
            let halves = Halves { unequal_splits };
            for splits in [&[1][..], &[1, 2], &[2, 5], &[3]] {
                let mut highest = 0;
                for end in 0..5000 {
                    assert_eq!(middle_known(end, splits, halves), highest, "end {end}");
                    for &i in splits {
                        if let Some((m, a0, a1)) = round_pairs(end, i, halves, 0) {
                            // Pairs (a, m − a) for a0 ≤ a < a1.
                            highest = highest.max(m - a0 + 1).max(a1);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_rounds_take_every_pair_once_and_end_after_the_first_empty_chunk() {
        // As strike_witnessed walks them: every round before the chunks,
        // then chunks until one is empty.
        for unequal_splits in [false, true] {
            let halves = Halves { unequal_splits };
            for n in (0..3000).chain([5000, 40_000, 1 << 20]) {
                for i in [0, 1, 2, 6] {
                    let mut taken = vec![0u8; n + 1];
                    let mut c = 0;
                    loop {
                        let r = round_pairs(n, i, halves, c);
                        if let Some((m, a0, a1)) = r {
                            assert_eq!(m, n - i);
                            for t in &mut taken[a0..a1] {
                                *t += 1;
                            }
                        } else if c >= super::FIXED_ROUNDS {
                            break;
                        }
                        c += 1;
                    }
                    // Nothing after the end either.
                    assert!((c..c + 3).all(|c| round_pairs(n, i, halves, c).is_none()));
                    // The splits of m = n − i into a + (m − a), a ≥ 1, the
                    // smaller part first (strictly, with the u suffix).
                    for (a, &t) in taken.iter().enumerate() {
                        let pair = n >= i + 2 && a >= 1 && {
                            let b = n - i - a.min(n - i);
                            if unequal_splits {
                                a < b
                            } else {
                                a <= b
                            }
                        };
                        let want = u8::from(pair);
                        assert_eq!(t, want, "n {n}, i {i}, a {a}, unequal {unequal_splits}");
                    }
                }
            }
        }
    }

    /// Feeds `Pace::BLOCKS` pipelined blocks ending at heap 1000 with the
    /// given busy seconds per block.
    fn verdict(helper: f64, main: f64, idle: bool) -> Pace {
        let mut p = Pace::default();
        for _ in 0..Pace::BLOCKS {
            assert!(p.pipelined(1000));
            p.record(helper, main, idle, 1000);
        }
        p
    }

    #[test]
    fn an_idle_helper_sends_the_blocks_to_one_thread_for_a_while() {
        let p = verdict(1.0, 4.0, true);
        assert!(!p.pipelined(1000));
        assert!(!p.pipelined(1000 + Pace::SOLO - 1));
        assert!(p.pipelined(1000 + Pace::SOLO));
    }

    #[test]
    fn a_busy_helper_or_one_that_could_take_more_keeps_the_pipeline() {
        // Busy: a third of the main thread's time or more.
        assert!(verdict(2.0, 4.0, true).pipelined(1000));
        // Idle, but the main thread still keeps scans it could defer.
        assert!(verdict(1.0, 4.0, false).pipelined(1000));
    }
}
