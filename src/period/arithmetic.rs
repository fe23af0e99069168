//! Arithmetic periods: G(n + p) = G(n) + s for every n ≥ i, with a saltus
//! s > 0, the regularity that hexadecimal games show where octal games are
//! periodic.
//!
//! Horrocks and Nowakowski ("Regularity in the G-sequences of octal games
//! with a pass", INTEGERS 3 (2003)) prove that finite octal games are not
//! arithmetic periodic, so only codes beyond octal (a digit with bit 8, or
//! the `u` suffix) are looked at. What is found is *apparent*: it holds
//! over the values computed, and nothing here proves that it goes on (see
//! docs/arithmetic.md for why no finite check is implemented).
//!
//! Under an arithmetic period (p, s, i) the first differences
//! δ(n) = G(n) − G(n − 1) are periodic with period p from n = i + 1, and
//! conversely; so the [`Detector`] finds them, fed the differences.

use octal_kernels::Value;
use serde::{Deserialize, Serialize};

use crate::code::Code;
use crate::period::Detector;

/// An apparent arithmetic period of a sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArithmeticPeriod {
    /// The period p: G(n + p) = G(n) + saltus for every n ≥ preperiod
    /// computed.
    pub period: u64,
    /// The first n it holds from.
    pub preperiod: u64,
    /// The saltus s > 0 (a saltus of 0 is an ordinary period).
    pub saltus: u64,
    /// The values it was checked over: G(0) … G(checked_to − 1).
    pub checked_to: u64,
}

impl ArithmeticPeriod {
    /// In words, with the range it was seen over: `apparent arithmetic
    /// period 3, saltus 1: G(n + 3) = G(n) + 1 for 1 ≤ n < 4093`. The run
    /// report, the census' tables and the atlas all say it this way.
    pub fn describe(&self) -> String {
        let (p, s) = (self.period, self.saltus);
        format!(
            "apparent arithmetic period {p}, saltus {s}: G(n + {p}) = G(n) + {s} for {} ≤ n < {}",
            self.preperiod,
            self.checked_to.saturating_sub(p)
        )
    }
}

/// Whether an arithmetic period can occur in `code` at all: not in a
/// finite octal game (Horrocks and Nowakowski, 2003).
pub fn possible(code: &Code) -> bool {
    !code.is_octal()
}

/// Zigzag: 0, −1, 1, −2, … as 0, 1, 2, 3, ….
fn zigzag(d: i64) -> u32 {
    ((d << 1) ^ (d >> 63)) as u32
}

/// The apparent arithmetic period of the values `g` = G(0) … G(len − 1):
/// the one the differences show (the [`Detector`]'s apparent period of
/// them, which has held for two whole periods and at least 16 values),
/// when its saltus is positive. None when the values are periodic (saltus
/// 0) or show no period at all.
pub fn apparent<V: Value>(g: &[V]) -> Option<ArithmeticPeriod> {
    let mut previous = 0i64;
    let deltas: Vec<u32> = g
        .iter()
        .map(|v| {
            let v = v.get() as i64;
            let d = zigzag(v - previous);
            previous = v;
            d
        })
        .collect();
    let mut detector = Detector::with_bound(None);
    detector.feed(&deltas);
    let found = detector.apparent()?;
    // δ has period p from n = i′ (the least such i′), so G(n + p) − G(n)
    // is the same for every n ≥ i′ − 1, and for no smaller n.
    let (p, preperiod) = (found.period, found.preperiod.saturating_sub(1));
    let at = |n: u64| g[n as usize].get() as u64;
    let end = preperiod + p;
    if end as usize >= g.len() || at(end) <= at(preperiod) {
        return None;
    }
    Some(ArithmeticPeriod {
        period: p,
        preperiod,
        saltus: at(end) - at(preperiod),
        checked_to: g.len() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_keeps_small_differences_small_and_distinct() {
        let coded: Vec<u32> = (-3..=3).map(zigzag).collect();
        assert_eq!(coded, [5, 3, 1, 0, 2, 4, 6]);
    }

    #[test]
    fn a_made_up_arithmetic_sequence_is_found_with_its_preperiod() {
        // 7, 7, then 0 1 3 | 2 3 5 | 4 5 7 | …: period 3, saltus 2, from 2.
        let mut g: Vec<u32> = vec![7, 7];
        for k in 0..40u32 {
            g.extend([2 * k, 2 * k + 1, 2 * k + 3]);
        }
        let a = apparent(&g).expect("found");
        assert_eq!((a.period, a.preperiod, a.saltus), (3, 2, 2));
        assert_eq!(a.checked_to, g.len() as u64);
        // It holds from 2 on, and not from 1.
        assert!((2..g.len() - 3).all(|n| g[n + 3] == g[n] + 2));
        assert_ne!(g[4], g[1] + 2);
    }

    #[test]
    fn periodic_and_irregular_sequences_have_none() {
        let periodic: Vec<u32> = (0..200).map(|n| [0, 1, 1, 2][n % 4]).collect();
        assert_eq!(apparent(&periodic), None);
        // Squares grow, but no differences repeat.
        let squares: Vec<u32> = (0..200).map(|n| n * n).collect();
        assert_eq!(apparent(&squares), None);
    }
}
