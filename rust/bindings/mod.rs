//! The only code that uses pyo3: converts Python data in, detaches from the interpreter for the
//! work, and converts plain results out.

mod errors;
mod index;
mod keyword;
mod scale;
mod text;

use pyo3::prelude::*;

/// Splits text into search terms exactly as the index does.
#[pyfunction]
fn tokenize(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let text = text::extract_text(text, "text")?;
    Ok(py.detach(|| crate::tokenize::tokenize(&text)))
}

/// Forces the exhaustive scoring path in every thread (`True`) or lets searches prune (`False`,
/// the default). For tests and benches: both paths return the same results.
#[pyfunction]
fn _set_exhaustive_scoring(exhaustive: bool) {
    crate::prune::set_exhaustive_scoring(exhaustive);
}

#[pymodule(gil_used = false)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<index::PyIndex>()?;
    m.add_class::<keyword::PyKeywordIndex>()?;
    m.add_function(wrap_pyfunction!(tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(_set_exhaustive_scoring, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
