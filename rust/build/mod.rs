//! Index build. [`Index::build`] is the reference, sequential build (`sequential`); this file
//! holds the parallel build and what both share.
//!
//! Parallel build: documents are tokenized in chunks on all cores, then the chunks' term
//! dictionaries are merged in chunk order. The result is the index [`Index::build`] makes, field for field: a chunk numbers its terms in
//! first-seen order, so visiting the chunks in document order and each chunk's terms in its own
//! order assigns global term ids in global first-seen order; postings are scattered chunk by
//! chunk, so documents stay ascending within a term; lengths and term frequencies are summed
//! token by token in the same order as the sequential build.
//!
//! [`assemble`] derives everything that follows from the stored columns (term map, IDF, average
//! length, norms); snapshots and live updates use it too, so a loaded or updated
//! index computes those numbers with exactly the operations a fresh build does.

use rayon::prelude::*;

use crate::analysis::Profile;
use crate::error::{Error, Result};
use crate::index::bm25::{self, Params};
use crate::index::bounds::Carry;
use crate::index::{Index, TermIds, Tfs};
use crate::text::PackedStrings;

pub mod catalog;
mod chunk;
mod flat;
mod intern;
pub mod item;
pub mod item_json;
mod json_values;
mod memo;
mod merge;
pub mod records;
pub mod schema;
mod sequential;
pub(crate) mod share;
pub mod source;
mod stems;

pub(crate) use chunk::{tokenize_chunk, tokenize_chunk_with, Chunk};
pub(crate) use merge::{Merge, Reorder, Slots};

pub use flat::{Document, FlatChunk, FlatDocument};
pub(crate) use stems::Stems;

/// Documents per parallel task: big enough to amortise a chunk's dictionary, small enough to
/// balance two to sixty-four cores.
pub(crate) const CHUNK_DOCS: usize = 2048;

/// Fails when a build would hold more postings (scored or presence) than `u32` offsets address.
pub(crate) fn check_postings(postings: usize, presence: usize) -> Result<()> {
    if postings > u32::MAX as usize || presence > u32::MAX as usize {
        return Err(Error::InvalidDocument(
            "too many postings (at most 2^32 - 1)".into(),
        ));
    }
    Ok(())
}

/// CSR offsets from per-term counts: `[0, c0, c0 + c1, ...]` (the total fits: see
/// [`check_postings`]).
pub(crate) fn prefix_offsets(counts: &[u32]) -> Vec<u32> {
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    let mut acc = 0u32;
    offsets.push(0);
    for &c in counts {
        acc += c;
        offsets.push(acc);
    }
    offsets
}

/// Checks what both builders take: one name per document, at most 2^32 - 1 documents (ids are
/// `u32`), and valid field weights.
pub(crate) fn check_build_inputs(
    names: usize,
    documents: usize,
    field_weights: &[f64],
) -> Result<()> {
    if names != documents {
        return Err(Error::InvalidDocument(format!(
            "got {names} names for {documents} documents"
        )));
    }
    if documents > u32::MAX as usize {
        return Err(Error::InvalidDocument(
            "too many documents (at most 2^32 - 1)".into(),
        ));
    }
    check_weights(field_weights)
}

/// The largest field weight: term frequencies are stored as `f32` sums of weights (3.4e38 at
/// most), so a weight above this could overflow to infinity and score NaN; it leaves room for
/// 10^8 occurrences of a term.
pub const MAX_FIELD_WEIGHT: f64 = 1e30;

/// The smallest field weight but 0: a smaller one (5e-324) is lost when its `f32` sums are made
/// (the engines then disagree on a score), and weighs nothing next to another field anyway.
pub const MIN_FIELD_WEIGHT: f64 = 1e-6;

/// What [`Error::Unchecked`] names for a field weight out of its range.
pub const WEIGHT_OUT_OF_RANGE: &str = "a field weight out of range";

