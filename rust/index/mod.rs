//! The compact inverted index: term dictionary, postings in flat arrays, per-document weighted
//! length, precomputed IDF, and top-k search without sorting the matches.
//!
//! A document is a list of `(field id, text)` pairs; each token of a field adds that field's
//! weight to the token's term frequency and to the document length (`search_tool_bm25`'s document:
//! the same as repeating each field's tokens `weight` times). Fields of weight 0 are not scored:
//! their terms go to *presence postings* (document ids only, and only for terms the document does
//! not already hold in a scored field), which required terms (`+term`) consult.
//!
//! Text becomes terms through the index's analysis profile ([`crate::analysis`]): the OMP
//! profile's tokens, or (English) CJK bigrams plus half-weight stemmed copies; queries are
//! analysed with the same profile, and the scoring only sees distinct `(term, qtf)` pairs.
//!
//! Postings are stored as CSR arrays: term `t`'s postings are `docs[offsets[t]..offsets[t+1]]`
//! with their weighted term frequencies in `tfs`, in ascending document order. 5 bytes a posting
//! (a term frequency is a 1-byte code into a table of the index's distinct values where they
//! are at most 256, `tfs`; 8 bytes otherwise), and 8 more below [`MIN_PRUNE_DOCS`] documents, where the derived bounds keep each
//! posting's BM25+ impact so that the exhaustive loop does not divide (`bounds`). From
//! that size a stemmed copy with exactly its word's documents stores none: it reads the word's
//! list at half the term frequency (`Index::shared`, `build::share`).
//!
//! This module holds the data and its accessors only; beside it are the BM25+ formulas (`bm25`),
//! the term dictionary (`term_ids`), the term-frequency column (`tfs`) and the pruning bounds derived from the postings (`bounds`).
//! Building an index is `crate::build`'s, searching one `crate::search`'s.

use crate::analysis::Profile;
use bm25::Params;

pub mod bm25;
pub(crate) mod bounds;
mod term_ids;
mod tfs;

pub(crate) use crate::text::PackedStrings;
pub(crate) use bounds::Bounds;
pub use bounds::MIN_PRUNE_DOCS;
pub(crate) use term_ids::TermIds;
pub(crate) use tfs::{Codes, TfSlice, Tfs, MAX_CODES};

/// `Index::shared`'s mark of a term that holds its own postings.
pub(crate) const OWN_POSTINGS: u32 = u32::MAX;
/// The term-frequency scale of a shared list (a stemmed copy's weight against its word's).
pub(crate) const SHARED_TF_SCALE: f64 = 0.5;

/// An immutable BM25+ index over weighted-field documents.
#[derive(Debug, Clone)]
pub struct Index {
    pub(crate) params: Params,
    pub(crate) field_weights: Vec<f64>,
    /// The document names (they break score ties), back to back in one buffer; shared with the
    /// tools' name columns of a record build (`NameColumns::share_names`), not held twice.
    pub(crate) names: std::sync::Arc<PackedStrings>,
    /// Term string -> term id (over `terms`).
    pub(crate) term_ids: TermIds,
    pub(crate) terms: PackedStrings,
    /// Ids of the scored terms (df > 0), sorted by term: prefix expansion binary-searches it.
    pub(crate) sorted_terms: Vec<u32>,
    pub(crate) offsets: Vec<u32>,
    pub(crate) docs: Vec<u32>,
    /// Per posting: its weighted term frequency, one byte a posting where an index has few
    /// distinct values (`tfs`).
    pub(crate) tfs: Tfs,
    /// Per term: the term whose postings it reads at [`SHARED_TF_SCALE`] × their term
    /// frequencies, or [`OWN_POSTINGS`]; empty when no term shares (`build::share`). Read every
    /// list through [`Index::list`].
    pub(crate) shared: Vec<u32>,
    /// Presence postings (CSR like `docs`): for each term, the documents that contain it *only*
    /// in weight-0 fields. Required terms (`+term`) look here as well as in `docs`. 4 bytes each;
    /// both empty when no term has any (no offsets then). Read through [`Index::presence`].
    pub(crate) presence_offsets: Vec<u32>,
    pub(crate) presence_docs: Vec<u32>,
    pub(crate) lengths: Vec<f64>,
    pub(crate) norms: Vec<f64>,
    pub(crate) avg_len: f64,
    /// How text became terms (see [`crate::analysis`]); queries are analysed the same way.
    pub(crate) profile: Profile,
    /// Derived upper bounds for pruned top-k search (`bounds`, used by `search::prune`); not stored in snapshots.
    pub(crate) bounds: Bounds,
    /// This index's own tag ([`new_tag`]): the query analysis caches term lookups under it
    /// (`analysis::Profile::analyse_query_for`). Every constructor takes a new one; a clone
    /// keeps it, as it has the same terms.
    pub(crate) tag: u64,
}

