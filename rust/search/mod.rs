//! Searching an index. [`Index::search_tokens`] is the single entry point of every ranked search;
//! it validates the options and picks the scoring path, which all give the same results:
//!
//! * `exhaustive`: every posting into a per-thread accumulator, then the top k (`top_k`);
//!   `cache_blocked` does the same range by range past `cache_blocked::MIN_DOCS` documents;
//! * `prune`: exact MaxScore pruning, for large indexes and long lists.
//!
//! Beside it: the search options (`options`), per-document scores and explanations (`explain`),
//! batches of queries (`batch`), the plain-query fast path (`fast_path`) and its proof that a
//! query names no tool (`name_keys`) with the name table's keys (`name_table`, each tool's name
//! forms from `name_forms`), a session
//! view's two lists in one pass (`view`), and the two other rankers, `keyword` and `dense`.

pub mod batch;
pub mod cache_blocked;
pub mod dense;
mod dense_kernel;
mod exhaustive;
mod explain;
pub mod fast_path;
pub mod keyword;
pub mod name_forms;
pub mod name_keys;
pub mod name_table;
mod options;
mod posting_loop;
pub mod prune;
pub mod regex;
mod top_k;
mod view;

pub use explain::TermExplanation;
pub use options::{PrefixOptions, SearchOptions};
pub(crate) use top_k::TopK;
use view::Seen;

use std::cell::RefCell;
use std::collections::HashMap;

use crate::analysis;
use crate::error::{Error, Result, LIMIT_0};
use crate::index::Index;

/// Per-thread accumulators of one search (see `SCRATCH`).
pub(crate) struct Scratch {
    pub(crate) acc: Vec<f64>,
    pub(crate) touched: Vec<u32>,
    /// Per-document best prefix score of the current query term, and the documents it touched.
    pub(crate) best: Vec<f64>,
    pub(crate) best_touched: Vec<u32>,
    /// Per-document count of matched distinct query terms (only with the coverage rule).
    pub(crate) matched: Vec<u32>,
}

/// Adds each document's best prefix score of the current query term (`best`, for the documents
/// in `best_touched`) to the accumulator, records the newly touched documents, counts the matched
/// term with the coverage rule (`count`), and clears `best` and `best_touched` for the next term.
#[inline]
pub(crate) fn fold_best(
    acc: &mut [f64],
    touched: &mut Vec<u32>,
    best: &mut [f64],
    best_touched: &mut Vec<u32>,
    matched: &mut [u32],
    count: bool,
) {
    for &doc in best_touched.iter() {
        let d = doc as usize;
        let before = acc[d];
        acc[d] = before + best[d];
        if before == 0.0 && acc[d] != 0.0 {
            touched.push(doc);
        }
        if count {
            matched[d] += 1;
        }
        best[d] = 0.0;
    }
    best_touched.clear();
}

impl Scratch {
    const fn new() -> Self {
        Scratch {
            acc: Vec::new(),
            touched: Vec::new(),
            best: Vec::new(),
            best_touched: Vec::new(),
            matched: Vec::new(),
        }
    }

    /// Zeroes what the last query touched, so the next one starts clean.
    pub(super) fn reset(&mut self) {
        for &doc in &self.touched {
            self.acc[doc as usize] = 0.0;
            if let Some(m) = self.matched.get_mut(doc as usize) {
                *m = 0;
            }
        }
        self.touched.clear();
    }
}

thread_local! {
    // One accumulator per thread, reused across queries and indexes: no allocation per query,
    // and threads searching one shared index never contend.
    pub(super) static SCRATCH: RefCell<Scratch> = const { RefCell::new(Scratch::new()) };
}

