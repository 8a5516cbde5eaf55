//! The extension's allocator maps its large blocks: checked from the page tables, in a process
//! of its own (another test's mapping could take an address just unmapped), in one test.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::alloc::{GlobalAlloc, Layout};

use _core::alloc::{cached_bytes, release_cached, LargeMapped, CACHE_BYTES, LARGE};

const PAGE: usize = 4096;

/// Whether the page at `p` is mapped in this process (`mincore` fails on unmapped memory).
fn page_mapped(p: *mut u8) -> bool {
    let mut resident = 0u8;
    // SAFETY: `mincore` only reads the page tables; `p` is page-aligned.
    unsafe { libc::mincore(p.cast(), 1, &mut resident) == 0 }
}

fn layout(size: usize) -> Layout {
    Layout::from_size_align(size, 8).unwrap()
}

#[test]
fn a_large_block_is_a_mapping_of_its_own() {
    unsafe {
        // malloc's own mappings start 16 bytes into a page; these start at the page.
        let p = LargeMapped.alloc(Layout::from_size_align(LARGE, 1).unwrap());
        assert!(!p.is_null());
        assert_eq!(p as usize % PAGE, 0);
        let last = p.add(LARGE - PAGE);
        assert!(page_mapped(p) && page_mapped(last));
        std::ptr::write_bytes(p, 7, LARGE);

        // Freed, it is kept for the next large block, which reuses its pages...
        LargeMapped.dealloc(p, Layout::from_size_align(LARGE, 1).unwrap());
        assert_eq!(cached_bytes(), LARGE);
        assert!(page_mapped(p));
        let q = LargeMapped.alloc(layout(LARGE / 2 + LARGE));
        assert_eq!(cached_bytes(), 0);
        // (grown in place or moved with its pages)
        assert_eq!(*q.add(LARGE - 1), 7, "its first pages are the kept ones");
        // ...but a zeroed block is always a fresh mapping.
        LargeMapped.dealloc(q, layout(LARGE / 2 + LARGE));
        let z = LargeMapped.alloc_zeroed(layout(LARGE));
        assert!(std::slice::from_raw_parts(z, LARGE).iter().all(|&b| b == 0));
        assert_eq!(cached_bytes(), LARGE / 2 + LARGE);

        // Released, the kept mappings are gone from the process.
        release_cached();
        assert_eq!(cached_bytes(), 0);
        assert!(!page_mapped(q) && !page_mapped(q.add(LARGE)));

        // Grown, a block stays a mapping; shrunk below the threshold, it goes back to malloc,
        // its contents with it, and its mapping is kept, then released.
        std::ptr::write_bytes(z, 9, 1000);
        let g = LargeMapped.realloc(z, layout(LARGE), 5 * LARGE / 2);
        assert_eq!(g as usize % PAGE, 0);
        assert!(page_mapped(g.add(2 * LARGE)));
        let s = LargeMapped.realloc(g, layout(5 * LARGE / 2), 1000);
        assert!(std::slice::from_raw_parts(s, 1000).iter().all(|&b| b == 9));
        assert_eq!(cached_bytes(), 5 * LARGE / 2);
        release_cached();
        assert!(!page_mapped(g) && !page_mapped(g.add(2 * LARGE)));
        LargeMapped.dealloc(s, layout(1000));

        // At most CACHE_BYTES are kept: past that, a freed block is unmapped at once.
        let blocks: Vec<*mut u8> = (0..CACHE_BYTES / (4 * LARGE) + 2)
            .map(|_| LargeMapped.alloc(layout(4 * LARGE)))
            .collect();
        for &b in &blocks {
            *b = 1;
            LargeMapped.dealloc(b, layout(4 * LARGE));
        }
        assert_eq!(cached_bytes(), CACHE_BYTES);
        let last = *blocks.last().unwrap();
        assert!(
            !page_mapped(last),
            "the block past the cache's size was unmapped"
        );
        release_cached();
        assert!(blocks.iter().all(|&b| !page_mapped(b)));
    }
}
