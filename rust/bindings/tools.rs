//! `ToolIndex(tools)` and `ToolIndex.with_tools(add=...)` on the Rust engine: each
//! `toolsift.Tool`'s attributes are read here, once, into the record that `from_records` reads
//! from JSON (`crate::build::records::ToolFields`), and its document is made by the same Rust
//! extraction (`ToolFields::push_document`). No Python code runs during the build: attribute
//! reads of a frozen dataclass, and the schema walk's `dict` reads (a `Mapping` that is not a
//! `dict` is read through its own methods, as Python's twin reads it).

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyMapping, PyMappingProxy, PyString};

use super::build_pipeline::{build_pipelined_with, release_free_memory};
use super::convert::extract_ids;
use super::documents::extract_owned_text;
use super::index::PyIndex;
use crate::analysis::Profile;
use crate::build::records::{ToolFields, PARAMS};
use crate::build::schema::{collect_descriptions, Schema};
use crate::build::{FlatChunk, CHUNK_DOCS};

/// An optional `str` attribute (`None` stays `None`).
fn optional(tool: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<Option<String>> {
    let value = tool.getattr(name)?;
    if value.is_none() {
        return Ok(None);
    }
    extract_owned_text(&value, "tool field").map(Some)
}

/// A `str` attribute.
fn text(tool: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<String> {
    extract_owned_text(&tool.getattr(name)?, "tool field")
}

/// The record of one `Tool`: its resolved label and summary, its sorted schema keys, and (only
/// when `weights` score them, as the twin reads them) its parameters' descriptions.
pub fn tool_fields_of(tool: &Bound<'_, PyAny>, weights: &[f64]) -> PyResult<ToolFields> {
    let py = tool.py();
    let server = optional(tool, intern!(py, "server"))?.filter(|s| !s.is_empty());
    let mcp_tool_name = match server {
        Some(_) => optional(tool, intern!(py, "mcp_tool_name"))?,
        None => None,
    };
    let keys = tool
        .getattr(intern!(py, "schema_keys"))?
        .try_iter()?
        .map(|key| key.and_then(|key| extract_owned_text(&key, "schema key")))
        .collect::<PyResult<Vec<String>>>()?;
    let mut params = Vec::new();
    if weights.get(PARAMS).is_some_and(|&w| w != 0.0) {
        let schema = PySchema(tool.getattr(intern!(py, "input_schema"))?);
        collect_descriptions(&schema, 0, &mut params)?;
    }
    Ok(ToolFields {
        name: text(tool, intern!(py, "name"))?,
        server,
        mcp_tool_name,
        label: text(tool, intern!(py, "display_label"))?,
        summary: text(tool, intern!(py, "display_summary"))?,
        keys,
        search_hint: optional(tool, intern!(py, "search_hint"))?,
        description: text(tool, intern!(py, "description"))?,
        title: optional(tool, intern!(py, "title"))?,
        params,
    })
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
            Ok(dict) => dict.get_item(key)?,
            Err(_) => Some(self.0.call_method1(intern!(self.0.py(), "get"), (key,))?),
        };
        Ok(value.filter(|v| !v.is_none()).map(PySchema))
    }

    fn has(&self, key: &str) -> PyResult<bool> {
        match self.0.cast_exact::<PyDict>() {
            Ok(dict) => dict.contains(key),
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
        extract_owned_text(&self.0, "parameter description").map(Some)
    }
}

/// Reads `tools` chunk by chunk, calling `send` with every `CHUNK_DOCS` documents; returns the
/// tools' names.
fn read_tools(
    tools: &Bound<'_, PyAny>,
    weights: &[f64],
    send: &mut dyn FnMut(FlatChunk),
) -> PyResult<Vec<String>> {
    let mut names = Vec::with_capacity(tools.len().unwrap_or(0));
    let mut chunk = FlatChunk::default();
    for tool in tools.try_iter()? {
        let fields = tool_fields_of(&tool?, weights)?;
        fields.push_document(&mut chunk, weights);
        names.push(fields.name);
        if chunk.len() == CHUNK_DOCS {
            send(std::mem::take(&mut chunk));
        }
    }
    if !chunk.is_empty() {
        send(chunk);
    }
    Ok(names)
}

/// The engine index of `tools` (a sequence of `toolsift.Tool`), `ToolIndex`'s build: the
/// documents are read here and tokenized on the pool, part by part, with the GIL released.
#[pyfunction]
#[pyo3(signature = (tools, field_weights, k1, b, delta, profile))]
pub fn _build_tools(
    py: Python<'_>,
    tools: &Bound<'_, PyAny>,
    field_weights: Vec<f64>,
    k1: f64,
    b: f64,
    delta: f64,
    profile: &str,
) -> PyResult<PyIndex> {
    let profile = Profile::parse(profile)?;
    let weights = field_weights.clone();
    let index = build_pipelined_with(
        py,
        |send| {
            let names = read_tools(tools, &weights, send)?;
            Ok((names.len(), names))
        },
        field_weights,
        (k1, b, delta),
        profile,
    )?;
    Ok(PyIndex::wrap(index))
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
        let index = crate::pool::install(|| inner.updated(&remove, names, &documents));
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
