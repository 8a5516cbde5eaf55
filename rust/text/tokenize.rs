//! Text -> terms: OMP `search_tool_bm25`'s tokenizer, byte for byte.
//!
//! # The rule (`search_tool_bm25`'s `tokenize`)
//!
//! NFKD-normalize; drop combining marks (general category `M*`); split `ACRONYMWord` (insert a
//! space between `[Lu]+` and `[Lu][Ll]`), then camelCase and digit→Upper (between `[Ll N]` and
//! `[Lu]`); every character that is not a letter (`L*`) or number (`N*`) becomes a separator;
//! lowercase; split on whitespace and drop empty tokens.
//!
//! `python/toolsift/_text/tokenize.py` implements the same rule and the two must agree on every input
//! (`tests/data/tokenize_cases.jsonl` checks it from both sides); `tests/test_tokenize.py` checks
//! the Python one against an independent reference port of `search_tool_bm25`.
//!
//! # How it is computed
//!
//! * **Unicode 14.0, from generated tables.** Categories, decompositions, lowercase mappings and
//!   the case properties come only from `unicode_tables.rs`, generated from Python 3.11's
//!   `unicodedata` (Unicode 14.0.0) by `scripts/gen_unicode_tables.py`, which also writes the
//!   Python engine's copy. Neither engine uses its runtime's Unicode data (Rust's `char` methods
//!   are Unicode 16+, Python's vary by version), so both agree everywhere, and equal the
//!   reference on Python 3.11. Code points unassigned in 14.0 are separators.
//! * **Per character.** Every character with a non-zero canonical combining class is a mark, so
//!   "NFKD, then drop marks" of a string is the concatenation of it over the characters (the
//!   canonical reordering only moves characters that get dropped). The tables hold it per code
//!   point: marks map to nothing, other characters to themselves or to their listed
//!   decomposition; Hangul syllables decompose algorithmically into conjoining jamo.
//! * **Classes and boundaries.** Each mapped character is Lu, Ll, another letter (Lt, Lm, Lo), a
//!   number (N*), or a separator. On the mapped sequence, a separator ends a token, and a token
//!   also breaks between positions `i` and `i + 1` when `class(i)` is Ll or N and `class(i + 1)`
//!   is Lu, or when `class(i)` and `class(i + 1)` are Lu and `class(i + 2)` is Ll. This is what
//!   the two regex substitutions do, non-overlapping matches included (a match never hides
//!   another break), which the Hypothesis tests confirm against the reference.
//! * **Lowercase** per character with Python 3.11's `str.lower()` mapping (every token character
//!   lowercases to exactly one character; U+0130, the one multi-character mapping, is not a token
//!   character because NFKD splits off its dot). The exception is U+03A3 GREEK CAPITAL SIGMA,
//!   which follows Unicode's Final_Sigma condition as CPython's `handle_capital_sigma` applies
//!   it: `ς` when, skipping Case_Ignorable characters, the nearest character before it is Cased
//!   and the nearest after it is not Cased or absent; `σ` otherwise. The context is the token's
//!   own mapped, not yet lowercased characters: the reference lowercases a string in which
//!   separators and token breaks are spaces, and a space is neither Cased nor Case_Ignorable, so
//!   it stops the scan exactly like the ends of a token do. Cased and Case_Ignorable are
//!   measured from Python's `str.lower()` by the generator (Python has no API for them).
//! * **ASCII fast path.** For pure-ASCII input no table is read, and a token that is already
//!   lowercase is passed to the visitor as a slice of the input, without copying. Other tokens
//!   are built in buffers that a [`Tokenizer`] keeps from call to call.
//! * **Lookups.** BMP values come from a 64 KiB array expanded from the ranges on first use;
//!   other planes, decompositions and lowercase mappings are binary searches.
//!
//! Nothing here panics on any input: table reads are bounds-checked (`get`), and a lookup that
//! fails means "separator" or "no mapping".

use super::chars::{
    decomposition, final_sigma, hangul_jamo, lowercase, value_of, ASCII_VALUES, CAPITAL_SIGMA,
    FINAL_SIGMA, SMALL_SIGMA,
};
use super::unicode_tables::{
    self as tables, CLASS_MASK, DECOMP, HANGUL, LL, LO, LU, MARK, NUM, SEP,
};

/// The Unicode version of the tables the tokenizer uses, whatever the Rust or Python version.
pub const UNICODE_VERSION: &str = tables::UNICODE_VERSION;

/// Tokenizes text, reusing its buffers from call to call.
///
/// The index builder keeps one per thread: after the first few calls, tokenizing allocates
/// nothing.
#[derive(Debug, Default, Clone)]
pub struct Tokenizer {
    /// The token being built: mapped characters (not yet lowercased) with their table values.
    pending: Vec<(char, u8)>,
    /// The lowercased token handed to the visitor.
    out: String,
}

