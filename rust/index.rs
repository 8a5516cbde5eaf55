//! The compact inverted index: term dictionary, postings in flat arrays, per-document weighted
//! length, precomputed IDF, and top-k search without sorting the matches.
//!
//! A document is a list of `(field id, text)` pairs; each token of a field adds that field's
//! weight to the token's term frequency and to the document length (seed 000's weighted document:
//! the same as repeating each field's tokens `weight` times). Fields of weight 0 are not scored:
//! their terms go to *presence postings* (document ids only, and only for terms the document does
//! not already hold in a scored field), which required terms (`+term`) consult.
//!
//! Text becomes terms through the index's analysis profile ([`crate::analysis`]): the seed's
//! tokens, or (English) CJK bigrams plus half-weight stemmed copies; queries are analysed with
//! the same profile, and the scoring below only sees distinct `(term, qtf)` pairs.
//!
//! Postings are stored as CSR arrays: term `t`'s postings are `docs[offsets[t]..offsets[t+1]]`
//! with their weighted term frequencies in `tfs`, in ascending document order. 8 bytes a posting.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};

use crate::analysis::{self, Profile};
use crate::bm25::Params;
use crate::error::{Error, Result};
use crate::tokenize::Tokenizer;

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
    /// Ids of the scored terms (df > 0), sorted by term: prefix expansion binary-searches it.
    pub(crate) sorted_terms: Vec<u32>,
    pub(crate) offsets: Vec<u32>,
    pub(crate) docs: Vec<u32>,
    pub(crate) tfs: Vec<f32>,
    /// Presence postings (CSR like `docs`): for each term, the documents that contain it *only*
    /// in weight-0 fields. Required terms (`+term`) look here as well as in `docs`. 4 bytes each.
    pub(crate) presence_offsets: Vec<u32>,
    pub(crate) presence_docs: Vec<u32>,
    pub(crate) idf: Vec<f64>,
    pub(crate) lengths: Vec<f64>,
    pub(crate) norms: Vec<f64>,
    pub(crate) avg_len: f64,
    /// How text became terms (see [`crate::analysis`]); queries are analysed the same way.
    pub(crate) profile: Profile,
    /// Derived upper bounds for pruned top-k search (`prune.rs`); not stored in snapshots.
    pub(crate) bounds: crate::prune::Bounds,
}

/// What a search leaves out or adds beyond plain BM25+ ranking. Every option is applied inside
/// the engine, before the top-k cut, so the limit is still filled. `Default` is plain BM25+.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// Document ids never returned (for example the tools a session already activated).
    pub exclude: HashSet<u32>,
    /// When set, only these document ids can be returned (for example one server's tools).
    pub include: Option<HashSet<u32>>,
    /// Terms (already tokenized) that every returned document must contain in some field,
    /// weight-0 fields included. They only filter: they add nothing to the score.
    pub required: Vec<String>,
    /// Prefix matching of query terms that are not in the index (seed 003).
    pub prefix: PrefixOptions,
    /// Absolute threshold: documents scoring below it are dropped (seed 003; 0.0 = off).
    pub threshold: f64,
    /// Relative floor: documents scoring below `relative_floor × best score` are dropped
    /// (0.0 = off; 1.0 keeps only the ties of the best).
    pub relative_floor: f64,
    /// Coverage rule: when the query has 4 or more distinct known terms, a document must match
    /// at least half of them (a prefix-expanded term counts as one term).
    pub coverage: bool,
}

/// Prefix matching of a query term that has no exact term in the index.
///
/// Such a term of at least `min_len` characters expands to the scored index terms that start
/// with it: the first `max_expansions` of them in lexicographic (byte) order. In each document it
/// then contributes `fraction × (the largest BM25+ term score among its expansions present in
/// that document)`, computed with the query term's own query frequency. So a prefix adds at most
/// one term's worth of score, however many forms of the word a tool holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrefixOptions {
    /// Weight of a prefix match relative to an exact one; 0.0 turns prefix matching off.
    pub fraction: f64,
    /// Shortest query term (in characters) that is expanded.
    pub min_len: usize,
    /// Most index terms one query term expands to.
    pub max_expansions: usize,
}