impl Index {
    /// The scored terms that `tok` expands to (see [`PrefixOptions`]); empty when prefix
    /// matching is off or `tok` is too short.
    pub(crate) fn expansions<'a>(
        &'a self,
        tok: &'a str,
        prefix: &PrefixOptions,
    ) -> impl Iterator<Item = u32> + 'a {
        // Stemmed copies never expand (see `crate::analysis`).
        let on = prefix.fraction > 0.0
            && !analysis::is_marked(tok)
            && tok.chars().count() >= prefix.min_len;
        let start = if on {
            self.sorted_terms
                .partition_point(|&t| &self.terms[t as usize] < tok)
        } else {
            self.sorted_terms.len()
        };
        self.sorted_terms[start..]
            .iter()
            .copied()
            .take_while(move |&t| self.terms[t as usize].starts_with(tok))
            .take(if on { prefix.max_expansions } else { 0 })
    }

    /// Analyses `query` with the index's profile and searches it; see [`Index::search_tokens`].
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        options: &SearchOptions,
    ) -> Result<Vec<(u32, f64)>> {
        self.search_seeing(query, limit, options, None)
    }

    /// [`Index::search`], recording in `seen` (when given) the documents that `options.exclude`
    /// alone kept out of the top k, with their scores (see `view`).
    pub(crate) fn search_seeing(
        &self,
        query: &str,
        limit: usize,
        options: &SearchOptions,
        seen: Option<&Seen>,
    ) -> Result<Vec<(u32, f64)>> {
        let terms = self
            .profile
            .analyse_query_for(query, Some((self.tag, |t: &str| self.term_ref(t))));
        if !terms.distinct() {
            let tokens: Vec<&str> = terms.iter().collect();
            return self.search_distinct(&distinct_terms(&tokens), None, limit, options, seen);
        }
        // Already distinct (the English analysis dedupes): the weights without a hash pass.
        let query: Vec<(&str, f64)> = terms.iter().map(|t| (t, query_weight(t))).collect();
        debug_assert_eq!(query, distinct_terms(&terms.iter().collect::<Vec<_>>()));
        let refs = Some(terms.refs()).filter(|r| r.len() == query.len());
        debug_assert!(refs.is_some_and(|r| r
            .iter()
            .zip(&query)
            .all(|(&r, &(t, _))| r == self.term_ref(t))));
        self.search_distinct(&query, refs, limit, options, seen)
    }

    /// Each of `query`'s terms as a [`Index::term_ref`]: `refs` when the caller has them (the
    /// query analysis's cache), else looked up, an unknown term as [`MAY_EXPAND`] (prefix
    /// expansion then decides). The exhaustive and pruned loops both start here.
    #[inline]
    pub(crate) fn query_refs<'r>(
        &self,
        query: &[(&str, f64)],
        refs: Option<&'r [u32]>,
    ) -> std::borrow::Cow<'r, [u32]> {
        match refs {
            Some(refs) => refs.into(),
            None => query
                .iter()
                .map(|&(tok, _)| self.scored_term(tok).unwrap_or(MAY_EXPAND))
                .collect(),
        }
    }

    /// What the exhaustive loop needs to know of a query term, in one `u32` that the query
    /// analysis caches per index (`analysis::Profile::analyse_query_for`): the term's id when it
    /// is scored ([`Index::scored_term`]), else [`MAY_EXPAND`] when some scored term starts with
    /// it (prefix expansion may find it), else [`NO_EXPANSION`].
    pub(crate) fn term_ref(&self, term: &str) -> u32 {
        if let Some(id) = self.scored_term(term) {
            return id;
        }
        let start = self
            .sorted_terms
            .partition_point(|&t| &self.terms[t as usize] < term);
        let prefixed = self
            .sorted_terms
            .get(start)
            .is_some_and(|&t| self.terms[t as usize].starts_with(term));
        if prefixed && !analysis::is_marked(term) {
            MAY_EXPAND
        } else {
            NO_EXPANSION
        }
    }

    /// The top `limit` documents for query `tokens` by BM25+ score (descending, then name
    /// ascending), after applying `options`. Only documents with a score > 0 are returned.
    ///
    /// This is the single entry point of every ranked search (batch search calls it too).
    pub fn search_tokens<S: AsRef<str>>(
        &self,
        tokens: &[S],
        limit: usize,
        options: &SearchOptions,
    ) -> Result<Vec<(u32, f64)>> {
        self.search_distinct(&distinct_terms(tokens), None, limit, options, None)
    }

    /// [`Index::search_tokens`] of distinct `(term, qtf)` pairs, in first-seen order, with
    /// their [`Index::term_ref`]s when the caller has them; `seen` as in [`Index::search_seeing`].
    fn search_distinct(
        &self,
        query: &[(&str, f64)],
        refs: Option<&[u32]>,
        limit: usize,
        options: &SearchOptions,
        seen: Option<&Seen>,
    ) -> Result<Vec<(u32, f64)>> {
        if query.is_empty() {
            return Err(Error::NoSearchableTerms);
        }
        if limit == 0 {
            return Err(Error::Unchecked(LIMIT_0));
        }
        options.validate()?;
        if self.is_empty() {
            return Ok(Vec::new());
        }
        let Some(required) = self.required_postings(&options.required) else {
            return Ok(Vec::new());
        };
        let min_matched = |known: usize| {
            // The coverage rule: with 4+ distinct known terms, match at least half of them.
            if options.coverage && known >= 4 {
                known.div_ceil(2) as u32
            } else {
                0
            }
        };
        let pruned = self.search_pruned(query, refs, options, limit, min_matched, |doc, score| {
            score >= options.threshold && self.passes_seeing(doc, score, options, &required, seen)
        });
        let mut hits = if let Some(hits) = pruned {
            hits
        } else {
            SCRATCH.with(|cell| {
                let mut scratch = cell.borrow_mut();
                let known = self.accumulate(query, refs, options, &mut scratch);
                let min_matched = min_matched(known);
                let count = options.coverage;
                self.top_k_and_reset(&mut scratch, limit, count, |doc, score, matched| {
                    score >= options.threshold
                        && (min_matched == 0 || matched >= min_matched)
                        && self.passes_seeing(doc, score, options, &required, seen)
                })
            })
        };
        if options.relative_floor > 0.0 {
            if let Some(&(_, best)) = hits.first() {
                let floor = options.relative_floor * best;
                hits.retain(|&(_, score)| score >= floor);
            }
        }
        Ok(hits)
    }
}

