//! Exact dynamic pruning for top-k search: MaxScore, document at a time, with term bounds and
//! bitmaps of the dense terms.
//!
//! The exhaustive loop (`Index::accumulate` in `search::exhaustive`, or `search::cache_blocked` past 256k documents) adds every
//! posting of every query term into an accumulator. Here the query's posting lists are instead
//! walked together in document order, and a document is only scored when it *can* enter the top k:
//!
//! * **Bounds.** At build (and after a snapshot load or an update: `build::assemble`, from the
//!   postings; nothing is stored in snapshots), each term gets an upper bound of
//!   `tf·(k1+1)/(tf+norm) + δ` over its postings, rounded *up* to `f32`. A list's contribution
//!   `qtf · idf · (…)` (times the prefix fraction for a prefix expansion) is then bounded by the
//!   same product with the stored maximum: multiplication rounds monotonically, so the bound holds
//!   in floating point too. Each *dense* term (in at least 1/[`DENSE`](crate::index::bounds::DENSE) of the
//!   documents) also gets a bitmap of its documents.
//! * **MaxScore.** Lists are sorted by bound; the longest prefix whose bounds sum to less than θ
//!   (the k-th best score so far, or the absolute threshold if larger) is *non-essential*: a
//!   document found only in those lists cannot reach θ, so only documents of the essential lists
//!   are visited.
//! * **Per document**, the bound is tightened step by step and the document dropped as soon as it
//!   cannot reach θ: the bounds of the essential lists holding it plus all non-essential bounds;
//!   then the non-essential dense terms whose bitmaps lack it drop out (largest bound first); then
//!   the exact essential contributions; then the exact non-essential ones (galloping search).
//!   Per-block maxima (64 postings) were tried first and pruned almost nothing on these
//!   catalogues (BM25+'s δ keeps every block's maximum near its term's), hence the bitmaps.
//! * **Few dense lists** (up to `candidates::MAX_LISTS`, at least a posting per 64 documents
//!   of the range): the same bounds are applied 64 documents at a time instead, by AND and OR
//!   of the lists' bitmaps (`candidates.rs`), and only the documents that can reach θ are
//!   scored: short queries of common words, where the per-document loop spent its time on
//!   documents that fail the bitmap test.
//!
//! Every comparison against θ keeps a relative safety margin of [`MARGIN`] (the bounds are sums in
//! a different order than the score), and a document is only dropped when it is *strictly* below
//! θ, so a document tying the k-th score still reaches the heap, where ties break by name.
//!
//! **Exactness.** A document that survives is scored from its terms' contributions added in
//! query (first-seen) order starting from 0.0, the canonical order of `Index::accumulate` and of
//! the pure-Python engine, so its score has the same bits; the heap is the exhaustive path's
//! (`TopK`), whose total order (score, name, doc id) makes the visiting order irrelevant.
//!
//! **Options.** Every `SearchOptions` field is honoured while pruning: `exclude`, `include`,
//! required terms, the coverage rule and the threshold are filters applied before a document
//! enters the heap (θ only ever comes from documents that passed them, so pruning against it is
//! safe), the threshold also raises θ, and the relative floor is applied to the final top k as
//! in the exhaustive path. A prefix term is one query term whose postings are its expansions'
//! (its contribution is the best expansion's; its lists' bounds are summed, a looser bound).
//! `score_documents` and `explain` keep the exhaustive path.
//!
//! **When.** [`ScoringMode::Auto`] (the default) prunes a query of two or more lists over at
//! least [`MIN_PRUNE_DOCS`] documents whose lists hold at least [`MIN_POSTINGS`] postings or are
//! all dense (`worth_pruning`), and leaves the rest to the exhaustive loop, which is faster while its accumulator stays in cache. [`Index::with_scoring_mode`] (this thread) and
//! [`set_scoring_mode`] (every thread; the Python bindings' `_set_scoring_mode`) force either
//! path; the exhaustive one stays the reference.

use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use crate::index::{Index, MIN_PRUNE_DOCS, OWN_POSTINGS};
use crate::search::{id_of, SearchOptions, TopK, MAY_EXPAND};

