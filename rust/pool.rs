//! The thread pools of this process, safe across `fork`.
//!
//! rayon's global pool is created once and its threads do not survive a `fork`: in the child
//! (a gateway's pre-forked worker, `multiprocessing` with the fork start method) the pool still
//! looks alive, and the first job handed to it waits forever. Every parallel entry point of the
//! bindings (and the parallel ranges of one search) therefore runs in [`pool`], which is created
//! on first use in each process: a child whose process id differs from its pool's gets a new
//! pool. The parent's pool is never dropped (dropping would wait for threads the child does not
//! have), so a reference to any pool stays valid for the life of the process.
//!
//! The engine work of a live update (a server reconnecting to a shared catalogue) runs in a
//! second, smaller pool, [`install_update`]: half the threads (one on a 2-core machine), at a
//! lower scheduling priority (nice 10 by default, `TOOLSIFT_UPDATE_NICE` to change), so the
//! searches that overlap an update still find a core (and win a busy one), and the search pool
//! stays free for them. A large index is freed there too ([`release`]).
//! It is created on first use, and again in a forked child, as the main pool.

use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU64, Ordering};

use rayon::{ThreadPool, ThreadPoolBuilder};

/// A pool and the process that created it.
struct ProcessPool {
    pid: u32,
    pool: ThreadPool,
}

/// One pool of this process, created on first use (and again in a forked child).
struct Slot {
    /// The current process's pool (null until first use). Entries are leaked, never freed.
    current: AtomicPtr<ProcessPool>,
    /// The process id (+ 1) whose pool could not start its threads (0: none failed), so a
    /// process that cannot start threads does not try again on every call.
    failed: AtomicU64,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            current: AtomicPtr::new(ptr::null_mut()),
            failed: AtomicU64::new(0),
        }
    }

    /// This process's pool of this slot, built by `build` on first use in this process;
    /// `None` if its threads cannot start.
    fn get(
        &self,
        build: impl Fn() -> Result<ThreadPool, rayon::ThreadPoolBuildError>,
    ) -> Option<&'static ThreadPool> {
        let pid = std::process::id();
        loop {
            let current = self.current.load(Ordering::Acquire);
            // SAFETY: a non-null pointer here is a leaked `ProcessPool`, never freed.
            if let Some(entry) = unsafe { current.as_ref() } {
                if entry.pid == pid {
                    return Some(&entry.pool);
                }
            }
            if self.failed.load(Ordering::Relaxed) == u64::from(pid) + 1 {
                return None;
            }
            let Ok(pool) = build() else {
                self.failed.store(u64::from(pid) + 1, Ordering::Relaxed);
                return None;
            };
            let fresh = Box::into_raw(Box::new(ProcessPool { pid, pool }));
            match self
                .current
                .compare_exchange(current, fresh, Ordering::AcqRel, Ordering::Acquire)
            {
                // The old entry (null, or the parent's pool) is leaked on purpose (module docs).
                // SAFETY: `fresh` was just published and is never freed.
                Ok(_) => return Some(unsafe { &(*fresh).pool }),
                Err(_) => {
                    // Another thread installed a pool first; ours never ran a job: drop it.
                    // SAFETY: `fresh` came from `Box::into_raw` above and was never published.
                    drop(unsafe { Box::from_raw(fresh) });
                }
            }
        }
    }
}

/// The pool of searches, builds and batches.
static POOL: Slot = Slot::new();

/// The pool of live updates ([`install_update`]) at a nice value above 0 ([`update_nice`]).
static UPDATES: Slot = Slot::new();

/// The pool of live updates at nice 0 ([`set_update_nice`]).
static UPDATES_PLAIN: Slot = Slot::new();

/// Whether a large index is freed on the pool of updates ([`release`]) or where it is dropped.
static RELEASE_APART: AtomicBool = AtomicBool::new(true);

/// Whether live updates run in [`UPDATES`] (the default) or in [`POOL`] with everything else
/// ([`set_updates_apart`]).
static APART: AtomicBool = AtomicBool::new(true);

thread_local! {
    /// This thread's own one-thread pool, whose only worker is the thread itself (no thread is
    /// started): the fallback when the process pool cannot start (address-space or process
    /// limits). Created on first need, leaked (rayon never releases a current-thread pool).
    static LOCAL: Cell<Option<&'static ThreadPool>> = const { Cell::new(None) };
}

