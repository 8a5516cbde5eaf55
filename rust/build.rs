//! Parallel index build: documents are tokenized in chunks on all cores, then the chunks' term
//! dictionaries are merged in chunk order.
//!
//! The result is the index [`Index::build`] makes, field for field: a chunk numbers its terms in
//! first-seen order, so visiting the chunks in document order and each chunk's terms in its own
//! order assigns global term ids in global first-seen order; postings are scattered chunk by
//! chunk, so documents stay ascending within a term; lengths and term frequencies are summed
//! token by token in the same order as the sequential build.
//!
//! [`assemble`] derives everything that follows from the stored columns (term map, IDF, average
//! length, norms); snapshots and live updates use it too, so a loaded or updated
//! index computes those numbers with exactly the operations a fresh build does.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::bm25::{self, Params};
use crate::error::{Error, Result};
use crate::index::{Index, TermMap};
use crate::tokenize::for_each_token;

/// Documents per parallel task: big enough to amortise a chunk's dictionary, small enough to
/// balance two to sixty-four cores.
pub(crate) const CHUNK_DOCS: usize = 2048;

/// One chunk's tokenized documents, with chunk-local term ids in first-seen order.
pub(crate) struct Chunk {
    pub(crate) terms: Vec<Box<str>>,
    pub(crate) df: Vec<u32>,
    /// `(local term, doc offset within the chunk, tf)` in document order.
    pub(crate) entries: Vec<(u32, u32, f32)>,
    pub(crate) lengths: Vec<f64>,
}

/// Checks field weights as [`Index::build`] does.
pub(crate) fn check_weights(field_weights: &[f64]) -> Result<()> {
    for (f, w) in field_weights.iter().enumerate() {
        if !(w.is_finite() && *w >= 0.0) {
            return Err(Error::InvalidParameter(
                "field weight",
                format!("field {f} has weight {w}; weights must be finite and >= 0"),
            ));
        }
    }
    Ok(())
}

/// Tokenizes `documents` (the first has id `first_doc`, for error messages).
pub(crate) fn tokenize_chunk<S: AsRef<str>>(
    first_doc: usize,
    documents: &[Vec<(usize, S)>],
    field_weights: &[f64],
) -> Result<Chunk> {
    let mut ids: HashMap<Box<str>, u32, ahash::RandomState> = HashMap::default();
    let mut chunk = Chunk {
        terms: Vec::new(),
        df: Vec::new(),
        entries: Vec::new(),
        lengths: Vec::with_capacity(documents.len()),
    };
    // Dense per-document term frequencies by local id, and the ids touched in first-seen order.
    let mut tf: Vec<f64> = Vec::new();
    let mut order: Vec<u32> = Vec::new();
    for (offset, fields) in documents.iter().enumerate() {
        let mut length = 0.0f64;
        for (field, text) in fields {
            let weight = *field_weights.get(*field).ok_or_else(|| {
                Error::InvalidDocument(format!(
                    "document {} uses field {field}, but only {} field weights were given",
                    first_doc + offset,
                    field_weights.len()
                ))
            })?;
            if weight == 0.0 {
                continue;
            }
            for_each_token(text.as_ref(), |tok| {
                let id = match ids.get(tok) {
                    Some(&id) => id,
                    None => {
                        let id = chunk.terms.len() as u32;
                        chunk.terms.push(tok.into());
                        ids.insert(tok.into(), id);
                        chunk.df.push(0);
                        tf.push(0.0);
                        id
                    }
                };
                let slot = &mut tf[id as usize];
                if *slot == 0.0 {
                    order.push(id);
                }
                *slot += weight;
                length += weight;
            });
        }
        for &id in &order {
            let slot = &mut tf[id as usize];
            chunk.df[id as usize] += 1;
            chunk.entries.push((id, offset as u32, *slot as f32));
            *slot = 0.0;
        }
        order.clear();
        chunk.lengths.push(length);
    }
    Ok(chunk)
}

