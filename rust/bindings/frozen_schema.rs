//! A tool's input schema in the compact, immutable form the compiled loader stores
//! (`toolsift._tool.lazy`): its JSON text, one `bytes` object, which Python's cyclic collector
//! does not track and which shares nothing with the caller's dicts. `Tool.input_schema` decodes
//! it (`json.loads`) on first read; the index build reads the schema keys and the parameter
//! descriptions straight from it ([`FrozenSchema`]), with no Python object made.
//!
//! Only values that `json.loads` gives back exactly are frozen: `dict`s with `str` keys, `list`s,
//! `str`s without a lone surrogate, `int`s that fit 64 bits, finite `float`s (written shortest
//! round-trip, so read back bit for bit), `bool`s and `None`. Any other schema is stored as
//! `Tool` stores it (a read-only proxy over a shallow copy).

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};

use crate::build::item::Node;
use crate::build::item_json::parse_schema;
use crate::build::schema::node_descriptions;

/// What [`write_json`] made of a value.
#[derive(Debug, PartialEq)]
pub enum Written {
    /// Its JSON text.
    Json,
    /// Nothing usable: a value `json.loads` would not give back exactly (a `tuple`, a `NaN`...).
    NotJson,
    /// Nothing: it nests deeper than `depth_cap` or holds more than `node_cap` values, counted
    /// as `toolsift.limits._fits` counts them.
    OverCaps,
}

/// Writes JSON text, counting containers' values against the schema caps.
pub struct JsonWriter {
    pub out: Vec<u8>,
    nodes: usize,
    depth_cap: usize,
    node_cap: usize,
}

impl JsonWriter {
    /// A writer for a schema (the root counts as one value, as `_fits` counts it).
    pub fn new(depth_cap: usize, node_cap: usize) -> Self {
        JsonWriter {
            out: Vec::with_capacity(256),
            nodes: 1,
            depth_cap,
            node_cap,
        }
    }

    /// Counts a container of `len` values at `depth`.
    fn enter(&mut self, depth: usize, len: usize) -> Result<(), Written> {
        self.nodes += len;
        if depth > self.depth_cap || self.nodes > self.node_cap {
            return Err(Written::OverCaps);
        }
        Ok(())
    }

    /// Appends the JSON text of `value` (a container at `depth`, or a leaf).
    pub fn write(&mut self, value: &Bound<'_, PyAny>, depth: usize) -> Written {
        match self.value(value, depth) {
            Ok(()) => Written::Json,
            Err(written) => written,
        }
    }

    fn value(&mut self, value: &Bound<'_, PyAny>, depth: usize) -> Result<(), Written> {
        let out = &mut self.out;
        if let Ok(dict) = value.cast_exact::<PyDict>() {
            self.enter(depth, dict.len())?;
            self.out.push(b'{');
            for (i, (key, child)) in dict.iter().enumerate() {
                if i > 0 {
                    self.out.push(b',');
                }
                write_str(&key, &mut self.out)?;
                self.out.push(b':');
                self.value(&child, depth + 1)?;
            }
            self.out.push(b'}');
        } else if let Ok(list) = value.cast_exact::<PyList>() {
            self.enter(depth, list.len())?;
            self.out.push(b'[');
            for (i, child) in list.iter().enumerate() {
                if i > 0 {
                    self.out.push(b',');
                }
                self.value(&child, depth + 1)?;
            }
            self.out.push(b']');
        } else if value.is_none() {
            out.extend_from_slice(b"null");
        } else if let Ok(flag) = value.cast_exact::<PyBool>() {
            out.extend_from_slice(if flag.is_true() { b"true" } else { b"false" });
        } else if value.is_exact_instance_of::<PyInt>() {
            let written = if let Ok(n) = value.extract::<i64>() {
                serde_json::to_writer(&mut *out, &n).is_ok()
            } else if let Ok(n) = value.extract::<u64>() {
                serde_json::to_writer(&mut *out, &n).is_ok()
            } else {
                false
            };
            if !written {
                return Err(Written::NotJson);
            }
        } else if let Ok(float) = value.cast_exact::<PyFloat>() {
            let x = float.value();
            // serde_json writes a float with a `.` or an exponent (`1.0`, `1e16`): read back as
            // a float, never an int.
            if !(x.is_finite() && serde_json::to_writer(&mut *out, &x).is_ok()) {
                return Err(Written::NotJson);
            }
        } else {
            write_str(value, out)?;
        }
        Ok(())
    }
}

/// Appends `value` as a JSON string (`NotJson`: not exactly a `str`, or a lone surrogate).
fn write_str(value: &Bound<'_, PyAny>, out: &mut Vec<u8>) -> Result<(), Written> {
    let text = value
        .cast_exact::<PyString>()
        .map_err(|_| Written::NotJson)?;
    with_utf8(text, |utf8| {
        push_json_str(utf8, out);
        Ok(())
    })
}

