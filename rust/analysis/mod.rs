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

use hashbrown::hash_table::HashTable;

use crate::error::{Error, Result};
use crate::text::tokenize::Tokenizer;
use crate::text::PackedStrings;

/// The prefix of stemmed copies: `§`, which the tokenizer never emits (it is punctuation).
pub const STEM_MARK: char = '\u{a7}';

/// The weight of a stemmed copy, as a fraction of its field's weight.
pub const STEM_WEIGHT: f64 = 0.5;

/// The query-term frequency a stemmed copy counts for in a query (a plain term: 1 an occurrence):
/// the evidence that a tool holds some form of the word counts twice, so that a plural query word
/// finds a singular name ("restaurants" and `RestaurantBookingTool`) over a description that
/// merely repeats the plural. nDCG@10 (mcp_mixed strict / metatool / gorilla_hf), copies counted
/// once: 0.6426 / 0.5587 / 0.2625; twice: 0.6430 / 0.5658 / 0.2671; three times: 0.6395 /
/// 0.5669 / 0.2707 (BENCHMARKS.md, "Retrieval quality").
pub const STEM_QUERY_WEIGHT: f64 = 2.0;

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
///
/// Every stop word fits in 8 bytes, so each is one `u64` (its bytes, zero-padded), kept in an
/// open-addressing table of `STOP_SLOTS` slots (under 10 % full): a query word costs one
/// multiply and, almost always, one slot read. (A string binary search compared ~7 strings
/// through `memcmp` per query word; a binary search over the integers still took ~7
/// unpredictable branches, ~20 % of a long query's analysis.)
pub fn is_stopword(term: &str) -> bool {
    static TABLE: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    let Some(key) = pack8(term) else {
        return false; // longer than every stop word
    };
    let table = TABLE.get_or_init(|| {
        let mut table = vec![0u64; STOP_SLOTS];
        for w in STOPWORDS_EN {
            let key = pack8(w).expect("stop words are at most 8 bytes");
            let mut i = stop_slot(key);
            while table[i] != 0 {
                i = (i + 1) % STOP_SLOTS;
            }
            table[i] = key;
        }
        table
    });
    // Keys are never 0 (a term has a first byte, and no NUL), the empty slot's value.
    let mut i = stop_slot(key);
    loop {
        match table[i] {
            0 => return false,
            k if k == key => return true,
            _ => i = (i + 1) % STOP_SLOTS,
        }
    }
}

/// Slots of the stop-word table: a power of two, over ten times the stop words.
const STOP_SLOTS: usize = 1024;

/// A packed word's home slot (Fibonacci hashing: the top 10 bits of the product).
fn stop_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - STOP_SLOTS.trailing_zeros())) as usize
}

