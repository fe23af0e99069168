//! Sparse space or the diagonal method, decided by timing both.
//!
//! Why it exists: for a game where between about one position in 64 and
//! one in [`MAX_RARE_FRACTION`](crate::engine::tuning::MAX_RARE_FRACTION)
//! is rare, which of the two is faster depends on the CPU (the diagonal
//! method holds its set in registers on AVX-512 VBMI only), on the game
//! and on how far the run has got: on AVX-512 `.005` runs faster by the
//! diagonal method early and faster in sparse space past about 1.3·10^5
//! values (docs/performance.md, "sparse space or the diagonal method").
//! No fixed fraction gets every case right, so from
//! [`TRIAL_FROM`](crate::engine::tuning::TRIAL_FROM) values on
//! (`Sparse::trial_from`), `--mask auto` times both at each doubling, on a short stretch of
//! the work itself, and keeps the cheaper until the next doubling (after
//! a decisive trial, through the doubling after it too). The
//! values do not depend on the choice, only the time.

use std::time::Duration;

use crate::engine::mask::Mask;
use crate::engine::tuning::{TRIAL_DECISIVE, TRIAL_SHARE};

/// The trial at one doubling: the two stretches and their measured costs.
#[derive(Debug)]
pub(super) struct Trial {
    /// The mask sparse space would compute with.
    pub(super) mask: Mask,
    /// Whether the stretch running now is in sparse space.
    pub(super) sparse: bool,
    /// Where the stretch running now ends.
    pub(super) end: usize,
    /// The doubling after this one, where the choice is made again.
    horizon: usize,
    /// Stretches finished (0, 1 or 2).
    stretches: u8,
    time: Duration,
    /// The sum of the sizes of the heaps computed in the stretch running
    /// now (the work a heap grows with its size under both methods).
    size_sum: f64,
    /// Nanoseconds per heap and per unit of heap size, by method
    /// (diagonal, sparse); NaN until measured.
    cost: [f64; 2],
}

/// What the engine does next.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Next {
    /// Runs the other method up to `end`.
    Try { sparse: bool, end: usize },
    /// Keeps `sparse` (or the diagonal method) up to `horizon`.
    Keep { sparse: bool, horizon: usize },
}

impl Trial {
    /// A trial at heap `n` (a doubling point, with `horizon` the next):
    /// first the method the fixed rule picked (`sparse`). `None` when the
    /// doubling has no room for both stretches.
    pub(super) fn start(n: usize, horizon: usize, mask: Mask, sparse: bool) -> Option<Trial> {
        let stretch = Trial::stretch(n);
        // Both stretches must fit before the next doubling.
        (n + 2 * stretch < horizon).then_some(Trial {
            mask,
            sparse,
            end: n + stretch,
            horizon,
            stretches: 0,
            time: Duration::ZERO,
            size_sum: 0.0,
            cost: [f64::NAN; 2],
        })
    }

    /// Heaps a stretch takes at a doubling at `n`.
    fn stretch(n: usize) -> usize {
        (n / TRIAL_SHARE).max(1)
    }

    /// Records heaps `from..to` computed in `time` by the method running.
    pub(super) fn record(&mut self, time: Duration, from: usize, to: usize) {
        if to <= from {
            return;
        }
        self.time += time;
        // The sum of from..to.
        self.size_sum += (to - from) as f64 * (from + to - 1) as f64 / 2.0;
    }

    /// Ends the stretch running now, at heap `n`, and says what comes
    /// next.
    pub(super) fn next(&mut self, n: usize) -> Next {
        let per = if self.size_sum > 0.0 {
            self.time.as_nanos() as f64 / self.size_sum
        } else {
            f64::NAN
        };
        self.cost[usize::from(self.sparse)] = per;
        self.stretches += 1;
        self.time = Duration::ZERO;
        self.size_sum = 0.0;
        if self.stretches == 1 {
            self.sparse = !self.sparse;
            self.end = n + Trial::stretch(n);
            return Next::Try {
                sparse: self.sparse,
                end: self.end,
            };
        }
        let [diagonal, sparse] = self.cost;
        // A stretch that measured nothing (cut short by a roll-back)
        // compares false: the method the fixed rule chose stays.
        let sparse = if sparse < diagonal {
            true
        } else if diagonal < sparse {
            false
        } else {
            !self.sparse
        };
        Next::Keep {
            sparse,
            horizon: self.horizon,
        }
    }

    /// Whether the trial ended with one method more than
    /// [`TRIAL_DECISIVE`] times as costly as the other: the next doubling
    /// then goes without a trial (the one after has one again).
    pub(super) fn decisive(&self) -> bool {
        let [a, b] = self.cost;
        a.max(b) > TRIAL_DECISIVE * a.min(b)
    }

