//! The seeds' nim-sequence tables (data/sequences/) against every engine,
//! and the period claims in their headers against Theorem 1.11.1.

use crate::common;

use std::path::Path;

use clap::ValueEnum;
use common::{LastIrregular, Table};
use octal::code::Code;
use octal::engine::{compute, EngineKind};

/// G(0), …, G(n−1) of `code` with engine `kind`.
fn values(kind: EngineKind, code: &Code, n: usize) -> Vec<u32> {
    compute(kind.build(code, 2).as_mut(), n)
}

fn code_of(t: &Table) -> Code {
    t.code
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", t.path.display()))
}

#[test]
fn every_engine_agrees_with_every_table() {
    let tables = common::all();
    assert!(tables.len() >= 70, "only {} tables found", tables.len());
    let engines = EngineKind::value_variants();
    assert!(!engines.is_empty());
    let mut checked = 0usize;
    for t in &tables {
        let code = code_of(t);
        let expected = t.expected();
        for &kind in engines {
            let got = values(kind, &code, t.end());
            for (k, &want) in expected.iter().enumerate() {
                let n = t.from + k;
                assert_eq!(
                    got[n],
                    want,
                    "{} ({}): engine {kind:?} gives G({n}) = {}, the table {}",
                    t.path.display(),
                    t.code,
                    got[n],
                    want
                );
                checked += 1;
            }
        }
    }
    // 72 tables, 1000+ values each way: a silent empty loop would fail here.
    assert!(
        checked >= 1000 * engines.len(),
        "only {checked} values checked"
    );
}

/// The smallest t with d_z = 0 for z > t.
fn t_of(code: &Code) -> usize {
    code.last_digit_index()
}

/// Checks a claimed period p by Theorem 1.11.1 of the thesis: if G(n) =
/// G(n+p) for all i < n ≤ i+p+t+… up to G(2i+2p+t), the period persists.
/// Also checks the stated last irregular value and that p is the least
/// period.
#[test]
fn period_claims_hold() {
    let mut claims = 0;
    for t in common::all() {
        let Some(p) = t.period else { continue };
        let code = code_of(&t);
        let tt = t_of(&code);
        // Without a stated preperiod, look far enough to find it.
        let n = match t.last_irregular {
            Some(LastIrregular::At(i)) => 2 * i + 2 * p + tt + 1,
            Some(LastIrregular::None) => 2 * p + tt + 1,
            None => 1000,
        }
        .max(t.end());
        let g = values(EngineKind::Reference, &code, n);
        let name = t.path.display();
        // The last n with G(n) ≠ G(n+p) within what was computed.
        let last = (0..n - p).rev().find(|&k| g[k] != g[k + p]);
        match t.last_irregular {
            Some(LastIrregular::At(i)) => assert_eq!(last, Some(i), "{name}: last irregular"),
            Some(LastIrregular::None) => assert_eq!(last, None, "{name}: irregular values"),
            None => {}
        }
        let i = last.unwrap_or(0);
        assert!(
            n > 2 * i + 2 * p + tt,
            "{name}: {n} values do not prove period {p} after {i}"
        );
        // p is the least period: each proper divisor fails after the preperiod.
        let start = last.map_or(0, |i| i + 1);
        for d in (1..p).filter(|d| p % d == 0) {
            assert!(
                (start..n - d).any(|k| g[k] != g[k + d]),
                "{name}: period {d} already works, the table says {p}"
            );
        }
        claims += 1;
    }
    assert!(claims >= 60, "only {claims} period claims checked");
}

/// The subtraction table's "optional extras" leave the sequence unchanged.
#[test]
fn subtraction_extras_change_nothing() {
    let mut checked = 0;
    for t in common::all().into_iter().filter(|t| !t.extras.is_empty()) {
        let code = code_of(&t);
        let mut digits = code.digits().to_vec();
        for &e in &t.extras {
            if digits.len() <= e {
                digits.resize(e + 1, 0);
            }
            digits[e] = 3;
        }
        let with = Code::from_digits(digits).unwrap();
        let n = 400;
        assert_eq!(
            values(EngineKind::Reference, &with, n),
            values(EngineKind::Reference, &code, n),
            "{}: {with} differs from {code}",
            t.path.display()
        );
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} rows with extras");
}

