//! Claude Code `ToolSearch`'s keyword scorer, a second ranker beside BM25+ (`ranker="keyword"`).
//!
//! For each distinct query term, a tool scores (`ToolSearch`'s table, from the upstream CLI):
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

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use crate::error::{Error, Result, LIMIT_0};
use crate::text::tokenize::for_each_token;

type Map = HashMap<Box<str>, u32, ahash::RandomState>;

/// Points of Claude Code `ToolSearch`'s table.
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

/// Per-thread accumulators, reused across queries (see `search::Scratch`).
#[derive(Default)]
struct Scratch {
    score: Vec<f64>,
    touched: Vec<u32>,
    term: Vec<f64>,
    term_touched: Vec<u32>,
    required: Vec<u32>,
    required_touched: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// An immutable keyword index (Claude Code `ToolSearch`'s scorer).
#[derive(Debug, Clone)]
pub struct KeywordIndex {
    names: Vec<String>,
    mcp: Vec<bool>,
    /// Distinct name parts joined by `\0` (tokens never hold one), with each part's start
    /// offset: one substring search of this string finds every part containing a term.
    joined_parts: String,
    part_starts: Vec<usize>,
    /// For each distinct name part, the documents holding it.
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
        let mut joined_parts = String::new();
        let mut part_starts = Vec::with_capacity(keys.len());
        for key in &keys {
            part_starts.push(joined_parts.len());
            joined_parts.push_str(key);
            joined_parts.push('\0');
        }
        Ok(KeywordIndex {
            names,
            mcp,
            joined_parts,
            part_starts,
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

    /// Each matched document's points for one term: fills `sc.term` / `sc.term_touched`.
    fn term_points(&self, term: &str, sc: &mut Scratch) {
        let n = self.len();
        if sc.term.len() < n {
            sc.term.resize(n, 0.0);
        }
        let Scratch {
            term: points,
            term_touched: touched,
            ..
        } = sc;
        let mut add = |doc: u32, p: f64, only_if_new: bool| {
            let d = doc as usize;
            if points[d] == 0.0 {
                touched.push(doc);
            } else if only_if_new {
                return;
            }
            points[d] += p;
        };
        let exact_id = self.part_docs.ids.get(term).copied();
        if let Some(id) = exact_id {
            for &doc in self.part_docs.docs_of(id) {
                let p = if self.mcp[doc as usize] {
                    EXACT_PART_MCP
                } else {
                    EXACT_PART
                };
                add(doc, p, true);
            }
        }
        if !term.is_empty() {
            // memchr's SIMD substring search (~10x std's `match_indices` here); after a match,
            // the search resumes at the next part, so each part is found once.
            let hay = self.joined_parts.as_bytes();
            let finder = memchr::memmem::Finder::new(term.as_bytes());
            let mut pos = 0;
            while let Some(found) = finder.find(&hay[pos..]) {
                let at = pos + found;
                // The part holding this match; `part_starts` is ascending and starts at 0.
                let part = self.part_starts.partition_point(|&s| s <= at) - 1;
                pos = self.part_starts.get(part + 1).copied().unwrap_or(hay.len());
                if exact_id == Some(part as u32) {
                    continue;
                }
                for &doc in self.part_docs.docs_of(part as u32) {
                    let p = if self.mcp[doc as usize] {
                        SUBSTRING_PART_MCP
                    } else {
                        SUBSTRING_PART
                    };
                    add(doc, p, true);
                }
            }
        }
        for &doc in self.hints.get(term) {
            add(doc, HINT, false);
        }
        for &doc in self.descriptions.get(term) {
            add(doc, DESCRIPTION, false);
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
            return Err(Error::Unchecked(LIMIT_0));
        }
        let mut terms: Vec<&str> = Vec::new();
        for tok in tokens {
            if !terms.contains(&tok.as_ref()) {
                terms.push(tok.as_ref());
            }
        }
        let n = self.len();
        SCRATCH.with(|cell| {
            let mut sc = cell.borrow_mut();
            let sc = &mut *sc;
            if sc.score.len() < n {
                sc.score.resize(n, 0.0);
                sc.required.resize(n, 0);
            }
            for term in &terms {
                self.term_points(term, sc);
                for &doc in &sc.term_touched {
                    let d = doc as usize;
                    if sc.score[d] == 0.0 {
                        sc.touched.push(doc);
                    }
                    sc.score[d] += sc.term[d];
                    sc.term[d] = 0.0;
                }
                sc.term_touched.clear();
            }
            for term in &options.required {
                self.term_points(term, sc);
                for &doc in &sc.term_touched {
                    sc.required[doc as usize] += 1;
                    sc.term[doc as usize] = 0.0;
                }
                sc.required_touched.extend_from_slice(&sc.term_touched);
                sc.term_touched.clear();
            }
            let need = options.required.len() as u32;
            let mut hits: Vec<(u32, f64)> = sc
                .touched
                .iter()
                .map(|&doc| (doc, sc.score[doc as usize]))
                .filter(|&(doc, score)| {
                    score > 0.0
                        && sc.required[doc as usize] == need
                        && !options.exclude.contains(&doc)
                        && options
                            .include
                            .as_ref()
                            .map_or(true, |inc| inc.contains(&doc))
                })
                .collect();
            for &doc in &sc.touched {
                sc.score[doc as usize] = 0.0;
            }
            for &doc in &sc.required_touched {
                sc.required[doc as usize] = 0;
            }
            sc.touched.clear();
            sc.required_touched.clear();
            let by_rank = |a: &(u32, f64), b: &(u32, f64)| {
                b.1.total_cmp(&a.1)
                    .then_with(|| self.names[a.0 as usize].cmp(&self.names[b.0 as usize]))
                    .then_with(|| a.0.cmp(&b.0))
            };
            if hits.len() > limit {
                hits.select_nth_unstable_by(limit - 1, by_rank);
                hits.truncate(limit);
            }
            hits.sort_unstable_by(by_rank);
            Ok(hits)
        })
    }

    /// Tokenizes `query` and searches it; see [`KeywordIndex::search_tokens`].
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        options: &KeywordOptions,
    ) -> Result<Vec<(u32, f64)>> {
        let tokens = crate::text::tokenize::tokenize(query);
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
