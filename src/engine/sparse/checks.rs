//! The deferred witness checks. With two threads, a witness scan longer
//! than the budget is not finished before G(n) is taken to be `mo`: it is
//! recorded ([`Deferred`]) and checked later, in parallel ([`Checks`]),
//! before any value leaves the engine.
//!
//! Invariant: no value is final while a check it depends on is pending.
//! A check that finds a witness missing gives the true G(n); everything
//! after heap n is then recomputed (`settle.rs`), so a wrong guess costs
//! time, never a wrong value.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use octal_kernels::Value;

use super::pairs::{Halves, Kept, Parts};
use super::witness::{
    flag_fixed_rounds, flags_round, least_member, members, strike_witnessed, Scan, Strike,
};

/// Witness scans left open by the main thread: heap `n` was given the
/// value `mo` on the condition that every value in its set has a witness
/// among the pairs from scan round `round` on. A second thread checks them
/// while the next block is computed; a failed check rolls the sequence
/// back. The sets lie one after another in `words`: a block defers
/// hundreds, and an allocation each was dear (docs/performance.md).
#[derive(Debug, Default)]
pub(super) struct Deferred {
    pub(super) scans: Vec<(usize, usize, Range<usize>)>,
    pub(super) words: Vec<u64>,
}

impl Deferred {
    pub(super) fn push(&mut self, n: usize, round: usize, set: &[u64]) {
        let at = self.words.len();
        self.words.extend_from_slice(set);
        self.scans.push((n, round, at..self.words.len()));
    }

    /// Scan `j`: its heap, round and set.
    pub(super) fn get(&self, j: usize) -> Option<(usize, usize, &[u64])> {
        let (n, round, at) = self.scans.get(j)?;
        Some((*n, *round, &self.words[at.clone()]))
    }

    pub(super) fn len(&self) -> usize {
        self.scans.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.scans.is_empty()
    }

    pub(super) fn clear(&mut self) {
        self.scans.clear();
        self.words.clear();
    }

    /// Empties the lists for this thread to fill again, after writing over
    /// what they held. The other thread read them (they were the jobs of
    /// the block before), so their cache lines are shared with its core:
    /// refilled a store at a time, each line taken back stalled this
    /// thread for a round trip between the cores, while one pass of stores
    /// over them takes the lines back together (docs/performance.md,
    /// deferred entries written over in one pass).
    pub(super) fn reuse(&mut self) {
        self.scans.fill((0, 0, 0..0));
        self.words.fill(0);
        self.clear();
    }
}

/// How a deferred check failed: the heap and its true value, or (in a
/// windowed run) the heap and how many values the kept pairs left open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Failure {
    Value(usize, u32),
    Unkept(usize, u32),
}

impl Failure {
    fn heap(self) -> usize {
        match self {
            Failure::Value(n, _) | Failure::Unkept(n, _) => n,
        }
    }
}

/// Deferred witness scans to check, a job at a time to whichever thread
/// is free; each is checked against `g` (which holds at least G(0..n) of
/// each). The first that fails in heap order gives its heap and true value
/// (the least value left without a witness): the checks of later heaps may
/// rest on that wrong value, so theirs do not count (and are skipped once
/// the failure is known).
pub(super) struct Checks<'a, V> {
    pub(super) g: &'a [V],
    pub(super) jobs: &'a Deferred,
    pub(super) splits: &'a [usize],
    pub(super) halves: Halves,
    pub(super) kept: Kept,
    /// Width of the rows (a power of two above every value of `g`) in
    /// which a large set's fixed rounds are flagged rather than struck.
    pub(super) row: usize,
    pub(super) next: AtomicUsize,
    pub(super) failed: Mutex<Option<Failure>>,
}

impl<'a, V: Value> Checks<'a, V> {
    pub(super) fn new(
        g: &'a [V],
        jobs: &'a Deferred,
        splits: &'a [usize],
        halves: Halves,
        kept: Kept,
        row: usize,
    ) -> Self {
        Checks {
            g,
            jobs,
            splits,
            halves,
            kept,
            row,
            next: AtomicUsize::new(0),
            failed: Mutex::new(None),
        }
    }

