//! Windowed runs from Python (`octal.run(..., window=W)`,
//! `octal.resume(path)`): the library's [`Windowed`], which keeps a prefix
//! and the last W values so that a run goes beyond memory, driven as the
//! CLI's `--window` drives it, under the same Ctrl-C supervision as a run.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;

use octal::engine::{EngineKind, MaskSpec};
use octal::run::Summary;
use octal::window::{self, Sizes, WindowEnding, WindowError, Windowed};

use crate::bridge::{Error, Meter};
use crate::code::code_of;
use crate::summary::PySummary;
use crate::supervise::{supervise, Outcome};
use crate::{EngineArgs, OrRaise};

impl From<WindowError> for Error {
    fn from(e: WindowError) -> Error {
        match e {
            WindowError::Store(s) => s.into(),
            WindowError::Memory { .. } => Error::Memory(e.to_string()),
            e if e.is_input() => Error::Value(e.to_string()),
            e => Error::Os {
                errno: None,
                message: e.to_string(),
                path: None,
            },
        }
    }
}

/// How a windowed run goes, as the Python half gives it: `window` and
/// `prefix` (None: a quarter of the window), its checkpoint file (None: in
/// memory only), `keep_going` (past a proof) and `checkpoint_every`.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct WindowArgs {
    window: Option<u64>,
    prefix: Option<u64>,
    store: Option<PathBuf>,
    keep_going: bool,
    checkpoint_every: f64,
}

impl WindowArgs {
    fn every(&self) -> PyResult<Duration> {
        Duration::try_from_secs_f64(self.checkpoint_every)
            .map_err(|_| PyValueError::new_err("checkpoint_every must be a number of seconds ≥ 0"))
    }
}

/// What a windowed session ends with: its summary, or how far it got
/// when stopped.
enum Ended {
    Done(Box<Summary>),
    Stopped(u64),
}

/// Drives `w` to its target (or a proof unless `keep_going`), letting its
/// prefix grow as far as its window allows, as the CLI does.
fn drive(
    mut w: Windowed,
    keep_going: bool,
    every: Duration,
    stop: &AtomicUsize,
    meter: &Meter,
) -> Result<Ended, Error> {
    if w.meta().grow_to.is_none() {
        w.grow_prefix_to(u64::MAX);
    }
    let ending = w.run(!keep_going, every, Some(stop), &mut |p| {
        meter.set(p.done, p.to)
    })?;
    match ending {
        WindowEnding::Done => Ok(Ended::Done(Box::new(w.summary().summary))),
        WindowEnding::Stopped(_) => Ok(Ended::Stopped(w.meta().done)),
        WindowEnding::Halted(why) => Err(Error::Value(why)),
    }
}

/// The summary of a supervised windowed session, or KeyboardInterrupt
/// saying where its checkpoint is.
fn finish(
    py: Python<'_>,
    outcome: Outcome<Result<Ended, Error>>,
    path: Option<&Path>,
) -> PyResult<PySummary> {
    let (r, err) = match outcome {
        Outcome::Done(r) => (r, None),
        Outcome::Interrupted { err, late } => (late.expect("waited for"), Some(err)),
    };
    match (r.or_raise(py)?, path) {
        (Ended::Done(s), _) => Ok((*s).into()),
        (Ended::Stopped(done), Some(p)) => {
            let p = p.display();
            Err(PyKeyboardInterrupt::new_err(format!(
                "checkpoint saved at {done} values in {p}; octal.resume({p:?}) (or `octal resume {p}`) continues"
            )))
        }
        (Ended::Stopped(_), None) => {
            Err(err.unwrap_or_else(|| PyKeyboardInterrupt::new_err("stopped")))
        }
    }
}

/// `octal run CODE --to N --window W --prefix P [--store PATH]`: a new
/// windowed run, or the one checkpointed at the path (same code and
/// sizes); its summary.
#[pyfunction]
#[pyo3(signature = (code, n, engine, how, progress))]
pub fn run_window(
    py: Python<'_>,
    code: &Bound<'_, PyAny>,
    n: u64,
    engine: EngineArgs,
    how: WindowArgs,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<PySummary> {
    let job = engine.job(py, code_of(code)?, n)?;
    if job.engine != EngineKind::Sparse {
        return Err(PyValueError::new_err("window= runs the sparse engine only"));
    }
    if job.mask != MaskSpec::Auto {
        return Err(PyValueError::new_err(
            "window= chooses its own sparse-space mask (drop mask=)",
        ));
    }
    let window = how.window.expect("a window");
    let sizes = Sizes::new(window, how.prefix)
        .map_err(Error::from)
        .or_raise(py)?;
    let every = how.every()?;
    let (path, keep_going) = (how.store.clone(), how.keep_going);
    let outcome = supervise(py, progress, true, move |stop, meter| {
        let w = window::open_or_new(&job.code, job.to, sizes, job.threads, path.as_deref())?;
        drive(w, keep_going, every, stop, meter)
    })?;
    finish(py, outcome, how.store.as_deref())
}

/// `octal resume PATH [--to N]` of a windowed run's checkpoint (with other
/// sizes when given, where that is sound); its summary.
#[pyfunction]
#[pyo3(signature = (path, n, threads, how, progress))]
pub fn resume_window(
    py: Python<'_>,
    path: PathBuf,
    n: Option<u64>,
    threads: Option<usize>,
    how: WindowArgs,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<PySummary> {
    let threads = match threads {
        Some(0) => return Err(PyValueError::new_err("threads must be at least 1")),
        Some(t) => t,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let sizes = match how.window {
        Some(w) => Some(
            Sizes::new(w, how.prefix)
                .map_err(Error::from)
                .or_raise(py)?,
        ),
        None => None,
    };
    let every = how.every()?;
    let (at, keep_going) = (path.clone(), how.keep_going);
    let outcome = supervise(py, progress, true, move |stop, meter| {
        let mut w = Windowed::resume(&at, n, threads)?;
        if let Some(sizes) = sizes {
            w.resize(sizes)?;
        }
        drive(w, keep_going, every, stop, meter)
    })?;
    finish(py, outcome, Some(&path))
}
