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

/// The id of a term's stemmed copy before the chunk needs it.
const NO_COPY: u32 = u32::MAX;

/// [`tokenize_chunk`] with the stemmed copies shared by the chunks of one build.
pub(crate) fn tokenize_chunk_with<D: Document>(
    first_doc: usize,
    documents: &[D],
    field_weights: &[f64],
    profile: Profile,
    shared: &Stems,
) -> Result<Chunk> {
    let mut tally = Tally::new(shared);
    let mut chunk = Chunk {
        terms: PackedStrings::default(),
        df: Vec::new(),
        entries: Vec::new(),
        entry_ends: Vec::with_capacity(documents.len()),
        presence: Vec::new(),
        lengths: Vec::with_capacity(documents.len()),
    };
    let stems = profile.stems();
    let mut tokenizer = Tokenizer::new();
    let mut memo = Memo::default();
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
            let copy_weight = weight * analysis::STEM_WEIGHT;
            let key = (text.len() >= memo::MIN_LEN).then(|| memo::Key::of(text));
            let long = key.is_some();
            // A text seen before in the chunk: replay its ids (see `memo`), when its record has
            // what this field needs (copies, for a scored field in a profile that makes them).
            let recorded = key.and_then(|k| memo.get(k));
            if let Some(r) = recorded.filter(|r| !scored || !stems || r.with_copies) {
                for &(id, copy) in memo.ids.get(r.start..r.end).unwrap_or(&[]) {
                    if scored {
                        tally.add(&mut length, id, weight);
                        if stems {
                            tally.add(&mut length, copy, copy_weight);
                        }
                    } else {
                        tally.mark(id);
                    }
                }
                continue;
            }
            let start = memo.ids.len();
            let mut pass = FieldPass {
                tally: &mut tally,
                record: long.then_some(&mut memo.ids),
                length,
                weight,
                copy_weight,
                scored,
                stems,
            };
            // Weight-0 fields are tokenized too: their terms get ids in first-seen order, as in
            // `Index::build`, and become presence postings.
            profile.for_each_term(&mut tokenizer, text, |tok| pass.token(tok));
            length = pass.length;
            if let Some(key) = key {
                memo.record(key, start, scored);
            }
        }
        tally.end_document(&mut chunk, offset as u32, length);
    }
    chunk.terms = tally.terms;
    chunk.df = tally.df;
    Ok(chunk)
}

/// One field's text being read into a chunk's tallies: the per-token steps.
struct FieldPass<'t, 's> {
    tally: &'t mut Tally<'s>,
    /// Where the text's `(term id, copy id)` pairs are recorded (a text of `memo::MIN_LEN`
    /// bytes or more).
    record: Option<&'t mut Vec<(u32, u32)>>,
    /// The document's length so far.
    length: f64,
    weight: f64,
    /// The weight of a stemmed copy (the same product for every token of the field).
    copy_weight: f64,
    scored: bool,
    stems: bool,
}

impl FieldPass<'_, '_> {
    /// Interns a token; a scored field's token counts, with its stemmed copy in the English
    /// profile, and a weight-0 field's is noted for a presence posting.
    #[inline(always)]
    fn token(&mut self, tok: &str) {
        let tally = &mut *self.tally;
        let id = tally.intern(tok);
        if !self.scored {
            if let Some(record) = self.record.as_mut() {
                record.push((id, NO_COPY));
            }
            tally.mark(id);
            return;
        }
        let copy = if self.stems {
            tally.copy_of(id, tok)
        } else {
            NO_COPY
        };
        if let Some(record) = self.record.as_mut() {
            record.push((id, copy));
        }
        // The plain term, then (English profile) its stemmed copy at a fraction.
        tally.add(&mut self.length, id, self.weight);
        if self.stems {
            tally.add(&mut self.length, copy, self.copy_weight);
        }
    }
}

