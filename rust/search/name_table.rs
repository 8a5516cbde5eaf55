//! The name table's keys, made in one pass over the tools' name columns (`NameTable`'s build):
//! each tool's name forms come from [`KeyMaker`] (`super::name_forms`, the twin of Python's
//! `_index_tool`).
//!
//! [`NameTableBuild`] gathers the keys of a whole catalogue: per key, the tool ids holding it
//! (ascending, each once) and whether one of them may have an identifier name (the marks of
//! [`NameKeys`]), so the binding builds the table's maps and its compiled key sets from one
//! read of the tools, with no Python code per tool. [`NameMap`] is one of the table's two maps
//! in compact form (the keys packed in one buffer, a key's one id in place, the ids as `u32`):
//! about a quarter of the memory of the Python dict of the same keys.

use hashbrown::hash_table::HashTable;

use super::name_forms::{KeyMaker, Table};
use crate::search::name_keys::{may_be_identifier, NameKeys, MIN_SQUASHED_LENGTH};
use crate::text::packed_strings::{CompactStrings, PackedStrings};

/// The keys of one map of the table as they are gathered, in the order the Python build
/// inserts them: each key once (packed in one buffer), with its ids and identifier mark, and
/// no allocation per key.
#[derive(Debug, Default)]
pub struct KeyList {
    keys: PackedStrings,
    /// Each entry's key hash (by the build's hasher).
    hashes: Vec<u64>,
    index: HashTable<u32>,
    /// Each entry's first and last id.
    first: Vec<u32>,
    last: Vec<u32>,
    /// `(entry, id)` for every id after an entry's first, in the order added.
    more: Vec<(u32, u32)>,
    /// Whether a tool holding the entry may have an identifier name.
    identifier: Vec<bool>,
}

impl KeyList {
    fn add(&mut self, hasher: &ahash::RandomState, key: &str, id: u32, identifier: bool) {
        let hash = hasher.hash_one(key.as_bytes()); // as `NameKeys` hashes keys
        let keys = &self.keys;
        let found = self
            .index
            .find(hash, |&j| keys.get(j as usize) == Some(key))
            .copied();
        let entry = match found {
            Some(entry) => entry,
            None => {
                let entry = self.first.len() as u32;
                let hashes = &self.hashes;
                self.index
                    .insert_unique(hash, entry, |&j| hashes[j as usize]);
                self.keys.push(key);
                self.hashes.push(hash);
                self.first.push(id);
                self.last.push(id);
                self.identifier.push(identifier);
                return;
            }
        };
        let e = entry as usize;
        if self.last[e] != id {
            self.last[e] = id;
            self.more.push((entry, id));
        }
        self.identifier[e] |= identifier;
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.first.len()
    }

    /// Whether no key was added.
    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }
}

/// A whole table's keys: `plain` and `qualified`, gathered tool by tool (one hasher for both
/// and for the compiled key sets, so each key is hashed once).
#[derive(Debug, Default)]
pub struct NameTableBuild {
    pub plain: KeyList,
    pub qualified: KeyList,
    hasher: ahash::RandomState,
    maker: KeyMaker,
}

impl NameTableBuild {
    /// A build whose keys hash as `keys` hashes them, to add them to `keys` ([`add_keys`]).
    pub fn for_keys(keys: &NameKeys) -> Self {
        NameTableBuild {
            hasher: keys.hasher().clone(),
            ..NameTableBuild::default()
        }
    }

    /// Adds tool `id`'s keys (ids must come in ascending order).
    pub fn add_tool(&mut self, id: u32, name: &str, server: Option<&str>, mcp: Option<&str>) {
        let identifier = may_be_identifier(mcp.filter(|m| !m.is_empty()).unwrap_or(name));
        let (plain, qualified, hasher) = (&mut self.plain, &mut self.qualified, &self.hasher);
        self.maker
            .tool_keys(name, server, mcp, |table, key| match table {
                Table::Plain => plain.add(hasher, key, id, identifier),
                Table::Qualified => qualified.add(hasher, key, id, identifier),
            });
    }

    /// The compiled key sets of the table, identifier marks set.
    pub fn name_keys(&self) -> NameKeys {
        let mut keys =
            NameKeys::with_hasher(self.hasher.clone(), self.plain.len() + self.qualified.len());
        add_keys(&mut keys, self);
        keys.set_marked();
        keys
    }

