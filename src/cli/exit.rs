//! Exit codes, mapped from the error types in one place: 2 for bad input,
//! 1 for a failure, 3 for what `verify` and `family collect` report, and
//! 128 + the signal for a run stopped by Ctrl-C, SIGTERM or SIGHUP, and
//! 4 for a windowed run stopped at a heap it cannot decide.

use octal::atlas::AtlasError;
use octal::code::CodeError;
use octal::count::CountError;
use octal::games::GameError;
use octal::plot::PlotError;
use octal::run::JobError;
use octal::slurm::SlurmError;
use octal::store::StoreError;

/// What the user typed (or named) cannot be used.
pub const BAD_INPUT: u8 = 2;
/// A run failed, or a store or file is damaged.
pub const FAILED: u8 = 1;
/// `verify`: the store is sound but a header slot was lost, so it opens at
/// its older checkpoint (docs/store.md); `family collect`: members are
/// unfinished.
pub const INCOMPLETE: u8 = 3;

/// An error in what the user typed: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(String);

/// `e` as an [`InputError`].
pub fn input<E: std::fmt::Display>(e: E) -> anyhow::Error {
    InputError(e.to_string()).into()
}

/// The exit code of a command that failed with `e`.
pub fn code(e: &anyhow::Error) -> u8 {
    let bad_input = e.downcast_ref::<InputError>().is_some()
        || e.downcast_ref::<StoreError>()
            .is_some_and(StoreError::is_input)
        || matches!(
            e.downcast_ref::<SlurmError>(),
            Some(SlurmError::NoSuchMember { .. })
        )
        || matches!(
            e.downcast_ref::<SlurmError>(),
            Some(SlurmError::Read { error, .. }) if error.kind() == std::io::ErrorKind::NotFound
        )
        || matches!(
            e.downcast_ref::<StoreError>(),
            Some(
                StoreError::WrongCode { .. }
                    | StoreError::Foreign(_)
                    | StoreError::Exists(_)
                    | StoreError::Output { .. }
                    | StoreError::CodeTooLong(_)
                    | StoreError::Version { .. }
                    | StoreError::TooBig { .. }
            )
        )
        || e.downcast_ref::<CodeError>().is_some()
        || e.downcast_ref::<CountError>().is_some()
        || e.downcast_ref::<JobError>().is_some()
        || e.downcast_ref::<PlotError>()
            .is_some_and(PlotError::is_input)
        || e.downcast_ref::<GameError>().is_some()
        || e.downcast_ref::<AtlasError>()
            .is_some_and(AtlasError::is_input);
    if bad_input {
        BAD_INPUT
    } else {
        FAILED
    }
}

/// A clap usage error as one line: the message and its hints, without the
/// usage block.
pub fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let parts: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more"))
        .collect();
    parts.join(" ").trim_start_matches("error: ").to_string()
}
