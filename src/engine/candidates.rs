//! The mex of one diagonal's splits and a few other values, without the
//! diagonal's whole set: the diagonal method for games with one split
//! distance, where each diagonal serves a single heap.
//!
//! Why it exists: flagging every pair's XOR costs a store a pair, and
//! stores are the bound of the whole-set method wherever the set cannot be
//! held in registers (everything but AVX-512 VBMI). A heap's value is only
//! the *least* value missing from the diagonal and its other options, so:
//!
//! 1. **Dense part.** A share of the diagonal ([`DENSE`]), taken as
//!    segments of [`SEGMENT`] pairs spread along it by a stride, is flagged
//!    whole into a row. Spread, not in order: a value with few splits is
//!    found about as early as its number of splits says, wherever those
//!    splits lie. Every value not flagged there nor among the other
//!    options is *unknown*.
//! 2. **Candidates.** The least unknown values, [`HIT_CANDIDATES`] at a
//!    time, are compared with every XOR of the other segments, round and
//!    round that circle ([`pairs_hit`]: a compare a pair, no store). A
//!    candidate found is present and gives its slot to the next unknown
//!    value, which starts its own circle there; a candidate that goes a
//!    whole circle unfound is absent from the diagonal. The least absent
//!    candidate is the mex once every smaller candidate has been found:
//!    no pair is skipped, so the value is exact.
//!
//! The dense part does not need the heap's other options, so with two
//! threads the helper flags the next diagonal's while this thread runs the
//! candidates of this one, then both share what is left of it, a segment
//! at a time (see `Diagonals`). Measured in
//! docs/performance.md ("Cookie Cutter 6 by candidates").

use octal_kernels::diagonal::{or_flagged, pairs_hit, HIT_CANDIDATES};
use octal_kernels::pairs::flag_pairs;
use octal_kernels::Value;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use super::tuning::{DENSE, SEGMENT};

/// The segments of a diagonal of `top` pairs, in the stride order: the
/// first [`Segments::dense`] are the dense part, the others the circle.
#[derive(Clone, Copy, Debug)]
pub struct Segments {
    top: usize,
    count: usize,
    stride: usize,
    dense: usize,
}

impl Segments {
    /// The segments of pairs `0..top` (`top > 0`).
    pub fn new(top: usize) -> Segments {
        let count = top.div_ceil(SEGMENT).max(1);
        // A stride near count/φ, coprime with count, visits every segment
        // once and spreads any prefix of the order along the diagonal.
        let mut stride = ((count as f64 * 0.618_033_988_7) as usize).max(1);
        while gcd(stride, count) != 1 {
            stride += 1;
        }
        let dense = ((count as f64 * DENSE).ceil() as usize).min(count);
        Segments {
            top,
            count,
            stride: stride % count,
            dense,
        }
    }

    /// Pairs `a..b` of the `j`-th segment in the stride order.
    fn pairs(&self, j: usize) -> (usize, usize) {
        let seg = (j * self.stride) % self.count;
        let a = seg * SEGMENT;
        (a, (a + SEGMENT).min(self.top))
    }
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Pair `k` of the diagonal is `lo[k]` against `hi[top − 1 − k]`; the
/// runs of pairs `a..b`.
fn runs<'a, V>(lo: &'a [V], hi: &'a [V], (a, b): (usize, usize)) -> (&'a [V], &'a [V]) {
    let top = lo.len();
    (&lo[a..b], &hi[top - b..top - a])
}

/// The XORs of the dense part, as a set: bit `v` of `seen[v / 64]` set for
/// each. `row` is scratch of exactly `64 · seen.len()` bytes, a power of
/// two above every XOR.
pub fn dense<V: Value>(seen: &mut [u64], row: &mut [u8], lo: &[V], hi: &[V]) {
    seen.fill(0);
    dense_claimed(seen, row, lo, hi, &AtomicUsize::new(0));
}

