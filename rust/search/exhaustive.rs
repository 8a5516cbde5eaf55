//! The exhaustive scoring path: every posting of every query term is added into the thread's
//! accumulator (`accumulate`; past `cache_blocked::MIN_DOCS` documents range by range, in
//! `cache_blocked`), and the top k of the touched documents are taken in one walk that also
//! resets the accumulator (`top_k_and_reset`).

use super::{id_of, Scratch, SearchOptions, TopK, MAY_EXPAND};
use crate::index::Index;

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
                let (qi, qi2) = (
                    qtf * self.idf[term as usize],
                    qtf2 * self.idf[term2 as usize],
                );
                let kind = (pair.is_some(), count, touched.is_empty());
                let impacts = &self.bounds.impacts;
                if impacts.is_empty() {
                    let computed = |tfs, scale| Computed {
                        tfs,
                        scale,
                        norms: &self.norms,
                        k1p1: self.params.k1 + 1.0,
                        delta: self.params.delta,
                    };
                    add_postings_as(
                        kind,
                        docs,
                        (qi, computed(tfs, scale)),
                        (qi2, computed(tfs2, scale2)),
                        (&mut acc[..n], touched, matched),
                    );
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
                let idf = self.idf[term as usize];
                let (docs, tfs, scale) = self.postings(term);
                for (&doc, &tf) in docs.iter().zip(tfs) {
                    let d = doc as usize;
                    let tf = tf as f64 * scale;
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

/// Where a posting's impact comes from: the parenthesis of `Params::term_score`,
/// `tf·(k1+1)/(tf+norm) + δ`, for the posting at `i` of a list, of document `d`.
trait Impacts: Sized {
    fn impact(&self, i: usize, d: usize) -> f64;
    /// The same impacts, cut to the list's `len` postings (so the loop's indexing is checked
    /// once, here).
    fn fit(self, len: usize) -> Self;
}

/// Impacts computed from the term frequencies (stored ones times `scale`: see `Index::list`)
/// and norms (indexes without stored impacts).
struct Computed<'a> {
    tfs: &'a [f32],
    scale: f64,
    norms: &'a [f64],
    k1p1: f64,
    delta: f64,
}

impl Impacts for Computed<'_> {
    #[inline(always)]
    fn impact(&self, i: usize, d: usize) -> f64 {
        let tf = self.tfs[i] as f64 * self.scale;
        // SAFETY: `d < norms.len()`, the invariant `add_postings` states.
        let norm = unsafe { *self.norms.get_unchecked(d) };
        (tf * self.k1p1) / (tf + norm) + self.delta
    }

    fn fit(self, len: usize) -> Self {
        Computed {
            tfs: &self.tfs[..len],
            ..self
        }
    }
}

/// A list's stored impacts (`Bounds::impacts`), computed at build with the same operations.
struct Stored<'a>(&'a [f64]);

impl Impacts for Stored<'_> {
    #[inline(always)]
    fn impact(&self, i: usize, _d: usize) -> f64 {
        self.0[i]
    }

    fn fit(self, len: usize) -> Self {
        Stored(&self.0[..len])
    }
}

/// The accumulator, the touched documents and the matched counts of one search.
type Sums<'a> = (&'a mut [f64], &'a mut Vec<u32>, &'a mut [u32]);

/// Calls the `add_postings` specialised for `(pair, count, first)`.
#[inline]
fn add_postings_as<I: Impacts>(
    (pair, count, first): (bool, bool, bool),
    docs: &[u32],
    term: (f64, I),
    term2: (f64, I),
    sums: Sums<'_>,
) {
    let add = match (count, pair, first) {
        (false, false, false) => add_postings::<false, false, false, I>,
        (true, false, false) => add_postings::<true, false, false, I>,
        (false, true, false) => add_postings::<false, true, false, I>,
        (true, true, false) => add_postings::<true, true, false, I>,
        (false, false, true) => add_postings::<false, false, true, I>,
        (true, false, true) => add_postings::<true, false, true, I>,
        (false, true, true) => add_postings::<false, true, true, I>,
        (true, true, true) => add_postings::<true, true, true, I>,
    };
    add(docs, term, term2, sums)
}

/// Adds one scored term's postings to the accumulator: `qi · impact` for each, where `qi` is
/// `qtf · idf` (the same f64 operations in the same order as `Params::term_score`), appending the
/// documents it is the first contribution of to `touched`, and counting matched terms when
/// `COUNT` (the coverage rule). With `PAIR`, the next query term holds the same documents
/// (`docs`) and is added right after the first, per document, exactly as a second call would
/// add it, in the same pass over the documents and the accumulator; without `PAIR` the second
/// term is ignored.
///
/// The loop is the hot path of every exhaustive search: no branch depends on the data, and
/// the constants are hoisted. With stored impacts ([`Stored`]) it has no division.
#[inline]
fn add_postings<const COUNT: bool, const PAIR: bool, const FIRST: bool, I: Impacts>(
    docs: &[u32],
    (qi, impacts): (f64, I),
    (qi2, impacts2): (f64, I),
    (acc, touched, matched): Sums<'_>,
) {
    // Branch-free bookkeeping: every document is written after the touched ones and kept
    // only when this term is its first contribution (contributions are > 0, so with a pair
    // this is the union of the two terms' tests).
    if FIRST {
        // No document has a contribution yet (`touched` is empty, so every accumulator slot
        // is 0.0): each posting's sum is `0.0 + score`, which is `score`, and each document
        // is new. The loop only writes, and `touched` is a copy of `docs`.
        debug_assert!(touched.is_empty());
        touched.extend_from_slice(docs);
    }
    let mut len = touched.len();
    if !FIRST {
        touched.resize(len + docs.len(), 0);
    }
    let out = &mut touched[..];
    let (impacts, impacts2) = (impacts.fit(docs.len()), impacts2.fit(docs.len()));
    for (i, &doc) in docs.iter().enumerate() {
        let d = doc as usize;
        debug_assert!(d < acc.len() && (FIRST || len < out.len()));
        // SAFETY: `d < acc.len()`: `acc` has one slot per document of the index (as many as
        // its norms), and every doc id in the postings is below the document count, an
        // invariant of `Index` that each constructor establishes (the builds number documents
        // 0..n, snapshot loading validates every id, updates remap valid ids) and that nothing
        // mutates afterwards. `len < out.len()`: `len` starts at the old length and grows by at
        // most one per posting, and `out` has one slot per posting beyond it. Bounds checks
        // per posting cost ~8% of a search.
        let before = if FIRST {
            0.0
        } else {
            unsafe { *acc.get_unchecked(d) }
        };
        let mut after = before + qi * impacts.impact(i, d);
        if PAIR {
            after += qi2 * impacts2.impact(i, d);
        }
        // SAFETY: as above.
        unsafe {
            *acc.get_unchecked_mut(d) = after;
            if !FIRST {
                *out.get_unchecked_mut(len) = doc;
            }
        }
        if !FIRST {
            len += usize::from(before == 0.0 && after != 0.0);
        }
        if COUNT {
            matched[d] += 1 + u32::from(PAIR);
        }
    }
    if !FIRST {
        touched.truncate(len);
    }
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
