//! The fast engine: sparse space where it exists, the diagonal method
//! ([`super::diagonal`]) where it does not, and a second core for both.
//!
//! For a mask `m` (see [`super::mask`]) common × common splits of heap `n`
//! only reach values of one parity class `Q(n)`. The other class is reached
//! only by pairs with a rare heap and by the non-split options, so flagging
//! those gives `mo`, the least unreachable value of the other class, and
//! G(n) ≤ mo. The values of class `Q(n)` below `mo` that are not flagged
//! form a set that one scan of *all* split pairs strikes out (the witness
//! scan, which usually stops early); the least value left is G(n),
//! otherwise G(n) = mo. No pair is ever skipped unproved.
//!
//! Heaps are processed in blocks `[n0, n0 + B)`: the pairs of a rare heap
//! and a partner below `n0` depend only on known values, so they are
//! flagged first (cache-friendly: one contiguous run per rare heap and
//! split distance). Then the block is finished heap by heap. With two
//! threads the blocks are pipelined (`block.rs`).
//!
//! [`Sparse`] (`engine.rs`) composes parts with one job each, leaves
//! first: `pairs.rs` (the split pairs of a heap and the rounds a scan
//! takes them in), `moves.rs` (the game's moves), `state.rs` (what is
//! known of the values; the choice of mask or method at each doubling),
//! `trial.rs` (that choice timed where it is close),
//! `scratch.rs` (a heap's buffers), `witness.rs` (the witness rounds),
//! `checks.rs` (deferred checks), `far.rs` (the far flags),
//! `pipeline.rs` (the second thread), `window.rs` and `error.rs` (what a
//! caller is told). Its phases are methods in `block.rs` (a block),
//! `heap.rs` (a heap) and `settle.rs` (deferred checks settled, roll-back).
//! The tuning constants are in [`crate::engine::tuning`].

mod block;
mod checks;
mod engine;
mod error;
mod far;
mod heap;
mod moves;
mod pairs;
mod pipeline;
mod scratch;
mod settle;
mod state;
mod trial;
mod window;
mod witness;

pub use engine::Sparse;
pub use error::SparseError;
pub use window::{Halt, WindowState};
