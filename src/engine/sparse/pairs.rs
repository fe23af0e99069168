//! The split pairs of a heap: the values in two pieces around the seam
//! of the block being written ([`Parts`]), which pairs a split leaves
//! ([`Halves`]) and a windowed run keeps ([`Kept`]), and the rounds in
//! which a witness scan takes them ([`round_pairs`]). A leaf: the flags,
//! the witness scan and the checks all walk pairs through it.

use octal_kernels::Value;

use crate::engine::tuning::{CHUNK, FIXED_ROUNDS, LOW_PAIRS, MIDDLE_PAIRS, MIDDLE_STEP};

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
    // the cuts (their sort was dear: docs/performance.md, pairs in one piece).
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
            } else if c >= FIXED_ROUNDS {
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
