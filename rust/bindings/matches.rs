//! The Python layer's result objects, built in one call: a ranked list's `Match` objects cost
//! ~0.45 µs each from Python (a function call, `object.__new__`, a keyword dict and its update)
//! and ~0.17 µs here with an instance dict; `Match` has slots for its four fields (no instance
//! dict), which are filled here by writing each field's slot directly, as its member descriptor
//! does, at offsets found once per interpreter (see [`Fields`]).
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
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};
use pyo3::{ffi, intern};

use super::instances::{new_args, new_instance, object_new_slot, set_field};

/// `[new_match(tools[d], score, reason) for d, score in hits]`: each object is made as
/// `toolsift.result.new_match` makes it, with `object.__new__(cls)` and its four fields set in
/// field order (`tool`, `score`, `reason`, `normalized_score` = None), the frozen dataclass's
/// `__setattr__` bypassed as `object.__setattr__` bypasses it.
///
/// `cls` must be a class whose instances can hold those fields (the `Match` dataclass, with
/// slots for them; a class with an instance `__dict__` works too); `tools` any sequence (a
/// tuple, or a loaded index's lazily decoded tools).
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

/// A class of `toolsift.result` and how its instances are made, found once per interpreter.
struct Known {
    cls: Py<PyType>,
    recipe: Recipe,
}

/// `toolsift.result.Match` (for `Index.search_matches` and the one-call paths).
static MATCH: PyOnceLock<Known> = PyOnceLock::new();

/// `toolsift.result.SearchResult` (for `Index.search_plain`).
static SEARCH_RESULT: PyOnceLock<Known> = PyOnceLock::new();

/// The `Match` class of `toolsift.result`.
pub(crate) fn match_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    known(py, &MATCH, "Match").map(|known| known.cls.bind(py))
}

/// Class `name` of `toolsift.result` and its recipe, found once into `cell`.
fn known<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Known>,
    name: &str,
) -> PyResult<&'py Known> {
    cell.get_or_try_init(py, || -> PyResult<Known> {
        let cls = py
            .import("toolsift.result")?
            .getattr(name)?
            .cast_into::<PyType>()?;
        let recipe = Recipe::of(&cls)?;
        Ok(Known {
            cls: cls.unbind(),
            recipe,
        })
    })
}

/// `SearchResult._from_fields(fields, query, matches, total_tools)`, made here: the object made
/// as `object.__new__` makes it, whose instance dict is a copy of `fields` (a dict of every
/// field in field order) with `query`, `matches` and `total_tools` in place of their
/// placeholders: the same dict, in the same order, as storing each field in turn makes, in
/// one copy (~0.2 µs less a search than ten stores through `object.__setattr__`).
pub(crate) fn build_result<'py>(
    py: Python<'py>,
    fields: &Bound<'py, PyDict>,
    query: Bound<'py, PyAny>,
    matches: Bound<'py, PyTuple>,
    total_tools: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let known = known(py, &SEARCH_RESULT, "SearchResult")?;
    let cls = known.cls.bind(py);
    let maker = Maker::with(py, cls, known.recipe)?;
    let result = maker.make()?;
    let values = fields.copy()?;
    values.set_item(intern!(py, "query"), query)?;
    values.set_item(intern!(py, "matches"), matches)?;
    values.set_item(intern!(py, "total_tools"), total_tools)?;
    // SAFETY: two live objects (the GIL is held: `py`); the call makes `values` the object's
    // `__dict__` (taking its own reference) and returns 0, or -1 with a Python exception set.
    let status = unsafe {
        ffi::PyObject_GenericSetDict(result.as_ptr(), values.as_ptr(), std::ptr::null_mut())
    };
    if status != 0 {
        return Err(PyErr::fetch(py));
    }
    Ok(result)
}

