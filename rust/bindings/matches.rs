//! The Python layer's result objects, built in one call: a ranked list's `Match` objects cost
//! ~0.45 µs each from Python (a function call, `object.__new__`, a keyword dict and its update)
//! and ~0.17 µs here (0.2 µs with a Python-level `object.__new__` call per match), on every
//! search. What is left is CPython's: four stores into the instance's shared-key dict (about
//! half) and the allocation.
//!
//! A deliberate twin: [`build_matches`] makes each object as `toolsift.result.new_match`
//! (`python/toolsift/result.py`, the specification) makes it, and [`build_result`] a
//! `SearchResult` as `SearchResult._from_fields` does. `tests/test_fastpath.py` proves them
//! equal with Hypothesis (`test_compiled_matches_equal_the_python_ones`: arbitrary hits,
//! scores and reasons give equal, same-repr, same-field-order, picklable objects;
//! `test_compiled_results_equal_the_python_ones`: the one-call path's results;
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

/// `SearchResult._from_fields(fields, query, matches, total_tools)`, made here: the object made
/// as `object.__new__` makes it, then each of `fields` (a dict of every field in field order)
/// stored in its instance dict in that order, `query`, `matches` and `total_tools` in place of
/// their placeholders.
pub(crate) fn build_result<'py>(
    py: Python<'py>,
    fields: &Bound<'py, PyDict>,
    query: Bound<'py, PyAny>,
    matches: Bound<'py, PyTuple>,
    total_tools: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let cls = result_class(py, &SEARCH_RESULT, "SearchResult")?;
    let maker = Maker::new(py, cls)?;
    let result = maker.make()?;
    let total = total_tools.into_pyobject(py)?.into_any();
    let own = [
        (intern!(py, "query"), query.as_ptr()),
        (intern!(py, "matches"), matches.as_ptr()),
        (intern!(py, "total_tools"), total.as_ptr()),
    ];
    let mut set = [false; 3];
    for (name, value) in fields.iter() {
        // The keys are the source's interned names, the same objects as `intern!`'s.
        let value = match own.iter().position(|(key, _)| key.is(&name)) {
            Some(i) => {
                set[i] = true;
                own[i].1
            }
            None => value.as_ptr(),
        };
        maker.store(&result, name.as_ptr(), value)?;
    }
    for ((name, value), done) in own.iter().zip(set) {
        if !done {
            maker.store(&result, name.as_ptr(), *value)?;
        }
    }
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

/// Makes instances of one class as `object.__new__(cls)` makes them, and fills their instance
/// dicts as `object.__setattr__` does (bypassing a frozen dataclass's `__setattr__`).
struct Maker<'a, 'py> {
    py: Python<'py>,
    cls: &'a Bound<'py, PyType>,
    /// The class's `tp_new` slot when it is `object.__new__`'s (a Python class that does not
    /// override `__new__`): called directly, it is `object.__new__(cls)` without the Python
    /// call (~40 % of a match's cost). `None`: `object.__new__` is called from Python.
    slot: Option<ffi::newfunc>,
    /// The slot's arguments (`()`), or `object.__new__`'s (`(cls,)`).
    args: Bound<'py, PyTuple>,
}

impl<'a, 'py> Maker<'a, 'py> {
    fn new(py: Python<'py>, cls: &'a Bound<'py, PyType>) -> PyResult<Self> {
        let new = object_new(py)?;
        // SAFETY: `cls` is a live type object (the GIL is held: `py`); both calls only read it.
        let heap = unsafe { ffi::PyType_GetFlags(cls.as_type_ptr()) } & ffi::Py_TPFLAGS_HEAPTYPE;
        let slot = if heap != 0 && cls.getattr(intern!(py, "__new__"))?.is(new) {
            // SAFETY: as above; `PyType_GetSlot` works on heap types on every supported Python,
            // and `Py_tp_new` holds a `newfunc` (or NULL).
            let ptr = unsafe { ffi::PyType_GetSlot(cls.as_type_ptr(), ffi::Py_tp_new) };
            // SAFETY: a non-null `Py_tp_new` slot is a `newfunc`.
            (!ptr.is_null()).then(|| unsafe { std::mem::transmute::<_, ffi::newfunc>(ptr) })
        } else {
            None
        };
        let args = match slot {
            Some(_) => PyTuple::empty(py),
            None => PyTuple::new(py, [cls])?,
        };
        Ok(Maker {
            py,
            cls,
            slot,
            args,
        })
    }

