//! Live updates, copy-on-write: `index.updated(remove, names, documents)` returns a new index and
//! leaves the shared one untouched, so searches on other threads never see a half-applied change.
//!
//! Document order after an update: the documents that are kept, in their previous order, then the
//! added documents in the order given. The new index equals a full rebuild over that list — same
//! postings, lengths, IDF, average length (re-summed left to right in that order) and norms, so the
//! same rankings and bit-identical scores, ties by name and then doc id included. Only term ids
//! may differ from the rebuild's (kept terms keep their relative order, new terms come last, and
//! terms left without scored or presence postings are dropped); term ids never influence a ranking.
//!
//! Only the added documents are tokenized; the kept postings (scored and presence postings) are
//! copied with remapped doc ids, which is a linear pass over the postings instead of
//! re-tokenizing the whole catalogue. The remap is monotone and leaves the ids below the first
//! removed document as they are, so a large index's lists are copied as it holds them: the
//! postings below that document with one copy, shared stemmed copies left unwritten, the term
//! frequencies' codes kept (`compact`). What did not change is carried over rather than derived
//! again: the term table (no term is hashed again), the sorted terms (merged with the new ones),
//! each copy's shared source where neither list changed, and the pruning bounds of unchanged
//! lists while the norms stay (`index::bounds::Carry`). Every carried structure equals a
//! rebuild's (`tests.rs`); the average length and norms are recomputed by `build::finish`.

use rayon::prelude::*;

use crate::build::{finish, share_and_code, tokenize_chunk, Chunk, Columns, Scored, Slots};
use crate::error::{Error, Result};
use crate::index::Index;
use crate::text::PackedStrings;

mod compact;

const CHUNK_DOCS: usize = 2048;

