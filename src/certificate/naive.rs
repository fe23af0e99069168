//! The independent checker: the moves of an octal game read from its code
//! string, and G(0..=N) by plain enumeration of every option and a mex.
//!
//! It duplicates on purpose what `code::Rules`, the reference engine, the
//! sparse engine and the `octal_kernels` crate already do. A certificate
//! checked by the code that made it proves nothing; this module uses
//! none of theirs (only `std` and rayon's thread pool), so a mistake in
//! them cannot hide in the check. It is short enough to read in full:
//!
//! * digit i of the code (after the point; the digit before it for i = 0)
//!   is a sum of 1 (a heap of exactly i may be removed), 2 (i tokens may be
//!   removed from a larger heap, leaving one heap) and 4 (i tokens may be
//!   removed leaving two non-empty heaps);
//! * G(n) = mex of the values of every option of heap n, a split into
//!   heaps a + b having the value G(a) xor G(b).
//!
//! Speed comes from two plain devices, neither of which changes what is
//! computed: the values of all splits of a heap of m tokens,
//! {G(a) xor G(b) : a + b = m, 1 ≤ a ≤ b}, are found once per m and used by
//! every split digit (heap n splits into two heaps of m = n − i tokens),
//! and they are marked in a byte array, each pair an independent store;
//! the pairs of a large heap are shared among rayon's threads.

use rayon::prelude::*;

/// Why a code string is not one this checker reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("code {code:?}: {why}")]
pub struct BadCode {
    pub code: String,
    pub why: String,
}

/// The moves of an octal game, as numbers of tokens `i` removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moves {
    /// The digits, `digits[0]` the one before the point, trailing zeros
    /// dropped.
    digits: Vec<u8>,
    /// A heap of exactly i may be removed (bit 1).
    pub take_all: Vec<u64>,
    /// i tokens may be removed from a heap n > i, leaving n − i (bit 2).
    pub leave_one: Vec<u64>,
    /// i tokens may be removed leaving two non-empty heaps (bit 4; i = 0
    /// is the digit 4 before the point).
    pub split: Vec<u64>,
}

/// Reads an octal code: an optional `0` or `4` before the point, the point,
/// then digits 0–7 (e.g. `0.137`, `.137`, `4.344`). Anything else (a
/// hexadecimal digit, a suffix, another leading digit) is refused.
pub fn parse(code: &str) -> Result<Moves, BadCode> {
    let bad = |why: String| BadCode {
        code: code.to_string(),
        why,
    };
    let Some((before, after)) = code.split_once('.') else {
        return Err(bad("no point: write it as 0.DIGITS or 4.DIGITS".into()));
    };
    let first = match before {
        "" | "0" => 0,
        "4" => 4,
        _ => {
            return Err(bad(format!(
                "{before:?} before the point: this checker reads 0 or 4 there"
            )))
        }
    };
    let mut digits = vec![first];
    for c in after.chars() {
        match c {
            '0'..='7' => digits.push(c as u8 - b'0'),
            _ => {
                return Err(bad(format!(
                    "{c:?} after the point: this checker reads octal digits 0-7 only"
                )))
            }
        }
    }
    while digits.len() > 1 && digits.last() == Some(&0) {
        digits.pop();
    }
    let with = |bit: u8| -> Vec<u64> {
        (0..digits.len())
            .filter(|&i| digits[i] & bit != 0)
            .map(|i| i as u64)
            .collect()
    };
    Ok(Moves {
        take_all: with(1),
        leave_one: with(2),
        split: with(4),
        digits,
    })
}

impl Moves {
    /// The code with trailing zeros dropped: `0.137`, `4.344`, `0.0`.
    pub fn canonical(&self) -> String {
        let rest: String = self.digits[1..]
            .iter()
            .map(|&d| char::from(b'0' + d))
            .collect();
        let rest = if rest.is_empty() { "0".into() } else { rest };
        format!("{}.{rest}", self.digits[0])
    }

    /// t of the bound: the largest i of a split, `None` without splits.
    pub fn t(&self) -> Option<u64> {
        self.split.iter().copied().max()
    }

