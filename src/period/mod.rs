//! Periodicity: finding the period of a Grundy sequence while it is being
//! computed, and proving it with the Guy–Smith bound.
//!
//! A run can stop as soon as the values computed so far prove that the
//! sequence is periodic forever; this module decides when that is. The
//! [`Bound`] says how many values a period `p` with preperiod `s` needs
//! (derived in `docs/periodicity.md`); the [`Detector`] is fed the values
//! block by block and finds, in time near linear in their number, the
//! smallest period `p` and for it the smallest preperiod `s` with
//! G(n+p) = G(n) for every computed n ≥ s.
//!
//! The detector has two tiers:
//! * every period `p ≤ SHORT` is tracked exactly (the last `n` with
//!   G(n) ≠ G(n−p)), which costs a backward scan per block that almost
//!   always stops at the first value;
//! * longer periods are found by hashing windows of `WINDOW` values. A
//!   window is *selected* when its hash has its low bits zero (so the same
//!   windows are selected wherever they recur, whatever the period), and
//!   selected windows are remembered in tables of growing sparseness. A
//!   selected window seen before at distance `d` makes `d` a candidate,
//!   which is verified exactly against the values, then tracked like a
//!   short period until it fails (dropped) or is proven.
//!
//! [`bound`] says what a period is and when it is proven, [`detector`]
//! finds it, [`notation`](mod@notation) writes it down; [`arithmetic`]
//! finds the arithmetic periods of games beyond octal.

pub mod arithmetic;
pub mod bound;
pub mod detector;
pub mod notation;

pub use arithmetic::ArithmeticPeriod;
pub use bound::{Bound, Period};
pub use detector::{Detector, SHORT, STEP, WINDOW};
pub use notation::{notation, Notation};

#[cfg(test)]
mod tests {
    use super::detector::mix;
    use super::*;
    use crate::code::Code;

    #[test]
    fn a_recorded_proof_is_checked_against_the_values() {
        // Kayles (0.77): period 12 from n = 71, as data/sequences gives
        // it; the values from the reference engine.
        let code: Code = "0.77".parse().unwrap();
        let g = crate::compute(&mut crate::engine::Reference::new(&code), 2000);
        let need = Bound::of(&code).unwrap().needed(12, 71);
        let true_one = Period {
            period: 12,
            preperiod: 71,
            proven_at: need,
            bound: Some(need),
        };
        let at = |n: u64| g[n as usize];
        assert_eq!(true_one.check_proof(&code, 2000, at), Ok(()));
        // Too few values for the bound.
        assert!(true_one.check_proof(&code, need - 1, at).is_err());
        let forged = [
            Period {
                period: 0,
                ..true_one
            },
            Period {
                period: 1,
                ..true_one
            },
            Period {
                preperiod: 70,
                ..true_one
            },
            Period {
                preperiod: 72,
                ..true_one
            },
            Period {
                bound: Some(need - 1),
                ..true_one
            },
            Period {
                proven_at: need - 1,
                ..true_one
            },
        ];
        for p in forged {
            assert!(p.check_proof(&code, 2000, at).is_err(), "{p:?} passed");
        }
    }

    fn detect(values: &[u32], bound: Option<Bound>, step: usize) -> Detector {
        let mut d = Detector::with_bound(bound);
        let mut n = 0;
        while n < values.len() {
            n = (n + step).min(values.len());
            d.feed(&values[..n]);
        }
        d
    }

    /// A pseudo-random sequence: `pre` irregular values, then a random
    /// block of length `p` repeated.
    fn synthetic(pre: usize, p: usize, len: usize, seed: u64) -> Vec<u32> {
        let mut x = seed;
        let mut next = || {
            x = mix(x.wrapping_add(0x9E37_79B9_7F4A_7C15));
            (x % 7) as u32
        };
        let mut v: Vec<u32> = (0..pre + p).map(|_| next()).collect();
        while v.len() < len {
            v.push(v[v.len() - p]);
        }
        // Make sure the value just before the periodic part is irregular.
        if pre > 0 {
            v[pre - 1] = v[pre - 1 + p] + 1;
        }
        v
    }

