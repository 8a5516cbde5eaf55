//! The derived bounds the pruned loop relies on, on seeded random corpora (`tests`' generators):
//! stored impacts and shared twin lists give the bits of computed ones, the bounds bound every
//! posting, and loaded or updated indexes derive them again.

use crate::analysis::Profile;
use crate::index::bm25::Params;
use crate::index::Index;
use crate::search::SearchOptions;

use super::tests::{corpus, corpus_in, options, query, Rng};
use super::ScoringMode;

#[test]
fn stored_impacts_give_the_bits_of_computed_ones() {
    // Below `IMPACT_MAX_DOCS` each posting's impact is stored; the exhaustive loop multiplies it
    // instead of dividing. Without them (an index past that size) it computes each: the same
    // f64 operations, so every score has the same bits, on every path of the loop (pairs,
    // coverage counts, prefixes, filters).
    let mut rng = Rng(20261124);
    let mut nonempty = 0;
    for round in 0..200 {
        let n = [1, 5, 40, 300, 2000][rng.next(5)];
        let vocab = 3 + rng.next(21);
        let idx = corpus(&mut rng, n, vocab);
        assert_eq!(idx.bounds.impacts.len(), idx.docs.len());
        for (i, &impact) in idx.bounds.impacts.iter().enumerate() {
            let d = idx.docs[i] as usize;
            let score = idx
                .params
                .term_score(1.0, 1.0, idx.tfs.get(i), idx.norms[d]);
            assert_eq!(
                impact.to_bits(),
                score.to_bits(),
                "round {round}: posting {i}"
            );
        }
        let mut computed = idx.clone();
        computed.bounds.impacts = Vec::new();
        for _ in 0..12 {
            let q = idx.query_terms(&query(&mut rng, vocab).join(" "));
            let o = options(&mut rng, n);
            let limit = [1, 2, 3, 8, 25, 1000][rng.next(6)];
            let stored = Index::with_exhaustive_scoring(|| idx.search_tokens(&q, limit, &o));
            let plain = Index::with_exhaustive_scoring(|| computed.search_tokens(&q, limit, &o));
            assert_eq!(stored, plain, "round {round}: {q:?} limit {limit} {o:?}");
            if stored.as_ref().is_ok_and(|h| !h.is_empty()) {
                nonempty += 1;
            }
        }
    }
    assert!(nonempty > 700, "only {nonempty} non-empty results");
}

#[test]
fn shared_twin_lists_give_the_bits_of_stored_ones() {
    // A stemmed copy holding its word's documents at half the tf reads the word's list
    // (`build::share`; automatic from `SHARE_MIN_DOCS` documents, forced here): every path
    // (exhaustive, pruned, split, blocked; prefixes, filters, coverage), `explain`, snapshots
    // and updates see the same postings and scores as with the copy's own list.
    let mut rng = Rng(20261124);
    let (mut rounds_shared, mut nonempty) = (0, 0);
    for round in 0..120 {
        let n = [5, 40, 300, 2000][rng.next(4)];
        let vocab = 3 + rng.next(21);
        let idx = corpus_in(&mut rng, n, vocab, Some(Profile::English));
        let shared = idx.with_shared_twins();
        if shared.shared.is_empty() {
            continue;
        }
        rounds_shared += 1;
        assert!(shared.docs.len() < idx.docs.len(), "round {round}");
        assert!(shared.bounds.impacts.is_empty());
        assert_eq!(shared.bounds.term_max, idx.bounds.term_max, "round {round}");
        for t in 0..idx.terms.len() as u32 {
            assert_eq!(
                shared.doc_list(t),
                idx.doc_list(t),
                "round {round}: term {t}"
            );
        }
        assert_eq!(shared.to_bytes(b"m"), idx.to_bytes(b"m"), "round {round}");
        for _ in 0..10 {
            let q = idx.query_terms(&query(&mut rng, vocab).join(" "));
            let o = options(&mut rng, n);
            let limit = [1, 3, 8, 1000][rng.next(4)];
            let want = Index::with_exhaustive_scoring(|| idx.search_tokens(&q, limit, &o));
            for mode in [ScoringMode::Exhaustive, ScoringMode::Pruned] {
                let got = Index::with_scoring_mode(mode, || shared.search_tokens(&q, limit, &o));
                assert_eq!(got, want, "round {round}: {q:?} {mode:?} {o:?}");
            }
            let split = Index::with_scoring_mode(ScoringMode::Pruned, || {
                Index::with_search_parts(3, || shared.search_tokens(&q, limit, &o))
            });
            assert_eq!(split, want, "round {round}: {q:?} split");
            let blocked = shared.search_tokens_with(&q, limit, &o, true);
            assert_eq!(blocked, want, "round {round}: {q:?} blocked");
            if want.as_ref().is_ok_and(|h| !h.is_empty()) {
                nonempty += 1;
                let doc = want.as_ref().unwrap()[0].0;
                let why = |i: &Index| i.explain(&q, doc, &o).unwrap();
                assert_eq!(why(&shared), why(&idx), "round {round}: {q:?} explain");
            }
        }
        // An update reads the shared lists in full: the same index as from the copy's own.
        let (names, docs) = crate::build::tests::corpus(7, 4);
        let remove: Vec<u32> = (0..n as u32).step_by(3).collect();
        let a = shared.updated(&remove, names.clone(), &docs).unwrap();
        let b = idx.updated(&remove, names, &docs).unwrap();
        assert_eq!(a.fingerprint(), b.fingerprint(), "round {round}: update");
    }
    assert!(
        rounds_shared > 60,
        "only {rounds_shared} corpora shared a list"
    );
    assert!(nonempty > 300, "only {nonempty} non-empty results");
}

