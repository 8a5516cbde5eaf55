//! The snapshot format's round trips, and its refusals of bad, truncated and hostile bytes.

use super::*;
use crate::build::tests::{assert_equivalent, corpus, query_language};
use crate::search::SearchOptions;

/// Field 2 has weight 0, so the sample has presence postings and presence-only terms.
fn sample() -> Index {
    let (mut names, mut docs) = corpus(3000, 21);
    names.push("only_here".into());
    docs.push(vec![(0, "read".into()), (2, "zebra workspace".into())]);
    Index::build_parallel(names, &docs, vec![6.0, 2.0, 0.0], Params::default()).unwrap()
}

#[test]
fn round_trip_is_exact() {
    let idx = sample();
    assert!(!idx.presence_docs.is_empty());
    let bytes = idx.to_bytes(b"meta");
    let (back, meta) = Index::from_bytes(&bytes).unwrap();
    assert_eq!(meta, b"meta");
    assert_equivalent(&idx, &back);
    assert_eq!(back.to_bytes(b"meta"), bytes);
    for opts in [SearchOptions::default(), query_language()] {
        for q in ["read file", "the data of user", "mess chan"] {
            assert_eq!(idx.search(q, 10, &opts), back.search(q, 10, &opts), "{q}");
        }
    }
    // A term found only in a weight-0 field still filters after a round trip.
    let zebra = SearchOptions {
        required: vec!["zebra".into()],
        ..SearchOptions::default()
    };
    let hits = back.search("read", 10, &zebra).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(&back.names[hits[0].0 as usize], "only_here");
    assert_eq!(idx.search("read", 10, &zebra).unwrap(), hits);
    let empty = Index::build_parallel::<&str>(vec![], &[], vec![], Params::default()).unwrap();
    let (e, _) = Index::from_bytes(&empty.to_bytes(b"")).unwrap();
    assert!(e.is_empty());
}

#[test]
fn english_profile_round_trips_and_unknown_profiles_are_refused() {
    let (names, docs) = corpus(500, 22);
    let idx = Index::build_parallel_profiled(
        names,
        &docs,
        vec![6.0, 2.0, 0.0],
        Params::default(),
        Profile::English,
    )
    .unwrap();
    let bytes = idx.to_bytes(b"");
    let (back, _) = Index::from_bytes(&bytes).unwrap();
    assert_eq!(back.profile(), Profile::English);
    assert_equivalent(&idx, &back);
    for q in ["reading files", "the messages"] {
        let opts = SearchOptions::default();
        assert_eq!(idx.search(q, 10, &opts), back.search(q, 10, &opts), "{q}");
    }
    // Profile id 9, with a valid checksum: a clear error, not a corrupt-file one.
    let mut bad = bytes.clone();
    bad[HEADER_LEN + 24..HEADER_LEN + 28].copy_from_slice(&9u32.to_le_bytes());
    let crc = crc32fast::hash(&bad[HEADER_LEN..]);
    bad[24..28].copy_from_slice(&crc.to_le_bytes());
    match Index::from_bytes(&bad) {
        Err(Error::Snapshot(msg)) => assert!(msg.contains("analysis profile 9"), "{msg}"),
        other => panic!("expected a snapshot error, got {other:?}"),
    }
    // A version-2 file (before profiles) is refused with a message to rebuild.
    let mut old = bytes;
    old[8] = 2;
    match Index::from_bytes(&old) {
        Err(Error::Snapshot(msg)) => assert!(msg.contains("analysis profile"), "{msg}"),
        other => panic!("expected a snapshot error, got {other:?}"),
    }
}

#[test]
fn bad_files_are_snapshot_errors() {
    let bytes = sample().to_bytes(b"");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"PK\x03\x04 not an index".to_vec(), "wrong magic"),
        (bytes[..20].to_vec(), "truncated"),
        (bytes[..bytes.len() - 1].to_vec(), "truncated"),
        ([bytes.clone(), vec![0]].concat(), "unexpected bytes"),
        (
            {
                let mut b = bytes.clone();
                b[8] = (FORMAT_VERSION + 1) as u8;
                b
            },
            "newer",
        ),
        (
            {
                let mut b = bytes.clone();
                b[8] = 1;
                b
            },
            "older",
        ),
        (
            {
                let mut b = bytes.clone();
                let last = b.len() - 20;
                b[last] ^= 0x40;
                b
            },
            "checksum",
        ),
    ];
    for (data, want) in cases {
        match Index::from_bytes(&data) {
            Err(Error::Snapshot(msg)) => assert!(msg.contains(want), "{msg}"),
            other => panic!("expected a snapshot error about {want}, got {other:?}"),
        }
    }
}

/// Corrupt the payload and fix the checksum, so that the structural checks must catch it.
#[test]
fn structural_corruption_with_a_valid_checksum_never_panics() {
    let bytes = sample().to_bytes(b"xyz");
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..3000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut b = bytes.clone();
        let at = HEADER_LEN + (state as usize) % (b.len() - HEADER_LEN);
        b[at] ^= 1 << ((state >> 40) % 8);
        if state % 5 == 0 {
            b[at] = 0xff;
        }
        let crc = crc32fast::hash(&b[HEADER_LEN..]);
        b[24..28].copy_from_slice(&crc.to_le_bytes());
        if let Ok((idx, _)) = Index::from_bytes(&b) {
            let _ = idx.search("read file the", 5, &SearchOptions::default());
        }
    }
}

/// The file stores term frequencies as `f32`s whatever the in-memory column (`index::Tfs`):
/// a coded column (few distinct values) and a raw one (more than 256) both round-trip to the
/// same index, as does an index without presence postings (no presence offsets in memory).
#[test]
fn coded_and_raw_term_frequencies_round_trip() {
    let (names, docs) = corpus(2000, 23);
    let coded = Index::build_parallel(names.clone(), &docs, vec![6.0, 2.0, 1.0], Params::default())
        .unwrap();
    assert!(matches!(coded.tfs, crate::index::Tfs::Coded { .. }));
    assert!(coded.presence_docs.is_empty() && coded.presence_offsets.is_empty());
    // 40 fields of distinct weights: sums of them give thousands of distinct frequencies.
    let weights: Vec<f64> = (0..40).map(|f| 1.0 + f as f64 * 0.013).collect();
    let spread: Vec<Vec<(usize, String)>> = docs
        .iter()
        .enumerate()
        .map(|(d, fields)| {
            let text = fields.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>();
            (0..1 + d % 5)
                .map(|k| ((d * d * 31 + k * 17 + d / 7) % 40, text.join(" ")))
                .collect()
        })
        .collect();
    let raw = Index::build_parallel(names, &spread, weights, Params::default()).unwrap();
    assert!(matches!(raw.tfs, crate::index::Tfs::Raw(_)));
    for idx in [coded, raw] {
        let bytes = idx.to_bytes(b"");
        let (back, _) = Index::from_bytes(&bytes).unwrap();
        assert_equivalent(&idx, &back);
        // (term ids, so posting order, differ: the file's terms are sorted)
        let kind = std::mem::discriminant;
        assert_eq!(kind(&back.tfs), kind(&idx.tfs));
        assert_eq!(back.to_bytes(b""), bytes);
        let opts = SearchOptions::default();
        for q in ["read file", "the data of user", "send message"] {
            let hits = idx.search(q, 10, &opts).unwrap();
            assert!(!hits.is_empty(), "{q}");
            assert_eq!(back.search(q, 10, &opts).unwrap(), hits, "{q}");
        }
    }
}
