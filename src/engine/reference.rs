//! The reference engine: for each heap, every option, into a bitset, then
//! the mex. Quadratic and obviously right; the tests use it as the oracle.
//! Hexadecimal three-heap splits go through [`Split3`]'s bitsets of
//! two-heap values (checked against plain enumeration in the tests).

use octal_kernels::mex::ValueSet;
use octal_kernels::Value;

use super::api::{fit, value_bound, Engine, EngineInfo, Overflow};
use super::split3::Split3;
use crate::code::{Code, Rules};

/// Calls `reach` with the value of every option of heap `n` that leaves
/// at most two heaps: `get(h)` is G(h), or None where it is not known,
/// and then `reach(None)` (a pair with either part unknown included).
pub fn two_heap_options(
    rules: &Rules,
    n: usize,
    get: impl Fn(usize) -> Option<u32>,
    mut reach: impl FnMut(Option<u32>),
) {
    for &i in &rules.take_all {
        if n == i {
            reach(Some(0));
        }
    }
    for &i in &rules.take_leave_one {
        if n > i {
            reach(get(n - i));
        }
    }
    for &i in &rules.take_split {
        if n >= i + 2 {
            let m = n - i;
            // Unequal splits (the u suffix) skip a = m − a.
            let top = if rules.unequal_splits {
                (m - 1) / 2
            } else {
                m / 2
            };
            for a in 1..=top {
                reach(get(a).zip(get(m - a)).map(|(x, y)| x ^ y));
            }
        }
    }
}

/// Bitset-mex over all options of every heap.
pub struct Reference {
    rules: Rules,
    set: ValueSet,
    /// Three-heap splits; assumes every call sees the same game's values.
    split3: Split3,
}

impl Reference {
    pub fn new(code: &Code) -> Reference {
        Reference {
            rules: code.rules(),
            set: ValueSet::new(),
            split3: Split3::default(),
        }
    }

    /// G(n) from G(0..n), by brute force.
    pub fn value_at<V: Value>(&mut self, g: &[V], n: usize) -> u32 {
        let max = g[..n].iter().map(|v| v.get()).max().unwrap_or(0);
        self.value_below(g, n, max)
    }

    /// G(n), given that `max` is the largest of G(0..n).
    fn value_below<V: Value>(&mut self, g: &[V], n: usize, max: u32) -> u32 {
        let rules = &self.rules;
        let bound = value_bound(max) as u32;
        let set = &mut self.set;
        set.reset(bound);
        two_heap_options(
            rules,
            n,
            |h| Some(g[h].get()),
            |v| set.insert(v.expect("every value below n is known")),
        );
        for &i in &rules.take_split3 {
            if n >= i + 3 {
                self.split3.insert_options(g, n - i, set);
            }
        }
        set.mex()
    }

    fn extend<V: Value>(&mut self, g: &mut [V], from: usize) -> Result<(), Overflow> {
        let mut max = g[..from].iter().map(|v| v.get()).max().unwrap_or(0);
        for n in from..g.len() {
            let v = self.value_below(g, n, max);
            max = max.max(v);
            g[n] = fit(v, n)?;
        }
        Ok(())
    }
}

impl Engine for Reference {
    super::api::extend_at_both_widths!();
    fn info(&self) -> EngineInfo {
        EngineInfo {
            engine: "reference",
            threads: 1,
            ..EngineInfo::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::compute;

    fn seq(code: &str, n: usize) -> Vec<u32> {
        compute(&mut Reference::new(&code.parse().unwrap()), n)
    }

    #[test]
    fn kayles_by_hand() {
        // G(3) = mex(G(0)^G(2), G(1)^G(1), G(1)^G(0)... ) = 3, as in the notes.
        assert_eq!(seq(".77", 12), [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]);
    }

    #[test]
    fn nim_and_subtraction() {
        // 0.333…: remove 1, 2 or 3 → G(n) = n mod 4.
        assert_eq!(seq("0.333", 9), [0, 1, 2, 3, 0, 1, 2, 3, 0]);
        // 4.0: split only; a heap of n ≥ 2 splits into two heaps.
        assert_eq!(seq("4.0", 4)[..3], [0, 0, 1]);
        assert_eq!(seq("0.0", 5), [0; 5]);
    }

    #[test]
    fn hexadecimal_and_grundy_by_hand() {
        // 0.8: remove one, leave three heaps. G(0..3) = 0; n = 4 leaves
        // 1+1+1 (value 0); n = 7 leaves 1+1+4 (G = 1) or 1+2+3, 2+2+2 (0).
        assert_eq!(seq("0.8", 8), [0, 0, 0, 0, 1, 1, 1, 2]);
        // 8.0: split in three. G(3) = mex{G(1+1+1) = 0} = 1; n = 5 leaves
        // 1+1+3 (value 1) or 1+2+2 (0), so G(5) = 2.
        assert_eq!(seq("8.0", 6), [0, 0, 0, 1, 1, 2]);
        // Grundy's game: 2 = 1+1 is equal, so G(2) = 0; G(3) = mex{G(1)^G(2)}
        // = 1; 4 = 1+3 only (2+2 is equal), so G(4) = mex{1} = 0; 5 = 1+4
        // (0) or 2+3 (1), so G(5) = 2.
        assert_eq!(seq("grundy", 6), [0, 0, 0, 1, 0, 2]);
        // Without the u, 1+1 and 2+2 are allowed: 4.0 gives G(2) = 1,
        // G(3) = mex{0 ^ 1} = 0, G(4) = mex{0 ^ 0, 1 ^ 1} = 1.
        assert_eq!(seq("4.0", 5), [0, 0, 1, 0, 1]);
    }

    #[test]
    fn overflow_is_reported_not_wrapped() {
        let mut e = Reference::new(&"0.333".parse().unwrap());
        let mut g = vec![0u16; 10];
        assert!(e.extend_u16(&mut g, 0).is_ok());
    }
}
