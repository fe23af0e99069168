//! The witness rounds. Values of the heap's own class below `mo` that
//! nothing flagged form a set; scanning the split pairs (the middle
//! first, then the low pairs, then chunks by distance) strikes out each
//! value a pair reaches, and the least value left is G(n).
//!
//! Invariant: a value is only struck by a pair that reaches it, and the
//! scan ends only when the set is empty or every pair has been seen, so
//! no pair is ever skipped unproved.

use super::*;

/// Pairs examined per split distance before moving to the next distance.
/// Each chunk is one call of the strike kernel, which sets up its set
/// (the AVX2 tables, the portable byte map) anew: on `0.6`'s long tails
/// 512-pair chunks spent 4–7% of the time on that (AMD EPYC Zen 5, to
/// 3·10^6: avx2 3.22 → 3.06 s, scalar 4.77 → 4.54 s, two threads avx2
/// 1.86 → 1.73 s; avx512 and `.16` level; 32768 no better than 8192).
pub(super) const CHUNK: usize = 8192;
/// Pairs nearest the middle that the witness scan tries first.
pub(super) const MIDDLE_PAIRS: usize = 1024;
/// Pairs of the middle scanned per round.
pub(super) const MIDDLE_STEP: usize = 256;
pub(super) const MIDDLE_ROUNDS: usize = MIDDLE_PAIRS / MIDDLE_STEP;
/// Sets of at least this many values have the first round of their
/// witness scan flagged rather than struck (see [`flag_fixed_rounds`]).
pub(super) const FLAG_FIRST_ROUND: u32 = 16;
/// The pairs `(a, m − a)` with `a ≤ LOW_PAIRS` make the second round of
/// a witness scan. Their first values are the start of the sequence, and
/// they reach values the middle rarely does: on 0.6 near 3·10^6 a set of
/// ~23 values after the first round keeps ~8 once they are flagged too.
pub(super) const LOW_PAIRS: usize = 256;
/// Sets of at least this many values after the first round have the rest
/// of the middle and the second round flagged too (a flag costs a store;
/// a value struck costs a chain of dependent steps and, often, a
/// mispredicted branch). Flagging the middle's other 768 pairs, and
/// leaving them out of the scan, made `0.6` to 3·10^6 8–9% faster on the
/// AVX2 and portable paths (AMD EPYC Zen 5, one thread: avx2 3.04 →
/// 2.80 s, scalar 4.29 → 3.89 s, avx512 2.33 → 2.28 s; two threads avx2
/// 1.70 → 1.60 s). Flagging those and the low round in one pass, read
/// back into the set once (rather than a pass a round, and the low round
/// only for a set still this large after the middle), made it 3–8% faster
/// again (alternating builds: avx2 2.86 → 2.77 s for the middle's steps in
/// one pass, 2.74 → 2.64 s with the low round among them; both together
/// scalar 4.01 → 3.86 s, avx512 2.39 → 2.31 s; `4.7`, `.356`, `.56`,
/// `.161`, `.16` level or faster). With a budget of 0 (the helper idle)
/// these rounds are left to the deferred check. Flagging the whole middle
/// whenever the first round is flagged (in the tiles too) made `.161` 11%
/// slower, and moving the low round after the whole middle for every heap
/// made `4.7`, `.356` and `.56` 25–40% slower: their sets empty within
/// the first few hundred pairs, the hard values in the low round.
pub(super) const FLAG_LOW_ROUND: u32 = 8;
/// Rounds before the chunks: the middle's steps and the low round.
pub(super) const FIXED_ROUNDS: usize = MIDDLE_ROUNDS + 1;

impl Sparse {
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

