//! Stemmed copies (the English profile): [`STEM_MARK`] + a term's Porter2 stem, and the
//! per-thread cache of recent query words with their copies that the query analysis reads.

use hashbrown::hash_table::HashTable;

use super::QueryTerms;

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

/// Whether `term` is a stemmed copy.
pub fn is_marked(term: &str) -> bool {
    term.starts_with(STEM_MARK)
}

/// How many query words each generation of a thread's stem cache holds (see [`StemCache`]): the
/// thread remembers the last 16k-32k distinct words, about 2-4 MB at most. An agent's vocabulary
/// is larger than it seems: mcp_mixed's first 200 labeled queries hold 4,448 distinct words,
/// which a 4,096-word cache emptied when full never kept (each search stemmed ~20 words again,
/// ~6 µs).
pub(super) const STEM_CACHE_SIZE: usize = 16_384;

thread_local! {
    /// This thread's recent query words and their stemmed copies.
    pub(super) static STEM_CACHE: std::cell::RefCell<StemCache> =
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
pub(super) struct StemCache {
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
    pub(super) fn start_query(&mut self, words: usize) -> QueryPass {
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
pub(super) struct QueryPass {
    stamp: u64,
    copies: HashTable<(u64, u32)>,
}

impl QueryPass {
    /// Appends `term` to `out` unless this query already holds it, followed by its stemmed copy
    /// unless an earlier word brought the same copy.
    ///
    /// With a `resolver` (see [`Profile::analyse_query_for`]), each pushed term's value is pushed
    /// to `out.refs`: from the word's entry when it was resolved under the same tag.
    pub(super) fn add(
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

/// The longest term that is stemmed, in bytes (= characters: only all-ASCII terms are stemmed).
/// The Snowball algorithm is quadratic in the word's length (one 800 KB word took ~26 s), and
/// no English word is this long; a longer term's copy is the term itself, in both engines
/// (`toolsift._text.analysis.MAX_STEM_LENGTH`).
pub const MAX_STEM_LENGTH: usize = 64;

/// The stemmed copy of a plain term: [`STEM_MARK`] + its Porter2 stem (all-ASCII terms of at
/// most [`MAX_STEM_LENGTH`] characters) or the term itself (any other).
pub fn stem_copy(term: &str) -> String {
    let mut out = String::with_capacity(term.len() + 2);
    out.push(STEM_MARK);
    if stems_to_itself(term) {
        out.push_str(term);
    } else {
        out.push_str(&stemmer().stem(term));
    }
    out
}

/// Whether `term`'s stemmed copy is [`STEM_MARK`] + the term itself, known without running the
/// Snowball algorithm: a term that is not stemmed (not all ASCII, or longer than
/// [`MAX_STEM_LENGTH`]), one of fewer than 3 characters (Porter2 leaves those as they are), or
/// one of lowercase letters and digits that ends in a digit (every Porter2 step removes or
/// replaces a suffix of letters, and its `y`/`Y` marking is undone at the end). Catalogues hold
/// many such terms (version numbers, ids, counts), each new to a chunk, and stemming one costs
/// ~1 µs. `tests::the_shortcut_is_what_the_stemmer_gives` holds it to the stemmer.
#[inline]
pub fn stems_to_itself(term: &str) -> bool {
    let bytes = term.as_bytes();
    if bytes.len() < 3 || bytes.len() > MAX_STEM_LENGTH || !term.is_ascii() {
        return true;
    }
    bytes.last().is_some_and(u8::is_ascii_digit)
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

fn stemmer() -> &'static rust_stemmers::Stemmer {
    static STEMMER: std::sync::OnceLock<rust_stemmers::Stemmer> = std::sync::OnceLock::new();
    STEMMER.get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The terms [`stems_to_itself`] passes through are those the stemmer returns unchanged:
    /// every string of up to 3 characters over an alphabet with the stemmer's special characters
    /// (`y`, `Y`, the apostrophe, vowels, capitals, digits), and random longer ones.
    #[test]
    fn the_shortcut_is_what_the_stemmer_gives() {
        let alphabet = b"aeiysYA'z09";
        let slow = |t: &str| stemmer().stem(t).into_owned();
        let mut checked = 0;
        for len in 0..=3u32 {
            for n in 0..alphabet.len().pow(len) {
                let mut n = n;
                let term: String = (0..len)
                    .map(|_| {
                        let c = alphabet[n % alphabet.len()];
                        n /= alphabet.len();
                        char::from(c)
                    })
                    .collect();
                if stems_to_itself(&term) && term.len() <= MAX_STEM_LENGTH {
                    assert_eq!(slow(&term), term, "{term:?}");
                    checked += 1;
                }
            }
        }
        let letters = b"abcdeghilnorstuyYz'0123456789";
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..200_000 {
            let len = 3 + next(14);
            let mut term: String = (0..len)
                .map(|_| char::from(letters[next(letters.len())]))
                .collect();
            if next(2) == 0 {
                term.push(char::from(b'0' + next(10) as u8));
            }
            let expected = if term.is_ascii() && term.len() <= MAX_STEM_LENGTH {
                slow(&term)
            } else {
                term.clone()
            };
            if stems_to_itself(&term) {
                assert_eq!(expected, term, "{term:?}");
                checked += 1;
            }
            assert_eq!(
                stem_copy(&term),
                format!("{STEM_MARK}{expected}"),
                "{term:?}"
            );
        }
        assert!(checked > 50_000, "{checked} terms took the shortcut");
        for word in ["mp3", "v2", "ec2", "s3", "http2", "x", "is", "as"] {
            assert!(stems_to_itself(word), "{word}");
        }
        for word in ["files", "running", "yes", "2fa", "Y1", "a'1"] {
            assert!(!stems_to_itself(word) || word.len() < 3, "{word}");
        }
    }

    #[test]
    fn a_term_past_the_stem_length_is_copied_unchanged() {
        let long = "ay".repeat(400_000);
        assert_eq!(stem_copy(&long), format!("{STEM_MARK}{long}"));
        let at_cap = "x".repeat(MAX_STEM_LENGTH - 7) + "walking";
        assert_eq!(
            stem_copy(&at_cap),
            format!("{STEM_MARK}{}", &at_cap[..at_cap.len() - 3])
        );
        let past = at_cap + "s";
        assert_eq!(stem_copy(&past), format!("{STEM_MARK}{past}"));
    }
}