impl Tokenizer {
    /// A tokenizer with empty buffers (this does not allocate).
    pub const fn new() -> Self {
        Tokenizer {
            pending: Vec::new(),
            out: String::new(),
        }
    }

    /// Calls `f` with each token of `text`, in order. The `&str` is valid only during the call.
    pub fn for_each_token(&mut self, text: &str, f: impl FnMut(&str)) {
        self.for_each_token_of(text, text.is_ascii(), f);
    }

    /// [`Tokenizer::for_each_token`] for a caller that has checked whether `text` is ASCII
    /// (`ascii`, which must be `text.is_ascii()`).
    #[inline]
    pub(crate) fn for_each_token_of(&mut self, text: &str, ascii: bool, mut f: impl FnMut(&str)) {
        if ascii {
            ascii_tokens(text, &mut self.out, &mut f);
        } else {
            self.unicode_tokens(text, &mut f);
        }
    }

    /// The tokens of `text`, as owned strings.
    pub fn tokenize(&mut self, text: &str) -> Vec<String> {
        let mut tokens = Vec::new();
        self.for_each_token(text, |t| tokens.push(t.to_owned()));
        tokens
    }

    /// The general path: map each character through the tables, then split and lowercase.
    fn unicode_tokens(&mut self, text: &str, f: &mut impl FnMut(&str)) {
        let mut split = Splitter {
            pending: &mut self.pending,
            out: &mut self.out,
            prev: SEP,
            prev2: SEP,
        };
        split.pending.clear();
        for c in text.chars() {
            let v = value_of(c);
            match v & CLASS_MASK {
                MARK => {}
                DECOMP => {
                    for &d in decomposition(c) {
                        split.push(d, value_of(d), f);
                    }
                }
                HANGUL => {
                    for j in hangul_jamo(c).into_iter().flatten() {
                        split.push(j, value_of(j), f);
                    }
                }
                _ => split.push(c, v, f),
            }
        }
        split.flush(f);
    }
}

/// Boundary detection over the mapped character sequence.
struct Splitter<'a> {
    pending: &'a mut Vec<(char, u8)>,
    out: &'a mut String,
    /// Classes of the previous two mapped characters (`SEP` before the start).
    prev: u8,
    prev2: u8,
}

impl Splitter<'_> {
    #[inline]
    fn push(&mut self, c: char, v: u8, f: &mut impl FnMut(&str)) {
        let class = match v & CLASS_MASK {
            class @ (LU | LL | LO | NUM) => class,
            _ => SEP,
        };
        if class == SEP || (class == LU && (self.prev == LL || self.prev == NUM)) {
            self.flush(f);
        } else if class == LL && self.prev == LU && self.prev2 == LU {
            // ACRONYMWord: the break goes before the last capital.
            if let Some((&last, head)) = self.pending.split_last() {
                emit(head, self.out, f);
                self.pending.clear();
                self.pending.push(last);
            }
        }
        if class != SEP {
            self.pending.push((c, v));
        }
        self.prev2 = self.prev;
        self.prev = class;
    }

    fn flush(&mut self, f: &mut impl FnMut(&str)) {
        emit(self.pending, self.out, f);
        self.pending.clear();
    }
}

/// Lowercases one token into `out` and hands it to `f` (nothing for an empty token).
fn emit(token: &[(char, u8)], out: &mut String, f: &mut impl FnMut(&str)) {
    if token.is_empty() {
        return;
    }
    out.clear();
    for (i, &(c, v)) in token.iter().enumerate() {
        out.push(if c != CAPITAL_SIGMA {
            lowercase(c, v)
        } else if final_sigma(token, i) {
            FINAL_SIGMA
        } else {
            SMALL_SIGMA
        });
    }
    f(out);
}

/// Classes of all byte values (non-ASCII bytes never reach the ASCII path).
const ASCII_CLASSES: [u8; 256] = {
    let mut classes = [SEP; 256];
    let mut i = 0;
    while i < 128 {
        classes[i] = ASCII_VALUES[i] & CLASS_MASK;
        i += 1;
    }
    classes
};

#[inline]
fn ascii_class(b: u8) -> u8 {
    ASCII_CLASSES[usize::from(b)]
}

/// How many of the leading bytes of `word` (8 ASCII bytes, little-endian) are lowercase letters
/// or digits (SWAR: every byte is below 0x80, so adding at most 0x7F to each never carries into
/// the next, and each comparison is the high bit of its byte).
#[inline]
fn lower_or_digit_run(word: u64) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    let at_least = |b: u8| word + ONES * u64::from(0x80 - b);
    let lower = at_least(b'a') & !at_least(b'z' + 1);
    let digit = at_least(b'0') & !at_least(b'9' + 1);
    (((lower | digit) & HIGH ^ HIGH).trailing_zeros() / 8) as usize
}

