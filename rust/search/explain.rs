//! Per-document scores outside the top-k path: `score_documents` (the scores of given documents),
//! `explain` (each query term's part of one document's score) and `field_parts` (each field's
//! part of a term's frequency, for `ToolIndex.explain`'s per-field breakdown).

use std::collections::HashMap;

use super::{distinct_terms, SearchOptions, SCRATCH};
use crate::analysis;
use crate::error::Result;
use crate::index::Index;
use crate::text::tokenize::Tokenizer;

/// One query term's part of a document's score, as `Index::explain` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct TermExplanation {
    /// The query term.
    pub term: String,
    /// The index term that matched: the query term itself, or its best prefix expansion.
    pub matched: String,
    /// Whether `matched` is a prefix expansion of `term`.
    pub prefix: bool,
    /// How often `term` occurs in the query.
    pub qtf: f64,
    pub idf: f64,
    /// The weighted term frequency of `matched` in the document.
    pub tf: f64,
    /// The document's length normalisation `k1 · (1 - b + b · |d| / avgdl)`.
    pub norm: f64,
    /// What the term adds to the score (`fraction ×` the term score for a prefix match).
    pub contribution: f64,
}

impl Index {
    /// The BM25+ scores of the given documents for `tokens` (0.0 where nothing matches; `tokens`
    /// may be empty), in the order given, leaving out the documents that `options.exclude`,
    /// `options.include` or `options.required` rule out. Prefix matching applies; the threshold,
    /// relative floor and coverage rule do not. The exact-name tier orders named tools with it.
    pub fn score_documents<S: AsRef<str>>(
        &self,
        tokens: &[S],
        docs: &[u32],
        options: &SearchOptions,
    ) -> Result<Vec<(u32, f64)>> {
        options.validate()?;
        let Some(required) = self.required_postings(&options.required) else {
            return Ok(Vec::new());
        };
        let query = distinct_terms(tokens);
        SCRATCH.with(|cell| {
            let mut scratch = cell.borrow_mut();
            self.accumulate(&query, None, options, &mut scratch);
            let out = docs
                .iter()
                .filter(|&&doc| (doc as usize) < self.len() && self.passes(doc, options, &required))
                .map(|&doc| (doc, scratch.acc[doc as usize]))
                .collect();
            scratch.reset();
            Ok(out)
        })
    }

    /// Each distinct query term's part of `doc`'s score, in query order; the contributions
    /// summed left to right from 0.0 give exactly the score `search_tokens` reports. Terms that
    /// do not match `doc` are left out. `None` when `doc` is out of range.
    pub fn explain<S: AsRef<str>>(
        &self,
        tokens: &[S],
        doc: u32,
        options: &SearchOptions,
    ) -> Result<Option<Vec<TermExplanation>>> {
        options.validate()?;
        let d = doc as usize;
        if d >= self.len() {
            return Ok(None);
        }
        let norm = self.norms[d];
        let mut out = Vec::new();
        for (tok, qtf) in distinct_terms(tokens) {
            if let Some(term) = self.scored_term(tok) {
                if let Some(tf) = self.term_frequency(term, doc) {
                    let idf = self.idf(term);
                    out.push(TermExplanation {
                        term: tok.to_owned(),
                        matched: tok.to_owned(),
                        prefix: false,
                        qtf,
                        idf,
                        tf,
                        norm,
                        contribution: self.params.term_score(qtf, idf, tf, norm),
                    });
                }
                continue;
            }
            let fraction = options.prefix.fraction;
            let mut best: Option<TermExplanation> = None;
            for term in self.expansions(tok, &options.prefix) {
                let Some(tf) = self.term_frequency(term, doc) else {
                    continue;
                };
                let idf = self.idf(term);
                let contribution = fraction * self.params.term_score(qtf, idf, tf, norm);
                // The first expansion (lexicographic) wins a tie, as in `accumulate`.
                if best
                    .as_ref()
                    .map_or(true, |b| contribution > b.contribution)
                {
                    best = Some(TermExplanation {
                        term: tok.to_owned(),
                        matched: self.terms[term as usize].to_owned(),
                        prefix: true,
                        qtf,
                        idf,
                        tf,
                        norm,
                        contribution,
                    });
                }
            }
            if let Some(b) = best {
                if b.contribution != 0.0 {
                    out.push(b);
                }
            }
        }
        Ok(Some(out))
    }

