//! The name columns of an index's tools ([`NameColumns`]): each tool's name, server and raw MCP
//! name, packed, with a hashed name -> position lookup built on first use.
//!
//! A gateway's index of 100,000 tools needs every tool's name (to find tools by name) and its
//! server and raw MCP name (the name table), but reads the tools themselves only for the few
//! matches a search returns. As Python lists of `str` these columns cost ~90 bytes a name, ~75 a
//! raw MCP name and a dict entry per name (20 MiB at 100,000 tools); here a name costs its bytes
//! plus 4, a server a 4-byte number (each distinct server stored once), and a raw MCP name that
//! ends its tool's name (the canonical `mcp__server__tool` form) a 4-byte offset into the name.
//! The names of a record build's columns are the engine index's own ([`NameColumns::share_names`]):
//! held once, not twice.

use std::sync::{Arc, OnceLock};

use hashbrown::hash_table::HashTable;

use super::packed_strings::{CompactStrings as Strings, PackedStrings, TooLarge};

/// The columns hold more than 4 GiB of text (never for a catalogue a loader accepts).
pub type ColumnsTooLarge = TooLarge;

/// No server, or no raw MCP name.
const NONE: u32 = u32::MAX;
/// The mark of a raw MCP name stored on its own (the rest: its number in `mcp_own`).
const OWN: u32 = 1 << 31;

/// Each tool's name, server and raw MCP name, in tool order.
#[derive(Debug, Default)]
pub struct NameColumns {
    /// The names (at most 4 GiB of text: [`ColumnsBuilder::push`] checks), perhaps shared with
    /// the engine index of the same tools.
    names: Arc<PackedStrings>,
    /// Per tool: its server's number in `servers`, or [`NONE`].
    server_of: Vec<u32>,
    /// The distinct servers, in order of first use.
    servers: Strings,
    /// Per tool: [`NONE`]; [`OWN`] | its number in `mcp_own`; or the byte offset in its name
    /// where its raw MCP name (an ending of the name) starts.
    mcp: Vec<u32>,
    mcp_own: Strings,
    hasher: ahash::RandomState,
    /// Name -> the last position holding it (as `dict(zip(names, range(n)))` keeps), made on
    /// the first lookup.
    positions: OnceLock<HashTable<u32>>,
}

impl NameColumns {
    /// The number of tools.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there is no tool.
    pub fn is_empty(&self) -> bool {
        self.names.len() == 0
    }

    /// Tool `i`'s name (`None` past the end).
    pub fn name(&self, i: usize) -> Option<&str> {
        self.names.get(i)
    }

    /// Tool `i`'s server (`None`: it has none, or past the end).
    pub fn server(&self, i: usize) -> Option<&str> {
        match *self.server_of.get(i)? {
            NONE => None,
            s => self.servers.get(s as usize),
        }
    }

    /// Tool `i`'s raw MCP name (`None`: it has none, or past the end).
    pub fn mcp_tool_name(&self, i: usize) -> Option<&str> {
        match *self.mcp.get(i)? {
            NONE => None,
            m if m & OWN != 0 => self.mcp_own.get((m & !OWN) as usize),
            at => self.names.get(i)?.get(at as usize..),
        }
    }

    fn positions(&self) -> &HashTable<u32> {
        self.positions.get_or_init(|| {
            let mut table = HashTable::with_capacity(self.len());
            for i in 0..self.len() {
                let name = self.names.get(i).unwrap_or("");
                let hash = self.hasher.hash_one(name.as_bytes());
                let names = &self.names;
                match table.find_mut(hash, |&j: &u32| names.get(j as usize) == Some(name)) {
                    Some(at) => *at = i as u32,
                    None => {
                        table.insert_unique(hash, i as u32, |&j| {
                            self.hasher
                                .hash_one(names.get(j as usize).unwrap_or("").as_bytes())
                        });
                    }
                }
            }
            table
        })
    }

