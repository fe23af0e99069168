//! The diagonal method: two-heap splits for games without sparse space.
//!
//! Why it exists: when no mask gives sparse space (Cookie Cutter with an
//! even cutter, `0.33…37`, is the classic case), every heap `n` must have
//! *all* its splits looked at: proving that G(n) is not among them takes a
//! scan of every pair of every split distance `t ∈ T`, about |T| · n/2
//! pair checks per heap. But the splits of `n` at distance `t` are exactly
//! the pairs of the *diagonal* `s = n − t`,
//!
//! ```text
//! D(s) = { G(a) ⊕ G(s − a) : 1 ≤ a ≤ s/2 }   (a < s − a with the u suffix)
//! ```
//!
//! and each diagonal is shared by |T| consecutive heaps. So each D(s) is
//! computed once, as a bitset (one full scan of its pairs,
//! [`or_pair_xors`]), the last few are kept in a ring, and G(n) is the mex
//! of the union of |T| cached sets and the non-split options: about n/2
//! pair checks per heap, whatever |T|. Nothing is skipped: every pair of
//! every diagonal is looked at, so the values are exact.
//!
//! A diagonal missing from the ring (a run resumed from a prefix, or the
//! sparse engine coming back from sparse space) is computed on demand. A
//! long diagonal can be shared with a second thread: both take slices of
//! it in turn, each into its own set, OR-ed at the end. The second thread
//! reads its own copy of the values: two cores scanning one array were
//! slower each than two scanning two copies (docs/engine.md, the diagonal
//! method; the copy costs a store per value).
//!
//! A game of one split distance (the strips `0.33…37`) uses each diagonal
//! for one heap only; where the whole set costs a store a pair, its long
//! diagonals may instead give the heap's mex *by candidates* (see
//! [`candidates`]): part of the diagonal flagged, the rest compared with
//! the least values still unseen. Which of the two runs is measured.

use std::any::Any;
use std::sync::atomic::AtomicUsize;
use std::time::Instant;

use octal_kernels::diagonal::{or_pair_xors, sets_in_registers};
use octal_kernels::Value;

use super::api::{fit, value_bound, Engine, EngineInfo, Overflow};
use super::candidates;
use super::chooser::Chooser;
use super::helper::{run_slices, Helper};
use super::tuning::{
    BATCH, CANDIDATE_EPOCH, CANDIDATE_PAIRS, DIAGONAL_EPOCH, DIAGONAL_TRIAL, MAX_SLICES,
    PARALLEL_PAIRS, SLICE_PAIRS,
};
use crate::code::{Code, Rules};

/// Cached diagonal sets of one game; see the module documentation.
pub struct Diagonals {
    take_all: Vec<usize>,
    take_leave_one: Vec<usize>,
    /// Split distances, ascending.
    splits: Vec<usize>,
    unequal: bool,
    /// `ring[s % ring.len()]` holds D(s) when its tag is `s`.
    ring: Vec<Slot>,
    /// Width of every set, in 64-bit words (a power of two).
    words: usize,
    union: Vec<u64>,
    /// Per-thread sets and byte scratch for a shared diagonal.
    halves: [Vec<u64>; 2],
    scratch: [Vec<u8>; 2],
    /// Two threads wanted; the helper is started on first use.
    parallel: bool,
    helper: Option<Helper>,
    /// Whether long diagonals are shared (`on`), chosen by their measured
    /// cost per pair: on an idle machine sharing wins; on a busy one (the
    /// helper time-sliced with this thread, or descheduled holding a
    /// slice) it can lose, and the helper then sleeps.
    chooser: Chooser,
    /// Diagonals computed (for tests and statistics).
    computed: u64,
    /// Diagonals of at least this many pairs are split between threads.
    parallel_pairs: usize,
    /// The helper's copy of the values (a `Vec<V>`), made on first use.
    copy: Option<Box<dyn Any + Send>>,
    /// One split distance and sets not held in registers: long diagonals
    /// may take the mex by candidates, whichever of that and the whole set
    /// `by_candidates` measures cheaper per pair.
    candidates: bool,
    by_candidates: Chooser,
    /// Diagonals of at least this many pairs may take the candidates.
    candidate_pairs: usize,
    /// Candidates whenever the game allows (tests).
    forced: bool,
    one_split: bool,
    /// The dense parts of diagonals (see [`candidates`]): `seen[0]` holds
    /// that of D(s) when `seen_s` is `s`; `seen[1]` and `seen[2]` are the
    /// helper's and this thread's shares of the next one's, made in their
    /// own byte rows (`rows[1]` and `rows[0]`).
    rows: [Vec<u8>; 2],
    seen: [Vec<u64>; 3],
    seen_s: Option<usize>,
    /// The values backwards (a [`Reversed`]), for the candidates' scans.
    reversed: Option<Box<dyn Any + Send>>,
}

