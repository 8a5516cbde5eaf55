//! The pruning bounds: per-term upper bounds of the BM25+ term-frequency component and bitmaps
//! of the dense terms, derived from the postings and norms at build, load and update.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::{Index, Tfs, OWN_POSTINGS, SHARED_TF_SCALE};
use crate::index::bm25::Params;

/// Per-term and per-block upper bounds of the BM25+ term-frequency component, derived from the
/// postings and norms (never stored in snapshots).
#[derive(Debug, Clone, Default)]
pub(crate) struct Bounds {
    /// Per term: an upper bound of `tf·(k1+1)/(tf+norm) + δ` over its postings, rounded up to
    /// `f32` (0 for a term without scored postings).
    pub(crate) term_max: Vec<f32>,
    /// The dense terms (in at least 1/[`DENSE`] of the documents), ascending, each with the
    /// first word of its document bitmap in `bitmaps`.
    pub(crate) dense: Vec<(u32, u32)>,
    /// One bit per document for each dense term: whether the document holds the term.
    pub(crate) bitmaps: Vec<u64>,
    /// Per term: whether the query term after it (its stemmed copy, in the English profile)
    /// holds the same documents, learnt on first use (see [`Twins`]).
    pub(crate) twins: Twins,
    /// Per posting (aligned with `docs` and `tfs`): its *impact*, the parenthesis of
    /// `Params::term_score`, `tf·(k1+1)/(tf+norm) + δ`, computed with the same operations, so that
    /// the exhaustive loop multiplies instead of dividing and gets the same bits. Kept only below
    /// [`IMPACT_MAX_DOCS`] documents (empty above): 8 bytes a posting, which small indexes spend
    /// for speed and large ones, searched by the pruned loop, do not.
    pub(crate) impacts: Vec<f64>,
}

/// Below this many documents `Auto` keeps the exhaustive loop whatever the query: its
/// accumulator (8 bytes a document) stays in the core's cache, and it beat the pruned loop on
/// every query set measured there (`examples/prune_bench.rs`, exhaustive vs pruned, µs a query,
/// seed / english profile): synthetic 10k 13.0 vs 22.9 / 17.7 vs ~30, 20k 24.7 vs 36.5 /
/// 32.9 vs 47.7, 40k 47.8 vs 58.8 / 63.0 vs 74.3; mcp_mixed (11,578 tools, 33-word queries)
/// 35.2 vs 86.7 / 46.7 vs 107.7. At 70k the two are even (seed 83.7 vs 83.1, english 111.4 vs
/// 95.4), and from 100k pruning wins (seed 128 vs 95; mcp_mixed's long queries 552 vs 170).
pub const MIN_PRUNE_DOCS: usize = 65_536;

/// Below this many documents the index keeps every posting's impact (`Bounds::impacts`). It is
/// the size under which `Auto` never prunes (`MIN_PRUNE_DOCS`): every search there walks whole
/// posting lists, where the division per posting was the loop's bottleneck. Engine alone
/// (`examples/prune_bench.rs`, µs a query, english / seed): synthetic 10k 16.9 -> 12.6 /
/// 12.8 -> 10.2, mcp_mixed 27.0 -> 22.2 / 33.3 -> 25.2, for +6.1 / +1.9 MB on mcp_mixed's
/// 10.4 / 4.3 MB. Above it memory per tool counts more (100k-1M tools), and the pruned loop
/// scores few postings.
pub(crate) const IMPACT_MAX_DOCS: usize = MIN_PRUNE_DOCS;

/// A per-term memo of the twin test of scoring (`Index::accumulate`, the pruned loop): does the
/// next query term hold exactly the same documents as this one? Comparing two posting lists costs
/// a pass over both (6 % of an English 10k search), and the answer is a fact of the immutable
/// postings: the first search that pairs two terms records it, later ones read it.
///
/// One `u32` a term: `u32::MAX` untested, else `partner << 1 | same` for the last partner tested
/// (a word's partner is its stemmed copy, so one slot holds the answer every query asks).
/// Relaxed atomics: a racing store writes a true answer for its own partner, and a reader checks
/// the partner before trusting the bit.
pub(crate) struct Twins(Box<[AtomicU32]>);

impl Twins {
    fn new(n_terms: usize) -> Self {
        Twins((0..n_terms).map(|_| AtomicU32::new(u32::MAX)).collect())
    }

