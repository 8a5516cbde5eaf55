//! The exact-name tier's common-case proof, in Rust: that an ASCII query names no tool.
//!
//! A deliberate twin: [`NameKeys::names_none`] is `NameFinder.names_none_py`
//! (`python/toolsift/_names/find.py`, the specification) compiled, step for step, and
//! `tests/test_fastpath.py::test_the_compiled_proof_answers_as_the_python_one` proves the two
//! give the same answer with Hypothesis (arbitrary tool tables, arbitrary and query-like text).
//!
//! The Python layer's `NameTable.find_names` finds the tool names written in a query. Most
//! queries name none, and for those `NameFinder.names_none` proves it without visiting each
//! candidate span, with this module's proof where the extension loads; on a long agent query
//! (30-60 words, a dozen of them also tool names, like `search` or `list`) the Python version took ~5 µs of a ~45 µs search, this one ~1 µs.
//!
//! Only the key sets live here (normalised name forms, `name_key`: lowercase, every character
//! that is not a letter or digit removed). What needs the tools themselves (whether a key names
//! a tool with an identifier name, for squashed words) stays in Python: the proof returns the
//! keys that question must be asked of.

use std::sync::Arc;

use hashbrown::hash_table::HashTable;

/// Python's `str.split()` separators among ASCII characters (`str.isspace`): Rust's
/// `is_ascii_whitespace` lacks `\x0b` and `\x1c`-`\x1f`.
#[inline]
pub(crate) const fn is_py_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t'..=b'\r' | 0x1c..=0x1f)
}

/// The ASCII characters `str.strip(_ASCII_PUNCT)` removes: neither letters, digits nor
/// whitespace (controls included).
#[inline]
fn is_ascii_punct(b: u8) -> bool {
    b < 128 && !b.is_ascii_alphanumeric() && !is_py_space(b)
}

/// [`KEY_CLASS`] of Python's whitespace.
const KEY_SPACE: u8 = 0;
/// [`KEY_CLASS`] of the other characters that a key drops.
const KEY_DROP: u8 = 1;

/// Per ASCII character, what a name key makes of it: its lowercase form (letters and digits),
/// [`KEY_SPACE`] (a word separator, [`is_py_space`]) or [`KEY_DROP`].
static KEY_CLASS: [u8; 128] = {
    let mut table = [KEY_DROP; 128];
    let mut b = 0u8;
    while b < 128 {
        table[b as usize] = if is_py_space(b) {
            KEY_SPACE
        } else if b.is_ascii_alphanumeric() {
            b.to_ascii_lowercase()
        } else {
            KEY_DROP
        };
        b += 1;
    }
    table
};

/// Splits ASCII `text` on Python's whitespace, as `str.split()` does (no empty words).
pub(crate) fn py_split(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|&b| is_py_space(b)).filter(|w| !w.is_empty())
}

/// `word.strip(_ASCII_PUNCT)`.
fn core(word: &[u8]) -> &[u8] {
    let start = word.iter().position(|&b| !is_ascii_punct(b));
    let Some(start) = start else {
        return &[];
    };
    let end = word
        .iter()
        .rposition(|&b| !is_ascii_punct(b))
        .unwrap_or(start);
    &word[start..=end]
}

/// Whether `core` is `key` (lowercase letters and digits) in lower, capitalised or upper case:
/// `core in {key, key.capitalize(), key.upper()}`.
fn is_plain_form(core: &[u8], key: &[u8]) -> bool {
    if core.len() != key.len() {
        return false;
    }
    let lower = core == key;
    let upper = core
        .iter()
        .zip(key)
        .all(|(&c, &k)| c == k.to_ascii_uppercase());
    let capitalised =
        !key.is_empty() && core[0] == key[0].to_ascii_uppercase() && core[1..] == key[1..];
    lower || upper || capitalised
}

