//! Chunk-local term ids for [`super::tokenize_chunk`]: an open-addressing hash table that holds
//! ids into the chunk's own term list, so each distinct term is stored once (a
//! `HashMap<Box<str>, u32>` beside the list stored every term twice), hashed by a hash made for
//! short keys. The list (a [`PackedStrings`]) keeps the terms back to back in one buffer: a chunk of an
//! english build holds ~10k terms.
//!
//! Ids are handed out in first-seen order, as the index build requires; the hash function only
//! decides where an id sits in the table, never which id a term gets.

use crate::text::PackedStrings;

/// Term -> id over [`PackedStrings`] that the caller owns and that only this interner appends to.
///
/// A slot holds the term's first 8 bytes (zero-padded) beside its length, 24 bits of its hash
/// and its id, so a term of up to 8 bytes (most words) is matched without reading the term
/// list; a longer one is compared in full once its first 8 bytes, length and hash bits match.
#[derive(Default)]
pub(crate) struct Interner {
    /// Per slot: `[first 8 bytes, hash bits 40.. << 40 | min(len, 255) << 32 | id + 1]`; an
    /// empty slot's second word is 0.
    slots: Vec<[u64; 2]>,
    /// The full hash of each id's term, to place it again when the table grows.
    hashes: Vec<u64>,
}

/// The first 8 bytes of a term, zero-padded, as a little-endian integer.
///
/// Read with at most two fixed-size loads instead of copying a variable length into a
/// buffer, which compiles to a call to `memcpy` (~3% of an english build): two loads that
/// overlap put the same byte in the same place, so OR-ing them gives the padded value.
#[inline]
fn head(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let word = |i: usize| -> u64 {
        let mut b = [0u8; 4];
        if let Some(s) = bytes.get(i..i + 4) {
            b.copy_from_slice(s);
        }
        u64::from(u32::from_le_bytes(b))
    };
    let byte = |i: usize| u64::from(bytes.get(i).copied().unwrap_or(0));
    if let Some(first) = bytes.first_chunk::<8>() {
        u64::from_le_bytes(*first)
    } else if n >= 4 {
        word(0) | word(n - 4) << ((n - 4) * 8)
    } else if n > 0 {
        byte(0) | byte(n / 2) << (n / 2 * 8) | byte(n - 1) << ((n - 1) * 8)
    } else {
        0
    }
}

/// Everything of a slot's second word but the id.
const KEY_MASK: u64 = !0xFFFF_FFFF;

impl Interner {
    /// The id of `term` in `terms`, appending it if it is new; `true` when it was new.
    #[inline]
    pub(crate) fn intern(&mut self, term: &str, terms: &mut PackedStrings) -> (u32, bool) {
        if self.hashes.len() * 2 >= self.slots.len() {
            self.grow();
        }
        let bytes = term.as_bytes();
        let hash = hash(bytes);
        let word = head(bytes);
        let key = (hash >> 40) << 40 | (bytes.len().min(255) as u64) << 32;
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            // `i` is masked, and the table is never full (load at most 1/2).
            let [w, meta] = self.slots.get(i).copied().unwrap_or([0, 0]);
            if meta == 0 {
                let id = terms.len() as u32;
                terms.push(term);
                self.hashes.push(hash);
                if let Some(s) = self.slots.get_mut(i) {
                    *s = [word, key | (u64::from(id) + 1)];
                }
                return (id, true);
            }
            if meta & KEY_MASK == key && w == word {
                let id = (meta as u32).wrapping_sub(1);
                // Equal lengths up to 8 and equal first 8 bytes: the same term.
                if bytes.len() <= 8 || terms.get(id as usize) == Some(term) {
                    return (id, false);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Doubles the table (1024 slots at first) and places every slot again.
    #[cold]
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(1024);
        let mask = size - 1;
        let mut slots = vec![[0u64, 0u64]; size];
        for &slot in self.slots.iter().filter(|s| s[1] != 0) {
            let id = (slot[1] as u32).wrapping_sub(1);
            let hash = self.hashes.get(id as usize).copied().unwrap_or(0);
            let mut i = hash as usize & mask;
            while slots.get(i).is_some_and(|s| s[1] != 0) {
                i = (i + 1) & mask;
            }
            if let Some(s) = slots.get_mut(i) {
                *s = slot;
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
        h = fold(h ^ head(tail), K1);
    }
    fold(h, K0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_is_the_zero_padded_first_eight_bytes() {
        let text = b"abcdefghijk\xff\x00\x01";
        for start in 0..text.len() {
            for end in start..=text.len() {
                let bytes = &text[start..end];
                let mut b = [0u8; 8];
                let n = bytes.len().min(8);
                b[..n].copy_from_slice(&bytes[..n]);
                assert_eq!(head(bytes), u64::from_le_bytes(b), "{bytes:?}");
            }
        }
    }

    #[test]
    fn ids_are_first_seen_order_through_growth() {
        let mut interner = Interner::default();
        let mut terms = PackedStrings::default();
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
        assert_eq!(terms.iter().collect::<Vec<_>>(), expected);
        // Prefixes, the empty string and lengths around the 8-byte words stay distinct.
        let mut interner = Interner::default();
        let mut terms = PackedStrings::default();
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
