//! Bitsets of option values and their minimum excluded value (mex), and
//! the scans of a flag row (a byte per value) for its open values.

use crate::platform::{self, isa};
use isa::Isa;

/// A growable bitset of Grundy values, cleared cheaply between heaps.
#[derive(Debug, Default, Clone)]
pub struct ValueSet {
    words: Vec<u64>,
    /// Index one past the highest word written since the last clear.
    dirty: usize,
}

impl ValueSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes room for values below `bound` and empties the set.
    #[inline]
    pub fn reset(&mut self, bound: u32) {
        let need = (bound as usize).div_ceil(64).max(1);
        if self.words.len() < need {
            self.words.resize(need, 0);
        }
        let dirty = self.dirty.min(self.words.len());
        self.words[..dirty].fill(0);
        self.dirty = 0;
    }

    /// Adds `v`; `v` must be below the bound given to [`reset`](Self::reset).
    #[inline(always)]
    pub fn insert(&mut self, v: u32) {
        let w = (v >> 6) as usize;
        self.words[w] |= 1u64 << (v & 63);
        if w >= self.dirty {
            self.dirty = w + 1;
        }
    }

    /// Adds `v ⊕ k` for every `v` in the bitset `src`; every such value
    /// must be below the bound given to [`reset`](Self::reset) (true when
    /// `src`'s values and `k` are).
    #[inline]
    pub fn insert_xor_translated(&mut self, src: &[u64], k: u32) {
        if src.is_empty() {
            return;
        }
        crate::xor_translate::or_xor_translated(&mut self.words, src, k);
        // Every word index written is w ⊕ (k >> 6) ≤ (all-ones cover of
        // src.len() − 1) | (k >> 6).
        let cover = src.len().next_power_of_two() - 1;
        let top = (cover | (k >> 6) as usize) + 1;
        self.dirty = self.dirty.max(top.min(self.words.len()));
    }

    #[inline(always)]
    pub fn contains(&self, v: u32) -> bool {
        let w = (v >> 6) as usize;
        w < self.words.len() && self.words[w] >> (v & 63) & 1 != 0
    }

    /// The smallest value not in the set.
    #[inline]
    pub fn mex(&self) -> u32 {
        mex_words(&self.words[..self.dirty])
    }

    /// The smallest value ≥ `from` not in the set.
    #[inline]
    pub fn next_absent(&self, from: u32) -> u32 {
        let mut w = (from >> 6) as usize;
        if w >= self.dirty {
            return from;
        }
        let mut word = !self.words[w] & (!0u64 << (from & 63));
        loop {
            if word != 0 {
                return (w as u32) * 64 + word.trailing_zeros();
            }
            w += 1;
            if w >= self.dirty {
                return (w as u32) * 64;
            }
            word = !self.words[w];
        }
    }
}

/// The index of the first zero bit in `words` (little-endian bit order), or
/// `64 * words.len()` when every bit is set.
#[inline]
pub fn mex_words(words: &[u64]) -> u32 {
    for (i, &w) in words.iter().enumerate() {
        if w != u64::MAX {
            return i as u32 * 64 + (!w).trailing_zeros();
        }
    }
    words.len() as u32 * 64
}

/// The first index `j` with `flags[j] == 0`, or `flags.len()` when there
/// is none: the mex of a flag row.
#[inline]
pub fn first_unflagged(flags: &[u8]) -> usize {
    platform::first_unflagged(isa::level(), flags)
}

/// [`first_unflagged`] on the path `isa` (which the host must have).
#[inline]
pub fn first_unflagged_on(isa: Isa, flags: &[u8]) -> usize {
    platform::first_unflagged(isa::on_host_level(isa), flags)
}

/// Reference twin of [`first_unflagged`].
#[inline]
pub fn first_unflagged_reference(flags: &[u8]) -> usize {
    (0..flags.len())
        .find(|&j| flags[j] == 0)
        .unwrap_or(flags.len())
}

/// Sets bit `j % 64` of `out[j / 64]` for every `j < flags.len()` with
/// `flags[j] == 0`, and clears the others: the values still open in a flag
/// row, as a bitset. `out` must hold `flags.len()` bits.
#[inline]
pub fn unflagged_bits(flags: &[u8], out: &mut [u64]) {
    assert!(
        out.len() * 64 >= flags.len(),
        "unflagged_bits: out too short"
    );
    platform::unflagged_bits(isa::level(), flags, out)
}