#[test]
fn subtraction_codes_follow_the_sets() {
    // S(2,5,6) is 0.030033; the file names sub-a-b-c spell the set.
    assert_eq!(common::load("sub-2-5-6").code, "0.030033");
    for t in common::all() {
        let stem = t.path.file_stem().unwrap().to_str().unwrap();
        let Some(set) = stem.strip_prefix("sub-") else {
            continue;
        };
        let set: Vec<usize> = set
            .split('-')
            .take_while(|s| s.parse::<usize>().is_ok())
            .map(|s| s.parse().unwrap())
            .collect();
        let code = code_of(&t);
        for (i, &d) in code.digits().iter().enumerate() {
            assert_eq!(d == 3, set.contains(&i), "{stem}: digit {i} of {code}");
            assert!(d == 0 || d == 3, "{stem}: digit {i} of {code}");
        }
    }
}

#[test]
fn the_same_game_in_two_tables_agrees() {
    let tables = common::all();
    for a in &tables {
        for b in &tables {
            if a.path < b.path && code_of(a) == code_of(b) {
                let (ea, eb) = (a.expected(), b.expected());
                for n in a.from.max(b.from)..a.end().min(b.end()) {
                    assert_eq!(
                        ea[n - a.from],
                        eb[n - b.from],
                        "G({n}): {} and {}",
                        a.path.display(),
                        b.path.display()
                    );
                }
            }
        }
    }
}

#[test]
fn cookie_cutter_codes() {
    for (k, s) in [
        (1, "0.7"),
        (2, "0.37"),
        (3, "0.337"),
        (4, "0.3337"),
        (7, "0.3333337"),
    ] {
        assert_eq!(Code::cookie_cutter(k).to_string(), s, "k={k}");
        assert_eq!(Code::cookie_cutter(k), s.parse::<Code>().unwrap(), "k={k}");
    }
    let k = 30;
    let s = Code::cookie_cutter(k).to_string();
    assert_eq!(s, format!("0.{}7", "3".repeat(k - 1)));
    // The thesis' Table 1.2 game 0.337 is the 3×3 cutter.
    assert_eq!(
        Code::cookie_cutter(3),
        code_of(&common::load("thesis-0.337"))
    );
}

#[test]
fn parser_rejects_bad_tables() {
    let p = Path::new("t.txt");
    let ok = "# source: x\n# code: 0.77\n# from: 0\n0 1 2\n3 1\n";
    let t = common::parse(p, ok).unwrap();
    assert_eq!(t.values, [0, 1, 2, 3, 1]);
    for bad in [
        "",
        "# source: x\n# code: 0.77\n# from: 0\n",
        "# code: 0.77\n# from: 0\n0 1\n",
        "# source: x\n0 1 2\n",
        "# source: x\n# code: 0.77\n# from: 0\n0 1 x\n",
        "# source: x\n# code: 0.77\n# from: zero\n0 1\n",
        "# source: x\n# code: 0.77\n# from: 0\n# erratum: n=1 source=5 computed=1\n0 1\n",
        "# source: x\n# code: 0.77\n# from: 0\n# erratum: n=9 source=1 computed=1\n0 1\n",
        "# source: x\n# code: 0.77\n# from: 0\n# period: 0\n0 1\n",
    ] {
        assert!(common::parse(p, bad).is_err(), "accepted {bad:?}");
    }
    // Errata keep the source's value in the list and correct it in expected().
    let e = "# source: x\n# code: 0.77\n# from: 2\n# erratum: n=3 source=9 computed=3\n2 9 1\n";
    let t = common::parse(p, e).unwrap();
    assert_eq!(t.values, [2, 9, 1]);
    assert_eq!(t.expected(), [2, 3, 1]);
    // And an invalid code is caught where the tables are used.
    assert!("0.G".parse::<Code>().is_err());
}
