//! `NameColumns`: an index's name, server and raw MCP name columns, packed in Rust
//! (`crate::text::name_columns`), read from Python as three sequences (`NameColumn`) and a
//! name -> position mapping (`NamePositions`), each item a fresh `str` when read.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyIndexError, PyKeyError, PyMemoryError, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice, PyString, PyTuple};

use super::name_map::abc_view;
use crate::search::name_table::NameTable;
use crate::text::name_columns::{ColumnsBuilder, ColumnsTooLarge, NameColumns};

fn too_large(_: ColumnsTooLarge) -> PyErr {
    PyMemoryError::new_err("the tools' names hold more than 4 GiB of text")
}

/// A `str` (or `None` where `optional`) as text; a lone surrogate is a `UnicodeEncodeError`.
fn text<'a>(
    obj: &'a Bound<'_, PyAny>,
    optional: bool,
) -> PyResult<Option<std::borrow::Cow<'a, str>>> {
    if optional && obj.is_none() {
        return Ok(None);
    }
    match obj.cast::<PyString>() {
        Ok(s) => s.to_cow().map(Some),
        Err(_) => Err(PyTypeError::new_err(format!(
            "a name column holds str{}, not {}",
            if optional { " or None" } else { "" },
            obj.get_type().name()?
        ))),
    }
}

/// Appends the tools of three same-length iterables (names; servers and raw MCP names, each
/// `str` or `None`).
fn push_all(
    builder: &mut ColumnsBuilder,
    names: &Bound<'_, PyAny>,
    servers: &Bound<'_, PyAny>,
    mcp_tool_names: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let (mut servers, mut mcp) = (servers.try_iter()?, mcp_tool_names.try_iter()?);
    for name in names.try_iter()? {
        let (Some(server), Some(raw)) = (servers.next(), mcp.next()) else {
            return Err(PyIndexError::new_err(
                "the name columns have different lengths",
            ));
        };
        let (name, server, raw) = (name?, server?, raw?);
        let name = text(&name, false)?.unwrap_or_default();
        builder
            .push(
                &name,
                text(&server, true)?.as_deref(),
                text(&raw, true)?.as_deref(),
            )
            .map_err(too_large)?;
    }
    if servers.next().is_some() || mcp.next().is_some() {
        return Err(PyIndexError::new_err(
            "the name columns have different lengths",
        ));
    }
    Ok(())
}

/// The name, server and raw MCP name of every tool of an index, packed: about a quarter of the
/// memory of three lists of `str` and a name -> position dict.
#[pyclass(name = "NameColumns", module = "toolsift._core", frozen)]
pub(crate) struct PyNameColumns {
    inner: Arc<NameColumns>,
    /// The name table of these columns, made by the build alongside the index
    /// (`name_keys::indexed_names`), until the first name table of the columns takes it.
    table: Mutex<Option<NameTable>>,
}

impl PyNameColumns {
    pub(crate) fn wrap(inner: NameColumns) -> Self {
        Self::with_table(inner, None)
    }

    /// Columns that hold their name table, made already (see [`PyNameColumns::take_table`]).
    pub(crate) fn with_table(inner: NameColumns, table: Option<NameTable>) -> Self {
        PyNameColumns {
            inner: Arc::new(inner),
            table: Mutex::new(table),
        }
    }

