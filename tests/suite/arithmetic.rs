//! Arithmetic periods, G(n + p) = G(n) + s: games whose values are known
//! by hand, checked against the reference engine; a published-style
//! apparent one that breaks; and none in octal games (Horrocks and
//! Nowakowski, 2003).

use octal::period::arithmetic;

use crate::common::faults::reference;
use crate::common::octal;

fn json_of(code: &str, to: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let out = octal()
        .args(["run", code, "--to", to, "--json", "--store"])
        .arg(dir.path().join("g.octal"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// (period, preperiod, saltus) of a summary's arithmetic period.
fn triple(j: &serde_json::Value) -> Option<(u64, u64, u64)> {
    let a = &j["arithmetic_period"];
    (!a.is_null()).then(|| {
        let f = |k: &str| a[k].as_u64().unwrap();
        (f("period"), f("preperiod"), f("saltus"))
    })
}

/// Whether G(n + p) = G(n) + s for every n in `range` (within `g`).
fn holds(g: &[u32], (p, s): (usize, u32), range: std::ops::Range<usize>) -> bool {
    range
        .filter(|n| n + p < g.len())
        .all(|n| g[n + p] == g[n] + s)
}

#[test]
fn games_solved_by_hand_show_their_arithmetic_period() {
    // Worked by hand: in 0.8 (take one, leave three heaps) G(n) = ⌊(n−1)/3⌋
    // for n ≥ 1; in 8.0 (split into three) ⌊(n−1)/2⌋; in 0.AA (take one or
    // two, leave one or three heaps) n − 1; in 0.FF n (nim's values).
    type Formula = fn(u32) -> u32;
    let games: [(&str, Formula, (u64, u64, u64)); 4] = [
        ("0.8", |n| n.saturating_sub(1) / 3, (3, 1, 1)),
        ("8.0", |n| n.saturating_sub(1) / 2, (2, 1, 1)),
        ("0.AA", |n| n.saturating_sub(1), (1, 1, 1)),
        ("0.FF", |n| n, (1, 0, 1)),
    ];
    for (code, formula, want) in games {
        let g = reference(code, 2000);
        for (n, &v) in g.iter().enumerate() {
            assert_eq!(v, formula(n as u32), "{code}: G({n})");
        }
        let j = json_of(code, "2000");
        assert_eq!(triple(&j), Some(want), "{code}");
        assert_eq!(j["arithmetic_period"]["checked_to"], 2000, "{code}");
        assert!(j["period"].is_null() && j["apparent_period"].is_null());
    }
    // The text says it, as apparent.
    let dir = tempfile::tempdir().unwrap();
    let out = octal()
        .args(["run", "0.8", "--to", "300", "--store"])
        .arg(dir.path().join("g.octal"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "apparent arithmetic period 3, saltus 1: G(n + 3) = G(n) + 1 for 1 ≤ n < 297"
        ),
        "{text}"
    );
}

#[test]
fn an_apparent_arithmetic_period_can_break() {
    // 0.F6: G(n + 43) = G(n) + 32 from n = 604 over the first 1,600 values
    // (and not from 603), then no longer (the reference engine's values).
    let g = reference("0.F6", 3000);
    assert!(holds(&g[..1600], (43, 32), 604..1600));
    assert!(!holds(&g[..1600], (43, 32), 603..604));
    assert!(!holds(&g, (43, 32), 604..3000));
    assert_eq!(triple(&json_of("0.F6", "1600")), Some((43, 604, 32)));
    assert_eq!(triple(&json_of("0.F6", "3000")), None);
}

#[test]
fn bounded_hexadecimal_games_report_no_arithmetic_period() {
    // 0.B1's values are bounded (the notes in docs/arithmetic.md); a
    // saltus of 0 is an ordinary period.
    let g = reference("0.B1", 2000);
    assert!(g.iter().all(|&v| v < 64));
    assert_eq!(triple(&json_of("0.B1", "2000")), None);
}

#[test]
fn no_octal_game_of_up_to_three_digits_is_arithmetic_periodic() {
    // Horrocks and Nowakowski (2003): finite octal games are not
    // arithmetic periodic, so runs do not look; their values show none.
    assert!(!arithmetic::possible(&"0.6".parse().unwrap()));
    assert!(arithmetic::possible(&"0.8".parse().unwrap()));
    assert!(arithmetic::possible(&"4.0u".parse().unwrap()));
    for d0 in [0u8, 4] {
        for rest in 0..512u32 {
            let digits = [(rest >> 6) as u8, (rest >> 3 & 7) as u8, (rest & 7) as u8];
            let code = format!("{d0}.{}{}{}", digits[0], digits[1], digits[2]);
            let g = reference(&code, 1 << 11);
            assert_eq!(arithmetic::apparent(&g), None, "{code}");
        }
    }
}

/// A census of the one-digit hexadecimal codes: `0.8` (worked by hand: G(n)
/// = ⌊(n − 1)/3⌋ for n ≥ 1) is listed as open with its arithmetic period,
/// said to be apparent, in the JSON rows, the tables and the atlas; every
/// arithmetic period listed holds over its range in values computed here;
/// no octal code has one.
#[test]
fn a_hexadecimal_census_lists_arithmetic_periods_as_apparent() {
    let dir = tempfile::tempdir().unwrap();
    let out = octal()
        .args(["census", "--hex", "--digits", "1", "--prefix", "0"])
        .args([
            "--to", "2^11", "--probe", "2^8", "--json", "--quiet", "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let row = |code: &str| {
        rows.iter()
            .find(|r| r["code"] == code)
            .unwrap_or_else(|| panic!("{code} not in the census"))
    };
    let eight = row("0.8");
    assert_eq!(eight["status"], "open");
    assert_eq!(triple(eight), Some((3, 1, 1)));
    let g = reference("0.8", 2048);
    assert!((1..2048).all(|n| g[n] as usize == (n - 1) / 3));
    let mut seen = 0;
    for r in &rows {
        let code: octal::code::Code = r["code"].as_str().unwrap().parse().unwrap();
        let Some((p, i, s)) = triple(r) else {
            continue;
        };
        assert!(
            !code.is_octal(),
            "{code}: an octal game listed as arithmetic"
        );
        let to = r["arithmetic_period"]["checked_to"].as_u64().unwrap() as usize;
        let g = reference(&code.to_string(), to);
        assert!(holds(&g, (p as usize, s as u32), i as usize..to), "{code}");
        seen += 1;
    }
    assert!(seen >= 2, "only {seen} arithmetic periods");
    let md = std::fs::read_to_string(dir.path().join("census.md")).unwrap();
    assert!(md.contains(
        "| `0.8` | 1 | open (apparent arithmetic period 3, saltus 1: G(n + 3) = G(n) + 1 for 1 ≤ n < 2045) |"
    ));
    assert!(md.starts_with("# Census of hexadecimal codes"));
    let site = dir.path().join("site");
    let out = octal()
        .args(["atlas", "--quiet", "-o"])
        .arg(&site)
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let page = std::fs::read_to_string(site.join("class/0.8.html")).unwrap();
    assert!(page.contains("arithmetic period (apparent)"), "{page}");
    // More than three hexadecimal digits is refused as bad input.
    let out = octal()
        .args(["census", "--hex", "--digits", "4", "--list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The committed census of two-digit hexadecimal codes: every apparent
/// arithmetic period it lists holds, in values the reference engine
/// computes here, from its preperiod to the census' reach; it began in the
/// first half of the values; and the codes worked by hand are there with
/// theirs.
#[test]
fn the_committed_hexadecimal_census_lists_arithmetic_periods_that_hold() {
    let text = include_str!("../../data/census/hex-2-2^13/census.jsonl");
    let rows: Vec<serde_json::Value> = text
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Every game once: 16 one-digit and 16 · 15 two-digit codes (those
    // ending in 0 are one-digit ones) under each of the prefixes 0 and 4.
    let members: usize = rows
        .iter()
        .map(|r| r["members"].as_array().unwrap().len())
        .sum();
    assert_eq!(members, 2 * (16 + 16 * 15));
    let listed: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| !r["arithmetic_period"].is_null())
        .collect();
    for r in &listed {
        let (_, i, _) = triple(r).unwrap();
        let to = r["arithmetic_period"]["checked_to"].as_u64().unwrap();
        assert_eq!(to, r["reach"].as_u64().unwrap());
        assert!(2 * i <= to, "{}", r["code"]);
    }
    // A sample checked with the reference engine over the whole reach:
    // the cheapest codes first (values that grow make each heap dearer).
    let sample = ["0.8", "0.C", "0.AA", "0.A8", "0.3F", "0.9C"];
    for code in sample {
        let r = listed
            .iter()
            .find(|r| r["code"] == code)
            .unwrap_or_else(|| panic!("{code} not listed"));
        let (p, i, s) = triple(r).unwrap();
        let g = reference(code, 8192);
        assert!(
            holds(&g, (p as usize, s as u32), i as usize..8192),
            "{code}"
        );
    }
    // Worked by hand (docs/arithmetic.md): 0.8 and 0.AA.
    let by_hand = |code: &str| triple(listed.iter().find(|r| r["code"] == code).unwrap());
    assert_eq!(by_hand("0.8"), Some((3, 1, 1)));
    assert_eq!(by_hand("0.AA"), Some((1, 1, 1)));
}
