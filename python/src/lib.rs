//! `octal._octal`: the compiled half of the Python package `octal`.
//!
//! The Python half (`python/octal/__init__.py`) gives the public API its
//! shape; this module does the work: the computing functions, stores and
//! files, and the module's table. Every call into the octal library goes
//! through [`bridge`], except the typed summary and periods ([`summary`],
//! [`period`]), comparisons and census rows ([`reach`]) and windowed runs
//! ([`window`]). Long work runs on a worker thread without the GIL while
//! the calling thread watches for Ctrl-C ([`supervise`]); library errors
//! become `ValueError`, `OSError` or `MemoryError`, and a panic becomes a
//! `RuntimeError`, never a crash.

mod bridge;
mod code;
mod period;
mod reach;
mod summary;
mod supervise;
mod window;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use numpy::ndarray::ArrayView1;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyIndexError, PyKeyboardInterrupt, PyMemoryError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use bridge::{Code, Error, Opened, Seq, SeqRef, Value};
use code::{code_of, PyCode};
use summary::PySummary;
use supervise::{supervise, Outcome};

fn py_err(py: Python<'_>, e: Error) -> PyErr {
    match e {
        Error::Value(m) => PyValueError::new_err(m),
        Error::Memory(m) => PyMemoryError::new_err(m),
        Error::Os {
            errno,
            message,
            path,
        } => {
            // OSError(errno, message) picks the subclass the errno means
            // (FileNotFoundError, PermissionError, …).
            // (No filename argument: the message names the file already.)
            let _ = (py, path);
            match errno {
                Some(n) => PyOSError::new_err((n, message)),
                None => PyOSError::new_err(message),
            }
        }
    }
}

/// `Result<T, Error>` into a Python result.
pub trait OrRaise<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T, E: Into<Error>> OrRaise<T> for Result<T, E> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| py_err(py, e.into()))
    }
}

/// A numpy array that owns the values (no copy).
fn array_of(py: Python<'_>, seq: Seq) -> Bound<'_, PyAny> {
    match seq {
        Seq::U16(v) => PyArray1::from_vec(py, v).into_any(),
        Seq::U32(v) => PyArray1::from_vec(py, v).into_any(),
    }
}

/// Parses a count as the CLI does: 1000000, 1e6, 2^20, 1_000_000.
#[pyfunction]
fn parse_count(py: Python<'_>, s: &str) -> PyResult<u64> {
    bridge::count(s).or_raise(py)
}

#[pyfunction]
fn max_count() -> u64 {
    bridge::MAX_COUNT
}

/// G(start), …, G(n−1) of `code` as a numpy array (uint16, or uint32 when
/// a value needs it), and the note saying when values were read off a
/// proven period.
#[pyfunction]
fn values<'py>(
    py: Python<'py>,
    code: &Bound<'py, PyAny>,
    n: u64,
    start: u64,
    engine: EngineArgs,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, Option<String>)> {
    let job = engine.job(py, code_of(code)?, n)?;
    // Stops at a proven period: every later value is a lookup.
    let outcome = supervise(py, progress, true, move |stop, meter| {
        bridge::answers(job, start, stop, meter)
    })?;
    match outcome {
        Outcome::Done(r) => {
            let (seq, summary) = r.or_raise(py)?.expect("not stopped");
            let (seq, note) = bridge::values_from(seq, &summary, start, n);
            Ok((array_of(py, seq), note))
        }
        Outcome::Interrupted { err, .. } => Err(err),
    }
}

/// The engine options of every computing function, as the Python half
/// passes them: a dict with `engine` ("sparse" or "reference"), `threads`
/// (None: every core) and `mask` (as `octal run --mask` takes it).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct EngineArgs {
    engine: String,
    threads: Option<usize>,
    mask: String,
}

impl EngineArgs {
    /// How to compute `to` values of `code` with these options.
    pub(crate) fn job(&self, py: Python<'_>, code: Code, to: u64) -> PyResult<octal::run::Job> {
        bridge::job_with_mask(code, to, &self.engine, self.threads, &self.mask).or_raise(py)
    }
}

/// Where and how far a run goes: a dict with `store` (None: in memory),
/// `keep_going` (past a proof) and `checkpoint_every` (seconds).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct RunArgs {
    store: Option<PathBuf>,
    keep_going: bool,
    checkpoint_every: f64,
}

