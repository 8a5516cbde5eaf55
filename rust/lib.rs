//! toolsift's engine: tokenizer, compact inverted index and BM25+ scoring.
//!
//! The engine is plain Rust; `bindings` (behind the `python` feature) is the only code that uses pyo3.

pub mod analysis;
pub mod batch;
pub mod blocked;
pub mod bm25;
pub mod build;
pub mod dense;
pub mod error;
pub mod index;
pub mod keyword;
pub mod names;
pub mod plain_query;
pub mod pool;
pub mod prune;
pub mod regex_fold;
pub mod regex_search;
pub mod snapshot;
mod term_list;
pub mod tokenize;
mod unicode_tables;
pub mod update;

#[cfg(feature = "python")]
mod bindings;
