//! `toolsift._core.KeywordIndex`: `ToolSearch`'s keyword scorer as a frozen Python class.

use std::collections::HashSet;

use pyo3::prelude::*;

use super::convert::extract_limit;
use super::convert::extract_text;
use crate::search::keyword::{KeywordIndex, KeywordOptions};

#[pyclass(name = "KeywordIndex", module = "toolsift._core", frozen)]
pub struct PyKeywordIndex {
    inner: KeywordIndex,
}

fn texts(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    obj.try_iter()?
        .map(|t| t.and_then(|t| extract_text(&t, what).map(|s| s.into_owned())))
        .collect()
}

#[pymethods]
impl PyKeywordIndex {
    #[new]
    fn new(
        py: Python<'_>,
        names: &Bound<'_, PyAny>,
        parts: &Bound<'_, PyAny>,
        mcp: Vec<bool>,
        hints: &Bound<'_, PyAny>,
        descriptions: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let names = texts(names, "name")?;
        let parts: Vec<Vec<String>> = parts
            .try_iter()?
            .map(|p| p.and_then(|p| texts(&p, "name part")))
            .collect::<PyResult<_>>()?;
        let hints = texts(hints, "search hint")?;
        let descriptions = texts(descriptions, "description")?;
        let inner = py.detach(|| KeywordIndex::build(names, &parts, mcp, &hints, &descriptions))?;
        Ok(PyKeywordIndex { inner })
    }

    #[pyo3(signature = (query, limit, exclude = None, *, include = None, required = None))]
    fn search(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
        limit: &Bound<'_, PyAny>,
        exclude: Option<Vec<u32>>,
        include: Option<Vec<u32>>,
        required: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<(u32, f64)>> {
        let query = extract_text(query, "query")?;
        let limit = extract_limit(limit)?;
        let options = KeywordOptions {
            exclude: exclude.unwrap_or_default().into_iter().collect(),
            include: include.map(|v| v.into_iter().collect::<HashSet<u32>>()),
            required: match required {
                Some(r) => texts(r, "required term")?,
                None => Vec::new(),
            },
        };
        let inner = &self.inner;
        Ok(py.detach(|| inner.search(&query, limit, &options))?)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<toolsift._core.KeywordIndex documents={}>",
            self.inner.len()
        )
    }
}
