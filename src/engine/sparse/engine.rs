//! The sparse engine itself: [`Sparse`] composes its parts (the moves,
//! the values' state, the scratch, the far flags, the two-thread
//! pipeline, the diagonal method and the window) and drives them. Its
//! phases are methods in files of their own: `block.rs` (a block),
//! `heap.rs` (a heap), `settle.rs` (deferred checks and roll-back).

use octal_kernels::Value;

use super::error::SparseError;
use super::far::Far;
use super::moves::Moves;
use super::pairs::Kept;
use super::pipeline::Pipeline;
use super::scratch::Scratch;
use super::state::State;
use super::trial::{Next, Trial};
use super::window::{Halt, WindowState};
use crate::code::Code;
use crate::engine::api::{value_bound, Engine, EngineInfo, Overflow};
use crate::engine::diagonal::Diagonals;
use crate::engine::mask::{Histogram, Mask, MaskSpec, RareClass};
use crate::engine::tuning::{TRIAL_FROM, TRIAL_RARE_FRACTION};
use octal_kernels::runs::CANDIDATES;

/// The sparse-space engine (`--engine sparse`, the default).
pub struct Sparse {
    /// The game's moves.
    pub(super) moves: Moves,
    /// How the mask is chosen (`--mask`).
    pub(super) spec: MaskSpec,
    /// What the engine knows of the values so far.
    pub(super) state: State,
    /// The buffers a heap is finished in.
    pub(super) scratch: Scratch,
    /// The block's far flags.
    pub(super) far: Far,
    /// The second thread and what it works on.
    pub(super) pipeline: Pipeline,
    /// Without sparse space, the diagonal method (for games with splits).
    pub(super) diagonals: Option<Diagonals>,
    /// The values a windowed run keeps (everything otherwise).
    pub(super) kept: Kept,
    /// The heap a windowed run could not decide, once there is one.
    pub(super) halt: Option<Halt>,
    /// Sparse space against the diagonal method, timed at a doubling
    /// (`MaskSpec::Auto` only).
    pub(super) trial: Option<Trial>,
    /// Trials made, and those that kept sparse space (for tests).
    trials: [u32; 2],
    /// The first doubling a trial may be made at.
    trial_from: usize,
    /// The method a decisive trial kept (sparse space or not): the next
    /// doubling goes on with it, without a trial.
    decided: Option<bool>,
}

impl Sparse {
    pub fn new(code: &Code, threads: usize, spec: MaskSpec) -> Result<Sparse, SparseError> {
        let rules = code.rules();
        let diagonals = Diagonals::new(&rules, threads).filter(|_| Diagonals::worth_it(&rules));
        let Some(moves) = Moves::new(rules) else {
            return Err(SparseError::Unsupported {
                code: code.to_string(),
            });
        };
        if let MaskSpec::Fixed(m) = spec {
            if m.pp && !moves.allow_pp {
                return Err(SparseError::PositionParity {
                    mask: spec.to_string(),
                    code: code.to_string(),
                });
            }
        }
        Ok(Sparse {
            moves,
            spec,
            state: State::default(),
            scratch: Scratch::default(),
            far: Far::default(),
            pipeline: Pipeline::new(threads),
            diagonals,
            kept: Kept::ALL,
            halt: None,
            trial: None,
            trials: [0; 2],
            trial_from: TRIAL_FROM,
            decided: None,
        })
    }

    /// Defers witness scans (with two threads) from heap `from` on, after
    /// `budget` pairs at first. For tests, which need the roll-back of a
    /// failed check to happen often: the default waits for heap 2^15.
    #[doc(hidden)]
    pub fn defer_from(&mut self, from: usize, budget: usize) {
        self.pipeline.spec_from = from;
        self.pipeline.budget = budget;
    }

    /// Checks the checked far runs of each heap for `k` candidates (1 to
    /// [`CANDIDATES`]), for tests, which need the mex to lie past a row's
    /// limit often (see `far_runs` in `far.rs`).
    #[doc(hidden)]
    pub fn check_candidates(&mut self, k: usize) {
        self.far.candidates = k.clamp(1, CANDIDATES);
    }

    /// Makes the trials of sparse space against the diagonal method from
    /// heap `from` on: for tests, which run short. The default is
    /// [`TRIAL_FROM`].
    #[doc(hidden)]
    pub fn trial_from(&mut self, from: usize) {
        self.trial_from = from;
    }

    /// The trials of sparse space against the diagonal method made so
    /// far, and how many of them kept sparse space.
    #[doc(hidden)]
    pub fn trials(&self) -> (u32, u32) {
        (self.trials[0], self.trials[1])
    }

    /// How many heaps had their mex past their row's limit.
    #[doc(hidden)]
    pub fn fallbacks(&self) -> usize {
        self.far.fallbacks
    }

