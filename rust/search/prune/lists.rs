//! The query's posting lists as the pruned loop walks them: one [`List`] per exact term or
//! prefix expansion, with its bound, its cursor and its scoring.

use crate::index::bm25::Params;
use crate::index::TfSlice;

/// One posting list of the query: an exact term, or one expansion of a prefix term.
#[derive(Clone)]
pub(super) struct List {
    /// Next posting. For essential lists `cur` is its document (`u32::MAX` past the end);
    /// non-essential lists only move `pos`, when probed, and may lag behind.
    pub(super) pos: usize,
    pub(super) end: usize,
    pub(super) cur: u32,
    /// The posting of the current document in an essential list (`usize::MAX`: none).
    pub(super) at: usize,
    /// The first word of the term's bitmap when the term is dense (`usize::MAX`: none).
    pub(super) bits: usize,
    /// The scale of the stored term frequencies (see `Index::list`).
    pub(super) scale: f64,
    /// The known query term (in query order) the list scores for.
    pub(super) src: usize,
    pub(super) qtf: f64,
    pub(super) idf: f64,
    /// The prefix fraction of an expansion of a prefix term.
    pub(super) fraction: Option<f64>,
    /// The next known query term when it holds exactly this list's documents (a word and its
    /// stemmed copy, in the English profile): walked with this list, scored for `src + 1`.
    pub(super) twin: Option<Twin>,
    /// An upper bound of the list's contribution to any document (its twin's included).
    pub(super) bound: f64,
}

/// The second term of a list that walks two terms with the same documents.
#[derive(Clone)]
pub(super) struct Twin {
    pub(super) qtf: f64,
    pub(super) idf: f64,
    /// Its posting index minus the list's (wrapping): the same document's posting.
    pub(super) shift: usize,
    /// The scale of its stored term frequencies (see `Index::list`).
    pub(super) scale: f64,
}

impl List {
    /// The contribution of the posting `i` to a document of norm `norm`, computed exactly as
    /// `Index::accumulate` does.
    #[inline]
    pub(super) fn score(&self, params: &Params, tfs: TfSlice<'_>, i: usize, norm: f64) -> f64 {
        let score = params.term_score(self.qtf, self.idf, tfs.get(i) * self.scale, norm);
        match self.fraction {
            None => score,
            Some(f) => f * score,
        }
    }

    /// Scores the posting `i` (and its twin's) into the query terms' contributions; returns
    /// their sum, for the bounds.
    #[inline]
    pub(super) fn score_into(
        &self,
        params: &Params,
        tfs: TfSlice<'_>,
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
                let tf = tfs.get(i.wrapping_add(twin.shift)) * twin.scale;
                let c2 = params.term_score(twin.qtf, twin.idf, tf, norm);
                record(contrib, hit, self.src + 1, c2);
                c + c2
            }
        }
    }
}

/// Moves `list.pos` to its first posting >= `d` (galloping, then a binary search) and returns it.
#[inline]
pub(super) fn seek(docs: &[u32], list: &mut List, d: u32) -> usize {
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
pub(super) fn record(contrib: &mut [f64], hit: &mut [bool], src: usize, c: f64) {
    if c > contrib[src] {
        contrib[src] = c;
    }
    hit[src] = true;
}
