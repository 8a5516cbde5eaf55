//! Which scoring path a search takes: [`ScoringMode`], forced per process or per thread for
//! tests and benches, and the `Auto` policy (when pruning repays its bookkeeping).

use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering as AtomicOrdering};

use super::List;
use crate::index::{Index, MIN_PRUNE_DOCS};

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
pub(super) fn worth_pruning(lists: &[List], postings: usize, docs: usize) -> bool {
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
pub(super) fn max_pruned_lists(docs: usize) -> usize {
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
}
