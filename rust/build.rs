//! Index build. [`Index::build`] is the reference, sequential build (`sequential`); this file
//! holds the parallel build and what both share.
//!
//! Parallel build: documents are tokenized in chunks on all cores, then the chunks' term
//! dictionaries are merged in chunk order. The result is the index [`Index::build`] makes, field for field: a chunk numbers its terms in
//! first-seen order, so visiting the chunks in document order and each chunk's terms in its own
//! order assigns global term ids in global first-seen order; postings are scattered chunk by
//! chunk, so documents stay ascending within a term; lengths and term frequencies are summed
//! token by token in the same order as the sequential build.
//!
//! [`assemble`] derives everything that follows from the stored columns (term map, IDF, average
//! length, norms); snapshots and live updates use it too, so a loaded or updated
//! index computes those numbers with exactly the operations a fresh build does.

use rayon::prelude::*;

use crate::analysis::Profile;
use crate::bm25::{self, Params};
use crate::error::{Error, Result};
use crate::index::{Index, TermMap};

mod chunk;
mod flat;
mod intern;
mod memo;
mod sequential;
mod stems;

pub(crate) use chunk::{tokenize_chunk, tokenize_chunk_with, Chunk};

pub use flat::{Document, FlatChunk, FlatDocument};
pub(crate) use stems::Stems;

/// Documents per parallel task: big enough to amortise a chunk's dictionary, small enough to
/// balance two to sixty-four cores.
pub(crate) const CHUNK_DOCS: usize = 2048;

/// Checks what both builders take: one name per document, at most 2^32 - 1 documents (ids are
/// `u32`), and valid field weights.
pub(crate) fn check_build_inputs(
    names: usize,
    documents: usize,
    field_weights: &[f64],
) -> Result<()> {
    if names != documents {
        return Err(Error::InvalidDocument(format!(
            "got {names} names for {documents} documents"
        )));
    }
    if documents > u32::MAX as usize {
        return Err(Error::InvalidDocument(
            "too many documents (at most 2^32 - 1)".into(),
        ));
    }
    check_weights(field_weights)
}

/// Field weights must be finite and >= 0.
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

impl Index {
    /// [`Index::build`] on all cores (rayon's global pool); the resulting index is identical.
    pub fn build_parallel<S: AsRef<str> + Sync>(
        names: Vec<String>,
        documents: &[Vec<(usize, S)>],
        field_weights: Vec<f64>,
        params: Params,
    ) -> Result<Index> {
        Index::build_parallel_profiled(names, documents, field_weights, params, Profile::Seed)
    }

    /// [`Index::build_profiled`] on all cores; the resulting index is identical.
    pub fn build_parallel_profiled<S: AsRef<str> + Sync>(
        names: Vec<String>,
        documents: &[Vec<(usize, S)>],
        field_weights: Vec<f64>,
        params: Params,
        profile: Profile,
    ) -> Result<Index> {
        check_build_inputs(names.len(), documents.len(), &field_weights)?;
        let stems = Stems::default();
        let chunks: Vec<Chunk> = documents
            .par_chunks(CHUNK_DOCS)
            .enumerate()
            .map(|(c, docs)| {
                tokenize_chunk_with(c * CHUNK_DOCS, docs, &field_weights, profile, &stems)
            })
            .collect::<Result<_>>()?;
        Index::from_chunks(names, chunks, field_weights, params, profile)
    }

