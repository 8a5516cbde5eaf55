//! Python arguments to engine values, the leaf every binding file uses.
//!
//! Text extraction never fails on valid Python strings: a `str` may hold lone surrogates, which
//! UTF-8 cannot; they become U+FFFD, which the tokenizer treats as a separator, exactly as the
//! pure-Python tokenizer treats the surrogate itself.
//!
//! Options and limits have their checks and messages in `toolsift._options` alone: a value the
//! engine cannot take is handed to the check there ([`refused`]), which raises the caller's
//! error (or accepts it, when it only needs converting), so both engines raise the same errors.

use std::borrow::Cow;
use std::collections::HashSet;

use pyo3::conversion::FromPyObjectOwned;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyFloat, PyString, PyTuple};

use crate::build::check_weights;
use crate::index::bm25::Params;
use crate::search::SearchOptions;

/// `obj` as text (a `str`; anything else gets `toolsift._options.check_text`'s `TypeError`).
pub fn extract_text<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Cow<'static, str>> {
    let Ok(s) = obj.cast::<PyString>() else {
        return Err(refused(obj.py(), "check_text", (obj, what), what));
    };
    Ok(Cow::Owned(s.to_string_lossy().into_owned()))
}

/// The error for a value the engine refuses, as `toolsift._options.<check>(*args)` raises it:
/// each option's rule and message are written once, there, for both engines (the pure-Python
/// one calls the same functions), and the engine only asks on this error path. Should the check
/// accept the value, that is a bug between the two, reported as such rather than computed with.
pub(crate) fn refused<'py>(
    py: Python<'py>,
    check: &str,
    args: impl pyo3::call::PyCallArgs<'py>,
    what: &str,
) -> PyErr {
    let checked = py
        .import(intern!(py, "toolsift._options"))
        .and_then(|options| options.getattr(check))
        .and_then(|check| check.call1(args));
    match checked {
        Err(err) => err,
        Ok(_) => PyValueError::new_err(format!(
            "internal error: toolsift._options.{check} accepts a {what} that the engine refuses"
        )),
    }
}

/// `(k1, b, delta)` as the engine's BM25+ parameters, or `toolsift._options.check_bm25_params`'
/// error for them.
pub(crate) fn bm25_params(py: Python<'_>, (k1, b, delta): (f64, f64, f64)) -> PyResult<Params> {
    Params::validated(k1, b, delta)
        .map_err(|_| refused(py, "check_bm25_params", (k1, b, delta), "BM25 parameters"))
}

/// `Ok` if every field weight is one the engine takes, else
/// `toolsift._options.check_weight_list`'s error for them.
pub(crate) fn check_field_weights(py: Python<'_>, weights: &[f64]) -> PyResult<()> {
    check_weights(weights)
        .map_err(|_| refused(py, "check_weight_list", (weights,), "field weights"))
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

/// An optional argument as the caller passed it, or `Given::default()` when it was not (its
/// signature default): `None` passed is a value, which the option's check refuses.
#[derive(Default)]
pub(crate) struct Given<'py>(Option<Bound<'py, PyAny>>);

impl Given<'_> {
    /// The signature default of an optional argument.
    pub(crate) const NO: Self = Given(None);
}

impl<'a, 'py> FromPyObject<'a, 'py> for Given<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(Given(Some(obj.to_owned())))
    }
}

/// A search's numeric and flag options as the caller passed them.
#[derive(Default)]
pub(crate) struct RawOptions<'py> {
    pub prefix_fraction: Given<'py>,
    pub prefix_min_len: Given<'py>,
    pub max_expansions: Given<'py>,
    pub threshold: Given<'py>,
    pub relative_floor: Given<'py>,
    pub coverage: Given<'py>,
}

