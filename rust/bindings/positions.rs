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

/// `items` without the positions `drop` (strictly ascending), then `add`: an updated index's
/// tuple of tools, made in one pass (no intermediate list) and not tracked by the cyclic
/// collector (as `_untracked` leaves it).
///
/// Errors: `ValueError` for a position of `drop` out of range or out of order.
#[pyfunction(name = "_spliced")]
pub(crate) fn spliced<'py>(
    items: &Bound<'py, PyTuple>,
    drop: Vec<usize>,
    add: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyTuple>> {
    let n = items.len();
    checked_drop(n, &drop, "_spliced")?;
    let mut out = Vec::with_capacity(n - drop.len() + add.len());
    let mut gone = drop.iter().peekable();
    for (i, item) in items.iter_borrowed().enumerate() {
        if gone.next_if_eq(&&i).is_none() {
            out.push(item);
        }
    }
    out.extend(add.iter_borrowed());
    let tuple = PyTuple::new(items.py(), out)?;
    // SAFETY: a live tuple (the GIL is held) that only this function references yet;
    // untracking takes it off the collector's lists, and it is freed the same either way.
    unsafe { ffi::PyObject_GC_UnTrack(tuple.as_ptr().cast()) };
    Ok(tuple)
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
