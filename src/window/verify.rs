//! Recomputing heaps of a windowed run's checkpoint, by a method that
//! shares no code with the engine: every option the kept values give,
//! into a bitset, then the least value no option reaches. The split pairs
//! that are not kept join two common heaps (every rare position lies in
//! the prefix), so under the run's mask they only reach values of the
//! heap's own class: a least unreached value of the other class is G(n)
//! for certain, and one of the heap's own class is G(n) only when every
//! split pair is kept. Otherwise the heap is left undecided here.

use crate::code::Code;
use crate::engine::Mask;

/// The kept values of a windowed run: G(0..prefix) and G(lo..end).
pub struct KeptValues<'a> {
    pub prefix: &'a [u16],
    pub lo: usize,
    pub ring: &'a [u16],
}

impl KeptValues<'_> {
    /// G(n), if kept.
    pub fn get(&self, n: usize) -> Option<u32> {
        if n < self.prefix.len() {
            Some(self.prefix[n] as u32)
        } else if n >= self.lo {
            self.ring.get(n - self.lo).map(|&v| v as u32)
        } else {
            None
        }
    }
}

/// G(n) from the kept values alone, or None when they cannot decide it.
/// `mask` is the run's (None for a game without splits).
pub fn value_at(code: &Code, mask: Option<Mask>, g: &KeptValues, n: usize) -> Option<u32> {
    let rules = code.rules();
    let mut reached = vec![false; 1 << 17];
    let mut all_kept = true;
    for &i in &rules.take_all {
        if n == i {
            reached[0] = true;
        }
    }
    for &i in &rules.take_leave_one {
        if n > i {
            reached[g.get(n - i)? as usize] = true;
        }
    }
    for &i in &rules.take_split {
        if n < i + 2 {
            continue;
        }
        let m = n - i;
        let top = if rules.unequal_splits {
            (m - 1) / 2
        } else {
            m / 2
        };
        for a in 1..=top {
            match (g.get(a), g.get(m - a)) {
                (Some(x), Some(y)) => reached[(x ^ y) as usize] = true,
                _ => all_kept = false,
            }
        }
    }
    let v = reached.iter().position(|&r| !r)? as u32;
    if all_kept {
        return Some(v);
    }
    let i0 = rules.take_split.first().copied().unwrap_or(0);
    let mask = mask?;
    // Unkept pairs reach only the class q(n): a least unreached value of
    // the other class is the mex whatever they reach.
    (mask.parity(v) != mask.q(n, i0)).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{compute, Reference};

    #[test]
    fn with_every_value_kept_it_is_the_mex() {
        for code in ["0.6", ".137", "4.7", "0.33337", "grundy"] {
            let c: Code = code.parse().unwrap();
            let g = compute(&mut Reference::new(&c), 600);
            let g16: Vec<u16> = g.iter().map(|&v| v as u16).collect();
            let kept = KeptValues {
                prefix: &g16,
                lo: g16.len(),
                ring: &[],
            };
            for (n, &want) in g.iter().enumerate() {
                assert_eq!(value_at(&c, None, &kept, n), Some(want), "{code} G({n})");
            }
        }
    }
}
