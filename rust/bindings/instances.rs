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

/// The offsets in an instance of `cls` of the object slots named `names` (`__slots__` of a
/// class made in Python, its member descriptors'), or `None` when `cls` lacks one of them (on
/// Python 3.9 a slots-less dataclass, say): then the fields are set by [`set_field`].
pub(crate) fn slot_offsets<const N: usize>(
    cls: &Bound<'_, PyType>,
    names: &[&str; N],
) -> Option<[ffi::Py_ssize_t; N]> {
    // SAFETY: `cls` is a live type object (the GIL is held); the call only reads it.
    let heap = unsafe { ffi::PyType_GetFlags(cls.as_type_ptr()) } & ffi::Py_TPFLAGS_HEAPTYPE;
    if heap == 0 {
        return None;
    }
    // SAFETY: as above; a heap type's `Py_tp_members` slot is its NULL-terminated array of
    // member definitions (or NULL), which lives as long as the type.
    let mut member = unsafe { ffi::PyType_GetSlot(cls.as_type_ptr(), ffi::Py_tp_members) }
        .cast::<ffi::PyMemberDef>();
    let mut offsets: [Option<ffi::Py_ssize_t>; N] = [None; N];
    while !member.is_null() {
        // SAFETY: `member` points into the array, whose last entry has a NULL name.
        let def = unsafe { &*member };
        if def.name.is_null() {
            break;
        }
        // SAFETY: a member's name is a NUL-terminated C string.
        let name = unsafe { std::ffi::CStr::from_ptr(def.name) };
        if def.type_code == ffi::Py_T_OBJECT_EX && def.flags & ffi::Py_READONLY == 0 {
            if let Some(i) = names.iter().position(|n| n.as_bytes() == name.to_bytes()) {
                offsets[i] = Some(def.offset);
            }
        }
        // SAFETY: not past the terminating entry (checked above).
        member = unsafe { member.add(1) };
    }
    let mut out = [0; N];
    for (slot, offset) in out.iter_mut().zip(offsets) {
        *slot = offset?;
    }
    Some(out)
}

/// Stores `value` in the object slot at `offset` of `object`, as the slot's member descriptor
/// does (the previous value, if any, is released).
///
/// # Safety
/// `offset` is an object slot's offset ([`slot_offsets`]) of `object`'s class or a base of it.
pub(crate) unsafe fn set_slot(
    object: &Bound<'_, PyAny>,
    offset: ffi::Py_ssize_t,
    value: &Bound<'_, PyAny>,
) {
    let place = object
        .as_ptr()
        .cast::<u8>()
        .offset(offset)
        .cast::<*mut ffi::PyObject>();
    let old = *place;
    *place = value.clone().into_ptr();
    ffi::Py_XDECREF(old);
}

/// The value in the object slot at `offset` of `object` (`None`: the slot is empty).
///
/// # Safety
/// As [`set_slot`].
pub(crate) unsafe fn get_slot<'py>(
    object: &Bound<'py, PyAny>,
    offset: ffi::Py_ssize_t,
) -> Option<Bound<'py, PyAny>> {
    let value = *object
        .as_ptr()
        .cast::<u8>()
        .offset(offset)
        .cast::<*mut ffi::PyObject>();
    (!value.is_null()).then(|| Bound::from_borrowed_ptr(object.py(), value))
}
