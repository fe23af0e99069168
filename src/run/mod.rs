//! Driving an engine over a long sequence: blocks, width changes, progress
//! and the summary a run ends with.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::code::Code;
use crate::engine::{Engine, EngineKind, MaskSpec, Overflow, SparseError};
use crate::period::Detector;
use crate::seq::{Seq, SeqMut, SeqRef};
use crate::stats::Stats;

mod summary;
pub use summary::{rare_list, rare_of_values, Summary, RARE_LIST_MAX};

/// Where a run keeps its values: a [`Seq`] in memory, or a store on disk
/// (see [`crate::store::checkpoint`]). [`drive`] works over either.
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

/// Feeds the detector G(0..g.len()) (it skips what it has seen).
pub fn feed(detector: &mut Detector, g: SeqRef<'_>) {
    match g {
        SeqRef::U16(v) => detector.feed(v),
        SeqRef::U32(v) => detector.feed(v),
    }
}

/// Input that cannot be run, reported with exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JobError {
    #[error("--to must be at least 1")]
    Empty,
    #[error("{values} values need {need} of memory, but this machine has {have}; a sparse-space game runs in a window of fixed size whatever --to (--window 2^24: 40 MiB)")]
    TooBig {
        values: u64,
        need: String,
        have: String,
    },
    #[error(transparent)]
    Engine(#[from] SparseError),
}

/// Total physical memory, from /proc/meminfo (None where unknown).
pub fn total_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Under an address-space limit (`ulimit -v`, RLIMIT_AS): the bytes it
/// leaves beside what this process maps now. None without a limit.
fn address_space_left() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let statm = std::fs::read_to_string("/proc/self/statm").ok();
    let pages: u64 = statm
        .as_deref()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    Some(r.rlim_cur.saturating_sub(pages.saturating_mul(page)))
}

/// The memory this process can have: the machine's, or less under an
/// address-space limit (None where neither is known).
pub fn memory_available() -> Option<u64> {
    match (total_memory(), address_space_left()) {
        (Some(t), Some(a)) => Some(t.min(a)),
        (t, a) => t.or(a),
    }
}

/// The error of `values` values of `width` bytes that do not fit.
fn too_big(values: u64, width: u64) -> JobError {
    JobError::TooBig {
        values,
        need: crate::store::human_bytes(values.saturating_mul(width)),
        have: crate::store::human_bytes(memory_available().unwrap_or(u64::MAX)),
    }
}

/// Refuses a count that is zero or cannot fit in memory at 2 bytes a value.
pub fn check_in_memory(to: u64) -> Result<(), JobError> {
    if to == 0 {
        return Err(JobError::Empty);
    }
    let need = to.saturating_mul(2);
    let have = memory_available().unwrap_or(u64::MAX);
    if need > have || usize::try_from(to).is_err() {
        return Err(too_big(to, 2));
    }
    Ok(())
}

/// The most values [`reach_for_answers`] computes looking for a proven
/// period (every period the three-digit census proves is proven well
/// within it).
pub const EXPLORE: u64 = 1 << 26;

/// How many values a run that stops at a proven period computes to
/// answer heaps `from..to`: `to` when they fit in memory; else, for a
/// game whose periods can be proven and when the heaps asked for would
/// fit themselves, as many as a quarter of the memory holds (room to
/// widen them to 32 bits), and at most [`EXPLORE`]; the heaps past them
/// are read off the period, if one is proven by then
/// ([`check_answered`]).
pub fn reach_for_answers(code: &Code, from: u64, to: u64) -> Result<u64, JobError> {
    check_in_memory(to.saturating_sub(from).max(1))?;
    let Err(e) = check_in_memory(to) else {
        return Ok(to);
    };
    // Looking for a proof costs time as well as memory: a game with no
    // period proven in the first EXPLORE values is refused in about a
    // minute rather than after hours.
    let most = (memory_available().unwrap_or(0) / 4).min(EXPLORE);
    if matches!(e, JobError::Empty) || !Detector::new(code).can_prove() || most == 0 {
        return Err(e);
    }
    Ok(most)
}

/// After a run to [`reach_for_answers`]: refuses heaps below `to` that
/// were neither computed nor can be read off a proven period.
pub fn check_answered(summary: &Summary, to: u64) -> Result<(), JobError> {
    if summary.values >= to || summary.period.is_some() {
        return Ok(());
    }
    check_in_memory(to)
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

/// One computation: a game, a target and an engine.
#[derive(Debug, Clone)]
pub struct Job {
    pub code: Code,
    pub to: u64,
    pub engine: EngineKind,
    pub threads: usize,
    /// `--mask`: the sparse-space mask (automatic by default).
    pub mask: MaskSpec,
}

/// A finished run: the values and their summary.
pub struct Outcome {
    pub seq: Seq,
    pub summary: Summary,
}

/// Computes G(0), …, G(to−1) in memory, calling `progress` between blocks.
pub fn run(job: &Job, progress: &mut dyn FnMut(&Progress)) -> Result<Outcome, JobError> {
    run_until(job, false, progress)
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

/// As [`run`]; with `stop_at_proof`, stops as soon as the values prove
/// the sequence periodic.
pub fn run_until(
    job: &Job,
    stop_at_proof: bool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Outcome, JobError> {
    check_in_memory(job.to)?;
    let start = Instant::now();
    let mut engine = job.engine.build_with(&job.code, job.threads, job.mask)?;
    let mut detector = Detector::new(&job.code);
    let mut seq = Seq::U16(Vec::new());
    let mut stats = Stats::default();
    let mut ctl = Control {
        progress,
        checkpoint_every: None,
        stop: None,
        stop_at_proof,
    };
    drive(
        &mut *engine,
        &mut seq,
        &mut stats,
        &mut detector,
        job.to as usize,
        &mut ctl,
    )?;
    let seconds = start.elapsed().as_secs_f64();
    let mut summary = Summary::new(&job.code, &stats, seconds, seq.width(), engine.info());
    summary.set_period(&detector, seq.view(0, seq.len()));
    summary.set_rare(&*engine, seq.view(0, seq.len()));
    Ok(Outcome { seq, summary })
}
