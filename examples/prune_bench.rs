//! Times pruned (forced) against exhaustive search on a catalogue dumped as TSV (for profiling):
//! line 1 the field weights; then `name\tfield\ttext\tfield\ttext…` per document.
//!
//!     python benches/dump_synthetic.py 100000 docs.tsv queries.txt
//!     cargo run --release --example prune_bench -- docs.tsv queries.txt [rounds] \
//!         [ex|pr|both|auto] [omp|english]
//!
//! `DELTA=0.5` sets BM25+'s delta as `ToolIndex`'s english profile does (the default is 1).
//! `auto` times the engine's own choice (what a search from Python gets); `check` compares the
//! pruned hits with the exhaustive ones on every query (document ids and score bits); `hash`
//! prints a hash of every query's hits in each mode (to compare builds of the engine).
use std::time::Instant;

use _core::analysis::Profile;
use _core::index::bm25::Params;
use _core::index::Index;
use _core::search::prune::ScoringMode;
use _core::search::SearchOptions;

#[path = "shared/tsv.rs"]
mod tsv;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (names, docs, weights) = tsv::read_catalogue(&args[1]);
    let queries: Vec<String> = std::fs::read_to_string(&args[2])
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let rounds: usize = args.get(3).map_or(5, |r| r.parse().unwrap());
    let mode = args.get(4).map_or("both", |m| m.as_str());
    let profile = Profile::parse(args.get(5).map_or("omp", |p| p.as_str())).unwrap();
    // BM25+'s delta: 1 (the omp profile's), or DELTA=x (ToolIndex's english profile uses 0.5).
    let params = Params {
        delta: std::env::var("DELTA").map_or(1.0, |d| d.parse().unwrap()),
        ..Params::default()
    };
    let idx = Index::build_parallel_profiled(names, &docs, weights, params, profile).unwrap();
    let opts = SearchOptions::default();
    // PARTS=n forces every pruned search into n document ranges (0 or unset: automatic).
    if let Ok(parts) = std::env::var("PARTS") {
        _core::search::prune::set_search_parts(parts.parse().unwrap());
    }
    // The best round's mean: the machine is shared, and the best round is the least disturbed.
    let run = |mode: ScoringMode| {
        let mut best = f64::INFINITY;
        for _ in 0..rounds {
            let t = Instant::now();
            for q in &queries {
                let hits = Index::with_scoring_mode(mode, || idx.search(q, 8, &opts));
                std::hint::black_box(hits.unwrap());
            }
            best = best.min(t.elapsed().as_secs_f64() * 1e6 / queries.len() as f64);
        }
        best
    };
    if mode == "check" {
        for q in &queries {
            let ex = Index::with_scoring_mode(ScoringMode::Exhaustive, || idx.search(q, 8, &opts));
            let pr = Index::with_scoring_mode(ScoringMode::Pruned, || idx.search(q, 8, &opts));
            let bits = |h: Vec<(u32, f64)>| -> Vec<(u32, u64)> {
                h.into_iter().map(|(d, s)| (d, s.to_bits())).collect()
            };
            assert_eq!(bits(ex.unwrap()), bits(pr.unwrap()), "query {q:?}");
        }
        println!("pruned = exhaustive on {} queries", queries.len());
        return;
    }
    if mode == "hash" {
        // A hash of every hit (document id and score bits) of every query, in each scoring
        // mode: equal hashes before and after a change to the index layout mean the same
        // results, bit for bit.
        use std::hash::{Hash, Hasher};
        for mode in [
            ScoringMode::Exhaustive,
            ScoringMode::Pruned,
            ScoringMode::Auto,
        ] {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            for q in &queries {
                for (d, s) in Index::with_scoring_mode(mode, || idx.search(q, 8, &opts)).unwrap() {
                    (d, s.to_bits()).hash(&mut h);
                }
            }
            println!("{mode:?} results hash {:016x}", h.finish());
        }
        return;
    }
    if mode == "auto" {
        println!("automatic  {:.1} us/query", run(ScoringMode::Auto));
        return;
    }
    if mode != "pr" {
        println!("exhaustive {:.1} us/query", run(ScoringMode::Exhaustive));
    }
    if mode != "ex" {
        println!("pruned     {:.1} us/query", run(ScoringMode::Pruned));
    }
}
