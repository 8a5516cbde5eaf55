//! Analysis profiles: how text becomes index terms and query terms, on top of the tokenizer.
//!
//! A profile is chosen when an index is built and stored with it (snapshots record it).
//! `python/toolsift/_text/analysis.py` implements the same rules for the pure-Python engine; the two
//! must produce the same terms for every input (`tests/test_analysis.py` checks it with
//! Hypothesis over arbitrary Unicode).
//!
//! * [`Profile::Omp`] (`"omp"`; `"seed"` is accepted as an alias): the analysis of OMP
//!   `search_tool_bm25`. Document and query terms are the tokenizer's tokens; a repeated query
//!   term counts as often as it appears.
//! * [`Profile::English`] (the default of `ToolIndex`):
//!   - **CJK bigrams.** Each token is split at the boundaries between Han, Kana, Hangul and other
//!     characters ([`script_of`]); a Han, Kana or Hangul run of two or more characters becomes its
//!     overlapping character bigrams, a one-character run stays a unigram, other runs stay whole.
//!     The tokenizer's NFKD turns a Hangul syllable into conjoining jamo; the run is recomposed
//!     first (L V and L V T sequences to precomposed syllables, Unicode §3.12), so the bigrams
//!     are of syllables, as a reader sees them; leftover jamo stay single characters.
//!   - **Stemmed copies.** Every term of a scored field is indexed a second time as
//!     [`STEM_MARK`] + its Snowball English (Porter2) stem, at [`STEM_WEIGHT`] × the field's
//!     weight; the copy counts in the document length. Only all-ASCII terms are stemmed (the
//!     tokenizer's ASCII terms are `[a-z0-9]+`); other terms are copied unchanged. Weight-0 fields
//!     get no copies. Queries ask for both forms, so an exact form outscores a related one.
//!     `rust-stemmers` 1.2 implements Snowball 2.2's English algorithm, the same as the Python
//!     engine's `snowballstemmer` 2.2 (the two agree on every token of the shared catalogues).
//!   - **Query stop words.** [`STOPWORDS_EN`] are dropped from queries (never from documents),
//!     unless every query term is one.
//!   - **Distinct query terms.** Each distinct query term counts once (qtf = 1).
//!
//! Marked terms never take part in prefix matching (a marked query term expands to nothing, and
//! a plain one never reaches a marked term, which sorts apart). Required terms (`+term`) are
//! matched on plain terms only (CJK-split in the English profile, never stemmed). The coverage
//! rule counts analysed query terms, so a word and its stemmed copy are two of them (a document
//! that matches a word nearly always matches its copy). The exact-name tier reads tool names,
//! not terms, and is the same in both profiles.

mod cjk;
mod pairs;
mod stem;
mod stopwords;

use cjk::CjkBuffer;
pub use cjk::{script_of, Script};
pub use pairs::word_pairs;
use stem::STEM_CACHE;
pub use stem::{is_marked, stem_copy, stems_to_itself, STEM_MARK, STEM_QUERY_WEIGHT, STEM_WEIGHT};
pub use stopwords::{is_stopword, stopwords, STOPWORDS_EN};

use crate::error::{Error, Result};
use crate::text::tokenize::Tokenizer;
use crate::text::PackedStrings;

/// How an index turns text into terms (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// OMP `search_tool_bm25`'s analysis (named `"omp"`): the tokenizer's tokens, repeated query
    /// terms count.
    #[default]
    Omp,
    /// CJK bigrams, stemmed copies, query stop words, distinct query terms.
    English,
}

/// The names of the profiles, as `Profile::parse` accepts them and `Profile::name` gives them.
pub const PROFILE_NAMES: [&str; 2] = ["english", "omp"];

/// Other names `Profile::parse` accepts, with the name each stands for; never printed. `"seed"`
/// is the former name of `"omp"`, so that callers that still pass it keep working.
pub const PROFILE_ALIASES: [(&str, &str); 1] = [("seed", "omp")];

impl Profile {
    /// The profile called `name` (or an alias of it, see [`PROFILE_ALIASES`]).
    pub fn parse(name: &str) -> Result<Profile> {
        match name {
            "omp" | "seed" => Ok(Profile::Omp),
            "english" => Ok(Profile::English),
            _ => Err(Error::UnknownProfile(name.to_owned())),
        }
    }