/// Runs `code` to `n` values (stopping at a proof unless `keep_going`), in
/// memory or in the store at `store`; returns its `Summary`.
#[pyfunction]
fn run<'py>(
    py: Python<'py>,
    code: &Bound<'py, PyAny>,
    n: u64,
    engine: EngineArgs,
    how: RunArgs,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<PySummary> {
    let job = engine.job(py, code_of(code)?, n)?;
    let keep_going = how.keep_going;
    let Some(path) = how.store else {
        let outcome = supervise(py, progress, true, move |stop, meter| -> Result<_, Error> {
            let ran = bridge::in_memory(&job, !keep_going, stop, meter)?;
            Ok(ran.map(|(_, summary)| summary))
        })?;
        return match outcome {
            Outcome::Done(r) => Ok(r.or_raise(py)?.expect("not stopped").into()),
            Outcome::Interrupted { err, .. } => Err(err),
        };
    };
    let every = Duration::try_from_secs_f64(how.checkpoint_every)
        .map_err(|_| PyValueError::new_err("checkpoint_every must be a number of seconds ≥ 0"))?;
    let at = path.clone();
    let outcome = supervise(py, progress, true, move |stop, meter| {
        bridge::run_in_store(&at, &job, keep_going, every, stop, meter)
    })?;
    let (r, err) = match outcome {
        Outcome::Done(r) => (r, None),
        Outcome::Interrupted { err, late } => (late.expect("waited for"), Some(err)),
    };
    let stored = r.or_raise(py)?;
    if stored.stopped || err.is_some() {
        let p = path.display();
        return Err(PyKeyboardInterrupt::new_err(format!(
            "checkpoint saved at {} values in {p}; octal.run with store={p:?} (or `octal resume {p}`) continues",
            stored.good
        )));
    }
    Ok(stored.summary.into())
}

/// A store or an exported file, open for reading.
#[pyclass(frozen, name = "_Sequence", module = "octal._octal")]
struct PySequence {
    opened: Arc<Opened>,
}

#[pyfunction]
fn open(py: Python<'_>, path: PathBuf) -> PyResult<PySequence> {
    let opened = py.detach(|| Opened::open(&path)).or_raise(py)?;
    Ok(PySequence {
        opened: Arc::new(opened),
    })
}

#[pymethods]
impl PySequence {
    fn __len__(&self) -> usize {
        self.opened.len() as usize
    }

