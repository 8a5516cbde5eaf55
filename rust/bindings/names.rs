//! `NameKeys`: the exact-name tier's key sets and its common-case proof (`crate::names`).

use pyo3::prelude::*;

use crate::names::NameKeys;

/// The normalised name forms of an index's tools, for `NameTable.find_names`'s fast path.
#[pyclass(name = "NameKeys", module = "toolsift._core", frozen)]
pub(crate) struct PyNameKeys {
    inner: NameKeys,
}

#[pymethods]
impl PyNameKeys {
    #[new]
    fn new(plain: Vec<String>, qualified: Vec<String>) -> Self {
        PyNameKeys {
            inner: NameKeys::new(plain, qualified),
        }
    }

    /// `None` when `text` may name a tool; else the long keys it holds, which name no tool
    /// unless one of them is a squashed identifier name (the caller's check).
    fn names_none(&self, text: &str) -> Option<Vec<String>> {
        self.inner.names_none(text)
    }
}