    /// The name table made with the columns, once (`None` after, or if none was made).
    pub(crate) fn take_table(&self) -> Option<NameTable> {
        self.table.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// These columns holding `index`'s names instead of their own copy, when they are the
    /// same (a record build's: see `NameColumns::share_names`) and not shared yet.
    pub(crate) fn share_names_with(mut self, index: &crate::index::Index) -> Self {
        if let Some(columns) = Arc::get_mut(&mut self.inner) {
            columns.share_names(&index.names);
        }
        self
    }

    /// The columns, shared.
    pub(crate) fn shared(&self) -> Arc<NameColumns> {
        Arc::clone(&self.inner)
    }
}

#[pymethods]
impl PyNameColumns {
    /// The columns of `names`, `servers` and `mcp_tool_names` (iterables of the same length;
    /// servers and raw MCP names are `str` or `None`).
    #[new]
    fn new(
        names: &Bound<'_, PyAny>,
        servers: &Bound<'_, PyAny>,
        mcp_tool_names: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let mut builder = ColumnsBuilder::with_capacity(names.len().unwrap_or(0));
        push_all(&mut builder, names, servers, mcp_tool_names)?;
        Ok(Self::wrap(builder.finish()))
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The tools at positions `keep` (in that order), then the tools of `names`, `servers` and
    /// `mcp_tool_names`: an updated index's columns.
    fn take(
        &self,
        py: Python<'_>,
        keep: Vec<usize>,
        names: &Bound<'_, PyAny>,
        servers: &Bound<'_, PyAny>,
        mcp_tool_names: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let from = &self.inner;
        let kept = py.detach(|| ColumnsBuilder::taking(from, &keep));
        let Some(mut builder) = kept.map_err(too_large)? else {
            return Err(PyIndexError::new_err(
                "a kept tool position is out of range",
            ));
        };
        push_all(&mut builder, names, servers, mcp_tool_names)?;
        Ok(Self::wrap(builder.finish()))
    }

    /// The names, by position.
    #[getter]
    fn names(&self) -> PyNameColumn {
        self.column(Column::Name)
    }

    /// The servers (`str` or `None`), by position.
    #[getter]
    fn servers(&self) -> PyNameColumn {
        self.column(Column::Server)
    }

    /// The raw MCP names (`str` or `None`), by position.
    #[getter]
    fn mcp_tool_names(&self) -> PyNameColumn {
        self.column(Column::Mcp)
    }

    /// Name -> position (the last tool of that name), a read-only mapping in name order.
    #[getter]
    fn positions(&self) -> PyNamePositions {
        PyNamePositions {
            inner: Arc::clone(&self.inner),
        }
    }

    /// The bytes held, the buffers included (`sys.getsizeof`).
    fn __sizeof__(&self) -> usize {
        let table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let table = table.as_ref().map_or(0, NameTable::memory_bytes);
        std::mem::size_of::<Self>() + self.inner.memory_bytes() + table
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let me = slf.get();
        let columns = [Column::Name, Column::Server, Column::Mcp]
            .map(|c| me.column(c).__getitem__(py, &PySlice::full(py)));
        let [names, servers, mcp] = columns;
        let args = PyTuple::new(py, [names?, servers?, mcp?])?;
        PyTuple::new(py, [slf.get_type().into_any(), args.into_any()])
    }
}

impl PyNameColumns {
    fn column(&self, which: Column) -> PyNameColumn {
        PyNameColumn {
            inner: Arc::clone(&self.inner),
            which,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Column {
    Name,
    Server,
    Mcp,
}

/// One column of a `NameColumns`: a read-only sequence of `str` (or `None` for a tool with no
/// server or raw MCP name); registered as a `collections.abc.Sequence` by
/// `toolsift._snapshot.name_columns`.
#[pyclass(name = "NameColumn", module = "toolsift._core", frozen, sequence)]
pub(crate) struct PyNameColumn {
    inner: Arc<NameColumns>,
    which: Column,
}

impl PyNameColumn {
    fn item<'py>(&self, py: Python<'py>, i: usize) -> Bound<'py, PyAny> {
        let c = &self.inner;
        let value = match self.which {
            Column::Name => c.name(i),
            Column::Server => c.server(i),
            Column::Mcp => c.mcp_tool_name(i),
        };
        match value {
            Some(s) => PyString::new(py, s).into_any(),
            None => py.None().into_bound(py),
        }
    }
}

#[pymethods]
impl PyNameColumn {
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Item `i` (negative counts from the end), or a `list` of a slice's items.
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        i: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n = self.inner.len();
        if let Ok(slice) = i.cast::<PySlice>() {
            let at = slice.indices(isize::try_from(n).unwrap_or(isize::MAX))?;
            let mut out = Vec::with_capacity(at.slicelength);
            let mut k = at.start;
            for _ in 0..at.slicelength {
                out.push(self.item(py, k as usize));
                k += at.step;
            }
            return Ok(PyList::new(py, out)?.into_any());
        }
        let i: isize = i.extract()?;
        let at = if i < 0 { i + n as isize } else { i };
        if at < 0 || at as usize >= n {
            return Err(PyIndexError::new_err("name column index out of range"));
        }
        Ok(self.item(py, at as usize))
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let items = (0..self.inner.len()).map(|i| self.item(py, i));
        Ok(PyList::new(py, items)?.as_any().try_iter()?.into_any())
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(n) = other.len() else { return Ok(false) };
        if n != self.inner.len() {
            return Ok(false);
        }
        for (i, item) in other.try_iter()?.enumerate() {
            if !self.item(py, i).eq(item?)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let list = PyList::new(py, (0..self.inner.len()).map(|i| self.item(py, i)))?;
        Ok(format!("NameColumn({})", list.repr()?))
    }
}

/// A `NameColumns`' name -> position mapping (the last tool of each name), read-only, its keys
/// in the order of their first tool; registered as a `collections.abc.Mapping`.
#[pyclass(name = "NamePositions", module = "toolsift._core", frozen, mapping)]
pub(crate) struct PyNamePositions {
    inner: Arc<NameColumns>,
}

impl PyNamePositions {
    fn find(&self, key: &Bound<'_, PyAny>) -> Option<usize> {
        let key = key.cast::<PyString>().ok()?.to_cow().ok()?;
        self.inner.position(&key)
    }
}

#[pymethods]
impl PyNamePositions {
    fn __len__(&self) -> usize {
        self.inner.distinct_names()
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> bool {
        self.find(key).is_some()
    }

    fn __getitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.find(key)
            .ok_or_else(|| PyKeyError::new_err(key.clone().unbind()))
    }

    /// The position of `key`, or `default`.
    #[pyo3(signature = (key, default = None))]
    fn get<'py>(
        &self,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.find(key) {
            Some(i) => Ok(Some(i.into_pyobject(key.py())?.into_any())),
            None => Ok(default),
        }
    }

    /// The names, each once, in the order of their first tool.
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = &self.inner;
        let names = c
            .first_occurrences()
            .into_iter()
            .map(|i| PyString::new(py, c.name(i).unwrap_or("")));
        Ok(PyList::new(py, names)?.as_any().try_iter()?.into_any())
    }

    fn keys<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        abc_view(slf.as_any(), intern!(slf.py(), "KeysView"))
    }

    fn items<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        abc_view(slf.as_any(), intern!(slf.py(), "ItemsView"))
    }

    fn values<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        abc_view(slf.as_any(), intern!(slf.py(), "ValuesView"))
    }
}
