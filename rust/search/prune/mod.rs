//! Exact dynamic pruning for top-k search: MaxScore, document at a time, with term bounds and
//! bitmaps of the dense terms.
//!
//! The exhaustive loop (`Index::accumulate`, or `blocked.rs` past 256k documents) adds every
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

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering as AtomicOrdering};

use crate::index::bm25::Params;
use crate::index::{Index, MIN_PRUNE_DOCS, OWN_POSTINGS};
use crate::search::{id_of, SearchOptions, TopK, MAY_EXPAND};

mod candidates;
mod parallel;

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

/// Which scoring path searches take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoringMode {
    /// Prune when the index and the query's postings are large enough to repay it
    /// ([`MIN_PRUNE_DOCS`], [`MIN_POSTINGS`]).
    Auto = 0,
    /// Always the exhaustive reference loop.
    Exhaustive = 1,
    /// Always prune (tests: small corpora would otherwise never prune).
    Pruned = 2,
}

impl ScoringMode {
    fn from_u8(v: u8) -> ScoringMode {
        match v {
            1 => ScoringMode::Exhaustive,
            2 => ScoringMode::Pruned,
            _ => ScoringMode::Auto,
        }
    }
}

/// Below this many postings (summed over the query's lists) `Auto` keeps the exhaustive loop:
/// its accumulator is then in cache and it beats the pruned loop's per-document bookkeeping
/// (measured on the synthetic catalogues and mcp_mixed; see BENCHMARKS.md).
pub const MIN_POSTINGS: usize = 12_000;

/// Whether `Auto` prunes a search of `lists` (holding `postings` postings) in an index of at
/// least [`MIN_PRUNE_DOCS`] documents. A single list is never pruned: its bound is every
/// document's, so each of its postings is scored anyway, at about twice the exhaustive loop's
/// cost per posting (100k synthetic tools, `prune_bench perq`: "list", 21,840 postings, 60.6 vs
/// 116.4 µs). Otherwise from [`MIN_POSTINGS`] postings, and below that when every list is dense
/// (it has a bitmap: the candidates are then found by bitmaps alone): on 175 queries of 2k-12k
/// postings at 100k tools, those with two or more dense lists took 27.4 µs exhaustive and
/// 22.9 µs pruned (52 of 59 faster), the others 18.7 vs 26.8 µs.
///
/// Nor past [`max_pruned_lists`] lists: the pruned loop's work per candidate grows with the
/// number of lists, and so does the number of candidates whose bound reaches θ, so a long agent
/// query (15-45 analysed terms) over a catalogue of many near-identical tools was pruned at 2-10×
/// the exhaustive loop's time (see `max_pruned_lists`).
fn worth_pruning(lists: &[List], postings: usize, docs: usize) -> bool {
    lists.len() >= 2
        && lists.len() <= max_pruned_lists(docs)
        && (postings >= MIN_POSTINGS || lists.iter().all(|l| l.bits != usize::MAX))
}

/// The most lists `Auto` prunes in an index of `docs` documents: 12 at [`MIN_PRUNE_DOCS`], 3 more
/// each time the index doubles (the exhaustive loop's cost grows with the index, the pruned
/// loop's with the lists). Measured with mcp_mixed's 300 first agent queries (english profile,
/// µs a query, exhaustive / pruned) over mcp_mixed plus renamed copies of its servers (forks and
/// mirrors, the hard case: many exact ties at θ): at 92k tools, 10-14 lists 120 / 116, 15-19
/// lists 151 / 273, 20-24 lists 161 / 436, 40-44 lists 260 / 2,417; at 1M, 20-24 lists 3,016 /
/// 1,660, 25-29 lists 2,408 / 3,337, 40-44 lists 4,978 / 11,051. Over all 300 queries this cap
/// takes the mean from 309 to ~120 µs at 92k and from 1,423 to ~1,150 µs at 1M; on the synthetic
/// 100k catalogue (its queries hold fewer than 15 lists) nothing changes.
fn max_pruned_lists(docs: usize) -> usize {
    let doublings = (docs.max(MIN_PRUNE_DOCS) / MIN_PRUNE_DOCS).ilog2() as usize;
    12 + 3 * doublings
}

/// The process-wide mode (`ScoringMode as u8`), set from Python through `_set_scoring_mode`.
static GLOBAL_MODE: AtomicU8 = AtomicU8::new(0);

thread_local! {
    /// A mode forced on this thread by [`Index::with_scoring_mode`] (tests), over the global one.
    static THREAD_MODE: Cell<Option<ScoringMode>> = const { Cell::new(None) };
}

/// Sets the scoring path of every thread (for tests and benches; `Auto` is the default).
pub fn set_scoring_mode(mode: ScoringMode) {
    GLOBAL_MODE.store(mode as u8, AtomicOrdering::Relaxed);
}

