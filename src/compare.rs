//! Comparing two sequences, possibly shifted: the first heap where they
//! differ, or a proof that they never do.
//!
//! Researchers check claims such as "`.36` and `.161` differ first at 519"
//! or "G_.04(n + 1) = G_.007(n)". Values known as far as `N` give the first
//! difference below `N` or "equal to N". When both sequences are proven
//! periodic, their values are known for every heap, and a finite check
//! proves equality for all n (see [`Comparison::check_to`]).

use crate::code::Code;
use crate::period::Period;

/// One side of a comparison: values `g[0..]` and, when proven, its period.
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    pub values: &'a [u32],
    pub period: Option<Period>,
}

impl Side<'_> {
    /// G(n), read off the period beyond the values held; `None` when n is
    /// past them and no period is proven.
    pub fn get(&self, n: u64) -> Option<u32> {
        let i = match &self.period {
            Some(p) => p.first_index(n),
            None => n,
        };
        usize::try_from(i)
            .ok()
            .and_then(|i| self.values.get(i).copied())
    }

    /// How many values this side answers for (all, when periodic).
    fn known(&self) -> u64 {
        match self.period {
            Some(_) => u64::MAX,
            None => self.values.len() as u64,
        }
    }
}

/// What a comparison of G_A(n) with G_B(n + shift) found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// G_A(at) ≠ G_B(at + shift), and they agree on every n before (from
    /// the first n with n + shift ≥ 0).
    Differ { at: u64, a: u32, b: u32 },
    /// Equal for every n below `to` (as far as both are known or asked).
    EqualTo { to: u64 },
    /// Equal for every n: both are periodic and agree up to `checked_to`.
    EqualForever { checked_to: u64 },
}

impl Outcome {
    /// The verdict as `octal compare --shift K --json` prints it.
    pub fn to_json(&self, shift: i64) -> serde_json::Value {
        match *self {
            Outcome::Differ { at, a, b } => serde_json::json!({
                "verdict": "differ", "at": at, "a": a, "b": b, "shift": shift}),
            Outcome::EqualTo { to } => serde_json::json!({
                "verdict": "equal_to", "to": to, "shift": shift}),
            Outcome::EqualForever { checked_to } => serde_json::json!({
                "verdict": "equal_forever", "checked_to": checked_to, "shift": shift}),
        }
    }

    /// The verdict in words, between the sequences named `na` and `nb`.
    pub fn words(&self, na: &str, nb: &str, shift: i64) -> String {
        let equation = shifted_equation(na, nb, shift);
        match *self {
            Outcome::Differ { at, a: x, b: y } => format!(
                "differ first at n = {at}: G_{na}({at}) = {x}, G_{nb}({}) = {y}",
                at as i64 + shift
            ),
            Outcome::EqualTo { to } => format!(
                "{equation} for every n below {} (equal to {to}; not proven beyond)",
                to.saturating_sub(shift.min(0).unsigned_abs())
            ),
            Outcome::EqualForever { checked_to } => format!(
                "{equation} for every n: both are proven periodic and agree up to {checked_to}"
            ),
        }
    }
}

/// `G_a(n) = G_b(n+k)` for G_a(n) = G_b(n + shift), written with the
/// shift on the side that makes it non-negative (`G_b(n) = G_a(n+k)`
/// for a negative one), as a census row and `octal compare` state it.
pub fn shifted_equation(a: &str, b: &str, shift: i64) -> String {
    match shift {
        0 => format!("G_{a}(n) = G_{b}(n)"),
        k if k > 0 => format!("G_{a}(n) = G_{b}(n+{k})"),
        k => format!("G_{b}(n) = G_{a}(n+{})", k.unsigned_abs()),
    }
}

/// Values a code is computed to for a comparison without a bound.
pub const DEFAULT_TO: u64 = 1_000_000;

/// A comparison of G_A(n) with G_B(n + shift), for n ≥ 0 with n + shift ≥ 0.
#[derive(Debug, Clone, Copy)]
pub struct Comparison<'a> {
    pub a: Side<'a>,
    pub b: Side<'a>,
    pub shift: i64,
}

