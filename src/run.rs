//! Driving an engine over a long sequence: blocks, width changes, progress
//! and the summary a run ends with.

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use thiserror::Error;

use crate::code::Code;
use crate::engine::{Engine, EngineInfo, EngineKind, Overflow};
use crate::stats::Stats;

/// A sequence held in memory at the narrowest width that fits its values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seq {
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Default for Seq {
    fn default() -> Self {
        Seq::U16(Vec::new())
    }
}

impl Seq {
    pub fn len(&self) -> usize {
        match self {
            Seq::U16(v) => v.len(),
            Seq::U32(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, n: usize) -> u32 {
        match self {
            Seq::U16(v) => v[n] as u32,
            Seq::U32(v) => v[n],
        }
    }

    /// Bytes per value at the current width.
    pub fn width(&self) -> usize {
        match self {
            Seq::U16(_) => 2,
            Seq::U32(_) => 4,
        }
    }

    pub fn to_u32(&self) -> Vec<u32> {
        match self {
            Seq::U16(v) => v.iter().map(|&x| x as u32).collect(),
            Seq::U32(v) => v.clone(),
        }
    }

    /// Statistics of `self[from..to]`, pushed onto `stats`.
    pub fn push_stats(&self, stats: &mut Stats, from: usize, to: usize) {
        self.view(from, to).push_stats(stats);
    }

    /// `self[from..to]`, borrowed.
    pub fn view(&self, from: usize, to: usize) -> SeqRef<'_> {
        match self {
            Seq::U16(v) => SeqRef::U16(&v[from..to]),
            Seq::U32(v) => SeqRef::U32(&v[from..to]),
        }
    }
}

/// Values borrowed from memory or from a store's map.
#[derive(Debug, Clone, Copy)]
pub enum SeqRef<'a> {
    U16(&'a [u16]),
    U32(&'a [u32]),
}

impl SeqRef<'_> {
    pub fn len(&self) -> usize {
        match self {
            SeqRef::U16(v) => v.len(),
            SeqRef::U32(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, n: usize) -> u32 {
        match self {
            SeqRef::U16(v) => v[n] as u32,
            SeqRef::U32(v) => v[n],
        }
    }

    /// Takes these values into `stats`, as the values that follow.
    pub fn push_stats(&self, stats: &mut Stats) {
        match self {
            SeqRef::U16(v) => stats.push(v),
            SeqRef::U32(v) => stats.push(v),
        }
    }

    pub fn checksum(&self) -> crate::stats::Checksum {
        match self {
            SeqRef::U16(v) => crate::stats::Checksum::of(v),
            SeqRef::U32(v) => crate::stats::Checksum::of(v),
        }
    }
}

/// Values lent for an engine to fill.
#[derive(Debug)]
pub enum SeqMut<'a> {
    U16(&'a mut [u16]),
    U32(&'a mut [u32]),
}

/// Where a run keeps its values: a [`Seq`] in memory, or a store on disk
/// (see `stored.rs`). [`drive`] works over either.
pub trait Backing {
    type Error;
    /// `g[..end]` at the current width, growing the backing as needed.
    fn lend(&mut self, end: usize) -> Result<SeqMut<'_>, Self::Error>;
    /// `g[from..to]`, read-only.
    fn view(&self, from: usize, to: usize) -> SeqRef<'_>;
    /// Switches to u32 values; `g[..at]` are kept and `stats` describes them.
    fn widen(&mut self, at: usize, stats: &Stats) -> Result<(), Self::Error>;
    /// Makes `g[..stats.values]` durable, where the backing can, with the
    /// period detector's serialised state (`None`: keep the saved one).
    fn checkpoint(&mut self, stats: &Stats, period_state: Option<&[u8]>)
        -> Result<(), Self::Error>;
}

impl Backing for Seq {
    type Error = Infallible;

    fn lend(&mut self, end: usize) -> Result<SeqMut<'_>, Infallible> {
        Ok(match self {
            Seq::U16(v) => {
                v.resize(end, 0);
                SeqMut::U16(v)
            }
            Seq::U32(v) => {
                v.resize(end, 0);
                SeqMut::U32(v)
            }
        })
    }

    fn view(&self, from: usize, to: usize) -> SeqRef<'_> {
        Seq::view(self, from, to)
    }

    fn widen(&mut self, at: usize, _: &Stats) -> Result<(), Infallible> {
        if let Seq::U16(v) = self {
            let mut wide: Vec<u32> = Vec::with_capacity(v.capacity());
            wide.extend(v[..at].iter().map(|&x| x as u32));
            *self = Seq::U32(wide);
        }
        Ok(())
    }

    fn checkpoint(&mut self, _: &Stats, _: Option<&[u8]>) -> Result<(), Infallible> {
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
}

/// How [`drive`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// All values up to the target are in.
    Done,
    /// Stopped early; carries what `Control::stop` was set to.
    Stopped(usize),
}

/// The block loop every run shares: extends `backing` from
/// `stats.values` to `to`, keeping `stats` up to date, widening to u32 when
/// a value needs it and checkpointing as `ctl` asks (and at the end).
pub fn drive<B: Backing>(
    engine: &mut dyn Engine,
    backing: &mut B,
    stats: &mut Stats,
    to: usize,
    ctl: &mut Control,
) -> Result<Ending, B::Error> {
    let mut done = stats.values as usize;
    let mut last_checkpoint = Instant::now();
    while done < to {
        if let Some(code) = ctl.stop.map(|s| s.load(Ordering::SeqCst)) {
            if code != 0 {
                backing.checkpoint(stats, None)?;
                return Ok(Ending::Stopped(code));
            }
        }
        // Blocks grow with the sequence so progress stays lively early on
        // and cheap later.
        let end = (done + (done / 64).clamp(1 << 10, 1 << 22)).min(to);
        let overflow = match backing.lend(end) {
            Ok(SeqMut::U16(v)) => engine.extend_u16(v, done).err(),
            Ok(SeqMut::U32(v)) => {
                engine
                    .extend_u32(v, done)
                    .expect("Grundy values beyond u32 are out of reach");
                None
            }
            Err(e) => {
                // No room to grow (disk full): keep what is done.
                let _ = backing.checkpoint(stats, None);
                return Err(e);
            }
        };
        if let Some(Overflow { at, .. }) = overflow {
            backing.view(done, at).push_stats(stats);
            backing.widen(at, stats)?;
            // Recompute the rest of this block at the wider width.
            done = at;
            continue;
        }
        backing.view(done, end).push_stats(stats);
        done = end;
        (ctl.progress)(&Progress {
            done: done as u64,
            to: to as u64,
            max_value: stats.max_value,
            rare_positions: engine.info().rare_positions,
        });
        if ctl
            .checkpoint_every
            .is_some_and(|every| last_checkpoint.elapsed() >= every)
        {
            backing.checkpoint(stats, None)?;
            last_checkpoint = Instant::now();
        }
    }
    backing.checkpoint(stats, None)?;
    Ok(Ending::Done)
}

/// Input that cannot be run, reported with exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JobError {
    #[error("--to must be at least 1")]
    Empty,
    #[error("{values} values need {need} of memory, but this machine has {have}")]
    TooBig {
        values: u64,
        need: String,
        have: String,
    },
}

/// Human-readable byte counts ("1.5 GiB").
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

/// Total physical memory, from /proc/meminfo (None where unknown).
pub fn total_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Refuses a count that is zero or cannot fit in memory at 2 bytes a value.
pub fn check_in_memory(to: u64) -> Result<(), JobError> {
    if to == 0 {
        return Err(JobError::Empty);
    }
    let need = to.saturating_mul(2);
    let have = total_memory().unwrap_or(u64::MAX);
    if need > have || usize::try_from(to).is_err() {
        return Err(JobError::TooBig {
            values: to,
            need: human_bytes(need),
            have: human_bytes(have),
        });
    }
    Ok(())
}

/// What a run reports while it works.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub done: u64,
    pub to: u64,
    pub max_value: u32,
    pub rare_positions: Option<u64>,
}