#[derive(Default, Clone)]
struct Slot {
    s: Option<usize>,
    bits: Vec<u64>,
}

impl Diagonals {
    /// The method for `rules`, or `None` when the game has moves it does
    /// not know (three-heap splits).
    pub fn new(rules: &Rules, threads: usize) -> Option<Diagonals> {
        let Rules {
            take_all,
            take_leave_one,
            take_split,
            take_split3,
            unequal_splits,
        } = rules.clone();
        if !take_split3.is_empty() {
            return None;
        }
        // The diagonals one heap needs, D(n − b) … D(n − a), and room for
        // a batch from D(n − a) (computed ahead by two threads) that
        // overwrites none of them.
        let span = match (take_split.first(), take_split.last()) {
            (Some(&a), Some(&b)) => b - a + BATCH,
            _ => 1,
        };
        let one_split = take_split.len() == 1;
        let mut d = Diagonals {
            take_all,
            take_leave_one,
            splits: take_split,
            unequal: unequal_splits,
            ring: vec![Slot::default(); span],
            words: 1,
            union: Vec::new(),
            halves: [Vec::new(), Vec::new()],
            scratch: [Vec::new(), Vec::new()],
            parallel: threads > 1,
            helper: None,
            chooser: Chooser::new(DIAGONAL_TRIAL, DIAGONAL_EPOCH),
            computed: 0,
            parallel_pairs: PARALLEL_PAIRS,
            copy: None,
            candidates: false,
            by_candidates: Chooser::new(DIAGONAL_TRIAL, CANDIDATE_EPOCH),
            candidate_pairs: CANDIDATE_PAIRS,
            forced: false,
            one_split,
            rows: [Vec::new(), Vec::new()],
            seen: [Vec::new(), Vec::new(), Vec::new()],
            seen_s: None,
            reversed: None,
        };
        d.candidates = d.candidates_allowed();
        Some(d)
    }

    /// Whether long diagonals may take the candidates: one split distance,
    /// and sets not held in registers (or forced).
    fn candidates_allowed(&self) -> bool {
        self.one_split && (self.forced || !sets_in_registers())
    }

    /// Splits diagonals of at least `pairs` pairs between two threads (the
    /// default is measured; tests lower it to reach the split path).
    pub fn set_parallel_pairs(&mut self, pairs: usize) {
        self.parallel_pairs = pairs.max(2);
    }

    /// Takes the mex by candidates for every diagonal of at least `pairs`
    /// pairs, on any path, whenever the game has one split distance (the
    /// default chooses by measured cost, and keeps the whole set where it
    /// is held in registers; tests use this to reach the candidates).
    pub fn force_candidates(&mut self, pairs: usize) {
        self.candidate_pairs = pairs.max(1);
        self.forced = true;
        self.candidates = self.candidates_allowed();
    }

    /// True when this method beats the witness search of
    /// the sparse engine for `rules`: whenever there are
    /// splits (measured without a mask: docs/engine.md, the diagonal
    /// method).
    pub fn worth_it(rules: &Rules) -> bool {
        !rules.take_split.is_empty()
    }

    /// Forgets every cached diagonal: to be called whenever the values the
    /// next calls see may differ from those seen so far.
    pub fn clear(&mut self) {
        for slot in &mut self.ring {
            slot.s = None;
        }
        self.words = 1;
        self.copy = None;
        self.seen_s = None;
        self.reversed = None;
        self.candidates = self.candidates_allowed();
    }

