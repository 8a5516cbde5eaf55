//! Times a live update (`Index::updated`) of a large index: a server of `tools` tools
//! reconnecting (its tools removed, as many new ones added), for profiling and A/B runs.
//!
//!     python benches/dump_synthetic.py 100000 /tmp/en100000.tsv /tmp/synq.txt english
//!     cargo run --release --example update_bench -- /tmp/en100000.tsv english [rounds] [tools] [same]
//!
//! With `same`, the server's tools are the same documents at every reconnect (their names
//! change), as a server that reconnects with its tools unchanged: the average length stays.
//! The updates run on a one-thread pool, as a 2-core machine's update pool does. Prints the
//! median and best wall and CPU time of an update, and the fingerprint of the last updated
//! index (term ids included: it must not change when the update is made faster).
use std::time::Instant;

use _core::analysis::Profile;
use _core::index::bm25::Params;
use _core::index::Index;

#[path = "shared/tsv.rs"]
mod tsv;

/// This process's CPU time, in ms.
fn cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (names, docs, weights) = tsv::read_catalogue(&args[1]);
    let profile = Profile::parse(args.get(2).map_or("english", |p| p.as_str())).expect("a profile");
    let rounds: usize = args.get(3).map_or(20, |r| r.parse().expect("rounds"));
    let tools: usize = args.get(4).map_or(20, |r| r.parse().expect("tools"));
    let same = args.get(5).is_some_and(|s| s == "same");
    let n = docs.len();
    // The reconnecting server's tools: the catalogue's last `tools` at first, then each round's
    // additions (appended last by an update); round r adds documents r·tools.. of the catalogue
    // under new names.
    let mut index =
        Index::build_parallel_profiled(names.clone(), &docs, weights, Params::default(), profile)
            .expect("a valid catalogue");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool");
    let (mut walls, mut cpus) = (Vec::new(), Vec::new());
    for r in 0..rounds.max(1) {
        let remove: Vec<u32> = ((index.len() - tools) as u32..index.len() as u32).collect();
        let add: Vec<(String, Vec<(usize, String)>)> = (0..tools)
            .map(|i| {
                let src = if same { i } else { (r * tools + i) % n };
                (format!("srv{r}_{}", names[src]), docs[src].clone())
            })
            .collect();
        let (add_names, add_docs): (Vec<String>, Vec<Vec<(usize, String)>>) =
            add.into_iter().unzip();
        let (w0, c0) = (Instant::now(), cpu_ms());
        let next = pool
            .install(|| index.updated(&remove, add_names, &add_docs))
            .expect("an update");
        let (wall, cpu) = (w0.elapsed().as_secs_f64() * 1e3, cpu_ms() - c0);
        // (the old index is dropped outside the timing, as the update pool does it apart)
        let _old = std::mem::replace(&mut index, next);
        walls.push(wall);
        cpus.push(cpu);
    }
    walls.sort_by(f64::total_cmp);
    cpus.sort_by(f64::total_cmp);
    println!(
        "{n} docs, {}, {tools}-tool reconnect{}: wall median {:.2} ms (best {:.2}), CPU median \
         {:.2} ms (best {:.2}); fingerprint {:016x}",
        profile.name(),
        if same { " (same tools)" } else { "" },
        walls[walls.len() / 2],
        walls[0],
        cpus[cpus.len() / 2],
        cpus[0],
        index.fingerprint(),
    );
}
