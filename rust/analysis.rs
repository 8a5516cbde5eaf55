//! Analysis profiles: how text becomes index terms and query terms, on top of the tokenizer.
//!
//! A profile is chosen when an index is built and stored with it (snapshots record it).
//! `python/toolsift/_analysis.py` implements the same rules for the pure-Python engine; the two
//! must produce the same terms for every input (`tests/test_analysis.py` checks it with
//! Hypothesis over arbitrary Unicode).
//!
//! * [`Profile::Seed`]: seed 000's analysis. Document and query terms are the tokenizer's
//!   tokens; a repeated query term counts as often as it appears.
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

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::tokenize::Tokenizer;

/// The prefix of stemmed copies: `§`, which the tokenizer never emits (it is punctuation).
pub const STEM_MARK: char = '\u{a7}';

/// The weight of a stemmed copy, as a fraction of its field's weight.
pub const STEM_WEIGHT: f64 = 0.5;

/// English stop words, dropped from queries by the English profile: the Lucene/Elasticsearch
/// `_english_` list plus common question and request words of agent queries. The Python engine's
/// `toolsift._analysis.STOPWORDS_EN` is the same list (a test compares them).
pub const STOPWORDS_EN: [&str; 86] = [
    "a", "about", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been",
    "being", "but", "by", "can", "could", "did", "do", "does", "for", "from", "get", "had", "has",
    "have", "he", "help", "her", "him", "how", "i", "if", "in", "into", "is", "it", "its", "just",
    "me", "my", "need", "no", "not", "of", "on", "or", "our", "please", "she", "should", "so",
    "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they",
    "this", "to", "too", "use", "using", "very", "via", "want", "was", "we", "what", "when",
    "where", "which", "who", "whom", "why", "will", "with", "would", "you", "your",
];

/// Whether `term` is one of the English profile's query stop words.
pub fn is_stopword(term: &str) -> bool {
    // The list is sorted.
    STOPWORDS_EN.binary_search(&term).is_ok()
}

/// Every stop word, sorted.
pub fn stopwords() -> impl Iterator<Item = &'static str> {
    STOPWORDS_EN.iter().copied()
}

/// How an index turns text into terms (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// Seed 000's analysis: the tokenizer's tokens, repeated query terms count.
    #[default]
    Seed,
    /// CJK bigrams, stemmed copies, query stop words, distinct query terms.
    English,
}

/// The names of the profiles, as `Profile::parse` accepts them.
pub const PROFILE_NAMES: [&str; 2] = ["english", "seed"];

impl Profile {
    /// The profile called `name`.
    pub fn parse(name: &str) -> Result<Profile> {
        match name {
            "seed" => Ok(Profile::Seed),
            "english" => Ok(Profile::English),
            _ => Err(Error::UnknownProfile(name.to_owned())),
        }
    }

