//! The diagonal method: two-heap splits for games without sparse space.
//!
//! Why it exists: when no mask gives sparse space (Cookie Cutter with an
//! even cutter, `0.33…37`, is the classic case), every heap `n` must have
//! *all* its splits looked at: proving that G(n) is not among them takes a
//! scan of every pair of every split distance `t ∈ T`, about |T| · n/2
//! pair checks per heap. But the splits of `n` at distance `t` are exactly
//! the pairs of the *diagonal* `s = n − t`,
//!
//! ```text
//! D(s) = { G(a) ⊕ G(s − a) : 1 ≤ a ≤ s/2 }   (a < s − a with the u suffix)
//! ```
//!
//! and each diagonal is shared by |T| consecutive heaps. So each D(s) is
//! computed once, as a bitset (one full scan of its pairs,
//! [`or_pair_xors`]), the last few are kept in a ring, and G(n) is the mex
//! of the union of |T| cached sets and the non-split options: about n/2
//! pair checks per heap, whatever |T|. Nothing is skipped: every pair of
//! every diagonal is looked at, so the values are exact.
//!
//! A diagonal missing from the ring (a run resumed from a prefix, or the
//! sparse engine coming back from sparse space) is computed on demand. A
//! long diagonal can be split between two threads, each filling its own
//! set, then OR-ed.

use octal_kernels::pairs::or_pair_xors;
use octal_kernels::Value;

use super::{fit, Engine, EngineInfo, Overflow};
use crate::code::{Code, Rules};

/// Pairs below which a diagonal is not worth splitting between threads
/// (the hand-over costs a few microseconds).
const PARALLEL_PAIRS: usize = 1 << 15;

/// Cached diagonal sets of one game; see the module documentation.
pub struct Diagonals {
    take_all: Vec<usize>,
    take_leave_one: Vec<usize>,
    /// Split distances, ascending.
    splits: Vec<usize>,
    unequal: bool,
    /// `ring[s % ring.len()]` holds D(s) when its tag is `s`.
    ring: Vec<Slot>,
    /// Width of every set, in 64-bit words (a power of two).
    words: usize,
    union: Vec<u64>,
    /// Per-thread sets and byte scratch for a diagonal split in two.
    halves: [Vec<u64>; 2],
    scratch: [Vec<u8>; 2],
    /// Diagonals computed (for tests and statistics).
    computed: u64,
    /// Diagonals of at least this many pairs are split between threads.
    parallel_pairs: usize,
}

#[derive(Default, Clone)]
struct Slot {
    s: Option<usize>,
    bits: Vec<u64>,
}

impl Diagonals {
    /// The method for `rules`, or `None` when the game has moves it does
    /// not know (three-heap splits).
    pub fn new(rules: &Rules) -> Option<Diagonals> {
        let Rules {
            take_all,
            take_leave_one,
            take_split,
            take_split3,
            unequal_splits,
        } = rules.clone();
        if !take_split3.is_empty() {
            return None;
        }
        let span = match (take_split.first(), take_split.last()) {
            (Some(&a), Some(&b)) => b - a + 1,
            _ => 1,
        };
        Some(Diagonals {
            take_all,
            take_leave_one,
            splits: take_split,
            unequal: unequal_splits,
            ring: vec![Slot::default(); span],
            words: 1,
            union: Vec::new(),
            halves: [Vec::new(), Vec::new()],
            scratch: [Vec::new(), Vec::new()],
            computed: 0,
            parallel_pairs: PARALLEL_PAIRS,
        })
    }

    /// Splits diagonals of at least `pairs` pairs between two threads (the
    /// default is measured; tests lower it to reach the split path).
    pub fn set_parallel_pairs(&mut self, pairs: usize) {
        self.parallel_pairs = pairs.max(2);
    }

    /// True when this method beats the witness search of [`super::Sparse`]
    /// for `rules`: whenever there are splits. Measured with one thread at
    /// 5·10^4 values without a mask: 2.4–3× faster with one split distance
    /// (0.6, 0.37, 0.16, 0.14), 6–8× with two (.77, 4.7).
    pub fn worth_it(rules: &Rules) -> bool {
        !rules.take_split.is_empty()
    }

    /// Forgets every cached diagonal: to be called whenever the values the
    /// next calls see may differ from those seen so far.
    pub fn clear(&mut self) {
        for slot in &mut self.ring {
            slot.s = None;
        }
        self.words = 1;
    }

    /// How many diagonals have been computed so far.
    pub fn computed(&self) -> u64 {
        self.computed
    }