#[test]
fn large_english_indexes_share_their_twin_lists() {
    use crate::build::share::SHARE_MIN_DOCS;
    let n = SHARE_MIN_DOCS + 100;
    let names: Vec<String> = (0..n).map(|i| format!("tool{i}")).collect();
    let docs: Vec<Vec<(usize, String)>> = (0..n)
        .map(|i| vec![(1, format!("reading files w{} n{i}", i % 97))])
        .collect();
    let weights = vec![6.0, 2.0];
    let idx =
        Index::build_parallel_profiled(names, &docs, weights, Params::default(), Profile::English)
            .unwrap();
    // "w5" and "n7" are their own stems, held by no other word: their copies share.
    let id = |t: &str| idx.term_ids.get(&idx.terms, t).unwrap();
    for word in ["w5", "n7"] {
        let copy = id(&format!("{}{word}", crate::analysis::STEM_MARK));
        assert_eq!(idx.shared[copy as usize], id(word), "{word}");
        let (start, end, scale) = idx.list(copy);
        assert_eq!((start, end), {
            let (s, e, _) = idx.list(id(word));
            (s, e)
        });
        assert_eq!(scale, 0.5);
    }
    // "reading" stems to "read", which no other word has either: shared; 97 + n ids shared.
    let count = |i: &Index| {
        i.shared
            .iter()
            .filter(|&&s| s != crate::index::OWN_POSTINGS)
            .count()
    };
    assert!(count(&idx) > n);
    // A load shares the same lists (its term ids differ: the snapshot's dictionary is sorted).
    let (loaded, _) = Index::from_bytes(&idx.to_bytes(b"")).unwrap();
    assert_eq!(count(&loaded), count(&idx));
    assert_eq!(loaded.docs.len(), idx.docs.len());
    let opts = SearchOptions::default();
    for q in ["reading w5", "n7 files", "w5 n1000 reading files"] {
        let q = idx.query_terms(q);
        let auto = idx.search_tokens(&q, 8, &opts).unwrap();
        assert_eq!(
            loaded.search_tokens(&q, 8, &opts).unwrap(),
            auto,
            "{q:?}: loaded"
        );
        let exhaustive = Index::with_exhaustive_scoring(|| idx.search_tokens(&q, 8, &opts));
        assert_eq!(auto, exhaustive.unwrap(), "{q:?}");
        assert!(!auto.is_empty());
    }
}

#[test]
fn bounds_are_upper_bounds_and_bitmaps_hold_the_dense_terms() {
    let mut rng = Rng(7);
    let idx = corpus(&mut rng, 3000, 20);
    let b = &idx.bounds;
    assert_eq!(b.term_max.len() + 1, idx.offsets.len());
    for t in 0..idx.terms.len() {
        let (start, end) = (idx.offsets[t] as usize, idx.offsets[t + 1] as usize);
        for i in start..end {
            let d = idx.docs[i] as usize;
            let score = idx
                .params
                .term_score(1.0, idx.idf(t as u32), idx.tfs.get(i), idx.norms[d]);
            assert!(score <= idx.idf(t as u32) * b.term_max[t] as f64);
        }
        let dense = (end - start) * crate::index::bounds::DENSE >= idx.len();
        assert_eq!(b.bitmap(t as u32).is_some(), dense);
        if let Some(w) = b.bitmap(t as u32) {
            let held: Vec<u32> = (0..idx.len() as u32)
                .filter(|&d| b.bitmaps[w + d as usize / 64] >> (d % 64) & 1 == 1)
                .collect();
            assert_eq!(held, idx.docs[start..end]);
        }
    }
    assert!(!b.dense.is_empty());
}

#[test]
fn loaded_and_updated_indexes_derive_their_bounds_and_prune_exactly() {
    let mut rng = Rng(99);
    let idx = corpus(&mut rng, 1500, 18);
    let (loaded, _) = Index::from_bytes(&idx.to_bytes(b"")).unwrap();
    let (names, docs) = crate::build::tests::corpus(40, 8);
    let remove: Vec<u32> = (0..1500).step_by(7).collect();
    let updated = idx.updated(&remove, names, &docs).unwrap();
    for other in [&loaded, &updated] {
        let fresh = crate::index::Bounds::compute(
            other.params,
            &other.offsets,
            &other.docs,
            &other.tfs,
            &other.shared,
            &other.norms,
        );
        assert_eq!(other.bounds.term_max, fresh.term_max);
        assert_eq!(other.bounds.dense, fresh.dense);
        assert_eq!(other.bounds.bitmaps, fresh.bitmaps);
        assert!(!other.bounds.dense.is_empty());
        for q in ["read file", "the a of data", "send message user channel"] {
            let tokens: Vec<&str> = q.split(' ').collect();
            let opts = SearchOptions::default();
            let pruned = Index::with_scoring_mode(ScoringMode::Pruned, || {
                other.search_tokens(&tokens, 5, &opts)
            });
            let exhaustive =
                Index::with_exhaustive_scoring(|| other.search_tokens(&tokens, 5, &opts));
            assert_eq!(pruned, exhaustive, "{q}");
        }
    }
    // A snapshot renumbers the terms (its dictionary is sorted), not the dense set.
    assert_eq!(loaded.bounds.dense.len(), idx.bounds.dense.len());
    assert_eq!(loaded.bounds.bitmaps.len(), idx.bounds.bitmaps.len());
}
