//! `octal census` end to end: a one-digit census, every periodic entry
//! re-proven by the reference engine and the period detector, the classes
//! checked against sequences computed here, and a second run that reuses
//! the results.

use crate::common::shifted;

use octal::engine::Reference;
use octal::period::Detector;

use crate::common::octal;

fn census(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let out = octal()
        .args(["census", "--digits", "1", "--to", "2^14", "--probe", "2^10"])
        .args(["--member-seconds", "60", "--json", "--out"])
        .arg(dir)
        .output()
        .unwrap();
    json_lines(&out)
}

fn json_lines(out: &std::process::Output) -> Vec<serde_json::Value> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn reference(code: &str, n: usize) -> Vec<u32> {
    octal::compute(&mut Reference::new(&code.parse().unwrap()), n)
}

#[test]
fn a_one_digit_census_is_proven_grouped_and_resumable() {
    let dir = tempfile::tempdir().unwrap();
    let rows = census(dir.path());
    // 0.0 … 0.7 and 4.0 … 4.7: sixteen games.
    let codes: usize = rows
        .iter()
        .map(|r| r["spellings"].as_array().unwrap().len())
        .sum();
    assert_eq!(codes, 16);
    let mut periodic = 0;
    for r in &rows {
        let code = r["code"].as_str().unwrap();
        if r["status"] == "periodic" {
            periodic += 1;
            // The same proof from the reference engine's values.
            let at = r["proven_at"].as_u64().unwrap() as usize;
            let mut d = Detector::new(&code.parse().unwrap());
            d.feed(&reference(code, at.max(64)));
            let p = d.proven().unwrap_or_else(|| panic!("{code}: no proof"));
            assert_eq!(
                (p.period, p.preperiod),
                (
                    r["period"].as_u64().unwrap(),
                    r["preperiod"].as_u64().unwrap()
                ),
                "{code}"
            );
        }
        // Every member of a class has the class' values shifted as the
        // census says: G_other(n) = G_code(n + shift).
        let own = reference(code, 300);
        let relations = r["relations"].as_array().unwrap();
        assert_eq!(relations.len() + 1, r["members"].as_array().unwrap().len());
        for rel in relations {
            let other = rel["code"].as_str().unwrap();
            let shift = rel["shift"].as_i64().unwrap();
            shifted::assert_shifted(other, &reference(other, 300), code, &own, shift);
        }
    }
    // Officers (0.6) is the one famous open game among them; the grouping
    // found something to check.
    let six = rows
        .iter()
        .find(|r| r["code"] == "0.6")
        .expect("0.6 listed");
    assert_eq!(
        (&six["status"], six["reach"].as_u64()),
        (&serde_json::json!("open"), Some(1 << 14))
    );
    assert!(periodic >= 5, "{periodic} periodic classes");
    let grouped: usize = rows
        .iter()
        .map(|r| r["members"].as_array().unwrap().len() - 1)
        .sum();
    assert!(grouped >= 3, "{grouped} codes grouped with another");
    for name in ["census.csv", "census.md", "census.jsonl", "equivalences.md"] {
        assert!(dir.path().join(name).is_file(), "{name}");
    }
    // A second run reads the kept results and writes the same tables.
    let csv = std::fs::read_to_string(dir.path().join("census.csv")).unwrap();
    let again = census(dir.path());
    assert_eq!(again.len(), rows.len());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("census.csv")).unwrap(),
        csv
    );
}

/// A code stopped by the time cap keeps its result when the census runs
/// again with the same cap (each run would otherwise spend the cap once
/// more), and goes further when the cap is raised.
#[test]
fn a_stopped_code_is_run_again_only_with_a_new_cap() {
    let dir = tempfile::tempdir().unwrap();
    // Officers (0.6) cannot reach 2^26 values in a tenth of a second.
    let run = |seconds: &str| -> (Vec<serde_json::Value>, String) {
        let out = octal()
            .args(["census", "--digits", "1", "--prefix", "0", "--to", "2^26"])
            .args(["--probe", "2^12", "--member-seconds", seconds, "--json"])
            .arg("--out")
            .arg(dir.path())
            .output()
            .unwrap();
        let kept = dir.path().join("results").join("0.6.json");
        (json_lines(&out), std::fs::read_to_string(kept).unwrap())
    };
    let officers = |rows: &[serde_json::Value]| -> (u64, serde_json::Value) {
        let r = rows
            .iter()
            .find(|r| r["code"] == "0.6")
            .expect("0.6 listed");
        assert_eq!(r["status"], "stopped", "{r}");
        (r["reach"].as_u64().unwrap(), r["cap_seconds"].clone())
    };
    let (rows, file) = run("0.1");
    let (reach, cap) = officers(&rows);
    assert!((1 << 12..1 << 26).contains(&reach), "{reach}");
    assert_eq!(cap, serde_json::json!(0.1));
    let (rows, again) = run("0.1");
    assert_eq!(officers(&rows).0, reach);
    assert_eq!(again, file, "the kept result was made again");
    let (rows, _) = run("0.3");
    let (further, cap) = officers(&rows);
    assert!(further > reach, "{further} after {reach}");
    assert_eq!(cap, serde_json::json!(0.3));
}

