//! `toolsift._core._new_tools`: the `Tool` objects of a list of plain tool dicts, made in one
//! call. `load_tools` spent ~27 µs a tool in Python (format detection, the converter, `Tool`'s
//! checks and its schema walk, `toolsift.limits._fits`, half of it); here a tool costs ~1 µs.
//!
//! A deliberate twin of the Python path, for the items it handles exactly: MCP `tools/list`
//! items and toolsift records (`toolsift._loaders.formats._mcp_item`, `_record_item` and
//! `_detect`) with exact `dict`, `list`, `tuple`, `str`, `int`, `float`, `bool` and `None`
//! values, turned into `Tool`s as `Tool.__init__` and `__post_init__`
//! (`python/toolsift/tools.py`, `python/toolsift/_tool/checks.py`, the specification) make
//! them: the same fields, and the derived `display_label`, `display_summary` and `schema_keys`.
//! A schema of plain JSON values is stored frozen, as its JSON text, with `schema_keys` left
//! `None`, both decoded on first read (`super::frozen_schema`, `toolsift._tool.lazy`), and the
//! tool, which then holds only strings and bytes, is left out of Python's cyclic collector; any
//! other schema is stored as `Tool` stores it, a `MappingProxyType` over a shallow copy.
//! Anything else (another format, a `type` key, any value `Tool` would reject or change, such
//! as a lone surrogate in a text field, a schema past `toolsift.limits`' caps, two tools of one
//! name) makes the whole call return `None`, and the caller loads the items the Python way,
//! which gives the result or the error. `tests/test_tool_objects.py` proves the two paths
//! equal with Hypothesis.
//!
//! The items are read by `super::tool_items` (the formats, the field checks); this file stores
//! their schemas and makes the objects.

use ahash::{AHashSet, RandomState};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::critical_section::with_critical_section;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use pyo3::{ffi, intern};

use crate::build::item::{MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES};
use crate::build::records::{utf16_prefix, MAX_DESCRIPTION_LENGTH, SUMMARY_UTF16_UNITS};

use super::frozen_schema::{JsonWriter, Written};
use super::instances::{
    new_args, new_instance, object_new_slot, set_field, set_slot, slot_offsets,
};
use super::tool_items::{detect, get, mcp_fields, optional, or_python, record_fields, Format, Str};

/// Whether `value` is of one of `toolsift.limits._LEAF_TYPES`, exactly.
fn leaf(value: &Bound<'_, PyAny>) -> bool {
    value.is_none()
        || value.is_exact_instance_of::<PyString>()
        || value.is_exact_instance_of::<PyInt>()
        || value.is_exact_instance_of::<PyFloat>()
        || value.is_exact_instance_of::<PyBool>()
}

/// `toolsift.limits._fits` of a container at `depth` with `nodes` values counted so far: `false`
/// past the caps (a cycle nests without end, so it passes the depth cap) or for any value not
/// plain JSON data, which Python judges.
fn fits(value: &Bound<'_, PyAny>, depth: usize, nodes: &mut usize) -> bool {
    let mut enter = |len: usize| {
        *nodes += len;
        depth <= MAX_SCHEMA_DEPTH && *nodes <= MAX_SCHEMA_NODES
    };
    if let Ok(dict) = value.cast_exact::<PyDict>() {
        enter(dict.len())
            && dict
                .iter()
                .all(|(_, child)| child_fits(&child, depth, nodes))
    } else if let Ok(list) = value.cast_exact::<PyList>() {
        enter(list.len()) && list.iter().all(|child| child_fits(&child, depth, nodes))
    } else if let Ok(tuple) = value.cast_exact::<PyTuple>() {
        enter(tuple.len()) && tuple.iter().all(|child| child_fits(&child, depth, nodes))
    } else {
        false
    }
}

/// [`fits`] of a child of a container at `depth`.
fn child_fits(child: &Bound<'_, PyAny>, depth: usize, nodes: &mut usize) -> bool {
    leaf(child) || fits(child, depth + 1, nodes)
}