    #[getter]
    fn kind(&self) -> &'static str {
        self.opened.kind()
    }

    #[getter]
    fn path(&self) -> PathBuf {
        self.opened.path().to_owned()
    }

    #[getter]
    fn code(&self) -> PyCode {
        PyCode {
            code: self.opened.code().clone(),
        }
    }

    /// Bytes per value: 2 (uint16) or 4 (uint32).
    #[getter]
    fn width(&self) -> usize {
        self.opened.width()
    }

    /// Why a store opened at its older checkpoint, if it did.
    #[getter]
    fn lost_slot(&self) -> Option<String> {
        self.opened.lost_slot()
    }

    /// G(i).
    fn get(&self, py: Python<'_>, i: u64) -> PyResult<u32> {
        if i >= self.opened.len() {
            return Err(PyIndexError::new_err(format!(
                "index {i} is out of range: {} values",
                self.opened.len()
            )));
        }
        let o = &self.opened;
        let seq = py.detach(|| o.read(i, i + 1)).or_raise(py)?;
        Ok(seq.view(0, 1).get(0))
    }

    /// G(from..to) as a numpy array: a read-only view of a store's map, a
    /// new array for a compressed file.
    fn slice<'py>(slf: &Bound<'py, Self>, from: u64, to: u64) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let o = &slf.get().opened;
        if from > to || to > o.len() {
            return Err(PyIndexError::new_err(format!(
                "values {from}..{to} are out of range: {} values",
                o.len()
            )));
        }
        let view = py.detach(|| o.view(from, to).map(|v| v.is_some()));
        if view.or_raise(py)? {
            let view = o.view(from, to).or_raise(py)?.expect("a store");
            let owner = slf.clone().into_any();
            // SAFETY: the values lie in the store's read-only map, which
            // lives (unmoved) as long as this object, the array's base.
            let array = unsafe {
                match view {
                    SeqRef::U16(v) => {
                        PyArray1::borrow_from_array(&ArrayView1::from(v), owner).into_any()
                    }
                    SeqRef::U32(v) => {
                        PyArray1::borrow_from_array(&ArrayView1::from(v), owner).into_any()
                    }
                }
            };
            let kwargs = PyDict::new(py);
            kwargs.set_item("write", false)?;
            array.call_method("setflags", (), Some(&kwargs))?;
            return Ok(array);
        }
        let seq = py.detach(|| o.read(from, to)).or_raise(py)?;
        Ok(array_of(py, seq))
    }

    /// The summary of the values held.
    fn summary(&self, py: Python<'_>) -> PyResult<PySummary> {
        let o = &self.opened;
        Ok(py.detach(|| summary::read_back(o)).or_raise(py)?.into())
    }

    /// Checks the values against their checksums (and `recompute` of them
    /// against the reference engine): (line, problems, lost slot).
    #[pyo3(signature = (recompute, seed, progress))]
    fn verify(
        &self,
        py: Python<'_>,
        recompute: u64,
        seed: u64,
        progress: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(String, Vec<String>, Option<String>)> {
        let o = self.opened.clone();
        let outcome = supervise(py, progress, false, move |_, meter| {
            octal::verify::verify_opened(&o, recompute, seed, &mut |done, total| {
                meter.set(done, total)
            })
        })?;
        match outcome {
            Outcome::Done(r) => {
                let v = r.or_raise(py)?;
                Ok((v.line, v.problems, v.lost_slot))
            }
            Outcome::Interrupted { err, .. } => Err(err),
        }
    }

    /// Writes G(from..to) to the file `path` in `format`; Ctrl-C stops it
    /// and removes the file.
    #[pyo3(signature = (path, format, range, bfile, progress))]
    fn write(
        &self,
        py: Python<'_>,
        path: PathBuf,
        format: &str,
        range: (u64, u64),
        bfile: BFileArg,
        progress: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let o = self.opened.clone();
        let format = format.to_string();
        let bfile = layout(bfile);
        let outcome = supervise(py, progress, true, move |stop, meter| {
            bridge::write(&o, &path, &format, range, &bfile, stop, meter)
        })?;
        match outcome {
            Outcome::Done(r) => r.or_raise(py).map(drop),
            Outcome::Interrupted { err, .. } => Err(err),
        }
    }
}

