//! Room for values on disk: the free space a store may grow into (with
//! the test knob that fakes it), the check made before a run starts, and
//! byte counts as users read them.

use std::fs;
use std::path::{Path, PathBuf};

use super::error::{Result, StoreError};
use super::format::{DEFAULT_SLOT_SIZE, FAKE_SPACE_ENV, SUPER_LEN};
use super::output;

pub(super) fn parent(path: &Path) -> PathBuf {
    output::dir_of(path)
}

/// Free bytes on the filesystem that holds (or will hold) `path`.
fn available_space(path: &Path) -> Option<u64> {
    let dir = parent(path);
    let existing = dir
        .ancestors()
        .find(|d| d.is_dir())
        .unwrap_or(Path::new("."));
    fs2::available_space(existing).ok()
}

/// Free bytes for growing a store: the test override, else the truth.
pub(super) fn space_to_grow(path: &Path) -> Option<u64> {
    std::env::var(FAKE_SPACE_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .or_else(|| available_space(path))
}

/// Refuses up front a target whose values cannot fit on the disk holding
/// `path` (a store there, or one to be created, of `width`-byte values).
pub fn check_space(path: &Path, target: u64, width: u64) -> Result<()> {
    let have_now = fs::metadata(path).map_or(0, |m| m.len());
    let need = target
        .saturating_mul(width)
        .saturating_sub(have_now.saturating_sub(SUPER_LEN + 2 * DEFAULT_SLOT_SIZE));
    // (A long code's superblock is a few pages more: noise here.)
    match available_space(path) {
        Some(have) if have < need => Err(StoreError::TooBig {
            values: target,
            need: human_bytes(need),
            dir: parent(path),
            have: human_bytes(have),
        }),
        _ => Ok(()),
    }
}

/// Human-readable byte counts ("1.5 GiB").
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}
