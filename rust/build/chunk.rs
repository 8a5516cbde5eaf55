//! One chunk of documents tokenized on one core: chunk-local term ids in first-seen order, term
//! frequencies, presence postings and lengths (see the parallel build in `build/mod.rs`).

use super::intern::Interner;
use super::memo::{self, Memo};
use super::{Document, Stems};
use crate::analysis::{self, Profile};
use crate::error::{Error, Result};
use crate::text::tokenize::Tokenizer;
use crate::text::PackedStrings;

/// One chunk's tokenized documents, with chunk-local term ids in first-seen order.
pub(crate) struct Chunk {
    pub(crate) terms: PackedStrings,
    pub(crate) df: Vec<u32>,
    /// `(local term, tf)` of each scored posting, in document order: document `d`'s are
    /// `entries[entry_ends[d - 1]..entry_ends[d]]` (8 bytes a posting; the document is implied).
    pub(crate) entries: Vec<(u32, f32)>,
    /// Per document of the chunk, the end of its postings in `entries`.
    pub(crate) entry_ends: Vec<u32>,
    /// `(local term, doc offset)` of the terms a document holds only in weight-0 fields (its
    /// presence postings), in document order.
    pub(crate) presence: Vec<(u32, u32)>,
    pub(crate) lengths: Vec<f64>,
}

/// Tokenizes `documents` (the first has id `first_doc`, for error messages) with `profile`.
pub(crate) fn tokenize_chunk<D: Document>(
    first_doc: usize,
    documents: &[D],
    field_weights: &[f64],
    profile: Profile,
) -> Result<Chunk> {
    tokenize_chunk_with(
        first_doc,
        documents,
        field_weights,
        profile,
        &Stems::default(),
    )
}

