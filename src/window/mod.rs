//! Windowed runs: a sequence computed in memory that does not grow with
//! it. A sparse-space game needs, for heap n, the values of its rare
//! heaps (all small) and of their partners n − i − r (all recent), and
//! for the witness scans the pairs (a, m − a) with a small, whose partners
//! are recent too. So a run that keeps a prefix G(0..P), the last values
//! and the statistics can go on for as long as there is time: memory is
//! O(P + W), whatever N.
//!
//! Exact or stopped, never a guess: the engine only ever decides a heap
//! from pairs it holds (see [`crate::engine::Halt`]), every rare position
//! must lie in the prefix, and the mask is frozen once values are dropped
//! (it was chosen, as in a full run, from every value up to then).
//!
//! The run keeps what a full run's summary says (checksum, largest value
//! and where it first occurs, zeros, the period), plus the value
//! histogram, the rare positions, and G at every power of two and at every
//! checkpoint. Periods up to about ¾W are looked for and proven with the
//! same bound as a full run; longer ones are not searched.

pub mod file;
mod kept;
pub mod ring;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::code::Code;
use crate::engine::{Engine, Halt, MaskSpec, Overflow, Sparse, SparseError, WindowState};
use crate::period::{Detector, SHORT};
use crate::run::{Progress, Summary};
use crate::stats::Stats;
use crate::store::stream::{StreamState, Streamer};
use crate::store::StoreError;
use ring::Ring;

pub use kept::KeptValues;

/// The least window: below it the prefix could not hold even the low
/// pairs and the period detector's reach.
pub const MIN_WINDOW: u64 = 1 << 14;
/// Values computed before a game is judged to have no sparse space.
pub const PROBE: usize = 1 << 14;
/// Exit status of a windowed run stopped at a heap it cannot decide.
pub const EXIT_UNDECIDED: u8 = 4;

/// Why a windowed run cannot start or go on.
#[derive(Debug, Error)]
pub enum WindowError {
    /// The game has no sparse space (or moves the engine cannot window).
    #[error("{code} cannot run in a window: {why}; every split pair is needed, and so is every value: run it without --window")]
    Unsupported { code: String, why: String },
    /// The window or prefix asked for cannot work.
    #[error("{0}")]
    Size(String),
    #[error("cannot reserve the address range of {values} values ({error}): a windowed run reserves 2 bytes of addresses a value, without memory; use a smaller --to (about 2^45 at most on x86-64 Linux)")]
    Reserve { values: u64, error: std::io::Error },
    #[error("memory for the window: {what}: {error}")]
    Memory {
        what: &'static str,
        error: std::io::Error,
    },
    /// A prefix recomputed from scratch does not match the values kept.
    #[error("the prefix recomputed from G(0) differs from the values kept at G({0}): a fault in this machine or the engine; the checkpoint is kept")]
    Recompute(u64),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The engine refuses the game (a --mask it cannot use).
    #[error(transparent)]
    Engine(#[from] SparseError),
}

impl WindowError {
    /// Whether the user's input is at fault (exit code 2).
    pub fn is_input(&self) -> bool {
        match self {
            WindowError::Unsupported { .. }
            | WindowError::Size(_)
            | WindowError::Reserve { .. } => true,
            WindowError::Memory { .. } | WindowError::Recompute(_) => false,
            WindowError::Store(e) => e.is_input(),
            WindowError::Engine(_) => true,
        }
    }
}

/// A windowed run's sizes: the window W (values kept behind the newest)
/// and the least prefix P (kept from G(0)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sizes {
    pub window: u64,
    pub prefix: u64,
}

impl Sizes {
    /// Checks the sizes; `prefix` defaults to a quarter of the window.
    pub fn new(window: u64, prefix: Option<u64>) -> Result<Sizes, WindowError> {
        if window < MIN_WINDOW {
            return Err(WindowError::Size(format!(
                "--window {window} is too small: at least {MIN_WINDOW} (2^14) values"
            )));
        }
        let prefix = prefix.unwrap_or(window / 4);
        // The prefix's pairs need partners in the window (see `slide`).
        let most = window / 4 * 3 - 2 * SHORT as u64;
        if !(1024..=most).contains(&prefix) {
            return Err(WindowError::Size(format!(
                "--prefix {prefix} must be between 1024 and {most} (three quarters of the window, less 2048)"
            )));
        }
        Ok(Sizes { window, prefix })
    }