/// [`Index::term_ref`] of a term that is not scored but starts some scored term.
pub(crate) const MAY_EXPAND: u32 = u32::MAX - 1;
/// [`Index::term_ref`] of a term that is not scored and starts no scored term.
pub(crate) const NO_EXPANSION: u32 = u32::MAX;

/// The scored term id a [`Index::term_ref`] holds, if it holds one.
#[inline]
pub(crate) fn id_of(term_ref: u32) -> Option<u32> {
    (term_ref < MAY_EXPAND).then_some(term_ref)
}

/// Distinct query terms in first-seen order with their query frequencies.
///
/// Short queries scan the terms seen so far; long ones (natural-language agent queries run to
/// 30–60 analysed terms) look them up in a hash map instead of comparing every pair.
pub(super) fn distinct_terms<S: AsRef<str>>(tokens: &[S]) -> Vec<(&str, f64)> {
    let mut query: Vec<(&str, f64)> = Vec::with_capacity(tokens.len());
    if tokens.len() <= DISTINCT_SCAN_MAX {
        for tok in tokens {
            let tok = tok.as_ref();
            let weight = query_weight(tok);
            match query.iter_mut().find(|(t, _)| *t == tok) {
                Some((_, count)) => *count += weight,
                None => query.push((tok, weight)),
            }
        }
        return query;
    }
    let mut slot: HashMap<&str, usize, ahash::RandomState> =
        HashMap::with_capacity_and_hasher(tokens.len(), Default::default());
    for tok in tokens {
        let tok = tok.as_ref();
        match slot.entry(tok) {
            std::collections::hash_map::Entry::Occupied(e) => {
                query[*e.get()].1 += query_weight(tok)
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(query.len());
                query.push((tok, query_weight(tok)));
            }
        }
    }
    query
}