    /// The profile's name (never an alias).
    pub fn name(self) -> &'static str {
        match self {
            Profile::Omp => "omp",
            Profile::English => "english",
        }
    }

    /// The profile's id in snapshots.
    pub fn id(self) -> u32 {
        match self {
            Profile::Omp => 0,
            Profile::English => 1,
        }
    }

    /// The profile with snapshot id `id`.
    pub fn from_id(id: u32) -> Option<Profile> {
        match id {
            0 => Some(Profile::Omp),
            1 => Some(Profile::English),
            _ => None,
        }
    }

    /// Whether documents get stemmed copies.
    pub fn stems(self) -> bool {
        self == Profile::English
    }

    /// Calls `f` with each plain term of `text` (the tokens, CJK-split in the English profile).
    pub fn for_each_term(self, tokenizer: &mut Tokenizer, text: &str, mut f: impl FnMut(&str)) {
        let ascii = text.is_ascii();
        match self {
            // The CJK split passes an ASCII token through unchanged, and every token of an ASCII
            // text is ASCII: such a text (most of a catalogue) skips the split's check per token.
            Profile::English if !ascii => {
                let mut buf = CjkBuffer::default();
                tokenizer.for_each_token_of(text, ascii, |tok| buf.split(tok, &mut f));
            }
            Profile::Omp | Profile::English => tokenizer.for_each_token_of(text, ascii, f),
        }
    }

    /// The plain terms of `text`, as owned strings.
    pub fn terms(self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut tokenizer = Tokenizer::new();
        self.for_each_term(&mut tokenizer, text, |t| out.push(t.to_owned()));
        out
    }

    /// The query terms of `query`, in order: the tokens as they are (seed), or the English
    /// profile's distinct plain terms without stop words, each followed by its stemmed copy
    /// unless an earlier term brought that copy (`files file` → `files §file file`).
    ///
    /// A word and its copy are adjacent so that scoring, which sums terms in this order, may add
    /// both in one pass where their documents are the same (`Index::accumulate`).
    pub fn query_terms(self, query: &str) -> Vec<String> {
        self.analyse_query(query).iter().map(String::from).collect()
    }

    /// [`Profile::query_terms`] in one buffer ([`QueryTerms`]): the search path's form, which
    /// allocates a few buffers per query instead of two strings per term (a long agent query
    /// holds 30-60 terms).
    pub fn analyse_query(self, query: &str) -> QueryTerms {
        self.analyse_query_for(query, None::<(u64, fn(&str) -> u32)>)
    }

    /// [`Profile::analyse_query`], also resolving each English term through `resolver`, a
    /// `(tag, resolve)` pair: `resolve` maps a term to a `u32` that depends only on the term and
    /// on what `tag` names (an index's term dictionary: [`crate::index::Index`] gives every one
    /// a tag of its own). The stem cache remembers each word's and copy's values under the tag,
    /// so a word that an earlier query against the same index asked for is not resolved again
    /// ([`QueryTerms::refs`]). The omp profile resolves nothing (its refs stay empty).
    pub fn analyse_query_for(
        self,
        query: &str,
        resolver: Option<(u64, impl Fn(&str) -> u32)>,
    ) -> QueryTerms {
        let mut tokenizer = Tokenizer::new();
        if self == Profile::Omp {
            // Capacities: a query's terms take at most about its length (NFKD may expand a
            // few characters; the buffers then grow), and a term holds at least a character.
            let mut tokens = QueryTerms::with_capacity(query.len(), query.len() / 2 + 1);
            self.for_each_term(&mut tokenizer, query, |t| tokens.push(t));
            return tokens;
        }
        // One pass, one hash lookup per query word: the word's entry in this thread's stem
        // cache gives its stemmed copy and tells whether this query already holds the word (a
        // stamp), and the copy's stored hash finds whether an earlier word brought the same copy.
        // Capacity: each word may bring a copy of its length plus the mark (2 bytes).
        let words = query.len() / 2 + 1;
        let mut out = QueryTerms::with_capacity(2 * query.len() + 2 * words, 2 * words);
        if resolver.is_some() {
            out.refs.reserve(2 * words);
        }
        STEM_CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            let mut pass = cache.start_query(words);
            let resolver = resolver
                .as_ref()
                .map(|(tag, f)| (*tag, f as &dyn Fn(&str) -> u32));
            let mut any = false;
            self.for_each_term(&mut tokenizer, query, |t| {
                if !is_stopword(t) {
                    any = true;
                    pass.add(&mut cache, t, &mut out, resolver);
                }
            });
            if !any {
                // Stop words only (or no term at all): keep them all.
                self.for_each_term(&mut tokenizer, query, |t| {
                    pass.add(&mut cache, t, &mut out, resolver)
                });
            }
        });
        // Distinct words, each followed by a copy no earlier word brought (a word and a copy
        // never collide: copies start with the mark, which the tokenizer never emits).
        out.distinct = true;
        out
    }

    /// The plain terms a required term (`+term`, one token) must all be found as.
    pub fn required_terms(self, term: &str) -> Vec<String> {
        match self {
            Profile::Omp => vec![term.to_owned()],
            Profile::English => {
                let mut out = Vec::new();
                CjkBuffer::default().split(term, &mut |t: &str| out.push(t.to_owned()));
                out
            }
        }
    }
}