    /// Values computed per step: a quarter of the window.
    fn chunk(&self) -> u64 {
        self.window / 4
    }

    /// How far back of the step's first heap the values are kept.
    fn back(&self) -> u64 {
        self.window - self.chunk()
    }

    /// The longest prefix this window can keep for `code`: its pairs need
    /// partners in the window, and the detector and the moves their reach.
    pub fn room(&self, code: &Code) -> u64 {
        self.back().saturating_sub(reach(code) + SHORT as u64 + 64)
    }
}

/// A prefix grown during a run: at heap `at`, which the kept values could
/// not decide, G(0..to) were recomputed from scratch (in place of
/// G(0..from)) in `seconds`, and the run went on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Grown {
    pub at: u64,
    pub from: u64,
    pub to: u64,
    pub seconds: f64,
}

impl std::fmt::Display for Grown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "heap {} needed a longer prefix: G(0..{}) recomputed from scratch in place of G(0..{}) in {:.2} s",
            self.at, self.to, self.from, self.seconds
        )
    }
}

/// Everything a windowed run keeps besides its values, as its checkpoint
/// file holds it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Meta {
    pub code: String,
    pub to: u64,
    pub sizes: Sizes,
    /// The prefix kept once values are dropped (0 before): at least
    /// `sizes.prefix`, and past the last rare position.
    pub prefix: u64,
    /// G(lo..done) are kept (with G(0..prefix)); nothing below `lo` past
    /// the prefix. 0 before anything is dropped.
    pub lo: u64,
    /// G(0..done) have been computed.
    pub done: u64,
    pub stats: Stats,
    /// How many heaps n < done have G(n) = v, by v.
    pub histogram: Vec<u64>,
    /// (n, G(n)) for n = 1, 2, 4, … below `done`.
    pub powers: Vec<(u64, u32)>,
    /// (n, G(n)) for the last heap of every checkpoint.
    pub marks: Vec<(u64, u32)>,
    pub detector: Detector,
    /// The engine's state once values are dropped.
    pub engine: Option<WindowState>,
    /// Seconds spent computing, over every session.
    pub seconds: f64,
    /// Why the run stopped at a heap it could not decide, if it did.
    #[serde(default)]
    pub halted: Option<String>,
    /// The sequence file being written as the values are made (`--export`).
    #[serde(default)]
    pub export: Option<StreamState>,
    /// How long the prefix may grow when a heap stops the run (None: it
    /// does not grow; the window's [`Sizes::room`] caps it in any case).
    #[serde(default)]
    pub grow_to: Option<u64>,
    /// The prefix's growths, in order.
    #[serde(default)]
    pub prefix_grown: Vec<Grown>,
}

impl Meta {
    /// The values a checkpoint holds: G(0..prefix) and G(lo..done), or
    /// G(0..done) before anything is dropped.
    pub fn kept_ranges(&self) -> [(u64, u64); 2] {
        if self.prefix == 0 {
            [(0, self.done), (self.done, self.done)]
        } else {
            [(0, self.prefix), (self.lo, self.done)]
        }
    }
}

/// The code of a checkpoint's state read from `path`, the state checked
/// with its kept `values` ([`check_meta`]).
pub(crate) fn checked_code(path: &Path, meta: &Meta, values: &[u16]) -> Result<Code, StoreError> {
    let code: Code = meta
        .code
        .parse()
        .map_err(|_| StoreError::damaged(path, format!("unknown code {:?}", meta.code)))?;
    check_meta(path, &code, meta, values)?;
    Ok(code)
}

