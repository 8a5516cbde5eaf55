//! `NameKeys`: the exact-name tier's key sets and its common-case proof (`crate::search::name_keys`);
//! `_build_name_table`: a name table's dicts and key sets from its tools' names in one call
//! (`crate::search::name_table`).

use pyo3::exceptions::{PyMemoryError, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use super::name_columns::PyNameColumns;
use super::name_map::PyNameMap;
use crate::build::catalog::NameFields;
use crate::search::name_keys::{may_be_identifier, NameKeys, MIN_SQUASHED_LENGTH};
use crate::search::name_table::{add_keys, NameTable, NameTableBuild};
use crate::text::name_columns::{ColumnsBuilder, ColumnsTooLarge, NameColumns};
use std::panic::AssertUnwindSafe;

/// The normalised name forms of an index's tools, for `NameTable.find_names`'s fast path.
#[pyclass(name = "NameKeys", module = "toolsift._core", frozen)]
pub(crate) struct PyNameKeys {
    inner: NameKeys,
}

impl PyNameKeys {
    /// The key sets.
    pub(crate) fn keys(&self) -> &NameKeys {
        &self.inner
    }
}

#[pymethods]
impl PyNameKeys {
    /// `plain` and `qualified`: iterables of str (the name table's dicts themselves: each key
    /// is hashed in turn, with no copy of the key sets). With `tools` (the table's tools:
    /// objects with `name` and `mcp_tool_name`), `plain` and `qualified` must be the dicts
    /// (key: a tool id or a list of ids), and the keys that may be squashed identifier names
    /// are marked too (`NameKeys::mark_identifier`), so that `Index.search_plain` answers
    /// queries holding plain words that are tool names.
    #[new]
    #[pyo3(signature = (plain, qualified, tools = None))]
    fn new(
        plain: &Bound<'_, PyAny>,
        qualified: &Bound<'_, PyAny>,
        tools: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut inner = NameKeys::default();
        for key in plain.try_iter()? {
            inner.add_plain(&key?.cast::<PyString>()?.to_cow()?);
        }
        for key in qualified.try_iter()? {
            inner.add_qualified(&key?.cast::<PyString>()?.to_cow()?);
        }
        if let Some(tools) = tools {
            let mut marks = IdentifierMarks {
                tools,
                known: Vec::new(),
            };
            // A squashed word is a plain key of MIN_SQUASHED_LENGTH characters or more, which
            // also looks up `qualified[key]` and, after an `mcp` prefix, `qualified[key[3:]]`.
            for (table, qualified, min_len) in [
                (plain, false, MIN_SQUASHED_LENGTH),
                (qualified, true, MIN_SQUASHED_LENGTH - 3),
            ] {
                let table = table.cast::<PyDict>().map_err(|_| {
                    PyTypeError::new_err(
                        "with tools, plain and qualified must be dicts of key -> tool ids",
                    )
                })?;
                for (key, ids) in table.iter() {
                    let key = key.cast_into::<PyString>()?;
                    // `len`: characters, as `len(key)` counts them.
                    if key.len()? >= min_len && marks.any_identifier(&ids)? {
                        inner.mark_identifier(&key.to_cow()?, qualified);
                    }
                }
            }
            inner.set_marked();
        }
        Ok(PyNameKeys { inner })
    }

    /// `None` when `text` may name a tool; else the long keys it holds, which name no tool
    /// unless one of them is a squashed identifier name (the caller's check).
    fn names_none(&self, text: &str) -> Option<Vec<String>> {
        self.inner.names_none(text)
    }

    /// These key sets with the keys of `tools` added (objects with `name`, `server` and
    /// `mcp_tool_name`; identifier marks included): an updated table's, in time proportional
    /// to `tools`, the base shared with this one (`NameKeys::layered`).
    fn with_tools(&self, py: Python<'_>, tools: &Bound<'_, PyAny>) -> PyResult<Self> {
        let names = read_names(tools)?;
        let mut inner = self.inner.layered();
        py.detach(|| {
            let build = gather(NameTableBuild::for_keys(&inner), &names);
            add_keys(&mut inner, &build);
        });
        Ok(PyNameKeys { inner })
    }

    /// The number of key hashes held (for tests and sizes).
    fn __len__(&self) -> usize {
        self.inner.len()
    }
}

/// One tool's name fields, read from Python: `(name, server, mcp_tool_name)`.
type Names = (String, Option<String>, Option<String>);

/// The name fields of each of `tools` (objects with `name`, `server` and `mcp_tool_name`; lone surrogates become U+FFFD, a separator for the tokenizer as the
/// surrogate is for Python's: the keys are the same).
fn read_names(tools: &Bound<'_, PyAny>) -> PyResult<Vec<Names>> {
    let py = tools.py();
    let text = |obj: Bound<'_, PyAny>| -> PyResult<String> {
        Ok(obj.cast::<PyString>()?.to_string_lossy().into_owned())
    };
    let optional = |obj: Bound<'_, PyAny>| -> PyResult<Option<String>> {
        if obj.is_none() {
            Ok(None)
        } else {
            text(obj).map(Some)
        }
    };
    let mut out = Vec::with_capacity(tools.len().unwrap_or(0));
    for tool in tools.try_iter()? {
        let tool = tool?;
        out.push((
            text(tool.getattr(intern!(py, "name"))?)?,
            optional(tool.getattr(intern!(py, "server"))?)?,
            optional(tool.getattr(intern!(py, "mcp_tool_name"))?)?,
        ));
    }
    Ok(out)
}

