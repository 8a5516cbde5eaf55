//! `Index.search_plain` and `Index.search_plain_many`: `ToolIndex.search`'s common call (every
//! option at its default, a plain query that names no tool) answered in one call, parse to
//! `SearchResult`, and the same for a batch. Every query it cannot answer exactly as the
//! Python layer would is declined (`None`), and the caller's general path takes it.
//!
//! A deliberate twin of that general path for the queries it answers (the parse is
//! `crate::search::fast_path`'s, the name proof `crate::search::name_keys`'s); the Hypothesis
//! tests of `tests/test_fastpath.py` (`test_search_plain_equals_the_general_path*`,
//! `test_search_many_plain_batch_equals_the_general_path`) prove it answers as that path does.
//!
//! `Index.search_view` (with its `ViewFilter`): a session view's search of the same queries, the
//! fresh and already-active matches of one scoring pass (`crate::search::view`). A deliberate
//! twin of the view's general path (`_CatalogSession._rank` and `_settle`, two searches' worth
//! of lists); `tests/test_view_search.py` proves with Hypothesis (arbitrary Unicode tools and
//! queries, activations and catalogue updates, scores to 1e-9) that it answers as that path
//! does, and as the pure-Python engine's view.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use rayon::prelude::*;

use std::collections::HashSet;

use super::convert::{checked_limit, refused};
use crate::index::Index;
use crate::search::fast_path::{parse_plain, PlainQuery};
use crate::search::name_keys::NameKeys;
use crate::search::{PrefixOptions, SearchOptions};

/// The query parsed, if it is plain and names no tool: the `NameKeys` proof holds, and the
/// plain words that are tool names (`search`, `weather`) are no squashed identifier names.
fn accept<'q>(keys: &NameKeys, raw: &'q str, max_length: usize) -> Option<PlainQuery<'q>> {
    let plain = parse_plain(raw, max_length)?;
    keys.names_none(&plain.text)
        .is_some_and(|squashed| !squashed.iter().any(|k| keys.may_be_squashed_name(k)))
        .then_some(plain)
}

/// A batch query's parse and hits, when the call answers it.
type Answer<'q> = Option<(PlainQuery<'q>, Vec<(u32, f64)>)>;

/// One call's index, key sets and options.
pub(super) struct Plain<'a> {
    index: &'a Index,
    keys: &'a NameKeys,
    limit: usize,
    max_length: usize,
    options: SearchOptions,
}

impl<'a> Plain<'a> {
    /// The call's settings: `prefix` is `(fraction, min_len, max_expansions)`; every other
    /// search option is at its default.
    pub(super) fn new(
        py: Python<'_>,
        index: &'a Index,
        keys: &'a NameKeys,
        limit: usize,
        max_length: usize,
        (fraction, min_len, max_expansions): (f64, usize, usize),
    ) -> PyResult<Self> {
        let options = prefix_options(py, (fraction, min_len, max_expansions), HashSet::new())?;
        let limit = checked_limit(py, limit)?;
        Ok(Plain {
            index,
            keys,
            limit,
            max_length,
            options,
        })
    }