/// Checks a checkpoint's state, read from `path`, before anything is
/// built from it: every field within what a run of `code` could have
/// written (a crafted one could otherwise make sizes that cannot work,
/// or index past the values kept).
fn check_meta(path: &Path, code: &Code, m: &Meta, values: &[u16]) -> Result<(), StoreError> {
    let bad = |what: String| Err(StoreError::damaged(path, what));
    let (s, done) = (m.sizes, m.done);
    if let Err(e) = Sizes::new(s.window, Some(s.prefix)) {
        return bad(format!("its sizes are impossible: {e}"));
    }
    let st = &m.stats;
    let max = u64::from(st.max_value);
    if st.values != done
        || max > u64::from(u16::MAX)
        || values.iter().any(|&v| u64::from(v) > max)
        || (done > 0 && values.last().map(|&v| u32::from(v)) != Some(st.last_value))
        || st.zeros > done
        || (done > 0 && (st.first_max_at >= done || st.zeros == 0))
    {
        return bad("its statistics do not match its values".into());
    }
    let counted = m.histogram.iter().try_fold(0u64, |a, &c| a.checked_add(c));
    let marks_ok =
        |marks: &[(u64, u32)]| marks.iter().all(|&(n, v)| n < done && u64::from(v) <= max);
    if m.histogram.len() as u64 > max + 1
        || counted != Some(done)
        || !marks_ok(&m.powers)
        || !marks_ok(&m.marks)
    {
        return bad("its histogram or marks do not match its values".into());
    }
    let d = &m.detector;
    d.check(code).or_else(bad)?;
    if d.seen() > done || (d.proven().is_none() && d.seen() != done) || d.kept_from() != m.lo {
        return bad("its period detector does not match its values".into());
    }
    if m.prefix == 0 {
        if m.lo != 0 || m.engine.is_some() {
            return bad("its kept ranges are out of order".into());
        }
    } else {
        // As `slide` leaves them: the prefix within its room, the window
        // reaching back a whole step behind the newest value, and at most
        // one step more.
        let room = s.room(code);
        let behind = done - m.lo;
        if m.prefix < s.prefix || m.prefix > room || behind < s.back() || behind > s.window {
            return bad("its kept ranges do not match its window".into());
        }
        let Some(e) = &m.engine else {
            return bad("it has dropped values but has no engine state".into());
        };
        let counts = e
            .hist
            .iter()
            .flatten()
            .try_fold(0u64, |a, &c| a.checked_add(c));
        if e.built != done
            || u64::from(e.max) != max
            || e.hist.iter().any(|h| h.len() > 1 << 16)
            || counts != Some(done - 1)
        {
            return bad("its engine state does not match its values".into());
        }
        // The rare positions are the prefix's heaps (n ≥ 1) that the mask
        // makes rare, all of them.
        let (mask, i0) = (
            e.mask(),
            code.rules().take_split.first().copied().unwrap_or(0),
        );
        let rare = (1..m.prefix as usize)
            .filter(|&n| mask.is_rare(n, u32::from(values[n]), i0))
            .map(|n| n as u64);
        if !rare.eq(e.rare.iter().copied()) {
            return bad("its rare positions do not match its values".into());
        }
    }
    if m.prefix_grown
        .iter()
        .any(|g| g.from >= g.to || g.to > m.prefix || g.at > done)
    {
        return bad("its prefix growths do not match its prefix".into());
    }
    if let Some(x) = &m.export {
        let framed = x.frames.checked_mul(x.frame_values);
        let most = s.chunk().min(crate::store::seqfile::DEFAULT_FRAME_VALUES);
        if !(1..=most).contains(&x.frame_values) || framed.is_none_or(|f| f > done) {
            return bad("its export's state does not match its values".into());
        }
    }
    Ok(())
}

/// How a windowed run ended.
#[derive(Debug)]
pub enum WindowEnding {
    /// At its target, or at a proven period.
    Done,
    /// Stopped by a signal (the status it asked for), checkpoint saved.
    Stopped(usize),
    /// Stopped at a heap it could not decide: the one-line reason.
    Halted(String),
}

/// What a run tells of each growth of its prefix ([`Windowed::on_grow`]).
type OnGrow = Box<dyn FnMut(&Grown) + Send>;

/// A windowed run in progress.
pub struct Windowed {
    code: Code,
    meta: Meta,
    ring: Ring,
    engine: Sparse,
    /// The largest distance of a move: how far before a heap its own
    /// options reach besides the pairs.
    reach: u64,
    /// Where its checkpoints go (none for a run in memory only).
    file: Option<file::Locked>,
    /// The sequence file the values stream into, if any.
    export: Option<Streamer>,
    /// The sequence file finished at the end of this session.
    exported: Option<PathBuf>,
    /// Told of each growth of the prefix as it happens.
    on_grow: Option<OnGrow>,
}

/// The largest distance of any move of `code` (heaps reached are n − i).
pub(crate) fn reach(code: &Code) -> u64 {
    let r = code.rules();
    r.take_all
        .iter()
        .chain(&r.take_leave_one)
        .chain(&r.take_split)
        .copied()
        .max()
        .unwrap_or(0) as u64
}

