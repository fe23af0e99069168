//! Why a store, a sequence file or a window checkpoint cannot be opened,
//! read or written: one error type for octal's files, with the messages
//! users see.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// Why a store cannot be opened, read or written.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The OS error is part of the message and deliberately not a
    /// `#[source]`, so that `{:#}` does not print it twice.
    #[error("{path}: {what}: {error}")]
    Io {
        path: PathBuf,
        what: &'static str,
        error: io::Error,
    },
    /// Not what the command reads: says what the file is, if octal's.
    #[error("{}", super::kind::foreign(.0))]
    Foreign(PathBuf),
    /// A file of one of octal's kinds (`kind`: "store", "sequence file",
    /// "window checkpoint") in a format version this octal does not read.
    #[error("{path}: {kind} of format version {found}, but this octal reads only version {reads}; read it with the octal that made it")]
    Version {
        path: PathBuf,
        kind: &'static str,
        found: u32,
        reads: u32,
    },
    #[error("{path}: damaged store: {what}")]
    Damaged { path: PathBuf, what: String },
    #[error("{0}: store is in use by another octal process; wait for it to finish or use another --store")]
    Locked(PathBuf),
    #[error("{0}: in use by another octal process (a run or an export writes it); wait for it to finish or choose another path")]
    InUse(PathBuf),
    #[error("{path} holds the sequence of {found}, not {wanted}; use another --store")]
    WrongCode {
        path: PathBuf,
        found: String,
        wanted: String,
    },
    #[error("{0}: already exists")]
    Exists(PathBuf),
    #[error("the code is too long to store (its superblock would take {0} bytes, at most 16 MiB); use --no-store")]
    CodeTooLong(u64),
    #[error("{path}: refusing to write: it {why}")]
    Output { path: PathBuf, why: String },
    #[error("interrupted; nothing was written")]
    Interrupted(usize),
    #[error("{path}: disk full: growing the store needs {need} more but only {have} is free; the last checkpoint is kept, free some space and run `octal resume {path}`")]
    NoSpace {
        path: PathBuf,
        need: String,
        have: String,
    },
    #[error("{values} values need {need} of disk for a memory-mapped store, but {dir} has only {have} free; a sparse-space game runs in a window of fixed size whatever --to (--window 2^24: 40 MiB)")]
    TooBig {
        values: u64,
        need: String,
        dir: PathBuf,
        have: String,
    },
    #[error("{path}: checkpoint state of {need} bytes does not fit a header slot of {have} bytes")]
    SlotFull {
        path: PathBuf,
        need: usize,
        have: u64,
    },
}

impl StoreError {
    /// A path the user named that is missing, a directory, or not
    /// readable as a file: bad input (exit 2), not a failure.
    pub fn is_input(&self) -> bool {
        match self {
            StoreError::Io { error, what, .. } => {
                *what == "opening"
                    && matches!(
                        error.kind(),
                        io::ErrorKind::NotFound
                            | io::ErrorKind::IsADirectory
                            | io::ErrorKind::PermissionDenied
                    )
            }
            _ => false,
        }
    }

    pub(crate) fn io<'a>(
        path: &'a Path,
        what: &'static str,
    ) -> impl FnOnce(io::Error) -> StoreError + 'a {
        move |error| StoreError::Io {
            path: path.to_owned(),
            what,
            error,
        }
    }

    /// Opens `path` (read-only, or read-write), refusing a directory as
    /// `opening: Is a directory`.
    pub(crate) fn open_file(path: &Path, write: bool) -> Result<File> {
        let file = OpenOptions::new()
            .read(true)
            .write(write)
            .open(path)
            .map_err(StoreError::io(path, "opening"))?;
        match file.metadata() {
            Ok(m) if m.is_dir() => Err(StoreError::io(path, "opening")(
                io::Error::from_raw_os_error(libc::EISDIR),
            )),
            _ => Ok(file),
        }
    }

    pub(crate) fn damaged(path: &Path, what: impl Into<String>) -> StoreError {
        StoreError::Damaged {
            path: path.to_owned(),
            what: what.into(),
        }
    }
}

pub(crate) type Result<T, E = StoreError> = std::result::Result<T, E>;
