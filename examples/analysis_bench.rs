//! Times query analysis per profile (`Profile::query_terms`) on a file of queries, one a line:
//! the part of a search spent before any posting is read.
//!
//!     cargo run --release --example analysis_bench -- queries.txt [rounds]
use std::time::Instant;

use _core::analysis::Profile;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let queries: Vec<String> = std::fs::read_to_string(&args[1])
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let rounds: usize = args.get(2).map_or(50, |r| r.parse().unwrap());
    for profile in [Profile::Omp, Profile::English] {
        // The best round's mean: the machine is shared, and the best round is the least disturbed.
        let mut best = f64::INFINITY;
        let mut terms = 0;
        for _ in 0..rounds {
            let t = Instant::now();
            terms = 0;
            for q in &queries {
                terms += std::hint::black_box(profile.analyse_query(q)).len();
            }
            best = best.min(t.elapsed().as_secs_f64() * 1e6 / queries.len() as f64);
        }
        let per_query = terms as f64 / queries.len() as f64;
        println!("{profile:?}: {best:.2} us/query ({per_query:.1} terms)");
    }
}
