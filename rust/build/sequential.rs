//! The reference (sequential) build: documents are analysed one by one in document order, terms
//! numbered as first seen, and the postings bucketed by term with a counting sort.
//! [`Index::build_parallel`] must produce the same index, field for field.

use std::collections::{HashMap, HashSet};

use crate::analysis::{self, Profile};
use crate::error::{Error, Result};
use crate::index::bm25::Params;
use crate::index::{Index, TermIds};
use crate::text::tokenize::Tokenizer;
use crate::text::PackedStrings;

/// CSR arrays of `(term, doc)` pairs given in ascending document order: `offsets[t]..offsets[t+1]`
/// indexes term `t`'s documents, still ascending.
fn bucket_by_term(pairs: &[(u32, u32)], n_terms: usize) -> (Vec<u32>, Vec<u32>) {
    let mut counts = vec![0u32; n_terms + 1];
    for &(term, _) in pairs {
        counts[term as usize + 1] += 1;
    }
    for t in 0..n_terms {
        counts[t + 1] += counts[t];
    }
    let mut cursor: Vec<u32> = counts[..n_terms].to_vec();
    let mut docs = vec![0u32; pairs.len()];
    for &(term, doc) in pairs {
        let slot = &mut cursor[term as usize];
        docs[*slot as usize] = doc;
        *slot += 1;
    }
    (counts, docs)
}

impl Index {
    /// Builds an index. `names[i]` breaks score ties for document `i` (ascending, by code point);
    /// `documents[i]` lists its `(field id, text)` pairs; `field_weights[f]` is field `f`'s weight.
    pub fn build<S: AsRef<str>>(
        names: Vec<String>,
        documents: &[Vec<(usize, S)>],
        field_weights: Vec<f64>,
        params: Params,
    ) -> Result<Index> {
        Index::build_profiled(names, documents, field_weights, params, Profile::Omp)
    }

    /// [`Index::build`] with an analysis profile: the reference (sequential) build.
    pub fn build_profiled<S: AsRef<str>>(
        names: Vec<String>,
        documents: &[Vec<(usize, S)>],
        field_weights: Vec<f64>,
        params: Params,
        profile: Profile,
    ) -> Result<Index> {
        crate::build::check_build_inputs(names.len(), documents.len(), &field_weights)?;
        let mut term_ids = TermIds::default();
        let mut terms = PackedStrings::default();
        // (term, doc, tf) triples in document order; bucketed by term below.
        let mut entries: Vec<(u32, u32, f32)> = Vec::new();
        // (term, doc) pairs of terms found only in weight-0 fields of the document.
        let mut presence: Vec<(u32, u32)> = Vec::new();
        let mut df: Vec<u32> = Vec::new();
        let mut lengths = Vec::with_capacity(documents.len());
        let mut doc_tf: HashMap<u32, f64, ahash::RandomState> = HashMap::default();
        let mut doc_presence: HashSet<u32, ahash::RandomState> = HashSet::default();
        let mut order: Vec<u32> = Vec::new();
        let mut presence_order: Vec<u32> = Vec::new();
        let mut tokenizer = Tokenizer::new();
        for (doc, fields) in documents.iter().enumerate() {
            doc_tf.clear();
            doc_presence.clear();
            order.clear();
            presence_order.clear();
            let mut length = 0.0f64;
            for (field, text) in fields {
                let weight = *field_weights.get(*field).ok_or_else(|| {
                    Error::InvalidDocument(format!(
                        "document {doc} uses field {field}, but only {} field weights were given",
                        field_weights.len()
                    ))
                })?;
                profile.for_each_term(&mut tokenizer, text.as_ref(), |tok| {
                    let mut intern = |tok: &str| {
                        let (id, new) = term_ids.get_or_insert(&mut terms, tok);
                        if new {
                            df.push(0);
                        }
                        id
                    };
                    let id = intern(tok);
                    if weight == 0.0 {
                        if doc_presence.insert(id) {
                            presence_order.push(id);
                        }
                        return;
                    }
                    // The plain term, then (English profile) its stemmed copy at a fraction.
                    let copy = profile.stems().then(|| {
                        (
                            intern(&analysis::stem_copy(tok)),
                            weight * analysis::STEM_WEIGHT,
                        )
                    });
                    for (id, w) in std::iter::once((id, weight)).chain(copy) {
                        let tf = doc_tf.entry(id).or_insert_with(|| {
                            order.push(id);
                            0.0
                        });
                        *tf += w;
                        length += w;
                    }
                });
            }
            for &id in &order {
                let tf = doc_tf[&id];
                df[id as usize] += 1;
                entries.push((id, doc as u32, tf as f32));
            }
            for &id in &presence_order {
                if !doc_tf.contains_key(&id) {
                    presence.push((id, doc as u32));
                }
            }
            lengths.push(length);
        }
        super::check_postings(entries.len(), presence.len())?;
        // Counting sort by term; documents stay ascending within a term.
        let offsets = super::prefix_offsets(&df);
        let mut cursor: Vec<u32> = offsets[..terms.len()].to_vec();
        let mut docs = vec![0u32; entries.len()];
        let mut tfs = vec![0f32; entries.len()];
        for (term, doc, tf) in entries {
            let slot = &mut cursor[term as usize];
            docs[*slot as usize] = doc;
            tfs[*slot as usize] = tf;
            *slot += 1;
        }
        let (presence_offsets, presence_docs) = bucket_by_term(&presence, terms.len());
        // Everything derived (idf, norms, the sorted dictionary, pruning bounds) is computed where
        // the parallel build, a snapshot load and an update compute it.
        Ok(crate::build::assemble(
            params,
            profile,
            field_weights,
            names,
            terms,
            Some(term_ids),
            crate::build::Postings {
                offsets,
                docs,
                tfs,
                presence_offsets,
                presence_docs,
            },
            None,
            lengths,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_weight_fields_are_not_indexed_and_bad_fields_are_errors() {
        let names = vec!["a".to_string()];
        let docs = vec![vec![(0usize, "alpha"), (1, "beta")]];
        let idx = Index::build(names.clone(), &docs, vec![1.0, 0.0], Params::default()).unwrap();
        assert_eq!(idx.document_frequency("beta"), 0);
        assert_eq!(idx.document_length(0), Some(1.0));
        assert!(Index::build(names.clone(), &docs, vec![1.0], Params::default()).is_err());
        assert!(Index::build(names, &docs, vec![1.0, -1.0], Params::default()).is_err());
    }
}