/// [`dense`] shared between threads: each call flags the dense segments
/// it claims from `claim` (a counter from 0, shared by the calls on the
/// same runs) into its own `row` and adds them to its own `seen` (not
/// cleared: the caller clears it, and ORs the calls' sets). Each thread
/// keeps its row: a row handed between threads came back a cache line
/// at a time, each a stall.
pub fn dense_claimed<V: Value>(
    seen: &mut [u64],
    row: &mut [u8],
    lo: &[V],
    hi: &[V],
    claim: &AtomicUsize,
) {
    assert_eq!(row.len(), 64 * seen.len(), "dense: row and set differ");
    let seg = Segments::new(lo.len());
    let mut any = false;
    loop {
        let j = claim.fetch_add(1, Ordering::Relaxed);
        if j >= seg.dense {
            break;
        }
        if !any {
            row.fill(0);
            any = true;
        }
        let (l, h) = runs(lo, hi, seg.pairs(j));
        flag_pairs(row, l, h);
    }
    if any {
        or_flagged(seen, row);
    }
}

/// The values below `limit` in neither `seen` nor `known`, ascending.
struct Unknown<'a> {
    seen: &'a [u64],
    known: &'a [u64],
    limit: usize,
    /// The next word's index, and the current word's values left.
    next: usize,
    word: u64,
}

impl Iterator for Unknown<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        while self.word == 0 {
            if 64 * self.next >= self.limit {
                return None;
            }
            let j = self.next;
            let at = |set: &[u64]| set.get(j).copied().unwrap_or(0);
            self.word = !(at(self.seen) | at(self.known));
            self.next += 1;
        }
        let b = self.word.trailing_zeros() as usize;
        self.word &= self.word - 1;
        Some((64 * (self.next - 1) + b) as u32)
    }
}

