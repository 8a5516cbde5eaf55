//! Ranked search: the single entry point [`Index::search_tokens`], and its exhaustive path, which
//! adds every posting of every query term into a per-thread accumulator (`accumulate`) and keeps
//! the top k of the touched documents. Pruned search (`prune.rs`) and the blocked accumulator
//! (`blocked.rs`, past `blocked::MIN_DOCS` documents) give the same results.

pub mod batch;
pub mod cache_blocked;
pub mod dense;
mod explain;
pub mod fast_path;
pub mod keyword;
pub mod name_keys;
mod options;
pub mod prune;
mod top_k;

pub use explain::TermExplanation;
pub use options::{PrefixOptions, SearchOptions};
pub(crate) use top_k::TopK;

use std::cell::RefCell;
use std::collections::HashMap;

use crate::analysis;
use crate::error::{Error, Result};
use crate::index::Index;

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

    /// Zeroes what the last query touched, so the next one starts clean.
    pub(super) fn reset(&mut self) {
        for &doc in &self.touched {
            self.acc[doc as usize] = 0.0;
            if let Some(m) = self.matched.get_mut(doc as usize) {
                *m = 0;
            }
        }
        self.touched.clear();
    }
}

thread_local! {
    // One accumulator per thread, reused across queries and indexes: no allocation per query,
    // and threads searching one shared index never contend.
    pub(super) static SCRATCH: RefCell<Scratch> = const { RefCell::new(Scratch::new()) };
}

