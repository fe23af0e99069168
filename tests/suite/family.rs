//! `octal family`: members run, tables written, failures reported.

use crate::common::octal_assert as octal;

#[test]
fn cookie_cutter_family_writes_all_tables() {
    let dir = tempfile::tempdir().unwrap();
    let out = octal()
        .args([
            "family",
            "cookie-cutter",
            "--k",
            "1..3,5",
            "--to",
            "300",
            "--json",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ks: Vec<u64> = lines.iter().map(|l| l["k"].as_u64().unwrap()).collect();
    assert_eq!(ks, [1, 2, 3, 5]);
    for l in &lines {
        let k = l["k"].as_u64().unwrap();
        // Cookie Cutter on a strip is 0.33…37 with k−1 threes.
        let code = format!("0.{}7", "3".repeat(k as usize - 1));
        assert_eq!(l["code"], code.as_str());
        // By hand: with k odd no split ever helps, G(n) = n mod (k+1), so
        // the largest value is k.
        // Thesis Theorem 5.1.4 (checked, not assumed, by the period tests):
        // that is period k+1 from n = 0, proven long before 300 values.
        if k % 2 == 1 {
            assert_eq!(l["max_value"], k);
            assert_eq!(l["period"], k + 1, "{l}");
            assert_eq!(l["preperiod"], 0, "{l}");
            assert!(l["values"].as_u64().unwrap() < 300, "{l}");
        }
        assert!(l["values"].as_u64().unwrap() > 0);
    }
    let csv = std::fs::read_to_string(dir.path().join("family.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5);
    assert!(
        csv.starts_with("index,k,code,values,period,preperiod,max_value,rare_positions,seconds")
    );
    let md = std::fs::read_to_string(dir.path().join("family.md")).unwrap();
    assert!(md.contains("| 5 | 0.33337 |"), "{md}");
    let jsonl = std::fs::read_to_string(dir.path().join("family.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), 4);
}

#[test]
fn code_list_family_and_bad_lists() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("games.txt");
    std::fs::write(&list, "# two games\n.77\n0.333\n").unwrap();
    let out = octal()
        .args(["family", "codes", "--to", "200", "--json", "--file"])
        .arg(&list)
        .arg("--out")
        .arg(dir.path().join("t"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    // 0.333 is G(n) = n mod 4.
    assert_eq!(rows[1]["code"], "0.333");
    assert_eq!(rows[1]["max_value"], 3);

    std::fs::write(&list, ".77\n0.9x\n").unwrap();
    let out = octal()
        .args(["family", "codes", "--to", "200", "--file"])
        .arg(&list)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 2"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1);

    // One game in two spellings, read from standard input: it runs once,
    // and stderr says so; the rows are numbered.
    let out = octal()
        .args([
            "family", "codes", "--to", "200", "--json", "--file", "-", "--out",
        ])
        .arg(dir.path().join("s"))
        .write_stdin(".161\n0.161\n.36\n")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("line 2: 0.161 is 0.161 again (line 1)"),
        "{err}"
    );
    let rows: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        (&rows[0]["index"], &rows[0]["code"]),
        (&0.into(), &"0.161".into())
    );
    assert_eq!(
        (&rows[1]["index"], &rows[1]["code"]),
        (&1.into(), &"0.36".into())
    );

    let out = octal()
        .args(["family", "cookie-cutter", "--k", "0..3", "--to", "10"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn family_plots_one_picture_per_member_and_resumes_from_stores() {
    let dir = tempfile::tempdir().unwrap();
    let plots = dir.path().join("plots");
    let run = || {
        octal()
            .args([
                "family",
                "cookie-cutter",
                "--k",
                "2,3",
                "--to",
                "3000",
                "--json",
                "--out",
            ])
            .arg(dir.path())
            .arg("--plots")
            .arg(&plots)
            .output()
            .unwrap()
    };
    let first = run();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    for code in ["0.37", "0.337"] {
        let png = std::fs::read(plots.join(format!("{code}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{code}");
        assert!(dir
            .path()
            .join("stores")
            .join(format!("{code}.octal"))
            .exists());
    }
    // Run again: every member resumes from its finished store.
    let again = run();
    assert!(again.status.success());
    let rows = |o: &std::process::Output| -> Vec<(String, u64)> {
        String::from_utf8(o.stdout.clone())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .map(|r| {
                (
                    r["code"].as_str().unwrap().to_string(),
                    r["values"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(rows(&first), rows(&again));
}

#[test]
fn slurm_tasks_ask_for_what_members_use() {
    let dir = tempfile::tempdir().unwrap();
    let slurm = dir.path().join("cc");
    let out = octal()
        .args([
            "family",
            "cookie-cutter",
            "--k",
            "1..3",
            "--to",
            "1e6",
            "--threads",
            "2",
        ])
        .args(["--time", "2:00:00", "--mask", "none", "--slurm"])
        .arg(&slurm)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let script = std::fs::read_to_string(slurm.join("family.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --cpus-per-task=2\n"), "{script}");
    assert!(script.contains("#SBATCH --time=2:00:00\n"), "{script}");
    // 10^6 values at 2 bytes (2 MiB) plus 256 MiB.
    assert!(script.contains("#SBATCH --mem=258M\n"), "{script}");
    let manifest = std::fs::read_to_string(slurm.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"mask\": \"none\""), "{manifest}");
    // A member runs as the manifest says, and its row says how.
    let out = octal()
        .args(["family", "member"])
        .arg(&slurm)
        .args(["--index", "2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A mask with the reference engine is refused before anything runs.
    let out = octal()
        .args(["family", "cookie-cutter", "--k", "1..3", "--to", "100"])
        .args(["--engine", "reference", "--mask", "0x3", "--slurm"])
        .arg(dir.path().join("x"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.path().join("x").exists());
}
