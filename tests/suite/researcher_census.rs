//! What a researcher asked of the census and of a run's summary (issue
//! 40, items 1, 2 and 5): the rare positions as data, shifts found rather
//! than guessed (composed along a class, `compare --shift auto`, `octal
//! equiv`), and tables fit for an appendix. Expected values come from the
//! reference engine, the definition of sparse space, published facts and
//! hand-worked cases.

use std::path::Path;
use std::process::Output;
use std::sync::OnceLock;

use octal::engine::Reference;
use serde_json::Value;

use crate::common::shifted;

use crate::common::octal;

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(out: Output) -> Value {
    serde_json::from_str(&ok(out)).unwrap()
}

fn reference(code: &str, n: usize) -> Vec<u32> {
    octal::compute(&mut Reference::new(&code.parse().unwrap()), n)
}

/// The rare positions n ≥ 1 of `g` by the definition of sparse space:
/// with `mask`, two common heaps (popcount(G & mask) odd; with position
/// parity, of the other parity than n + i0) XOR to a value of the other
/// class, so the rare class is what common × common splits produce:
/// popcount(G(n) & mask) even, or ≡ n + i0 (mod 2) with position parity.
fn rare_by_definition(g: &[u32], mask: u32, pp: bool, i0: usize) -> Vec<(u64, u32)> {
    (1..g.len())
        .filter(|&n| {
            let parity = (g[n] & mask).count_ones() % 2;
            let want = if pp { ((n + i0) % 2) as u32 } else { 0 };
            parity == want
        })
        .map(|n| (n as u64, g[n]))
        .collect()
}

/// `[[n, g], …]` as pairs.
fn pairs(v: &Value) -> Vec<(u64, u32)> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap() as u32))
        .collect()
}

/// The mask of a `rare_class` (`"0x1ee"`) and its position parity.
fn mask_of(class: &Value) -> (u32, bool) {
    let hex = class["mask"].as_str().unwrap();
    let bits = u32::from_str_radix(hex.strip_prefix("0x").unwrap(), 16).unwrap();
    (bits, class["position_parity"].as_bool().unwrap())
}

/// The split distance of each code's splitting move, by hand: `.6` takes
/// 1 token and may split; `.161` and `.16` take 2.
fn i0(code: &str) -> usize {
    match code {
        ".6" => 1,
        ".161" | ".16" => 2,
        _ => unreachable!(),
    }
}

/// Checks a summary's (or census row's) rare positions against the
/// reference engine's values and the definition of sparse space.
fn check_rare(what: &str, s: &Value, g: &[u32], code: &str) {
    let (mask, pp) = mask_of(&s["rare_class"]);
    let want = rare_by_definition(g, mask, pp, i0(code));
    assert_eq!(pairs(&s["rare_list"]), want, "{what}: rare_list");
    assert_eq!(s["rare_list_complete"], true, "{what}");
    assert_eq!(
        s["rare_positions"].as_u64(),
        Some(want.len() as u64),
        "{what}"
    );
    // Sparse: the rare class is under a fifth of the positions (what the
    // engine asks of a mask; 0.6 has about 15% rare below 10^4, fewer
    // further on).
    assert!(want.len() * 5 < g.len(), "{what}: {} rare", want.len());
}

