//! Fixtures shared by the crate's tests (corpora, index comparisons), and the parallel build's
//! equivalence with the sequential one.

use super::*;
use crate::search::SearchOptions;
use std::collections::HashMap;

const W: [f64; 3] = [6.0, 2.0, 0.0];

/// A deterministic pseudo-random corpus big enough to span several chunks.
pub(crate) fn corpus(n: usize, seed: u64) -> (Vec<String>, Vec<Vec<(usize, String)>>) {
    let words = [
        "read", "write", "file", "issue", "pull", "request", "get", "list", "user", "channel",
        "send", "message", "calendar", "event", "the", "a", "of", "data",
    ];
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    let mut next = move |m: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % m
    };
    let mut names = Vec::new();
    let mut docs = Vec::new();
    for i in 0..n {
        names.push(format!("tool_{}", next(n.max(1) * 2)));
        let mut fields = Vec::new();
        for _ in 0..1 + next(3) {
            let text: Vec<&str> = (0..1 + next(8)).map(|_| words[next(words.len())]).collect();
            fields.push((next(3), text.join(" ")));
        }
        if i % 97 == 0 {
            fields.clear();
        }
        docs.push(fields);
    }
    (names, docs)
}

/// Options that read the query-language fields: a required term found in weight-0 fields
/// (presence postings), prefix expansion (sorted terms) and the coverage rule.
pub(crate) fn query_language() -> SearchOptions {
    SearchOptions {
        required: vec!["data".into()],
        prefix: crate::search::PrefixOptions {
            fraction: 0.5,
            ..Default::default()
        },
        coverage: true,
        ..SearchOptions::default()
    }
}

pub(crate) fn assert_same(a: &Index, b: &Index) {
    assert_eq!(a.names, b.names);
    assert_eq!(a.terms, b.terms);
    assert_eq!(a.offsets, b.offsets);
    assert_eq!(a.docs, b.docs);
    assert_eq!(a.tfs, b.tfs);
    assert_eq!(a.presence_offsets, b.presence_offsets);
    assert_eq!(a.presence_docs, b.presence_docs);
    assert_eq!(a.sorted_terms, b.sorted_terms);
    assert_eq!(a.lengths, b.lengths);
    let idf = |x: &Index| {
        (0..x.terms.len() as u32)
            .map(|t| x.idf(t))
            .collect::<Vec<_>>()
    };
    assert_eq!(idf(a), idf(b));
    assert_eq!(a.norms, b.norms);
    assert_eq!(a.avg_len, b.avg_len);
    assert_eq!(a.term_ids.len(), b.term_ids.len());
}

/// Term string -> (scored postings with tfs, presence postings, idf).
type ByTerm = HashMap<String, (Vec<(u32, f32)>, Vec<u32>, u64)>;

/// The index's postings keyed by term string, so that indexes whose term ids differ (a
/// snapshot stores its terms sorted; an update appends new terms) can be compared.
pub(crate) fn by_term(idx: &Index) -> ByTerm {
    (0..idx.terms.len())
        .map(|t| {
            let (s, e) = (idx.offsets[t] as usize, idx.offsets[t + 1] as usize);
            let scored = idx.docs[s..e]
                .iter()
                .copied()
                .zip(idx.tfs.slice(s, e).iter().map(|tf| tf as f32))
                .collect();
            let presence = idx.presence(t as u32).to_vec();
            (
                idx.terms[t].to_string(),
                (scored, presence, idx.idf(t as u32).to_bits()),
            )
        })
        .collect()
}

/// Everything a search reads is the same, up to term ids.
pub(crate) fn assert_equivalent(a: &Index, b: &Index) {
    assert_eq!(a.names, b.names);
    assert_eq!(a.lengths, b.lengths);
    assert_eq!(a.norms, b.norms);
    assert_eq!(a.avg_len.to_bits(), b.avg_len.to_bits());
    assert_eq!(a.field_weights, b.field_weights);
    assert_eq!(by_term(a), by_term(b));
    let sorted = |i: &Index| -> Vec<String> {
        i.sorted_terms
            .iter()
            .map(|&t| i.terms[t as usize].to_string())
            .collect()
    };
    assert_eq!(sorted(a), sorted(b));
    assert_eq!(a.term_ids.len(), b.term_ids.len());
    for (id, term) in b.term_ids.iter(&b.terms) {
        assert_eq!(&b.terms[id as usize], term);
        assert_eq!(
            a.term_ids.get(&a.terms, term).map(|t| &a.terms[t as usize]),
            Some(term)
        );
    }
}

#[test]
fn parallel_build_equals_sequential_build() {
    for (n, seed) in [(0, 1), (1, 2), (5000, 3), (CHUNK_DOCS * 3 + 7, 4)] {
        let (names, docs) = corpus(n, seed);
        let seq = Index::build(names.clone(), &docs, W.to_vec(), Params::default()).unwrap();
        let par = Index::build_parallel(names, &docs, W.to_vec(), Params::default()).unwrap();
        assert_same(&seq, &par);
        for opts in [SearchOptions::default(), query_language()] {
            for q in [
                "read file",
                "the data",
                "send a message to the user channel",
                "mess chan calen",
            ] {
                assert_eq!(seq.search(q, 10, &opts), par.search(q, 10, &opts));
            }
        }
    }
}