    pub(super) fn extend<V: Value>(&mut self, g: &mut [V], from: usize) -> Result<(), Overflow> {
        if from != self.state.built || from == 0 {
            self.rebuild(&g[..from]);
        }
        let mut n = from;
        loop {
            // Deferred witness scans are all checked before values leave
            // the engine, before an overflow is reported, before a halt,
            // and before the heap-by-heap path (which does not check them).
            let must_settle = n >= g.len() || self.state.mask.is_none() || self.halt.is_some();
            if must_settle && !self.pipeline.pending.is_empty() {
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
            let (from, started) = (n, self.trial.is_some().then(std::time::Instant::now));
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
            if let (Some(t), Some(started)) = (&mut self.trial, started) {
                t.record(started.elapsed(), from, n);
            }
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
            self.pipeline.ahead = None;
            self.far.middle = false;
        }
        self.kept = Kept::within(prefix, lo);
        // A heap the old kept values could not decide is tried again.
        self.halt = None;
        if lo > prefix {
            self.state.next_choice = usize::MAX;
            self.trial = None;
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
        if mask.pp && !self.moves.allow_pp {
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
            .find(|&&r| !mask.is_rare(r, g[r].get(), self.moves.i0))
        {
            return Err(format!("heap {r} is listed as rare but its value is not"));
        }
        self.state = State {
            built: w.built as usize,
            max: w.max,
            hist: Histogram::from_counts(w.hist.clone()),
            mask: Some(mask),
            space: Some(mask),
            space_rare: Vec::new(),
            rare_x: rare.iter().map(|&r| g[r].get()).collect(),
            rare,
            next_choice: usize::MAX,
        };
        self.pipeline.ahead = None;
        self.pipeline.pending.clear();
        self.halt = None;
        self.trial = None;
        Ok(())
    }

    /// Values below this bound cover every option so far (XORs included).
    pub(super) fn bound(&self) -> usize {
        value_bound(self.state.max)
    }

    /// Makes the state describe `g` (all known values).
    pub(super) fn rebuild<V: Value>(&mut self, g: &[V]) {
        self.state = State::default();
        self.trial = None;
        self.pipeline.ahead = None;
        if let Some(d) = &mut self.diagonals {
            d.clear();
        }
        for (n, v) in g.iter().enumerate() {
            self.state.note(n, v.get(), self.moves.i0);
        }
        self.state.built = g.len();
        self.choose(g);
    }

    /// Picks the mask for the values `g` and rebuilds the rare list: by
    /// the rule of `self.spec`, or, within a trial, by what it measured.
    pub(super) fn choose<V: Value>(&mut self, g: &[V]) {
        let n = g.len();
        if let Some(t) = self.trial.as_mut().filter(|t| n >= t.end) {
            let mask = t.mask;
            let (sparse, until) = match t.next(n) {
                Next::Try { sparse, end } => (sparse, end),
                Next::Keep { sparse, horizon } => {
                    self.trials[0] += 1;
                    self.trials[1] += u32::from(sparse);
                    self.decided = t.decisive().then_some(sparse);
                    self.trial = None;
                    (sparse, horizon)
                }
            };
            let space = self.state.space;
            self.state
                .set(g, &self.moves, sparse.then_some(mask), space);
            self.state.next_choice = until;
            return;
        }
        self.trial = None;
        self.state.choose(g, &self.moves, self.spec);
        let st = &self.state;
        let close = st
            .space
            .filter(|_| self.spec == MaskSpec::Auto && n >= self.trial_from)
            .filter(|_| st.space_rare().len() * TRIAL_RARE_FRACTION > n);
        let Some(space) = close else {
            self.decided = None;
            return;
        };
        if let Some(sparse) = self.decided.take() {
            let reported = st.space;
            self.state
                .set(g, &self.moves, sparse.then_some(space), reported);
            return;
        }
        self.trial = Trial::start(n, st.next_choice, space, st.mask.is_some());
        if let Some(t) = &self.trial {
            self.state.next_choice = t.end;
        }
    }

    /// Forgets G(k..built) (see [`State::unwind`]), and the block made
    /// ahead from them.
    pub(super) fn unwind<V: Value>(&mut self, g: &[V], k: usize) {
        self.state.unwind(g, k, self.moves.i0);
        self.pipeline.ahead = None;
    }
}

impl Engine for Sparse {
    crate::engine::api::extend_at_both_widths!();
    fn info(&self) -> EngineInfo {
        let st = &self.state;
        EngineInfo {
            engine: "sparse",
            threads: self.pipeline.threads,
            rare_mask: st.space.map(|m| m.bits),
            rare_positions: st.space.map(|_| st.space_rare().len() as u64),
            // G(0) = 0 in every game: heap 0 has no move.
            rare_positions_with_0: st
                .space
                .map(|m| st.space_rare().len() as u64 + u64::from(m.is_rare(0, 0, self.moves.i0))),
            last_rare_at: st.space.and(st.space_rare().last().map(|&r| r as u64)),
        }
    }
    fn rare_positions(&self) -> Vec<u64> {
        let st = &self.state;
        match st.space {
            Some(_) => st.space_rare().iter().map(|&r| r as u64).collect(),
            None => Vec::new(),
        }
    }
    fn rare_class(&self) -> Option<RareClass> {
        self.state.space.map(|m| RareClass::of(m, self.moves.i0))
    }
}
