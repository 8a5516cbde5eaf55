//! The common agent query, parsed in Rust: the first step of `ToolIndex.search`'s one-call path
//! (`Index.search_plain` in the bindings).
//!
//! `toolsift.query.parse_query` (Python) is the specification. For most queries an agent sends
//! (ASCII text with no `+required` word, no `select:`, no quoted phrase, not over the length
//! cap) it only trims the query and joins its words with single spaces. [`parse_plain`] does
//! that for exactly those queries and answers `None` for every other one, which then takes the
//! Python parser as before: it never disagrees with the parser, it only declines. A query it
//! declines may still be valid, and an invalid one (empty, no letter or digit) is always
//! declined, so the Python path raises the error.
//!
//! A deliberate twin of that parser's plain case (and, with `bindings::fast_path`, of
//! `ToolIndex.search`'s general path for such a query): `tests/test_fastpath.py` proves with
//! Hypothesis that the one-call path answers exactly as the general path or declines, on
//! arbitrary text (`test_search_plain_equals_the_general_path_on_any_text`,
//! `test_search_many_plain_batch_equals_the_general_path`) and on query-like word lists
//! (`test_search_plain_equals_the_general_path`).

use crate::search::name_keys::{is_py_space, py_split};

/// A query [`parse_plain`] accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlainQuery<'a> {
    /// The query trimmed of Python whitespace (`str.strip()`): `SearchResult.query`.
    pub query: &'a str,
    /// Its words joined by single spaces (`" ".join(query.split())`): the ranking text.
    pub text: String,
}

/// `parse_query(query, max_length=max_length)` for a plain keyword query, or `None` when the
/// query needs the Python parser: non-ASCII text, empty after trimming, longer than
/// `max_length` (it would be cut), a `+` anywhere, a `:` in a query starting with `s` or `S`
/// (maybe `select:`), a backtick or double quote (a quoted phrase may name a tool), or no
/// ASCII letter or digit (an error).
pub fn parse_plain(query: &str, max_length: usize) -> Option<PlainQuery<'_>> {
    let bytes = query.as_bytes();
    if !bytes.is_ascii() {
        return None;
    }
    let start = bytes.iter().position(|&b| !is_py_space(b))?;
    let end = bytes.iter().rposition(|&b| !is_py_space(b))? + 1;
    let trimmed = &bytes[start..end];
    // ASCII: one character a byte, so the byte length is Python's `len`.
    if trimmed.len() > max_length {
        return None;
    }
    let mut colon = false;
    let mut alnum = false;
    for &b in trimmed {
        match b {
            b'+' | b'`' | b'"' => return None,
            b':' => colon = true,
            _ => alnum |= b.is_ascii_alphanumeric(),
        }
    }
    if !alnum || (colon && matches!(trimmed[0], b's' | b'S')) {
        return None;
    }
    let mut text = String::with_capacity(trimmed.len());
    for word in py_split(trimmed) {
        if !text.is_empty() {
            text.push(' ');
        }
        // ASCII bytes: valid UTF-8 one by one.
        text.extend(word.iter().map(|&b| b as char));
    }
    Some(PlainQuery {
        query: &query[start..end],
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(q: &str) -> Option<(&str, String)> {
        parse_plain(q, 500).map(|p| (p.query, p.text))
    }

    #[test]
    fn trims_and_joins_words_as_python_does() {
        assert_eq!(
            parsed("  read\tthe \x0b file\x1f\n"),
            Some(("read\tthe \x0b file", "read the file".to_string()))
        );
        assert_eq!(parsed("a"), Some(("a", "a".to_string())));
        // A colon is fine unless the query may start with `select:`.
        assert_eq!(
            parsed("time: now"),
            Some(("time: now", "time: now".to_string()))
        );
    }

    #[test]
    fn declines_what_the_python_parser_must_see() {
        for q in [
            "",
            " \t\x1c ",
            "+pdf convert",
            "convert a+b",
            "select:read_file",
            "Select: x",
            "send: mail",
            "run `read_file`",
            "say \"hello\"",
            "héllo",
            "read ſelect",
            "!!! ???",
            "___",
        ] {
            assert_eq!(parsed(q), None, "{q:?}");
        }
        assert_eq!(parse_plain("abc", 2), None);
        assert!(parse_plain("  abc  ", 3).is_some());
    }
}
