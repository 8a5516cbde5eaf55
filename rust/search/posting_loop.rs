//! The exhaustive path's inner loop: one scored term's postings (or a pair of terms with the
//! same documents) added into the accumulator, specialised at compile time for the coverage
//! count, the pair and the first term of a query, over impacts computed from the term
//! frequencies ([`Computed`]; a coded list's block by block, [`Scaled`]) or stored at build ([`Stored`]). `exhaustive::accumulate` calls it.

use crate::index::{Codes, TfSlice, MAX_CODES};

/// Where a posting's impact comes from: the parenthesis of `Params::term_score`,
/// `tf·(k1+1)/(tf+norm) + δ`, for the posting at `i` of a list, of document `d`.
pub(super) trait Impacts: Sized {
    fn impact(&self, i: usize, d: usize) -> f64;
    /// The same impacts, cut to the list's `len` postings (so the loop's indexing is checked
    /// once, here).
    fn fit(self, len: usize) -> Self;
}

/// Impacts computed from the term frequencies (stored ones times `scale`: see `Index::list`)
/// and norms (indexes without stored impacts).
pub(super) struct Computed<'a> {
    pub(super) tfs: TfSlice<'a>,
    pub(super) scale: f64,
    pub(super) norms: &'a [f64],
    pub(super) k1p1: f64,
    pub(super) delta: f64,
}

impl Impacts for Computed<'_> {
    #[inline(always)]
    fn impact(&self, i: usize, d: usize) -> f64 {
        let tf = self.tfs.get(i) * self.scale;
        // SAFETY: `d < norms.len()`, the invariant `add_postings` states.
        let norm = unsafe { *self.norms.get_unchecked(d) };
        (tf * self.k1p1) / (tf + norm) + self.delta
    }

    fn fit(self, len: usize) -> Self {
        Computed {
            tfs: self.tfs.slice(0, len),
            ..self
        }
    }
}

/// Per code of a coded list (`index::Codes`): its term frequency times the list's scale, and
/// that times `k1 + 1`, the two numbers of the impact that do not depend on the document.
/// A slot per possible code, so that reading one needs no bounds check (4 KiB, on the stack).
pub(super) struct Scaled([(f64, f64); MAX_CODES]);

impl Scaled {
    /// The table of `codes` at tf scale `scale`, computed with the operations of [`Computed`].
    #[inline]
    pub(super) fn new(codes: &Codes<'_>, scale: f64, k1p1: f64) -> Scaled {
        let mut table = [(0.0, 0.0); MAX_CODES];
        for (slot, &tf) in table.iter_mut().zip(codes.values()) {
            let tf = tf * scale;
            *slot = (tf, tf * k1p1);
        }
        Scaled(table)
    }

    /// The impacts of the postings of `docs` whose codes are `codes`, into `out` (as long):
    /// `(tf·(k1+1)) / (tf + norm) + δ` with the operations of [`Computed`].
    #[inline]
    pub(super) fn impacts(
        &self,
        codes: &[u8],
        docs: &[u32],
        norms: &[f64],
        delta: f64,
        out: &mut [f64],
    ) {
        for ((slot, &code), &doc) in out.iter_mut().zip(codes).zip(docs) {
            let (tf, numerator) = self.0[code as usize];
            // SAFETY: `doc < norms.len()`, the invariant `add_postings` states.
            let norm = unsafe { *norms.get_unchecked(doc as usize) };
            *slot = numerator / (tf + norm) + delta;
        }
    }
}

/// Postings per block of [`Scaled::impacts`] (8 KiB of impacts, in the L1 cache).
pub(super) const IMPACT_BLOCK: usize = 1024;

/// A list's stored impacts (`Bounds::impacts`), computed at build with the same operations.
pub(super) struct Stored<'a>(pub(super) &'a [f64]);

impl Impacts for Stored<'_> {
    #[inline(always)]
    fn impact(&self, i: usize, _d: usize) -> f64 {
        self.0[i]
    }

    fn fit(self, len: usize) -> Self {
        Stored(&self.0[..len])
    }
}

