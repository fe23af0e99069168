//! `octal certify`: certificates of proven periods, their independent
//! check, tampering, the Python checker and a census' certificates.
//!
//! Expected periods come from the issue's independent re-derivation (a
//! naive solver and ogsolve: `4.344`, `4.364`, `4.064`, `4.406`) and the
//! seeds' tables (Kayles, Dawson's Chess); expected values from the
//! reference engine.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use octal::certificate::naive;
use octal::engine::Reference;
use octal::period::Bound;
use sha2::{Digest, Sha256};

fn octal_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_octal"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("octal runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn cert_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("certificate written")).expect("JSON")
}

/// Makes `CODE.cert.json` in `dir`; returns its path.
fn make(dir: &Path, code: &str) -> PathBuf {
    let o = octal_in(dir, &["certify", code]);
    assert!(o.status.success(), "certify {code}: {}", text(&o.stderr));
    let path = dir.join(format!("{code}.cert.json"));
    assert!(path.exists(), "{} written", path.display());
    path
}

/// `certify --check`: (exit code, stdout, stderr).
fn check(dir: &Path, cert: &Path, more: &[&str]) -> (i32, String, String) {
    let mut args = vec!["certify", "--check", cert.to_str().unwrap()];
    args.extend_from_slice(more);
    let o = octal_in(dir, &args);
    (
        o.status.code().unwrap_or(-1),
        text(&o.stdout),
        text(&o.stderr),
    )
}

/// Asserts that a check fails with exit 1 and one line naming `why`.
fn fails_with(dir: &Path, cert: &Path, why: &str) {
    let (code, out, err) = check(dir, cert, &[]);
    assert_eq!(code, 1, "{why}: exit 1 expected; stdout {out} stderr {err}");
    assert_eq!(out.lines().count(), 1, "one line: {out}");
    assert!(out.contains(why), "{why:?} in {out:?}");
}

/// The last heap of Guy and Smith's bound for a game whose largest split
/// removes t (and whose other moves add no term): 2i + 2p + t, i = s − 1.
fn guy_smith(p: u64, s: u64, t: u64) -> u64 {
    2 * (s - 1) + 2 * p + t
}

fn made_and_checked(dir: &Path, code: &str, p: u64, s: u64, t: u64) {
    let path = make(dir, code);
    let c = cert_json(&path);
    let claim = &c["claim"];
    assert_eq!(claim["period"], p, "{code}");
    assert_eq!(claim["preperiod"], s, "{code}");
    assert_eq!(claim["t"], t, "{code}");
    assert_eq!(claim["n"], guy_smith(p, s, t), "{code}");
    assert_eq!(c["values"]["sha256"].as_str().unwrap().len(), 64);
    for k in ["octal", "commit", "engine", "isa", "date"] {
        assert!(c["made_by"][k].is_string(), "made_by.{k}");
    }
    let (status, out, err) = check(dir, &path, &[]);
    assert_eq!(status, 0, "{code}: {out}{err}");
    assert!(out.starts_with("ok ") && out.lines().count() == 1, "{out}");
    assert!(
        err.contains(&format!("N = {}", guy_smith(p, s, t))) && err.contains("pair operations"),
        "the cost is stated first: {err}"
    );
}

#[test]
fn the_new_results_are_certified_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    // Largest split: 4 in the third digit of 4.344 and 4.364 (t = 3),
    // 4 in the third digit of 4.064 (t = 3).
    made_and_checked(dir.path(), "4.344", 51, 998, 3);
    made_and_checked(dir.path(), "4.364", 62, 11_687, 3);
    let start = Instant::now();
    made_and_checked(dir.path(), "4.064", 16_132, 94_272, 3);
    eprintln!(
        "4.064 made and checked in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}

/// Minutes: `scripts/check-new-results.sh` runs it with the Python checker.
#[test]
#[ignore]
fn four_oh_six_is_certified_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    made_and_checked(dir.path(), "4.406", 44, 294_097, 3);
}

