//! Windowed runs from Python (`octal.run(..., window=W)`,
//! `octal.resume(path)`): the library's [`Windowed`], which keeps a prefix
//! and the last W values so that a run goes beyond memory, driven as the
//! CLI's `--window` drives it, under the same Ctrl-C supervision as a run.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::exceptions::{PyKeyboardInterrupt, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use octal::engine::{EngineKind, MaskSpec};
use octal::window::{self, Sizes, WindowEnding, WindowError, WindowSummary, Windowed};

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
/// memory only), `keep_going` (past a proof), `checkpoint_every`, how far
/// the prefix may grow (`grow_prefix_to`, None: as far as the window
/// allows) and the sequence file the values go to (`export`, a new run
/// only).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct WindowArgs {
    window: Option<u64>,
    prefix: Option<u64>,
    store: Option<PathBuf>,
    keep_going: bool,
    checkpoint_every: f64,
    grow_prefix_to: Option<u64>,
    export: Option<PathBuf>,
}

impl WindowArgs {
    fn every(&self) -> PyResult<Duration> {
        Duration::try_from_secs_f64(self.checkpoint_every)
            .map_err(|_| PyValueError::new_err("checkpoint_every must be a number of seconds ≥ 0"))
    }
}

/// What a windowed session ends with: its summary, or how far it got
/// when stopped; and the prefix's growths in this session, each said as
/// the CLI says it on stderr.
struct Ended {
    how: Ending,
    grown: Vec<String>,
}

enum Ending {
    Done(Box<WindowSummary>),
    Stopped(u64),
}

/// Drives `w` to its target (or a proof unless `keep_going`), letting its
/// prefix grow up to `grow_to` (None: as far as its window allows), as the
/// CLI does.
fn drive(
    mut w: Windowed,
    how: (bool, Option<u64>),
    every: Duration,
    stop: &AtomicUsize,
    meter: &Meter,
) -> Result<Ended, Error> {
    let (keep_going, grow_to) = how;
    w.allow_growth(grow_to);
    let grown = Arc::new(Mutex::new(Vec::new()));
    let (said, code) = (grown.clone(), w.code().to_string());
    w.on_grow(move |g| {
        let line = format!("{code}: {g}; going on");
        said.lock().unwrap_or_else(|e| e.into_inner()).push(line);
    });
    let ending = w.run(!keep_going, every, Some(stop), &mut |p| {
        meter.set(p.done, p.to)
    })?;
    let how = match ending {
        WindowEnding::Done => Ending::Done(Box::new(w.summary())),
        WindowEnding::Stopped(_) => Ending::Stopped(w.meta().done),
        WindowEnding::Halted(why) => return Err(Error::Value(why)),
    };
    let grown = std::mem::take(&mut *grown.lock().unwrap_or_else(|e| e.into_inner()));
    Ok(Ended { how, grown })
}

/// The summary of a supervised windowed session, or KeyboardInterrupt
/// saying where its checkpoint is; each growth of the prefix is a
/// `UserWarning`.
fn finish(
    py: Python<'_>,
    outcome: Outcome<Result<Ended, Error>>,
    path: Option<&Path>,
) -> PyResult<PySummary> {
    let (r, err) = match outcome {
        Outcome::Done(r) => (r, None),
        Outcome::Interrupted { err, late } => (late.expect("waited for"), Some(err)),
    };
    let ended = r.or_raise(py)?;
    let warning = py.get_type::<PyUserWarning>();
    for line in &ended.grown {
        PyErr::warn(py, &warning, &std::ffi::CString::new(line.as_str())?, 1)?;
    }
    match (ended.how, path) {
        (Ending::Done(s), _) => Ok((*s).into()),
        (Ending::Stopped(done), Some(p)) => {
            let p = p.display();
            Err(PyKeyboardInterrupt::new_err(format!(
                "checkpoint saved at {done} values in {p}; octal.resume({p:?}) (or `octal resume {p}`) continues"
            )))
        }
        (Ending::Stopped(_), None) => {
            Err(err.unwrap_or_else(|| PyKeyboardInterrupt::new_err("stopped")))
        }
    }
}

/// What a windowed run's summary has besides a full run's
/// (`Summary.window`): the sizes, what is kept, the prefix's growths and
/// the exported file.
#[pyclass(frozen, name = "Window", module = "octal")]
pub struct PyWindow {
    s: Arc<WindowSummary>,
}

impl PyWindow {
    pub fn new(s: Arc<WindowSummary>) -> PyWindow {
        PyWindow { s }
    }
}

#[pymethods]
impl PyWindow {
    #[getter]
    fn window(&self) -> u64 {
        self.s.window
    }
    #[getter]
    fn prefix(&self) -> u64 {
        self.s.prefix
    }
    /// G(kept_from..) are held (0: nothing dropped yet).
    #[getter]
    fn kept_from(&self) -> u64 {
        self.s.kept_from
    }
    #[getter]
    fn memory_bytes(&self) -> u64 {
        self.s.memory_bytes
    }
    #[getter]
    fn periods_searched_up_to(&self) -> u64 {
        self.s.periods_searched_up_to
    }
    /// Each growth of the prefix: a dict of `at` (the heap that needed
    /// it), `from` and `to` (values) and `seconds`.
    #[getter]
    fn prefix_grown<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.s
            .prefix_grown
            .iter()
            .map(|g| {
                let d = PyDict::new(py);
                d.set_item("at", g.at)?;
                d.set_item("from", g.from)?;
                d.set_item("to", g.to)?;
                d.set_item("seconds", g.seconds)?;
                Ok(d)
            })
            .collect()
    }
    /// The sequence file the values were written to, if any.
    #[getter]
    fn exported(&self) -> Option<String> {
        self.s.exported.as_ref().map(|p| p.display().to_string())
    }
    fn __repr__(&self) -> String {
        format!(
            "<octal.Window of {} values, prefix {}, kept from {}, {} prefix growths>",
            self.s.window,
            self.s.prefix,
            self.s.kept_from,
            self.s.prefix_grown.len()
        )
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
    let (path, export) = (how.store.clone(), how.export.clone());
    let steer = (how.keep_going, how.grow_prefix_to);
    let outcome = supervise(py, progress, true, move |stop, meter| {
        let w = window::open_or_new(
            &job.code,
            job.to,
            sizes,
            job.threads,
            path.as_deref(),
            export.as_deref(),
        )?;
        drive(w, steer, every, stop, meter)
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
    if how.export.is_some() {
        return Err(Error::from(WindowError::ExportBegun(
            path.display().to_string(),
        )))
        .or_raise(py);
    }
    let every = how.every()?;
    let (at, steer) = (path.clone(), (how.keep_going, how.grow_prefix_to));
    let outcome = supervise(py, progress, true, move |stop, meter| {
        let mut w = Windowed::resume(&at, n, threads)?;
        if let Some(sizes) = sizes {
            w.resize(sizes)?;
        }
        drive(w, steer, every, stop, meter)
    })?;
    finish(py, outcome, Some(&path))
}
