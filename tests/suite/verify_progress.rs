//! `verify --recompute` shows its progress on a terminal (issue 19, item 9)
//! and nothing of it when its output is not a terminal. The terminal comes
//! from util-linux's `script`; without it the test says so and skips.

use std::process::Command;

/// The binary's path, for the shell command `script` runs.
const OCTAL: &str = env!("CARGO_BIN_EXE_octal");

#[test]
fn recompute_shows_progress_on_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.octal");
    let made = Command::new(OCTAL)
        .args(["run", "0.6", "--to", "60000", "--quiet", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let verify = format!("{} verify {} --recompute 60000", OCTAL, store.display());
    let tty = match Command::new("script")
        .args(["-qec", &verify, "/dev/null"])
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            eprintln!("skipped: no script(1) to give verify a terminal ({e})");
            return;
        }
    };
    assert!(tty.status.success(), "{tty:?}");
    let shown = String::from_utf8_lossy(&tty.stdout);
    assert!(
        shown.contains("recomputing with the reference engine"),
        "{shown}"
    );
    assert!(shown.contains("ETA"), "{shown}");
    assert!(shown.contains("ok "), "{shown}");
    // Without a terminal: the verdict only.
    let plain = Command::new(OCTAL)
        .args(["verify", "--recompute", "60000"])
        .arg(&store)
        .output()
        .unwrap();
    assert!(plain.status.success(), "{plain:?}");
    let err = String::from_utf8_lossy(&plain.stderr);
    assert!(!err.contains("recomputing"), "{err}");
    assert!(String::from_utf8_lossy(&plain.stdout).starts_with("ok "));
}
