//! The pruned loop's tests: pruned == exhaustive on seeded random corpora (in one range and
//! split into parallel ranges) and the mode switches; the seeded generators they share with
//! `bounds_tests` (the derived bounds, stored impacts and shared lists).

use std::collections::HashSet;
use std::sync::atomic::Ordering::Relaxed;

use crate::index::bm25::Params;
use crate::index::Index;
use crate::search::{PrefixOptions, SearchOptions};

use super::ScoringMode;
use crate::analysis::Profile;

/// A small seeded generator (PCG-style LCG), so the tests need no extra crate.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self, m: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % m.max(1)
    }
    pub(crate) fn chance(&mut self, percent: usize) -> bool {
        self.next(100) < percent
    }
}

const WORDS: [&str; 24] = [
    "read", "reader", "readme", "write", "file", "files", "issue", "pull", "request", "get",
    "list", "user", "channel", "send", "message", "the", "a", "of", "data", "database", "calendar",
    "event", "zeta", "x",
];

/// A word, skewed towards the first ones so that terms overlap heavily.
pub(super) fn word(rng: &mut Rng, vocab: usize) -> &'static str {
    let a = rng.next(vocab);
    let b = rng.next(vocab);
    WORDS[a.min(b)]
}

pub(crate) fn corpus(rng: &mut Rng, n: usize, vocab: usize) -> Index {
    corpus_in(rng, n, vocab, None)
}

/// [`corpus`] in `profile`, or a random one.
pub(super) fn corpus_in(rng: &mut Rng, n: usize, vocab: usize, profile: Option<Profile>) -> Index {
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
        Profile::Omp
    });
    Index::build_profiled(names, &docs, weights, params, profile).unwrap()
}

pub(crate) fn options(rng: &mut Rng, n: usize) -> SearchOptions {
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

pub(crate) fn query(rng: &mut Rng, vocab: usize) -> Vec<String> {
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
    let idx = corpus_in(&mut rng, 3000, WORDS.len(), Some(Profile::Omp));
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
