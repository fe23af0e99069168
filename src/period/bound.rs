//! What a period is ([`Period`]) and when the values prove it ([`Bound`]):
//! the leaf the detector, the stores and the certificates all read.

use serde::{Deserialize, Serialize};

use crate::code::{Code, Rules};

/// How many values a period needs before it is proven, for one game.
///
/// With G(n+p) = G(n) checked for all s ≤ n and n+p < N, the sequence is
/// periodic forever once N ≥ [`needed`](Bound::needed)(p, s); see
/// `docs/periodicity.md` for the proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bound {
    /// 1 + the largest `i` removable as a whole heap (0 if none).
    pub(crate) take_all: u64,
    /// The largest `i` of a move leaving one heap.
    pub(crate) leave_one: Option<u64>,
    /// The largest `i` of a move leaving two heaps (0 for `4.`).
    pub(crate) split: Option<u64>,
}

impl Bound {
    /// The bound for a game, or `None` when no proof of periodicity is
    /// known for its kind of moves.
    pub fn of(code: &Code) -> Option<Bound> {
        // Destructured in full so that a new kind of move (unequal splits,
        // three-heap splits) fails to compile here until someone derives
        // its bound or returns None for it.
        let rules = code.rules();
        // The Guy–Smith argument maps a split a+b of n to a+(b−p) of n−p;
        // with unequal splits the image may be an equal split, which is
        // not a move, so no bound follows. Three-heap splits are not
        // derived here (docs/periodicity.md): no proof is claimed.
        if !rules.is_octal() {
            return None;
        }
        let Rules {
            take_all,
            take_leave_one,
            take_split,
            take_split3: _,
            unequal_splits: _,
        } = rules;
        let max = |v: &[usize]| v.iter().max().map(|&i| i as u64);
        Some(Bound {
            take_all: max(&take_all).map_or(0, |i| i + 1),
            leave_one: max(&take_leave_one),
            split: max(&take_split),
        })
    }

    /// The number of values N (G(0..N) known) that proves period `p` with
    /// preperiod `s`, if the values verify it:
    /// `N = p + max(s, a+1, max(s,1)+l, 2·max(s,1)+p+t−1)` over the
    /// largest `a` of a whole-heap removal, `l` of a one-heap move and `t`
    /// of a split (terms without such a move left out).
    pub fn needed(&self, p: u64, s: u64) -> u64 {
        let s1 = s.max(1);
        let mut n0 = s.max(self.take_all);
        if let Some(l) = self.leave_one {
            n0 = n0.max(s1.saturating_add(l));
        }
        if let Some(t) = self.split {
            n0 = n0.max(
                s1.saturating_mul(2)
                    .saturating_add(p)
                    .saturating_add(t)
                    .saturating_sub(1),
            );
        }
        p.saturating_add(n0)
    }
}

/// A proven (or apparent) period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Period {
    /// The smallest period p.
    pub period: u64,
    /// The smallest s with G(n+p) = G(n) for every computed n ≥ s.
    pub preperiod: u64,
    /// How many values the detector had seen when it declared the proof
    /// (for an apparent period: how many it has seen).
    pub proven_at: u64,
    /// How many values the proof needs ([`Bound::needed`]); `None` when no
    /// proof is possible for this game.
    pub bound: Option<u64>,
}

impl Period {
    /// Checks a proof recorded in a file against the values it rests on
    /// (`g(n)` = G(n) for n < `len`), so that a damaged or forged record is
    /// never taken for a proof: p ≥ 1, the bound is the one the game's
    /// rules give for (p, s) and the values reach it, G(n) = G(n − p) for
    /// every n from s + p up to it, and s is least (G(s − 1) ≠ G(s − 1 + p)).
    /// The error says what fails.
    pub fn check_proof(&self, code: &Code, len: u64, g: impl Fn(u64) -> u32) -> Result<(), String> {
        let (p, s) = (self.period, self.preperiod);
        let bad = |why: String| Err(format!("the recorded period {p} (preperiod {s}) {why}"));
        if p == 0 {
            return bad("is no period".into());
        }
        let Some(need) = Bound::of(code).map(|b| b.needed(p, s)) else {
            return bad("cannot be proven for this game".into());
        };
        if self.bound != Some(need) || self.proven_at < need {
            return bad(format!(
                "is not proven by its bound: the proof needs {need} values"
            ));
        }
        if need > len {
            return bad(format!("needs {need} values, and the file holds {len}"));
        }
        if let Some(n) = (s + p..need).find(|&n| g(n) != g(n - p)) {
            return bad(format!("does not hold: G({n}) ≠ G({})", n - p));
        }
        if s > 0 && g(s - 1) == g(s - 1 + p) {
            return bad(format!("is not least: G({}) = G({})", s - 1, s - 1 + p));
        }
        Ok(())
    }

    /// The last irregular value's index, `s − 1` (None when `s = 0`).
    pub fn last_irregular(&self) -> Option<u64> {
        self.preperiod.checked_sub(1)
    }

    /// The heap below `s + p` whose value G(n) equals, for any `n`: `n`
    /// itself before the end of the first period, else the same place in
    /// the first period (a proven period answers for any heap).
    pub fn first_index(&self, n: u64) -> u64 {
        let (s, p) = (self.preperiod, self.period);
        if n < s + p || p == 0 {
            n
        } else {
            s + (n - s) % p
        }
    }

    /// What a program says when it answers heaps from `known` on off this
    /// period rather than by computing them.
    pub fn read_off_note(&self, known: u64) -> String {
        format!(
            "values from n = {known} on are read off the proven period {} (preperiod {}, proven at {})",
            self.period, self.preperiod, self.proven_at
        )
    }
}
