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

/// The first index `j` with `flags[j] == 0`, or `flags.len()` when there
/// is none: the mex of a flag row.
#[inline]
pub fn first_unflagged(flags: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present.
            return unsafe { first_unflagged_avx2(flags) };
        }
    }
    first_unflagged_scalar(flags)
}

/// Scalar twin of [`first_unflagged`].
#[inline]
pub fn first_unflagged_scalar(flags: &[u8]) -> usize {
    flags.iter().position(|&f| f == 0).unwrap_or(flags.len())
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn first_unflagged_avx2(flags: &[u8]) -> usize {
    use std::arch::x86_64::*;
    let n = flags.len();
    let zero = _mm256_setzero_si256();
    let mut j = 0;
    while j + 32 <= n {
        let f = _mm256_loadu_si256(flags.as_ptr().add(j) as *const __m256i);
        let m = _mm256_movemask_epi8(_mm256_cmpeq_epi8(f, zero)) as u32;
        if m != 0 {
            return j + m.trailing_zeros() as usize;
        }
        j += 32;
    }
    j + first_unflagged_scalar(&flags[j..])
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
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: AVX-512 BW is present; lengths checked above.
            return unsafe { unflagged_bits_avx512(flags, out) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present; lengths checked above.
            return unsafe { unflagged_bits_avx2(flags, out) };
        }
    }
    unflagged_bits_scalar(flags, out)
}

/// Scalar twin of [`unflagged_bits`].
pub fn unflagged_bits_scalar(flags: &[u8], out: &mut [u64]) {
    out.fill(0);
    for (j, &f) in flags.iter().enumerate() {
        if f == 0 {
            out[j / 64] |= 1 << (j % 64);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn unflagged_bits_avx2(flags: &[u8], out: &mut [u64]) {
    use std::arch::x86_64::*;
    let n = flags.len();
    let zero = _mm256_setzero_si256();
    let open = |j: usize| {
        let f = _mm256_loadu_si256(flags.as_ptr().add(j) as *const __m256i);
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(f, zero)) as u32 as u64
    };
    out.fill(0);
    // 32 bytes a step, so that rows of 32 values (small games) are one step.
    let mut j = 0;
    while j + 32 <= n {
        out[j / 64] |= open(j) << (j % 64);
        j += 32;
    }
    unflagged_tail(flags, j, out);
}

/// A word of the bitset per step: the byte test gives the 64 bits at once.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn unflagged_bits_avx512(flags: &[u8], out: &mut [u64]) {
    use std::arch::x86_64::*;
    let n = flags.len();
    out.fill(0);
    let mut j = 0;
    while j + 64 <= n {
        let f = _mm512_loadu_si512(flags.as_ptr().add(j) as *const _);
        out[j / 64] = _mm512_testn_epi8_mask(f, f);
        j += 64;
    }
    unflagged_tail(flags, j, out);
}

/// The scalar end of the SIMD paths: bytes `j..` one at a time.
fn unflagged_tail(flags: &[u8], j: usize, out: &mut [u64]) {
    for (j, &f) in flags.iter().enumerate().skip(j) {
        if f == 0 {
            out[j / 64] |= 1 << (j % 64);
        }
    }
}

/// In-place Walsh–Hadamard transform: afterwards `h[m]` is
/// `Σ_v h[v]·(−1)^popcount(v & m)`. `h.len()` must be a power of two.
/// Not a hot loop (it runs at doubling points), so it has no SIMD twin.
pub fn walsh_hadamard(h: &mut [i64]) {
    assert!(
        h.len().is_power_of_two(),
        "walsh_hadamard: length not a power of two"
    );
    let mut len = 1;
    while len < h.len() {
        for block in h.chunks_mut(2 * len) {
            let (a, b) = block.split_at_mut(len);
            for (x, y) in a.iter_mut().zip(b.iter_mut()) {
                let (u, v) = (*x, *y);
                *x = u + v;
                *y = u - v;
            }
        }
        len *= 2;
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
    #[test]
    fn walsh_hadamard_by_definition() {
        let h0: Vec<i64> = (0..16).map(|v| (v * 7 % 5) as i64).collect();
        let mut h = h0.clone();
        walsh_hadamard(&mut h);
        for m in 0..16u32 {
            let want: i64 = (0..16u32)
                .map(|v| {
                    if (v & m).count_ones() % 2 == 0 {
                        h0[v as usize]
                    } else {
                        -h0[v as usize]
                    }
                })
                .sum();
            assert_eq!(h[m as usize], want, "mask {m}");
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
            proptest::prop_assert_eq!(first_unflagged(&f), want);
            proptest::prop_assert_eq!(first_unflagged_scalar(&f), want);
        }

        #[test]
        fn unflagged_bits_matches_scalar(
            f in proptest::collection::vec(0u8..3, 0..600),
            spare in 0usize..3,
            junk in proptest::prelude::any::<u64>(),
        ) {
            let words = f.len().div_ceil(64) + spare;
            let mut a = vec![junk; words];
            let mut b = vec![!junk; words];
            unflagged_bits(&f, &mut a);
            unflagged_bits_scalar(&f, &mut b);
            proptest::prop_assert_eq!(&a, &b);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // The AVX2 path too, where AVX-512 would be taken.
                let mut c = vec![junk; words];
                unsafe { unflagged_bits_avx2(&f, &mut c) };
                proptest::prop_assert_eq!(&a, &c);
            }
            let want: Vec<usize> = (0..f.len()).filter(|&j| f[j] == 0).collect();
            let got: Vec<usize> = (0..words * 64).filter(|&j| a[j / 64] >> (j % 64) & 1 == 1).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
