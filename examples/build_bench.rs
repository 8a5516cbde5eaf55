//! Times the parallel index build on a catalogue dumped as TSV (for profiling and A/B runs):
//! line 1 the field weights; then `name\tfield\ttext\tfield\ttext…` per document.
//!
//!     python benches/dump_synthetic.py 100000 docs.tsv queries.txt
//!     cargo run --release --example build_bench -- docs.tsv [omp|english] [rounds]
//!
//! Prints the median and best build time (wall clock, and the CPU time of every thread of the
//! process, which a machine shared with other jobs moves less), and a fingerprint of the built
//! index (every term id, posting, tf, length and norm) that must not change when the build is
//! made faster.
use std::time::Instant;

use _core::analysis::Profile;
use _core::index::bm25::Params;
use _core::index::Index;

#[path = "shared/tsv.rs"]
mod tsv;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (names, docs, weights) = tsv::read_catalogue(&args[1]);
    let profile = Profile::parse(args.get(2).map_or("omp", |p| p.as_str())).expect("a profile");
    let rounds: usize = args
        .get(3)
        .map_or(5, |r| r.parse().expect("a number of rounds"));
    let mut times = Vec::new();
    let mut cpu_times = Vec::new();
    let mut fingerprint = 0;
    for _ in 0..rounds.max(1) {
        let t = Instant::now();
        let cpu = process_cpu_ms();
        let idx = Index::build_parallel_profiled(
            names.clone(),
            &docs,
            weights.clone(),
            Params::default(),
            profile,
        )
        .expect("a valid catalogue");
        times.push(t.elapsed().as_secs_f64() * 1e3);
        cpu_times.push(process_cpu_ms() - cpu);
        fingerprint = idx.fingerprint();
    }
    times.sort_by(f64::total_cmp);
    cpu_times.sort_by(f64::total_cmp);
    println!(
        "{} docs, {}: median {:.1} ms, best {:.1} ms; CPU median {:.1} ms, best {:.1} ms; \
         fingerprint {fingerprint:016x}",
        docs.len(),
        profile.name(),
        times[times.len() / 2],
        times[0],
        cpu_times[cpu_times.len() / 2],
        cpu_times[0],
    );
}

/// The CPU time of every thread of this process so far, in ms (0 where it cannot be read).
fn process_cpu_ms() -> f64 {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec.
        if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } == 0 {
            return ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6;
        }
    }
    0.0
}