/// The sorted top-level property names of a checked schema (`None`: left to Python).
fn schema_keys<'py>(schema: &Bound<'py, PyDict>) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let py = schema.py();
    let properties = match get(schema, intern!(py, "properties"))? {
        None => return Ok(Some(PyTuple::empty(py))),
        Some(value) => or_python!(value.cast_exact::<PyDict>().ok().cloned()),
    };
    let mut keys = Vec::with_capacity(properties.len());
    for key in properties.keys().iter() {
        keys.push(or_python!(Str::of(&key)));
    }
    // Code point order is UTF-8 byte order.
    keys.sort_unstable_by(|a, b| a.text().cmp(b.text()));
    Ok(Some(PyTuple::new(py, keys.into_iter().map(|k| k.obj))?))
}

/// What is stored of a schema.
enum Stored<'py> {
    /// Its frozen form (`super::frozen_schema`): `properties` is absent or a `dict`, and every
    /// value is plain JSON data.
    Frozen(Bound<'py, PyAny>),
    /// A schema within the caps that is not frozen: stored as `Tool` stores it.
    Eager,
}

/// The schema as stored, or `None` (left to Python) when it passes `toolsift.limits`' caps or
/// holds a value that is not plain JSON data (`_fits`).
fn stored<'py>(maker: &Maker<'py>, schema: &Bound<'py, PyDict>) -> PyResult<Option<Stored<'py>>> {
    let py = schema.py();
    let freezable = match get(schema, intern!(py, "properties"))? {
        None => true,
        Some(properties) => properties.is_exact_instance_of::<PyDict>(),
    };
    if freezable {
        let mut writer = JsonWriter::new(MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES);
        match writer.write(schema.as_any(), 1) {
            Written::Json => {
                // The default schema's text (most tools without parameters) is shared.
                let frozen = match maker.default_frozen.cast::<PyBytes>() {
                    Ok(default) if default.as_bytes() == writer.out.as_slice() => {
                        maker.default_frozen.clone()
                    }
                    _ => PyBytes::new(py, &writer.out).into_any(),
                };
                return Ok(Some(Stored::Frozen(frozen)));
            }
            Written::OverCaps => return Ok(None),
            Written::NotJson => {} // judged by `fits`
        }
    }
    let mut nodes = 1;
    Ok(fits(schema.as_any(), 1, &mut nodes).then_some(Stored::Eager))
}

/// Makes `Tool` objects as `object.__new__(cls)` then `object.__setattr__` of each field does.
struct Maker<'py> {
    cls: Bound<'py, PyType>,
    /// The class's `tp_new` slot when it is `object.__new__`'s (`None`: called from Python).
    slot: Option<ffi::newfunc>,
    /// The arguments of `slot` or `object.__new__`.
    args: Bound<'py, PyTuple>,
    names: [Bound<'py, PyString>; 13],
    /// The fields' slot offsets, when the class has them (`None`: set as attributes).
    offsets: Option<[ffi::Py_ssize_t; 13]>,
    /// The frozen form of `Tool`'s default schema (one object shared by every tool).
    default_frozen: Bound<'py, PyAny>,
}

/// `Tool`'s fields, in the order of [`Maker::make`]'s values.
const FIELDS: [&str; 13] = [
    "name",
    "description",
    "input_schema",
    "server",
    "mcp_tool_name",
    "label",
    "title",
    "summary",
    "search_hint",
    "source",
    "display_label",
    "display_summary",
    "schema_keys",
];