/// How instances of one class are made and filled.
#[derive(Clone, Copy)]
struct Recipe {
    /// The class's `tp_new` slot when it is `object.__new__`'s (a Python class that does not
    /// override `__new__`): called directly, it is `object.__new__(cls)` without the Python
    /// call (~40 % of a dict-backed match's cost). `None`: `object.__new__` is called from
    /// Python.
    slot: Option<ffi::newfunc>,
    /// Where a match's four fields go (see [`Fields`]).
    fields: Fields,
}

impl Recipe {
    /// The recipe of `cls` (its fields: those of a match).
    fn of(cls: &Bound<'_, PyType>) -> PyResult<Recipe> {
        let py = cls.py();
        let slot = object_new_slot(cls)?;
        let fields = Fields::Attrs;
        let recipe = Recipe { slot, fields };
        let fields = Fields::of(&Maker::with(py, cls, recipe)?, field_names(py))?;
        Ok(Recipe { slot, fields })
    }
}

/// Makes instances of one class as `object.__new__(cls)` makes them, and fills them as
/// `object.__setattr__` does (bypassing a frozen dataclass's `__setattr__`).
struct Maker<'a, 'py> {
    py: Python<'py>,
    cls: &'a Bound<'py, PyType>,
    recipe: Recipe,
    /// The slot's arguments (`()`), or `object.__new__`'s (`(cls,)`).
    args: Bound<'py, PyTuple>,
}

impl<'a, 'py> Maker<'a, 'py> {
    /// The maker of `cls` (a class of `toolsift.result`: its recipe found once) or any other
    /// class (found now).
    fn new(py: Python<'py>, cls: &'a Bound<'py, PyType>) -> PyResult<Self> {
        let known = known(py, &MATCH, "Match")?;
        let recipe = if cls.is(known.cls.bind(py)) {
            known.recipe
        } else {
            Recipe::of(cls)?
        };
        Maker::with(py, cls, recipe)
    }

    /// The maker of `cls` by `recipe` (`cls`'s own).
    fn with(py: Python<'py>, cls: &'a Bound<'py, PyType>, recipe: Recipe) -> PyResult<Self> {
        let args = new_args(cls, recipe.slot)?;
        Ok(Maker {
            py,
            cls,
            recipe,
            args,
        })
    }

