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

use octal::engine::Reference;

fn octal() -> Command {
    Command::new(env!("CARGO_BIN_EXE_octal"))
}

fn run(args: &[&str]) -> Output {
    octal().args(args).output().expect("octal runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Counts of one category, printed at the end.
struct Tally {
    name: &'static str,
    tried: usize,
    failures: Vec<String>,
}

impl Tally {
    fn new(name: &'static str) -> Tally {
        Tally {
            name,
            tried: 0,
            failures: Vec::new(),
        }
    }

    fn check(&mut self, result: Result<(), String>, what: impl FnOnce() -> String) {
        self.tried += 1;
        if let Err(e) = result {
            self.failures.push(format!("{}: {e}", what()));
        }
    }

    fn done(self) {
        println!(
            "faults: {}: tried {}, passed {}",
            self.name,
            self.tried,
            self.tried - self.failures.len()
        );
        assert!(
            self.failures.is_empty(),
            "{}: {} of {} failed:\n{}",
            self.name,
            self.failures.len(),
            self.tried,
            self.failures.join("\n")
        );
    }
}

/// A one-line error on stderr, no panic, exit `code`.
fn one_line_error(out: &Output, code: i32) -> Result<(), String> {
    let err = text(&out.stderr);
    if out.status.code() != Some(code) {
        return Err(format!("exit {:?}, wanted {code}: {err}", out.status));
    }
    if err.lines().count() != 1 || err.contains("panicked") || err.contains("backtrace") {
        return Err(format!("not one line: {err:?}"));
    }
    Ok(())
}

/// `one_line_error` whose line says `needle`.
fn error_saying(out: &Output, code: i32, needle: &str) -> Result<(), String> {
    one_line_error(out, code)?;
    let err = text(&out.stderr);
    if !err.contains(needle) {
        return Err(format!("{err:?} does not say {needle:?}"));
    }
    Ok(())
}

#[allow(dead_code)]
fn reference(code: &str, n: usize) -> Vec<u32> {
    octal::compute(&mut Reference::new(&code.parse().unwrap()), n)
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
