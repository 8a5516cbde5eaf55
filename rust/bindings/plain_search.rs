//! `toolsift._core.PlainSearch`: `Index.search_plain` with its per-index arguments bound once
//! (the index, its tools and name keys, the query length cap and the prefix options), so that
//! `ToolIndex.search`'s common call passes three arguments instead of nine and reads no
//! attribute chain to find them (~10 % of a 1k-tool search).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::fast_path::Plain;
use super::index::PyIndex;
use super::name_keys::PyNameKeys;

/// `index.search_plain(tools, keys, fields, query, limit, max_length, *prefix)` as
/// `search(fields, query, limit)`.
#[pyclass(name = "PlainSearch", module = "toolsift._core", frozen)]
pub(crate) struct PyPlainSearch {
    index: Py<PyIndex>,
    tools: Py<PyAny>,
    keys: Py<PyNameKeys>,
    max_length: usize,
    prefix: (f64, usize, usize),
}

#[pymethods]
impl PyPlainSearch {
    #[new]
    #[pyo3(signature = (
        index, tools, keys, max_length, prefix_fraction, prefix_min_len, max_expansions
    ))]
    fn new(
        index: Py<PyIndex>,
        tools: Py<PyAny>,
        keys: Py<PyNameKeys>,
        max_length: usize,
        prefix_fraction: f64,
        prefix_min_len: usize,
        max_expansions: usize,
    ) -> Self {
        PyPlainSearch {
            index,
            tools,
            keys,
            max_length,
            prefix: (prefix_fraction, prefix_min_len, max_expansions),
        }
    }

    /// `Index.search_plain` of `query` with the bound arguments: a `SearchResult`, or `None`
    /// when the query needs the Python layer.
    fn search<'py>(
        &self,
        py: Python<'py>,
        fields: &Bound<'py, PyDict>,
        query: &Bound<'py, PyString>,
        limit: usize,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let index = self.index.get().inner();
        let keys = self.keys.get().keys();
        let plain = Plain::new(py, index, keys, limit, self.max_length, self.prefix)?;
        plain.search(py, self.tools.bind(py), fields, query)
    }
}
