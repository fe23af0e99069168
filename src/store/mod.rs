//! Memory-mapped checkpoint stores: an overnight run keeps its values in a
//! file so that Ctrl-C, `kill -9`, a crash or a full disk cost at most the
//! work since the last checkpoint, and `octal resume` continues exactly
//! there. `docs/store.md` describes the layout and argues why a crash at any
//! instant leaves a store that opens with a consistent state.
//!
//! In short: a superblock written once, two alternating header slots (each
//! with a sequence number and its own checksum) and the values, mapped with
//! memmap2. A checkpoint msyncs the values, then writes the slot the current
//! state is *not* in, then fsyncs. Values below a checkpoint's count are
//! never written again, so the older slot always stays usable.

//!
//! Beside the format: [`checkpoint`], what a checkpoint records besides
//! the values (the period detector's state, the slot it came from), and
//! [`seqfile`], the compressed sequence files that `octal export` writes
//! from a store; [`Opened`] reads either kind. The store knows only its
//! files: runs that extend a store are [`crate::run`]'s, checks of one
//! [`crate::verify`]'s.
//!
//! | file | what |
//! | --- | --- |
//! | file.rs | [`Store`]: the mapped values, checkpoints, widening, chunk checks |
//! | format.rs | the superblock and header slots, [`Checkpoint`] |
//! | codec.rs | little-endian header fields |
//! | kind.rs | which of octal's files a path is, by its magic |
//! | error.rs | [`StoreError`] |
//! | space.rs | disk space, [`check_space`], [`human_bytes`] |
//! | checkpoint.rs | the period detector and slot a checkpoint records |
//! | opened.rs | [`Opened`]: a store or a sequence file, read alike |
//! | seqfile.rs, stream.rs | exported sequence files, written whole or streamed |
//! | output.rs | files written atomically, locks, temporary files |

pub mod checkpoint;
mod codec;
mod error;
mod file;
mod format;
mod kind;
pub mod opened;
pub mod output;
pub mod seqfile;
mod space;
pub mod stream;

pub(crate) use codec::{Dec, Enc};
pub use error::StoreError;
pub use file::{BadChunk, Store};
pub use format::{Checkpoint, DEFAULT_CHUNK_VALUES, DEFAULT_SLOT_SIZE, FAKE_SPACE_ENV, VERSION};
pub use kind::{is_window, MAGIC, WINDOW_MAGIC};
pub use opened::Opened;
pub use space::{check_space, human_bytes};
