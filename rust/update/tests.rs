//! Live updates equal rebuilds: rankings, scores, and every structure an update carries over.

use crate::analysis::Profile;
use crate::build::tests::{assert_equivalent, corpus, query_language};
use crate::index::bm25::Params;
use crate::index::Index;
use crate::search::SearchOptions;

/// Field 2 has weight 0: its words are presence postings, which updates must carry over.
const W: [f64; 3] = [6.0, 2.0, 0.0];

#[test]
fn update_equals_rebuild() {
    for profile in [Profile::Omp, Profile::English] {
        let (names, docs) = corpus(5000, 31);
        let (add_names, add_docs) = corpus(2500, 32);
        let base = Index::build_parallel_profiled(
            names[..4000].to_vec(),
            &docs[..4000],
            W.to_vec(),
            Params::default(),
            profile,
        )
        .unwrap();
        assert!(!base.presence_docs.is_empty());
        let remove: Vec<u32> = (0..4000).filter(|d| d % 3 == 0 || *d > 3900).collect();
        let up = base.updated(&remove, add_names.clone(), &add_docs).unwrap();
        assert_eq!(up.profile(), profile);
        let mut kept_names: Vec<String> = Vec::new();
        let mut kept_docs = Vec::new();
        for d in 0..4000u32 {
            if !remove.contains(&d) {
                kept_names.push(names[d as usize].clone());
                kept_docs.push(docs[d as usize].clone());
            }
        }
        kept_names.extend(add_names);
        kept_docs.extend(add_docs);
        let rebuilt = Index::build_parallel_profiled(
            kept_names,
            &kept_docs,
            W.to_vec(),
            Params::default(),
            profile,
        )
        .unwrap();
        assert_equivalent(&up, &rebuilt);
        for opts in [SearchOptions::default(), query_language()] {
            for q in [
                "read file",
                "the data",
                "user channel message of",
                "mess chan",
                "reading files",
            ] {
                assert_eq!(up.search(q, 20, &opts), rebuilt.search(q, 20, &opts), "{q}");
            }
        }
    }
}

#[test]
fn presence_only_terms_come_and_go_with_their_documents() {
    let docs = vec![
        vec![(0usize, "send message"), (2, "slack workspace")],
        vec![(0, "send mail")],
    ];
    let base = Index::build(
        vec!["a".into(), "b".into()],
        &docs,
        W.to_vec(),
        Params::default(),
    )
    .unwrap();
    let slack = SearchOptions {
        required: vec!["workspace".into()],
        ..SearchOptions::default()
    };
    assert_eq!(base.search("send", 5, &slack).unwrap().len(), 1);
    // Removing the only document with "workspace" drops the term.
    let gone = base.updated::<&str>(&[0], vec![], &[]).unwrap();
    assert_eq!(gone.search("send", 5, &slack).unwrap(), vec![]);
    assert_eq!(gone.term_ids.get(&gone.terms, "workspace"), None);
    // Adding one brings it back, as a presence posting of the new document.
    let back = gone
        .updated(
            &[],
            vec!["c".into()],
            &[vec![(0, "send"), (2, "workspace")]],
        )
        .unwrap();
    let hits = back.search("send", 5, &slack).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(back.name(hits[0].0 as usize), Some("c"));
    // A prefix expands to a term that only an added document scores.
    let prefix = SearchOptions {
        prefix: crate::search::PrefixOptions {
            fraction: 0.5,
            ..Default::default()
        },
        ..SearchOptions::default()
    };
    let grown = base
        .updated(&[], vec!["d".into()], &[vec![(0, "messenger")]])
        .unwrap();
    assert_eq!(grown.search("mess", 5, &prefix).unwrap().len(), 2);
}

#[test]
fn sorted_terms_after_updates_are_a_fresh_sort() {
    // Field 2 (weight 0) holds "omega" only as presence postings until a scored field of an
    // added document has it; added terms sort first ("aardvark") and last ("zzz"); removals
    // drop terms ("only").
    let docs = vec![
        vec![(0usize, "read file"), (2, "omega")],
        vec![(0, "write file only")],
        vec![(0, "list files")],
    ];
    let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    let base = Index::build(names, &docs, W.to_vec(), Params::default()).unwrap();
    type Documents<'a> = Vec<Vec<(usize, &'a str)>>;
    let steps: Vec<(Vec<u32>, Documents)> = vec![
        (vec![1], vec![vec![(0, "zzz aardvark omega")]]),
        (vec![0], vec![vec![(1, "zzzz zz mid")], vec![(2, "yak")]]),
        (vec![], vec![vec![(0, "0day"), (1, "\u{e9}t\u{e9}")]]),
        (vec![0, 1], vec![]),
    ];
    let mut index = base;
    for (remove, add) in steps {
        let add_names = (0..add.len()).map(|i| format!("n{i}")).collect();
        index = index.updated(&remove, add_names, &add).unwrap();
        let fresh = crate::build::sort_terms(&index.terms, &index.offsets);
        assert_eq!(index.sorted_terms, fresh);
    }
}

