//! Fault injection through the `octal` binary (issue #19): spliced and
//! damaged stores and sequence files, lost header slots, unsafe export
//! targets, very long codes, a full and a closed stdout for every
//! subcommand, missing and wrong paths, malformed arguments. Expected
//! values come from the reference engine in memory or from the game's
//! rules (0.333: G(n) = n mod 4), never from the store under test.
//!
//! Each category prints `faults: CATEGORY: tried T, passed P` (run with
//! `--nocapture` to see them); docs/store.md records the counts.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::faults as kit;
use kit::*;

fn values_of(file: &Path) -> Result<Vec<u32>, String> {
    let out = run(&["values", p(file)]);
    if !out.status.success() {
        return Err(text(&out.stderr));
    }
    Ok(text(&out.stdout)
        .lines()
        .map(|l| l.parse().unwrap())
        .collect())
}

fn make_store(dir: &Path, name: &str, code: &str, to: u64) -> PathBuf {
    let path = dir.join(name);
    let out = run(&[
        "run",
        code,
        "--to",
        &to.to_string(),
        "--store",
        p(&path),
        "--keep-going",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    path
}

fn read_at(path: &Path, at: u64, n: usize) -> Vec<u8> {
    let f = std::fs::File::open(path).unwrap();
    let mut b = vec![0u8; n];
    f.read_exact_at(&mut b, at).unwrap();
    b
}

fn write_at(path: &Path, at: u64, bytes: &[u8]) {
    let f = OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(bytes, at).unwrap();
}

fn u64_at(path: &Path, at: u64) -> u64 {
    u64::from_le_bytes(read_at(path, at, 8).try_into().unwrap())
}

const SLOT: u64 = octal::store::DEFAULT_SLOT_SIZE;

/// Offset of header slot `k` in a store with a one-page superblock.
fn slot_at(k: u64) -> u64 {
    4096 + k * SLOT
}

/// Splicing any region of one store into another of another code is
/// refused by every reader, never read as the other game's values.
#[test]
fn spliced_stores_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tally::new("splice");
    let a = make_store(dir.path(), "a.octal", "0.333337", 5000);
    let b = make_store(dir.path(), "b.octal", "0.6", 5000);
    let want_b = reference("0.6", 5000);
    assert_eq!(values_of(&b).unwrap(), want_b);
    let data = octal::store::Store::open(&b, false).unwrap().data_offset();
    // (region name, offset, length)
    let regions = [
        ("superblock", 0, 4096),
        ("slot 0", slot_at(0), 4096),
        ("slot 1", slot_at(1), 4096),
        ("both slots", slot_at(0), 2 * SLOT as usize),
        ("values", data, 10_000),
    ];
    for (name, at, len) in regions {
        let mixed = dir
            .path()
            .join(format!("mixed-{}.octal", name.replace(' ', "-")));
        std::fs::copy(&b, &mixed).unwrap();
        write_at(&mixed, at, &read_at(&a, at, len));
        for cmd in ["verify", "values", "resume", "export"] {
            let mut args = vec![cmd, p(&mixed)];
            let out_path = dir.path().join(format!("{name}-{cmd}.oseq"));
            if cmd == "export" {
                args.extend(["-o", p(&out_path)]);
            }
            if cmd == "resume" {
                args.extend(["--to", "6000", "--quiet"]);
            }
            let out = run(&args);
            // Refused or reported (a non-zero exit, one line of error or
            // a report), or, if it goes on (falling back to the other
            // slot, with a warning), only with the true values of 0.6.
            let stdout = text(&out.stdout);
            let err = text(&out.stderr);
            let printed: Vec<u32> = if cmd == "values" {
                stdout.lines().filter_map(|l| l.parse().ok()).collect()
            } else {
                Vec::new()
            };
            let refused = !out.status.success() && !err.contains("panicked") && printed.is_empty();
            let honest = out.status.success()
                && cmd != "verify"
                && want_b.starts_with(&printed)
                && values_of(&mixed).is_ok_and(|v| want_b.starts_with(&v[..v.len().min(5000)]))
                && (cmd != "resume" || err.contains("warning"));
            t.check(refused || honest, || {
                format!(
                    "{name} / {cmd}: exit {:?}: {stdout}{err}",
                    out.status.code(),
                )
            });
        }
    }
    // Splicing an export file's regions between two exports.
    let ea = dir.path().join("a.oseq");
    let eb = dir.path().join("b.oseq");
    for (s, e) in [(&a, &ea), (&b, &eb)] {
        let out = run(&["export", p(s), "-o", p(e), "--frame-values", "1000"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let la = std::fs::metadata(&ea).unwrap().len();
    let lb = std::fs::metadata(&eb).unwrap().len();
    for (name, from, to) in [
        ("head", 0, 64),
        ("middle", la.min(lb) / 2 - 32, la.min(lb) / 2 + 32),
    ] {
        let mixed = dir.path().join(format!("mixed-{name}.oseq"));
        std::fs::copy(&eb, &mixed).unwrap();
        write_at(&mixed, from, &read_at(&ea, from, (to - from) as usize));
        let v = run(&["verify", p(&mixed)]);
        let vals = values_of(&mixed);
        t.check(
            v.status.code() != Some(0) && vals.as_ref().map_or(true, |v| v == &want_b),
            || format!("oseq {name}: verify {:?}, values {vals:?}", v.status.code()),
        );
    }
    t.done();
}

/// Zeroing or damaging the newest header slot: `verify` names it on its
/// own line and exits 3; `resume` says on stderr which checkpoint it
/// continues from.
#[test]
fn a_lost_newest_slot_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tally::new("lost slot");
    let path = make_store(dir.path(), "s.octal", "0.333", 1000);
    let out = run(&[
        "resume",
        p(&path),
        "--to",
        "3000",
        "--keep-going",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(run(&["verify", p(&path)]).status.code(), Some(0));
    // The slot with the higher sequence number is the newest; the body
    // starts with `good`.
    let seq = |k| u64_at(&path, slot_at(k) + 8);
    let good = |k| u64_at(&path, slot_at(k) + 24);
    let newest = if seq(1) > seq(0) { 1 } else { 0 };
    let older_good = good(1 - newest);
    assert_eq!(good(newest), 3000);
    assert!(older_good < 3000, "the older checkpoint is {older_good}");
    for (how, bytes) in [("zeroed", vec![0u8; 4096]), ("flipped", vec![0x55u8; 16])] {
        let copy = dir.path().join(format!("{how}.octal"));
        std::fs::copy(&path, &copy).unwrap();
        write_at(&copy, slot_at(newest) + 16, &bytes);
        let v = run(&["verify", p(&copy)]);
        let report = text(&v.stdout);
        let line = format!("header slot {newest} is unusable");
        t.check(
            v.status.code() == Some(3)
                && report
                    .lines()
                    .any(|l| l.contains(&line) && l.contains(&format!("at {older_good} values"))),
            || format!("{how}: verify exit {:?}: {report}", v.status.code()),
        );
        let r = run(&["resume", p(&copy), "--to", "4000", "--keep-going", "--json"]);
        let err = text(&r.stderr);
        t.check(
            r.status.success() && err.contains(&format!("at {older_good} values")),
            || format!("{how}: resume exit {:?}: {err}", r.status.code()),
        );
        // And what it continues with is right.
        let want: Vec<u32> = (0..4000).map(|n| n % 4).collect();
        t.check(values_of(&copy) == Ok(want), || format!("{how}: values"));
    }
    t.done();
}

/// `export -o` never writes over the store, a device, a directory, a
/// symbolic link, or (without --force) an existing file.
#[test]
fn export_refuses_unsafe_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tally::new("export target");
    let store = make_store(dir.path(), "s.octal", "0.333", 2000);
    let before = std::fs::read(&store).unwrap();
    let existing = dir.path().join("old.oseq");
    std::fs::write(&existing, b"precious").unwrap();
    let link = dir.path().join("link.oseq");
    std::os::unix::fs::symlink(&store, &link).unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("the store", vec!["-o", p(&store)]),
        ("the store, forced", vec!["-o", p(&store), "--force"]),
        ("a link to the store", vec!["-o", p(&link), "--force"]),
        ("an existing file", vec!["-o", p(&existing)]),
        ("a directory", vec!["-o", p(&sub), "--force"]),
        ("/dev/full", vec!["-o", "/dev/full", "--force"]),
        ("/dev/null", vec!["-o", "/dev/null", "--force"]),
    ];
    for (name, extra) in cases {
        let mut args = vec!["export", p(&store)];
        args.extend(extra);
        let out = run(&args);
        t.check(one_line_error(&out, 2).is_ok(), || {
            format!("{name}: {:?}", one_line_error(&out, 2))
        });
    }
    t.check(std::fs::read(&store).unwrap() == before, || {
        "the store changed".into()
    });
    t.check(std::fs::read(&existing).unwrap() == b"precious", || {
        "the existing file changed".into()
    });
    use std::os::unix::fs::FileTypeExt;
    t.check(
        std::fs::metadata("/dev/full").map_or(true, |m| m.file_type().is_char_device()),
        || "/dev/full is no longer a device".into(),
    );
    // --force replaces a regular file, with the right values.
    let out = run(&["export", p(&store), "-o", p(&existing), "--force"]);
    t.check(out.status.success(), || text(&out.stderr));
    let want: Vec<u32> = (0..2000).map(|n| n % 4).collect();
    t.check(values_of(&existing) == Ok(want), || "forced export".into());
    // No temporary files are left, and a stale one from a dead process
    // is removed by the next export to that path.
    let stale = dir.path().join(".new.oseq.999999999.tmp");
    std::fs::write(&stale, b"x").unwrap();
    let out = run(&["export", p(&store), "-o", p(&dir.path().join("new.oseq"))]);
    t.check(out.status.success(), || text(&out.stderr));
    let temps: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    t.check(temps.is_empty(), || {
        format!("temporary files left: {temps:?}")
    });
    t.done();
}

/// A code of 4,100 threes (longer than one superblock page) is stored,
/// reopened and resumed.
#[test]
fn a_very_long_code_is_stored_and_reopened() {
    let dir = tempfile::tempdir().unwrap();
    let code = format!("0.{}7", "3".repeat(4100));
    let store = make_store(dir.path(), "long.octal", &code, 100);
    let v = run(&["verify", p(&store)]);
    assert_eq!(v.status.code(), Some(0), "{}", text(&v.stderr));
    let out = run(&[
        "resume",
        p(&store),
        "--to",
        "300",
        "--keep-going",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(values_of(&store).unwrap(), reference(&code, 300));
}

/// Every subcommand's arguments for a quick success, run in `dir` where
/// `s.octal` (0.333, 1000 values), `s.oseq` and `codes.txt` exist.
fn quick_commands(dir: &Path) -> Vec<Vec<String>> {
    let list = [
        "run 0.6 --to 1000 --no-store",
        "run 0.6 --to 1000 --no-store --json",
        "run 0.6 --to 1000 --store r.octal",
        "run 0.6 --to 1000 --store rj.octal --json",
        "resume s.octal --to 1500 --json",
        "resume s.octal --to 1600",
        "values 0.6 --to 100",
        "values s.oseq",
        "values s.octal",
        "verify s.octal --recompute 3",
        "verify s.oseq",
        "export s.octal -o OUT.oseq",
        "import s.oseq --store OUT.octal",
        "plot 0.6 --to 1000 -o OUT.png",
        "plot s.octal --to 1000 -o OUT2.png",
        "family cookie-cutter --k 1..3 --to 1000 --out fam1",
        "family cookie-cutter --k 1..3 --to 1000 --out fam2 --json",
        "family codes --file codes.txt --to 1000 --out fam3",
        "family cookie-cutter --k 1..2 --to 1000 --slurm slurmdir",
        "cookie-cutter --k 2 --grid 3x5",
        "cookie-cutter --k 2 --grid 3x5 --json",
        "cookie-cutter --k 2 --table 3x3 --quiet",
        "vertex-deletion --directed-path 7",
        "vertex-deletion --directed-path 7 --json",
    ];
    let _ = dir;
    list.iter()
        .map(|l| l.split(' ').map(String::from).collect())
        .collect()
}

fn prepare(dir: &Path) {
    make_store(dir, "s.octal", "0.333", 1000);
    let out = run(&[
        "export",
        p(&dir.join("s.octal")),
        "-o",
        p(&dir.join("s.oseq")),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::write(dir.join("codes.txt"), "0.6\n0.333\n").unwrap();
}

/// Every file a command may create, made unique per round.
fn unique(args: &[String], round: &str) -> Vec<String> {
    args.iter()
        .map(|a| a.replace("OUT", &format!("out-{round}")))
        .map(|a| match a.as_str() {
            "r.octal" | "rj.octal" | "fam1" | "fam2" | "fam3" | "slurmdir" => {
                format!("{round}-{a}")
            }
            _ => a,
        })
        .collect()
}

/// `> /dev/full`: a one-line error and exit 1 for every subcommand.
#[test]
fn a_full_stdout_is_an_error_for_every_subcommand() {
    if !Path::new("/dev/full").exists() {
        println!("faults: full stdout: skipped (no /dev/full on this machine)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    prepare(dir.path());
    let mut t = Tally::new("full stdout");
    for (i, args) in quick_commands(dir.path()).into_iter().enumerate() {
        let args = unique(&args, &format!("full{i}"));
        let out = octal()
            .current_dir(dir.path())
            .args(&args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        let r = one_line_error(&out, 1).and_then(|()| {
            text(&out.stderr)
                .contains("stdout")
                .then_some(())
                .ok_or_else(|| "does not name stdout".to_string())
        });
        t.check(r.is_ok(), || format!("{}: {r:?}", args.join(" ")));
    }
    t.done();
}

/// A closed pipe (`| head -0`): the command ends quietly (SIGPIPE or
/// success), with nothing on stderr.
#[test]
fn a_closed_stdout_ends_quietly_for_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    prepare(dir.path());
    let mut t = Tally::new("closed stdout");
    for (i, args) in quick_commands(dir.path()).into_iter().enumerate() {
        let args = unique(&args, &format!("closed{i}"));
        let mut child = octal()
            .current_dir(dir.path())
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        use std::os::unix::process::ExitStatusExt;
        let quiet_end = out.status.signal() == Some(libc::SIGPIPE) || out.status.success();
        let err = text(&out.stderr);
        t.check(
            quiet_end && !err.contains("panicked") && !err.contains("stdout"),
            || format!("{}: {:?}: {err}", args.join(" "), out.status),
        );
    }
    t.done();
}

/// Missing paths and directories: one line naming the path, exit 2.
#[test]
fn missing_files_and_directories_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tally::new("missing paths");
    std::fs::create_dir(dir.path().join("adir")).unwrap();
    for target in ["nothere.octal", "adir"] {
        for args in [
            vec!["verify", target],
            vec!["resume", target],
            vec!["export", target, "-o", "x.oseq"],
            vec!["import", target, "--store", "x.octal"],
            vec!["values", target],
            vec!["plot", target, "--to", "10", "-o", "x.png"],
        ] {
            let out = run_in(dir.path(), &args);
            let r = one_line_error(&out, 2).and_then(|()| {
                text(&out.stderr)
                    .contains(target)
                    .then_some(())
                    .ok_or_else(|| "does not name the path".to_string())
            });
            t.check(r.is_ok(), || format!("{}: {r:?}", args.join(" ")));
        }
    }
    t.done();
}

/// The summary of a store is a function of its values: a finished store
/// run again, and a store computed in two sessions, say the same about the
/// sparse space as one session did.
#[test]
fn a_store_summary_does_not_depend_on_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let facts = |args: &[&str]| -> Vec<serde_json::Value> {
        let out = run(args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        [
            "rare_mask",
            "rare_positions",
            "last_rare_at",
            "values",
            "checksum",
        ]
        .iter()
        .map(|k| j["engine"].get(*k).unwrap_or(&j[*k]).clone())
        .collect()
    };
    let one = p(&dir.path().join("one.octal")).to_string();
    let two = p(&dir.path().join("two.octal")).to_string();
    let base = ["--keep-going", "--json"];
    let args = |to: &str, store: &str| -> Vec<String> {
        ["run", "0.37", "--to", to, "--store", store]
            .iter()
            .chain(&base)
            .map(|s| s.to_string())
            .collect()
    };
    let call = |a: Vec<String>| facts(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let first = call(args("2e5", &one));
    assert!(
        !first[0].is_null(),
        "the sparse engine uses a mask for 0.37"
    );
    let again = call(args("2e5", &one));
    call(args("5e4", &two));
    let resumed = call(args("2e5", &two));
    assert_eq!(first, again, "run again");
    assert_eq!(first, resumed, "two sessions");
}

/// Families: a k range too large for memory is refused at once (exit 2);
/// a member whose code is too long for a file name still gets a store; a
/// member index beyond the family is bad input (exit 2).
#[test]
fn family_limits_and_long_members() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tally::new("family");
    let out = run_in(
        dir.path(),
        &[
            "family",
            "cookie-cutter",
            "--k",
            "1..100000",
            "--to",
            "100",
            "--out",
            "big",
        ],
    );
    t.check(one_line_error(&out, 2).is_ok(), || {
        format!("1..100000: {:?}", one_line_error(&out, 2))
    });
    let out = run_in(
        dir.path(),
        &[
            "family",
            "cookie-cutter",
            "--k",
            "300,301",
            "--to",
            "200",
            "--out",
            "long",
            "--json",
        ],
    );
    t.check(out.status.success(), || text(&out.stderr));
    let rows: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    t.check(rows.len() == 2, || format!("rows: {rows:?}"));
    // The member's store holds the reference values of its code.
    let code = format!("0.{}7", "3".repeat(299));
    let stores: Vec<PathBuf> = std::fs::read_dir(dir.path().join("long/stores"))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    let want = reference(&code, 200);
    t.check(
        stores.iter().any(|s| values_of(s).is_ok_and(|v| v == want)),
        || format!("no store with the values of k=300: {stores:?}"),
    );
    let slurm = dir.path().join("slurm");
    let out = run(&[
        "family",
        "cookie-cutter",
        "--k",
        "1..8",
        "--to",
        "100",
        "--slurm",
        p(&slurm),
    ]);
    t.check(out.status.success(), || text(&out.stderr));
    let out = run(&["family", "member", p(&slurm), "--index", "99"]);
    t.check(one_line_error(&out, 2).is_ok(), || {
        format!("--index 99: {:?}", one_line_error(&out, 2))
    });
    t.done();
}

/// Malformed arguments for every subcommand: one line, the exit code in
/// the table (2: bad input), never a panic, nothing computed.
#[test]
fn malformed_arguments_give_the_right_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    prepare(dir.path());
    let mut t = Tally::new("malformed arguments");
    let table: &[(&[&str], i32)] = &[
        (&["run", " 0.6", "--to", "100", "--no-store"], 2),
        (&["run", "0.6\n", "--to", "100", "--no-store"], 2),
        (&["run", "0.6", "--to", " 100", "--no-store"], 2),
        (&["run", "0.6", "--to", "100 ", "--no-store"], 2),
        (&["run", "0.6", "--to", "1_", "--no-store"], 2),
        (&["run", "0.6", "--to", "_1", "--no-store"], 2),
        (&["run", "0.6", "--to", "10^6", "--no-store"], 2),
        (&["run", "0.6", "--to", "-5", "--no-store"], 2),
        (&["run", "0.6", "--to", "1.5", "--no-store"], 2),
        (&["run", "0.6", "--to", "0", "--no-store"], 2),
        (&["run", "0.g", "--to", "100", "--no-store"], 2),
        (
            &["run", "0.6", "--to", "100", "--threads", "0", "--no-store"],
            2,
        ),
        (
            &["run", "0.6", "--to", "100", "--mask", "zz", "--no-store"],
            2,
        ),
        (&["run", "0.6"], 2),
        (&["resume", "s.octal", "--to", "x"], 2),
        (&["resume", "s.oseq"], 2),
        (&["resume", "codes.txt"], 2),
        (&["values", "0.6", "--to", "10", "--from", "20"], 2),
        (&["values", "0.6"], 2),
        (&["values", "s.octal", "--to", "5000"], 2),
        (&["values", " 0.6", "--to", "10"], 2),
        (&["verify", "codes.txt"], 2),
        (&["verify", "s.octal", "--recompute", "-1"], 2),
        (&["export", "s.octal"], 2),
        (&["export", "s.octal", "-o", "e.oseq", "--to", "99999"], 2),
        (&["export", "s.octal", "-o", "e.oseq", "--level", "30"], 2),
        (&["import", "s.octal", "--store", "i.octal"], 2),
        (&["import", "s.oseq", "--store", "s.octal"], 2),
        (&["plot", "0.6", "--to", "100", "-o", "p.gif"], 2),
        (&["plot", "0.6", "--to", "10^3", "-o", "p.png"], 2),
        (
            &["plot", "0.6", "--to", "100", "--from", "200", "-o", "p.png"],
            2,
        ),
        (
            &["family", "cookie-cutter", "--k", "0..3", "--to", "100"],
            2,
        ),
        (
            &["family", "cookie-cutter", "--k", "1..x", "--to", "100"],
            2,
        ),
        (&["family", "cookie-cutter", "--k", "1..3", "--to", "1_"], 2),
        (
            &["family", "codes", "--file", "nothere.txt", "--to", "100"],
            2,
        ),
        (&["family", "member", ".", "--index", "0"], 2),
        (&["cookie-cutter", "--k", "2", "--grid", "3X3"], 2),
        (&["cookie-cutter", "--k", "2", "--grid", " 3x3"], 2),
        (&["cookie-cutter", "--k", "0", "--grid", "3x3"], 2),
        (&["cookie-cutter", "--k", "2"], 2),
        (&["vertex-deletion"], 2),
        (&["vertex-deletion", "--directed-path", "x"], 2),
        (&["vertex-deletion", "--arcs", "0>"], 2),
        (&["frobnicate"], 2),
    ];
    for (args, code) in table {
        let out = run_in(dir.path(), args);
        let r = one_line_error(&out, *code);
        t.check(r.is_ok(), || format!("{args:?}: {r:?}"));
    }
    t.done();
}

/// Unmounts the tmpfs when dropped.
struct Mount(PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A full disk (a small tmpfs, when this machine lets the test mount one):
/// export and plot fail with one line and leave neither the output nor a
/// temporary file; a run there is refused or stops at its checkpoint.
#[test]
fn a_full_disk_leaves_no_partial_files() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("small");
    std::fs::create_dir(&mnt).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs", p(&mnt)])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        println!("faults: disk full: skipped (this machine does not let the test mount a tmpfs)");
        return;
    }
    let _guard = Mount(mnt.clone());
    let mut t = Tally::new("disk full");
    let store = make_store(dir.path(), "s.octal", "0.6", 300_000);
    // Fill the tmpfs but for a few KiB.
    let filler = vec![0x5au8; 1 << 16];
    let mut f = std::fs::File::create(mnt.join("filler")).unwrap();
    use std::io::Write;
    while f.write_all(&filler).is_ok() {}
    drop(f);
    let leftovers = |what: &str| -> Vec<String> {
        std::fs::read_dir(&mnt)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "filler" && n.contains(what))
            .collect()
    };
    let out = run(&[
        "export",
        p(&store),
        "-o",
        p(&mnt.join("s.oseq")),
        "--level",
        "1",
    ]);
    t.check(one_line_error(&out, 1).is_ok(), || {
        format!("export: {:?}", one_line_error(&out, 1))
    });
    t.check(leftovers("oseq").is_empty(), || {
        format!("export left {:?}", leftovers("oseq"))
    });
    let out = run(&[
        "plot",
        "0.6",
        "--to",
        "100000",
        "-o",
        p(&mnt.join("p.svg")),
        "--quiet",
    ]);
    t.check(one_line_error(&out, 1).is_ok(), || {
        format!("plot: {:?}", one_line_error(&out, 1))
    });
    t.check(leftovers("p.svg").is_empty(), || {
        format!("plot left {:?}", leftovers("p.svg"))
    });
    let out = run(&[
        "run",
        "0.6",
        "--to",
        "1e6",
        "--store",
        p(&mnt.join("r.octal")),
        "--quiet",
        "--keep-going",
    ]);
    let code = out.status.code();
    t.check(
        (code == Some(1) || code == Some(2)) && one_line_error(&out, code.unwrap_or(0)).is_ok(),
        || format!("run: {code:?}: {}", text(&out.stderr)),
    );
    t.done();
}

/// A random seed, or `OCTAL_FAULT_SEED` to repeat a run.
fn seed() -> u64 {
    if let Some(s) = std::env::var("OCTAL_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        println!("faults: seed {s}");
        return s;
    }
    let s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    println!("faults: seed {s}");
    s
}

/// kill -9 after a random delay in `lo..hi` seconds (or when it ends).
fn kill_after(args: &[&str], cwd: &Path, rng: &mut octal::verify::SplitMix, lo: f64, hi: f64) {
    let mut child = octal()
        .current_dir(cwd)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let delay = lo + (hi - lo) * (rng.below(1000) as f64 / 1000.0);
    let start = std::time::Instant::now();
    while start.elapsed().as_secs_f64() < delay {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The u16 → u32 widening under kill -9: Cookie Cutter with 70,000 threes
/// has G(n) = n for n ≤ 70,000 (every heap can be emptied or cut to any
/// smaller size), so its values pass 65,535 at once. Killed at random
/// moments, resumed to 65,600 values, the store must hold exactly 0..65600.
#[test]
fn widening_survives_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = octal::verify::SplitMix(seed());
    let code = format!("0.{}7", "3".repeat(70_000));
    let store = dir.path().join("wide.octal");
    let mut t = Tally::new("kill -9 widening");
    let args = [
        "run",
        &code,
        "--to",
        "65600",
        "--store",
        p(&store),
        "--keep-going",
        "--quiet",
        "--checkpoint-every",
        "0.1",
    ];
    for _ in 0..2 {
        kill_after(&args, dir.path(), &mut rng, 0.5, 5.0);
        if store.exists() {
            let v = run(&["verify", p(&store)]);
            t.check(matches!(v.status.code(), Some(0) | Some(3)), || {
                format!("verify after kill: {}{}", text(&v.stdout), text(&v.stderr))
            });
        }
    }
    let out = run(&args);
    t.check(out.status.success(), || text(&out.stderr));
    let want: Vec<u32> = (0..65_600).collect();
    t.check(values_of(&store) == Ok(want), || {
        "values after resume".into()
    });
    let s = octal::store::Store::open(&store, false).unwrap();
    t.check(s.width() == 4, || format!("width {}", s.width()));
    t.done();
}

/// kill -9 during export and during a family, then the same command
/// again: the result equals an uninterrupted one, and no partial or
/// temporary file is left.
#[test]
fn export_and_family_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rng = octal::verify::SplitMix(seed());
    let mut t = Tally::new("kill -9 export, family");
    let store = make_store(d, "s.octal", "0.333", 3_000_000);
    let want: Vec<u32> = (0..3_000_000).map(|n| n % 4).collect();
    for round in 0..3 {
        let out_path = d.join(format!("e{round}.oseq"));
        let args = [
            "export",
            "s.octal",
            "-o",
            out_path.file_name().unwrap().to_str().unwrap(),
            "--level",
            "19",
            "--frame-values",
            "65536",
        ];
        kill_after(&args, d, &mut rng, 0.05, 1.5);
        // Either nothing at the path or a complete file.
        if out_path.exists() {
            t.check(values_of(&out_path) == Ok(want.clone()), || {
                format!("round {round}: partial export")
            });
        } else {
            let out = run_in(d, &args);
            t.check(out.status.success(), || text(&out.stderr));
            t.check(values_of(&out_path) == Ok(want.clone()), || {
                format!("round {round}: export after kill")
            });
        }
    }
    let temps: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    t.check(temps.is_empty(), || format!("temporary files: {temps:?}"));
    drop(store);
    // A family killed and run again gives the uninterrupted table.
    std::fs::write(d.join("codes.txt"), "0.6\n0.333\n.137\n").unwrap();
    let fam = |out: &str| {
        vec![
            "family".to_string(),
            "codes".into(),
            "--file".into(),
            "codes.txt".into(),
            "--to".into(),
            "1e6".into(),
            "--keep-going".into(),
            "--json".into(),
            "--out".into(),
            out.into(),
        ]
    };
    // Each row without its time, and the values in each member's store.
    let table = |args: &[String]| -> Vec<(String, Vec<u32>)> {
        let out = octal().current_dir(d).args(args).output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let mut rows: Vec<(String, Vec<u32>)> = text(&out.stdout)
            .lines()
            .map(|l| {
                let mut j: serde_json::Value = serde_json::from_str(l).unwrap();
                j.as_object_mut().unwrap().remove("seconds");
                let code = j["code"].as_str().unwrap().to_string();
                let store = d
                    .join(args.last().unwrap())
                    .join("stores")
                    .join(format!("{code}.octal"));
                (j.to_string(), values_of(&store).unwrap())
            })
            .collect();
        rows.sort();
        rows
    };
    let clean = table(&fam("clean"));
    let killed = fam("killed");
    let killed_ref: Vec<&str> = killed.iter().map(String::as_str).collect();
    kill_after(&killed_ref, d, &mut rng, 0.2, 2.0);
    let again = table(&killed);
    t.check(
        clean == again && clean.len() == 3 && clean.iter().all(|r| r.1.len() == 1_000_000),
        || "family after kill differs from the uninterrupted one".to_string(),
    );
    t.done();
}

/// Random damage (a few flipped bytes) in each region of a store and of
/// an export file: every reader refuses it, or recovers with a warning
/// (a lost slot), and never prints a wrong value.
#[test]
fn random_damage_is_refused_or_recovered_never_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rng = octal::verify::SplitMix(seed());
    let mut t = Tally::new("random damage");
    let store = make_store(d, "s.octal", "0.333", 200_000);
    let want: Vec<u32> = (0..200_000).map(|n| n % 4).collect();
    let file = d.join("s.oseq");
    let out = run(&[
        "export",
        p(&store),
        "-o",
        p(&file),
        "--frame-values",
        "50000",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let data = octal::store::Store::open(&store, false)
        .unwrap()
        .data_offset();
    let slot_len = |k| 24 + u64_at(&store, slot_at(k) + 16) + 8;
    let flen = std::fs::metadata(&file).unwrap().len();
    // (name, file, start, length) of each region.
    let regions: Vec<(&str, &Path, u64, u64)> = vec![
        // The superblock's bytes (docs/store.md): 72 + the code's length;
        // the rest of its page is padding nobody reads.
        ("store superblock", &store, 0, 72 + "0.333".len() as u64),
        ("store slot 0", &store, slot_at(0), slot_len(0)),
        ("store slot 1", &store, slot_at(1), slot_len(1)),
        ("store values", &store, data, 2 * 200_000),
        ("export header", &file, 0, 200),
        ("export frames", &file, 200, flen - 200 - 4 * 24 - 32),
        ("export index", &file, flen - 4 * 24 - 32, 4 * 24),
        ("export trailer", &file, flen - 32, 32),
    ];
    for (name, src, start, len) in regions {
        for round in 0..4 {
            let copy = d.join(format!(
                "damaged-{round}-{}",
                src.file_name().unwrap().to_str().unwrap()
            ));
            std::fs::copy(src, &copy).unwrap();
            for _ in 0..1 + rng.below(3) {
                let at = start + rng.below(len);
                let b = read_at(&copy, at, 1)[0];
                write_at(&copy, at, &[b ^ (1 + rng.below(255) as u8)]);
            }
            let v = run(&["verify", p(&copy)]);
            let vals = run(&["values", p(&copy)]);
            let printed: Vec<u32> = text(&vals.stdout)
                .lines()
                .filter_map(|l| l.parse().ok())
                .collect();
            let honest_values = want.starts_with(&printed)
                && (vals.status.success() == (printed.len() == want.len())
                    || text(&vals.stderr).contains("warning"));
            let verify_says = v.status.code() != Some(0)
                || text(&v.stdout)
                    == text(&run(&["verify", p(src)]).stdout).replace(p(src), p(&copy));
            t.check(
                honest_values && v.status.code().is_some() && verify_says,
                || {
                    format!(
                        "{name} round {round}: verify {:?} {}; values {:?} ({} printed) {}",
                        v.status.code(),
                        text(&v.stdout),
                        vals.status.code(),
                        printed.len(),
                        text(&vals.stderr)
                    )
                },
            );
        }
    }
    t.done();
}

/// Ctrl-C (SIGINT) or SIGTERM during an export: exit 130 or 143, nothing
/// at the output path and no temporary file left.
#[test]
fn an_interrupted_export_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut t = Tally::new("interrupted export");
    // 0.6 compresses slowly at level 22: about a second to export.
    make_store(d, "s.octal", "0.6", 3_000_000);
    for (sig, status) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let out_path = d.join(format!("e{sig}.oseq"));
        let mut child = octal()
            .current_dir(d)
            .args(["export", "s.octal", "-o", p(&out_path), "--level", "22"])
            .args(["--frame-values", "16384"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until the temporary file exists, then signal.
        let start = std::time::Instant::now();
        let mut exited = false;
        while start.elapsed().as_secs() < 20 {
            let tmp = std::fs::read_dir(d)
                .unwrap()
                .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp"));
            exited = child.try_wait().unwrap().is_some();
            if tmp || exited {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        // A child already reaped has given up its pid, which another
        // test's process may have now: only a live one is signalled.
        if !exited {
            // SAFETY: signalling our own child, not yet waited for.
            unsafe { libc::kill(child.id() as i32, sig) };
        }
        let out = child.wait_with_output().unwrap();
        let left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        t.check(
            out.status.code() == Some(status) && !out_path.exists(),
            || format!("signal {sig}: {:?} {}", out.status, text(&out.stderr)),
        );
        t.check(left.is_empty(), || format!("signal {sig}: left {left:?}"));
    }
    t.done();
}
