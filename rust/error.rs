//! The engine's only error type. `bindings::errors` maps each variant to a toolsift.errors class.

use std::fmt;

/// Every way an engine call can fail on its input.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The query is empty (or whitespace only).
    EmptyQuery,
    /// The query tokenizes to nothing: it has no letter or number.
    NoSearchableTerms,
    /// A value out of the range the engine computes with (a limit of 0, a NaN or negative
    /// fraction, a relative floor above 1, BM25+ parameters or a field weight out of range:
    /// what it names). The option checks and their messages
    /// are `toolsift._options`' alone, which the bindings consult before this: reaching it is a
    /// caller's bug, reported rather than computed with.
    Unchecked(&'static str),
    /// A document or field id is out of range.
    InvalidDocument(String),
    /// A snapshot cannot be read.
    Snapshot(String),
    /// No analysis profile has this name.
    UnknownProfile(String),
    /// A regex pattern cannot be compiled, or would be too large.
    Pattern(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::EmptyQuery => f.write_str("Query must not be empty."),
            Error::NoSearchableTerms => {
                f.write_str("Query must contain at least one letter or number.")
            }
            Error::Unchecked(what) => write!(f, "internal error: the engine got {what}"),
            Error::InvalidDocument(msg) => f.write_str(msg),
            Error::Snapshot(msg) => f.write_str(msg),
            Error::Pattern(msg) => write!(f, "Invalid regex pattern: {msg}"),
            Error::UnknownProfile(name) => write!(
                f,
                "Unknown analysis profile \"{name}\": use \"english\" (the default) or \"omp\"."
            ),
        }
    }
}

impl std::error::Error for Error {}

/// What [`Error::Unchecked`] names for a search asked for no match at all.
pub const LIMIT_0: &str = "a limit of 0";

pub type Result<T> = std::result::Result<T, Error>;
