//! Driving an engine over a long sequence: blocks, width changes, progress
//! and the summary a run ends with.

use std::time::Instant;

use serde::Serialize;
use thiserror::Error;

use crate::code::Code;
use crate::engine::{EngineInfo, EngineKind, MaskSpec, Overflow, SparseError};
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
    #[error(transparent)]
    Engine(#[from] SparseError),
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
}

impl Summary {
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
    check_in_memory(job.to)?;
    let to = job.to as usize;
    let start = Instant::now();
    let mut engine = job.engine.build_with(&job.code, job.threads, job.mask)?;
    let mut seq = Seq::U16(Vec::with_capacity(to));
    let mut stats = Stats::default();
    let mut done = 0usize;
    while done < to {
        // Blocks grow with the sequence so progress stays lively early on
        // and cheap later.
        let end = (done + (done / 64).clamp(1 << 10, 1 << 22)).min(to);
        match &mut seq {
            Seq::U16(v) => {
                v.resize(end, 0);
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
                v.resize(end, 0);
                engine
                    .extend_u32(v, done)
                    .expect("Grundy values beyond u32 are out of reach");
            }
        }
        seq.push_stats(&mut stats, done, end);
        done = end;
        progress(&Progress {
            done: done as u64,
            to: job.to,
            max_value: stats.max_value,
            rare_positions: engine.info().rare_positions,
        });
    }
    let seconds = start.elapsed().as_secs_f64();
    let summary = Summary::new(&job.code, &stats, seconds, seq.width(), engine.info());
    Ok(Outcome { seq, summary })
}