/// What one occurrence of `tok` adds to its query-term frequency: 1, or
/// [`analysis::STEM_QUERY_WEIGHT`] for a stemmed copy (the English profile's; the tokenizer never
/// emits the mark, so a seed-profile query holds none).
#[inline]
fn query_weight(tok: &str) -> f64 {
    if analysis::is_marked(tok) {
        analysis::STEM_QUERY_WEIGHT
    } else {
        1.0
    }
}

/// Up to this many query tokens, `distinct_terms` scans instead of hashing.
const DISTINCT_SCAN_MAX: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Profile;
    use crate::index::bm25::{self, Params};
    use crate::index::fixtures::{build, ids, none};
    use crate::search::PrefixOptions;

    #[test]
    fn ranks_by_weighted_bm25_plus() {
        let idx = build(&[
            (
                "read_file",
                &[(0, "read_file"), (1, "Read a file from disk")],
            ),
            (
                "write_file",
                &[(0, "write_file"), (1, "Write a file to disk")],
            ),
            ("fetch", &[(0, "fetch"), (1, "Fetch a URL")]),
        ]);
        let hits = idx.search("read file", 8, &none()).unwrap();
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![0, 1]);
        // Hand-computed: N=3, lengths read_file 6·2+2·5=22, write_file 22, fetch 6+2·3=12; avg 56/3.
        let avg = 56.0 / 3.0;
        let p = Params::default();
        let norm = p.norm(22.0, avg);
        let read = p.term_score(1.0, bm25::idf(3, 1), 8.0, norm);
        let file = p.term_score(1.0, bm25::idf(3, 2), 8.0, norm);
        assert!((hits[0].1 - (0.0 + read + file)).abs() < 1e-12);
        assert!((hits[1].1 - file).abs() < 1e-12);
    }

    #[test]
    fn ties_break_by_name_and_limit_cuts_after_sorting() {
        let idx = build(&[
            ("b", &[(1, "same text")]),
            ("a", &[(1, "same text")]),
            ("c", &[(1, "same text")]),
        ]);
        let hits = idx.search("same", 2, &none()).unwrap();
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![1, 0]);
        assert_eq!(hits[0].1, hits[1].1);
    }

    #[test]
    fn cached_term_refs_follow_the_index_they_were_resolved_in() {
        // Two English indexes whose vocabularies differ (a word scored in one is unknown, or
        // only a prefix of scored terms, in the other) and an updated index, searched in turn
        // from one thread with the same words: the stem cache holds each word's refs for one
        // index at a time, and every search must equal the one that looks every term up.
        let english = |docs: &[(&str, &str)]| {
            let names = docs.iter().map(|(n, _)| n.to_string()).collect();
            let fields: Vec<Vec<(usize, &str)>> = docs.iter().map(|&(_, t)| vec![(1, t)]).collect();
            Index::build_profiled(
                names,
                &fields,
                vec![6.0, 2.0],
                Params::default(),
                Profile::English,
            )
            .unwrap()
        };
        let a = english(&[
            ("a1", "read files from the disk"),
            ("a2", "write a reader"),
            ("a3", "database events"),
        ]);
        let b = english(&[
            ("b1", "calendar events"),
            ("b2", "readme files"),
            ("b3", "send message"),
        ]);
        let c = b
            .updated(&[1], vec!["c1".into()], &[vec![(1, "read the database")]])
            .unwrap();
        assert!(a.tag != b.tag && b.tag != c.tag && a.tag != 0);
        let queries = [
            "read files",
            "reader",
            "readme calendar",
            "rea",
            "events database",
            "send the message",
            "zzz read",
            "files file",
            "disk reading",
            "the",
        ];
        let options = SearchOptions {
            prefix: PrefixOptions {
                fraction: 0.5,
                ..PrefixOptions::default()
            },
            ..SearchOptions::default()
        };
        for _ in 0..3 {
            for idx in [&a, &b, &c, &b] {
                for q in queries {
                    let terms = idx.profile.query_terms(q);
                    let expected = idx.search_tokens(&terms, 8, &options);
                    assert_eq!(idx.search(q, 8, &options), expected, "{q}");
                }
            }
        }
        // The refs themselves: scored ids, a prefix of scored terms, nothing.
        assert_eq!(a.term_ref("reader"), a.scored_term("reader").unwrap());
        assert_eq!(a.term_ref("rea"), MAY_EXPAND);
        assert_eq!(b.term_ref("reader"), NO_EXPANSION);
        assert_eq!(a.term_ref("§zzz"), NO_EXPANSION);
    }

    #[test]
    fn errors_and_empty_corpus() {
        let idx = build(&[("a", &[(1, "x")])]);
        assert_eq!(idx.search("!!!", 8, &none()), Err(Error::NoSearchableTerms));
        assert_eq!(idx.search("x", 0, &none()), Err(Error::Unchecked(LIMIT_0)));
        let empty = build(&[]);
        assert_eq!(empty.search("x", 8, &none()), Ok(vec![]));
        assert_eq!(empty.search("", 8, &none()), Err(Error::NoSearchableTerms));
        assert_eq!(empty.average_length(), 1.0);
    }

    #[test]
    fn distinct_terms_hashing_matches_the_scan() {
        // Long token lists take the hash-map path: same terms, order and counts as the scan.
        fn scan(tokens: &[String]) -> Vec<(&str, f64)> {
            let mut q: Vec<(&str, f64)> = Vec::new();
            for tok in tokens {
                match q.iter_mut().find(|(t, _)| *t == tok.as_str()) {
                    Some((_, c)) => *c += 1.0,
                    None => q.push((tok.as_str(), 1.0)),
                }
            }
            q
        }
        for n in [
            0usize,
            1,
            5,
            DISTINCT_SCAN_MAX,
            DISTINCT_SCAN_MAX + 1,
            40,
            200,
        ] {
            let tokens: Vec<String> = (0..n).map(|i| format!("t{}", (i * 7) % 13)).collect();
            assert_eq!(distinct_terms(&tokens), scan(&tokens), "{n}");
        }
    }

    #[test]
    fn prefix_expansion_takes_the_best_expansion_at_a_fraction() {
        let idx = build(&[
            ("a", &[(0, "screenshot screen")]),
            ("b", &[(0, "screen")]),
            ("c", &[(0, "scribble")]),
        ]);
        let prefix = |fraction, max_expansions| SearchOptions {
            prefix: PrefixOptions {
                fraction,
                min_len: 3,
                max_expansions,
            },
            ..SearchOptions::default()
        };
        assert_eq!(idx.search("scree", 8, &none()).unwrap(), vec![]);
        let half = idx.search("scree", 8, &prefix(0.5, 16)).unwrap();
        let exact_a = idx.search("screen", 8, &none()).unwrap();
        let shot = idx.search("screenshot", 8, &none()).unwrap();
        // Document a holds "screen" and "screenshot": the larger term score counts, once.
        let a = half.iter().find(|h| h.0 == 0).unwrap().1;
        let screen_a = exact_a.iter().find(|h| h.0 == 0).unwrap().1;
        assert_eq!(a, 0.5 * screen_a.max(shot[0].1));
        // "scree" → "screen" first (lexicographic); with one expansion "screenshot" is never used.
        let one = idx.search("scree", 8, &prefix(0.5, 1)).unwrap();
        assert_eq!(one.len(), 2);
        // Too short, or an exact term: no expansion.
        assert_eq!(idx.search("sc", 8, &prefix(0.5, 16)).unwrap(), vec![]);
        assert_eq!(
            ids(&idx.search("screen", 8, &prefix(0.5, 16)).unwrap()).len(),
            2
        );
        // explain reports the chosen expansion and sums to the score.
        let why = idx
            .explain(&["scree"], 0, &prefix(0.5, 16))
            .unwrap()
            .unwrap();
        assert_eq!(why.len(), 1);
        assert!(why[0].prefix);
        assert_eq!(why[0].contribution, a);
    }
}
