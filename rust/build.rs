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

use std::collections::HashMap;

use rayon::prelude::*;

use crate::analysis::{self, Profile};
use crate::bm25::{self, Params};
use crate::error::{Error, Result};
use crate::index::{Index, TermMap};
use crate::tokenize::Tokenizer;

mod sequential;

/// Documents per parallel task: big enough to amortise a chunk's dictionary, small enough to
/// balance two to sixty-four cores.
pub(crate) const CHUNK_DOCS: usize = 2048;

/// One chunk's tokenized documents, with chunk-local term ids in first-seen order.
pub(crate) struct Chunk {
    pub(crate) terms: Vec<Box<str>>,
    pub(crate) df: Vec<u32>,
    /// `(local term, doc offset within the chunk, tf)` in document order.
    pub(crate) entries: Vec<(u32, u32, f32)>,
    /// `(local term, doc offset)` of the terms a document holds only in weight-0 fields (its
    /// presence postings), in document order.
    pub(crate) presence: Vec<(u32, u32)>,
    pub(crate) lengths: Vec<f64>,
}

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

/// Tokenizes `documents` (the first has id `first_doc`, for error messages) with `profile`.
pub(crate) fn tokenize_chunk<S: AsRef<str>>(
    first_doc: usize,
    documents: &[Vec<(usize, S)>],
    field_weights: &[f64],
    profile: Profile,
) -> Result<Chunk> {
    let mut ids: HashMap<Box<str>, u32, ahash::RandomState> = HashMap::default();
    let mut chunk = Chunk {
        terms: Vec::new(),
        df: Vec::new(),
        entries: Vec::new(),
        presence: Vec::new(),
        lengths: Vec::with_capacity(documents.len()),
    };
    // Dense per-document term frequencies by local id, and the ids touched in first-seen order;
    // the same for the terms of weight-0 fields (a flag instead of a frequency).
    let mut tf: Vec<f64> = Vec::new();
    let mut order: Vec<u32> = Vec::new();
    let mut present: Vec<bool> = Vec::new();
    let mut present_order: Vec<u32> = Vec::new();
    // Local id of each plain term's stemmed copy (English profile), `NO_COPY` until needed:
    // each distinct term is stemmed once per chunk.
    const NO_COPY: u32 = u32::MAX;
    let mut copies: Vec<u32> = Vec::new();
    let stems = profile.stems();
    let mut tokenizer = Tokenizer::new();
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
            // Weight-0 fields are tokenized too: their terms get ids in first-seen order, as in
            // `Index::build`, and become presence postings.
            profile.for_each_term(&mut tokenizer, text.as_ref(), |tok| {
                let mut intern = |tok: &str| match ids.get(tok) {
                    Some(&id) => id,
                    None => {
                        let id = chunk.terms.len() as u32;
                        chunk.terms.push(tok.into());
                        ids.insert(tok.into(), id);
                        chunk.df.push(0);
                        tf.push(0.0);
                        present.push(false);
                        id
                    }
                };
                let id = intern(tok);
                if weight == 0.0 {
                    let seen = &mut present[id as usize];
                    if !*seen {
                        *seen = true;
                        present_order.push(id);
                    }
                    return;
                }
                let copy = if stems {
                    let mut copy = copies.get(id as usize).copied().unwrap_or(NO_COPY);
                    if copy == NO_COPY {
                        copy = intern(&analysis::stem_copy(tok));
                        if copies.len() <= id as usize {
                            copies.resize(id as usize + 1, NO_COPY);
                        }
                        copies[id as usize] = copy;
                    }
                    Some((copy, weight * analysis::STEM_WEIGHT))
                } else {
                    None
                };
                // The plain term, then (English profile) its stemmed copy at a fraction.
                for (id, w) in std::iter::once((id, weight)).chain(copy) {
                    let slot = &mut tf[id as usize];
                    if *slot == 0.0 {
                        order.push(id);
                    }
                    *slot += w;
                    length += w;
                }
            });
        }
        for &id in &order {
            let slot = &mut tf[id as usize];
            chunk.df[id as usize] += 1;
            chunk.entries.push((id, offset as u32, *slot as f32));
        }
        for &id in &present_order {
            present[id as usize] = false;
            if tf[id as usize] == 0.0 {
                chunk.presence.push((id, offset as u32));
            }
        }
        for &id in &order {
            tf[id as usize] = 0.0;
        }
        present_order.clear();
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
        let chunks: Vec<Chunk> = documents
            .par_chunks(CHUNK_DOCS)
            .enumerate()
            .map(|(c, docs)| tokenize_chunk(c * CHUNK_DOCS, docs, &field_weights, profile))
            .collect::<Result<_>>()?;
        Index::from_chunks(names, chunks, field_weights, params, profile)
    }

    /// Merges tokenized chunks (chunk `c` holds documents `c·CHUNK_DOCS ..`, every chunk but the
    /// last is full) into an index; the second half of [`Index::build_parallel`].
    pub(crate) fn from_chunks(
        names: Vec<String>,
        chunks: Vec<Chunk>,
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
            presence += chunk.presence.len();
            remaps.push(remap);
        }
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
    let sorted_terms = sorted_terms.unwrap_or_else(|| {
        let mut sorted: Vec<u32> = (0..terms.len() as u32)
            .filter(|&t| offsets[t as usize + 1] > offsets[t as usize])
            .collect();
        sorted.par_sort_unstable_by(|&a, &b| terms[a as usize].cmp(&terms[b as usize]));
        sorted
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

    /// Options that read the query-language fields: a required term found in weight-0 fields
    /// (presence postings), prefix expansion (sorted terms) and the coverage rule.
    pub(crate) fn query_language() -> SearchOptions {
        SearchOptions {
            required: vec!["data".into()],
            prefix: crate::index::PrefixOptions {
                fraction: 0.5,
                ..Default::default()
            },
            coverage: true,
            ..SearchOptions::default()
        }
    }

    pub(crate) fn assert_same(a: &Index, b: &Index) {
        assert_eq!(a.names, b.names);
        assert_eq!(a.terms, b.terms);
        assert_eq!(a.offsets, b.offsets);
        assert_eq!(a.docs, b.docs);
        assert_eq!(a.tfs, b.tfs);
        assert_eq!(a.presence_offsets, b.presence_offsets);
        assert_eq!(a.presence_docs, b.presence_docs);
        assert_eq!(a.sorted_terms, b.sorted_terms);
        assert_eq!(a.lengths, b.lengths);
        assert_eq!(a.idf, b.idf);
        assert_eq!(a.norms, b.norms);
        assert_eq!(a.avg_len, b.avg_len);
        assert_eq!(a.term_ids.len(), b.term_ids.len());
    }

    /// Term string -> (scored postings with tfs, presence postings, idf).
    type ByTerm = HashMap<String, (Vec<(u32, f32)>, Vec<u32>, u64)>;

    /// The index's postings keyed by term string, so that indexes whose term ids differ (a
    /// snapshot stores its terms sorted; an update appends new terms) can be compared.
    pub(crate) fn by_term(idx: &Index) -> ByTerm {
        (0..idx.terms.len())
            .map(|t| {
                let (s, e) = (idx.offsets[t] as usize, idx.offsets[t + 1] as usize);
                let scored = idx.docs[s..e]
                    .iter()
                    .copied()
                    .zip(idx.tfs[s..e].iter().copied())
                    .collect();
                let (ps, pe) = (
                    idx.presence_offsets[t] as usize,
                    idx.presence_offsets[t + 1] as usize,
                );
                let presence = idx.presence_docs[ps..pe].to_vec();
                (
                    idx.terms[t].to_string(),
                    (scored, presence, idx.idf[t].to_bits()),
                )
            })
            .collect()
    }

    /// Everything a search reads is the same, up to term ids.
    pub(crate) fn assert_equivalent(a: &Index, b: &Index) {
        assert_eq!(a.names, b.names);
        assert_eq!(a.lengths, b.lengths);
        assert_eq!(a.norms, b.norms);
        assert_eq!(a.avg_len.to_bits(), b.avg_len.to_bits());
        assert_eq!(a.field_weights, b.field_weights);
        assert_eq!(by_term(a), by_term(b));
        let sorted = |i: &Index| -> Vec<String> {
            i.sorted_terms
                .iter()
                .map(|&t| i.terms[t as usize].to_string())
                .collect()
        };
        assert_eq!(sorted(a), sorted(b));
        assert_eq!(a.term_ids.len(), b.term_ids.len());
        for (term, &id) in &b.term_ids {
            assert_eq!(&b.terms[id as usize], term);
        }
    }

    #[test]
    fn parallel_build_equals_sequential_build() {
        for (n, seed) in [(0, 1), (1, 2), (5000, 3), (CHUNK_DOCS * 3 + 7, 4)] {
            let (names, docs) = corpus(n, seed);
            let seq = Index::build(names.clone(), &docs, W.to_vec(), Params::default()).unwrap();
            let par = Index::build_parallel(names, &docs, W.to_vec(), Params::default()).unwrap();
            assert_same(&seq, &par);
            for opts in [SearchOptions::default(), query_language()] {
                for q in [
                    "read file",
                    "the data",
                    "send a message to the user channel",
                    "mess chan calen",
                ] {
                    assert_eq!(seq.search(q, 10, &opts), par.search(q, 10, &opts));
                }
            }
        }
    }

    #[test]
    fn english_profile_parallel_build_equals_sequential_build() {
        for (n, seed) in [(0, 1), (7, 2), (CHUNK_DOCS * 2 + 5, 6)] {
            let (names, mut docs) = corpus(n, seed);
            if let Some(first) = docs.first_mut() {
                first.push((1, "获取天气 날씨정보 東京タワー readings".into()));
            }
            let p = Profile::English;
            let seq = Index::build_profiled(names.clone(), &docs, W.to_vec(), Params::default(), p)
                .unwrap();
            let par =
                Index::build_parallel_profiled(names, &docs, W.to_vec(), Params::default(), p)
                    .unwrap();
            assert_same(&seq, &par);
            assert_eq!(par.profile(), p);
            for opts in [SearchOptions::default(), query_language()] {
                for q in ["reading files", "the data", "天气", "mess chan calen"] {
                    assert_eq!(seq.search(q, 10, &opts), par.search(q, 10, &opts));
                }
            }
        }
    }

    #[test]
    fn english_profile_indexes_half_weight_stemmed_copies() {
        let docs = vec![
            vec![(0usize, "read files")],
            vec![(0, "reading")],
            vec![(0, "获取天气")],
        ];
        let names = vec!["a".to_string(), "b".into(), "c".into()];
        let idx =
            Index::build_profiled(names, &docs, vec![2.0], Params::default(), Profile::English)
                .unwrap();
        // Two terms and their copies at half weight: 2 + 1 + 2 + 1.
        assert_eq!(idx.lengths[0], 6.0);
        assert_eq!(by_term(&idx)["§read"].0, [(0, 1.0), (1, 1.0)]);
        // "reading" finds both documents (through the stem), the exact form first.
        let hits = idx.search("reading", 5, &SearchOptions::default()).unwrap();
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [1, 0]);
        // A stop word is dropped; a CJK query is bigrammed; a required CJK term is too.
        let hits = idx
            .search("the 天气", 5, &SearchOptions::default())
            .unwrap();
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [2]);
        let opts = SearchOptions {
            required: vec!["获取天气".into()],
            ..SearchOptions::default()
        };
        assert_eq!(idx.search("天气", 5, &opts).unwrap().len(), 1);
        // Stemmed copies never expand as prefixes.
        let prefix = SearchOptions {
            prefix: crate::index::PrefixOptions {
                fraction: 0.5,
                ..Default::default()
            },
            ..SearchOptions::default()
        };
        assert_eq!(idx.expansions("§rea", &prefix.prefix).count(), 0);
        assert_eq!(idx.expansions("rea", &prefix.prefix).count(), 2);
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
