//! The game reductions checked against independent searches, the thesis'
//! tables and theorems, and the command line.

use std::collections::HashMap;
use std::path::Path;

use octal::code::Code;
use octal::engine::{compute, Reference};
use octal::games::cookie_cutter::{parse_table, Cutter, Solver};
use octal::games::vertex_deletion::{Digraph, Variant};

// ---------------------------------------------------------------------
// Cookie Cutter: a plain brute force, written from the rules alone. No
// parts, no symmetries, no octal codes: the position is the set of
// remaining squares, and every k×k placement that covers one of them is
// tried. An arbitrarily large cutter is taken as k = 2·max(x, y), which
// also checks that the solver's k = max(x, y) is large enough.

fn brute_cookie(rows: usize, cols: usize, k: usize) -> u32 {
    let k = k as i64;
    let mut windows = Vec::new();
    for a in (1 - k)..rows as i64 {
        for b in (1 - k)..cols as i64 {
            let mut m = 0u128;
            for r in 0..rows as i64 {
                for c in 0..cols as i64 {
                    if (a..a + k).contains(&r) && (b..b + k).contains(&c) {
                        m |= 1 << (r * cols as i64 + c);
                    }
                }
            }
            windows.push(m);
        }
    }
    fn g(pos: u128, windows: &[u128], memo: &mut HashMap<u128, u32>) -> u32 {
        if let Some(&v) = memo.get(&pos) {
            return v;
        }
        let mut options = Vec::new();
        for &w in windows {
            if w & pos != 0 {
                options.push(g(pos & !w, windows, memo));
            }
        }
        let v = (0..).find(|v| !options.contains(v)).unwrap();
        memo.insert(pos, v);
        v
    }
    let full = if rows * cols == 128 {
        u128::MAX
    } else {
        (1u128 << (rows * cols)) - 1
    };
    g(full, &windows, &mut HashMap::new())
}

#[test]
fn cookie_search_matches_brute_force() {
    for k in [1, 2, 3, 4, 5, 0] {
        let cutter = if k == 0 {
            Cutter::Large
        } else {
            Cutter::Size(k)
        };
        let mut solver = Solver::new(cutter);
        for rows in 1..=4 {
            for cols in rows..=8 {
                if rows * cols > 16 {
                    continue;
                }
                let side = if k == 0 { 2 * rows.max(cols) } else { k };
                let want = brute_cookie(rows, cols, side);
                assert_eq!(
                    solver.solve(rows, cols, None).unwrap(),
                    want,
                    "k={k} {rows}x{cols}"
                );
                // Transposed boards agree.
                assert_eq!(solver.solve(cols, rows, None).unwrap(), want);
            }
        }
    }
}

#[test]
fn cookie_strips_are_the_octal_games() {
    // Lemma 5.1.2, checked by the search (which knows nothing of octal
    // codes) against the engine.
    for k in 1..=6 {
        let g = compute(&mut Reference::new(&Code::cookie_cutter(k)), 31);
        let mut solver = Solver::new(Cutter::Size(k));
        for (n, &gn) in g.iter().enumerate().skip(1) {
            assert_eq!(solver.solve(1, n, None).unwrap(), gn, "k={k} n={n}");
        }
    }
    // An arbitrarily large cutter on a strip is a nim heap (Cor. 5.1.1).
    let mut solver = Solver::new(Cutter::Large);
    for n in 1..=40 {
        assert_eq!(solver.solve(n, 1, None).unwrap(), n as u32);
    }
}

#[test]
fn cookie_two_row_theorems() {
    // Arbitrarily large cutter: B(n, m) = n + m (Lemma 5.2.1) and A(a, b)
    // = a − 1 when a = b is not 2^j − 1, else a + b (Theorem 5.2.2).
    let mut solver = Solver::new(Cutter::Large);
    for n in 0..=5usize {
        for m in 0..=5usize {
            for gap in 0..=2 {
                let cols = (n + gap + m).max(1);
                let cells: Vec<_> = (0..n)
                    .map(|c| (0, c))
                    .chain((cols - m..cols).map(|c| (1, c)))
                    .collect();
                let v = solver.solve_shape(2, cols, &cells, None).unwrap();
                assert_eq!(v as usize, n + m, "B({n},{m}) gap {gap}");
            }
        }
    }
    for a in 0..=7usize {
        for b in 0..=7usize {
            let cols = a.max(b).max(1);
            let cells: Vec<_> = (0..a)
                .map(|c| (0, c))
                .chain((0..b).map(|c| (1, c)))
                .collect();
            let v = solver.solve_shape(2, cols, &cells, None).unwrap();
            let want = if a == b && a > 0 && !(a + 1).is_power_of_two() {
                a - 1
            } else {
                a + b
            };
            assert_eq!(v as usize, want, "A({a},{b})");
        }
    }
}