/// Values given from Python: a one-dimensional uint16 or uint32 array.
#[derive(FromPyObject)]
pub enum Values<'py> {
    U16(PyReadonlyArray1<'py, u16>),
    U32(PyReadonlyArray1<'py, u32>),
}

/// Calls `f` with the values as a slice.
#[macro_export]
macro_rules! with_slice {
    ($values:expr, |$v:ident| $body:expr) => {
        match &$values {
            $crate::Values::U16(a) => {
                let $v = a
                    .as_slice()
                    .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
                $body
            }
            $crate::Values::U32(a) => {
                let $v = a
                    .as_slice()
                    .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
                $body
            }
        }
    };
}

/// Writes `values` (G(start), …) to the file `path` in `format`, a piece
/// at a time; Ctrl-C stops it and removes the file.
#[pyfunction]
fn write_values(
    py: Python<'_>,
    path: PathBuf,
    values: Values<'_>,
    format: &str,
    start: u64,
    bfile: BFileArg,
) -> PyResult<()> {
    let bfile = layout(bfile);
    with_slice!(values, |v| write_pieces(
        py, &path, v, format, start, &bfile
    ))
}

/// A b-file's layout as Python gives it: (first term, index shift, header).
type BFileArg = (u64, i64, String);

fn layout((first, shift, header): BFileArg) -> bridge::BFileLayout {
    bridge::BFileLayout {
        first,
        shift,
        header,
    }
}

/// The `#` header of a b-file and the note on where its terms start (see
/// `octal::formats::bfile_header`), and its first term.
#[pyfunction]
#[pyo3(signature = (game, first, offset, shift, command))]
fn bfile_header(
    game: &str,
    first: u64,
    offset: Option<u64>,
    shift: i64,
    command: &str,
) -> (String, Option<String>, u64) {
    let (text, note) = bridge::bfile_header(game, first, offset, shift, command);
    let at = bridge::first_term(first, offset, shift).unwrap_or(0);
    (text, note, at)
}

fn write_pieces<V: Value>(
    py: Python<'_>,
    path: &std::path::Path,
    values: &[V],
    format: &str,
    start: u64,
    bfile: &bridge::BFileLayout,
) -> PyResult<()> {
    let mut w = bridge::FileWriter::create(path, &[], format, start, bfile).or_raise(py)?;
    for piece in values.chunks(1 << 22) {
        let written = py.detach(|| w.write(piece)).or_raise(py);
        if let Err(e) = written.and_then(|()| py.check_signals()) {
            w.abandon();
            return Err(e);
        }
    }
    py.detach(|| w.finish()).or_raise(py)
}

/// Writes `data` to the file `path` by the rules every writer follows
/// (never over one of `inputs`, a device, a directory or a symbolic
/// link; an existing regular file is replaced).
#[pyfunction]
fn write_file(py: Python<'_>, path: PathBuf, data: &[u8], inputs: Vec<PathBuf>) -> PyResult<()> {
    let inputs: Vec<&std::path::Path> = inputs.iter().map(PathBuf::as_path).collect();
    py.detach(|| bridge::write_file(&path, data, &inputs))
        .or_raise(py)
}

/// The text of `values` (G(start), …) in `format`, as bytes.
#[pyfunction]
fn render<'py>(
    py: Python<'py>,
    values: Values<'py>,
    format: &str,
    start: u64,
    bfile: BFileArg,
    header: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let bfile = layout(bfile);
    let text = with_slice!(values, |v| py
        .detach(|| bridge::render(format, v, start, &bfile, header))
        .or_raise(py)?);
    Ok(PyBytes::new(py, &text))
}

/// A b-file read back: (its first n, the values).
#[pyfunction]
fn read_bfile(py: Python<'_>, path: PathBuf) -> PyResult<(u64, Bound<'_, PyAny>)> {
    let outcome = supervise(py, None, false, move |_, _| bridge::read_bfile(&path))?;
    let (first, values) = match outcome {
        Outcome::Done(r) => r.or_raise(py)?,
        Outcome::Interrupted { err, .. } => return Err(err),
    };
    let seq = if values.iter().all(|&v| v <= u16::MAX as u32) {
        Seq::U16(values.into_iter().map(|v| v as u16).collect())
    } else {
        Seq::U32(values)
    };
    Ok((first, array_of(py, seq)))
}