#[test]
fn a_run_and_a_resumed_store_list_the_rare_positions_with_their_values() {
    let dir = tempfile::tempdir().unwrap();
    for (code, n) in [(".6", 20_000usize), (".161", 20_000), (".16", 20_000)] {
        let g = reference(code, n);
        let to = n.to_string();
        let fresh = json(
            octal()
                .args(["run", code, "--to", &to, "--no-store", "--json"])
                .output()
                .unwrap(),
        );
        check_rare(&format!("{code} fresh"), &fresh, &g, code);
        // Half, then resumed to the whole: the same list.
        let store = dir.path().join(format!("{code}.octal"));
        let half = (n / 2).to_string();
        let run = |to: &str| {
            json(
                octal()
                    .args(["run", code, "--to", to, "--json", "--store"])
                    .arg(&store)
                    .output()
                    .unwrap(),
            )
        };
        run(&half);
        let resumed = run(&to);
        assert_eq!(resumed["resumed_from"].as_u64(), Some((n / 2) as u64));
        check_rare(&format!("{code} resumed"), &resumed, &g, code);
        // A prefix of the store: its own rare positions.
        let prefix = run(&half);
        assert_eq!(prefix["held"].as_u64(), Some(n as u64));
        check_rare(&format!("{code} prefix"), &prefix, &g[..n / 2], code);
        // The text names the last of them with its value.
        let text = ok(octal()
            .args(["run", code, "--to", &to, "--no-store"])
            .output()
            .unwrap());
        let last = rare_by_definition(&g, mask_of(&fresh["rare_class"]).0, false, 0);
        let (ln, lg) = last.last().copied().unwrap();
        if !fresh["rare_class"]["position_parity"].as_bool().unwrap() {
            assert!(text.contains(&format!("G({ln})={lg}")), "{text}");
        }
    }
    // A windowed run lists them in the same shape as a full run (whose
    // list is checked above), though it dropped the values between.
    let args = ["run", ".6", "--to", "2^20", "--json"];
    let full = json(octal().args(args).arg("--no-store").output().unwrap());
    let windowed = json(
        octal()
            .args(args)
            .args(["--window", "2^18", "--store"])
            .arg(dir.path().join("w.window"))
            .output()
            .unwrap(),
    );
    assert!(
        windowed["kept_from"].as_u64().unwrap() > 0,
        "values were dropped"
    );
    assert_eq!(pairs(&windowed["rare_list"]), pairs(&full["rare_list"]));
    assert_eq!(windowed["rare_class"], full["rare_class"]);
    // A game run without sparse space has none: null, said so.
    let plain = json(
        octal()
            .args(["run", ".4", "--to", "1000", "--no-store", "--json"])
            .output()
            .unwrap(),
    );
    for k in ["rare_class", "rare_list", "rare_list_complete"] {
        assert!(plain[k].is_null(), "{k}: {}", plain[k]);
    }
}

/// A two-digit census, made once for the tests that read it.
fn census2() -> &'static (tempfile::TempDir, Vec<Value>) {
    static C: OnceLock<(tempfile::TempDir, Vec<Value>)> = OnceLock::new();
    C.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        ok(octal()
            .args(["census", "--digits", "2", "--to", "8192", "--probe", "1024"])
            .args(["--quiet", "--out"])
            .arg(dir.path())
            .output()
            .unwrap());
        let rows = rows(&dir.path().join("census.jsonl"));
        (dir, rows)
    })
}

fn rows(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let head: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert!(head["census"].is_object(), "provenance first: {head}");
    lines.map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn row<'a>(rows: &'a [Value], code: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["code"] == code)
        .unwrap_or_else(|| panic!("{code}: no row"))
}

#[test]
fn census_rows_carry_the_rare_positions() {
    let (_, rows) = census2();
    for code in [".6", ".16"] {
        let r = row(rows, &format!("0{code}"));
        let reach = r["reach"].as_u64().unwrap() as usize;
        assert_eq!(reach, 8192, "{code} is open at the census' target");
        let g = reference(code, reach);
        check_rare(&format!("census row {code}"), r, &g, code);
        // The mask in hex, as the command line prints it.
        let (mask, _) = mask_of(&r["rare_class"]);
        assert_eq!(r["rare_mask"], format!("0x{mask:x}"));
    }
}

#[test]
fn every_member_states_its_composed_shift_and_it_holds() {
    let (dir, rows) = census2();
    let mut far = 0;
    for r in rows {
        let first = r["code"].as_str().unwrap();
        let g = reference(first, 2000);
        for rel in r["relations"].as_array().unwrap() {
            let code = rel["code"].as_str().unwrap();
            let shift = rel["shift"].as_i64().unwrap();
            shifted::assert_shifted(code, &reference(code, 2000), first, &g, shift);
            far += usize::from(shift.abs() >= 2);
            let words = if shift >= 0 {
                format!("G_{code}(n) = G_{first}(n+{shift})")
            } else {
                format!("G_{first}(n) = G_{code}(n+{})", -shift)
            };
            let member = r["members"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m.as_str().unwrap().starts_with(&format!("{code} (")))
                .unwrap();
            assert!(
                member
                    .as_str()
                    .unwrap()
                    .contains(&words.replace("(n+0)", "(n)")),
                "{member} vs {words}"
            );
        }
    }
    // Some shift of two is composed from two links of one (`.13` is `.02`
    // shifted by 2 in the two-digit census, as `.137` is `.4` in the
    // three-digit one).
    assert!(far > 0);
    for name in ["census.md", "census.csv", "census.jsonl", "equivalences.md"] {
        let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(!text.contains("by a chain"), "{name}");
    }
}