/// Refuses games that a window cannot serve, before anything is run
/// long: three-heap splits, and splits without sparse space in the first
/// [`PROBE`] values.
fn check_game(code: &Code) -> Result<(), WindowError> {
    let rules = code.rules();
    let unsupported = |why: String| WindowError::Unsupported {
        code: code.to_string(),
        why,
    };
    if rules.has_split3() {
        return Err(unsupported("it splits heaps in three".into()));
    }
    if rules.take_split.is_empty() {
        return Ok(());
    }
    let mut probe = Sparse::new(code, 1, MaskSpec::Auto).map_err(|e| unsupported(e.to_string()))?;
    let mut g = vec![0u32; PROBE];
    probe.extend_u32(&mut g, 0).expect("values fit in u32");
    if probe.mask().is_none() {
        return Err(unsupported(format!(
            "no sparse space in its first {PROBE} values (every mask leaves over a fifth of the positions rare)"
        )));
    }
    Ok(())
}

impl Windowed {
    /// A new windowed run of `code` to `to` values, its checkpoints in
    /// `path` (none: in memory only).
    pub fn new(
        code: &Code,
        to: u64,
        sizes: Sizes,
        threads: usize,
        path: Option<&Path>,
    ) -> Result<Windowed, WindowError> {
        check_game(code)?;
        let file = match path {
            Some(p) => Some(file::Locked::create(p)?),
            None => None,
        };
        let meta = Meta {
            code: code.to_string(),
            to,
            sizes,
            prefix: 0,
            lo: 0,
            done: 0,
            stats: Stats::default(),
            histogram: Vec::new(),
            powers: Vec::new(),
            marks: Vec::new(),
            detector: Detector::new(code),
            engine: None,
            seconds: 0.0,
            halted: None,
            export: None,
            grow_to: None,
            prefix_grown: Vec::new(),
        };
        Windowed::with(code, meta, threads, file, |_| Ok(()))
    }

    /// Streams the values into the sequence file `path` as they are made
    /// (a new run only).
    pub fn export_to(&mut self, path: &Path) -> Result<(), WindowError> {
        assert_eq!(self.meta.done, 0, "export_to before the run starts");
        let frame = self
            .meta
            .sizes
            .chunk()
            .min(crate::store::seqfile::DEFAULT_FRAME_VALUES);
        self.export = Some(Streamer::create(path, &self.meta.code, frame)?);
        Ok(())
    }

    /// Lets the prefix grow, up to `cap` values (and the window's
    /// [`Sizes::room`]), when a heap cannot be decided from the kept
    /// values: G(0..P') is recomputed from scratch, with P' twice the
    /// prefix or the cap, and the run goes on ([`Meta::prefix_grown`]).
    /// A cap no longer than the prefix keeps it as it is.
    pub fn grow_prefix_to(&mut self, cap: u64) {
        self.meta.grow_to = Some(cap);
        // A run that stopped at a heap tries it again (and stops again
        // where growing cannot help).
        self.meta.halted = None;
    }

    /// Calls `f` with each growth of the prefix as it happens.
    pub fn on_grow(&mut self, f: impl FnMut(&Grown) + Send + 'static) {
        self.on_grow = Some(Box::new(f));
    }

