//! `octal.Code`: a parsed octal code, and the rule that every function
//! takes a code as a `str` or a `Code`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::bridge::{self, Code};
use crate::OrRaise;

/// An octal code, parsed.
#[pyclass(frozen, eq, hash, name = "Code", module = "octal")]
#[derive(PartialEq, Hash)]
pub struct PyCode {
    pub code: Code,
}

/// A `str` or a `Code` argument, as a code.
pub fn code_of(obj: &Bound<'_, PyAny>) -> PyResult<Code> {
    if let Ok(c) = obj.cast::<PyCode>() {
        return Ok(c.get().code.clone());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return s
            .to_cow()?
            .parse::<Code>()
            .map_err(|e| PyValueError::new_err(e.to_string()));
    }
    Err(PyTypeError::new_err(format!(
        "a code is a str such as \"0.6\" or an octal.Code, not {}",
        obj.get_type().name()?
    )))
}

#[pymethods]
impl PyCode {
    #[new]
    fn new(code: &Bound<'_, PyAny>) -> PyResult<PyCode> {
        Ok(PyCode {
            code: code_of(code)?,
        })
    }

    /// Cookie Cutter's strip game for a k×k cutter: 0.33…37 with k−1 threes.
    #[staticmethod]
    fn cookie_cutter(py: Python<'_>, k: usize) -> PyResult<PyCode> {
        Ok(PyCode {
            code: bridge::cookie_cutter_code(k).or_raise(py)?,
        })
    }

    /// Grundy's game, 4.0u.
    #[staticmethod]
    fn grundy() -> PyCode {
        PyCode {
            code: Code::grundy(),
        }
    }

    fn __str__(&self) -> String {
        self.code.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Code('{}')", self.code)
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, pyo3::types::PyType>, (String,))> {
        Ok((slf.get_type(), (slf.get().code.to_string(),)))
    }

    /// The digits, d0 (before the point) first, without trailing zeros.
    #[getter]
    fn digits(&self) -> Vec<u32> {
        self.code.digits().iter().map(|&d| d as u32).collect()
    }

    /// The moves by kind: how many tokens each kind of move removes.
    #[getter]
    fn rules<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (all, one, two, three, unequal) = bridge::rules(&self.code);
        let d = PyDict::new(py);
        d.set_item("take_all", all)?;
        d.set_item("take_leave_one", one)?;
        d.set_item("take_split", two)?;
        d.set_item("take_split3", three)?;
        d.set_item("unequal_splits", unequal)?;
        Ok(d)
    }

    /// True for a plain octal code: every digit below 8 and no `u`.
    #[getter]
    fn is_octal(&self) -> bool {
        self.code.is_octal()
    }

    /// True with the `u` suffix: two-heap splits must be unequal.
    #[getter]
    fn unequal_splits(&self) -> bool {
        self.code.unequal_splits()
    }

    /// False when no period of this game can be proven (`u`, three-heap
    /// splits).
    #[getter]
    fn period_provable(&self) -> bool {
        bridge::period_provable(&self.code)
    }
}