#[test]
fn cookie_bounding_box_of_zeros() {
    // Theorem 5.3.1: a (k+1)×n board is 0 for every n.
    for (k, max_n) in [(1, 12), (2, 8), (3, 6), (4, 5)] {
        let mut solver = Solver::new(Cutter::Size(k));
        for n in 1..=max_n {
            assert_eq!(solver.solve(k + 1, n, None).unwrap(), 0, "k={k} n={n}");
        }
    }
}

/// A table from `data/cookie-cutter/`, its cutter and its errata, which
/// replace the source's value.
struct Table {
    cutter: Cutter,
    cells: Vec<Vec<Option<u32>>>,
}

fn load(name: &str) -> Table {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/cookie-cutter")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let k = text
        .lines()
        .find_map(|l| l.strip_prefix("# k: "))
        .expect("a '# k:' line");
    let mut cells = parse_table(&text).unwrap();
    for l in text.lines() {
        if let Some(e) = l.strip_prefix("# erratum: ") {
            // x=3 y=4 source=2 computed=1
            let f: HashMap<&str, u32> = e
                .split_whitespace()
                .map(|kv| {
                    let (a, b) = kv.split_once('=').unwrap();
                    (a, b.parse().unwrap())
                })
                .collect();
            let cell = &mut cells[f["x"] as usize - 1][f["y"] as usize - 1];
            assert_eq!(*cell, Some(f["source"]), "{name}: erratum {e}");
            *cell = Some(f["computed"]);
        }
    }
    Table {
        cutter: k.parse().unwrap(),
        cells,
    }
}

/// Checks every entry of a thesis table whose board has at most
/// `max_cells` squares; the rest are checked by `every_thesis_entry`
/// (ignored: minutes) and by the filled tables of
/// scripts/fill-cookie-tables.sh.
fn check_table(name: &str, max_cells: usize) -> usize {
    check_table_skipping(name, max_cells, &[])
}

