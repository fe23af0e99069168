//! Windowed runs: a sequence computed in memory that does not grow with
//! it. A sparse-space game needs, for heap n, the values of its rare
//! heaps (all small) and of their partners n − i − r (all recent), and
//! for the witness scans the pairs (a, m − a) with a small, whose partners
//! are recent too. So a run that keeps a prefix G(0..P), the last values
//! and the statistics can go on for as long as there is time: memory is
//! O(P + W), whatever N.
//!
//! Exact or stopped, never a guess: the engine only ever decides a heap
//! from pairs it holds (see [`crate::engine::Halt`]), every rare position
//! must lie in the prefix, and the mask is frozen once values are dropped
//! (it was chosen, as in a full run, from every value up to then).
//!
//! The run keeps what a full run's summary says (checksum, largest value
//! and where it first occurs, zeros, the period), plus the value
//! histogram, the rare positions, and G at every power of two and at every
//! checkpoint. Periods up to about ¾W are looked for and proven with the
//! same bound as a full run; longer ones are not searched.
//!
//! | file | what |
//! | --- | --- |
//! | windowed.rs | [`Windowed`]: a run in progress, its steps and its loop |
//! | meta.rs | [`Sizes`], [`Meta`]: the state a checkpoint holds, checked |
//! | file.rs | the checkpoint file, written atomically and locked |
//! | ring.rs | the memory the window's values live in |
//! | kept.rs | [`KeptValues`]: G(n) from what the run keeps |
//! | summary.rs | [`WindowSummary`] |
//! | error.rs | [`WindowError`] |
//!
//! Checking a checkpoint is [`crate::verify`]'s.

mod error;
pub mod file;
mod kept;
mod meta;
pub mod ring;
mod summary;
mod windowed;

pub use error::WindowError;
pub use kept::KeptValues;
pub(crate) use meta::{checked_code, reach};
pub use meta::{Grown, Meta, Sizes, MIN_WINDOW};
pub use summary::WindowSummary;
pub use windowed::{default_path, WindowEnding, Windowed, EXIT_UNDECIDED, PROBE};

/// The windowed run of `code` checkpointed at `path` (which must be of the
/// same code and sizes), or a new one to `to` when there is none, writing
/// its values to the sequence file `export` as they are made (a new run
/// only: a run already begun has dropped its first values).
pub fn open_or_new(
    code: &crate::code::Code,
    to: u64,
    sizes: Sizes,
    threads: usize,
    path: Option<&std::path::Path>,
    export: Option<&std::path::Path>,
) -> Result<Windowed, WindowError> {
    let Some(p) = path.filter(|p| p.exists()) else {
        let mut w = Windowed::new(code, to, sizes, threads, path)?;
        if let Some(x) = export {
            w.export_to(x)?;
        }
        return Ok(w);
    };
    if export.is_some() {
        return Err(WindowError::ExportBegun(p.display().to_string()));
    }
    let w = Windowed::resume(p, Some(to), threads)?;
    if w.code() != code {
        return Err(crate::store::StoreError::WrongCode {
            path: p.to_owned(),
            found: w.code().to_string(),
            wanted: code.to_string(),
        }
        .into());
    }
    if w.meta().sizes != sizes {
        return Err(WindowError::Size(format!(
            "{} is a run with --window {} --prefix {}; resume it with those, or use another --store",
            p.display(),
            w.meta().sizes.window,
            w.meta().sizes.prefix
        )));
    }
    Ok(w)
}