    /// The helper's copy of `g`, brought up to date: the values it holds
    /// are never changed (a caller whose values change calls
    /// [`Diagonals::clear`]), so only the new ones are copied.
    fn copy_of<'a, V: Value>(copy: &'a mut Option<Box<dyn Any + Send>>, g: &[V]) -> &'a [V] {
        let c = boxed::<Vec<V>>(copy);
        c.truncate(g.len());
        if c.last() != g[..c.len()].last() {
            // Not the values it was made from (a broken promise, caught
            // cheaply on the last one): copy them all again.
            c.clear();
        }
        c.extend_from_slice(&g[c.len()..]);
        c
    }

    /// How many diagonals have been computed so far.
    pub fn computed(&self) -> u64 {
        self.computed
    }

    /// G(n) for `n = g.len()`, given G(0), …, G(n−1) in `g`; `bound` is a
    /// power of two above every value of `g` (so above every XOR).
    pub fn value<V: Value>(&mut self, g: &[V], bound: usize) -> u32 {
        assert!(bound.is_power_of_two(), "bound not a power of two");
        let n = g.len();
        let words = (bound / 64).max(1);
        if words > self.words {
            // Wider sets: the cached ones only gain zeros.
            self.words = words;
            for slot in &mut self.ring {
                slot.bits.resize(words, 0);
            }
        }
        let words = self.words;
        let mut union = std::mem::take(&mut self.union);
        union.clear();
        union.resize(words, 0);
        for &i in &self.take_all {
            if n == i {
                union[0] |= 1;
            }
        }
        for &i in &self.take_leave_one {
            if n > i {
                let v = g[n - i].get() as usize;
                union[v / 64] |= 1 << (v % 64);
            }
        }
        if self.candidates && n >= self.splits[0] + 2 {
            let s = n - self.splits[0];
            let top = self.top(s);
            if top >= self.candidate_pairs {
                let started = Instant::now();
                let v = if self.forced || self.by_candidates.on() {
                    let v = self.by_candidates(g, s, &union);
                    // None: values too wide for a row; the whole set from
                    // now until the values start again (`clear`).
                    self.candidates = v.is_some();
                    v
                } else {
                    None
                };
                let v = v.unwrap_or_else(|| {
                    self.or_diagonal(g, s, &mut union);
                    mex_of(&union)
                });
                self.by_candidates.record(started.elapsed(), top);
                self.union = union;
                return v;
            }
        }
        for j in 0..self.splits.len() {
            let t = self.splits[j];
            if n >= t + 2 {
                self.or_diagonal(g, n - t, &mut union);
            }
        }
        let v = mex_of(&union);
        self.union = union;
        v
    }

    /// ORs D(s) into `union`, computing it if it is not in the ring.
    fn or_diagonal<V: Value>(&mut self, g: &[V], s: usize, union: &mut [u64]) {
        let k = s % self.ring.len();
        if self.ring[k].s != Some(s) {
            self.compute(g, s, k);
        }
        for (u, &b) in union.iter_mut().zip(&self.ring[k].bits) {
            *u |= b;
        }
    }

    /// G(n) for the heap whose one split distance gives D(s), by
    /// candidates: `known` holds its other options. With two threads the
    /// dense part of D(s + 1) is made meanwhile: by the helper, and by
    /// this thread too once its mex is done. `None` when the
    /// values are too wide for a row (the whole set then serves).
    fn by_candidates<V: Value>(&mut self, g: &[V], s: usize, known: &[u64]) -> Option<u32> {
        let limit = 64 * self.words;
        if limit > 1 << 16 {
            return None;
        }
        let (top, t1) = (self.top(s), self.top(s + 1));
        let (lo, hi) = (&g[1..top + 1], &g[s - top..s]);
        let partners = Reversed::of(&mut self.reversed, g).partners(s, top);
        let [row, row1] = &mut self.rows;
        let [seen, seen1, seen2] = &mut self.seen;
        for set in [&mut *seen, &mut *seen1, &mut *seen2] {
            set.resize(self.words, 0);
        }
        row.resize(limit, 0);
        row1.resize(limit, 0);
        if self.seen_s != Some(s) {
            candidates::dense(seen, row, lo, hi);
        }
        // D(s + 1) needs G(1), …, G(s): known unless the split distance is
        // 0 (Grundy's game), whose next diagonal needs this heap's value.
        let ahead = self.parallel && s < g.len();
        if ahead && self.helper.is_none() {
            self.helper = Helper::new();
        }
        let Some(helper) = self.helper.as_mut().filter(|_| ahead) else {
            self.seen_s = None;
            self.computed += 1;
            return Some(candidates::mex(seen, known, lo, partners, limit));
        };
        // The helper flags D(s + 1)'s dense part; this thread, its mex
        // done, takes the segments still unclaimed. Each thread in its own
        // row and set.
        let copy = Self::copy_of(&mut self.copy, g);
        let claim = AtomicUsize::new(0);
        seen1.fill(0);
        seen2.fill(0);
        let ((), v) = helper.join(
            || {
                let (lo1, hi1) = (&copy[1..t1 + 1], &copy[s + 1 - t1..s + 1]);
                candidates::dense_claimed(seen1, row1, lo1, hi1, &claim)
            },
            || {
                let v = candidates::mex(seen, known, lo, partners, limit);
                let (lo1, hi1) = (&g[1..t1 + 1], &g[s + 1 - t1..s + 1]);
                candidates::dense_claimed(seen2, row, lo1, hi1, &claim);
                v
            },
        );
        for ((w, a), b) in seen.iter_mut().zip(seen1.iter()).zip(seen2.iter()) {
            *w = a | b;
        }
        self.seen_s = Some(s + 1);
        self.computed += 1;
        Some(v)
    }

    /// The helper thread, started on first use (`None` if the system
    /// refuses a thread: then this one does all the work).
    fn helper(&mut self) -> Option<&mut Helper> {
        if self.helper.is_none() {
            self.helper = Helper::new();
        }
        self.helper.as_mut()
    }

    /// Pairs `a` of D(s): `1 ≤ a ≤ top(s)`.
    fn top(&self, s: usize) -> usize {
        if self.unequal {
            (s - 1) / 2
        } else {
            s / 2
        }
    }

    /// How many diagonals from D(s) the two threads compute at once.
    /// D(s + j) needs G(1), …, G(s + j − 1): known for s + j ≤ g.len().
    /// Those not cached yet (up to [`BATCH`]) are a batch of whole
    /// diagonals, each taken by whichever thread is free (the heaps after
    /// this one find them ready). The batch is cut to an even count: its
    /// diagonals are about as long as each other, and an odd one left one
    /// thread a diagonal more than the other (Cookie Cutter 6 has 7 known:
    /// 4 against 3; docs/performance.md).
    #[inline]
    fn batch_len<V: Value>(&self, g: &[V], s: usize) -> usize {
        let r = self.ring.len();
        let known = (0..BATCH)
            .take_while(|&j| {
                s + j <= g.len() && (j == 0 || self.ring[(s + j) % r].s != Some(s + j))
            })
            .count();
        if known > 1 {
            known & !1
        } else {
            known
        }
    }

    /// Computes the `batch` diagonals from D(s) into their slots, each by
    /// whichever thread is free (the helper reads `copy`, its copy of
    /// `g`); returns their pairs.
    fn compute_batch<V: Value>(&mut self, g: &[V], copy: &[V], s: usize, batch: usize) -> usize {
        let (words, r) = (self.words, self.ring.len());
        let tops: Vec<usize> = (0..batch).map(|j| self.top(s + j)).collect();
        for j in 0..batch {
            let slot = &mut self.ring[(s + j) % r];
            slot.s = None;
            slot.bits.clear();
            slot.bits.resize(words, 0);
        }
        let ring = self.ring.as_mut_ptr();
        let [s0, s1] = &mut self.scratch;
        let scratch = [Lent::new(s0), Lent::new(s1)];
        // SAFETY: the batch's slots are distinct (consecutive
        // diagonals, at most BATCH ≤ the ring's length), so the borrows
        // are disjoint.
        let sets: Vec<Lent<Vec<u64>>> = (0..batch)
            .map(|j| unsafe { Lent::new(&mut (*ring.add((s + j) % r)).bits) })
            .collect();
        let job = |slice: usize, thread: usize| {
            // SAFETY: each slice (diagonal) is run by one thread, and
            // each thread has its own scratch.
            let (bits, scratch) = unsafe { (sets[slice].get(), scratch[thread].get()) };
            let (s, top) = (s + slice, tops[slice]);
            let g = if thread == 0 { g } else { copy };
            or_pair_xors(bits, &g[1..top + 1], &g[s - top..s], scratch);
        };
        run_slices(self.helper(), batch, &job);
        for j in 1..batch {
            self.ring[(s + j) % r].s = Some(s + j);
        }
        self.computed += batch as u64 - 1;
        tops.iter().sum()
    }

    /// Computes D(s) into slot `k` (needs G(1), …, G(s−1)); with two
    /// threads, also the next diagonals already computable (a batch).
    fn compute<V: Value>(&mut self, g: &[V], s: usize, k: usize) {
        let words = self.words;
        let top = self.top(s);
        let long = self.parallel && top >= self.parallel_pairs;
        let share = long && self.chooser.on();
        let batch = if share { self.batch_len(g, s) } else { 0 };
        let started = Instant::now();
        // The helper's copy, for either way of sharing.
        let mut held = self.copy.take();
        let copy: &[V] = if share {
            Self::copy_of(&mut held, g)
        } else {
            &[]
        };
        let pairs = if batch > 1 {
            self.compute_batch(g, copy, s, batch)
        } else if share {
            // One diagonal, in slices taken by either thread, each into
            // its own set.
            let runs = [
                (&g[1..top + 1], &g[s - top..s]),
                (&copy[1..top + 1], &copy[s - top..s]),
            ];
            let slices = (top / SLICE_PAIRS).clamp(2, MAX_SLICES);
            for b in &mut self.halves {
                b.clear();
                b.resize(words, 0);
            }
            let [h0, h1] = &mut self.halves;
            let [s0, s1] = &mut self.scratch;
            let sets = [Lent::new(h0), Lent::new(h1)];
            let scratch = [Lent::new(s0), Lent::new(s1)];
            let job = |slice: usize, thread: usize| {
                // Pairs k in a..b: lo[a..b] against hi[top − b..top − a].
                let a = top * slice / slices;
                let b = top * (slice + 1) / slices;
                // SAFETY: thread 0 is this one, thread 1 the helper; each
                // uses its own entry, and `run` returns only when both are
                // done with the job.
                let (bits, scratch) = unsafe { (sets[thread].get(), scratch[thread].get()) };
                let (lo, hi) = runs[thread];
                or_pair_xors(bits, &lo[a..b], &hi[top - b..top - a], scratch);
            };
            run_slices(self.helper(), slices, &job);
            let slot = &mut self.ring[k];
            slot.bits.clear();
            slot.bits.extend(
                self.halves[0]
                    .iter()
                    .zip(&self.halves[1])
                    .map(|(x, y)| x | y),
            );
            top
        } else {
            let slot = &mut self.ring[k];
            slot.s = None;
            slot.bits.clear();
            slot.bits.resize(words, 0);
            let lo = &g[1..top + 1];
            let hi = &g[s - top..s];
            or_pair_xors(&mut slot.bits, lo, hi, &mut self.scratch[0]);
            top
        };
        self.copy = held;
        self.ring[k].s = Some(s);
        self.computed += 1;
        if long {
            self.chooser.record(started.elapsed(), pairs);
        }
    }
}

