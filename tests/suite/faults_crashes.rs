//! Fault injection through the `octal` binary, issue #38's crashes and
//! wrong answers: crafted window checkpoints, allocations too large for
//! the machine (under an address-space limit), help and version to a full
//! stdout, the manual pages, files of the wrong kind, and far heaps of a
//! periodic game. Expected values come from the reference engine.
//!
//! Each category prints `faults: CATEGORY: tried T, passed P` (run with
//! `--nocapture` to see them).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common::faults as kit;
use kit::*;

/// `one_line_error` whose line says `needle`.
fn error_saying(out: &Output, code: i32, needle: &str) -> Result<(), String> {
    one_line_error(out, code)?;
    let err = text(&out.stderr);
    if !err.contains(needle) {
        return Err(format!("{err:?} does not say {needle:?}"));
    }
    Ok(())
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

/// A windowed run of 0.6 that has dropped values: its checkpoint.
fn make_window(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let out = run(&[
        "run",
        "0.6",
        "--to",
        "150000",
        "--window",
        "2^16",
        "--store",
        p(&path),
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    path
}

/// `--help` and `--version` into a full stdout fail like every command's
/// output does: exit 1, `octal: writing to stdout: …`.
#[test]
fn help_and_version_to_a_full_stdout_fail() {
    let mut t = Tally::new("help and version to a full stdout");
    for args in [
        &["--help"][..],
        &["-h"],
        &["--version"],
        &["-V"],
        &["run", "--help"],
        &["help", "run"],
        &["family", "codes", "--help"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = octal().args(args).stdout(full).output().unwrap();
        t.check(error_saying(&out, 1, "octal: writing to stdout: "), || {
            format!("{args:?}")
        });
        // And to a working stdout: exit 0 with the text.
        let out = run(args);
        t.check(
            if out.status.success() && !out.stdout.is_empty() {
                Ok(())
            } else {
                Err(format!("{:?}: {}", out.status, text(&out.stderr)))
            },
            || format!("{args:?} to a pipe"),
        );
    }
    t.done();
}

/// Every page the manual pages refer to is one `octal man --dir` writes,
/// and the main page `octal man` prints is the one written as octal.1.
#[test]
fn every_manual_page_referred_to_is_written() {
    let mut t = Tally::new("manual pages");
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("man1");
    let out = run(&["man", "--dir", p(&pages)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written: Vec<String> = std::fs::read_dir(&pages)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let main = run(&["man"]);
    t.check(
        (std::fs::read(pages.join("octal.1")).ok() == Some(main.stdout.clone()))
            .then_some(())
            .ok_or_else(|| "octal.1 differs from `octal man`".to_string()),
        || "octal man".into(),
    );
    // Every subcommand, nested ones too, has its page.
    for sub in [
        "run",
        "resume",
        "values",
        "verify",
        "family",
        "family-codes",
        "man",
    ] {
        let name = format!("octal-{sub}.1");
        t.check(
            written
                .contains(&name)
                .then_some(())
                .ok_or_else(|| format!("not written; written: {written:?}")),
            || name.clone(),
        );
    }
    for page in &written {
        let roff = std::fs::read_to_string(pages.join(page)).unwrap();
        // References look like `octal\-run(1)` in roff.
        for word in roff.split_whitespace() {
            let Some(name) = word.strip_suffix("(1)") else {
                continue;
            };
            let file = format!("{}.1", name.replace("\\-", "-"));
            t.check(
                written
                    .contains(&file)
                    .then_some(())
                    .ok_or_else(|| format!("refers to {file}, which is not written")),
                || page.clone(),
            );
        }
    }
    // A directory that cannot be made is bad input.
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let out = run(&["man", "--dir", p(&file.join("sub"))]);
    t.check(one_line_error(&out, 2), || "man --dir under a file".into());
    // A page's name taken by a link to a user's file, or a hard link to
    // it: the file is left as it was.
    for hard in [false, true] {
        let d = dir.path().join(if hard { "hard" } else { "soft" });
        std::fs::create_dir(&d).unwrap();
        let victim = dir.path().join(format!("victim-{hard}"));
        std::fs::write(&victim, b"precious").unwrap();
        if hard {
            std::fs::hard_link(&victim, d.join("octal-run.1")).unwrap();
        } else {
            std::os::unix::fs::symlink(&victim, d.join("octal-run.1")).unwrap();
        }
        let out = run(&["man", "--dir", p(&d)]);
        let kept = std::fs::read(&victim).unwrap() == b"precious";
        t.check(
            if kept {
                Ok(())
            } else {
                Err(format!("victim overwritten; {}", text(&out.stderr)))
            },
            || {
                format!(
                    "man --dir over a {} link",
                    if hard { "hard" } else { "symbolic" }
                )
            },
        );
    }
    t.done();
}

/// A windowed run's checkpoint given to a command that reads stores and
/// sequence files is named as one, with what reads it; so is a full store
/// given to a windowed run, and a store given to import.
#[test]
fn files_of_the_wrong_kind_are_named() {
    let mut t = Tally::new("files of the wrong kind named");
    let dir = tempfile::tempdir().unwrap();
    let w = make_window(dir.path(), "w.window");
    let full = make_store(dir.path(), "full.octal", "0.6", 3000);
    let d = dir.path();
    let png = d.join("a.png");
    let oseq = d.join("x.oseq");
    let new_store = d.join("new.octal");
    let window_cases: Vec<Vec<&str>> = vec![
        vec!["values", p(&w)],
        vec!["values", p(&w), "--to", "10"],
        vec!["export", p(&w), "-o", p(&oseq)],
        vec!["plot", p(&w), "-o", p(&png)],
        vec!["compare", p(&w), "0.6"],
        vec!["compare", "0.6", p(&w)],
        vec!["import", p(&w), "--store", p(&new_store)],
        vec!["run", "0.6", "--to", "1000", "--store", p(&w)],
    ];
    for args in &window_cases {
        let out = run(args);
        t.check(
            error_saying(&out, 2, "is a windowed run's checkpoint"),
            || format!("{args:?}"),
        );
    }
    for args in [
        vec![
            "run",
            "0.6",
            "--to",
            "2^18",
            "--window",
            "2^16",
            "--store",
            p(&full),
        ],
        vec!["import", p(&full), "--store", p(&new_store)],
    ] {
        let out = run(&args);
        t.check(error_saying(&out, 2, "is a full store"), || {
            format!("{args:?}")
        });
    }
    // Nothing was written in the attempts.
    t.check(
        (!png.exists() && !oseq.exists() && !new_store.exists())
            .then_some(())
            .ok_or_else(|| "an output was written".to_string()),
        || "outputs".into(),
    );
    t.done();
}

/// A window checkpoint's parts: its state as JSON and its kept values.
struct Checkpoint {
    meta: serde_json::Value,
    values: Vec<u8>,
}

fn read_checkpoint(path: &Path) -> Checkpoint {
    let b = std::fs::read(path).unwrap();
    let len = u64::from_le_bytes(b[12..20].try_into().unwrap()) as usize;
    Checkpoint {
        meta: serde_json::from_slice(&b[20..20 + len]).unwrap(),
        values: b[20 + len..b.len() - 8].to_vec(),
    }
}

/// Writes `json` and `values` as a checkpoint with a right file checksum,
/// as a crafted file would be.
fn write_checkpoint(path: &Path, json: &[u8], values: &[u8]) {
    let mut b = b"OCTALWN1".to_vec();
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&(json.len() as u64).to_le_bytes());
    b.extend_from_slice(json);
    b.extend_from_slice(values);
    let sum = octal::stats::Checksum::of_bytes(&b).0;
    b.extend_from_slice(&sum.to_le_bytes());
    std::fs::write(path, b).unwrap();
}

/// Every number in the state, by its JSON pointer (arrays of numbers by
/// their first, last and one middle entry).
fn number_paths(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Number(_) => out.push(at),
        serde_json::Value::Array(a) => {
            let picks: Vec<usize> = if a.len() > 3 {
                vec![0, a.len() / 2, a.len() - 1]
            } else {
                (0..a.len()).collect()
            };
            for i in picks {
                number_paths(&a[i], format!("{at}/{i}"), out);
            }
        }
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                number_paths(x, format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
}

/// Every array in the state, by its JSON pointer.
fn array_paths(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Array(a) => {
            out.push(at.clone());
            for (i, x) in a.iter().enumerate().take(3) {
                array_paths(x, format!("{at}/{i}"), out);
            }
        }
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                array_paths(x, format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
}

/// What a command on a crafted checkpoint may do: end with one of its
/// exit codes (never a panic's 101 or a signal), with no panic said.
fn no_crash(out: &Output) -> Result<(), String> {
    let err = text(&out.stderr);
    match out.status.code() {
        Some(0..=4) if !err.contains("panicked") && err.lines().count() <= 1 => Ok(()),
        _ => Err(format!("{:?}: {err}", out.status)),
    }
}

mod crafted {
    use super::*;
    use proptest::prelude::*;
    use std::sync::OnceLock;

    /// The checkpoint crafted from, made once.
    fn base() -> &'static (tempfile::TempDir, Checkpoint, Vec<String>, Vec<String>) {
        static BASE: OnceLock<(tempfile::TempDir, Checkpoint, Vec<String>, Vec<String>)> =
            OnceLock::new();
        BASE.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let c = read_checkpoint(&make_window(dir.path(), "base.window"));
            let (mut numbers, mut arrays) = (Vec::new(), Vec::new());
            number_paths(&c.meta, String::new(), &mut numbers);
            array_paths(&c.meta, String::new(), &mut arrays);
            (dir, c, numbers, arrays)
        })
    }

    /// One change to a checkpoint.
    #[derive(Debug, Clone)]
    enum Craft {
        /// Set the number at the `k`th path to `x`.
        Number(usize, u64),
        /// Cut the `k`th array to `len` entries.
        Cut(usize, usize),
        /// Set a byte of the JSON text.
        JsonByte(usize, u8),
        /// Set a byte of the values.
        ValueByte(usize, u8),
        /// Cut the values to this many bytes.
        ValuesLen(usize),
    }

    fn interesting() -> impl Strategy<Value = u64> {
        prop_oneof![
            prop::sample::select(vec![
                0,
                1,
                2,
                100,
                1023,
                1024,
                1 << 14,
                1 << 16,
                100_848,
                149_999,
                150_000,
                150_001,
                1 << 32,
                1 << 63,
                u64::MAX,
            ]),
            0u64..200_000,
            any::<u64>(),
        ]
    }

    fn craft() -> impl Strategy<Value = Craft> {
        prop_oneof![
            4 => (any::<usize>(), interesting()).prop_map(|(k, x)| Craft::Number(k, x)),
            1 => (any::<usize>(), 0usize..5).prop_map(|(k, n)| Craft::Cut(k, n)),
            1 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Craft::JsonByte(i, b)),
            1 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Craft::ValueByte(i, b)),
            1 => any::<usize>().prop_map(Craft::ValuesLen),
        ]
    }

    fn apply(crafts: &[Craft]) -> (Vec<u8>, Vec<u8>) {
        let (_, c, numbers, arrays) = base();
        let mut meta = c.meta.clone();
        let mut values = c.values.clone();
        let mut json_bytes = Vec::new();
        for cr in crafts {
            match *cr {
                Craft::Number(k, x) => {
                    if let Some(v) = meta.pointer_mut(&numbers[k % numbers.len()]) {
                        *v = x.into();
                    }
                }
                Craft::Cut(k, n) => {
                    if let Some(serde_json::Value::Array(a)) =
                        meta.pointer_mut(&arrays[k % arrays.len()])
                    {
                        a.truncate(n);
                    }
                }
                Craft::JsonByte(i, b) => json_bytes.push((i, b)),
                Craft::ValueByte(i, b) => {
                    let i = i % values.len();
                    values[i] = b;
                }
                Craft::ValuesLen(n) => values.truncate(n % (values.len() + 1)),
            }
        }
        let mut json = serde_json::to_vec(&meta).unwrap();
        for (i, b) in json_bytes {
            let i = i % json.len();
            json[i] = b;
        }
        (json, values)
    }

    /// Whatever a crafted checkpoint says, resuming and verifying it
    /// refuse it or work: never a panic or a signal.
    #[test]
    fn crafted_window_checkpoints_never_crash() {
        let config = ProptestConfig {
            cases: 96,
            failure_persistence: None,
            ..ProptestConfig::default()
        };
        let mut runner = proptest::test_runner::TestRunner::new(config);
        let tried = std::cell::Cell::new(0);
        let result = runner.run(&prop::collection::vec(craft(), 1..4), |crafts| {
            let (json, values) = apply(&crafts);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("c.window");
            write_checkpoint(&path, &json, &values);
            for args in [
                vec!["resume", p(&path), "--to", "170000", "--quiet"],
                vec!["verify", p(&path), "--recompute", "4"],
            ] {
                tried.set(tried.get() + 1);
                let out = octal().args(&args).output().unwrap();
                let verdict = no_crash(&out);
                prop_assert!(verdict.is_ok(), "{:?} {:?}: {:?}", crafts, args, verdict);
            }
            Ok(())
        });
        let mut t = Tally::new("crafted window checkpoints, random fields and bytes");
        t.tried = tried.get() - usize::from(result.is_err());
        t.check(result.map_err(|e| e.to_string()), || "proptest".into());
        t.done();
    }
}

/// The crafted checkpoints issue #38 found, each refused in one line,
/// and the uncrafted one resumed.
#[test]
fn crafted_window_sizes_are_refused() {
    let mut t = Tally::new("crafted window checkpoints");
    let dir = tempfile::tempdir().unwrap();
    let base = read_checkpoint(&make_window(dir.path(), "base.window"));
    use serde_json::json;
    // (what, the JSON pointer of the field, its crafted value)
    let cases = [
        ("window 0", "/sizes/window", json!(0)),
        ("window 100", "/sizes/window", json!(100)),
        ("window 2^63", "/sizes/window", json!(1u64 << 63)),
        ("prefix 0", "/sizes/prefix", json!(0)),
        ("kept prefix short", "/prefix", json!(1000)),
        ("lo far back", "/lo", json!(30000)),
        ("detector seen", "/detector/seen", json!(5)),
        ("detector start", "/detector/kept_from", json!(0)),
        ("detector short", "/detector/short", json!([])),
        ("detector bound", "/detector/bound/split", json!(0)),
        ("engine max", "/engine/max", json!(1u64 << 31)),
        ("engine built", "/engine/built", json!(1)),
        ("engine rare at 0", "/engine/rare/0", json!(0)),
        ("largest value", "/stats/max_value", json!(70000)),
        ("histogram", "/histogram/0", json!(1000)),
        ("power past the end", "/powers/0/0", json!(1u64 << 40)),
    ];
    for (what, pointer, value) in cases {
        let mut meta = base.meta.clone();
        *meta.pointer_mut(pointer).expect("the field exists") = value;
        let path = dir
            .path()
            .join(format!("{}.window", what.replace(' ', "-")));
        write_checkpoint(&path, &serde_json::to_vec(&meta).unwrap(), &base.values);
        for args in [
            vec!["resume", p(&path), "--to", "170000", "--quiet"],
            vec!["verify", p(&path), "--recompute", "4"],
        ] {
            let out = run(&args);
            t.check(error_saying(&out, 1, "damaged"), || {
                format!("{what}: {args:?}")
            });
        }
    }
    // The same file, rewritten uncrafted, resumes.
    let path = dir.path().join("same.window");
    write_checkpoint(
        &path,
        &serde_json::to_vec(&base.meta).unwrap(),
        &base.values,
    );
    let out = run(&["resume", p(&path), "--to", "170000", "--quiet"]);
    t.check(
        out.status
            .success()
            .then_some(())
            .ok_or_else(|| text(&out.stderr)),
        || "uncrafted".into(),
    );
    t.done();
}

/// `octal ARGS` under an address-space limit of `kib` KiB (`ulimit -v`),
/// timed.
fn run_limited(kib: u64, args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_octal"))
        .args(args)
        .output()
        .expect("sh runs");
    (out, start.elapsed())
}

/// Asking for more memory than the machine (or its address-space limit)
/// gives is a one-line error, exit 2, at once: never an abort with a
/// backtrace. Sizes that do fit still work.
#[test]
fn too_much_memory_is_a_one_line_error() {
    let mut t = Tally::new("memory beyond the machine");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let within = |out: &Output, took: Duration| -> Result<(), String> {
        error_saying(out, 2, "this machine has")?;
        if took > Duration::from_secs(10) {
            return Err(format!("took {took:?}"));
        }
        Ok(())
    };
    // 400 MiB of address space: 2^28 values need 512 MiB, 2^27 fit
    // in memory but not with the program beside them at 300 MiB.
    for (kib, args) in [
        (
            409_600,
            vec!["run", "0.6", "--to", "2^28", "--no-store", "--quiet"],
        ),
        (
            409_600,
            vec!["run", "0.6", "--to", "2^29", "--no-store", "--quiet"],
        ),
        (
            204_800,
            vec!["run", ".333337", "--to", "2^27", "--no-store", "--quiet"],
        ),
    ] {
        let (out, took) = run_limited(kib, &args);
        t.check(within(&out, took), || format!("ulimit -v {kib}: {args:?}"));
    }
    // What fits under the limit runs.
    let (out, _) = run_limited(409_600, &["values", "0.6", "--to", "100000"]);
    let want: Vec<String> = reference("0.6", 100_000)
        .iter()
        .map(u32::to_string)
        .collect();
    t.check(
        (out.status.success()
            && text(&out.stdout)
                .lines()
                .eq(want.iter().map(String::as_str)))
        .then_some(())
        .ok_or_else(|| text(&out.stderr)),
        || "values of 0.6 to 100000 under 400 MiB".into(),
    );
    // verify --recompute beyond the values held recomputes each at most
    // once, a sample of them: a store and a window.
    let store = make_store(d, "s.octal", "0.6", 3000);
    let window = make_window(d, "w.window");
    for (path, k) in [(&store, "1000000000000"), (&window, "1000000000")] {
        let start = Instant::now();
        let out = run(&["verify", p(path), "--recompute", k, "--seed", "7"]);
        let took = start.elapsed();
        t.check(
            (out.status.success() && took < Duration::from_secs(30))
                .then_some(())
                .ok_or_else(|| format!("{:?} in {took:?}: {}", out.status, text(&out.stderr))),
            || format!("verify {} --recompute {k}", path.display()),
        );
    }
    // A font or a mark larger than the picture is refused before drawing.
    for (flag, size) in [
        ("--font-size", "1000000000"),
        ("--point-size", "4000000000"),
    ] {
        let png = d.join("f.png");
        let (out, took) = run_limited(
            2_097_152,
            &["plot", "0.6", "--to", "1000", flag, size, "-o", p(&png)],
        );
        t.check(
            error_saying(&out, 2, "larger than the picture").and_then(|()| {
                (took < Duration::from_secs(10) && !png.exists())
                    .then_some(())
                    .ok_or_else(|| format!("took {took:?} or wrote the picture"))
            }),
            || format!("plot {flag} {size}"),
        );
    }
    t.done();
}

/// Heaps far beyond memory of a game with a proven period are read off
/// it, as the values up to the proof are computed: the expected values
/// are the reference engine's at the same place in the period, which the
/// literature gives (data/sequences: Kayles 0.77, period 12 from n = 71;
/// Dawson's Chess 0.137, period 34 from n = 52).
#[test]
fn far_heaps_of_periodic_games_are_read_off_the_period() {
    let mut t = Tally::new("far heaps of periodic games");
    for (code, p, s) in [("0.77", 12u64, 71u64), ("0.137", 34, 52)] {
        let g = reference(code, (s + 2 * p) as usize);
        let at = |n: u64| g[(if n < s { n } else { s + (n - s) % p }) as usize];
        for (from, to) in [
            (999_999_999_997u64, 1_000_000_000_000u64),
            (1 << 40, (1 << 40) + 40),
            ((1u64 << 48) - 5, 1 << 48),
        ] {
            let (f, e) = (from.to_string(), to.to_string());
            let out = run(&["values", code, "--from", &f, "--to", &e]);
            let want: Vec<String> = (from..to).map(|n| at(n).to_string()).collect();
            let got = text(&out.stdout);
            t.check(
                (out.status.success() && got.lines().eq(want.iter().map(String::as_str)))
                    .then_some(())
                    .ok_or_else(|| format!("{:?}: {got:?} {}", out.status, text(&out.stderr))),
                || format!("values {code} --from {from} --to {to}"),
            );
        }
        // The same as a b-file, its n on each line.
        let out = run(&[
            "values",
            code,
            "--from",
            "999999999998",
            "--to",
            "1e12",
            "--format",
            "bfile",
        ]);
        let want = format!(
            "999999999998 {}\n999999999999 {}\n",
            at(999_999_999_998),
            at(999_999_999_999)
        );
        t.check(
            (out.status.success()
                && text(&out.stdout)
                    .lines()
                    .filter(|l| !l.starts_with('#'))
                    .map(|l| format!("{l}\n"))
                    .collect::<String>()
                    == want)
                .then_some(())
                .ok_or_else(|| text(&out.stdout) + &text(&out.stderr)),
            || format!("values {code} --format bfile far out"),
        );
    }
    t.done();
}

/// A file of a format version this octal does not read is named by its
/// kind, with the version this octal reads (a window checkpoint's and a
/// sequence file's are 1, a store's 2: each was once said to be a store
/// of version 2).
#[test]
fn a_file_of_another_version_is_named_by_its_kind() {
    let mut t = Tally::new("files of another format version");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (w, s, q) = (d.join("w.window"), d.join("s.octal"), d.join("s.oseq"));
    for args in [
        vec![
            "run",
            "0.6",
            "--to",
            "2e5",
            "--window",
            "2^16",
            "--store",
            p(&w),
            "-q",
        ],
        vec!["run", ".16", "--to", "2e5", "--store", p(&s), "-q"],
        vec!["export", p(&s), "-o", p(&q)],
    ] {
        let out = run(&args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    }
    for (file, kind, reads) in [
        (&w, "window checkpoint", 1u32),
        (&q, "sequence file", 1),
        (&s, "store", 2),
    ] {
        let mut b = std::fs::read(file).unwrap();
        b[8..12].copy_from_slice(&(reads + 1).to_le_bytes());
        let f = d.join(format!("v-{}", file.file_name().unwrap().to_str().unwrap()));
        std::fs::write(&f, b).unwrap();
        let out = run(&["verify", p(&f)]);
        let want = format!(
            "{kind} of format version {}, but this octal reads only version {reads}",
            reads + 1
        );
        t.check(
            one_line_error(&out, 2).and_then(|()| {
                let err = text(&out.stderr);
                if err.contains(&want) {
                    Ok(())
                } else {
                    Err(format!("{err:?} does not say {want:?}"))
                }
            }),
            || format!("verify {kind} of version {}", reads + 1),
        );
    }
    t.done();
}
