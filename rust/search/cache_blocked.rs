//! Cache-blocked term-at-a-time scoring for very large indexes.
//!
//! Plain term-at-a-time scoring walks each query term's posting list and adds into a per-document
//! accumulator (8 bytes a document) while reading the document's norm (8 more): past a few hundred
//! thousand documents both arrays outgrow the L2 cache and almost every posting is a cache miss.
//! Here the documents are cut into ranges of [`BLOCK_DOCS`]; for each range, every query term (in
//! query order) scores only its postings inside the range, so the accumulator and norms of one
//! range stay in cache. Each document still receives its terms' contributions in query order,
//! starting from 0.0, so every score is the same f64 as the plain loop's and the ranking (score,
//! then name, then doc id) is identical; only the order in which candidates reach the top-k heap
//! differs, which the heap's total order makes irrelevant.
//!
//! Every option that acts during accumulation is implemented here as in
//! `Index::accumulate`: a prefix term keeps, per document, the best of its expansions' scores
//! (expansions visited in the same lexicographic order) before adding it, and the coverage rule's
//! matched-term counts are kept the same way. The other options (exclude, include, required
//! terms, threshold, relative floor) filter the accumulated scores afterwards and do not depend
//! on how they were accumulated.

use crate::index::Index;
use crate::search::{fold_best, Scratch, SearchOptions};

/// Documents per range: 32k × (8-byte accumulator + 8-byte norm) = 512 KiB, well inside L2.
const BLOCK_DOCS: usize = 1 << 15;
/// Below this many documents the whole accumulator fits in cache and the plain loop is as fast.
pub(crate) const MIN_DOCS: usize = 1 << 18;