/// The values backwards: `vals[vals.len() − 1 − i] = G(i)` for `i < len`,
/// so that the partners `G(s − 1 − k)` of a diagonal's splits `G(1 + k)`
/// run forwards and are compared without a lane reversal (which was a
/// fifth of the AVX2 scan's operations and a quarter of the portable
/// one's). Grown by doubling.
#[derive(Default)]
struct Reversed<V> {
    vals: Vec<V>,
    len: usize,
}

/// The `T` in `slot` (a copy of the values at one width): a new one when
/// the slot is empty or holds the other width's.
fn boxed<T: Default + Send + 'static>(slot: &mut Option<Box<dyn Any + Send>>) -> &mut T {
    if !slot.as_ref().is_some_and(|c| c.is::<T>()) {
        *slot = Some(Box::new(T::default()));
    }
    slot.as_mut()
        .and_then(|c| c.downcast_mut::<T>())
        .expect("just made")
}

impl<V: Value> Reversed<V> {
    /// The copy in `slot`, brought up to date with `g` (whose values
    /// before the copy's length never change unless the caller clears
    /// `slot`; a change is caught cheaply on the last one, and the copy
    /// made again).
    fn of<'a>(slot: &'a mut Option<Box<dyn Any + Send>>, g: &[V]) -> &'a Reversed<V> {
        let r = boxed::<Reversed<V>>(slot);
        let cap = r.vals.len();
        if r.len > g.len() || (r.len > 0 && r.vals[cap - r.len] != g[r.len - 1]) {
            r.len = 0;
        }
        if g.len() > cap {
            r.vals = vec![V::default(); (2 * g.len()).max(1 << 12)];
            r.len = 0;
        }
        let cap = r.vals.len();
        for (i, &v) in g.iter().enumerate().skip(r.len) {
            r.vals[cap - 1 - i] = v;
        }
        r.len = g.len();
        r
    }

    /// `G(s − 1 − k)` for `k < top`: the partners of `G(1), …, G(top)` on
    /// the diagonal `s` (`s ≤ len`).
    fn partners(&self, s: usize, top: usize) -> &[V] {
        let cap = self.vals.len();
        &self.vals[cap - s..cap - s + top]
    }
}

