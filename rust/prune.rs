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
//!   in floating point too. Each *dense* term (in at least 1/[`DENSE`] of the documents) also gets
//!   a bitmap of its documents.
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
//! **When.** [`ScoringMode::Auto`] (the default) prunes a query whose lists hold at least
//! [`MIN_POSTINGS`] postings and leaves smaller ones to the exhaustive loop, which is faster
//! while its accumulator stays in cache. [`Index::with_scoring_mode`] (this thread) and
//! [`set_scoring_mode`] (every thread; the Python bindings' `_set_scoring_mode`) force either
//! path; the exhaustive one stays the reference.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering as AtomicOrdering};

use rayon::prelude::*;

use crate::bm25::Params;
use crate::index::{Index, SearchOptions, TopK};

mod parallel;

use parallel::publish;
pub use parallel::set_search_parts;

/// Relative safety margin of every "cannot reach θ" test.
const MARGIN: f64 = 1e-9;

/// Per-term and per-block upper bounds of the BM25+ term-frequency component, derived from the
/// postings and norms (never stored in snapshots).
#[derive(Debug, Clone, Default)]
pub(crate) struct Bounds {
    /// Per term: an upper bound of `tf·(k1+1)/(tf+norm) + δ` over its postings, rounded up to
    /// `f32` (0 for a term without scored postings).
    term_max: Vec<f32>,
    /// The dense terms (in at least 1/[`DENSE`] of the documents), ascending, each with the
    /// first word of its document bitmap in `bitmaps`.
    dense: Vec<(u32, u32)>,
    /// One bit per document for each dense term: whether the document holds the term.
    bitmaps: Vec<u64>,
}

/// A term in at least 1/DENSE of the documents gets a bitmap (N/8 bytes: at most 8 bytes per
/// posting, the size of the posting itself), so that pruning tests membership without walking
/// its list. 64 rather than 16: a verb or object of an MCP-style name (1.5-6 % of the tools) is
/// then a bitmap test instead of a galloping seek for most candidates; at 100k synthetic tools
/// the pruned loop took ~19 % less time relative to the exhaustive one (pruned/exhaustive ratio
/// 1.57x -> 1.93x, means of 3-5 runs of benches/prune_report.py) for +11 bytes per tool
/// (+2.7 %); mcp_mixed's engine memory +5 % (seed) / +9 % (english).
const DENSE: usize = 64;

/// The smallest `f32` that is >= `x` (for finite, non-negative `x`).
fn f32_up(x: f64) -> f32 {
    let f = x as f32;
    if (f as f64) < x {
        f32::from_bits(f.to_bits() + 1)
    } else {
        f
    }
}

impl Bounds {
    /// Computes the bounds of CSR postings (`offsets`, `docs`, `tfs`) under `norms`.
    pub(crate) fn compute(
        params: Params,
        offsets: &[u32],
        docs: &[u32],
        tfs: &[f32],
        norms: &[f64],
    ) -> Bounds {
        let n = norms.len();
        let n_terms = offsets.len().saturating_sub(1);
        let (k1, delta) = (params.k1, params.delta);
        let term_max: Vec<f32> = (0..n_terms)
            .into_par_iter()
            .with_min_len(1024)
            .map(|t| {
                let mut best = 0f64;
                for i in offsets[t] as usize..offsets[t + 1] as usize {
                    let tf = tfs[i] as f64;
                    // The parenthesis of `Params::term_score`: the same operations.
                    let part = (tf * (k1 + 1.0)) / (tf + norms[docs[i] as usize]) + delta;
                    if part > best {
                        best = part;
                    }
                }
                f32_up(best)
            })
            .collect();
        let words = n.div_ceil(64);
        let dense: Vec<(u32, u32)> = (0..n_terms)
            .filter(|&t| n >= 64 && (offsets[t + 1] - offsets[t]) as usize * DENSE >= n)
            .enumerate()
            .map(|(i, t)| (t as u32, (i * words) as u32))
            .collect();
        let mut bitmaps = vec![0u64; dense.len() * words];
        if words > 0 {
            bitmaps
                .par_chunks_mut(words)
                .zip(dense.par_iter())
                .for_each(|(bits, &(t, _))| {
                    let t = t as usize;
                    for &d in &docs[offsets[t] as usize..offsets[t + 1] as usize] {
                        bits[d as usize / 64] |= 1 << (d % 64);
                    }
                });
        }
        Bounds {
            term_max,
            dense,
            bitmaps,
        }
    }