impl Default for PrefixOptions {
    /// Off (`fraction` 0.0); `toolsift.ToolIndex` turns it on with fraction 0.5.
    fn default() -> Self {
        PrefixOptions {
            fraction: 0.0,
            min_len: 3,
            max_expansions: 16,
        }
    }
}

impl SearchOptions {
    /// Checks the numeric options; `Index::search_tokens` calls it.
    pub fn validate(&self) -> Result<()> {
        let p = &self.prefix;
        if !(p.fraction.is_finite() && p.fraction >= 0.0) {
            return Err(Error::InvalidParameter(
                "prefix fraction",
                format!("must be a finite number >= 0, got {}", p.fraction),
            ));
        }
        if !(self.threshold.is_finite() && self.threshold >= 0.0) {
            return Err(Error::InvalidParameter(
                "threshold",
                format!("must be a finite number >= 0, got {}", self.threshold),
            ));
        }
        if !(self.relative_floor.is_finite() && (0.0..=1.0).contains(&self.relative_floor)) {
            return Err(Error::InvalidParameter(
                "relative floor",
                format!("must be between 0 and 1, got {}", self.relative_floor),
            ));
        }
        Ok(())
    }
}

/// One query term's part of a document's score, as `Index::explain` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct TermExplanation {
    /// The query term.
    pub term: String,
    /// The index term that matched: the query term itself, or its best prefix expansion.
    pub matched: String,
    /// Whether `matched` is a prefix expansion of `term`.
    pub prefix: bool,
    /// How often `term` occurs in the query.
    pub qtf: f64,
    pub idf: f64,
    /// The weighted term frequency of `matched` in the document.
    pub tf: f64,
    /// The document's length normalisation `k1 · (1 - b + b · |d| / avgdl)`.
    pub norm: f64,
    /// What the term adds to the score (`fraction ×` the term score for a prefix match).
    pub contribution: f64,
}

/// Per-thread accumulators of one search (see `SCRATCH`).
pub(crate) struct Scratch {
    pub(crate) acc: Vec<f64>,
    pub(crate) touched: Vec<u32>,
    /// Per-document best prefix score of the current query term, and the documents it touched.
    pub(crate) best: Vec<f64>,
    pub(crate) best_touched: Vec<u32>,
    /// Per-document count of matched distinct query terms (only with the coverage rule).
    pub(crate) matched: Vec<u32>,
}

impl Scratch {
    const fn new() -> Self {
        Scratch {
            acc: Vec::new(),
            touched: Vec::new(),
            best: Vec::new(),
            best_touched: Vec::new(),
            matched: Vec::new(),
        }
    }
}

thread_local! {
    // One accumulator per thread, reused across queries and indexes: no allocation per query,
    // and threads searching one shared index never contend.
    static SCRATCH: RefCell<Scratch> = const { RefCell::new(Scratch::new()) };
}

/// The postings of one required term: its scored documents and its presence-only documents.
type Required<'a> = (&'a [u32], &'a [u32]);

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

