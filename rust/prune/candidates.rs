//! The pruned loop for a few dense lists: candidates found 64 documents at a time in bitmaps.
//!
//! The document-at-a-time loop (`Index::prune_range`) visits every document of the essential
//! lists and tests the non-essential ones' bitmaps for each: on short queries of common words
//! (a 100k catalogue's 2-5 word queries: ~4k visits per range, of which ~4 % pass the bitmap
//! test) that branchy per-document work is the whole search. Here every list has a bitmap over
//! the range (dense terms have one in `Bounds`; a sparse list's is built from its postings), and
//! for each 64-document word the documents whose lists' bounds can add up to θ are found with a
//! few AND and OR operations: a document can reach θ only if the set of lists holding it has a
//! bound sum that reaches θ, and that set contains a *minimal* such set. So
//!
//! `candidates = OR over the minimal sets S of (AND of the bitmaps of S)`,
//!
//! computed over a block of words at once (slices ANDed and ORed whole, which the compiler
//! vectorizes) with the sets of the block's start; a block starts at [`RESTART_BLOCK`] words
//! whenever the sets change, and doubles up to [`MAX_BLOCK`] words while they do not.
//!
//! Only candidates are scored, each from the lists that hold it (its posting found by rank in the
//! list's bitmap), with the contributions added in query order from 0.0 as everywhere else, and
//! offered to the same heap: the result is the exhaustive loop's, bit for bit. θ only rises, so the
//! minimal sets, recomputed when it does, only shrink the candidates to documents that could
//! still enter the top k. Bounds are tested with the module's relative margin, as in the
//! per-document loop.

use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use super::{reaches, List, PrunedSearch};
use crate::index::{Index, TopK};

/// The most lists this path takes (the 2^8 sets of lists are enumerated when θ rises). With a
/// stemmed copy per word that its twin does not carry, an english query of 4 words can hold 8.
pub(super) const MAX_LISTS: usize = 8;

/// How many searches (ranges) each path answered, for the tests: (candidates, per document).
#[cfg(test)]
pub(super) static PATHS: [std::sync::atomic::AtomicUsize; 2] = [
    std::sync::atomic::AtomicUsize::new(0),
    std::sync::atomic::AtomicUsize::new(0),
];

/// Counts an answer of path `i` (`PATHS`, in tests).
#[inline]
pub(super) fn count_path(_i: usize) {
    #[cfg(test)]
    PATHS[_i].fetch_add(1, AtomicOrdering::Relaxed);
}

