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
//! **Seeds.** θ starts at the threshold and only rises as the heap fills, so the first words of
//! a range let nearly every document through. Before the walk, the documents holding all of the
//! few largest-bound lists (as many lists as would still hold about twice `limit` documents,
//! were the lists independent: `seed_lists`) are scored first, word by word until
//! `SEED_BUDGET` × `limit` of them are met; they are the likeliest to rank, so θ starts near its
//! final value, and the walk then skips them. On 100k synthetic tools this halves the documents
//! scored (english profile: 458 to 224 a query; knowing the final θ in advance gives ~200) and
//! saves a fifth of the search (Python, median: seed 35.7 to 28.8 µs, english 42.5 to 32.6 µs).
//! Ranges of more than `SEED_MAX_SPAN` documents get none (there the seed walk costs what it
//! saves).
//!
//! Only candidates are scored, each from the lists that hold it (its posting found by rank in the
//! list's bitmap), with the contributions added in query order from 0.0 as everywhere else, and
//! offered to the same heap: the result is the exhaustive loop's, bit for bit. θ only rises, so the
//! minimal sets, recomputed when it does, only shrink the candidates to documents that could
//! still enter the top k. Bounds are tested with the module's relative margin, as in the
//! per-document loop.

use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use super::{reaches, List, PrunedSearch};
use crate::index::bm25::Params;
use crate::index::{Index, TfSlice};
use crate::search::TopK;

/// The most lists this path takes (the 2^8 sets of lists are enumerated when θ rises). With a
/// stemmed copy per word that its twin does not carry, an english query of 4 words can hold 8.
pub(super) const MAX_LISTS: usize = 8;

/// How many searches (ranges) each path answered, for the tests: (candidates, per document,
/// candidates after seeds).
#[cfg(test)]
pub(super) static PATHS: [std::sync::atomic::AtomicUsize; 3] = [
    std::sync::atomic::AtomicUsize::new(0),
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
        let theta = threshold;
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
        let (tfs, norms) = (self.tfs.all(), &self.norms[..]);
        let mut scan = Scan {
            lists: &*lists,
            maps: &maps,
            bounds: &bounds,
            order: &order,
            docs,
            tfs,
            norms,
            params,
            contrib: vec![0f64; m],
            hit: vec![false; m],
            keep,
            shared,
            min_matched,
            top: TopK::new(limit),
            theta,
        };
        let first_word = |w: usize| {
            if w == 0 {
                u64::MAX << (lo % 64)
            } else {
                u64::MAX
            }
        };
        let last_word = |w: usize| match (hi as usize) % 64 {
            r if r != 0 && w + 1 == words => (1u64 << r) - 1,
            _ => u64::MAX,
        };
        let range_mask = |w: usize| first_word(w) & last_word(w);
        // Seeds: the documents holding all of the `j` largest-bound lists, scored first so that
        // θ starts near its final value (found in a block of words, it starts at the threshold
        // and rises only as the heap fills, and every document met meanwhile is a candidate).
        let mut stale = false;
        // The seed words met (a prefix of the range's words): the walk skips their documents.
        let mut seeds: Vec<u64> = Vec::new();
        if let Some(j) = seed_lists(scan.lists, &order, limit, hi - lo) {
            let mut cursor = Cursor::new(&scan, lo);
            // The estimate can be far off (correlated terms): the walk stops after a budget of
            // seeds, so that a range rich in them costs no more than a few words' worth.
            let mut budget = SEED_BUDGET * limit;
            // The seed words are found `MAX_BLOCK` words at a time (ANDs over whole slices).
            seeds.reserve(words);
            'walk: for start in (0..words).step_by(MAX_BLOCK) {
                let end = words.min(start + MAX_BLOCK);
                seeds.extend(maps[order[0]][start..end].iter().copied());
                let block = &mut seeds[start..end];
                for &i in &order[1..j] {
                    for (s, &m) in block.iter_mut().zip(&maps[i][start..end]) {
                        *s &= m;
                    }
                }
                block[0] &= range_mask(start);
                block[end - start - 1] &= range_mask(end - 1);
                for w in start..end {
                    let word = seeds[w];
                    if word == 0 {
                        continue;
                    }
                    stale |= scan.score_word(self, w, (w0 + w) as u32 * 64, word, &mut cursor);
                    budget = budget.saturating_sub(word.count_ones() as usize);
                    if budget == 0 {
                        // The walk skips the seeds of the words met, and only those.
                        seeds.truncate(w + 1);
                        break 'walk;
                    }
                }
            }
        }
        // Candidates are found a block of words at a time (AND and OR over whole slices), with
        // the sets of the block's start: the first block is one word, a block after the sets
        // change is `RESTART_BLOCK` words, and blocks double while the sets do not change.
        let mut block = if seeds.is_empty() { 1 } else { RESTART_BLOCK };
        let mut found = [0u64; MAX_BLOCK];
        let mut all = [0u64; MAX_BLOCK];
        let mut cursor = Cursor::new(&scan, lo);
        let mut start = 0usize;
        while start < words {
            if let Some(shared) = shared {
                let other = f64::from_bits(shared.load(AtomicOrdering::Relaxed));
                if other > scan.theta {
                    scan.theta = other;
                    stale = true;
                }
            }
            if stale {
                if !reaches(floor, scan.theta) {
                    floor = minimal_sets(scan.theta, &mut sets);
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
            let met = seeds.len();
            for (f, &s) in found.iter_mut().zip(&seeds[start.min(met)..end.min(met)]) {
                *f &= !s;
            }
            for (w, &word_found) in (start..end).zip(&*found) {
                // Only this range's documents (a dense bitmap covers the whole index).
                let candidates = word_found & range_mask(w);
                if candidates != 0 {
                    stale |=
                        scan.score_word(self, w, (w0 + w) as u32 * 64, candidates, &mut cursor);
                }
            }
            start = end;
        }
        let top = scan.top;
        count_path(if seeds.is_empty() { 0 } else { 2 });
        Some(top.into_sorted())
    }
}

