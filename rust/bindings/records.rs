//! `toolsift._core._build_records`: a `ToolIndex` build from raw tool definitions (a list of
//! dicts, or a catalogue file's bytes) with no per-tool Python work (`crate::build::catalog`).

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

use super::convert::{bm25_params, check_field_weights};
use super::index::PyIndex;
use crate::analysis::Profile;
use crate::build::catalog::{self, item_spans, span_fields, Built, Outcome};
use crate::build::records::tool_fields;

/// Values nested deeper than this are never read by the field extraction (which reads
/// parameters at most 8 levels deep, about 20 objects): they become `false` (not null, not an
/// object, falsy) rather than being converted.
const MAX_DEPTH: usize = 40;

/// A `str` as UTF-8; `None` when it holds a lone surrogate.
fn utf8(s: &Bound<'_, PyString>) -> Option<String> {
    let bytes = s.encode_utf8().ok()?;
    std::str::from_utf8(bytes.as_bytes())
        .ok()
        .map(str::to_owned)
}

/// A Python value as the JSON value the extraction reads, or `None` for anything that is not
/// plain JSON data (a `Mapping` that is not a `dict`, a `set`, a `str` with a lone surrogate,
/// ...): such input is left to Python. Numbers are `0`: their value is never read.
fn to_value(obj: &Bound<'_, PyAny>, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return Some(Value::Bool(false));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Some(Value::String(utf8(s)?));
    }
    if obj.is_none() {
        return Some(Value::Null);
    }
    if let Ok(dict) = obj.cast_exact::<PyDict>() {
        let mut map = Map::with_capacity(dict.len());
        for (key, value) in dict.iter() {
            let key = utf8(key.cast::<PyString>().ok()?)?;
            map.insert(key, to_value(&value, depth + 1)?);
        }
        return Some(Value::Object(map));
    }
    if let Ok(list) = obj.cast_exact::<PyList>() {
        let items = list.iter().map(|v| to_value(&v, depth + 1));
        return Some(Value::Array(items.collect::<Option<_>>()?));
    }
    if let Ok(tuple) = obj.cast_exact::<PyTuple>() {
        let items = tuple.iter().map(|v| to_value(&v, depth + 1));
        return Some(Value::Array(items.collect::<Option<_>>()?));
    }
    if let Ok(b) = obj.cast_exact::<PyBool>() {
        return Some(Value::Bool(b.is_true()));
    }
    if obj.is_exact_instance_of::<PyInt>() || obj.is_exact_instance_of::<PyFloat>() {
        return Some(Value::Number(Number::from(0)));
    }
    None
}

/// A value that the extraction only tests for presence (or finds neither null nor an object):
/// it is not converted.
const UNREAD: Value = Value::Bool(false);

/// Keys of a tool item whose values are read as they are (names, texts, `type`, `annotations`).
const ITEM_FIELDS: [&str; 11] = [
    "name",
    "description",
    "title",
    "annotations",
    "server",
    "mcp_tool_name",
    "label",
    "summary",
    "search_hint",
    "source",
    "type",
];

/// A tool item for the extraction (`crate::build::records`): the fields it reads converted,
/// the schema through [`schema_value`], every other key kept for its presence only (its value
/// [`UNREAD`]). `None` when the item is not a plain `dict` or a read value is not plain JSON.
fn item_value(obj: &Bound<'_, PyAny>) -> Option<Value> {
    let Ok(dict) = obj.cast_exact::<PyDict>() else {
        return to_value(obj, 0); // not a tool: its conversion decides what Python sees
    };
    let mut map = Map::with_capacity(dict.len());
    for (key, value) in dict.iter() {
        let key = utf8(key.cast::<PyString>().ok()?)?;
        let value = match key.as_str() {
            "inputSchema" | "input_schema" => schema_value(&value, 1)?,
            k if ITEM_FIELDS.contains(&k) => to_value(&value, 1)?,
            _ => UNREAD,
        };
        map.insert(key, value);
    }
    Some(Value::Object(map))
}

/// A value read as a JSON schema (`_collect_descriptions`): of an object, only `properties`,
/// `items` and `description` are read. `None` for a mapping that is not a `dict`.
fn schema_value(obj: &Bound<'_, PyAny>, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return Some(UNREAD);
    }
    let Ok(dict) = obj.cast_exact::<PyDict>() else {
        return plain(obj);
    };
    let mut map = Map::with_capacity(dict.len());
    for (key, value) in dict.iter() {
        let key = utf8(key.cast::<PyString>().ok()?)?;
        let value = match key.as_str() {
            "properties" => properties_value(&value, depth + 1)?,
            "items" => schema_value(&value, depth + 1)?,
            "description" => match value.cast::<PyString>() {
                Ok(s) => Value::String(utf8(s)?),
                Err(_) => UNREAD,
            },
            _ => UNREAD,
        };
        map.insert(key, value);
    }
    Some(Value::Object(map))
}