/// [`tokenize_chunk`] with the stemmed copies shared by the chunks of one build.
pub(crate) fn tokenize_chunk_with<D: Document>(
    first_doc: usize,
    documents: &[D],
    field_weights: &[f64],
    profile: Profile,
    shared: &Stems,
) -> Result<Chunk> {
    let mut ids = Interner::default();
    let mut chunk = Chunk {
        terms: PackedStrings::default(),
        df: Vec::new(),
        entries: Vec::new(),
        entry_ends: Vec::with_capacity(documents.len()),
        presence: Vec::new(),
        lengths: Vec::with_capacity(documents.len()),
    };
    // Dense per-document term frequencies by local id, and the ids touched in first-seen order;
    // the same for the terms of weight-0 fields (a flag instead of a frequency).
    let mut tf: Vec<f64> = Vec::new();
    let mut order: Vec<u32> = Vec::new();
    let mut present: Vec<bool> = Vec::new();
    let mut present_order: Vec<u32> = Vec::new();
    // Local id of each plain term's stemmed copy (English profile), `NO_COPY` until needed:
    // each distinct term is stemmed once per chunk.
    const NO_COPY: u32 = u32::MAX;
    let mut copies: Vec<u32> = Vec::new();
    let stems = profile.stems();
    let mut tokenizer = Tokenizer::new();
    let mut memo = Memo::default();
    // The stemmed copies that need no stemming are written here.
    let mut scratch = String::new();
    for (offset, fields) in documents.iter().enumerate() {
        let mut length = 0.0f64;
        for (field, text) in fields.fields() {
            let weight = *field_weights.get(field).ok_or_else(|| {
                Error::InvalidDocument(format!(
                    "document {} uses field {field}, but only {} field weights were given",
                    first_doc + offset,
                    field_weights.len()
                ))
            })?;
            let scored = weight != 0.0;
            let key = (text.len() >= memo::MIN_LEN).then(|| memo::Key::of(text));
            let long = key.is_some();
            // A text seen before in the chunk: replay its ids (see `memo`), when its record has
            // what this field needs (copies, for a scored field in a profile that makes them).
            let recorded = key.and_then(|k| memo.get(k));
            if let Some(r) = recorded.filter(|r| !scored || !stems || r.with_copies) {
                for &(id, copy) in memo.ids.get(r.start..r.end).unwrap_or(&[]) {
                    if scored {
                        add(&mut tf, &mut order, &mut length, id, weight);
                        if stems {
                            let w = weight * analysis::STEM_WEIGHT;
                            add(&mut tf, &mut order, &mut length, copy, w);
                        }
                    } else {
                        mark(&mut present, &mut present_order, id);
                    }
                }
                continue;
            }
            let start = memo.ids.len();
            let record = &mut memo.ids;
            // Weight-0 fields are tokenized too: their terms get ids in first-seen order, as in
            // `Index::build`, and become presence postings.
            profile.for_each_term(&mut tokenizer, text, |tok| {
                let mut intern = |tok: &str| {
                    let (id, new) = ids.intern(tok, &mut chunk.terms);
                    if new {
                        chunk.df.push(0);
                        tf.push(0.0);
                        present.push(false);
                    }
                    id
                };
                let id = intern(tok);
                if !scored {
                    if long {
                        record.push((id, NO_COPY));
                    }
                    mark(&mut present, &mut present_order, id);
                    return;
                }
                let mut copy = NO_COPY;
                if stems {
                    copy = copies.get(id as usize).copied().unwrap_or(NO_COPY);
                    if copy == NO_COPY {
                        copy = shared.with_copy(tok, &mut scratch, &mut intern);
                        if copies.len() <= id as usize {
                            copies.resize(id as usize + 1, NO_COPY);
                        }
                        copies[id as usize] = copy;
                    }
                }
                if long {
                    record.push((id, copy));
                }
                // The plain term, then (English profile) its stemmed copy at a fraction.
                add(&mut tf, &mut order, &mut length, id, weight);
                if stems {
                    let w = weight * analysis::STEM_WEIGHT;
                    add(&mut tf, &mut order, &mut length, copy, w);
                }
            });
            if let Some(key) = key {
                memo.record(key, start, scored);
            }
        }
        for &id in &order {
            let slot = &mut tf[id as usize];
            chunk.df[id as usize] += 1;
            chunk.entries.push((id, *slot as f32));
        }
        chunk.entry_ends.push(chunk.entries.len() as u32);
        for &id in &present_order {
            present[id as usize] = false;
            if tf[id as usize] == 0.0 {
                chunk.presence.push((id, offset as u32));
            }
        }
        for &id in &order {
            tf[id as usize] = 0.0;
        }
        present_order.clear();
        order.clear();
        chunk.lengths.push(length);
    }
    Ok(chunk)
}

impl Chunk {
    /// Calls `f(local term, doc offset within the chunk, tf)` for each scored posting, in
    /// document order.
    #[inline]
    pub(crate) fn for_each_posting(&self, mut f: impl FnMut(u32, u32, f32)) {
        let mut start = 0usize;
        for (doc, &end) in self.entry_ends.iter().enumerate() {
            for &(local, tf) in &self.entries[start..end as usize] {
                f(local, doc as u32, tf);
            }
            start = end as usize;
        }
    }
}

/// Adds `w` to term `id`'s frequency in the document (noting the id when it is new to the
/// document) and to the document's length.
#[inline]
fn add(tf: &mut [f64], order: &mut Vec<u32>, length: &mut f64, id: u32, w: f64) {
    if let Some(slot) = tf.get_mut(id as usize) {
        if *slot == 0.0 {
            order.push(id);
        }
        *slot += w;
        *length += w;
    }
}

/// Notes that the document holds term `id` in a weight-0 field (once per document).
#[inline]
fn mark(present: &mut [bool], present_order: &mut Vec<u32>, id: u32) {
    if let Some(seen) = present.get_mut(id as usize) {
        if !*seen {
            *seen = true;
            present_order.push(id);
        }
    }
}
