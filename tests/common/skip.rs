//! Saying that a test was skipped where `cargo test` shows it: libtest
//! captures `eprintln!` of a passing test, so a test that cannot run here
//! (no Python environment, no cross tools) looked like `... ok`. This
//! writes to the process's stderr directly, past the capture, so the line
//! appears next to the test's name in cargo's default output.

use std::io::Write as _;

/// Prints `SKIPPED name: why; enable: how` past libtest's capture.
pub fn skipped(name: &str, why: &str, enable: &str) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "\nSKIPPED {name}: {why}; to run it: {enable}"
    );
}