/// The ASCII path: the same rule on bytes, with no table lookups beyond `ASCII_VALUES`.
///
/// Lowercase letters and digits never start a break (only a separator or a capital does), and
/// the rule reads only whether the character before a capital is a lowercase letter or digit,
/// or a capital; so runs of them are skipped eight bytes at a time.
fn ascii_tokens(text: &str, out: &mut String, f: &mut impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut i = 0;
    while i < n {
        while i < n && ascii_class(bytes[i]) == SEP {
            i += 1;
        }
        if i == n {
            break;
        }
        let start = i;
        // The class of the previous byte of the token (a run of lowercase letters and digits
        // counts as `LL`: the rule treats `LL` and `NUM` alike before a capital).
        let mut prev = SEP;
        let mut has_upper = false;
        loop {
            if let Some(word) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
                let run = lower_or_digit_run(u64::from_le_bytes(*word));
                if run > 0 {
                    i += run;
                    prev = LL;
                    if run == 8 {
                        continue;
                    }
                }
            }
            let Some(&b) = bytes.get(i) else {
                break;
            };
            let class = ascii_class(b);
            if class == SEP {
                break;
            }
            if class == LU {
                let camel = prev == LL || prev == NUM;
                // ACRONYMWord: the break goes before the last capital.
                let acronym = prev == LU && bytes.get(i + 1).is_some_and(|&c| ascii_class(c) == LL);
                if camel || acronym {
                    break;
                }
                has_upper = true;
            }
            prev = class;
            i += 1;
        }
        let Some(mut token) = text.get(start..i) else {
            continue;
        };
        if has_upper {
            out.clear();
            out.push_str(token);
            out.make_ascii_lowercase();
            token = out;
        }
        // (one call site, so that the visitor is inlined into this loop once)
        f(token);
    }
}

/// Calls `f` with each token of `text` (see the module docs), in order.
///
/// Convenience for one-off calls; a long-lived [`Tokenizer`] avoids reallocating its buffers.
pub fn for_each_token(text: &str, f: impl FnMut(&str)) {
    Tokenizer::new().for_each_token(text, f);
}

/// The tokens of `text` (see the module docs).
pub fn tokenize(text: &str) -> Vec<String> {
    Tokenizer::new().tokenize(text)
}