    /// G(n) for `n = g.len()`, given G(0), …, G(n−1) in `g`; `bound` is a
    /// power of two above every value of `g` (so above every XOR). A
    /// second thread of `pool`, if any, shares long diagonals.
    pub fn value<V: Value>(
        &mut self,
        g: &[V],
        bound: usize,
        pool: Option<&rayon::ThreadPool>,
    ) -> u32 {
        assert!(bound.is_power_of_two(), "bound not a power of two");
        let n = g.len();
        let words = (bound / 64).max(1);
        if words > self.words {
            // Wider sets: the cached ones only gain zeros.
            self.words = words;
            for slot in &mut self.ring {
                slot.bits.resize(words, 0);
            }
        }
        let words = self.words;
        let mut union = std::mem::take(&mut self.union);
        union.clear();
        union.resize(words, 0);
        for &i in &self.take_all {
            if n == i {
                union[0] |= 1;
            }
        }
        for &i in &self.take_leave_one {
            if n > i {
                let v = g[n - i].get() as usize;
                union[v / 64] |= 1 << (v % 64);
            }
        }
        for j in 0..self.splits.len() {
            let t = self.splits[j];
            if n >= t + 2 {
                let s = n - t;
                let k = s % self.ring.len();
                if self.ring[k].s != Some(s) {
                    self.compute(g, s, k, pool);
                }
                for (u, &b) in union.iter_mut().zip(&self.ring[k].bits) {
                    *u |= b;
                }
            }
        }
        let v = union
            .iter()
            .position(|&w| w != u64::MAX)
            .map_or(64 * words, |j| 64 * j + union[j].trailing_ones() as usize);
        self.union = union;
        v as u32
    }

    /// Computes D(s) into slot `k` (needs G(1), …, G(s−1)).
    fn compute<V: Value>(&mut self, g: &[V], s: usize, k: usize, pool: Option<&rayon::ThreadPool>) {
        let words = self.words;
        let top = if self.unequal { (s - 1) / 2 } else { s / 2 };
        let lo = &g[1..top + 1];
        let hi = &g[s - top..s];
        let slot = &mut self.ring[k];
        slot.s = None;
        slot.bits.clear();
        slot.bits.resize(words, 0);
        match pool {
            Some(pool) if top >= self.parallel_pairs => {
                // Pairs k < h on one thread, the rest on the other.
                let h = top / 2;
                let [s0, s1] = &mut self.scratch;
                let [b0, b1] = &mut self.halves;
                for b in [&mut *b0, &mut *b1] {
                    b.clear();
                    b.resize(words, 0);
                }
                pool.join(
                    || or_pair_xors(b0, &lo[..h], &hi[top - h..], s0),
                    || or_pair_xors(b1, &lo[h..], &hi[..top - h], s1),
                );
                for ((w, x), y) in slot.bits.iter_mut().zip(&*b0).zip(&*b1) {
                    *w = x | y;
                }
            }
            _ => or_pair_xors(&mut slot.bits, lo, hi, &mut self.scratch[0]),
        }
        slot.s = Some(s);
        self.computed += 1;
    }
}

/// The diagonal method as an engine of its own (for tests and
/// comparisons; [`super::Sparse`] uses it when it has no sparse space).
pub struct Diagonal {
    diagonals: Diagonals,
    threads: usize,
    pool: Option<rayon::ThreadPool>,
    max: u32,
    built: usize,
}

impl Diagonal {
    /// `None` for games with three-heap splits.
    pub fn new(code: &Code, threads: usize) -> Option<Diagonal> {
        let diagonals = Diagonals::new(&code.rules())?;
        let pool = (threads > 1)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .ok()
            })
            .flatten();
        Some(Diagonal {
            diagonals,
            threads: if pool.is_some() { threads } else { 1 },
            pool,
            max: 0,
            built: 0,
        })
    }

    /// How many diagonals have been computed so far.
    pub fn computed(&self) -> u64 {
        self.diagonals.computed()
    }

    /// See [`Diagonals::set_parallel_pairs`].
    pub fn set_parallel_pairs(&mut self, pairs: usize) {
        self.diagonals.set_parallel_pairs(pairs);
    }

    fn extend<V: Value>(&mut self, g: &mut [V], from: usize) -> Result<(), Overflow> {
        if from != self.built || from == 0 {
            self.diagonals.clear();
            self.max = g[..from].iter().map(|v| v.get()).max().unwrap_or(0);
        }
        for n in from..g.len() {
            let bound = (self.max as usize + 1).next_power_of_two().max(64);
            let v = self.diagonals.value(&g[..n], bound, self.pool.as_ref());
            g[n] = fit(v, n)?;
            self.max = self.max.max(v);
            self.built = n + 1;
        }
        Ok(())
    }
}

impl Engine for Diagonal {
    fn extend_u16(&mut self, g: &mut [u16], from: usize) -> Result<(), Overflow> {
        self.extend(g, from)
    }
    fn extend_u32(&mut self, g: &mut [u32], from: usize) -> Result<(), Overflow> {
        self.extend(g, from)
    }
    fn info(&self) -> EngineInfo {
        EngineInfo {
            engine: "diagonal",
            threads: self.threads,
            ..EngineInfo::default()
        }
    }
}
