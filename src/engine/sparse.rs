//! The fast engine: sparse space where it exists, a SIMD pair scan where it
//! does not, and a second core for the rare-pair work.
//!
//! For a mask `m` (see [`super::mask`]) common × common splits of heap `n`
//! only reach values of one parity class `Q(n)`. The other class is reached
//! only by pairs with a rare heap and by the non-split options, so flagging
//! those gives `mo`, the least unreachable value of the other class, and
//! G(n) ≤ mo. Each value of class `Q(n)` below `mo` that is not flagged is
//! then looked for among *all* split pairs (the witness search, which
//! usually stops early); the first one with no witness is G(n), otherwise
//! G(n) = mo. Without a useful mask, every heap takes the mex by witness
//! search over all pairs. Either way no pair is ever skipped unproved.
//!
//! Heaps are processed in blocks `[n0, n0 + B)`: the pairs of a rare heap
//! `r ≥ B` and a partner below `n0` depend only on known values, so they are
//! flagged first, in parallel (cache-friendly: one contiguous run per rare
//! heap and split distance). Then one thread finishes the block heap by heap.

use octal_kernels::mex::{first_unflagged, unflagged_bits};
use octal_kernels::pairs::{find_xor_any, flag_pairs, flag_xor, flag_xor_gather, MAX_TARGETS};
use octal_kernels::witness::strike_xors;
use octal_kernels::Value;
use rayon::prelude::*;
use std::time::Instant;

use super::mask::{Histogram, Mask, MaskSpec};
use super::{fit, Engine, EngineInfo, Overflow};
use crate::code::{Code, Rules};

