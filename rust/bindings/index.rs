//! `toolsift._core.Index`: the Rust engine as a frozen Python class.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use std::mem::ManuallyDrop;
use std::path::PathBuf;

use super::build_pipeline;
use super::convert::{
    extract_limit, extract_options, extract_queries, extract_text, Given, RawOptions,
};
use super::index_persist;
use super::index_scores::{self, Explained};
use crate::analysis::Profile;
use crate::index::Index;

#[pyclass(name = "Index", module = "toolsift._core", frozen)]
pub struct PyIndex {
    /// Dropped by [`PyIndex`]'s `Drop` (a large index off the calling thread).
    inner: ManuallyDrop<Index>,
}

/// An index of at least this many documents is freed on the update pool when its Python object
/// goes ([`crate::pool::release`]): at 100,000 tools its free takes 1.5-5 ms, and the thread that
/// drops the last reference to an old catalogue generation is, often, a search's.
const RELEASE_APART_AT: usize = 8192;

impl Drop for PyIndex {
    fn drop(&mut self) {
        // SAFETY: `inner` is taken once, here, and never read again.
        let inner = unsafe { ManuallyDrop::take(&mut self.inner) };
        if inner.len() >= RELEASE_APART_AT {
            crate::pool::release(inner);
        }
    }
}

impl PyIndex {
    /// The Python object of an index built elsewhere (`records`).
    pub(crate) fn wrap(inner: Index) -> Self {
        PyIndex {
            inner: ManuallyDrop::new(inner),
        }
    }

    /// The engine index (`tools`' updates read it).
    pub(crate) fn inner(&self) -> &Index {
        &self.inner
    }
}

