//! Bitsets of option values and their minimum excluded value (mex).

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
}
