//! The merge of tokenized chunks into an index (the second half of the parallel build), one
//! chunk at a time in document order, so that a pipelined build can merge the chunks already
//! tokenized while later ones still are.
//!
//! Global term ids are assigned in chunk order, each chunk's terms in its own first-seen order:
//! global first-seen order, as the sequential build assigns them. Postings are scattered chunk
//! by chunk once every chunk is in, so documents stay ascending within a term.

use rayon::prelude::*;

use super::{assemble, Chunk, Postings, CHUNK_DOCS};
use crate::analysis::Profile;
use crate::error::{Error, Result};
use crate::index::bm25::Params;
use crate::index::{Index, TermIds};
use crate::text::PackedStrings;

/// Chunks merged so far (chunk `c` holds documents `c·CHUNK_DOCS ..`).
#[derive(Default)]
pub(crate) struct Merge {
    terms: PackedStrings,
    term_ids: TermIds,
    df: Vec<u32>,
    /// Per chunk, the global id of each of its local terms.
    remaps: Vec<Vec<u32>>,
    postings: usize,
    presence: usize,
    chunks: Vec<Chunk>,
    /// The chunks' remapped term lists, freed on another core in `finish`.
    spent: Vec<PackedStrings>,
}

impl Merge {
    /// Merges the next chunk's terms (chunks must come in document order).
    pub(crate) fn add(&mut self, mut chunk: Chunk) {
        let mut remap = Vec::with_capacity(chunk.terms.len());
        // A new term is copied, not moved from the chunk: the index's strings are then allocated
        // here, not among the chunk's freed scratch on a worker thread's heap, which kept that
        // heap from being returned (RSS after a 100k build: +4 MB seed, +13 MB english).
        for (term, &d) in chunk.terms.iter().zip(&chunk.df) {
            let (id, new) = self.term_ids.get_or_insert(&mut self.terms, term);
            if new {
                self.df.push(0);
            }
            self.df[id as usize] += d;
            remap.push(id);
        }
        self.postings += chunk.entries.len();
        self.presence += chunk.presence.len();
        self.remaps.push(remap);
        self.spent.push(std::mem::take(&mut chunk.terms));
        self.chunks.push(chunk);
    }

    /// The index of the merged chunks.
    pub(crate) fn finish(
        self,
        names: Vec<String>,
        field_weights: Vec<f64>,
        params: Params,
        profile: Profile,
    ) -> Result<Index> {
        let Merge {
            terms,
            term_ids,
            df,
            remaps,
            postings,
            presence,
            chunks,
            spent,
        } = self;
        let n_docs: usize = chunks.iter().map(|c| c.lengths.len()).sum();
        if names.len() != n_docs {
            return Err(Error::InvalidDocument(format!(
                "got {} names for {n_docs} documents",
                names.len()
            )));
        }
        // The chunks' term lists (the duplicates not moved) are freed on another core while the
        // postings are scattered (a build of mcp_mixed frees ~100k of them); `join` returns once
        // both are done, so the memory is free before the caller trims the heap.
        let scatter = move || -> Result<Index> {
            super::check_postings(postings, presence)?;
            let offsets = super::prefix_offsets(&df);
            // Presence postings: count per term, then scatter chunk by chunk (ascending docs).
            let mut presence_offsets = vec![0u32; terms.len() + 1];
            for (chunk, remap) in chunks.iter().zip(&remaps) {
                for &(local, _) in &chunk.presence {
                    presence_offsets[remap[local as usize] as usize + 1] += 1;
                }
            }
            for t in 0..terms.len() {
                presence_offsets[t + 1] += presence_offsets[t];
            }
            let mut presence_cursor: Vec<u32> = presence_offsets[..terms.len()].to_vec();
            let mut presence_docs = vec![0u32; presence];
            let mut lengths = Vec::with_capacity(n_docs);
            // Each chunk's first slot per local term: a term's documents from a chunk follow
            // those of every earlier chunk, so its list stays ascending.
            let mut cursor: Vec<u32> = offsets[..terms.len()].to_vec();
            let mut starts = Vec::with_capacity(chunks.len());
            for (c, (chunk, remap)) in chunks.iter().zip(&remaps).enumerate() {
                let base = (c * CHUNK_DOCS) as u32;
                for &(local, doc) in &chunk.presence {
                    let slot = &mut presence_cursor[remap[local as usize] as usize];
                    presence_docs[*slot as usize] = base + doc;
                    *slot += 1;
                }
                lengths.extend_from_slice(&chunk.lengths);
                let start: Vec<u32> = remap
                    .iter()
                    .zip(&chunk.df)
                    .map(|(&t, &count)| {
                        let first = cursor[t as usize];
                        cursor[t as usize] += count;
                        first
                    })
                    .collect();
                starts.push(start);
            }
            // The scored postings, every chunk at once: their slots are disjoint.
            let mut docs = vec![0u32; postings];
            let mut tfs = vec![0f32; postings];
            let slots = Slots::new(&mut docs, &mut tfs);
            chunks.into_par_iter().zip(starts).enumerate().for_each(
                |(c, (mut chunk, mut next))| {
                    let base = (c * CHUNK_DOCS) as u32;
                    let mut left = std::mem::take(&mut chunk.df);
                    chunk.for_each_posting(|local, doc, tf| {
                        let l = local as usize;
                        // A chunk writes exactly `df[l]` postings from its start for term `l`:
                        // never into another chunk's or term's slots.
                        assert!(left[l] > 0, "a chunk's postings exceed its document counts");
                        left[l] -= 1;
                        slots.write(next[l] as usize, base + doc, tf);
                        next[l] += 1;
                    });
                },
            );
            Ok(assemble(
                params,
                profile,
                field_weights,
                names,
                terms,
                Some(term_ids),
                Postings {
                    offsets,
                    docs,
                    tfs,
                    presence_offsets,
                    presence_docs,
                },
                None,
                lengths,
            ))
        };
        rayon::join(move || drop(spent), scatter).1
    }
}