    /// The table's maps and key sets ([`NameTable`]).
    pub fn finish(self) -> NameTable {
        let keys = self.name_keys();
        NameTable {
            maps: self.into_maps(),
            keys,
        }
    }

    /// The two maps (plain, qualified); `None` past 4 GiB of keys (never for a catalogue a
    /// loader accepts).
    pub fn into_maps(self) -> Option<(NameMap, NameMap)> {
        let hasher = self.hasher;
        Some((
            NameMap::of(self.plain, hasher.clone())?,
            NameMap::of(self.qualified, hasher)?,
        ))
    }
}

/// A built name table: its two maps (plain, qualified; `None` past 4 GiB of keys) and their
/// compiled key sets, identifier marks set.
#[derive(Debug)]
pub struct NameTable {
    pub maps: Option<(NameMap, NameMap)>,
    pub keys: NameKeys,
}

impl NameTable {
    /// The table of tools given as `(name, server, raw MCP name)`, tool id = position.
    pub fn of<'a>(
        tools: impl IntoIterator<Item = (&'a str, Option<&'a str>, Option<&'a str>)>,
    ) -> Self {
        let mut build = NameTableBuild::default();
        for (i, (name, server, mcp)) in tools.into_iter().enumerate() {
            let id = u32::try_from(i).expect("fewer than 2**32 tools");
            build.add_tool(id, name, server, mcp);
        }
        build.finish()
    }

    /// The bytes held (maps and key sets).
    pub fn memory_bytes(&self) -> usize {
        let maps = self
            .maps
            .as_ref()
            .map_or(0, |(p, q)| p.memory_bytes() + q.memory_bytes());
        maps + self.keys.memory_bytes()
    }
}

/// Adds the keys of `build` to `keys` (which must hash as `build` does: built by
/// [`NameTableBuild::name_keys`], or `build` made by [`NameTableBuild::for_keys`]), with their
/// identifier marks (a plain key of [`MIN_SQUASHED_LENGTH`] characters or more, a qualified
/// one of 3 or more, as `NameKeys(plain, qualified, tools)` marks them). Each key's hash is
/// the one the build computed.
pub fn add_keys(keys: &mut NameKeys, build: &NameTableBuild) {
    for (list, qualified) in [(&build.plain, false), (&build.qualified, true)] {
        let min_len = if qualified {
            MIN_SQUASHED_LENGTH - 3
        } else {
            MIN_SQUASHED_LENGTH
        };
        for (e, key) in list.keys.iter().enumerate() {
            let identifier = list.identifier[e] && key.chars().count() >= min_len;
            keys.add_hashed(list.hashes[e], qualified, identifier);
        }
    }
}

/// An entry of a [`NameMap`] with more than one id (or an id of 2^31 or more): the rest of the
/// value is its number in `NameMap::spans`.
const MANY: u32 = 1 << 31;

/// Normalised name forms -> ascending tool ids, compact and read-only: the keys in one
/// buffer (32-bit ends), an entry's one id in place (most keys name one tool), the ids of the
/// others in one `u32` list, and a hash table of entry numbers.
#[derive(Debug, Default)]
pub struct NameMap {
    keys: CompactStrings,
    /// Per entry: its id, or [`MANY`] | its number in `spans`.
    values: Vec<u32>,
    /// Per entry of several ids: its ids' start and end in `more`.
    spans: Vec<(u32, u32)>,
    more: Vec<u32>,
    index: HashTable<u32>,
    hasher: ahash::RandomState,
}

