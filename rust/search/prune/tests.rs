//! The pruned loop's tests: pruned == exhaustive on seeded random corpora (in one range and
//! split into parallel ranges), the mode switches, and the derived bounds.

use std::collections::HashSet;
use std::sync::atomic::Ordering::Relaxed;

use crate::index::bm25::Params;
use crate::index::Index;
use crate::search::{PrefixOptions, SearchOptions};

use super::ScoringMode;
use crate::analysis::Profile;

/// A small seeded generator (PCG-style LCG), so the tests need no extra crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self, m: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % m.max(1)
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.next(100) < percent
    }
}

const WORDS: [&str; 24] = [
    "read", "reader", "readme", "write", "file", "files", "issue", "pull", "request", "get",
    "list", "user", "channel", "send", "message", "the", "a", "of", "data", "database", "calendar",
    "event", "zeta", "x",
];

/// A word, skewed towards the first ones so that terms overlap heavily.
fn word(rng: &mut Rng, vocab: usize) -> &'static str {
    let a = rng.next(vocab);
    let b = rng.next(vocab);
    WORDS[a.min(b)]
}

fn corpus(rng: &mut Rng, n: usize, vocab: usize) -> Index {
    corpus_in(rng, n, vocab, None)
}

/// [`corpus`] in `profile`, or a random one.
fn corpus_in(rng: &mut Rng, n: usize, vocab: usize, profile: Option<Profile>) -> Index {
    let mut names = Vec::new();
    let mut docs = Vec::new();
    let n_names = if rng.chance(30) { 3 } else { n * 2 };
    for _ in 0..n {
        names.push(format!("t{}", rng.next(n_names)));
        let mut fields: Vec<(usize, String)> = Vec::new();
        for _ in 0..rng.next(4) {
            let long = rng.chance(10);
            let len = 1 + rng.next(if long { 40 } else { 6 });
            let text: Vec<&str> = (0..len).map(|_| word(rng, vocab)).collect();
            fields.push((rng.next(4), text.join(" ")));
        }
        docs.push(fields);
    }
    let weights = vec![6.0, 2.0, 1.0, 0.0];
    let params = [
        Params::default(),
        Params {
            k1: 0.0,
            b: 0.0,
            delta: 0.0,
        },
        Params {
            k1: 2.5,
            b: 1.0,
            delta: 0.3,
        },
    ][rng.next(3)];
    let profile = profile.unwrap_or(if rng.chance(40) {
        Profile::English
    } else {
        Profile::Seed
    });
    Index::build_profiled(names, &docs, weights, params, profile).unwrap()
}

fn options(rng: &mut Rng, n: usize) -> SearchOptions {
    let mut o = SearchOptions::default();
    if rng.chance(20) {
        o.exclude = (0..rng.next(n)).map(|_| rng.next(n) as u32).collect();
    }
    if rng.chance(20) {
        let keep: HashSet<u32> = (0..n as u32).filter(|_| rng.chance(50)).collect();
        o.include = Some(keep);
    }
    if rng.chance(20) {
        o.required = (0..1 + rng.next(2))
            .map(|_| word(rng, 24).to_string())
            .collect();
    }
    if rng.chance(40) {
        o.prefix = PrefixOptions {
            fraction: [0.5, 1.0, 2.0][rng.next(3)],
            min_len: 1 + rng.next(3),
            max_expansions: 1 + rng.next(4),
        };
    }
    if rng.chance(20) {
        o.threshold = rng.next(40) as f64 / 4.0;
    }
    if rng.chance(20) {
        o.relative_floor = rng.next(11) as f64 / 10.0;
    }
    o.coverage = rng.chance(30);
    o
}

fn query(rng: &mut Rng, vocab: usize) -> Vec<String> {
    (0..1 + rng.next(10))
        .map(|_| match rng.next(10) {
            0 => "nowhere".to_string(),
            1 => {
                let w = word(rng, 24);
                w[..1 + rng.next(w.len())].to_string()
            }
            _ => word(rng, vocab).to_string(),
        })
        .collect()
}