/// The keys of `names`, tool id = position.
fn gather(mut build: NameTableBuild, names: &[Names]) -> NameTableBuild {
    for (id, (name, server, mcp)) in names.iter().enumerate() {
        let id = u32::try_from(id).expect("fewer than 2**32 tools");
        build.add_tool(id, name, server.as_deref(), mcp.as_deref());
    }
    build
}

/// The name table of packed columns (tool id = position).
fn table_of_columns(c: &NameColumns) -> NameTable {
    NameTable::of((0..c.len()).map(|i| {
        (
            c.name(i).unwrap_or_default(),
            c.server(i),
            c.mcp_tool_name(i),
        )
    }))
}

/// The name table of a build's tools (their name fields, in order; tool id = position), for
/// the first `_build_name_table` of the tools to take instead of building it. `None` when it
/// could not be made (a bug: a panic): the first search then builds it as it would have.
pub(crate) fn name_table_of(tools: &[NameFields]) -> Option<NameTable> {
    let names = tools
        .iter()
        .map(|(name, server, mcp)| (name.as_str(), server.as_deref(), mcp.as_deref()));
    std::panic::catch_unwind(AssertUnwindSafe(|| NameTable::of(names))).ok()
}

/// The name columns of a build's tools (their name fields, in order), with their name table
/// made beside them ([`name_table_of`], each on a core of the pool), for the first
/// `_build_name_table` of the columns to take instead of building it: `None` past 4 GiB of
/// names.
pub(crate) fn indexed_names(tools: &[NameFields]) -> Option<PyNameColumns> {
    let (columns, table) = rayon::join(
        || -> Result<NameColumns, ColumnsTooLarge> {
            let mut columns = ColumnsBuilder::with_capacity(tools.len());
            for (name, server, mcp_tool_name) in tools {
                columns.push(name, server.as_deref(), mcp_tool_name.as_deref())?;
            }
            Ok(columns.finish())
        },
        || name_table_of(tools),
    );
    Some(PyNameColumns::with_table(columns.ok()?, table))
}

/// `table` as `_build_name_table` returns it, `(plain, qualified, keys)`: `None` past 4 GiB
/// of name forms.
pub(crate) fn table_parts(
    py: Python<'_>,
    table: NameTable,
) -> PyResult<Option<Bound<'_, PyTuple>>> {
    let NameTable { maps, keys } = table;
    let Some(maps) = maps else {
        return Ok(None);
    };
    let [plain, qualified] =
        [maps.0, maps.1].map(|map| Bound::new(py, PyNameMap::new(map)).map(Bound::into_any));
    let keys = Bound::new(py, PyNameKeys { inner: keys })?.into_any();
    PyTuple::new(py, [plain?, qualified?, keys]).map(Some)
}

/// `NameTable`'s parts from `tools` (objects with `name`, `server` and `mcp_tool_name`, or a
/// `NameColumns`; a
/// tool's id is its position), as its per-tool build (`_index_tool`) makes them: `(plain,
/// qualified, keys)`, the maps of normalised name form -> tool id or ascending list of ids (two
/// `NameMap`s, read as the dicts), and their `NameKeys` with the identifier marks. The keys are
/// made with the GIL released; columns whose table their build made (`indexed_names`) hand it
/// over instead, once.
#[pyfunction]
pub(crate) fn _build_name_table<'py>(
    py: Python<'py>,
    tools: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    // Packed columns are read in Rust with the GIL released; other tools, attribute by attribute.
    let packed = tools.cast::<PyNameColumns>().ok().map(Bound::get);
    let prebuilt = packed.and_then(PyNameColumns::take_table);
    let table = match (prebuilt, packed) {
        (Some(table), _) => table,
        (None, Some(c)) => {
            let c = c.shared();
            py.detach(move || table_of_columns(&c))
        }
        (None, None) => {
            let names = read_names(tools)?;
            py.detach(move || gather(NameTableBuild::default(), &names).finish())
        }
    };
    table_parts(py, table)?
        .ok_or_else(|| PyMemoryError::new_err("the tools' name forms hold more than 4 GiB of text"))
}

/// Whether tools have identifier names, each tool read once.
struct IdentifierMarks<'a, 'py> {
    tools: &'a Bound<'py, PyAny>,
    /// Per tool id: 0 unread, 1 not an identifier, 2 may be one.
    known: Vec<u8>,
}

impl IdentifierMarks<'_, '_> {
    /// Whether a tool of `ids` (an id, or a list of ids) may have an identifier name.
    fn any_identifier(&mut self, ids: &Bound<'_, PyAny>) -> PyResult<bool> {
        if let Ok(id) = ids.extract::<usize>() {
            return self.is_identifier(id);
        }
        for id in ids.try_iter()? {
            if self.is_identifier(id?.extract()?)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `is_identifier(tool.mcp_tool_name or tool.name)` (true when unsure).
    fn is_identifier(&mut self, id: usize) -> PyResult<bool> {
        if self.known.len() <= id {
            self.known.resize(id + 1, 0);
        }
        if self.known[id] == 0 {
            let py = self.tools.py();
            let tool = self.tools.get_item(id)?;
            let mut name = tool.getattr(intern!(py, "mcp_tool_name"))?;
            if !name.is_truthy()? {
                name = tool.getattr(intern!(py, "name"))?;
            }
            let name = name.cast::<PyString>()?.to_cow();
            let identifier = name.map_or(true, |name| may_be_identifier(&name));
            self.known[id] = 1 + u8::from(identifier);
        }
        Ok(self.known[id] == 2)
    }
}
