//! The engines' tuning constants in one place: block and tile sizes,
//! thresholds, budgets and trial lengths. None of them changes a value
//! the engines compute, only how fast they get there; each was measured
//! against its neighbours, and the measurements are in
//! docs/performance.md (its design decisions and "tried and dropped").

use std::time::Duration;

// ---- The sparse engine: when to use sparse space ----

/// The mask is first chosen at this many values, then at each doubling.
pub(crate) const FIRST_CHOICE: usize = 1024;
/// A game has sparse space when at most this fraction (1/x) of its
/// positions is rare under the best mask: what the summaries report, and
/// what `MaskSpec::Sparse` (windows, the census) computes with.
pub(crate) const MAX_RARE_FRACTION: usize = 5;
/// `MaskSpec::Auto` computes in sparse space when at most this fraction is
/// rare, against the diagonal method that stores a byte a pair (AVX2,
/// NEON, portable): past it the rare pairs cost more than the diagonal
/// they save. `4.364` (1 in 10 rare) gains 1.8× from sparse space on
/// AVX2; the 14-digit `0.33333333333337` (1 in 5.3) loses 1.75×
/// (docs/performance.md, "sparse space").
pub(crate) const AUTO_RARE_FRACTION: usize = 8;
/// The same against the diagonal method that holds its set in registers
/// (AVX-512 with VBMI), several times faster a pair: there `4.364` runs
/// 4× faster without sparse space, and `.165` (1 in 90) 3× faster with it.
pub(crate) const AUTO_RARE_FRACTION_IN_REGISTERS: usize = 32;
/// From this many values on, `MaskSpec::Auto` no longer trusts the two
/// fractions above where the choice is close: between one position in
/// [`TRIAL_RARE_FRACTION`] and one in [`MAX_RARE_FRACTION`] rare, it times
/// both methods at each doubling and keeps the faster (`sparse/trial.rs`).
/// On AVX-512 `.005` gains 1.3× at 3·10^6 values from sparse space, which
/// the fixed fraction refused it (docs/performance.md).
pub(crate) const TRIAL_FROM: usize = 1 << 16;
/// Rarer than one position in this many, sparse space wins by far on
/// every path measured (`.165`, 1 in 90: 3× on AVX-512): no trial.
pub(crate) const TRIAL_RARE_FRACTION: usize = 64;
/// Each method's stretch in a trial is this fraction (1/x) of the heaps
/// so far: the slower one costs at most a few percent of the doubling.
pub(crate) const TRIAL_SHARE: usize = 64;
/// A trial won by more than this factor is not repeated at the next
/// doubling: on AVX-512 `4.364` loses 4× in sparse space, and a trial at
/// every doubling cost it 3% (docs/performance.md).
pub(crate) const TRIAL_DECISIVE: f64 = 2.0;

// ---- The sparse engine: blocks and tiles ----

/// Most heaps per block. The pairs of a rare heap with partners in the
/// block itself wait for their values and are flagged one heap at a time,
/// at about twice the cost of the runs flagged for the whole block, and
/// their number grows with the block (docs/performance.md).
pub(crate) const MAX_BLOCK: usize = 512;
/// Most bytes a block's byte rows would take (one byte per value per
/// heap): keeps blocks of wide rows short.
pub(crate) const FLAG_BUDGET: usize = 1 << 20;
/// Bytes of flag rows filled at a time. The stores go a group of rows at a
/// time, so the tile may exceed the L1 data cache; a longer tile spreads
/// each rare heap's set-up over more rows (docs/performance.md).
pub(crate) const TILE_BYTES: usize = 64 << 10;
/// Heaps per tile when the pipeline hands the next block's flags out a
/// tile at a time: larger tiles balance the two threads more coarsely.
pub(crate) const CLAIM_HEAPS: usize = 64;
/// Least heaps per worker when a block's far flags are split between the
/// threads: shorter halves do not pay for the hand-over.
pub(crate) const MIN_TASK: usize = 128;

// ---- The sparse engine: the witness scan ----