/// This process's thread pool (`RAYON_NUM_THREADS` threads, else one per core), created on
/// first use, and again in a forked child; `None` if the operating system refuses to start its
/// threads (then every parallel call runs on the calling thread: [`install`], [`spawn`]).
pub fn pool() -> Option<&'static ThreadPool> {
    POOL.get(|| {
        ThreadPoolBuilder::new()
            .thread_name(|i| format!("toolsift-{i}"))
            .build()
    })
}

/// How many threads a live update uses: half of [`pool`]'s, at least one.
pub fn update_threads() -> usize {
    (threads() / 2).max(1)
}

/// This process's pool of live updates ([`update_threads`] threads, each at the nice value of
/// [`update_nice`]: [`yield_to_searches`]), created on first use, and again in a forked
/// child; `None` if its threads cannot start. A nice value, once lowered, cannot be raised back
/// without privileges, so the updates at nice 0 have a pool of their own.
fn update_pool() -> Option<&'static ThreadPool> {
    let threads = update_threads();
    let nice = update_nice();
    let slot = if nice == 0 { &UPDATES_PLAIN } else { &UPDATES };
    slot.get(|| {
        ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("toolsift-update-{i}"))
            .start_handler(move |_| yield_to_searches(nice))
            .build()
    })
}

/// The default nice value of an update thread: where the cores are all busy, the scheduler
/// gives the threads that search (nice 0) about ten times its share, so an update waits for
/// them rather than they for it; on an idle core it runs at full speed.
const UPDATE_NICE: i32 = 10;

/// The nice value of the update threads (0..=19); -1 until read from `TOOLSIFT_UPDATE_NICE`.
static NICE: AtomicI32 = AtomicI32::new(-1);

/// The nice value the update threads run at: [`set_update_nice`]'s, else the environment
/// variable `TOOLSIFT_UPDATE_NICE` (an integer 0..=19, read once; anything else is ignored),
/// else [`UPDATE_NICE`].
pub fn update_nice() -> i32 {
    let nice = NICE.load(Ordering::Relaxed);
    if nice >= 0 {
        return nice;
    }
    let given = std::env::var("TOOLSIFT_UPDATE_NICE")
        .ok()
        .and_then(|v| v.trim().parse::<i32>().ok())
        .filter(|n| (0..=19).contains(n));
    let nice = given.unwrap_or(UPDATE_NICE);
    NICE.store(nice, Ordering::Relaxed);
    nice
}

/// Sets the nice value of the update threads (clamped to 0..=19): 0 runs updates at the
/// priority of the searches (an update publishes sooner on a busy machine, and takes its share
/// of the cores from the searches), above 0 lower. The update pool of a nice value above 0 is
/// made once, at the value of that time; later values above 0 select the same pool.
pub fn set_update_nice(nice: i32) {
    NICE.store(nice.clamp(0, 19), Ordering::Relaxed);
}

/// Lowers the calling thread's scheduling priority to `nice` (Linux, where a nice value is a
/// thread's own; elsewhere a no-op). A failure, or `nice` 0, leaves the priority as it was.
fn yield_to_searches(nice: i32) {
    if nice == 0 {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: setpriority only changes the calling thread's nice value (who = 0: this thread,
    // on Linux); it reads and writes no memory of ours.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, nice);
    }
}

/// The calling thread's own one-thread pool ([`LOCAL`]), or `None` when the thread already
/// works for a pool (its parallel calls then stay in that pool).
fn local() -> Option<&'static ThreadPool> {
    LOCAL.with(|cell| {
        if cell.get().is_none() {
            let built = ThreadPoolBuilder::new()
                .num_threads(1)
                .use_current_thread()
                .build();
            cell.set(built.ok().map(|p| &*Box::leak(Box::new(p))));
        }
        cell.get()
    })
}

/// How many threads a parallel call can use: the pool's, or 1 on the fallback.
pub fn threads() -> usize {
    pool().map_or(1, ThreadPool::current_num_threads)
}

/// Runs `f` in this process's pool (see [`pool`]): every rayon call inside it uses that pool;
/// without one, on the calling thread (its own one-thread pool, so no rayon call reaches
/// rayon's global pool, which would panic on the same limits).
pub fn install<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if let Some(pool) = pool() {
        return pool.install(f);
    }
    if rayon::current_thread_index().is_some() {
        return f();
    }
    match local() {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// Runs `f`, the engine work of a live update, in this process's pool of updates (half the
/// threads of [`pool`], at least one: the searches that overlap it keep the other cores), or
/// as [`install`] does when that pool cannot start.
pub fn install_update<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if APART.load(Ordering::Relaxed) && rayon::current_thread_index().is_none() {
        if let Some(pool) = update_pool() {
            return pool.install(f);
        }
    }
    install(f)
}

