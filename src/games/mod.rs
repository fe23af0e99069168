//! Games from the thesis that reduce to octal games on some positions:
//! Cookie Cutter (strips are `0.33…37`, thesis Lemma 5.1.2) and Vertex
//! Deletion on digraphs (a directed path is `0.6`, Theorem 3.2.2).
//!
//! Each module has two halves: the reduction, which names the octal code and
//! heap so the octal engine answers, and an exact game-tree search written
//! without the reduction, which solves the positions the reduction does not
//! cover and checks it where both apply.//!
//! [`error`] holds the error and the limits it states, `bits` the pieces
//! both searches use.

mod bits;
pub mod cookie_cutter;
pub mod error;
pub mod vertex_deletion;

pub use error::GameError;
