//! Sparse-space masks: which positions are "rare", and how to pick the mask.
//!
//! With a bit mask `m` and `parity(v) = popcount(v & m) mod 2`, a split of
//! a heap into two *common* heaps always has the same value parity, so the
//! values of the other parity can only come from pairs with a rare heap.
//! The mask that makes the fewest positions rare is found for all masks at
//! once with a Walsh–Hadamard transform of the value histogram.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// A sparse-space classifier: the value mask and whether the heap's own
/// parity is folded in ("position parity").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mask {
    pub bits: u32,
    /// Position parity: only valid when all split distances have the same
    /// parity (the engine checks).
    pub pp: bool,
}

impl Mask {
    /// The value parity `Q(n)` that every common × common split of heap `n`
    /// has. `i0` is any split distance (they all share a parity when `pp`).
    #[inline(always)]
    pub fn q(self, n: usize, i0: usize) -> u32 {
        (self.pp as u32) & ((n ^ i0) as u32 & 1)
    }

    /// `popcount(v & bits) mod 2`.
    #[inline(always)]
    pub fn parity(self, v: u32) -> u32 {
        (v & self.bits).count_ones() & 1
    }

    /// A position is rare when its value has the parity that common ×
    /// common splits produce: then it can only be proved by a witness-free
    /// scan, while common positions take the mex of the other parity.
    #[inline(always)]
    pub fn is_rare(self, n: usize, v: u32, i0: usize) -> bool {
        self.parity(v) == self.q(n, i0)
    }
}

/// Which class of positions is the rare one, as a summary states it:
/// heap `n` is rare when `popcount(G(n) & mask) mod 2` equals `parity`,
/// plus `n mod 2` when `position_parity` is on (see [`Mask::is_rare`]).
/// Heap 0 follows the same rule, though the engine never pairs it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RareClass {
    /// The mask in hex, as `--mask` takes it: `0x1ee`.
    pub mask: String,
    /// Whether the heap's own parity enters the rule.
    pub position_parity: bool,
    /// `popcount(G(n) & mask) mod 2` of a rare heap (without position
    /// parity), or of a rare even heap (with it).
    pub parity: u32,
    /// The rule in words, e.g. `popcount(G(n) & 0x1ee) is even`.
    pub rule: String,
}

impl RareClass {
    /// The rare class of `mask` in a game whose split distance is `i0`.
    pub fn of(mask: Mask, i0: usize) -> RareClass {
        let hex = format!("0x{:x}", mask.bits);
        // Mask::is_rare: parity(v) == pp & ((n ^ i0) & 1).
        let parity = u32::from(mask.pp) & (i0 as u32 & 1);
        let rule = match (mask.pp, parity) {
            (false, _) => format!("popcount(G(n) & {hex}) is even"),
            (true, 0) => format!("popcount(G(n) & {hex}) ≡ n (mod 2)"),
            (true, _) => format!("popcount(G(n) & {hex}) ≡ n + 1 (mod 2)"),
        };
        RareClass {
            mask: hex,
            position_parity: mask.pp,
            parity,
            rule,
        }
    }

    /// The mask's bits (`0x1ee` → 494); None when the text is not hex.
    pub fn bits(&self) -> Option<u32> {
        u32::from_str_radix(self.mask.trim_start_matches("0x"), 16).ok()
    }

    /// Whether heap `n` with value `g` is of the rare class.
    pub fn is_rare(&self, n: u64, g: u32) -> bool {
        let bits = self.bits().unwrap_or(0);
        let want = (self.parity + u32::from(self.position_parity) * (n & 1) as u32) & 1;
        (g & bits).count_ones() & 1 == want
    }
}

/// The split distance `i0` that [`Mask::q`] takes and whether position
/// parity may be used: only when every split distance of `take_split`
/// (the game's two-heap splits) has the parity of the first.
pub fn split_parity(take_split: &[usize]) -> (usize, bool) {
    let i0 = take_split.first().copied().unwrap_or(0);
    (i0, take_split.iter().all(|&i| (i ^ i0) & 1 == 0))
}