    /// Claims and checks jobs until none is left.
    pub(super) fn run(&self) {
        let failed_at = || {
            let f = self.failed.lock().unwrap_or_else(|e| e.into_inner());
            f.map_or(usize::MAX, Failure::heap)
        };
        let (mut set, mut row, mut open) = (Vec::new(), Vec::new(), Vec::new());
        loop {
            let j = self.next.fetch_add(1, Ordering::Relaxed);
            let Some((n, round, words)) = self.jobs.get(j) else {
                break;
            };
            if failed_at() < n {
                continue;
            }
            set.clear();
            set.extend_from_slice(words);
            let parts = Parts {
                pre: self.g,
                post: &[],
            };
            let scan = Scan {
                g: parts,
                n,
                splits: self.splits,
                halves: self.halves,
                kept: self.kept,
            };
            // A scan deferred with a budget of 0 left its fixed rounds to
            // this check: a large set has them flagged here, by the main
            // thread's rule, rather than struck a value at a time (a row
            // zeroed only for a set that is).
            let mut from = round;
            if self.row > 64 && flags_round(from, members(&set)) {
                row.clear();
                row.resize(self.row, 0);
                from = flag_fixed_rounds(scan, from, &mut row, &mut set, &mut open);
            }
            let failure = match strike_witnessed(scan, &mut set, from, None) {
                Strike::Empty => continue,
                Strike::Unkept => Failure::Unkept(n, members(&set)),
                _ => Failure::Value(n, least_member(&set).expect("values left")),
            };
            let mut f = self.failed.lock().unwrap_or_else(|e| e.into_inner());
            if f.is_none_or(|m| n < m.heap()) {
                *f = Some(failure);
            }
        }
    }