impl Index {
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
                .partition_point(|&t| &self.terms[t as usize] < tok)
        } else {
            self.sorted_terms.len()
        };
        self.sorted_terms[start..]
            .iter()
            .copied()
            .take_while(move |&t| self.terms[t as usize].starts_with(tok))
            .take(if on { prefix.max_expansions } else { 0 })
    }

    /// Analyses `query` with the index's profile and searches it; see [`Index::search_tokens`].
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        options: &SearchOptions,
    ) -> Result<Vec<(u32, f64)>> {
        let terms = self
            .profile
            .analyse_query_for(query, Some((self.tag, |t: &str| self.term_ref(t))));
        if !terms.distinct() {
            let tokens: Vec<&str> = terms.iter().collect();
            return self.search_tokens(&tokens, limit, options);
        }
        // Already distinct (the English analysis dedupes): the weights without a hash pass.
        let query: Vec<(&str, f64)> = terms.iter().map(|t| (t, query_weight(t))).collect();
        debug_assert_eq!(query, distinct_terms(&terms.iter().collect::<Vec<_>>()));
        let refs = Some(terms.refs()).filter(|r| r.len() == query.len());
        debug_assert!(refs.is_some_and(|r| r
            .iter()
            .zip(&query)
            .all(|(&r, &(t, _))| r == self.term_ref(t))));
        self.search_distinct(&query, refs, limit, options)
    }

    /// Each of `query`'s terms as a [`Index::term_ref`]: `refs` when the caller has them (the
    /// query analysis's cache), else looked up, an unknown term as [`MAY_EXPAND`] (prefix
    /// expansion then decides). The exhaustive and pruned loops both start here.
    #[inline]
    pub(crate) fn query_refs<'r>(
        &self,
        query: &[(&str, f64)],
        refs: Option<&'r [u32]>,
    ) -> std::borrow::Cow<'r, [u32]> {
        match refs {
            Some(refs) => refs.into(),
            None => query
                .iter()
                .map(|&(tok, _)| self.scored_term(tok).unwrap_or(MAY_EXPAND))
                .collect(),
        }
    }

    /// What the exhaustive loop needs to know of a query term, in one `u32` that the query
    /// analysis caches per index (`analysis::Profile::analyse_query_for`): the term's id when it
    /// is scored ([`Index::scored_term`]), else [`MAY_EXPAND`] when some scored term starts with
    /// it (prefix expansion may find it), else [`NO_EXPANSION`].
    pub(crate) fn term_ref(&self, term: &str) -> u32 {
        if let Some(id) = self.scored_term(term) {
            return id;
        }
        let start = self
            .sorted_terms
            .partition_point(|&t| &self.terms[t as usize] < term);
        let prefixed = self
            .sorted_terms
            .get(start)
            .is_some_and(|&t| self.terms[t as usize].starts_with(term));
        if prefixed && !analysis::is_marked(term) {
            MAY_EXPAND
        } else {
            NO_EXPANSION
        }
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
        self.search_distinct(&distinct_terms(tokens), None, limit, options)
    }

    /// [`Index::search_tokens`] of distinct `(term, qtf)` pairs, in first-seen order, with
    /// their [`Index::term_ref`]s when the caller has them.
    fn search_distinct(
        &self,
        query: &[(&str, f64)],
        refs: Option<&[u32]>,
        limit: usize,
        options: &SearchOptions,
    ) -> Result<Vec<(u32, f64)>> {
        if query.is_empty() {
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
        let min_matched = |known: usize| {
            // The coverage rule: with 4+ distinct known terms, match at least half of them.
            if options.coverage && known >= 4 {
                known.div_ceil(2) as u32
            } else {
                0
            }
        };
        let pruned = self.search_pruned(query, refs, options, limit, min_matched, |doc, score| {
            score >= options.threshold && self.passes(doc, options, &required)
        });
        let mut hits = if let Some(hits) = pruned {
            hits
        } else {
            SCRATCH.with(|cell| {
                let mut scratch = cell.borrow_mut();
                let known = self.accumulate(query, refs, options, &mut scratch);
                let min_matched = min_matched(known);
                let count = options.coverage;
                self.top_k_and_reset(&mut scratch, limit, count, |doc, score, matched| {
                    score >= options.threshold
                        && self.passes(doc, options, &required)
                        && (min_matched == 0 || matched >= min_matched)
                })
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

    /// Adds every query term's BM25+ contribution to `scratch.acc`; returns the number of known
    /// query terms (scored, or with at least one prefix expansion). `refs`, when given, are the
    /// terms' [`Index::term_ref`]s (one per term), which spare the lookups.
    pub(super) fn accumulate(
        &self,
        query: &[(&str, f64)],
        refs: Option<&[u32]>,
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
        // Each query term's id, looked up once (the pairing test below looks one term ahead).
        let ids = self.query_refs(query, refs);
        let mut known = 0;
        let mut next = 0;
        while next < query.len() {
            let (tok, qtf) = query[next];
            let (id, may_expand) = (id_of(ids[next]), ids[next] == MAY_EXPAND);
            next += 1;
            if let Some(term) = id {
                known += 1;
                let (docs, tfs, scale) = self.postings(term);
                // The next term may hold exactly the same documents (in the English profile, a
                // word and its stemmed copy when no other word has that stem): both are added
                // in one pass, in the same order, so the sums are the same. (A shared copy
                // reads its word's very list.)
                let pair = query.get(next).and_then(|&(_, qtf2)| {
                    let term2 = id_of(ids[next])?;
                    let (docs2, tfs2, scale2) = self.postings(term2);
                    let same = || std::ptr::eq(docs2, docs) || docs2 == docs;
                    self.bounds
                        .twins
                        .same(term, term2, same)
                        .then_some((qtf2, term2, tfs2, scale2))
                });
                if pair.is_some() {
                    known += 1;
                    next += 1;
                }
                let (qtf2, term2, tfs2, scale2) = pair.unwrap_or((qtf, term, tfs, scale));
                let (qi, qi2) = (
                    qtf * self.idf[term as usize],
                    qtf2 * self.idf[term2 as usize],
                );
                let kind = (pair.is_some(), count, touched.is_empty());
                let impacts = &self.bounds.impacts;
                if impacts.is_empty() {
                    let computed = |tfs, scale| Computed {
                        tfs,
                        scale,
                        norms: &self.norms,
                        k1p1: self.params.k1 + 1.0,
                        delta: self.params.delta,
                    };
                    add_postings_as(
                        kind,
                        docs,
                        (qi, computed(tfs, scale)),
                        (qi2, computed(tfs2, scale2)),
                        (&mut acc[..n], touched, matched),
                    );
                } else {
                    // Impacts are stored only where no term shares (see `Bounds::impacts`).
                    debug_assert!(self.shared.is_empty());
                    let stored = |term: u32| {
                        let start = self.offsets[term as usize] as usize;
                        Stored(&impacts[start..start + docs.len()])
                    };
                    add_postings_as(
                        kind,
                        docs,
                        (qi, stored(term)),
                        (qi2, stored(term2)),
                        (&mut acc[..n], touched, matched),
                    );
                }
                continue;
            }
            if !may_expand {
                continue; // no scored term starts with it: no expansion
            }
            let fraction = options.prefix.fraction;
            let mut any = false;
            for term in self.expansions(tok, &options.prefix) {
                any = true;
                let idf = self.idf[term as usize];
                let (docs, tfs, scale) = self.postings(term);
                for (&doc, &tf) in docs.iter().zip(tfs) {
                    let d = doc as usize;
                    let tf = tf as f64 * scale;
                    let score = fraction * self.params.term_score(qtf, idf, tf, self.norms[d]);
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

    /// The top `limit` of the touched documents, zeroing the accumulator (and the matched
    /// counts) behind it in the same pass, so the scratch is clean for the next query: one walk
    /// over the touched documents instead of two (the walk and the reset were half of a 10k
    /// search's time outside the posting loop). `keep` sees the document, its score and its
    /// matched count (0 without the coverage rule, `count` false: the counts are then all 0 and
    /// may be shorter than the index, as another index's queries left them).
    fn top_k_and_reset(
        &self,
        scratch: &mut Scratch,
        limit: usize,
        count: bool,
        keep: impl Fn(u32, f64, u32) -> bool,
    ) -> Vec<(u32, f64)> {
        let mut top = TopK::new(limit);
        let Scratch {
            acc,
            touched,
            matched,
            ..
        } = scratch;
        if !count {
            let acc = &mut acc[..];
            // Most touched documents lose on score: a group of them is read and zeroed, and
            // offered one by one only when its best score reaches the floor (one comparison
            // and one branch for the group instead of two per document).
            let mut groups = touched.chunks_exact(WALK_GROUP);
            for group in &mut groups {
                let scores: [f64; WALK_GROUP] =
                    std::array::from_fn(|i| std::mem::replace(&mut acc[group[i] as usize], 0.0));
                if all_below(&scores, top.floor()) {
                    continue; // every score is below it
                }
                for (&doc, &score) in group.iter().zip(&scores) {
                    top.offer(self, doc, score, |doc, score| keep(doc, score, 0));
                }
            }
            for &doc in groups.remainder() {
                let score = std::mem::replace(&mut acc[doc as usize], 0.0);
                top.offer(self, doc, score, |doc, score| keep(doc, score, 0));
            }
        } else {
            for &doc in touched.iter() {
                let d = doc as usize;
                let score = std::mem::replace(&mut acc[d], 0.0);
                let count = std::mem::replace(&mut matched[d], 0);
                top.offer(self, doc, score, |doc, score| keep(doc, score, count));
            }
        }
        touched.clear();
        top.into_sorted()
    }
}

/// [`Index::term_ref`] of a term that is not scored but starts some scored term.
pub(crate) const MAY_EXPAND: u32 = u32::MAX - 1;
/// [`Index::term_ref`] of a term that is not scored and starts no scored term.
pub(crate) const NO_EXPANSION: u32 = u32::MAX;

/// The scored term id a [`Index::term_ref`] holds, if it holds one.
#[inline]
pub(crate) fn id_of(term_ref: u32) -> Option<u32> {
    (term_ref < MAY_EXPAND).then_some(term_ref)
}

/// How many touched documents the top-k walk reads before one comparison with the floor.
const WALK_GROUP: usize = 8;

/// Whether every score of a walk group is below `floor`: eight independent comparisons and'ed
/// together (two-lane compares and one mask), where a running `f64::max` chained eight NaN-aware
/// steps, most of the walk's time. A NaN is not below the floor, so its group is not skipped and
/// each score is offered alone (`TopK::offer` never keeps a NaN), as before.
#[inline(always)]
fn all_below(scores: &[f64; WALK_GROUP], floor: f64) -> bool {
    scores.iter().fold(true, |all, &s| all & (s < floor))
}

/// Where a posting's impact comes from: the parenthesis of `Params::term_score`,
/// `tf·(k1+1)/(tf+norm) + δ`, for the posting at `i` of a list, of document `d`.
trait Impacts: Sized {
    fn impact(&self, i: usize, d: usize) -> f64;
    /// The same impacts, cut to the list's `len` postings (so the loop's indexing is checked
    /// once, here).
    fn fit(self, len: usize) -> Self;
}

/// Impacts computed from the term frequencies (stored ones times `scale`: see `Index::list`)
/// and norms (indexes without stored impacts).
struct Computed<'a> {
    tfs: &'a [f32],
    scale: f64,
    norms: &'a [f64],
    k1p1: f64,
    delta: f64,
}

impl Impacts for Computed<'_> {
    #[inline(always)]
    fn impact(&self, i: usize, d: usize) -> f64 {
        let tf = self.tfs[i] as f64 * self.scale;
        // SAFETY: `d < norms.len()`, the invariant `add_postings` states.
        let norm = unsafe { *self.norms.get_unchecked(d) };
        (tf * self.k1p1) / (tf + norm) + self.delta
    }

    fn fit(self, len: usize) -> Self {
        Computed {
            tfs: &self.tfs[..len],
            ..self
        }
    }
}

/// A list's stored impacts (`Bounds::impacts`), computed at build with the same operations.
struct Stored<'a>(&'a [f64]);

impl Impacts for Stored<'_> {
    #[inline(always)]
    fn impact(&self, i: usize, _d: usize) -> f64 {
        self.0[i]
    }

    fn fit(self, len: usize) -> Self {
        Stored(&self.0[..len])
    }
}

/// The accumulator, the touched documents and the matched counts of one search.
type Sums<'a> = (&'a mut [f64], &'a mut Vec<u32>, &'a mut [u32]);

/// Calls the `add_postings` specialised for `(pair, count, first)`.
#[inline]
fn add_postings_as<I: Impacts>(
    (pair, count, first): (bool, bool, bool),
    docs: &[u32],
    term: (f64, I),
    term2: (f64, I),
    sums: Sums<'_>,
) {
    let add = match (count, pair, first) {
        (false, false, false) => add_postings::<false, false, false, I>,
        (true, false, false) => add_postings::<true, false, false, I>,
        (false, true, false) => add_postings::<false, true, false, I>,
        (true, true, false) => add_postings::<true, true, false, I>,
        (false, false, true) => add_postings::<false, false, true, I>,
        (true, false, true) => add_postings::<true, false, true, I>,
        (false, true, true) => add_postings::<false, true, true, I>,
        (true, true, true) => add_postings::<true, true, true, I>,
    };
    add(docs, term, term2, sums)
}

/// Adds one scored term's postings to the accumulator: `qi · impact` for each, where `qi` is
/// `qtf · idf` (the same f64 operations in the same order as `Params::term_score`), appending the
/// documents it is the first contribution of to `touched`, and counting matched terms when
/// `COUNT` (the coverage rule). With `PAIR`, the next query term holds the same documents
/// (`docs`) and is added right after the first, per document, exactly as a second call would
/// add it, in the same pass over the documents and the accumulator; without `PAIR` the second
/// term is ignored.
///
/// The loop is the hot path of every exhaustive search: no branch depends on the data, and
/// the constants are hoisted. With stored impacts ([`Stored`]) it has no division.
#[inline]
fn add_postings<const COUNT: bool, const PAIR: bool, const FIRST: bool, I: Impacts>(
    docs: &[u32],
    (qi, impacts): (f64, I),
    (qi2, impacts2): (f64, I),
    (acc, touched, matched): Sums<'_>,
) {
    // Branch-free bookkeeping: every document is written after the touched ones and kept
    // only when this term is its first contribution (contributions are > 0, so with a pair
    // this is the union of the two terms' tests).
    if FIRST {
        // No document has a contribution yet (`touched` is empty, so every accumulator slot
        // is 0.0): each posting's sum is `0.0 + score`, which is `score`, and each document
        // is new. The loop only writes, and `touched` is a copy of `docs`.
        debug_assert!(touched.is_empty());
        touched.extend_from_slice(docs);
    }
    let mut len = touched.len();
    if !FIRST {
        touched.resize(len + docs.len(), 0);
    }
    let out = &mut touched[..];
    let (impacts, impacts2) = (impacts.fit(docs.len()), impacts2.fit(docs.len()));
    for (i, &doc) in docs.iter().enumerate() {
        let d = doc as usize;
        debug_assert!(d < acc.len() && (FIRST || len < out.len()));
        // SAFETY: `d < acc.len()`: `acc` has one slot per document of the index (as many as
        // its norms), and every doc id in the postings is below the document count, an
        // invariant of `Index` that each constructor establishes (the builds number documents
        // 0..n, snapshot loading validates every id, updates remap valid ids) and that nothing
        // mutates afterwards. `len < out.len()`: `len` starts at the old length and grows by at
        // most one per posting, and `out` has one slot per posting beyond it. Bounds checks
        // per posting cost ~8% of a search.
        let before = if FIRST {
            0.0
        } else {
            unsafe { *acc.get_unchecked(d) }
        };
        let mut after = before + qi * impacts.impact(i, d);
        if PAIR {
            after += qi2 * impacts2.impact(i, d);
        }
        // SAFETY: as above.
        unsafe {
            *acc.get_unchecked_mut(d) = after;
            if !FIRST {
                *out.get_unchecked_mut(len) = doc;
            }
        }
        if !FIRST {
            len += usize::from(before == 0.0 && after != 0.0);
        }
        if COUNT {
            matched[d] += 1 + u32::from(PAIR);
        }
    }
    if !FIRST {
        touched.truncate(len);
    }
}

/// Distinct query terms in first-seen order with their query frequencies.
///
/// Short queries scan the terms seen so far; long ones (natural-language agent queries run to
/// 30–60 analysed terms) look them up in a hash map instead of comparing every pair.
pub(super) fn distinct_terms<S: AsRef<str>>(tokens: &[S]) -> Vec<(&str, f64)> {
    let mut query: Vec<(&str, f64)> = Vec::with_capacity(tokens.len());
    if tokens.len() <= DISTINCT_SCAN_MAX {
        for tok in tokens {
            let tok = tok.as_ref();
            let weight = query_weight(tok);
            match query.iter_mut().find(|(t, _)| *t == tok) {
                Some((_, count)) => *count += weight,
                None => query.push((tok, weight)),
            }
        }
        return query;
    }
    let mut slot: HashMap<&str, usize, ahash::RandomState> =
        HashMap::with_capacity_and_hasher(tokens.len(), Default::default());
    for tok in tokens {
        let tok = tok.as_ref();
        match slot.entry(tok) {
            std::collections::hash_map::Entry::Occupied(e) => {
                query[*e.get()].1 += query_weight(tok)
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(query.len());
                query.push((tok, query_weight(tok)));
            }
        }
    }
    query
}

/// What one occurrence of `tok` adds to its query-term frequency: 1, or
/// [`analysis::STEM_QUERY_WEIGHT`] for a stemmed copy (the English profile's; the tokenizer never
/// emits the mark, so a seed-profile query holds none).
#[inline]
fn query_weight(tok: &str) -> f64 {
    if analysis::is_marked(tok) {
        analysis::STEM_QUERY_WEIGHT
    } else {
        1.0
    }
}

/// Up to this many query tokens, `distinct_terms` scans instead of hashing.
const DISTINCT_SCAN_MAX: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Profile;
    use crate::index::bm25::{self, Params};
    use crate::index::fixtures::{build, ids, none};
    use crate::search::PrefixOptions;

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
    fn the_grouped_walk_keeps_every_tie_at_the_floor() {
        // 203 documents (not a multiple of the walk's group) with a few distinct scores and
        // shuffled names: most ties fall across groups and at the k-th score. Every cut of the
        // ranking must be the head of the full ranking, which never has a floor to skip by.
        let texts: Vec<(String, String)> = (0..203)
            .map(|i| {
                let name = format!("t{:03}", (i * 37) % 203);
                let words = "word ".repeat(i % 4 + 1) + &"filler ".repeat(i % 3);
                (name, words)
            })
            .collect();
        let docs: Vec<(&str, Vec<(usize, &str)>)> = texts
            .iter()
            .map(|(n, t)| (n.as_str(), vec![(1, t.as_str())]))
            .collect();
        let docs: Vec<(&str, &[(usize, &str)])> =
            docs.iter().map(|(n, f)| (*n, f.as_slice())).collect();
        let idx = build(&docs);
        let full = idx.search("word filler", 1000, &none()).unwrap();
        assert_eq!(full.len(), 203);
        for k in 1..=40 {
            assert_eq!(
                idx.search("word filler", k, &none()).unwrap(),
                full[..k],
                "k={k}"
            );
        }
    }

    #[test]
    fn cached_term_refs_follow_the_index_they_were_resolved_in() {
        // Two English indexes whose vocabularies differ (a word scored in one is unknown, or
        // only a prefix of scored terms, in the other) and an updated index, searched in turn
        // from one thread with the same words: the stem cache holds each word's refs for one
        // index at a time, and every search must equal the one that looks every term up.
        let english = |docs: &[(&str, &str)]| {
            let names = docs.iter().map(|(n, _)| n.to_string()).collect();
            let fields: Vec<Vec<(usize, &str)>> = docs.iter().map(|&(_, t)| vec![(1, t)]).collect();
            Index::build_profiled(
                names,
                &fields,
                vec![6.0, 2.0],
                Params::default(),
                Profile::English,
            )
            .unwrap()
        };
        let a = english(&[
            ("a1", "read files from the disk"),
            ("a2", "write a reader"),
            ("a3", "database events"),
        ]);
        let b = english(&[
            ("b1", "calendar events"),
            ("b2", "readme files"),
            ("b3", "send message"),
        ]);
        let c = b
            .updated(&[1], vec!["c1".into()], &[vec![(1, "read the database")]])
            .unwrap();
        assert!(a.tag != b.tag && b.tag != c.tag && a.tag != 0);
        let queries = [
            "read files",
            "reader",
            "readme calendar",
            "rea",
            "events database",
            "send the message",
            "zzz read",
            "files file",
            "disk reading",
            "the",
        ];
        let options = SearchOptions {
            prefix: PrefixOptions {
                fraction: 0.5,
                ..PrefixOptions::default()
            },
            ..SearchOptions::default()
        };
        for _ in 0..3 {
            for idx in [&a, &b, &c, &b] {
                for q in queries {
                    let terms = idx.profile.query_terms(q);
                    let expected = idx.search_tokens(&terms, 8, &options);
                    assert_eq!(idx.search(q, 8, &options), expected, "{q}");
                }
            }
        }
        // The refs themselves: scored ids, a prefix of scored terms, nothing.
        assert_eq!(a.term_ref("reader"), a.scored_term("reader").unwrap());
        assert_eq!(a.term_ref("rea"), MAY_EXPAND);
        assert_eq!(b.term_ref("reader"), NO_EXPANSION);
        assert_eq!(a.term_ref("§zzz"), NO_EXPANSION);
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

    #[test]
    fn terms_with_the_same_documents_are_added_in_one_pass_with_the_same_sums() {
        // "x" and "y" hold the same documents with other frequencies; "z" holds others.
        let idx = build(&[
            ("a", &[(0, "x y y"), (1, "x z")]),
            ("b", &[(1, "x x y z z")]),
            ("c", &[(2, "x y")]),
            ("d", &[(1, "z")]),
            ("e", &[(2, "q")]),
        ]);
        let docs: Vec<u32> = (0..5).collect();
        for query in [["x", "y", "z"], ["z", "x", "y"], ["y", "x", "z"]] {
            let hits = idx.search_tokens(&query, 8, &none()).unwrap();
            // score_documents adds the terms one by one (no pair pass): the same bits.
            let mut one_by_one = idx.score_documents(&query, &docs, &none()).unwrap();
            one_by_one.retain(|h| h.1 > 0.0);
            one_by_one.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            assert_eq!(hits, one_by_one, "{query:?}");
            // The coverage rule (4 known terms: match 2) counts both terms of a pair: "c" holds
            // only x and y, and stays; "d" (z) and "e" (q) hold one term each.
            let four = [query[0], query[1], query[2], "q"];
            let coverage = SearchOptions {
                coverage: true,
                ..SearchOptions::default()
            };
            let all = idx.search_tokens(&four, 8, &none()).unwrap();
            let covered = idx.search_tokens(&four, 8, &coverage).unwrap();
            assert!(
                ids(&all).contains(&2) && ids(&covered).contains(&2),
                "{query:?}"
            );
            let want: Vec<u32> = ids(&all).into_iter().filter(|&d| d < 3).collect();
            assert_eq!(ids(&covered), want, "{query:?}");
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
    fn the_scratch_stays_clean_across_indexes_and_the_coverage_rule() {
        // One thread's scratch serves every index: a coverage search on a small index leaves
        // its counts shorter than a larger index, whose searches must neither read nor keep
        // them, and every search must start from zeros.
        let small = build(&[("a", &[(1, "x y z w")]), ("b", &[(1, "x")])]);
        let big = build(&[
            ("c", &[(1, "x y")]),
            ("d", &[(1, "y z")]),
            ("e", &[(1, "z w")]),
            ("f", &[(1, "w x")]),
            ("g", &[(1, "x y z")]),
        ]);
        let coverage = SearchOptions {
            coverage: true,
            ..SearchOptions::default()
        };
        let q = ["x", "y", "z", "w"];
        let fresh_big = big.search_tokens(&q, 8, &none()).unwrap();
        let fresh_big_cov = big.search_tokens(&q, 8, &coverage).unwrap();
        let fresh_small = small.search_tokens(&q, 8, &coverage).unwrap();
        assert_eq!(ids(&fresh_small), vec![0], "b matches 1 of 4 terms");
        for _ in 0..3 {
            assert_eq!(small.search_tokens(&q, 8, &coverage).unwrap(), fresh_small);
            assert_eq!(big.search_tokens(&q, 8, &none()).unwrap(), fresh_big);
            assert_eq!(big.search_tokens(&q, 8, &coverage).unwrap(), fresh_big_cov);
            assert_eq!(small.search_tokens(&q, 1, &none()).unwrap().len(), 1);
        }
        let mut covered = ids(&fresh_big_cov);
        covered.sort_unstable();
        assert_eq!(covered, vec![0, 1, 2, 3, 4], "each holds 2 of the 4 terms");
    }

    #[test]
    fn the_twin_memo_answers_for_the_partner_asked() {
        // "x" holds the same documents as "y" but not as "z": the memo keeps one partner per
        // term, and a query pairing "x" with another partner must not reuse its answer.
        let idx = build(&[
            ("a", &[(1, "x y z")]),
            ("b", &[(1, "x y")]),
            ("c", &[(1, "z q")]),
        ]);
        let docs: Vec<u32> = (0..3).collect();
        for query in [["x", "y"], ["x", "z"], ["x", "y"], ["x", "z"], ["z", "q"]] {
            let hits = idx.search_tokens(&query, 8, &none()).unwrap();
            let mut one_by_one = idx.score_documents(&query, &docs, &none()).unwrap();
            one_by_one.retain(|h| h.1 > 0.0);
            one_by_one.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            assert_eq!(hits, one_by_one, "{query:?}");
        }
        let twins = &idx.bounds.twins;
        let id = |t| idx.term_ids.get(&idx.terms, t).unwrap();
        let (x, y, z) = (id("x"), id("y"), id("z"));
        // The last query pairing "x" asked about "z".
        assert!(!twins.same(x, z, || unreachable!("x, z: recorded")));
        let mut tested = false;
        assert!(twins.same(x, y, || {
            tested = true;
            true
        }));
        assert!(tested, "another partner is tested again");
        assert!(twins.same(x, y, || unreachable!("x, y: recorded")));
    }
}
