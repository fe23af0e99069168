//! The fault suite's shared pieces (`tests/faults*.rs`): running the
//! binary, a category's tally (`faults: CATEGORY: tried T, passed P`),
//! the one-line-error check, and the reference engine's values.

#![allow(dead_code)]

use std::path::Path;
use std::process::Output;

use octal::engine::Reference;

pub use super::octal;

pub fn run(args: &[&str]) -> Output {
    octal().args(args).output().expect("octal runs")
}

pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    octal()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("octal runs")
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// G(0..n) of `code` by the reference engine, in memory.
pub fn reference(code: &str, n: usize) -> Vec<u32> {
    octal::compute(&mut Reference::new(&code.parse().unwrap()), n)
}

/// What one check found: a plain yes or no, or an error that says why.
pub trait Verdict {
    fn failure(self) -> Option<String>;
}

impl Verdict for bool {
    fn failure(self) -> Option<String> {
        (!self).then(String::new)
    }
}

impl Verdict for Result<(), String> {
    fn failure(self) -> Option<String> {
        self.err()
    }
}

/// Counts of one category, printed at the end.
pub struct Tally {
    name: &'static str,
    pub tried: usize,
    failures: Vec<String>,
}

impl Tally {
    pub fn new(name: &'static str) -> Tally {
        Tally {
            name,
            tried: 0,
            failures: Vec::new(),
        }
    }

    pub fn check(&mut self, verdict: impl Verdict, what: impl FnOnce() -> String) {
        self.tried += 1;
        match verdict.failure() {
            None => {}
            Some(why) if why.is_empty() => self.failures.push(what()),
            Some(why) => self.failures.push(format!("{}: {why}", what())),
        }
    }

    pub fn done(self) {
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

/// A one-line error on stderr (no panic, no backtrace) and a failing
/// exit: `code` where one is given (`2`, `Some(1)`), any but 0 for `None`.
pub fn one_line_error(out: &Output, code: impl Into<Option<i32>>) -> Result<(), String> {
    let code = code.into();
    let err = text(&out.stderr);
    let exit = out.status.code();
    if exit == Some(0) || code.is_some_and(|c| exit != Some(c)) {
        return Err(format!("exit {exit:?}, wanted {code:?}: {err}"));
    }
    if err.lines().count() != 1 || err.contains("panicked") || err.contains("backtrace") {
        return Err(format!("not one line: {err:?}"));
    }
    Ok(())
}
