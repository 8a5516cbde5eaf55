//! Seed 001's keyword scorer, a second ranker beside BM25+ (`ranker="keyword"`).
//!
//! For each distinct query term, a tool scores (seed 001's table, mirrored from the upstream CLI):
//!
//! ```text
//! name part equal to the term          10   (12 for an MCP tool)
//! else a name part containing the term  5   ( 6 for an MCP tool)
//! search hint contains the term        +4
//! description contains the term        +2
//! ```
//!
//! Name parts are given by the caller (`toolsift.index.keyword_name_parts`: `mcp__server__action`
//! split on `__` and `_`, CamelCase on case boundaries, dotted names on `.`, lowercased). "Contains"
//! for the hint and the (full) description means "has the term among its tokens", the word-bounded
//! match of the upstream scorer. Tools scoring 0 are dropped; the rest sort by score descending,
//! then name ascending. Scores are small integers, so both engines agree exactly.
//!
//! Per query term the work is one scan of the *distinct* name parts (for substrings) plus the
//! postings of the matched parts and terms, never a scan of every tool.

use std::collections::{HashMap, HashSet};

use crate::error::{Error, Result};
use crate::tokenize::for_each_token;

type Map = HashMap<Box<str>, u32, ahash::RandomState>;

/// Points of seed 001's table.
pub const EXACT_PART: f64 = 10.0;
pub const EXACT_PART_MCP: f64 = 12.0;
pub const SUBSTRING_PART: f64 = 5.0;
pub const SUBSTRING_PART_MCP: f64 = 6.0;
pub const HINT: f64 = 4.0;
pub const DESCRIPTION: f64 = 2.0;

/// Sorted, deduplicated document lists per key, in CSR form.
#[derive(Debug, Clone, Default)]
struct Postings {
    ids: Map,
    offsets: Vec<u32>,
    docs: Vec<u32>,
}

impl Postings {
    /// `pairs` are `(key, doc)` in ascending document order.
    fn build(keys: Map, pairs: Vec<(u32, u32)>) -> Postings {
        let n = keys.len();
        let mut offsets = vec![0u32; n + 1];
        for &(k, _) in &pairs {
            offsets[k as usize + 1] += 1;
        }
        for k in 0..n {
            offsets[k + 1] += offsets[k];
        }
        let mut cursor: Vec<u32> = offsets[..n].to_vec();
        let mut docs = vec![0u32; pairs.len()];
        for (k, doc) in pairs {
            docs[cursor[k as usize] as usize] = doc;
            cursor[k as usize] += 1;
        }
        Postings {
            ids: keys,
            offsets,
            docs,
        }
    }

    fn docs_of(&self, id: u32) -> &[u32] {
        &self.docs[self.offsets[id as usize] as usize..self.offsets[id as usize + 1] as usize]
    }

    fn get(&self, key: &str) -> &[u32] {
        self.ids.get(key).map_or(&[], |&id| self.docs_of(id))
    }
}

/// Interns `key` into `map`, returning its id.
fn intern(map: &mut Map, keys: &mut Vec<Box<str>>, key: &str) -> u32 {
    if let Some(&id) = map.get(key) {
        return id;
    }
    let id = keys.len() as u32;
    keys.push(key.into());
    map.insert(key.into(), id);
    id
}

/// Posting pairs of each document's distinct tokens of `texts`.
fn token_postings<S: AsRef<str>>(texts: &[S]) -> Postings {
    let mut map = Map::default();
    let mut keys = Vec::new();
    let mut pairs = Vec::new();
    let mut seen: HashSet<u32, ahash::RandomState> = HashSet::default();
    for (doc, text) in texts.iter().enumerate() {
        seen.clear();
        for_each_token(text.as_ref(), |tok| {
            let id = intern(&mut map, &mut keys, tok);
            if seen.insert(id) {
                pairs.push((id, doc as u32));
            }
        });
    }
    Postings::build(map, pairs)
}