    /// The query parsed, if it is plain and names no tool (see [`accept`]).
    fn accept<'q>(&self, raw: &'q str) -> Option<PlainQuery<'q>> {
        accept(self.keys, raw, self.max_length)
    }

    /// The ranked hits of an accepted query; `None` on an engine error (which the Python layer
    /// then raises as it always does).
    fn hits(&self, plain: &PlainQuery<'_>) -> Option<Vec<(u32, f64)>> {
        self.index
            .search(&plain.text, self.limit, &self.options)
            .ok()
    }

    /// The `SearchResult` of `query` (whose text is `raw`, trimmed to `trimmed`).
    fn result<'py>(
        &self,
        py: Python<'py>,
        tools: &Bound<'py, PyAny>,
        fields: &Bound<'py, PyDict>,
        (query, raw, trimmed): (&Bound<'py, PyString>, &str, &str),
        hits: Vec<(u32, f64)>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let matches = super::matches::build_match_tuple(
            py,
            super::matches::match_class(py)?,
            tools,
            hits.into_iter().map(|(d, s)| (d as usize, s)),
            intern!(py, "bm25"),
        )?;
        // The query object itself when trimming left it whole.
        let trimmed = if trimmed.len() == raw.len() {
            query.clone().into_any()
        } else {
            PyString::new(py, trimmed).into_any()
        };
        super::matches::build_result(py, fields, trimmed, matches, self.index.len())
    }

    /// `Index.search_plain`.
    pub(super) fn search<'py>(
        &self,
        py: Python<'py>,
        tools: &Bound<'py, PyAny>,
        fields: &Bound<'py, PyDict>,
        query: &Bound<'py, PyString>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Ok(raw) = query.to_cow() else {
            return Ok(None); // lone surrogates: the Python path's lossy text
        };
        let Some(plain) = self.accept(&raw) else {
            return Ok(None);
        };
        let Some(hits) = py.detach(|| self.hits(&plain)) else {
            return Ok(None);
        };
        self.result(py, tools, fields, (query, &raw, plain.query), hits)
            .map(Some)
    }

    /// `Index.search_plain_many`: the queries' texts are read with the GIL held, then parsed,
    /// proved and searched in parallel without it.
    pub(super) fn search_many<'py>(
        &self,
        py: Python<'py>,
        tools: &Bound<'py, PyAny>,
        fields: &Bound<'py, PyDict>,
        queries: &Bound<'py, PyList>,
    ) -> PyResult<Bound<'py, PyList>> {
        let items: Vec<Bound<'py, PyAny>> = queries.iter().collect();
        let raws: Vec<Option<String>> = items
            .iter()
            .map(|q| {
                let text = q.cast::<PyString>().ok()?.to_cow().ok()?;
                Some(text.into_owned())
            })
            .collect();
        let answers: Vec<Answer<'_>> = py.detach(|| {
            crate::pool::install(|| {
                raws.par_iter()
                    .with_max_len(16)
                    .map(|raw| {
                        let plain = self.accept(raw.as_deref()?)?;
                        let hits = self.hits(&plain)?;
                        Some((plain, hits))
                    })
                    .collect()
            })
        });
        let out = PyList::empty(py);
        for ((item, raw), answer) in items.iter().zip(&raws).zip(answers) {
            match (item.cast::<PyString>(), raw, answer) {
                (Ok(query), Some(raw), Some((plain, hits))) => {
                    out.append(self.result(py, tools, fields, (query, raw, plain.query), hits)?)?
                }
                _ => out.append(py.None())?,
            }
        }
        Ok(out)
    }
}

/// Every search option at its default but the prefix options and `exclude`; the error of
/// `toolsift._options` for prefix options the engine refuses.
fn prefix_options(
    py: Python<'_>,
    (fraction, min_len, max_expansions): (f64, usize, usize),
    exclude: HashSet<u32>,
) -> PyResult<SearchOptions> {
    let options = SearchOptions {
        exclude,
        prefix: PrefixOptions {
            fraction,
            min_len,
            max_expansions,
        },
        ..SearchOptions::default()
    };
    if options.validate().is_err() {
        // `toolsift._options` raises the error for these values (see `convert::refused`).
        let args = (
            py.None(),
            py.None(),
            py.None(),
            fraction,
            min_len,
            max_expansions,
            0.0,
            0.0,
            false,
        );
        return Err(refused(py, "SearchOptions", args, "search options"));
    }
    Ok(options)
}

/// What a session view leaves out of its searches (its visible tools, by id in one index) and
/// their prefix options: made once per session state, read by every `Index.search_view` of it.
#[pyclass(frozen, name = "ViewFilter", module = "toolsift._core")]
pub struct PyViewFilter {
    options: SearchOptions,
}

#[pymethods]
impl PyViewFilter {
    #[new]
    #[pyo3(signature = (ids, prefix_fraction, prefix_min_len, max_expansions))]
    fn new(
        py: Python<'_>,
        ids: Vec<u32>,
        prefix_fraction: f64,
        prefix_min_len: usize,
        max_expansions: usize,
    ) -> PyResult<Bound<'_, Self>> {
        let prefix = (prefix_fraction, prefix_min_len, max_expansions);
        let options = prefix_options(py, prefix, ids.into_iter().collect())?;
        untracked_filter(py, options)
    }

    /// This filter with `ids` left out too (the tools a search just activated).
    fn extended<'py>(&self, py: Python<'py>, ids: Vec<u32>) -> PyResult<Bound<'py, Self>> {
        let mut options = self.options.clone();
        options.exclude.extend(ids);
        untracked_filter(py, options)
    }

    /// How many distinct ids it leaves out.
    fn __len__(&self) -> usize {
        self.options.exclude.len()
    }
}

