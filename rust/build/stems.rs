//! Stemmed copies shared by the chunks of one build (English profile).
//!
//! Each chunk remembers the copy of every term it has stemmed, but a catalogue's vocabulary
//! repeats from chunk to chunk, and running the Snowball algorithm costs far more than a lookup.
//! The chunks of one build therefore share this map from plain term to copy. Stemming is a pure
//! function, so a copy from the map is the copy the chunk would have computed: ids, postings and
//! weights are unchanged.

use std::collections::HashMap;
use std::sync::RwLock;

use crate::analysis;

/// At most this many terms are remembered (about 40 bytes each), so that a catalogue of unique
/// identifiers cannot grow the map without bound; its common words come first anyway.
const CAPACITY: usize = 1 << 18;

/// Plain term -> stemmed copy, for all-ASCII terms (any other term's copy is just marked).
#[derive(Default)]
pub(crate) struct Stems {
    map: RwLock<HashMap<Box<str>, Box<str>, ahash::RandomState>>,
}

impl Stems {
    /// Calls `f` with [`analysis::stem_copy`] of `term`, stemming it only if no chunk has yet.
    /// A copy that is the marked term itself ([`analysis::stems_to_itself`]) is written into
    /// `scratch`, without a lookup.
    pub(crate) fn with_copy<R>(
        &self,
        term: &str,
        scratch: &mut String,
        f: impl FnOnce(&str) -> R,
    ) -> R {
        if analysis::stems_to_itself(term) {
            scratch.clear();
            scratch.push(analysis::STEM_MARK);
            scratch.push_str(term);
            return f(scratch);
        }
        // A poisoned lock (a panic elsewhere while holding it) only disables the sharing.
        if let Ok(map) = self.map.read() {
            if let Some(copy) = map.get(term) {
                return f(copy);
            }
        }
        let copy = analysis::stem_copy(term);
        let out = f(&copy);
        if let Ok(mut map) = self.map.write() {
            if map.len() < CAPACITY {
                map.insert(term.into(), copy.into_boxed_str());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_the_stemmers() {
        let stems = Stems::default();
        let mut scratch = String::new();
        for _ in 0..2 {
            for w in ["running", "files", "café", "天气", "x2", "", "mp3", "ab"] {
                assert_eq!(
                    stems.with_copy(w, &mut scratch, str::to_owned),
                    analysis::stem_copy(w),
                    "{w}"
                );
            }
        }
    }
}
