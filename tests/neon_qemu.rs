//! The kernels' NEON paths, pinned to their reference twins by running the
//! kernels' tests as aarch64 code under qemu (`scripts/test-aarch64.sh`):
//! exactness only, the speed of emulated code means nothing.
//!
//! It needs the cross tools `scripts/install-aarch64.sh` installs (`.ci/run`
//! does). Without them it says so (a `SKIPPED` line past libtest's
//! capture, visible in `cargo test`'s output) and passes, except under CI (`CI` set),
//! where a missing tool is a failure. On an aarch64 host the kernels' own
//! tests already run the NEON paths natively.

#[path = "common/skip.rs"]
mod skip;

use std::path::Path;
use std::process::Command;

fn has(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn neon_kernels_match_their_twins_under_qemu() {
    if cfg!(not(target_arch = "x86_64")) {
        skip::skipped(
            "neon_kernels_match_their_twins_under_qemu",
            "the qemu run is for x86-64 hosts",
            "cargo test -p octal-kernels on this aarch64 host runs the NEON paths natively",
        );
        return;
    }
    let target = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("aarch64-unknown-linux-gnu"))
        .unwrap_or(false);
    let ready = target && has("aarch64-linux-gnu-gcc") && has("qemu-aarch64");
    if !ready {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: the aarch64 tools are missing (scripts/install-aarch64.sh)"
        );
        skip::skipped(
            "neon_kernels_match_their_twins_under_qemu",
            "no aarch64 cross tools",
            "scripts/install-aarch64.sh",
        );
        return;
    }
    // Its own build directory: the suite's is locked by the running cargo.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("aarch64");
    let out = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/test-aarch64.sh"))
        .env("CARGO_TARGET_DIR", &dir)
        .env_remove("OCTAL_ISA")
        .output()
        .expect("scripts/test-aarch64.sh runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Both test binaries ran, and passed.
    assert!(text.matches("test result: ok.").count() >= 2, "{text}");
    assert!(!text.contains(" 0 passed"), "{text}");
    eprintln!(
        "{}",
        text.lines()
            .filter(|l| l.starts_with("test result"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