#[pymethods]
impl PyIndex {
    #[new]
    #[pyo3(signature = (
        names, documents, field_weights, *, k1 = 1.2, b = 0.75, delta = 1.0, profile = "omp"
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        names: &Bound<'_, PyAny>,
        documents: &Bound<'_, PyAny>,
        field_weights: Vec<f64>,
        k1: f64,
        b: f64,
        delta: f64,
        profile: &str,
    ) -> PyResult<Self> {
        let profile = Profile::parse(profile)?;
        let names: Vec<String> = names
            .try_iter()?
            .map(|n| n.and_then(|n| super::documents::extract_owned_text(&n, "name")))
            .collect::<PyResult<_>>()?;
        let inner = build_pipeline::build_pipelined(
            py,
            names,
            documents,
            field_weights,
            (k1, b, delta),
            profile,
        )?;
        Ok(PyIndex::wrap(inner))
    }

    // Every option may be passed by position as well: `ToolIndex` passes them so, since PyO3
    // matches keyword arguments by name one by one (~0.1 µs each).
    #[pyo3(
        signature = (
            query, limit, exclude = None, include = None, required = None,
            prefix_fraction = Given::NO, prefix_min_len = Given::NO, max_expansions = Given::NO,
            threshold = Given::NO, relative_floor = Given::NO, coverage = Given::NO
        ),
        text_signature = "($self, query, limit, exclude=None, include=None, required=None, \
            prefix_fraction=0.0, prefix_min_len=3, max_expansions=16, threshold=0.0, \
            relative_floor=0.0, coverage=False)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
        limit: &Bound<'_, PyAny>,
        exclude: Option<&Bound<'_, PyAny>>,
        include: Option<&Bound<'_, PyAny>>,
        required: Option<&Bound<'_, PyAny>>,
        prefix_fraction: Given<'_>,
        prefix_min_len: Given<'_>,
        max_expansions: Given<'_>,
        threshold: Given<'_>,
        relative_floor: Given<'_>,
        coverage: Given<'_>,
    ) -> PyResult<Vec<(u32, f64)>> {
        let query = extract_text(query, "query")?;
        let limit = extract_limit(limit)?;
        let options = extract_options(
            py,
            exclude,
            include,
            required,
            RawOptions {
                prefix_fraction,
                prefix_min_len,
                max_expansions,
                threshold,
                relative_floor,
                coverage,
            },
        )?;
        let inner = &self.inner;
        Ok(py.detach(|| inner.search(&query, limit, &options))?)
    }

    /// `search` whose hits come back as `toolsift.result.Match` objects of `tools[id]` with
    /// `reason`: `ToolIndex.search`'s ranked list in one call, without the intermediate list of
    /// pairs (its 8 tuples, their extraction and a second call: ~1 µs of a 20 µs search).
    #[pyo3(
        signature = (
            tools, reason, query, limit, exclude = None, include = None, required = None,
            prefix_fraction = Given::NO, prefix_min_len = Given::NO, max_expansions = Given::NO,
            threshold = Given::NO, relative_floor = Given::NO, coverage = Given::NO
        ),
        text_signature = "($self, tools, reason, query, limit, exclude=None, include=None, \
            required=None, prefix_fraction=0.0, prefix_min_len=3, max_expansions=16, \
            threshold=0.0, relative_floor=0.0, coverage=False)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn search_matches<'py>(
        &self,
        py: Python<'py>,
        tools: &Bound<'py, PyAny>,
        reason: &Bound<'py, PyAny>,
        query: &Bound<'py, PyAny>,
        limit: &Bound<'py, PyAny>,
        exclude: Option<&Bound<'py, PyAny>>,
        include: Option<&Bound<'py, PyAny>>,
        required: Option<&Bound<'py, PyAny>>,
        prefix_fraction: Given<'py>,
        prefix_min_len: Given<'py>,
        max_expansions: Given<'py>,
        threshold: Given<'py>,
        relative_floor: Given<'py>,
        coverage: Given<'py>,
    ) -> PyResult<Bound<'py, PyList>> {
        let hits = self.search(
            py,
            query,
            limit,
            exclude,
            include,
            required,
            prefix_fraction,
            prefix_min_len,
            max_expansions,
            threshold,
            relative_floor,
            coverage,
        )?;
        let cls = super::matches::match_class(py)?;
        super::matches::build_matches(
            py,
            cls,
            tools,
            hits.into_iter().map(|(d, s)| (d as usize, s)),
            reason,
        )
    }

    /// `ToolIndex.search` with every option at its default, in one call: the plain query's
    /// parse (`crate::search::fast_path`), the exact-name tier's proof that it names no tool
    /// (`keys`, a `NameKeys`), the BM25+ search with the prefix options given, and the
    /// `SearchResult` (`fields`: its fields as `SearchResult._keyword_fields` gives them).
    /// `None` when the query needs the Python layer (see `parse_plain`; or it may name a tool):
    /// the caller then takes its general path, which returns the same result for every query
    /// this one answers.
    #[pyo3(signature = (
        tools, keys, fields, query, limit, max_length, prefix_fraction, prefix_min_len,
        max_expansions
    ))]
    #[allow(clippy::too_many_arguments)]
    fn search_plain<'py>(
        &self,
        py: Python<'py>,
        tools: &Bound<'py, PyAny>,
        keys: PyRef<'py, super::name_keys::PyNameKeys>,
        fields: &Bound<'py, PyDict>,
        query: &Bound<'py, PyString>,
        limit: usize,
        max_length: usize,
        prefix_fraction: f64,
        prefix_min_len: usize,
        max_expansions: usize,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let plain = super::fast_path::Plain::new(
            py,
            &self.inner,
            keys.keys(),
            limit,
            max_length,
            (prefix_fraction, prefix_min_len, max_expansions),
        )?;
        plain.search(py, tools, fields, query)
    }

    /// A session view's search of a plain query (see `fast_path::search_view`): `(query,
    /// fresh, already_active)`, or `None` when the query needs the general path.
    #[pyo3(signature = (tools, keys, query, limit, max_length, view))]
    #[allow(clippy::too_many_arguments)]
    fn search_view<'py>(
        &self,
        py: Python<'py>,
        tools: &Bound<'py, PyAny>,
        keys: PyRef<'py, super::name_keys::PyNameKeys>,
        query: &Bound<'py, PyString>,
        limit: usize,
        max_length: usize,
        view: PyRef<'py, super::fast_path::PyViewFilter>,
    ) -> PyResult<Option<super::fast_path::ViewAnswer<'py>>> {
        let engine = (&*self.inner, keys.keys());
        super::fast_path::search_view(py, engine, tools, (query, limit, max_length), &view)
    }

    /// `search_plain` for each of `queries` (a list), the searches in parallel with the GIL
    /// released: a `SearchResult` per query it answers, `None` for each query that needs the
    /// Python layer (`ToolIndex.search_many`'s common call).
    #[pyo3(signature = (
        tools, keys, fields, queries, limit, max_length, prefix_fraction, prefix_min_len,
        max_expansions
    ))]
    #[allow(clippy::too_many_arguments)]
    fn search_plain_many<'py>(
        &self,
        py: Python<'py>,
        tools: &Bound<'py, PyAny>,
        keys: PyRef<'py, super::name_keys::PyNameKeys>,
        fields: &Bound<'py, PyDict>,
        queries: &Bound<'py, PyList>,
        limit: usize,
        max_length: usize,
        prefix_fraction: f64,
        prefix_min_len: usize,
        max_expansions: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let plain = super::fast_path::Plain::new(
            py,
            &self.inner,
            keys.keys(),
            limit,
            max_length,
            (prefix_fraction, prefix_min_len, max_expansions),
        )?;
        plain.search_many(py, tools, fields, queries)
    }

    #[pyo3(
        signature = (
            query, docs, exclude = None, *, include = None, required = None,
            prefix_fraction = Given::NO, prefix_min_len = Given::NO, max_expansions = Given::NO
        ),
        text_signature = "($self, query, docs, exclude=None, *, include=None, required=None, \
            prefix_fraction=0.0, prefix_min_len=3, max_expansions=16)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn score_documents(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
        docs: Vec<u32>,
        exclude: Option<&Bound<'_, PyAny>>,
        include: Option<&Bound<'_, PyAny>>,
        required: Option<&Bound<'_, PyAny>>,
        prefix_fraction: Given<'_>,
        prefix_min_len: Given<'_>,
        max_expansions: Given<'_>,
    ) -> PyResult<Vec<(u32, f64)>> {
        let prefix = RawOptions {
            prefix_fraction,
            prefix_min_len,
            max_expansions,
            ..RawOptions::default()
        };
        let filters = (exclude, include, required);
        index_scores::score_documents(py, &self.inner, query, &docs, filters, prefix)
    }

    /// Each matched query term's part of `doc`'s score, with what each field of `document`
    /// (the `(field id, text)` pairs `doc` was built from) brought to its term frequency.
    #[pyo3(
        signature = (
            query, doc, document, *, prefix_fraction = Given::NO, prefix_min_len = Given::NO,
            max_expansions = Given::NO
        ),
        text_signature = "($self, query, doc, document, *, prefix_fraction=0.0, \
            prefix_min_len=3, max_expansions=16)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn explain(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
        doc: u32,
        document: &Bound<'_, PyAny>,
        prefix_fraction: Given<'_>,
        prefix_min_len: Given<'_>,
        max_expansions: Given<'_>,
    ) -> PyResult<Vec<Explained>> {
        let prefix = RawOptions {
            prefix_fraction,
            prefix_min_len,
            max_expansions,
            ..RawOptions::default()
        };
        index_scores::explain(py, &self.inner, query, doc, document, prefix)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The analysis profile the index was built with (``"omp"`` or ``"english"``).
    #[getter]
    fn profile(&self) -> &'static str {
        self.inner.profile().name()
    }

    #[getter]
    fn vocabulary_size(&self) -> usize {
        self.inner.vocabulary_size()
    }

    #[getter]
    fn average_length(&self) -> f64 {
        self.inner.average_length()
    }

    #[getter]
    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes()
    }

    fn document_frequency(&self, term: &Bound<'_, PyAny>) -> PyResult<usize> {
        Ok(self.inner.document_frequency(&extract_text(term, "term")?))
    }

    fn __repr__(&self) -> String {
        format!(
            "<toolsift._core.Index documents={} terms={} profile={}>",
            self.inner.len(),
            self.inner.vocabulary_size(),
            self.inner.profile().name()
        )
    }

    // Batch search, snapshots and updates (`index_persist`); the pipelined build is in
    // `build_pipeline.rs`.

    #[pyo3(
        signature = (
            queries, limit, exclude = None, *, include = None, required = None,
            prefix_fraction = Given::NO, prefix_min_len = Given::NO, max_expansions = Given::NO,
            threshold = Given::NO, relative_floor = Given::NO, coverage = Given::NO
        ),
        text_signature = "($self, queries, limit, exclude=None, *, include=None, required=None, \
            prefix_fraction=0.0, prefix_min_len=3, max_expansions=16, threshold=0.0, \
            relative_floor=0.0, coverage=False)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn search_many(
        &self,
        py: Python<'_>,
        queries: &Bound<'_, PyAny>,
        limit: &Bound<'_, PyAny>,
        exclude: Option<&Bound<'_, PyAny>>,
        include: Option<&Bound<'_, PyAny>>,
        required: Option<&Bound<'_, PyAny>>,
        prefix_fraction: Given<'_>,
        prefix_min_len: Given<'_>,
        max_expansions: Given<'_>,
        threshold: Given<'_>,
        relative_floor: Given<'_>,
        coverage: Given<'_>,
    ) -> PyResult<Vec<Vec<(u32, f64)>>> {
        let queries = extract_queries(queries)?;
        let limit = extract_limit(limit)?;
        let options = extract_options(
            py,
            exclude,
            include,
            required,
            RawOptions {
                prefix_fraction,
                prefix_min_len,
                max_expansions,
                threshold,
                relative_floor,
                coverage,
            },
        )?;
        let inner = &self.inner;
        Ok(py.detach(|| crate::pool::install(|| inner.search_many(&queries, limit, &options)))?)
    }

    #[pyo3(signature = (metadata = None))]
    fn to_bytes<'py>(&self, py: Python<'py>, metadata: Option<&[u8]>) -> Bound<'py, PyBytes> {
        index_persist::to_bytes(py, &self.inner, metadata)
    }

    #[staticmethod]
    #[pyo3(signature = (data, *, with_metadata = false))]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        with_metadata: bool,
    ) -> PyResult<Py<PyAny>> {
        index_persist::from_bytes(py, data, |inner, meta| {
            loaded(py, PyIndex::wrap(inner), meta, with_metadata)
        })
    }

    #[pyo3(signature = (path, metadata = None))]
    fn save(&self, py: Python<'_>, path: PathBuf, metadata: Option<&[u8]>) -> PyResult<()> {
        index_persist::save(py, &self.inner, &path, metadata)
    }

    #[staticmethod]
    #[pyo3(signature = (path, *, with_metadata = false))]
    fn load(py: Python<'_>, path: PathBuf, with_metadata: bool) -> PyResult<Py<PyAny>> {
        index_persist::load(py, &path, |inner, meta| {
            loaded(py, PyIndex::wrap(inner), meta, with_metadata)
        })
    }

    #[pyo3(signature = (names = None, documents = None, *, remove = None))]
    fn updated(
        &self,
        py: Python<'_>,
        names: Option<&Bound<'_, PyAny>>,
        documents: Option<&Bound<'_, PyAny>>,
        remove: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let inner = index_persist::updated(py, &self.inner, names, documents, remove)?;
        Ok(PyIndex::wrap(inner))
    }

    /// The document names, in document order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.inner.names().map(str::to_owned).collect()
    }

    /// `(k1, b, delta)`.
    #[getter]
    fn params(&self) -> (f64, f64, f64) {
        let p = self.inner.params();
        (p.k1, p.b, p.delta)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let bytes = slf.get().to_bytes(py, None);
        let load = slf.get_type().getattr("from_bytes")?;
        PyTuple::new(py, [load.into_any(), PyTuple::new(py, [bytes])?.into_any()])
    }
}

/// The index, or `(index, metadata)` when asked for.
fn loaded(
    py: Python<'_>,
    index: PyIndex,
    metadata: &[u8],
    with_metadata: bool,
) -> PyResult<Py<PyAny>> {
    let index = Bound::new(py, index)?.into_any();
    if with_metadata {
        let meta = PyBytes::new(py, metadata).into_any();
        Ok(PyTuple::new(py, [index, meta])?.into_any().unbind())
    } else {
        Ok(index.unbind())
    }
}