/// A chunk's terms with their ids, and the tallies of the document being read.
///
/// One struct that owns its columns, so that the per-token steps reach each column directly
/// instead of through a closure's captured references.
struct Tally<'s> {
    ids: Interner,
    terms: PackedStrings,
    df: Vec<u32>,
    /// Dense per-document term frequencies by local id, and the ids touched in first-seen order:
    /// `order[..touched]`. `order` holds a slot per term of the chunk, so that an id is written
    /// at `touched` whether or not it is new to the document, and `touched` moves on only if it
    /// is: no branch on a condition that changes from token to token.
    tf: Vec<f64>,
    order: Vec<u32>,
    touched: usize,
    /// The same for the terms of weight-0 fields (a flag instead of a frequency):
    /// `present_order[..marked]`.
    present: Vec<bool>,
    present_order: Vec<u32>,
    marked: usize,
    /// Local id of each term's stemmed copy (English profile), [`NO_COPY`] until needed: each
    /// distinct term is stemmed once per chunk.
    copies: Vec<u32>,
    /// The stemmed copies that need no stemming are written here.
    scratch: String,
    shared: &'s Stems,
}

impl<'s> Tally<'s> {
    fn new(shared: &'s Stems) -> Self {
        Tally {
            ids: Interner::default(),
            terms: PackedStrings::default(),
            df: Vec::new(),
            tf: Vec::new(),
            order: Vec::new(),
            touched: 0,
            present: Vec::new(),
            present_order: Vec::new(),
            marked: 0,
            copies: Vec::new(),
            scratch: String::new(),
            shared,
        }
    }

    /// The local id of `term`, giving it the next one if it is new to the chunk.
    #[inline(always)]
    fn intern(&mut self, term: &str) -> u32 {
        let (id, new) = self.ids.intern(term, &mut self.terms);
        if new {
            self.df.push(0);
            self.tf.push(0.0);
            self.order.push(0);
            self.present.push(false);
            self.present_order.push(0);
            self.copies.push(NO_COPY);
        }
        id
    }

    /// The local id of the stemmed copy of term `id` (`term`), interned the first time.
    #[inline(always)]
    fn copy_of(&mut self, id: u32, term: &str) -> u32 {
        match self.copies.get(id as usize) {
            Some(&copy) if copy != NO_COPY => copy,
            _ => self.first_copy(id, term),
        }
    }

    /// [`Tally::copy_of`] the first time: stems the term (or finds its copy in the build's
    /// shared map), and interns the copy.
    #[inline(never)]
    fn first_copy(&mut self, id: u32, term: &str) -> u32 {
        let mut scratch = std::mem::take(&mut self.scratch);
        let shared = self.shared;
        let copy = shared.with_copy(term, &mut scratch, |c| self.intern(c));
        self.scratch = scratch;
        if let Some(slot) = self.copies.get_mut(id as usize) {
            *slot = copy;
        }
        copy
    }

    /// Adds `w` to term `id`'s frequency in the document (noting the id when it is new to the
    /// document) and to the document's length.
    #[inline(always)]
    fn add(&mut self, length: &mut f64, id: u32, w: f64) {
        if let Some(slot) = self.tf.get_mut(id as usize) {
            // (`touched` < the number of terms unless every term is in the document already)
            if let Some(next) = self.order.get_mut(self.touched) {
                *next = id;
            }
            self.touched += usize::from(*slot == 0.0);
            *slot += w;
            *length += w;
        }
    }

    /// Notes that the document holds term `id` in a weight-0 field (once per document).
    #[inline(always)]
    fn mark(&mut self, id: u32) {
        if let Some(seen) = self.present.get_mut(id as usize) {
            if let Some(next) = self.present_order.get_mut(self.marked) {
                *next = id;
            }
            self.marked += usize::from(!*seen);
            *seen = true;
        }
    }

    /// Writes the document's postings, presence postings and length to `chunk`, and clears the
    /// tallies for the next document.
    fn end_document(&mut self, chunk: &mut Chunk, offset: u32, length: f64) {
        let order = &self.order[..self.touched];
        for &id in order {
            let slot = &mut self.tf[id as usize];
            self.df[id as usize] += 1;
            chunk.entries.push((id, *slot as f32));
        }
        chunk.entry_ends.push(chunk.entries.len() as u32);
        for &id in &self.present_order[..self.marked] {
            self.present[id as usize] = false;
            if self.tf[id as usize] == 0.0 {
                chunk.presence.push((id, offset));
            }
        }
        for &id in order {
            self.tf[id as usize] = 0.0;
        }
        self.touched = 0;
        self.marked = 0;
        chunk.lengths.push(length);
    }
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
