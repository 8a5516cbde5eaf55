//! Where an index's memory goes: `Index::memory_bytes` by component, with the posting counts,
//! for a catalogue dumped as TSV (see `examples/build_bench.rs`).
//!
//!     python benches/dump_synthetic.py 100000 en.tsv q.txt english
//!     cargo run --release --example memory_report -- en.tsv english
use _core::analysis::Profile;
use _core::index::bm25::Params;
use _core::index::Index;

#[path = "shared/tsv.rs"]
mod tsv;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (names, docs, weights) = tsv::read_catalogue(&args[1]);
    let profile = Profile::parse(args.get(2).map_or("omp", |p| p.as_str())).expect("a profile");
    let idx = Index::build_parallel_profiled(names, &docs, weights, Params::default(), profile)
        .expect("a valid catalogue");
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    let total = idx.memory_bytes();
    println!(
        "{} docs, {}: {:.2} MiB ({:.1} bytes a document), fingerprint {:016x}",
        idx.len(),
        profile.name(),
        mib(total),
        total as f64 / idx.len().max(1) as f64,
        idx.fingerprint(),
    );
    for (part, bytes) in idx.memory_parts() {
        println!(
            "  {part:18} {:8.2} MiB {:5.1} %",
            mib(bytes),
            100.0 * bytes as f64 / total.max(1) as f64
        );
    }
}