/// A schema's `properties`: every property name, each value a schema.
fn properties_value(obj: &Bound<'_, PyAny>, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return Some(UNREAD);
    }
    let Ok(dict) = obj.cast_exact::<PyDict>() else {
        return plain(obj);
    };
    let mut map = Map::with_capacity(dict.len());
    for (key, value) in dict.iter() {
        map.insert(
            utf8(key.cast::<PyString>().ok()?)?,
            schema_value(&value, depth + 1)?,
        );
    }
    Some(Value::Object(map))
}

/// A value that is not a `dict` where a schema is read: `null`, [`UNREAD`] for any other plain
/// JSON value, `None` for anything else (it may be a mapping, which Python would read).
fn plain(obj: &Bound<'_, PyAny>) -> Option<Value> {
    if obj.is_none() {
        return Some(Value::Null);
    }
    let json = obj.cast::<PyString>().is_ok()
        || obj.is_exact_instance_of::<PyList>()
        || obj.is_exact_instance_of::<PyTuple>()
        || obj.is_exact_instance_of::<PyBool>()
        || obj.is_exact_instance_of::<PyInt>()
        || obj.is_exact_instance_of::<PyFloat>();
    json.then_some(UNREAD)
}

/// What `_build_records` returns: the engine index, each tool's name, server and raw MCP name,
/// the items' byte spans in the source (native-endian `u64` pairs; `None` for a list of dicts)
/// and the server the items belong to.
type Records = (
    PyIndex,
    Vec<String>,
    Vec<Option<String>>,
    Vec<Option<String>>,
    Option<Py<PyBytes>>,
    Option<String>,
);

/// Builds the index of `source` (a `list` of tool dicts, or a catalogue file's `bytes`), or
/// returns `None` when it must be loaded the Python way (see `crate::build::catalog`).
#[pyfunction]
#[pyo3(signature = (source, server, jsonl_first, field_weights, k1, b, delta, profile))]
#[allow(clippy::too_many_arguments)]
pub fn _build_records(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    server: Option<String>,
    jsonl_first: bool,
    field_weights: Vec<f64>,
    k1: f64,
    b: f64,
    delta: f64,
    profile: &str,
) -> PyResult<Option<Records>> {
    let profile = Profile::parse(profile)?;
    check_field_weights(py, &field_weights)?;
    let params = bm25_params(py, (k1, b, delta))?;
    let (outcome, spans, server) = if let Ok(bytes) = source.cast::<PyBytes>() {
        let text = bytes.as_bytes();
        let Some(items) = py.detach(|| item_spans(text, jsonl_first, server.as_deref())) else {
            return Ok(None);
        };
        let outcome = py.detach(|| {
            catalog::build(
                &items.spans,
                |&span| span_fields(text, span, &items),
                field_weights,
                params,
                profile,
            )
        });
        let flat: Vec<u8> = items
            .spans
            .iter()
            .flat_map(|&(s, e)| [s as u64, e as u64])
            .flat_map(u64::to_ne_bytes)
            .collect();
        (
            outcome,
            Some(PyBytes::new(py, &flat).unbind()),
            items.server,
        )
    } else if let Ok(list) = source.cast_exact::<PyList>() {
        let values: Option<Vec<Value>> = list.iter().map(|item| item_value(&item)).collect();
        let Some(values) = values else {
            return Ok(None);
        };
        let context = server.as_deref();
        let outcome = py.detach(|| {
            catalog::build(
                &values,
                |v| tool_fields(v, context),
                field_weights,
                params,
                profile,
            )
        });
        (outcome, None, server)
    } else {
        return Ok(None);
    };
    let Built { index, tools } = match outcome {
        Outcome::Fallback => return Ok(None),
        Outcome::Built(built) => (*built)?,
    };
    super::build_pipeline::release_free_memory();
    let mut names = Vec::with_capacity(tools.len());
    let mut servers = Vec::with_capacity(tools.len());
    let mut mcp = Vec::with_capacity(tools.len());
    for (name, server, mcp_tool_name) in tools {
        names.push(name);
        servers.push(server);
        mcp.push(mcp_tool_name);
    }
    Ok(Some((
        PyIndex::wrap(index),
        names,
        servers,
        mcp,
        spans,
        server,
    )))
}