/// CSR arrays of `(term, doc)` pairs given in ascending document order: `offsets[t]..offsets[t+1]`
/// indexes term `t`'s documents, still ascending.
fn bucket_by_term(pairs: &[(u32, u32)], n_terms: usize) -> (Vec<u32>, Vec<u32>) {
    let mut counts = vec![0u32; n_terms + 1];
    for &(term, _) in pairs {
        counts[term as usize + 1] += 1;
    }
    for t in 0..n_terms {
        counts[t + 1] += counts[t];
    }
    let mut cursor: Vec<u32> = counts[..n_terms].to_vec();
    let mut docs = vec![0u32; pairs.len()];
    for &(term, doc) in pairs {
        let slot = &mut cursor[term as usize];
        docs[*slot as usize] = doc;
        *slot += 1;
    }
    (counts, docs)
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
        Index::build_profiled(names, documents, field_weights, params, Profile::Seed)
    }

    /// [`Index::build`] with an analysis profile: the reference (sequential) build.
    pub fn build_profiled<S: AsRef<str>>(
        names: Vec<String>,
        documents: &[Vec<(usize, S)>],
        field_weights: Vec<f64>,
        params: Params,
        profile: Profile,
    ) -> Result<Index> {
        crate::build::check_build_inputs(names.len(), documents.len(), &field_weights)?;
        let mut term_ids = TermMap::default();
        let mut terms: Vec<Box<str>> = Vec::new();
        // (term, doc, tf) triples in document order; bucketed by term below.
        let mut entries: Vec<(u32, u32, f32)> = Vec::new();
        // (term, doc) pairs of terms found only in weight-0 fields of the document.
        let mut presence: Vec<(u32, u32)> = Vec::new();
        let mut df: Vec<u32> = Vec::new();
        let mut lengths = Vec::with_capacity(documents.len());
        let mut doc_tf: HashMap<u32, f64, ahash::RandomState> = HashMap::default();
        let mut doc_presence: HashSet<u32, ahash::RandomState> = HashSet::default();
        let mut order: Vec<u32> = Vec::new();
        let mut presence_order: Vec<u32> = Vec::new();
        let mut tokenizer = Tokenizer::new();
        for (doc, fields) in documents.iter().enumerate() {
            doc_tf.clear();
            doc_presence.clear();
            order.clear();
            presence_order.clear();
            let mut length = 0.0f64;
            for (field, text) in fields {
                let weight = *field_weights.get(*field).ok_or_else(|| {
                    Error::InvalidDocument(format!(
                        "document {doc} uses field {field}, but only {} field weights were given",
                        field_weights.len()
                    ))
                })?;
                profile.for_each_term(&mut tokenizer, text.as_ref(), |tok| {
                    let mut intern = |tok: &str| match term_ids.get(tok) {
                        Some(&id) => id,
                        None => {
                            let id = terms.len() as u32;
                            terms.push(tok.into());
                            term_ids.insert(tok.into(), id);
                            df.push(0);
                            id
                        }
                    };
                    let id = intern(tok);
                    if weight == 0.0 {
                        if doc_presence.insert(id) {
                            presence_order.push(id);
                        }
                        return;
                    }
                    // The plain term, then (English profile) its stemmed copy at a fraction.
                    let copy = profile.stems().then(|| {
                        (
                            intern(&analysis::stem_copy(tok)),
                            weight * analysis::STEM_WEIGHT,
                        )
                    });
                    for (id, w) in std::iter::once((id, weight)).chain(copy) {
                        let tf = doc_tf.entry(id).or_insert_with(|| {
                            order.push(id);
                            0.0
                        });
                        *tf += w;
                        length += w;
                    }
                });
            }
            for &id in &order {
                let tf = doc_tf[&id];
                df[id as usize] += 1;
                entries.push((id, doc as u32, tf as f32));
            }
            for &id in &presence_order {
                if !doc_tf.contains_key(&id) {
                    presence.push((id, doc as u32));
                }
            }
            lengths.push(length);
        }
        if entries.len() > u32::MAX as usize || presence.len() > u32::MAX as usize {
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
        let (presence_offsets, presence_docs) = bucket_by_term(&presence, terms.len());
        // Everything derived (idf, norms, the sorted dictionary, pruning bounds) is computed where
        // the parallel build, a snapshot load and an update compute it.
        Ok(crate::build::assemble(
            params,
            profile,
            field_weights,
            names,
            terms,
            Some(term_ids),
            crate::build::Postings {
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
            + self.sorted_terms.len() * 4
            + self.offsets.len() * 4
            + self.docs.len() * 4
            + self.presence_offsets.len() * 4
            + self.presence_docs.len() * 4
            + self.tfs.len() * 4
            + self.idf.len() * 8
            + self.lengths.len() * 8
            + self.norms.len() * 8
            + self.bounds.memory_bytes()
    }

    /// The index's analysis profile.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The query terms of `query` under the index's profile (see [`Profile::query_terms`]).
    pub fn query_terms(&self, query: &str) -> Vec<String> {
        self.profile.query_terms(query)
    }

    /// Analyses `query` with the index's profile and searches it; see [`Index::search_tokens`].
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        options: &SearchOptions,
    ) -> Result<Vec<(u32, f64)>> {
        self.search_tokens(&self.query_terms(query), limit, options)
    }

    /// The top `limit` documents for query `tokens` by BM25+ score (descending, then name
    /// ascending), after applying `options`. Only documents with a score > 0 are returned.
    ///
    /// This is the single entry point of every ranked search (batch search calls it too).
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
        options.validate()?;
        if self.is_empty() {
            return Ok(Vec::new());
        }
        let Some(required) = self.required_postings(&options.required) else {
            return Ok(Vec::new());
        };
        let query = distinct_terms(tokens);
        let min_matched = |known: usize| {
            // The coverage rule: with 4+ distinct known terms, match at least half of them.
            if options.coverage && known >= 4 {
                known.div_ceil(2) as u32
            } else {
                0
            }
        };
        let pruned = self.search_pruned(&query, options, limit, min_matched, |doc, score| {
            score >= options.threshold && self.passes(doc, options, &required)
        });
        let mut hits = if let Some(hits) = pruned {
            hits
        } else {
            SCRATCH.with(|cell| {
                let mut scratch = cell.borrow_mut();
                let known = self.accumulate(&query, options, &mut scratch);
                let min_matched = min_matched(known);
                let Scratch {
                    acc,
                    touched,
                    matched,
                    ..
                } = &*scratch;
                let hits = self.top_k(acc, touched, limit, |doc, score| {
                    score >= options.threshold
                        && self.passes(doc, options, &required)
                        && (min_matched == 0 || matched[doc as usize] >= min_matched)
                });
                scratch.reset();
                hits
            })
        };
        if options.relative_floor > 0.0 {
            if let Some(&(_, best)) = hits.first() {
                let floor = options.relative_floor * best;
                hits.retain(|&(_, score)| score >= floor);
            }
        }
        Ok(hits)
    }

    /// The BM25+ scores of the given documents for `tokens` (0.0 where nothing matches; `tokens`
    /// may be empty), in the order given, leaving out the documents that `options.exclude`,
    /// `options.include` or `options.required` rule out. Prefix matching applies; the threshold,
    /// relative floor and coverage rule do not. The exact-name tier orders named tools with it.
    pub fn score_documents<S: AsRef<str>>(
        &self,
        tokens: &[S],
        docs: &[u32],
        options: &SearchOptions,
    ) -> Result<Vec<(u32, f64)>> {
        options.validate()?;
        let Some(required) = self.required_postings(&options.required) else {
            return Ok(Vec::new());
        };
        let query = distinct_terms(tokens);
        SCRATCH.with(|cell| {
            let mut scratch = cell.borrow_mut();
            self.accumulate(&query, options, &mut scratch);
            let out = docs
                .iter()
                .filter(|&&doc| (doc as usize) < self.len() && self.passes(doc, options, &required))
                .map(|&doc| (doc, scratch.acc[doc as usize]))
                .collect();
            scratch.reset();
            Ok(out)
        })
    }

    /// Each distinct query term's part of `doc`'s score, in query order; the contributions
    /// summed left to right from 0.0 give exactly the score `search_tokens` reports. Terms that
    /// do not match `doc` are left out. `None` when `doc` is out of range.
    pub fn explain<S: AsRef<str>>(
        &self,
        tokens: &[S],
        doc: u32,
        options: &SearchOptions,
    ) -> Result<Option<Vec<TermExplanation>>> {
        options.validate()?;
        let d = doc as usize;
        if d >= self.len() {
            return Ok(None);
        }
        let norm = self.norms[d];
        let mut out = Vec::new();
        for (tok, qtf) in distinct_terms(tokens) {
            if let Some(term) = self.scored_term(tok) {
                if let Some(tf) = self.term_frequency(term, doc) {
                    let idf = self.idf[term as usize];
                    out.push(TermExplanation {
                        term: tok.to_owned(),
                        matched: tok.to_owned(),
                        prefix: false,
                        qtf,
                        idf,
                        tf,
                        norm,
                        contribution: self.params.term_score(qtf, idf, tf, norm),
                    });
                }
                continue;
            }
            let fraction = options.prefix.fraction;
            let mut best: Option<TermExplanation> = None;
            for term in self.expansions(tok, &options.prefix) {
                let Some(tf) = self.term_frequency(term, doc) else {
                    continue;
                };
                let idf = self.idf[term as usize];
                let contribution = fraction * self.params.term_score(qtf, idf, tf, norm);
                // The first expansion (lexicographic) wins a tie, as in `accumulate`.
                if best
                    .as_ref()
                    .map_or(true, |b| contribution > b.contribution)
                {
                    best = Some(TermExplanation {
                        term: tok.to_owned(),
                        matched: self.terms[term as usize].to_string(),
                        prefix: true,
                        qtf,
                        idf,
                        tf,
                        norm,
                        contribution,
                    });
                }
            }
            if let Some(b) = best {
                if b.contribution != 0.0 {
                    out.push(b);
                }
            }
        }
        Ok(Some(out))
    }

    /// The id of `tok` if it is a scored term (df > 0).
    pub(crate) fn scored_term(&self, tok: &str) -> Option<u32> {
        let &term = self.term_ids.get(tok)?;
        (self.offsets[term as usize + 1] > self.offsets[term as usize]).then_some(term)
    }

    fn postings(&self, term: u32) -> (&[u32], &[f32]) {
        let (start, end) = (
            self.offsets[term as usize] as usize,
            self.offsets[term as usize + 1] as usize,
        );
        (&self.docs[start..end], &self.tfs[start..end])
    }

    fn term_frequency(&self, term: u32, doc: u32) -> Option<f64> {
        let (docs, tfs) = self.postings(term);
        docs.binary_search(&doc).ok().map(|i| tfs[i] as f64)
    }

    /// The scored terms that `tok` expands to (see [`PrefixOptions`]); empty when prefix
    /// matching is off or `tok` is too short.
    pub(crate) fn expansions<'a>(
        &'a self,
        tok: &'a str,
        prefix: &PrefixOptions,
    ) -> impl Iterator<Item = u32> + 'a {
        // Stemmed copies never expand (see `crate::analysis`).
        let on = prefix.fraction > 0.0
            && !analysis::is_marked(tok)
            && tok.chars().count() >= prefix.min_len;
        let start = if on {
            self.sorted_terms
                .partition_point(|&t| &*self.terms[t as usize] < tok)
        } else {
            self.sorted_terms.len()
        };
        self.sorted_terms[start..]
            .iter()
            .copied()
            .take_while(move |&t| self.terms[t as usize].starts_with(tok))
            .take(if on { prefix.max_expansions } else { 0 })
    }

    /// Adds every query term's BM25+ contribution to `scratch.acc`; returns the number of known
    /// query terms (scored, or with at least one prefix expansion).
    fn accumulate(
        &self,
        query: &[(&str, f64)],
        options: &SearchOptions,
        scratch: &mut Scratch,
    ) -> usize {
        let n = self.len();
        if scratch.acc.len() < n {
            scratch.acc.resize(n, 0.0);
            scratch.best.resize(n, 0.0);
        }
        let count = options.coverage;
        if count && scratch.matched.len() < n {
            scratch.matched.resize(n, 0);
        }
        // Past `blocked::MIN_DOCS` the accumulator outgrows the cache: score range by range.
        if self.use_blocked() {
            return self.accumulate_blocked(query, options, scratch);
        }
        let Scratch {
            acc,
            touched,
            best,
            best_touched,
            matched,
        } = scratch;
        let mut known = 0;
        for &(tok, qtf) in query {
            if let Some(term) = self.scored_term(tok) {
                known += 1;
                let idf = self.idf[term as usize];
                let (docs, tfs) = self.postings(term);
                // Branch-free bookkeeping: every document is written after the touched ones and
                // kept only when this term is its first contribution.
                let mut len = touched.len();
                touched.resize(len + docs.len(), 0);
                for (&doc, &tf) in docs.iter().zip(tfs) {
                    let d = doc as usize;
                    let before = acc[d];
                    let after = before + self.params.term_score(qtf, idf, tf as f64, self.norms[d]);
                    acc[d] = after;
                    touched[len] = doc;
                    len += usize::from(before == 0.0 && after != 0.0);
                    if count {
                        matched[d] += 1;
                    }
                }
                touched.truncate(len);
                continue;
            }
            let fraction = options.prefix.fraction;
            let mut any = false;
            for term in self.expansions(tok, &options.prefix) {
                any = true;
                let idf = self.idf[term as usize];
                let (docs, tfs) = self.postings(term);
                for (&doc, &tf) in docs.iter().zip(tfs) {
                    let d = doc as usize;
                    let score =
                        fraction * self.params.term_score(qtf, idf, tf as f64, self.norms[d]);
                    if best[d] == 0.0 {
                        best_touched.push(doc);
                    }
                    if score > best[d] {
                        best[d] = score;
                    }
                }
            }
            if any {
                known += 1;
            }
            for &doc in best_touched.iter() {
                let d = doc as usize;
                let before = acc[d];
                acc[d] = before + best[d];
                if before == 0.0 && acc[d] != 0.0 {
                    touched.push(doc);
                }
                if count {
                    matched[d] += 1;
                }
                best[d] = 0.0;
            }
            best_touched.clear();
        }
        known
    }

    /// The postings of each required term (each of its plain terms), or `None` when one of them
    /// is in no document (then nothing can match).
    fn required_postings<S: AsRef<str>>(&self, required: &[S]) -> Option<Vec<Required<'_>>> {
        let mut out = Vec::with_capacity(required.len());
        for tok in required {
            // One token, matched as the plain terms the profile makes of it (CJK bigrams in the
            // English profile; never stemmed).
            for term in self.profile.required_terms(tok.as_ref()) {
                let &term = self.term_ids.get(term.as_str())?;
                let t = term as usize;
                let scored = &self.docs[self.offsets[t] as usize..self.offsets[t + 1] as usize];
                let only = &self.presence_docs
                    [self.presence_offsets[t] as usize..self.presence_offsets[t + 1] as usize];
                out.push((scored, only));
            }
        }
        Some(out)
    }

    /// Whether `doc` survives `exclude`, `include` and the required terms.
    fn passes(&self, doc: u32, options: &SearchOptions, required: &[Required<'_>]) -> bool {
        !options.exclude.contains(&doc)
            && options
                .include
                .as_ref()
                .map_or(true, |inc| inc.contains(&doc))
            && required.iter().all(|(scored, only)| {
                scored.binary_search(&doc).is_ok() || only.binary_search(&doc).is_ok()
            })
    }

    fn top_k(
        &self,
        acc: &[f64],
        touched: &[u32],
        limit: usize,
        keep: impl Fn(u32, f64) -> bool,
    ) -> Vec<(u32, f64)> {
        let mut top = TopK::new(limit);
        for &doc in touched {
            top.offer(self, doc, acc[doc as usize], &keep);
        }
        top.into_sorted()
    }
}