/// A query's analysed terms, in order, in one buffer (a [`PackedStrings`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryTerms {
    terms: PackedStrings,
    /// Whether no term repeats (the English analysis dedupes; the seed's tokens may repeat).
    distinct: bool,
    /// Each term's resolved value, when the analysis had a resolver (else empty).
    refs: Vec<u32>,
}

impl QueryTerms {
    fn with_capacity(bytes: usize, terms: usize) -> Self {
        QueryTerms {
            terms: PackedStrings::with_capacity(bytes, terms),
            distinct: false,
            refs: Vec::new(),
        }
    }

    fn push(&mut self, term: &str) {
        self.terms.push(term);
    }

    /// Each term's value from the resolver of [`Profile::analyse_query_for`], in term order;
    /// empty without one (and in the seed profile).
    pub fn refs(&self) -> &[u32] {
        &self.refs
    }

    /// Whether the analysis guarantees that no term repeats.
    pub fn distinct(&self) -> bool {
        self.distinct
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Term `i` (panics past the end).
    pub fn get(&self, i: usize) -> &str {
        &self.terms[i]
    }

    /// The terms, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::stem::STEM_CACHE_SIZE;
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn query_terms_drop_stop_words_and_repeats_and_add_stems() {
        let p = Profile::English;
        assert_eq!(
            p.query_terms("how do I read the files, files"),
            ["read", "§read", "files", "§file"]
        );
        assert_eq!(
            p.query_terms("files file filing"),
            ["files", "§file", "file", "filing"]
        );
        assert_eq!(p.query_terms("the the"), ["the", "§the"]);
        assert_eq!(Profile::Omp.query_terms("a a b"), ["a", "a", "b"]);
        assert_eq!(stem_copy("running"), "§run");
        assert_eq!(stem_copy("café"), "§café");
    }

    #[test]
    fn long_queries_and_multibyte_terms_in_one_buffer() {
        // Past DISTINCT_SCAN_MAX kept words the sets hash; the copies of "file" and "files"
        // collide, and multibyte terms (a copy's mark, CJK bigrams) slice cleanly.
        let query = "files file café 日本語 read reads reading alpha beta gamma delta files";
        let terms = Profile::English.analyse_query(query);
        let owned: Vec<&str> = terms.iter().collect();
        assert_eq!(
            owned,
            [
                "files", "§file", "file", "cafe", "§cafe", "日本", "§日本", "本語", "§本語",
                "read", "§read", "reads", "reading", "alpha", "§alpha", "beta", "§beta", "gamma",
                "§gamma", "delta", "§delta"
            ]
        );
        assert_eq!(Profile::English.query_terms(query), owned);
        assert_eq!(terms.len(), owned.len());
        // The English terms are distinct, and say so (the search skips its dedupe pass); the
        // seed's tokens may repeat.
        let set: std::collections::HashSet<&str> = owned.iter().copied().collect();
        assert!(terms.distinct() && set.len() == owned.len());
        assert!(Profile::English.analyse_query("the the").distinct());
        let seed = Profile::Omp.analyse_query("Ünïcode café  a a");
        assert_eq!(
            seed.iter().collect::<Vec<_>>(),
            ["unicode", "cafe", "a", "a"]
        );
        assert!(!seed.distinct());
        assert!(Profile::Omp.analyse_query("  ,;  ").is_empty());
    }

    /// The English query analysis as its documentation states it, one step at a time: the
    /// terms, the stop words dropped (unless every term is one), the first occurrence of each,
    /// each followed by its stemmed copy unless an earlier term brought that copy.
    fn english_query_spec(query: &str) -> Vec<String> {
        let tokens = Profile::English.terms(query);
        let mut kept: Vec<&String> = tokens.iter().filter(|t| !is_stopword(t)).collect();
        if kept.is_empty() {
            kept = tokens.iter().collect();
        }
        let (mut words, mut copies) = (HashSet::new(), HashSet::new());
        let mut out = Vec::new();
        for t in kept {
            if words.insert(t.clone()) {
                out.push(t.clone());
                let copy = stem_copy(t);
                if copies.insert(copy.clone()) {
                    out.push(copy);
                }
            }
        }
        out
    }

    #[test]
    fn the_one_pass_english_analysis_is_its_specification() {
        // Random queries over inflected forms (shared copies), stop words, repeats, case,
        // non-ASCII and CJK text, and enough distinct words (3x the stem cache's generation) that
        // words leave the cache, come back from its old generation, and turn it over mid-query.
        let fixed = [
            "file",
            "files",
            "Filing",
            "filed",
            "the",
            "a",
            "THE",
            "read",
            "reads",
            "reading",
            "café",
            "cafe",
            "日本語",
            "データ",
            "한국어",
            "x",
            "7",
            "mp3",
            "run",
            "running",
            "ran",
            "please",
            "me",
            "e.g.",
            "--",
            "naïve",
            "Ω",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut fresh = 0usize;
        for round in 0..20_000 {
            let words = 1 + next(if round % 10 == 0 { 70 } else { 12 });
            let query: Vec<String> = (0..words)
                .map(|_| match next(2) {
                    0 => {
                        fresh += 1;
                        format!("word{}ing", fresh % (3 * STEM_CACHE_SIZE))
                    }
                    _ => fixed[next(fixed.len())].to_owned(),
                })
                .collect();
            let query = query.join(if round % 2 == 0 { " " } else { ", " });
            let got: Vec<String> = Profile::English
                .analyse_query(&query)
                .iter()
                .map(String::from)
                .collect();
            assert_eq!(got, english_query_spec(&query), "{query}");
        }
        assert!(
            fresh > 3 * STEM_CACHE_SIZE,
            "{fresh} new words: no turnover"
        );
        assert!(Profile::English.analyse_query("").is_empty());
        assert!(Profile::English.analyse_query("  ,;  ").is_empty());
    }

    #[test]
    fn profiles_parse_and_round_trip() {
        for name in PROFILE_NAMES {
            let p = Profile::parse(name).unwrap();
            assert_eq!(p.name(), name);
            assert_eq!(Profile::from_id(p.id()), Some(p));
        }
        assert!(matches!(
            Profile::parse("klingon"),
            Err(Error::UnknownProfile(_))
        ));
        assert_eq!(Profile::from_id(7), None);
        // A former name parses to its profile, which is then named by its own name only; the
        // snapshot id is unchanged (0), so indexes saved under the former name still load.
        for (alias, name) in PROFILE_ALIASES {
            assert!(!PROFILE_NAMES.contains(&alias));
            assert_eq!(Profile::parse(alias).map(Profile::name), Ok(name));
        }
        assert_eq!(Profile::parse("seed").map(Profile::id), Ok(0));
        let message = Profile::parse("Seed").map_err(|e| e.to_string());
        assert_eq!(
            message,
            Err(
                "Unknown analysis profile \"Seed\": use \"english\" (the default) or \"omp\"."
                    .to_owned()
            )
        );
    }
}