impl<'py> Maker<'py> {
    fn new(cls: &Bound<'py, PyType>) -> PyResult<Self> {
        let py = cls.py();
        let slot = object_new_slot(cls)?;
        let args = new_args(cls, slot)?;
        let names = FIELDS.map(|name| PyString::intern(py, name));
        let default_schema = PyDict::new(py);
        default_schema.set_item(intern!(py, "type"), intern!(py, "object"))?;
        default_schema.set_item(intern!(py, "properties"), PyDict::new(py))?;
        let mut writer = JsonWriter::new(MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES);
        writer.write(default_schema.as_any(), 1);
        Ok(Maker {
            cls: cls.clone(),
            slot,
            args,
            names,
            offsets: slot_offsets(cls, &FIELDS),
            default_frozen: PyBytes::new(py, &writer.out).into_any(),
        })
    }

    /// A new object holding `values`, in field order.
    fn make(&self, values: [&Bound<'py, PyAny>; 13]) -> PyResult<Bound<'py, PyAny>> {
        let object = new_instance(&self.cls, self.slot, &self.args)?;
        if let Some(offsets) = &self.offsets {
            for (&offset, value) in offsets.iter().zip(values) {
                // SAFETY: the slots of `object`'s class (`slot_offsets`).
                unsafe { set_slot(&object, offset, value) };
            }
            return Ok(object);
        }
        for (name, value) in self.names.iter().zip(values) {
            if let Err(err) = set_field(&object, name.as_ptr(), value.as_ptr()) {
                return Err(PyTypeError::new_err(format!("cannot build a Tool: {err}")));
            }
        }
        Ok(object)
    }
}

/// The names made so far, as 64-bit hashes: two names of one hash (a duplicate, or by a chance
/// of about n² / 2⁶⁵) leave the load to Python, which words the duplicate or makes the tools.
struct Names {
    hasher: RandomState,
    hashes: AHashSet<u64>,
}

impl Names {
    fn with_capacity(n: usize) -> Self {
        Names {
            hasher: RandomState::new(),
            hashes: AHashSet::with_capacity(n),
        }
    }

    /// Whether `name` is new.
    fn insert(&mut self, name: &str) -> bool {
        self.hashes.insert(self.hasher.hash_one(name))
    }
}

/// One `Tool` of `item` (`None`: left to Python).
fn tool<'py>(
    maker: &Maker<'py>,
    item: &Bound<'py, PyAny>,
    server: &Bound<'py, PyAny>,
    format: Format,
    seen: &mut Names,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = item.py();
    let item = or_python!(item.cast_exact::<PyDict>().ok());
    let server = or_python!(optional(Some(server.clone())));
    let format = match format {
        Format::Detect => or_python!(detect(item, server.is_some())?),
        format => format,
    };
    let fields = match format {
        Format::Mcp => or_python!(mcp_fields(item, server)?),
        _ => or_python!(record_fields(item, server)?),
    };
    let description = or_python!(Str::of(fields.description.as_any()));
    if !fields.valid() || !description.within(MAX_DESCRIPTION_LENGTH) {
        return Ok(None);
    }
    if !seen.insert(fields.name.text()) {
        return Ok(None); // a duplicate: Python names both places
    }
    let schema = fields.schema.cast_exact::<PyDict>()?;
    // The schema frozen (its JSON text; the keys are then read from it on demand), or as
    // `Tool` stores it: a read-only proxy over a shallow copy, and the keys.
    let (stored, keys) = match or_python!(stored(maker, schema)?) {
        Stored::Frozen(text) => (text, py.None().into_bound(py)),
        Stored::Eager => {
            let keys = or_python!(schema_keys(schema)?);
            let proxy = unsafe {
                // SAFETY: `PyDictProxy_New` of a live dict returns a new reference or NULL
                // with an error.
                Bound::from_owned_ptr_or_err(py, ffi::PyDictProxy_New(schema.copy()?.as_ptr()))?
            };
            (proxy, keys.into_any())
        }
    };
    let label = match (&fields.label, &fields.server) {
        (Some(label), _) => label.obj.clone(),
        (None, Some(server)) => {
            let tool = fields.mcp_tool_name.as_ref().unwrap_or(&fields.name);
            let (server, tool) = (server.text(), tool.text());
            let mut label = String::with_capacity(server.len() + 1 + tool.len());
            label.push_str(server);
            label.push('/');
            label.push_str(tool);
            PyString::new(py, &label)
        }
        (None, None) => fields.name.obj.clone(),
    };
    let summary = match &fields.summary {
        Some(summary) => summary.obj.clone(),
        None => {
            let text = description.text();
            let head = utf16_prefix(text, SUMMARY_UTF16_UNITS);
            if head.len() == text.len() {
                description.obj.clone()
            } else {
                PyString::new(py, head)
            }
        }
    };
    let none = py.None().into_bound(py);
    let obj = |s: &Option<Str<'py>>| {
        s.as_ref()
            .map_or(none.clone(), |s| s.obj.clone().into_any())
    };
    let values = [
        fields.name.obj.as_any(),
        description.obj.as_any(),
        &stored,
        &obj(&fields.server),
        &obj(&fields.mcp_tool_name),
        &obj(&fields.label),
        &obj(&fields.title),
        &obj(&fields.summary),
        &obj(&fields.search_hint),
        &obj(&fields.source),
        label.as_any(),
        summary.as_any(),
        &keys,
    ];
    let tool = maker.make(values)?;
    if keys.is_none() {
        // Frozen: every field is a `str`, `None` or `bytes`, so the tool is in no reference
        // cycle, and Python's cyclic collector need not walk it (100,000 new tools made every
        // young collection of the build walk them all). `Tool.input_schema` tracks it again
        // when it decodes the schema into dicts (`toolsift._tool.lazy`).
        // SAFETY: a live object of a class with GC support (a dataclass instance).
        unsafe { ffi::PyObject_GC_UnTrack(tool.as_ptr().cast()) };
    }
    Ok(Some(tool))
}