/// Pairs examined per split distance before moving to the next distance.
/// Each chunk is one call of the strike kernel, which sets up its set
/// anew, so short chunks spend their time on that (docs/performance.md).
pub(crate) const CHUNK: usize = 8192;
/// Pairs nearest the middle that the witness scan tries first: they
/// witness most values.
pub(crate) const MIDDLE_PAIRS: usize = 1024;
/// Pairs of the middle scanned per round (so that a budget may pause
/// within the middle).
pub(crate) const MIDDLE_STEP: usize = 256;
/// The middle's rounds.
pub(crate) const MIDDLE_ROUNDS: usize = MIDDLE_PAIRS / MIDDLE_STEP;
/// Rounds before the chunks: the middle's steps and the low round.
pub(crate) const FIXED_ROUNDS: usize = MIDDLE_ROUNDS + 1;
/// The pairs `(a, m − a)` with `a ≤ LOW_PAIRS` make the second round of
/// a witness scan. Their first values are the start of the sequence, and
/// they reach values the middle rarely does.
pub(crate) const LOW_PAIRS: usize = 256;
/// Sets of at least this many values have the first round of their
/// witness scan flagged rather than struck (a flag costs a store; a value
/// struck costs a chain of dependent steps).
pub(crate) const FLAG_FIRST_ROUND: u32 = 16;
/// Sets of at least this many values after the first round have the rest
/// of the middle and the low round flagged too, in one pass, and left out
/// of the scan. Flagging the whole middle for every set, or the low round
/// after the whole middle, was slower (docs/performance.md, tried and
/// dropped).
pub(crate) const FLAG_LOW_ROUND: u32 = 8;

// ---- The sparse engine: the two-thread pipeline ----

/// With two threads, witness scans longer than a budget are checked by the
/// second thread from this heap on (below it, rare positions still appear
/// often, and each makes a deferred check fail and the block be redone).
pub(crate) const SPEC_FROM: usize = 1 << 15;
/// The witness budget a new engine starts with: the middle four times.
pub(crate) const FIRST_BUDGET: usize = 4 * MIDDLE_PAIRS;
/// Most pairs the main thread scans before deferring.
pub(crate) const MAX_BUDGET: usize = 1 << 20;
/// The least budget but none (a budget of 0 defers every scan the flagged
/// rounds leave open).
pub(crate) const MIN_BUDGET: usize = 64;
/// Blocks per trial of pipelining or not (the way not in use).
pub(crate) const PACE_TRIAL: u32 = 32;
/// Blocks the faster way runs between trials of the other: about a million
/// heaps, so the trials cost little where pipelining pays (`0.6`), yet a
/// machine that turns busy is followed within a second or so.
pub(crate) const PACE_EPOCH: u32 = 2048;

// ---- The diagonal method ----

/// Pairs below which a diagonal is not worth sharing between threads.
pub(crate) const PARALLEL_PAIRS: usize = 1 << 14;
/// Pairs per slice of a shared diagonal, at least (each slice is claimed
/// by whichever thread is free, so a descheduled helper delays little).
pub(crate) const SLICE_PAIRS: usize = 1 << 13;
/// Most slices per shared diagonal.
pub(crate) const MAX_SLICES: usize = 32;
/// Long diagonals per trial of the mode (shared or not) not in use.
pub(crate) const DIAGONAL_TRIAL: u32 = 32;
/// Long diagonals in the better mode between trials.
pub(crate) const DIAGONAL_EPOCH: u32 = 512;
/// Most diagonals computed at once by the two threads (when that many are
/// known: a game whose least split distance is a can have a + 1).
pub(crate) const BATCH: usize = 8;
/// Pairs from which a game of one split distance may take the mex by
/// candidates instead of the whole set.
pub(crate) const CANDIDATE_PAIRS: usize = 1 << 14;
/// Long diagonals by the cheaper of candidates and the whole set between
/// trials of the other. Longer than [`DIAGONAL_EPOCH`]: the two differ by
/// the method, not by the machine's load, and each trial of the whole set
/// is dear (docs/performance.md, Cookie Cutter 6 by candidates).
pub(crate) const CANDIDATE_EPOCH: u32 = 4096;
/// Pairs a segment of a diagonal's candidates (also what a thread claims
/// of a shared dense part at a time: each claim moves a cache line between
/// the cores once both are at it).
pub const SEGMENT: usize = 4096;
/// Share of a diagonal's segments flagged whole (the rest are scanned for
/// candidates): simulated on `0.333337` near 10^6 and measured
/// (docs/performance.md).
pub const DENSE: f64 = 0.4;

// ---- Three-heap splits ----

/// 512 MiB of stored `S2` sets (see `Split3`).
pub const SPLIT3_CACHE_WORDS: usize = 1 << 26;
/// Share bit permutations between equal `G(c) & 63` while the 64 blocks
/// stay small (`B` words, 32 MiB at most).
pub(crate) const SPLIT3_GROUP_MAX_BOUND: usize = 1 << 22;

// ---- The second thread ----

/// How long the helper stays awake after a job before it parks: a block's
/// hand-over is far shorter, a park and wake-up far longer.
pub(crate) const STAY_AWAKE: Duration = Duration::from_millis(20);
