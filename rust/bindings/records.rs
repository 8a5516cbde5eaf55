//! `toolsift._core._build_records`: a `ToolIndex` build from raw tool definitions (a list of
//! dicts, or a catalogue file's bytes) with no per-tool Python work (`crate::build::catalog`).

use pyo3::prelude::*;
use std::borrow::Cow;

use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use super::convert::{bm25_params, check_field_weights};
use super::index::PyIndex;
use super::name_columns::PyNameColumns;
use super::name_keys::indexed_names;
use crate::analysis::Profile;
use crate::build::catalog::{self, item_spans, span_fields, Built, Outcome};
use crate::build::item::{has, Annotations, Item, Node, Text, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES};
use crate::build::records::item_fields;
use crate::build::source::SourceItems;

/// A `str` as UTF-8; `None` when it holds a lone surrogate.
fn utf8(s: &Bound<'_, PyString>) -> Option<String> {
    let bytes = s.encode_utf8().ok()?;
    std::str::from_utf8(bytes.as_bytes())
        .ok()
        .map(str::to_owned)
}

/// A dict key as UTF-8 (`None`: not a `str`, or a lone surrogate).
fn key(obj: &Bound<'_, PyAny>) -> Option<String> {
    utf8(obj.cast::<PyString>().ok()?)
}

/// A value of a `str | None` field: `None` (left to Python) for a `str` with a lone surrogate.
fn text(obj: &Bound<'_, PyAny>) -> Option<Text<'static>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Some(Text::Str(Cow::Owned(utf8(s)?)));
    }
    Some(if obj.is_none() {
        Text::Null
    } else {
        Text::Other
    })
}

/// `toolsift.limits`' count of a schema's values (`_fits`): the values so far.
struct Budget(usize);

impl Budget {
    /// Counts the `n` children of a container at `depth`; `None` past the caps.
    fn children(&mut self, depth: usize, n: usize) -> Option<()> {
        self.0 += n;
        (depth <= MAX_SCHEMA_DEPTH && self.0 <= MAX_SCHEMA_NODES).then_some(())
    }
}

/// Whether `obj` is a plain JSON leaf (`str`, `None`, `bool`, `int`, `float`).
fn json_leaf(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_none()
        || obj.cast::<PyString>().is_ok()
        || obj.is_exact_instance_of::<PyBool>()
        || obj.is_exact_instance_of::<PyInt>()
        || obj.is_exact_instance_of::<PyFloat>()
}

/// Counts a schema value nothing reads at `depth`, as `_fits` walks it; `None` past the caps or
/// for a mapping that is not a `dict` (Python walks it through its own methods).
fn count(obj: &Bound<'_, PyAny>, depth: usize, budget: &mut Budget) -> Option<()> {
    if json_leaf(obj) {
        return Some(());
    }
    if let Ok(dict) = obj.cast_exact::<PyDict>() {
        budget.children(depth, dict.len())?;
        return dict
            .values()
            .iter()
            .try_for_each(|v| count(&v, depth + 1, budget));
    }
    if let Ok(list) = obj.cast_exact::<PyList>() {
        budget.children(depth, list.len())?;
        return list.iter().try_for_each(|v| count(&v, depth + 1, budget));
    }
    if let Ok(tuple) = obj.cast_exact::<PyTuple>() {
        budget.children(depth, tuple.len())?;
        return tuple.iter().try_for_each(|v| count(&v, depth + 1, budget));
    }
    let mapping = obj.hasattr("items").ok()? && obj.hasattr("__getitem__").ok()?;
    (!mapping).then_some(()) // (any other object is a leaf to `_fits`)
}

/// Where a schema value is read (`crate::build::item`'s places).
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Schema,
    Properties,
    Description,
}

/// A schema value read at `place` and `depth` into the [`Node`] the JSON reader makes, counted
/// in `budget`. `None` (left to Python) for a read value that is not plain JSON data (a
/// `Mapping` that is not a `dict`, a `set`, a `str` with a lone surrogate, ...), or past the caps.
fn node(
    obj: &Bound<'_, PyAny>,
    place: Place,
    depth: usize,
    budget: &mut Budget,
) -> Option<Node<'static>> {
    if obj.is_none() {
        return Some(Node::Null);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Some(match place {
            Place::Description => Node::Str(Cow::Owned(utf8(s)?)),
            _ => Node::Leaf(!s.is_empty().ok()?),
        });
    }
    if let Ok(dict) = obj.cast_exact::<PyDict>() {
        budget.children(depth, dict.len())?;
        let mut entries = Vec::new();
        for (k, value) in dict.iter() {
            let k = key(&k)?;
            let at = match (place, k.as_str()) {
                (Place::Properties, _) => Place::Schema,
                (Place::Schema, "properties") => Place::Properties,
                (Place::Schema, "items") => Place::Schema,
                (Place::Schema, "description") => Place::Description,
                _ => {
                    count(&value, depth + 1, budget)?;
                    continue;
                }
            };
            entries.push((Cow::Owned(k), node(&value, at, depth + 1, budget)?));
        }
        return Some(Node::Object {
            empty: dict.is_empty(),
            entries,
        });
    }
    let truthy = if obj.is_exact_instance_of::<PyList>() || obj.is_exact_instance_of::<PyTuple>() {
        count(obj, depth, budget)?;
        obj.len().ok()? > 0
    } else if json_leaf(obj) {
        obj.is_truthy().ok()?
    } else {
        return None; // perhaps a mapping, which Python would read
    };
    Some(Node::Leaf(truthy))
}