/// The state of one pruned search's candidate scoring: the lists with their bitmaps over the
/// range's words, the heap and θ.
struct Scan<'a, 'l, F> {
    lists: &'l [List],
    maps: &'l [&'a [u64]],
    bounds: &'l [f64],
    /// List indices by descending bound.
    order: &'l [usize],
    docs: &'a [u32],
    tfs: TfSlice<'a>,
    norms: &'a [f64],
    params: Params,
    contrib: Vec<f64>,
    hit: Vec<bool>,
    keep: &'l F,
    shared: Option<&'l AtomicU64>,
    min_matched: u32,
    top: TopK<'a>,
    theta: f64,
}

/// Where a walk over the words stands in every list: a list's bitmap holds exactly its
/// documents, so a candidate's posting is found by rank, without a search. `rank[i]` is the
/// posting index of list i's first document at or after word `at`.
struct Cursor {
    rank: [usize; MAX_LISTS],
    bits: [u64; MAX_LISTS],
    at: usize,
}

impl Cursor {
    /// At the range's first word (whose bits below `lo` are documents the lists do not hold
    /// when the bitmap is a dense term's, over the whole index: not counted).
    fn new<F>(scan: &Scan<'_, '_, F>, lo: u32) -> Cursor {
        let below_lo = (1u64 << (lo % 64)) - 1;
        let mut rank = [0usize; MAX_LISTS];
        for ((r, list), map) in rank.iter_mut().zip(scan.lists).zip(scan.maps) {
            *r = list.pos - (map[0] & below_lo).count_ones() as usize;
        }
        Cursor {
            rank,
            bits: [0; MAX_LISTS],
            at: 0,
        }
    }
}

