//! `ToolIndex(tools)` and `ToolIndex.with_tools(add=...)` on the Rust engine: each
//! `toolsift.Tool`'s attributes are read here, once, into the record that `from_records` reads
//! from JSON (`crate::build::records::ToolFields`), and its document is made by the same Rust
//! extraction (`ToolFields::push_document`). No Python code runs during the build: a `Tool`'s
//! fields are read from its slots (any other object's as attributes); a schema `load_tools`
//! froze (`super::frozen_schema`) is read from its JSON text, undecoded; any other is walked by
//! its `dict` reads (a `Mapping` that is not a `dict` through its own methods, as Python's twin
//! reads it).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::critical_section::with_critical_section;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyMapping, PyMappingProxy, PyString, PyTuple, PyType};
use pyo3::{ffi, intern};

use super::build_pipeline::{build_pipelined_with, release_free_memory};
use super::convert::extract_ids;
use super::documents::extract_owned_text;
#[cfg(not(windows))]
use super::frozen_schema::borrowed_utf8;
use super::frozen_schema::FrozenSchema;
use super::index::PyIndex;
use super::instances::{get_slot, slot_offsets};
use super::name_keys::{name_table_of, table_parts};
use crate::analysis::Profile;
use crate::build::catalog::NameFields;
use crate::build::records::{ToolFields, PARAMS};
use crate::build::schema::{collect_descriptions, Schema};
use crate::build::{FlatChunk, CHUNK_DOCS};

/// The slots of `toolsift.Tool`, looked up once per interpreter (`None`: the class has none, as
/// on Python 3.9, where its fields are read as attributes).
static TOOL_SLOTS: PyOnceLock<Option<(Py<PyType>, [ffi::Py_ssize_t; 10])>> = PyOnceLock::new();

/// The fields [`tool_fields_of`] reads, in [`TOOL_SLOTS`]' order.
const READ: [&str; 10] = [
    "name",
    "description",
    "input_schema",
    "server",
    "mcp_tool_name",
    "title",
    "search_hint",
    "display_label",
    "display_summary",
    "schema_keys",
];

/// Reads a `Tool`'s fields: from its slots when it is exactly a `toolsift.Tool` (the values as
/// stored: a frozen schema stays frozen), else as attributes.
struct Reader<'a, 'py> {
    tool: &'a Bound<'py, PyAny>,
    slots: Option<&'a [ffi::Py_ssize_t; 10]>,
}

impl<'py> Reader<'_, 'py> {
    fn field(&self, i: usize) -> PyResult<Bound<'py, PyAny>> {
        let py = self.tool.py();
        match self.slots {
            // SAFETY: the slots of `toolsift.Tool`, which the tool is exactly. The read and its
            // new reference are made in the tool's critical section (free-threaded Python: a
            // slot's member descriptor writes in it), so no other thread frees the old value
            // between the two.
            Some(slots) => {
                with_critical_section(self.tool, || unsafe { get_slot(self.tool, slots[i]) })
                    .ok_or_else(|| pyo3::exceptions::PyAttributeError::new_err(READ[i]))
            }
            None => self.tool.getattr(PyString::intern(py, READ[i])),
        }
    }

    /// An optional `str` field (`None` stays `None`).
    fn optional(&self, i: usize) -> PyResult<Option<String>> {
        let value = self.field(i)?;
        if value.is_none() {
            return Ok(None);
        }
        owned_text(&value, "tool field").map(Some)
    }

    /// A `str` field.
    fn text(&self, i: usize) -> PyResult<String> {
        owned_text(&self.field(i)?, "tool field")
    }
}

/// A tool's text field as `extract_owned_text` reads it, copied from the `str`'s own UTF-8
/// where it has one (an ASCII `str` holds it; any other keeps it once made, as `str` objects
/// do): no `bytes` object is made and no text checked again per field.
fn owned_text(value: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    #[cfg(not(windows))]
    if let Ok(text) = value.cast::<PyString>() {
        if let Some(utf8) = borrowed_utf8(text) {
            return Ok(utf8.to_owned());
        }
    }
    extract_owned_text(value, what) // (its error for a lone surrogate or another type)
}