    /// Goes on with other sizes, where that is sound: a window no longer
    /// than the values it kept (the last values are never recomputed), a
    /// prefix within what the new window can keep and holding every rare
    /// position (a longer one is recomputed from scratch). A run that
    /// stopped at a heap tries it again with the new sizes.
    pub fn resize(&mut self, sizes: Sizes) -> Result<(), WindowError> {
        if sizes == self.meta.sizes {
            return Ok(());
        }
        let refuse = |why: String| Err(WindowError::Size(why));
        let m = &self.meta;
        let (w, p) = (sizes.window, sizes.prefix);
        if m.export.is_some() {
            return refuse(format!(
                "--window {w}: this run writes an --export, whose frames are cut to its window; resume it with --window {} --prefix {}",
                m.sizes.window, m.sizes.prefix
            ));
        }
        if m.prefix == 0 {
            // Nothing dropped yet: every value is kept, any sizes do.
            self.meta.sizes = sizes;
            self.meta.halted = None;
            return Ok(());
        }
        let kept = m.done - m.lo;
        if sizes.back() > kept {
            return refuse(format!(
                "--window {w} needs the last {} values, and the checkpoint kept {kept} (G({}..{})); dropped values are not recomputed: resume with --window {} or less, or start anew",
                sizes.back(),
                m.lo,
                m.done,
                kept / 3 * 4 / 1024 * 1024
            ));
        }
        let last_rare = self.engine.rare_positions().last().copied().unwrap_or(0);
        let prefix = p.max(last_rare + 1);
        let room = sizes.room(&self.code);
        if prefix > room {
            return refuse(format!(
                "--window {w} keeps a prefix of {room} values at most, and the run needs {prefix} (--prefix, and the rare position at heap {last_rare}): give a larger --window"
            ));
        }
        let (old, old_lo, lo) = (m.prefix, m.lo, m.done - sizes.back());
        if prefix > old {
            self.recompute_prefix(prefix)?;
        }
        // What the new sizes no longer keep goes (pages wholly inside it).
        let release = [(prefix, old.min(old_lo)), (old_lo.max(prefix), lo)];
        for (a, b) in release {
            if a < b {
                self.ring
                    .release(a as usize, b as usize)
                    .map_err(|error| WindowError::Memory {
                        what: "releasing what the new window does not keep",
                        error,
                    })?;
            }
        }
        let m = &mut self.meta;
        m.sizes = sizes;
        m.prefix = prefix;
        m.lo = lo;
        m.halted = None;
        m.detector.forget_before(lo);
        self.engine.keep_window(prefix as usize, lo as usize);
        Ok(())
    }

    /// Makes G(0..to) kept, computed from scratch by a full-run engine,
    /// after checking that it gives the values already kept.
    fn recompute_prefix(&mut self, to: u64) -> Result<(), WindowError> {
        let (from, lo, done) = (self.meta.prefix, self.meta.lo, self.meta.done);
        let (to_, old) = (to as usize, from as usize);
        let overlap = (lo.min(to) as usize)..to_;
        let fresh = {
            let mut e = Sparse::new(&self.code, self.engine.info().threads, MaskSpec::Auto)
                .map_err(WindowError::Engine)?;
            let mut g = vec![0u16; to_];
            e.extend_u16(&mut g, 0)
                .map_err(|o| WindowError::Recompute(o.at as u64))?;
            g
        };
        let held = self.ring.slice(done as usize);
        let differs = (0..old).chain(overlap).find(|&n| held[n] != fresh[n]);
        if let Some(n) = differs {
            return Err(WindowError::Recompute(n as u64));
        }
        self.ring
            .open(old, to_)
            .map_err(|error| WindowError::Memory {
                what: "backing the longer prefix",
                error,
            })?;
        let g = self.ring.slice(to_);
        let fresh_part = (lo.min(to) as usize).max(old);
        g[old..fresh_part].copy_from_slice(&fresh[old..fresh_part]);
        Ok(())
    }

    /// After a heap the kept values could not decide: grows the prefix
    /// (doubled, within the cap and the window's room) and tries the heap
    /// again; false when it cannot grow.
    fn grow(&mut self, at: u64) -> Result<bool, WindowError> {
        let Some(cap) = self.meta.grow_to else {
            return Ok(false);
        };
        let from = self.meta.prefix;
        let to = (2 * from).min(cap).min(self.meta.sizes.room(&self.code));
        if to <= from {
            return Ok(false);
        }
        let t = Instant::now();
        self.recompute_prefix(to)?;
        self.meta.prefix = to;
        self.engine.keep_window(to as usize, self.meta.lo as usize);
        let grown = Grown {
            at,
            from,
            to,
            seconds: t.elapsed().as_secs_f64(),
        };
        self.meta.seconds += grown.seconds;
        self.meta.prefix_grown.push(grown);
        if let Some(f) = &mut self.on_grow {
            f(&grown);
        }
        Ok(true)
    }

    /// The sequence file this session finished writing, if any.
    pub fn exported(&self) -> Option<&Path> {
        self.exported.as_deref()
    }

