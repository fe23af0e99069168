//! Driving an engine over a long sequence, written once: [`drive`] is the
//! block loop (blocks, width changes, progress, checkpoints, a stop flag),
//! and every run goes through it, in memory ([`run_with`]) or kept in a
//! store ([`run_in_store`]); the summary a run ends with is [`Summary`].
//! The windowed run, whose values slide out of memory, is
//! [`crate::window::Windowed::run`].
//!
//! | file | what |
//! | --- | --- |
//! | driver.rs | [`Backing`], [`Control`], [`drive`]: the one block loop |
//! | in_memory.rs | [`Job`], [`run`], [`run_until`], [`run_with`]: values in a [`crate::seq::Seq`] |
//! | stored.rs | [`run_in_store`]: a store as the backing, resume, signals |
//! | memory.rs | what fits in memory, and how far a run answering heaps goes |
//! | error.rs | [`JobError`] (bad input) and [`RunError`] (a stored run's) |
//! | summary.rs | [`Summary`], the typed record every report is written from |

mod driver;
mod error;
mod in_memory;
mod memory;
pub mod stored;
mod summary;

pub use driver::{block_end, drive, feed, Backing, Control, Ending, Progress};
pub use error::{JobError, RunError};
pub use in_memory::{run, run_until, run_with, Job, Outcome};
pub use memory::{
    check_answered, check_in_memory, memory_available, reach_for_answers, total_memory, EXPLORE,
};
pub use stored::{run_in_store, StoredOutcome};
pub use summary::{rare_list, rare_of_values, Summary, RARE_LIST_MAX};