impl Index {
    /// The top documents of `lists` (restricted to the documents `lo..hi`) by the candidate
    /// bitmaps, or `None` when the per-document loop should run: more than [`MAX_LISTS`] lists,
    /// or lists too sparse for the range (fewer postings than 64-document words).
    pub(super) fn prune_by_candidates(
        &self,
        lists: &mut [List],
        search: &PrunedSearch,
        keep: &(impl Fn(u32, f64) -> bool + Sync),
        shared: Option<&AtomicU64>,
        range: (u32, u32),
    ) -> Option<Vec<(u32, f64)>> {
        // The loop counts bits in every word of every list (the ranks): with the CPU's popcnt
        // instead of the baseline x86-64's bit arithmetic it is ~10 % faster.
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has the feature the function is compiled for.
            return unsafe { self.candidates_popcnt(lists, search, keep, shared, range) };
        }
        self.candidates(lists, search, keep, shared, range)
    }

    /// [`Index::candidates`] compiled for CPUs with popcnt.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn candidates_popcnt(
        &self,
        lists: &mut [List],
        search: &PrunedSearch,
        keep: &(impl Fn(u32, f64) -> bool + Sync),
        shared: Option<&AtomicU64>,
        range: (u32, u32),
    ) -> Option<Vec<(u32, f64)>> {
        self.candidates(lists, search, keep, shared, range)
    }

    /// The body of [`Index::prune_by_candidates`].
    #[inline(always)]
    fn candidates(
        &self,
        lists: &mut [List],
        search: &PrunedSearch,
        keep: &(impl Fn(u32, f64) -> bool + Sync),
        shared: Option<&AtomicU64>,
        (lo, hi): (u32, u32),
    ) -> Option<Vec<(u32, f64)>> {
        let k = lists.len();
        if k == 0 || k > MAX_LISTS || lo >= hi {
            return None;
        }
        let (w0, w1) = (lo as usize / 64, (hi as usize).div_ceil(64));
        let words = w1 - w0;
        let postings: usize = lists.iter().map(|l| l.end - l.pos).sum();
        if postings < words {
            return None;
        }
        let docs = &self.docs[..];
        // Each list's bitmap over words w0..w1: its dense bitmap's slice, or one built here.
        let built: Vec<Vec<u64>> = lists
            .iter()
            .filter(|list| list.bits == usize::MAX)
            .map(|list| {
                let mut map = vec![0u64; words];
                for &d in &docs[list.pos..list.end] {
                    map[d as usize / 64 - w0] |= 1u64 << (d % 64);
                }
                map
            })
            .collect();
        let mut own = built.iter();
        let maps: Vec<&[u64]> = lists
            .iter()
            .map(|list| match list.bits {
                usize::MAX => own.next().map_or(&[][..], |map| &map[..]),
                start => &self.bounds.bitmaps[start + w0..start + w1],
            })
            .collect();
        let bounds: Vec<f64> = lists.iter().map(|l| l.bound).collect();
        let PrunedSearch {
            m,
            min_matched,
            threshold,
            limit,
        } = *search;
        let mut top = TopK::new(limit);
        let mut theta = threshold;
        // The minimal sets of lists (bit i: list i) whose bounds reach θ, and the smallest
        // bound sum of a set that reaches it: the sets only change once θ passes that sum.
        let minimal_sets = |theta: f64, out: &mut Vec<u32>| -> f64 {
            let mut sums = [0f64; 1 << MAX_LISTS];
            let mut reach = [false; 1 << MAX_LISTS];
            let mut floor = f64::INFINITY;
            out.clear();
            for s in 1..1usize << k {
                let low = s.trailing_zeros() as usize;
                sums[s] = sums[s & (s - 1)] + bounds[low];
                if !reaches(sums[s], theta) {
                    continue;
                }
                reach[s] = true;
                floor = floor.min(sums[s]);
                // Minimal: no set with one list fewer reaches θ (the empty set never does).
                let mut minimal = true;
                let mut rest = s;
                while rest != 0 && minimal {
                    let one = rest & rest.wrapping_neg();
                    minimal = !reach[s & !one];
                    rest &= rest - 1;
                }
                if minimal {
                    out.push(s as u32);
                }
            }
            floor
        };
        // Lists by descending bound: a candidate's exact contributions replace their bounds in
        // that order, and it is dropped as soon as it cannot reach θ.
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&a, &b| bounds[b].total_cmp(&bounds[a]));
        let mut sets = Vec::with_capacity(1 << MAX_LISTS);
        let mut floor = minimal_sets(theta, &mut sets);
        let params = self.params;
        let (tfs, norms) = (&self.tfs[..], &self.norms[..]);
        let mut contrib = vec![0f64; m];
        let mut hit = vec![false; m];
        let mut bits = [0u64; MAX_LISTS];
        // A list's bitmap holds exactly its documents, so a candidate's posting is found by rank,
        // without a search: `rank[i]` is the posting index of list i's first document at or after
        // the current word (the first word of a dense bitmap may hold documents before the range,
        // which the list does not hold: not counted).
        let below_lo = (1u64 << (lo % 64)) - 1;
        let mut rank = [0usize; MAX_LISTS];
        for ((r, list), map) in rank.iter_mut().zip(&*lists).zip(&maps) {
            *r = list.pos - (map[0] & below_lo).count_ones() as usize;
        }
        let mut stale = false;
        // Candidates are found a block of words at a time (AND and OR over whole slices), with
        // the sets of the block's start: the first block is one word, a block after the sets
        // change is `RESTART_BLOCK` words, and blocks double while the sets do not change.
        let mut block = 1usize;
        let mut found = [0u64; MAX_BLOCK];
        let mut all = [0u64; MAX_BLOCK];
        let mut start = 0usize;
        while start < words {
            if let Some(shared) = shared {
                let other = f64::from_bits(shared.load(AtomicOrdering::Relaxed));
                if other > theta {
                    theta = other;
                    stale = true;
                }
            }
            if stale {
                if !reaches(floor, theta) {
                    floor = minimal_sets(theta, &mut sets);
                    block = RESTART_BLOCK;
                }
                stale = false;
            }
            let end = words.min(start + block);
            let len = end - start;
            block = (block * 2).min(MAX_BLOCK);
            let found = &mut found[..len];
            let all = &mut all[..len];
            found.fill(0);
            for &set in &sets {
                all.fill(u64::MAX);
                let mut rest = set;
                while rest != 0 {
                    let map = &maps[rest.trailing_zeros() as usize][start..end];
                    rest &= rest - 1;
                    for (a, &m) in all.iter_mut().zip(map) {
                        *a &= m;
                    }
                }
                for (f, &a) in found.iter_mut().zip(&*all) {
                    *f |= a;
                }
            }
            // `rank` is at word `at`: it moves to a word with candidates, list by list over the
            // words between (most words have none), and to the block's end after.
            let mut at = start;
            for (w, &word_found) in (start..end).zip(&*found) {
                if word_found == 0 {
                    continue;
                }
                // Only this range's documents (a dense bitmap covers the whole index).
                let base = (w0 + w) as u32 * 64;
                let mut candidates = word_found;
                if base < lo {
                    candidates &= u64::MAX << (lo - base);
                }
                if hi - base < 64 {
                    candidates &= (1u64 << (hi - base)) - 1;
                }
                for ((r, b), map) in rank.iter_mut().zip(&mut bits).zip(&maps) {
                    *r += count_bits(&map[at..w]);
                    *b = map[w];
                }
                at = w;
                'candidate: while candidates != 0 {
                    let d = base + candidates.trailing_zeros();
                    candidates &= candidates - 1;
                    let norm = norms[d as usize];
                    contrib.fill(0.0);
                    hit.fill(false);
                    let bit = 1u64 << (d % 64);
                    let mut ub: f64 = (0..k)
                        .filter(|&i| bits[i] & bit != 0)
                        .map(|i| bounds[i])
                        .sum();
                    let mut exact = 0f64;
                    for &i in &order {
                        if bits[i] & bit == 0 {
                            continue;
                        }
                        let p = rank[i] + (bits[i] & (bit - 1)).count_ones() as usize;
                        debug_assert_eq!(docs[p], d);
                        ub -= bounds[i];
                        exact += lists[i].score_into(&params, tfs, p, norm, &mut contrib, &mut hit);
                        if !reaches(exact + ub.max(0.0), theta) {
                            continue 'candidate;
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
                        // The sets follow at the next block (a stale θ only lets more
                        // candidates through, each still tested against θ).
                        stale = true;
                    }
                }
            }
            for (r, map) in rank.iter_mut().zip(&maps) {
                *r += count_bits(&map[at..end]);
            }
            start = end;
        }
        count_path(0);
        Some(top.into_sorted())
    }
}

/// The number of set bits in `words`.
#[inline(always)]
fn count_bits(words: &[u64]) -> usize {
    words.iter().map(|w| w.count_ones() as usize).sum()
}

/// The words of the first block after the sets change. Smaller blocks follow a rising θ more
/// closely (fewer stale candidates) at a higher cost per word; engine alone, 100k synthetic
/// tools, seed / english µs a query: restarting at 1 word 42.4 / 66.5, at 8 39.4-40.6 /
/// 61.2-62.3, at 16 40.5 / 60.8, never (64) 46.8 / 69.2. The first block stays one word: θ
/// starts at 0 there (8 words: 41.0 / 61.7).
const RESTART_BLOCK: usize = 8;

/// The most words whose candidates are found at once.
const MAX_BLOCK: usize = 64;