impl Index {
    /// [`Index::build`] on all cores (rayon's global pool); the resulting index is identical.
    pub fn build_parallel<S: AsRef<str> + Sync>(
        names: Vec<String>,
        documents: &[Vec<(usize, S)>],
        field_weights: Vec<f64>,
        params: Params,
    ) -> Result<Index> {
        if names.len() != documents.len() {
            return Err(Error::InvalidDocument(format!(
                "got {} names for {} documents",
                names.len(),
                documents.len()
            )));
        }
        if documents.len() > u32::MAX as usize {
            return Err(Error::InvalidDocument(
                "too many documents (at most 2^32 - 1)".into(),
            ));
        }
        check_weights(&field_weights)?;
        let chunks: Vec<Chunk> = documents
            .par_chunks(CHUNK_DOCS)
            .enumerate()
            .map(|(c, docs)| tokenize_chunk(c * CHUNK_DOCS, docs, &field_weights))
            .collect::<Result<_>>()?;
        Index::from_chunks(names, chunks, field_weights, params)
    }

    /// Merges tokenized chunks (chunk `c` holds documents `c·CHUNK_DOCS ..`, every chunk but the
    /// last is full) into an index; the second half of [`Index::build_parallel`].
    pub(crate) fn from_chunks(
        names: Vec<String>,
        chunks: Vec<Chunk>,
        field_weights: Vec<f64>,
        params: Params,
    ) -> Result<Index> {
        let n_docs: usize = chunks.iter().map(|c| c.lengths.len()).sum();
        if names.len() != n_docs {
            return Err(Error::InvalidDocument(format!(
                "got {} names for {n_docs} documents",
                names.len()
            )));
        }
        let mut terms: Vec<Box<str>> = Vec::new();
        let mut term_ids = TermMap::default();
        let mut df: Vec<u32> = Vec::new();
        let mut remaps: Vec<Vec<u32>> = Vec::with_capacity(chunks.len());
        let mut postings = 0usize;
        for chunk in &chunks {
            let mut remap = Vec::with_capacity(chunk.terms.len());
            for (term, &d) in chunk.terms.iter().zip(&chunk.df) {
                let id = match term_ids.get(term) {
                    Some(&id) => id,
                    None => {
                        let id = terms.len() as u32;
                        terms.push(term.clone());
                        term_ids.insert(term.clone(), id);
                        df.push(0);
                        id
                    }
                };
                df[id as usize] += d;
                remap.push(id);
            }
            postings += chunk.entries.len();
            remaps.push(remap);
        }
        if postings > u32::MAX as usize {
            return Err(Error::InvalidDocument(
                "too many postings (at most 2^32 - 1)".into(),
            ));
        }
        let mut offsets = Vec::with_capacity(terms.len() + 1);
        let mut acc = 0u32;
        offsets.push(0);
        for &d in &df {
            acc += d;
            offsets.push(acc);
        }
        let mut cursor: Vec<u32> = offsets[..terms.len()].to_vec();
        let mut docs = vec![0u32; postings];
        let mut tfs = vec![0f32; postings];
        let mut lengths = Vec::with_capacity(n_docs);
        for (c, (chunk, remap)) in chunks.into_iter().zip(&remaps).enumerate() {
            let base = (c * CHUNK_DOCS) as u32;
            for (local, doc, tf) in chunk.entries {
                let slot = &mut cursor[remap[local as usize] as usize];
                docs[*slot as usize] = base + doc;
                tfs[*slot as usize] = tf;
                *slot += 1;
            }
            lengths.extend_from_slice(&chunk.lengths);
        }
        Ok(assemble(
            params,
            field_weights,
            names,
            terms,
            Some(term_ids),
            offsets,
            docs,
            tfs,
            lengths,
        ))
    }
}