    #[test]
    fn a_detector_that_forgets_old_values_finds_and_proves_the_same_periods() {
        // As a windowed run feeds it: blocks, and after each everything
        // but the last `keep` values forgotten (a poison value where they
        // were, which a read would trip over).
        let bound = Bound::of(&".16".parse().unwrap());
        for (pre, p, keep) in [
            (5000, 37, 8192),
            (40_000, 3001, 20_000),
            (70_000, 12_345, 40_000),
        ] {
            let values = synthetic(pre, p, 400_000, p as u64);
            let want = detect(&values, bound, 1000).proven().expect("a proof");
            let mut d = Detector::with_bound(bound);
            let mut g = values.clone();
            let mut n = 0;
            while n < g.len() && d.proven().is_none() {
                n = (n + 1000).min(g.len());
                d.feed(&g[..n]);
                let lo = n.saturating_sub(keep);
                g[d.kept_from() as usize..lo].fill(u32::MAX);
                d.forget_before(lo as u64);
            }
            let got = d.proven().expect("a proof in the window");
            assert_eq!(
                (got.period, got.preperiod),
                (want.period, want.preperiod),
                "p {p}"
            );
        }
        // A period longer than the window is not looked for.
        let values = synthetic(1000, 30_000, 200_000, 7);
        let mut d = Detector::with_bound(bound);
        let mut n = 0;
        while n < values.len() {
            n += 1000;
            d.feed(&values[..n]);
            d.forget_before(n.saturating_sub(20_000) as u64);
        }
        assert_eq!(d.proven(), None);
    }

    #[test]
    fn bound_for_kayles_and_subtraction() {
        // .77: take-all up to 2, one-heap up to 2, split up to 2.
        let b = Bound::of(&".77".parse().unwrap()).unwrap();
        assert_eq!(b.needed(12, 71), 2 * 71 + 2 * 12 + 2 - 1);
        assert_eq!(b.needed(4, 0), 2 + 8 + 2 - 1);
        // 0.333: no split; p + max(s, 4, max(s,1) + 3).
        let b = Bound::of(&"0.333".parse().unwrap()).unwrap();
        assert_eq!(b.needed(4, 0), 4 + 4);
        assert_eq!(b.needed(4, 10), 4 + 13);
        // 0.0: no moves at all; one value proves G = 0.
        let b = Bound::of(&"0.0".parse().unwrap()).unwrap();
        assert_eq!(b.needed(1, 0), 1);
        // 4.0: split without removal, i = 0.
        let b = Bound::of(&"4.0".parse().unwrap()).unwrap();
        assert_eq!(b.needed(3, 5), 3 + 10 + 3 - 1);
    }

    #[test]
    fn finds_short_and_long_synthetic_periods() {
        // A split bound: random values cannot satisfy it by chance (a
        // subtraction-game bound needs only a few clean values, which is
        // sound for games but not for arbitrary sequences).
        let none = Bound {
            take_all: 0,
            leave_one: None,
            split: Some(3),
        };
        for &(pre, p, step) in &[
            (0, 1, 7),
            (5, 3, 1),
            (100, 1000, 333),
            (3000, 1025, 4096),
            (70_000, 20_000, 9999),
            (1_000, 300_000, 1 << 16),
            (123_457, 1_500_000, 1 << 20),
        ] {
            let len = (2 * pre + 2 * p) * 51 / 50 + 10_000;
            let v = synthetic(pre, p, len, pre as u64 ^ p as u64);
            let d = detect(&v, Some(none), step);
            let got = d
                .proven()
                .unwrap_or_else(|| panic!("no period for {pre} {p}"));
            assert_eq!((got.period, got.preperiod), (p as u64, pre as u64));
            let need = none.needed(p as u64, pre as u64);
            assert_eq!(got.bound, Some(need));
            // Found in time: proven no later than 1% past the bound (or
            // the end of the block that crossed it).
            assert!(
                got.proven_at <= need + need / 100 + WINDOW as u64 + 64,
                "{pre} {p}: proven at {} but bound {need}",
                got.proven_at
            );
        }
    }