/// `tool`, tracked again by Python's cyclic collector if it was not (a tool of [`_new_tools`]
/// whose schema was just decoded into dicts, which a caller could make reach the tool).
#[pyfunction]
pub fn _tracked<'py>(tool: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: `tool` is live; both calls only read or set its collector header, and
    // `PyObject_GC_Track` is called only on an untracked object of a class with GC support, in
    // the object's critical section (free-threaded Python: two threads decoding the schema at
    // once track it once).
    with_critical_section(tool, || unsafe {
        let ptr = tool.as_ptr();
        let gc = ffi::PyType_GetFlags(ffi::Py_TYPE(ptr)) & ffi::Py_TPFLAGS_HAVE_GC != 0;
        if gc && ffi::PyObject_GC_IsTracked(ptr) == 0 {
            ffi::PyObject_GC_Track(ptr.cast());
        }
    });
    Ok(tool.clone())
}

/// `[Tool(...) for each item]` as `load_tools` (`format="detect"`), `from_mcp` (`"mcp"`) or
/// `from_records` (`"record"`) makes them, `servers[i]` being item `i`'s server (`str | None`);
/// `None` when any item, or a name seen twice, is left to Python (see the module docs).
#[pyfunction]
pub fn _new_tools<'py>(
    cls: &Bound<'py, PyType>,
    items: &Bound<'py, PyList>,
    servers: &Bound<'py, PyList>,
    format: &str,
) -> PyResult<Option<Bound<'py, PyList>>> {
    let py = cls.py();
    let format = match format {
        "detect" => Format::Detect,
        "mcp" => Format::Mcp,
        "record" => Format::Record,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown tool format {format:?}"
            )))
        }
    };
    if servers.len() != items.len() {
        return Err(PyValueError::new_err("one server per item is needed"));
    }
    let maker = Maker::new(cls)?;
    let mut seen = Names::with_capacity(items.len());
    let mut tools = Vec::with_capacity(items.len());
    for (item, server) in items.iter().zip(servers.iter()) {
        tools.push(or_python!(tool(&maker, &item, &server, format, &mut seen)?));
    }
    Ok(Some(PyList::new(py, tools)?))
}