impl Index {
    /// A new index without the documents `remove` (ids in this index; repeats are ignored) and
    /// with `documents` (named `names`) appended; see the module docs for the resulting order.
    /// Errors about an added document give its position in `documents`.
    pub fn updated<S: AsRef<str> + Sync>(
        &self,
        remove: &[u32],
        names: Vec<String>,
        documents: &[Vec<(usize, S)>],
    ) -> Result<Index> {
        if names.len() != documents.len() {
            return Err(Error::InvalidDocument(format!(
                "got {} names for {} documents",
                names.len(),
                documents.len()
            )));
        }
        let n_old = self.len();
        let mut keep = vec![true; n_old];
        for &d in remove {
            match keep.get_mut(d as usize) {
                Some(k) => *k = false,
                None => {
                    return Err(Error::InvalidDocument(format!(
                        "cannot remove document {d}: the index has {n_old} documents"
                    )))
                }
            }
        }
        // Old doc id -> new doc id (u32::MAX when removed); order is preserved.
        let mut remap = vec![u32::MAX; n_old];
        let mut n_kept = 0u32;
        for (d, &k) in keep.iter().enumerate() {
            if k {
                remap[d] = n_kept;
                n_kept += 1;
            }
        }
        if n_kept as usize + documents.len() > u32::MAX as usize {
            return Err(Error::InvalidDocument(
                "too many documents (at most 2^32 - 1)".into(),
            ));
        }
        let first_removed = keep.iter().position(|k| !k).unwrap_or(n_old) as u32;
        let chunks: Vec<Chunk> = documents
            .par_chunks(CHUNK_DOCS)
            .enumerate()
            .map(|(c, docs)| {
                tokenize_chunk(c * CHUNK_DOCS, docs, &self.field_weights, self.profile)
            })
            .collect::<Result<_>>()?;

        // The postings of an ascending list that are kept: those below the first removed
        // document, found by a binary search, and the kept ones after it.
        let kept_of = |list: &[u32]| {
            let below = list.partition_point(|&d| d < first_removed);
            (below + list[below..].iter().filter(|&&d| keep[d as usize]).count()) as u32
        };
        // Kept postings per old term, and kept presence postings (terms of weight-0 fields).
        let kept_df: Vec<u32> = (0..self.terms.len() as u32)
            .into_par_iter()
            .with_min_len(256)
            .map(|t| kept_of(self.doc_list(t)))
            .collect();
        let kept_presence: Vec<u32> = (0..self.terms.len() as u32)
            .into_par_iter()
            .with_min_len(256)
            .map(|t| kept_of(self.presence(t)))
            .collect();
        // Terms of the added documents: an old term's id, or a new id after the old ones.
        let n_old_terms = self.terms.len();
        let mut new_terms = crate::index::PackedStrings::default();
        let mut new_ids = crate::index::TermIds::default();
        let mut added_df = vec![0u32; n_old_terms];
        let mut added_presence = vec![0u32; n_old_terms];
        let mut chunk_remaps: Vec<Vec<u32>> = Vec::with_capacity(chunks.len());
        for chunk in &chunks {
            let mut m = Vec::with_capacity(chunk.terms.len());
            for (term, &d) in chunk.terms.iter().zip(&chunk.df) {
                // An old term's id, or a new term's: after the old ones, in first-seen order.
                let id = match self.term_ids.get(&self.terms, term) {
                    Some(id) => id,
                    None => {
                        let (local, new) = new_ids.get_or_insert(&mut new_terms, term);
                        if new {
                            added_df.push(0);
                            added_presence.push(0);
                        }
                        (n_old_terms as u32) + local
                    }
                };
                added_df[id as usize] += d;
                m.push(id);
            }
            for &(local, _) in &chunk.presence {
                added_presence[m[local as usize] as usize] += 1;
            }
            chunk_remaps.push(m);
        }
        // Final term ids: terms with at least one scored or presence posting, old ones first.
        let mut final_id = vec![u32::MAX; added_df.len()];
        let mut old_of: Vec<u32> = Vec::with_capacity(added_df.len());
        let mut terms = crate::index::PackedStrings::with_capacity(
            self.terms.text_len() + new_terms.text_len(),
            added_df.len(),
        );
        let mut offsets = vec![0u32];
        let mut presence_offsets = vec![0u32];
        let mut total = 0u64;
        let mut total_presence = 0u64;
        for t in 0..added_df.len() {
            let df = added_df[t] as u64 + kept_df.get(t).copied().unwrap_or(0) as u64;
            let pf = added_presence[t] as u64 + kept_presence.get(t).copied().unwrap_or(0) as u64;
            if df == 0 && pf == 0 {
                continue;
            }
            final_id[t] = terms.len() as u32;
            old_of.push(if t < n_old_terms { t as u32 } else { u32::MAX });
            terms.push(if t < n_old_terms {
                &self.terms[t]
            } else {
                &new_terms[t - n_old_terms]
            });
            total += df;
            total_presence += pf;
            if total > u32::MAX as u64 || total_presence > u32::MAX as u64 {
                return Err(Error::InvalidDocument(
                    "too many postings (at most 2^32 - 1)".into(),
                ));
            }
            offsets.push(total as u32);
            presence_offsets.push(total_presence as u32);
        }
        let n_kept_terms = old_of.partition_point(|&t| t != u32::MAX) as u32;
        let term_ids = self.term_ids.carried(
            &final_id[..n_old_terms],
            &terms,
            n_kept_terms..terms.len() as u32,
        );
        let sorted_terms = self.sorted_after_update(&final_id, &offsets, &terms);
        // The added documents' postings and presence postings, by final term (ascending
        // documents: chunk after chunk, each in document order).
        let n_docs = n_kept as usize + documents.len();
        let (added_offsets, added_docs, added_tfs) = {
            let mut counts = vec![0u32; terms.len()];
            for (chunk, m) in chunks.iter().zip(&chunk_remaps) {
                for (local, &d) in chunk.df.iter().enumerate() {
                    counts[final_id[m[local] as usize] as usize] += d;
                }
            }
            let added_offsets = crate::build::prefix_offsets(&counts);
            let n_added = added_offsets[terms.len()] as usize;
            let (mut docs, mut tfs) = (vec![0u32; n_added], vec![0f32; n_added]);
            let mut cursor = added_offsets[..terms.len()].to_vec();
            for (c, (chunk, m)) in chunks.iter().zip(&chunk_remaps).enumerate() {
                let base = n_kept + (c * CHUNK_DOCS) as u32;
                chunk.for_each_posting(|local, doc, tf| {
                    let slot = &mut cursor[final_id[m[local as usize] as usize] as usize];
                    docs[*slot as usize] = base + doc;
                    tfs[*slot as usize] = tf;
                    *slot += 1;
                });
            }
            (added_offsets, docs, tfs)
        };
        let mut presence_docs = vec![0u32; total_presence as usize];
        let mut presence_cursor: Vec<u32> = presence_offsets[..terms.len()].to_vec();
        for t in 0..n_old_terms {
            let f = final_id[t];
            if f == u32::MAX || kept_presence[t] == 0 {
                continue;
            }
            let slot = &mut presence_cursor[f as usize];
            for &d in self.presence(t as u32) {
                let nd = remap[d as usize];
                if nd != u32::MAX {
                    presence_docs[*slot as usize] = nd;
                    *slot += 1;
                }
            }
        }
        let mut lengths: Vec<f64> = Vec::with_capacity(n_docs);
        let kept_names = (0..n_old).filter(|&d| keep[d]);
        let mut all_names = PackedStrings::with_capacity(
            kept_names
                .clone()
                .map(|d| self.names[d].len())
                .sum::<usize>()
                + names.iter().map(String::len).sum::<usize>(),
            n_docs,
        );
        for d in kept_names {
            lengths.push(self.lengths[d]);
            all_names.push(&self.names[d]);
        }
        for name in &names {
            all_names.push(name);
        }
        drop(names);
        for (c, (chunk, m)) in chunks.into_iter().zip(&chunk_remaps).enumerate() {
            let base = n_kept + (c * CHUNK_DOCS) as u32;
            for (local, doc) in chunk.presence {
                let slot = &mut presence_cursor[final_id[m[local as usize] as usize] as usize];
                presence_docs[*slot as usize] = base + doc;
                *slot += 1;
            }
            lengths.extend_from_slice(&chunk.lengths);
        }
        let plan = compact::Plan {
            keep: &keep,
            remap: &remap,
            first_removed,
            old_of: &old_of,
            new_of: &final_id[..n_old_terms],
            kept_df: &kept_df,
            full: &offsets,
            added_offsets: &added_offsets,
            added_docs: &added_docs,
            added_tfs: &added_tfs,
            terms: &terms,
            term_ids: &term_ids,
            n_docs,
        };
        let scored = match compact::scored(self, &plan) {
            Some(scored) => scored,
            None => self.scored_in_full(&plan),
        };
        // Per new term, whether its list changed (the bounds of the others carry over).
        let changed: Vec<bool> = (0..terms.len())
            .into_par_iter()
            .with_min_len(4096)
            .map(|f| plan.changed(self, f))
            .collect();
        Ok(finish(
            Columns {
                params: self.params,
                profile: self.profile,
                field_weights: self.field_weights.clone(),
                names: all_names,
                terms,
                term_ids,
                sorted_terms,
                scored,
                presence_offsets,
                presence_docs,
            },
            lengths,
            Some((self, &old_of, &changed, &keep, first_removed, n_kept)),
        ))
    }

