//! Checking what was computed, in one place: a store or an exported
//! sequence file (checksums, the recorded proof, values recomputed with the
//! reference engine) and a windowed run's checkpoint (heaps recomputed
//! from the values it keeps). `octal verify`, the census and Python call
//! here; the formats themselves live in [`crate::store`] and
//! [`crate::window`].

mod sample;
mod stored;
mod window;

pub use sample::{recompute, recompute_with, sample_heaps, SplitMix};
pub use stored::{verify_opened, verify_store, verify_store_with, Verdict};
pub use window::{value_at, verify_window, WindowVerdict};