thread_local! {
    /// Tests force one strategy or the other on their thread; `None` chooses by size.
    static FORCE: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// One query term's posting lists, with a cursor each that advances range by range.
enum Source {
    /// A scored term: its postings `cursor..end`, at tf scale `scale` (see `Index::list`).
    Exact {
        cursor: usize,
        end: usize,
        scale: f64,
        qtf: f64,
        idf: f64,
    },
    /// A prefix term: `(cursor, end, scale, idf)` per expansion, in lexicographic order.
    Prefix {
        qtf: f64,
        expansions: Vec<(usize, usize, f64, f64)>,
    },
}

impl Index {
    /// Whether this search should use [`Index::accumulate_blocked`].
    pub(crate) fn use_blocked(&self) -> bool {
        FORCE.with(|f| f.get()).unwrap_or(self.len() >= MIN_DOCS)
    }

    /// Whether a test forced the blocked loop on or off on this thread (the exhaustive path then).
    pub(crate) fn blocked_forced(&self) -> bool {
        FORCE.with(|f| f.get()).is_some()
    }

    /// Runs `f` with the blocked loop forced on or off on this thread (for tests and benches);
    /// every search and `score_documents` call inside it uses that strategy.
    pub fn with_blocked_scoring<T>(blocked: bool, f: impl FnOnce() -> T) -> T {
        struct Reset;
        impl Drop for Reset {
            fn drop(&mut self) {
                FORCE.with(|f| f.set(None));
            }
        }
        FORCE.with(|f| f.set(Some(blocked)));
        let _reset = Reset;
        f()
    }

    /// [`Index::search_tokens`] with the blocked loop forced on or off (for tests and benches).
    pub fn search_tokens_with<S: AsRef<str>>(
        &self,
        tokens: &[S],
        limit: usize,
        options: &SearchOptions,
        blocked: bool,
    ) -> crate::error::Result<Vec<(u32, f64)>> {
        Index::with_blocked_scoring(blocked, || self.search_tokens(tokens, limit, options))
    }

    /// `Index::accumulate`, range by range: adds every query term's contributions into
    /// `scratch.acc` (and, with the coverage rule, counts matched terms in `scratch.matched`);
    /// records newly touched documents. `query` holds the distinct terms in first-seen order;
    /// the scratch arrays are already sized. Returns the number of known query terms.
    pub(crate) fn accumulate_blocked(
        &self,
        query: &[(&str, f64)],
        options: &SearchOptions,
        scratch: &mut Scratch,
    ) -> usize {
        let Scratch {
            acc,
            touched,
            best,
            best_touched,
            matched,
        } = scratch;
        let count = options.coverage;
        let fraction = options.prefix.fraction;
        let mut sources: Vec<Source> = Vec::with_capacity(query.len());
        for &(tok, qtf) in query {
            if let Some(term) = self.scored_term(tok) {
                let (cursor, end, scale) = self.list(term);
                sources.push(Source::Exact {
                    cursor,
                    end,
                    scale,
                    qtf,
                    idf: self.idf(term),
                });
                continue;
            }
            let expansions: Vec<(usize, usize, f64, f64)> = self
                .expansions(tok, &options.prefix)
                .map(|t| {
                    let (cursor, end, scale) = self.list(t);
                    (cursor, end, scale, self.idf(t))
                })
                .collect();
            if !expansions.is_empty() {
                sources.push(Source::Prefix { qtf, expansions });
            }
        }
        let known = sources.len();
        let n = self.len();
        let mut block_end = 0usize;
        while block_end < n {
            block_end = (block_end + BLOCK_DOCS).min(n);
            for source in sources.iter_mut() {
                match source {
                    Source::Exact {
                        cursor,
                        end,
                        scale,
                        qtf,
                        idf,
                    } => {
                        let mut i = *cursor;
                        while i < *end && (self.docs[i] as usize) < block_end {
                            let d = self.docs[i] as usize;
                            let before = acc[d];
                            acc[d] = before
                                + self.params.term_score(
                                    *qtf,
                                    *idf,
                                    self.tfs.get(i) * *scale,
                                    self.norms[d],
                                );
                            if before == 0.0 && acc[d] != 0.0 {
                                touched.push(d as u32);
                            }
                            if count {
                                matched[d] += 1;
                            }
                            i += 1;
                        }
                        *cursor = i;
                    }
                    Source::Prefix { qtf, expansions } => {
                        for (cursor, end, scale, idf) in expansions.iter_mut() {
                            let mut i = *cursor;
                            while i < *end && (self.docs[i] as usize) < block_end {
                                let d = self.docs[i] as usize;
                                let score = fraction
                                    * self.params.term_score(
                                        *qtf,
                                        *idf,
                                        self.tfs.get(i) * *scale,
                                        self.norms[d],
                                    );
                                if best[d] == 0.0 {
                                    best_touched.push(d as u32);
                                }
                                if score > best[d] {
                                    best[d] = score;
                                }
                                i += 1;
                            }
                            *cursor = i;
                        }
                        fold_best(acc, touched, best, best_touched, matched, count);
                    }
                }
            }
        }
        known
    }
}

#[cfg(test)]
mod tests {
    use crate::index::bm25::Params;
    use crate::index::Index;
    use crate::search::{PrefixOptions, SearchOptions};

    /// Every option, alone and together, on an index big enough for several ranges.
    fn option_sets(n: u32) -> Vec<(&'static str, SearchOptions)> {
        let prefix = PrefixOptions {
            fraction: 0.5,
            min_len: 3,
            max_expansions: 16,
        };
        let include: std::collections::HashSet<u32> = (0..n).filter(|d| d % 3 != 0).collect();
        vec![
            ("plain", SearchOptions::default()),
            (
                "exclude",
                SearchOptions {
                    exclude: [1u32, 5, 99].into_iter().collect(),
                    ..SearchOptions::default()
                },
            ),
            (
                "include",
                SearchOptions {
                    include: Some(include.clone()),
                    ..SearchOptions::default()
                },
            ),
            (
                "required",
                SearchOptions {
                    required: vec!["data".into()],
                    ..SearchOptions::default()
                },
            ),
            (
                "prefix",
                SearchOptions {
                    prefix,
                    ..SearchOptions::default()
                },
            ),
            (
                "coverage",
                SearchOptions {
                    coverage: true,
                    ..SearchOptions::default()
                },
            ),
            (
                "gates",
                SearchOptions {
                    threshold: 2.0,
                    relative_floor: 0.6,
                    ..SearchOptions::default()
                },
            ),
            (
                "all",
                SearchOptions {
                    exclude: [2u32, 7].into_iter().collect(),
                    include: Some(include),
                    required: vec!["the".into()],
                    prefix,
                    threshold: 0.5,
                    relative_floor: 0.2,
                    coverage: true,
                },
            ),
        ]
    }

    #[test]
    fn blocked_scoring_equals_plain_scoring_with_every_option() {
        let n = super::BLOCK_DOCS * 3 + 123;
        let (names, docs) = crate::build::tests::corpus(n, 41);
        // Field 2 has weight 0: its words are presence postings, which `required` consults.
        let idx =
            Index::build_parallel(names, &docs, vec![6.0, 2.0, 0.0], Params::default()).unwrap();
        let queries = [
            "read file",
            "the a of data data",
            "send message user channel",
            "zzz",
            "mess chan",
            "rea fil the calendar event issue",
            "get list pull request of user",
        ];
        for (what, opts) in option_sets(n as u32) {
            for q in queries {
                let tokens: Vec<String> = q.split(' ').map(String::from).collect();
                for limit in [1, 8, 100] {
                    let plain = idx.search_tokens_with(&tokens, limit, &opts, false);
                    let blocked = idx.search_tokens_with(&tokens, limit, &opts, true);
                    assert_eq!(plain, blocked, "{what}: {q} {limit}");
                }
                let some: Vec<u32> = (0..n as u32).step_by(997).collect();
                let plain = Index::with_blocked_scoring(false, || {
                    idx.score_documents(&tokens, &some, &opts)
                });
                let blocked = Index::with_blocked_scoring(true, || {
                    idx.score_documents(&tokens, &some, &opts)
                });
                assert_eq!(plain, blocked, "score_documents {what}: {q}");
            }
        }
        // The options did change the results (the test is not vacuous).
        let tokens = ["mess", "chan"];
        let plain = idx
            .search_tokens(&tokens, 5, &SearchOptions::default())
            .unwrap();
        assert!(plain.is_empty());
        let sets = option_sets(n as u32);
        let prefixed = idx
            .search_tokens_with(&tokens, 5, &sets[4].1, true)
            .unwrap();
        assert_eq!(prefixed.len(), 5);
    }

    #[test]
    fn the_size_threshold_picks_the_strategy() {
        let (names, docs) = crate::build::tests::corpus(10, 3);
        let idx =
            Index::build_parallel(names, &docs, vec![6.0, 2.0, 0.0], Params::default()).unwrap();
        assert!(!idx.use_blocked());
        assert!(Index::with_blocked_scoring(true, || idx.use_blocked()));
        assert!(!idx.use_blocked());
    }
}
