//! The committed four-digit census (`data/census/digits-4-2^22`), checked
//! without trusting the engine that made it: a sample of its rows
//! re-derived by the reference engine and the Guy–Smith bound, and every
//! published fact about a code of up to four digits judged against it.

use std::collections::BTreeMap;

use octal::engine::Reference;
use octal::literature::{Literature, Standing};

use crate::common::fnv1a64;

const DIR: &str = "data/census/digits-4-2^22";

/// The class rows of the committed census (not its provenance line).
fn rows() -> Vec<serde_json::Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(DIR)
        .join("census.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r.get("code").is_some())
        .collect()
}

fn reference(code: &str, n: usize) -> Vec<u32> {
    octal::compute(&mut Reference::new(&code.parse().unwrap()), n)
}

fn num(r: &serde_json::Value, key: &str) -> usize {
    r[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{}: no {key}", r["code"])) as usize
}

/// The longest move of a code (its last digit's index): the `t` of the
/// periodicity bound.
fn longest_move(code: &str) -> usize {
    code.split('.').nth(1).map_or(0, str::len)
}

/// Whether a move of `code` can leave two heaps: a digit with bit 4, or
/// the prefix 4 (a heap split without taking).
fn splits(code: &str) -> bool {
    code.starts_with('4')
        || code
            .chars()
            .skip(2)
            .any(|d| d.to_digit(8).is_some_and(|d| d >= 4))
}

#[test]
fn every_code_of_up_to_four_digits_is_in_one_class() {
    let rows = rows();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for r in &rows {
        for m in r["members"].as_array().unwrap() {
            let code = m.as_str().unwrap().split(' ').next().unwrap().to_string();
            *seen.entry(code).or_default() += 1;
        }
    }
    // 8 + 64 + 512 + 4,096 codes after each of the prefixes 0 and 4, less
    // the spellings of one game (trailing zeros): 8,192 games.
    assert_eq!(seen.len(), 8192, "games");
    assert!(seen.values().all(|&k| k == 1), "a game in two classes");
}

/// Every fourth periodic class proven within 4,096 values and every
/// tenth within 40,000: its checksum over G(0..reach), its period and
/// preperiod by the Guy–Smith bound, all from the reference engine, and
/// each member's stated shift on its first values. Every tenth open or
/// stopped class: its values at powers of two below 2^13.
#[test]
fn a_sample_of_the_four_digit_census_rederived_by_the_reference_engine() {
    let rows = rows();
    let periodic: Vec<&serde_json::Value> =
        rows.iter().filter(|r| r["status"] == "periodic").collect();
    let small = periodic
        .iter()
        .filter(|r| num(r, "reach") <= 4096)
        .step_by(4);
    let larger = periodic
        .iter()
        .filter(|r| (4097..=40_000).contains(&num(r, "reach")))
        .step_by(10);
    let mut checked = 0;
    for r in small.chain(larger) {
        let code = r["code"].as_str().unwrap();
        let (reach, p, i) = (num(r, "reach"), num(r, "period"), num(r, "preperiod"));
        let g = reference(code, reach);
        assert_eq!(
            fnv1a64(&g),
            r["checksum"],
            "{code}: checksum of G(0..{reach})"
        );
        // The period holds over every value computed, and those cover the
        // periodicity theorem's window: G(n + p) = G(n) for i ≤ n <
        // 2i + p + t − 1 (the last value needed is G(2(i−1) + 2p + t),
        // Guy and Smith's bound with i − 1 the last irregular heap; games
        // that never split need fewer).
        let t = longest_move(code);
        assert!(
            (i..reach - p).all(|n| g[n] == g[n + p]),
            "{code}: period {p} from {i}"
        );
        let window = 2 * i.max(1) + p + t - 1;
        assert!(
            reach - p >= window || !splits(code),
            "{code}: {reach} values cannot prove it"
        );
        if i > 0 {
            assert_ne!(
                g[i - 1],
                g[i - 1 + p],
                "{code}: the period starts before {i}"
            );
        }
        for rel in r["relations"].as_array().unwrap() {
            let member = rel["code"].as_str().unwrap();
            let shift = rel["shift"].as_i64().unwrap();
            let k = reach.min(2048);
            let mine = reference(member, k);
            for (n, &v) in mine.iter().enumerate() {
                let at = n as i64 + shift;
                if (0..reach as i64).contains(&at) {
                    assert_eq!(v, g[at as usize], "{member}: G({n}) against G_{code}({at})");
                }
            }
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} periodic classes sampled");
    let open = rows
        .iter()
        .filter(|r| r["status"] != "periodic")
        .step_by(10);
    let mut opened = 0;
    for r in open {
        let code = r["code"].as_str().unwrap();
        let g = reference(code, 1 << 13);
        let at = r["at_powers_of_two"].as_array().unwrap();
        for (j, v) in at.iter().enumerate().take(13) {
            assert_eq!(v.as_u64(), Some(u64::from(g[1 << j])), "{code}: G(2^{j})");
        }
        opened += 1;
    }
    assert!(opened >= 20, "only {opened} open classes sampled");
}

/// Every published statement about a code of four digits (the OEIS
/// entries in data/literature/) agrees with the census, period and, where
/// the source says where it starts, preperiod through the member's shift;
/// and no disagreement but `.56`'s with OEIS A071436.
#[test]
fn the_four_digit_census_agrees_with_every_published_four_digit_fact() {
    let lit = Literature::embedded();
    let rows = rows();
    let all = lit.judge_census(&rows, None).unwrap();
    let four = |published: &str| published.split('.').nth(1).is_some_and(|d| d.len() == 4);
    let mut agreed = 0;
    for (row, standings) in rows.iter().zip(&all) {
        for s in standings {
            match s {
                Standing::Disagrees { .. } => {
                    assert!(
                        s.to_string().contains("OEIS A071436"),
                        "{}: {s}",
                        row["code"]
                    );
                }
                Standing::Agrees {
                    code, period_only, ..
                } if four(code) => {
                    assert!(!period_only, "{}: {s}", row["code"]);
                    agreed += 1;
                }
                Standing::Known { code, .. } if four(code) => {
                    panic!("{}: {s}: not proven by the census", row["code"]);
                }
                _ => {}
            }
        }
    }
    // Every entry on a four-digit code was judged.
    let entries = lit.entries.iter().filter(|e| four(&e.as_published)).count();
    assert!(entries >= 90, "{entries}");
    assert_eq!(agreed, entries, "four-digit entries judged");
}