mod candidates;
mod lists;
mod mode;
mod parallel;

use lists::{seek, List, Twin};
use mode::worth_pruning;
pub use mode::{set_scoring_mode, ScoringMode, MIN_POSTINGS};
use parallel::publish;
pub use parallel::set_search_parts;

/// Relative safety margin of every "cannot reach θ" test.
const MARGIN: f64 = 1e-9;

/// Whether a document whose score is at most `ub` may still reach θ (the margin covers bounds
/// summed in another order than the score): only a document strictly below is dropped.
#[inline]
fn reaches(ub: f64, theta: f64) -> bool {
    ub + ub * MARGIN >= theta
}

impl Index {
    /// The posting lists of the known query terms (a scored term, or a term with at least one
    /// prefix expansion), and the number of known terms (the `known` of `Index::accumulate`).
    fn pruning_lists(
        &self,
        query: &[(&str, f64)],
        refs: Option<&[u32]>,
        options: &SearchOptions,
    ) -> (Vec<List>, usize) {
        let bounds = &self.bounds;
        // Each term's id (or why it has none), looked up once.
        let ids = self.query_refs(query, refs);
        let mut lists = Vec::with_capacity(query.len());
        let mut known = 0;
        let mut next = 0;
        while next < query.len() {
            let (tok, qtf) = query[next];
            next += 1;
            let mut push = |term: u32, fraction: Option<f64>, twin: Option<(u32, f64)>| {
                let t = term as usize;
                let idf = self.idf(term);
                let (pos, end, scale) = self.list(term);
                let mut bound = qtf * idf * bounds.term_max[t] as f64;
                let twin = twin.map(|(term2, qtf2)| {
                    let t2 = term2 as usize;
                    let idf2 = self.idf(term2);
                    bound += qtf2 * idf2 * bounds.term_max[t2] as f64;
                    let (pos2, _, scale2) = self.list(term2);
                    Twin {
                        qtf: qtf2,
                        idf: idf2,
                        shift: pos2.wrapping_sub(pos),
                        scale: scale2,
                    }
                });
                lists.push(List {
                    pos,
                    end,
                    cur: self
                        .docs
                        .get(pos)
                        .copied()
                        .filter(|_| pos < end)
                        .unwrap_or(u32::MAX),
                    at: usize::MAX,
                    // A shared term holds its source's documents, and its bitmap.
                    bits: bounds
                        .bitmap(
                            self.shared
                                .get(t)
                                .copied()
                                .filter(|&s| s != OWN_POSTINGS)
                                .unwrap_or(term),
                        )
                        .unwrap_or(usize::MAX),
                    scale,
                    src: known,
                    qtf,
                    idf,
                    fraction,
                    twin,
                    bound: fraction.map_or(bound, |f| f * bound),
                });
            };
            let id = ids[next - 1];
            if let Some(term) = id_of(id) {
                // As in `Index::accumulate`: a next scored term with the same documents rides
                // along (one walk, one bitmap test and one seek per document for both).
                let twin = query.get(next).and_then(|&(_, qtf2)| {
                    let term2 = id_of(ids[next])?;
                    let (docs, docs2) = (self.doc_list(term), self.doc_list(term2));
                    let same = || std::ptr::eq(docs, docs2) || docs == docs2;
                    bounds
                        .twins
                        .same(term, term2, same)
                        .then_some((term2, qtf2))
                });
                push(term, None, twin);
                known += 1;
                if twin.is_some() {
                    known += 1;
                    next += 1;
                }
                continue;
            }
            if id != MAY_EXPAND {
                continue; // no scored term starts with it
            }
            let mut any = false;
            for term in self.expansions(tok, &options.prefix) {
                push(term, Some(options.prefix.fraction), None);
                any = true;
            }
            if any {
                known += 1;
            }
        }
        (lists, known)
    }