/// Field weights must be 0, or between [`MIN_FIELD_WEIGHT`] and [`MAX_FIELD_WEIGHT`]. The rule
/// and its message are `toolsift._options.check_weight_list`', which the bindings ask for the
/// error: here a weight out of range is [`Error::Unchecked`].
pub(crate) fn check_weights(field_weights: &[f64]) -> Result<()> {
    let in_range = |w: &f64| *w == 0.0 || (MIN_FIELD_WEIGHT..=MAX_FIELD_WEIGHT).contains(w);
    if field_weights.iter().all(in_range) {
        Ok(())
    } else {
        Err(Error::Unchecked(WEIGHT_OUT_OF_RANGE))
    }
}

impl Index {
    /// [`Index::build`] on all cores (rayon's global pool); the resulting index is identical.
    pub fn build_parallel<S: AsRef<str> + Sync>(
        names: Vec<String>,
        documents: &[Vec<(usize, S)>],
        field_weights: Vec<f64>,
        params: Params,
    ) -> Result<Index> {
        Index::build_parallel_profiled(names, documents, field_weights, params, Profile::Omp)
    }

    /// [`Index::build_profiled`] on all cores; the resulting index is identical.
    pub fn build_parallel_profiled<S: AsRef<str> + Sync>(
        names: Vec<String>,
        documents: &[Vec<(usize, S)>],
        field_weights: Vec<f64>,
        params: Params,
        profile: Profile,
    ) -> Result<Index> {
        check_build_inputs(names.len(), documents.len(), &field_weights)?;
        let stems = Stems::default();
        let chunks: Vec<Chunk> = documents
            .par_chunks(CHUNK_DOCS)
            .enumerate()
            .map(|(c, docs)| {
                tokenize_chunk_with(c * CHUNK_DOCS, docs, &field_weights, profile, &stems)
            })
            .collect::<Result<_>>()?;
        Index::from_chunks(names, chunks, field_weights, params, profile)
    }

    /// Merges tokenized chunks (chunk `c` holds documents `c·CHUNK_DOCS ..`, every chunk but the
    /// last is full) into an index; the second half of [`Index::build_parallel`].
    pub(crate) fn from_chunks(
        names: Vec<String>,
        chunks: Vec<Chunk>,
        field_weights: Vec<f64>,
        params: Params,
        profile: Profile,
    ) -> Result<Index> {
        let mut merge = Merge::default();
        for chunk in chunks {
            merge.add(chunk);
        }
        merge.finish(names, field_weights, params, profile)
    }

    /// This index with its twin lists shared whatever its size (for tests: sharing otherwise
    /// starts at `share::SHARE_MIN_DOCS` documents).
    #[cfg(test)]
    pub(crate) fn with_shared_twins(&self) -> Index {
        let mut index = self.clone();
        let shared = share::share_twins(
            &index.terms,
            &index.term_ids,
            std::mem::take(&mut index.offsets),
            std::mem::take(&mut index.docs),
            index.tfs.to_f32s(),
        );
        index.offsets = shared.offsets;
        index.docs = shared.docs;
        index.tfs = Tfs::new(shared.tfs);
        index.shared = shared.shared;
        index.refresh_bounds();
        index // (same terms and scored terms: the clone's tag still holds)
    }

    /// A hash of everything a build produces, in term-id order (terms, postings, tfs, presence
    /// postings, lengths, norms, idf): equal fingerprints mean bit-identical builds. For
    /// benchmarks that check a faster build changes nothing (`examples/build_bench.rs`).
    #[doc(hidden)]
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        // (as the `Vec<String>` of names hashed: the same fingerprint whatever their layout)
        self.names.len().hash(&mut h);
        self.names.iter().for_each(|n| n.hash(&mut h));
        self.terms.hash(&mut h);
        self.sorted_terms.hash(&mut h);
        (&self.offsets, &self.docs, &self.shared).hash(&mut h);
        // (the values as `f32`s: the same fingerprint whatever the column's layout)
        let tfs = self.tfs.all();
        tfs.iter().for_each(|t| (t as f32).to_bits().hash(&mut h));
        // (with every term's presence offset, kept or not: see `Index::presence_offsets`)
        let mut end = 0u32;
        let presence_offsets: Vec<u32> = std::iter::once(0)
            .chain((0..self.terms.len() as u32).map(|t| {
                end += self.presence(t).len() as u32;
                end
            }))
            .collect();
        (&presence_offsets, &self.presence_docs).hash(&mut h);
        for column in [&self.lengths, &self.norms] {
            column.iter().for_each(|x| x.to_bits().hash(&mut h));
        }
        (0..self.terms.len() as u32).for_each(|t| self.idf(t).to_bits().hash(&mut h));
        self.avg_len.to_bits().hash(&mut h);
        self.term_ids.len().hash(&mut h);
        h.finish()
    }
}