    /// What each field of a document brought to the term frequency of each of `terms` in it:
    /// per term, `(field id, occurrences × the field's weight)`, a stemmed copy's occurrences
    /// at [`analysis::STEM_WEIGHT`] × the weight, in the order the fields first bring it.
    ///
    /// `document` is the `(field id, text)` pairs the document was built from: the index keeps
    /// no per-field data, so the fields are analysed again with the index's own profile, as the
    /// build analysed them. A field of weight 0 (or of an id without a weight) brings nothing.
    /// Each sum adds f64 weights in document order, as the pure-Python engine adds them.
    pub fn field_parts<S: AsRef<str>, T: AsRef<str>>(
        &self,
        document: &[(usize, S)],
        terms: &[T],
    ) -> Vec<Vec<(usize, f64)>> {
        let mut parts: HashMap<&str, Vec<(usize, f64)>> =
            terms.iter().map(|t| (t.as_ref(), Vec::new())).collect();
        // Stemmed copies are only worth making when a term asks for one.
        let stems = self.profile.stems() && terms.iter().any(|t| analysis::is_marked(t.as_ref()));
        let mut tokenizer = Tokenizer::new();
        for (field, text) in document {
            let weight = self.field_weights.get(*field).copied().unwrap_or(0.0);
            if weight == 0.0 {
                continue;
            }
            let mut add = |term: &str, w: f64| {
                if let Some(fields) = parts.get_mut(term) {
                    match fields.iter_mut().find(|(f, _)| f == field) {
                        Some((_, sum)) => *sum += w,
                        None => fields.push((*field, w)),
                    }
                }
            };
            self.profile
                .for_each_term(&mut tokenizer, text.as_ref(), |tok| {
                    add(tok, weight);
                    if stems {
                        add(&analysis::stem_copy(tok), weight * analysis::STEM_WEIGHT);
                    }
                });
        }
        terms.iter().map(|t| parts[t.as_ref()].clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::fixtures::{build, ids, none};

    #[test]
    fn field_parts_are_each_fields_weighted_occurrences() {
        use crate::analysis::Profile;
        use crate::index::bm25::Params;
        let doc = vec![
            (0usize, "read files"),
            (1, "read the file"),
            (2, "read"),
            (9, "read"),
        ];
        let names = vec!["a".to_string()];
        let weights = vec![6.0, 2.0, 0.0];
        let idx = Index::build_profiled(
            names,
            &[doc[..3].to_vec()],
            weights,
            Params::default(),
            Profile::English,
        )
        .unwrap();
        let parts = idx.field_parts(&doc, &["read", "§file", "nowhere", "read"]);
        let read = vec![(0, 6.0), (1, 2.0)];
        assert_eq!(
            parts,
            vec![read.clone(), vec![(0, 3.0), (1, 1.0)], vec![], read]
        );
        let tf: f64 = parts[1].iter().map(|p| p.1).sum();
        let explained = idx.explain(&["§file"], 0, &none()).unwrap().unwrap();
        assert_eq!(explained[0].tf, tf);
    }

    #[test]
    fn score_documents_keeps_zero_scores_and_applies_filters() {
        let idx = build(&[("a", &[(1, "x")]), ("b", &[(1, "y")]), ("c", &[(1, "x")])]);
        let opts = SearchOptions {
            exclude: [2].into_iter().collect(),
            ..SearchOptions::default()
        };
        let got = idx.score_documents(&["x"], &[1, 0, 2, 99], &opts).unwrap();
        assert_eq!(ids(&got), vec![1, 0]);
        assert_eq!(got[0].1, 0.0);
        assert!(got[1].1 > 0.0);
        let empty: [&str; 0] = [];
        assert_eq!(
            idx.score_documents(&empty, &[0], &none()).unwrap(),
            vec![(0, 0.0)]
        );
    }
}