#[test]
fn english_profile_parallel_build_equals_sequential_build() {
    for (n, seed) in [(0, 1), (7, 2), (CHUNK_DOCS * 2 + 5, 6)] {
        let (names, mut docs) = corpus(n, seed);
        if let Some(first) = docs.first_mut() {
            first.push((1, "获取天气 날씨정보 東京タワー readings".into()));
        }
        let p = Profile::English;
        let seq =
            Index::build_profiled(names.clone(), &docs, W.to_vec(), Params::default(), p).unwrap();
        let par =
            Index::build_parallel_profiled(names, &docs, W.to_vec(), Params::default(), p).unwrap();
        assert_same(&seq, &par);
        assert_eq!(par.profile(), p);
        for opts in [SearchOptions::default(), query_language()] {
            for q in ["reading files", "the data", "天气", "mess chan calen"] {
                assert_eq!(seq.search(q, 10, &opts), par.search(q, 10, &opts));
            }
        }
    }
}

#[test]
fn english_profile_indexes_half_weight_stemmed_copies() {
    let docs = vec![
        vec![(0usize, "read files")],
        vec![(0, "reading")],
        vec![(0, "获取天气")],
    ];
    let names = vec!["a".to_string(), "b".into(), "c".into()];
    let idx = Index::build_profiled(names, &docs, vec![2.0], Params::default(), Profile::English)
        .unwrap();
    // Two terms and their copies at half weight: 2 + 1 + 2 + 1.
    assert_eq!(idx.lengths[0], 6.0);
    assert_eq!(by_term(&idx)["§read"].0, [(0, 1.0), (1, 1.0)]);
    // "reading" finds both documents (through the stem), the exact form first.
    let hits = idx.search("reading", 5, &SearchOptions::default()).unwrap();
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [1, 0]);
    // A stop word is dropped; a CJK query is bigrammed; a required CJK term is too.
    let hits = idx
        .search("the 天气", 5, &SearchOptions::default())
        .unwrap();
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [2]);
    let opts = SearchOptions {
        required: vec!["获取天气".into()],
        ..SearchOptions::default()
    };
    assert_eq!(idx.search("天气", 5, &opts).unwrap().len(), 1);
    // Stemmed copies never expand as prefixes.
    let prefix = SearchOptions {
        prefix: crate::search::PrefixOptions {
            fraction: 0.5,
            ..Default::default()
        },
        ..SearchOptions::default()
    };
    assert_eq!(idx.expansions("§rea", &prefix.prefix).count(), 0);
    assert_eq!(idx.expansions("rea", &prefix.prefix).count(), 2);
}

#[test]
fn parallel_build_reports_the_bad_document() {
    let (names, mut docs) = corpus(CHUNK_DOCS + 10, 5);
    docs[CHUNK_DOCS + 3] = vec![(7, "x".to_string())];
    let err = Index::build_parallel(names, &docs, W.to_vec(), Params::default()).unwrap_err();
    assert!(err
        .to_string()
        .contains(&format!("document {}", CHUNK_DOCS + 3)));
    let err = Index::build_parallel(vec![], &docs, W.to_vec(), Params::default()).unwrap_err();
    assert!(matches!(err, Error::InvalidDocument(_)));
    let bad = Index::build_parallel(vec![], &docs[..0], vec![f64::NAN], Params::default());
    assert!(matches!(bad, Err(Error::Unchecked(WEIGHT_OUT_OF_RANGE))));
}

#[test]
fn repeated_texts_build_what_fresh_texts_build() {
    // Long texts recur in weight-0 and scored fields, in both orders, within and across
    // documents: replayed texts (build/memo.rs) must give the sequential build's index.
    let long = "Reads the files of a directory, recursively";
    let other = "Sends a message to the channel's users";
    let docs: Vec<Vec<(usize, String)>> = (0..CHUNK_DOCS + 300)
        .map(|i| {
            let mut fields = vec![(2, long.to_string()), (0, format!("tool_{i} {other}"))];
            if i % 3 == 0 {
                fields.push((1, long.to_string()));
                fields.push((1, long.to_string()));
            }
            if i % 5 == 0 {
                fields.push((2, other.to_string()));
                fields.push((0, other.to_string()));
            }
            fields
        })
        .collect();
    let names: Vec<String> = (0..docs.len()).map(|i| format!("t{i}")).collect();
    for p in [Profile::Omp, Profile::English] {
        let seq =
            Index::build_profiled(names.clone(), &docs, W.to_vec(), Params::default(), p).unwrap();
        let par =
            Index::build_parallel_profiled(names.clone(), &docs, W.to_vec(), Params::default(), p)
                .unwrap();
        assert_same(&seq, &par);
    }
}
