//! The top-k heap: the best `limit` documents by score, then name, then doc id, kept without
//! sorting the matches. The exhaustive path and pruned search (`prune`) share it.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::index::Index;

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

/// The best `limit` documents offered so far (score descending, then name, then doc id).
pub(crate) struct TopK<'a> {
    heap: BinaryHeap<Candidate<'a>>,
    limit: usize,
    /// The worst held score once `limit` documents are held, else `-inf`: a score below it
    /// cannot enter, which one comparison tells (most candidates stop there).
    floor: f64,
}

impl<'a> TopK<'a> {
    pub(crate) fn new(limit: usize) -> Self {
        TopK {
            heap: BinaryHeap::with_capacity(limit.saturating_add(1).min(1024)),
            limit,
            floor: f64::NEG_INFINITY,
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
        // Not above 0 (NaN included), or below the floor: most candidates lose on score alone,
        // so they are skipped before the filters and their name.
        if score.is_nan() || score <= 0.0 || score < self.floor {
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
        if self.heap.len() < self.limit {
            self.heap.push(cand);
            if self.heap.len() == self.limit {
                self.floor = self.heap.peek().map_or(f64::NEG_INFINITY, |c| c.score);
            }
            return true;
        }
        let mut worst = match self.heap.peek_mut() {
            Some(worst) if cand.worse_than(&worst) == Ordering::Less => worst,
            _ => return false,
        };
        *worst = cand; // replaces the worst and sifts down once (a pop and a push sift twice)
        drop(worst);
        self.floor = self.heap.peek().map_or(f64::NEG_INFINITY, |c| c.score);
        true
    }

    /// The score below which no document can enter (`-inf` until `limit` documents are held).
    #[inline]
    pub(crate) fn floor(&self) -> f64 {
        self.floor
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
