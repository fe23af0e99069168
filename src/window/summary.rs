//! A windowed run's summary: a full run's [`Summary`], with the window's
//! own facts beside it.

use std::path::PathBuf;

use serde::Serialize;

use super::meta::Grown;
use crate::run::Summary;

/// A windowed run's summary: a full run's, plus what the window keeps.
#[derive(Debug, Clone, Serialize)]
pub struct WindowSummary {
    #[serde(flatten)]
    pub summary: Summary,
    pub window: u64,
    pub prefix: u64,
    /// G(kept_from..) are held (0: nothing dropped yet).
    pub kept_from: u64,
    /// Bytes of values held at most.
    pub memory_bytes: u64,
    /// Longer periods are not looked for.
    pub periods_searched_up_to: u64,
    /// How many heaps have each value, by value.
    pub histogram: Vec<u64>,
    pub powers_of_two: Vec<(u64, u32)>,
    pub checkpoints: Vec<(u64, u32)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub halted: Option<String>,
    /// The prefix's growths: at which heap, from and to how many values,
    /// and the seconds each recomputation took.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prefix_grown: Vec<Grown>,
    /// The sequence file written as the values were made (`--export`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exported: Option<PathBuf>,
}
