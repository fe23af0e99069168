//! Which of octal's files a path is, by its first 8 bytes: a store, an
//! exported sequence file or a windowed run's checkpoint. Every message
//! that names a file of the wrong kind is made here.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// The first 8 bytes of every store.
pub const MAGIC: &[u8; 8] = b"OCTSTORE";
/// The first 8 bytes of an exported sequence file.
pub const SEQ_MAGIC: &[u8; 8] = b"OCTSEQZ1";
/// The first 8 bytes of a windowed run's checkpoint. Its format is
/// [`crate::window::file`]'s; the store knows its magic only to name such
/// a file in its messages.
pub const WINDOW_MAGIC: &[u8; 8] = b"OCTALWN1";

/// Which kind of file `path` is, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Store,
    SeqFile,
}

/// The kind a file's first 8 bytes say, if one of [`Kind`].
pub fn kind_of(magic: &[u8; 8]) -> Option<Kind> {
    if magic == MAGIC {
        Some(Kind::Store)
    } else if magic == SEQ_MAGIC {
        Some(Kind::SeqFile)
    } else {
        None
    }
}

/// What a file's first bytes say it is, if octal's.
enum Sniffed {
    Kind(Kind),
    Window,
}

/// The first 8 bytes of `path`, if it can be read that far.
fn head(path: &Path) -> Option<[u8; 8]> {
    let mut head = [0u8; 8];
    let file = File::open(path).ok()?;
    file.read_exact_at(&mut head, 0).ok()?;
    Some(head)
}

fn sniff(path: &Path) -> Option<Sniffed> {
    let head = head(path)?;
    if &head == WINDOW_MAGIC {
        return Some(Sniffed::Window);
    }
    kind_of(&head).map(Sniffed::Kind)
}

/// Whether `path` starts like a windowed run's checkpoint.
pub fn is_window(path: &Path) -> bool {
    matches!(sniff(path), Some(Sniffed::Window))
}

/// The message of [`StoreError::Foreign`]: a file that is not what the
/// command reads, named by its first bytes when it is one of octal's
/// other kinds (read when the message is made), with what reads it.
pub fn foreign(path: &Path) -> String {
    let p = path.display();
    match sniff(path) {
        Some(Sniffed::Window) => format!(
            "{p} is a windowed run's checkpoint (--window), which keeps only a prefix and the last values, not a store or sequence file: `octal resume {p}` continues it and `octal verify {p}` checks it; for every value, run without --window, or with --window and --export FILE"
        ),
        Some(Sniffed::Kind(Kind::Store)) => format!(
            "{p} is a full store (of a run without --window), not a windowed run's checkpoint or a sequence file: `octal resume {p}` continues it and `octal export {p}` writes it to a sequence file"
        ),
        Some(Sniffed::Kind(Kind::SeqFile)) => format!(
            "{p} is an exported sequence file, not a store or a windowed run's checkpoint: `octal import {p} --store STORE` makes a store of it"
        ),
        _ => format!("{p}: not an octal store or sequence file"),
    }
}