/// `toolsift.query.is_identifier(name)` (`[^\W_][_./-]+[^\W_]|[a-z][A-Z]`) for ASCII names:
/// letters or digits joined by `_ . / -`, or a lowercase letter before an uppercase one. Other
/// names answer true (may be one): Python's Unicode letter classes are not repeated here.
pub fn may_be_identifier(name: &str) -> bool {
    let b = name.as_bytes();
    if !b.is_ascii() {
        return true;
    }
    let joiner = |c: u8| matches!(c, b'_' | b'.' | b'/' | b'-');
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_lowercase() && b.get(i + 1).is_some_and(u8::is_ascii_uppercase) {
            return true;
        }
        if b[i].is_ascii_alphanumeric() {
            let mut j = i + 1;
            while j < b.len() && joiner(b[j]) {
                j += 1;
            }
            if j > i + 1 && b.get(j).is_some_and(u8::is_ascii_alphanumeric) {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// The normalised name forms of an index's tools: `plain` (names and raw MCP names) and
/// `qualified` (server + tool, which also serves `mcp` + server + tool), as in `NameTable`.
///
/// Only a 64-bit hash of each key is kept (~20 bytes a key, against ~95 for the key itself: at
/// 200k tools, 8 MB instead of 37.5), so two different texts may share a hash. A false "is a
/// key" only sends a query down the slower path, which finds the names itself: the proof's
/// answer "names nothing" still holds only for a text that names nothing (its keys are not
/// keys of the table, or are written as plain words), and a squashed-name candidate that is not
/// a key is looked up by the caller, who finds no tool. The hash is seeded per process.
///
/// An updated table's key sets are layered ([`NameKeys::layered`]): the base map is shared
/// (`Arc`) with the table it came from and the added keys go to a small map of their own, so an
/// update costs the keys it adds, not the catalogue; the two are merged once the added ones are
/// more than a quarter of the base (amortised: each key is copied O(1) times on average).
#[derive(Debug, Default, Clone)]
pub struct NameKeys {
    /// Every key's hash, with the tables that hold it ([`PLAIN`] | [`QUALIFIED`]) and whether
    /// a tool it names in that table may have an identifier name ([`PLAIN_IDENT`] |
    /// [`QUALIFIED_IDENT`]): one lookup per query word.
    keys: Arc<KeyMap>,
    /// The keys added on top of `keys` by updates (see [`NameKeys::layered`]), same format.
    added: KeyMap,
    /// Whether new keys go to `added` (a layered set: `keys` is shared) or to `keys`.
    layer: bool,
    hasher: ahash::RandomState,
    /// Whether the identifier marks were set ([`NameKeys::mark_identifier`]): without them
    /// [`NameKeys::may_be_squashed_name`] cannot answer.
    marked: bool,
}

/// Key hashes with their table bits: one `u64` a key, the hash's low 4 bits replaced by the
/// bits (a hash is already random, so the table hashes by it directly). Two keys whose hashes
/// differ only in those bits share an entry and its bits: a key then only *may* name a tool,
/// which is what the proof asks (the exact path decides).
#[derive(Debug, Clone, Default)]
struct KeyMap {
    table: HashTable<u64>,
}

/// The bits of an entry.
const BITS: u64 = 0xF;

impl KeyMap {
    fn with_capacity(n: usize) -> Self {
        KeyMap {
            table: HashTable::with_capacity(n),
        }
    }

    fn len(&self) -> usize {
        self.table.len()
    }

    fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Adds `bits` to the entry of `hash`.
    fn add(&mut self, hash: u64, bits: u8) {
        let key = hash & !BITS;
        match self.table.find_mut(key, |&e| e & !BITS == key) {
            Some(entry) => *entry |= u64::from(bits),
            None => {
                self.table
                    .insert_unique(key, key | u64::from(bits), |&e| e & !BITS);
            }
        }
    }

    /// The bits of `hash` (0: not held).
    fn get(&self, hash: u64) -> u8 {
        let key = hash & !BITS;
        self.table
            .find(key, |&e| e & !BITS == key)
            .map_or(0, |&e| (e & BITS) as u8)
    }

    /// `(hash without its low bits, bits)` of every entry.
    fn entries(&self) -> impl Iterator<Item = (u64, u8)> + '_ {
        self.table.iter().map(|&e| (e & !BITS, (e & BITS) as u8))
    }

    /// The bytes of its table.
    fn memory_bytes(&self) -> usize {
        self.table.allocation_size()
    }
}

/// The added keys are merged into the base once they are more than this fraction of it ...
const MERGE_FRACTION: usize = 4;
/// ... and at least this many.
const MERGE_AT_LEAST: usize = 4096;

const PLAIN: u8 = 1;
const QUALIFIED: u8 = 2;
/// Some tool of the plain table with this key may have an identifier name.
const PLAIN_IDENT: u8 = 4;
/// Some tool of the qualified table with this key may have an identifier name.
const QUALIFIED_IDENT: u8 = 8;

/// Texts of at most this many words are a name candidate as a whole (`_WHOLE_TEXT_WORDS`).
const WHOLE_TEXT_WORDS: usize = 8;
/// Keys at least this long may be a squashed identifier name (`MIN_SQUASHED_LENGTH`).
pub const MIN_SQUASHED_LENGTH: usize = 6;

impl NameKeys {
    pub fn new<P: AsRef<str>, Q: AsRef<str>>(
        plain: impl IntoIterator<Item = P>,
        qualified: impl IntoIterator<Item = Q>,
    ) -> Self {
        let mut keys = NameKeys::default();
        for k in plain {
            keys.add_plain(k.as_ref());
        }
        for k in qualified {
            keys.add_qualified(k.as_ref());
        }
        keys
    }

    /// Empty key sets hashing with `hasher`, with room for `keys` keys.
    pub fn with_hasher(hasher: ahash::RandomState, keys: usize) -> NameKeys {
        NameKeys {
            keys: Arc::new(KeyMap::with_capacity(keys)),
            hasher,
            ..NameKeys::default()
        }
    }

    /// These key sets, to add an update's keys to: the base is shared, not copied (unless the
    /// keys added so far are many: then they are merged into a new base, once).
    pub fn layered(&self) -> NameKeys {
        let mut out = self.clone();
        out.layer = true;
        if out.added.len() > (out.keys.len() / MERGE_FRACTION).max(MERGE_AT_LEAST) {
            let added = std::mem::take(&mut out.added);
            let base = Arc::make_mut(&mut out.keys);
            for (hash, bits) in added.entries() {
                base.add(hash, bits);
            }
        }
        out
    }

    /// The number of hashes held (base and added, a hash in both counted twice).
    pub fn len(&self) -> usize {
        self.keys.len() + self.added.len()
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of the hash tables (the base, shared with other layers, and the added keys).
    pub fn memory_bytes(&self) -> usize {
        self.keys.memory_bytes() + self.added.memory_bytes()
    }

    /// The hasher of the keys (a key's hash is `hasher().hash_one(key.as_bytes())`).
    pub fn hasher(&self) -> &ahash::RandomState {
        &self.hasher
    }

    /// Adds a key by its hash (`hasher().hash_one(key.as_bytes())`), to the plain or qualified table,
    /// marked as naming a tool that may have an identifier name or not.
    pub fn add_hashed(&mut self, hash: u64, qualified: bool, identifier: bool) {
        let bits = match (qualified, identifier) {
            (false, false) => PLAIN,
            (false, true) => PLAIN | PLAIN_IDENT,
            (true, false) => QUALIFIED,
            (true, true) => QUALIFIED | QUALIFIED_IDENT,
        };
        self.set_hash(hash, bits);
    }

    fn set(&mut self, key: &str, bits: u8) {
        self.set_hash(self.hasher.hash_one(key.as_bytes()), bits);
    }

    fn set_hash(&mut self, hash: u64, bits: u8) {
        let map = if self.layer {
            &mut self.added
        } else {
            Arc::make_mut(&mut self.keys)
        };
        map.add(hash, bits);
    }

    /// Adds a key of the plain table (names and raw MCP names).
    pub fn add_plain(&mut self, key: &str) {
        self.set(key, PLAIN);
    }

    /// Adds a key of the qualified table (server + tool).
    pub fn add_qualified(&mut self, key: &str) {
        self.set(key, QUALIFIED);
    }

    /// Marks `key` of the plain (`qualified` false) or qualified table as naming a tool whose
    /// name (its raw MCP name if it has one) may be an identifier
    /// ([`may_be_identifier`]). Call it for every such key (qualified keys of 3 characters or
    /// more, plain ones of [`MIN_SQUASHED_LENGTH`] or more), after adding the keys.
    pub fn mark_identifier(&mut self, key: &str, qualified: bool) {
        self.set(
            key,
            if qualified {
                QUALIFIED_IDENT
            } else {
                PLAIN_IDENT
            },
        );
    }

    /// Records that every identifier mark is set: [`NameKeys::may_be_squashed_name`] answers.
    pub fn set_marked(&mut self) {
        self.marked = true;
    }

    /// `NameTable._is_squashable(key)` or more: whether some tool with normalised name form
    /// `key` (as `lookup_key` finds them: plain, qualified, or qualified after an `mcp` prefix)
    /// may have an identifier name, so that a plain word `key` may be its squashed name. True
    /// when unsure (no marks, or a hash shared with another key): the caller then asks Python.
    pub fn may_be_squashed_name(&self, key: &str) -> bool {
        if !self.marked {
            return true;
        }
        let key = key.as_bytes();
        self.tables(key) & (PLAIN_IDENT | QUALIFIED_IDENT) != 0
            || key
                .strip_prefix(b"mcp")
                .is_some_and(|rest| self.tables(rest) & QUALIFIED_IDENT != 0)
    }

    fn tables(&self, key: &[u8]) -> u8 {
        let hash = self.hasher.hash_one(key);
        let base = self.keys.get(hash);
        if self.added.is_empty() {
            return base;
        }
        base | self.added.get(hash)
    }

    fn is_key(&self, key: &[u8]) -> bool {
        self.tables(key) & (PLAIN | QUALIFIED) != 0
    }

    fn is_qualified(&self, key: &[u8]) -> bool {
        self.tables(key) & QUALIFIED != 0
    }

    /// `NameFinder.names_none` for a text without quotes: `None` when the text may name a tool
    /// (non-ASCII text, the whole text is a name, or a word with a key of the table is written
    /// like an identifier), else the keys of the table that the text holds and that are long
    /// enough to be a squashed name: the text names no tool if none of them names a tool with
    /// an identifier name (`NameTable._is_squashable`), which the caller checks.
    pub fn names_none(&self, text: &str) -> Option<Vec<String>> {
        if !text.is_ascii() {
            return None;
        }
        let bytes = text.as_bytes();
        // Each word's key, in one buffer: the lowercased word without its non-key characters
        // (a word of punctuation only has none, and `str.split` drops it). One allocation for
        // every key, not one per word: a query holds up to ~100 words. One pass over the bytes,
        // which also finds whether "mcp" (any case) occurs in the text.
        let mut buf: Vec<u8> = vec![0; bytes.len()];
        let mut len = 0;
        let mut spans: Vec<(usize, usize)> = Vec::with_capacity(bytes.len() / 4 + 1);
        // The words themselves (`str.split()`), as byte ranges of the text.
        let mut words: Vec<(usize, usize)> = Vec::with_capacity(bytes.len() / 4 + 1);
        let (mut start, mut word_start) = (0, None);
        let mut window = 0u32; // the last three bytes, ASCII letters lowercased
        let mut mcp = false;
        for (i, &b) in bytes.iter().enumerate() {
            let class = KEY_CLASS[usize::from(b & 0x7f)]; // (ASCII: checked above)
            if class == KEY_SPACE {
                if let Some(w) = word_start.take() {
                    words.push((w, i));
                    if len > start {
                        spans.push((start, len));
                    }
                    start = len;
                }
            } else {
                word_start.get_or_insert(i);
                buf[len] = class; // a key byte, or KEY_DROP, overwritten by the next one
                len += usize::from(class != KEY_DROP);
            }
            // `b | 0x20` is `m`, `c` or `p` only for that letter in either case.
            window = (window << 8 | u32::from(b | 0x20)) & 0x00ff_ffff;
            mcp |= window == u32::from_be_bytes([0, b'm', b'c', b'p']);
        }
        if let Some(w) = word_start {
            words.push((w, bytes.len()));
            if len > start {
                spans.push((start, len));
            }
        }
        buf.truncate(len);
        let key = |i: usize| &buf[spans[i].0..spans[i].1];
        if spans.len() <= WHOLE_TEXT_WORDS {
            let whole = &buf[..]; // the keys, concatenated
            if self.is_key(whole) || (whole.starts_with(b"mcp") && self.is_qualified(&whole[3..])) {
                return None;
            }
        }
        let mut hits: Vec<&[u8]> = Vec::new();
        for i in 0..spans.len() {
            let k = key(i);
            let hit =
                self.is_key(k) || (mcp && k.starts_with(b"mcp") && self.is_qualified(&k[3..]));
            if hit && !hits.contains(&k) {
                hits.push(k);
            }
        }
        if hits.is_empty() {
            return Some(Vec::new());
        }
        let words: Vec<&[u8]> = words.iter().map(|&(a, b)| &bytes[a..b]).collect();
        // Aligned: every word has a key, so words[i] -> keys[i]; else the words' cores are
        // counted against the keys (`keys.count(key) == Σ cores.count(form)`).
        let aligned = words.len() == spans.len();
        let mut squashable = Vec::new();
        for k in hits {
            if k.len() >= MIN_SQUASHED_LENGTH {
                squashable.push(String::from_utf8(k.to_vec()).expect("ASCII"));
            }
            let plain = if aligned {
                (0..spans.len()).all(|i| key(i) != k || is_plain_form(core(words[i]), k))
            } else {
                let with_key = (0..spans.len()).filter(|&i| key(i) == k).count();
                let in_form = words.iter().filter(|w| is_plain_form(core(w), k)).count();
                with_key == in_form
            };
            if !plain {
                return None;
            }
        }
        Some(squashable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> NameKeys {
        NameKeys::new(["readfile", "search", "list"], ["fsreadfile"])
    }

    #[test]
    fn plain_words_that_are_names_name_nothing() {
        let k = keys();
        assert_eq!(
            k.names_none("please search the list of files and more words here ok"),
            Some(vec!["search".to_owned()])
        );
        assert_eq!(
            k.names_none("Search, LIST: words and more words here too"),
            Some(vec!["search".to_owned()])
        );
        assert_eq!(
            k.names_none("nothing here at all in this text of ours"),
            Some(vec![])
        );
    }

    #[test]
    fn identifiers_whole_texts_and_non_ascii_may_name_tools() {
        let k = keys();
        for text in [
            "use read_file to open it and then more words",
            "use readFile to open it and then more words",
            "read file",
            "mcp fs read file",
            "use mcp__fs__read_file now, and more words here",
            "café search",
            "a sEarch of words and more words to pad it",
        ] {
            assert_eq!(k.names_none(text), None, "{text}");
        }
    }

    #[test]
    fn python_whitespace_and_punctuation_rules() {
        let k = keys();
        // \x0b and \x1f split words for Python: "search" is a plain word either way.
        assert_eq!(
            k.names_none("a\x0bsearch\x1fb c d e f g h i"),
            Some(vec!["search".to_owned()])
        );
        // A word of punctuation only has no key: the cores are counted (not aligned).
        assert_eq!(
            k.names_none("-- search -- (list) and more words to pad"),
            Some(vec!["search".to_owned()])
        );
        assert_eq!(core(b"(list)"), b"list");
        assert_eq!(core(b"--"), b"");
        assert!(is_plain_form(b"List", b"list"));
        assert!(is_plain_form(b"LIST", b"list"));
        assert!(!is_plain_form(b"LiSt", b"list"));
        assert!(is_plain_form(b"3d", b"3d"));
    }

    #[test]
    fn identifiers_as_python_finds_them() {
        for name in [
            "read_file",
            "fs/read_file",
            "a.b",
            "x-1",
            "getWeather",
            "a__b",
            "é",
        ] {
            assert!(may_be_identifier(name), "{name}");
        }
        for name in [
            "readfile", "_health", "health_", "a_", "_", "A_", "MP3", "Get", "a b",
        ] {
            assert!(!may_be_identifier(name), "{name}");
        }
    }

    #[test]
    fn layered_key_sets_share_their_base_and_see_both_layers() {
        let base = keys();
        let mut updated = base.layered();
        updated.add_plain("sendmail");
        assert!(Arc::ptr_eq(&base.keys, &updated.keys));
        assert_eq!(updated.len(), base.len() + 1);
        assert_eq!(base.names_none("sendmail"), Some(vec![]));
        assert_eq!(updated.names_none("sendmail"), None);
        assert_eq!(updated.names_none("read file"), None);
        // Past the merge threshold, the next layer starts from a merged base.
        for i in 0..=MERGE_AT_LEAST {
            updated.add_qualified(&format!("k{i}"));
        }
        let merged = updated.layered();
        assert!(merged.added.is_empty());
        assert_eq!(merged.names_none("k7"), None);
        assert_eq!(merged.names_none("sendmail"), None);
        assert_eq!(base.names_none("k7"), Some(vec![]));
    }

    #[test]
    fn squashed_names_need_an_identifier_mark() {
        let mut k = keys();
        // Unmarked key sets cannot tell: every key may be a squashed name.
        assert!(k.may_be_squashed_name("search"));
        k.mark_identifier("readfile", false);
        k.mark_identifier("fsreadfile", true);
        k.set_marked();
        assert!(k.may_be_squashed_name("readfile"));
        assert!(k.may_be_squashed_name("fsreadfile"));
        assert!(k.may_be_squashed_name("mcpfsreadfile"));
        assert!(!k.may_be_squashed_name("search"));
        assert!(!k.may_be_squashed_name("mcpsearch"));
        // A mark is not a key: the proof still sees only the added keys.
        k.mark_identifier("other", false);
        assert_eq!(
            k.names_none("the other words here and more of them"),
            Some(vec![])
        );
    }
}
