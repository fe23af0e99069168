//! `octal verify` of a store or an exported sequence file: every checksum,
//! the recorded proof of a period, and a sample of values recomputed with
//! the reference engine.

use super::sample::recompute_with;
use crate::period::Detector;
use crate::run::check_in_memory;
use crate::store::checkpoint::{lost_slot, proof_problem};
use crate::store::{Opened, Store, StoreError};

/// What `octal verify` found in a store.
pub struct Verdict {
    /// The summary line.
    pub line: String,
    /// Damage: values or statistics that do not match their checksums, or
    /// values the reference engine disagrees with.
    pub problems: Vec<String>,
    /// A header slot that holds no valid checkpoint: the store opens at
    /// the other (older) one, and values computed after it are lost.
    pub lost_slot: Option<String>,
}

/// What `octal verify` found in a store.
pub fn verify_store(store: &Store, k: u64, seed: u64) -> Verdict {
    verify_store_with(store, k, seed, &mut |_, _| {})
}

/// As [`verify_store`], calling `progress(done, k)` as values are
/// recomputed.
pub fn verify_store_with(
    store: &Store,
    k: u64,
    seed: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Verdict {
    let cp = store.checkpoint();
    let mut problems = Vec::new();
    for b in store.bad_chunks() {
        problems.push(format!(
            "values {}..{} (chunk {}) are damaged: checksum mismatch",
            b.from, b.to, b.chunk
        ));
    }
    let stats = store.stats_of(cp.good);
    if stats != cp.stats {
        problems.push(format!(
            "whole-sequence checksum {} differs from the recorded {}",
            stats.checksum.hex(),
            cp.stats.checksum.hex()
        ));
    }
    if problems.is_empty() {
        if let Ok(d) = serde_json::from_slice::<Detector>(&cp.period_state) {
            problems.extend(proof_problem(store, &d));
        }
    }
    if problems.is_empty() {
        for (i, have, want) in
            recompute_with(store.code(), store.view(0, cp.good), k, seed, progress)
        {
            problems.push(format!(
                "G({i}) is stored as {have} but the reference engine gives {want}"
            ));
        }
    }
    let line = format!(
        "{}: store of {}, {} values (target {}), {} bytes per value, checksum {}, {} chunks of {} values, {} recomputed",
        store.path().display(),
        store.code(),
        cp.good,
        cp.target,
        cp.width,
        cp.stats.checksum.hex(),
        cp.chunks.len(),
        store.chunk_values(),
        if cp.good == 0 { 0 } else { k }
    );
    Verdict {
        line,
        problems,
        lost_slot: lost_slot(store),
    }
}

/// Checks every checksum, and `k` values chosen at random by `seed`
/// against the reference engine (`progress(done, k)` as they go): what
/// `octal verify PATH --recompute K --seed SEED` reports.
pub fn verify_opened(
    opened: &Opened,
    k: u64,
    seed: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Verdict, StoreError> {
    // More than one pick a value would only repeat heaps (and could
    // ask for more memory than there is).
    let k = k.min(opened.len());
    Ok(match opened {
        Opened::Store(s, _) => {
            s.check_length(s.good())?;
            verify_store_with(s, k, seed, progress)
        }
        Opened::File(f) => {
            let mut problems = f.problems();
            if problems.is_empty() {
                problems.extend(opened.recorded_period().and_then(Result::err));
            }
            if problems.is_empty() && k > 0 {
                check_in_memory(f.count().max(1))
                    .map_err(|e| StoreError::damaged(f.path(), e.to_string()))?;
                let all = f.read_all()?;
                for (i, have, want) in
                    recompute_with(f.code(), all.view(0, all.len()), k, seed, progress)
                {
                    problems.push(format!(
                        "G({i}) is stored as {have} but the reference engine gives {want}"
                    ));
                }
            }
            let h = f.header();
            Verdict {
                line: format!(
                    "{}: sequence file of {}, {} values, {} bytes per value, checksum {}, {} frames, {} recomputed",
                    f.path().display(),
                    h.code,
                    h.count,
                    h.width,
                    h.checksum,
                    f.frames(),
                    k.min(h.count)
                ),
                problems,
                lost_slot: None,
            }
        }
    })
}
