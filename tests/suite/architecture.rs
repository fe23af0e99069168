//! The shape of the house, checked: what the library links, that no
//! module depends on itself round a cycle ([`cycles`]), and that every
//! unit stays small enough to hold in the head ([`sizes`]).

use std::process::Command;

/// The normal (non-dev) dependencies of a workspace package, as `cargo tree`
/// lists them, one crate name a line.
fn dependencies(package: &str) -> Vec<String> {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-p",
            package,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// The Python wheel builds the library alone: none of the command line's
/// crates may be compiled for it.
#[test]
fn the_python_package_does_not_compile_the_command_lines_crates() {
    let deps = dependencies("octal-python");
    assert!(
        deps.iter().any(|d| d == "octal"),
        "octal-python depends on octal: {deps:?}"
    );
    for cli_only in [
        "clap",
        "clap_complete",
        "clap_mangen",
        "indicatif",
        "anyhow",
    ] {
        assert!(
            !deps.iter().any(|d| d == cli_only),
            "octal-python compiles {cli_only}, a crate only the binary needs"
        );
    }
    // The check can fail: the binary's package does link them.
    assert!(dependencies("octal").iter().any(|d| d == "clap"));
}

mod cycles;
mod sizes;