/// An index from its stored columns; the caller has checked that they are consistent.
/// Everything derived is computed here, the same way for a build, a load and an update.
#[allow(clippy::too_many_arguments)]
pub(crate) fn assemble(
    params: Params,
    field_weights: Vec<f64>,
    names: Vec<String>,
    terms: Vec<Box<str>>,
    term_ids: Option<TermMap>,
    offsets: Vec<u32>,
    docs: Vec<u32>,
    tfs: Vec<f32>,
    lengths: Vec<f64>,
) -> Index {
    let term_ids = term_ids.unwrap_or_else(|| {
        let mut map = TermMap::default();
        map.reserve(terms.len());
        for (id, term) in terms.iter().enumerate() {
            map.insert(term.clone(), id as u32);
        }
        map
    });
    let n = names.len();
    let idf = offsets
        .windows(2)
        .map(|w| bm25::idf(n, (w[1] - w[0]) as usize))
        .collect();
    // A left-to-right sum in document order, as the sequential build and the Python engine do.
    let mut total = 0.0f64;
    for &len in &lengths {
        total += len;
    }
    let avg_len = bm25::average_length(total, n);
    let norms = lengths
        .iter()
        .map(|&len| params.norm(len, avg_len))
        .collect();
    Index {
        params,
        field_weights,
        names,
        term_ids,
        terms,
        offsets,
        docs,
        tfs,
        idf,
        lengths,
        norms,
        avg_len,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::index::SearchOptions;

    const W: [f64; 3] = [6.0, 2.0, 0.0];

    /// A deterministic pseudo-random corpus big enough to span several chunks.
    pub(crate) fn corpus(n: usize, seed: u64) -> (Vec<String>, Vec<Vec<(usize, String)>>) {
        let words = [
            "read", "write", "file", "issue", "pull", "request", "get", "list", "user", "channel",
            "send", "message", "calendar", "event", "the", "a", "of", "data",
        ];
        let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        let mut next = move |m: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as usize) % m
        };
        let mut names = Vec::new();
        let mut docs = Vec::new();
        for i in 0..n {
            names.push(format!("tool_{}", next(n.max(1) * 2)));
            let mut fields = Vec::new();
            for _ in 0..1 + next(3) {
                let text: Vec<&str> = (0..1 + next(8)).map(|_| words[next(words.len())]).collect();
                fields.push((next(3), text.join(" ")));
            }
            if i % 97 == 0 {
                fields.clear();
            }
            docs.push(fields);
        }
        (names, docs)
    }

    pub(crate) fn assert_same(a: &Index, b: &Index) {
        assert_eq!(a.names, b.names);
        assert_eq!(a.terms, b.terms);
        assert_eq!(a.offsets, b.offsets);
        assert_eq!(a.docs, b.docs);
        assert_eq!(a.tfs, b.tfs);
        assert_eq!(a.lengths, b.lengths);
        assert_eq!(a.idf, b.idf);
        assert_eq!(a.norms, b.norms);
        assert_eq!(a.avg_len, b.avg_len);
        assert_eq!(a.term_ids.len(), b.term_ids.len());
    }

    #[test]
    fn parallel_build_equals_sequential_build() {
        for (n, seed) in [(0, 1), (1, 2), (5000, 3), (CHUNK_DOCS * 3 + 7, 4)] {
            let (names, docs) = corpus(n, seed);
            let seq = Index::build(names.clone(), &docs, W.to_vec(), Params::default()).unwrap();
            let par = Index::build_parallel(names, &docs, W.to_vec(), Params::default()).unwrap();
            assert_same(&seq, &par);
            let opts = SearchOptions::default();
            for q in [
                "read file",
                "the data",
                "send a message to the user channel",
            ] {
                assert_eq!(seq.search(q, 10, &opts), par.search(q, 10, &opts));
            }
        }
    }

    #[test]
    fn parallel_build_reports_the_bad_document() {
        let (names, mut docs) = corpus(CHUNK_DOCS + 10, 5);
        docs[CHUNK_DOCS + 3] = vec![(7, "x".to_string())];
        let err = Index::build_parallel(names, &docs, W.to_vec(), Params::default()).unwrap_err();
        assert!(err
            .to_string()
            .contains(&format!("document {}", CHUNK_DOCS + 3)));
        let err = Index::build_parallel(vec![], &docs, W.to_vec(), Params::default()).unwrap_err();
        assert!(matches!(err, Error::InvalidDocument(_)));
        let bad = Index::build_parallel(vec![], &docs[..0], vec![f64::NAN], Params::default());
        assert!(matches!(bad, Err(Error::InvalidParameter(..))));
    }
}