    /// A new, empty instance.
    fn make(&self) -> PyResult<Bound<'py, PyAny>> {
        match self.slot {
            // SAFETY: the class's own `tp_new` (object's: see `slot`), called as `type.__call__`
            // calls it, with a live class and an empty argument tuple; it returns a new
            // reference, or NULL with a Python exception set, which `from_owned_ptr_or_err` takes.
            Some(new) => unsafe {
                let object = new(
                    self.cls.as_type_ptr(),
                    self.args.as_ptr(),
                    std::ptr::null_mut(),
                );
                Bound::from_owned_ptr_or_err(self.py, object)
            },
            None => object_new(self.py)?.call1(&self.args),
        }
    }

    /// `object.__setattr__(object, name, value)`; `name` and `value` are live objects.
    fn store(
        &self,
        object: &Bound<'py, PyAny>,
        name: *mut ffi::PyObject,
        value: *mut ffi::PyObject,
    ) -> PyResult<()> {
        // SAFETY: three live objects (the GIL is held: `py`); the call only reads them and
        // returns 0, or -1 with a Python exception set, which `PyErr::fetch` takes.
        let status = unsafe { ffi::PyObject_GenericSetAttr(object.as_ptr(), name, value) };
        if status == 0 {
            return Ok(());
        }
        let err = PyErr::fetch(self.py);
        Err(PyTypeError::new_err(format!(
            "cannot build a {}: {err}",
            self.cls.name()?
        )))
    }
}

/// The matches of `hits` (see [`new_matches`]), as a list.
pub(crate) fn build_matches<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    tools: &Bound<'py, PyAny>,
    hits: impl IntoIterator<Item = (usize, f64)>,
    reason: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, match_objects(py, cls, tools, hits, reason)?)
}

/// The matches of `hits` (see [`new_matches`]), as a tuple (a `SearchResult`'s `matches`).
pub(crate) fn build_match_tuple<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    tools: &Bound<'py, PyAny>,
    hits: impl IntoIterator<Item = (usize, f64)>,
    reason: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, match_objects(py, cls, tools, hits, reason)?)
}

/// The match objects of `hits`, in order.
fn match_objects<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    tools: &Bound<'py, PyAny>,
    hits: impl IntoIterator<Item = (usize, f64)>,
    reason: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let maker = Maker::new(py, cls)?;
    let names = [
        intern!(py, "tool"),
        intern!(py, "score"),
        intern!(py, "reason"),
        intern!(py, "normalized_score"),
    ];
    let none = py.None().into_bound(py);
    let hits = hits.into_iter();
    let mut out = Vec::with_capacity(hits.size_hint().0);
    // A tuple of tools (an index's usual sequence) is read without a Python int per lookup.
    let tuple = tools.cast::<PyTuple>().ok();
    for (doc, score) in hits {
        let object = maker.make()?;
        let tool = match tuple {
            Some(tuple) => tuple.get_item(doc)?,
            None => tools.get_item(doc)?,
        };
        let score = score.into_pyobject(py)?.into_any();
        let values = [
            tool.as_ptr(),
            score.as_ptr(),
            reason.as_ptr(),
            none.as_ptr(),
        ];
        for (name, value) in names.iter().zip(values) {
            maker.store(&object, name.as_ptr(), value)?;
        }
        out.push(object);
    }
    Ok(out)
}