#[test]
fn pruned_search_equals_exhaustive_search_on_random_corpora() {
    let mut rng = Rng(20261122);
    let mut nonempty = 0;
    for round in 0..300 {
        let n = [1, 5, 40, 300, 2000][rng.next(5)];
        let vocab = 3 + rng.next(21);
        let idx = corpus(&mut rng, n, vocab);
        for _ in 0..12 {
            let q = query(&mut rng, vocab);
            let o = options(&mut rng, n);
            let limit = [1, 2, 3, 8, 25, 1000][rng.next(6)];
            // The index's own query analysis (English: stop words out, stemmed copies in).
            let text = q.join(" ");
            let q = idx.query_terms(&text);
            let pruned =
                Index::with_scoring_mode(ScoringMode::Pruned, || idx.search_tokens(&q, limit, &o));
            let exhaustive = Index::with_exhaustive_scoring(|| idx.search_tokens(&q, limit, &o));
            assert_eq!(
                pruned, exhaustive,
                "round {round}: {q:?} limit {limit} {o:?}"
            );
            // Cut into document ranges searched in parallel (sharing θ), then merged.
            let parts = 2 + rng.next(4);
            let split = Index::with_scoring_mode(ScoringMode::Pruned, || {
                Index::with_search_parts(parts, || idx.search_tokens(&q, limit, &o))
            });
            assert_eq!(
                split, exhaustive,
                "round {round}: {q:?} limit {limit} {o:?} in {parts} ranges"
            );
            // The text through `Index::search`: the English analysis hands each term's cached id
            // to the loops (`Index::term_ref`), which must agree with looking them up.
            let via_search =
                Index::with_scoring_mode(ScoringMode::Pruned, || idx.search(&text, limit, &o));
            assert_eq!(
                via_search, exhaustive,
                "round {round}: {text:?} limit {limit} {o:?} through search"
            );
            if pruned.as_ref().is_ok_and(|h| !h.is_empty()) {
                nonempty += 1;
            }
        }
    }
    assert!(nonempty > 1000, "only {nonempty} non-empty results");
    // Every loop answered: the candidate bitmaps (few lists) without and with seeds, and the
    // per-document loop.
    let [bitmaps, per_document, seeded] = &super::candidates::PATHS;
    let (bitmaps, per_document, seeded) = (
        bitmaps.load(Relaxed),
        per_document.load(Relaxed),
        seeded.load(Relaxed),
    );
    assert!(
        bitmaps > 1000 && per_document > 1000 && seeded > 1000,
        "{bitmaps} / {per_document} / {seeded}"
    );
}

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
                .term_score(1.0, 1.0, idx.tfs[i] as f64, idx.norms[d]);
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
fn the_mode_switches_pick_the_path() {
    let (names, docs) = crate::build::tests::corpus(50, 5);
    let idx = Index::build_parallel(names, &docs, vec![6.0, 2.0, 0.0], Params::default()).unwrap();
    assert_eq!(idx.scoring_mode(), ScoringMode::Auto);
    let mode = |m| Index::with_scoring_mode(m, || idx.scoring_mode());
    assert_eq!(mode(ScoringMode::Pruned), ScoringMode::Pruned);
    assert_eq!(mode(ScoringMode::Exhaustive), ScoringMode::Exhaustive);
    assert_eq!(
        Index::with_scoring_mode(ScoringMode::Pruned, || {
            Index::with_blocked_scoring(false, || idx.scoring_mode())
        }),
        ScoringMode::Exhaustive
    );
    assert_eq!(idx.scoring_mode(), ScoringMode::Auto);
    // Auto leaves small queries to the exhaustive loop; Pruned always prunes.
    let query = [("read", 1.0)];
    let keep = |_: u32, _: f64| true;
    let opts = SearchOptions::default();
    assert!(idx
        .search_pruned(&query, None, &opts, 8, |_| 0, keep)
        .is_none());
    let pruned = Index::with_scoring_mode(ScoringMode::Pruned, || {
        idx.search_pruned(&query, None, &opts, 8, |_| 0, keep)
    });
    assert!(pruned.is_some_and(|hits| !hits.is_empty()));
}

