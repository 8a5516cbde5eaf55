//! Text to tokens: the tokenizer (Python's `re.findall(r"[^\W_]+", text.lower())`, NFKD-folded),
//! its generated Unicode tables, the packed string lists that hold terms, and the packed name
//! columns of an index's tools.

pub mod case_fold;
mod chars;
pub mod name_columns;
pub mod packed_strings;
pub mod tokenize;
mod unicode_tables;

pub(crate) use packed_strings::PackedStrings;
