//! `octal.Summary`: the library's typed [`Summary`] as a frozen Python
//! class, its attributes read from the struct (never from JSON), and the
//! summary of values read back from a store or an exported file.

use std::sync::Arc;

use numpy::ndarray::Array2;
use numpy::PyArray2;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use octal::engine::EngineInfo;
use octal::period::{self, Notation};
use octal::run::Summary;
use octal::store::checkpoint;
use octal::window::WindowSummary;

use crate::bridge::{self, Error, Opened, SeqRef};
use crate::period::{py_repr, PyPeriod};
use crate::window::PyWindow;

/// What a run ends with: the facts `octal run --json` prints, as
/// attributes of the same names, with the proven period's `period`,
/// `preperiod`, `proven_at` and `bound` flattened (None without a proof).
#[pyclass(frozen, name = "Summary", module = "octal")]
pub struct PySummary {
    s: Summary,
    /// A windowed run's whole summary (whose `summary` is `s`).
    window: Option<Arc<WindowSummary>>,
}

impl From<Summary> for PySummary {
    fn from(s: Summary) -> PySummary {
        PySummary { s, window: None }
    }
}

impl From<WindowSummary> for PySummary {
    fn from(w: WindowSummary) -> PySummary {
        PySummary {
            s: w.summary.clone(),
            window: Some(Arc::new(w)),
        }
    }
}

