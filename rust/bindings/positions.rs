//! Positions after a copy-on-write update removes some (the compiled half of
//! `toolsift._snapshot.positions`): an updated index's tuple of tools and its old -> new id
//! translation, each made in one pass with no Python object per position. At 100,000 tools
//! the Python forms cost ~7 ms and ~5 ms of every catalogue update, with the GIL held (every
//! search of the process waits meanwhile); the splice takes ~2 ms (a reference taken per
//! tool, once), the translation a fraction of a millisecond.

use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// `drop` checked: strictly ascending positions below `n`.
fn checked_drop(n: usize, drop: &[usize], who: &str) -> PyResult<()> {
    let mut floor = 0usize;
    for (i, &d) in drop.iter().enumerate() {
        if d >= n || (i > 0 && d < floor) {
            return Err(PyValueError::new_err(format!(
                "{who}: drop must hold strictly ascending positions below {n}, got {d} at {i}"
            )));
        }
        floor = d + 1;
    }
    Ok(())
}

/// How many items [`spliced`] copies per hold of the GIL: ~0.1-0.3 ms of reference counting
/// (each item's header is a cache miss), then the GIL is handed to the threads waiting for it.
pub(crate) const SPLICE_CHUNK: usize = 4096;

/// How long [`yield_gil`] sleeps without the GIL: long enough for a thread woken by its release
/// to take it (a waiter needs tens of microseconds to be scheduled; the one releasing would
/// otherwise take it straight back).
const YIELD: std::time::Duration = std::time::Duration::from_micros(20);

/// Hands the GIL to the threads waiting for it (searches that arrived during a long step of an
/// update), then takes it back: the longest a search waits is one chunk of the step, not the
/// step.
pub(crate) fn yield_gil(py: Python<'_>) {
    py.detach(|| std::thread::sleep(YIELD));
}

/// `items` without the positions `drop` (strictly ascending), then `add`: an updated index's
/// tuple of tools, made in one pass (no intermediate list) and not tracked by the cyclic
/// collector (as `_untracked` leaves it).
///
/// The tuple is filled `chunk` items per hold of the GIL ([`SPLICE_CHUNK`] by default; 0: in
/// one hold), the GIL handed to waiting threads between chunks ([`yield_gil`]): at 100,000
/// tools the splice takes ~3.5 ms, which would otherwise delay every search due meanwhile.
/// The tuple is this call's alone until it returns (untracked, its unfilled slots empty), and
/// the tuples it reads are immutable, so the result is the one-pass splice's.
///
/// Errors: `ValueError` for a position of `drop` out of range or out of order.
#[pyfunction(name = "_spliced")]
#[pyo3(signature = (items, drop, add, chunk = SPLICE_CHUNK))]
pub(crate) fn spliced<'py>(
    items: &Bound<'py, PyTuple>,
    drop: Vec<usize>,
    add: &Bound<'py, PyTuple>,
    chunk: usize,
) -> PyResult<Bound<'py, PyTuple>> {
    let py = items.py();
    let n = items.len();
    checked_drop(n, &drop, "_spliced")?;
    let len = n - drop.len() + add.len();
    let size = isize::try_from(len)
        .map_err(|_| PyValueError::new_err("_spliced: the result is too long for a tuple"))?;
    // SAFETY: PyTuple_New returns a new reference (or null with an exception set); its slots
    // are null until set below, which a tuple's deallocation and traversal allow.
    let tuple = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyTuple_New(size))? };
    // SAFETY: a live tuple (the GIL is held) that only this function references; untracking
    // takes it off the collector's lists, and it is freed the same either way.
    unsafe { ffi::PyObject_GC_UnTrack(tuple.as_ptr().cast()) };
    let mut gone = drop.iter().peekable();
    let mut at = 0usize;
    let mut held = 0usize;
    let kept = (0..n).filter(|i| gone.next_if_eq(&i).is_none());
    let sources = kept
        .map(|i| (items, i))
        .chain((0..add.len()).map(|i| (add, i)));
    for (source, i) in sources {
        if chunk > 0 && held == chunk {
            yield_gil(py);
            held = 0;
        }
        let item = source.get_item(i)?;
        // SAFETY: `tuple` is a tuple of `len` slots referenced by this function only (the
        // reference count PyTuple_SetItem requires is 1), `at < len`, and the slot is still
        // empty; PyTuple_SetItem takes over the new reference `into_ptr` gives.
        if unsafe { ffi::PyTuple_SetItem(tuple.as_ptr(), at as isize, item.into_ptr()) } != 0 {
            return Err(PyErr::fetch(py));
        }
        at += 1;
        held += 1;
    }
    debug_assert_eq!(at, len);
    // SAFETY: `tuple` was made by PyTuple_New above.
    Ok(unsafe { tuple.cast_into_unchecked() })
}

/// For each of `n` positions, its position once `drop` (strictly ascending) is removed, or -1
/// for a removed one, as native-endian 64-bit integers (an `array("q")`'s bytes).
///
/// Errors: `ValueError` for a position of `drop` out of range or out of order.
#[pyfunction(name = "_new_ids")]
pub(crate) fn new_ids(py: Python<'_>, n: usize, drop: Vec<usize>) -> PyResult<Bound<'_, PyBytes>> {
    checked_drop(n, &drop, "_new_ids")?;
    let bytes = py.detach(|| {
        let mut out = Vec::with_capacity(n * 8);
        let mut gone = drop.iter().peekable();
        let mut next = 0i64;
        for i in 0..n {
            let id = if gone.next_if_eq(&&i).is_some() {
                -1
            } else {
                next += 1;
                next - 1
            };
            out.extend_from_slice(&id.to_ne_bytes());
        }
        out
    });
    Ok(PyBytes::new(py, &bytes))
}
