//! The compact inverted index: term dictionary, postings in flat arrays, per-document weighted
//! length, precomputed IDF, and top-k search without sorting the matches.
//!
//! A document is a list of `(field id, text)` pairs; each token of a field adds that field's
//! weight to the token's term frequency and to the document length (seed 000's weighted document:
//! the same as repeating each field's tokens `weight` times). Fields of weight 0 are not indexed.
//!
//! Postings are stored as CSR arrays: term `t`'s postings are `docs[offsets[t]..offsets[t+1]]`
//! with their weighted term frequencies in `tfs`, in ascending document order. 8 bytes a posting.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};

use crate::bm25::{self, Params};
use crate::error::{Error, Result};
use crate::tokenize::for_each_token;

/// Term string -> term id. `ahash` resists hash flooding from hostile tool catalogues.
pub(crate) type TermMap = HashMap<Box<str>, u32, ahash::RandomState>;

/// An immutable BM25+ index over weighted-field documents.
#[derive(Debug, Clone)]
pub struct Index {
    pub(crate) params: Params,
    pub(crate) field_weights: Vec<f64>,
    pub(crate) names: Vec<String>,
    pub(crate) term_ids: TermMap,
    pub(crate) terms: Vec<Box<str>>,
    pub(crate) offsets: Vec<u32>,
    pub(crate) docs: Vec<u32>,
    pub(crate) tfs: Vec<f32>,
    pub(crate) idf: Vec<f64>,
    pub(crate) lengths: Vec<f64>,
    pub(crate) norms: Vec<f64>,
    pub(crate) avg_len: f64,
}

/// What a search leaves out or adds beyond plain BM25+ ranking. Every option is applied inside
/// the engine, before the top-k cut, so the limit is still filled.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// Document ids never returned (for example the tools a session already activated).
    pub exclude: HashSet<u32>,
}

struct Scratch {
    acc: Vec<f64>,
    touched: Vec<u32>,
}

thread_local! {
    // One accumulator per thread, reused across queries and indexes: no allocation per query,
    // and threads searching one shared index never contend.
    static SCRATCH: RefCell<Scratch> = const { RefCell::new(Scratch { acc: Vec::new(), touched: Vec::new() }) };
}

/// A scored candidate in the top-k heap, ordered so that the heap's maximum is the *worst* one:
/// lower score is worse; at equal scores the greater name (then the greater doc id) is worse.
struct Candidate<'a> {
    score: f64,
    doc: u32,
    name: &'a str,
}

impl Candidate<'_> {
    fn worse_than(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.name.cmp(other.name))
            .then_with(|| self.doc.cmp(&other.doc))
    }
}

impl PartialEq for Candidate<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.worse_than(other) == Ordering::Equal
    }
}
impl Eq for Candidate<'_> {}
impl PartialOrd for Candidate<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.worse_than(other)
    }
}

