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
use std::hash::{BuildHasher, Hasher};

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

/// Text -> recorded term ids, for the texts of one chunk.
#[derive(Default)]
pub(crate) struct Memo<'a> {
    map: HashMap<&'a str, Recorded, ShortHash>,
    /// `(term id, copy id)` of every recorded text, back to back.
    pub(crate) ids: Vec<(u32, u32)>,
}

impl<'a> Memo<'a> {
    /// The record of `text`, if it was recorded.
    #[inline]
    pub(crate) fn get(&self, text: &str) -> Option<Recorded> {
        self.map.get(text).copied()
    }

    /// Records `text` as the ids pushed to `ids` since `start`.
    pub(crate) fn record(&mut self, text: &'a str, start: usize, with_copies: bool) {
        let end = self.ids.len();
        self.map.insert(
            text,
            Recorded {
                start,
                end,
                with_copies,
            },
        );
    }
}

/// The interner's short-key hash (`super::intern::hash`) as a `BuildHasher`.
#[derive(Default, Clone, Copy)]
pub(crate) struct ShortHash;

impl BuildHasher for ShortHash {
    type Hasher = ShortHasher;
    fn build_hasher(&self) -> ShortHasher {
        ShortHasher(0)
    }
}

/// Folds each `write` into the state with [`super::intern::hash`].
pub(crate) struct ShortHasher(u64);

impl Hasher for ShortHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = super::intern::hash(bytes) ^ self.0.rotate_left(5);
    }
    fn write_u8(&mut self, i: u8) {
        self.0 = self.0.rotate_left(5) ^ u64::from(i);
    }
}
