//! One large pruned search on several cores: the documents are cut into as many ranges as the
//! thread pool has threads, each range is searched by the pruned loop with its own top k, and
//! the ranges' top k are merged.
//!
//! **Exact.** A range's pruned loop returns the best `limit` documents of its range under the
//! heap's total order (score, then name, then doc id), so the best `limit` of their union,
//! merged through the same heap, are the best `limit` of all documents: the ranking and every
//! score are those of the single-threaded search. The ranges also share θ: a range's k-th best
//! score is a lower bound of the whole search's k-th best (k documents that passed every filter
//! score at least that much), so every range may drop a document strictly below the largest θ
//! any range has reached. A document tying it is still scored and offered, as in one range.
//! Scores are > 0, so θ is shared as the bits of a non-negative f64, whose integer order is the
//! float order (`AtomicU64::fetch_max`).
//!
//! **When.** A search from outside the thread pool (a Python call, or a Rust caller's thread) on
//! at least [`PARALLEL_MIN_DOCS`] documents whose lists hold at least [`PARALLEL_MIN_POSTINGS`]
//! postings, while no other pruned search runs in the process. Splitting costs more work (each
//! range prunes against a low θ until the ranges' θ rise: at 100k tools each half took ~35 µs
//! of a 42 µs search) and 5-15 µs to wake a pool thread (the calling thread searches the first
//! range itself), so it pays only on large indexes, and where cores are idle: concurrent searches (a gateway's threads) and a search on a pool thread (`search_many`'s
//! batch, which already keeps every core busy) stay on their thread. `RAYON_NUM_THREADS=1` turns
//! it off, with every other use of the pool.
//!
//! Tests and benches force a number of ranges with [`set_search_parts`] (every thread; Python's
//! `_set_search_parts`) or [`Index::with_search_parts`] (this thread).

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::{List, PrunedSearch};
use crate::index::Index;
use crate::search::TopK;

/// Below this many documents a search stays on one thread: waking a pool thread (which sleeps
/// between a Python caller's searches) and each range's own rise of θ cost more than half of
/// the search saves. From Python (`Index.search`, 400 synthetic queries, median, omp / english
/// profile, one range against two on 2 cores): 100k tools 38.1 vs 48.1 / 48.7 vs 56.6 µs, 200k
/// 54.7 vs 56.7 µs (omp), 300k 76.2 vs 66.3 / 90.6 vs 83.6 µs, 1M 182 vs 138 / 286 vs 194 µs.
pub(crate) const PARALLEL_MIN_DOCS: usize = 1 << 18;
/// Below this many postings (summed over the query's lists) a search stays on one thread.
pub(crate) const PARALLEL_MIN_POSTINGS: usize = 8_192;
/// The most ranges of one search.
const MAX_PARTS: usize = 8;

/// Ranges forced on every search of every thread (0: chosen by size, the default).
static GLOBAL_PARTS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Ranges forced on this thread's searches by [`Index::with_search_parts`], over the global.
    static THREAD_PARTS: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Forces every pruned search to be cut into `parts` document ranges (`0` restores the
/// automatic choice). For tests and benches: every choice returns the same results.
pub fn set_search_parts(parts: usize) {
    GLOBAL_PARTS.store(parts, Ordering::Relaxed);
}

/// Pruned searches running now, in this process (see [`Index::search_parts`]).
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// Counts a pruned search in [`IN_FLIGHT`] while it lives.
pub(super) struct InFlight {
    /// How many other pruned searches were running when this one started.
    pub(super) others: usize,
}

impl InFlight {
    pub(super) fn enter() -> InFlight {
        InFlight {
            others: IN_FLIGHT.fetch_add(1, Ordering::Relaxed),
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        IN_FLIGHT.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Raises the shared θ to `theta` (scores are > 0: only positive θ are shared).
#[inline]
pub(super) fn publish(shared: &AtomicU64, theta: f64) {
    if theta > 0.0 {
        shared.fetch_max(theta.to_bits(), Ordering::Relaxed);
    }
}

impl Index {
    /// How many document ranges a pruned search over `postings` postings is cut into, while
    /// `others` other pruned searches run: one unless it is large and alone.
    pub(super) fn search_parts(&self, postings: usize, others: usize) -> usize {
        let forced = THREAD_PARTS
            .with(|p| p.get())
            .unwrap_or_else(|| GLOBAL_PARTS.load(Ordering::Relaxed));
        if forced > 0 {
            return forced.min(self.len().max(1));
        }
        if others > 0
            || rayon::current_thread_index().is_some()
            || self.len() < PARALLEL_MIN_DOCS
            || postings < PARALLEL_MIN_POSTINGS
        {
            return 1;
        }
        crate::pool::threads().min(MAX_PARTS)
    }

    /// Runs `f` with every pruned search of this thread cut into `parts` ranges (`0`: the
    /// automatic choice), for tests and benches.
    pub fn with_search_parts<T>(parts: usize, f: impl FnOnce() -> T) -> T {
        struct Reset(Option<usize>);
        impl Drop for Reset {
            fn drop(&mut self) {
                THREAD_PARTS.with(|p| p.set(self.0));
            }
        }
        let _reset = Reset(THREAD_PARTS.with(|p| p.replace(Some(parts))));
        f()
    }

    /// The pruned search of `lists` over `parts` document ranges in parallel, merged.
    pub(super) fn prune_parallel(
        &self,
        lists: Vec<List>,
        search: &PrunedSearch,
        keep: &(impl Fn(u32, f64) -> bool + Sync),
        parts: usize,
    ) -> Vec<(u32, f64)> {
        let n = self.len() as u64;
        let parts = parts as u64;
        let shared = AtomicU64::new(0f64.to_bits());
        let range = |i: u64| {
            // Document ids are u32, so both bounds fit.
            let (lo, hi) = ((n * i / parts) as u32, (n * (i + 1) / parts) as u32);
            let lists = lists.iter().map(|l| self.restricted(l, lo, hi)).collect();
            self.prune_range(lists, search, keep, Some(&shared), (lo, hi))
        };
        // The calling thread searches the first range while the pool searches the others (no
        // hand-off of the whole search to the pool and back: ~12 µs less per search).
        let mut found: Vec<Vec<(u32, f64)>> = vec![Vec::new(); parts as usize];
        let (first, rest) = found.split_at_mut(1);
        match crate::pool::pool() {
            Some(pool) => pool.in_place_scope(|scope| {
                for (i, slot) in rest.iter_mut().enumerate() {
                    let range = &range;
                    scope.spawn(move |_| *slot = range(i as u64 + 1));
                }
                first[0] = range(0);
            }),
            // No pool (the process cannot start threads): the ranges one after another.
            None => {
                first[0] = range(0);
                for (i, slot) in rest.iter_mut().enumerate() {
                    *slot = range(i as u64 + 1);
                }
            }
        }
        let mut top = TopK::new(search.limit);
        for (doc, score) in found.into_iter().flatten() {
            // Every document here passed the filters in its range.
            top.offer(self, doc, score, |_, _| true);
        }
        top.into_sorted()
    }

    /// `list` restricted to the documents in `lo..hi`.
    fn restricted(&self, list: &List, lo: u32, hi: u32) -> List {
        let docs = &self.docs[list.pos..list.end];
        let pos = list.pos + docs.partition_point(|&d| d < lo);
        let end = list.pos + docs.partition_point(|&d| d < hi);
        List {
            pos,
            end,
            cur: if pos < end { self.docs[pos] } else { u32::MAX },
            at: usize::MAX,
            ..list.clone()
        }
    }
}
