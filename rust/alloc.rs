//! The extension's global allocator: the engine's large blocks in mappings of their own.
//!
//! Why it exists: glibc's malloc moves its thresholds as a program runs. When a block that it
//! had placed in a mapping of its own (128 KiB and up at first) is freed, glibc raises its
//! mmap threshold to that block's size, and its trim threshold (the free space a heap keeps at
//! its top) to twice that, up to 32 and 64 MiB. A build of a large index frees such blocks:
//! the chunks' posting buffers (1-9 MiB), the postings' `f32` frequencies once coded (15 MiB
//! at 100,000 tools). From then on each engine thread's heap may keep up to ~31 MiB of freed
//! memory at its top, which `malloc_trim` does not return (it trims the main heap's top, not a
//! thread heap's): the same build then held 60 MiB in one process and 70 MiB in another.
//! Two glibc settings in the environment fix it, but a library must not change its host
//! process's allocator settings.
//!
//! So the engine's blocks of [`LARGE`] bytes and more never reach malloc: they are mapped and
//! unmapped here (`mmap`, `munmap`, and `mremap` to grow or shrink one), and glibc never sees
//! them freed. Its thresholds then stay near their defaults, and its heaps keep their default
//! trim. Everything else (smaller blocks, alignments above a page, every platform but Linux
//! with glibc) goes to [`System`], malloc itself. Only the Rust code's allocations pass
//! through here: the host's Python objects use Python's allocators, untouched.
//!
//! The cost: a fresh mapping's pages fault in (zeroed by the kernel) on first touch, where
//! malloc would reuse warm ones. A build asks for and frees blocks of a few MiB per chunk of
//! documents, so up to [`CACHE_BYTES`] of freed mappings are kept and handed to the next large
//! blocks (resized with `mremap`); the engine unmaps them (`release_cached`) when it calls
//! `malloc_trim` after a build, load or update. Blocks freed after that (an old index dropped)
//! stay kept, up to that size, until the next one.
//!
//! Each large block is a mapping of the process while it lives (the kernel merges neighbours):
//! an index holds a few dozen.

use std::alloc::{GlobalAlloc, Layout, System};

/// The size from which a block gets a mapping of its own (1 MiB).
pub const LARGE: usize = 1 << 20;

/// The largest alignment a mapping is sure to have: 4 KiB, the smallest page size of the
/// platforms Rust targets on Linux (mappings start at a page, which is this or larger).
const MAPPED_ALIGN: usize = 4096;

/// The extension's global allocator (see the module doc).
pub struct LargeMapped;