/// [`TOOL_SLOTS`] when `tool` is exactly a `toolsift.Tool`.
fn tool_slots<'a>(tool: &Bound<'_, PyAny>) -> PyResult<Option<&'a [ffi::Py_ssize_t; 10]>> {
    let py = tool.py();
    let slots = TOOL_SLOTS.get_or_try_init(py, || -> PyResult<_> {
        let cls = py
            .import("toolsift.tools")?
            .getattr("Tool")?
            .cast_into::<PyType>()?;
        Ok(slot_offsets(&cls, &READ).map(|offsets| (cls.unbind(), offsets)))
    })?;
    Ok(match slots {
        Some((cls, offsets)) if tool.get_type().is(cls.bind(py)) => Some(offsets),
        _ => None,
    })
}

/// The record of one `Tool`: its resolved label and summary, its sorted schema keys, and (only
/// when `weights` score them, as the twin reads them) its parameters' descriptions.
pub fn tool_fields_of(tool: &Bound<'_, PyAny>, weights: &[f64]) -> PyResult<ToolFields> {
    Ok(tool_record(tool, weights, false)?.0)
}

/// [`tool_fields_of`], and with `names` the tool's name fields as the name table reads them
/// (`name`, `server` and `mcp_tool_name` as they are, where the record keeps a server only when
/// it is not empty and an MCP name only with a server).
fn tool_record(
    tool: &Bound<'_, PyAny>,
    weights: &[f64],
    names: bool,
) -> PyResult<(ToolFields, Option<NameFields>)> {
    let fields = Reader {
        tool,
        slots: tool_slots(tool)?,
    };
    let raw_server = fields.optional(3)?;
    let server = raw_server.clone().filter(|s| !s.is_empty());
    let raw_mcp = if server.is_some() || names {
        fields.optional(4)?
    } else {
        None
    };
    let mcp_tool_name = server.as_ref().and(raw_mcp.clone());
    let wants_params = weights.get(PARAMS).is_some_and(|&w| w != 0.0);
    let schema = fields.field(2)?;
    let (keys, params) = match schema.cast_exact::<PyBytes>() {
        // A frozen schema (`toolsift._tool.lazy`), read as it is.
        Ok(text) if fields.slots.is_some() => {
            let schema = FrozenSchema::parse(text.as_bytes())
                .ok_or_else(|| PyValueError::new_err("a tool's frozen schema is not JSON"))?;
            let params = if wants_params {
                schema.descriptions()
            } else {
                Vec::new()
            };
            (schema.keys(), params)
        }
        // The schema as `Tool.input_schema` returns it (a slot holds it decoded; without
        // slots it was read as the attribute); the keys from their slot, or through the
        // attribute when pending (`None`: computed from the schema on that first read).
        _ => {
            let mut stored_keys = fields.field(9)?;
            if stored_keys.is_none() {
                stored_keys = tool.getattr(intern!(tool.py(), "schema_keys"))?;
            }
            let keys = stored_keys
                .try_iter()?
                .map(|key| key.and_then(|key| owned_text(&key, "schema key")))
                .collect::<PyResult<Vec<String>>>()?;
            let mut params = Vec::new();
            if wants_params {
                collect_descriptions(&PySchema(schema), 0, &mut params)?;
            }
            (keys, params)
        }
    };
    let record = ToolFields {
        name: fields.text(0)?,
        server,
        mcp_tool_name,
        label: fields.text(7)?,
        summary: fields.text(8)?,
        keys,
        search_hint: fields.optional(6)?,
        description: fields.text(1)?,
        title: fields.optional(5)?,
        params,
    };
    let names = names.then(|| (record.name.clone(), raw_server, raw_mcp));
    Ok((record, names))
}