impl Index {
    /// Builds an index. `names[i]` breaks score ties for document `i` (ascending, by code point);
    /// `documents[i]` lists its `(field id, text)` pairs; `field_weights[f]` is field `f`'s weight.
    pub fn build<S: AsRef<str>>(
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
        for (f, w) in field_weights.iter().enumerate() {
            if !(w.is_finite() && *w >= 0.0) {
                return Err(Error::InvalidParameter(
                    "field weight",
                    format!("field {f} has weight {w}; weights must be finite and >= 0"),
                ));
            }
        }
        let mut term_ids = TermMap::default();
        let mut terms: Vec<Box<str>> = Vec::new();
        // (term, doc, tf) triples in document order; bucketed by term below.
        let mut entries: Vec<(u32, u32, f32)> = Vec::new();
        let mut df: Vec<u32> = Vec::new();
        let mut lengths = Vec::with_capacity(documents.len());
        let mut doc_tf: HashMap<u32, f64, ahash::RandomState> = HashMap::default();
        let mut order: Vec<u32> = Vec::new();
        for (doc, fields) in documents.iter().enumerate() {
            doc_tf.clear();
            order.clear();
            let mut length = 0.0f64;
            for (field, text) in fields {
                let weight = *field_weights.get(*field).ok_or_else(|| {
                    Error::InvalidDocument(format!(
                        "document {doc} uses field {field}, but only {} field weights were given",
                        field_weights.len()
                    ))
                })?;
                if weight == 0.0 {
                    continue;
                }
                for_each_token(text.as_ref(), |tok| {
                    let id = match term_ids.get(tok) {
                        Some(&id) => id,
                        None => {
                            let id = terms.len() as u32;
                            terms.push(tok.into());
                            term_ids.insert(tok.into(), id);
                            df.push(0);
                            id
                        }
                    };
                    let tf = doc_tf.entry(id).or_insert_with(|| {
                        order.push(id);
                        0.0
                    });
                    *tf += weight;
                    length += weight;
                });
            }
            for &id in &order {
                let tf = doc_tf[&id];
                df[id as usize] += 1;
                entries.push((id, doc as u32, tf as f32));
            }
            lengths.push(length);
        }
        if entries.len() > u32::MAX as usize {
            return Err(Error::InvalidDocument(
                "too many postings (at most 2^32 - 1)".into(),
            ));
        }
        // Counting sort by term; documents stay ascending within a term.
        let mut offsets = Vec::with_capacity(terms.len() + 1);
        let mut acc = 0u32;
        offsets.push(0);
        for &d in &df {
            acc += d;
            offsets.push(acc);
        }
        let mut cursor: Vec<u32> = offsets[..terms.len()].to_vec();
        let mut docs = vec![0u32; entries.len()];
        let mut tfs = vec![0f32; entries.len()];
        for (term, doc, tf) in entries {
            let slot = &mut cursor[term as usize];
            docs[*slot as usize] = doc;
            tfs[*slot as usize] = tf;
            *slot += 1;
        }
        let n = documents.len();
        let idf = df.iter().map(|&d| bm25::idf(n, d as usize)).collect();
        let total: f64 = lengths.iter().sum();
        let avg_len = bm25::average_length(total, n);
        let norms = lengths
            .iter()
            .map(|&len| params.norm(len, avg_len))
            .collect();
        Ok(Index {
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
        })
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Number of distinct indexed terms.
    pub fn vocabulary_size(&self) -> usize {
        self.terms.len()
    }

    pub fn average_length(&self) -> f64 {
        self.avg_len
    }

    pub fn params(&self) -> Params {
        self.params
    }

    pub fn field_weights(&self) -> &[f64] {
        &self.field_weights
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn document_length(&self, doc: usize) -> Option<f64> {
        self.lengths.get(doc).copied()
    }

    /// Number of documents containing `term` (0 when unknown).
    pub fn document_frequency(&self, term: &str) -> usize {
        self.term_ids
            .get(term)
            .map(|&t| (self.offsets[t as usize + 1] - self.offsets[t as usize]) as usize)
            .unwrap_or(0)
    }

    /// Approximate heap bytes held by the index.
    pub fn memory_bytes(&self) -> usize {
        let terms: usize = self.terms.iter().map(|t| t.len() * 2 + 16 + 4 + 8).sum();
        let names: usize = self.names.iter().map(|n| n.len() + 24).sum();
        terms
            + names
            + self.offsets.len() * 4
            + self.docs.len() * 4
            + self.tfs.len() * 4
            + self.idf.len() * 8
            + self.lengths.len() * 8
            + self.norms.len() * 8
    }

    /// Tokenizes `query` and searches it; see [`Index::search_tokens`].
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        options: &SearchOptions,
    ) -> Result<Vec<(u32, f64)>> {
        let mut tokens: Vec<String> = Vec::new();
        for_each_token(query, |t| tokens.push(t.to_owned()));
        self.search_tokens(&tokens, limit, options)
    }

    /// The top `limit` documents for query `tokens` by BM25+ score (descending, then name
    /// ascending), after applying `options`. Only documents with a score > 0 are returned.
    pub fn search_tokens<S: AsRef<str>>(
        &self,
        tokens: &[S],
        limit: usize,
        options: &SearchOptions,
    ) -> Result<Vec<(u32, f64)>> {
        if tokens.is_empty() {
            return Err(Error::NoSearchableTerms);
        }
        if limit == 0 {
            return Err(Error::InvalidLimit(0));
        }
        if self.is_empty() {
            return Ok(Vec::new());
        }
        // Distinct query terms in first-seen order with their query frequencies.
        let mut query: Vec<(&str, f64)> = Vec::with_capacity(tokens.len());
        for tok in tokens {
            let tok = tok.as_ref();
            match query.iter_mut().find(|(t, _)| *t == tok) {
                Some((_, count)) => *count += 1.0,
                None => query.push((tok, 1.0)),
            }
        }
        SCRATCH.with(|cell| {
            let mut scratch = cell.borrow_mut();
            let Scratch { acc, touched } = &mut *scratch;
            if acc.len() < self.len() {
                acc.resize(self.len(), 0.0);
            }
            // Past `blocked::MIN_DOCS` the accumulator outgrows the cache: score range by range.
            let plain: &[(&str, f64)] = if self.use_blocked() {
                self.accumulate_blocked(&query, options, acc, touched);
                &[]
            } else {
                &query
            };
            for (tok, qtf) in plain {
                let Some(&term) = self.term_ids.get(*tok) else {
                    continue;
                };
                let (start, end) = (
                    self.offsets[term as usize] as usize,
                    self.offsets[term as usize + 1] as usize,
                );
                let idf = self.idf[term as usize];
                for (&doc, &tf) in self.docs[start..end].iter().zip(&self.tfs[start..end]) {
                    let d = doc as usize;
                    let before = acc[d];
                    acc[d] = before + self.params.term_score(*qtf, idf, tf as f64, self.norms[d]);
                    if before == 0.0 && acc[d] != 0.0 {
                        touched.push(doc);
                    }
                }
            }
            let hits = self.top_k(acc, touched, limit, options);
            for &doc in touched.iter() {
                acc[doc as usize] = 0.0;
            }
            touched.clear();
            Ok(hits)
        })
    }

    fn top_k(
        &self,
        acc: &[f64],
        touched: &[u32],
        limit: usize,
        options: &SearchOptions,
    ) -> Vec<(u32, f64)> {
        let mut heap: BinaryHeap<Candidate> =
            BinaryHeap::with_capacity(limit.min(touched.len()) + 1);
        for &doc in touched {
            let score = acc[doc as usize];
            if score.is_nan() || score <= 0.0 || options.exclude.contains(&doc) {
                continue;
            }
            // Most candidates lose on score alone: skip them before touching their name.
            if heap.len() == limit && heap.peek().is_some_and(|worst| score < worst.score) {
                continue;
            }
            let cand = Candidate {
                score,
                doc,
                name: &self.names[doc as usize],
            };
            if heap.len() < limit {
                heap.push(cand);
            } else if let Some(worst) = heap.peek() {
                if cand.worse_than(worst) == Ordering::Less {
                    heap.pop();
                    heap.push(cand);
                }
            }
        }
        heap.into_sorted_vec()
            .into_iter()
            .map(|c| (c.doc, c.score))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: [f64; 3] = [6.0, 2.0, 1.0];

    fn build(docs: &[(&str, &[(usize, &str)])]) -> Index {
        let names = docs.iter().map(|(n, _)| n.to_string()).collect();
        let documents: Vec<Vec<(usize, &str)>> = docs.iter().map(|(_, f)| f.to_vec()).collect();
        Index::build(names, &documents, W.to_vec(), Params::default()).unwrap()
    }

    fn none() -> SearchOptions {
        SearchOptions::default()
    }

    #[test]
    fn ranks_by_weighted_bm25_plus() {
        let idx = build(&[
            (
                "read_file",
                &[(0, "read_file"), (1, "Read a file from disk")],
            ),
            (
                "write_file",
                &[(0, "write_file"), (1, "Write a file to disk")],
            ),
            ("fetch", &[(0, "fetch"), (1, "Fetch a URL")]),
        ]);
        let hits = idx.search("read file", 8, &none()).unwrap();
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![0, 1]);
        // Hand-computed: N=3, lengths read_file 6·2+2·5=22, write_file 22, fetch 6+2·3=12; avg 56/3.
        let avg = 56.0 / 3.0;
        let p = Params::default();
        let norm = p.norm(22.0, avg);
        let read = p.term_score(1.0, bm25::idf(3, 1), 8.0, norm);
        let file = p.term_score(1.0, bm25::idf(3, 2), 8.0, norm);
        assert!((hits[0].1 - (0.0 + read + file)).abs() < 1e-12);
        assert!((hits[1].1 - file).abs() < 1e-12);
    }

    #[test]
    fn ties_break_by_name_and_limit_cuts_after_sorting() {
        let idx = build(&[
            ("b", &[(1, "same text")]),
            ("a", &[(1, "same text")]),
            ("c", &[(1, "same text")]),
        ]);
        let hits = idx.search("same", 2, &none()).unwrap();
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![1, 0]);
        assert_eq!(hits[0].1, hits[1].1);
    }