    /// A new, empty instance.
    fn make(&self) -> PyResult<Bound<'py, PyAny>> {
        new_instance(self.cls, self.recipe.slot, &self.args)
    }

    /// `object.__setattr__(object, name, value)`; `name` and `value` are live objects.
    fn store(
        &self,
        object: &Bound<'py, PyAny>,
        name: *mut ffi::PyObject,
        value: *mut ffi::PyObject,
    ) -> PyResult<()> {
        let Err(err) = set_field(object, name, value) else {
            return Ok(());
        };
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

/// The names of a `Match`'s fields, in field order.
fn field_names(py: Python<'_>) -> [&Bound<'_, PyString>; 4] {
    [
        intern!(py, "tool"),
        intern!(py, "score"),
        intern!(py, "reason"),
        intern!(py, "normalized_score"),
    ]
}

/// How the four fields of a class's instances are stored.
#[derive(Clone, Copy)]
enum Fields {
    /// In slots at these byte offsets in the object (a class with `__slots__` for each field
    /// and object's `tp_new`, whose new instances hold NULL there): written directly, as the
    /// field's member descriptor writes it, without `object.__setattr__`'s lookup of the
    /// descriptor (~30 % of a match's cost).
    Slots([usize; 4]),
    /// Through `object.__setattr__` (an instance dict, or slots not found).
    Attrs,
}

impl Fields {
    /// Where `maker`'s class stores the fields named `names`: [`Fields::Slots`] when each name
    /// is a member descriptor (a `__slots__` entry) of the class itself and a probe instance,
    /// given a distinct new object in each field through `object.__setattr__`, holds each of
    /// them in exactly one pointer-sized word within the class's `__basicsize__`: that word's
    /// offset is the slot's. Otherwise [`Fields::Attrs`].
    fn of(maker: &Maker<'_, '_>, names: [&Bound<'_, PyString>; 4]) -> PyResult<Fields> {
        let py = maker.py;
        let member = py.import("types")?.getattr("MemberDescriptorType")?;
        let own = maker.cls.getattr(intern!(py, "__dict__"))?;
        for name in names {
            match own.get_item(name) {
                Ok(descriptor) if descriptor.get_type().is(&member) => {}
                _ => return Ok(Fields::Attrs),
            }
        }
        if maker.recipe.slot.is_none() {
            return Ok(Fields::Attrs);
        }
        let size: usize = maker.cls.getattr(intern!(py, "__basicsize__"))?.extract()?;
        let probe = maker.make()?;
        let marks = names.map(|_| PyList::empty(py).into_any());
        for (name, mark) in names.iter().zip(&marks) {
            maker.store(&probe, name.as_ptr(), mark.as_ptr())?;
        }
        let words = size / std::mem::size_of::<*mut ffi::PyObject>();
        let base = probe.as_ptr().cast::<*mut ffi::PyObject>();
        let mut offsets = [0; 4];
        for (offset, mark) in offsets.iter_mut().zip(&marks) {
            // SAFETY: the probe is a live instance of the class, so `__basicsize__` bytes from
            // its address are its own, and an object's address is pointer-aligned; reading them
            // as pointers only compares them.
            let mut found = (0..words).filter(|&w| unsafe { *base.add(w) } == mark.as_ptr());
            match (found.next(), found.next()) {
                (Some(w), None) => *offset = w * std::mem::size_of::<*mut ffi::PyObject>(),
                _ => return Ok(Fields::Attrs),
            }
        }
        Ok(Fields::Slots(offsets))
    }

    /// Stores `values` in a new instance's fields (see [`Fields`]); a slot takes the value's
    /// reference over, without another count.
    fn fill<'py>(
        &self,
        maker: &Maker<'_, 'py>,
        object: &Bound<'py, PyAny>,
        values: [Bound<'py, PyAny>; 4],
    ) -> PyResult<()> {
        match self {
            Fields::Slots(offsets) => {
                for (offset, value) in offsets.iter().zip(values) {
                    // SAFETY: `offset` is a slot of the object's class (found by `Fields::of`,
                    // within its `__basicsize__`), `value` a live object whose reference the
                    // slot takes; what the slot held (NULL in a new instance) is released, as
                    // `PyMember_SetOne` does for a `__slots__` member.
                    unsafe {
                        let slot = object
                            .as_ptr()
                            .cast::<u8>()
                            .add(*offset)
                            .cast::<*mut ffi::PyObject>();
                        let old = std::mem::replace(&mut *slot, value.into_ptr());
                        ffi::Py_XDECREF(old);
                    }
                }
                Ok(())
            }
            Fields::Attrs => {
                let names = field_names(maker.py);
                for (name, value) in names.iter().zip(values) {
                    maker.store(object, name.as_ptr(), value.as_ptr())?;
                }
                Ok(())
            }
        }
    }
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
    let fields = maker.recipe.fields;
    let none = py.None().into_bound(py);
    let hits = hits.into_iter();
    let mut out = Vec::with_capacity(hits.size_hint().0);
    // A tuple of tools (an index's usual sequence) is read without a Python int per lookup.
    let tuple = tools.cast::<PyTuple>().ok();
    for (doc, score) in hits {
        let tool = match tuple {
            Some(tuple) => tuple.get_item(doc)?,
            None => tools.get_item(doc)?,
        };
        let object = maker.make()?;
        let score = score.into_pyobject(py)?.into_any();
        let values = [tool, score, reason.clone(), none.clone()];
        fields.fill(&maker, &object, values)?;
        out.push(object);
    }
    Ok(out)
}
