//! The name table's keys, made in one pass over the tools' name columns (`NameTable`'s build).
//!
//! A deliberate twin of the Python specification: [`name_key`] is `toolsift.query.name_key`
//! (lowercase, every character that is not a letter or digit removed; non-ASCII text folds as
//! the tokenizer folds it: the concatenated tokens of `crate::text::tokenize`, itself the twin
//! of `toolsift._text.tokenize`), and [`KeyMaker::tool_keys`] is `_index_tool` in
//! `python/toolsift/_names/table.py`: every normalised name form of a tool, the plain and the
//! qualified ones, in the order it adds them, the sanitised-name branch (every alias of
//! `toolsift.tools.tool_aliases`) included. `tests/test_name_table_build.py` proves them equal
//! with Hypothesis on arbitrary Unicode names and tool sets.
//!
//! [`NameTableBuild`] gathers the keys of a whole catalogue: per key, the tool ids holding it
//! (ascending, each once) and whether one of them may have an identifier name (the marks of
//! [`NameKeys`]), so the binding builds the table's maps and its compiled key sets from one
//! read of the tools, with no Python code per tool. [`NameMap`] is one of the table's two maps
//! in compact form (the keys packed in one buffer, the ids as `u32`): about a third of the
//! memory of the Python dict of the same keys.

use std::collections::HashMap;

use hashbrown::hash_table::HashTable;

use crate::search::name_keys::{may_be_identifier, NameKeys, MIN_SQUASHED_LENGTH};
use crate::text::packed_strings::PackedStrings;
use crate::text::tokenize::Tokenizer;

/// `toolsift.query.name_key(text)`, written into `out` (cleared first).
pub fn name_key(text: &str, tokenizer: &mut Tokenizer, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.extend(
            text.bytes()
                .filter(u8::is_ascii_alphanumeric)
                .map(|b| char::from(b.to_ascii_lowercase())),
        );
    } else {
        tokenizer.for_each_token(text, |token| out.push_str(token));
    }
}

/// `toolsift.tools._sanitize_part`: every character outside `[A-Za-z0-9_-]` becomes `_` (two
/// for a character outside the BMP: one per UTF-16 code unit).
pub fn sanitize_part(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    for c in part.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else if u32::from(c) > 0xFFFF {
            out.push_str("__");
        } else {
            out.push('_');
        }
    }
    out
}

/// Which dict of the table a key goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// Names, raw MCP names and the other aliases.
    Plain,
    /// Server + tool (which also serves `mcp` + server + tool).
    Qualified,
}

/// Makes the keys of tools, reusing its buffers from tool to tool.
#[derive(Debug, Default)]
pub struct KeyMaker {
    tokenizer: Tokenizer,
    raw: String,
    qualified: String,
    key: String,
    text: String,
}

impl KeyMaker {
    /// Calls `add` with each key `_index_tool` stores for the tool (`name`, `server`,
    /// `mcp_tool_name`), in its order; a key may come twice (the table keeps a tool once).
    pub fn tool_keys(
        &mut self,
        name: &str,
        server: Option<&str>,
        mcp_tool_name: Option<&str>,
        mut add: impl FnMut(Table, &str),
    ) {
        let Some(server) = server else {
            for alias in [Some(name), mcp_tool_name].into_iter().flatten() {
                name_key(alias, &mut self.tokenizer, &mut self.key);
                if !self.key.is_empty() {
                    add(Table::Plain, &self.key);
                }
            }
            return;
        };
        let raw = mcp_tool_name.unwrap_or(name);
        name_key(raw, &mut self.tokenizer, &mut self.raw);
        name_key(server, &mut self.tokenizer, &mut self.qualified);
        self.qualified.push_str(&self.raw);
        if !self.qualified.is_empty() {
            add(Table::Qualified, &self.qualified);
        }
        if !self.raw.is_empty() {
            add(Table::Plain, &self.raw);
        }
        name_key(name, &mut self.tokenizer, &mut self.key);
        if self.key.strip_prefix("mcp") == Some(self.qualified.as_str()) {
            return; // the canonical name of a safe server and tool: no other form
        }
        // Sanitising changed the canonical name, or it is not canonical: every alias
        // (`tool_aliases`: the name, the raw name, `server.tool`, `server/tool`, the plain name).
        let prefix = format!("mcp__{}__", sanitize_part(server));
        let plain = match name.strip_prefix(prefix.as_str()) {
            Some(rest) if !rest.is_empty() => rest.to_owned(),
            _ => sanitize_part(raw),
        };
        for form in 0..5 {
            self.text.clear();
            match form {
                0 => self.text.push_str(name),
                1 => self.text.push_str(raw),
                2 | 3 => {
                    self.text.push_str(server);
                    self.text.push(if form == 2 { '.' } else { '/' });
                    self.text.push_str(raw);
                }
                _ => self.text.push_str(&plain),
            }
            name_key(&self.text, &mut self.tokenizer, &mut self.key);
            let key = self.key.as_str();
            if !key.is_empty()
                && key != self.qualified
                && key.strip_prefix("mcp") != Some(self.qualified.as_str())
                && key != self.raw
            {
                add(Table::Plain, key);
            }
        }
    }
}