    /// The top `limit` documents by the pruned loop (see the module docs); `keep(doc, score)` is
    /// the exhaustive path's filter, and a document must also hold `min_matched(known)` of the
    /// `known` query terms (the coverage rule). `None` when the exhaustive loop should run
    /// instead (see [`ScoringMode`]). A large search is split into document ranges searched in
    /// parallel (`parallel.rs`).
    pub(crate) fn search_pruned(
        &self,
        query: &[(&str, f64)],
        refs: Option<&[u32]>,
        options: &SearchOptions,
        limit: usize,
        min_matched: impl Fn(usize) -> u32,
        keep: impl Fn(u32, f64) -> bool + Sync,
    ) -> Option<Vec<(u32, f64)>> {
        let mode = self.scoring_mode();
        if mode == ScoringMode::Exhaustive
            || (mode == ScoringMode::Auto && self.len() < MIN_PRUNE_DOCS)
        {
            return None;
        }
        let (lists, m) = self.pruning_lists(query, refs, options);
        let postings: usize = lists.iter().map(|l| l.end - l.pos).sum();
        if mode == ScoringMode::Auto && !worth_pruning(&lists, postings, self.len()) {
            return None;
        }
        let min_matched = min_matched(m);
        let search = PrunedSearch {
            m,
            min_matched,
            threshold: options.threshold,
            limit,
        };
        let in_flight = parallel::InFlight::enter();
        let parts = self.search_parts(postings, in_flight.others);
        if parts <= 1 {
            let range = (0, self.len() as u32);
            return Some(self.prune_range(lists, &search, &keep, None, range));
        }
        Some(self.prune_parallel(lists, &search, &keep, parts))
    }