/// `word`'s bytes as one integer (big-endian, zero-padded, so that distinct words give distinct
/// integers), or `None` past 8 bytes or with a NUL byte (which the tokenizer never emits, and no
/// stop word holds).
fn pack8(word: &str) -> Option<u64> {
    let bytes = word.as_bytes();
    if bytes.len() > 8 {
        return None;
    }
    let mut packed = 0u64;
    for (i, &b) in bytes.iter().enumerate() {
        if b == 0 {
            return None;
        }
        packed |= u64::from(b) << (56 - 8 * i);
    }
    Some(packed)
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
    /// ([`QueryTerms::refs`]). The seed profile resolves nothing (its refs stay empty).
    pub fn analyse_query_for(
        self,
        query: &str,
        resolver: Option<(u64, impl Fn(&str) -> u32)>,
    ) -> QueryTerms {
        let mut tokenizer = Tokenizer::new();
        if self == Profile::Seed {
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
            Profile::Seed => vec![term.to_owned()],
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

/// Whether `term` is a stemmed copy.
pub fn is_marked(term: &str) -> bool {
    term.starts_with(STEM_MARK)
}

/// How many query words each generation of a thread's stem cache holds (see [`StemCache`]): the
/// thread remembers the last 16k-32k distinct words, about 2-4 MB at most. An agent's vocabulary
/// is larger than it seems: mcp_mixed's first 200 labeled queries hold 4,448 distinct words,
/// which a 4,096-word cache emptied when full never kept (each search stemmed ~20 words again,
/// ~6 µs).
const STEM_CACHE_SIZE: usize = 16_384;

thread_local! {
    /// This thread's recent query words and their stemmed copies.
    static STEM_CACHE: std::cell::RefCell<StemCache> =
        std::cell::RefCell::new(StemCache::default());
}

/// A remembered query word: its stemmed copy ([`stem_copy`]), the copy's hash, and the stamp of
/// the last query of this thread that held the word.
struct CachedWord {
    word: Box<str>,
    copy: Box<str>,
    copy_hash: u64,
    stamp: u64,
    /// `(tag, word's value, copy's value)` from the last resolver (tag 0: none yet; see
    /// [`Profile::analyse_query_for`]).
    refs: (u64, u32, u32),
}

/// A thread's recent query words in two generations: new words go to `young`; when it is full
/// it becomes `old` (the previous `old` is dropped), and a word found in `old` moves back to
/// `young`. Words in use survive every turnover, so a working set up to the capacity never
/// misses, and a larger one loses only part of its hits (a cache emptied when full would lose
/// them all, over and over). Agents repeat their vocabulary, and a lookup costs a small fraction
/// of running the Snowball algorithm (~33 ns against ~280 ns); stemming is a pure function, so
/// the result is the same. (`ahash`: a query's words are few and short, and SipHash would cost
/// more than the lookup saves.)
#[derive(Default)]
struct StemCache {
    young: HashTable<CachedWord>,
    old: HashTable<CachedWord>,
    hasher: ahash::RandomState,
    /// The stamp of this thread's last query (stamps start at 1; a new word holds 0).
    last_stamp: u64,
}

impl StemCache {
    /// `term`'s entry, stemming it only when neither generation holds it.
    fn word(&mut self, term: &str) -> &mut CachedWord {
        let StemCache {
            young, old, hasher, ..
        } = self;
        let hash = hasher.hash_one(term);
        let same = |w: &CachedWord| &*w.word == term;
        // (`find_entry`, whose miss gives the table back: the borrow checker cannot end a
        // conditional return's borrow of `young` before the insertion below.)
        let young = match young.find_entry(hash, same) {
            Ok(found) => return found.into_mut(),
            Err(absent) => absent.into_table(),
        };
        let entry = match old.find_entry(hash, same) {
            Ok(found) => found.remove().0,
            Err(_) => {
                let copy: Box<str> = stem_copy(term).into();
                CachedWord {
                    word: term.into(),
                    copy_hash: hasher.hash_one(&*copy),
                    copy,
                    stamp: 0,
                    refs: (0, 0, 0),
                }
            }
        };
        if young.len() >= STEM_CACHE_SIZE {
            *old = std::mem::take(young);
        }
        young
            .insert_unique(hash, entry, |w| hasher.hash_one(&*w.word))
            .into_mut()
    }

    /// A new query of about `words` words.
    fn start_query(&mut self, words: usize) -> QueryPass {
        self.last_stamp += 1;
        QueryPass {
            stamp: self.last_stamp,
            copies: HashTable::with_capacity(words.min(64)),
        }
    }
}

/// A tag and the function that resolves terms under it (see [`Profile::analyse_query_for`]).
type Resolver<'a> = (u64, &'a dyn Fn(&str) -> u32);

/// One query's analysis state: its stamp, and the copies it holds (their hash and their index
/// in the output).
struct QueryPass {
    stamp: u64,
    copies: HashTable<(u64, u32)>,
}

impl QueryPass {
    /// Appends `term` to `out` unless this query already holds it, followed by its stemmed copy
    /// unless an earlier word brought the same copy.
    ///
    /// With a `resolver` (see [`Profile::analyse_query_for`]), each pushed term's value is pushed
    /// to `out.refs`: from the word's entry when it was resolved under the same tag.
    fn add(
        &mut self,
        cache: &mut StemCache,
        term: &str,
        out: &mut QueryTerms,
        resolver: Option<Resolver<'_>>,
    ) {
        let word = cache.word(term);
        if word.stamp == self.stamp {
            return; // a repeat
        }
        word.stamp = self.stamp;
        out.push(term);
        let copy_ref = resolver.map(|(tag, resolve)| {
            if word.refs.0 != tag {
                word.refs = (tag, resolve(term), resolve(&word.copy));
            }
            out.refs.push(word.refs.1);
            word.refs.2
        });
        let (hash, copy) = (word.copy_hash, &*word.copy);
        let terms = &out.terms;
        let new = self
            .copies
            .find(hash, |&(h, i)| {
                h == hash && terms.get(i as usize) == Some(copy)
            })
            .is_none();
        if new {
            let at = out.len() as u32;
            self.copies.insert_unique(hash, (hash, at), |&(h, _)| h);
            out.push(copy);
            out.refs.extend(copy_ref);
        }
    }
}

/// Calls `f` with `term`'s stemmed copy ([`stem_copy`]) through this thread's stem cache,
/// without copying it out (for the cache's tests: the analysis reads the cache itself).
#[cfg(test)]
fn with_stem_copy<R>(term: &str, f: impl FnOnce(&str) -> R) -> R {
    STEM_CACHE.with(|cache| f(&cache.borrow_mut().word(term).copy))
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
    use std::collections::HashSet;

    #[test]
    fn stopword_lists_are_sorted_and_distinct() {
        let all: Vec<&str> = stopwords().collect();
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(all.len(), 86);
        assert!(is_stopword("the") && is_stopword("would") && !is_stopword("file"));
        // The packed test answers as the list does, on every stop word, their prefixes and
        // extensions, and words past 8 bytes.
        for w in STOPWORDS_EN {
            assert!(is_stopword(w), "{w}");
            for cut in 1..w.len() {
                assert_eq!(
                    is_stopword(&w[..cut]),
                    STOPWORDS_EN.contains(&&w[..cut]),
                    "{w}"
                );
            }
            for more in ["s", "x", "\0", "abcdefgh"] {
                let long = format!("{w}{more}");
                assert_eq!(is_stopword(&long), STOPWORDS_EN.contains(&long.as_str()));
            }
        }
        assert!(!is_stopword("") && !is_stopword("shoulder") && !is_stopword("pleasepls"));
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
        let seed = Profile::Seed.analyse_query("Ünïcode café  a a");
        assert_eq!(
            seed.iter().collect::<Vec<_>>(),
            ["unicode", "cafe", "a", "a"]
        );
        assert!(!seed.distinct());
        assert!(Profile::Seed.analyse_query("  ,;  ").is_empty());
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
    fn the_stem_cache_gives_what_stemming_gives_past_its_capacity() {
        let words: Vec<String> = (0..2 * super::STEM_CACHE_SIZE + 100)
            .map(|i| format!("testing{i}s"))
            .chain(["running", "café", "files", "running"].map(String::from))
            .collect();
        for _ in 0..2 {
            for w in &words {
                assert_eq!(with_stem_copy(w, str::to_owned), stem_copy(w), "{w}");
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
