//! `octal.Period` and `octal.period`: a period found in values, as a frozen
//! class built from the library's [`Period`], and the search
//! that finds (and, on the game's own values, proves) one in any array.

use std::time::{Duration, Instant};

use pyo3::exceptions::PyRuntimeWarning;
use pyo3::prelude::*;
use pyo3::BoundObject;

use octal::period::{notation, Detector, Notation, Period};

use crate::bridge::{self, Code, Value};
use crate::code::code_of;
use crate::supervise::{supervise, Outcome};
use crate::{with_slice, OrRaise, Values};

/// Longest nim-sequence notation a period carries, in characters (as a
/// run's summary).
const NOTATION_MAX: usize = 200;

/// A period of a sequence: G(n + period) = G(n) for every n ≥ preperiod.
/// Proven for ever once `proven_at` values were seen, or apparent (holding
/// over the `proven_at` values seen; `bound` is how many a proof needs).
#[pyclass(frozen, get_all, eq, name = "Period", module = "octal")]
#[derive(Clone, PartialEq)]
pub struct PyPeriod {
    period: u64,
    preperiod: u64,
    proven_at: u64,
    bound: Option<u64>,
    proven: bool,
    notation: Option<String>,
    notation_latex: Option<String>,
}

impl PyPeriod {
    /// `p` in the lecture notes' notation (`notation`: text and LaTeX).
    pub fn of(p: &Period, proven: bool, notation: [Option<String>; 2]) -> PyPeriod {
        let [notation, notation_latex] = notation;
        PyPeriod::new(
            p.period,
            p.preperiod,
            p.proven_at,
            p.bound,
            proven,
            notation,
            notation_latex,
        )
    }
}

#[pymethods]
impl PyPeriod {
    #[new]
    #[pyo3(signature = (period, preperiod, proven_at, bound, proven, notation=None, notation_latex=None))]
    fn new(
        period: u64,
        preperiod: u64,
        proven_at: u64,
        bound: Option<u64>,
        proven: bool,
        notation: Option<String>,
        notation_latex: Option<String>,
    ) -> PyPeriod {
        PyPeriod {
            period,
            preperiod,
            proven_at,
            bound,
            proven,
            notation,
            notation_latex,
        }
    }

    /// The last n with G(n) ≠ G(n + period), preperiod − 1 (None when
    /// periodic from 0).
    #[getter]
    fn last_irregular(&self) -> Option<u64> {
        self.preperiod.checked_sub(1)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Period(period={}, preperiod={}, proven_at={}, bound={}, proven={}, notation={}, notation_latex={})",
            self.period,
            self.preperiod,
            self.proven_at,
            py_repr(py, self.bound)?,
            py_repr(py, self.proven)?,
            py_repr(py, &self.notation)?,
            py_repr(py, &self.notation_latex)?,
        ))
    }
}

/// Python's `repr` of a value.
pub fn py_repr<'py, T: IntoPyObject<'py>>(py: Python<'py>, v: T) -> PyResult<String> {
    let v = v.into_pyobject(py).map_err(Into::into)?.into_bound();
    Ok(v.into_any().repr()?.to_string())
}

/// The period of `values` as G(0), G(1), … of `code` (a `Period`, or
/// None). A period that would be proven is checked first: the game's
/// values are computed up to the proof's bound and compared, and at the
/// first that differs a `RuntimeWarning` names it and the period is only
/// apparent.
#[pyfunction]
#[pyo3(signature = (values, code, progress=None))]
pub fn period<'py>(
    py: Python<'py>,
    values: Values<'py>,
    code: &Bound<'py, PyAny>,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<PyPeriod>> {
    // The code as given, for the warning (`.77`, as the caller wrote it).
    let given_as = code.str()?.to_string();
    let code = code_of(code)?;
    let Some(mut found) = with_slice!(values, |v| find_period(py, &code, v))? else {
        return Ok(None);
    };
    if !found.proven {
        return Ok(Some(found));
    }
    // Every value the detector saw before it declared the proof.
    let to = found.proven_at;
    let c = code.clone();
    let outcome = supervise(py, progress, true, move |stop, meter| {
        bridge::game_values(&c, to, stop, meter)
    })?;
    let game = match outcome {
        Outcome::Done(r) => r.or_raise(py)?.expect("not stopped"),
        Outcome::Interrupted { err, .. } => return Err(err),
    };
    let game = game.view(0, game.len());
    let mismatch = with_slice!(values, |v| Ok::<_, PyErr>(
        (0..to as usize)
            .find(|&n| v[n].get() != game.get(n))
            .map(|n| (n, v[n].get(), game.get(n)))
    ))?;
    if let Some((n, given, theirs)) = mismatch {
        found.proven = false;
        let message = format!(
            "these values are not those of {given_as}: G({n}) = {theirs}, not {given}; \
             their period is apparent, not proven"
        );
        let category = py.get_type::<PyRuntimeWarning>();
        let message = std::ffi::CString::new(message).expect("no NUL in the message");
        // 2: the caller of `octal.period`, not the package.
        PyErr::warn(py, category.as_any(), &message, 2)?;
    }
    Ok(Some(found))
}

fn find_period<V: Value>(py: Python<'_>, code: &Code, g: &[V]) -> PyResult<Option<PyPeriod>> {
    let mut search = PeriodSearch::new(code);
    // In pieces of about 0.1 s, checking for Ctrl-C between them.
    while !search.finished(g.len()) {
        let s = &mut search;
        py.detach(|| s.feed(g, Duration::from_millis(100)));
        py.check_signals()?;
    }
    Ok(search.found(g))
}

/// Period detection over given values, fed in blocks as a run feeds them.
struct PeriodSearch {
    detector: Detector,
}

impl PeriodSearch {
    fn new(code: &Code) -> PeriodSearch {
        PeriodSearch {
            detector: Detector::new(code),
        }
    }

    /// Feeds the values up to `len` (at most), in the blocks a run uses
    /// (ending where a proof would come), for about `budget` of work.
    fn feed<V: Value>(&mut self, g: &[V], budget: Duration) {
        let t = Instant::now();
        let len = g.len() as u64;
        while self.detector.seen() < len && self.detector.proven().is_none() {
            let done = self.detector.seen();
            let mut end = (done + (done / 64).clamp(64, 1 << 22)).min(len);
            if let Some(want) = self.detector.wants() {
                end = end.min(want.max(done + (done / 128).max(64)));
            }
            self.detector.feed(&g[..end as usize]);
            if t.elapsed() >= budget {
                break;
            }
        }
    }

    /// True when every value has been fed, or a period is proven.
    fn finished(&self, len: usize) -> bool {
        self.detector.proven().is_some() || self.detector.seen() >= len as u64
    }

    /// The proven period, else the apparent one, if any.
    fn found<V: Value>(&self, g: &[V]) -> Option<PyPeriod> {
        let (p, proven) = match self.detector.proven() {
            Some(p) => (p, true),
            None => (self.detector.apparent()?, false),
        };
        let style = |style| notation(g, &p, NOTATION_MAX, style);
        Some(PyPeriod::of(
            &p,
            proven,
            [style(Notation::Text), style(Notation::Latex)],
        ))
    }
}