/// Codes that differ only in taking all of a heap of j agree for every n
/// once they agree up to j: checked against the reference engine on every
/// such pair of two-digit codes, far past j.
#[test]
fn codes_that_differ_only_in_taking_all_agree_once_they_agree_up_to_it() {
    use octal::census::classes::take_all_difference;
    let code = |s: &str| -> octal::Code { s.parse().unwrap() };
    assert_eq!(take_all_difference(&code("0.6"), &code("0.61")), Some(2));
    assert_eq!(take_all_difference(&code("0.7"), &code("0.6")), Some(1));
    assert_eq!(take_all_difference(&code("0.137"), &code("0.136")), Some(3));
    assert_eq!(take_all_difference(&code("0.6"), &code("0.62")), None);
    assert_eq!(take_all_difference(&code("0.6"), &code("0.6")), None);
    assert_eq!(take_all_difference(&code("4.1"), &code("0.1")), None);
    let codes: Vec<String> = (0..64)
        .flat_map(|d| ["0", "4"].map(|p| format!("{p}.{}{}", d / 8, d % 8)))
        .collect();
    let values: Vec<Vec<u32>> = codes.iter().map(|c| reference(c, 3000)).collect();
    let mut proven = 0;
    for a in 0..codes.len() {
        for b in a + 1..codes.len() {
            let Some(j) = take_all_difference(&code(&codes[a]), &code(&codes[b])) else {
                continue;
            };
            if values[a][..=j] == values[b][..=j] {
                assert_eq!(values[a], values[b], "{} and {}", codes[a], codes[b]);
                proven += 1;
            }
        }
    }
    assert!(proven >= 20, "{proven} pairs");
}