    /// The profile's name.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Seed => "seed",
            Profile::English => "english",
        }
    }

    /// The profile's id in snapshots.
    pub fn id(self) -> u32 {
        match self {
            Profile::Seed => 0,
            Profile::English => 1,
        }
    }

    /// The profile with snapshot id `id`.
    pub fn from_id(id: u32) -> Option<Profile> {
        match id {
            0 => Some(Profile::Seed),
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
        match self {
            // The CJK split passes an ASCII token through unchanged, and every token of an ASCII
            // text is ASCII: such a text (most of a catalogue) skips the split's check per token.
            Profile::Seed => tokenizer.for_each_token(text, f),
            Profile::English if text.is_ascii() => tokenizer.for_each_token(text, f),
            Profile::English => {
                let mut buf = CjkBuffer::default();
                tokenizer.for_each_token(text, |tok| buf.split(tok, &mut f));
            }
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
        let terms = self.terms(query);
        if self == Profile::Seed {
            return terms;
        }
        let kept: Vec<&String> = terms.iter().filter(|t| !is_stopword(t)).collect();
        let kept = if kept.is_empty() {
            terms.iter().collect()
        } else {
            kept
        };
        // First-seen order. Agents' queries run from one word to ~60: short ones scan what is
        // already kept (no hashing, no allocation), long ones hash it. A plain term and a copy
        // never collide (copies start with the mark, which the tokenizer never emits).
        let long = kept.len() > DISTINCT_SCAN_MAX;
        let mut out: Vec<String> = Vec::with_capacity(kept.len() * 2);
        let mut seen: HashSet<String, ahash::RandomState> = HashSet::default();
        for t in kept {
            let new = if long {
                seen.insert(t.clone())
            } else {
                !out.contains(t)
            };
            if !new {
                continue;
            }
            out.push(t.clone());
            let copy = stem_copy_cached(t);
            let new = if long {
                seen.insert(copy.clone())
            } else {
                !out.contains(&copy)
            };
            if new {
                out.push(copy);
            }
        }
        out
    }

    /// The plain terms a required term (`+term`, one token) must all be found as.
    pub fn required_terms(self, term: &str) -> Vec<String> {
        match self {
            Profile::Seed => vec![term.to_owned()],
            Profile::English => {
                let mut out = Vec::new();
                CjkBuffer::default().split(term, &mut |t: &str| out.push(t.to_owned()));
                out
            }
        }
    }
}

/// Whether `term` is a stemmed copy.
pub fn is_marked(term: &str) -> bool {
    term.starts_with(STEM_MARK)
}

/// Up to this many query terms, first-seen detection scans instead of hashing.
const DISTINCT_SCAN_MAX: usize = 8;

/// How many query words each thread remembers the stemmed copy of (see [`stem_copy_cached`]).
const STEM_CACHE_SIZE: usize = 4096;

thread_local! {
    /// This thread's recent query words and their stemmed copies.
    static STEM_CACHE: std::cell::RefCell<StemCache> =
        std::cell::RefCell::new(StemCache::default());
}

/// A thread's query words and their stemmed copies (`ahash`: a query's words are few and short,
/// and SipHash would cost more than the lookup saves).
type StemCache = std::collections::HashMap<Box<str>, Box<str>, ahash::RandomState>;

/// [`stem_copy`] through a per-thread cache of the last few thousand query words: agents repeat
/// their vocabulary, and a lookup costs a small fraction of running the Snowball algorithm.
/// Stemming is a pure function, so the result is the same; a full cache is simply emptied.
pub fn stem_copy_cached(term: &str) -> String {
    STEM_CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(copy) = cache.get(term) {
            return copy.to_string();
        }
        let copy = stem_copy(term);
        if cache.len() >= STEM_CACHE_SIZE {
            cache.clear();
        }
        cache.insert(term.into(), copy.as_str().into());
        copy
    })
}

/// The stemmed copy of a plain term: [`STEM_MARK`] + its Porter2 stem (all-ASCII terms) or
/// the term itself (any other).
pub fn stem_copy(term: &str) -> String {
    let mut out = String::with_capacity(term.len() + 2);
    out.push(STEM_MARK);
    if term.is_ascii() {
        out.push_str(&stemmer().stem(term));
    } else {
        out.push_str(term);
    }
    out
}

fn stemmer() -> &'static rust_stemmers::Stemmer {
    static STEMMER: std::sync::OnceLock<rust_stemmers::Stemmer> = std::sync::OnceLock::new();
    STEMMER.get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English))
}

/// The script classes of the CJK split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    Han,
    Kana,
    Hangul,
    Other,
}

/// The script class of a character of a token (after the tokenizer's NFKD and lowercasing).
///
/// * Han: U+3005–U+3007 (々 〆 〇), U+3400–U+4DBF, U+4E00–U+9FFF, U+F900–U+FAFF,
///   U+20000–U+3FFFF.
/// * Kana: U+3040–U+309F, U+30A0–U+30FF, U+31F0–U+31FF, U+FF66–U+FF9F, U+1B000–U+1B16F.
/// * Hangul: U+1100–U+11FF, U+3130–U+318F, U+A960–U+A97F, U+AC00–U+D7AF, U+D7B0–U+D7FF,
///   U+FFA0–U+FFDC.
/// * Other: everything else.
pub fn script_of(c: char) -> Script {
    match c as u32 {
        0x3005..=0x3007 | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => Script::Han,
        0x20000..=0x3FFFF => Script::Han,
        0x3040..=0x309F | 0x30A0..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Script::Kana,
        0x1B000..=0x1B16F => Script::Kana,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xA960..=0xA97F | 0xAC00..=0xD7FF => Script::Hangul,
        0xFFA0..=0xFFDC => Script::Hangul,
        _ => Script::Other,
    }
}