    #[test]
    fn unprovable_games_still_show_apparent_periods() {
        let v = synthetic(50, 7, 500, 3);
        let d = detect(&v, None, 64);
        assert!(d.proven().is_none() && !d.can_prove());
        let a = d.apparent().unwrap();
        assert_eq!((a.period, a.preperiod, a.bound), (7, 50, None));
    }

    #[test]
    fn an_apparent_period_may_hold_over_less_than_half_the_values() {
        // 7,000 irregular values, then period 4 over the last 3,000 (as
        // `.376` at 3·10^6, whose period 4 holds over the last ~730,000).
        let v = synthetic(7000, 4, 10_000, 5);
        let bound = Bound::of(&"0.4".parse().unwrap());
        let d = detect(&v, bound, 500);
        assert!(d.proven().is_none());
        let a = d.apparent().expect("period 4 holds over 3,000 values");
        assert_eq!((a.period, a.preperiod, a.proven_at), (4, 7000, 10_000));
        assert!(a.bound.unwrap() > 10_000, "{a:?}");
        // Irregular values to the end: no candidate.
        let v = synthetic(10_000, 4, 10_000, 6);
        assert_eq!(detect(&v, bound, 500).apparent(), None);
    }

    #[test]
    fn state_survives_serialisation() {
        let v = synthetic(2000, 5000, 20_000, 9);
        let b = Bound::of(&"0.4".parse().unwrap());
        let mut d = Detector::with_bound(b);
        d.feed(&v[..8000]);
        let text = serde_json::to_string(&d).unwrap();
        let mut e: Detector = serde_json::from_str(&text).unwrap();
        e.feed(&v);
        d.feed(&v);
        assert_eq!(e.proven(), d.proven());
        assert_eq!(e.proven().unwrap().period, 5000);
    }

    #[test]
    fn notation_dots_the_period_as_the_lecture_notes_do() {
        let p = |s, p| Period {
            period: p,
            preperiod: s,
            proven_at: 0,
            bound: None,
        };
        let text = |g: &[u32], s, q| notation(g, &p(s, q), 80, Notation::Text).unwrap();
        // Guiles, as the lecture notes print it: 0.\dot{1}10112212\dot{2}.
        let g: Vec<u32> = vec![0, 1, 1, 0, 1, 1, 2, 2, 1, 2, 2, 1, 1];
        assert_eq!(
            notation(&g, &p(1, 10), 80, Notation::Latex).unwrap(),
            "0.\\dot{1}10112212\\dot{2}"
        );
        assert_eq!(text(&g, 1, 10), "0.1\u{307}101122122\u{307}");
        // Preperiod 0: G(0) opens the period and is dotted.
        assert_eq!(text(&g, 0, 2), "0\u{307}.1\u{307}");
        // A period of one value has one dot.
        let g: Vec<u32> = vec![0, 1, 2, 2, 2];
        assert_eq!(text(&g, 2, 1), "0.12\u{307}");
        // Values of 10 and more in parentheses, dotted on the first digit.
        let g: Vec<u32> = vec![0, 12, 3, 12, 3];
        assert_eq!(text(&g, 1, 2), "0.(1\u{307}2)3\u{307}");
        assert_eq!(
            notation(&g, &p(1, 2), 80, Notation::Latex).unwrap(),
            "0.(\\dot{1}2)\\dot{3}"
        );
        // Too long for the limit (7 characters without the dots).
        assert_eq!(notation(&g, &p(1, 2), 6, Notation::Text), None);
        assert!(notation(&g, &p(1, 2), 7, Notation::Text).is_some());
    }
}
