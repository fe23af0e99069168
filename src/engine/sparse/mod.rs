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
//! The files, by phase: `choice.rs` (the state of the values and, at each
//! doubling, the choice of mask or method), `block.rs` (the block pipeline
//! and the second thread), `far.rs` (the far flags), `witness.rs` (the
//! witness rounds) and `checks.rs` (deferred checks and roll-back).

use octal_kernels::mex::{first_unflagged, unflagged_bits};
use octal_kernels::pairs::{flag_pairs, flag_xor_gather, xor_gather_bits};
use octal_kernels::runs::{checks_pay, Check, Runs, CANDIDATES};
use octal_kernels::witness::strike_xors;
use octal_kernels::Value;
use std::cell::RefCell;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::chooser::Chooser;
use super::diagonal::Diagonals;
use super::helper::{wait_until, Helper};
use super::mask::{Histogram, Mask, MaskSpec, RareClass};
use super::{fit, value_bound, Engine, EngineInfo, Overflow};
use crate::code::{Code, Rules};

mod block;
mod checks;
mod choice;
mod far;
mod witness;

use block::*;
use checks::*;
use choice::*;
use far::*;
use witness::*;

/// Why an engine cannot run a game or an option.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SparseError {
    /// Moves this engine does not know (e.g. three-heap splits): callers
    /// fall back to the reference engine rather than compute wrong values.
    #[error("the sparse engine does not support the moves of {code}")]
    Unsupported { code: String },
    #[error(
        "mask {mask}: position parity needs all split distances of {code} to have the same parity"
    )]
    PositionParity { mask: String, code: String },
    #[error("--mask applies to the sparse engine only; the reference engine scans every pair (drop --mask or --engine reference)")]
    MaskWithoutSparse,
}

/// A heap a windowed run could not decide from the values it keeps (see
/// [`Sparse::keep_window`]): `values` values of G(at)'s class, below the
/// least value of the other class that no option reaches, have no
/// witness among the kept split pairs, and the pairs that are not kept
/// might hold one. A new rare position past the prefix always ends here
/// (its value has no witness at all), so the rare positions of a
/// windowed run all lie in its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Halt {
    pub at: usize,
    pub values: u32,
}

/// The engine's state in a windowed run, for its checkpoints: what it
/// derived from all the values, which a resumed run no longer has.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WindowState {
    pub built: u64,
    pub max: u32,
    /// The histogram of values by heap parity (see [`Histogram`]).
    pub hist: [Vec<u64>; 2],
    /// The frozen mask: its bits and whether it uses position parity.
    pub mask: (u32, bool),
    /// The rare positions, all in the kept prefix.
    pub rare: Vec<u64>,
}

impl WindowState {
    /// The frozen mask.
    pub fn mask(&self) -> Mask {
        Mask {
            bits: self.mask.0,
            pp: self.mask.1,
        }
    }
}

/// The sparse-space engine (`--engine sparse`, the default).
pub struct Sparse {
    take_all: Vec<usize>,
    take_leave_one: Vec<usize>,
    splits: Vec<usize>,
    /// Which pairs each split leaves (all, or only unequal ones).
    halves: Halves,
    /// A split distance (all share its parity when position parity is on).
    i0: usize,
    allow_pp: bool,
    spec: MaskSpec,
    threads: usize,
    state: State,
    /// The block's flags from pairs of rare heaps with partners before the
    /// block: a second thread makes them.
    flags: FarFlags,
    /// The current heap's other flags, a byte per value.
    row8: Vec<u8>,
    /// Scratch: the values of the current heap not flagged, as a bitset.
    open: Vec<u64>,
    /// Bit `v` of `class[q]` is set when `v` has class `q` under the mask.
    class: [Vec<u64>; 2],
    /// The values still looking for a witness, as a bitset.
    set: Vec<u64>,
    /// The next block's flags, made ahead by the second thread.
    ahead: Option<Ahead>,
    /// A second flag buffer, for the block made ahead.
    spare_flags: FarFlags,
    /// Witness scans deferred by the last block, not yet checked (and a
    /// list to reuse).
    pending: Deferred,
    spare_pending: Deferred,
    /// Pairs the main thread scans before deferring the rest (adapted).
    budget: usize,
    /// Whether blocks flagged from now on get the first round of every
    /// heap's witness scan in their tiles, and the votes for it so far in
    /// the current block (see [`Sparse::sparse_value`]).
    middle: bool,
    middle_votes: usize,
    /// No deferring below this heap (raised after each roll-back).
    spec_from: usize,
    /// Whether pipelining the blocks pays (with two threads): `on` when
    /// it does, by the blocks' measured time per heap.
    pace: Chooser,
    /// Without sparse space, the diagonal method (for games with splits).
    diagonals: Option<Diagonals>,
    /// With two threads, the second one for the pipelined blocks.
    helper: Option<Helper>,
    /// The far pairs of the block made ahead, of the current block (for
    /// the values of its checked runs), and of its band, as runs (see
    /// [`far_runs`]).
    next_runs: Runs,
    block_runs: Runs,
    runs: Runs,
    /// Per split distance, how many rare heaps (a prefix of the sorted
    /// list) have their partner inside the block: it only grows along a
    /// block, so it is kept, not searched for.
    cursors: Vec<usize>,
    /// Candidates a row is checked for, when half of the far runs are
    /// checked rather than flagged (see [`far_runs`]); fewer in tests.
    candidates: usize,
    /// Heaps whose mex lay past their row's limit, so that their far pairs
    /// were flagged one by one.
    fallbacks: usize,
    /// The values a windowed run keeps (everything otherwise).
    kept: Kept,
    /// The heap a windowed run could not decide, once there is one.
    halt: Option<Halt>,
}