/// One key of a built table: the ids holding it, ascending, and whether one of those tools may
/// have an identifier name.
#[derive(Debug)]
pub struct KeyIds {
    pub key: Box<str>,
    pub ids: Vec<u32>,
    pub identifier: bool,
}

/// The keys of one dict of the table, in the order the Python build inserts them.
#[derive(Debug, Default)]
pub struct KeyList {
    index: HashMap<Box<str>, usize, ahash::RandomState>,
    pub entries: Vec<KeyIds>,
}

impl KeyList {
    fn add(&mut self, key: &str, id: u32, identifier: bool) {
        let at = match self.index.get(key) {
            Some(&at) => at,
            None => {
                self.index.insert(key.into(), self.entries.len());
                self.entries.push(KeyIds {
                    key: key.into(),
                    ids: Vec::with_capacity(1),
                    identifier: false,
                });
                self.entries.len() - 1
            }
        };
        let entry = &mut self.entries[at];
        if entry.ids.last() != Some(&id) {
            entry.ids.push(id);
        }
        entry.identifier |= identifier;
    }
}

/// A whole table's keys: `plain` and `qualified`, gathered tool by tool.
#[derive(Debug, Default)]
pub struct NameTableBuild {
    pub plain: KeyList,
    pub qualified: KeyList,
    maker: KeyMaker,
}

impl NameTableBuild {
    /// Adds tool `id`'s keys (ids must come in ascending order).
    pub fn add_tool(&mut self, id: u32, name: &str, server: Option<&str>, mcp: Option<&str>) {
        let identifier = may_be_identifier(mcp.filter(|m| !m.is_empty()).unwrap_or(name));
        let (plain, qualified) = (&mut self.plain, &mut self.qualified);
        self.maker
            .tool_keys(name, server, mcp, |table, key| match table {
                Table::Plain => plain.add(key, id, identifier),
                Table::Qualified => qualified.add(key, id, identifier),
            });
    }

    /// The compiled key sets of the table, identifier marks set.
    pub fn name_keys(&self) -> NameKeys {
        let mut keys = NameKeys::default();
        add_keys(&mut keys, &self.plain, &self.qualified);
        keys.set_marked();
        keys
    }
}

/// Adds the keys of `plain` and `qualified` to `keys`, with their identifier marks (a plain key
/// of [`MIN_SQUASHED_LENGTH`] characters or more, a qualified one of 3 or more, as
/// `NameKeys(plain, qualified, tools)` marks them).
pub fn add_keys(keys: &mut NameKeys, plain: &KeyList, qualified: &KeyList) {
    for (list, table) in [(plain, Table::Plain), (qualified, Table::Qualified)] {
        let min_len = match table {
            Table::Plain => MIN_SQUASHED_LENGTH,
            Table::Qualified => MIN_SQUASHED_LENGTH - 3,
        };
        for entry in &list.entries {
            match table {
                Table::Plain => keys.add_plain(&entry.key),
                Table::Qualified => keys.add_qualified(&entry.key),
            }
            if entry.identifier && entry.key.chars().count() >= min_len {
                keys.mark_identifier(&entry.key, table == Table::Qualified);
            }
        }
    }
}

/// Normalised name forms -> ascending tool ids, compact and read-only: the keys in one
/// buffer, every key's ids in one `u32` list, and a hash table of entry numbers.
#[derive(Debug, Default)]
pub struct NameMap {
    keys: PackedStrings,
    /// Entry `i`'s ids are `ids[id_ends[i - 1]..id_ends[i]]`.
    ids: Vec<u32>,
    id_ends: Vec<u32>,
    index: HashTable<u32>,
    hasher: ahash::RandomState,
}