    /// Whether `term` and `partner` hold the same documents: the recorded answer, or `test()`'s,
    /// recorded.
    #[inline]
    pub(crate) fn same(&self, term: u32, partner: u32, test: impl FnOnce() -> bool) -> bool {
        let Some(slot) = self.0.get(term as usize).filter(|_| partner < 1 << 31) else {
            return test();
        };
        let seen = slot.load(Ordering::Relaxed);
        if seen != u32::MAX && seen >> 1 == partner {
            return seen & 1 == 1;
        }
        let same = test();
        slot.store(partner << 1 | u32::from(same), Ordering::Relaxed);
        same
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.0.len() * 4
    }
}

impl Clone for Twins {
    /// A fresh memo of the same size: the answers are learnt again.
    fn clone(&self) -> Self {
        Twins::new(self.0.len())
    }
}

impl Default for Twins {
    fn default() -> Self {
        Twins::new(0)
    }
}

impl std::fmt::Debug for Twins {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Twins({} terms)", self.0.len())
    }
}

/// A term in at least 1/DENSE of the documents gets a bitmap (N/8 bytes: at most 8 bytes per
/// posting, the size of the posting itself), so that pruning tests membership without walking
/// its list. 64 rather than 16: a verb or object of an MCP-style name (1.5-6 % of the tools) is
/// then a bitmap test instead of a galloping seek for most candidates; at 100k synthetic tools
/// the pruned loop took ~19 % less time relative to the exhaustive one (pruned/exhaustive ratio
/// 1.57x -> 1.93x, means of 3-5 runs of benches/prune_report.py) for +11 bytes per tool
/// (+2.7 %); mcp_mixed's engine memory +5 % (seed) / +9 % (english).
pub(crate) const DENSE: usize = 64;

/// The smallest `f32` that is >= `x` (for finite, non-negative `x`).
fn f32_up(x: f64) -> f32 {
    let f = x as f32;
    if (f as f64) < x {
        f32::from_bits(f.to_bits() + 1)
    } else {
        f
    }
}

/// What a live update's index keeps of the previous index's bounds (`Bounds::compute`). An
/// unchanged list's maximum is the same when every kept document's norm is (the same average
/// length); a changed one's too, when no removed posting could have held it, raised to the
/// added postings' maximum (`f32_up` is monotone). A dense list's bitmap words below the
/// first removed document are the same (those documents kept their ids); only the words
/// after it are set again.
pub(crate) struct Carry<'a> {
    pub(crate) old: &'a Index,
    /// Whether every kept document's norm is unchanged (the same parameters and average
    /// length).
    pub(crate) same_norms: bool,
    /// Per new term: its old id (`u32::MAX`: a new term), and whether its list changed
    /// (postings removed or added).
    pub(crate) old_ids: &'a [u32],
    pub(crate) changed: &'a [bool],
    /// Per old document: kept or not.
    pub(crate) keep: &'a [bool],
    /// The first removed document (documents below it kept their ids), and the number of
    /// documents kept (the added ones come after them).
    pub(crate) first_removed: u32,
    pub(crate) n_kept: u32,
}

impl Carry<'_> {
    /// The old index's bound of new term `t`'s list when it still holds, raised to the
    /// maximum of `added` (the parts of its added postings); `None` when it must be computed.
    fn term_max(&self, t: usize, added: impl FnOnce() -> f64) -> Option<f32> {
        let o = self.old_ids[t];
        if !self.same_norms || o == u32::MAX {
            return None;
        }
        let old = self.old.bounds.term_max[o as usize];
        if !self.changed[t] {
            return Some(old);
        }
        // The removed postings (after the first removed document) must stay below the bound.
        let (k1, delta) = (self.old.params.k1, self.old.params.delta);
        let (docs, tfs, scale) = self.old.postings(o);
        let mut removed = 0f64;
        let from = docs.partition_point(|&d| d < self.first_removed);
        for (i, &d) in docs.iter().enumerate().skip(from) {
            if !self.keep[d as usize] {
                let tf = tfs.get(i) * scale;
                let norm = self.old.norms[d as usize];
                removed = removed.max((tf * (k1 + 1.0)) / (tf + norm) + delta);
            }
        }
        (f32_up(removed) < old).then(|| old.max(f32_up(added())))
    }

    /// The first words of new term `t`'s bitmap, as the old index's (empty when it had none).
    fn bitmap_prefix(&self, t: usize) -> &[u64] {
        let o = self.old_ids[t];
        let Some(w) = (o != u32::MAX).then(|| self.old.bounds.bitmap(o)).flatten() else {
            return &[];
        };
        &self.old.bounds.bitmaps[w..w + self.first_removed as usize / 64]
    }
}

