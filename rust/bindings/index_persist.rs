//! The snapshot and update methods of `toolsift._core.Index` (`index::PyIndex`), as the plain
//! functions its one `#[pymethods]` block calls: the index to bytes or a file and back
//! (`crate::snapshot`, with the GIL released), and the copy-on-write update (`crate::update`).
//! They take and return the engine's `Index`; `index` wraps it in the Python class.

use std::path::Path;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::build_pipeline;
use super::convert::{extract_bytes, extract_documents, extract_ids, extract_text};
use crate::index::Index;

/// The snapshot bytes of `inner`, with `metadata` in its metadata section.
pub(super) fn to_bytes<'py>(
    py: Python<'py>,
    inner: &Index,
    metadata: Option<&[u8]>,
) -> Bound<'py, PyBytes> {
    let bytes = py.detach(|| crate::pool::install(|| inner.to_bytes(metadata.unwrap_or_default())));
    PyBytes::new(py, &bytes)
}

/// `wrap(index, metadata)` of the index that `data` (bytes-like) holds.
pub(super) fn from_bytes<R>(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    wrap: impl FnOnce(Index, &[u8]) -> PyResult<R>,
) -> PyResult<R> {
    // Borrow bytes (immutable, kept alive by the caller) instead of copying them.
    if let Ok(b) = data.cast::<PyBytes>() {
        let bytes = b.as_bytes();
        let (inner, meta) =
            py.detach(|| crate::pool::install(|| Index::from_bytes_borrowed(bytes)))?;
        return wrap(inner, meta);
    }
    let data = extract_bytes(data)?;
    let (inner, meta) = py.detach(|| crate::pool::install(|| Index::from_bytes_borrowed(&data)))?;
    wrap(inner, meta)
}

/// Writes `inner`'s snapshot to `path` atomically.
pub(super) fn save(
    py: Python<'_>,
    inner: &Index,
    path: &Path,
    metadata: Option<&[u8]>,
) -> PyResult<()> {
    let meta = metadata.unwrap_or_default();
    py.detach(|| {
        crate::snapshot::write_atomic(path, &crate::pool::install(|| inner.to_bytes(meta)))
    })?;
    Ok(())
}

/// `wrap(index, metadata)` of the index that the file at `path` holds.
pub(super) fn load<R>(
    py: Python<'_>,
    path: &Path,
    wrap: impl FnOnce(Index, &[u8]) -> PyResult<R>,
) -> PyResult<R> {
    let (inner, data, start, len) = py.detach(|| -> PyResult<_> {
        let data = std::fs::read(path)?;
        let (inner, meta) = crate::pool::install(|| Index::from_bytes_borrowed(&data))?;
        // Where the metadata sits in `data`, so it is copied once, into Python bytes.
        let start = meta.as_ptr() as usize - data.as_ptr() as usize;
        let len = meta.len();
        Ok((inner, data, start, len))
    })?;
    wrap(inner, &data[start..start + len])
}

/// `inner` with the documents `remove` (ids) removed and `names` / `documents` added.
pub(super) fn updated(
    py: Python<'_>,
    inner: &Index,
    names: Option<&Bound<'_, PyAny>>,
    documents: Option<&Bound<'_, PyAny>>,
    remove: Option<&Bound<'_, PyAny>>,
) -> PyResult<Index> {
    let names: Vec<String> = match names {
        Some(names) => names
            .try_iter()?
            .map(|n| n.and_then(|n| extract_text(&n, "name").map(|s| s.into_owned())))
            .collect::<PyResult<_>>()?,
        None => Vec::new(),
    };
    let documents = match documents {
        Some(docs) => extract_documents(docs)?,
        None => Vec::new(),
    };
    let remove = extract_ids(remove)?;
    // An update that tokenizes a few documents frees little scratch; trimming the heap after it
    // would only hand back pages that the next update faults in again (a session updates its
    // index at every activation).
    let trim = documents.len() >= crate::build::CHUNK_DOCS;
    let index = py.detach(|| {
        let index = crate::pool::install_update(|| inner.updated(&remove, names, &documents));
        drop(documents);
        if trim {
            build_pipeline::release_free_memory();
        }
        index
    })?;
    Ok(index)
}
