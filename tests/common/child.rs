//! Runs of the `octal` binary as child processes, shared by the tests that
//! stop, signal and resume them (`tests/suite/store.rs`, `tests/suite/window.rs`).

#![allow(dead_code)]

use std::path::Path;
use std::process::{Child, Command};
use std::thread::sleep;
use std::time::{Duration, Instant};

pub use super::octal;

/// Sends `sig` (e.g. "-INT") to a child.
pub fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} failed");
}

/// Waits until `path` exists (the child created its store, checkpoint or
/// lock) or panics after 20 s.
pub fn wait_for(path: &Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{} never appeared",
            path.display()
        );
        sleep(Duration::from_millis(5));
    }
}
