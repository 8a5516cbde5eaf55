//! Shared posting lists: a stemmed copy that holds exactly its word's documents reads the
//! word's postings instead of storing its own.
//!
//! In the English profile every token adds its word and a half-weight stemmed copy (`§stem`).
//! When the stem is the word itself (a number, an id, a server name, a word no suffix rule
//! changes) and no other word of the catalogue has that stem, the copy's postings are the word's
//! documents at exactly half the term frequency. Such a copy is *shared*: its own range in
//! `docs`/`tfs` is empty, and `Index::list` points it at the word's range with a tf scale of
//! [`SHARED_TF_SCALE`]. The scale is a power of two and each shared copy is checked posting by
//! posting to hold `tf_copy == tf_word · ½` in `f32`, so every reader gets the same `f64` tf, and
//! every score the same bits, as from stored postings. On the synthetic catalogues 85 % of the
//! copies' postings are shared (42 % of all), 8 bytes each: a 100k-tool english index's RSS
//! growth went from 91 to 67 MB (`benches/scale_report.py 100000`).
//!
//! Sharing applies from [`SHARE_MIN_DOCS`] documents, where memory per tool is what counts and
//! postings' impacts are not stored (`index::bounds`). Snapshots store every list in full (the
//! format does not change) and a load shares again.

use rayon::prelude::*;

use crate::analysis::STEM_MARK;
use crate::index::{TermIds, OWN_POSTINGS, SHARED_TF_SCALE};
use crate::text::PackedStrings;

/// From this many documents an index shares its twin lists (see the module docs).
pub(crate) const SHARE_MIN_DOCS: usize = crate::index::MIN_PRUNE_DOCS;

/// Whether an index of `n` documents shares its twin lists.
#[cfg(not(test))]
pub(crate) fn shares(n: usize) -> bool {
    n >= SHARE_MIN_DOCS
}

#[cfg(test)]
thread_local! {
    static TEST_SHARE_MIN: std::cell::Cell<usize> = const { std::cell::Cell::new(SHARE_MIN_DOCS) };
}

/// Whether an index of `n` documents shares its twin lists (tests may lower the size on their
/// thread: [`sharing_from`]).
#[cfg(test)]
pub(crate) fn shares(n: usize) -> bool {
    n >= TEST_SHARE_MIN.with(|m| m.get())
}

/// `f()` with indexes built on this thread sharing from `docs` documents (for tests of the
/// shared layout on small corpora).
#[cfg(test)]
pub(crate) fn sharing_from<R>(docs: usize, f: impl FnOnce() -> R) -> R {
    let before = TEST_SHARE_MIN.with(|m| m.replace(docs));
    let out = f();
    TEST_SHARE_MIN.with(|m| m.set(before));
    out
}

/// Scored postings after sharing: CSR columns in which shared terms have empty ranges, and the
/// per-term source (`OWN_POSTINGS` for a term with its own list; empty when no term shares).
pub(crate) struct SharedPostings {
    pub(crate) offsets: Vec<u32>,
    pub(crate) docs: Vec<u32>,
    pub(crate) tfs: Vec<f32>,
    pub(crate) shared: Vec<u32>,
}

/// The scored postings with every copy that can share its word's list shared (see the module
/// docs); the columns as given when none can.
pub(crate) fn share_twins(
    terms: &PackedStrings,
    term_ids: &TermIds,
    offsets: Vec<u32>,
    mut docs: Vec<u32>,
    mut tfs: Vec<f32>,
) -> SharedPostings {
    let range = |t: usize| offsets[t] as usize..offsets[t + 1] as usize;
    let scale = SHARED_TF_SCALE as f32;
    let shared: Vec<u32> = (0..terms.len())
        .into_par_iter()
        .with_min_len(4096)
        .map(|c| {
            let copy = &terms[c];
            // A copy (`§stem`) is a candidate to share the plain term spelled as its stem.
            let Some(word) = copy.strip_prefix(STEM_MARK) else {
                return OWN_POSTINGS;
            };
            let Some(w) = term_ids.get(terms, word) else {
                return OWN_POSTINGS;
            };
            let (mine, theirs) = (range(c), range(w as usize));
            let same = !mine.is_empty()
                && mine.len() == theirs.len()
                && docs[mine.clone()] == docs[theirs.clone()]
                && tfs[mine]
                    .iter()
                    .zip(&tfs[theirs])
                    .all(|(&tc, &tw)| tc == tw * scale);
            if same {
                w
            } else {
                OWN_POSTINGS
            }
        })
        .collect();
    if shared.iter().all(|&s| s == OWN_POSTINGS) {
        return SharedPostings {
            offsets,
            docs,
            tfs,
            shared: Vec::new(),
        };
    }
    // Compact in place: every kept list moves down over the shared ones before it.
    let mut new_offsets = Vec::with_capacity(offsets.len());
    new_offsets.push(0u32);
    let mut end = 0usize;
    for (t, &source) in shared.iter().enumerate() {
        if source == OWN_POSTINGS {
            let r = range(t);
            let len = r.len();
            if r.start != end {
                docs.copy_within(r.clone(), end);
                tfs.copy_within(r, end);
            }
            end += len;
        }
        new_offsets.push(end as u32);
    }
    docs.truncate(end);
    tfs.truncate(end);
    docs.shrink_to_fit();
    tfs.shrink_to_fit();
    SharedPostings {
        offsets: new_offsets,
        docs,
        tfs,
        shared,
    }
}
