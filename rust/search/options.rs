//! Search options: what a search leaves out or adds beyond plain BM25+ ranking, and the filters
//! (`exclude`, `include`, required terms) that every scoring path applies before the top-k cut.

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::index::Index;

/// What a search leaves out or adds beyond plain BM25+ ranking. Every option is applied inside
/// the engine, before the top-k cut, so the limit is still filled. `Default` is plain BM25+.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// Document ids never returned (for example the tools a session already activated).
    pub exclude: HashSet<u32>,
    /// When set, only these document ids can be returned (for example one server's tools).
    pub include: Option<HashSet<u32>>,
    /// Terms (already tokenized) that every returned document must contain in some field,
    /// weight-0 fields included. They only filter: they add nothing to the score.
    pub required: Vec<String>,
    /// Prefix matching of query terms that are not in the index (InitRunner's tool search).
    pub prefix: PrefixOptions,
    /// Absolute threshold: documents scoring below it are dropped (InitRunner's tool search;
    /// 0.0 = off).
    pub threshold: f64,
    /// Relative floor: documents scoring below `relative_floor × best score` are dropped
    /// (0.0 = off; 1.0 keeps only the ties of the best).
    pub relative_floor: f64,
    /// Coverage rule: when the query has 4 or more distinct known terms, a document must match
    /// at least half of them (a prefix-expanded term counts as one term).
    pub coverage: bool,
}

/// Prefix matching of a query term that has no exact term in the index.
///
/// Such a term of at least `min_len` characters expands to the scored index terms that start
/// with it: the first `max_expansions` of them in lexicographic (byte) order. In each document it
/// then contributes `fraction × (the largest BM25+ term score among its expansions present in
/// that document)`, computed with the query term's own query frequency. So a prefix adds at most
/// one term's worth of score, however many forms of the word a tool holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrefixOptions {
    /// Weight of a prefix match relative to an exact one; 0.0 turns prefix matching off.
    pub fraction: f64,
    /// Shortest query term (in characters) that is expanded.
    pub min_len: usize,
    /// Most index terms one query term expands to.
    pub max_expansions: usize,
}

impl Default for PrefixOptions {
    /// Off (`fraction` 0.0); `toolsift.ToolIndex` turns it on with fraction 0.5.
    fn default() -> Self {
        PrefixOptions {
            fraction: 0.0,
            min_len: 3,
            max_expansions: 16,
        }
    }
}

impl SearchOptions {
    /// Whether the numbers are in the ranges the scoring computes with (a finite prefix
    /// fraction and threshold >= 0, a relative floor in [0, 1]); `Index::search_tokens` calls it.
    ///
    /// An internal invariant, not the user-facing check: `toolsift._options.SearchOptions`
    /// holds the one check of each option and its message, for both engines, and the bindings
    /// ask it for any value this refuses (the same predicates, so whatever it accepts passes
    /// here: `tests/test_options_once.py` proves it). [`Error::Unchecked`] otherwise.
    pub fn validate(&self) -> Result<()> {
        let p = &self.prefix;
        let fraction = p.fraction.is_finite() && p.fraction >= 0.0;
        let threshold = self.threshold.is_finite() && self.threshold >= 0.0;
        let floor = self.relative_floor.is_finite() && (0.0..=1.0).contains(&self.relative_floor);
        if fraction && threshold && floor {
            Ok(())
        } else {
            Err(Error::Unchecked("search options out of range"))
        }
    }
}

/// The postings of one required term: its scored documents and its presence-only documents.
pub(super) type Required<'a> = (&'a [u32], &'a [u32]);

