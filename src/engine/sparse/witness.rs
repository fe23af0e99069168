//! The witness rounds. Values of the heap's own class below `mo` that
//! nothing flagged form a set; scanning the split pairs (the middle
//! first, then the low pairs, then chunks by distance) strikes out each
//! value a pair reaches, and the least value left is G(n).
//!
//! Invariant: a value is only struck by a pair that reaches it, and the
//! scan ends only when the set is empty or every pair has been seen, so
//! no pair is ever skipped unproved.

use std::ops::Range;

use octal_kernels::mex::unflagged_bits;
use octal_kernels::pairs::flag_pairs;
use octal_kernels::witness::strike_xors;
use octal_kernels::Value;

use super::pairs::{round_pairs, seam_pieces, Halves, Kept, Parts};
use crate::engine::tuning::{FIXED_ROUNDS, FLAG_FIRST_ROUND, FLAG_LOW_ROUND};

/// The split pairs a witness scan of heap `n` goes through: the pairs of
/// the values `g` at each split distance of `splits` that `halves` leaves
/// and `kept` holds, taken in the rounds of [`round_pairs`].
#[derive(Clone, Copy)]
pub(super) struct Scan<'a, V> {
    pub(super) g: Parts<'a, V>,
    pub(super) n: usize,
    pub(super) splits: &'a [usize],
    pub(super) halves: Halves,
    pub(super) kept: Kept,
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

/// Takes the fixed rounds of a witness scan (of heap `scan.n`) from round `from`
/// that a set is large enough to have flagged rather than struck, and
/// returns the round the strike goes on from. Striking values one at a
/// time costs a chain of dependent steps each; flagging a round's pairs
/// costs a store each. A set of at least [`FLAG_FIRST_ROUND`] values has
/// the first round (the middle step nearest the centre) flagged; a set
/// the first round left with at least [`FLAG_LOW_ROUND`] has the rest of
/// the middle and the low round flagged too, in one pass ([`flags_round`]
/// says which). `row` is a byte a value, zero where nothing is flagged
/// (see [`flag_rounds`]).
pub(super) fn flag_fixed_rounds<V: Value>(
    scan: Scan<V>,
    mut from: usize,
    row: &mut [u8],
    set: &mut [u64],
    open: &mut Vec<u64>,
) -> usize {
    while flags_round(from, members(set)) {
        let to = if from == 0 { 1 } else { FIXED_ROUNDS };
        flag_rounds(scan, from..to, row, set, open);
        from = to;
    }
    from
}

/// Flags rounds `rounds` of every split of heap `scan.n` into `row` (a byte a
/// value, a power of two wide enough for every XOR) and takes what they
/// reached out of `set`, in one pass over the row for all of them (`open`
/// is scratch). Every split pair is an option, so the row stays exact.
fn flag_rounds<V: Value>(
    scan: Scan<V>,
    rounds: Range<usize>,
    row: &mut [u8],
    set: &mut [u64],
    open: &mut Vec<u64>,
) {
    let Scan {
        g,
        n,
        splits,
        halves,
        kept,
    } = scan;
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

/// Into `set`, the values of `open` in `class` below `mo`: those a
/// witness scan must strike out.
#[inline]
pub(super) fn witness_set(set: &mut Vec<u64>, open: &[u64], class: &[u64], mo: usize) {
    set.clear();
    set.extend(
        open.iter()
            .zip(class)
            .take(mo.div_ceil(64))
            .map(|(o, c)| o & c),
    );
    if !mo.is_multiple_of(64) {
        set[mo / 64] &= (1 << (mo % 64)) - 1;
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

/// Strikes from `set` every value that a split of heap `scan.n` reaches, until
/// the set is empty or the pairs run out. Each split distance is scanned in
/// rounds of a chunk, interleaved with the other distances: first the
/// [`MIDDLE_PAIRS`](crate::engine::tuning::MIDDLE_PAIRS) pairs nearest the middle (which witness most values),
/// then from the smallest heaps up. Measured on `0.6`, the small heaps (with
/// the irregular values of the sequence's start) witness the last, hardest
/// values within a few thousand pairs, where going on outwards from the
/// middle takes tens of thousands. Starts at round `from`; with a
/// `budget`, pauses after the round in which that many pairs have been
/// scanned.
pub(super) fn strike_witnessed<V: Value>(
    scan: Scan<V>,
    set: &mut [u64],
    from: usize,
    budget: Option<usize>,
) -> Strike {
    let Scan {
        g,
        n,
        splits,
        halves,
        kept,
    } = scan;
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