/// A new `ViewFilter` object, off the cyclic collector's lists. A view keeps one a session and
/// replaces it at each activating search: a tracked one would join the young generation while
/// the one it replaces (older) is freed, so the count that starts a young collection would not
/// move while that generation grows (to 40,000 objects and 30-50 ms pauses over 10,000
/// sessions). It holds no Python object, so it can be in no reference cycle.
fn untracked_filter(py: Python<'_>, options: SearchOptions) -> PyResult<Bound<'_, PyViewFilter>> {
    let filter = Bound::new(py, PyViewFilter { options })?;
    // SAFETY: a live object (the GIL is held); untracking only takes it off the collector's
    // lists, and its deallocation (which untracks again, a no-op) frees it the same either way.
    unsafe { pyo3::ffi::PyObject_GC_UnTrack(filter.as_ptr().cast()) };
    Ok(filter)
}

/// A view's answer (see [`search_view`]).
pub(super) type ViewAnswer<'py> = (
    Bound<'py, PyAny>,
    Bound<'py, PyTuple>,
    Bound<'py, PyTuple>,
    Bound<'py, PyTuple>,
    Bound<'py, PyTuple>,
    Option<Bound<'py, PyViewFilter>>,
    usize,
);

/// `Index.search_view`: for a plain query that names no tool, the top `limit` of `index` with
/// `view`'s ids left out (fresh) and, of the top `limit` of the same ranking with nothing left
/// out, the matches that `view` leaves out, in rank order (already active), in one scoring pass
/// (`crate::search::view`). The answer: `(trimmed query, fresh matches, their tools' names,
/// already-active matches, their names, view extended by the fresh ids (None when there are
/// none), the number of ids not left out)`. `None` when the query needs the general path (as
/// `search_plain`).
pub(super) fn search_view<'py>(
    py: Python<'py>,
    (index, keys): (&Index, &NameKeys),
    tools: &Bound<'py, PyAny>,
    (query, limit, max_length): (&Bound<'py, PyString>, usize, usize),
    view: &PyViewFilter,
) -> PyResult<Option<ViewAnswer<'py>>> {
    let limit = checked_limit(py, limit)?;
    let Ok(raw) = query.to_cow() else {
        return Ok(None); // lone surrogates: the Python path's lossy text
    };
    let Some(plain) = accept(keys, &raw, max_length) else {
        return Ok(None);
    };
    let options = &view.options;
    let Ok((fresh, ranked)) = py.detach(|| index.search_view(&plain.text, limit, options)) else {
        return Ok(None); // an engine error: the general path raises it
    };
    let active: Vec<(u32, f64)> = ranked
        .into_iter()
        .filter(|(d, _)| options.exclude.contains(d))
        .collect();
    let next = if fresh.is_empty() {
        None
    } else {
        let mut options = options.clone();
        options.exclude.extend(fresh.iter().map(|&(d, _)| d));
        Some(untracked_filter(py, options)?)
    };
    let (fresh, fresh_names) = matches_and_names(py, tools, &fresh)?;
    let (active, active_names) = matches_and_names(py, tools, &active)?;
    let trimmed = if plain.query.len() == raw.len() {
        query.clone().into_any()
    } else {
        PyString::new(py, plain.query).into_any()
    };
    let total = index.len().saturating_sub(options.exclude.len());
    Ok(Some((
        trimmed,
        fresh,
        fresh_names,
        active,
        active_names,
        next,
        total,
    )))
}

/// The `Match` objects of `hits` (reason `"bm25"`) and their tools' names, as tuples.
fn matches_and_names<'py>(
    py: Python<'py>,
    tools: &Bound<'py, PyAny>,
    hits: &[(u32, f64)],
) -> PyResult<(Bound<'py, PyTuple>, Bound<'py, PyTuple>)> {
    let cls = super::matches::match_class(py)?;
    let hits = hits.iter().map(|&(d, s)| (d as usize, s));
    let matches = super::matches::build_matches(py, cls, tools, hits, intern!(py, "bm25"))?;
    let name = intern!(py, "name");
    let mut names = Vec::with_capacity(matches.len());
    for m in matches.iter() {
        names.push(m.getattr(intern!(py, "tool"))?.getattr(name)?);
    }
    Ok((matches.to_tuple(), PyTuple::new(py, names)?))
}
