//! Field texts seen before in a chunk, with the term ids they produced, for
//! [`super::tokenize_chunk_with`].
//!
//! Catalogues repeat whole texts: a tool's label is often its name, its summary is its
//! description when that is short, a server's name and common parameter names recur from tool
//! to tool. A repeated text of a chunk yields the same terms in the same order, and all of them
//! already have ids (the first occurrence interned them), so the chunk replays the recorded ids
//! through the same per-term steps instead of tokenizing, interning and looking up stems again:
//! every id, term frequency and length is computed by the same operations in the same order.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};

/// Texts shorter than this are tokenized again: a lookup would cost about as much.
pub(crate) const MIN_LEN: usize = 16;

/// One recorded text: its `(term id, stemmed copy id)` pairs are `ids[start..end]`.
#[derive(Clone, Copy)]
pub(crate) struct Recorded {
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// Whether the copies were computed (a scored field's text); a weight-0 field's terms get
    /// no copies, so its record serves scored fields only in profiles without copies.
    pub(crate) with_copies: bool,
}

/// A text and its hash ([`super::intern::hash`]), computed once: the lookup, the insertion of a
/// new text and the table's growth all use the stored hash. Hashing whole texts (descriptions
/// run to hundreds of bytes) for each of those cost ~7% of a build.
#[derive(Clone, Copy)]
pub(crate) struct Key<'a> {
    hash: u64,
    text: &'a str,
}

impl<'a> Key<'a> {
    /// `text` with its hash.
    #[inline]
    pub(crate) fn of(text: &'a str) -> Self {
        Key {
            hash: super::intern::hash(text.as_bytes()),
            text,
        }
    }
}

impl Hash for Key<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl PartialEq for Key<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.text == other.text
    }
}

impl Eq for Key<'_> {}

/// Text -> recorded term ids, for the texts of one chunk.
#[derive(Default)]
pub(crate) struct Memo<'a> {
    map: HashMap<Key<'a>, Recorded, StoredHash>,
    /// `(term id, copy id)` of every recorded text, back to back.
    pub(crate) ids: Vec<(u32, u32)>,
}

impl<'a> Memo<'a> {
    /// The record of the text of `key`, if it was recorded.
    #[inline]
    pub(crate) fn get(&self, key: Key<'a>) -> Option<Recorded> {
        self.map.get(&key).copied()
    }

    /// Records the text of `key` as the ids pushed to `ids` since `start`.
    pub(crate) fn record(&mut self, key: Key<'a>, start: usize, with_copies: bool) {
        let end = self.ids.len();
        self.map.insert(
            key,
            Recorded {
                start,
                end,
                with_copies,
            },
        );
    }
}

/// Hashes a [`Key`] to its stored hash (already well mixed).
#[derive(Default, Clone, Copy)]
pub(crate) struct StoredHash;

impl BuildHasher for StoredHash {
    type Hasher = StoredHasher;
    fn build_hasher(&self) -> StoredHasher {
        StoredHasher(0)
    }
}

/// Keeps the last `u64` written (a [`Key`] writes only its hash).
pub(crate) struct StoredHasher(u64);

impl Hasher for StoredHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Not reached (`Key` writes a u64); fold anything else in all the same.
        self.0 = super::intern::hash(bytes) ^ self.0.rotate_left(5);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
}