#[test]
fn the_seeds_games_are_certified_with_their_published_periods() {
    let dir = tempfile::tempdir().unwrap();
    for (table, code) in [("kayles", ".77"), ("dawsons-chess", ".137")] {
        let t = common::load(table);
        let Some(common::LastIrregular::At(last)) = t.last_irregular else {
            panic!("{table} states its last irregular value")
        };
        let o = octal_in(dir.path(), &["certify", code, "-o", "c.json"]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let c = cert_json(&dir.path().join("c.json"));
        assert_eq!(c["claim"]["code"], code);
        assert_eq!(c["claim"]["canonical"], t.code);
        assert_eq!(c["claim"]["period"], t.period.unwrap() as u64, "{table}");
        assert_eq!(c["claim"]["preperiod"], last as u64 + 1, "{table}");
        let (status, out, _) = check(dir.path(), &dir.path().join("c.json"), &[]);
        assert_eq!(status, 0, "{out}");
        // The checker's own values are the seeds'.
        let g = naive::values(&naive::parse(code).unwrap(), t.end() - 1, &mut |_| {});
        assert_eq!(g[t.from..], t.expected()[..], "{table}");
    }
}

/// Writes `cert` (edited by `edit`) to `name` in `dir`.
fn edited(
    dir: &Path,
    cert: &Path,
    name: &str,
    edit: impl FnOnce(&mut serde_json::Value),
) -> PathBuf {
    let mut c = cert_json(cert);
    edit(&mut c);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(&c).unwrap()).unwrap();
    path
}

#[test]
fn a_tampered_certificate_fails_with_one_line_saying_why() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let good = make(dir, "4.344");
    let hash = cert_json(&good)["values"]["sha256"]
        .as_str()
        .unwrap()
        .to_string();
    let flipped = {
        let mut h = hash.clone().into_bytes();
        h[17] = if h[17] == b'0' { b'1' } else { b'0' };
        String::from_utf8(h).unwrap()
    };
    type Edit = Box<dyn FnOnce(&mut serde_json::Value)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "hash",
            Box::new(move |c| c["values"]["sha256"] = flipped.into()),
            "hash mismatch",
        ),
        (
            "period",
            Box::new(|c| c["claim"]["period"] = 52.into()),
            "claim inconsistent",
        ),
        (
            "preperiod",
            Box::new(|c| c["claim"]["preperiod"] = 997.into()),
            "claim inconsistent",
        ),
        (
            "n",
            Box::new(|c| c["claim"]["n"] = 2100.into()),
            "claim inconsistent",
        ),
        (
            "t",
            Box::new(|c| c["claim"]["t"] = 2.into()),
            "claim inconsistent",
        ),
        (
            "code",
            Box::new(|c| c["claim"]["code"] = "4.345".into()),
            "claim inconsistent",
        ),
        // The same bound (t = 3), another game: its values differ.
        (
            "game",
            Box::new(|c| {
                c["claim"]["code"] = "4.345".into();
                c["claim"]["canonical"] = "4.345".into();
            }),
            "hash mismatch",
        ),
        (
            "width",
            Box::new(|c| c["values"]["width"] = 4.into()),
            "width mismatch",
        ),
        (
            "hex code",
            Box::new(|c| c["claim"]["code"] = "4.34A".into()),
            "octal digits",
        ),
    ];
    for (what, edit, why) in cases {
        let path = edited(dir, &good, &format!("{what}.json"), edit);
        fails_with(dir, &path, why);
    }
    // The file itself is still good.
    assert_eq!(check(dir, &good, &[]).0, 0);
}

