//! The pipelined build of `Index(...)`: the documents are read from Python in parts on this
//! thread while the pool tokenizes the parts already read, and the chunks are merged in order.

use std::sync::{mpsc, Arc};

use pyo3::prelude::*;

use super::convert::{bm25_params, check_field_weights};
use crate::build::{
    check_weights, tokenize_chunk_with, Chunk, FlatChunk, Merge, Reorder, Stems, CHUNK_DOCS,
};
use crate::index::Index;

/// Returns the allocator's free memory to the OS after a build, load or update (glibc only),
/// so that the process's RSS grows by about the index's size, not by the build's scratch.
pub fn release_free_memory() {
    crate::alloc::release_cached();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free pages; it is safe to call at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The tokenized chunks of a pipelined build, merged in document order as they come in.
#[derive(Default)]
struct Merging {
    /// Chunks in, not merged yet (a chunk waits for every chunk before it).
    order: Reorder<crate::error::Result<Chunk>>,
    received: usize,
    merge: Merge,
    failed: Option<crate::error::Error>,
}

impl Merging {
    /// Chunk `c` is tokenized: merges it and every chunk after it that is in.
    fn put(&mut self, c: usize, out: crate::error::Result<Chunk>) {
        self.received += 1;
        self.order.put(c, out);
        while let Some(out) = self.order.pop() {
            match out {
                Ok(chunk) if self.failed.is_none() => self.merge.add(chunk),
                Ok(_) => {}
                Err(e) => {
                    self.failed.get_or_insert(e);
                }
            }
        }
    }

    /// The merge of `expected` chunks, and the first error in document order (a chunk that
    /// never came is one).
    fn finish(mut self, expected: usize) -> (Merge, Option<crate::error::Error>) {
        if self.order.handed_out() < expected {
            self.failed
                .get_or_insert(crate::error::Error::InvalidDocument(
                    "a document chunk was lost while tokenizing".into(),
                ));
        }
        (self.merge, self.failed)
    }
}

/// A bound on the chunks converted but not yet tokenized (a counting semaphore).
struct InFlight {
    count: std::sync::Mutex<usize>,
    freed: std::sync::Condvar,
    limit: usize,
}

impl InFlight {
    fn new(limit: usize) -> Self {
        InFlight {
            count: std::sync::Mutex::new(0),
            freed: std::sync::Condvar::new(),
            limit: limit.max(1),
        }
    }

    /// Waits until fewer than `limit` chunks are in flight, then counts one more until the
    /// permit is dropped (also when a task unwinds, so the reader can never wait forever).
    fn acquire(this: &Arc<InFlight>) -> Permit {
        let mut count = this.count.lock().unwrap_or_else(|e| e.into_inner());
        while *count >= this.limit {
            count = this.freed.wait(count).unwrap_or_else(|e| e.into_inner());
        }
        *count += 1;
        Permit(Arc::clone(this))
    }
}

/// One chunk in flight (see [`InFlight`]).
struct Permit(Arc<InFlight>);

impl Drop for Permit {
    fn drop(&mut self) {
        let mut count = self.0.count.lock().unwrap_or_else(|e| e.into_inner());
        *count = count.saturating_sub(1);
        self.0.freed.notify_one();
    }
}

/// Builds an index while the documents are still being converted: every `CHUNK_DOCS` documents
/// taken from Python (which needs the GIL) go to the process's pool (`crate::pool`) to be
/// tokenized (which does not), so conversion and tokenizing overlap and a chunk's strings are
/// freed once it is tokenized.
/// The merge runs with the GIL released, each chunk as soon as the chunks before it are in.
/// Errors come in the order of the sequential path: conversion errors, then parameters, then
/// document errors in document order.
pub fn build_pipelined(
    py: Python<'_>,
    names: Vec<String>,
    documents: &Bound<'_, PyAny>,
    field_weights: Vec<f64>,
    params: (f64, f64, f64),
    profile: crate::analysis::Profile,
) -> PyResult<Index> {
    build_pipelined_with(
        py,
        |send| {
            Ok((
                super::documents::read_documents(documents, send)?,
                names,
                (),
            ))
        },
        field_weights,
        params,
        profile,
        |()| (),
    )
    .map(|(index, ())| index)
}

/// [`build_pipelined`] of the documents that `read` converts (with the GIL) and hands to its
/// argument a chunk at a time; `read` returns the number of documents, their names and what
/// `alongside` takes, which runs on the pool beside the merge's last step (the parts the
/// caller derives from the documents, made where a core would otherwise wait for the last
/// postings, as `crate::build::catalog::build_with` does). `alongside` runs only when the index
/// is built.
pub fn build_pipelined_with<T: Send, R: Send>(
    py: Python<'_>,
    read: impl FnOnce(&mut dyn FnMut(FlatChunk)) -> PyResult<(usize, Vec<String>, T)>,
    field_weights: Vec<f64>,
    (k1, b, delta): (f64, f64, f64),
    profile: crate::analysis::Profile,
    alongside: impl FnOnce(T) -> R + Send,
) -> PyResult<(Index, R)> {
    let weights = Arc::new(field_weights);
    // Bad weights fail below, after conversion; don't tokenize with them meanwhile.
    let tokenize = check_weights(&weights).is_ok();
    let stems = Arc::new(Stems::default());
    let (tx, rx) = mpsc::channel::<(usize, crate::error::Result<Chunk>)>();
    // Behind a mutex only to be shared with the GIL-free waits below (a `Receiver` is not `Sync`).
    let rx = std::sync::Mutex::new(rx);
    let mut merging = Merging::default();
    let mut spawned = 0usize;
    // Conversion outruns tokenizing: without a bound, most of the catalogue's text would wait
    // converted at once (~400 MB at 1M english tools: a fifth of the build's peak memory).
    // While the reader waits for a chunk's text to be freed, it merges the chunks tokenized so
    // far, which it would otherwise do only once every document is read.
    let in_flight = Arc::new(InFlight::new(4 * crate::pool::threads()));
    let mut send = |chunk: FlatChunk| {
        if tokenize {
            let permit = py.detach(|| {
                let rx = rx.lock().unwrap_or_else(|e| e.into_inner());
                while let Ok((c, out)) = rx.try_recv() {
                    merging.put(c, out);
                }
                InFlight::acquire(&in_flight)
            });
            let (tx, weights, stems) = (tx.clone(), Arc::clone(&weights), Arc::clone(&stems));
            let c = spawned;
            crate::pool::spawn(move || {
                let docs = chunk.documents();
                let out = tokenize_chunk_with(c * CHUNK_DOCS, &docs, &weights, profile, &stems);
                drop(docs);
                drop(chunk);
                drop(permit); // the text is freed: the next chunk may be converted
                              // The receiver outlives every task (it drains the channel); ignore a closed one.
                let _ = tx.send((c, out));
            });
        }
        spawned += 1;
    };
    let converted = read(&mut send);
    let n_docs = converted.as_ref().map_or(0, |(n, _, _)| *n);
    drop(tx);
    let expected = if tokenize { spawned } else { 0 };
    // Wait for the tasks (GIL released) even on error, so none outlives this call's data.
    // Each chunk is merged as soon as it and every chunk before it are in, while later chunks
    // are still being tokenized; the first failed or missing chunk in document order stops the
    // merge and is the error reported (after the conversion and parameter errors).
    let (merge, failed) = py.detach(move || {
        let rx = rx.into_inner().unwrap_or_else(|e| e.into_inner());
        for (c, out) in rx.iter().take(expected.saturating_sub(merging.received)) {
            merging.put(c, out);
        }
        merging.finish(expected)
    });
    // Every task is done: free the shared stemmed copies before the heap is trimmed below.
    drop(stems);
    let (_, names, extra) = converted?;
    if names.len() != n_docs {
        return Err(crate::error::Error::InvalidDocument(format!(
            "got {} names for {n_docs} documents",
            names.len()
        ))
        .into());
    }
    let weights = Arc::try_unwrap(weights).unwrap_or_else(|w| (*w).clone());
    check_field_weights(py, &weights)?;
    let params = bm25_params(py, (k1, b, delta))?;
    py.detach(|| {
        if let Some(e) = failed {
            return Err(e);
        }
        let (index, extra) = crate::pool::install(|| {
            rayon::join(
                || merge.finish(names, weights, params, profile),
                || alongside(extra),
            )
        });
        release_free_memory();
        Ok((index?, extra))
    })
    .map_err(PyErr::from)
}