/// The scored term ids (those with postings) in term order (bytewise, as `str` compares).
///
/// Sorted by the terms' first 8 bytes as a big-endian integer, then by the whole term where
/// those tie: the same order as comparing the strings (a shorter term's missing bytes count as
/// zeros, which only makes the tie-break decide), with most comparisons on integers in the
/// sorted array instead of string reads through pointers. Terms are distinct, so the unstable
/// sort has one result.
pub(crate) fn sort_terms(terms: &PackedStrings, offsets: &[u32]) -> Vec<u32> {
    let prefix = |t: &str| {
        let mut b = [0u8; 8];
        let n = t.len().min(8);
        b[..n].copy_from_slice(&t.as_bytes()[..n]);
        u64::from_be_bytes(b)
    };
    let mut keyed: Vec<(u64, u32)> = (0..terms.len())
        .filter(|&t| offsets[t + 1] > offsets[t])
        .map(|t| (prefix(&terms[t]), t as u32))
        .collect();
    keyed.par_sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| terms[a.1 as usize].cmp(&terms[b.1 as usize]))
    });
    keyed.into_iter().map(|(_, t)| t).collect()
}

/// The postings columns of an index (see [`Index`]): scored postings and presence postings,
/// both CSR over the same term ids.
pub(crate) struct Postings {
    pub(crate) offsets: Vec<u32>,
    pub(crate) docs: Vec<u32>,
    pub(crate) tfs: Vec<f32>,
    pub(crate) presence_offsets: Vec<u32>,
    pub(crate) presence_docs: Vec<u32>,
}

/// An index from its stored columns; the caller has checked that they are consistent.
/// Everything derived is computed here, the same way for a build, a load and an update.
/// `sorted_terms` (the scored term ids in term order) is sorted here unless the caller has it,
/// as a snapshot does (its term dictionary is stored sorted).
#[allow(clippy::too_many_arguments)]
pub(crate) fn assemble(
    params: Params,
    profile: Profile,
    field_weights: Vec<f64>,
    names: Vec<String>,
    terms: PackedStrings,
    term_ids: Option<TermIds>,
    postings: Postings,
    sorted_terms: Option<Vec<u32>>,
    lengths: Vec<f64>,
) -> Index {
    let Postings {
        offsets,
        docs,
        tfs,
        presence_offsets,
        presence_docs,
    } = postings;
    let term_ids = term_ids.unwrap_or_else(|| TermIds::of(&terms));
    let sorted_terms = sorted_terms.unwrap_or_else(|| sort_terms(&terms, &offsets));
    // (after the IDF and the sorted terms, which see every list)
    let scored = share_and_code(names.len(), &terms, &term_ids, offsets, docs, tfs);
    let mut packed = PackedStrings::with_capacity(names.iter().map(String::len).sum(), names.len());
    for name in &names {
        packed.push(name);
    }
    drop(names);
    finish(
        Columns {
            params,
            profile,
            field_weights,
            names: packed,
            terms,
            term_ids,
            sorted_terms,
            scored,
            presence_offsets,
            presence_docs,
        },
        lengths,
        None,
    )
}