/// The best `limit` documents offered so far (score descending, then name, then doc id).
pub(crate) struct TopK<'a> {
    heap: BinaryHeap<Candidate<'a>>,
    limit: usize,
}

impl<'a> TopK<'a> {
    pub(crate) fn new(limit: usize) -> Self {
        TopK {
            heap: BinaryHeap::with_capacity(limit.saturating_add(1).min(1024)),
            limit,
        }
    }

    /// Offers `doc` with `score`; documents with a score <= 0 (or NaN), or failing `keep`, are
    /// left out. Returns whether `doc` entered the top k.
    #[inline]
    pub(crate) fn offer(
        &mut self,
        index: &'a Index,
        doc: u32,
        score: f64,
        keep: impl Fn(u32, f64) -> bool,
    ) -> bool {
        if score.is_nan() || score <= 0.0 {
            return false;
        }
        // Most candidates lose on score alone: skip them before the filters and their name.
        let full = self.heap.len() == self.limit;
        if full && self.heap.peek().is_some_and(|worst| score < worst.score) {
            return false;
        }
        if !keep(doc, score) {
            return false;
        }
        let cand = Candidate {
            score,
            doc,
            name: &index.names[doc as usize],
        };
        if !full {
            self.heap.push(cand);
            return true;
        }
        match self.heap.peek() {
            Some(worst) if cand.worse_than(worst) == Ordering::Less => {
                self.heap.pop();
                self.heap.push(cand);
                true
            }
            _ => false,
        }
    }