    /// Flags in `row` the options of heap `n = g.len()` that are not
    /// flagged with its block: the non-split options, and the pairs of
    /// rare heaps with partners in the block (`rare[..new_start]`, whose
    /// other pairs were flagged with the block) or rare heaps in it.
    #[inline]
    pub(super) fn flag_near<V: Value>(
        &mut self,
        g: Parts<V>,
        new_start: usize,
        row: &mut impl Marks,
    ) {
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

    /// G(n) for `n = g.len()`, given the flags of the far rare pairs
    /// (`far`, a bit row for the values below `row`, exact up to `lim`;
    /// with `middle`, also the first round of the witness scan). With a
    /// `budget` of pairs, a witness scan still open after it is added to
    /// the [`Deferred`] checks and G(n) is taken to be `mo` until the check
    /// says otherwise.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn sparse_value<V: Value>(
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
        // scan (the pairs nearest the middle), so it has that round flagged
        // rather than struck (see [`flag_fixed_rounds`]). The tiles may
        // have flagged that round already (`middle`): they do for the
        // blocks after one in which most heaps voted for it, by a large set
        // here or, with the round flagged, a set it left not small (so a
        // game whose sets are small goes back to scanning it). With a
        // budget of 0 the helper is the idle one: the fixed rounds are left
        // to the check it takes, which flags them the same way.
        let (splits, halves, kept) = (&self.splits[..], self.halves, self.kept);
        let left = members(&set);
        let mut from = 0;
        if middle {
            from = 1;
            self.middle_votes += usize::from(left >= FLAG_FIRST_ROUND / 4);
        } else if !small && left >= FLAG_FIRST_ROUND {
            self.middle_votes += 1;
        }
        let defer_all = budget.as_ref().is_some_and(|b| b.0 == 0);
        if !small && !defer_all {
            from = flag_fixed_rounds(g, n, splits, halves, kept, from, row, &mut set, &mut open);
        }
        self.row8 = row8;
        self.open = open;
        let limit = budget.as_ref().map(|b| b.0);
        let out = match strike_witnessed(g, n, splits, halves, &mut set, from, limit, kept) {
            Strike::Empty => mo as u32,
            Strike::Exhausted => least_member(&set).expect("values left"),
            Strike::Unkept => {
                // Not decided: the block stops here (see `Halt`).
                self.halt.get_or_insert(Halt {
                    at: n,
                    values: members(&set),
                });
                mo as u32
            }
            Strike::Paused(round) => {
                budget.expect("paused by a budget").1.push(n, round, &set);
                mo as u32
            }
        };
        self.set = set;
        out
    }
}

/// Whether a set of `members` values whose scan is at round `from` has
/// that round flagged rather than struck (see [`flag_fixed_rounds`]).
pub(super) fn flags_round(from: usize, members: u32) -> bool {
    match from {
        0 => members >= FLAG_FIRST_ROUND,
        1 => members >= FLAG_LOW_ROUND,
        _ => false,
    }
}

/// Takes the fixed rounds of a witness scan of heap `n` from round `from`
/// that a set is large enough to have flagged rather than struck, and
/// returns the round the strike goes on from. Striking values one at a
/// time costs a chain of dependent steps each; flagging a round's pairs
/// costs a store each. A set of at least [`FLAG_FIRST_ROUND`] values has
/// the first round (the middle step nearest the centre) flagged; a set
/// the first round left with at least [`FLAG_LOW_ROUND`] has the rest of
/// the middle and the low round flagged too, in one pass ([`flags_round`]
/// says which). `row` is a byte a value, zero where nothing is flagged
/// (see [`flag_rounds`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn flag_fixed_rounds<V: Value>(
    g: Parts<V>,
    n: usize,
    splits: &[usize],
    halves: Halves,
    kept: Kept,
    mut from: usize,
    row: &mut [u8],
    set: &mut [u64],
    open: &mut Vec<u64>,
) -> usize {
    while flags_round(from, members(set)) {
        let to = if from == 0 { 1 } else { FIXED_ROUNDS };
        flag_rounds(g, n, splits, halves, kept, from..to, row, set, open);
        from = to;
    }
    from
}

