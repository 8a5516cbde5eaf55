//! Chunk-local term ids for [`super::tokenize_chunk`]: an open-addressing hash table that holds
//! ids into the chunk's own term list, so each distinct term is allocated once (a
//! `HashMap<Box<str>, u32>` beside the list stored every term twice), hashed by a hash made for
//! short keys.
//!
//! Ids are handed out in first-seen order, as the index build requires; the hash function only
//! decides where an id sits in the table, never which id a term gets.

/// Empty table slot.
const EMPTY: u64 = 0;

/// Term -> id over a `Vec<Box<str>>` that the caller owns and that only this interner appends to.
#[derive(Default)]
pub(crate) struct Interner {
    /// Per slot: the hash's upper 32 bits, then id + 1 (0 marks an empty slot).
    slots: Vec<u64>,
    /// The full hash of each id's term, to rehash on growth without rereading the strings.
    hashes: Vec<u64>,
}

impl Interner {
    /// The id of `term` in `terms`, appending it if it is new; `true` when it was new.
    #[inline]
    pub(crate) fn intern(&mut self, term: &str, terms: &mut Vec<Box<str>>) -> (u32, bool) {
        if self.hashes.len() * 2 >= self.slots.len() {
            self.grow();
        }
        let hash = hash(term.as_bytes());
        let tag = hash >> 32;
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            // `i` is masked, and the table is never full (load at most 1/2).
            let slot = self.slots.get(i).copied().unwrap_or(EMPTY);
            if slot == EMPTY {
                let id = terms.len() as u32;
                terms.push(term.into());
                self.hashes.push(hash);
                if let Some(s) = self.slots.get_mut(i) {
                    *s = tag << 32 | (u64::from(id) + 1);
                }
                return (id, true);
            }
            if slot >> 32 == tag {
                let id = (slot as u32).wrapping_sub(1);
                if terms.get(id as usize).is_some_and(|t| **t == *term) {
                    return (id, false);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Doubles the table (1024 slots at first) and reinserts every id.
    #[cold]
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(1024);
        let mask = size - 1;
        let mut slots = vec![EMPTY; size];
        for (id, &hash) in self.hashes.iter().enumerate() {
            let mut i = hash as usize & mask;
            while slots.get(i).is_some_and(|&s| s != EMPTY) {
                i = (i + 1) & mask;
            }
            if let Some(s) = slots.get_mut(i) {
                *s = (hash >> 32) << 32 | (id as u64 + 1);
            }
        }
        self.slots = slots;
    }
}

/// Multiplies into 128 bits and folds the halves (the mixing step of foldhash/wyhash).
#[inline]
fn fold(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// A fast, well-mixed 64-bit hash of a short byte string (terms are mostly under 16 bytes).
#[inline]
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    const K0: u64 = 0x243F_6A88_85A3_08D3;
    const K1: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (bytes.len() as u64) ^ K0;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        h = fold(h ^ u64::from_le_bytes(b), K1);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        let mut b = [0u8; 8];
        b[..tail.len()].copy_from_slice(tail);
        h = fold(h ^ u64::from_le_bytes(b), K1);
    }
    fold(h, K0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_first_seen_order_through_growth() {
        let mut interner = Interner::default();
        let mut terms = Vec::new();
        let words: Vec<String> = (0..5000).map(|i| format!("w{}", i * 7919 % 3001)).collect();
        let mut expected: Vec<&str> = Vec::new();
        for w in &words {
            let (id, new) = interner.intern(w, &mut terms);
            let pos = expected.iter().position(|e| e == w);
            assert_eq!(new, pos.is_none());
            if pos.is_none() {
                expected.push(w);
            }
            assert_eq!(id as usize, pos.unwrap_or(expected.len() - 1));
        }
        assert_eq!(terms.iter().map(|t| &**t).collect::<Vec<_>>(), expected);
        // Prefixes, the empty string and lengths around the 8-byte words stay distinct.
        let mut interner = Interner::default();
        let mut terms = Vec::new();
        let keys = [
            "",
            "a",
            "aaaaaaa",
            "aaaaaaaa",
            "aaaaaaaaa",
            "aaaaaaaa\0",
            "§file",
            "file",
        ];
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(interner.intern(k, &mut terms), (i as u32, true));
        }
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(interner.intern(k, &mut terms), (i as u32, false));
        }
    }
}