impl Bounds {
    /// Computes the bounds of CSR postings (`offsets`, `docs`, `tfs`; `shared` as in
    /// `Index::shared`) under `norms` (for tests: constructors call `Index::refresh_bounds`).
    #[cfg(test)]
    pub(crate) fn compute(
        params: Params,
        offsets: &[u32],
        docs: &[u32],
        tfs: &Tfs,
        shared: &[u32],
        norms: &[f64],
    ) -> Bounds {
        Bounds::compute_carrying(params, offsets, docs, tfs, shared, norms, None)
    }

    /// [`Bounds::compute`], with what `carry` says is unchanged copied instead: the same
    /// bounds, to the bit.
    pub(crate) fn compute_carrying(
        params: Params,
        offsets: &[u32],
        docs: &[u32],
        tfs: &Tfs,
        shared: &[u32],
        norms: &[f64],
        carry: Option<&Carry<'_>>,
    ) -> Bounds {
        let n = norms.len();
        let n_terms = offsets.len().saturating_sub(1);
        let (k1, delta) = (params.k1, params.delta);
        // The parenthesis of `Params::term_score` for posting `i` at tf scale `scale` (see
        // `Index::list`): the same operations.
        let tfs = tfs.all();
        let part = |i: usize, scale: f64| {
            let tf = tfs.get(i) * scale;
            (tf * (k1 + 1.0)) / (tf + norms[docs[i] as usize]) + delta
        };
        // A shared list's impacts differ from its source's (the tf scale): none are stored where
        // terms share (from `build::share::SHARE_MIN_DOCS`, past this size anyway).
        let impacts: Vec<f64> = if n < IMPACT_MAX_DOCS && shared.is_empty() {
            (0..docs.len())
                .into_par_iter()
                .with_min_len(1 << 14)
                .map(|i| part(i, 1.0))
                .collect()
        } else {
            Vec::new()
        };
        let term_max: Vec<f32> = (0..n_terms)
            .into_par_iter()
            .with_min_len(1024)
            .map(|t| {
                let (source, scale) = match shared.get(t) {
                    Some(&s) if s != OWN_POSTINGS => (s as usize, SHARED_TF_SCALE),
                    _ => (t, 1.0),
                };
                let range = offsets[source] as usize..offsets[source + 1] as usize;
                if let Some(c) = carry {
                    let added = || {
                        let first = docs[range.clone()].partition_point(|&d| d < c.n_kept);
                        (range.start + first..range.end)
                            .map(|i| part(i, scale))
                            .fold(0f64, f64::max)
                    };
                    if let Some(bound) = c.term_max(t, added) {
                        return bound;
                    }
                }
                let best = if impacts.is_empty() {
                    range.map(|i| part(i, scale)).fold(0f64, f64::max)
                } else {
                    impacts[range].iter().copied().fold(0f64, f64::max)
                };
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
                    let mut list = &docs[offsets[t] as usize..offsets[t + 1] as usize];
                    if let Some(c) = carry {
                        let prefix = c.bitmap_prefix(t);
                        if !prefix.is_empty() {
                            bits[..prefix.len()].copy_from_slice(prefix);
                            let from = (prefix.len() * 64) as u32;
                            list = &list[list.partition_point(|&d| d < from)..];
                        }
                    }
                    for &d in list {
                        bits[d as usize / 64] |= 1 << (d % 64);
                    }
                });
        }
        Bounds {
            term_max,
            dense,
            bitmaps,
            twins: Twins::new(n_terms),
            impacts,
        }
    }

    /// The first bitmap word of `term` if it is dense (a shared term: look up its source, whose
    /// documents it holds).
    pub(crate) fn bitmap(&self, term: u32) -> Option<usize> {
        self.dense
            .binary_search_by_key(&term, |&(t, _)| t)
            .ok()
            .map(|i| self.dense[i].1 as usize)
    }
}

impl Index {
    /// Recomputes the pruning bounds from the postings and norms; every constructor calls it.
    pub(crate) fn refresh_bounds(&mut self) {
        self.carry_bounds(None);
    }

    /// The pruning bounds from the postings and norms, what `carry` says is unchanged copied.
    pub(crate) fn carry_bounds(&mut self, carry: Option<&Carry<'_>>) {
        self.bounds = Bounds::compute_carrying(
            self.params,
            &self.offsets,
            &self.docs,
            &self.tfs,
            &self.shared,
            &self.norms,
            carry,
        );
    }
}
