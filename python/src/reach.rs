//! What Python reaches of the command line beyond a run: `octal.compare`
//! (as `octal compare`, through the library's [`Comparison`]) and the
//! census' rows (`octal.census`, `octal.equiv`, as `octal equiv`, through
//! [`Census`]). The answers are built by the library, as the CLI's are.

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use octal::census::lookup::{Census, LookupError};
use octal::compare::{auto_shifts, Comparison, Outcome as Found, Side, DEFAULT_TO};
use octal::period::Period;

use crate::bridge::{self, Error};
use crate::code::code_of;
use crate::supervise::{supervise, Outcome};
use crate::{EngineArgs, OrRaise, Values};

impl From<LookupError> for Error {
    fn from(e: LookupError) -> Error {
        match e {
            LookupError::Io {
                ref path,
                ref error,
            } => Error::Os {
                errno: error.raw_os_error(),
                message: e.to_string(),
                path: Some(PathBuf::from(path)),
            },
            e => Error::Value(e.to_string()),
        }
    }
}

/// A JSON value as the Python object `json.loads` makes of it.
fn to_python<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

/// One side of `octal.compare` as the Python half gives it: its name, and
/// either a code to compute or values (with their code, when known, and
/// their proven `(period, preperiod)`, if any).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct SideArgs<'py> {
    name: String,
    code: Option<Bound<'py, PyAny>>,
    values: Option<Values<'py>>,
    period: Option<(u64, u64)>,
}

/// What a comparison found, for one shift: the verdict `octal compare
/// --shift K --json` prints, as attributes.
#[pyclass(frozen, get_all, name = "Comparison", module = "octal")]
pub struct PyComparison {
    /// The sequences' names (their codes, or "values").
    a: String,
    b: String,
    /// G_a(n) is compared with G_b(n + shift).
    shift: i64,
    /// "differ", "equal_to" or "equal_forever".
    verdict: &'static str,
    /// Whether the shift holds: agreement on at least one heap.
    holds: bool,
    /// differ: the first n, G_a(at) and G_b(at + shift).
    at: Option<u64>,
    value_a: Option<u32>,
    value_b: Option<u32>,
    /// equal_to: equal for every n below `to`.
    to: Option<u64>,
    /// equal_forever: both proven periodic, equal up to `checked_to`.
    checked_to: Option<u64>,
    /// With shift="auto": the shifts searched (from, to) and every one
    /// that holds.
    searched: Option<(i64, i64)>,
    holding: Vec<i64>,
    /// The verdict in the CLI's words.
    words: String,
}

#[pymethods]
impl PyComparison {
    fn __repr__(&self) -> String {
        format!(
            "<Comparison {} {} shift={}: {}>",
            self.a, self.b, self.shift, self.words
        )
    }

    fn __str__(&self) -> String {
        self.words.clone()
    }

    fn __bool__(&self) -> bool {
        self.holds
    }
}

impl PyComparison {
    fn new(na: &str, nb: &str, shift: i64, found: Found, holds: bool) -> PyComparison {
        let (mut at, mut value_a, mut value_b, mut to, mut checked_to) =
            (None, None, None, None, None);
        let verdict = match found {
            Found::Differ { at: n, a, b } => {
                (at, value_a, value_b) = (Some(n), Some(a), Some(b));
                "differ"
            }
            Found::EqualTo { to: t } => {
                to = Some(t);
                "equal_to"
            }
            Found::EqualForever { checked_to: c } => {
                checked_to = Some(c);
                "equal_forever"
            }
        };
        PyComparison {
            a: na.to_string(),
            b: nb.to_string(),
            shift,
            verdict,
            holds,
            at,
            value_a,
            value_b,
            to,
            checked_to,
            searched: None,
            holding: Vec::new(),
            words: found.words(na, nb, shift),
        }
    }
}

/// The values of one side and its proven period: those given, or the
/// code's computed to `to` (stopping at a proof), as `octal compare` does.
fn side_values(
    py: Python<'_>,
    side: &SideArgs<'_>,
    to: u64,
    engine: &EngineArgs,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Vec<u32>, Option<Period>)> {
    let period = side.period.map(|(period, preperiod)| Period {
        period,
        preperiod,
        proven_at: 0,
        bound: None,
    });
    if let Some(values) = &side.values {
        let v = match values {
            Values::U16(a) => a.as_array().iter().map(|&x| u32::from(x)).collect(),
            Values::U32(a) => a.as_array().to_vec(),
        };
        return Ok((v, period));
    }
    let code = side.code.as_ref().expect("a code or values");
    let job = engine.job(py, code_of(code)?, to)?;
    let outcome = supervise(py, progress, true, move |stop, meter| {
        bridge::in_memory(&job, true, stop, meter)
    })?;
    match outcome {
        Outcome::Done(r) => {
            let (seq, summary) = r.or_raise(py)?.expect("not stopped");
            let mut values = seq.to_u32();
            values.truncate(summary.values as usize);
            Ok((values, summary.period))
        }
        Outcome::Interrupted { err, .. } => Err(err),
    }
}

