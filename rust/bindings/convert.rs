//! Text extraction that never fails on valid Python strings: a `str` may hold lone surrogates,
//! which UTF-8 cannot; they become U+FFFD, which the tokenizer treats as a separator, exactly as
//! the pure-Python tokenizer treats the surrogate itself.

use std::borrow::Cow;
use std::collections::HashSet;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString, PyTuple};

use crate::search::{PrefixOptions, SearchOptions};

pub fn extract_text<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Cow<'static, str>> {
    let s = obj.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!("{what} must be a str, got {}", type_name(obj)))
    })?;
    Ok(Cow::Owned(s.to_string_lossy().into_owned()))
}

pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

pub(crate) fn extract_documents(
    documents: &Bound<'_, PyAny>,
) -> PyResult<Vec<Vec<(usize, String)>>> {
    let mut out = Vec::new();
    for (i, doc) in documents.try_iter()?.enumerate() {
        out.push(extract_document(i, &doc?)?);
    }
    Ok(out)
}

/// Document `i`'s `(field id, text)` pairs.
pub(crate) fn extract_document(i: usize, doc: &Bound<'_, PyAny>) -> PyResult<Vec<(usize, String)>> {
    let mut fields = Vec::new();
    for_each_pair(i, doc, |id, text| {
        fields.push((id, extract_text(&text, "field text")?.into_owned()));
        Ok(())
    })?;
    Ok(fields)
}

/// Calls `f(field id, text)` for each `(field id, text)` pair of document `i`, with the checks
/// and messages that every reader of documents shares (the text is `f`'s to convert).
pub(crate) fn for_each_pair<'py>(
    i: usize,
    doc: &Bound<'py, PyAny>,
    mut f: impl FnMut(usize, Bound<'py, PyAny>) -> PyResult<()>,
) -> PyResult<()> {
    for field in doc.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "document {i} must be a sequence of (field, text) pairs"
        ))
    })? {
        let field = field?;
        let pair = field.cast::<PyTuple>().map_err(|_| {
            PyTypeError::new_err(format!(
                "document {i}: each field must be a (field id, text) tuple, got {}",
                type_name(&field)
            ))
        })?;
        if pair.len() != 2 {
            return Err(PyValueError::new_err(format!(
                "document {i}: each field must be a (field id, text) pair"
            )));
        }
        let id: usize = pair.get_item(0)?.extract().map_err(|_| {
            PyTypeError::new_err(format!("document {i}: field id must be a non-negative int"))
        })?;
        f(id, pair.get_item(1)?)?;
    }
    Ok(())
}

/// A set of document ids from any iterable of ints; `None` stays `None`.
pub(crate) fn extract_id_set(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<HashSet<u32>>> {
    let Some(obj) = obj else { return Ok(None) };
    let mut set = HashSet::new();
    for item in obj.try_iter()? {
        set.insert(item?.extract::<u32>()?);
    }
    Ok(Some(set))
}

/// The keyword-only search options shared by `search`, `search_many`, `score_documents` and
/// `explain`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn extract_options(
    exclude: Option<&Bound<'_, PyAny>>,
    include: Option<&Bound<'_, PyAny>>,
    required: Option<&Bound<'_, PyAny>>,
    prefix_fraction: f64,
    prefix_min_len: usize,
    max_expansions: usize,
    threshold: f64,
    relative_floor: f64,
    coverage: bool,
) -> PyResult<SearchOptions> {
    let mut req = Vec::new();
    if let Some(required) = required {
        for item in required.try_iter()? {
            req.push(extract_text(&item?, "required term")?.into_owned());
        }
    }
    let options = SearchOptions {
        exclude: extract_id_set(exclude)?.unwrap_or_default(),
        include: extract_id_set(include)?,
        required: req,
        prefix: PrefixOptions {
            fraction: prefix_fraction,
            min_len: prefix_min_len,
            max_expansions,
        },
        threshold,
        relative_floor,
        coverage,
    };
    options.validate()?;
    Ok(options)
}

/// A batch of queries: any iterable of `str` (a lone `str` is refused: it would be one query
/// per character).
pub(crate) fn extract_queries(queries: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if queries.is_instance_of::<pyo3::types::PyString>() {
        return Err(PyTypeError::new_err(
            "queries must be an iterable of str, not a single str",
        ));
    }
    queries
        .try_iter()?
        .map(|q| q.and_then(|q| extract_text(&q, "query").map(Cow::into_owned)))
        .collect()
}

/// Document ids to remove, from any iterable of ints.
pub(crate) fn extract_ids(ids: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<u32>> {
    let mut out = Vec::new();
    if let Some(ids) = ids {
        for item in ids.try_iter()? {
            out.push(item?.extract::<u32>()?);
        }
    }
    Ok(out)
}

/// `bytes`, `bytearray` or anything with the buffer protocol (`memoryview`, `mmap`).
pub(crate) fn extract_bytes(data: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = data.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    let bytes = data
        .call_method0("__bytes__")
        .or_else(|_| {
            data.py()
                .import("builtins")?
                .getattr("bytes")?
                .call1((data,))
        })
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "snapshot data must be bytes-like, got {}",
                type_name(data)
            ))
        })?;
    Ok(bytes.cast::<PyBytes>()?.as_bytes().to_vec())
}

/// `limit` must be an int (not a bool) >= 1; the message is the same as the pure-Python engine's.
pub(crate) fn extract_limit(limit: &Bound<'_, PyAny>) -> PyResult<usize> {
    let bad = || -> PyErr {
        super::errors::LimitError::new_err(format!(
            "Limit must be a positive integer, got {}.",
            limit
                .repr()
                .map(|r| r.to_string())
                .unwrap_or_else(|_| "?".into())
        ))
    };
    if limit.is_instance_of::<pyo3::types::PyBool>()
        || !limit.is_instance_of::<pyo3::types::PyInt>()
    {
        return Err(bad());
    }
    match limit.extract::<i64>() {
        Ok(n) if n >= 1 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
        Ok(_) => Err(bad()),
        // Past i64: a positive one asks for every match, as `usize::MAX` does (the pure-Python
        // engine takes any int).
        Err(_) if limit.gt(0).unwrap_or(false) => Ok(usize::MAX),
        Err(_) => Err(bad()),
    }
}
