//! The only code that uses pyo3: converts Python data in, detaches from the interpreter for the
//! work, and converts plain results out. One file per Python-facing class (`index`,
//! `keyword_index`, `name_keys`, `dense_matrix`) or group of functions (`functions`, `matches`,
//! `tool_objects`: the `Tool` objects of `load_tools`, of the dicts `tool_items` reads, whose
//! schemas `frozen_schema` freezes);
//! `index_persist` and `index_scores` hold the bodies of `index`'s snapshot and update methods
//! and of its per-document ones; `positions` the tuple of tools and the id translation of an
//! update. `convert` and `errors` are the leaves every other file may use.

pub(crate) mod build_pipeline;
pub(crate) mod convert;
pub(crate) mod dense_matrix;
pub(crate) mod documents;
pub(crate) mod errors;
pub(crate) mod fast_path;
pub(crate) mod frozen_schema;
pub(crate) mod functions;
pub(crate) mod index;
pub(crate) mod index_persist;
pub(crate) mod index_scores;
pub(crate) mod instances;
pub(crate) mod keyword_index;
pub(crate) mod matches;
pub(crate) mod name_columns;
pub(crate) mod name_keys;
pub(crate) mod name_map;
pub(crate) mod plain_search;
pub(crate) mod positions;
pub(crate) mod records;
pub(crate) mod regex_index;
pub(crate) mod tool_items;
pub(crate) mod tool_objects;
pub(crate) mod tools;
