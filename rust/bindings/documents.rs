//! Documents from Python into [`FlatChunk`]s, a chunk at a time, for the pipelined build of
//! `_core.Index(names, documents, ...)`: any iterable of documents, each an iterable of
//! `(field id, text)` tuples. (`ToolIndex` does not build through here: the engine reads its
//! tools itself, `super::tools`.)
//!
//! Texts are converted with Python's strict UTF-8 encoder and appended to the chunk's buffer;
//! a text with lone surrogates (which UTF-8 cannot hold) goes through `extract_text`, which
//! makes them U+FFFD, as before.

use pyo3::prelude::*;
use pyo3::types::PyString;

use super::convert::extract_text;
use crate::build::{FlatChunk, CHUNK_DOCS};

/// Appends `text` to `out`: the strict encoder's bytes when it has them, else `extract_text`'s
/// lossy conversion (a `str` with lone surrogates); a non-`str` is the same `TypeError` as ever.
fn push_text(out: &mut String, text: &Bound<'_, PyAny>) -> PyResult<()> {
    if let Ok(s) = text.cast::<PyString>() {
        if let Ok(bytes) = s.encode_utf8() {
            if let Ok(utf8) = std::str::from_utf8(bytes.as_bytes()) {
                out.push_str(utf8);
                return Ok(());
            }
        }
    }
    out.push_str(&extract_text(text, "field text")?);
    Ok(())
}

/// An owned copy of a `str` (document names): [`push_text`]'s conversion, `what` naming it in
/// the `TypeError` for anything else.
pub fn extract_owned_text(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    if let Ok(s) = obj.cast::<PyString>() {
        if let Ok(bytes) = s.encode_utf8() {
            if let Ok(utf8) = std::str::from_utf8(bytes.as_bytes()) {
                return Ok(utf8.to_owned());
            }
        }
    }
    Ok(extract_text(obj, what)?.into_owned())
}

/// Document `i`'s `(field id, text)` pairs, appended to `chunk` (the checks and messages of
/// `index::for_each_pair`).
fn read_pairs(i: usize, doc: &Bound<'_, PyAny>, chunk: &mut FlatChunk) -> PyResult<()> {
    super::convert::for_each_pair(i, doc, |id, text| {
        let mut result = Ok(());
        chunk.push_field(id, |out| result = push_text(out, &text));
        result
    })?;
    chunk.end_document();
    Ok(())
}

/// Reads `documents` and calls `send` with each chunk of up to `CHUNK_DOCS` documents, in
/// order; returns the number of documents.
pub fn read_documents(
    documents: &Bound<'_, PyAny>,
    mut send: impl FnMut(FlatChunk),
) -> PyResult<usize> {
    let mut chunk = FlatChunk::default();
    let mut n = 0;
    for (i, doc) in documents.try_iter()?.enumerate() {
        read_pairs(i, &doc?, &mut chunk)?;
        n += 1;
        if chunk.len() == CHUNK_DOCS {
            send(std::mem::take(&mut chunk));
        }
    }
    if !chunk.is_empty() {
        send(chunk);
    }
    Ok(n)
}