/// Scored postings as an index holds them: CSR columns in which shared terms have empty
/// ranges, their coded term frequencies, and each term's source (`Index::shared`).
pub(crate) struct Scored {
    pub(crate) offsets: Vec<u32>,
    pub(crate) docs: Vec<u32>,
    pub(crate) tfs: Tfs,
    pub(crate) shared: Vec<u32>,
}

/// The scored postings of an index of `n` documents as it holds them: large indexes share
/// their twin lists (`share`), and the term frequencies are coded (`Tfs::new`).
pub(crate) fn share_and_code(
    n: usize,
    terms: &PackedStrings,
    term_ids: &TermIds,
    offsets: Vec<u32>,
    docs: Vec<u32>,
    tfs: Vec<f32>,
) -> Scored {
    let share::SharedPostings {
        offsets,
        docs,
        tfs,
        shared,
    } = if share::shares(n) {
        share::share_twins(terms, term_ids, offsets, docs, tfs)
    } else {
        share::SharedPostings {
            offsets,
            docs,
            tfs,
            shared: Vec::new(),
        }
    };
    Scored {
        offsets,
        docs,
        tfs: Tfs::new(tfs),
        shared,
    }
}

/// The stored columns of an index but its lengths, as [`finish`] takes them.
pub(crate) struct Columns {
    pub(crate) params: Params,
    pub(crate) profile: Profile,
    pub(crate) field_weights: Vec<f64>,
    pub(crate) names: PackedStrings,
    pub(crate) terms: PackedStrings,
    pub(crate) term_ids: TermIds,
    pub(crate) sorted_terms: Vec<u32>,
    pub(crate) scored: Scored,
    pub(crate) presence_offsets: Vec<u32>,
    pub(crate) presence_docs: Vec<u32>,
}

/// What a live update's index takes over from the previous index (see `bounds::Carry`): the
/// previous index, per new term its old id (or `u32::MAX`) and whether its list changed, per
/// old document whether it is kept, the first removed document and the number kept.
pub(crate) type Previous<'a> = (&'a Index, &'a [u32], &'a [bool], &'a [bool], u32, u32);

/// The index of `columns` and the documents' `lengths`: the average length (a left-to-right
/// sum in document order, as the sequential build and the Python engine do), the norms and
/// the pruning bounds, computed the same way for every constructor (a live update copies the
/// bounds of its unchanged lists from `previous`: the same bits).
pub(crate) fn finish(columns: Columns, lengths: Vec<f64>, previous: Option<Previous<'_>>) -> Index {
    let Columns {
        params,
        profile,
        field_weights,
        names,
        mut terms,
        term_ids,
        sorted_terms,
        scored,
        mut presence_offsets,
        presence_docs,
    } = columns;
    terms.shrink_to_fit();
    if presence_docs.is_empty() {
        // No presence postings: no offsets either (see `Index::presence_offsets`).
        presence_offsets = Vec::new();
    }
    let n = names.len();
    let mut total = 0.0f64;
    for &len in &lengths {
        total += len;
    }
    let avg_len = bm25::average_length(total, n);
    let norms = lengths
        .iter()
        .map(|&len| params.norm(len, avg_len))
        .collect();
    let mut index = Index {
        params,
        field_weights,
        names: std::sync::Arc::new(names),
        term_ids,
        terms,
        sorted_terms,
        offsets: scored.offsets,
        docs: scored.docs,
        tfs: scored.tfs,
        shared: scored.shared,
        presence_offsets,
        presence_docs,
        lengths,
        norms,
        avg_len,
        profile,
        bounds: Default::default(),
        tag: crate::index::new_tag(),
    };
    match previous {
        Some((old, old_ids, changed, keep, first_removed, n_kept)) => {
            let same_norms = old.params == params && old.avg_len.to_bits() == avg_len.to_bits();
            index.carry_bounds(Some(&Carry {
                old,
                same_norms,
                old_ids,
                changed,
                keep,
                first_removed,
                n_kept,
            }))
        }
        None => index.refresh_bounds(),
    }
    index
}

#[cfg(test)]
pub(crate) mod tests;
