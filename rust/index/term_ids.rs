//! The term dictionary's lookup side ([`TermIds`], term string -> term id) over its term list
//! (a [`PackedStrings`], every term back to back in one buffer).
//!
//! The table holds only ids (4 bytes a slot); a term's text lives once, in the term list, where
//! lookups compare it. A `HashMap<Box<str>, u32>` beside a `Vec<Box<str>>` stored every term
//! twice, each copy its own allocation: ~80 bytes a term more than the text, 16 MB of a
//! 100k-tool english index's 201k terms. Keyed `ahash` resists hash flooding from hostile
//! catalogues.

use crate::text::PackedStrings;
use hashbrown::hash_table::{Entry, HashTable};

/// Term -> id over a term list that the caller owns (see the module docs).
#[derive(Clone, Default)]
pub(crate) struct TermIds {
    table: HashTable<u32>,
    hasher: ahash::RandomState,
}

impl TermIds {
    /// The ids of `terms` (distinct), term `i` with id `i`.
    pub(crate) fn of(terms: &PackedStrings) -> Self {
        let mut ids = TermIds::default();
        ids.table.reserve(terms.len(), |_| 0);
        for (id, term) in terms.iter().enumerate() {
            let hash = ids.hasher.hash_one(term);
            ids.table.insert_unique(hash, id as u32, |&t| {
                ids.hasher.hash_one(&terms[t as usize])
            });
        }
        ids
    }

    /// This table carried over to a new term list `terms` (a live update's): old id `t` becomes
    /// `new_id[t]` (`u32::MAX`: dropped), and the terms `added` (new ids, in `terms`) join. Equal,
    /// as a map, to `TermIds::of(terms)` when `terms` holds exactly the kept and added terms;
    /// no kept term is hashed again (a term's hash is of its text, which is unchanged).
    pub(crate) fn carried(
        &self,
        new_id: &[u32],
        terms: &PackedStrings,
        added: std::ops::Range<u32>,
    ) -> Self {
        let mut ids = self.clone();
        ids.table.retain(|id| match new_id.get(*id as usize) {
            Some(&f) if f != u32::MAX => {
                *id = f;
                true
            }
            _ => false,
        });
        let hasher = &ids.hasher;
        ids.table.reserve(added.len(), |&t| {
            hasher.hash_one(terms.get(t as usize).unwrap_or(""))
        });
        for id in added {
            let hash = hasher.hash_one(&terms[id as usize]);
            ids.table.insert_unique(hash, id, |&t| {
                hasher.hash_one(terms.get(t as usize).unwrap_or(""))
            });
        }
        ids
    }

    /// The id of `term`, whose text is `terms[id]`.
    #[inline]
    pub(crate) fn get(&self, terms: &PackedStrings, term: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(term);
        self.table
            .find(hash, |&id| terms.get(id as usize) == Some(term))
            .copied()
    }

    /// The id of `term`, appending it to `terms` with the next id if it is new; `true` when new.
    pub(crate) fn get_or_insert(&mut self, terms: &mut PackedStrings, term: &str) -> (u32, bool) {
        let hash = self.hasher.hash_one(term);
        let hasher = &self.hasher;
        let list: &PackedStrings = terms;
        let entry = self.table.entry(
            hash,
            |&id| list.get(id as usize) == Some(term),
            |&id| hasher.hash_one(list.get(id as usize).unwrap_or("")),
        );
        match entry {
            Entry::Occupied(e) => (*e.get(), false),
            Entry::Vacant(e) => {
                let id = terms.len() as u32;
                e.insert(id);
                terms.push(term);
                (id, true)
            }
        }
    }

    /// The number of terms.
    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }

    /// Heap bytes of the table (a slot is an id and a control byte).
    pub(crate) fn memory_bytes(&self) -> usize {
        // hashbrown keeps at most 7/8 of its buckets full.
        self.table.capacity() * 8 / 7 * 5
    }

    /// The `(id, term)` pairs (for tests).
    #[cfg(test)]
    pub(crate) fn iter<'a>(
        &'a self,
        terms: &'a PackedStrings,
    ) -> impl Iterator<Item = (u32, &'a str)> {
        self.table.iter().map(|&id| (id, &terms[id as usize]))
    }
}

impl std::fmt::Debug for TermIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TermIds({} terms)", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_first_seen_order_and_lookups() {
        let mut ids = TermIds::default();
        let mut terms = PackedStrings::default();
        let words: Vec<String> = (0..3000).map(|i| format!("w{}", i * 7919 % 1001)).collect();
        let mut expected: Vec<&str> = Vec::new();
        for w in &words {
            let (id, new) = ids.get_or_insert(&mut terms, w);
            let pos = expected.iter().position(|e| e == w);
            assert_eq!(new, pos.is_none());
            if pos.is_none() {
                expected.push(w);
            }
            assert_eq!(id as usize, pos.unwrap_or(expected.len() - 1));
        }
        assert_eq!(ids.len(), expected.len());
        let rebuilt = TermIds::of(&terms);
        for (i, t) in expected.iter().enumerate() {
            assert_eq!(ids.get(&terms, t), Some(i as u32));
            assert_eq!(rebuilt.get(&terms, t), Some(i as u32));
        }
        for missing in ["", "w", "w1001", "§w1"] {
            assert_eq!(ids.get(&terms, missing), None);
            assert_eq!(rebuilt.get(&terms, missing), None);
        }
        assert!(ids.memory_bytes() >= 5 * ids.len());
    }

    #[test]
    fn a_carried_table_is_the_table_of_the_new_list() {
        let old: PackedStrings = (0..2000)
            .map(|i| format!("t{i}"))
            .collect::<Vec<_>>()
            .iter()
            .map(String::as_str)
            .collect();
        let ids = TermIds::of(&old);
        // Every third term dropped, the rest renumbered in order, then 500 new terms.
        let mut new_id = vec![u32::MAX; old.len()];
        let mut terms = PackedStrings::default();
        for (t, slot) in new_id.iter_mut().enumerate() {
            if t % 3 != 0 {
                *slot = terms.len() as u32;
                terms.push(&old[t]);
            }
        }
        let kept = terms.len() as u32;
        for i in 0..500 {
            terms.push(&format!("new{i}"));
        }
        let carried = ids.carried(&new_id, &terms, kept..terms.len() as u32);
        let fresh = TermIds::of(&terms);
        assert_eq!(carried.len(), fresh.len());
        for (id, term) in fresh.iter(&terms) {
            assert_eq!(carried.get(&terms, term), Some(id), "{term}");
        }
        for gone in ["t0", "t3", "t1998", "new500"] {
            assert_eq!(carried.get(&terms, gone), None);
        }
        // The old table is left as it was.
        assert_eq!(ids.get(&old, "t3"), Some(3));
    }
}