    /// The last position of a tool named `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(name.as_bytes());
        self.positions()
            .find(hash, |&j| self.names.get(j as usize) == Some(name))
            .map(|&j| j as usize)
    }

    /// The number of distinct names.
    pub fn distinct_names(&self) -> usize {
        self.positions().len()
    }

    /// The positions of the distinct names, in order of first occurrence (the order of a
    /// dict's keys; each name's value is its [`NameColumns::position`]).
    pub fn first_occurrences(&self) -> Vec<usize> {
        if self.distinct_names() == self.len() {
            return (0..self.len()).collect();
        }
        let mut seen = std::collections::HashSet::with_capacity(self.distinct_names());
        (0..self.len())
            .filter(|&i| seen.insert(self.names.get(i).unwrap_or("")))
            .collect()
    }

    /// Holds `names` (an engine index's document names) instead of its own copy of the same
    /// names, when they are the same list; whether they are. (Called by the Python bindings'
    /// record build, hence unused in a build without them.)
    #[cfg_attr(not(feature = "python"), allow(dead_code))]
    pub(crate) fn share_names(&mut self, names: &Arc<PackedStrings>) -> bool {
        let same = *self.names == **names;
        if same {
            self.names = Arc::clone(names);
        }
        same
    }

    /// The bytes held on the heap (the lookup table once made; the names even when shared).
    pub fn memory_bytes(&self) -> usize {
        self.names.memory_bytes()
            + self.servers.memory_bytes()
            + self.mcp_own.memory_bytes()
            + 4 * (self.server_of.capacity() + self.mcp.capacity())
            + self.positions.get().map_or(0, HashTable::allocation_size)
    }
}

/// Builds [`NameColumns`] tool by tool.
#[derive(Debug, Default)]
pub struct ColumnsBuilder {
    columns: NameColumns,
    /// The names so far (`columns.names` once finished).
    names: PackedStrings,
    /// Server -> its number, while building.
    server_numbers: HashTable<u32>,
}

impl ColumnsBuilder {
    /// A builder with room for `tools` tools.
    pub fn with_capacity(tools: usize) -> Self {
        let mut builder = ColumnsBuilder::default();
        let columns = &mut builder.columns;
        columns.server_of.reserve_exact(tools);
        columns.mcp.reserve_exact(tools);
        builder.names = PackedStrings::with_capacity(0, tools);
        builder
    }

    /// Appends a tool.
    pub fn push(
        &mut self,
        name: &str,
        server: Option<&str>,
        mcp_tool_name: Option<&str>,
    ) -> Result<(), ColumnsTooLarge> {
        let columns = &mut self.columns;
        let server = match server {
            None => NONE,
            Some(server) => {
                let hash = columns.hasher.hash_one(server.as_bytes());
                let servers = &columns.servers;
                let found = self
                    .server_numbers
                    .find(hash, |&j| servers.get(j as usize) == Some(server))
                    .copied();
                match found {
                    Some(j) => j,
                    None => {
                        let j = u32::try_from(servers.len())
                            .ok()
                            .filter(|&j| j != NONE)
                            .ok_or(TooLarge)?;
                        columns.servers.push(server)?;
                        let (servers, hasher) = (&columns.servers, &columns.hasher);
                        self.server_numbers.insert_unique(hash, j, |&k| {
                            hasher.hash_one(servers.get(k as usize).unwrap_or("").as_bytes())
                        });
                        j
                    }
                }
            }
        };
        let mcp = match mcp_tool_name {
            None => NONE,
            Some(raw) => match name.len().checked_sub(raw.len()) {
                Some(at) if name.ends_with(raw) && at < OWN as usize => at as u32,
                _ => {
                    let j = u32::try_from(columns.mcp_own.len())
                        .ok()
                        .filter(|&j| j < OWN - 1)
                        .ok_or(TooLarge)?;
                    columns.mcp_own.push(raw)?;
                    OWN | j
                }
            },
        };
        push_name(&mut self.names, name)?;
        columns.server_of.push(server);
        columns.mcp.push(mcp);
        Ok(())
    }

    /// A builder holding the tools of `from` at positions `keep` (in that order), their server
    /// numbers and name offsets copied (`None`: a position past the end).
    pub fn taking(from: &NameColumns, keep: &[usize]) -> Result<Option<Self>, ColumnsTooLarge> {
        let mut builder = ColumnsBuilder::with_capacity(keep.len());
        let columns = &mut builder.columns;
        columns.servers = from.servers.clone();
        columns.hasher = from.hasher.clone();
        let (servers, hasher) = (&columns.servers, &columns.hasher);
        for j in 0..servers.len() {
            let hash = hasher.hash_one(servers.get(j).unwrap_or("").as_bytes());
            builder.server_numbers.insert_unique(hash, j as u32, |&k| {
                hasher.hash_one(servers.get(k as usize).unwrap_or("").as_bytes())
            });
        }
        let (columns, names) = (&mut builder.columns, &mut builder.names);
        for &i in keep {
            let Some(name) = from.names.get(i) else {
                return Ok(None);
            };
            let mut mcp = from.mcp[i];
            if mcp != NONE && mcp & OWN != 0 {
                let j = u32::try_from(columns.mcp_own.len())
                    .ok()
                    .filter(|&j| j < OWN - 1)
                    .ok_or(TooLarge)?;
                columns
                    .mcp_own
                    .push(from.mcp_own.get((mcp & !OWN) as usize).unwrap_or(""))?;
                mcp = OWN | j;
            }
            push_name(names, name)?;
            columns.server_of.push(from.server_of[i]);
            columns.mcp.push(mcp);
        }
        Ok(Some(builder))
    }