impl NameMap {
    /// The map of a gathered key list (hashed by `hasher`), in its order; `None` past 4 GiB
    /// of keys or 2^31 entries (never for a catalogue a loader accepts).
    pub fn of(list: KeyList, hasher: ahash::RandomState) -> Option<Self> {
        let n = list.len();
        // Each entry's ids: its first, then its others in the order added (ascending).
        let mut counts = vec![1u32; n];
        for &(e, _) in &list.more {
            counts[e as usize] += 1;
        }
        let mut values = Vec::with_capacity(n);
        let mut spans = Vec::new();
        let mut total = 0u32;
        for (e, &first) in list.first.iter().enumerate() {
            if counts[e] == 1 && first < MANY {
                values.push(first);
            } else {
                let span = u32::try_from(spans.len()).ok().filter(|&s| s < MANY)?;
                values.push(MANY | span);
                spans.push((total, total));
                total = total.checked_add(counts[e])?;
            }
        }
        let mut more = vec![0u32; total as usize];
        for (e, &first) in list.first.iter().enumerate() {
            if values[e] & MANY != 0 {
                let span = &mut spans[(values[e] & !MANY) as usize];
                more[span.1 as usize] = first;
                span.1 += 1;
            }
        }
        for &(e, id) in &list.more {
            let span = &mut spans[(values[e as usize] & !MANY) as usize];
            more[span.1 as usize] = id;
            span.1 += 1;
        }
        let mut keys = CompactStrings::default();
        keys.reserve(n);
        for key in list.keys.iter() {
            keys.push(key).ok()?;
        }
        keys.shrink_to_fit();
        spans.shrink_to_fit();
        let mut index = list.index;
        let hashes = list.hashes;
        index.shrink_to(n, |&j| hashes[j as usize]);
        Some(NameMap {
            keys,
            values,
            spans,
            more,
            index,
            hasher,
        })
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the map holds no key.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Entry `i`'s key.
    pub fn key(&self, i: usize) -> &str {
        self.keys.get(i).unwrap_or("")
    }

    /// Entry `i`'s ids, ascending.
    pub fn ids(&self, i: usize) -> &[u32] {
        let Some(value) = self.values.get(i) else {
            return &[];
        };
        if value & MANY == 0 {
            return std::slice::from_ref(value);
        }
        let (start, end) = self.spans[(value & !MANY) as usize];
        &self.more[start as usize..end as usize]
    }

    /// The entry of `key`, if it is a key.
    pub fn find(&self, key: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(key.as_bytes());
        self.index
            .find(hash, |&j| self.keys.get(j as usize) == Some(key))
            .map(|&j| j as usize)
    }

    /// The bytes held (buffers and hash table).
    pub fn memory_bytes(&self) -> usize {
        self.keys.memory_bytes()
            + 4 * (self.values.capacity() + self.more.capacity())
            + 8 * self.spans.capacity()
            + self.index.allocation_size()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_find_their_keys_and_ids() {
        let mut build = NameTableBuild::default();
        build.add_tool(0, "read_file", None, None);
        build.add_tool(1, "mcp__fs__read_file", Some("fs"), Some("read_file"));
        build.add_tool(2, "send", None, None);
        // The key sets see the keys by the hashes the build computed.
        let keys = build.name_keys();
        assert_eq!(keys.names_none("read file"), None);
        assert_eq!(keys.names_none("send"), None);
        assert_eq!(keys.names_none("other words"), Some(vec![]));
        assert!(keys.may_be_squashed_name("readfile") && !keys.may_be_squashed_name("send"));
        let mut layered = keys.layered();
        let mut more = NameTableBuild::for_keys(&layered);
        more.add_tool(3, "fetch_item", None, None);
        add_keys(&mut layered, &more);
        assert_eq!(layered.names_none("fetch item"), None);
        assert_eq!(keys.names_none("fetch item"), Some(vec![]));
        // `NameTable::of` is the same build in one call.
        let table = NameTable::of([
            ("read_file", None, None),
            ("mcp__fs__read_file", Some("fs"), Some("read_file")),
            ("send", None, None),
        ]);
        assert_eq!(table.keys.names_none("read file"), None);
        assert!(table.memory_bytes() > 0);
        let (of_plain, _) = table.maps.unwrap();
        let map = build.into_maps().unwrap().0;
        assert_eq!(map.len(), 2);
        assert_eq!(of_plain.len(), 2);
        assert_eq!(of_plain.ids(of_plain.find("readfile").unwrap()), [0, 1]);
        let i = map.find("readfile").unwrap();
        assert_eq!((map.key(i), map.ids(i)), ("readfile", &[0, 1][..]));
        assert_eq!(map.ids(map.find("send").unwrap()), [2]);
        assert_eq!(map.find("other"), None);
        assert!(map.memory_bytes() > 0);
        // An id past 2^31 is stored as a list of one.
        let mut big = NameTableBuild::default();
        big.add_tool(1 << 31, "big_tool", None, None);
        big.add_tool((1 << 31) + 1, "big_tool", None, None);
        big.add_tool((1 << 31) + 2, "other_tool", None, None);
        let map = big.into_maps().unwrap().0;
        assert_eq!(map.ids(0), [1 << 31, (1 << 31) + 1]);
        assert_eq!(map.ids(1), [(1 << 31) + 2]);
        assert_eq!(map.ids(2), [0u32; 0]);
    }
}
