//! What a windowed run keeps besides its values: its sizes, its state as
//! the checkpoint file holds it ([`Meta`]), and the checks that state
//! passes before anything is built from it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::WindowError;
use crate::code::Code;
use crate::engine::WindowState;
use crate::period::{Detector, SHORT};
use crate::stats::Stats;
use crate::store::stream::StreamState;
use crate::store::StoreError;

/// The least window: below it the prefix could not hold even the low
/// pairs and the period detector's reach.
pub const MIN_WINDOW: u64 = 1 << 14;

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
    pub(super) fn chunk(&self) -> u64 {
        self.window / 4
    }

    /// How far back of the step's first heap the values are kept.
    pub(super) fn back(&self) -> u64 {
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