/// The scored postings' columns, written from several threads at disjoint slots.
pub(crate) struct Slots<'a> {
    docs: *mut u32,
    tfs: *mut f32,
    len: usize,
    _columns: std::marker::PhantomData<&'a mut [u32]>,
}

// SAFETY: `Slots` hands out writes to distinct slots only (`write`'s contract), so sharing it
// between threads cannot race; the columns outlive it (the borrow).
unsafe impl Send for Slots<'_> {}
unsafe impl Sync for Slots<'_> {}

impl<'a> Slots<'a> {
    pub(crate) fn new(docs: &'a mut [u32], tfs: &'a mut [f32]) -> Self {
        assert_eq!(docs.len(), tfs.len());
        Slots {
            docs: docs.as_mut_ptr(),
            tfs: tfs.as_mut_ptr(),
            len: docs.len(),
            _columns: std::marker::PhantomData,
        }
    }

    /// Writes posting `slot`. Callers write each slot from one thread only: `finish` gives
    /// each (chunk, term) its own range of slots and checks it stays inside it.
    #[inline]
    pub(crate) fn write(&self, slot: usize, doc: u32, tf: f32) {
        assert!(slot < self.len);
        // SAFETY: in bounds (just checked), and no other thread writes this slot (above).
        unsafe {
            *self.docs.add(slot) = doc;
            *self.tfs.add(slot) = tf;
        }
    }
}

/// Items numbered 0, 1, 2, ... that come in any order, handed out in their order: what a
/// build's merge does with the parts its threads finish.
pub(crate) struct Reorder<T> {
    /// Items in, not handed out yet (an item waits for every item before it).
    pending: Vec<Option<T>>,
    /// The number of the next item to hand out.
    next: usize,
}

impl<T> Default for Reorder<T> {
    fn default() -> Self {
        Reorder {
            pending: Vec::new(),
            next: 0,
        }
    }
}

impl<T> Reorder<T> {
    /// Item number `c` is in.
    pub(crate) fn put(&mut self, c: usize, item: T) {
        if c >= self.pending.len() {
            self.pending.resize_with(c + 1, || None);
        }
        self.pending[c] = Some(item);
    }

    /// The next item in order, if it is in.
    pub(crate) fn pop(&mut self) -> Option<T> {
        let item = self.pending.get_mut(self.next).and_then(Option::take)?;
        self.next += 1;
        Some(item)
    }

    /// How many items were handed out.
    pub(crate) fn handed_out(&self) -> usize {
        self.next
    }
}

#[cfg(test)]
mod reorder_tests {
    use super::Reorder;

    #[test]
    fn items_come_out_in_order_whatever_order_they_come_in() {
        let mut order = Reorder::default();
        order.put(2, 'c');
        assert_eq!(order.pop(), None);
        order.put(0, 'a');
        assert_eq!(order.pop(), Some('a'));
        assert_eq!(order.pop(), None);
        order.put(1, 'b');
        assert_eq!(
            (order.pop(), order.pop(), order.pop()),
            (Some('b'), Some('c'), None)
        );
        assert_eq!(order.handed_out(), 3);
    }
}