#[pymethods]
impl PySummary {
    #[getter]
    fn code(&self) -> &str {
        &self.s.code
    }
    #[getter]
    fn values(&self) -> u64 {
        self.s.values
    }
    #[getter]
    fn max_value(&self) -> u32 {
        self.s.max_value
    }
    #[getter]
    fn first_max_at(&self) -> u64 {
        self.s.first_max_at
    }
    #[getter]
    fn zeros(&self) -> u64 {
        self.s.zeros
    }
    #[getter]
    fn zeros_from_1(&self) -> u64 {
        self.s.zeros_from_1
    }
    #[getter]
    fn last_value(&self) -> u32 {
        self.s.last_value
    }
    #[getter]
    fn checksum(&self) -> &str {
        &self.s.checksum
    }
    #[getter]
    fn seconds(&self) -> Option<f64> {
        self.s.seconds
    }
    #[getter]
    fn values_per_second(&self) -> Option<f64> {
        self.s.values_per_second
    }
    #[getter]
    fn bytes_per_value(&self) -> usize {
        self.s.bytes_per_value
    }
    #[getter]
    fn engine(&self) -> Option<&str> {
        self.s.engine.name()
    }
    #[getter]
    fn threads(&self) -> Option<usize> {
        self.s.engine.threads()
    }
    #[getter]
    fn rare_mask(&self) -> Option<u32> {
        self.s.engine.rare_mask
    }
    #[getter]
    fn rare_positions(&self) -> Option<u64> {
        self.s.engine.rare_positions
    }
    #[getter]
    fn rare_positions_with_0(&self) -> Option<u64> {
        self.s.engine.rare_positions_with_0
    }
    #[getter]
    fn last_rare_at(&self) -> Option<u64> {
        self.s.engine.last_rare_at
    }
    #[getter]
    fn isa(&self) -> Option<&str> {
        self.s.isa
    }
    #[getter]
    fn period(&self) -> Option<u64> {
        self.s.period.map(|p| p.period)
    }
    #[getter]
    fn preperiod(&self) -> Option<u64> {
        self.s.period.map(|p| p.preperiod)
    }
    #[getter]
    fn proven_at(&self) -> Option<u64> {
        self.s.period.map(|p| p.proven_at)
    }
    #[getter]
    fn bound(&self) -> Option<u64> {
        self.s.period.and_then(|p| p.bound)
    }
    /// True when the values prove the sequence periodic.
    #[getter]
    fn proven(&self) -> bool {
        self.s.period.is_some()
    }
    /// Without a proof: the period the values show so far (a `Period`
    /// whose `proven_at` is the number of values it holds over).
    #[getter]
    fn apparent_period(&self) -> Option<PyPeriod> {
        let notation = [
            self.s.period_notation.clone(),
            self.s.period_notation_latex.clone(),
        ];
        self.s
            .apparent_period
            .map(|a| PyPeriod::of(&a, false, notation))
    }
    #[getter]
    fn period_provable(&self) -> bool {
        self.s.period_provable
    }
    #[getter]
    fn period_notation(&self) -> Option<&str> {
        self.s.period_notation.as_deref()
    }
    #[getter]
    fn period_notation_latex(&self) -> Option<&str> {
        self.s.period_notation_latex.as_deref()
    }
    #[getter]
    fn store(&self) -> Option<&str> {
        self.s.store.as_deref()
    }
    #[getter]
    fn resumed_from(&self) -> Option<u64> {
        self.s.resumed_from
    }
    #[getter]
    fn held(&self) -> Option<u64> {
        self.s.held
    }
    #[getter]
    fn target(&self) -> Option<u64> {
        self.s.target
    }
    /// For a game beyond octal without a period: the arithmetic period
    /// its values show, `{"period", "preperiod", "saltus", "checked_to"}`
    /// (G(n + period) = G(n) + saltus for preperiod ≤ n < checked_to −
    /// period; apparent, never proven); None otherwise.
    #[getter]
    fn arithmetic_period<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(a) = &self.s.arithmetic_period else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("period", a.period)?;
        d.set_item("preperiod", a.preperiod)?;
        d.set_item("saltus", a.saltus)?;
        d.set_item("checked_to", a.checked_to)?;
        Ok(Some(d))
    }
    /// Which positions are rare: `{"mask": "0x1ee", "position_parity":
    /// False, "parity": 0, "rule": "..."}`; None without sparse space.
    #[getter]
    fn rare_class<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(c) = &self.s.rare_class else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("mask", &c.mask)?;
        d.set_item("position_parity", c.position_parity)?;
        d.set_item("parity", c.parity)?;
        d.set_item("rule", &c.rule)?;
        Ok(Some(d))
    }
    /// The rare positions n ≥ 1 with their values, a new int64 array of
    /// shape (k, 2); None without sparse space.
    #[getter]
    fn rare_list<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray2<i64>>> {
        let list = self.s.rare_list.as_ref()?;
        let flat = list
            .iter()
            .flat_map(|&(n, g)| [n as i64, i64::from(g)])
            .collect();
        let array = Array2::from_shape_vec((list.len(), 2), flat).expect("two columns");
        Some(PyArray2::from_owned_array(py, array))
    }
    #[getter]
    fn rare_list_complete(&self) -> Option<bool> {
        self.s.rare_list_complete
    }
    /// What a windowed run has besides (an `octal.Window`); None for the
    /// others.
    #[getter]
    fn window(&self) -> Option<PyWindow> {
        self.window.clone().map(PyWindow::new)
    }
    /// The object `octal run --json` prints, as a dict.
    #[getter]
    fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = match &self.window {
            Some(w) => serde_json::to_string(&**w),
            None => serde_json::to_string(&self.s),
        }
        .expect("a summary serialises");
        py.import("json")?.call_method1("loads", (text,))
    }

    /// Whether a heap of value `g` is of the rare class (the heap `n` is
    /// needed only when the mask uses position parity).
    #[pyo3(signature = (g, n=None))]
    fn is_rare_value(&self, g: u64, n: Option<u64>) -> PyResult<bool> {
        let c = self.rare_class_or_raise()?;
        if c.position_parity && n.is_none() {
            return Err(PyValueError::new_err(format!(
                "the mask {} of {} uses position parity: give n",
                c.mask, self.s.code
            )));
        }
        // Only the mask's bits count, and the mask fits in 32.
        Ok(c.is_rare(n.unwrap_or(0), g as u32))
    }

    /// Whether heap `n` (below `values`) is a rare position: heap 0 by the
    /// rule of `rare_class`, the others by `rare_list`.
    fn is_rare(&self, n: i64) -> PyResult<bool> {
        let c = self.rare_class_or_raise()?;
        if n == 0 {
            return Ok(c.is_rare(0, 0));
        }
        let list = match &self.s.rare_list {
            Some(list) if n > 0 && (n as u64) < self.s.values => list,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "heap {n} is not among the {} values of {}",
                    self.s.values, self.s.code
                )))
            }
        };
        let n = n as u64;
        let past = list.last().is_none_or(|&(last, _)| n > last);
        if self.s.rare_list_complete != Some(true) && past {
            return Err(PyValueError::new_err(format!(
                "heap {n} is past the {} rare positions listed",
                list.len()
            )));
        }
        Ok(list.binary_search_by_key(&n, |&(h, _)| h).is_ok())
    }

    /// The summary in the words of `octal run`.
    fn __str__(&self) -> String {
        octal::report::human(&self.s)
            .trim_end_matches('\n')
            .to_string()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let s = &self.s;
        let period = match (s.period, s.apparent_period) {
            (Some(p), _) => format!("period={}, preperiod={}", p.period, p.preperiod),
            (None, Some(a)) => format!("apparent period={}, preperiod={}", a.period, a.preperiod),
            (None, None) => "no period".into(),
        };
        Ok(format!(
            "<octal.Summary of {}: {} values, max_value={}, {period}, checksum={}{}>",
            s.code,
            s.values,
            s.max_value,
            py_repr(py, &s.checksum)?,
            match &s.store {
                Some(p) => format!(", store={}", py_repr(py, p)?),
                None => String::new(),
            }
        ))
    }
}