    /// The columns, their spare room freed.
    pub fn finish(self) -> NameColumns {
        let (mut columns, mut names) = (self.columns, self.names);
        names.shrink_to_fit();
        columns.names = Arc::new(names);
        columns.servers.shrink_to_fit();
        columns.mcp_own.shrink_to_fit();
        columns.server_of.shrink_to_fit();
        columns.mcp.shrink_to_fit();
        columns
    }
}

/// Appends `name`, at most 4 GiB of names in all (as the other columns).
fn push_name(names: &mut PackedStrings, name: &str) -> Result<(), TooLarge> {
    u32::try_from(names.text_len() + name.len()).map_err(|_| TooLarge)?;
    names.push(name);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_back_every_column() {
        let mut b = ColumnsBuilder::with_capacity(4);
        b.push("mcp__fs__read_file", Some("fs"), Some("read_file"))
            .unwrap();
        b.push("plan", None, None).unwrap();
        b.push("mcp__fs__x", Some("fs"), Some("other")).unwrap();
        b.push("plan", Some("web"), Some("")).unwrap();
        let c = b.finish();
        assert_eq!(c.len(), 4);
        assert_eq!(c.name(0), Some("mcp__fs__read_file"));
        assert_eq!(c.server(0), Some("fs"));
        assert_eq!(c.mcp_tool_name(0), Some("read_file"));
        assert_eq!((c.server(1), c.mcp_tool_name(1)), (None, None));
        assert_eq!(c.mcp_tool_name(2), Some("other"));
        assert_eq!((c.server(3), c.mcp_tool_name(3)), (Some("web"), Some("")));
        assert_eq!(c.name(4), None);
        // Like a dict of the names: the last position of a name, each name once.
        assert_eq!(c.position("plan"), Some(3));
        assert_eq!(c.position("mcp__fs__x"), Some(2));
        assert_eq!(c.position("nope"), None);
        assert_eq!(c.distinct_names(), 3);
        assert_eq!(c.first_occurrences(), [0, 1, 2]);
        let mut again = ColumnsBuilder::taking(&c, &[3, 0, 2]).unwrap().unwrap();
        again.push("mcp__db__q", Some("db"), Some("q")).unwrap();
        again.push("mcp__fs__y", Some("fs"), Some("y")).unwrap();
        let again = again.finish();
        assert_eq!(again.len(), 5);
        assert_eq!(
            (again.name(0), again.server(0)),
            (Some("plan"), Some("web"))
        );
        assert_eq!(again.mcp_tool_name(1), Some("read_file"));
        assert_eq!(again.mcp_tool_name(2), Some("other"));
        assert_eq!(
            (again.server(3), again.mcp_tool_name(3)),
            (Some("db"), Some("q"))
        );
        assert_eq!(again.server(4), Some("fs"));
        assert_eq!(again.position("mcp__db__q"), Some(3));
        assert!(ColumnsBuilder::taking(&c, &[4]).unwrap().is_none());
        assert!(c.memory_bytes() > 0);
    }

    #[test]
    fn holds_an_equal_name_list_instead_of_its_own() {
        // Table: (the list offered, whether the columns take it): only the same names, in the
        // same order, are shared; the columns read the same either way.
        let names = ["mcp__fs__read_file", "plan", "é🎉"];
        let list = |names: &[&str]| Arc::new(names.iter().copied().collect::<PackedStrings>());
        let cases = [
            (list(&names), true),
            (list(&names[..2]), false),
            (list(&["plan", "mcp__fs__read_file", "é🎉"]), false),
            (list(&[]), false),
        ];
        for (offered, shared) in cases {
            let mut b = ColumnsBuilder::with_capacity(3);
            b.push(names[0], Some("fs"), Some("read_file")).unwrap();
            b.push(names[1], None, None).unwrap();
            b.push(names[2], Some("x"), Some("🎉")).unwrap();
            let mut c = b.finish();
            assert_eq!(c.share_names(&offered), shared);
            assert_eq!(Arc::ptr_eq(&c.names, &offered), shared);
            assert_eq!(
                (0..3).map(|i| c.name(i)).collect::<Vec<_>>(),
                names.map(Some)
            );
            assert_eq!(c.mcp_tool_name(0), Some("read_file"));
            assert_eq!(c.mcp_tool_name(2), Some("🎉"));
            assert_eq!(c.position("plan"), Some(1));
        }
    }
}
