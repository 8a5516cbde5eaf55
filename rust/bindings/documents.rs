//! Documents from Python into [`FlatChunk`]s, a chunk at a time, for the pipelined build.
//!
//! Two forms are read:
//! * **Columns** (what `toolsift._documents.documents` returns): an object whose
//!   `_toolsift_columns` attribute is `(texts, field_ids, ends)`: a `list` of `str`, `bytes` with
//!   one field id per text, and a `list` of `int`, the end of each document's texts. No tuple per
//!   field is made, converted or freed. An empty text holds no terms, so the columns may hold
//!   empty texts that the pairs leave out.
//! * **Parts** (what `toolsift._documents.documents` returns, until its documents are read in
//!   Python): the object's `_toolsift_parts()` returns an iterator of columns as above, each
//!   holding the next documents (its own `ends` start from 0), or `None` when only
//!   `_toolsift_columns` is to be read. Python makes each part as it is taken, so the pool
//!   tokenizes one part while the next is made (see `build_pipeline::build_pipelined`).
//! * **Pairs**: any iterable of documents, each an iterable of `(field id, text)` tuples, as
//!   `_core.Index` documents them. Columns that are not exactly as described are read this way,
//!   through the object's own iteration, so they can never be read differently; from a part
//!   that is not, the documents after those of the parts before it are.
//!
//! Texts are converted with Python's strict UTF-8 encoder and appended to the chunk's buffer;
//! a text with lone surrogates (which UTF-8 cannot hold) goes through `extract_text`, which
//! makes them U+FFFD, as before.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyIterator, PyList, PyString, PyTuple};

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

/// The columns of a columnar documents object, if it has well-formed ones.
struct Columns<'py> {
    texts: Bound<'py, PyList>,
    fields: Bound<'py, PyBytes>,
    ends: Vec<usize>,
}

impl<'py> Columns<'py> {
    fn of(documents: &Bound<'py, PyAny>) -> Option<Self> {
        let columns = documents
            .getattr(intern!(documents.py(), "_toolsift_columns"))
            .ok()?;
        Columns::from_tuple(&columns)
    }

    /// The columns in `columns`, if it is a well-formed `(texts, field_ids, ends)` tuple.
    fn from_tuple(columns: &Bound<'py, PyAny>) -> Option<Self> {
        let columns = columns.cast::<PyTuple>().ok()?;
        if columns.len() != 3 {
            return None;
        }
        let texts = columns.get_item(0).ok()?.cast_into::<PyList>().ok()?;
        let fields = columns.get_item(1).ok()?.cast_into::<PyBytes>().ok()?;
        let ends: Vec<usize> = columns.get_item(2).ok()?.extract().ok()?;
        let n = texts.len();
        let ordered = ends.windows(2).all(|w| w[0] <= w[1]);
        if fields.as_bytes().len() != n || !ordered || ends.last().is_some_and(|&e| e != n) {
            return None;
        }
        if ends.is_empty() && n != 0 {
            return None;
        }
        Some(Columns {
            texts,
            fields,
            ends,
        })
    }

    /// Appends the documents to `chunk`, calling `send` with it each time it holds `CHUNK_DOCS`
    /// documents; returns the document count.
    fn read(&self, chunk: &mut FlatChunk, send: &mut impl FnMut(FlatChunk)) -> PyResult<usize> {
        let fields = self.fields.as_bytes();
        let mut start = 0;
        for &end in &self.ends {
            for i in start..end {
                let text = self.texts.get_item(i)?;
                let field = usize::from(fields.get(i).copied().unwrap_or(0));
                let mut result = Ok(());
                chunk.push_field(field, |out| result = push_text(out, &text));
                result?;
            }
            start = end;
            chunk.end_document();
            if chunk.len() == CHUNK_DOCS {
                send(std::mem::take(chunk));
            }
        }
        Ok(self.ends.len())
    }
}

/// The iterator of column parts of `documents`, if it offers one (see the module docs).
fn parts<'py>(documents: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyIterator>>> {
    let Ok(method) = documents.getattr(intern!(documents.py(), "_toolsift_parts")) else {
        return Ok(None);
    };
    let parts = method.call0()?;
    if parts.is_none() {
        return Ok(None);
    }
    Ok(Some(parts.try_iter()?))
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

/// Reads `documents` (either form) and calls `send` with each chunk of up to `CHUNK_DOCS`
/// documents, in order; returns the number of documents.
pub fn read_documents(
    documents: &Bound<'_, PyAny>,
    mut send: impl FnMut(FlatChunk),
) -> PyResult<usize> {
    let mut chunk = FlatChunk::default();
    let mut n = 0;
    if let Some(parts) = parts(documents)? {
        for part in parts {
            match Columns::from_tuple(&part?) {
                Some(columns) => n += columns.read(&mut chunk, &mut send)?,
                None => return read_all_pairs(documents, n, chunk, send),
            }
        }
        if !chunk.is_empty() {
            send(chunk);
        }
        return Ok(n);
    }
    if let Some(columns) = Columns::of(documents) {
        n = columns.read(&mut chunk, &mut send)?;
        if !chunk.is_empty() {
            send(chunk);
        }
        return Ok(n);
    }
    read_all_pairs(documents, 0, chunk, send)
}

/// Reads the documents of `documents`' own iteration after the first `skip` (already in
/// `chunk` or sent) as pairs; returns the number of documents, skipped ones included.
fn read_all_pairs(
    documents: &Bound<'_, PyAny>,
    skip: usize,
    mut chunk: FlatChunk,
    mut send: impl FnMut(FlatChunk),
) -> PyResult<usize> {
    let mut n = skip;
    for (i, doc) in documents.try_iter()?.enumerate().skip(skip) {
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