#[cfg(test)]
mod python_parity;

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected tokens, from the independent reference port of `search_tool_bm25` on Python 3.11.
    const CASES: &[(&str, &[&str])] = &[
        // empty and separators only
        ("", &[]),
        ("!!! --- ...", &[]),
        ("  \t\n ", &[]),
        // camelCase, acronyms, digits
        ("getUserName", &["get", "user", "name"]),
        ("XMLHttpRequest", &["xml", "http", "request"]),
        ("HTTPServer", &["http", "server"]),
        ("ABCdEFg", &["ab", "cd", "e", "fg"]),
        ("parseJSON2XML", &["parse", "json2", "xml"]),
        ("base64Encode", &["base64", "encode"]),
        ("v2API", &["v2", "api"]),
        ("AB1c", &["ab1c"]),
        ("ABc1D", &["a", "bc1", "d"]),
        (
            "mcp__github__create_issue",
            &["mcp", "github", "create", "issue"],
        ),
        ("already lower case", &["already", "lower", "case"]),
        // accents and marks
        ("café", &["cafe"]),
        ("Ångström", &["angstrom"]),
        ("naïve résumé", &["naive", "resume"]),
        ("e\u{301}\u{301}B", &["e", "b"]),
        ("İstanbul", &["istanbul"]),
        // CJK and Hangul (NFKD splits syllables into conjoining jamo)
        ("東京タワー", &["東京タワー"]),
        ("東京Tokyo", &["東京tokyo"]),
        (
            "한국어",
            &["\u{1112}\u{1161}\u{11ab}\u{1100}\u{116e}\u{11a8}\u{110b}\u{1165}"],
        ),
        // Greek final sigma
        ("ΟΔΥΣΣΕΥΣ", &["οδυσσευς"]),
        ("ΣΑΣ", &["σας"]),
        ("Σ", &["σ"]),
        ("ΣΣ", &["σς"]),
        ("ΑΣ.ΑΣb", &["ας", "α", "σb"]),
        ("ΑΣΑb", &["ας", "αb"]),
        ("aΣB", &["a", "σb"]),
        ("ΑΣʹ", &["αςʹ"]),
        ("ΑʹΣ", &["αʹς"]),
        ("ʹΣ", &["ʹσ"]),
        // compatibility forms: fullwidth, ligatures, superscripts, circled, units, fractions
        ("ＡＢＣｄｅｆ", &["ab", "cdef"]),
        ("ﬁle", &["file"]),
        ("ﬃ", &["ffi"]),
        ("x²", &["x2"]),
        ("①②", &["12"]),
        ("½", &["1", "2"]),
        ("㎒", &["m", "hz"]),
        ("Ⅻ", &["xii"]),
        ("ℌ𝐀𝐁𝐜", &["ha", "bc"]),
        ("ǅemal", &["dzemal"]),
        ("ŉ", &["ʼn"]),
        ("ẞx", &["ßx"]),
        ("ﷺ", &["صلى", "الله", "عليه", "وسلم"]),
        // halfwidth voiced sound marks decompose to marks and vanish (no break)
        ("ﾊﾟ", &["ハ"]),
        ("aﾞB", &["a", "b"]),
        // non-ASCII separators
        ("deploy🚀now", &["deploy", "now"]),
        ("co\u{ad}op", &["co", "op"]),
        ("a\u{a0}b", &["a", "b"]),
        ("a\u{fffd}b\u{e000}c", &["a", "b", "c"]),
        // assigned only after Unicode 14.0: separators here
        ("a\u{1e030}b", &["a", "b"]),
    ];

    #[test]
    fn table_cases() {
        let mut tokenizer = Tokenizer::new();
        for &(text, expected) in CASES {
            assert_eq!(tokenize(text), expected, "{text:?}");
            assert_eq!(tokenizer.tokenize(text), expected, "{text:?} (reused)");
        }
    }

    #[test]
    fn ascii_path_equals_general_path() {
        let mut general = Tokenizer::new();
        let mut check = |text: &str| {
            let mut tokens = Vec::new();
            general.unicode_tokens(text, &mut |t: &str| tokens.push(t.to_owned()));
            assert_eq!(tokenize(text), tokens, "{text:?}");
        };
        let alphabet = b"aAbBzZ09 _-";
        for len in 0..=5u32 {
            for n in 0..alphabet.len().pow(len) {
                let mut n = n;
                let text: String = (0..len)
                    .map(|_| {
                        let c = alphabet[n % alphabet.len()];
                        n /= alphabet.len();
                        char::from(c)
                    })
                    .collect();
                check(&text);
            }
        }
        for (text, _) in CASES {
            if text.is_ascii() {
                check(text);
            }
        }
    }

    #[test]
    fn lower_or_digit_runs_of_every_byte() {
        for b in 0..128u8 {
            for at in 0..8 {
                let mut word = *b"abcz0189";
                word[at] = b;
                let expected = word
                    .iter()
                    .position(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
                    .unwrap_or(8);
                let got = lower_or_digit_run(u64::from_le_bytes(word));
                assert_eq!(got, expected, "{word:?}");
            }
        }
    }

    /// Texts long enough for the eight-byte runs, with capitals, digits and separators at every
    /// distance from a run's end: the ASCII path equals the general one.
    #[test]
    fn ascii_path_equals_general_path_on_long_runs() {
        let mut general = Tokenizer::new();
        let pieces = [
            "abcdefgh",
            "abcdefghij",
            "a1b2c3d4e5",
            "XML",
            "Http",
            "A",
            "ID",
            "9",
            " ",
            "_",
            "--",
            "getUserNameFromID",
            "HTTPServer2Go",
            "x",
            "ABCdEFg",
            "z0",
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..(state % 9) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push_str(pieces[(state >> 20) as usize % pieces.len()]);
            }
            let mut tokens = Vec::new();
            general.unicode_tokens(&text, &mut |t: &str| tokens.push(t.to_owned()));
            assert_eq!(tokenize(&text), tokens, "{text:?}");
            state = state.wrapping_add(1);
        }
    }

    #[test]
    fn lowercase_tokens_are_zero_copy() {
        let text = "get_user name";
        let mut slices = Vec::new();
        for_each_token(text, |t| slices.push(t.as_ptr()));
        assert_eq!(slices, [0, 4, 9].map(|i| text[i..].as_ptr()));
    }

    /// Arbitrary text never panics, and tokens are never empty nor hold a separator.
    #[test]
    fn every_token_is_clean() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut tokenizer = Tokenizer::new();
        for _ in 0..20_000 {
            let text: String = (0..24)
                .filter_map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let cp = match state % 4 {
                        0 => state >> 40 & 0x7F,
                        1 => state >> 40 & 0x3FF,
                        2 => state >> 40 & 0xFFFF,
                        _ => state >> 40 & 0x1F_FFFF,
                    };
                    char::from_u32(u32::try_from(cp).ok()?)
                })
                .collect();
            tokenizer.for_each_token(&text, |t| {
                assert!(!t.is_empty(), "{text:?}");
                assert!(!t.chars().any(char::is_whitespace), "{text:?} -> {t:?}");
            });
        }
    }
    // Throughput is measured by `cargo run --release --example tokenize_bench`.
}