#[test]
fn unreadable_foreign_and_missing_files_are_bad_input() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let good = make(dir, "4.344");
    std::fs::write(dir.join("garbage.json"), b"\x00\x01 not json").unwrap();
    std::fs::write(
        dir.join("foreign.json"),
        br#"{"format": "something-else", "version": 1}"#,
    )
    .unwrap();
    edited(dir, &good, "newer.json", |c| c["version"] = 2.into());
    edited(dir, &good, "missing.json", |c| {
        c["claim"].as_object_mut().unwrap().remove("n");
    });
    for (name, why) in [
        ("garbage.json", "bad JSON"),
        ("foreign.json", "unknown format"),
        ("newer.json", "unknown version 2"),
        ("missing.json", "missing field"),
        ("absent.json", "No such file"),
    ] {
        let (status, out, err) = check(dir, &dir.join(name), &[]);
        assert_eq!(status, 2, "{name}: {out}{err}");
        assert_eq!(err.lines().count(), 1, "{name}: one line: {err}");
        assert!(err.contains(why), "{name}: {why:?} in {err:?}");
    }
}

#[test]
fn a_check_beyond_reach_is_refused_before_any_work() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let good = make(dir, "0.77");
    // Kayles (t = 2): N = 2s + 2p for p = 12, s = 10^7 − 12.
    let far = edited(dir, &good, "far.json", |c| {
        c["claim"]["preperiod"] = (10_000_000u64 - 12).into();
        c["claim"]["n"] = 20_000_000u64.into();
    });
    let start = Instant::now();
    let (status, out, err) = check(dir, &far, &[]);
    assert_eq!(status, 2, "{out}{err}");
    assert!(start.elapsed().as_secs_f64() < 5.0, "refused at once");
    assert!(
        err.contains("N = 20000000") && err.contains("--max-minutes"),
        "{err}"
    );
    // A budget of nothing refuses even Kayles' own certificate.
    let (status, _, err) = check(dir, &good, &["--max-minutes", "0"]);
    assert_eq!(status, 2, "{err}");
}

/// A certificate of `code` claiming period `p` and preperiod `s` with the
/// right N and the true hash of G(0..=N) (reference engine), so that only
/// the leastness checks can fail it.
fn forged(dir: &Path, code: &str, p: u64, s: u64) -> PathBuf {
    let parsed: octal::Code = code.parse().unwrap();
    let n = Bound::of(&parsed).unwrap().needed(p, s) - 1;
    let g = octal::compute(&mut Reference::new(&parsed), n as usize + 1);
    let bytes: Vec<u8> = g.iter().flat_map(|&v| (v as u16).to_le_bytes()).collect();
    let hash: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let t = parsed.rules().take_split.iter().max().copied();
    let c = serde_json::json!({
        "format": "octal-certificate",
        "version": 1,
        "claim": {"code": code, "canonical": code, "period": p, "preperiod": s, "t": t, "n": n},
        "values": {"sha256": hash, "width": 2},
        "made_by": {"octal": "test", "commit": "test", "engine": "reference", "isa": "none", "date": "2026-01-01T00:00:00Z"},
    });
    let path = dir.join(format!("{code}-{p}-{s}.json"));
    std::fs::write(&path, c.to_string()).unwrap();
    path
}

#[test]
fn wrong_periods_and_preperiods_are_named() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // Kayles: period 12 from 71 on (the seeds' table).
    assert_eq!(check(dir, &forged(dir, "0.77", 12, 71), &[]).0, 0);
    fails_with(
        dir,
        &forged(dir, "0.77", 24, 71),
        "p not least: 12 divides 24",
    );
    fails_with(dir, &forged(dir, "0.77", 36, 71), "p not least");
    fails_with(dir, &forged(dir, "0.77", 12, 72), "i not least");
    fails_with(dir, &forged(dir, "0.77", 12, 70), "period fails: G(70)");
    fails_with(dir, &forged(dir, "0.77", 11, 71), "period fails");
    // Dawson's Chess: 34 from 52 on; 68 is a multiple.
    fails_with(
        dir,
        &forged(dir, "0.137", 68, 52),
        "p not least: 34 divides 68",
    );
}

/// Codes `P.d1..dk` for k digits (every `every`-th one).
fn codes(prefix: u8, k: u32, every: usize) -> Vec<String> {
    (0..8usize.pow(k))
        .step_by(every)
        .map(|i| {
            let ds: String = (0..k)
                .rev()
                .map(|j| char::from(b'0' + ((i >> (3 * j)) & 7) as u8))
                .collect();
            format!("{prefix}.{ds}")
        })
        .collect()
}