/// `octal compare A B --shift K|auto --to N`: G_a(n) against G_b(n + K).
/// With `shift` None (auto), the shift that holds (the smallest, or the
/// one that agreed longest when none does), with every one that holds.
#[pyfunction]
#[pyo3(signature = (a, b, shift, to, engine, progress))]
pub fn compare(
    py: Python<'_>,
    a: SideArgs<'_>,
    b: SideArgs<'_>,
    shift: Option<i64>,
    to: Option<u64>,
    engine: EngineArgs,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyComparison> {
    let shifts: Vec<i64> = match shift {
        Some(k) => vec![k],
        None => {
            let (Some(ca), Some(cb)) = (&a.code, &b.code) else {
                return Err(PyValueError::new_err(
                    "shift=\"auto\" needs the code of both sides (a code, or an opened store or file)",
                ));
            };
            let most = auto_shifts(&[code_of(ca)?, code_of(cb)?]);
            (-most..=most).collect()
        }
    };
    let most = shifts.iter().map(|k| k.unsigned_abs()).max().unwrap_or(0);
    let reach = |k: u64| to.unwrap_or(DEFAULT_TO).saturating_add(k);
    let (ga, pa) = side_values(py, &a, reach(0), &engine, progress)?;
    let (gb, pb) = side_values(py, &b, reach(most), &engine, progress)?;
    let tried: Vec<(i64, Found, bool)> = shifts
        .iter()
        .map(|&shift| {
            let c = Comparison {
                a: Side { values: &ga, period: pa },
                b: Side { values: &gb, period: pb },
                shift,
            };
            let found = c.run(to);
            if let (Found::EqualTo { to }, true) = (found, shifts.len() == 1) {
                if to <= c.start() {
                    return Err(PyValueError::new_err(format!(
                        "nothing to compare: with shift {shift} the first n compared is {}, and the values both sides hold end at n = {to}",
                        c.start()
                    )));
                }
            }
            Ok((shift, found, c.holds(&found)))
        })
        .collect::<PyResult<_>>()?;
    let holding: Vec<i64> = tried.iter().filter(|t| t.2).map(|t| t.0).collect();
    // The smallest shift that holds, else the one that agreed longest.
    let chosen = tried
        .iter()
        .filter(|t| t.2)
        .min_by_key(|t| (t.0.unsigned_abs(), t.0))
        .or_else(|| {
            tried.iter().max_by_key(|t| match t.1 {
                Found::Differ { at, .. } => at,
                _ => 0,
            })
        })
        .expect("a shift tried");
    let mut c = PyComparison::new(&a.name, &b.name, chosen.0, chosen.1, chosen.2);
    if shift.is_none() {
        c.searched = Some((shifts[0], shifts[shifts.len() - 1]));
        c.holding = holding;
    }
    Ok(c)
}

/// The rows of the census at `path` (a census directory or its
/// census.jsonl; None: the shipped three-digit census), as dicts.
#[pyfunction]
#[pyo3(signature = (path))]
pub fn census(py: Python<'_>, path: Option<PathBuf>) -> PyResult<(String, Bound<'_, PyAny>)> {
    let census = py.detach(|| Census::read(path.as_deref())).or_raise(py)?;
    let rows = serde_json::Value::Array(census.rows);
    Ok((census.source, to_python(py, &rows)?))
}

/// `octal equiv CODE --json`: the class of `code` in a census, as a dict.
#[pyfunction]
#[pyo3(signature = (code, path))]
pub fn equiv<'py>(
    py: Python<'py>,
    code: &Bound<'py, PyAny>,
    path: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let code = code_of(code)?.to_string();
    let census = py
        .detach(|| Census::read_for(path.as_deref(), &code))
        .or_raise(py)?;
    let class = census.class_of(&code).or_raise(py)?;
    to_python(py, &class.to_json(&code, &census.source))
}