impl Sparse {
    pub fn new(code: &Code, threads: usize, spec: MaskSpec) -> Result<Sparse, SparseError> {
        // Exhaustive on purpose: a new kind of move must be taught to this
        // engine before it compiles, never silently ignored.
        let rules = code.rules();
        let diagonals = Diagonals::new(&rules, threads).filter(|_| Diagonals::worth_it(&rules));
        if rules.has_split3() {
            return Err(SparseError::Unsupported {
                code: code.to_string(),
            });
        }
        let Rules {
            take_all,
            take_leave_one,
            take_split,
            take_split3: _,
            unequal_splits,
        } = rules;
        let (i0, allow_pp) = crate::engine::mask::split_parity(&take_split);
        if let MaskSpec::Fixed(m) = spec {
            if m.pp && !allow_pp {
                return Err(SparseError::PositionParity {
                    mask: spec.to_string(),
                    code: code.to_string(),
                });
            }
        }
        // Two threads at most: this one and the helper.
        let helper = (threads > 1).then(Helper::new).flatten();
        Ok(Sparse {
            take_all,
            take_leave_one,
            splits: take_split,
            halves: Halves { unequal_splits },
            i0,
            allow_pp,
            spec,
            threads: if helper.is_some() { 2 } else { 1 },
            state: State::default(),
            flags: FarFlags::default(),
            row8: Vec::new(),
            open: Vec::new(),
            class: [Vec::new(), Vec::new()],
            set: Vec::new(),
            pending: Deferred::default(),
            spare_pending: Deferred::default(),
            ahead: None,
            spare_flags: FarFlags::default(),
            budget: 4 * MIDDLE_PAIRS,
            spec_from: SPEC_FROM,
            pace: Chooser::new(PACE_TRIAL, PACE_EPOCH),
            middle: false,
            middle_votes: 0,
            diagonals,
            helper,
            next_runs: Runs::default(),
            block_runs: Runs::default(),
            runs: Runs::default(),
            cursors: Vec::new(),
            candidates: CANDIDATES,
            fallbacks: 0,
            kept: Kept::ALL,
            halt: None,
        })
    }

    /// Defers witness scans (with two threads) from heap `from` on, after
    /// `budget` pairs at first. For tests, which need the roll-back of a
    /// failed check to happen often: the default waits for heap 2^15.
    #[doc(hidden)]
    pub fn defer_from(&mut self, from: usize, budget: usize) {
        self.spec_from = from;
        self.budget = budget;
    }

    /// Checks the checked far runs of each heap for `k` candidates (1 to
    /// [`CANDIDATES`]), for tests, which need the mex to lie past a row's
    /// limit often (see [`far_runs`]).
    #[doc(hidden)]
    pub fn check_candidates(&mut self, k: usize) {
        self.candidates = k.clamp(1, CANDIDATES);
    }

    /// How many heaps had their mex past their row's limit.
    #[doc(hidden)]
    pub fn fallbacks(&self) -> usize {
        self.fallbacks
    }

    fn extend<V: Value>(&mut self, g: &mut [V], from: usize) -> Result<(), Overflow> {
        if from != self.state.built || from == 0 {
            self.rebuild(&g[..from]);
        }
        let mut n = from;
        loop {
            // Deferred witness scans are all checked before values leave
            // the engine, before an overflow is reported, before a halt,
            // and before the heap-by-heap path (which does not check them).
            let must_settle = n >= g.len() || self.state.mask.is_none() || self.halt.is_some();
            if must_settle && !self.pending.is_empty() {
                if let Some(again) = self.settle(g) {
                    n = again;
                    continue;
                }
            }
            if let Some(halt) = self.halt {
                // G(..at) stand; what was taken from `at` on is forgotten.
                self.unwind(g, halt.at);
                return Ok(());
            }
            if n >= g.len() {
                return Ok(());
            }
            if n >= self.state.next_choice {
                self.choose(&g[..n]);
                continue;
            }
            let end = g.len().min(self.state.next_choice);
            n = match self.state.mask {
                Some(mask) => match self.sparse_block(g, n, end, mask) {
                    Ok(n) => n,
                    Err(e) => match self.settle(g) {
                        Some(again) => again,
                        None => return Err(e),
                    },
                },
                None => {
                    for k in n..end {
                        let v = self.full_value(&g[..k]);
                        self.push(g, k, v)?;
                    }
                    end
                }
            };
        }
    }