#[test]
fn the_naive_checker_agrees_with_the_reference_engine() {
    let mut compared = 0;
    for prefix in [0, 4] {
        let all: Vec<String> = [
            codes(prefix, 1, 1),
            codes(prefix, 2, 1),
            codes(prefix, 3, 7),
        ]
        .concat();
        for code in all {
            let n = 3000;
            let parsed: octal::Code = code.parse().unwrap();
            let moves = naive::parse(&code).unwrap();
            let want = octal::compute(&mut Reference::new(&parsed), n);
            let got = naive::values(&moves, n - 1, &mut |_| {});
            assert_eq!(got, want, "{code}");
            assert_eq!(moves.canonical(), parsed.to_string(), "{code}");
            // The checker's bound is the project's, N = needed − 1.
            if let Some(b) = Bound::of(&parsed) {
                for (p, s) in [(1, 0), (2, 1), (12, 71), (34, 52), (5, 0), (3, 1000)] {
                    assert_eq!(
                        moves.last_heap(p, s),
                        Some(b.needed(p, s) - 1),
                        "{code} p {p} s {s}"
                    );
                }
            }
            compared += 1;
        }
    }
    assert!(compared > 250, "{compared} codes compared");
}

#[test]
fn the_naive_checker_reads_octal_codes_only() {
    for (code, why) in [
        ("0.1F", "'F' after the point"),
        ("0.18", "'8' after the point"),
        ("4.0u", "'u' after the point"),
        ("8.1", "\"8\" before the point"),
        ("137", "no point"),
    ] {
        let e = naive::parse(code).unwrap_err().to_string();
        assert!(e.contains(why), "{code}: {e}");
    }
    assert_eq!(naive::parse(".1370").unwrap().canonical(), "0.137");
    assert_eq!(naive::parse("4.").unwrap().canonical(), "4.0");
}