impl Comparison<'_> {
    /// The first n compared (B has no negative heaps).
    pub fn start(&self) -> u64 {
        if self.shift < 0 {
            self.shift.unsigned_abs()
        } else {
            0
        }
    }

    /// When both sides are proven periodic: agreement on every n below this
    /// proves agreement for all n. With A periodic from s_A with smallest
    /// period p_A, and n ↦ G_B(n + shift) from s_B − shift with smallest
    /// period p_B, both are periodic beyond M = max(start, s_A, s_B −
    /// shift). If they agreed on [M, M + p_A + p_B), that stretch would
    /// have both periods, hence (Fine and Wilf) period gcd(p_A, p_B), which
    /// is below p_A or p_B unless p_A = p_B: a contradiction with their
    /// being smallest. So agreement up to M + p_A + p_B means p_A = p_B and
    /// equality on a whole period past M, hence forever.
    pub fn check_to(&self) -> Option<u64> {
        let (pa, pb) = (self.a.period?, self.b.period?);
        let sb = pb.preperiod as i128 - self.shift as i128;
        let m = (self.start() as i128).max(pa.preperiod as i128).max(sb);
        let end = m + pa.period as i128 + pb.period as i128;
        u64::try_from(end).ok()
    }

    /// Whether `o`, found by this comparison, holds: an agreement on at
    /// least one heap.
    pub fn holds(&self, o: &Outcome) -> bool {
        match o {
            Outcome::Differ { .. } => false,
            Outcome::EqualTo { to } => *to > self.start(),
            Outcome::EqualForever { .. } => true,
        }
    }

    /// Compares up to `to` (or up to what is known, or, when both are
    /// periodic and `to` is `None`, as far as a proof of equality needs).
    pub fn run(&self, to: Option<u64>) -> Outcome {
        let proof = self.check_to();
        // n is known on both sides while n < A's values and n + shift < B's.
        let b_known = (self.b.known() as i128 - self.shift as i128).clamp(0, u64::MAX as i128);
        let known = self.a.known().min(b_known as u64);
        let end = match (to, proof) {
            (Some(t), _) => t.min(known),
            (None, Some(p)) => p,
            (None, None) => known,
        };
        let shift = self.shift;
        for n in self.start()..end {
            let m = (n as i64 + shift) as u64;
            match (self.a.get(n), self.b.get(m)) {
                (Some(a), Some(b)) if a != b => return Outcome::Differ { at: n, a, b },
                (Some(_), Some(_)) => {}
                _ => return Outcome::EqualTo { to: n },
            }
        }
        match proof {
            Some(p) if end >= p => Outcome::EqualForever { checked_to: p },
            _ => Outcome::EqualTo { to: end },
        }
    }
}

/// The largest shift `--shift auto` tries, either way, between games of
/// these codes: the most digits after the point either has (at least 1).
///
/// Why that far: a shift K relating two octal games comes from heaps too
/// small for the moves that make the difference, and a code with D digits
/// has no move taking more than D tokens, so the heaps whose values a
/// shift displaces are at most D tokens apart. Every shift between two
/// games of the three-digit census is at most 2 (`.137` is `.4` shifted
/// by 2). Shifts beyond D are not searched; the output names the range.
pub fn auto_shifts(codes: &[Code]) -> i64 {
    codes
        .iter()
        .map(|c| c.digits().len().saturating_sub(1) as i64)
        .max()
        .unwrap_or(0)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn period(preperiod: u64, period: u64) -> Option<Period> {
        Some(Period {
            period,
            preperiod,
            proven_at: 0,
            bound: None,
        })
    }

    fn side(values: &[u32], p: Option<Period>) -> Side<'_> {
        Side { values, period: p }
    }

    #[test]
    fn first_difference_and_equal_to_n() {
        let a = [0, 1, 2, 3, 4, 5];
        let b = [0, 1, 2, 9, 4, 5];
        let c = Comparison {
            a: side(&a, None),
            b: side(&b, None),
            shift: 0,
        };
        assert_eq!(c.run(None), Outcome::Differ { at: 3, a: 3, b: 9 });
        assert_eq!(c.run(Some(3)), Outcome::EqualTo { to: 3 });
        // Shifted: G_B(n + 1) = G_A(n) for the values held.
        let b = [7, 0, 1, 2, 3, 4, 5];
        let c = Comparison {
            a: side(&a, None),
            b: side(&b, None),
            shift: 1,
        };
        assert_eq!(c.run(None), Outcome::EqualTo { to: 6 });
        // A negative shift starts where n + shift is a heap.
        let c = Comparison {
            a: side(&b, None),
            b: side(&a, None),
            shift: -1,
        };
        assert_eq!(c.start(), 1);
        assert_eq!(c.run(None), Outcome::EqualTo { to: 7 });
    }

    #[test]
    fn periodic_sides_prove_equality_forever() {
        // 5 0 then (1 2 3) repeated, against (1 2 3) from 0, shifted by 2.
        let a: Vec<u32> = [5, 0]
            .into_iter()
            .chain((0..30).map(|n| n % 3 + 1))
            .collect();
        let b: Vec<u32> = (0..10).map(|n| n % 3 + 1).collect();
        let c = Comparison {
            a: side(&a[..5], period(2, 3)),
            b: side(&b[..3], period(0, 3)),
            shift: -2,
        };
        // M = max(2, 2, 0 + 2) = 2; 2 + 3 + 3 = 8.
        assert_eq!(c.check_to(), Some(8));
        assert_eq!(c.run(None), Outcome::EqualForever { checked_to: 8 });
        // Periods 3 and 6 (1 2 3 1 2 4): they differ within M + 9.
        let d: Vec<u32> = vec![1, 2, 3, 1, 2, 4];
        let c = Comparison {
            a: side(&b[..3], period(0, 3)),
            b: side(&d, period(0, 6)),
            shift: 0,
        };
        assert_eq!(c.run(None), Outcome::Differ { at: 5, a: 3, b: 4 });
        // The values held beyond the first period are read off it.
        assert_eq!(side(&b[..3], period(0, 3)).get(1_000_000_000_001), Some(3));
    }

    #[test]
    fn a_proof_is_never_claimed_without_both_periods() {
        let a: Vec<u32> = (0..100).map(|n| n % 3).collect();
        let c = Comparison {
            a: side(&a, period(0, 3)),
            b: side(&a, None),
            shift: 0,
        };
        assert_eq!(c.check_to(), None);
        assert_eq!(c.run(None), Outcome::EqualTo { to: 100 });
    }
}