/// `key` as a Python `str`: the keys `collect_descriptions` reads are interned (a new `str`
/// would be hashed at every read).
fn schema_key<'py>(py: Python<'py>, key: &str) -> Bound<'py, PyString> {
    match key {
        "properties" => intern!(py, "properties").clone(),
        "description" => intern!(py, "description").clone(),
        "items" => intern!(py, "items").clone(),
        _ => PyString::new(py, key),
    }
}

/// A Python schema value, read as `_collect_descriptions` reads it.
struct PySchema<'py>(Bound<'py, PyAny>);

impl<'py> Schema for PySchema<'py> {
    type Error = PyErr;

    fn is_mapping(&self) -> PyResult<bool> {
        // A `Tool`'s schema is a read-only proxy: known without `collections.abc.Mapping`'s
        // instance check (about 3 µs a tool).
        Ok(self.0.is_exact_instance_of::<PyDict>()
            || self.0.is_exact_instance_of::<PyMappingProxy>()
            || self.0.cast::<PyMapping>().is_ok())
    }

    fn get(&self, key: &str) -> PyResult<Option<Self>> {
        let value = match self.0.cast_exact::<PyDict>() {
            Ok(dict) => dict.get_item(schema_key(dict.py(), key))?,
            Err(_) => Some(self.0.call_method1(intern!(self.0.py(), "get"), (key,))?),
        };
        Ok(value.filter(|v| !v.is_none()).map(PySchema))
    }

    fn has(&self, key: &str) -> PyResult<bool> {
        match self.0.cast_exact::<PyDict>() {
            Ok(dict) => dict.contains(schema_key(dict.py(), key)),
            Err(_) => self.0.contains(key),
        }
    }

    fn truthy(&self) -> PyResult<bool> {
        self.0.is_truthy()
    }

    fn for_each_value(&self, each: &mut dyn FnMut(Self) -> PyResult<()>) -> PyResult<()> {
        if let Ok(dict) = self.0.cast_exact::<PyDict>() {
            for value in dict.values() {
                each(PySchema(value))?;
            }
            return Ok(());
        }
        let values = self.0.call_method0(intern!(self.0.py(), "values"))?;
        for value in values.try_iter()? {
            each(PySchema(value?))?;
        }
        Ok(())
    }

    fn text(&self) -> PyResult<Option<String>> {
        if self.0.cast::<PyString>().is_err() {
            return Ok(None);
        }
        owned_text(&self.0, "parameter description").map(Some)
    }
}

/// Reads `tools` chunk by chunk, calling `send` with every `CHUNK_DOCS` documents; returns the
/// tools' names and their name fields (the name table's input).
fn read_tools(
    tools: &Bound<'_, PyAny>,
    weights: &[f64],
    send: &mut dyn FnMut(FlatChunk),
) -> PyResult<(Vec<String>, Vec<NameFields>)> {
    let n = tools.len().unwrap_or(0);
    let (mut names, mut name_fields) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut chunk = FlatChunk::default();
    for tool in tools.try_iter()? {
        let (fields, tool_names) = tool_record(&tool?, weights, true)?;
        fields.push_document(&mut chunk, weights);
        names.push(fields.name);
        name_fields.extend(tool_names);
        if chunk.len() == CHUNK_DOCS {
            send(std::mem::take(&mut chunk));
        }
    }
    if !chunk.is_empty() {
        send(chunk);
    }
    Ok((names, name_fields))
}

/// What `_build_tools` returns: the engine index, and its tools' name table as
/// `_build_name_table` makes it (`None` if it was not made: the first search makes it).
type BuiltTools<'py> = (PyIndex, Option<Bound<'py, PyTuple>>);

