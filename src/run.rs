//! Driving an engine over a long sequence: blocks, width changes, progress
//! and the summary a run ends with.

use std::time::Instant;

use serde::Serialize;
use thiserror::Error;

use crate::code::Code;
use crate::engine::{EngineInfo, EngineKind, Overflow};
use crate::period::{self, Detector, Period};
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
        match self {
            Seq::U16(v) => stats.push(&v[from..to]),
            Seq::U32(v) => stats.push(&v[from..to]),
        }
    }
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
    /// The proven period, if any.
    pub period: Option<Period>,
    /// Without a proof: the period the values show so far, if any.
    pub apparent_period: Option<Period>,
    /// False when no period of this game can be proven at all.
    pub period_provable: bool,
    /// The values up to the end of the first period, `0.[1101122122]`,
    /// when short enough to print.
    pub period_notation: Option<String>,
}

impl Summary {
    /// `(period, preperiod)` when a period is proven.
    pub fn proven_period(&self) -> (Option<u64>, Option<u64>) {
        match &self.period {
            Some(p) => (Some(p.period), Some(p.preperiod)),
            None => (None, None),
        }
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
            period: None,
            apparent_period: None,
            period_provable: true,
            period_notation: None,
        }
    }

    /// Fills in what `detector` found in `seq`.
    pub fn set_period(&mut self, detector: &Detector, seq: &Seq) {
        self.period = detector.proven();
        self.apparent_period = detector.apparent().filter(|_| self.period.is_none());
        self.period_provable = detector.can_prove();
        self.period_notation = self
            .period
            .or(self.apparent_period)
            .and_then(|p| match seq {
                Seq::U16(v) => period::notation(v, &p, 200),
                Seq::U32(v) => period::notation(v, &p, 200),
            });
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
    run_until(job, false, progress)
}

/// Grows `v` to `end` values, doubling its capacity (never beyond `to`)
/// so that a run which stops early never holds memory for all `to`.
fn grow<T: Copy + Default>(v: &mut Vec<T>, end: usize, to: usize) {
    if v.capacity() < end {
        let target = end.max(2 * v.capacity()).min(to);
        v.reserve_exact(target - v.len());
    }
    v.resize(end, T::default());
}

/// As [`run`]; with `stop_at_proof`, stops as soon as the values prove
/// the sequence periodic.
pub fn run_until(
    job: &Job,
    stop_at_proof: bool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Outcome, JobError> {
    check_in_memory(job.to)?;
    let to = job.to as usize;
    let start = Instant::now();
    let mut engine = job.engine.build(&job.code, job.threads);
    let mut detector = Detector::new(&job.code);
    let mut seq = Seq::U16(Vec::new());
    let mut stats = Stats::default();
    let mut done = 0usize;
    while done < to {
        // Blocks grow with the sequence so progress stays lively early on
        // and cheap later; a block ends where a period would be proven
        // (but is at least 1/128 of the values, so at most ~1% is
        // computed past a proof).
        let first = if stop_at_proof { 64 } else { 1 << 10 };
        let mut end = (done + (done / 64).clamp(first, 1 << 22)).min(to);
        if let Some(want) = detector.wants() {
            let want = usize::try_from(want).unwrap_or(usize::MAX);
            end = end.min(want.max(done + (done / 128).max(64)));
        }
        match &mut seq {
            Seq::U16(v) => {
                grow(v, end, to);
                if let Err(Overflow { at, .. }) = engine.extend_u16(v, done) {
                    let wide: Vec<u32> = v[..at].iter().map(|&x| x as u32).collect();
                    seq = Seq::U32(wide);
                    // Recompute this block at the wider width.
                    seq.push_stats(&mut stats, done, at);
                    done = at;
                    continue;
                }
            }
            Seq::U32(v) => {
                grow(v, end, to);
                engine
                    .extend_u32(v, done)
                    .expect("Grundy values beyond u32 are out of reach");
            }
        }
        seq.push_stats(&mut stats, done, end);
        done = end;
        match &seq {
            Seq::U16(v) => detector.feed(&v[..done]),
            Seq::U32(v) => detector.feed(&v[..done]),
        }
        progress(&Progress {
            done: done as u64,
            to: job.to,
            max_value: stats.max_value,
            rare_positions: engine.info().rare_positions,
        });
        if stop_at_proof && detector.proven().is_some() {
            break;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let mut summary = Summary::new(&job.code, &stats, seconds, seq.width(), engine.info());
    summary.set_period(&detector, &seq);
    Ok(Outcome { seq, summary })
}