/// An input schema, counted afresh.
fn schema(obj: &Bound<'_, PyAny>) -> Option<Node<'static>> {
    let mut budget = Budget(1);
    node(obj, Place::Schema, 1, &mut budget)
}

/// A tool item for the extraction (`crate::build::records`), read as `Item::parse` reads its
/// JSON. `None` (left to Python) when it is not a plain `dict`, or a read value is not plain
/// JSON data, or its schema passes the caps.
fn item(obj: &Bound<'_, PyAny>) -> Option<Item<'static>> {
    let dict = obj.cast_exact::<PyDict>().ok()?;
    let mut item = Item {
        object: true,
        ..Item::default()
    };
    for (k, value) in dict.iter() {
        let k = key(&k)?;
        if let Some(field) = item.text_field(&k) {
            *field = Some(text(&value)?);
            continue;
        }
        match k.as_str() {
            "type" => {
                item.has |= has::TYPE;
                item.type_null = value.is_none();
            }
            "annotations" => {
                item.annotations = Some(if value.is_none() {
                    Annotations::Null
                } else if let Ok(annotations) = value.cast_exact::<PyDict>() {
                    let title = annotations.get_item("title").ok()?;
                    Annotations::Object(match title {
                        Some(title) => Some(text(&title)?),
                        None => None,
                    })
                } else if json_leaf(&value)
                    || value.is_exact_instance_of::<PyList>()
                    || value.is_exact_instance_of::<PyTuple>()
                {
                    Annotations::Other
                } else {
                    return None; // perhaps a mapping, which Python would read
                })
            }
            "inputSchema" => {
                item.has |= has::INPUT_SCHEMA_MCP;
                item.mcp_schema = Some(schema(&value)?);
            }
            "input_schema" => {
                item.has |= has::INPUT_SCHEMA;
                item.input_schema = Some(schema(&value)?);
            }
            "parameters" => item.has |= has::PARAMETERS,
            "function" => item.has |= has::FUNCTION,
            _ => {}
        }
    }
    Some(item)
}

/// `toolsift._core.SourceItems`: the JSON text of each tool of an index built from a
/// catalogue's bytes, compressed (`crate::build::source`); `item(i)` gives tool `i`'s bytes.
#[pyclass(name = "SourceItems", module = "toolsift._core", frozen)]
pub struct PySourceItems {
    inner: SourceItems,
}

#[pymethods]
impl PySourceItems {
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The JSON text of item `i`.
    fn item<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyBytes>> {
        match self.inner.get(i) {
            Some(bytes) => Ok(PyBytes::new(py, &bytes)),
            None => Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "source item {i} out of range"
            ))),
        }
    }

    /// The bytes this object holds on the heap.
    #[getter]
    fn nbytes(&self) -> usize {
        self.inner.heap_bytes()
    }
}

/// What `_build_records` returns: the engine index, the tools' name columns (each tool's name,
/// server and raw MCP name), the items' source text (`None` for a list of dicts) and the server
/// the items belong to.
type Records = (
    PyIndex,
    PyNameColumns,
    Option<PySourceItems>,
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
        let bytes = bytes.as_bytes();
        let spans = py.detach(|| {
            let text = std::str::from_utf8(bytes).ok()?; // not UTF-8: Python's error
            Some((text, item_spans(text, jsonl_first, server.as_deref())?))
        });
        let Some((text, items)) = spans else {
            return Ok(None);
        };
        // The items' sources are compressed while they are indexed: on a few cores, the
        // compression's small tasks keep a core busy that would wait for the last chunk.
        let (outcome, source) = py.detach(|| {
            crate::pool::install(|| {
                rayon::join(
                    || {
                        catalog::build_with(
                            &items.spans,
                            |&span| span_fields(text, span, &items),
                            field_weights,
                            params,
                            profile,
                            indexed_names,
                        )
                    },
                    || SourceItems::new(bytes, &items.spans),
                )
            })
        });
        let (Some(source), false) = (source, matches!(outcome.0, Outcome::Fallback)) else {
            return Ok(None);
        };
        (outcome, Some(PySourceItems { inner: source }), items.server)
    } else if let Ok(list) = source.cast_exact::<PyList>() {
        let values: Option<Vec<Item<'static>>> = list.iter().map(|v| item(&v)).collect();
        let Some(values) = values else {
            return Ok(None);
        };
        let context = server.as_deref();
        let outcome = py.detach(|| {
            catalog::build_with(
                &values,
                |v| item_fields(v, context),
                field_weights,
                params,
                profile,
                indexed_names,
            )
        });
        (outcome, None, server)
    } else {
        return Ok(None);
    };
    let (Built { index, tools }, columns) = match outcome {
        (Outcome::Fallback, _) => return Ok(None),
        (Outcome::Built(built), columns) => ((*built)?, columns),
    };
    // The tools' name fields (in the columns now) are freed and the build's scratch memory goes
    // back to the OS on the pool, while the caller goes on.
    crate::pool::spawn(move || {
        drop(tools);
        super::build_pipeline::release_free_memory();
    });
    let Some(Some(columns)) = columns else {
        return Ok(None); // more than 4 GiB of names: the Python way
    };
    // The columns' names are the index's: held once (3.8 MiB at 100,000 tools).
    let columns = columns.share_names_with(&index);
    Ok(Some((PyIndex::wrap(index), columns, spans, server)))
}
