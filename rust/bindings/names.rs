//! `NameKeys`: the exact-name tier's key sets and its common-case proof (`crate::names`).

use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::names::NameKeys;

/// The normalised name forms of an index's tools, for `NameTable.find_names`'s fast path.
#[pyclass(name = "NameKeys", module = "toolsift._core", frozen)]
pub(crate) struct PyNameKeys {
    inner: NameKeys,
}

#[pymethods]
impl PyNameKeys {
    /// `plain` and `qualified`: iterables of str (the tables' dicts themselves: each key is
    /// hashed in turn, with no copy of the key sets).
    #[new]
    fn new(plain: &Bound<'_, PyAny>, qualified: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut inner = NameKeys::default();
        for key in plain.try_iter()? {
            inner.add_plain(&key?.cast::<PyString>()?.to_cow()?);
        }
        for key in qualified.try_iter()? {
            inner.add_qualified(&key?.cast::<PyString>()?.to_cow()?);
        }
        Ok(PyNameKeys { inner })
    }

    /// `None` when `text` may name a tool; else the long keys it holds, which name no tool
    /// unless one of them is a squashed identifier name (the caller's check).
    fn names_none(&self, text: &str) -> Option<Vec<String>> {
        self.inner.names_none(text)
    }
}
