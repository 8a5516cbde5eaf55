//! Text extraction that never fails on valid Python strings: a `str` may hold lone surrogates,
//! which UTF-8 cannot; they become U+FFFD, which the tokenizer treats as a separator, exactly as
//! the pure-Python tokenizer treats the surrogate itself.

use std::borrow::Cow;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

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