    /// Merges tokenized chunks (chunk `c` holds documents `c·CHUNK_DOCS ..`, every chunk but the
    /// last is full) into an index; the second half of [`Index::build_parallel`].
    pub(crate) fn from_chunks(
        names: Vec<String>,
        mut chunks: Vec<Chunk>,
        field_weights: Vec<f64>,
        params: Params,
        profile: Profile,
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
        let mut presence = 0usize;
        for chunk in &mut chunks {
            let mut remap = Vec::with_capacity(chunk.terms.len());
            // A new term moves from the chunk (which needs only its ids from here on).
            for (term, &d) in chunk.terms.iter_mut().zip(&chunk.df) {
                let id = match term_ids.get(&**term) {
                    Some(&id) => id,
                    None => {
                        let id = terms.len() as u32;
                        term_ids.insert(term.clone(), id);
                        terms.push(std::mem::take(term));
                        df.push(0);
                        id
                    }
                };
                df[id as usize] += d;
                remap.push(id);
            }
            postings += chunk.entries.len();
            presence += chunk.presence.len();
            remaps.push(remap);
        }
        // The chunks' terms are all remapped: free them on another core meanwhile (a build of
        // mcp_mixed frees ~100k of them).
        let spent: Vec<Vec<Box<str>>> = chunks
            .iter_mut()
            .map(|c| std::mem::take(&mut c.terms))
            .collect();
        rayon::spawn(move || drop(spent));
        if postings > u32::MAX as usize || presence > u32::MAX as usize {
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
        // Presence postings: count per term, then scatter chunk by chunk (ascending docs).
        let mut presence_offsets = vec![0u32; terms.len() + 1];
        for (chunk, remap) in chunks.iter().zip(&remaps) {
            for &(local, _) in &chunk.presence {
                presence_offsets[remap[local as usize] as usize + 1] += 1;
            }
        }
        for t in 0..terms.len() {
            presence_offsets[t + 1] += presence_offsets[t];
        }
        let mut presence_cursor: Vec<u32> = presence_offsets[..terms.len()].to_vec();
        let mut presence_docs = vec![0u32; presence];
        let mut lengths = Vec::with_capacity(n_docs);
        for (c, (chunk, remap)) in chunks.into_iter().zip(&remaps).enumerate() {
            let base = (c * CHUNK_DOCS) as u32;
            for (local, doc, tf) in chunk.entries {
                let slot = &mut cursor[remap[local as usize] as usize];
                docs[*slot as usize] = base + doc;
                tfs[*slot as usize] = tf;
                *slot += 1;
            }
            for (local, doc) in chunk.presence {
                let slot = &mut presence_cursor[remap[local as usize] as usize];
                presence_docs[*slot as usize] = base + doc;
                *slot += 1;
            }
            lengths.extend_from_slice(&chunk.lengths);
        }
        Ok(assemble(
            params,
            profile,
            field_weights,
            names,
            terms,
            Some(term_ids),
            Postings {
                offsets,
                docs,
                tfs,
                presence_offsets,
                presence_docs,
            },
            None,
            lengths,
        ))
    }
}

impl Index {
    /// A hash of everything a build produces, in term-id order (terms, postings, tfs, presence
    /// postings, lengths, norms, idf): equal fingerprints mean bit-identical builds. For
    /// benchmarks that check a faster build changes nothing (`examples/build_bench.rs`).
    #[doc(hidden)]
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.names.hash(&mut h);
        self.terms.hash(&mut h);
        self.sorted_terms.hash(&mut h);
        (&self.offsets, &self.docs).hash(&mut h);
        self.tfs.iter().for_each(|t| t.to_bits().hash(&mut h));
        (&self.presence_offsets, &self.presence_docs).hash(&mut h);
        for column in [&self.lengths, &self.norms, &self.idf] {
            column.iter().for_each(|x| x.to_bits().hash(&mut h));
        }
        self.avg_len.to_bits().hash(&mut h);
        self.term_ids.len().hash(&mut h);
        h.finish()
    }
}

/// The scored term ids (those with postings) in term order (bytewise, as `str` compares).
///
/// Sorted by the terms' first 8 bytes as a big-endian integer, then by the whole term where
/// those tie: the same order as comparing the strings (a shorter term's missing bytes count as
/// zeros, which only makes the tie-break decide), with most comparisons on integers in the
/// sorted array instead of string reads through pointers. Terms are distinct, so the unstable
/// sort has one result.
fn sort_terms(terms: &[Box<str>], offsets: &[u32]) -> Vec<u32> {
    let prefix = |t: &str| {
        let mut b = [0u8; 8];
        let n = t.len().min(8);
        b[..n].copy_from_slice(&t.as_bytes()[..n]);
        u64::from_be_bytes(b)
    };
    let mut keyed: Vec<(u64, u32)> = (0..terms.len())
        .filter(|&t| offsets[t + 1] > offsets[t])
        .map(|t| (prefix(&terms[t]), t as u32))
        .collect();
    keyed.par_sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| terms[a.1 as usize].cmp(&terms[b.1 as usize]))
    });
    keyed.into_iter().map(|(_, t)| t).collect()
}

/// The postings columns of an index (see [`Index`]): scored postings and presence postings,
/// both CSR over the same term ids.
pub(crate) struct Postings {
    pub(crate) offsets: Vec<u32>,
    pub(crate) docs: Vec<u32>,
    pub(crate) tfs: Vec<f32>,
    pub(crate) presence_offsets: Vec<u32>,
    pub(crate) presence_docs: Vec<u32>,
}

/// An index from its stored columns; the caller has checked that they are consistent.
/// Everything derived is computed here, the same way for a build, a load and an update.
/// `sorted_terms` (the scored term ids in term order) is sorted here unless the caller has it,
/// as a snapshot does (its term dictionary is stored sorted).
#[allow(clippy::too_many_arguments)]
pub(crate) fn assemble(
    params: Params,
    profile: Profile,
    field_weights: Vec<f64>,
    names: Vec<String>,
    terms: Vec<Box<str>>,
    term_ids: Option<TermMap>,
    postings: Postings,
    sorted_terms: Option<Vec<u32>>,
    lengths: Vec<f64>,
) -> Index {
    let Postings {
        offsets,
        docs,
        tfs,
        presence_offsets,
        presence_docs,
    } = postings;
    let term_ids = term_ids.unwrap_or_else(|| {
        let mut map = TermMap::default();
        map.reserve(terms.len());
        for (id, term) in terms.iter().enumerate() {
            map.insert(term.clone(), id as u32);
        }
        map
    });
    let sorted_terms = sorted_terms.unwrap_or_else(|| sort_terms(&terms, &offsets));
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
    let mut index = Index {
        params,
        field_weights,
        names,
        term_ids,
        terms,
        sorted_terms,
        offsets,
        docs,
        tfs,
        presence_offsets,
        presence_docs,
        idf,
        lengths,
        norms,
        avg_len,
        profile,
        bounds: Default::default(),
    };
    index.refresh_bounds();
    index
}

#[cfg(test)]
pub(crate) mod tests;
