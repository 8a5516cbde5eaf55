//! `Index.search_plain` and `Index.search_plain_many`: `ToolIndex.search`'s common call (every
//! option at its default, a plain query that names no tool) answered in one call, parse to
//! `SearchResult`, and the same for a batch. Every query it cannot answer exactly as the
//! Python layer would is declined (`None`), and the caller's general path takes it.
//!
//! A deliberate twin of that general path for the queries it answers (the parse is
//! `crate::search::fast_path`'s, the name proof `crate::search::name_keys`'s); the Hypothesis
//! tests of `tests/test_fastpath.py` (`test_search_plain_equals_the_general_path*`,
//! `test_search_many_plain_batch_equals_the_general_path`) prove it answers as that path does.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use rayon::prelude::*;

use super::convert::{checked_limit, refused};
use crate::index::Index;
use crate::search::fast_path::{parse_plain, PlainQuery};
use crate::search::name_keys::NameKeys;
use crate::search::{PrefixOptions, SearchOptions};

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
        let options = SearchOptions {
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
        let limit = checked_limit(py, limit)?;
        Ok(Plain {
            index,
            keys,
            limit,
            max_length,
            options,
        })
    }

    /// The query parsed, if it is plain and names no tool: the `NameKeys` proof holds, and the
    /// plain words that are tool names (`search`, `weather`) are no squashed identifier names.
    fn accept<'q>(&self, raw: &'q str) -> Option<PlainQuery<'q>> {
        let plain = parse_plain(raw, self.max_length)?;
        let keys = self.keys;
        keys.names_none(&plain.text)
            .is_some_and(|squashed| !squashed.iter().any(|k| keys.may_be_squashed_name(k)))
            .then_some(plain)
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