/// The summary a run ends with; `--json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub code: String,
    pub values: u64,
    pub max_value: u32,
    pub first_max_at: u64,
    pub zeros: u64,
    pub last_value: u32,
    /// FNV-1a-64 over the values as little-endian u32, as 16 hex digits.
    pub checksum: String,
    pub seconds: f64,
    pub values_per_second: f64,
    pub bytes_per_value: usize,
    #[serde(flatten)]
    pub engine: EngineInfo,
    /// The store holding the values, for runs kept on disk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    /// How many values the store already held when this session began.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed_from: Option<u64>,
}

impl Summary {
    /// `(period, preperiod)` when a period is proven.
    pub fn proven_period(&self) -> (Option<u64>, Option<u64>) {
        (None, None)
    }

    pub fn new(code: &Code, stats: &Stats, seconds: f64, width: usize, engine: EngineInfo) -> Self {
        Summary {
            code: code.to_string(),
            values: stats.values,
            max_value: stats.max_value,
            first_max_at: stats.first_max_at,
            zeros: stats.zeros,
            last_value: stats.last_value,
            checksum: stats.checksum.hex(),
            seconds,
            values_per_second: if seconds > 0.0 {
                stats.values as f64 / seconds
            } else {
                0.0
            },
            bytes_per_value: width,
            engine,
            store: None,
            resumed_from: None,
        }
    }
}

/// One computation: a game, a target and an engine.
#[derive(Debug, Clone)]
pub struct Job {
    pub code: Code,
    pub to: u64,
    pub engine: EngineKind,
    pub threads: usize,
}

/// A finished run: the values and their summary.
pub struct Outcome {
    pub seq: Seq,
    pub summary: Summary,
}

/// Computes G(0), …, G(to−1) in memory, calling `progress` between blocks.
pub fn run(job: &Job, progress: &mut dyn FnMut(&Progress)) -> Result<Outcome, JobError> {
    check_in_memory(job.to)?;
    let start = Instant::now();
    let mut engine = job.engine.build(&job.code, job.threads);
    let mut seq = Seq::U16(Vec::with_capacity(job.to as usize));
    let mut stats = Stats::default();
    let mut ctl = Control {
        progress,
        checkpoint_every: None,
        stop: None,
    };
    let Ok(_) = drive(
        &mut *engine,
        &mut seq,
        &mut stats,
        job.to as usize,
        &mut ctl,
    );
    let seconds = start.elapsed().as_secs_f64();
    let summary = Summary::new(&job.code, &stats, seconds, seq.width(), engine.info());
    Ok(Outcome { seq, summary })
}