#[test]
fn shifts_compose_in_the_right_direction() {
    // Dawson's chess .137 is .4 shifted by 2 (G_.137(n) = G_.4(n + 2));
    // .07 is .4 shifted by 1; .1 is .01 shifted by 1 and .001 is .01
    // shifted back by 1. The census links only shifts of 0 and 1.
    let codes = [".4", ".07", ".137", ".01", ".1", ".001"];
    let seqs: Vec<Vec<u32>> = codes.iter().map(|c| reference(c, 600)).collect();
    let values = |i: usize, most: usize| Ok::<_, ()>(seqs[i][..most.min(600)].to_vec());
    let eq = octal::census::equivalences(&[None; 6], &[600; 6], &values).unwrap();
    let shift = |i: usize| eq.relations[i].map(|r| r.shift);
    assert_eq!(eq.class_of[..3], [0, 0, 0]);
    assert_eq!((shift(1), shift(2)), (Some(1), Some(2)));
    assert_eq!(eq.class_of[3..], [3, 3, 3]);
    assert_eq!((shift(4), shift(5)), (Some(1), Some(-1)));
    // Each checked directly: agree as far as the values go.
    for i in [1, 2, 4, 5] {
        assert!(matches!(
            eq.relations[i].unwrap().outcome,
            octal::compare::Outcome::EqualTo { to } if to >= 598
        ));
    }
    // And by hand: .1 is 0, 1, 0, 0, …; .01 is 0, 0, 1, 0, …
    assert_eq!(seqs[4][..4], [0, 1, 0, 0]);
    assert_eq!(seqs[3][..4], [0, 0, 1, 0]);
}

