//! A run in memory: a [`Job`] computed into a [`Seq`] by the one driver,
//! with its summary.

use std::time::Instant;

use super::driver::{drive, Control, Ending, Progress};
use super::error::JobError;
use super::memory::check_in_memory;
use super::summary::Summary;
use crate::code::Code;
use crate::engine::{EngineKind, MaskSpec};
use crate::period::Detector;
use crate::seq::Seq;
use crate::stats::Stats;

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
    /// Done, or stopped by [`Control::stop`].
    pub ending: Ending,
}

/// Computes G(0), …, G(to−1) in memory, calling `progress` between blocks.
pub fn run(job: &Job, progress: &mut dyn FnMut(&Progress)) -> Result<Outcome, JobError> {
    run_until(job, false, progress)
}

/// As [`run`]; with `stop_at_proof`, stops as soon as the values prove
/// the sequence periodic.
pub fn run_until(
    job: &Job,
    stop_at_proof: bool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Outcome, JobError> {
    let mut ctl = Control {
        progress,
        checkpoint_every: None,
        stop: None,
        stop_at_proof,
    };
    run_with(job, &mut ctl)
}

/// As [`run_until`], steered by `ctl`: with `ctl.stop`, it stops between
/// blocks once the flag becomes non-zero ([`Outcome::ending`] says so,
/// and the summary is of the values computed by then).
pub fn run_with(job: &Job, ctl: &mut Control) -> Result<Outcome, JobError> {
    check_in_memory(job.to)?;
    let start = Instant::now();
    let mut engine = job.engine.build_with(&job.code, job.threads, job.mask)?;
    let mut detector = Detector::new(&job.code);
    let mut seq = Seq::U16(Vec::new());
    let mut stats = Stats::default();
    let ending = drive(
        &mut *engine,
        &mut seq,
        &mut stats,
        &mut detector,
        job.to as usize,
        ctl,
    )?;
    let seconds = start.elapsed().as_secs_f64();
    let mut summary = Summary::new(&job.code, &stats, seconds, seq.width(), engine.info());
    summary.set_period(&job.code, &detector, seq.view(0, seq.len()));
    summary.set_rare(&*engine, seq.view(0, seq.len()));
    Ok(Outcome {
        seq,
        summary,
        ending,
    })
}