/// A tag no other index of this process has (never 0).
pub(crate) fn new_tag() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Index {
    /// Number of documents.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Number of distinct scored terms (terms of weight-0 fields only are not counted).
    pub fn vocabulary_size(&self) -> usize {
        self.sorted_terms.len()
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

    /// The document names, in document order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter()
    }

    /// The name of document `doc`.
    pub fn name(&self, doc: usize) -> Option<&str> {
        self.names.get(doc)
    }

    pub fn document_length(&self, doc: usize) -> Option<f64> {
        self.lengths.get(doc).copied()
    }

    /// Number of documents containing `term` (0 when unknown).
    pub fn document_frequency(&self, term: &str) -> usize {
        self.term_ids
            .get(&self.terms, term)
            .map(|t| self.doc_list(t).len())
            .unwrap_or(0)
    }

    /// Approximate heap bytes held by the index.
    pub fn memory_bytes(&self) -> usize {
        self.memory_parts().iter().map(|&(_, bytes)| bytes).sum()
    }

    /// [`Index::memory_bytes`] by component, `(name, heap bytes)` (for memory reports:
    /// `examples/memory_report.rs`).
    #[doc(hidden)]
    pub fn memory_parts(&self) -> Vec<(&'static str, usize)> {
        let bounds = &self.bounds;
        vec![
            ("names", self.names.memory_bytes()),
            ("terms", self.terms.memory_bytes()),
            ("term_ids", self.term_ids.memory_bytes()),
            ("sorted_terms", self.sorted_terms.len() * 4),
            ("offsets", self.offsets.len() * 4),
            ("docs", self.docs.len() * 4),
            ("tfs", self.tfs.memory_bytes()),
            ("shared", self.shared.len() * 4),
            ("presence_offsets", self.presence_offsets.len() * 4),
            ("presence_docs", self.presence_docs.len() * 4),
            ("lengths", self.lengths.len() * 8),
            ("norms", self.norms.len() * 8),
            ("bounds.term_max", bounds.term_max.len() * 4),
            ("bounds.dense", bounds.dense.len() * 8),
            ("bounds.bitmaps", bounds.bitmaps.len() * 8),
            ("bounds.twins", bounds.twins.memory_bytes()),
            ("bounds.impacts", bounds.impacts.len() * 8),
        ]
    }

    /// The index's analysis profile.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The query terms of `query` under the index's profile (see [`Profile::query_terms`]).
    pub fn query_terms(&self, query: &str) -> Vec<String> {
        self.profile.query_terms(query)
    }

    /// The id of `tok` if it is a scored term (df > 0).
    pub(crate) fn scored_term(&self, tok: &str) -> Option<u32> {
        let term = self.term_ids.get(&self.terms, tok)?;
        let (start, end, _) = self.list(term);
        (end > start).then_some(term)
    }

    /// Where `term`'s postings are in `docs` and `tfs`, and the scale of their term frequencies:
    /// its own range at 1, or the range of the term it shares at [`SHARED_TF_SCALE`]. A term
    /// frequency is `tfs.get(i) * scale` (exact: the scale is a power of two).
    #[inline]
    pub(crate) fn list(&self, term: u32) -> (usize, usize, f64) {
        let (t, scale) = match self.shared.get(term as usize) {
            Some(&source) if source != OWN_POSTINGS => (source as usize, SHARED_TF_SCALE),
            _ => (term as usize, 1.0),
        };
        (
            self.offsets[t] as usize,
            self.offsets[t + 1] as usize,
            scale,
        )
    }

    /// The IDF of `term` (of its document frequency, that of the list it reads): computed
    /// when asked, one logarithm a query term, rather than kept (8 bytes a term).
    #[inline]
    pub(crate) fn idf(&self, term: u32) -> f64 {
        let (start, end, _) = self.list(term);
        bm25::idf(self.len(), end - start)
    }

    /// The documents that hold `term` only in weight-0 fields, ascending.
    pub(crate) fn presence(&self, term: u32) -> &[u32] {
        let t = term as usize;
        match self.presence_offsets.get(t..t + 2) {
            Some(&[start, end]) => &self.presence_docs[start as usize..end as usize],
            _ => &[],
        }
    }

    /// The documents of `term`'s postings, ascending.
    pub(crate) fn doc_list(&self, term: u32) -> &[u32] {
        let (start, end, _) = self.list(term);
        &self.docs[start..end]
    }

    /// `term`'s documents, their stored term frequencies, and the scale of those (see
    /// [`Index::list`]).
    pub(crate) fn postings(&self, term: u32) -> (&[u32], TfSlice<'_>, f64) {
        let (start, end, scale) = self.list(term);
        (&self.docs[start..end], self.tfs.slice(start, end), scale)
    }

    pub(crate) fn term_frequency(&self, term: u32, doc: u32) -> Option<f64> {
        let (docs, tfs, scale) = self.postings(term);
        docs.binary_search(&doc).ok().map(|i| tfs.get(i) * scale)
    }
}

/// Fixtures shared by the submodules' tests.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    const W: [f64; 3] = [6.0, 2.0, 1.0];

    pub(crate) fn build(docs: &[(&str, &[(usize, &str)])]) -> Index {
        let names = docs.iter().map(|(n, _)| n.to_string()).collect();
        let documents: Vec<Vec<(usize, &str)>> = docs.iter().map(|(_, f)| f.to_vec()).collect();
        Index::build(names, &documents, W.to_vec(), Params::default()).unwrap()
    }

    pub(crate) fn none() -> crate::search::SearchOptions {
        crate::search::SearchOptions::default()
    }

    pub(crate) fn ids(hits: &[(u32, f64)]) -> Vec<u32> {
        hits.iter().map(|h| h.0).collect()
    }
}