fn python() -> Option<PathBuf> {
    let venv = match std::env::var_os("OCTAL_PYTHON_VENV") {
        Some(v) => PathBuf::from(v),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("target/python-venv"),
    };
    let python = venv.join("bin/python");
    let ready = Command::new(&python)
        .args(["-c", "import numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    ready.then_some(python)
}

#[test]
fn the_python_checker_agrees() {
    let Some(python) = python() else {
        eprintln!(
            "skipped: no Python with numpy at target/python-venv; run scripts/install-python.sh"
        );
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check-certificate.py");
    let good = [make(dir, "4.344"), make(dir, "4.364")];
    let o = Command::new(&python)
        .arg(&script)
        .args(&good)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    assert_eq!(
        text(&o.stdout)
            .lines()
            .filter(|l| l.starts_with("ok "))
            .count(),
        2
    );
    // What the Rust checker refuses, the script refuses.
    let bad = [
        edited(dir, &good[0], "period.json", |c| {
            c["claim"]["period"] = 52.into()
        }),
        forged(dir, "0.77", 24, 71),
        forged(dir, "0.77", 12, 72),
        forged(dir, "0.77", 12, 70),
        edited(dir, &good[0], "game.json", |c| {
            c["claim"]["code"] = "4.345".into();
        }),
    ];
    for (path, why) in bad.iter().zip([
        "claim inconsistent",
        "p not least",
        "i not least",
        "period fails",
        "hash mismatch",
    ]) {
        let o = Command::new(&python)
            .arg(&script)
            .arg(path)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{}", path.display());
        assert!(
            text(&o.stdout).contains(why),
            "{why:?} in {}",
            text(&o.stdout)
        );
    }
}

#[test]
fn a_census_gets_a_certificate_per_periodic_class() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let o = octal_in(
        dir,
        &[
            "census", "--digits", "1", "--to", "2^12", "--out", "cen", "--quiet",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = octal_in(dir, &["certify", "--census", "cen", "--quiet"]);
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("cen/census.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &serde_json::Value| r["status"] == "periodic")
        .collect();
    let checks: Vec<serde_json::Value> =
        std::fs::read_to_string(dir.join("cen/certificates/checks.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    assert!(rows.len() >= 5, "a one-digit census has periodic classes");
    assert_eq!(checks.len(), rows.len());
    for (row, chk) in rows.iter().zip(&checks) {
        let code = row["code"].as_str().unwrap();
        assert_eq!(chk["code"], code);
        let c = cert_json(&dir.join(format!("cen/certificates/{code}.cert.json")));
        assert_eq!(c["claim"]["period"], row["period"], "{code}");
        assert_eq!(c["claim"]["preperiod"], row["preperiod"], "{code}");
        assert_eq!(chk["n"], c["claim"]["n"], "{code}");
        assert_eq!(chk["method"], "independent", "{code}");
        assert_eq!(chk["ok"], true, "{code}");
        assert!(
            chk["reason"].is_null() && chk["seconds"].is_number(),
            "{chk}"
        );
    }
    // With no budget every class is left to the engine, and says why.
    let o = octal_in(
        dir,
        &[
            "certify",
            "--census",
            "cen",
            "--quiet",
            "--max-minutes",
            "0",
        ],
    );
    assert!(o.status.success());
    let checks = std::fs::read_to_string(dir.join("cen/certificates/checks.jsonl")).unwrap();
    for line in checks.lines() {
        let chk: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(chk["method"], "engine-only", "{chk}");
        assert!(chk["reason"].as_str().unwrap().contains("budget"), "{chk}");
    }
}

/// The census itself certifies its periodic classes and says in its
/// tables how each was checked and where the literature stands: `.4`
/// is Dawson's chess shifted by two (the OEIS entry A002187 says so, and
/// Czajka's trivial games list its period 34 and preperiod 54).
#[test]
fn the_census_tables_say_how_each_class_was_checked_and_what_the_literature_says() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let census = |out: &str, minutes: &str| {
        let o = octal_in(
            dir,
            &[
                "census",
                "--digits",
                "1",
                "--to",
                "2^12",
                "--out",
                out,
                "--quiet",
                "--check-minutes",
                minutes,
            ],
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        let rows: Vec<serde_json::Value> =
            std::fs::read_to_string(dir.join(out).join("census.jsonl"))
                .unwrap()
                .lines()
                .skip(1)
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
        let md = std::fs::read_to_string(dir.join(out).join("census.md")).unwrap();
        (rows, md)
    };
    let (rows, md) = census("cen", "10");
    let periodic: Vec<&serde_json::Value> =
        rows.iter().filter(|r| r["status"] == "periodic").collect();
    assert!(periodic.len() >= 5);
    for row in &periodic {
        let code = row["code"].as_str().unwrap();
        let c = cert_json(&dir.join(format!("cen/certificates/{code}.cert.json")));
        assert_eq!(c["claim"]["period"], row["period"], "{code}");
        assert_eq!(row["checked"]["method"], "independent", "{row}");
        assert_eq!(row["checked"]["n"], c["claim"]["n"], "{code}");
        let n = c["claim"]["n"].as_u64().unwrap();
        assert!(md.contains(&format!("independent to {n}")), "{code}");
    }
    let four = rows.iter().find(|r| r["code"] == "0.4").unwrap();
    assert_eq!(four["period"], 34);
    assert_eq!(four["literature"]["label"], "agrees", "{four}");
    assert!(four["literature"]["text"]
        .as_str()
        .unwrap()
        .contains("A002187"));
    assert!(rows.iter().all(|r| r["literature"]["label"] != "disagrees"));
    // Made again with no budget, the census keeps its independent checks.
    let (again, _) = census("cen", "0");
    for row in again.iter().filter(|r| r["status"] == "periodic") {
        assert_eq!(row["checked"]["method"], "independent", "{row}");
    }
    // A new census with no budget leaves every class to the engine.
    let (fresh, md) = census("cen0", "0");
    for row in fresh.iter().filter(|r| r["status"] == "periodic") {
        assert_eq!(row["checked"]["method"], "engine-only", "{row}");
    }
    assert!(md.contains("engine only (N = "));
}
