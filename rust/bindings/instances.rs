//! Instances of Python classes made from Rust as `object.__new__(cls)` makes them, and filled as
//! `object.__setattr__` fills them (past a frozen dataclass's `__setattr__`): what the one-call
//! builders of `Match` / `SearchResult` ([`super::matches`]) and of `Tool`
//! ([`super::tool_objects`]) share.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyTuple, PyType};
use pyo3::{ffi, intern};

/// `object.__new__`, looked up once per interpreter.
static OBJECT_NEW: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `object.__new__`.
pub(crate) fn object_new(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
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

/// `cls`'s `tp_new` slot when it is `object.__new__`'s (a Python class that does not override
/// `__new__`): called directly by [`new_instance`], it is `object.__new__(cls)` without the
/// Python call. `None`: `object.__new__` is called from Python.
pub(crate) fn object_new_slot(cls: &Bound<'_, PyType>) -> PyResult<Option<ffi::newfunc>> {
    let py = cls.py();
    // SAFETY: `cls` is a live type object (the GIL is held: `py`); the call only reads it.
    let heap = unsafe { ffi::PyType_GetFlags(cls.as_type_ptr()) } & ffi::Py_TPFLAGS_HEAPTYPE;
    if heap == 0 || !cls.getattr(intern!(py, "__new__"))?.is(object_new(py)?) {
        return Ok(None);
    }
    // SAFETY: as above; `PyType_GetSlot` works on heap types on every supported Python, and
    // `Py_tp_new` holds a `newfunc` (or NULL).
    let ptr = unsafe { ffi::PyType_GetSlot(cls.as_type_ptr(), ffi::Py_tp_new) };
    // SAFETY: a non-null `Py_tp_new` slot is a `newfunc`.
    Ok((!ptr.is_null()).then(|| unsafe { std::mem::transmute::<_, ffi::newfunc>(ptr) }))
}

/// The arguments [`new_instance`] takes for `slot`: `()` for the slot, `(cls,)` for
/// `object.__new__`.
pub(crate) fn new_args<'py>(
    cls: &Bound<'py, PyType>,
    slot: Option<ffi::newfunc>,
) -> PyResult<Bound<'py, PyTuple>> {
    match slot {
        Some(_) => Ok(PyTuple::empty(cls.py())),
        None => PyTuple::new(cls.py(), [cls]),
    }
}

/// A new, empty instance of `cls`, by its `slot` ([`object_new_slot`]) and `args`
/// ([`new_args`]).
pub(crate) fn new_instance<'py>(
    cls: &Bound<'py, PyType>,
    slot: Option<ffi::newfunc>,
    args: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = cls.py();
    match slot {
        // SAFETY: the class's own `tp_new` (object's: see `object_new_slot`), called as
        // `type.__call__` calls it, with a live class and an empty argument tuple; it returns a
        // new reference, or NULL with a Python exception set, which `from_owned_ptr_or_err` takes.
        Some(new) => unsafe {
            let object = new(cls.as_type_ptr(), args.as_ptr(), std::ptr::null_mut());
            Bound::from_owned_ptr_or_err(py, object)
        },
        None => object_new(py)?.call1(args),
    }
}

/// `object.__setattr__(object, name, value)`; `name` and `value` are live objects.
pub(crate) fn set_field(
    object: &Bound<'_, PyAny>,
    name: *mut ffi::PyObject,
    value: *mut ffi::PyObject,
) -> PyResult<()> {
    // SAFETY: three live objects (the GIL is held: `object.py()`); the call only reads them and
    // returns 0, or -1 with a Python exception set, which `PyErr::fetch` takes.
    let status = unsafe { ffi::PyObject_GenericSetAttr(object.as_ptr(), name, value) };
    if status == 0 {
        Ok(())
    } else {
        Err(PyErr::fetch(object.py()))
    }
}