/// The least value below `limit` (a multiple of 64) that is neither in
/// `seen` (the dense part, from [`dense`] on the same diagonal) nor in
/// `known` (the heap's other options; both bit `v` of word `v / 64`) nor
/// any pair's XOR `lo[k] ⊕ partners[k]`; `limit` if there is none.
/// `partners[k]` is the partner of `lo[k]`: the diagonal's upper values
/// read backwards.
pub fn mex<V: Value>(seen: &[u64], known: &[u64], lo: &[V], partners: &[V], limit: usize) -> u32 {
    let seg = Segments::new(lo.len());
    let mut unknown = Unknown {
        seen,
        known,
        limit,
        next: 0,
        word: 0,
    };
    let circle = (seg.count - seg.dense) as u64;
    if circle == 0 {
        return unknown.next().unwrap_or(limit as u32);
    }
    const EMPTY: u32 = u32::MAX;
    let mut cand = [EMPTY; HIT_CANDIDATES];
    let mut start = [0u64; HIT_CANDIDATES];
    for c in &mut cand {
        *c = unknown.next().unwrap_or(EMPTY);
    }
    let mut best: Option<u32> = None;
    let mut pos = 0u64;
    while cand.iter().any(|&c| c != EMPTY) {
        let (a, b) = seg.pairs(seg.dense + (pos % circle) as usize);
        let hit = pairs_hit(&lo[a..b], &partners[a..b], &cand);
        pos += 1;
        for i in 0..HIT_CANDIDATES {
            if cand[i] == EMPTY {
                continue;
            }
            if hit >> i & 1 == 1 {
                // Present: the slot takes the next unknown value (none once
                // an absent one is known: all later ones are larger).
                cand[i] = if best.is_none() {
                    unknown.next().unwrap_or(EMPTY)
                } else {
                    EMPTY
                };
                start[i] = pos;
            } else if pos - start[i] >= circle {
                // A whole circle unfound: absent. Larger candidates no
                // longer matter.
                let b = best.map_or(cand[i], |b| b.min(cand[i]));
                best = Some(b);
                for c in &mut cand {
                    if *c >= b {
                        *c = EMPTY;
                    }
                }
            }
        }
    }
    best.unwrap_or(limit as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mex of the pairs' XORs and `known`, the plain way.
    fn plain(lo: &[u16], hi: &[u16], known: &[u64]) -> u32 {
        let mut set = known.to_vec();
        for (a, b) in lo.iter().zip(hi.iter().rev()) {
            let v = (a ^ b) as usize;
            set[v / 64] |= 1 << (v % 64);
        }
        set.iter()
            .position(|&w| w != u64::MAX)
            .map_or(64 * set.len(), |j| 64 * j + set[j].trailing_ones() as usize) as u32
    }

    fn xorshift(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    #[test]
    fn every_segment_once_and_the_dense_part_spread() {
        for top in [1, 4095, 4096, 4097, 12_288, 100_000, 333_333] {
            let seg = Segments::new(top);
            let mut seen = vec![0u32; top];
            for j in 0..seg.count {
                let (a, b) = seg.pairs(j);
                assert!(a < b && b <= top, "top {top}: segment {j} is {a}..{b}");
                seen[a..b].iter_mut().for_each(|x| *x += 1);
            }
            assert!(
                seen.iter().all(|&x| x == 1),
                "top {top}: a pair twice or never"
            );
            if seg.count >= 20 {
                // The dense part reaches both ends' tenths.
                let firsts: Vec<usize> = (0..seg.dense).map(|j| seg.pairs(j).0).collect();
                assert!(firsts.iter().any(|&a| a < top / 10));
                assert!(firsts.iter().any(|&a| a > top - top / 10));
            }
        }
    }

    #[test]
    fn the_mex_of_random_diagonals_and_options() {
        // Values with a few rare ones (found late or never), and options
        // that fill some gaps: the mex against the plain set.
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        // Up to 150,000 pairs: a circle of up to 22 segments, candidates
        // found partway round it and refilled there.
        for round in 0..200 {
            let top = [10, 5000, 30_000, 150_000][round % 4] + (xorshift(&mut s) % 5000) as usize;
            let common = 1 + xorshift(&mut s) % 600;
            let g: Vec<u16> = (0..2 * top)
                .map(|_| {
                    let r = xorshift(&mut s);
                    (if r.is_multiple_of(97) {
                        r >> 20
                    } else {
                        (r >> 20) % common
                    }) as u16
                        & 2047
                })
                .collect();
            let (lo, hi) = g.split_at(top);
            let mut known = vec![0u64; 32];
            for _ in 0..xorshift(&mut s) % 7 {
                let v = (xorshift(&mut s) % 1500) as usize;
                known[v / 64] |= 1 << (v % 64);
            }
            let (mut row, mut seen) = (vec![0u8; 2048], vec![0u64; 32]);
            dense(&mut seen, &mut row, lo, hi);
            let want = plain(lo, hi, &known);
            let partners: Vec<u16> = hi.iter().rev().copied().collect();
            assert_eq!(
                mex(&seen, &known, lo, &partners, 2048),
                want,
                "round {round}, top {top}"
            );
        }
    }

    #[test]
    fn a_value_with_one_split_late_in_the_circle() {
        // All XORs 0 except one pair XOR-ing to 1, and one to 2: the mex is
        // 3 wherever those pairs lie, and 1 or 2 without them.
        let top = 50_000;
        let seg = Segments::new(top);
        assert!(seg.count - seg.dense >= 5, "a circle of several segments");
        // The ends, a dense segment, and the first and last of the circle.
        let mut ks = vec![0, top - 1, seg.pairs(0).0 + 5];
        for j in [seg.dense, seg.count - 1] {
            let (a, b) = seg.pairs(j);
            ks.extend([a, b - 1, (a + b) / 2]);
        }
        for &k in &ks {
            let lo = vec![9u16; top];
            let mut hi = vec![9u16; top];
            hi[top - 1 - k] = 8;
            hi[top - 1 - (k + 7) % top] = 11;
            let known = vec![0u64; 1];
            let (mut row, mut seen) = (vec![0u8; 64], vec![0u64; 1]);
            dense(&mut seen, &mut row, &lo, &hi);
            let partners: Vec<u16> = hi.iter().rev().copied().collect();
            assert_eq!(mex(&seen, &known, &lo, &partners, 64), 3, "pair {k}");
            hi[top - 1 - k] = 9;
            dense(&mut seen, &mut row, &lo, &hi);
            let partners: Vec<u16> = hi.iter().rev().copied().collect();
            assert_eq!(mex(&seen, &known, &lo, &partners, 64), 1, "pair {k} gone");
        }
    }
}
