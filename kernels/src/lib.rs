//! The hot loops of the octal engine, kept apart from everything else so
//! they can be read, tested and tuned on their own.
//!
//! The layers, each depending only on those below it:
//! - the kernels' public modules ([`diagonal`], [`mex`], [`pairs`],
//!   [`runs`], [`witness`], [`xor_translate`]): each checks its inputs and
//!   keeps its reference twin, the plain statement the tests pin every
//!   path to;
//! - `platform`: the one `match` per operation on the level [`isa`]
//!   detected once (BLAKE3's `platform.rs`);
//! - `portable` (plain Rust) and `arch` (one folder per instruction set,
//!   as memchr's `arch/`): the paths, which know nothing of each other;
//! - `generic`: what the paths share; and [`value`], the widths.
//!
//! The tests pin every path the host has to the twin on random inputs;
//! `tests/architecture.rs` fails on any cycle between these modules.

mod arch;
pub mod diagonal;
mod generic;
pub mod mex;
pub mod pairs;
mod platform;
mod portable;
pub mod runs;
pub mod value;
pub mod witness;
pub mod xor_translate;

pub use platform::isa;
pub use platform::isa::Isa;
pub use value::Value;
