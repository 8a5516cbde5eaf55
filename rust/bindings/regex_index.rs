//! `toolsift._core.RegexIndex`: the regex ranker's index as a frozen Python class.

use std::collections::HashSet;

use pyo3::prelude::*;

use super::convert::extract_limit;
use super::convert::extract_text;
use crate::search::regex::{RegexIndex, RegexOptions};

#[pyclass(name = "RegexIndex", module = "toolsift._core", frozen)]
pub struct PyRegexIndex {
    inner: RegexIndex,
}

fn texts(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    obj.try_iter()?
        .map(|t| t.and_then(|t| extract_text(&t, what).map(|s| s.into_owned())))
        .collect()
}

fn text_lists(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Vec<String>>> {
    obj.try_iter()?
        .map(|p| p.and_then(|p| texts(&p, what)))
        .collect()
}

#[pymethods]
impl PyRegexIndex {
    #[new]
    fn new(
        py: Python<'_>,
        names: &Bound<'_, PyAny>,
        descriptions: &Bound<'_, PyAny>,
        parameter_names: &Bound<'_, PyAny>,
        parameter_descriptions: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let names = texts(names, "name")?;
        let descriptions = texts(descriptions, "description")?;
        let parameter_names = text_lists(parameter_names, "parameter name")?;
        let parameter_descriptions = text_lists(parameter_descriptions, "parameter description")?;
        let inner = py.detach(|| {
            RegexIndex::build(
                names,
                &descriptions,
                &parameter_names,
                &parameter_descriptions,
            )
        })?;
        Ok(PyRegexIndex { inner })
    }

    #[pyo3(signature = (pattern, limit, exclude = None, *, include = None))]
    fn search(
        &self,
        py: Python<'_>,
        pattern: &Bound<'_, PyAny>,
        limit: &Bound<'_, PyAny>,
        exclude: Option<Vec<u32>>,
        include: Option<Vec<u32>>,
    ) -> PyResult<Vec<(u32, f64)>> {
        let pattern = extract_text(pattern, "pattern")?;
        let limit = extract_limit(limit)?;
        let options = RegexOptions {
            exclude: exclude.unwrap_or_default().into_iter().collect(),
            include: include.map(|v| v.into_iter().collect::<HashSet<u32>>()),
        };
        let inner = &self.inner;
        Ok(py.detach(|| inner.search(&pattern, limit, &options))?)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __repr__(&self) -> String {
        format!("<toolsift._core.RegexIndex documents={}>", self.inner.len())
    }
}
