//! Three-heap splits (hexadecimal bit 8) on bitsets, for the reference
//! engine.
//!
//! Enumerating every `a + b + c = M` costs `M²/12` XORs per heap; instead
//! the two-heap sets `S2(m) = {G(a) ⊕ G(m − a) : 1 ≤ a < m}` are kept as
//! bitsets, one per `m` (each is built once, in `m/2` steps), and the
//! three-heap options of `M` are `∪_{c=1}^{M−2} S2(M − c) ⊕ G(c)`: the
//! order of the three heaps does not matter for a union, and every part is
//! ≥ 1 because `c ≥ 1` and `S2` only holds splits into non-empty heaps.
//! XOR by `G(c)` moves words by `G(c) >> 6` and permutes the bits inside
//! each word by `G(c) & 63` (the kernel
//! [`or_xor_translated`](octal_kernels::xor_translate::or_xor_translated)):
//! the moved sets are ORed into one block per `G(c) & 63` first, so each
//! heap costs a plain OR and the permutation is paid at most 64 times.
//!
//! Memory: `S2(m)` takes one bit per possible value, so the table grows as
//! `N · B / 8` bytes (B the power of two above the values). Beyond
//! [`Split3::DEFAULT_CACHE_WORDS`] the sets are rebuilt when needed instead
//! of stored: slower, never out of memory.

use octal_kernels::mex::ValueSet;
use octal_kernels::xor_translate::or_xor_indexed;
use octal_kernels::Value;

use super::tuning::{SPLIT3_CACHE_WORDS, SPLIT3_GROUP_MAX_BOUND};

/// Words of a bitset holding values below the power of two above `max`.
fn words_for(max: u32) -> usize {
    ((max as usize + 1).next_power_of_two() / 64).max(1)
}

/// The cache of `S2(m)` bitsets and the scratch space of the union.
pub struct Split3 {
    /// `S2(m)` for `m < cached()` is `table[offsets[m]..offsets[m + 1]]`.
    table: Vec<u64>,
    offsets: Vec<usize>,
    /// The largest of `G(1), …, G(cached() − 2)`: the values `S2` of the
    /// next `m` is built from.
    max: u32,
    /// Stop storing once the table holds this many words.
    cache_words: usize,
    /// Scratch `S2(m)` for an `m` beyond the table.
    scratch: Vec<u64>,
    /// 64 blocks, one per `G(c) & 63`: the OR of the `S2(M − c)`, each
    /// moved by `G(c) >> 6` words.
    acc: Vec<u64>,
}

impl Default for Split3 {
    fn default() -> Self {
        Split3::new(Split3::DEFAULT_CACHE_WORDS)
    }
}

impl Split3 {
    /// 512 MiB of stored `S2` sets ([`SPLIT3_CACHE_WORDS`]).
    pub const DEFAULT_CACHE_WORDS: usize = SPLIT3_CACHE_WORDS;
    /// Share bit permutations between equal `G(c) & 63` while the 64
    /// blocks stay small ([`SPLIT3_GROUP_MAX_BOUND`]).
    const GROUP_MAX_BOUND: usize = SPLIT3_GROUP_MAX_BOUND;

    /// A cache that stores at most `cache_words` words of `S2` sets.
    pub fn new(cache_words: usize) -> Split3 {
        Split3 {
            table: Vec::new(),
            offsets: vec![0],
            max: 0,
            cache_words,
            scratch: Vec::new(),
            acc: Vec::new(),
        }
    }

    /// How many `m` have their `S2(m)` stored.
    fn cached(&self) -> usize {
        self.offsets.len() - 1
    }

    /// ORs `S2(m)` into `out`, which must cover its values; needs `G(1..m)`.
    fn add_s2<V: Value>(g: &[V], m: usize, out: &mut [u64]) {
        for a in 1..=m / 2 {
            let v = g[a].get() ^ g[m - a].get();
            out[(v >> 6) as usize] |= 1u64 << (v & 63);
        }
    }

    /// Stores `S2(m)` for every `m < upto` while the budget lasts; needs
    /// `G(1..upto − 1)`.
    fn fill<V: Value>(&mut self, g: &[V], upto: usize) {
        while self.cached() < upto && self.table.len() < self.cache_words {
            let m = self.cached();
            if m >= 2 {
                self.max = self.max.max(g[m - 1].get());
            }
            let words = if m >= 2 { words_for(self.max) } else { 0 };
            let start = self.table.len();
            self.table.resize(start + words, 0);
            Split3::add_s2(g, m, &mut self.table[start..]);
            self.offsets.push(self.table.len());
        }
    }