    #[test]
    fn exclusion_happens_before_the_cut() {
        let idx = build(&[("a", &[(1, "x y")]), ("b", &[(1, "x")]), ("c", &[(1, "x")])]);
        let opts = SearchOptions {
            exclude: [0].into_iter().collect(),
        };
        let hits = idx.search("x", 2, &opts).unwrap();
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![1, 2]);
    }

    #[test]
    fn errors_and_empty_corpus() {
        let idx = build(&[("a", &[(1, "x")])]);
        assert_eq!(idx.search("!!!", 8, &none()), Err(Error::NoSearchableTerms));
        assert_eq!(idx.search("x", 0, &none()), Err(Error::InvalidLimit(0)));
        let empty = build(&[]);
        assert_eq!(empty.search("x", 8, &none()), Ok(vec![]));
        assert_eq!(empty.search("", 8, &none()), Err(Error::NoSearchableTerms));
        assert_eq!(empty.average_length(), 1.0);
    }

    #[test]
    fn zero_weight_fields_are_not_indexed_and_bad_fields_are_errors() {
        let names = vec!["a".to_string()];
        let docs = vec![vec![(0usize, "alpha"), (1, "beta")]];
        let idx = Index::build(names.clone(), &docs, vec![1.0, 0.0], Params::default()).unwrap();
        assert_eq!(idx.document_frequency("beta"), 0);
        assert_eq!(idx.document_length(0), Some(1.0));
        assert!(Index::build(names.clone(), &docs, vec![1.0], Params::default()).is_err());
        assert!(Index::build(names, &docs, vec![1.0, -1.0], Params::default()).is_err());
    }

    #[test]
    fn repeated_query_terms_count_and_scratch_is_reset() {
        let idx = build(&[("a", &[(1, "x y")]), ("b", &[(1, "y")])]);
        let once = idx.search("x", 8, &none()).unwrap();
        let twice = idx.search("x x", 8, &none()).unwrap();
        assert!((twice[0].1 - 2.0 * once[0].1).abs() < 1e-12);
        // The scratch accumulator must be clean between queries.
        let again = idx.search("x", 8, &none()).unwrap();
        assert_eq!(once, again);
    }
}