    /// The first failure in heap order, once every job has been run.
    pub(super) fn failure(self) -> Option<Failure> {
        self.failed.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::api::value_bound;
    use crate::engine::tuning::FLAG_LOW_ROUND;
    use crate::engine::Reference;

    fn reference(code: &str, n: usize) -> Vec<u32> {
        crate::compute(&mut Reference::new(&code.parse().unwrap()), n)
    }

    /// 0.6: remove one token, leaving one heap or splitting the rest in
    /// two (split distance 1, equal halves allowed).
    const SPLITS: &[usize] = &[1];
    const HALVES: Halves = Halves {
        unequal_splits: false,
    };

    /// The values below G(n) that some split pair (a, n − 1 − a) of 0.6
    /// reaches, worked out pair by pair.
    fn split_reached(g: &[u32], n: usize) -> Vec<u32> {
        reached_by(g, n, 1..n.saturating_sub(1))
    }

    /// The values below G(n) that the split pairs (a, n − 1 − a) of 0.6
    /// for these a reach, sorted, each once.
    fn reached_by(g: &[u32], n: usize, a: impl Iterator<Item = usize>) -> Vec<u32> {
        let mut v: Vec<u32> = a
            .map(|a| g[a] ^ g[n - 1 - a])
            .filter(|&x| x < g[n])
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    #[test]
    fn a_reused_list_keeps_only_what_is_pushed_after() {
        let mut d = Deferred::default();
        d.push(10, 1, &[0b1011, 7]);
        d.push(11, 0, &[5]);
        let capacity = (d.scans.capacity(), d.words.capacity());
        d.reuse();
        assert!(d.is_empty() && d.words.is_empty());
        // The same buffers, refilled from the start.
        assert_eq!((d.scans.capacity(), d.words.capacity()), capacity);
        d.push(12, 2, &[9]);
        assert_eq!(d.len(), 1);
        assert_eq!(d.get(0), Some((12, 2, &[9u64][..])));
        assert_eq!(d.get(1), None);
    }

    fn bits(values: &[u32]) -> Vec<u64> {
        let mut set = vec![0u64; 4];
        for &v in values {
            set[v as usize / 64] |= 1 << (v % 64);
        }
        set
    }

    fn row(g: &[u32]) -> usize {
        value_bound(g.iter().copied().max().unwrap_or(0))
    }

    fn run_checks(g: &[u32], jobs: &Deferred) -> Option<Failure> {
        let checks = Checks::new(g, jobs, SPLITS, HALVES, Kept::ALL, row(g));
        checks.run();
        checks.failure()
    }

    #[test]
    fn checks_pass_when_every_value_in_a_set_has_a_witness() {
        let g = reference("0.6", 3000);
        let mut jobs = Deferred::default();
        for n in (2000..2999).step_by(7) {
            jobs.push(n, 0, &bits(&split_reached(&g, n)));
        }
        assert!(jobs.len() > 100);
        assert_eq!(run_checks(&g, &jobs), None);
    }

    #[test]
    fn a_check_gives_the_first_heap_whose_guess_was_wrong_and_its_value() {
        let g = reference("0.6", 3000);
        // G(n) itself has no witness (it is the mex); a set holding it
        // says the engine took a value above G(n).
        let (n1, n2) = (2100, 2500);
        let mut jobs = Deferred::default();
        for n in [2600, n2, 2050, n1, 2900] {
            let mut set = split_reached(&g, n);
            if n == n1 || n == n2 {
                set.push(g[n]);
            }
            jobs.push(n, 0, &bits(&set));
        }
        assert_eq!(run_checks(&g, &jobs), Some(Failure::Value(n1, g[n1])));
    }

    /// The values below G(n) reached by the split pairs (a, n − 1 − a) of
    /// 0.6 other than the first round's, the 256 pairs nearest the middle:
    /// a ≤ (n − 1)/2 − 256.
    fn reached_after_first_round(g: &[u32], n: usize) -> Vec<u32> {
        let last = (n - 1) / 2 - 256;
        reached_by(g, n, 1..=last)
    }

    #[test]
    fn checks_deferred_after_the_first_round_flag_a_large_set_and_stay_exact() {
        // A scan deferred with a budget of 0 after the tiles flagged its
        // first round (`middle`): the check flags the other fixed rounds
        // for a large set (at least FLAG_LOW_ROUND values, rows wider than
        // 64), then strikes the rest. Passing sets must pass, and a set
        // holding G(n), which no pair reaches, must give G(n).
        let g = reference("0.6", 3000);
        assert!(row(&g) > 64);
        let mut good = Deferred::default();
        for n in (2000..2999).step_by(7) {
            let set = reached_after_first_round(&g, n);
            if set.len() as u32 >= FLAG_LOW_ROUND {
                good.push(n, 1, &bits(&set));
            }
        }
        assert!(good.len() > 50, "{} large sets", good.len());
        assert_eq!(run_checks(&g, &good), None);
        let mut bad = Deferred::default();
        let n1 = 2400;
        for n in [2900, n1, 2700] {
            let mut set = reached_after_first_round(&g, n);
            if n != 2900 {
                set.push(g[n]);
            }
            bad.push(n, 1, &bits(&set));
        }
        assert_eq!(run_checks(&g, &bad), Some(Failure::Value(n1, g[n1])));
        // A value only the first round reaches has no witness from round 1
        // on: the check must not find one for it.
        let (n, v) = (2000..3000)
            .find_map(|n| {
                let later = reached_after_first_round(&g, n);
                let v = split_reached(&g, n)
                    .into_iter()
                    .find(|v| !later.contains(v))?;
                Some((n, v))
            })
            .expect("a value only the first round reaches");
        let mut set = reached_after_first_round(&g, n);
        set.push(v);
        let mut jobs = Deferred::default();
        jobs.push(n, 1, &bits(&set));
        assert_eq!(run_checks(&g, &jobs), Some(Failure::Value(n, v)));
    }

    #[test]
    fn checks_deferred_before_the_first_round_flag_a_large_set_and_stay_exact() {
        // A scan deferred with a budget of 0 before any round: the check
        // flags round 0, then the other fixed rounds, for a set of at
        // least FLAG_FIRST_ROUND values. Every split pair is in some round.
        let g = reference("0.6", 3000);
        let mut good = Deferred::default();
        for n in (2000..2999).step_by(5) {
            let set = split_reached(&g, n);
            if flags_round(0, set.len() as u32) {
                good.push(n, 0, &bits(&set));
            }
        }
        assert!(good.len() > 50, "{} large sets", good.len());
        assert_eq!(run_checks(&g, &good), None);
        let n1 = 2300;
        let mut bad = Deferred::default();
        for n in [2800, 2600, n1] {
            let mut set = split_reached(&g, n);
            assert!(flags_round(0, set.len() as u32), "heap {n}: a small set");
            if n != 2800 {
                set.push(g[n]);
            }
            bad.push(n, 0, &bits(&set));
        }
        assert_eq!(run_checks(&g, &bad), Some(Failure::Value(n1, g[n1])));
    }

    #[test]
    fn a_check_the_kept_pairs_cannot_settle_is_a_halt_not_a_value() {
        // Heap 2600 of 0.6 with a set holding G(2600) itself (no pair
        // reaches it): with only G(0..64) and G(2500..) kept the scan
        // runs out of kept pairs, so the heap is undecided, not G(2600).
        let g = reference("0.6", 3000);
        let n = 2600;
        let mut set = split_reached(&g, n);
        set.push(g[n]);
        let mut jobs = Deferred::default();
        jobs.push(n, 0, &bits(&set));
        let checks = Checks::new(&g, &jobs, SPLITS, HALVES, Kept::within(64, 2500), row(&g));
        checks.run();
        assert!(matches!(checks.failure(), Some(Failure::Unkept(2600, _))));
        // With everything kept the same check gives the true value.
        assert_eq!(run_checks(&g, &jobs), Some(Failure::Value(n, g[n])));
    }
}
