//! The thread pool of this process, safe across `fork`.
//!
//! rayon's global pool is created once and its threads do not survive a `fork`: in the child
//! (a gateway's pre-forked worker, `multiprocessing` with the fork start method) the pool still
//! looks alive, and the first job handed to it waits forever. Every parallel entry point of the
//! bindings (and the parallel ranges of one search) therefore runs in [`pool`], which is created
//! on first use in each process: a child whose process id differs from its pool's gets a new
//! pool. The parent's pool is never dropped (dropping would wait for threads the child does not
//! have), so a reference to any pool stays valid for the life of the process.

use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use rayon::{ThreadPool, ThreadPoolBuilder};

/// A pool and the process that created it.
struct ProcessPool {
    pid: u32,
    pool: ThreadPool,
}

/// The current process's pool (null until first use). Entries are leaked, never freed.
static POOL: AtomicPtr<ProcessPool> = AtomicPtr::new(ptr::null_mut());

/// This process's thread pool (`RAYON_NUM_THREADS` threads, else one per core), created on
/// first use, and again in a forked child.
///
/// # Panics
/// If the operating system refuses to start the pool's threads.
pub fn pool() -> &'static ThreadPool {
    let pid = std::process::id();
    loop {
        let current = POOL.load(Ordering::Acquire);
        // SAFETY: a non-null POOL points to a leaked `ProcessPool`, never freed.
        if let Some(entry) = unsafe { current.as_ref() } {
            if entry.pid == pid {
                return &entry.pool;
            }
        }
        let pool = ThreadPoolBuilder::new()
            .thread_name(|i| format!("toolsift-{i}"))
            .build()
            .expect("toolsift: cannot start the thread pool's threads");
        let fresh = Box::into_raw(Box::new(ProcessPool { pid, pool }));
        match POOL.compare_exchange(current, fresh, Ordering::AcqRel, Ordering::Acquire) {
            // The old entry (null, or the parent's pool) is leaked on purpose (module docs).
            // SAFETY: `fresh` was just published and is never freed.
            Ok(_) => return unsafe { &(*fresh).pool },
            Err(_) => {
                // Another thread installed a pool first; ours never ran a job: drop it.
                // SAFETY: `fresh` came from `Box::into_raw` above and was never published.
                drop(unsafe { Box::from_raw(fresh) });
            }
        }
    }
}

/// Runs `f` in this process's pool (see [`pool`]): every rayon call inside it uses that pool.
pub fn install<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    pool().install(f)
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    #[test]
    fn jobs_run_in_the_process_pool() {
        let sum: u64 = super::install(|| (0..1000u64).into_par_iter().sum());
        assert_eq!(sum, 499_500);
        assert!(std::ptr::eq(super::pool(), super::pool()));
        let name = super::install(|| std::thread::current().name().map(str::to_owned));
        assert!(name.is_some_and(|n| n.starts_with("toolsift-")));
    }
}