/// One posting list of the query: an exact term, or one expansion of a prefix term.
#[derive(Clone)]
struct List {
    /// Next posting. For essential lists `cur` is its document (`u32::MAX` past the end);
    /// non-essential lists only move `pos`, when probed, and may lag behind.
    pos: usize,
    end: usize,
    cur: u32,
    /// The posting of the current document in an essential list (`usize::MAX`: none).
    at: usize,
    /// The first word of the term's bitmap when the term is dense (`usize::MAX`: none).
    bits: usize,
    /// The scale of the stored term frequencies (see `Index::list`).
    scale: f64,
    /// The known query term (in query order) the list scores for.
    src: usize,
    qtf: f64,
    idf: f64,
    /// The prefix fraction of an expansion of a prefix term.
    fraction: Option<f64>,
    /// The next known query term when it holds exactly this list's documents (a word and its
    /// stemmed copy, in the English profile): walked with this list, scored for `src + 1`.
    twin: Option<Twin>,
    /// An upper bound of the list's contribution to any document (its twin's included).
    bound: f64,
}

/// The second term of a list that walks two terms with the same documents.
#[derive(Clone)]
struct Twin {
    qtf: f64,
    idf: f64,
    /// Its posting index minus the list's (wrapping): the same document's posting.
    shift: usize,
    /// The scale of its stored term frequencies (see `Index::list`).
    scale: f64,
}

impl List {
    /// The contribution of the posting `i` to a document of norm `norm`, computed exactly as
    /// `Index::accumulate` does.
    #[inline]
    fn score(&self, params: &Params, tfs: &[f32], i: usize, norm: f64) -> f64 {
        let score = params.term_score(self.qtf, self.idf, tfs[i] as f64 * self.scale, norm);
        match self.fraction {
            None => score,
            Some(f) => f * score,
        }
    }

    /// Scores the posting `i` (and its twin's) into the query terms' contributions; returns
    /// their sum, for the bounds.
    #[inline]
    fn score_into(
        &self,
        params: &Params,
        tfs: &[f32],
        i: usize,
        norm: f64,
        contrib: &mut [f64],
        hit: &mut [bool],
    ) -> f64 {
        let c = self.score(params, tfs, i, norm);
        record(contrib, hit, self.src, c);
        match &self.twin {
            None => c,
            Some(twin) => {
                let tf = tfs[i.wrapping_add(twin.shift)] as f64 * twin.scale;
                let c2 = params.term_score(twin.qtf, twin.idf, tf, norm);
                record(contrib, hit, self.src + 1, c2);
                c + c2
            }
        }
    }
}

/// Moves `list.pos` to its first posting >= `d` (galloping, then a binary search) and returns it.
#[inline]
fn seek(docs: &[u32], list: &mut List, d: u32) -> usize {
    let (mut lo, end) = (list.pos, list.end);
    if lo >= end || docs[lo] >= d {
        return lo;
    }
    // docs[lo] < d: double the step until a document >= d (or the end) is found.
    let mut step = 1;
    let mut hi = lo + 1;
    while hi < end && docs[hi] < d {
        lo = hi;
        step *= 2;
        hi = lo + step;
    }
    let hi = hi.min(end);
    let p = lo + 1 + docs[lo + 1..hi].partition_point(|&x| x < d);
    list.pos = p;
    p
}

/// Records a list's contribution to its query term: the term keeps the largest (one list for an
/// exact term; the best expansion for a prefix term, as in `Index::accumulate`).
#[inline]
fn record(contrib: &mut [f64], hit: &mut [bool], src: usize, c: f64) {
    if c > contrib[src] {
        contrib[src] = c;
    }
    hit[src] = true;
}

impl Index {
    /// The scoring path of a search on this thread (a forced blocked loop means exhaustive).
    pub(crate) fn scoring_mode(&self) -> ScoringMode {
        if self.blocked_forced() || self.bounds.term_max.len() + 1 != self.offsets.len() {
            return ScoringMode::Exhaustive;
        }
        THREAD_MODE
            .with(|m| m.get())
            .unwrap_or_else(|| ScoringMode::from_u8(GLOBAL_MODE.load(AtomicOrdering::Relaxed)))
    }

    /// Runs `f` with `mode` forced on this thread (for tests and benches).
    pub fn with_scoring_mode<T>(mode: ScoringMode, f: impl FnOnce() -> T) -> T {
        struct Reset(Option<ScoringMode>);
        impl Drop for Reset {
            fn drop(&mut self) {
                THREAD_MODE.with(|m| m.set(self.0));
            }
        }
        let _reset = Reset(THREAD_MODE.with(|m| m.replace(Some(mode))));
        f()
    }

    /// Runs `f` with the exhaustive path forced on this thread (for tests and benches).
    pub fn with_exhaustive_scoring<T>(f: impl FnOnce() -> T) -> T {
        Index::with_scoring_mode(ScoringMode::Exhaustive, f)
    }

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
                let idf = self.idf[t];
                let (pos, end, scale) = self.list(term);
                let mut bound = qtf * idf * bounds.term_max[t] as f64;
                let twin = twin.map(|(term2, qtf2)| {
                    let t2 = term2 as usize;
                    let idf2 = self.idf[t2];
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
        let (docs, tfs, norms) = (&self.docs[..], &self.tfs[..], &self.norms[..]);
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
}

impl Index {
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
mod tests;