fn check_table_skipping(name: &str, max_cells: usize, skip: &[(usize, usize)]) -> usize {
    let t = load(name);
    let n = t.cells[0].len().max(t.cells.len());
    let strip: Vec<u32> = match t.cutter {
        Cutter::Size(k) => compute(&mut Reference::new(&Code::cookie_cutter(k)), n + 1),
        Cutter::Large => (0..=n as u32).collect(),
    };
    let mut solver = Solver::new(t.cutter);
    let mut checked = 0;
    for (x, row) in t.cells.iter().enumerate() {
        for (y, cell) in row.iter().enumerate() {
            let Some(want) = *cell else { continue };
            let (x, y) = (x + 1, y + 1);
            if skip.contains(&(x, y)) {
                continue;
            }
            let got = if x == 1 || y == 1 {
                strip[x.max(y)]
            } else if x * y <= max_cells {
                solver.solve(x, y, None).unwrap()
            } else {
                continue;
            };
            assert_eq!(got, want, "{name}: {x}x{y}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn thesis_table_5_1_large_cutter() {
    assert_eq!(check_table("table-5.1-kinf.txt", 28), 52);
}

#[test]
fn thesis_table_5_2_k2() {
    assert_eq!(check_table("table-5.2-k2.txt", 24), 43);
}

#[test]
fn thesis_table_5_3_k3() {
    assert_eq!(check_table("table-5.3-k3.txt", 27), 48);
}

#[test]
fn thesis_table_5_4_k4() {
    assert_eq!(check_table("table-5.4-k4.txt", 30), 48);
}

#[test]
fn thesis_table_5_5_k5() {
    assert_eq!(check_table("table-5.5-k5.txt", 30), 49);
}

#[test]
fn thesis_table_5_6_k6() {
    assert_eq!(check_table("table-5.6-k6.txt", 30), 54);
}

#[test]
fn thesis_table_5_7_k7() {
    assert_eq!(check_table("table-5.7-k7.txt", 30), 57);
}

const THESIS_TABLES: [&str; 7] = [
    "table-5.1-kinf.txt",
    "table-5.2-k2.txt",
    "table-5.3-k3.txt",
    "table-5.4-k4.txt",
    "table-5.5-k5.txt",
    "table-5.6-k6.txt",
    "table-5.7-k7.txt",
];

#[test]
#[ignore = "many minutes: the large boards of the thesis tables"]
fn every_thesis_entry() {
    // Every entry, except the boards scripts/fill-cookie-tables.sh could
    // not finish in its minute (the rows of Theorem 5.3.1's zeros far out).
    for name in THESIS_TABLES {
        let n = check_table_skipping(name, usize::MAX, &unfinished(name));
        eprintln!("{name}: {n} entries agree");
    }
}

fn filled(name: &str) -> Option<Vec<Vec<Option<u32>>>> {
    let k = name.trim_end_matches(".txt").rsplit_once("-k").unwrap().1;
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/cookie-cutter")
        .join(format!("filled-k{k}.txt"));
    let text = std::fs::read_to_string(path).ok()?;
    Some(parse_table(&text).unwrap())
}

/// Boards the filled table leaves blank.
fn unfinished(name: &str) -> Vec<(usize, usize)> {
    let f = filled(name).unwrap_or_default();
    let mut out = Vec::new();
    for x in 1..=20 {
        for y in 1..=20 {
            if f.get(x - 1)
                .and_then(|r| r.get(y - 1))
                .copied()
                .flatten()
                .is_none()
            {
                out.push((x, y));
            }
        }
    }
    out
}

#[test]
fn filled_tables_agree_with_the_thesis() {
    // The filled tables (made by scripts/fill-cookie-tables.sh with the
    // search) must agree with every thesis entry both have, errata applied.
    let mut compared = 0;
    for name in THESIS_TABLES {
        let thesis = load(name);
        let filled = filled(name).unwrap_or_else(|| panic!("no filled table for {name}"));
        for (x, row) in thesis.cells.iter().enumerate() {
            for (y, want) in row.iter().enumerate() {
                let got = filled.get(x).and_then(|r| r.get(y)).copied().flatten();
                if let (Some(want), Some(got)) = (want, got) {
                    assert_eq!(got, *want, "{name}: {}x{}", x + 1, y + 1);
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 300, "only {compared} entries compared");
}

// ---------------------------------------------------------------------
// Vertex Deletion.

#[test]
fn directed_paths_are_0_6() {
    // Theorem 3.2.2: the exact digraph search agrees with the engine.
    let g = compute(&mut Reference::new(&"0.6".parse().unwrap()), 17);
    for (n, &gn) in g.iter().enumerate() {
        let d = Digraph::directed_path(n).unwrap();
        assert_eq!(d.grundy(Variant::OddOdd), gn, "P{n}");
    }
    // Unions are nim-sums.
    for (a, b) in [(3, 4), (5, 8), (2, 9), (7, 7)] {
        let d = Digraph::directed_path(a)
            .unwrap()
            .disjoint_union(&Digraph::directed_path(b).unwrap())
            .unwrap();
        assert_eq!(d.grundy(Variant::OddOdd), g[a] ^ g[b], "P{a}+P{b}");
    }
    // Reversing every arc, or listing them in another order, changes
    // nothing: the arc list parser and the path builder agree.
    let rev = Digraph::parse_arcs("4>3,3>2,2>1,1>0", None).unwrap();
    assert_eq!(rev.grundy(Variant::OddOdd), g[5]);
}

use crate::common::octal_assert as octal;

fn last_line(out: &[u8]) -> String {
    String::from_utf8_lossy(out)
        .lines()
        .last()
        .unwrap_or("")
        .to_string()
}

#[test]
fn cli_cookie_cutter() {
    // 0.37 at heap 15 (thesis Table 5.2, row 1).
    let out = octal()
        .args(["cookie-cutter", "--k", "2", "--grid", "1x15"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(last_line(&out.stdout), "1");
    let out = octal()
        .args(["cookie-cutter", "--k", "2", "--grid", "15x1", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value"], 1);
    assert_eq!(v["code"], "0.37");
    assert_eq!(v["heap"], 15);
    // A board, by search: 2x3 with a 3x3 cutter is 6 (Table 5.3).
    let out = octal()
        .args(["cookie-cutter", "--k", "3", "--grid", "2x3", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value"], 6);
    assert!(v.get("code").is_none());
    let out = octal()
        .args(["cookie-cutter", "--k", "inf", "--grid", "2x7"])
        .output()
        .unwrap();
    assert_eq!(last_line(&out.stdout), "14");
    // A table: Table 5.2's first rows.
    let out = octal()
        .args(["cookie-cutter", "--k", "2", "--table", "2x6", "-q"])
        .output()
        .unwrap();
    let t = parse_table(&String::from_utf8_lossy(&out.stdout)).unwrap();
    let s = |v: &[u32]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
    assert_eq!(t, vec![s(&[1, 2, 0, 1, 2, 3]), s(&[2, 1, 0, 2, 1, 3])]);
}

#[test]
fn cli_strips_reach_the_engine_at_any_length() {
    // Any length goes to the engine. A periodic game (k odd: G(n) = n mod
    // (k+1), Theorem 5.1.4, checked by tests/suite/period.rs) answers from its
    // proven period at once: 2^47 mod 4 = 0, 2^47 + 1 mod 4 = 1.
    for (n, want) in [("2^47", "0"), ("140737488355329", "1")] {
        let out = octal()
            .args(["cookie-cutter", "--k", "3", "--grid", &format!("1x{n}")])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(last_line(&out.stdout), want);
    }
    // A game with no period in sight needs a store that big: refused.
    let out = octal()
        .args(["cookie-cutter", "--k", "2", "--grid", "1x2^47"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("memory"), "{err}");
    let out = octal()
        .args(["vertex-deletion", "--directed-path", "2^47"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("memory"));
}

#[test]
fn cli_vertex_deletion() {
    let g = compute(&mut Reference::new(&"0.6".parse().unwrap()), 14);
    let out = octal()
        .args(["vertex-deletion", "--directed-path", "13"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(last_line(&out.stdout), g[13].to_string());
    let out = octal()
        .args(["vertex-deletion", "--directed-paths", "5,8,13", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value"], g[5] ^ g[8] ^ g[13]);
    assert_eq!(v["code"], "0.6");
    let out = octal()
        .args(["vertex-deletion", "--directed-path", "9", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["value"].clone(), v["heap"].clone()),
        (g[9].into(), 9.into())
    );
    // The directed triangle is 0; 0>1 is *1.
    let out = octal()
        .args(["vertex-deletion", "--arcs", "0>1,1>2,2>0"])
        .output()
        .unwrap();
    assert_eq!(last_line(&out.stdout), "0");
    let out = octal()
        .args(["vertex-deletion", "--arcs", "0>1", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value"], 1);
}

#[test]
fn cli_bad_input_is_one_line_and_exit_2() {
    for args in [
        &["cookie-cutter", "--k", "2", "--grid", "0x5"][..],
        &["cookie-cutter", "--k", "0", "--grid", "3x5"],
        &["cookie-cutter", "--k", "2", "--grid", "axb"],
        &["cookie-cutter", "--k", "2", "--grid", "20x20"],
        &["cookie-cutter", "--k", "two", "--grid", "2x2"],
        &["cookie-cutter", "--k", "2"],
        &["cookie-cutter", "--k", "2", "--table", "3x0"],
        &["vertex-deletion", "--arcs", "0>1,1-2"],
        &["vertex-deletion", "--arcs", "0>1,1>1"],
        &["vertex-deletion", "--arcs", "0>5", "--vertices", "3"],
        &["vertex-deletion", "--arcs", "0>40"],
        &["vertex-deletion", "--directed-path", "abc"],
        &["vertex-deletion", "--directed-paths", "5,,8"],
        &["vertex-deletion"],
        &["vertex-deletion", "--directed-path", "3", "--arcs", "0>1"],
    ] {
        let out = octal().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("octal: "), "{args:?}: {err}");
    }
}

/// A heap that the game's store (`runs/CODE.octal`, from an earlier run)
/// already holds is answered from it, checked: the value of a sound store,
/// and a one-line error, not a value, from a damaged one.
#[test]
fn vertex_deletion_answers_from_the_games_store() {
    let dir = tempfile::tempdir().unwrap();
    let want = octal::compute(
        &mut octal::engine::Reference::new(&"0.6".parse().unwrap()),
        3000,
    );
    let run = octal()
        .current_dir(dir.path())
        .args(["run", "0.6", "--to", "3000", "--quiet"])
        .output()
        .unwrap();
    assert!(run.status.success());
    let ask = || {
        octal()
            .current_dir(dir.path())
            .args(["vertex-deletion", "--directed-path", "2500"])
            .output()
            .unwrap()
    };
    let out = ask();
    assert!(out.status.success());
    assert_eq!(last_line(&out.stdout), want[2500].to_string());
    // Damage a stored value: the store is read, and refused.
    let store = dir.path().join("runs/0.6.octal");
    let at = octal::store::Store::open(&store, false)
        .unwrap()
        .data_offset()
        + 2 * 2500;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&store)
        .unwrap();
    std::os::unix::fs::FileExt::write_at(&f, &[0xff, 0x7f], at).unwrap();
    drop(f);
    let out = ask();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}
