//! The exhaustive scoring path: every posting of every query term is added into the thread's
//! accumulator (`accumulate`; past `cache_blocked::MIN_DOCS` documents range by range, in
//! `cache_blocked`), and the top k of the touched documents are taken in one walk that also
//! resets the accumulator (`top_k_and_reset`). The loop over one term's postings, the hot path,
//! is `posting_loop`'s.

use super::posting_loop::{add_postings_as, Computed, Scaled, Stored, Sums, IMPACT_BLOCK};
use super::{fold_best, id_of, Scratch, SearchOptions, TopK, MAY_EXPAND};
use crate::index::{Index, TfSlice};

impl Index {
    /// Adds every query term's BM25+ contribution to `scratch.acc`; returns the number of known
    /// query terms (scored, or with at least one prefix expansion). `refs`, when given, are the
    /// terms' [`Index::term_ref`]s (one per term), which spare the lookups.
    pub(super) fn accumulate(
        &self,
        query: &[(&str, f64)],
        refs: Option<&[u32]>,
        options: &SearchOptions,
        scratch: &mut Scratch,
    ) -> usize {
        let n = self.len();
        if scratch.acc.len() < n {
            scratch.acc.resize(n, 0.0);
            scratch.best.resize(n, 0.0);
        }
        let count = options.coverage;
        if count && scratch.matched.len() < n {
            scratch.matched.resize(n, 0);
        }
        // Past `cache_blocked::MIN_DOCS` the accumulator outgrows the cache: score range by range.
        if self.use_blocked() {
            return self.accumulate_blocked(query, options, scratch);
        }
        let Scratch {
            acc,
            touched,
            best,
            best_touched,
            matched,
        } = scratch;
        // Each query term's id, looked up once (the pairing test below looks one term ahead).
        let ids = self.query_refs(query, refs);
        let mut known = 0;
        let mut next = 0;
        while next < query.len() {
            let (tok, qtf) = query[next];
            let (id, may_expand) = (id_of(ids[next]), ids[next] == MAY_EXPAND);
            next += 1;
            if let Some(term) = id {
                known += 1;
                let (docs, tfs, scale) = self.postings(term);
                // The next term may hold exactly the same documents (in the English profile, a
                // word and its stemmed copy when no other word has that stem): both are added
                // in one pass, in the same order, so the sums are the same. (A shared copy
                // reads its word's very list.)
                let pair = query.get(next).and_then(|&(_, qtf2)| {
                    let term2 = id_of(ids[next])?;
                    let (docs2, tfs2, scale2) = self.postings(term2);
                    let same = || std::ptr::eq(docs2, docs) || docs2 == docs;
                    self.bounds
                        .twins
                        .same(term, term2, same)
                        .then_some((qtf2, term2, tfs2, scale2))
                });
                if pair.is_some() {
                    known += 1;
                    next += 1;
                }
                let (qtf2, term2, tfs2, scale2) = pair.unwrap_or((qtf, term, tfs, scale));
                let (qi, qi2) = (qtf * self.idf(term), qtf2 * self.idf(term2));
                let kind = (pair.is_some(), count, touched.is_empty());
                let impacts = &self.bounds.impacts;
                if impacts.is_empty() {
                    let (k1p1, delta) = (self.params.k1 + 1.0, self.params.delta);
                    let norms = &self.norms[..];
                    // A coded column (every list of an index is coded, or none): block by
                    // block, the impacts are computed from each code's numbers that do not
                    // depend on the document (a loop without dependencies between postings),
                    // then added as stored ones.
                    if let (TfSlice::Coded(c), TfSlice::Coded(c2)) = (tfs, tfs2) {
                        let (scaled, scaled2) =
                            (Scaled::new(&c, scale, k1p1), Scaled::new(&c2, scale2, k1p1));
                        let mut block = [[0f64; IMPACT_BLOCK]; 2];
                        let mut start = 0;
                        while start < docs.len() {
                            let end = (start + IMPACT_BLOCK).min(docs.len());
                            let docs = &docs[start..end];
                            let [ref mut first, ref mut second] = block;
                            let first = &mut first[..docs.len()];
                            scaled.impacts(&c.codes[start..end], docs, norms, delta, first);
                            let second = &mut second[..docs.len()];
                            if pair.is_some() {
                                scaled2.impacts(&c2.codes[start..end], docs, norms, delta, second);
                            }
                            // (the first term of the query until its first block is added)
                            let kind = (kind.0, kind.1, touched.is_empty());
                            add_postings_as(
                                kind,
                                docs,
                                (qi, Stored(first)),
                                (qi2, Stored(second)),
                                (&mut acc[..n], &mut *touched, &mut matched[..]),
                            );
                            start = end;
                        }
                    } else {
                        let sums: Sums<'_> = (&mut acc[..n], touched, matched);
                        let computed = |tfs, scale| Computed {
                            tfs,
                            scale,
                            norms,
                            k1p1,
                            delta,
                        };
                        add_postings_as(
                            kind,
                            docs,
                            (qi, computed(tfs, scale)),
                            (qi2, computed(tfs2, scale2)),
                            sums,
                        );
                    }
                } else {
                    // Impacts are stored only where no term shares (see `Bounds::impacts`).
                    debug_assert!(self.shared.is_empty());
                    let stored = |term: u32| {
                        let start = self.offsets[term as usize] as usize;
                        Stored(&impacts[start..start + docs.len()])
                    };
                    add_postings_as(
                        kind,
                        docs,
                        (qi, stored(term)),
                        (qi2, stored(term2)),
                        (&mut acc[..n], touched, matched),
                    );
                }
                continue;
            }
            if !may_expand {
                continue; // no scored term starts with it: no expansion
            }
            let fraction = options.prefix.fraction;
            let mut any = false;
            for term in self.expansions(tok, &options.prefix) {
                any = true;
                let idf = self.idf(term);
                let (docs, tfs, scale) = self.postings(term);
                for (&doc, tf) in docs.iter().zip(tfs.iter()) {
                    let d = doc as usize;
                    let tf = tf * scale;
                    let score = fraction * self.params.term_score(qtf, idf, tf, self.norms[d]);
                    if best[d] == 0.0 {
                        best_touched.push(doc);
                    }
                    if score > best[d] {
                        best[d] = score;
                    }
                }
            }
            if any {
                known += 1;
            }
            fold_best(acc, touched, best, best_touched, matched, count);
        }
        known
    }

