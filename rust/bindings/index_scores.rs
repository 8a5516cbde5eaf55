//! The per-document methods of `toolsift._core.Index` (`index::PyIndex`), as the plain functions
//! its one `#[pymethods]` block calls: the scores of given documents (`score_documents`), and
//! each query term's part of one document's score with its parts per field (`explain`; the
//! engine side is `crate::search::explain`).

use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;

use super::convert::{extract_document, extract_options, extract_text, RawOptions};
use crate::index::Index;

/// One term of an explanation: (term, matched, prefix, qtf, idf, tf, norm, contribution, and
/// per field of the document, `(field id, its part of tf)`).
pub(super) type Explained = (
    String,
    String,
    bool,
    f64,
    f64,
    f64,
    f64,
    f64,
    Vec<(usize, f64)>,
);

/// `exclude`, `include` and `required`, as the caller passed them.
type Filters<'a, 'py> = (
    Option<&'a Bound<'py, PyAny>>,
    Option<&'a Bound<'py, PyAny>>,
    Option<&'a Bound<'py, PyAny>>,
);

/// `Index.score_documents`: `(doc, score)` for each of `docs` the filters keep.
pub(super) fn score_documents<'py>(
    py: Python<'py>,
    inner: &Index,
    query: &Bound<'py, PyAny>,
    docs: &[u32],
    (exclude, include, required): Filters<'_, 'py>,
    prefix: RawOptions<'py>,
) -> PyResult<Vec<(u32, f64)>> {
    let query = extract_text(query, "query")?;
    let options = extract_options(py, exclude, include, required, prefix)?;
    let tokens = inner.query_terms(&query);
    Ok(inner.score_documents(&tokens, docs, &options)?)
}

/// `Index.explain`: each matched query term's part of `doc`'s score, with what each field of
/// `document` (the `(field id, text)` pairs `doc` was built from) brought to its frequency.
pub(super) fn explain<'py>(
    py: Python<'py>,
    inner: &Index,
    query: &Bound<'py, PyAny>,
    doc: u32,
    document: &Bound<'py, PyAny>,
    prefix: RawOptions<'py>,
) -> PyResult<Vec<Explained>> {
    let query = extract_text(query, "query")?;
    let options = extract_options(py, None, None, None, prefix)?;
    let document = extract_document(doc as usize, document)?;
    let tokens = inner.query_terms(&query);
    let terms = inner
        .explain(&tokens, doc, &options)?
        .ok_or_else(|| PyIndexError::new_err(format!("document {doc} is out of range")))?;
    let matched: Vec<&str> = terms.iter().map(|t| t.matched.as_str()).collect();
    let fields = inner.field_parts(&document, &matched);
    Ok(terms
        .into_iter()
        .zip(fields)
        .map(|(t, fields)| {
            let (idf, tf, norm) = (t.idf, t.tf, t.norm);
            (
                t.term,
                t.matched,
                t.prefix,
                t.qtf,
                idf,
                tf,
                norm,
                t.contribution,
                fields,
            )
        })
        .collect())
}