    /// The last heap N whose value a proof of period `p` with preperiod `s`
    /// rests on: G(n + p) = G(n) for s ≤ n ≤ N − p proves the period for
    /// every n ≥ s once N + 1 ≥ p + max(s, A, s₁ + L, 2·s₁ + p + T − 1),
    /// with A = 1 + the largest take-all i, L the largest leave-one i, T
    /// the largest split i (terms of absent moves left out) and
    /// s₁ = max(s, 1) (docs/periodicity.md). With a split and s ≥ 1 this
    /// is N = 2s + 2p + T − 2, i.e. 2i + 2p + t for the last irregular
    /// heap i = s − 1 (Guy and Smith). `None` when p = 0 or it overflows.
    pub fn last_heap(&self, p: u64, s: u64) -> Option<u64> {
        if p == 0 {
            return None;
        }
        let s1 = s.max(1);
        let mut n0 = s;
        if let Some(a) = self.take_all.iter().max() {
            n0 = n0.max(a.checked_add(1)?);
        }
        if let Some(l) = self.leave_one.iter().max() {
            n0 = n0.max(s1.checked_add(*l)?);
        }
        if let Some(t) = self.t() {
            n0 = n0.max(s1.checked_mul(2)?.checked_add(p)?.checked_add(t)? - 1);
        }
        p.checked_add(n0)?.checked_sub(1)
    }

    /// Pair operations [`values`] does for G(0..=last): ⌊last²/4⌋ when the
    /// game splits (every split of every heap up to `last`), else none.
    pub fn pair_operations(&self, last: u64) -> u128 {
        if self.split.is_empty() {
            0
        } else {
            (last as u128 * last as u128) / 4
        }
    }
}

/// Heaps whose pairs are shared among threads: those with more than this
/// many splits (below it one thread is quicker than handing out work).
const PARALLEL_PAIRS: usize = 1 << 14;

/// Marks G(a) xor G(b) for every split a + b = m, a in `lo..hi`.
fn mark_pairs(g: &[u32], m: usize, lo: usize, hi: usize, seen: &mut [u8]) {
    // a runs up from lo while b = m − a runs down from m − lo.
    let left = &g[lo..hi];
    let right = &g[m + 1 - hi..=m - lo];
    for (x, y) in left.iter().zip(right.iter().rev()) {
        seen[(x ^ y) as usize] = 1;
    }
}

/// The values of the splits of m tokens into two non-empty heaps, as a
/// byte array of `size` marks (every value is below `size`, a power of
/// two above every G(h), h < m).
fn split_values(g: &[u32], m: usize, size: usize) -> Vec<u8> {
    let half = m / 2;
    if half < PARALLEL_PAIRS {
        let mut seen = vec![0u8; size];
        if half >= 1 {
            mark_pairs(g, m, 1, half + 1, &mut seen);
        }
        return seen;
    }
    let pieces = 4 * rayon::current_num_threads();
    let step = half.div_ceil(pieces);
    (0..pieces)
        .into_par_iter()
        .map(|k| {
            let mut seen = vec![0u8; size];
            let lo = 1 + k * step;
            let hi = (lo + step).min(half + 1);
            if lo < hi {
                mark_pairs(g, m, lo, hi, &mut seen);
            }
            seen
        })
        .reduce(
            || vec![0u8; size],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    *x |= y;
                }
                a
            },
        )
}

/// G(0), …, G(last) of the game, computed from nothing; `progress(n)` is
/// called now and then with the heaps done.
pub fn values(moves: &Moves, last: usize, progress: &mut dyn FnMut(u64)) -> Vec<u32> {
    let mut g: Vec<u32> = Vec::with_capacity(last + 1);
    // Power of two above every value so far (so above every xor of two).
    let mut size = 1usize;
    // splits[m % ring] = split_values(m) for the last `ring` heaps m.
    let ring = moves.t().map_or(1, |t| t as usize + 1);
    let mut splits: Vec<Vec<u8>> = vec![Vec::new(); ring];
    for n in 0..=last {
        if !moves.split.is_empty() {
            splits[n % ring] = split_values(&g, n, size);
        }
        let mut options = vec![0u8; size + 1];
        for &i in &moves.take_all {
            if n as u64 == i {
                options[0] = 1;
            }
        }
        for &i in &moves.leave_one {
            if n as u64 > i {
                options[g[n - i as usize] as usize] = 1;
            }
        }
        for &i in &moves.split {
            if n as u64 >= i + 2 {
                for (o, s) in options.iter_mut().zip(&splits[(n - i as usize) % ring]) {
                    *o |= s;
                }
            }
        }
        let mex = options
            .iter()
            .position(|&o| o == 0)
            .expect("size + 1 marks");
        g.push(mex as u32);
        while mex >= size {
            size *= 2;
        }
        if n % 4096 == 0 {
            progress(n as u64);
        }
    }
    g
}