    /// The k-th best score once `limit` documents are held.
    #[inline]
    pub(crate) fn threshold(&self) -> Option<f64> {
        if self.heap.len() == self.limit {
            self.heap.peek().map(|c| c.score)
        } else {
            None
        }
    }

    pub(crate) fn into_sorted(self) -> Vec<(u32, f64)> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|c| (c.doc, c.score))
            .collect()
    }
}

impl Scratch {
    /// Zeroes what the last query touched, so the next one starts clean.
    fn reset(&mut self) {
        for &doc in &self.touched {
            self.acc[doc as usize] = 0.0;
            if let Some(m) = self.matched.get_mut(doc as usize) {
                *m = 0;
            }
        }
        self.touched.clear();
    }
}

/// Distinct query terms in first-seen order with their query frequencies.
///
/// Short queries scan the terms seen so far; long ones (natural-language agent queries run to
/// 30–60 analysed terms) look them up in a hash map instead of comparing every pair.
fn distinct_terms<S: AsRef<str>>(tokens: &[S]) -> Vec<(&str, f64)> {
    let mut query: Vec<(&str, f64)> = Vec::with_capacity(tokens.len());
    if tokens.len() <= DISTINCT_SCAN_MAX {
        for tok in tokens {
            let tok = tok.as_ref();
            match query.iter_mut().find(|(t, _)| *t == tok) {
                Some((_, count)) => *count += 1.0,
                None => query.push((tok, 1.0)),
            }
        }
        return query;
    }
    let mut slot: HashMap<&str, usize, ahash::RandomState> =
        HashMap::with_capacity_and_hasher(tokens.len(), Default::default());
    for tok in tokens {
        let tok = tok.as_ref();
        match slot.entry(tok) {
            std::collections::hash_map::Entry::Occupied(e) => query[*e.get()].1 += 1.0,
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(query.len());
                query.push((tok, 1.0));
            }
        }
    }
    query
}

