//! A stored run as the command line shows it, written once: the library's
//! [`octal::run::run_in_store`] with a progress bar and what it says when
//! stopped. `run`, `resume`, family members, the census and the games'
//! long runs all go through [`run_with_bar`].

use std::sync::atomic::AtomicUsize;

use octal::run::stored::stop_on_signals;
use octal::run::{run_in_store, Control, RunError, StoredOutcome};

use super::prelude::*;

/// Where `octal run CODE` keeps its values when no --store is given.
pub fn default_store(code: &Code) -> PathBuf {
    PathBuf::from("runs").join(format!("{code}.octal"))
}

/// Says on stderr when a store opened at its older checkpoint.
fn warn_lost_slot(path: &Path, lost: Option<String>) {
    if let Some(lost) = lost {
        eprintln!("octal: warning: {}: {lost}", path.display());
    }
}

/// Opens a store or an exported file to read, saying on stderr when a
/// store opened at its older checkpoint.
pub fn open_saved(path: &Path) -> Result<Opened, StoreError> {
    let opened = Opened::open(path)?;
    warn_lost_slot(path, opened.lost_slot());
    Ok(opened)
}

/// How a driven run ended.
pub enum Driven {
    /// To its target, or to a proven period.
    Done(Box<Summary>),
    /// Stopped by a signal, its checkpoint saved: the exit status
    /// (128 + the signal), why, in one line, and the summary of the values
    /// held.
    Stopped {
        status: u8,
        why: String,
        partial: Box<Summary>,
    },
}

/// Extends `store` by `job` (to a proven period when `stop_at_period`),
/// checkpointing every `every` and when `stop` is set, showing progress on
/// `bar` (cleared at the end). Its errors are the store's or the job's,
/// as the exit code needs them.
pub fn run_with_bar(
    store: &mut Store,
    job: &Job,
    every: Duration,
    stop: &AtomicUsize,
    stop_at_period: bool,
    bar: Option<Bar>,
) -> Result<Driven> {
    if let Some(bar) = &bar {
        bar.start_at(store.good().min(job.to));
    }
    let mut ctl = Control {
        progress: &mut |p| update(&bar, p),
        checkpoint_every: Some(every),
        stop: Some(stop),
        stop_at_proof: stop_at_period,
    };
    let outcome = run_in_store(store, job, &mut ctl);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let StoredOutcome { summary, ending } = outcome.map_err(|e| match e {
        RunError::Store(e) => anyhow::Error::from(e),
        RunError::Job(e) => anyhow::Error::from(e),
    })?;
    Ok(match ending {
        Ending::Stopped(status) => Driven::Stopped {
            status: status as u8,
            why: format!(
                "interrupted: checkpoint saved at {} values in {}",
                store.good(),
                store.path().display()
            ),
            partial: Box::new(summary),
        },
        Ending::Done => Driven::Done(Box::new(summary)),
    })
}

/// `octal run` or `resume` of a run kept in `store`: progress,
/// checkpoints, Ctrl-C, then the summary printed.
pub fn print_stored_run(
    mut store: Store,
    job: Job,
    opts: &StoreOpts,
    report: Report,
    keep_going: bool,
    notation: &NotationOpts,
) -> Result<ExitCode> {
    let every = opts.every()?;
    if let Some(why) = nothing_to_compute(&store, &job, keep_going) {
        let path = store.path().display();
        if job.engine != EngineKind::default() || job.mask != octal::engine::MaskSpec::Auto {
            return Err(input(format!(
                "{path}: --engine and --mask would not be used: nothing to compute ({why}); drop them (`octal verify {path} --recompute K` checks values with the reference engine)"
            )));
        }
        // A proven period is in the summary; a --to the store holds is
        // said (it is not what was asked for, or took no time).
        if job.to <= store.good() {
            eprintln!("octal: {path}: nothing to compute: {why}");
        }
    }
    let stop = stop_on_signals().context("installing signal handlers")?;
    warn_lost_slot(store.path(), octal::store::checkpoint::lost_slot(&store));
    let bar = progress_bar(job.to, report.quiet || report.json);
    let mut summary = match run_with_bar(&mut store, &job, every, &stop, !keep_going, bar)? {
        Driven::Done(summary) => *summary,
        Driven::Stopped {
            status,
            why,
            partial,
        } => {
            // What the values held so far show, then why they stop there.
            print_summary(&partial, report.json)?;
            let path = store.path().display();
            eprintln!("octal: {why}; `octal resume {path}` continues");
            return Ok(ExitCode::from(status));
        }
    };
    notation.apply(&mut summary, store.view(0, store.good()))?;
    print_summary(&summary, report.json)?;
    Ok(ExitCode::SUCCESS)
}

/// Why a run of `job` on `store` computes nothing, if it does not: the
/// store holds the values asked for (a --to below what it holds is the
/// summary of that prefix), or it proves the period and the run would stop
/// there.
fn nothing_to_compute(store: &Store, job: &Job, keep_going: bool) -> Option<String> {
    let held = store.good();
    if job.to < held {
        return Some(format!(
            "it holds {held} values; this is the summary of the first {}",
            job.to
        ));
    }
    if job.to == held {
        return Some(format!("it holds the {held} values asked for"));
    }
    let proven = octal::store::checkpoint::restore_detector(store).proven();
    proven.filter(|_| !keep_going).map(|p| {
        format!(
            "it holds {held} values and proves the period {} (preperiod {}) at {}; --keep-going computes on to {}",
            p.period, p.preperiod, p.proven_at, job.to
        )
    })
}
