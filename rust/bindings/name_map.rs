//! `NameMap`: one of a name table's two maps (normalised name form -> tool ids) in compact form
//! (`crate::search::name_table::NameMap`), read from Python as a read-only mapping.

use pyo3::exceptions::PyKeyError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::search::name_table::NameMap;

/// Normalised name forms -> tool ids (an id, or an ascending list of ids when several), as the
/// name table's dicts hold them, in about a third of their memory. Built by
/// `_build_name_table`; registered as a `collections.abc.Mapping` by `toolsift._names.table`.
#[pyclass(name = "NameMap", module = "toolsift._core", frozen)]
pub(crate) struct PyNameMap {
    inner: NameMap,
}

impl PyNameMap {
    pub(crate) fn new(inner: NameMap) -> Self {
        PyNameMap { inner }
    }

    /// The entry of `key` (a `str` that is a key; a string holding a lone surrogate never is).
    fn entry(&self, key: &Bound<'_, PyAny>) -> Option<usize> {
        let key = key.cast::<PyString>().ok()?.to_cow().ok()?;
        self.inner.find(&key)
    }

    fn value<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.ids(i) {
            [id] => Ok(id.into_pyobject(py)?.into_any()),
            ids => Ok(PyList::new(py, ids)?.into_any()),
        }
    }
}

#[pymethods]
impl PyNameMap {
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> bool {
        self.entry(key).is_some()
    }

    fn __getitem__<'py>(&self, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        match self.entry(key) {
            Some(i) => self.value(key.py(), i),
            None => Err(PyKeyError::new_err(key.clone().unbind())),
        }
    }

    /// The ids of `key`, or `default`.
    #[pyo3(signature = (key, default = None))]
    fn get<'py>(
        &self,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.entry(key) {
            Some(i) => self.value(key.py(), i).map(Some),
            None => Ok(default),
        }
    }

    /// The keys, in the order they were added.
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let keys = (0..self.inner.len()).map(|i| self.inner.key(i));
        Ok(PyList::new(py, keys)?.as_any().try_iter()?.into_any())
    }

    fn keys<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        abc_view(slf.as_any(), intern!(slf.py(), "KeysView"))
    }

    fn items<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        abc_view(slf.as_any(), intern!(slf.py(), "ItemsView"))
    }

    fn values<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        abc_view(slf.as_any(), intern!(slf.py(), "ValuesView"))
    }

    /// The bytes held, the buffers included (`sys.getsizeof`).
    fn __sizeof__(&self) -> usize {
        std::mem::size_of::<Self>() + self.inner.memory_bytes()
    }
}

/// `collections.abc.<view>(mapping)`: the `keys()`, `items()` or `values()` of a mapping class
/// of this crate (`NameMap`, `NamePositions`), as the ABC's mixins make them.
pub(crate) fn abc_view<'py>(
    mapping: &Bound<'py, PyAny>,
    view: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = mapping.py();
    py.import(intern!(py, "collections.abc"))?
        .getattr(view)?
        .call1((mapping,))
}