/// The search options of `search`, `search_many`, `score_documents` and `explain`.
///
/// Values the engine takes as they are (a float, an int within `usize`, a bool, each in the
/// range `SearchOptions::validate` requires) cost no call. Any other value goes to
/// `toolsift._options.SearchOptions`, the one definition of the options' checks and messages:
/// it raises the caller's error, or accepts the value as a checked one (an int past `usize` is
/// capped; a numpy float is a float), which the engine then takes.
pub(crate) fn extract_options<'py>(
    py: Python<'py>,
    exclude: Option<&Bound<'py, PyAny>>,
    include: Option<&Bound<'py, PyAny>>,
    required: Option<&Bound<'py, PyAny>>,
    raw: RawOptions<'py>,
) -> PyResult<SearchOptions> {
    let mut req = Vec::new();
    if let Some(required) = required {
        for item in required.try_iter()? {
            req.push(extract_text(&item?, "required term")?.into_owned());
        }
    }
    let mut options = SearchOptions {
        exclude: extract_id_set(exclude)?.unwrap_or_default(),
        include: extract_id_set(include)?,
        required: req,
        ..SearchOptions::default()
    };
    if set_numbers(&mut options, &raw).is_some() && options.validate().is_ok() {
        return Ok(options);
    }
    // Python's check raises the caller's error, or returns the values checked.
    let d = SearchOptions::default();
    let given = |value: Given<'py>, default: Bound<'py, PyAny>| value.0.unwrap_or(default);
    let args = (
        py.None(),
        py.None(),
        py.None(),
        given(
            raw.prefix_fraction,
            PyFloat::new(py, d.prefix.fraction).into_any(),
        ),
        given(
            raw.prefix_min_len,
            d.prefix.min_len.into_pyobject(py)?.into_any(),
        ),
        given(
            raw.max_expansions,
            d.prefix.max_expansions.into_pyobject(py)?.into_any(),
        ),
        given(raw.threshold, PyFloat::new(py, d.threshold).into_any()),
        given(
            raw.relative_floor,
            PyFloat::new(py, d.relative_floor).into_any(),
        ),
        given(
            raw.coverage,
            PyBool::new(py, d.coverage).to_owned().into_any(),
        ),
    );
    let checked = py
        .import(intern!(py, "toolsift._options"))?
        .getattr(intern!(py, "SearchOptions"))?
        .call1(args)?;
    let attr = |name: &str| checked.getattr(name).map(|v| Given(Some(v)));
    let raw = RawOptions {
        prefix_fraction: attr("prefix_fraction")?,
        prefix_min_len: attr("prefix_min_len")?,
        max_expansions: attr("max_expansions")?,
        threshold: attr("threshold")?,
        relative_floor: attr("relative_floor")?,
        coverage: attr("coverage")?,
    };
    if set_numbers(&mut options, &raw).is_none() || options.validate().is_err() {
        return Err(PyValueError::new_err(
            "internal error: toolsift._options accepts search options that the engine refuses",
        ));
    }
    Ok(options)
}

/// Sets `options`' numbers and flag from `raw` where each extracts as the engine's type.
fn set_numbers(options: &mut SearchOptions, raw: &RawOptions<'_>) -> Option<()> {
    fn get<'py, T: FromPyObjectOwned<'py>>(value: &Given<'py>, out: &mut T) -> Option<()> {
        if let Some(value) = &value.0 {
            *out = value.extract().ok()?;
        }
        Some(())
    }
    get(&raw.prefix_fraction, &mut options.prefix.fraction)?;
    get(&raw.prefix_min_len, &mut options.prefix.min_len)?;
    get(&raw.max_expansions, &mut options.prefix.max_expansions)?;
    get(&raw.threshold, &mut options.threshold)?;
    get(&raw.relative_floor, &mut options.relative_floor)?;
    // Only a bool is a flag (pyo3 takes numpy's bool too; `_options` does not).
    if let Some(coverage) = &raw.coverage.0 {
        options.coverage = coverage.cast::<PyBool>().ok()?.is_true();
    }
    Some(())
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

/// `limit` as the engine takes it: an int (not a bool) >= 1, a positive one past `usize`
/// asking for every match. Any other value gets `toolsift._options.check_limit`'s error.
pub(crate) fn extract_limit(limit: &Bound<'_, PyAny>) -> PyResult<usize> {
    if !limit.is_instance_of::<pyo3::types::PyBool>()
        && limit.is_instance_of::<pyo3::types::PyInt>()
    {
        match limit.extract::<i64>() {
            Ok(n) if n >= 1 => return Ok(usize::try_from(n).unwrap_or(usize::MAX)),
            // Past i64: a positive one asks for every match (the pure-Python engine takes any
            // int).
            Err(_) if limit.gt(0).unwrap_or(false) => return Ok(usize::MAX),
            _ => {}
        }
    }
    Err(refused(limit.py(), "check_limit", (limit,), "limit"))
}

/// `limit` (a `usize` the caller checked) if it is >= 1, else `toolsift._options.check_limit`'s
/// error for it.
pub(crate) fn checked_limit(py: Python<'_>, limit: usize) -> PyResult<usize> {
    if limit >= 1 {
        return Ok(limit);
    }
    Err(refused(py, "check_limit", (limit,), "limit"))
}