/// What `--mask` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MaskSpec {
    /// Chosen from the values so far, re-chosen at doubling points: sparse
    /// space when it is faster on this CPU than the diagonal method (the
    /// summaries report the game's sparse space either way).
    #[default]
    Auto,
    /// Chosen as `Auto`, but computing in sparse space whenever there is
    /// any, on every CPU alike: a windowed run needs it, and a census'
    /// runs should not depend on the machine.
    Sparse,
    /// No sparse space: every split pair is scanned.
    Off,
    /// This mask, always.
    Fixed(Mask),
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("bad mask {0:?}: expected auto, sparse, none, a hex mask like 1ee or 0x1ee, or a mask with position parity like 0x1ee+p")]
pub struct MaskError(String);

impl FromStr for MaskSpec {
    type Err = MaskError;
    fn from_str(s: &str) -> Result<Self, MaskError> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "auto" => return Ok(MaskSpec::Auto),
            "sparse" => return Ok(MaskSpec::Sparse),
            "none" | "off" => return Ok(MaskSpec::Off),
            _ => {}
        }
        let (hex, pp) = match t.strip_suffix("+p") {
            Some(h) => (h, true),
            None => (t.as_str(), false),
        };
        let hex = hex.strip_prefix("0x").unwrap_or(hex);
        let bits = u32::from_str_radix(hex, 16).map_err(|_| MaskError(s.to_string()))?;
        if bits == 0 && !pp {
            return Err(MaskError(s.to_string()));
        }
        Ok(MaskSpec::Fixed(Mask { bits, pp }))
    }
}

impl fmt::Display for MaskSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaskSpec::Auto => f.write_str("auto"),
            MaskSpec::Sparse => f.write_str("sparse"),
            MaskSpec::Off => f.write_str("none"),
            MaskSpec::Fixed(m) => write!(f, "0x{:x}{}", m.bits, if m.pp { "+p" } else { "" }),
        }
    }
}

/// Counts of positions by value and by heap parity relative to a split
/// distance: `by_parity[p][v]` heaps `n ≥ 1` with `(n ⊕ i0) & 1 == p` and
/// `G(n) == v`.
#[derive(Debug, Clone, Default)]
pub struct Histogram {
    by_parity: [Vec<u64>; 2],
}

impl Histogram {
    #[inline]
    pub fn push(&mut self, n: usize, v: u32, i0: usize) {
        let h = &mut self.by_parity[(n ^ i0) & 1];
        let v = v as usize;
        if h.len() <= v {
            h.resize((v + 1).next_power_of_two(), 0);
        }
        h[v] += 1;
    }

    /// Takes back a [`push`](Self::push) of the same heap and value.
    pub fn pop(&mut self, n: usize, v: u32, i0: usize) {
        let c = &mut self.by_parity[(n ^ i0) & 1][v as usize];
        debug_assert!(*c > 0, "popping a value never pushed");
        *c -= 1;
    }

    /// The counts, by heap parity then value (for checkpoints).
    pub fn counts(&self) -> [Vec<u64>; 2] {
        self.by_parity.clone()
    }

    /// A histogram with these [`counts`](Self::counts).
    pub fn from_counts(by_parity: [Vec<u64>; 2]) -> Histogram {
        Histogram { by_parity }
    }

    /// The mask with the fewest rare positions and that count, over all
    /// masks below the next power of two above the largest value (with
    /// position parity only when `allow_pp`). None when the values are too
    /// large for the transform to be cheap.
    pub fn best(&self, allow_pp: bool) -> Option<(Mask, u64)> {
        const MAX_BITS: usize = 20;
        let size = self.by_parity[0].len().max(self.by_parity[1].len()).max(2);
        if size > 1 << MAX_BITS {
            return None;
        }
        let mut w = [vec![0i64; size], vec![0i64; size]];
        let mut total = [0i64; 2];
        for p in 0..2 {
            for (v, &c) in self.by_parity[p].iter().enumerate() {
                w[p][v] = c as i64;
                total[p] += c as i64;
            }
            walsh_hadamard(&mut w[p]);
        }
        let mut best: Option<(Mask, u64)> = None;
        for pp in [false, true] {
            if pp && !allow_pp {
                continue;
            }
            for (m, (w0, w1)) in w[0].iter().zip(&w[1]).enumerate().skip(1) {
                // #{parity(v & m) = 0} = (N + W(m)) / 2 and #{= 1} = (N − W(m)) / 2.
                let rare = if pp {
                    (total[0] + w0) / 2 + (total[1] - w1) / 2
                } else {
                    (total[0] + w0) / 2 + (total[1] + w1) / 2
                } as u64;
                if best.is_none_or(|(_, b)| rare < b) {
                    best = Some((Mask { bits: m as u32, pp }, rare));
                }
            }
        }
        best
    }
}