/// Whether [`install_update`] runs live updates in their own pool (`true`, the default) or in
/// the pool of searches and builds on every thread (`false`, what it did before), for benches
/// that measure the difference: the results are the same either way.
pub fn set_updates_apart(apart: bool) {
    APART.store(apart, Ordering::Relaxed);
}

/// Drops `value` on a thread of the pool of updates (at its lower priority), or at once on the
/// calling thread without that pool: a large index's memory is handed back to the system
/// without holding up the thread that let it go (a search holding the GIL, say).
pub fn release<T: Send + 'static>(value: T) {
    match update_pool().filter(|_| RELEASE_APART.load(Ordering::Relaxed)) {
        Some(pool) => pool.spawn(move || drop(value)),
        None => drop(value),
    }
}

/// Whether [`release`] frees on the pool of updates (`true`, the default) or on the calling
/// thread (`false`, what a drop did before), for benches that measure the difference.
pub fn set_release_apart(apart: bool) {
    RELEASE_APART.store(apart, Ordering::Relaxed);
}

/// Runs `f` as a task of this process's pool, or at once on the calling thread without one.
pub fn spawn(f: impl FnOnce() + Send + 'static) {
    match pool() {
        Some(pool) => pool.spawn(f),
        None => install(f),
    }
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    #[test]
    fn jobs_run_in_the_process_pool() {
        let sum: u64 = super::install(|| (0..1000u64).into_par_iter().sum());
        assert_eq!(sum, 499_500);
        assert!(std::ptr::eq(super::pool().unwrap(), super::pool().unwrap()));
        let name = super::install(|| std::thread::current().name().map(str::to_owned));
        assert!(name.is_some_and(|n| n.starts_with("toolsift-")));
    }

    #[test]
    fn updates_run_in_their_own_smaller_pool() {
        let (sum, name, threads) = super::install_update(|| {
            let sum: u64 = (0..1000u64).into_par_iter().sum();
            let name = std::thread::current().name().map(str::to_owned);
            (sum, name, rayon::current_num_threads())
        });
        assert_eq!(sum, 499_500);
        assert!(name.is_some_and(|n| n.starts_with("toolsift-update-")));
        assert_eq!(threads, super::update_threads());
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            // SAFETY: getpriority reads the calling thread's nice value.
            let nice = || unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
            // At least the update nice value, or the process's own if it already ran lower.
            let floor = super::install(nice).max(super::update_nice());
            assert!(super::install_update(nice) >= floor);
        }
        assert!(threads >= 1 && threads <= super::threads().max(1));
        assert!(threads < super::threads() || super::threads() == 1);
        assert!(std::ptr::eq(
            super::update_pool().unwrap(),
            super::update_pool().unwrap()
        ));
        // From a thread of the search pool, an update's work stays on that pool's thread.
        let inner = super::install(|| {
            super::install_update(|| std::thread::current().name().map(str::to_owned))
        });
        assert!(
            inner.is_some_and(|n| n.starts_with("toolsift-") && !n.starts_with("toolsift-update-"))
        );
    }

    #[test]
    fn a_released_value_is_dropped_on_an_update_thread() {
        struct Tell(std::sync::mpsc::Sender<Option<String>>);
        impl Drop for Tell {
            fn drop(&mut self) {
                let name = std::thread::current().name().map(str::to_owned);
                self.0.send(name).unwrap();
            }
        }
        let (send, receive) = std::sync::mpsc::channel();
        super::release(Tell(send));
        let name = receive.recv().unwrap();
        assert!(name.is_some_and(|n| n.starts_with("toolsift-update-")));
    }

    #[test]
    fn the_fallback_runs_parallel_calls_on_the_calling_thread() {
        // What `install` does when the process pool cannot start (checked in a thread of its
        // own: the calling thread becomes its one-thread pool's worker for good).
        std::thread::spawn(|| {
            let me = std::thread::current().id();
            let pool = super::local().expect("a thread outside any pool");
            let (sum, ids): (u64, Vec<_>) = pool.install(|| {
                let sum = (0..1000u64).into_par_iter().sum();
                let ids = (0..8)
                    .into_par_iter()
                    .map(|_| std::thread::current().id())
                    .collect();
                (sum, ids)
            });
            assert_eq!(sum, 499_500);
            assert!(ids.iter().all(|id| *id == me));
        })
        .join()
        .unwrap();
    }
}