/// Hangul composition (Unicode §3.12): an L V pair or an LV syllable and a T.
fn compose_hangul(prev: char, c: char) -> Option<char> {
    let (p, x) = (prev as u32, c as u32);
    if (0x1100..=0x1112).contains(&p) && (0x1161..=0x1175).contains(&x) {
        return char::from_u32(0xAC00 + ((p - 0x1100) * 21 + (x - 0x1161)) * 28);
    }
    if (0xAC00..=0xD7A3).contains(&p) && (p - 0xAC00) % 28 == 0 && (0x11A8..=0x11C2).contains(&x) {
        return char::from_u32(p + (x - 0x11A7));
    }
    None
}

/// Buffers of the CJK split, kept across the tokens of one text.
#[derive(Default)]
struct CjkBuffer {
    chars: Vec<char>,
    out: String,
}

impl CjkBuffer {
    /// Calls `f` with the terms of one token (see the module docs).
    fn split(&mut self, tok: &str, f: &mut impl FnMut(&str)) {
        if tok.is_ascii() {
            f(tok);
            return;
        }
        self.chars.clear();
        for c in tok.chars() {
            match self.chars.last().and_then(|&p| compose_hangul(p, c)) {
                Some(composed) => {
                    if let Some(last) = self.chars.last_mut() {
                        *last = composed;
                    }
                }
                None => self.chars.push(c),
            }
        }
        let chars = &self.chars;
        let mut start = 0;
        while start < chars.len() {
            let script = script_of(chars[start]);
            let mut end = start + 1;
            while end < chars.len() && script_of(chars[end]) == script {
                end += 1;
            }
            let run = &chars[start..end];
            if script == Script::Other || run.len() == 1 {
                self.out.clear();
                self.out.extend(run);
                f(&self.out);
            } else {
                for pair in run.windows(2) {
                    self.out.clear();
                    self.out.extend(pair);
                    f(&self.out);
                }
            }
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopword_lists_are_sorted_and_distinct() {
        let all: Vec<&str> = stopwords().collect();
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(all.len(), 86);
        assert!(is_stopword("the") && is_stopword("would") && !is_stopword("file"));
    }

    #[test]
    fn cjk_split_and_hangul_recomposition() {
        let p = Profile::English;
        assert_eq!(
            p.terms("获取天气 weather"),
            ["获取", "取天", "天气", "weather"]
        );
        assert_eq!(p.terms("天气2x"), ["天气", "2x"]);
        assert_eq!(p.terms("東京タワー"), ["東京", "タワ", "ワー"]);
        assert_eq!(p.terms("天"), ["天"]);
        // Syllables survive the tokenizer's NFKD as bigrams of syllables.
        assert_eq!(p.terms("날씨 정보"), ["날씨", "정보"]);
        assert_eq!(p.terms("날씨정보"), ["날씨", "씨정", "정보"]);
        assert_eq!(Profile::Seed.terms("获取天气"), ["获取天气"]);
    }

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
        assert_eq!(Profile::Seed.query_terms("a a b"), ["a", "a", "b"]);
        assert_eq!(stem_copy("running"), "§run");
        assert_eq!(stem_copy("café"), "§café");
    }

    #[test]
    fn the_stem_cache_gives_what_stemming_gives_past_its_capacity() {
        let words: Vec<String> = (0..super::STEM_CACHE_SIZE + 100)
            .map(|i| format!("testing{i}s"))
            .chain(["running", "café", "files", "running"].map(String::from))
            .collect();
        for _ in 0..2 {
            for w in &words {
                assert_eq!(stem_copy_cached(w), stem_copy(w), "{w}");
            }
        }
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
    }
}