    /// `S2(m)`, from the table or rebuilt into the scratch set.
    fn s2<'a, V: Value>(
        table: &'a [u64],
        offsets: &[usize],
        scratch: &'a mut Vec<u64>,
        g: &[V],
        m: usize,
        words: usize,
    ) -> &'a [u64] {
        if m + 1 < offsets.len() {
            &table[offsets[m]..offsets[m + 1]]
        } else {
            scratch.clear();
            scratch.resize(words, 0);
            Split3::add_s2(g, m, scratch);
            scratch
        }
    }

    /// Inserts into `set` every `G(a) ⊕ G(b) ⊕ G(c)` with `a + b + c = m`,
    /// `a, b, c ≥ 1`. `g` must hold `G(0), …, G(m − 1)` and `set` must have
    /// been reset to a bound above all of them (a power of two, as the
    /// reference engine's is).
    pub fn insert_options<V: Value>(&mut self, g: &[V], m: usize, set: &mut ValueSet) {
        self.insert_options_with(g, m, set, Self::GROUP_MAX_BOUND);
    }

    /// [`insert_options`](Self::insert_options), sharing bit permutations
    /// between equal `G(c) & 63` only when the values are below
    /// `group_limit` (tests pin both paths equal).
    fn insert_options_with<V: Value>(
        &mut self,
        g: &[V],
        m: usize,
        set: &mut ValueSet,
        group_limit: usize,
    ) {
        if m < 3 {
            return;
        }
        // S2(m − c) for c = 1 ..= m − 2, i.e. S2(2) … S2(m − 1).
        self.fill(g, m);
        let max = g[1..m].iter().map(|v| v.get()).max().unwrap_or(0);
        let words = words_for(max);
        let grouped = words * 64 <= group_limit;
        let Split3 {
            table,
            offsets,
            scratch,
            acc,
            ..
        } = self;
        if !grouped {
            for c in 1..=m - 2 {
                let s = Split3::s2(table, offsets, scratch, g, m - c, words);
                set.insert_xor_translated(s, g[c].get());
            }
            return;
        }
        // One block of `words` words per low part G(c) & 63: the word-moving
        // part of each translation is done while ORing, the bit permutation
        // once per block.
        acc.clear();
        acc.resize(64 * words, 0);
        let mut used = 0u64;
        if words == 1 && m < offsets.len() {
            // Every value below 64 and every S2 in the table, one word each
            // (m ≥ 2 has at least one): the common case, kept tight.
            for c in 1..=m - 2 {
                let low = g[c].get() as usize;
                used |= 1 << low;
                acc[low] |= table[offsets[m - c]];
            }
        } else {
            for c in 1..=m - 2 {
                let v = g[c].get();
                let low = (v & 63) as usize;
                used |= 1 << low;
                let s = Split3::s2(table, offsets, scratch, g, m - c, words);
                let block = &mut acc[low * words..(low + 1) * words];
                or_xor_indexed(block, s, (v >> 6) as usize);
            }
        }
        while used != 0 {
            let low = used.trailing_zeros() as usize;
            used &= used - 1;
            set.insert_xor_translated(&acc[low * words..(low + 1) * words], low as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every a ≤ b ≤ c with a + b + c = m, straight from the definition.
    fn naive(g: &[u32], m: usize) -> Vec<u32> {
        let mut out = Vec::new();
        for a in 1..m {
            for b in a..m {
                if a + b < m && m - a - b >= b {
                    out.push(g[a] ^ g[b] ^ g[m - a - b]);
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    fn members(set: &ValueSet, bound: u32) -> Vec<u32> {
        (0..bound).filter(|&v| set.contains(v)).collect()
    }

    #[test]
    fn options_match_the_definition_on_every_path() {
        // Pseudo-random values, small and large, so both the grouped and
        // the direct path, and the table and the scratch, are exercised.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for (len, spread) in [(40usize, 5u32), (90, 300), (60, 5000)] {
            let g: Vec<u32> = (0..len)
                .map(|n| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if n == 0 {
                        0
                    } else {
                        (x % spread as u64) as u32
                    }
                })
                .collect();
            let bound = (*g.iter().max().unwrap() + 1).next_power_of_two().max(64);
            for cache_words in [0, 7, usize::MAX] {
                for group_limit in [0, usize::MAX] {
                    let mut split = Split3::new(cache_words);
                    let mut set = ValueSet::new();
                    for m in 0..len {
                        set.reset(bound);
                        split.insert_options_with(&g, m, &mut set, group_limit);
                        assert_eq!(
                            members(&set, bound),
                            naive(&g, m),
                            "m={m} spread={spread} cache={cache_words} group={group_limit}"
                        );
                    }
                }
            }
        }
    }
}
