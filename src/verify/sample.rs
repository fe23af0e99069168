//! Picking heaps to recompute and recomputing them with the reference
//! engine, which shares no code with the fast engines: the check every
//! kind of verification ends with.

use crate::code::Code;
use crate::engine::Reference;
use crate::seq::SeqRef;

/// A small deterministic generator for picking values to recompute.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), near enough for sampling.
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// `k` heaps to recompute among `from..to` (`from < to`), chosen by
/// `seed`: `k − 1` at random and always the last.
pub fn sample_heaps(seed: u64, k: u64, from: u64, to: u64) -> Vec<u64> {
    let mut rng = SplitMix(seed);
    let mut at: Vec<u64> = (1..k).map(|_| from + rng.below(to - from)).collect();
    at.push(to - 1);
    at
}

/// Recomputes `k` values at random positions of `g` (always including the
/// last) with the reference engine; returns the positions that disagree,
/// with (stored, recomputed).
pub fn recompute(code: &Code, g: SeqRef<'_>, k: u64, seed: u64) -> Vec<(u64, u32, u32)> {
    recompute_with(code, g, k, seed, &mut |_, _| {})
}

/// As [`recompute`], calling `progress(done, total)` now and then.
pub fn recompute_with(
    code: &Code,
    g: SeqRef<'_>,
    k: u64,
    seed: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Vec<(u64, u32, u32)> {
    let n = g.len() as u64;
    if n == 0 || k == 0 {
        return Vec::new();
    }
    let at = sample_heaps(seed, k, 0, n);
    let mut reference = Reference::new(code);
    let total = at.len() as u64;
    at.into_iter()
        .enumerate()
        .filter_map(|(done, i)| {
            if done % 64 == 0 {
                progress(done as u64, total);
            }
            let want = match g {
                SeqRef::U16(v) => reference.value_at(v, i as usize),
                SeqRef::U32(v) => reference.value_at(v, i as usize),
            };
            let have = g.get(i as usize);
            (want != have).then_some((i, have, want))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recompute_finds_a_wrong_value() {
        let code: Code = ".77".parse().unwrap();
        let mut g: Vec<u16> = crate::engine::compute(&mut Reference::new(&code), 300)
            .into_iter()
            .map(|v| v as u16)
            .collect();
        assert!(recompute(&code, SeqRef::U16(&g), 50, 7).is_empty());
        g[299] ^= 1;
        let bad = recompute(&code, SeqRef::U16(&g), 1, 7);
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].0, 299);
    }
}
