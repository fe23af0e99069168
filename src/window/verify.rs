//! Recomputing heaps of a windowed run's checkpoint, by a method that
//! shares no code with the sparse engine (only the reference engine's
//! list of options): every option the kept values give, into a bitset,
//! then the least value no option reaches. The split pairs
//! that are not kept join two common heaps (every rare position lies in
//! the prefix), so under the run's mask they only reach values of the
//! heap's own class: a least unreached value of the other class is G(n)
//! for certain, and one of the heap's own class is G(n) only when every
//! split pair is kept. Otherwise the heap is left undecided here.

use crate::code::Code;
use crate::engine::reference::two_heap_options;
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
    // A one-heap option's value can be of either class: it must be kept.
    if rules
        .take_leave_one
        .iter()
        .any(|&i| n > i && g.get(n - i).is_none())
    {
        return None;
    }
    let mut reached = vec![false; 1 << 17];
    let mut all_kept = true;
    two_heap_options(
        &rules,
        n,
        |h| g.get(h),
        |v| match v {
            Some(x) => reached[x as usize] = true,
            None => all_kept = false,
        },
    );
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

    #[test]
    fn in_a_window_it_decides_most_heaps_and_each_one_rightly() {
        // 0.6 with G(0..21000) and G(30000..60000) kept: heaps from 51,001
        // on have every prefix pair's partner. The mask is the engine's.
        let c: Code = "0.6".parse().unwrap();
        let g = compute(&mut Reference::new(&c), 60_000);
        let mut e = crate::engine::Sparse::new(&c, 1, crate::engine::MaskSpec::Auto).unwrap();
        compute(&mut e, 60_000);
        let mask = e.mask();
        assert!(mask.is_some());
        let g16: Vec<u16> = g.iter().map(|&v| v as u16).collect();
        let kept = KeptValues {
            prefix: &g16[..21_000],
            lo: 30_000,
            ring: &g16[30_000..],
        };
        let (mut decided, mut tried) = (0, 0);
        for n in (51_001..60_000).step_by(37) {
            tried += 1;
            if let Some(v) = value_at(&c, mask, &kept, n) {
                assert_eq!(v, g[n], "G({n})");
                decided += 1;
            }
        }
        assert!(decided * 10 >= tried * 9, "{decided} of {tried} decided");
        // Without the mask only heaps whose every pair is kept are decided.
        assert_eq!(value_at(&c, None, &kept, 55_000), None);
    }
}
