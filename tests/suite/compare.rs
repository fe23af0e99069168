//! Comparisons of sequences computed by the reference engine, against
//! relations published for them.

use octal::code::Code;
use octal::compare::{Comparison, Outcome, Side};
use octal::engine::{compute, Reference};
use octal::period::{Detector, Period};

fn values(code: &str, n: usize) -> Vec<u32> {
    compute(&mut Reference::new(&code.parse::<Code>().unwrap()), n)
}

fn proven(code: &str, g: &[u32]) -> Option<Period> {
    let mut d = Detector::new(&code.parse().unwrap());
    d.feed(g);
    d.proven()
}

#[test]
fn dot_36_and_dot_161_first_differ_at_519() {
    // Flammenkamp's table equates them; tczajka reports heap 519.
    let (a, b) = (values(".36", 2000), values(".161", 2000));
    let c = Comparison {
        a: Side {
            values: &a,
            period: None,
        },
        b: Side {
            values: &b,
            period: None,
        },
        shift: 0,
    };
    match c.run(None) {
        Outcome::Differ { at, a: x, b: y } => {
            assert_eq!(at, 519);
            assert_eq!((x, y), (a[519], b[519]));
            assert_ne!(x, y);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn dot_04_shifted_by_one_is_dot_007() {
    // G_.04(n + 1) = G_.007(n), as the lecture notes' tables show.
    let (a, b) = (values(".007", 3000), values(".04", 3001));
    let c = Comparison {
        a: Side {
            values: &a,
            period: None,
        },
        b: Side {
            values: &b,
            period: None,
        },
        shift: 1,
    };
    assert_eq!(c.run(None), Outcome::EqualTo { to: 3000 });
    // Unshifted they differ at once somewhere early.
    let c = Comparison { shift: 0, ..c };
    assert!(matches!(c.run(None), Outcome::Differ { .. }));
}

#[test]
fn dot_07_and_dawsons_chess_are_one_sequence_forever() {
    // G_.07(n) = G_.137(n − 1); both have period 34, proven by the bound.
    let (a, b) = (values(".07", 400), values(".137", 400));
    let (pa, pb) = (proven(".07", &a), proven(".137", &b));
    assert_eq!((pa.unwrap().period, pb.unwrap().period), (34, 34));
    let c = Comparison {
        a: Side {
            values: &a,
            period: pa,
        },
        b: Side {
            values: &b,
            period: pb,
        },
        shift: -1,
    };
    assert!(matches!(c.run(None), Outcome::EqualForever { .. }));
    // Kayles has period 12: never the same as Dawson's Chess.
    let k = values(".77", 400);
    let c = Comparison {
        a: Side {
            values: &k,
            period: proven(".77", &k),
        },
        ..c
    };
    assert!(matches!(c.run(None), Outcome::Differ { .. }));
}
