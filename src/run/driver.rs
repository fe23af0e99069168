//! The block loop every run shares, written once: [`drive`] extends a
//! [`Backing`] (values in memory or in a store) block by block, widening
//! to u32 when a value needs it, feeding the period detector, reporting
//! progress, checkpointing, and stopping at a proof or when asked.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::error::JobError;
use super::memory::too_big;
use crate::engine::{Engine, Overflow};
use crate::period::Detector;
use crate::seq::{Seq, SeqMut, SeqRef};
use crate::stats::Stats;

/// Where a run keeps its values: a [`Seq`] in memory, or a store on disk
/// (see [`super::stored`]). [`drive`] works over either.
pub trait Backing {
    type Error;
    /// `g[..end]` at the current width, growing the backing as needed
    /// (the run goes on to `to`).
    fn lend(&mut self, end: usize, to: usize) -> Result<SeqMut<'_>, Self::Error>;
    /// `g[from..to]`, read-only.
    fn view(&self, from: usize, to: usize) -> SeqRef<'_>;
    /// Switches to u32 values; `g[..at]` are kept and `stats` describes them.
    fn widen(&mut self, at: usize, stats: &Stats) -> Result<(), Self::Error>;
    /// Makes `g[..stats.values]` durable, where the backing can, with the
    /// period detector's state (fed exactly those values).
    fn checkpoint(&mut self, stats: &Stats, detector: &Detector) -> Result<(), Self::Error>;
}

/// Values in memory: growing them fails with [`JobError::TooBig`] when
/// the allocation does (an address-space limit, no memory left).
impl Backing for Seq {
    type Error = JobError;

    fn lend(&mut self, end: usize, to: usize) -> Result<SeqMut<'_>, JobError> {
        Ok(match self {
            Seq::U16(v) => {
                grow(v, end, to)?;
                SeqMut::U16(v)
            }
            Seq::U32(v) => {
                grow(v, end, to)?;
                SeqMut::U32(v)
            }
        })
    }

    fn view(&self, from: usize, to: usize) -> SeqRef<'_> {
        Seq::view(self, from, to)
    }

    fn widen(&mut self, at: usize, _: &Stats) -> Result<(), JobError> {
        if let Seq::U16(v) = self {
            let mut wide: Vec<u32> = Vec::new();
            wide.try_reserve_exact(v.capacity().max(at))
                .map_err(|_| too_big(v.capacity().max(at) as u64, 4))?;
            wide.extend(v[..at].iter().map(|&x| x as u32));
            *self = Seq::U32(wide);
        }
        Ok(())
    }

    fn checkpoint(&mut self, _: &Stats, _: &Detector) -> Result<(), JobError> {
        Ok(())
    }
}

/// Grows `v` to `end` values, doubling its capacity (never beyond `to`)
/// so that a run which stops early never holds memory for all `to`; an
/// allocation that fails is [`JobError::TooBig`], not an abort.
fn grow<T: Copy + Default>(v: &mut Vec<T>, end: usize, to: usize) -> Result<(), JobError> {
    if v.capacity() < end {
        let target = end.max(2 * v.capacity()).min(to);
        v.try_reserve_exact(target - v.len())
            .map_err(|_| too_big(to as u64, size_of::<T>() as u64))?;
    }
    v.resize(end, T::default());
    Ok(())
}

/// How a run is steered besides its target.
pub struct Control<'a> {
    pub progress: &'a mut dyn FnMut(&Progress),
    /// Checkpoint at the first block boundary after this much time.
    pub checkpoint_every: Option<Duration>,
    /// Set to non-zero (e.g. by a signal handler, to the exit code it
    /// wants) to checkpoint and stop at the next block boundary.
    pub stop: Option<&'a AtomicUsize>,
    /// Stop as soon as the values prove the sequence periodic.
    pub stop_at_proof: bool,
}

/// How [`drive`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// All values up to the target are in.
    Done,
    /// Stopped early; carries what `Control::stop` was set to.
    Stopped(usize),
}