/// A member of a periodic class that agrees with it to the probe goes on
/// until it proves its own period: the two are then equal for every n,
/// not only below the probe. With a probe of 64, `.42` and `.07` (which
/// is `.4` one heap on) agree with `.4`, proven periodic at 176 (period
/// 34, preperiod 54).
#[test]
fn periodic_class_members_prove_their_own_period() {
    let dir = tempfile::tempdir().unwrap();
    ok(octal()
        .args(["census", "--digits", "2", "--prefix", "0", "--to", "8192"])
        .args(["--probe", "64", "--quiet", "--out"])
        .arg(dir.path())
        .output()
        .unwrap());
    let rows = rows(&dir.path().join("census.jsonl"));
    let four = row(&rows, "0.4");
    assert_eq!(four["status"], "periodic", "{four}");
    for (code, shift) in [("0.42", 0), ("0.07", 1)] {
        let rel = four["relations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["code"] == code)
            .unwrap_or_else(|| panic!("{code} in 0.4's class: {four}"));
        assert_eq!(rel["for_every_n"], true, "{rel}");
        assert_eq!(rel["shift"], shift, "{rel}");
    }
    let eq = std::fs::read_to_string(dir.path().join("equivalences.md")).unwrap();
    assert!(eq.contains("`G_0.07(n) = G_0.4(n+1)` for every n"), "{eq}");
    assert!(!eq.contains("computed to"), "{eq}");
}

#[test]
fn open_class_members_are_checked_to_the_class_reach_or_say_how_far() {
    let (dir, rows) = census2();
    // By default every member of every open or stopped class goes on with
    // its class, 0.6's among them.
    let open: Vec<&Value> = rows.iter().filter(|r| r["status"] != "periodic").collect();
    assert!(open.iter().any(|r| r["code"] == "0.6"), "{open:?}");
    for class in open {
        let reach = class["reach"].as_u64().unwrap();
        for rel in class["relations"].as_array().unwrap() {
            if rel["for_every_n"] == true {
                continue;
            }
            let below = rel["checked_below"].as_u64().unwrap();
            assert!(
                below + 1 >= reach,
                "{rel}: checked below {below} of {reach}"
            );
            assert_eq!(rel["reach"].as_u64(), Some(reach), "{rel}");
        }
    }
    let md = std::fs::read_to_string(dir.path().join("census.md")).unwrap();
    assert!(
        !md.contains("--member-budget"),
        "no budget by default: {md}"
    );
    let eq = std::fs::read_to_string(dir.path().join("equivalences.md")).unwrap();
    assert!(eq.contains("`G_0.62(n) = G_0.6(n)` for n < 8192"), "{eq}");
    // 0.61 adds to 0.6 only taking all of a heap of 2: equal for every n,
    // so it is not run past the probe.
    let six = row(rows, "0.6");
    let of = |code: &str| {
        six["relations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["code"] == code)
            .unwrap_or_else(|| panic!("{code} in 0.6's class: {six}"))
            .clone()
    };
    assert_eq!(of("0.61")["for_every_n"], true);
    assert_eq!(of("0.61")["reach"], 1024);
    assert_eq!(of("0.62")["reach"], 8192);
    assert!(
        eq.contains(
            "`G_0.61(n) = G_0.6(n)` for every n: they differ only in taking all of a heap of at most 2"
        ),
        "{eq}"
    );
    // The list of links says it alike (0.6 and 0.61 are linked directly),
    // and 0.62, which may also leave one heap of 2, only as far as run.
    let links = &eq[eq.find("## Links").unwrap()..];
    assert!(
        links.contains(
            "`G_0.6(n) = G_0.61(n)`: for every n: they differ only in taking all of a heap of at most 2"
        ),
        "{links}"
    );
    assert!(
        links.contains("`G_0.6(n) = G_0.62(n)`: agree to 8192 (not proven beyond)"),
        "{links}"
    );
    // Without it they stop at the probe, and the table says so.
    let lean = tempfile::tempdir().unwrap();
    ok(octal()
        .args(["census", "--digits", "2", "--prefix", "0", "--to", "8192"])
        .args([
            "--probe",
            "1024",
            "--member-budget",
            "0",
            "--quiet",
            "--out",
        ])
        .arg(lean.path())
        .output()
        .unwrap());
    let eq = std::fs::read_to_string(lean.path().join("equivalences.md")).unwrap();
    assert!(
        eq.contains(
            "`G_0.62(n) = G_0.6(n)` for n < 1024 (computed to 1024; the class reached 8192)"
        ),
        "{eq}"
    );
}

#[test]
fn the_tables_are_fit_for_an_appendix() {
    let (dir, rows) = census2();
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    // Provenance: version, date and every option.
    let version = env!("CARGO_PKG_VERSION");
    let md = read("census.md");
    let csv = read("census.csv");
    for (name, text) in [
        ("census.md", &md),
        ("census.csv", &csv),
        ("equivalences.md", &read("equivalences.md")),
    ] {
        assert!(
            text.contains(&format!("octal {version} (commit ")),
            "{name}"
        );
        assert!(
            text.contains(
                "octal census --digits 2 --prefix 0,4 --to 8192 --probe 1024 --member-seconds 60"
            ),
            "{name}"
        );
    }
    assert!(csv.starts_with("# octal "), "a comment line first");
    let head: Value = serde_json::from_str(read("census.jsonl").lines().next().unwrap()).unwrap();
    assert_eq!(head["census"]["octal"], version);
    // Dawson's chess .137 has period 34 and last exception 51 (A002187);
    // .4 is .137 shifted by 2, so its last exception is 53 (preperiod 54).
    let four = row(rows, "0.4");
    assert_eq!(
        (
            four["period"].as_u64(),
            four["preperiod"].as_u64(),
            four["last_exception"].as_u64()
        ),
        (Some(34), Some(54), Some(53))
    );
    assert!(
        md.contains("| `0.4` | 3 | periodic | 34 | 54 | 53 |"),
        "{md}"
    );
    // A purely periodic class has no exception at all.
    let zero = row(rows, "0.0");
    assert_eq!(
        (zero["preperiod"].as_u64(), &zero["last_exception"]),
        (Some(0), &Value::Null)
    );
    assert!(
        md.contains("| `0.0` | 1 | periodic | 1 | 0 | none |"),
        "{md}"
    );
    // .1: G = 0, 1, 0, 0, … (preperiod 2, period 1): 0.10 with the period's
    // one value dotted.
    assert_eq!(row(rows, "0.1")["period_notation"], "0.10\u{307}");
    // The checksum of each class' values up to its reach.
    for r in rows.iter().filter(|r| r["reach"].as_u64().unwrap() <= 8192) {
        let code = r["code"].as_str().unwrap();
        let g = reference(code, r["reach"].as_u64().unwrap() as usize);
        let sum = octal::stats::Checksum::of(&g).hex();
        assert_eq!(r["checksum"], sum, "{code}");
        assert!(
            md.contains(&format!("checksum of G(0..{}): {sum}", g.len())),
            "{code}"
        );
    }
    // The mask in hex everywhere.
    let six = row(rows, "0.6");
    let hex = six["rare_mask"].as_str().unwrap();
    assert!(hex.starts_with("0x"));
    let line = csv.lines().find(|l| l.starts_with("0.6,")).unwrap();
    assert!(line.contains(&format!(",{hex},")), "{line}");
    assert!(md.contains(&format!("| {hex} |")));
    // Every class says where the literature stands, and every periodic
    // one how its certificate was checked.
    assert!(rows.iter().all(|r| r["literature"]["label"].is_string()));
    assert!(rows
        .iter()
        .filter(|r| r["status"] == "periodic")
        .all(|r| r["checked"]["method"].is_string()));
}

#[test]
fn every_section_of_the_equivalences_has_a_body_or_says_none() {
    // One digit, prefix 4: few classes, few links, perhaps no near miss.
    let dir = tempfile::tempdir().unwrap();
    ok(octal()
        .args(["census", "--digits", "1", "--prefix", "4", "--to", "4096"])
        .args(["--probe", "1024", "--quiet", "--out"])
        .arg(dir.path())
        .output()
        .unwrap());
    let eq = std::fs::read_to_string(dir.path().join("equivalences.md")).unwrap();
    let sections: Vec<&str> = eq.split("\n## ").skip(1).collect();
    // How agreement is proven, Classes, Links, Near misses.
    assert_eq!(sections.len(), 4, "{eq}");
    assert!(sections[0].starts_with("How agreement is proven"), "{eq}");
    for s in sections {
        let body: Vec<&str> = s
            .lines()
            .skip(1)
            .filter(|l| l.starts_with("- ") || *l == "none")
            .collect();
        assert!(!body.is_empty(), "section without a body: {s}");
        assert!(
            body == ["none"] || body.iter().all(|l| l.starts_with("- ")),
            "{s}"
        );
    }
    assert!(eq.contains("## Near misses"), "{eq}");
}

/// `compare --shift auto`, text or JSON.
fn auto(a: &str, b: &str, json: bool) -> String {
    let mut c = octal();
    c.args(["compare", a, b, "--shift", "auto", "--to", "20000"]);
    if json {
        c.arg("--json");
    }
    ok(c.output().unwrap())
}

#[test]
fn compare_finds_the_shift_that_holds() {
    // .137 is .4 shifted by 2, for every n (both proven periodic).
    let out = auto(".4", ".137", false);
    assert!(
        out.starts_with("G_0.137(n) = G_0.4(n+2) for every n"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 1, "{out}");
    let g4 = reference(".4", 300);
    let g137 = reference(".137", 300);
    assert_eq!(g137[..298], g4[2..]);
    // Either order, and .07 by one.
    assert!(auto(".137", ".4", false).starts_with("G_0.137(n) = G_0.4(n+2) for every n"));
    let v: Value = serde_json::from_str(&auto(".07", ".4", true)).unwrap();
    assert_eq!(v["holds"], serde_json::json!([1]));
    assert_eq!(
        (v["a"].as_str(), v["b"].as_str()),
        (Some("0.07"), Some("0.4"))
    );
    // .1 is .01 from heap 1 on: 0, 1, 0, … against 0, 0, 1, 0, ….
    assert!(auto(".01", ".1", false).starts_with("G_0.1(n) = G_0.01(n+1) for every n"));
    // Officers and .16 are no shift of each other.
    let none = auto(".6", ".16", false);
    assert!(
        none.starts_with("no shift from -2 to 2 holds between 0.6 and 0.16"),
        "{none}"
    );
    // Open games agree only as far as computed: .6 and .61 (G(2) = 1 in
    // both, the only heap where their moves differ).
    let open = auto(".6", ".61", false);
    assert!(
        open.starts_with("G_0.6(n) = G_0.61(n) for every n below 20000"),
        "{open}"
    );
    assert!(!open.contains("G_A") && !open.contains("G_B"));
    // A shift by hand still works, named by the codes.
    let k = ok(octal()
        .args(["compare", ".4", ".137", "--shift", "-2", "--to", "500"])
        .output()
        .unwrap());
    assert!(k.starts_with("G_0.137(n) = G_0.4(n+2)"), "{k}");
    let bad = octal()
        .args(["compare", ".4", ".137", "--shift", "sideways"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn equiv_looks_a_code_up_in_the_census() {
    // Any spelling; the shipped census: .07 is .4 shifted by one.
    for spelling in [".07", "0.07", "0.0700"] {
        let out = ok(octal().args(["equiv", spelling]).output().unwrap());
        assert!(
            out.starts_with("0.07 is in the class of 0.4 (periodic: period 34"),
            "{out}"
        );
        assert!(
            out.contains("* G_0.07(n) = G_0.4(n+1) for every n"),
            "{out}"
        );
    }
    let g4 = reference(".4", 300);
    assert_eq!(reference(".07", 300)[..299], g4[1..]);
    // Kayles (.77): its class lists the codes that are Kayles.
    let v: Value = serde_json::from_str(&ok(octal()
        .args(["equiv", ".77", "--json"])
        .output()
        .unwrap()))
    .unwrap();
    assert_eq!(v["class"], "0.77");
    let kayles = reference(".77", 400);
    for m in v["members"].as_array().unwrap() {
        let (code, shift) = (m["code"].as_str().unwrap(), m["shift"].as_i64());
        let Some(shift) = shift else { continue };
        shifted::assert_shifted(code, &reference(code, 400), "0.77", &kayles, shift);
    }
    // A census of one's own: the composed shift of two.
    let (dir, _) = census2();
    let mine = dir.path().join("census.jsonl");
    let out = ok(octal()
        .args(["equiv", ".13", "--census"])
        .arg(&mine)
        .output()
        .unwrap());
    assert!(
        out.contains("* G_0.13(n) = G_0.02(n+2) for every n"),
        "{out}"
    );
    assert_eq!(reference(".13", 300)[..298], reference(".02", 300)[2..]);
    // A code of four digits is answered from the four-digit census:
    // .1777 is .454 shifted by one (OEIS A071509: .454 has values a(n-1)).
    let out = ok(octal().args(["equiv", ".1777"]).output().unwrap());
    assert!(out.contains("codes of up to 4 digits"), "{out}");
    assert!(out.contains("* G_0.1777(n) = G_0.454(n+1)"), "{out}");
    assert_eq!(reference(".1777", 400)[..399], reference(".454", 400)[1..]);
    // Not in a census: exit 1; not a code: exit 2; one line each.
    for (code, exit) in [(".12345", 1), ("0.x", 2)] {
        let out = octal().args(["equiv", code]).output().unwrap();
        assert_eq!(out.status.code(), Some(exit), "{code}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

#[test]
fn a_census_collected_from_slurm_tasks_carries_the_rare_positions_too() {
    let dir = tempfile::tempdir().unwrap();
    let array = dir.path().join("array");
    let args = ["census", "--digits", "1", "--prefix", "0", "--to", "2^13"];
    ok(octal()
        .args(args)
        .args(["--probe", "2^8", "--quiet", "--slurm"])
        .arg(&array)
        .output()
        .unwrap());
    // One task a class still open at the probe: 0.6's alone.
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(array.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["members"][0]["code"], "0.6", "{manifest}");
    assert_eq!(manifest["members"].as_array().unwrap().len(), 1);
    ok(octal()
        .args(["family", "member", "--quiet", "--index", "0"])
        .arg(&array)
        .output()
        .unwrap());
    ok(octal()
        .args(args)
        .args(["--probe", "2^8", "--quiet", "--collect"])
        .arg(&array)
        .output()
        .unwrap());
    let rows = rows(&array.join("census.jsonl"));
    let six = row(&rows, "0.6");
    check_rare("collected 0.6", six, &reference(".6", 8192), ".6");
}