    /// Takes up the run checkpointed in `path`, to `to` values if given.
    pub fn resume(path: &Path, to: Option<u64>, threads: usize) -> Result<Windowed, WindowError> {
        let (locked, mut meta, values) = file::Locked::open(path)?;
        let code = checked_code(path, &meta, &values)?;
        if let Some(to) = to {
            meta.to = to;
        }
        let damaged = |what: String| WindowError::Store(StoreError::damaged(path, what));
        let [(a0, a1), (b0, b1)] = meta.kept_ranges();
        if values.len() as u64 != (a1 - a0) + (b1 - b0) {
            return Err(damaged("its values do not match its header".into()));
        }
        let engine_state = meta.engine.clone();
        let mut w = Windowed::with(&code, meta, threads, Some(locked), |ring| {
            let (first, second) = values.split_at((a1 - a0) as usize);
            ring.open(a0 as usize, a1 as usize)
                .and_then(|_| ring.open(b0 as usize, b1 as usize))
                .map_err(|error| WindowError::Memory {
                    what: "backing the checkpoint's values",
                    error,
                })?;
            let g = ring.slice(b1.max(a1) as usize);
            g[a0 as usize..a1 as usize].copy_from_slice(first);
            g[b0 as usize..b1 as usize].copy_from_slice(second);
            Ok(())
        })?;
        if let Some(state) = engine_state {
            let prefix = w.meta.prefix as usize;
            let g = w.ring.slice(prefix);
            w.engine.restore_window(&state, g).map_err(damaged)?;
            w.engine.keep_window(prefix, w.meta.lo as usize);
        }
        if let Some(state) = &w.meta.export {
            // The values after its last whole frame go in again: they are
            // in the window (a frame is at most a step, and the window
            // reaches a step and more back).
            let mut x = Streamer::resume(state, &w.meta.code)?;
            let from = x.values_in_frames();
            let [_, (b0, _)] = w.meta.kept_ranges();
            if w.meta.prefix > 0 && from < b0 {
                return Err(damaged("the export's frames end before the window".into()));
            }
            let done = w.meta.done as usize;
            x.push(&w.ring.slice(done)[from as usize..])?;
            w.export = Some(x);
        }
        Ok(w)
    }

    fn with(
        code: &Code,
        meta: Meta,
        threads: usize,
        file: Option<file::Locked>,
        fill: impl FnOnce(&mut Ring) -> Result<(), WindowError>,
    ) -> Result<Windowed, WindowError> {
        let mut ring = Ring::reserve(meta.to.max(meta.done) as usize).map_err(|error| {
            WindowError::Reserve {
                values: meta.to,
                error,
            }
        })?;
        fill(&mut ring)?;
        let engine = Sparse::new(code, threads, MaskSpec::Auto).map_err(|e| match e {
            SparseError::Unsupported { .. } => WindowError::Unsupported {
                code: code.to_string(),
                why: e.to_string(),
            },
            e => WindowError::Engine(e),
        })?;
        Ok(Windowed {
            code: code.clone(),
            reach: reach(code),
            meta,
            ring,
            engine,
            file,
            export: None,
            exported: None,
            on_grow: None,
        })
    }

    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    pub fn code(&self) -> &Code {
        &self.code
    }

    /// The checkpoint file, if the run has one.
    pub fn path(&self) -> Option<&Path> {
        self.file.as_ref().map(|f| f.path())
    }