#[test]
fn removing_everything_and_bad_ids() {
    let (names, docs) = corpus(50, 33);
    let base = Index::build_parallel(names, &docs, W.to_vec(), Params::default()).unwrap();
    let all: Vec<u32> = (0..50).collect();
    let empty = base.updated::<&str>(&all, vec![], &[]).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.vocabulary_size(), 0);
    assert!(empty.terms.is_empty() && empty.presence_docs.is_empty());
    assert!(base.updated::<&str>(&[50], vec![], &[]).is_err());
    assert!(base
        .updated(&[], vec!["x".into()], &[vec![(9usize, "text")]])
        .is_err());
}

/// Everything an update carries over or rewrites in place equals a rebuild's, term by term:
/// the twin lists each term shares, the term-frequency table, the term table (as a map) and
/// the pruning bounds (term maxima, dense bitmaps, stored impacts).
fn assert_carried(up: &Index, rebuilt: &Index) {
    use crate::index::{TermIds, Tfs, OWN_POSTINGS};
    use std::collections::BTreeMap;
    assert_equivalent(up, rebuilt);
    let name = |i: &Index, t: usize| i.terms[t].to_string();
    let shared = |i: &Index| -> BTreeMap<String, String> {
        (0..i.terms.len())
            .filter_map(|t| match i.shared.get(t) {
                Some(&s) if s != OWN_POSTINGS => Some((name(i, t), name(i, s as usize))),
                _ => None,
            })
            .collect()
    };
    assert_eq!(shared(up), shared(rebuilt));
    assert_eq!(up.shared.is_empty(), rebuilt.shared.is_empty());
    match (&up.tfs, &rebuilt.tfs) {
        (
            Tfs::Coded {
                table, distinct, ..
            },
            Tfs::Coded {
                table: t2,
                distinct: d2,
                ..
            },
        ) => assert_eq!((table, distinct), (t2, d2)),
        (Tfs::Raw(_), Tfs::Raw(_)) => {}
        (a, b) => panic!("{a:?} against {b:?}"),
    }
    type Bound = (u32, Option<Vec<u64>>, Vec<u64>);
    let bounds = |i: &Index| -> BTreeMap<String, Bound> {
        let b = &i.bounds;
        let words = i.len().div_ceil(64);
        (0..i.terms.len())
            .map(|t| {
                let bitmap = b.bitmap(t as u32).map(|w| b.bitmaps[w..w + words].to_vec());
                let (s, e) = (i.offsets[t] as usize, i.offsets[t + 1] as usize);
                let impacts = b.impacts.get(s..e).unwrap_or(&[]);
                let impacts = impacts.iter().map(|x| x.to_bits()).collect();
                (name(i, t), (b.term_max[t].to_bits(), bitmap, impacts))
            })
            .collect()
    };
    assert_eq!(bounds(up), bounds(rebuilt));
    assert_eq!(up.bounds.dense.len(), rebuilt.bounds.dense.len());
    assert_eq!(up.bounds.impacts.len(), rebuilt.bounds.impacts.len());
    let fresh = TermIds::of(&up.terms);
    assert_eq!(up.term_ids.len(), fresh.len());
    for (id, term) in fresh.iter(&up.terms) {
        assert_eq!(up.term_ids.get(&up.terms, term), Some(id), "{term}");
    }
}

type Docs = Vec<Vec<(usize, String)>>;

/// `n` documents named `{prefix}{i}`, each holding `text` in field 0 and a word of the corpus.
fn docs_of(prefix: &str, n: usize, text: &str) -> (Vec<String>, Docs) {
    let names = (0..n).map(|i| format!("{prefix}{i}")).collect();
    let words = ["read", "file", "send", "message", "the"];
    let docs = (0..n)
        .map(|i| vec![(0, format!("{text} {}", words[i % words.len()]))])
        .collect();
    (names, docs)
}