#[test]
fn auto_prunes_several_large_or_all_dense_lists_never_one() {
    use super::lists::List;
    use super::mode::{max_pruned_lists, worth_pruning};
    use super::{MIN_POSTINGS, MIN_PRUNE_DOCS};
    let mut rng = Rng(11);
    let idx = corpus_in(&mut rng, 3000, WORDS.len(), Some(Profile::Seed));
    let opts = SearchOptions::default();
    let lists = |terms: &[&str]| -> Vec<List> {
        let query: Vec<(&str, f64)> = terms.iter().map(|&t| (t, 1.0)).collect();
        idx.pruning_lists(&query, None, &opts).0
    };
    let postings = |lists: &[List]| lists.iter().map(|l| l.end - l.pos).sum::<usize>();
    // Two common terms: both have bitmaps, so even a small query prunes.
    let dense = lists(&["read", "file"]);
    assert_eq!(dense.len(), 2);
    assert!(dense.iter().all(|l| l.bits != usize::MAX));
    assert!(postings(&dense) < MIN_POSTINGS);
    assert!(worth_pruning(&dense, postings(&dense), MIN_PRUNE_DOCS));
    // One list: never, however large.
    let one = lists(&["read"]);
    assert!(!worth_pruning(&one, postings(&one), MIN_PRUNE_DOCS));
    assert!(!worth_pruning(&one, 10 * MIN_POSTINGS, MIN_PRUNE_DOCS));
    // A rare term among them: only from MIN_POSTINGS.
    let mixed = lists(&["read", "x"]);
    assert_eq!(mixed.len(), 2);
    assert!(mixed.iter().any(|l| l.bits == usize::MAX));
    assert!(!worth_pruning(&mixed, postings(&mixed), MIN_PRUNE_DOCS));
    assert!(worth_pruning(&mixed, MIN_POSTINGS, MIN_PRUNE_DOCS));
    // Too many lists for the index's size: the exhaustive loop.
    let many: Vec<List> = (0..13).map(|_| dense[0].clone()).collect();
    assert!(!worth_pruning(&many, MIN_POSTINGS, MIN_PRUNE_DOCS));
    assert!(worth_pruning(&many, MIN_POSTINGS, 2 * MIN_PRUNE_DOCS));
    assert_eq!(max_pruned_lists(MIN_PRUNE_DOCS), 12);
    assert_eq!(max_pruned_lists(1_000_000), 12 + 3 * 3);
    assert_eq!(max_pruned_lists(10), 12);
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
                .term_score(1.0, idx.idf[t], idx.tfs[i] as f64, idx.norms[d]);
            assert!(score <= idx.idf[t] * b.term_max[t] as f64);
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

#[test]
fn only_a_large_search_running_alone_off_the_pool_is_split() {
    use super::parallel::{PARALLEL_MIN_DOCS, PARALLEL_MIN_POSTINGS};
    let n = PARALLEL_MIN_DOCS + 1000;
    let names: Vec<String> = (0..n).map(|i| format!("tool{i}")).collect();
    let docs: Vec<Vec<(usize, String)>> = (0..n)
        .map(|i| vec![(1, format!("read file data w{}", i % 97))])
        .collect();
    let idx = Index::build_parallel(names, &docs, vec![6.0, 2.0], Params::default()).unwrap();
    assert!(n >= crate::index::bounds::IMPACT_MAX_DOCS && idx.bounds.impacts.is_empty());
    let threads = crate::pool::threads();
    let big = PARALLEL_MIN_POSTINGS;
    let want = if threads > 1 { threads.min(8) } else { 1 };
    assert_eq!(idx.search_parts(big, 0), want);
    assert_eq!(idx.search_parts(big - 1, 0), 1, "too few postings");
    assert_eq!(
        idx.search_parts(big, 1),
        1,
        "another large search is running"
    );
    assert_eq!(
        crate::pool::install(|| idx.search_parts(big, 0)),
        1,
        "on a pool thread"
    );
    // The automatic path (split here when the pool has 2+ threads) ranks as the exhaustive one.
    let opts = SearchOptions::default();
    for q in [["read", "file", "data"], ["w5", "file", "read"]] {
        let auto = idx.search_tokens(&q, 8, &opts).unwrap();
        let exhaustive = Index::with_exhaustive_scoring(|| idx.search_tokens(&q, 8, &opts));
        assert_eq!(auto, exhaustive.unwrap(), "{q:?}");
    }
    let small = corpus(&mut Rng(5), 100, 5);
    assert_eq!(small.search_parts(big, 0), 1, "too few documents");
}
