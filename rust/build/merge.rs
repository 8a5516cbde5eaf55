//! The merge of tokenized chunks into an index (the second half of the parallel build), one
//! chunk at a time in document order, so that a pipelined build can merge the chunks already
//! tokenized while later ones still are.
//!
//! Global term ids are assigned in chunk order, each chunk's terms in its own first-seen order:
//! global first-seen order, as the sequential build assigns them. Postings are scattered chunk
//! by chunk once every chunk is in, so documents stay ascending within a term.

use super::intern::Terms;
use super::{assemble, Chunk, Postings, CHUNK_DOCS};
use crate::analysis::Profile;
use crate::bm25::Params;
use crate::error::{Error, Result};
use crate::index::{Index, TermMap};

/// Chunks merged so far (chunk `c` holds documents `c·CHUNK_DOCS ..`).
#[derive(Default)]
pub(crate) struct Merge {
    terms: Vec<Box<str>>,
    term_ids: TermMap,
    df: Vec<u32>,
    /// Per chunk, the global id of each of its local terms.
    remaps: Vec<Vec<u32>>,
    postings: usize,
    presence: usize,
    chunks: Vec<Chunk>,
    /// The chunks' remapped term lists, freed on another core in `finish`.
    spent: Vec<Terms>,
}

impl Merge {
    /// Merges the next chunk's terms (chunks must come in document order).
    pub(crate) fn add(&mut self, mut chunk: Chunk) {
        let mut remap = Vec::with_capacity(chunk.terms.len());
        // A new term is copied, not moved from the chunk: the index's strings are then allocated
        // here, not among the chunk's freed scratch on a worker thread's heap, which kept that
        // heap from being returned (RSS after a 100k build: +4 MB seed, +13 MB english).
        for (term, &d) in chunk.terms.iter().zip(&chunk.df) {
            let id = match self.term_ids.get(term) {
                Some(&id) => id,
                None => {
                    let id = self.terms.len() as u32;
                    self.term_ids.insert(term.into(), id);
                    self.terms.push(term.into());
                    self.df.push(0);
                    id
                }
            };
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
            let mut cursor: Vec<u32> = offsets[..terms.len()].to_vec();
            let mut docs = vec![0u32; postings];
            let mut tfs = vec![0f32; postings];
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
            for (c, (chunk, remap)) in chunks.into_iter().zip(&remaps).enumerate() {
                let base = (c * CHUNK_DOCS) as u32;
                for (local, doc, tf) in chunk.entries {
                    let slot = &mut cursor[remap[local as usize] as usize];
                    docs[*slot as usize] = base + doc;
                    tfs[*slot as usize] = tf;
                    *slot += 1;
                }
                for (local, doc) in chunk.presence {
                    let slot = &mut presence_cursor[remap[local as usize] as usize];
                    presence_docs[*slot as usize] = base + doc;
                    *slot += 1;
                }
                lengths.extend_from_slice(&chunk.lengths);
            }
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