    /// The top `limit` of the touched documents, zeroing the accumulator (and the matched
    /// counts) behind it in the same pass, so the scratch is clean for the next query: one walk
    /// over the touched documents instead of two (the walk and the reset were half of a 10k
    /// search's time outside the posting loop). `keep` sees the document, its score and its
    /// matched count (0 without the coverage rule, `count` false: the counts are then all 0 and
    /// may be shorter than the index, as another index's queries left them).
    pub(super) fn top_k_and_reset(
        &self,
        scratch: &mut Scratch,
        limit: usize,
        count: bool,
        keep: impl Fn(u32, f64, u32) -> bool,
    ) -> Vec<(u32, f64)> {
        let mut top = TopK::new(limit);
        let Scratch {
            acc,
            touched,
            matched,
            ..
        } = scratch;
        if !count {
            let acc = &mut acc[..];
            // Most touched documents lose on score: a group of them is read and zeroed, and
            // offered one by one only when its best score reaches the floor (one comparison
            // and one branch for the group instead of two per document).
            let mut groups = touched.chunks_exact(WALK_GROUP);
            for group in &mut groups {
                let scores: [f64; WALK_GROUP] =
                    std::array::from_fn(|i| std::mem::replace(&mut acc[group[i] as usize], 0.0));
                if all_below(&scores, top.floor()) {
                    continue; // every score is below it
                }
                for (&doc, &score) in group.iter().zip(&scores) {
                    top.offer(self, doc, score, |doc, score| keep(doc, score, 0));
                }
            }
            for &doc in groups.remainder() {
                let score = std::mem::replace(&mut acc[doc as usize], 0.0);
                top.offer(self, doc, score, |doc, score| keep(doc, score, 0));
            }
        } else {
            for &doc in touched.iter() {
                let d = doc as usize;
                let score = std::mem::replace(&mut acc[d], 0.0);
                let count = std::mem::replace(&mut matched[d], 0);
                top.offer(self, doc, score, |doc, score| keep(doc, score, count));
            }
        }
        touched.clear();
        top.into_sorted()
    }
}