/// The mask is first chosen at this many values, then at each doubling.
const FIRST_CHOICE: usize = 1024;
/// Sparse space is used when at most this fraction (1/x) of positions is rare.
const MAX_RARE_FRACTION: usize = 5;
/// Bytes of flag rows per block (one byte per value per heap).
const FLAG_BUDGET: usize = 1 << 20;
/// Bytes of flag rows filled at a time (about the L1 data cache).
const TILE_BYTES: usize = 32 << 10;
/// Most heaps per block.
const MAX_BLOCK: usize = 4096;
/// Least heaps per worker in the parallel phase.
const MIN_TASK: usize = 128;
/// Without sparse space, the least number of pairs flagged up front (per
/// split distance) before the witness searches.
const PREFIX_PAIRS: usize = 64;
/// Without sparse space, more open values than this after the cheap flags:
/// flag every pair instead of searching witnesses. Most candidates lie above
/// G(n) and are never searched, and the least unreachable one costs one scan
/// whatever their number, so the bound is generous.
const FULL_MAX_CANDIDATES: usize = 1024;
/// One heap in this many has its flag and search phases timed.
const TIME_SAMPLE: usize = 8;
/// Pairs examined per split distance before moving to the next distance.
const CHUNK: usize = 512;
/// Pairs nearest the middle that the witness scan tries first.
const MIDDLE_PAIRS: usize = 1024;

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
    pool: Option<rayon::ThreadPool>,
    state: State,
    flags: Vec<u8>,
    /// `skip[q][v] = 1` when `v` has class `q` under the current mask.
    skip: [Vec<u8>; 2],
    zeros: Vec<u8>,
    /// The values still looking for a witness, as a bitset.
    set: Vec<u64>,
    /// Counts timed-or-not heaps (see [`TIME_SAMPLE`]).
    tick: usize,
    /// The same trade without sparse space: pairs flagged per split
    /// distance, and time spent flagging and searching lately.
    full_window: usize,
    full_flag: std::time::Duration,
    full_search: std::time::Duration,
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
        let threads = threads.max(1);
        let pool = (threads > 1)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .ok()
            })
            .flatten();
        Ok(Sparse {
            take_all,
            take_leave_one,
            splits: take_split,
            halves: Halves { unequal_splits },
            i0,
            allow_pp,
            spec,
            threads: if pool.is_some() { threads } else { 1 },
            pool,
            state: State::default(),
            flags: Vec::new(),
            skip: [Vec::new(), Vec::new()],
            zeros: Vec::new(),
            set: Vec::new(),
            tick: 0,
            full_window: 4 * PREFIX_PAIRS,
            full_flag: std::time::Duration::ZERO,
            full_search: std::time::Duration::ZERO,
        })
    }

    /// Makes the state describe `g` (all known values).
    fn rebuild<V: Value>(&mut self, g: &[V]) {
        self.state = State::default();
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
        self.note(n, v);
        if let Some(m) = self.state.mask {
            if n >= 1 && m.is_rare(n, v, self.i0) {
                self.state.rare.push(n);
                self.state.rare_x.push(v);
            }
        }
        self.state.built = n + 1;
        Ok(())
    }

    fn extend<V: Value>(&mut self, g: &mut [V], from: usize) -> Result<(), Overflow> {
        if from != self.state.built || from == 0 {
            self.rebuild(&g[..from]);
        }
        let mut n = from;
        while n < g.len() {
            if n >= self.state.next_choice {
                self.choose(&g[..n]);
            }
            let end = g.len().min(self.state.next_choice);
            n = match self.state.mask {
                Some(mask) => self.sparse_block(g, n, end, mask)?,
                None => {
                    for k in n..end {
                        let v = self.full_value(&g[..k]);
                        self.push(g, k, v)?;
                    }
                    end
                }
            };
        }
        Ok(())
    }

    /// Values below this bound cover every option so far (XORs included).
    fn bound(&self) -> usize {
        (self.state.max as usize + 1).next_power_of_two().max(64)
    }

    /// Options of heap `n` that are not splits, flagged in `row`.
    #[inline]
    fn flag_simple<V: Value>(&self, g: &[V], n: usize, row: &mut [u8]) {
        for &i in &self.take_all {
            if n == i {
                row[0] = 1;
            }
        }
        for &i in &self.take_leave_one {
            if n > i {
                row[g[n - i].get() as usize] = 1;
            }
        }
    }

    /// G(n) for `n = g.len()` by witness search over every pair.
    fn full_value<V: Value>(&mut self, g: &[V]) -> u32 {
        let n = g.len();
        let bound = self.bound();
        let mut row = std::mem::take(&mut self.flags);
        row.clear();
        row.resize(bound, 0);
        if self.zeros.len() < bound {
            self.zeros.resize(bound, 0);
        }
        // Timed on a sample of heaps only: reading the clock costs about as
        // much as a small heap's work.
        self.tick = self.tick.wrapping_add(1);
        let started = self.tick.is_multiple_of(TIME_SAMPLE).then(Instant::now);
        self.flag_simple(g, n, &mut row);
        for &i in &self.splits {
            if n >= i + 2 {
                let m = n - i;
                let half = self.halves.last(m);
                // The pairs around the middle: enough of them to reach most
                // values, leaving witness searches for the few still
                // missing (the count adapts, see below).
                let mid = half.saturating_sub(self.full_window);
                flag_pairs(&mut row, &g[mid + 1..half + 1], &g[m - half..m - mid]);
            }
        }
        let flagged = started.map(|t| t.elapsed());
        let open = row.iter().filter(|&&f| f == 0).count();
        if open > FULL_MAX_CANDIDATES {
            // Too many open values for witness searches: every pair, once.
            flag_all_pairs(g, n, &self.splits, self.halves, &mut row);
            let v = first_unflagged(&row, &self.zeros[..bound]) as u32;
            self.flags = row;
            return v;
        }
        // The unflagged values, smallest first: the first without a
        // witness is G(n).
        let zeros = &self.zeros[..bound];
        let mut from = 0;
        let open = || {
            if from >= bound {
                return None;
            }
            from += first_unflagged(&row[from..], &zeros[from..]);
            from += 1;
            (from <= bound).then_some(from as u32 - 1)
        };
        let v = least_unwitnessed(g, n, &self.splits, self.halves, open).unwrap_or(bound as u32);
        // Every so often, trade flagged pairs against witness searches:
        // flagging costs a store per pair, searching a long SIMD scan per
        // batch of values still missing.
        if let (Some(started), Some(flagged)) = (started, flagged) {
            let total = started.elapsed();
            self.full_flag += flagged;
            self.full_search += total - flagged;
        }
        if n.is_multiple_of(256) {
            if self.full_search > self.full_flag {
                self.full_window *= 2;
            } else if self.full_search * 4 < self.full_flag {
                self.full_window = (self.full_window / 2).max(PREFIX_PAIRS);
            }
            self.full_flag = std::time::Duration::ZERO;
            self.full_search = std::time::Duration::ZERO;
        }
        self.flags = row;
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
        let b = (end - n0)
            .min((n0 / 4).max(1))
            .min((FLAG_BUDGET / row).max(1))
            .min(MAX_BLOCK);
        self.prepare_skip(row, mask);
        let mut flags = std::mem::take(&mut self.flags);
        flags.clear();
        flags.resize(b * row, 0);
        let new_start = self.state.rare.len();
        {
            let known: &[V] = &g[..n0];
            let rare = &self.state.rare[..];
            let splits = &self.splits[..];
            let halves = self.halves;
            let tasks = self.threads.min(b / MIN_TASK).max(1);
            // Tiles of rows that stay in the L1 cache while every rare heap
            // flags its run into them.
            let tile = (TILE_BYTES / row).max(8) * row;
            let task = |rows: &mut [u8], h0: usize| {
                for (t, rows) in rows.chunks_mut(tile).enumerate() {
                    let h0 = h0 + t * (tile / row);
                    let h1 = h0 + rows.len() / row;
                    let heaps = rare.iter().copied();
                    flag_known(known, heaps, splits, halves, rows, row, h0, h1);
                }
            };
            match &self.pool {
                Some(pool) if tasks > 1 => {
                    let per = b.div_ceil(tasks);
                    pool.install(|| {
                        flags
                            .par_chunks_mut(per * row)
                            .enumerate()
                            .for_each(|(t, rows)| task(rows, n0 + t * per))
                    });
                }
                _ => task(&mut flags, n0),
            }
        }
        let mut n = n0;
        let result = loop {
            if n == n0 + b {
                break Ok(n);
            }
            let k = n - n0;
            let v = self.sparse_value(
                &g[..n],
                &mut flags[k * row..(k + 1) * row],
                mask,
                n0,
                new_start,
            );
            if let Err(e) = self.push(g, n, v) {
                break Err(e);
            }
            n += 1;
            if v as usize >= row {
                // Later rows are too narrow for the new values.
                break Ok(n);
            }
        };
        self.flags = flags;
        result
    }

    /// Fills `skip` for masks on values below `row`.
    fn prepare_skip(&mut self, row: usize, mask: Mask) {
        if self.zeros.len() < row {
            self.zeros.resize(row, 0);
        }
        for q in 0..2 {
            let s = &mut self.skip[q];
            s.clear();
            s.extend((0..row as u32).map(|v| (mask.parity(v) == q as u32) as u8));
        }
    }

    /// G(n) for `n = g.len()`, given `row` with the far rare pairs flagged.
    fn sparse_value<V: Value>(
        &mut self,
        g: &[V],
        row: &mut [u8],
        mask: Mask,
        n0: usize,
        new_start: usize,
    ) -> u32 {
        let n = g.len();
        self.flag_simple(g, n, row);
        let rare = &self.state.rare;
        // Rare heaps of earlier blocks whose partner is in this block:
        // those with r ≤ n − n0 − i, a prefix of the sorted list.
        for &i in &self.splits {
            if n >= n0 + i {
                let k = rare[..new_start].partition_point(|&r| r + n0 + i <= n);
                flag_xor_gather(row, &self.state.rare_x[..k], &rare[..k], g, n - i);
            }
        }
        // Rare heaps of this block, with any partner.
        for &r in &rare[new_start..] {
            let x = g[r].get();
            for &i in &self.splits {
                if n > i + r && self.halves.allows(r, n - i - r) {
                    row[(x ^ g[n - i - r].get()) as usize] = 1;
                }
            }
        }
        let q = mask.q(n, self.i0) as usize;
        let mo = first_unflagged(row, &self.skip[q]);
        // Values of class q below mo that nothing flagged yet each need a
        // witness among all split pairs: the least without one is G(n),
        // else G(n) = mo.
        let other = &self.skip[q ^ 1];
        let mut set = std::mem::take(&mut self.set);
        set.resize(mo.div_ceil(64), 0);
        unflagged_bits(&row[..mo], other, &mut set);
        let v = if strike_witnessed(g, n, &self.splits, self.halves, &mut set) {
            mo as u32
        } else {
            least_member(&set).expect("values left unwitnessed")
        };
        self.set = set;
        v
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

/// Flags, for heaps `h0..h1` (rows of `row` bytes), the pairs of each
/// heap `r` in `heaps` with a known partner `1 ≤ h − i − r < known.len()`
/// (never the equal pair `h = 2r + i` when `halves` forbids it).
#[allow(clippy::too_many_arguments)]
fn flag_known<V: Value>(
    known: &[V],
    heaps: impl Iterator<Item = usize>,
    splits: &[usize],
    halves: Halves,
    rows: &mut [u8],
    row: usize,
    h0: usize,
    h1: usize,
) {
    let n0 = known.len();
    for r in heaps {
        let x = known[r].get();
        for &i in splits {
            let lo = h0.max(i + r + 1);
            let hi = h1.min(n0 + i + r);
            // The heaps h of [lo, hi), less the one whose pair is equal.
            let equal = 2 * r + i;
            let runs = if halves.allows(r, r) || !(lo..hi).contains(&equal) {
                [lo..hi, hi..hi]
            } else {
                [lo..equal, equal + 1..hi]
            };
            for h in runs {
                if h.start < h.end {
                    let run = &known[h.start - i - r..h.end - i - r];
                    flag_xor(&mut rows[(h.start - h0) * row..], row, x, run);
                }
            }
        }
    }
}

/// The least value in a bitset, if any.
fn least_member(set: &[u64]) -> Option<u32> {
    let k = set.iter().position(|&w| w != 0)?;
    Some(k as u32 * 64 + set[k].trailing_zeros())
}

/// Strikes from `set` every value that a split of heap `n` reaches, and
/// returns true as soon as the set is empty (false: the values left are
/// unreachable). Each split distance is scanned in chunks, interleaved with
/// the other distances: first the [`MIDDLE_PAIRS`] pairs nearest the middle
/// (which witness most values), then from the smallest heaps up. Measured on
/// `0.6`, the small heaps (with the irregular values of the sequence's
/// start) witness the last, hardest values after a few thousand pairs,
/// where going on outwards from the middle takes tens of thousands.
fn strike_witnessed<V: Value>(
    g: &[V],
    n: usize,
    splits: &[usize],
    halves: Halves,
    set: &mut [u64],
) -> bool {
    if set.iter().all(|&w| w == 0) {
        return true;
    }
    let mut c = 0;
    loop {
        let mut any = false;
        for &i in splits {
            if n < i + 2 {
                continue;
            }
            let m = n - i;
            let half = halves.last(m);
            let mid = half.saturating_sub(MIDDLE_PAIRS);
            // Pairs (a, m − a) for a in [a0, a1): (mid, half] first, then
            // [1, mid] a chunk at a time.
            let (a0, a1) = if c == 0 {
                (mid + 1, half + 1)
            } else {
                let a0 = 1 + (c - 1) * CHUNK;
                (a0, (a0 + CHUNK).min(mid + 1))
            };
            if a0 >= a1 {
                continue;
            }
            any = true;
            if strike_xors(set, &g[a0..a1], &g[m + 1 - a1..m + 1 - a0]) {
                return true;
            }
        }
        if !any {
            return false;
        }
        c += 1;
    }
}

/// Flags the value of every split of heap `n` in `row`.
fn flag_all_pairs<V: Value>(g: &[V], n: usize, splits: &[usize], halves: Halves, row: &mut [u8]) {
    for &i in splits {
        if n >= i + 2 {
            let m = n - i;
            let half = halves.last(m);
            flag_pairs(row, &g[1..half + 1], &g[m - half..m]);
        }
    }
}

/// The least of the candidates `next` yields (ascending) that no split of
/// heap `n` reaches, if any.
///
/// Scans all pairs cyclically, from the middle outwards, split distances
/// interleaved chunk by chunk, looking for up to [`MAX_TARGETS`] candidates
/// at once. A candidate found is replaced by the next one at once; a
/// candidate that has been looked for over one whole cycle of pairs without
/// a hit is unreachable. Candidates join in ascending order, so the first
/// to complete its cycle is the least unreachable one.
fn least_unwitnessed<V: Value>(
    g: &[V],
    n: usize,
    splits: &[usize],
    halves: Halves,
    mut next: impl FnMut() -> Option<u32>,
) -> Option<u32> {
    let total: usize = splits
        .iter()
        .filter(|&&i| n >= i + 2)
        .map(|&i| halves.last(n - i))
        .sum();
    // (value, position at which it has been checked against every pair),
    // oldest first: fixed arrays, as this runs once per heap.
    let mut active = Active::default();
    let mut pos = 0usize;
    let mut refill = |active: &mut Active, pos: usize| {
        while active.len < MAX_TARGETS {
            match next() {
                Some(v) => active.push((v, pos + total)),
                None => break,
            }
        }
    };
    refill(&mut active, pos);
    if total == 0 || active.len == 0 {
        return active.front().map(|(v, _)| v);
    }
    loop {
        let mut c = 0;
        loop {
            let mut any = false;
            for &i in splits {
                if n < i + 2 {
                    continue;
                }
                let m = n - i;
                let half = halves.last(m);
                if c * CHUNK >= half {
                    continue;
                }
                any = true;
                let a1 = half + 1 - c * CHUNK;
                let mut a0 = a1.saturating_sub(CHUNK).max(1);
                while a0 < a1 {
                    let deadline = active.front().expect("an open candidate").1;
                    let lim = a1.min(a0 + (deadline - pos));
                    match find_xor_any(&g[a0..lim], &g[m + 1 - lim..m + 1 - a0], active.targets()) {
                        Some(k) => {
                            let a = a0 + k;
                            let x = g[a].get() ^ g[m - a].get();
                            pos += k + 1;
                            a0 = a + 1;
                            active.remove(x);
                            refill(&mut active, pos);
                            if active.len == 0 {
                                return None;
                            }
                        }
                        None => {
                            pos += lim - a0;
                            a0 = lim;
                            if pos == deadline {
                                return active.front().map(|(v, _)| v);
                            }
                        }
                    }
                }
            }
            if !any {
                break;
            }
            c += 1;
        }
    }
}

/// The candidates [`least_unwitnessed`] looks for, oldest first, with
/// their targets kept contiguous for [`find_xor_any`].
#[derive(Default)]
struct Active {
    targets: [u32; MAX_TARGETS],
    deadlines: [usize; MAX_TARGETS],
    len: usize,
}

impl Active {
    fn push(&mut self, (v, deadline): (u32, usize)) {
        self.targets[self.len] = v;
        self.deadlines[self.len] = deadline;
        self.len += 1;
    }
    fn front(&self) -> Option<(u32, usize)> {
        (self.len > 0).then(|| (self.targets[0], self.deadlines[0]))
    }
    fn targets(&self) -> &[u32] {
        &self.targets[..self.len]
    }
    /// Removes every candidate equal to `v`, keeping the order.
    fn remove(&mut self, v: u32) {
        let mut k = 0;
        for j in 0..self.len {
            if self.targets[j] != v {
                self.targets[k] = self.targets[j];
                self.deadlines[k] = self.deadlines[j];
                k += 1;
            }
        }
        self.len = k;
    }
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
            last_rare_at: st.mask.and(st.rare.last().map(|&r| r as u64)),
        }
    }
}
