//! The extension's allocator maps its large blocks: checked from the page tables, in a process
//! of its own (another test's mapping could take an address just unmapped), in one test.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::alloc::{GlobalAlloc, Layout};

use _core::alloc::{LargeMapped, LARGE};

const PAGE: usize = 4096;

/// Whether the page at `p` is mapped in this process (`mincore` fails on unmapped memory).
fn page_mapped(p: *mut u8) -> bool {
    let mut resident = 0u8;
    // SAFETY: `mincore` only reads the page tables; `p` is page-aligned.
    unsafe { libc::mincore(p.cast(), 1, &mut resident) == 0 }
}

#[test]
fn a_large_block_is_a_mapping_of_its_own() {
    unsafe {
        // malloc's own mappings start 16 bytes into a page; these start at the page.
        let layout = Layout::from_size_align(LARGE, 1).unwrap();
        let p = LargeMapped.alloc(layout);
        assert!(!p.is_null());
        assert_eq!(p as usize % PAGE, 0);
        let last = p.add(LARGE - PAGE);
        assert!(page_mapped(p) && page_mapped(last));
        LargeMapped.dealloc(p, layout);
        assert!(!page_mapped(p) && !page_mapped(last), "unmapped at once");

        // Grown (in place or moved), it stays a mapping; shrunk below the threshold, it goes
        // back to malloc, its contents with it, and its mapping is gone.
        let layout = Layout::from_size_align(LARGE, 8).unwrap();
        let p = LargeMapped.alloc_zeroed(layout);
        std::ptr::write_bytes(p, 7, 1000);
        let q = LargeMapped.realloc(p, layout, 5 * LARGE / 2);
        assert_eq!(q as usize % PAGE, 0);
        assert!(page_mapped(q.add(2 * LARGE)));
        let grown = Layout::from_size_align(5 * LARGE / 2, 8).unwrap();
        let r = LargeMapped.realloc(q, grown, 1000);
        assert!(std::slice::from_raw_parts(r, 1000).iter().all(|&b| b == 7));
        assert!(
            !page_mapped(q) && !page_mapped(q.add(2 * LARGE)),
            "unmapped on shrink"
        );
        LargeMapped.dealloc(r, Layout::from_size_align(1000, 8).unwrap());
    }
}
