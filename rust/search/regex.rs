//! Regex search over tools (Anthropic `tool_search_tool_regex`-compatible): the Rust half of
//! `ranker="regex"`; `python/toolsift/_pyengine/regex.py` is its pure-Python twin.
//!
//! The pattern arrives already checked and translated by `toolsift._text.regex_pattern` (Python owns
//! the agent's query): its letters lowercased, its classes widened with the lowercase forms of
//! their members, every escape spelled out. Matching is then case-sensitive over texts
//! lowercased here with `text::case_fold::FOLD` (Unicode 14 simple lowercase, one character for one,
//! generated with the twin's copy), so both engines see the same characters and the same pattern.
//!
//! Each tool has four fields, searched (not fully matched) in this order: its name (4 points),
//! its description (3), its parameter names (2) and its parameter descriptions (1). A tool's
//! score is the points of the first field with a match plus `1 / (2 + c)`, where `c` is the
//! character offset of the leftmost match in that field (the smallest over a field's texts),
//! so a score fixes the field and the offset: ranked by score descending, then name ascending.
//! A tool with no match anywhere is left out.
//!
//! The regex crate runs in time linear in the text (no backtracking); `size_limit` and
//! `dfa_size_limit` bound the memory a hostile pattern can make it use.

use std::collections::HashSet;

use regex::{Regex, RegexBuilder};

use crate::error::{Error, Result, LIMIT_0};
use crate::text::case_fold::FOLD;

/// Points of a match in each field, in search order: name, description, parameter names,
/// parameter descriptions.
pub const FIELD_POINTS: [f64; 4] = [4.0, 3.0, 2.0, 1.0];

/// Most memory (bytes) the compiled pattern may take (`RegexBuilder::size_limit`).
pub const SIZE_LIMIT: usize = 8 << 20;
/// Most memory (bytes) of the lazy DFA's cache (`RegexBuilder::dfa_size_limit`).
pub const DFA_SIZE_LIMIT: usize = 4 << 20;
/// Deepest nesting of groups and repetitions the compiler accepts (`RegexBuilder::nest_limit`).
pub const NEST_LIMIT: u32 = 500;

/// A character as the search sees it: its Unicode simple lowercase (`text::case_fold::FOLD`).
#[inline]
pub fn fold_char(c: char) -> char {
    if c.is_ascii() {
        c.to_ascii_lowercase()
    } else {
        match FOLD.binary_search_by_key(&c, |&(upper, _)| upper) {
            Ok(i) => FOLD.get(i).map_or(c, |&(_, lower)| lower),
            Err(_) => c,
        }
    }
}

/// `text` with every character folded by [`fold_char`] (as many characters as `text`).
pub fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    text.chars().map(fold_char).collect()
}

/// Compiles a translated pattern with the engine's limits; a `Error::Pattern` if it is invalid
/// or too large.
pub fn compile(pattern: &str) -> Result<Regex> {
    RegexBuilder::new(pattern)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .nest_limit(NEST_LIMIT)
        .build()
        .map_err(|e| Error::Pattern(e.to_string()))
}

/// The folded texts of one field of every tool: tool `d`'s are `texts[ends[d - 1]..ends[d]]`.
#[derive(Debug, Default)]
struct Field {
    texts: Vec<String>,
    ends: Vec<usize>,
}

impl Field {
    fn push(&mut self, texts: impl IntoIterator<Item = impl AsRef<str>>) {
        self.texts
            .extend(texts.into_iter().map(|t| fold(t.as_ref())));
        self.ends.push(self.texts.len());
    }

    fn of(&self, doc: usize) -> &[String] {
        let start = if doc == 0 { 0 } else { self.ends[doc - 1] };
        &self.texts[start..self.ends[doc]]
    }
}

/// Which tools a search may return.
#[derive(Debug, Default, Clone)]
pub struct RegexOptions {
    /// Tool ids left out.
    pub exclude: HashSet<u32>,
    /// When set, only these tool ids.
    pub include: Option<HashSet<u32>>,
}

/// The tools' folded fields, ready for regex search.
#[derive(Debug)]
pub struct RegexIndex {
    names: Vec<String>,
    fields: [Field; 4],
}

impl RegexIndex {
    /// An index of tools given by name, description, parameter names and parameter
    /// descriptions (one list per tool).
    pub fn build(
        names: Vec<String>,
        descriptions: &[String],
        parameter_names: &[Vec<String>],
        parameter_descriptions: &[Vec<String>],
    ) -> Result<Self> {
        let n = names.len();
        if descriptions.len() != n
            || parameter_names.len() != n
            || parameter_descriptions.len() != n
        {
            return Err(Error::InvalidDocument(format!(
                "regex index: got {n} names, {} descriptions, {} parameter name lists and {} \
                 parameter description lists",
                descriptions.len(),
                parameter_names.len(),
                parameter_descriptions.len()
            )));
        }
        let mut fields: [Field; 4] = Default::default();
        for d in 0..n {
            fields[0].push([&names[d]]);
            fields[1].push([&descriptions[d]]);
            fields[2].push(&parameter_names[d]);
            fields[3].push(&parameter_descriptions[d]);
        }
        Ok(RegexIndex { names, fields })
    }