/// Where the block of [`drive`] that starts at `done` ends. Blocks grow
/// with the sequence so progress stays lively early on and cheap later; a
/// block ends where a period would be proven (but is at least 1/128 of
/// the values, so at most ~1% is computed past a proof). A run that stops
/// at a proof stops at a block's end, so every caller that runs a job in
/// pieces ends its pieces here, to stop where `octal run` stops.
pub fn block_end(done: usize, to: usize, stop_at_proof: bool, detector: &Detector) -> usize {
    let first = if stop_at_proof { 64 } else { 1 << 10 };
    let mut end = (done + (done / 64).clamp(first, 1 << 22)).min(to);
    if let Some(want) = detector.wants() {
        let want = usize::try_from(want).unwrap_or(usize::MAX);
        end = end.min(want.max(done + (done / 128).max(64)));
    }
    end
}

/// The block loop every run shares: extends `backing` from
/// `stats.values` to `to`, keeping `stats` and the period `detector` (fed
/// G(0..stats.values) already) up to date, widening to u32 when a value
/// needs it, checkpointing as `ctl` asks and at the end, and stopping early
/// at a proof of periodicity if asked.
pub fn drive<B: Backing>(
    engine: &mut dyn Engine,
    backing: &mut B,
    stats: &mut Stats,
    detector: &mut Detector,
    to: usize,
    ctl: &mut Control,
) -> Result<Ending, B::Error> {
    let mut done = stats.values as usize;
    let mut last_checkpoint = Instant::now();
    while done < to && !(ctl.stop_at_proof && detector.proven().is_some()) {
        if let Some(code) = ctl.stop.map(|s| s.load(Ordering::SeqCst)) {
            if code != 0 {
                backing.checkpoint(stats, detector)?;
                return Ok(Ending::Stopped(code));
            }
        }
        let end = block_end(done, to, ctl.stop_at_proof, detector);
        let overflow = match backing.lend(end, to) {
            Ok(SeqMut::U16(v)) => engine.extend_u16(v, done).err(),
            Ok(SeqMut::U32(v)) => {
                engine
                    .extend_u32(v, done)
                    .expect("Grundy values beyond u32 are out of reach");
                None
            }
            Err(e) => {
                // No room to grow (disk full): keep what is done.
                let _ = backing.checkpoint(stats, detector);
                return Err(e);
            }
        };
        if let Some(Overflow { at, .. }) = overflow {
            backing.view(done, at).push_stats(stats);
            backing.widen(at, stats)?;
            feed(detector, backing.view(0, at));
            // Recompute the rest of this block at the wider width.
            done = at;
            continue;
        }
        backing.view(done, end).push_stats(stats);
        done = end;
        feed(detector, backing.view(0, done));
        (ctl.progress)(&Progress {
            done: done as u64,
            to: to as u64,
            max_value: stats.max_value,
            rare_positions: engine.info().rare_positions,
            last_rare_at: engine.info().last_rare_at,
            period: detector.shown(),
        });
        if ctl
            .checkpoint_every
            .is_some_and(|every| last_checkpoint.elapsed() >= every)
        {
            backing.checkpoint(stats, detector)?;
            last_checkpoint = Instant::now();
        }
    }
    backing.checkpoint(stats, detector)?;
    Ok(Ending::Done)
}

/// What a run reports while it works.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub done: u64,
    pub to: u64,
    pub max_value: u32,
    pub rare_positions: Option<u64>,
    pub last_rare_at: Option<u64>,
    /// The period the values show so far, and whether it is proven.
    pub period: Option<(u64, bool)>,
}

/// Feeds the detector G(0..g.len()) (it skips what it has seen).
pub fn feed(detector: &mut Detector, g: SeqRef<'_>) {
    match g {
        SeqRef::U16(v) => detector.feed(v),
        SeqRef::U32(v) => detector.feed(v),
    }
}