/// Whether a block of `size` bytes aligned to `align` is mapped (else it is malloc's).
/// A block's layout at `dealloc`/`realloc` is the one it was allocated with, so the same
/// block is always judged the same way.
#[inline]
fn mapped(size: usize, align: usize) -> bool {
    cfg!(all(target_os = "linux", target_env = "gnu")) && size >= LARGE && align <= MAPPED_ALIGN
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod os {
    /// A fresh, zeroed, private mapping of `size` bytes, or null.
    ///
    /// # Safety
    /// `size` is not zero.
    pub unsafe fn map(size: usize) -> *mut u8 {
        let p = libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if p == libc::MAP_FAILED {
            std::ptr::null_mut()
        } else {
            p.cast()
        }
    }

    /// Unmaps a block that [`map`] or [`remap`] returned with this `size`.
    ///
    /// # Safety
    /// `p` and `size` are a live mapped block's.
    pub unsafe fn unmap(p: *mut u8, size: usize) {
        // It cannot fail for a block mapped here (the kernel rounds `size` to the page).
        libc::munmap(p.cast(), size);
    }

    /// The mapped block `p` of `old` bytes resized to `new` bytes, its contents kept (moved if
    /// it must), or null with the block left as it was.
    ///
    /// # Safety
    /// `p` and `old` are a live mapped block's; `new` is not zero.
    pub unsafe fn remap(p: *mut u8, old: usize, new: usize) -> *mut u8 {
        let q = libc::mremap(p.cast(), old, new, libc::MREMAP_MAYMOVE);
        if q == libc::MAP_FAILED {
            std::ptr::null_mut()
        } else {
            q.cast()
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod os {
    // Never called: `mapped` is false but with glibc on Linux.
    pub unsafe fn map(_: usize) -> *mut u8 {
        std::ptr::null_mut()
    }
    pub unsafe fn unmap(_: *mut u8, _: usize) {}
    pub unsafe fn remap(_: *mut u8, _: usize, _: usize) -> *mut u8 {
        std::ptr::null_mut()
    }
}

/// Freed mappings kept for the next large blocks, up to [`CACHE_BYTES`] in all: a build asks
/// for and frees blocks of a few MiB per chunk of documents on each thread, which malloc would
/// reuse warm where a fresh mapping's pages fault in again. [`release_cached`] unmaps them
/// (the engine calls it when it gives memory back after a build, load or update).
///
/// Each slot is claimed by a compare-and-swap of its state, not a lock: a process forked while
/// another thread holds a slot finds it busy and passes it by, it never waits for it.
mod cache {
    use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::*};

    const SLOTS: usize = 8;
    /// At most this many bytes kept mapped at once.
    pub const CACHE_BYTES: usize = 16 << 20;
    const EMPTY: u8 = 0;
    const BUSY: u8 = 1;
    const FULL: u8 = 2;

    struct Slot {
        state: AtomicU8,
        /// The mapping's address and length, read and written only by the slot's claimant.
        at: AtomicUsize,
        len: AtomicUsize,
    }

    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY_SLOT: Slot = Slot {
        state: AtomicU8::new(EMPTY),
        at: AtomicUsize::new(0),
        len: AtomicUsize::new(0),
    };
    static SLOTS_: [Slot; SLOTS] = [EMPTY_SLOT; SLOTS];
    static HELD: AtomicUsize = AtomicUsize::new(0);

    /// Keeps the mapping `p` of `len` bytes; false (the caller unmaps it) when it does not fit.
    pub fn put(p: *mut u8, len: usize) -> bool {
        if HELD
            .fetch_update(AcqRel, Acquire, |h| {
                (h + len <= CACHE_BYTES).then_some(h + len)
            })
            .is_err()
        {
            return false;
        }
        for slot in &SLOTS_ {
            if slot
                .state
                .compare_exchange(EMPTY, BUSY, Acquire, Relaxed)
                .is_ok()
            {
                slot.at.store(p as usize, Relaxed);
                slot.len.store(len, Relaxed);
                slot.state.store(FULL, Release);
                return true;
            }
        }
        HELD.fetch_sub(len, AcqRel);
        false
    }

    /// A kept mapping for a block of `len` bytes, and its length: the smallest of at least
    /// `len`, else the largest.
    pub fn take(len: usize) -> Option<(*mut u8, usize)> {
        let better = |have: usize, other: usize| {
            if other >= len {
                have < len || other < have
            } else {
                have < len && other > have
            }
        };
        let mut best: Option<(&Slot, usize)> = None;
        for slot in &SLOTS_ {
            if slot.state.load(Acquire) == FULL {
                let other = slot.len.load(Relaxed);
                if best.map_or(true, |(_, have)| better(have, other)) {
                    best = Some((slot, other));
                }
            }
        }
        let (slot, _) = best?;
        // Another thread may have taken it since: then this block gets a fresh mapping.
        slot.state
            .compare_exchange(FULL, BUSY, Acquire, Relaxed)
            .ok()?;
        let (at, got) = (slot.at.load(Relaxed), slot.len.load(Relaxed));
        slot.state.store(EMPTY, Release);
        HELD.fetch_sub(got, AcqRel);
        Some((at as *mut u8, got))
    }

    /// Takes every kept mapping, for `unmap` to return it to the OS.
    pub fn drain(mut unmap: impl FnMut(*mut u8, usize)) {
        for slot in &SLOTS_ {
            if slot
                .state
                .compare_exchange(FULL, BUSY, Acquire, Relaxed)
                .is_ok()
            {
                let (at, got) = (slot.at.load(Relaxed), slot.len.load(Relaxed));
                slot.state.store(EMPTY, Release);
                HELD.fetch_sub(got, AcqRel);
                unmap(at as *mut u8, got);
            }
        }
    }

    /// The bytes kept now.
    pub fn held() -> usize {
        HELD.load(Acquire)
    }
}

pub use cache::CACHE_BYTES;

/// Unmaps the freed mappings kept for reuse (see `cache`): the engine calls it with
/// `malloc_trim` after a build, load or update, so that they count in no index's memory.
pub fn release_cached() {
    // SAFETY: a kept mapping is no block's any more; `drain` hands each out once.
    cache::drain(|p, len| unsafe { os::unmap(p, len) });
}

/// The bytes of freed mappings kept for reuse now (at most [`CACHE_BYTES`]).
pub fn cached_bytes() -> usize {
    cache::held()
}

/// A mapping of `size` bytes (`size >= LARGE`): a kept one resized, else a fresh one.
///
/// # Safety
/// `size` is not zero.
unsafe fn map_reused(size: usize) -> *mut u8 {
    match cache::take(size) {
        Some((p, len)) if len == size => p,
        Some((p, len)) => {
            let q = os::remap(p, len, size);
            if q.is_null() {
                os::unmap(p, len);
                os::map(size)
            } else {
                q
            }
        }
        None => os::map(size),
    }
}

/// Keeps the freed mapping `p` of `size` bytes for reuse, or unmaps it.
///
/// # Safety
/// `p` and `size` are a live mapped block's, which the caller gives up.
unsafe fn unmap_or_keep(p: *mut u8, size: usize) {
    if !cache::put(p, size) {
        os::unmap(p, size);
    }
}

// SAFETY: every block is either malloc's (through `System`, which upholds the contract) or a
// mapping: page-aligned (so aligned to any `align <= MAPPED_ALIGN`), at least `size` bytes,
// zeroed, and unmapped only by `dealloc`/`realloc` with the layout it was made with. Whether a
// block is mapped depends only on its layout (`mapped`), so each block returns to its maker.
// Nothing here allocates or panics.
unsafe impl GlobalAlloc for LargeMapped {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if mapped(layout.size(), layout.align()) {
            map_reused(layout.size())
        } else {
            System.alloc(layout)
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if mapped(layout.size(), layout.align()) {
            os::map(layout.size()) // a fresh mapping is zeroed
        } else {
            System.alloc_zeroed(layout)
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if mapped(layout.size(), layout.align()) {
            unmap_or_keep(ptr, layout.size());
        } else {
            System.dealloc(ptr, layout);
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        match (mapped(layout.size(), align), mapped(new_size, align)) {
            (false, false) => System.realloc(ptr, layout, new_size),
            (true, true) => os::remap(ptr, layout.size(), new_size),
            (was, _) => {
                // Across the threshold: a new block of the other kind, the contents copied.
                // SAFETY: the caller guarantees `new_size`, rounded to `align`, fits `isize`.
                let new_layout = Layout::from_size_align_unchecked(new_size, align);
                let new = if was {
                    System.alloc(new_layout)
                } else {
                    map_reused(new_size)
                };
                if !new.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
                new
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allocates `size` bytes aligned to `align`, checks the block, fills it with a pattern.
    unsafe fn filled(size: usize, align: usize, zeroed: bool) -> (*mut u8, Layout) {
        let layout = Layout::from_size_align(size, align).unwrap();
        let p = if zeroed {
            LargeMapped.alloc_zeroed(layout)
        } else {
            LargeMapped.alloc(layout)
        };
        assert!(!p.is_null(), "size {size} align {align}");
        assert_eq!(p as usize % align, 0, "size {size} align {align}");
        if zeroed {
            assert!(std::slice::from_raw_parts(p, size) == &vec![0u8; size][..]);
        }
        fill(p, 0, size);
        (p, layout)
    }

    /// The bytes every test block holds: no two neighbouring pages alike.
    fn pattern() -> &'static [u8] {
        static PATTERN: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        PATTERN.get_or_init(|| (0..4 * LARGE).map(|i| (i % 251) as u8).collect())
    }

    /// Writes the pattern's bytes `from..to` at the same offsets of `p`.
    unsafe fn fill(p: *mut u8, from: usize, to: usize) {
        std::ptr::copy_nonoverlapping(pattern()[from..to].as_ptr(), p.add(from), to - from);
    }

    unsafe fn check(p: *const u8, len: usize) {
        assert!(std::slice::from_raw_parts(p, len) == &pattern()[..len]);
    }

    const SIZES: &[usize] = &[
        1,
        8,
        4095,
        4096,
        LARGE - 1,
        LARGE,
        LARGE + 1,
        3 * LARGE + 17,
    ];

    #[test]
    fn alloc_and_dealloc_around_the_threshold() {
        for &size in SIZES {
            for &align in &[1, 8, 64, 4096, 8192, 1 << 16] {
                for zeroed in [false, true] {
                    unsafe {
                        let (p, layout) = filled(size, align, zeroed);
                        check(p, size);
                        LargeMapped.dealloc(p, layout);
                    }
                }
            }
        }
    }

    #[test]
    fn which_blocks_are_mapped() {
        assert!(!mapped(0, 1));
        assert!(!mapped(LARGE - 1, 8));
        assert!(!mapped(LARGE, 8192), "alignments above a page go to malloc");
        assert_eq!(
            mapped(LARGE, 8),
            cfg!(all(target_os = "linux", target_env = "gnu"))
        );
        assert_eq!(
            mapped(LARGE, 4096),
            cfg!(all(target_os = "linux", target_env = "gnu"))
        );
    }

    #[test]
    fn realloc_keeps_contents_across_the_threshold() {
        // Every pair of sizes: small to small, small to large, large to large, large to small,
        // growing and shrinking.
        for &from in SIZES {
            for &to in SIZES {
                for &align in &[1, 16, 4096, 8192] {
                    unsafe {
                        let (p, layout) = filled(from, align, false);
                        let q = LargeMapped.realloc(p, layout, to);
                        assert!(!q.is_null(), "{from} -> {to} align {align}");
                        assert_eq!(q as usize % align, 0);
                        check(q, from.min(to));
                        // The grown part is writable to its end.
                        fill(q, from.min(to), to);
                        check(q, to);
                        LargeMapped.dealloc(q, Layout::from_size_align(to, align).unwrap());
                    }
                }
            }
        }
    }

    #[test]
    fn a_block_doubled_then_halved() {
        // The way a `Vec` uses it: grown by doubling past the threshold, then shrunk below it.
        unsafe {
            let (mut p, mut layout) = filled(64, 8, false);
            while layout.size() < 4 * LARGE {
                let size = layout.size() * 2;
                p = LargeMapped.realloc(p, layout, size);
                assert!(!p.is_null());
                check(p, layout.size());
                fill(p, layout.size(), size);
                layout = Layout::from_size_align(size, 8).unwrap();
            }
            while layout.size() > 64 {
                let size = layout.size() / 2;
                p = LargeMapped.realloc(p, layout, size);
                assert!(!p.is_null());
                layout = Layout::from_size_align(size, 8).unwrap();
                check(p, size);
            }
            LargeMapped.dealloc(p, layout);
        }
    }
}
