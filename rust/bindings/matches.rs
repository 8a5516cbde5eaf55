//! The Python layer's result objects, built in one call: a ranked list's `Match` objects cost
//! ~0.45 µs each from Python (a function call, `object.__new__`, a keyword dict and its update)
//! and ~0.15 µs here, on every search.
//!
//! A deliberate twin: [`build_matches`] makes each object as `toolsift.result.new_match`
//! (`python/toolsift/result.py`, the specification) makes it. `tests/test_fastpath.py` proves
//! them equal with Hypothesis (`test_compiled_matches_equal_the_python_ones`: arbitrary hits,
//! scores and reasons give equal, same-repr, same-field-order, picklable objects;
//! `test_search_matches_is_search_then_matches`: `Index.search_matches` is `search` then these).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple, PyType};
use pyo3::{ffi, intern};

/// `object.__new__`, looked up once per interpreter.
static OBJECT_NEW: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `[new_match(tools[d], score, reason) for d, score in hits]`: each object is made as
/// `toolsift.result.new_match` makes it, with `object.__new__(cls)` and its four fields stored
/// in the instance dict in field order (`tool`, `score`, `reason`, `normalized_score` = None),
/// the frozen dataclass's `__setattr__` bypassed as `object.__setattr__` bypasses it.
///
/// `cls` must be a class whose instances have a `__dict__` (the `Match` dataclass); `tools` any
/// sequence (a tuple, or a loaded index's lazily decoded tools).
#[pyfunction(name = "_new_matches")]
pub(crate) fn new_matches<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    tools: &Bound<'py, PyAny>,
    hits: Vec<(usize, f64)>,
    reason: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    build_matches(py, cls, tools, hits, reason)
}

/// `toolsift.result.Match`, looked up once per interpreter (for `Index.search_matches`).
static MATCH: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// The `Match` class of `toolsift.result`.
pub(crate) fn match_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    result_class(py, &MATCH, "Match")
}

/// Class `name` of `toolsift.result`, looked up once into `cell`.
fn result_class<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    name: &str,
) -> PyResult<&'py Bound<'py, PyType>> {
    cell.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        Ok(py
            .import("toolsift.result")?
            .getattr(name)?
            .cast_into::<PyType>()?
            .unbind())
    })
    .map(|cls| cls.bind(py))
}

/// `toolsift.result.SearchResult`, looked up once per interpreter (for `Index.search_plain`).
static SEARCH_RESULT: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `SearchResult._from_fields(fields, query, matches, total_tools)`, made here: the object
/// from `object.__new__`, its instance dict updated with `fields` (a dict of every field in
/// field order), then `query`, `matches` and `total_tools` set.
pub(crate) fn build_result<'py>(
    py: Python<'py>,
    fields: &Bound<'py, PyDict>,
    query: Bound<'py, PyAny>,
    matches: Bound<'py, PyTuple>,
    total_tools: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let cls = result_class(py, &SEARCH_RESULT, "SearchResult")?;
    let result = object_new(py)?.call1((cls,))?;
    let values = result
        .getattr(intern!(py, "__dict__"))?
        .cast_into::<PyDict>()?;
    values.update(fields.as_mapping())?;
    values.set_item(intern!(py, "query"), query)?;
    values.set_item(intern!(py, "matches"), matches)?;
    values.set_item(intern!(py, "total_tools"), total_tools)?;
    Ok(result)
}

/// `object.__new__`.
fn object_new(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    OBJECT_NEW
        .get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            Ok(py
                .import("builtins")?
                .getattr("object")?
                .getattr("__new__")?
                .unbind())
        })
        .map(|new| new.bind(py))
}

/// The matches of `hits` (see [`new_matches`]).
pub(crate) fn build_matches<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    tools: &Bound<'py, PyAny>,
    hits: impl IntoIterator<Item = (usize, f64)>,
    reason: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let new = object_new(py)?;
    let names = [
        intern!(py, "tool"),
        intern!(py, "score"),
        intern!(py, "reason"),
        intern!(py, "normalized_score"),
    ];
    let none = py.None().into_bound(py);
    let list = PyList::empty(py);
    // One argument tuple for every `object.__new__(cls)` call, and a tuple of tools (an index's
    // usual sequence) read without a Python int per lookup: ~25 % of a match's cost.
    let args = PyTuple::new(py, [cls])?;
    let tuple = tools.cast::<PyTuple>().ok();
    for (doc, score) in hits {
        let object = new.call1(&args)?;
        let tool = match tuple {
            Some(tuple) => tuple.get_item(doc)?,
            None => tools.get_item(doc)?,
        };
        let values = [
            tool,
            score.into_pyobject(py)?.into_any(),
            reason.clone(),
            none.clone(),
        ];
        for (name, value) in names.iter().zip(&values) {
            // SAFETY: three live objects (the GIL is held: `py`); the call only reads them and
            // returns 0, or -1 with a Python exception set, which `PyErr::fetch` takes.
            let status = unsafe {
                ffi::PyObject_GenericSetAttr(object.as_ptr(), name.as_ptr(), value.as_ptr())
            };
            if status != 0 {
                let err = PyErr::fetch(py);
                return Err(PyTypeError::new_err(format!(
                    "cannot build a match of {}: {err}",
                    cls.name()?
                )));
            }
        }
        list.append(object)?;
    }
    Ok(list)
}