impl NameMap {
    /// The map of a gathered key list, in its order.
    pub fn of(list: &KeyList) -> Self {
        let n = list.entries.len();
        let bytes = list.entries.iter().map(|e| e.key.len()).sum();
        let mut map = NameMap {
            keys: PackedStrings::with_capacity(bytes, n),
            ids: Vec::with_capacity(list.entries.iter().map(|e| e.ids.len()).sum()),
            id_ends: Vec::with_capacity(n),
            index: HashTable::with_capacity(n),
            hasher: ahash::RandomState::new(),
        };
        for (i, entry) in list.entries.iter().enumerate() {
            map.keys.push(&entry.key);
            map.ids.extend_from_slice(&entry.ids);
            map.id_ends
                .push(u32::try_from(map.ids.len()).expect("fewer than 2**32 ids"));
            let hash = map.hasher.hash_one(&*entry.key);
            let (keys, hasher) = (&map.keys, &map.hasher);
            map.index.insert_unique(hash, i as u32, |&j| {
                hasher.hash_one(keys.get(j as usize).unwrap_or(""))
            });
        }
        map
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.id_ends.len()
    }

    /// Whether the map holds no key.
    pub fn is_empty(&self) -> bool {
        self.id_ends.is_empty()
    }

    /// Entry `i`'s key.
    pub fn key(&self, i: usize) -> &str {
        self.keys.get(i).unwrap_or("")
    }

    /// Entry `i`'s ids, ascending.
    pub fn ids(&self, i: usize) -> &[u32] {
        let start = if i == 0 {
            0
        } else {
            self.id_ends[i - 1] as usize
        };
        &self.ids[start..self.id_ends[i] as usize]
    }

    /// The entry of `key`, if it is a key.
    pub fn find(&self, key: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(key);
        self.index
            .find(hash, |&j| self.keys.get(j as usize) == Some(key))
            .map(|&j| j as usize)
    }

    /// The bytes held (buffers and hash table).
    pub fn memory_bytes(&self) -> usize {
        self.keys.memory_bytes()
            + 4 * (self.ids.capacity() + self.id_ends.capacity())
            + self.index.allocation_size()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys_of(name: &str, server: Option<&str>, mcp: Option<&str>) -> Vec<(Table, String)> {
        let mut out = Vec::new();
        KeyMaker::default().tool_keys(name, server, mcp, |t, k| out.push((t, k.to_owned())));
        out
    }

    #[test]
    fn keys_as_python_makes_them() {
        let mut out = String::new();
        let mut tok = Tokenizer::new();
        name_key("getCurrentTime", &mut tok, &mut out);
        assert_eq!(out, "getcurrenttime");
        name_key("café ΟΔΥΣΣΕΥΣ", &mut tok, &mut out);
        assert_eq!(out, "cafeοδυσσευς");
        assert_eq!(sanitize_part("a.b😀"), "a_b__");
    }

    #[test]
    fn maps_find_their_keys_and_ids() {
        let mut build = NameTableBuild::default();
        build.add_tool(0, "read_file", None, None);
        build.add_tool(1, "mcp__fs__read_file", Some("fs"), Some("read_file"));
        build.add_tool(2, "send", None, None);
        let map = NameMap::of(&build.plain);
        assert_eq!(map.len(), 2);
        let i = map.find("readfile").unwrap();
        assert_eq!((map.key(i), map.ids(i)), ("readfile", &[0, 1][..]));
        assert_eq!(map.ids(map.find("send").unwrap()), [2]);
        assert_eq!(map.find("other"), None);
        assert!(map.memory_bytes() > 0);
    }

    #[test]
    fn canonical_tools_have_two_keys_and_others_every_alias() {
        use Table::*;
        assert_eq!(
            keys_of("mcp__fs__read_file", Some("fs"), Some("read_file")),
            [(Qualified, "fsreadfile".into()), (Plain, "readfile".into())]
        );
        assert_eq!(
            keys_of("read_file", None, Some("rf")),
            [(Plain, "readfile".into()), (Plain, "rf".into())]
        );
        // A non-ASCII server: the canonical name is sanitised, so every alias is indexed.
        let keys = keys_of("mcp__caf___read", Some("café"), Some("read"));
        assert_eq!(keys[0], (Qualified, "caferead".into()));
        assert!(keys.contains(&(Plain, "mcpcafread".into())));
    }
}