/// How many touched documents the top-k walk reads before one comparison with the floor.
const WALK_GROUP: usize = 8;

/// Whether every score of a walk group is below `floor`: eight independent comparisons and'ed
/// together (two-lane compares and one mask), where a running `f64::max` chained eight NaN-aware
/// steps, most of the walk's time. A NaN is not below the floor, so its group is not skipped and
/// each score is offered alone (`TopK::offer` never keeps a NaN), as before.
#[inline(always)]
fn all_below(scores: &[f64; WALK_GROUP], floor: f64) -> bool {
    scores.iter().fold(true, |all, &s| all & (s < floor))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::fixtures::{build, ids, none};

    #[test]
    fn the_twin_memo_answers_for_the_partner_asked() {
        // "x" holds the same documents as "y" but not as "z": the memo keeps one partner per
        // term, and a query pairing "x" with another partner must not reuse its answer.
        let idx = build(&[
            ("a", &[(1, "x y z")]),
            ("b", &[(1, "x y")]),
            ("c", &[(1, "z q")]),
        ]);
        let docs: Vec<u32> = (0..3).collect();
        for query in [["x", "y"], ["x", "z"], ["x", "y"], ["x", "z"], ["z", "q"]] {
            let hits = idx.search_tokens(&query, 8, &none()).unwrap();
            let mut one_by_one = idx.score_documents(&query, &docs, &none()).unwrap();
            one_by_one.retain(|h| h.1 > 0.0);
            one_by_one.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            assert_eq!(hits, one_by_one, "{query:?}");
        }
        let twins = &idx.bounds.twins;
        let id = |t| idx.term_ids.get(&idx.terms, t).unwrap();
        let (x, y, z) = (id("x"), id("y"), id("z"));
        // The last query pairing "x" asked about "z".
        assert!(!twins.same(x, z, || unreachable!("x, z: recorded")));
        let mut tested = false;
        assert!(twins.same(x, y, || {
            tested = true;
            true
        }));
        assert!(tested, "another partner is tested again");
        assert!(twins.same(x, y, || unreachable!("x, y: recorded")));
    }

    #[test]
    fn the_grouped_walk_keeps_every_tie_at_the_floor() {
        // 203 documents (not a multiple of the walk's group) with a few distinct scores and
        // shuffled names: most ties fall across groups and at the k-th score. Every cut of the
        // ranking must be the head of the full ranking, which never has a floor to skip by.
        let texts: Vec<(String, String)> = (0..203)
            .map(|i| {
                let name = format!("t{:03}", (i * 37) % 203);
                let words = "word ".repeat(i % 4 + 1) + &"filler ".repeat(i % 3);
                (name, words)
            })
            .collect();
        let docs: Vec<(&str, Vec<(usize, &str)>)> = texts
            .iter()
            .map(|(n, t)| (n.as_str(), vec![(1, t.as_str())]))
            .collect();
        let docs: Vec<(&str, &[(usize, &str)])> =
            docs.iter().map(|(n, f)| (*n, f.as_slice())).collect();
        let idx = build(&docs);
        let full = idx.search("word filler", 1000, &none()).unwrap();
        assert_eq!(full.len(), 203);
        for k in 1..=40 {
            assert_eq!(
                idx.search("word filler", k, &none()).unwrap(),
                full[..k],
                "k={k}"
            );
        }
    }

    #[test]
    fn repeated_query_terms_count_and_scratch_is_reset() {
        let idx = build(&[("a", &[(1, "x y")]), ("b", &[(1, "y")])]);
        let once = idx.search("x", 8, &none()).unwrap();
        let twice = idx.search("x x", 8, &none()).unwrap();
        assert!((twice[0].1 - 2.0 * once[0].1).abs() < 1e-12);
        // The scratch accumulator must be clean between queries.
        let again = idx.search("x", 8, &none()).unwrap();
        assert_eq!(once, again);
    }

    #[test]
    fn terms_with_the_same_documents_are_added_in_one_pass_with_the_same_sums() {
        // "x" and "y" hold the same documents with other frequencies; "z" holds others.
        let idx = build(&[
            ("a", &[(0, "x y y"), (1, "x z")]),
            ("b", &[(1, "x x y z z")]),
            ("c", &[(2, "x y")]),
            ("d", &[(1, "z")]),
            ("e", &[(2, "q")]),
        ]);
        let docs: Vec<u32> = (0..5).collect();
        for query in [["x", "y", "z"], ["z", "x", "y"], ["y", "x", "z"]] {
            let hits = idx.search_tokens(&query, 8, &none()).unwrap();
            // score_documents adds the terms one by one (no pair pass): the same bits.
            let mut one_by_one = idx.score_documents(&query, &docs, &none()).unwrap();
            one_by_one.retain(|h| h.1 > 0.0);
            one_by_one.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            assert_eq!(hits, one_by_one, "{query:?}");
            // The coverage rule (4 known terms: match 2) counts both terms of a pair: "c" holds
            // only x and y, and stays; "d" (z) and "e" (q) hold one term each.
            let four = [query[0], query[1], query[2], "q"];
            let coverage = SearchOptions {
                coverage: true,
                ..SearchOptions::default()
            };
            let all = idx.search_tokens(&four, 8, &none()).unwrap();
            let covered = idx.search_tokens(&four, 8, &coverage).unwrap();
            assert!(
                ids(&all).contains(&2) && ids(&covered).contains(&2),
                "{query:?}"
            );
            let want: Vec<u32> = ids(&all).into_iter().filter(|&d| d < 3).collect();
            assert_eq!(ids(&covered), want, "{query:?}");
        }
    }

    #[test]
    fn the_scratch_stays_clean_across_indexes_and_the_coverage_rule() {
        // One thread's scratch serves every index: a coverage search on a small index leaves
        // its counts shorter than a larger index, whose searches must neither read nor keep
        // them, and every search must start from zeros.
        let small = build(&[("a", &[(1, "x y z w")]), ("b", &[(1, "x")])]);
        let big = build(&[
            ("c", &[(1, "x y")]),
            ("d", &[(1, "y z")]),
            ("e", &[(1, "z w")]),
            ("f", &[(1, "w x")]),
            ("g", &[(1, "x y z")]),
        ]);
        let coverage = SearchOptions {
            coverage: true,
            ..SearchOptions::default()
        };
        let q = ["x", "y", "z", "w"];
        let fresh_big = big.search_tokens(&q, 8, &none()).unwrap();
        let fresh_big_cov = big.search_tokens(&q, 8, &coverage).unwrap();
        let fresh_small = small.search_tokens(&q, 8, &coverage).unwrap();
        assert_eq!(ids(&fresh_small), vec![0], "b matches 1 of 4 terms");
        for _ in 0..3 {
            assert_eq!(small.search_tokens(&q, 8, &coverage).unwrap(), fresh_small);
            assert_eq!(big.search_tokens(&q, 8, &none()).unwrap(), fresh_big);
            assert_eq!(big.search_tokens(&q, 8, &coverage).unwrap(), fresh_big_cov);
            assert_eq!(small.search_tokens(&q, 1, &none()).unwrap().len(), 1);
        }
        let mut covered = ids(&fresh_big_cov);
        covered.sort_unstable();
        assert_eq!(covered, vec![0, 1, 2, 3, 4], "each holds 2 of the 4 terms");
    }
}