/// Appends `text` as a JSON string, as `serde_json` writes it: most schema strings need no
/// escape, and are copied whole.
fn push_json_str(text: &str, out: &mut Vec<u8>) {
    let bytes = text.as_bytes();
    // (A fold, not `any`: no early exit, so the compiler checks many bytes at a time.)
    let escaped = bytes.iter().fold(false, |found, &b| {
        found | (b < 0x20) | (b == b'"') | (b == b'\\')
    });
    if escaped {
        // Writing to a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut *out, text);
        return;
    }
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    out.extend_from_slice(bytes);
    out.push(b'"');
}

#[cfg(not(windows))]
extern "C" {
    // Public since Python 3.3, in the limited API since 3.10. An abi3-py39 extension may call it
    // where symbols resolve against the running interpreter (Linux, macOS), not on Windows,
    // whose abi3 import library lists only the 3.9 limited API.
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut pyo3::ffi::PyObject,
        size: *mut pyo3::ffi::Py_ssize_t,
    ) -> *const std::os::raw::c_char;
}

/// `text`'s UTF-8, borrowed from the `str` (an ASCII `str` holds it; any other keeps it once
/// made, as `str` objects do), valid as long as `text` is; `None` for a lone surrogate.
#[cfg(not(windows))]
pub(super) fn borrowed_utf8<'a>(text: &'a Bound<'_, PyString>) -> Option<&'a str> {
    let mut size: pyo3::ffi::Py_ssize_t = 0;
    // SAFETY: a live `str` (the GIL is held); the returned buffer lives as long as the `str`,
    // which `text` holds for `'a`. NULL sets a Python error (a lone surrogate), cleared.
    let data = unsafe { PyUnicode_AsUTF8AndSize(text.as_ptr(), &mut size) };
    if data.is_null() {
        drop(PyErr::take(text.py()));
        return None;
    }
    // SAFETY: `size` bytes of valid UTF-8 at `data` (CPython's own encoding).
    Some(unsafe {
        std::str::from_utf8_unchecked(std::slice::from_raw_parts(data.cast::<u8>(), size as usize))
    })
}

/// `each` of `text`'s UTF-8, borrowed from the `str` (an ASCII `str` holds it; any other keeps
/// it once made, as `str` objects do); `NotJson` for a lone surrogate.
#[cfg(not(windows))]
fn with_utf8<T>(
    text: &Bound<'_, PyString>,
    each: impl FnOnce(&str) -> Result<T, Written>,
) -> Result<T, Written> {
    let mut size: pyo3::ffi::Py_ssize_t = 0;
    // SAFETY: a live `str` (the GIL is held); the returned buffer lives as long as the `str`,
    // which `text` holds during `each`. NULL sets a Python error (a lone surrogate), cleared.
    let data = unsafe { PyUnicode_AsUTF8AndSize(text.as_ptr(), &mut size) };
    if data.is_null() {
        drop(PyErr::take(text.py()));
        return Err(Written::NotJson);
    }
    // SAFETY: `size` bytes of valid UTF-8 at `data` (CPython's own encoding).
    let utf8 = unsafe {
        std::str::from_utf8_unchecked(std::slice::from_raw_parts(data.cast::<u8>(), size as usize))
    };
    each(utf8)
}

#[cfg(windows)]
fn with_utf8<T>(
    text: &Bound<'_, PyString>,
    each: impl FnOnce(&str) -> Result<T, Written>,
) -> Result<T, Written> {
    let utf8 = text.encode_utf8().map_err(|_| Written::NotJson)?;
    each(std::str::from_utf8(utf8.as_bytes()).map_err(|_| Written::NotJson)?)
}

/// A frozen schema, parsed for the index build: its values as the parameter walk reads them
/// (`crate::build::item::Node`, read as a JSON item's schema is: `item_json::parse_schema`),
/// strings borrowed from the text where they have no escape.
pub struct FrozenSchema<'a>(Node<'a>);

impl<'a> FrozenSchema<'a> {
    /// The schema of a frozen schema's JSON text (`None`: not JSON, never written here).
    pub fn parse(text: &'a [u8]) -> Option<Self> {
        parse_schema(std::str::from_utf8(text).ok()?).map(FrozenSchema)
    }

    /// `Tool.schema_keys`: the property names, sorted by code point (UTF-8 byte order).
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = match self.0.get("properties") {
            Some(properties) => properties
                .entries()
                .iter()
                .map(|(key, _)| key.as_ref().to_owned())
                .collect(),
            None => Vec::new(),
        };
        keys.sort_unstable();
        keys
    }

    /// The parameter descriptions (`toolsift._text.documents.parameter_descriptions`).
    pub fn descriptions(&self) -> Vec<String> {
        node_descriptions(&self.0)
    }
}