impl Index {
    /// The postings of each required term (each of its plain terms), or `None` when one of them
    /// is in no document (then nothing can match).
    pub(super) fn required_postings<S: AsRef<str>>(
        &self,
        required: &[S],
    ) -> Option<Vec<Required<'_>>> {
        let mut out = Vec::with_capacity(required.len());
        for tok in required {
            // One token, matched as the plain terms the profile makes of it (CJK bigrams in the
            // English profile; never stemmed).
            for term in self.profile.required_terms(tok.as_ref()) {
                let term = self.term_ids.get(&self.terms, term.as_str())?;
                out.push((self.doc_list(term), self.presence(term)));
            }
        }
        Some(out)
    }

    /// Whether `doc` survives `exclude`, `include` and the required terms.
    pub(super) fn passes(
        &self,
        doc: u32,
        options: &SearchOptions,
        required: &[Required<'_>],
    ) -> bool {
        !options.exclude.contains(&doc) && self.admits(doc, options, required)
    }

    /// Whether `doc` survives `include` and the required terms (every filter but `exclude`).
    pub(super) fn admits(
        &self,
        doc: u32,
        options: &SearchOptions,
        required: &[Required<'_>],
    ) -> bool {
        options
            .include
            .as_ref()
            .map_or(true, |inc| inc.contains(&doc))
            && required.iter().all(|(scored, only)| {
                scored.binary_search(&doc).is_ok() || only.binary_search(&doc).is_ok()
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::bm25::Params;
    use crate::index::fixtures::{build, ids, none};

    #[test]
    fn exclusion_happens_before_the_cut() {
        let idx = build(&[("a", &[(1, "x y")]), ("b", &[(1, "x")]), ("c", &[(1, "x")])]);
        let opts = SearchOptions {
            exclude: [0].into_iter().collect(),
            ..SearchOptions::default()
        };
        let hits = idx.search("x", 2, &opts).unwrap();
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![1, 2]);
    }

    #[test]
    fn required_terms_filter_with_presence_postings_and_add_nothing() {
        // Field 3 has weight 0: its words are only presence postings.
        let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let docs = vec![
            vec![(0usize, "send message"), (3, "slack workspace")],
            vec![(0, "send message")],
            vec![(0, "send mail"), (1, "slack")],
        ];
        let idx = Index::build(names, &docs, vec![6.0, 2.0, 1.0, 0.0], Params::default()).unwrap();
        assert_eq!(idx.vocabulary_size(), 4); // send message mail slack; "workspace" is not scored
        let plain = idx.search("send", 8, &none()).unwrap();
        let cases: &[(&[&str], &[u32])] = &[
            (&["slack"], &[2, 0]),
            (&["workspace"], &[0]),
            (&["slack", "workspace"], &[0]),
            (&["nowhere"], &[]),
            (&[], &[0, 1, 2]),
        ];
        for (required, want) in cases {
            let opts = SearchOptions {
                required: required.iter().map(|s| s.to_string()).collect(),
                ..SearchOptions::default()
            };
            let hits = idx.search("send", 8, &opts).unwrap();
            let mut got = ids(&hits);
            got.sort_unstable();
            let mut want = want.to_vec();
            want.sort_unstable();
            assert_eq!(got, want, "{required:?}");
            for (doc, score) in hits {
                assert_eq!(plain.iter().find(|h| h.0 == doc).map(|h| h.1), Some(score));
            }
        }
    }

    #[test]
    fn include_threshold_floor_and_coverage() {
        let idx = build(&[
            ("a", &[(1, "w x y z")]),
            ("b", &[(1, "w x")]),
            ("c", &[(1, "w")]),
        ]);
        let all = idx.search("w x y z", 8, &none()).unwrap();
        assert_eq!(ids(&all), vec![0, 1, 2]);
        let with = |f: &dyn Fn(&mut SearchOptions)| {
            let mut o = SearchOptions::default();
            f(&mut o);
            ids(&idx.search("w x y z", 8, &o).unwrap())
        };
        assert_eq!(
            with(&|o| o.include = Some([1, 2].into_iter().collect())),
            vec![1, 2]
        );
        let t = all[1].1;
        assert_eq!(with(&|o| o.threshold = t), vec![0, 1]);
        assert_eq!(with(&|o| o.relative_floor = 1.0), vec![0]);
        // 4 known terms: a document must match 2.
        assert_eq!(with(&|o| o.coverage = true), vec![0, 1]);
        let bad = SearchOptions {
            relative_floor: 2.0,
            ..SearchOptions::default()
        };
        assert!(matches!(idx.search("w", 8, &bad), Err(Error::Unchecked(_))));
        for bad in [
            SearchOptions {
                threshold: f64::NAN,
                ..SearchOptions::default()
            },
            SearchOptions {
                prefix: PrefixOptions {
                    fraction: -1.0,
                    ..PrefixOptions::default()
                },
                ..SearchOptions::default()
            },
        ] {
            assert!(bad.validate().is_err());
        }
    }
}