/// An immutable keyword index (seed 001's scorer).
#[derive(Debug, Clone)]
pub struct KeywordIndex {
    names: Vec<String>,
    mcp: Vec<bool>,
    /// Distinct name parts, and for each the documents holding it.
    parts: Vec<Box<str>>,
    part_docs: Postings,
    hints: Postings,
    descriptions: Postings,
}

/// Filters of a keyword search, applied before the cut.
#[derive(Debug, Clone, Default)]
pub struct KeywordOptions {
    pub exclude: HashSet<u32>,
    pub include: Option<HashSet<u32>>,
    /// Tokens every returned tool must match somewhere (name part, hint or description); they
    /// add nothing to the score.
    pub required: Vec<String>,
}

impl KeywordIndex {
    /// `parts[i]`, `mcp[i]`, `hints[i]` and `descriptions[i]` describe tool `i`, named `names[i]`.
    pub fn build<S: AsRef<str>>(
        names: Vec<String>,
        parts: &[Vec<S>],
        mcp: Vec<bool>,
        hints: &[S],
        descriptions: &[S],
    ) -> Result<KeywordIndex> {
        let n = names.len();
        if parts.len() != n || mcp.len() != n || hints.len() != n || descriptions.len() != n {
            return Err(Error::InvalidDocument(format!(
                "keyword index: got {n} names, {} part lists, {} MCP flags, {} hints and {} \
                 descriptions",
                parts.len(),
                mcp.len(),
                hints.len(),
                descriptions.len()
            )));
        }
        if n > u32::MAX as usize {
            return Err(Error::InvalidDocument(
                "too many documents (at most 2^32 - 1)".into(),
            ));
        }
        let mut map = Map::default();
        let mut keys: Vec<Box<str>> = Vec::new();
        let mut pairs = Vec::new();
        let mut seen: HashSet<u32, ahash::RandomState> = HashSet::default();
        for (doc, doc_parts) in parts.iter().enumerate() {
            seen.clear();
            for part in doc_parts {
                let part = part.as_ref();
                if part.is_empty() {
                    continue;
                }
                let id = intern(&mut map, &mut keys, part);
                if seen.insert(id) {
                    pairs.push((id, doc as u32));
                }
            }
        }
        Ok(KeywordIndex {
            names,
            mcp,
            parts: keys,
            part_docs: Postings::build(map, pairs),
            hints: token_postings(hints),
            descriptions: token_postings(descriptions),
        })
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Each matched document's points for one term, in first-touched order.
    fn term_points(&self, term: &str, points: &mut HashMap<u32, f64, ahash::RandomState>) {
        points.clear();
        // 2 = an exact part, 1 = a part containing the term.
        let mut level: HashMap<u32, u8, ahash::RandomState> = HashMap::default();
        for &doc in self.part_docs.get(term) {
            level.insert(doc, 2);
        }
        for (id, part) in self.parts.iter().enumerate() {
            if &**part != term && part.contains(term) {
                for &doc in self.part_docs.docs_of(id as u32) {
                    level.entry(doc).or_insert(1);
                }
            }
        }
        for (&doc, &lvl) in &level {
            let mcp = self.mcp[doc as usize];
            let p = match (lvl, mcp) {
                (2, true) => EXACT_PART_MCP,
                (2, false) => EXACT_PART,
                (_, true) => SUBSTRING_PART_MCP,
                (_, false) => SUBSTRING_PART,
            };
            *points.entry(doc).or_insert(0.0) += p;
        }
        for &doc in self.hints.get(term) {
            *points.entry(doc).or_insert(0.0) += HINT;
        }
        for &doc in self.descriptions.get(term) {
            *points.entry(doc).or_insert(0.0) += DESCRIPTION;
        }
    }

    /// The top `limit` tools for query `tokens` (distinct terms count once), score descending
    /// then name ascending, after the filters of `options`.
    pub fn search_tokens<S: AsRef<str>>(
        &self,
        tokens: &[S],
        limit: usize,
        options: &KeywordOptions,
    ) -> Result<Vec<(u32, f64)>> {
        if tokens.is_empty() {
            return Err(Error::NoSearchableTerms);
        }
        if limit == 0 {
            return Err(Error::InvalidLimit(0));
        }
        let mut points = HashMap::default();
        let mut scores: HashMap<u32, f64, ahash::RandomState> = HashMap::default();
        let mut terms: Vec<&str> = Vec::new();
        for tok in tokens {
            if !terms.contains(&tok.as_ref()) {
                terms.push(tok.as_ref());
            }
        }
        for term in terms {
            self.term_points(term, &mut points);
            for (&doc, &p) in &points {
                *scores.entry(doc).or_insert(0.0) += p;
            }
        }
        let mut required: Vec<HashSet<u32>> = Vec::new();
        for term in &options.required {
            self.term_points(term, &mut points);
            required.push(points.keys().copied().collect());
        }
        let mut hits: Vec<(u32, f64)> = scores
            .into_iter()
            .filter(|&(doc, score)| {
                score > 0.0
                    && !options.exclude.contains(&doc)
                    && options
                        .include
                        .as_ref()
                        .map_or(true, |inc| inc.contains(&doc))
                    && required.iter().all(|set| set.contains(&doc))
            })
            .collect();
        hits.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| self.names[a.0 as usize].cmp(&self.names[b.0 as usize]))
                .then_with(|| a.0.cmp(&b.0))
        });
        hits.truncate(limit);
        Ok(hits)
    }

    /// Tokenizes `query` and searches it; see [`KeywordIndex::search_tokens`].
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        options: &KeywordOptions,
    ) -> Result<Vec<(u32, f64)>> {
        let tokens = crate::tokenize::tokenize(query);
        self.search_tokens(&tokens, limit, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> KeywordIndex {
        let names = vec![
            "mcp__slack__send_message".to_string(),
            "FileEdit".to_string(),
            "whatsapp.send".to_string(),
        ];
        let parts = vec![
            vec!["slack", "send", "message"],
            vec!["file", "edit"],
            vec!["whatsapp", "send"],
        ];
        KeywordIndex::build(
            names,
            &parts,
            vec![true, false, false],
            &["post to a channel", "", ""],
            &[
                "Send a Slack message",
                "Edit a file in place",
                "Send a WhatsApp message",
            ],
        )
        .unwrap()
    }

    #[test]
    fn scores_follow_seed_001s_table() {
        let idx = index();
        let none = KeywordOptions::default();
        let cases: &[(&str, &[(u32, f64)])] = &[
            // exact MCP part 12 + description 2; non-MCP exact part 10 + description 2.
            ("send", &[(0, 14.0), (2, 12.0)]),
            ("slack", &[(0, 14.0)]),
            // substring of a part: 5 (6 for MCP); "mess" is not a description token.
            ("mess", &[(0, 6.0)]),
            ("channel", &[(0, 4.0)]),
            ("place", &[(1, 2.0)]),
            ("edit file", &[(1, 24.0)]),
            ("zzz", &[]),
        ];
        for (q, want) in cases {
            assert_eq!(idx.search(q, 25, &none).unwrap(), want.to_vec(), "{q}");
        }
    }

    #[test]
    fn required_terms_filter_without_scoring() {
        let idx = index();
        let opts = KeywordOptions {
            required: vec!["whatsapp".into()],
            ..KeywordOptions::default()
        };
        assert_eq!(idx.search("send", 25, &opts).unwrap(), vec![(2, 12.0)]);
        assert_eq!(
            idx.search("send", 1, &KeywordOptions::default())
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            idx.search("!!", 5, &KeywordOptions::default()),
            Err(Error::NoSearchableTerms)
        );
    }
}