    /// The pruned loop over `lists` (restricted to a document range or not): the top
    /// `search.limit` documents it finds. `shared` is θ shared with the other ranges of a split
    /// search (as f64 bits; see `parallel.rs`).
    fn prune_range(
        &self,
        mut lists: Vec<List>,
        search: &PrunedSearch,
        keep: &(impl Fn(u32, f64) -> bool + Sync),
        shared: Option<&AtomicU64>,
        range: (u32, u32),
    ) -> Vec<(u32, f64)> {
        if let Some(found) = self.prune_by_candidates(&mut lists, search, keep, shared, range) {
            return found;
        }
        candidates::count_path(1);
        let PrunedSearch {
            m,
            min_matched,
            threshold,
            limit,
        } = *search;
        let mut top = TopK::new(limit);
        let n = lists.len();
        // Lists by ascending bound; `cum[i]` is the sum of the first i + 1 bounds.
        lists.sort_by(|a, b| a.bound.total_cmp(&b.bound));
        let mut cum = Vec::with_capacity(n);
        let mut sum = 0f64;
        for list in &lists {
            sum += list.bound;
            cum.push(sum);
        }
        let mut theta = threshold;
        // lists[..ne] are non-essential: together they cannot reach θ.
        let mut ne = 0usize;
        while ne < n && !reaches(cum[ne], theta) {
            ne += 1;
        }
        if ne == n {
            return top.into_sorted();
        }
        let (docs, tfs, norms) = (&self.docs[..], self.tfs.all(), &self.norms[..]);
        let bitmaps = &self.bounds.bitmaps[..];
        let params = self.params;
        let mut contrib = vec![0f64; m];
        let mut hit = vec![false; m];
        // Per non-essential list: whether its bitmap allows the current document, and the prefix
        // sums of their bounds at that document.
        let mut present = vec![true; n];
        let mut below = vec![0f64; n + 1];
        let mut visits = 0u32;
        'document: loop {
            visits = visits.wrapping_add(1);
            // Read every 16 documents: the other range writes it, and a read per document
            // waits on that core's cache line.
            if let Some(shared) = shared.filter(|_| visits % 16 == 0) {
                // Another range's k-th best score also bounds this range's candidates.
                let other = f64::from_bits(shared.load(AtomicOrdering::Relaxed));
                if other > theta {
                    theta = other;
                    while ne < n && !reaches(cum[ne], theta) {
                        ne += 1;
                    }
                    if ne == n {
                        break;
                    }
                }
            }
            // The next candidate: the smallest current document of the essential lists.
            let d = lists[ne..].iter().fold(u32::MAX, |d, l| d.min(l.cur));
            if d == u32::MAX {
                break;
            }
            let mut bound = 0f64;
            for list in &mut lists[ne..] {
                if list.cur == d {
                    list.at = list.pos;
                    list.pos += 1;
                    list.cur = if list.pos < list.end {
                        docs[list.pos]
                    } else {
                        u32::MAX
                    };
                    bound += list.bound;
                } else {
                    list.at = usize::MAX;
                }
            }
            if ne > 0 {
                if !reaches(bound + cum[ne - 1], theta) {
                    continue;
                }
                // A dense term whose bitmap lacks the document adds nothing: test the bitmaps,
                // largest bound first, until the document cannot reach θ.
                let mut ub = bound;
                for i in (0..ne).rev() {
                    let list = &lists[i];
                    let here = list.bits == usize::MAX
                        || bitmaps[list.bits + d as usize / 64] >> (d % 64) & 1 == 1;
                    present[i] = here;
                    if here {
                        ub += list.bound;
                    }
                    if !reaches(ub + if i > 0 { cum[i - 1] } else { 0.0 }, theta) {
                        continue 'document;
                    }
                }
                for i in 0..ne {
                    below[i + 1] = below[i] + if present[i] { lists[i].bound } else { 0.0 };
                }
            }
            let norm = norms[d as usize];
            contrib.fill(0.0);
            hit.fill(false);
            // Summing every list bounds the score from above (a prefix term counts only its
            // best expansion).
            let mut exact = 0f64;
            for list in &lists[ne..] {
                if list.at != usize::MAX {
                    exact += list.score_into(&params, tfs, list.at, norm, &mut contrib, &mut hit);
                }
            }
            if ne > 0 {
                if !reaches(exact + below[ne], theta) {
                    continue;
                }
                // The non-essential lists, largest bound first, while the total can reach θ.
                for i in (0..ne).rev() {
                    if present[i] {
                        let list = &mut lists[i];
                        let p = seek(docs, list, d);
                        if p < list.end && docs[p] == d {
                            exact += list.score_into(&params, tfs, p, norm, &mut contrib, &mut hit);
                        }
                    }
                    if !reaches(exact + below[i], theta) {
                        continue 'document;
                    }
                }
            }
            if let Some(raised) = self.offer_scored(
                &mut top,
                d,
                (&contrib, &hit),
                min_matched,
                keep,
                theta,
                shared,
            ) {
                theta = raised;
                while ne < n && !reaches(cum[ne], theta) {
                    ne += 1;
                }
                if ne == n {
                    break;
                }
            }
        }
        top.into_sorted()
    }

    /// Offers document `d` to `top` with its canonical score (the query terms' contributions in
    /// query order, from 0.0: the exhaustive loop's bits) when it holds at least `min_matched`
    /// of them. Returns the new θ when the document entered the top k and raised its k-th score
    /// above `theta` (published to the other ranges through `shared`).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn offer_scored<'a>(
        &'a self,
        top: &mut TopK<'a>,
        d: u32,
        (contrib, hit): (&[f64], &[bool]),
        min_matched: u32,
        keep: impl Fn(u32, f64) -> bool,
        theta: f64,
        shared: Option<&AtomicU64>,
    ) -> Option<f64> {
        let mut score = 0f64;
        let mut matched = 0u32;
        for (&c, &h) in contrib.iter().zip(hit) {
            score += c;
            matched += u32::from(h);
        }
        if matched < min_matched || !top.offer(self, d, score, keep) {
            return None;
        }
        let worst = top.threshold().filter(|&worst| worst > theta)?;
        if let Some(shared) = shared {
            publish(shared, worst);
        }
        Some(worst)
    }
}

/// What every range of one pruned search shares.
#[derive(Clone, Copy)]
struct PrunedSearch {
    /// The number of known query terms (contribution slots).
    m: usize,
    /// The coverage rule's minimum of matched terms (0: off).
    min_matched: u32,
    /// The absolute threshold option: θ starts there.
    threshold: f64,
    limit: usize,
}

#[cfg(test)]
mod bounds_tests;
#[cfg(test)]
pub(crate) mod tests;
