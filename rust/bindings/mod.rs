//! The only code that uses pyo3: converts Python data in, detaches from the interpreter for the
//! work, and converts plain results out.

mod dense;
mod documents;
mod errors;
mod index;
mod keyword;
mod matches;
mod names;
mod plain;
mod regex;
mod scale;
mod text;

use pyo3::prelude::*;

/// Splits text into search terms exactly as the index does.
#[pyfunction]
fn tokenize(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let text = text::extract_text(text, "text")?;
    Ok(py.detach(|| crate::tokenize::tokenize(&text)))
}

/// The terms an index with `profile` makes of `text`: its query terms (`query=True`), or its
/// document terms, each plain term followed by its stemmed copy where the profile makes one.
#[pyfunction]
#[pyo3(signature = (text, *, profile = "english", query = false))]
fn analyze(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    profile: &str,
    query: bool,
) -> PyResult<Vec<String>> {
    let text = text::extract_text(text, "text")?;
    let profile = crate::analysis::Profile::parse(profile)?;
    Ok(py.detach(|| {
        if query {
            return profile.query_terms(&text);
        }
        let mut out = Vec::new();
        let mut tokenizer = crate::tokenize::Tokenizer::new();
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
fn _set_scoring_mode(mode: &str) -> PyResult<()> {
    use crate::prune::ScoringMode;
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
    crate::prune::set_scoring_mode(mode);
    Ok(())
}

/// Forces every pruned search to be cut into `parts` document ranges searched in parallel
/// (0: chosen by size, the default). For tests and benches: every choice returns the same
/// results.
#[pyfunction]
fn _set_search_parts(parts: usize) {
    crate::prune::set_search_parts(parts);
}

#[pymodule(gil_used = false)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<index::PyIndex>()?;
    m.add_class::<keyword::PyKeywordIndex>()?;
    m.add_class::<regex::PyRegexIndex>()?;
    m.add_class::<names::PyNameKeys>()?;
    m.add_class::<dense::PyDenseMatrix>()?;
    m.add_function(wrap_pyfunction!(tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add(
        "STOPWORDS_EN",
        crate::analysis::stopwords().collect::<Vec<_>>(),
    )?;
    m.add_function(wrap_pyfunction!(_set_scoring_mode, m)?)?;
    m.add_function(wrap_pyfunction!(_set_search_parts, m)?)?;
    m.add_function(wrap_pyfunction!(matches::new_matches, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