    /// The values the run holds now: G(0..prefix) and G(lo..done) (all of
    /// G(0..done) before anything is dropped).
    pub fn kept_values(&mut self) -> KeptValues<'_> {
        let [(_, a1), (b0, b1)] = self.meta.kept_ranges();
        let g = &self.ring.slice(b1.max(a1) as usize)[..];
        KeptValues {
            prefix: &g[..a1 as usize],
            lo: b0 as usize,
            ring: &g[b0 as usize..b1 as usize],
        }
    }

    /// The mask in use (frozen once values are dropped).
    pub fn mask(&self) -> Option<crate::engine::Mask> {
        self.engine.mask()
    }

    /// Bytes of values the run keeps in memory at most.
    pub fn kept_bytes(&self) -> u64 {
        2 * (self.meta.sizes.window + self.meta.sizes.prefix.max(self.meta.prefix))
    }

    /// Computes until the target, a proven period when `stop_at_proof`,
    /// a signal in `stop`, or a heap it cannot decide; checkpoints every
    /// `every` (and at the end) when it has a file.
    pub fn run(
        &mut self,
        stop_at_proof: bool,
        every: Duration,
        stop: Option<&AtomicUsize>,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<WindowEnding, WindowError> {
        let mut last = Instant::now();
        let to = self.meta.to;
        let ending = loop {
            if let Some(why) = &self.meta.halted {
                break WindowEnding::Halted(why.clone());
            }
            if self.meta.done >= to || (stop_at_proof && self.meta.detector.proven().is_some()) {
                break WindowEnding::Done;
            }
            if let Some(status) = stop.map(|s| s.load(Ordering::SeqCst)).filter(|&s| s != 0) {
                break WindowEnding::Stopped(status);
            }
            self.step(stop_at_proof)?;
            progress(&Progress {
                done: self.meta.done,
                to,
                max_value: self.meta.stats.max_value,
                rare_positions: self.engine.info().rare_positions,
                last_rare_at: self.engine.info().last_rare_at,
                period: self.meta.detector.shown(),
            });
            if self.file.is_some() && last.elapsed() >= every {
                self.checkpoint()?;
                last = Instant::now();
            }
        };
        if !matches!(ending, WindowEnding::Stopped(_)) {
            if let Some(x) = self.export.take() {
                self.exported = Some(x.finish(&self.meta.stats, self.meta.detector.proven())?);
            }
        }
        self.checkpoint()?;
        Ok(ending)
    }

    /// Computes the next step of values and drops what falls out of the
    /// window.
    fn step(&mut self, stop_at_proof: bool) -> Result<(), WindowError> {
        let t = Instant::now();
        let m = &self.meta;
        let done = m.done;
        // Short steps at first, so that small runs and proofs stop early.
        let mut end = (done + (done / 8).clamp(1 << 10, m.sizes.chunk())).min(m.to);
        if stop_at_proof {
            if let Some(want) = m.detector.wants() {
                end = end.min(want.max(done + 64));
            }
        }
        let (d, e) = (done as usize, end as usize);
        self.ring.open(d, e).map_err(|error| WindowError::Memory {
            what: "backing the window",
            error,
        })?;
        let g = self.ring.slice(e);
        let good = match self.engine.extend_u16(g, d) {
            Ok(()) => self.engine.halted().map_or(e, |h| h.at),
            Err(Overflow { at, value }) => {
                self.meta.halted = Some(format!(
                    "G({at}) = {value} does not fit the 16-bit values of a windowed run; run it without --window"
                ));
                at
            }
        };
        let g = &self.ring.slice(good)[..];
        if let Some(x) = &mut self.export {
            x.push(&g[d..])?;
        }
        let m = &mut self.meta;
        m.stats.push(&g[d..]);
        for (n, &v) in g.iter().enumerate().skip(d) {
            let v = v as usize;
            if m.histogram.len() <= v {
                m.histogram.resize(v + 1, 0);
            }
            m.histogram[v] += 1;
            if n.is_power_of_two() {
                m.powers.push((n as u64, v as u32));
            }
        }
        m.detector.feed(g);
        m.done = good as u64;
        m.seconds += t.elapsed().as_secs_f64();
        if let Some(h) = self.engine.halted() {
            if !self.grow(h.at as u64)? {
                self.meta.halted = Some(self.halt_message(h));
            }
            return Ok(());
        }
        if self.meta.halted.is_none() {
            self.slide()?;
        }
        Ok(())
    }

    /// Drops the values that fall out of the window, once there are any;
    /// the first time, fixes the prefix and freezes the mask.
    fn slide(&mut self) -> Result<(), WindowError> {
        let m = &self.meta;
        let back = m.sizes.back();
        let Some(new_lo) = m.done.checked_sub(back) else {
            return Ok(());
        };
        let mut prefix = m.prefix;
        if prefix == 0 {
            // The first drop: the prefix must hold every rare position
            // and leave the pairs of the prefix with recent partners.
            let last_rare = self.engine.rare_positions().last().copied().unwrap_or(0);
            prefix = m.sizes.prefix.max(last_rare + 1);
            if new_lo <= prefix {
                return Ok(());
            }
            if !self.code.rules().take_split.is_empty() && self.engine.mask().is_none() {
                // Nothing is dropped yet: the values so far stand.
                self.meta.halted = Some(format!(
                    "{} has no sparse space at {} values; every split pair is needed, and so is every value: go on without --window",
                    self.code, m.done
                ));
                return Ok(());
            }
            let room = m.sizes.room(&self.code);
            if prefix > room {
                // Nothing is dropped yet: every value so far is kept and
                // exact, and the run stops (and checkpoints) here.
                let need = (4 * (last_rare + 1 + self.reach + SHORT as u64 + 64)).div_ceil(3);
                self.meta.halted = Some(format!(
                    "the rare position at heap {last_rare} must stay in the prefix, and the window of {} cannot keep a prefix that long; run again with --window {} or more, or with a full store (without --window)",
                    m.sizes.window,
                    need.next_power_of_two()
                ));
                return Ok(());
            }
        }
        let old_lo = m.lo.max(prefix);
        if new_lo <= old_lo {
            return Ok(());
        }
        self.ring
            .release(old_lo as usize, new_lo as usize)
            .map_err(|error| WindowError::Memory {
                what: "releasing what fell out of it",
                error,
            })?;
        self.meta.prefix = prefix;
        self.meta.lo = new_lo;
        self.meta.detector.forget_before(new_lo);
        self.engine.keep_window(prefix as usize, new_lo as usize);
        Ok(())
    }

    fn halt_message(&self, h: Halt) -> String {
        let (w, p) = (
            self.meta.sizes.window,
            self.meta.prefix.max(self.meta.sizes.prefix),
        );
        let Halt { at, values } = h;
        // The longest prefix `--prefix` takes with this window.
        let most = w / 4 * 3 - 2 * SHORT as u64;
        let remedy = if p < most && self.file.is_some() {
            // Growing was capped (--grow-prefix-to): the window has room.
            format!(
                "resume with a larger prefix (--window {w} --prefix {}, recomputed from G(0)), run again with a larger window (--window {} --prefix {})",
                (2 * p).min(most),
                2 * w,
                2 * p
            )
        } else {
            format!(
                "run again with a larger prefix (--window {} --prefix {}, now {w} and {p})",
                2 * w,
                2 * p
            )
        };
        format!(
            "heap {at} cannot be decided from the values kept: {values} value(s) of its class have no witness among the split pairs with a part below {p} or in the window (a pair in the dropped range might reach them, or, with none, heap {at} is a new rare position); {remedy} or with a full store (without --window)"
        )
    }

    /// Writes the checkpoint (atomically), if the run has a file.
    pub fn checkpoint(&mut self) -> Result<(), WindowError> {
        let m = &mut self.meta;
        if m.done > 0 && m.marks.last().map(|x| x.0) != Some(m.done - 1) {
            let n = m.done - 1;
            let v = self.ring.slice(m.done as usize)[n as usize] as u32;
            m.marks.push((n, v));
        }
        m.engine = if m.prefix > 0 {
            self.engine.window_state()
        } else {
            None
        };
        // The export's frames are durable before the checkpoint says so;
        // once finished, it is no longer the run's.
        m.export = match &mut self.export {
            Some(x) => Some(x.sync()?),
            None => None,
        };
        let Some(f) = &self.file else { return Ok(()) };
        let [(a0, a1), (b0, b1)] = m.kept_ranges();
        let g = self.ring.slice(m.done as usize);
        f.write(
            m,
            &g[a0 as usize..a1 as usize],
            &g[b0 as usize..b1 as usize],
        )?;
        Ok(())
    }

    /// The run's summary, in the same form as a full run's, with the
    /// window's own facts beside it.
    pub fn summary(&mut self) -> WindowSummary {
        let m = &self.meta;
        let mut s = Summary::new(&self.code, &m.stats, m.seconds, 2, self.engine.info());
        let [(_, prefix), _] = m.kept_ranges();
        let g = &self.ring.slice(prefix as usize)[..];
        s.set_period(&m.detector, crate::seq::SeqRef::U16(g));
        // Every rare position lies in the kept prefix.
        s.set_rare(&self.engine, crate::seq::SeqRef::U16(g));
        WindowSummary {
            summary: s,
            window: m.sizes.window,
            prefix: m.prefix.max(m.sizes.prefix),
            kept_from: m.lo,
            memory_bytes: self.kept_bytes(),
            periods_searched_up_to: m.sizes.back() - SHORT as u64,
            histogram: m.histogram.clone(),
            powers_of_two: m.powers.clone(),
            checkpoints: m.marks.clone(),
            halted: m.halted.clone(),
            prefix_grown: m.prefix_grown.clone(),
            exported: self.exported.clone(),
        }
    }
}

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

/// The default checkpoint file of a windowed run of `code`.
pub fn default_path(code: &Code) -> PathBuf {
    PathBuf::from("runs").join(format!("{code}.window"))
}