impl PySummary {
    fn rare_class_or_raise(&self) -> PyResult<&octal::engine::RareClass> {
        self.s.rare_class.as_ref().ok_or_else(|| {
            PyValueError::new_err(format!(
                "{} was run without sparse space: no position is rare",
                self.s.code
            ))
        })
    }
}

/// The summary of the values `o` holds, with the facts its file records:
/// statistics, period (proven or apparent, for a store), the seconds a
/// store's runs took, the engine that wrote its last values and the
/// target. The threads, sparse-space facts and instruction set are None.
pub fn read_back(o: &Opened) -> Result<Summary, Error> {
    match o {
        Opened::Store(s, _) => {
            let cp = s.checkpoint();
            s.check_length(cp.good)?;
            let detector = checkpoint::restore_detector(s);
            let mut summary = Summary::new(
                s.code(),
                &cp.stats,
                cp.seconds,
                s.width(),
                EngineInfo::default(),
            );
            summary.set_period(s.code(), &detector, s.view(0, cp.good));
            summary.store = Some(s.path().display().to_string());
            summary.read_back(Some(cp.engine.clone()), Some(cp.seconds));
            summary.target = Some(cp.target);
            Ok(summary)
        }
        Opened::File(f) => {
            let h = f.header();
            let mut summary = Summary::new(
                f.code(),
                &f.stats(),
                0.0,
                h.width as usize,
                EngineInfo::default(),
            );
            summary.period_provable = bridge::period_provable(f.code());
            summary.period = o.period();
            if let Some(p) = summary.period {
                let end = (p.preperiod + p.period).min(f.count());
                if end <= 200 {
                    let first = o.read(0, end)?;
                    let style = |style| match first.view(0, first.len()) {
                        SeqRef::U16(v) => period::notation(v, &p, 200, style),
                        SeqRef::U32(v) => period::notation(v, &p, 200, style),
                    };
                    summary.period_notation = style(Notation::Text);
                    summary.period_notation_latex = style(Notation::Latex);
                }
            }
            if summary.period.is_none() && period::arithmetic::possible(f.code()) {
                let all = o.read(0, f.count())?;
                summary.arithmetic_period = match all.view(0, all.len()) {
                    SeqRef::U16(v) => period::arithmetic::apparent(v),
                    SeqRef::U32(v) => period::arithmetic::apparent(v),
                };
            }
            summary.read_back(None, None);
            Ok(summary)
        }
    }
}