/// A class whose period needs more values than --to goes further with
/// --further, and is proven there; the other classes stop at --to.
#[test]
fn further_takes_one_class_past_to_and_proves_it() {
    let run = |dir: &std::path::Path, extra: &[&str]| {
        let out = octal()
            .args(["census", "--digits", "1", "--to", "128", "--probe", "64"])
            .args(["--member-seconds", "60", "--json", "--out"])
            .arg(dir)
            .args(extra)
            .output()
            .unwrap();
        json_lines(&out)
    };
    let row = |rows: &[serde_json::Value], code: &str| {
        rows.iter()
            .find(|r| r["code"] == code)
            .unwrap_or_else(|| panic!("no row {code}"))
            .clone()
    };
    let dir = tempfile::tempdir().unwrap();
    // .4 has period 34 from n = 54 (Czajka's trivial games: prefix 54,
    // period 34): 128 values are too few to prove it.
    let rows = run(dir.path(), &[]);
    assert_eq!(row(&rows, "0.4")["status"], "open");
    let rows = run(dir.path(), &["--further", ".4=2^10"]);
    let r = row(&rows, "0.4");
    assert_eq!(r["status"], "periodic", "{r}");
    assert_eq!(
        (r["period"].as_u64(), r["preperiod"].as_u64()),
        (Some(34), Some(54))
    );
    // Checked against the reference engine: G(n + 34) = G(n) from 54 on.
    let g = reference("0.4", 400);
    assert!((54..366).all(|n| g[n] == g[n + 34]));
    assert!(g[53] != g[87]);
    // Classes not named stop at --to.
    assert!(rows
        .iter()
        .filter(|r| r["code"] != "0.4")
        .all(|r| r["reach"].as_u64().unwrap() <= 128 || r["status"] == "periodic"));
    let tables = std::fs::read_to_string(dir.path().join("census.md")).unwrap();
    assert!(tables.contains("--further .4=2^10"), "{tables}");
    // What --further cannot take is bad input.
    for bad in [".4", ".4=100", ".123=2^10", "x=2^10"] {
        let out = octal()
            .args([
                "census", "--digits", "1", "--to", "128", "--probe", "64", "--quiet", "--out",
            ])
            .arg(dir.path())
            .args(["--further", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--further"), "{bad}: {err}");
    }
}

#[test]
fn bad_census_arguments_are_bad_input() {
    for args in [
        &["census", "--digits", "9"][..],
        &["census", "--prefix", "3"],
        &["census", "--member-seconds", "0"],
        &["census", "--to", "0"],
    ] {
        let out = octal().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

/// The committed three-digit census against published periods (OEIS
/// entries citing Winning Ways and Gangolli and Plambeck; a preperiod is
/// the last exception plus one) and T. Czajka's .36/.161 difference.
#[test]
fn the_committed_census_agrees_with_published_periods() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/census/digits-3-2^25");
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("census.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        // The first line of a census of this version is its provenance.
        .filter(|r| r.get("code").is_some())
        .collect();
    // (period, preperiod) of `code`, through its class' first code.
    let find = |code: &str| -> (u64, u64) {
        for r in &rows {
            let (p, s) = (r["period"].as_u64(), r["preperiod"].as_u64());
            let rep = r["code"].as_str().unwrap();
            // G_code(n) = G_rep(n + shift): its preperiod is the class'
            // less the shift.
            let shift = |rel: &serde_json::Value| rel["shift"].as_i64().unwrap();
            if let Some(rel) = r.get("relations").and_then(|x| x.as_array()) {
                let (p, s) = (p.unwrap_or(0), s.unwrap_or(0));
                if rep == code {
                    return (p, s);
                }
                if let Some(rel) = rel.iter().find(|x| x["code"] == code) {
                    return (p, (s as i64 - shift(rel)).max(0) as u64);
                }
                continue;
            }
            for m in r["members"].as_array().unwrap() {
                let m = m.as_str().unwrap();
                if m.split(' ').next() != Some(code) {
                    continue;
                }
                let (p, s) = (p.expect("periodic"), s.expect("periodic"));
                return if m == code || m.ends_with("(=)") {
                    (p, s)
                } else if m.ends_with(&format!("(G(n) = G_{rep}(n+1))")) {
                    (p, s.saturating_sub(1))
                } else if m.ends_with(&format!("(G(n+1) = G_{rep}(n))")) {
                    (p, s + 1)
                } else {
                    panic!("{code}: relation {m:?} not understood")
                };
            }
        }
        panic!("{code} not in the census")
    };
    assert_eq!(find("0.127"), (4, 46_578));
    assert_eq!(find("0.141"), (11, 14));
    assert_eq!(find("0.115"), (14, 1));
    assert_eq!(find("0.117"), (48, 47));
    assert_eq!(find("0.051").0, 48);
    assert_eq!(find("0.177"), (20, 497));
    assert_eq!(find("0.45").1, 498);
    let eq = std::fs::read_to_string(dir.join("equivalences.md")).unwrap();
    assert!(eq.contains("`0.36` and `0.161` (shift 0): first differ at n = 519"));
}

/// A census as a Slurm job array: every game probed here and grouped, one
/// task a class still open, its tasks run as Slurm would run them, and
/// collected into the same table as a local census whose members stop at
/// the probe.
#[test]
fn a_census_runs_as_a_slurm_array_of_its_open_classes_and_collects_into_the_same_table() {
    let dir = tempfile::tempdir().unwrap();
    let (local, array) = (dir.path().join("local"), dir.path().join("array"));
    let args = ["census", "--digits", "2", "--to", "8192", "--probe", "1024"];
    let prepared = octal()
        .args(args)
        .arg("--slurm")
        .arg(&array)
        .output()
        .unwrap();
    assert!(
        prepared.status.success(),
        "{}",
        String::from_utf8_lossy(&prepared.stderr)
    );
    assert!(array.join("family.sbatch").is_file());
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(array.join("manifest.json")).unwrap()).unwrap();
    let tasks: Vec<String> = manifest["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["code"].as_str().unwrap().to_string())
        .collect();
    for i in 0..tasks.len() {
        let task = octal()
            .args(["family", "member", "--quiet", "--index", &i.to_string()])
            .arg(&array)
            .output()
            .unwrap();
        assert!(
            task.status.success(),
            "task {i}: {}",
            String::from_utf8_lossy(&task.stderr)
        );
    }
    let collected = json_lines(
        &octal()
            .args(args)
            .args(["--json", "--collect"])
            .arg(&array)
            .output()
            .unwrap(),
    );
    let here = json_lines(
        &octal()
            .args(args)
            .args(["--member-budget", "0", "--json", "--out"])
            .arg(&local)
            .output()
            .unwrap(),
    );
    // One task a class still open after the probe (open at the end, or
    // proven only past the probe): its first code.
    let mut open: Vec<String> = here
        .iter()
        .filter(|r| r["status"] != "periodic" || r["proven_at"].as_u64().unwrap() > 1024)
        .map(|r| r["code"].as_str().unwrap().to_string())
        .collect();
    let mut asked = tasks.clone();
    open.sort();
    asked.sort();
    assert_eq!(asked, open);
    assert!(tasks.contains(&"0.6".to_string()), "{tasks:?}");
    let facts = |rows: &[serde_json::Value]| -> Vec<(String, String, String, String, String)> {
        rows.iter()
            .map(|r| {
                let f = |k: &str| r[k].to_string();
                (
                    f("code"),
                    f("status"),
                    f("period"),
                    f("reach"),
                    f("members"),
                )
            })
            .collect()
    };
    assert_eq!(facts(&collected), facts(&here));
    // A task that never ran (no result, no store): exit 3, and its class
    // is listed as stopped at the probe.
    std::fs::remove_file(array.join("results").join("3.json")).unwrap();
    std::fs::remove_file(octal::slurm::store_path(&array, 3)).unwrap();
    let out = octal()
        .args(args)
        .arg("--collect")
        .arg(&array)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let csv = std::fs::read_to_string(array.join("census.csv")).unwrap();
    let row = csv
        .lines()
        .find(|l| l.starts_with(&format!("{},", tasks[3])))
        .unwrap();
    assert!(row.contains("unfinished Slurm task"), "{row}");
    assert!(row.contains(",1024,"), "the probe's reach: {row}");
}
