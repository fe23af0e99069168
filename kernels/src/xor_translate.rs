//! XOR-translation of value bitsets: `dst ∪= {v ⊕ k : v ∈ src}`.
//!
//! Three-heap splits need it. The values reachable by splitting `m` into
//! two heaps form a bitset `S2(m)`; splitting `M` into three heaps reaches
//! the union over `c` of `S2(M − c) ⊕ G(c)`. XOR by a constant `k` moves bit
//! `64w + b` to bit `64(w ⊕ (k >> 6)) + (b ⊕ (k & 63))`: the word index is
//! XORed with the high part of `k`, and inside each word the bits are
//! permuted by the low six bits, which is a fixed sequence of at most six
//! "delta swaps" of bit blocks of size 1, 2, 4, 8, 16 and 32.

/// Masks selecting the low half of each block of `2^(j+1)` bits.
const HALVES: [u64; 6] = [
    0x5555_5555_5555_5555,
    0x3333_3333_3333_3333,
    0x0f0f_0f0f_0f0f_0f0f,
    0x00ff_00ff_00ff_00ff,
    0x0000_ffff_0000_ffff,
    0x0000_0000_ffff_ffff,
];

/// The per-call masks: `HALVES[j]` where bit `j` of `s` is set, else 0
/// (a delta swap with mask 0 changes nothing).
#[inline(always)]
fn swap_masks(s: u32) -> [u64; 6] {
    std::array::from_fn(|j| if s >> j & 1 != 0 { HALVES[j] } else { 0 })
}

/// Moves bit `b` of `x` to bit `b ⊕ s`, for the `s` the masks were made
/// from. Branch-free, so a loop of it over a slice vectorises.
#[inline(always)]
fn permute(mut x: u64, m: &[u64; 6]) -> u64 {
    // Delta swap: exchange the bit blocks selected by m[j] with the blocks
    // 2^j above them.
    let mut j = 0;
    while j < 6 {
        let sh = 1u32 << j;
        let t = ((x >> sh) ^ x) & m[j];
        x ^= t ^ (t << sh);
        j += 1;
    }
    x
}

/// Moves bit `b` of `x` to bit `b ⊕ (s & 63)`.
#[inline]
pub fn xor_permute_word(x: u64, s: u32) -> u64 {
    permute(x, &swap_masks(s & 63))
}

/// `dst ∪= {v ⊕ k : v ∈ src}`, bitsets as little-endian `u64` words.
///
/// Panics if some word index `w ⊕ (k >> 6)`, `w < src.len()`, is not below
/// `dst.len()`; sizing both to the same power of two above every value
/// (and `k`) is always enough.
#[inline]
pub fn or_xor_translated(dst: &mut [u64], src: &[u64], k: u32) {
    let masks = swap_masks(k & 63);
    or_moved(dst, src, (k >> 6) as usize, |w| permute(w, &masks));
}

/// `dst[w ⊕ h] |= src[w]` for every `w`: the XOR-translation by `64·h`,
/// which moves whole words. Translations by `k` with equal `k & 63` can be
/// ORed together this way and permuted once, by
/// [`or_xor_translated`] with `k & 63`. Panics as `or_xor_translated`.
#[inline]
pub fn or_xor_indexed(dst: &mut [u64], src: &[u64], h: usize) {
    or_moved(dst, src, h, |w| w);
}

/// `dst[w ⊕ h] |= f(src[w])`.
#[inline(always)]
fn or_moved(dst: &mut [u64], src: &[u64], h: usize, f: impl Fn(u64) -> u64) {
    // h has no bits below its lowest set bit, so a block of that many
    // words, aligned, lands contiguously: (base + j) ⊕ h = (base ⊕ h) + j.
    let block = if h == 0 {
        src.len().max(1)
    } else {
        1usize << h.trailing_zeros()
    };
    for (i, from) in src.chunks(block).enumerate() {
        let base = (i * block) ^ h;
        let to = &mut dst[base..base + from.len()];
        for (d, &s) in to.iter_mut().zip(from) {
            *d |= f(s);
        }
    }
}

/// The scalar twin of [`or_xor_translated`]: one bit at a time.
pub fn or_xor_translated_scalar(dst: &mut [u64], src: &[u64], k: u32) {
    for (w, &word) in src.iter().enumerate() {
        for b in 0..64u32 {
            if word >> b & 1 != 0 {
                let v = (w as u64 * 64 + b as u64) ^ k as u64;
                dst[(v / 64) as usize] |= 1u64 << (v % 64);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn permute_by_hand() {
        assert_eq!(xor_permute_word(1, 0), 1);
        assert_eq!(xor_permute_word(1, 5), 1 << 5);
        assert_eq!(xor_permute_word(1 << 63, 63), 1);
        assert_eq!(xor_permute_word(0b0110, 1), 0b1001);
        assert_eq!(xor_permute_word(u64::MAX, 37), u64::MAX);
        // Only the low six bits of the shift matter.
        assert_eq!(
            xor_permute_word(0xdead_beef, 64 + 3),
            xor_permute_word(0xdead_beef, 3)
        );
    }

    #[test]
    fn translate_by_hand() {
        // {0, 3, 70} ⊕ 65 = {65, 66, 7}.
        let src = [1u64 | 1 << 3, 1 << 6];
        let mut dst = [0u64; 2];
        or_xor_translated(&mut dst, &src, 65);
        assert_eq!(dst, [1 << 7, 1 << 1 | 1 << 2]);
        // Union, not overwrite.
        let mut dst = [1u64 << 9, 0];
        or_xor_translated(&mut dst, &[1], 0);
        assert_eq!(dst, [1 << 9 | 1, 0]);
    }

    proptest! {
        #[test]
        fn permute_matches_bitwise(x: u64, s in 0u32..64) {
            let mut naive = 0u64;
            for b in 0..64 {
                if x >> b & 1 != 0 {
                    naive |= 1 << (b ^ s);
                }
            }
            prop_assert_eq!(xor_permute_word(x, s), naive);
        }

        #[test]
        fn translate_matches_scalar(
            log_len in 0u32..6,
            words in proptest::collection::vec(any::<u64>(), 32),
            init in proptest::collection::vec(any::<u64>(), 32),
            k: u32,
        ) {
            let len = 1usize << log_len;
            let k = k % (64 * len as u32);
            let src = &words[..len];
            let mut fast = init[..len].to_vec();
            let mut slow = fast.clone();
            or_xor_translated(&mut fast, src, k);
            or_xor_translated_scalar(&mut slow, src, k);
            prop_assert_eq!(fast, slow);
        }

        #[test]
        fn indexed_matches_scalar(
            src in proptest::collection::vec(any::<u64>(), 1..17),
            h in 0usize..16,
        ) {
            let mut fast = vec![0u64; 32];
            let mut slow = fast.clone();
            or_xor_indexed(&mut fast, &src, h);
            or_xor_translated_scalar(&mut slow, &src, 64 * h as u32);
            prop_assert_eq!(fast, slow);
        }

        #[test]
        fn translate_short_source_into_long_destination(
            src in proptest::collection::vec(any::<u64>(), 1..9),
            k in 0u32..1024,
        ) {
            // src shorter than dst and not a power of two long.
            let mut fast = vec![0u64; 16];
            let mut slow = fast.clone();
            or_xor_translated(&mut fast, &src, k);
            or_xor_translated_scalar(&mut slow, &src, k);
            prop_assert_eq!(fast, slow);
        }
    }
}