    /// Makes this a windowed run's engine, which from now on reads only
    /// G(0..prefix) and G(lo..). The caller keeps those, starts the next
    /// `extend` at least `prefix` + the largest move distance past `lo`,
    /// and sees that every rare position is below `prefix`. Once anything
    /// is dropped (`lo > prefix`) the mask is frozen: choosing one needs
    /// every value. Witness scans take the top of the prefix first, in
    /// place of the middle, and a heap that the kept pairs cannot decide
    /// stops the run ([`Sparse::halted`]).
    pub fn keep_window(&mut self, prefix: usize, lo: usize) {
        if self.kept.bounds().map(|(p, _)| p) != Some(prefix) {
            // The first round of a witness scan moves with the prefix: a
            // block made ahead had the old one flagged in its tiles.
            self.ahead = None;
            self.middle = false;
        }
        self.kept = Kept::within(prefix, lo);
        // A heap the old kept values could not decide is tried again.
        self.halt = None;
        if lo > prefix {
            self.state.next_choice = usize::MAX;
        }
    }

    /// The heap a windowed run stopped at, and why; `extend` has then
    /// filled the values up to it only.
    pub fn halted(&self) -> Option<Halt> {
        self.halt
    }

    /// The mask in use, if any.
    pub fn mask(&self) -> Option<Mask> {
        self.state.mask
    }

    /// What a windowed run's checkpoint keeps of the engine (None before
    /// a mask is chosen: a run that has not dropped anything restarts
    /// from its values alone).
    pub fn window_state(&self) -> Option<WindowState> {
        let st = &self.state;
        let mask = st.mask?;
        Some(WindowState {
            built: st.built as u64,
            max: st.max,
            hist: st.hist.counts(),
            mask: (mask.bits, mask.pp),
            rare: st.rare.iter().map(|&r| r as u64).collect(),
        })
    }

    /// Takes up a windowed run where its checkpoint left it: `g` holds at
    /// least G(0..prefix), the rare positions' values among them. Fails
    /// when the state does not fit the game.
    pub fn restore_window<V: Value>(&mut self, w: &WindowState, g: &[V]) -> Result<(), String> {
        let mask = w.mask();
        if mask.pp && !self.allow_pp {
            return Err(format!(
                "mask {mask:?} needs position parity, which this game lacks"
            ));
        }
        let rare: Vec<usize> = w.rare.iter().map(|&r| r as usize).collect();
        if rare.windows(2).any(|p| p[0] >= p[1]) || rare.last().is_some_and(|&r| r >= g.len()) {
            return Err("rare positions out of order or out of the prefix".into());
        }
        if let Some(&r) = rare
            .iter()
            .find(|&&r| !mask.is_rare(r, g[r].get(), self.i0))
        {
            return Err(format!("heap {r} is listed as rare but its value is not"));
        }
        self.state = State {
            built: w.built as usize,
            max: w.max,
            hist: Histogram::from_counts(w.hist.clone()),
            mask: Some(mask),
            rare_x: rare.iter().map(|&r| g[r].get()).collect(),
            rare,
            next_choice: usize::MAX,
        };
        self.ahead = None;
        self.pending.clear();
        self.halt = None;
        Ok(())
    }

    /// Values below this bound cover every option so far (XORs included).
    fn bound(&self) -> usize {
        value_bound(self.state.max)
    }
}

impl Engine for Sparse {
    crate::engine::extend_at_both_widths!();
    fn info(&self) -> EngineInfo {
        let st = &self.state;
        EngineInfo {
            engine: "sparse",
            threads: self.threads,
            rare_mask: st.mask.map(|m| m.bits),
            rare_positions: st.mask.map(|_| st.rare.len() as u64),
            // G(0) = 0 in every game: heap 0 has no move.
            rare_positions_with_0: st
                .mask
                .map(|m| st.rare.len() as u64 + u64::from(m.is_rare(0, 0, self.i0))),
            last_rare_at: st.mask.and(st.rare.last().map(|&r| r as u64)),
        }
    }
    fn rare_positions(&self) -> Vec<u64> {
        let st = &self.state;
        match st.mask {
            Some(_) => st.rare.iter().map(|&r| r as u64).collect(),
            None => Vec::new(),
        }
    }
    fn rare_class(&self) -> Option<RareClass> {
        self.state.mask.map(|m| RareClass::of(m, self.i0))
    }
}
