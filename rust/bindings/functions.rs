//! The module-level functions of `toolsift._core`: `tokenize`, `analyze`, the scoring
//! switches for tests and benches, and `_untracked` (an index's tuple of tools out of the
//! cyclic collector's sight).

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

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