impl<'a, F: Fn(u32, f64) -> bool + Sync> Scan<'a, '_, F> {
    /// Scores the `candidates` of word `w` (documents `base..base + 64`) and offers each that
    /// can still reach θ; returns whether θ rose. `cursor` moves to `w` (words only increase).
    #[inline(always)]
    fn score_word(
        &mut self,
        index: &'a Index,
        w: usize,
        base: u32,
        mut candidates: u64,
        cursor: &mut Cursor,
    ) -> bool {
        let k = self.lists.len();
        for ((r, b), map) in cursor.rank.iter_mut().zip(&mut cursor.bits).zip(self.maps) {
            *r += count_bits(&map[cursor.at..w]);
            *b = map[w];
        }
        cursor.at = w;
        let (bits, rank) = (&cursor.bits, &cursor.rank);
        let mut raised = false;
        'candidate: while candidates != 0 {
            let d = base + candidates.trailing_zeros();
            candidates &= candidates - 1;
            let norm = self.norms[d as usize];
            self.contrib.fill(0.0);
            self.hit.fill(false);
            let bit = 1u64 << (d % 64);
            let mut ub: f64 = (0..k)
                .filter(|&i| bits[i] & bit != 0)
                .map(|i| self.bounds[i])
                .sum();
            let mut exact = 0f64;
            for &i in self.order {
                if bits[i] & bit == 0 {
                    continue;
                }
                let p = rank[i] + (bits[i] & (bit - 1)).count_ones() as usize;
                debug_assert_eq!(self.docs[p], d);
                ub -= self.bounds[i];
                exact += self.lists[i].score_into(
                    &self.params,
                    self.tfs,
                    p,
                    norm,
                    &mut self.contrib,
                    &mut self.hit,
                );
                if !reaches(exact + ub.max(0.0), self.theta) {
                    continue 'candidate;
                }
            }
            if let Some(theta) = index.offer_scored(
                &mut self.top,
                d,
                (&self.contrib, &self.hit),
                self.min_matched,
                self.keep,
                self.theta,
                self.shared,
            ) {
                self.theta = theta;
                raised = true;
            }
        }
        raised
    }
}

/// How many lists the seeds hold (the largest-bound ones), or `None` for no seeds: the most
/// lists whose documents, were the lists independent, would number at least [`SEEDS_PER_HIT`]
/// times `limit` over the range's `span` documents (at least two lists: one list's documents
/// are most of a range's candidates anyway).
fn seed_lists(lists: &[List], order: &[usize], limit: usize, span: u32) -> Option<usize> {
    if span > SEED_MAX_SPAN {
        return None;
    }
    let span = f64::from(span.max(1));
    let mut expected = span;
    let mut best = None;
    for (j, &i) in order.iter().enumerate() {
        expected *= (lists[i].end - lists[i].pos) as f64 / span;
        if j >= 1 && expected >= SEEDS_PER_HIT * limit as f64 {
            best = Some(j + 1);
        }
    }
    best
}

/// See [`seed_lists`].
const SEEDS_PER_HIT: f64 = 2.0;

/// Ranges of more documents get no seeds. A wider range's bitmaps outgrow the core's cache, and
/// the seed walk (a second pass over the words, ranks included) then costs about what the seeds
/// save: 1M synthetic tools in 2 ranges of 500k (seed profile), per range, with seeds 40 µs of
/// seed walk for 37 seeds, then 102 µs for 458 candidates; without, 140 µs for 618 candidates;
/// from Python, the median search 146 µs with seeds against 126 µs without. At 100k (one
/// range) seeds save 18-23 % (seed 35.5 to 28.9 µs, english 43.1 to 33.5 µs).
pub(super) const SEED_MAX_SPAN: u32 = 1 << 17;

/// The seeds scored at most, times `limit`: the seed walk stops at the word where it passes
/// that many.
const SEED_BUDGET: usize = 4;

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