/// [`unflagged_bits`] on the path `isa` (which the host must have).
#[inline]
pub fn unflagged_bits_on(isa: Isa, flags: &[u8], out: &mut [u64]) {
    assert!(
        out.len() * 64 >= flags.len(),
        "unflagged_bits: out too short"
    );
    platform::unflagged_bits(isa::on_host_level(isa), flags, out)
}

/// Reference twin of [`unflagged_bits`].
pub fn unflagged_bits_reference(flags: &[u8], out: &mut [u64]) {
    out.fill(0);
    for (j, &f) in flags.iter().enumerate() {
        if f == 0 {
            out[j / 64] |= 1 << (j % 64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mex_of_small_sets() {
        let mut s = ValueSet::new();
        s.reset(200);
        assert_eq!(s.mex(), 0);
        for v in [0, 1, 2, 4] {
            s.insert(v);
        }
        assert_eq!(s.mex(), 3);
        assert_eq!(s.next_absent(4), 5);
        for v in 0..130 {
            s.insert(v);
        }
        assert_eq!(s.mex(), 130);
        s.reset(10);
        assert_eq!(s.mex(), 0);
        assert!(!s.contains(5));
    }

    #[test]
    fn translated_inserts_are_cleared_and_counted() {
        let mut s = ValueSet::new();
        s.reset(256);
        // {0, 1, 2} ⊕ 3 = {3, 2, 1}: mex 0.
        s.insert_xor_translated(&[0b111], 3);
        assert_eq!(s.mex(), 0);
        s.insert(0);
        assert_eq!(s.mex(), 4);
        // Into the fourth word: {1} ⊕ 192 = {193}.
        s.insert_xor_translated(&[0b10], 192);
        assert!(s.contains(193));
        // reset must clear what the translation wrote.
        s.reset(256);
        assert!(!s.contains(193) && !s.contains(1));
        assert_eq!(s.mex(), 0);
    }

    #[test]
    fn mex_matches_naive() {
        let mut x = 0x9e3779b97f4a7c15u64;
        let mut s = ValueSet::new();
        for _ in 0..500 {
            s.reset(512);
            let mut present = [false; 512];
            for _ in 0..(x % 600) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let v = (x % 300) as u32;
                present[v as usize] = true;
                s.insert(v);
            }
            let naive = present.iter().position(|&p| !p).unwrap() as u32;
            assert_eq!(s.mex(), naive);
        }
    }
    proptest::proptest! {
        #[test]
        fn first_unflagged_matches_scalar(
            f in proptest::collection::vec(0u8..3, 0..200),
            zero_at in proptest::option::of(0usize..200),
        ) {
            // Mostly flagged rows (so the first zero is often past a step).
            let mut f: Vec<u8> = f.into_iter().map(|b| b.max(1)).collect();
            if let Some(z) = zero_at.filter(|&z| z < f.len()) {
                f[z] = 0;
            }
            let want = (0..f.len()).find(|&j| f[j] == 0).unwrap_or(f.len());
            proptest::prop_assert_eq!(first_unflagged_reference(&f), want);
            proptest::prop_assert_eq!(crate::portable::mex::first_unflagged(&f), want);
            for isa in isa::available() {
                proptest::prop_assert_eq!(first_unflagged_on(isa, &f), want, "{}", isa);
            }
        }

        #[test]
        fn unflagged_bits_matches_scalar(
            f in proptest::collection::vec(0u8..3, 0..600),
            spare in 0usize..3,
            junk in proptest::prelude::any::<u64>(),
            binary in proptest::prelude::any::<bool>(),
        ) {
            // Bytes of 0 and 1 only, as the kernels write them (the SWAR
            // steps), or with 2s too (their fallback).
            let f: Vec<u8> = if binary { f.iter().map(|&b| b.min(1)).collect() } else { f };
            let words = f.len().div_ceil(64) + spare;
            let mut b = vec![!junk; words];
            unflagged_bits_reference(&f, &mut b);
            let mut a = vec![junk; words];
            crate::portable::mex::unflagged_bits(&f, &mut a);
            proptest::prop_assert_eq!(&a, &b, "portable");
            // Every path the host has (the last, the best, stays in a).
            for isa in isa::available() {
                a.fill(junk);
                unflagged_bits_on(isa, &f, &mut a);
                proptest::prop_assert_eq!(&a, &b, "{}", isa);
            }
            let want: Vec<usize> = (0..f.len()).filter(|&j| f[j] == 0).collect();
            let got: Vec<usize> = (0..words * 64).filter(|&j| a[j / 64] >> (j % 64) & 1 == 1).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
