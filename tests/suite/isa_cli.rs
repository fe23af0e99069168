//! `OCTAL_ISA` as a user meets it: a path the CPU has is taken and named in
//! the summary; an unknown name or a path the CPU lacks is refused before
//! any work, with one line on stderr and exit code 2.

use std::process::{Command, Output};

use octal_kernels::isa::{self, Isa};

fn run_with(isa: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_octal"))
        .args([
            "run",
            "0.6",
            "--to",
            "1000",
            "--no-store",
            "--json",
            "--quiet",
        ])
        .env("OCTAL_ISA", isa)
        .output()
        .expect("the binary runs")
}

#[test]
fn every_path_the_cpu_has_is_taken_and_named() {
    for path in isa::available() {
        let out = run_with(path.name());
        assert!(out.status.success(), "{path}: {out:?}");
        let json = String::from_utf8(out.stdout).unwrap();
        assert!(
            json.contains(&format!("\"isa\":\"{path}\"")),
            "{path}: {json}"
        );
        // The same values on every path (the checksum covers them all).
        let checksum = |s: &str| {
            s.split("\"checksum\":")
                .nth(1)
                .map(|r| r.split(',').next().unwrap().to_string())
        };
        let scalar = String::from_utf8(run_with("scalar").stdout).unwrap();
        assert!(checksum(&json).is_some(), "{path}: no checksum in {json}");
        assert_eq!(checksum(&json), checksum(&scalar), "{path}");
    }
}

#[test]
fn unknown_names_and_missing_paths_are_refused() {
    let missing = isa::ALL.into_iter().find(|p| !p.on_host());
    let missing: Isa = missing.expect("no CPU has both avx2 and neon");
    for bad in ["sse9", " avx2", missing.name()] {
        let out = run_with(bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{bad:?}: work was done");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{bad:?}: {err}");
        assert!(err.contains("OCTAL_ISA"), "{bad:?}: {err}");
    }
}