/// The engine index of `tools` (a sequence of `toolsift.Tool`), `ToolIndex`'s build: the
/// documents are read here and tokenized on the pool, part by part, with the GIL released; the
/// tools' name table is made on the pool beside the merge's last step, as a record build makes
/// it (`super::records`), for the index's first search to take.
#[pyfunction]
#[pyo3(signature = (tools, field_weights, k1, b, delta, profile))]
pub fn _build_tools<'py>(
    py: Python<'py>,
    tools: &Bound<'py, PyAny>,
    field_weights: Vec<f64>,
    k1: f64,
    b: f64,
    delta: f64,
    profile: &str,
) -> PyResult<BuiltTools<'py>> {
    let profile = Profile::parse(profile)?;
    let weights = field_weights.clone();
    let (index, table) = build_pipelined_with(
        py,
        |send| {
            let (names, name_fields) = read_tools(tools, &weights, send)?;
            Ok((names.len(), names, name_fields))
        },
        field_weights,
        (k1, b, delta),
        profile,
        |name_fields| {
            let table = name_table_of(&name_fields);
            drop(name_fields);
            table
        },
    )?;
    let table = match table {
        Some(table) => table_parts(py, table)?,
        None => None,
    };
    Ok((PyIndex::wrap(index), table))
}

/// What `_tool_positions` returns: `checked_tools`' maps, or the position of the item that
/// makes it raise.
#[derive(IntoPyObject)]
pub enum Positions<'py> {
    Maps((Bound<'py, PyDict>, Bound<'py, PyDict>)),
    Refused(usize),
}

/// `toolsift._index.build.checked_tools`' maps of `tools` (a tuple), made in one call: each
/// tool's position by name, and each server's tools' positions (ascending), the dicts its loop
/// makes. The position of the first item that is not a `cls`, or whose name an earlier tool
/// has, instead: the caller's loop then raises its error.
#[pyfunction]
pub fn _tool_positions<'py>(
    tools: &Bound<'py, PyTuple>,
    cls: &Bound<'py, PyType>,
) -> PyResult<Positions<'py>> {
    let py = tools.py();
    let (by_name, servers) = (PyDict::new(py), PyDict::new(py));
    for (i, tool) in tools.iter().enumerate() {
        if !tool.is_instance(cls)? {
            return Ok(Positions::Refused(i));
        }
        let fields = Reader {
            tool: &tool,
            slots: tool_slots(&tool)?,
        };
        let name = fields.field(0)?;
        if by_name.contains(&name)? {
            return Ok(Positions::Refused(i));
        }
        by_name.set_item(&name, i)?;
        let server = fields.field(3)?;
        if !server.is_none() {
            match servers.get_item(&server)? {
                Some(ids) => ids.cast_into::<PyList>()?.append(i)?,
                None => servers.set_item(&server, PyList::new(py, [i])?)?,
            }
        }
    }
    Ok(Positions::Maps((by_name, servers)))
}

/// `index` without the documents `remove` and with `tools`' documents appended, in order
/// (`ToolIndex.with_tools` on the Rust engine; `index` is not changed).
#[pyfunction]
#[pyo3(signature = (index, tools, remove))]
pub fn _update_tools(
    py: Python<'_>,
    index: &PyIndex,
    tools: &Bound<'_, PyAny>,
    remove: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyIndex> {
    let remove = extract_ids(remove)?;
    let inner = index.inner();
    let weights = inner.field_weights().to_vec();
    let mut names = Vec::new();
    let mut documents = Vec::new();
    for tool in tools.try_iter()? {
        let fields = tool_fields_of(&tool?, &weights)?;
        documents.push(fields.document(&weights));
        names.push(fields.name);
    }
    // As `Index.updated`: a large update's scratch is handed back to the OS.
    let trim = documents.len() >= CHUNK_DOCS;
    let updated = py.detach(|| {
        let index = crate::pool::install_update(|| inner.updated(&remove, names, &documents));
        drop(documents);
        if trim {
            release_free_memory();
        }
        index
    })?;
    Ok(PyIndex::wrap(updated))
}

/// One tool's document as the Rust engine indexes it, `(field id, text)` pairs: for the test
/// that holds the pure-Python twin (`toolsift._text.documents.document`) equal to it.
#[pyfunction]
pub fn _tool_document(
    tool: &Bound<'_, PyAny>,
    field_weights: Vec<f64>,
) -> PyResult<Vec<(usize, String)>> {
    Ok(tool_fields_of(tool, &field_weights)?.document(&field_weights))
}
