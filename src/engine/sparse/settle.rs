//! What the engine does with its deferred checks ([`super::checks`]):
//! settles them before values leave it, and on a failure rolls the
//! sequence back to the heap whose value was wrong (or, in a windowed
//! run whose kept pairs cannot decide it, halts there).
//!
//! Invariant: a roll-back leaves the state as if the values from the
//! failed heap on had never been taken.

use octal_kernels::Value;

use super::checks::{Checks, Failure};
use super::engine::Sparse;
use super::pairs::Kept;
use super::window::Halt;

impl Sparse {
    /// A deferred check failed: G(n) = v, not the value taken. Everything
    /// after heap n is recomputed, without deferring before 2n.
    pub(super) fn roll_back<V: Value>(&mut self, g: &mut [V], (n, v): (usize, u32)) -> usize {
        self.pipeline.pending.clear();
        // A halt after heap n came from the wrong value.
        self.halt = None;
        if self.kept == Kept::ALL {
            g[n] = V::from_u32(v);
            self.rebuild(&g[..n + 1]);
        } else {
            // A windowed run no longer has every value to rebuild from.
            self.unwind(g, n);
            g[n] = V::from_u32(v);
            self.note_new(n, v);
        }
        self.pipeline.spec_from = self.pipeline.spec_from.max(2 * (n + 1));
        n + 1
    }

    /// Checks every deferred witness scan; on a failure, rolls back and
    /// returns where to go on from.
    pub(super) fn settle<V: Value>(&mut self, g: &mut [V]) -> Option<usize> {
        let jobs = std::mem::take(&mut self.pipeline.pending);
        let (splits, halves) = (&self.moves.splits[..], self.moves.halves);
        let known: &[V] = g;
        let checks = Checks::new(known, &jobs, splits, halves, self.kept, self.bound());
        match self.pipeline.helper.as_mut() {
            Some(helper) if jobs.len() > 1 => {
                helper.join(|| checks.run(), || checks.run());
            }
            _ => checks.run(),
        }
        let failed = checks.failure();
        failed.map(|bad| self.fail(g, bad))
    }

    /// A deferred check failed: rolls back (with the true value), or, when
    /// the kept pairs could not decide it, halts a windowed run there.
    pub(super) fn fail<V: Value>(&mut self, g: &mut [V], bad: Failure) -> usize {
        match bad {
            Failure::Value(n, v) => self.roll_back(g, (n, v)),
            Failure::Unkept(n, values) => {
                self.pipeline.pending.clear();
                self.unwind(g, n);
                self.halt = Some(Halt { at: n, values });
                n
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::mask::MaskSpec;
    use crate::engine::{Reference, Sparse};

    fn reference(code: &str, n: usize) -> Vec<u32> {
        crate::compute(&mut Reference::new(&code.parse().unwrap()), n)
    }

    #[test]
    fn a_roll_back_recomputes_everything_after_the_heap_exactly() {
        let want = reference("0.6", 6000);
        let mut e = Sparse::new(&"0.6".parse().unwrap(), 1, MaskSpec::Auto).unwrap();
        let mut g = vec![0u32; 6000];
        e.extend(&mut g, 0).unwrap();
        assert_eq!(g, want);
        // As if heap 3999 and everything after it had been taken wrongly.
        g[3999..].fill(1);
        assert_eq!(e.roll_back(&mut g, (3999, want[3999])), 4000);
        assert!(
            e.pipeline.spec_from >= 8000,
            "no deferring before twice the heap"
        );
        assert_eq!(e.state.built, 4000);
        e.extend(&mut g, 4000).unwrap();
        assert_eq!(g, want);
    }

    #[test]
    fn a_windowed_roll_back_unwinds_the_state_and_recomputes_exactly() {
        // A windowed engine cannot rebuild from every value: it takes the
        // heaps after n out of its statistics one by one.
        let want = reference("0.6", 6000);
        let mut e = Sparse::new(&"0.6".parse().unwrap(), 1, MaskSpec::Auto).unwrap();
        let mut g = vec![0u32; 6000];
        e.extend(&mut g, 0).unwrap();
        e.keep_window(4096, 0);
        let rare_before = e.state.rare.clone();
        g[3999..].fill(1);
        assert_eq!(e.roll_back(&mut g, (3999, want[3999])), 4000);
        assert_eq!(e.state.built, 4000);
        assert!(e.state.rare.iter().all(|&r| r < 4000));
        assert_eq!(e.state.rare[..], rare_before[..e.state.rare.len()]);
        e.extend(&mut g, 4000).unwrap();
        assert_eq!(g, want);
        assert_eq!(e.state.rare, rare_before);
    }
}
