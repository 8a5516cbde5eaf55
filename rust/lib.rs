//! toolsift's engine: tokenizer, compact inverted index and BM25+ scoring, in layers, lowest
//! first. A module uses only modules of earlier layers: never a later layer, nor another module
//! of its own layer (`rust/tests/layers.rs` checks this, and that no modules form a cycle).
//!
//! 1. `alloc`, `error`, `pool`: the extension's allocator (large blocks mapped apart from
//!    malloc); the engine's error type; the thread pool, safe across `fork`.
//! 2. `text`: the tokenizer, its generated Unicode tables, packed string lists.
//! 3. `analysis`: profiles that turn text into terms: stop words, stemming, CJK bigrams.
//! 4. `index`: the index data: terms, term ids, postings, norms, BM25+ formulas, pruning bounds.
//! 5. `build`, `search`: documents to an index; search (BM25+ exhaustive/pruned, keyword, dense).
//! 6. `snapshot`, `update`: an index to bytes and back; an index with documents added or removed.
//! 7. `bindings`: the only pyo3 code (`python` feature): one file per Python-facing class.

pub mod alloc;
pub mod analysis;
pub mod build;
pub mod error;
pub mod index;
pub mod pool;
pub mod search;
pub mod snapshot;
pub mod text;
pub mod update;

#[cfg(feature = "python")]
mod bindings;

/// The extension's allocator: the engine's large blocks are mapped apart from malloc, so that
/// freeing them does not raise glibc's thresholds (see `alloc`).
#[cfg(feature = "python")]
#[global_allocator]
static ALLOCATOR: alloc::LargeMapped = alloc::LargeMapped;

#[cfg(feature = "python")]
use pyo3::prelude::*;

#[cfg(feature = "python")]
#[pymodule(gil_used = false)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<bindings::index::PyIndex>()?;
    m.add_class::<bindings::keyword_index::PyKeywordIndex>()?;
    m.add_class::<bindings::regex_index::PyRegexIndex>()?;
    m.add_class::<bindings::name_keys::PyNameKeys>()?;
    m.add_class::<bindings::fast_path::PyViewFilter>()?;
    m.add_class::<bindings::name_map::PyNameMap>()?;
    m.add_class::<bindings::name_columns::PyNameColumns>()?;
    m.add_class::<bindings::name_columns::PyNameColumn>()?;
    m.add_class::<bindings::name_columns::PyNamePositions>()?;
    m.add_class::<bindings::plain_search::PyPlainSearch>()?;
    m.add_class::<bindings::dense_matrix::PyDenseMatrix>()?;
    m.add_class::<bindings::records::PySourceItems>()?;
    m.add_function(wrap_pyfunction!(bindings::functions::tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::functions::analyze, m)?)?;
    m.add("STOPWORDS_EN", analysis::stopwords().collect::<Vec<_>>())?;
    m.add_function(wrap_pyfunction!(bindings::functions::_set_scoring_mode, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::functions::_set_search_parts, m)?)?;
    m.add_function(wrap_pyfunction!(
        bindings::functions::_set_updates_apart,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        bindings::functions::_set_update_tuning,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(bindings::functions::untracked, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::functions::composed_ids, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::positions::spliced, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::positions::new_ids, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::matches::new_matches, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::records::_build_records, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::tool_objects::_new_tools, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::tool_objects::_tracked, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::tools::_build_tools, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::tools::_update_tools, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::tools::_tool_document, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::tools::_tool_positions, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::name_keys::_build_name_table, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