/// In-place Walsh–Hadamard transform: afterwards `h[m]` is
/// `Σ_v h[v]·(−1)^popcount(v & m)`. `h.len()` must be a power of two.
/// It runs at the doubling points only, not in a hot loop.
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
    fn a_rare_class_states_the_engines_rule() {
        // With and without position parity, for split distances of both
        // parities: the stated rule is the engine's.
        for (bits, pp) in [(0x1ee, false), (0x1e, true), (0x3, true)] {
            let mask = Mask { bits, pp };
            for i0 in [1usize, 2] {
                let class = RareClass::of(mask, i0);
                assert_eq!(class.mask, format!("0x{bits:x}"));
                for n in 0..64usize {
                    for v in 0..64u32 {
                        assert_eq!(
                            class.is_rare(n as u64, v),
                            mask.is_rare(n, v, i0),
                            "{} n={n} v={v}",
                            class.rule
                        );
                    }
                }
            }
        }
        // By hand: 0x1ee without position parity makes 0 and 1 rare (no
        // bit of the mask), 2 common (one bit), 6 rare (two).
        let c = RareClass::of(
            Mask {
                bits: 0x1ee,
                pp: false,
            },
            1,
        );
        assert_eq!(c.rule, "popcount(G(n) & 0x1ee) is even");
        assert_eq!(
            [0, 1, 2, 6].map(|v| c.is_rare(5, v)),
            [true, true, false, true]
        );
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

    #[test]
    fn spec_parses() {
        assert_eq!("auto".parse(), Ok(MaskSpec::Auto));
        assert_eq!("none".parse(), Ok(MaskSpec::Off));
        assert_eq!(
            "0x1EE".parse(),
            Ok(MaskSpec::Fixed(Mask {
                bits: 0x1ee,
                pp: false
            }))
        );
        assert_eq!(
            "1ee+p".parse(),
            Ok(MaskSpec::Fixed(Mask {
                bits: 0x1ee,
                pp: true
            }))
        );
        assert_eq!(
            "0+p".parse(),
            Ok(MaskSpec::Fixed(Mask { bits: 0, pp: true }))
        );
        for bad in ["", "0", "xyz", "0x", "1ee+q", "123456789"] {
            assert!(bad.parse::<MaskSpec>().is_err(), "{bad}");
        }
        for s in ["auto", "none", "0x1ee", "0x3+p"] {
            assert_eq!(s.parse::<MaskSpec>().unwrap().to_string(), s);
        }
    }

    #[test]
    fn best_mask_counts_like_brute_force() {
        // Pseudo-random values and positions; compare every mask's count.
        let mut x = 12345u64;
        let mut h = Histogram::default();
        let mut pts = Vec::new();
        for n in 1..2000usize {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = if x.is_multiple_of(10) {
                (x >> 20) as u32 % 64
            } else {
                33 + (n as u32 & 1) * 2
            };
            h.push(n, v, 1);
            pts.push((n, v));
        }
        for allow in [false, true] {
            let (m, c) = h.best(allow).unwrap();
            let count = |m: Mask| pts.iter().filter(|&&(n, v)| m.is_rare(n, v, 1)).count() as u64;
            assert_eq!(count(m), c);
            for bits in 1..64 {
                for pp in [false, true] {
                    if pp && !allow {
                        continue;
                    }
                    assert!(count(Mask { bits, pp }) >= c);
                }
            }
        }
    }
}