    /// The new index's scored postings written in full (kept postings first, remapped, then
    /// the added ones), shared and coded as a build does: for an index below the size from
    /// which lists are shared, or whose column is not coded.
    fn scored_in_full(&self, plan: &compact::Plan<'_>) -> Scored {
        let offsets = plan.full.to_vec();
        let total = offsets[offsets.len() - 1] as usize;
        let mut docs = vec![0u32; total];
        let mut tfs = vec![0f32; total];
        // Every term on any core: the ranges are disjoint.
        let slots = Slots::new(&mut docs, &mut tfs);
        (0..plan.terms.len())
            .into_par_iter()
            .with_min_len(1024)
            .for_each(|f| {
                let mut slot = offsets[f] as usize;
                let limit = offsets[f + 1] as usize;
                let t = plan.old_of[f];
                if t != u32::MAX && plan.kept_df[t as usize] > 0 {
                    // A shared list is read in full (tf scaled back): the new index shares again.
                    let (start, end, scale) = self.list(t);
                    for (&d, tf) in self.docs[start..end]
                        .iter()
                        .zip(self.tfs.slice(start, end).iter())
                    {
                        let nd = plan.remap[d as usize];
                        if nd != u32::MAX {
                            // `kept_df` counted exactly these postings: never another term's slot.
                            assert!(slot < limit, "kept postings exceed their count");
                            slots.write(slot, nd, (tf * scale) as f32);
                            slot += 1;
                        }
                    }
                }
                let added = plan.added_offsets[f] as usize..plan.added_offsets[f + 1] as usize;
                for j in added {
                    assert!(slot < limit, "added postings exceed their count");
                    slots.write(slot, plan.added_docs[j], plan.added_tfs[j]);
                    slot += 1;
                }
            });
        share_and_code(plan.n_docs, plan.terms, plan.term_ids, offsets, docs, tfs)
    }

    /// The updated index's scored terms in sorted order (what `build::sort_terms` gives), from
    /// this index's order instead of a sort of the whole dictionary: its scored terms that keep
    /// postings, in their order, merged with the few terms newly scored (sorted here).
    /// `final_id`: old or added term id -> new id (`u32::MAX`: dropped); `offsets` and `terms`:
    /// the new index's.
    fn sorted_after_update(
        &self,
        final_id: &[u32],
        offsets: &[u32],
        terms: &PackedStrings,
    ) -> Vec<u32> {
        let scored = |f: u32| f != u32::MAX && offsets[f as usize + 1] > offsets[f as usize];
        let mut was_scored = vec![false; final_id.len()];
        let kept: Vec<u32> = self
            .sorted_terms
            .iter()
            .filter_map(|&t| {
                was_scored[t as usize] = true;
                let f = final_id[t as usize];
                scored(f).then_some(f)
            })
            .collect();
        let mut fresh: Vec<u32> = (0..final_id.len())
            .filter(|&t| !was_scored[t] && scored(final_id[t]))
            .map(|t| final_id[t])
            .collect();
        fresh.sort_unstable_by(|&a, &b| terms[a as usize].cmp(&terms[b as usize]));
        let mut out = Vec::with_capacity(kept.len() + fresh.len());
        let (mut i, mut j) = (0, 0);
        while i < kept.len() && j < fresh.len() {
            if terms[kept[i] as usize] <= terms[fresh[j] as usize] {
                out.push(kept[i]);
                i += 1;
            } else {
                out.push(fresh[j]);
                j += 1;
            }
        }
        out.extend_from_slice(&kept[i..]);
        out.extend_from_slice(&fresh[j..]);
        out
    }
}

#[cfg(test)]
mod tests;