/// The accumulator, the touched documents and the matched counts of one search.
pub(super) type Sums<'a> = (&'a mut [f64], &'a mut Vec<u32>, &'a mut [u32]);

/// Calls the `add_postings` specialised for `(pair, count, first)`.
#[inline]
pub(super) fn add_postings_as<I: Impacts>(
    (pair, count, first): (bool, bool, bool),
    docs: &[u32],
    term: (f64, I),
    term2: (f64, I),
    sums: Sums<'_>,
) {
    let add = match (count, pair, first) {
        (false, false, false) => add_postings::<false, false, false, I>,
        (true, false, false) => add_postings::<true, false, false, I>,
        (false, true, false) => add_postings::<false, true, false, I>,
        (true, true, false) => add_postings::<true, true, false, I>,
        (false, false, true) => add_postings::<false, false, true, I>,
        (true, false, true) => add_postings::<true, false, true, I>,
        (false, true, true) => add_postings::<false, true, true, I>,
        (true, true, true) => add_postings::<true, true, true, I>,
    };
    add(docs, term, term2, sums)
}

/// Adds one scored term's postings to the accumulator: `qi · impact` for each, where `qi` is
/// `qtf · idf` (the same f64 operations in the same order as `Params::term_score`), appending the
/// documents it is the first contribution of to `touched`, and counting matched terms when
/// `COUNT` (the coverage rule). With `PAIR`, the next query term holds the same documents
/// (`docs`) and is added right after the first, per document, exactly as a second call would
/// add it, in the same pass over the documents and the accumulator; without `PAIR` the second
/// term is ignored.
///
/// The loop is the hot path of every exhaustive search: no branch depends on the data, and
/// the constants are hoisted. With stored impacts ([`Stored`]) it has no division.
#[inline]
fn add_postings<const COUNT: bool, const PAIR: bool, const FIRST: bool, I: Impacts>(
    docs: &[u32],
    (qi, impacts): (f64, I),
    (qi2, impacts2): (f64, I),
    (acc, touched, matched): Sums<'_>,
) {
    // Branch-free bookkeeping: every document is written after the touched ones and kept
    // only when this term is its first contribution (contributions are > 0, so with a pair
    // this is the union of the two terms' tests).
    if FIRST {
        // No document has a contribution yet (`touched` is empty, so every accumulator slot
        // is 0.0): each posting's sum is `0.0 + score`, which is `score`, and each document
        // is new. The loop only writes, and `touched` is a copy of `docs`.
        debug_assert!(touched.is_empty());
        touched.extend_from_slice(docs);
    }
    let mut len = touched.len();
    if !FIRST {
        touched.resize(len + docs.len(), 0);
    }
    let out = &mut touched[..];
    let (impacts, impacts2) = (impacts.fit(docs.len()), impacts2.fit(docs.len()));
    for (i, &doc) in docs.iter().enumerate() {
        let d = doc as usize;
        debug_assert!(d < acc.len() && (FIRST || len < out.len()));
        // SAFETY: `d < acc.len()`: `acc` has one slot per document of the index (as many as
        // its norms), and every doc id in the postings is below the document count, an
        // invariant of `Index` that each constructor establishes (the builds number documents
        // 0..n, snapshot loading validates every id, updates remap valid ids) and that nothing
        // mutates afterwards. `len < out.len()`: `len` starts at the old length and grows by at
        // most one per posting, and `out` has one slot per posting beyond it. Bounds checks
        // per posting cost ~8% of a search.
        let before = if FIRST {
            0.0
        } else {
            unsafe { *acc.get_unchecked(d) }
        };
        let mut after = before + qi * impacts.impact(i, d);
        if PAIR {
            after += qi2 * impacts2.impact(i, d);
        }
        // SAFETY: as above.
        unsafe {
            *acc.get_unchecked_mut(d) = after;
            if !FIRST {
                *out.get_unchecked_mut(len) = doc;
            }
        }
        if !FIRST {
            len += usize::from(before == 0.0 && after != 0.0);
        }
        if COUNT {
            matched[d] += 1 + u32::from(PAIR);
        }
    }
    if !FIRST {
        touched.truncate(len);
    }
}