    /// The costs measured, diagonal then sparse (nanoseconds per heap
    /// and unit of heap size), for tests.
    #[cfg(test)]
    fn costs(&self) -> [f64; 2] {
        self.cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tuning::TRIAL_FROM;

    fn mask() -> Mask {
        Mask { bits: 1, pp: false }
    }

    /// Runs a trial at `n` where a heap of size k costs `diag · k` or
    /// `sparse · k` nanoseconds; gives its decision.
    fn decide(n: usize, fixed_sparse: bool, diag: u64, sparse: u64) -> Next {
        let mut t = Trial::start(n, 2 * n, mask(), fixed_sparse).expect("a trial");
        let mut at = n;
        for _ in 0..2 {
            let end = t.end;
            let per = if t.sparse { sparse } else { diag };
            // Heaps from `at` to `end`, in two calls.
            let mid = (at + end) / 2;
            for (a, b) in [(at, mid), (mid, end)] {
                let work: u64 = (a as u64..b as u64).sum();
                t.record(Duration::from_nanos(per * work), a, b);
            }
            at = end;
            if let Next::Keep {
                sparse: kept,
                horizon,
            } = t.next(at)
            {
                assert_eq!(horizon, 2 * n);
                // Both measured, at the cost per unit of size given.
                assert_eq!(t.costs(), [diag as f64, sparse as f64]);
                return Next::Keep {
                    sparse: kept,
                    horizon,
                };
            }
        }
        unreachable!("a trial ends after two stretches")
    }

    #[test]
    fn the_cheaper_method_is_kept_whichever_ran_first() {
        let n = TRIAL_FROM;
        for first in [false, true] {
            assert_eq!(
                decide(n, first, 3, 2),
                Next::Keep {
                    sparse: true,
                    horizon: 2 * n
                }
            );
            assert_eq!(
                decide(n, first, 2, 3),
                Next::Keep {
                    sparse: false,
                    horizon: 2 * n
                }
            );
        }
    }

    #[test]
    fn a_decisive_trial_is_one_that_lost_by_more_than_the_margin() {
        let n = TRIAL_FROM;
        for (diag, sparse, decisive) in [(3, 2, false), (5, 2, true), (2, 5, true), (4, 4, false)] {
            let mut t = Trial::start(n, 2 * n, mask(), false).unwrap();
            for per in [diag, sparse] {
                let (a, b) = (t.end - n / TRIAL_SHARE, t.end);
                let work: u64 = (a as u64..b as u64).sum();
                t.record(Duration::from_nanos(per * work), a, b);
                t.next(b);
            }
            assert_eq!(t.decisive(), decisive, "{diag} against {sparse}");
        }
    }

    #[test]
    fn the_stretches_run_one_method_each_before_the_next_doubling() {
        let n = TRIAL_FROM;
        let mut t = Trial::start(n, 2 * n, mask(), false).unwrap();
        assert!(!t.sparse);
        assert_eq!(t.end, n + n / TRIAL_SHARE);
        let first_end = t.end;
        t.record(Duration::from_millis(1), n, first_end);
        let Next::Try { sparse, end } = t.next(first_end) else {
            panic!("the second stretch is the other method");
        };
        assert!(sparse);
        assert_eq!(end, first_end + first_end / TRIAL_SHARE);
        assert!(end < 2 * n);
    }

    #[test]
    fn no_trial_without_room_for_both_stretches() {
        // A doubling cut short (a horizon just past n) has no room.
        assert!(Trial::start(TRIAL_FROM, TRIAL_FROM + 2, mask(), true).is_none());
        let two = 2 * (TRIAL_FROM / TRIAL_SHARE);
        assert!(Trial::start(TRIAL_FROM, TRIAL_FROM + two, mask(), true).is_none());
        assert!(Trial::start(TRIAL_FROM, TRIAL_FROM + two + 1, mask(), true).is_some());
    }

    #[test]
    fn a_stretch_that_measured_nothing_keeps_the_fixed_rule() {
        let n = TRIAL_FROM;
        let mut t = Trial::start(n, 2 * n, mask(), true).unwrap();
        let e = t.end;
        t.record(Duration::from_millis(5), n, e);
        // The diagonal's stretch is cut short before any heap.
        assert!(matches!(t.next(e), Next::Try { sparse: false, .. }));
        assert_eq!(
            t.next(e),
            Next::Keep {
                sparse: true,
                horizon: 2 * n
            }
        );
    }
}