/// Flags rounds `rounds` of every split of heap `n` into `row` (a byte a
/// value, a power of two wide enough for every XOR) and takes what they
/// reached out of `set`, in one pass over the row for all of them (`open`
/// is scratch). Every split pair is an option, so the row stays exact.
#[allow(clippy::too_many_arguments)]
fn flag_rounds<V: Value>(
    g: Parts<V>,
    n: usize,
    splits: &[usize],
    halves: Halves,
    kept: Kept,
    rounds: Range<usize>,
    row: &mut [u8],
    set: &mut [u64],
    open: &mut Vec<u64>,
) {
    for c in rounds {
        for &i in splits {
            if let Some((m, a0, a1)) = round_pairs(n, i, halves, c, kept) {
                seam_pieces(g, m, a0, a1, |lo, hi| {
                    flag_pairs(row, lo, hi);
                    false
                });
            }
        }
    }
    // Values at or past the row's end have no pair to reach them.
    let words = set.len().min(row.len() / 64);
    if open.len() < words {
        open.resize(words, 0);
    }
    unflagged_bits(&row[..words * 64], &mut open[..words]);
    for (s, o) in set.iter_mut().zip(&open[..words]) {
        *s &= o;
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

/// The known values `G(0..n)` in two pieces, `pre` (the values before the
/// current block, which a second thread may be reading) and `post` (the
/// block's values so far): the block is written while `pre` is shared.
#[derive(Clone, Copy)]
pub(super) struct Parts<'a, V> {
    pub(super) pre: &'a [V],
    pub(super) post: &'a [V],
}

impl<'a, V: Value> Parts<'a, V> {
    pub(super) fn len(&self) -> usize {
        self.pre.len() + self.post.len()
    }

    #[inline]
    pub(super) fn get(&self, i: usize) -> u32 {
        match i.checked_sub(self.pre.len()) {
            None => self.pre[i].get(),
            Some(j) => self.post[j].get(),
        }
    }

    /// `G(a..b)`, which must lie on one side of the seam.
    #[inline]
    pub(super) fn slice(&self, a: usize, b: usize) -> &'a [V] {
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
pub(super) struct Halves {
    pub(super) unequal_splits: bool,
}

impl Halves {
    /// The largest smaller part `a` of a split of `m` (pairs `1 ≤ a ≤ last`).
    #[inline]
    pub(super) fn last(self, m: usize) -> usize {
        if self.unequal_splits {
            (m - 1) / 2
        } else {
            m / 2
        }
    }

    /// Whether the parts `a` and `b` may be left together.
    #[inline]
    pub(super) fn allows(self, a: usize, b: usize) -> bool {
        !self.unequal_splits || a != b
    }
}

/// Into `open`, the values below `row_len` that a row leaves open: those
/// of neither its near flags (`bits` for rows of up to 64 values, else the
/// bytes `row8`) nor its far flags `far`.
pub(super) fn open_values(
    bits: Option<u64>,
    row8: &[u8],
    far: &[u64],
    open: &mut [u64],
    row_len: usize,
) {
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
pub(super) fn least_of(a: &[u64], b: &[u64], end: usize) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x & y != 0)
        .map_or(end, |k| k * 64 + (a[k] & b[k]).trailing_zeros() as usize)
        .min(end)
}

/// How many values a bitset holds.
pub(super) fn members(set: &[u64]) -> u32 {
    set.iter().map(|w| w.count_ones()).sum()
}

/// The least value in a bitset, if any.
pub(super) fn least_member(set: &[u64]) -> Option<u32> {
    let k = set.iter().position(|&w| w != 0)?;
    Some(k as u32 * 64 + set[k].trailing_zeros())
}

/// How a witness scan ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Strike {
    /// Every value of the set has a witness.
    Empty,
    /// Every pair was scanned; the values left are unreachable.
    Exhausted,
    /// Every kept pair was scanned, but a windowed run no longer holds
    /// some pairs: the values left cannot be decided.
    Unkept,
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
/// middle takes tens of thousands. Starts at round `from`; with a
/// `budget`, pauses after the round in which that many pairs have been
/// scanned.
#[allow(clippy::too_many_arguments)]
pub(super) fn strike_witnessed<V: Value>(
    g: Parts<V>,
    n: usize,
    splits: &[usize],
    halves: Halves,
    set: &mut [u64],
    from: usize,
    budget: Option<usize>,
    kept: Kept,
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
            let Some((m, a0, a1)) = round_pairs(n, i, halves, c, kept) else {
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
            let unkept = splits.iter().any(|&i| kept.misses_pairs(n, i, halves));
            return if unkept {
                Strike::Unkept
            } else {
                Strike::Exhausted
            };
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
///
/// In a windowed run ([`Kept`]) the smaller parts `a` come from the
/// prefix `[1, prefix)` (their partners are recent), and the top of the
/// prefix plays the middle's part: its values are of the kind the
/// sequence has now, as the middle's are. Then, while the window still
/// reaches back that far, the pairs `[lo, half]`, a chunk at a time.
#[inline]
pub(super) fn round_pairs(
    n: usize,
    i: usize,
    halves: Halves,
    c: usize,
    kept: Kept,
) -> Option<(usize, usize, usize)> {
    if n < i + 2 {
        return None;
    }
    let m = n - i;
    let half = halves.last(m);
    // The smaller parts from the prefix are [1, top); in a full run, all.
    let (top, lo) = match kept.window {
        Some((prefix, lo)) => (prefix.min(half + 1), lo.max(prefix)),
        None => (half + 1, half + 1),
    };
    let h = top.saturating_sub(1);
    let mid = h.saturating_sub(MIDDLE_PAIRS);
    let low = LOW_PAIRS.min(mid);
    let (a0, a1) = if c == 1 {
        (1, low + 1)
    } else if c < FIXED_ROUNDS {
        // Middle step 0 is round 0, steps 1, 2, … rounds 2, 3, ….
        let step = c.saturating_sub(1);
        let a1 = (h + 1).saturating_sub(step * MIDDLE_STEP).max(mid + 1);
        (a1.saturating_sub(MIDDLE_STEP).max(mid + 1), a1)
    } else {
        let k = c - FIXED_ROUNDS;
        let below = (mid + 1).saturating_sub(low + 1).div_ceil(CHUNK);
        if k < below {
            let a0 = low + 1 + k * CHUNK;
            (a0, (a0 + CHUNK).min(mid + 1))
        } else {
            // A window's pairs with both parts recent.
            let a0 = lo.max(top) + (k - below) * CHUNK;
            (a0, (a0 + CHUNK).min(half + 1))
        }
    };
    (a0 < a1).then_some((m, a0, a1))
}

/// Which heaps' values a windowed run still holds, for the witness scans:
/// G(0..prefix) and G(lo..). Everything, for a full run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Kept {
    window: Option<(usize, usize)>,
}

impl Kept {
    /// Every value is kept.
    pub(super) const ALL: Kept = Kept { window: None };

    /// G(0..prefix) and G(lo..), in a windowed run (even before anything
    /// is dropped, `lo ≤ prefix`: the scan order is the window's).
    pub(super) fn within(prefix: usize, lo: usize) -> Kept {
        Kept {
            window: Some((prefix, lo)),
        }
    }

    /// `(prefix, lo)` in a windowed run.
    pub(super) fn bounds(self) -> Option<(usize, usize)> {
        self.window
    }

    /// Whether the pair `(a, m − a)` (`a ≤ m − a`) is kept: for tests.
    #[cfg(test)]
    fn holds(self, a: usize) -> bool {
        match self.window {
            Some((prefix, lo)) => a < prefix || a >= lo,
            None => true,
        }
    }

    /// Whether some split pair of heap `n` at distance `i` is not kept:
    /// then a value left without a witness cannot be decided.
    pub(super) fn misses_pairs(self, n: usize, i: usize, halves: Halves) -> bool {
        match self.window {
            Some((prefix, lo)) if n >= i + 2 => prefix < lo && prefix <= halves.last(n - i),
            _ => false,
        }
    }
}

/// How many values the first scan round of every heap below `end` reads
/// (the end of the highest run): a tile may flag that round only when they
/// are all known.
pub(super) fn middle_known(end: usize, splits: &[usize], halves: Halves, kept: Kept) -> usize {
    // The round's highest partner, m + 1 − a0 (about m/2 + 256), never
    // falls as the heap grows: the last heap reaches the highest.
    let Some(n) = end.checked_sub(1) else {
        return 0;
    };
    splits
        .iter()
        .filter_map(|&i| round_pairs(n, i, halves, 0, kept))
        .map(|(m, a0, _)| m + 1 - a0)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn middle_known_covers_the_first_round_of_every_heap_below_end() {
        // Against the highest value read by round 0 of every heap below
        // `end`, taken heap by heap (the function looks at the last only).
        for unequal_splits in [false, true] {
            let halves = Halves { unequal_splits };
            for splits in [&[1][..], &[1, 2], &[2, 5], &[3]] {
                let mut highest = 0;
                for end in 0..5000 {
                    assert_eq!(
                        middle_known(end, splits, halves, Kept::ALL),
                        highest,
                        "end {end}"
                    );
                    for &i in splits {
                        if let Some((m, a0, a1)) = round_pairs(end, i, halves, 0, Kept::ALL) {
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
        // then chunks until one is empty. In a window, every kept pair.
        let kepts = [
            Kept::ALL,
            Kept::within(2000, 0),
            Kept::within(1500, 2500),
            Kept::within(1024, 30_000),
            Kept::within(4096, 1 << 19),
        ];
        for unequal_splits in [false, true] {
            let halves = Halves { unequal_splits };
            for n in (0..3000).chain([5000, 40_000, 1 << 20]) {
                for i in [0, 1, 2, 6] {
                    for kept in kepts {
                        check_rounds(n, i, halves, kept);
                    }
                }
            }
        }
    }

    fn check_rounds(n: usize, i: usize, halves: Halves, kept: Kept) {
        let mut taken = vec![0u8; n + 1];
        let mut c = 0;
        loop {
            let r = round_pairs(n, i, halves, c, kept);
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
        assert!((c..c + 3).all(|c| round_pairs(n, i, halves, c, kept).is_none()));
        // The splits of m = n − i into a + (m − a), a ≥ 1, the smaller
        // part first (strictly, with the u suffix), where kept.
        let mut missed = false;
        for (a, &t) in taken.iter().enumerate() {
            let pair = n >= i + 2 && a >= 1 && {
                let b = n - i - a.min(n - i);
                if halves.unequal_splits {
                    a < b
                } else {
                    a <= b
                }
            };
            missed |= pair && !kept.holds(a);
            let want = u8::from(pair && kept.holds(a));
            assert_eq!(t, want, "n {n}, i {i}, a {a}, {halves:?}, {kept:?}");
        }
        assert_eq!(
            kept.misses_pairs(n, i, halves),
            missed,
            "n {n}, i {i}, {kept:?}"
        );
    }
}
