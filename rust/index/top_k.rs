//! The top-k heap: the best `limit` documents by score, then name, then doc id, kept without
//! sorting the matches. The exhaustive path and pruned search (`prune.rs`) share it.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::Index;

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
}

impl<'a> TopK<'a> {
    pub(crate) fn new(limit: usize) -> Self {
        TopK {
            heap: BinaryHeap::with_capacity(limit.saturating_add(1).min(1024)),
            limit,
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
        if score.is_nan() || score <= 0.0 {
            return false;
        }
        // Most candidates lose on score alone: skip them before the filters and their name.
        let full = self.heap.len() == self.limit;
        if full && self.heap.peek().is_some_and(|worst| score < worst.score) {
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
        if !full {
            self.heap.push(cand);
            return true;
        }
        match self.heap.peek() {
            Some(worst) if cand.worse_than(worst) == Ordering::Less => {
                self.heap.pop();
                self.heap.push(cand);
                true
            }
            _ => false,
        }
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