    /// How many tools the index holds.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the index holds no tool.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Tool `doc`'s score for `regex` (module docs), or `None` when no field matches.
    fn score(&self, regex: &Regex, doc: usize) -> Option<f64> {
        for (field, points) in self.fields.iter().zip(FIELD_POINTS) {
            let first = field
                .of(doc)
                .iter()
                .filter_map(|text| regex.find(text).map(|m| text[..m.start()].chars().count()))
                .min();
            if let Some(offset) = first {
                return Some(points + 1.0 / (2.0 + offset as f64));
            }
        }
        None
    }

    /// The best `limit` tools for a translated `pattern`: `(tool id, score)`, score descending,
    /// then name ascending.
    pub fn search(
        &self,
        pattern: &str,
        limit: usize,
        options: &RegexOptions,
    ) -> Result<Vec<(u32, f64)>> {
        if limit == 0 {
            return Err(Error::Unchecked(LIMIT_0));
        }
        let regex = compile(pattern)?;
        let mut hits: Vec<(u32, f64)> = (0..self.names.len())
            .filter(|&d| {
                let id = d as u32;
                !options.exclude.contains(&id)
                    && options
                        .include
                        .as_ref()
                        .map_or(true, |inc| inc.contains(&id))
            })
            .filter_map(|d| self.score(&regex, d).map(|s| (d as u32, s)))
            .collect();
        let names = &self.names;
        hits.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| names[a.0 as usize].cmp(&names[b.0 as usize]))
                .then(a.0.cmp(&b.0))
        });
        hits.truncate(limit);
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> RegexIndex {
        let s = |v: &[&str]| v.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        RegexIndex::build(
            s(&["get_weather", "send_message", "Query_DB", "ÉCRIRE"]),
            &s(&[
                "Weather for a city",
                "Send a chat message",
                "Run SQL",
                "Écrire un fichier",
            ]),
            &[s(&["city"]), s(&["channel", "text"]), s(&["sql"]), vec![]],
            &[
                s(&["City name"]),
                s(&["Where", "Body text"]),
                s(&["The weather query"]),
                vec![],
            ],
        )
        .unwrap()
    }

    fn search(pattern: &str) -> Vec<(u32, f64)> {
        index()
            .search(pattern, 10, &RegexOptions::default())
            .unwrap()
    }

    #[test]
    fn ranks_by_field_then_offset_then_name() {
        // name at offset 4 (4 + 1/6), parameter description at offset 4 (1 + 1/6)
        let expected = vec![(0, 4.0 + 1.0 / 6.0), (2, 1.0 + 1.0 / 6.0)];
        assert_eq!(search("weather"), expected);
        // every tool's name matches at 0: all 4.5, by name
        let all: Vec<u32> = search("").iter().map(|h| h.0).collect();
        assert_eq!(all, vec![2, 0, 1, 3]); // code point order: "Query_DB" < "get_weather"
    }

    #[test]
    fn searches_folded_text() {
        let table: &[(&str, &[u32])] = &[
            ("query_db", &[2]),
            ("écrire", &[3]),
            ("\\Aq", &[2]),
            ("(?-u:\\b)text\\z", &[1]),
            ("channel|city", &[0, 1]),
        ];
        for (pattern, ids) in table {
            let got: Vec<u32> = search(pattern).iter().map(|h| h.0).collect();
            assert_eq!(&got, ids, "{pattern}");
        }
        assert_eq!(fold("ÉCRIRE Σ"), "écrire σ");
    }

    #[test]
    fn options_filter_before_the_cut() {
        let idx = index();
        let opts = RegexOptions {
            exclude: [0].into_iter().collect(),
            include: Some([0, 1, 2].into_iter().collect()),
        };
        let got: Vec<u32> = idx
            .search("", 1, &opts)
            .unwrap()
            .iter()
            .map(|h| h.0)
            .collect();
        assert_eq!(got, vec![2]);
        assert_eq!(idx.search("x", 0, &opts), Err(Error::Unchecked(LIMIT_0)));
    }

    #[test]
    fn refuses_invalid_and_oversized_patterns() {
        for pattern in ["(", "a{5000}{5000}", "\\1"] {
            assert!(
                matches!(compile(pattern), Err(Error::Pattern(_))),
                "{pattern}"
            );
        }
        // The largest pattern the Python check lets through: 1000 copies of a Unicode class.
        assert!(compile("(?:[^a]){1000}").is_ok());
        assert!(compile("a(?-u:\\B)b").is_ok());
        assert!(compile(&"(?:.){100}".repeat(10)).is_ok());
    }

    #[test]
    fn hostile_pattern_is_linear() {
        let text = "a".repeat(100_000) + "!";
        let idx = RegexIndex::build(vec![text], &[String::new()], &[vec![]], &[vec![]]).unwrap();
        assert!(idx
            .search("(a+)+$", 1, &RegexOptions::default())
            .unwrap()
            .is_empty());
        assert!(idx
            .search("(?:a|a)*b", 1, &RegexOptions::default())
            .unwrap()
            .is_empty());
    }

    #[test]
    fn mismatched_lengths_are_an_error() {
        let got = RegexIndex::build(vec!["a".into()], &[], &[], &[]);
        assert!(matches!(got, Err(Error::InvalidDocument(_))));
    }
}