    /// The first bitmap word of `term` if it is dense.
    fn bitmap(&self, term: u32) -> Option<usize> {
        self.dense
            .binary_search_by_key(&term, |&(t, _)| t)
            .ok()
            .map(|i| self.dense[i].1 as usize)
    }

    /// Heap bytes of the bounds.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.term_max.len() * 4 + self.dense.len() * 8 + self.bitmaps.len() * 8
    }
}

/// Which scoring path searches take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoringMode {
    /// Prune when the query's postings are many enough to repay it ([`MIN_POSTINGS`]).
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
}

impl List {
    /// The contribution of the posting `i` to a document of norm `norm`, computed exactly as
    /// `Index::accumulate` does.
    #[inline]
    fn score(&self, params: &Params, tfs: &[f32], i: usize, norm: f64) -> f64 {
        let score = params.term_score(self.qtf, self.idf, tfs[i] as f64, norm);
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
                let tf = tfs[i.wrapping_add(twin.shift)] as f64;
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

    /// Recomputes the pruning bounds from the postings and norms; every constructor calls it.
    pub(crate) fn refresh_bounds(&mut self) {
        self.bounds = Bounds::compute(
            self.params,
            &self.offsets,
            &self.docs,
            &self.tfs,
            &self.norms,
        );
    }

    /// The posting lists of the known query terms (a scored term, or a term with at least one
    /// prefix expansion), and the number of known terms (the `known` of `Index::accumulate`).
    fn pruning_lists(&self, query: &[(&str, f64)], options: &SearchOptions) -> (Vec<List>, usize) {
        let bounds = &self.bounds;
        let mut lists = Vec::with_capacity(query.len());
        let mut known = 0;
        let mut next = 0;
        while next < query.len() {
            let (tok, qtf) = query[next];
            next += 1;
            let mut push = |term: u32, fraction: Option<f64>, twin: Option<(u32, f64)>| {
                let t = term as usize;
                let idf = self.idf[t];
                let (pos, end) = (self.offsets[t] as usize, self.offsets[t + 1] as usize);
                let mut bound = qtf * idf * bounds.term_max[t] as f64;
                let twin = twin.map(|(term2, qtf2)| {
                    let t2 = term2 as usize;
                    let idf2 = self.idf[t2];
                    bound += qtf2 * idf2 * bounds.term_max[t2] as f64;
                    Twin {
                        qtf: qtf2,
                        idf: idf2,
                        shift: (self.offsets[t2] as usize).wrapping_sub(pos),
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
                    bits: bounds.bitmap(term).unwrap_or(usize::MAX),
                    src: known,
                    qtf,
                    idf,
                    fraction,
                    twin,
                    bound: fraction.map_or(bound, |f| f * bound),
                });
            };
            if let Some(term) = self.scored_term(tok) {
                // As in `Index::accumulate`: a next scored term with the same documents rides
                // along (one walk, one bitmap test and one seek per document for both).
                let twin = query.get(next).and_then(|&(tok2, qtf2)| {
                    let term2 = self.scored_term(tok2)?;
                    (self.doc_list(term2) == self.doc_list(term)).then_some((term2, qtf2))
                });
                push(term, None, twin);
                known += 1;
                if twin.is_some() {
                    known += 1;
                    next += 1;
                }
                continue;
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
        options: &SearchOptions,
        limit: usize,
        min_matched: impl Fn(usize) -> u32,
        keep: impl Fn(u32, f64) -> bool + Sync,
    ) -> Option<Vec<(u32, f64)>> {
        let mode = self.scoring_mode();
        if mode == ScoringMode::Exhaustive {
            return None;
        }
        let (lists, m) = self.pruning_lists(query, options);
        let postings: usize = lists.iter().map(|l| l.end - l.pos).sum();
        if mode == ScoringMode::Auto && postings < MIN_POSTINGS {
            return None;
        }
        let min_matched = min_matched(m);
        let search = PrunedSearch {
            m,
            min_matched,
            threshold: options.threshold,
            limit,
        };
        let parts = self.search_parts(postings);
        if parts <= 1 {
            return Some(self.prune_range(lists, &search, &keep, None));
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
    ) -> Vec<(u32, f64)> {
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
        let reaches = |ub: f64, theta: f64| ub + ub * MARGIN >= theta;
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
        loop {
            if let Some(shared) = shared {
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
                let mut dropped = false;
                for i in (0..ne).rev() {
                    let list = &lists[i];
                    let here = list.bits == usize::MAX
                        || bitmaps[list.bits + d as usize / 64] >> (d % 64) & 1 == 1;
                    present[i] = here;
                    if here {
                        ub += list.bound;
                    }
                    if !reaches(ub + if i > 0 { cum[i - 1] } else { 0.0 }, theta) {
                        dropped = true;
                        break;
                    }
                }
                if dropped {
                    continue;
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
                let mut dropped = false;
                for i in (0..ne).rev() {
                    if present[i] {
                        let list = &mut lists[i];
                        let p = seek(docs, list, d);
                        if p < list.end && docs[p] == d {
                            exact += list.score_into(&params, tfs, p, norm, &mut contrib, &mut hit);
                        }
                    }
                    if !reaches(exact + below[i], theta) {
                        dropped = true;
                        break;
                    }
                }
                if dropped {
                    continue;
                }
            }
            // The canonical score: contributions in query order, from 0.0.
            let mut score = 0f64;
            let mut matched = 0u32;
            for (&c, &h) in contrib.iter().zip(&hit) {
                score += c;
                matched += u32::from(h);
            }
            if matched >= min_matched && top.offer(self, d, score, keep) {
                if let Some(worst) = top.threshold() {
                    if worst > theta {
                        theta = worst;
                        if let Some(shared) = shared {
                            publish(shared, theta);
                        }
                        while ne < n && !reaches(cum[ne], theta) {
                            ne += 1;
                        }
                        if ne == n {
                            break;
                        }
                    }
                }
            }
        }
        top.into_sorted()
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
mod tests {
    use std::collections::HashSet;

    use crate::bm25::Params;
    use crate::index::{Index, PrefixOptions, SearchOptions};

    use super::ScoringMode;
    use crate::analysis::Profile;

    /// A small seeded generator (PCG-style LCG), so the tests need no extra crate.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self, m: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % m.max(1)
        }
        fn chance(&mut self, percent: usize) -> bool {
            self.next(100) < percent
        }
    }

    const WORDS: [&str; 24] = [
        "read", "reader", "readme", "write", "file", "files", "issue", "pull", "request", "get",
        "list", "user", "channel", "send", "message", "the", "a", "of", "data", "database",
        "calendar", "event", "zeta", "x",
    ];

    /// A word, skewed towards the first ones so that terms overlap heavily.
    fn word(rng: &mut Rng, vocab: usize) -> &'static str {
        let a = rng.next(vocab);
        let b = rng.next(vocab);
        WORDS[a.min(b)]
    }

    fn corpus(rng: &mut Rng, n: usize, vocab: usize) -> Index {
        let mut names = Vec::new();
        let mut docs = Vec::new();
        let n_names = if rng.chance(30) { 3 } else { n * 2 };
        for _ in 0..n {
            names.push(format!("t{}", rng.next(n_names)));
            let mut fields: Vec<(usize, String)> = Vec::new();
            for _ in 0..rng.next(4) {
                let long = rng.chance(10);
                let len = 1 + rng.next(if long { 40 } else { 6 });
                let text: Vec<&str> = (0..len).map(|_| word(rng, vocab)).collect();
                fields.push((rng.next(4), text.join(" ")));
            }
            docs.push(fields);
        }
        let weights = vec![6.0, 2.0, 1.0, 0.0];
        let params = [
            Params::default(),
            Params {
                k1: 0.0,
                b: 0.0,
                delta: 0.0,
            },
            Params {
                k1: 2.5,
                b: 1.0,
                delta: 0.3,
            },
        ][rng.next(3)];
        let profile = if rng.chance(40) {
            Profile::English
        } else {
            Profile::Seed
        };
        Index::build_profiled(names, &docs, weights, params, profile).unwrap()
    }

    fn options(rng: &mut Rng, n: usize) -> SearchOptions {
        let mut o = SearchOptions::default();
        if rng.chance(20) {
            o.exclude = (0..rng.next(n)).map(|_| rng.next(n) as u32).collect();
        }
        if rng.chance(20) {
            let keep: HashSet<u32> = (0..n as u32).filter(|_| rng.chance(50)).collect();
            o.include = Some(keep);
        }
        if rng.chance(20) {
            o.required = (0..1 + rng.next(2))
                .map(|_| word(rng, 24).to_string())
                .collect();
        }
        if rng.chance(40) {
            o.prefix = PrefixOptions {
                fraction: [0.5, 1.0, 2.0][rng.next(3)],
                min_len: 1 + rng.next(3),
                max_expansions: 1 + rng.next(4),
            };
        }
        if rng.chance(20) {
            o.threshold = rng.next(40) as f64 / 4.0;
        }
        if rng.chance(20) {
            o.relative_floor = rng.next(11) as f64 / 10.0;
        }
        o.coverage = rng.chance(30);
        o
    }

    fn query(rng: &mut Rng, vocab: usize) -> Vec<String> {
        (0..1 + rng.next(10))
            .map(|_| match rng.next(10) {
                0 => "nowhere".to_string(),
                1 => {
                    let w = word(rng, 24);
                    w[..1 + rng.next(w.len())].to_string()
                }
                _ => word(rng, vocab).to_string(),
            })
            .collect()
    }

    #[test]
    fn pruned_search_equals_exhaustive_search_on_random_corpora() {
        let mut rng = Rng(20261122);
        let mut nonempty = 0;
        for round in 0..300 {
            let n = [1, 5, 40, 300, 2000][rng.next(5)];
            let vocab = 3 + rng.next(21);
            let idx = corpus(&mut rng, n, vocab);
            for _ in 0..12 {
                let q = query(&mut rng, vocab);
                let o = options(&mut rng, n);
                let limit = [1, 2, 3, 8, 25, 1000][rng.next(6)];
                // The index's own query analysis (English: stop words out, stemmed copies in).
                let q = idx.query_terms(&q.join(" "));
                let pruned = Index::with_scoring_mode(ScoringMode::Pruned, || {
                    idx.search_tokens(&q, limit, &o)
                });
                let exhaustive =
                    Index::with_exhaustive_scoring(|| idx.search_tokens(&q, limit, &o));
                assert_eq!(
                    pruned, exhaustive,
                    "round {round}: {q:?} limit {limit} {o:?}"
                );
                // Cut into document ranges searched in parallel (sharing θ), then merged.
                let parts = 2 + rng.next(4);
                let split = Index::with_scoring_mode(ScoringMode::Pruned, || {
                    Index::with_search_parts(parts, || idx.search_tokens(&q, limit, &o))
                });
                assert_eq!(
                    split, exhaustive,
                    "round {round}: {q:?} limit {limit} {o:?} in {parts} ranges"
                );
                if pruned.as_ref().is_ok_and(|h| !h.is_empty()) {
                    nonempty += 1;
                }
            }
        }
        assert!(nonempty > 1000, "only {nonempty} non-empty results");
    }

    #[test]
    fn the_mode_switches_pick_the_path() {
        let (names, docs) = crate::build::tests::corpus(50, 5);
        let idx =
            Index::build_parallel(names, &docs, vec![6.0, 2.0, 0.0], Params::default()).unwrap();
        assert_eq!(idx.scoring_mode(), ScoringMode::Auto);
        let mode = |m| Index::with_scoring_mode(m, || idx.scoring_mode());
        assert_eq!(mode(ScoringMode::Pruned), ScoringMode::Pruned);
        assert_eq!(mode(ScoringMode::Exhaustive), ScoringMode::Exhaustive);
        assert_eq!(
            Index::with_scoring_mode(ScoringMode::Pruned, || {
                Index::with_blocked_scoring(false, || idx.scoring_mode())
            }),
            ScoringMode::Exhaustive
        );
        assert_eq!(idx.scoring_mode(), ScoringMode::Auto);
        // Auto leaves small queries to the exhaustive loop; Pruned always prunes.
        let query = [("read", 1.0)];
        let keep = |_: u32, _: f64| true;
        let opts = SearchOptions::default();
        assert!(idx.search_pruned(&query, &opts, 8, |_| 0, keep).is_none());
        let pruned = Index::with_scoring_mode(ScoringMode::Pruned, || {
            idx.search_pruned(&query, &opts, 8, |_| 0, keep)
        });
        assert!(pruned.is_some_and(|hits| !hits.is_empty()));
    }

    #[test]
    fn bounds_are_upper_bounds_and_bitmaps_hold_the_dense_terms() {
        let mut rng = Rng(7);
        let idx = corpus(&mut rng, 3000, 20);
        let b = &idx.bounds;
        assert_eq!(b.term_max.len() + 1, idx.offsets.len());
        for t in 0..idx.terms.len() {
            let (start, end) = (idx.offsets[t] as usize, idx.offsets[t + 1] as usize);
            for i in start..end {
                let d = idx.docs[i] as usize;
                let score = idx
                    .params
                    .term_score(1.0, idx.idf[t], idx.tfs[i] as f64, idx.norms[d]);
                assert!(score <= idx.idf[t] * b.term_max[t] as f64);
            }
            let dense = (end - start) * super::DENSE >= idx.len();
            assert_eq!(b.bitmap(t as u32).is_some(), dense);
            if let Some(w) = b.bitmap(t as u32) {
                let held: Vec<u32> = (0..idx.len() as u32)
                    .filter(|&d| b.bitmaps[w + d as usize / 64] >> (d % 64) & 1 == 1)
                    .collect();
                assert_eq!(held, idx.docs[start..end]);
            }
        }
        assert!(!b.dense.is_empty());
    }

    #[test]
    fn loaded_and_updated_indexes_derive_their_bounds_and_prune_exactly() {
        let mut rng = Rng(99);
        let idx = corpus(&mut rng, 1500, 18);
        let (loaded, _) = Index::from_bytes(&idx.to_bytes(b"")).unwrap();
        let (names, docs) = crate::build::tests::corpus(40, 8);
        let remove: Vec<u32> = (0..1500).step_by(7).collect();
        let updated = idx.updated(&remove, names, &docs).unwrap();
        for other in [&loaded, &updated] {
            let fresh = super::Bounds::compute(
                other.params,
                &other.offsets,
                &other.docs,
                &other.tfs,
                &other.norms,
            );
            assert_eq!(other.bounds.term_max, fresh.term_max);
            assert_eq!(other.bounds.dense, fresh.dense);
            assert_eq!(other.bounds.bitmaps, fresh.bitmaps);
            assert!(!other.bounds.dense.is_empty());
            for q in ["read file", "the a of data", "send message user channel"] {
                let tokens: Vec<&str> = q.split(' ').collect();
                let opts = SearchOptions::default();
                let pruned = Index::with_scoring_mode(ScoringMode::Pruned, || {
                    other.search_tokens(&tokens, 5, &opts)
                });
                let exhaustive =
                    Index::with_exhaustive_scoring(|| other.search_tokens(&tokens, 5, &opts));
                assert_eq!(pruned, exhaustive, "{q}");
            }
        }
        // A snapshot renumbers the terms (its dictionary is sorted), not the dense set.
        assert_eq!(loaded.bounds.dense.len(), idx.bounds.dense.len());
        assert_eq!(loaded.bounds.bitmaps.len(), idx.bounds.bitmaps.len());
    }
}