/// The least value not in the bitset `set` (64 · its length if none).
fn mex_of(set: &[u64]) -> u32 {
    set.iter()
        .position(|&w| w != u64::MAX)
        .map_or(64 * set.len(), |j| 64 * j + set[j].trailing_ones() as usize) as u32
}

/// A set or a scratch buffer, lent to a shared job.
struct Lent<T>(*mut T);

// SAFETY: handed to exactly one thread at a time (see `compute`).
unsafe impl<T: Send> Sync for Lent<T> {}

impl<T> Lent<T> {
    fn new(x: &mut T) -> Lent<T> {
        Lent(x)
    }
    /// # Safety
    /// One thread at a time, while the borrow of `new` lives.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get(&self) -> &mut T {
        // SAFETY: the caller's contract above.
        unsafe { &mut *self.0 }
    }
}

/// The diagonal method as an engine of its own (for tests and
/// comparisons; the sparse engine uses it when it has no sparse space).
pub struct Diagonal {
    diagonals: Diagonals,
    threads: usize,
    max: u32,
    built: usize,
}

impl Diagonal {
    /// `None` for games with three-heap splits.
    pub fn new(code: &Code, threads: usize) -> Option<Diagonal> {
        let threads = threads.clamp(1, 2);
        let diagonals = Diagonals::new(&code.rules(), threads)?;
        Some(Diagonal {
            diagonals,
            threads,
            max: 0,
            built: 0,
        })
    }

    /// How many diagonals have been computed so far.
    pub fn computed(&self) -> u64 {
        self.diagonals.computed()
    }

    /// See [`Diagonals::set_parallel_pairs`].
    pub fn set_parallel_pairs(&mut self, pairs: usize) {
        self.diagonals.set_parallel_pairs(pairs);
    }

    /// See [`Diagonals::force_candidates`].
    pub fn force_candidates(&mut self, pairs: usize) {
        self.diagonals.force_candidates(pairs);
    }

    fn extend<V: Value>(&mut self, g: &mut [V], from: usize) -> Result<(), Overflow> {
        if from != self.built || from == 0 {
            self.diagonals.clear();
            self.max = g[..from].iter().map(|v| v.get()).max().unwrap_or(0);
        }
        for n in from..g.len() {
            let bound = value_bound(self.max);
            let v = self.diagonals.value(&g[..n], bound);
            g[n] = fit(v, n)?;
            self.max = self.max.max(v);
            self.built = n + 1;
        }
        Ok(())
    }
}

impl Engine for Diagonal {
    super::api::extend_at_both_widths!();
    fn info(&self) -> EngineInfo {
        EngineInfo {
            engine: "diagonal",
            threads: self.threads,
            ..EngineInfo::default()
        }
    }
}