/// G(h) for each heap h, through the engine: one run to the largest heap
/// that stops at a proof of periodicity (heaps beyond it are read off the
/// period).
fn engine_values(
    py: Python<'_>,
    code: Code,
    heaps: &[u64],
    engine: &EngineArgs,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u32>> {
    let max = heaps.iter().copied().max().unwrap_or(0);
    let to = max
        .checked_add(1)
        .ok_or_else(|| PyValueError::new_err(format!("heap {max} is too large")))?;
    let job = engine.job(py, code, to)?;
    let outcome = supervise(py, progress, true, move |stop, meter| {
        bridge::answers(job, to - 1, stop, meter)
    })?;
    let (seq, summary) = match outcome {
        Outcome::Done(r) => r.or_raise(py)?.expect("not stopped"),
        Outcome::Interrupted { err, .. } => return Err(err),
    };
    let known = seq.len() as u64;
    let period = summary.period.map(|p| (p.period, p.preperiod));
    Ok(heaps
        .iter()
        .map(|&h| {
            let n = match period {
                Some((p, s)) if h >= known => s + (h - s) % p,
                _ => h,
            };
            seq.view(0, seq.len()).get(n as usize)
        })
        .collect())
}

/// Cookie Cutter with a k×k cutter (`k`: a count or `inf`) on a board of
/// `rows`×`cols`: strips through the engine, boards by exact search.
#[pyfunction]
#[pyo3(signature = (k, rows, cols, engine, max_positions, progress))]
fn cookie_cutter(
    py: Python<'_>,
    k: &str,
    rows: u64,
    cols: u64,
    engine: EngineArgs,
    max_positions: usize,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<u64> {
    match bridge::cookie_plan(k, rows, cols).or_raise(py)? {
        bridge::CookiePlan::Nim(heap) => Ok(heap),
        bridge::CookiePlan::Strip { code, heap } => {
            Ok(engine_values(py, code, &[heap], &engine, progress)?[0] as u64)
        }
        bridge::CookiePlan::Board { cutter, rows, cols } => {
            let outcome = supervise(py, progress, true, move |stop, meter| {
                bridge::cookie_board(
                    &cutter,
                    rows,
                    cols,
                    max_positions,
                    Duration::from_millis(200),
                    stop,
                    meter,
                )
            })?;
            match outcome {
                Outcome::Done(r) => Ok(r.or_raise(py)?.expect("not stopped") as u64),
                Outcome::Interrupted { err, .. } => Err(err),
            }
        }
    }
}

/// Vertex Deletion on disjoint directed paths (Odd/Odd): the nim-sum of
/// G(n) of 0.6, and the values for each path.
#[pyfunction]
#[pyo3(signature = (paths, engine, progress))]
fn directed_paths(
    py: Python<'_>,
    paths: Vec<u64>,
    engine: EngineArgs,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u32>> {
    if paths.is_empty() {
        return Err(PyValueError::new_err("no paths given"));
    }
    let code = bridge::directed_path_code();
    engine_values(py, code, &paths, &engine, progress)
}

/// Parses a list of path lengths, `"5,8,13"`.
#[pyfunction]
fn parse_paths(py: Python<'_>, list: &str) -> PyResult<Vec<u64>> {
    bridge::parse_paths(list).or_raise(py)
}

/// True for the Odd/Odd variant's name.
#[pyfunction]
fn is_odd_odd(py: Python<'_>, variant: &str) -> PyResult<bool> {
    bridge::is_odd_odd(variant).or_raise(py)
}

/// Vertex Deletion on a digraph given by its arcs, by exact search.
#[pyfunction]
#[pyo3(signature = (arcs, vertices, variant))]
fn digraph_value(
    py: Python<'_>,
    arcs: &str,
    vertices: Option<usize>,
    variant: &str,
) -> PyResult<u32> {
    let graph = bridge::digraph(arcs, vertices, variant).or_raise(py)?;
    let outcome = supervise(py, None, false, move |_, _| graph.grundy())?;
    match outcome {
        Outcome::Done(v) => Ok(v),
        Outcome::Interrupted { err, .. } => Err(err),
    }
}

#[pymodule]
fn _octal(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCode>()?;
    m.add_class::<PySequence>()?;
    m.add_class::<PySummary>()?;
    m.add_class::<window::PyWindow>()?;
    m.add_class::<period::PyPeriod>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(parse_count, m)?)?;
    m.add_function(wrap_pyfunction!(max_count, m)?)?;
    m.add_function(wrap_pyfunction!(values, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(period::period, m)?)?;
    m.add_function(wrap_pyfunction!(write_values, m)?)?;
    m.add_function(wrap_pyfunction!(write_file, m)?)?;
    m.add_function(wrap_pyfunction!(render, m)?)?;
    m.add_function(wrap_pyfunction!(bfile_header, m)?)?;
    m.add_function(wrap_pyfunction!(read_bfile, m)?)?;
    m.add_function(wrap_pyfunction!(cookie_cutter, m)?)?;
    m.add_function(wrap_pyfunction!(directed_paths, m)?)?;
    m.add_function(wrap_pyfunction!(parse_paths, m)?)?;
    m.add_function(wrap_pyfunction!(is_odd_odd, m)?)?;
    m.add_function(wrap_pyfunction!(digraph_value, m)?)?;
    m.add_class::<reach::PyComparison>()?;
    m.add_function(wrap_pyfunction!(reach::compare, m)?)?;
    m.add_function(wrap_pyfunction!(reach::census, m)?)?;
    m.add_function(wrap_pyfunction!(reach::equiv, m)?)?;
    m.add_function(wrap_pyfunction!(window::run_window, m)?)?;
    m.add_function(wrap_pyfunction!(window::resume_window, m)?)?;
    Ok(())
}