/// Up to this many query tokens, `distinct_terms` scans instead of hashing.
const DISTINCT_SCAN_MAX: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bm25;

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
            ..SearchOptions::default()
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
    fn distinct_terms_hashing_matches_the_scan() {
        // Long token lists take the hash-map path: same terms, order and counts as the scan.
        fn scan(tokens: &[String]) -> Vec<(&str, f64)> {
            let mut q: Vec<(&str, f64)> = Vec::new();
            for tok in tokens {
                match q.iter_mut().find(|(t, _)| *t == tok.as_str()) {
                    Some((_, c)) => *c += 1.0,
                    None => q.push((tok.as_str(), 1.0)),
                }
            }
            q
        }
        for n in [
            0usize,
            1,
            5,
            DISTINCT_SCAN_MAX,
            DISTINCT_SCAN_MAX + 1,
            40,
            200,
        ] {
            let tokens: Vec<String> = (0..n).map(|i| format!("t{}", (i * 7) % 13)).collect();
            assert_eq!(distinct_terms(&tokens), scan(&tokens), "{n}");
        }
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

    fn ids(hits: &[(u32, f64)]) -> Vec<u32> {
        hits.iter().map(|h| h.0).collect()
    }

    #[test]
    fn required_terms_filter_with_presence_postings_and_add_nothing() {
        // Field 3 has weight 0: its words are only presence postings.
        let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let docs = vec![
            vec![(0usize, "send message"), (3, "slack workspace")],
            vec![(0, "send message")],
            vec![(0, "send mail"), (1, "slack")],
        ];
        let idx = Index::build(names, &docs, vec![6.0, 2.0, 1.0, 0.0], Params::default()).unwrap();
        assert_eq!(idx.vocabulary_size(), 4); // send message mail slack; "workspace" is not scored
        let plain = idx.search("send", 8, &none()).unwrap();
        let cases: &[(&[&str], &[u32])] = &[
            (&["slack"], &[2, 0]),
            (&["workspace"], &[0]),
            (&["slack", "workspace"], &[0]),
            (&["nowhere"], &[]),
            (&[], &[0, 1, 2]),
        ];
        for (required, want) in cases {
            let opts = SearchOptions {
                required: required.iter().map(|s| s.to_string()).collect(),
                ..SearchOptions::default()
            };
            let hits = idx.search("send", 8, &opts).unwrap();
            let mut got = ids(&hits);
            got.sort_unstable();
            let mut want = want.to_vec();
            want.sort_unstable();
            assert_eq!(got, want, "{required:?}");
            for (doc, score) in hits {
                assert_eq!(plain.iter().find(|h| h.0 == doc).map(|h| h.1), Some(score));
            }
        }
    }

    #[test]
    fn prefix_expansion_takes_the_best_expansion_at_a_fraction() {
        let idx = build(&[
            ("a", &[(0, "screenshot screen")]),
            ("b", &[(0, "screen")]),
            ("c", &[(0, "scribble")]),
        ]);
        let prefix = |fraction, max_expansions| SearchOptions {
            prefix: PrefixOptions {
                fraction,
                min_len: 3,
                max_expansions,
            },
            ..SearchOptions::default()
        };
        assert_eq!(idx.search("scree", 8, &none()).unwrap(), vec![]);
        let half = idx.search("scree", 8, &prefix(0.5, 16)).unwrap();
        let exact_a = idx.search("screen", 8, &none()).unwrap();
        let shot = idx.search("screenshot", 8, &none()).unwrap();
        // Document a holds "screen" and "screenshot": the larger term score counts, once.
        let a = half.iter().find(|h| h.0 == 0).unwrap().1;
        let screen_a = exact_a.iter().find(|h| h.0 == 0).unwrap().1;
        assert_eq!(a, 0.5 * screen_a.max(shot[0].1));
        // "scree" → "screen" first (lexicographic); with one expansion "screenshot" is never used.
        let one = idx.search("scree", 8, &prefix(0.5, 1)).unwrap();
        assert_eq!(one.len(), 2);
        // Too short, or an exact term: no expansion.
        assert_eq!(idx.search("sc", 8, &prefix(0.5, 16)).unwrap(), vec![]);
        assert_eq!(
            ids(&idx.search("screen", 8, &prefix(0.5, 16)).unwrap()).len(),
            2
        );
        // explain reports the chosen expansion and sums to the score.
        let why = idx
            .explain(&["scree"], 0, &prefix(0.5, 16))
            .unwrap()
            .unwrap();
        assert_eq!(why.len(), 1);
        assert!(why[0].prefix);
        assert_eq!(why[0].contribution, a);
    }

    #[test]
    fn include_threshold_floor_and_coverage() {
        let idx = build(&[
            ("a", &[(1, "w x y z")]),
            ("b", &[(1, "w x")]),
            ("c", &[(1, "w")]),
        ]);
        let all = idx.search("w x y z", 8, &none()).unwrap();
        assert_eq!(ids(&all), vec![0, 1, 2]);
        let with = |f: &dyn Fn(&mut SearchOptions)| {
            let mut o = SearchOptions::default();
            f(&mut o);
            ids(&idx.search("w x y z", 8, &o).unwrap())
        };
        assert_eq!(
            with(&|o| o.include = Some([1, 2].into_iter().collect())),
            vec![1, 2]
        );
        let t = all[1].1;
        assert_eq!(with(&|o| o.threshold = t), vec![0, 1]);
        assert_eq!(with(&|o| o.relative_floor = 1.0), vec![0]);
        // 4 known terms: a document must match 2.
        assert_eq!(with(&|o| o.coverage = true), vec![0, 1]);
        let bad = SearchOptions {
            relative_floor: 2.0,
            ..SearchOptions::default()
        };
        assert!(matches!(
            idx.search("w", 8, &bad),
            Err(Error::InvalidParameter(..))
        ));
    }

    #[test]
    fn score_documents_keeps_zero_scores_and_applies_filters() {
        let idx = build(&[("a", &[(1, "x")]), ("b", &[(1, "y")]), ("c", &[(1, "x")])]);
        let opts = SearchOptions {
            exclude: [2].into_iter().collect(),
            ..SearchOptions::default()
        };
        let got = idx.score_documents(&["x"], &[1, 0, 2, 99], &opts).unwrap();
        assert_eq!(ids(&got), vec![1, 0]);
        assert_eq!(got[0].1, 0.0);
        assert!(got[1].1 > 0.0);
        let empty: [&str; 0] = [];
        assert_eq!(
            idx.score_documents(&empty, &[0], &none()).unwrap(),
            vec![(0, 0.0)]
        );
    }
}