/// Updates of an index that shares its twin lists (the layout of large catalogues, forced on
/// a small corpus): each step's update equals a rebuild over the same documents, structure by
/// structure, and searches the same. The steps remove a server's tools and add them again
/// (with other lengths, then the same lengths: the norms stay and the bounds carry over),
/// add new words (and their stemmed copies), make a copy stop and start sharing its word's
/// list ("reading" stems to "read"), and remove every document of a shared word.
#[test]
fn updates_of_shared_lists_equal_rebuilds() {
    use crate::build::share::sharing_from;
    for profile in [Profile::English, Profile::Omp] {
        sharing_from(1, || {
            let (mut names, mut docs) = corpus(3000, 41);
            // (the sequential build: the parallel one shares on a pool thread, past the
            // test's lowered size)
            let build = |names: &[String], docs: &Docs| {
                Index::build_profiled(names.to_vec(), docs, W.to_vec(), Params::default(), profile)
                    .unwrap()
            };
            let mut index = build(&names, &docs);
            if profile == Profile::English {
                assert!(!index.shared.is_empty());
            }
            let (kiwi_names, kiwi) = docs_of("kiwi", 7, "kiwi zebra");
            let (reading_names, reading) = docs_of("reading", 3, "reading");
            let (server_names, server) = corpus(20, 42);
            let n = names.len() as u32;
            let steps: Vec<(Vec<u32>, Vec<String>, Docs)> = vec![
                // a server's last 20 tools reconnect, then again unchanged (the same lengths:
                // the average length and every norm stay, so bounds carry over)
                ((n - 20..n).collect(), server_names.clone(), server.clone()),
                ((n - 20..n).collect(), server_names.clone(), server.clone()),
                // new words, and a copy ("§read") that stops sharing its word's list
                (vec![], kiwi_names, kiwi),
                (vec![5, 17, 2000], reading_names, reading),
                // the "reading" documents go: "§read" shares again
                ((n + 7..n + 10).map(|d| d - 3).collect(), vec![], vec![]),
                // every "kiwi" document goes: the word and its copy are dropped
                ((n - 3..n + 4).collect(), vec![], vec![]),
                // a third of the documents go, a server joins
                (
                    (0..n - 40).filter(|d| d % 3 == 0).collect(),
                    server_names,
                    server,
                ),
            ];
            for (step, (remove, add_names, add)) in steps.into_iter().enumerate() {
                index = index.updated(&remove, add_names.clone(), &add).unwrap();
                let mut kept: Vec<(String, Vec<(usize, String)>)> = names
                    .into_iter()
                    .zip(docs)
                    .enumerate()
                    .filter(|(d, _)| !remove.contains(&(*d as u32)))
                    .map(|(_, nd)| nd)
                    .collect();
                kept.extend(add_names.into_iter().zip(add));
                (names, docs) = kept.into_iter().unzip();
                let rebuilt = build(&names, &docs);
                assert_carried(&index, &rebuilt);
                for q in ["read file", "reading", "kiwi zebras", "the data", "mess"] {
                    for opts in [SearchOptions::default(), query_language()] {
                        let got = index.search(q, 20, &opts);
                        assert_eq!(got, rebuilt.search(q, 20, &opts), "step {step}: {q}");
                    }
                }
            }
        });
    }
}

/// Below the size from which lists are shared, an update's carried structures equal a
/// rebuild's too (the postings written in full, then shared and coded as a build does).
#[test]
fn updates_of_small_indexes_carry_the_same_structures() {
    let (names, docs) = corpus(600, 43);
    let base = Index::build_parallel_profiled(
        names.clone(),
        &docs,
        W.to_vec(),
        Params::default(),
        Profile::English,
    )
    .unwrap();
    let (add_names, add) = docs_of("added", 5, "zebra reading");
    let remove: Vec<u32> = (0..600).filter(|d| d % 5 == 1).collect();
    let up = base.updated(&remove, add_names.clone(), &add).unwrap();
    let (mut kept_names, mut kept): (Vec<String>, Docs) = names
        .into_iter()
        .zip(docs)
        .enumerate()
        .filter(|(d, _)| !remove.contains(&(*d as u32)))
        .map(|(_, nd)| nd)
        .unzip();
    kept_names.extend(add_names);
    kept.extend(add);
    let rebuilt = Index::build_parallel_profiled(
        kept_names,
        &kept,
        W.to_vec(),
        Params::default(),
        Profile::English,
    )
    .unwrap();
    assert_carried(&up, &rebuilt);
}
