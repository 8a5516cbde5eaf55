//! The module-level functions of `toolsift._core`: `tokenize`, `analyze`, the scoring
//! switches for tests and benches, `_untracked` (an index's tuple of tools out of the cyclic
//! collector's sight) and `_composed_ids` (a name table's id translations composed).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use super::convert::extract_text;

/// Splits text into search terms exactly as the index does.
#[pyfunction]
pub(crate) fn tokenize(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let text = extract_text(text, "text")?;
    Ok(py.detach(|| crate::text::tokenize::tokenize(&text)))
}

/// The terms an index with `profile` makes of `text`: its query terms (`query=True`), or its
/// document terms, each plain term followed by its stemmed copy where the profile makes one.
#[pyfunction]
#[pyo3(signature = (text, *, profile = "english", query = false))]
pub(crate) fn analyze(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    profile: &str,
    query: bool,
) -> PyResult<Vec<String>> {
    let text = extract_text(text, "text")?;
    let profile = crate::analysis::Profile::parse(profile)?;
    Ok(py.detach(|| {
        if query {
            return profile.query_terms(&text);
        }
        let mut out = Vec::new();
        let mut tokenizer = crate::text::tokenize::Tokenizer::new();
        profile.for_each_term(&mut tokenizer, &text, |t| {
            out.push(t.to_owned());
            if profile.stems() {
                out.push(crate::analysis::stem_copy(t));
            }
        });
        out
    }))
}

/// Sets the scoring path of every thread: "auto" (the default), "exhaustive" or "pruned".
/// For tests and benches: every path returns the same results.
#[pyfunction]
pub(crate) fn _set_scoring_mode(mode: &str) -> PyResult<()> {
    use crate::search::prune::ScoringMode;
    let mode = match mode {
        "auto" => ScoringMode::Auto,
        "exhaustive" => ScoringMode::Exhaustive,
        "pruned" => ScoringMode::Pruned,
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "scoring mode must be 'auto', 'exhaustive' or 'pruned', got {mode:?}"
            )))
        }
    };
    crate::search::prune::set_scoring_mode(mode);
    Ok(())
}

/// Forces every pruned search to be cut into `parts` document ranges searched in parallel
/// (0: chosen by size, the default). For tests and benches: every choice returns the same
/// results.
#[pyfunction]
pub(crate) fn _set_search_parts(parts: usize) {
    crate::search::prune::set_search_parts(parts);
}

/// Whether a live update's engine work runs in its own pool of half the threads (`True`, the
/// default: the searches that overlap it keep a core) or in the pool of searches and builds on
/// every thread (`False`). For benches: the results are the same either way.
#[pyfunction]
pub(crate) fn _set_updates_apart(apart: bool) {
    crate::pool::set_updates_apart(apart);
}

/// The nice value of the threads of live updates (clamped to 0..=19; the default 10, or
/// `TOOLSIFT_UPDATE_NICE`), and whether a large index is freed on them (`release_apart`, the
/// default) or on the thread that drops it. For benches: the results are the same either way.
#[pyfunction]
#[pyo3(signature = (*, nice = None, release_apart = None))]
pub(crate) fn _set_update_tuning(nice: Option<i32>, release_apart: Option<bool>) -> i32 {
    if let Some(nice) = nice {
        crate::pool::set_update_nice(nice);
    }
    if let Some(apart) = release_apart {
        crate::pool::set_release_apart(apart);
    }
    crate::pool::update_nice()
}

/// `tools` (a tuple), no longer tracked by Python's cyclic garbage collector: an index's tuple
/// of tools (100,000 references at the largest sizes) is then never traversed by a collection.
/// A new update's tuple is a young container, and the next young-generation pass would visit
/// each of its items (10 to 50 ms at 100,000 tools, all with the GIL held: the worst search
/// while a catalogue updates). The tuple holds its tools as before; only a reference cycle
/// through it (a tool whose fields reach the index) could no longer be collected.
#[pyfunction(name = "_untracked")]
pub(crate) fn untracked(tools: Bound<'_, PyTuple>) -> PyResult<Bound<'_, PyTuple>> {
    if !tools.is_exact_instance_of::<PyTuple>() {
        return Err(PyTypeError::new_err(format!(
            "_untracked takes a tuple, got {}",
            tools.get_type().name()?
        )));
    }
    // SAFETY: a live tuple (the GIL is held); untracking only takes it off the collector's
    // lists (a no-op for one that is not tracked), and a tuple is freed the same either way.
    unsafe { ffi::PyObject_GC_UnTrack(tools.as_ptr().cast()) };
    Ok(tools)
}

/// Two id translations composed, as native-endian 64-bit integers (an `array("q")`'s bytes):
/// for each id of `ids`, `through[id]`, and -1 for a -1 (a removed tool stays removed). What a
/// name table's remap does per catalogue update, over every tool of the table (100,000 ids at
/// the largest sizes): one pass here instead of a Python call per id with the GIL held.
///
/// Errors: `ValueError` for a length that is not a whole number of ids, an id below -1, or one
/// past the end of `through`.
#[pyfunction(name = "_composed_ids")]
pub(crate) fn composed_ids<'py>(
    py: Python<'py>,
    through: &[u8],
    ids: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    const WIDTH: usize = std::mem::size_of::<i64>();
    if through.len() % WIDTH != 0 || ids.len() % WIDTH != 0 {
        return Err(PyValueError::new_err(
            "_composed_ids takes the bytes of whole 64-bit ids",
        ));
    }
    let read =
        |bytes: &[u8]| -> i64 { i64::from_ne_bytes(bytes.try_into().expect("a WIDTH-byte chunk")) };
    let n = through.len() / WIDTH;
    let mut out = Vec::with_capacity(ids.len());
    for chunk in ids.chunks_exact(WIDTH) {
        let id = read(chunk);
        let new = match usize::try_from(id) {
            Ok(i) if i < n => read(&through[i * WIDTH..(i + 1) * WIDTH]),
            _ if id == -1 => -1,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "_composed_ids: id {id} is outside 0..{n} and not -1"
                )))
            }
        };
        out.extend_from_slice(&new.to_ne_bytes());
    }
    Ok(PyBytes::new(py, &out))
}
