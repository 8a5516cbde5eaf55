//! One tool item as the field extraction (`super::records`) reads it, with no `serde_json::Value`
//! tree: `super::item_json::parse` deserializes a JSON item with visitors that keep only the fields the
//! extraction reads (names, texts, `annotations.title`, the input schema's `properties`,
//! `items` and `description`, and which other keys are present), borrowing every string that
//! holds no escape from the input (the visitors: `super::item_json`, `super::json_values`).
//! Every other value is skipped, read as strictly as a `Value` would be.
//! `crate::bindings::records` builds the same [`Item`] from Python dicts.
//!
//! JSON's duplicate keys read as Python's `json.loads` reads them: the last value wins, at the
//! place of the first. An input schema is counted as `toolsift.limits` counts it (values, and
//! the nesting of objects and arrays): one past the caps fails the parse, and the item is left
//! to Python, which words the error (counting a duplicate key's every value only errs on that
//! side).

use std::borrow::Cow;

/// `toolsift.limits.MAX_SCHEMA_DEPTH`: objects and arrays nested deeper make `Tool` raise.
pub const MAX_SCHEMA_DEPTH: usize = 64;
/// `toolsift.limits.MAX_SCHEMA_NODES`: a schema of more values makes `Tool` raise.
pub const MAX_SCHEMA_NODES: usize = 100_000;

/// A value read as Python's `str | None`: null, a string, or anything else.
#[derive(Debug, Clone, PartialEq)]
pub enum Text<'a> {
    Null,
    Str(Cow<'a, str>),
    Other,
}

/// A value of an input schema, as the parameter walk (`super::schema`) sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Node<'a> {
    Null,
    Str(Cow<'a, str>),
    /// A number, a boolean or an array: only its truthiness is read.
    Leaf(bool),
    /// An object: the entries read in its place (see [`Item`]), deduplicated; `empty` when it
    /// has no key at all.
    Object {
        empty: bool,
        entries: Vec<(Cow<'a, str>, Node<'a>)>,
    },
}

impl<'a> Node<'a> {
    /// The value of `key` in an object (`None`: absent, or not an object).
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        match self {
            Node::Object { entries, .. } => entries.iter().find(|(k, _)| k == key).map(|e| &e.1),
            _ => None,
        }
    }

    /// An object's entries (none for other values).
    pub fn entries(&self) -> &[(Cow<'a, str>, Node<'a>)] {
        match self {
            Node::Object { entries, .. } => entries,
            _ => &[],
        }
    }
}

/// The `annotations` of an MCP item.
#[derive(Debug, Clone, PartialEq)]
pub enum Annotations<'a> {
    Null,
    /// An object, with its `title` if present.
    Object(Option<Text<'a>>),
    Other,
}

/// The keys of a tool item that are only tested for presence.
pub mod has {
    pub const TYPE: u8 = 1;
    pub const INPUT_SCHEMA_MCP: u8 = 2;
    pub const PARAMETERS: u8 = 4;
    pub const FUNCTION: u8 = 8;
    pub const INPUT_SCHEMA: u8 = 16;
}

/// One tool item: the values the extraction reads (`None`: the key is absent).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Item<'a> {
    /// Whether the item is an object at all.
    pub object: bool,
    /// Which of the [`has`] keys are present.
    pub has: u8,
    pub name: Option<Text<'a>>,
    pub description: Option<Text<'a>>,
    pub title: Option<Text<'a>>,
    pub server: Option<Text<'a>>,
    pub mcp_tool_name: Option<Text<'a>>,
    pub label: Option<Text<'a>>,
    pub summary: Option<Text<'a>>,
    pub search_hint: Option<Text<'a>>,
    pub source: Option<Text<'a>>,
    /// The value of `type` is null (only read when present).
    pub type_null: bool,
    pub annotations: Option<Annotations<'a>>,
    /// `inputSchema` (MCP).
    pub mcp_schema: Option<Node<'a>>,
    /// `input_schema` (toolsift records).
    pub input_schema: Option<Node<'a>>,
    /// `tools` is present and an array (a JSON Lines server entry).
    pub tools_array: bool,
}

impl<'a> Item<'a> {
    /// Whether one of the [`has`] keys is present.
    pub fn has(&self, key: u8) -> bool {
        self.has & key != 0
    }

    /// The text field a key names (`name`, `description`, `title`, `server`, `mcp_tool_name`,
    /// `label`, `summary`, `search_hint`, `source`), for both readers (JSON text and Python
    /// dicts); `None` for any other key.
    pub fn text_field(&mut self, key: &str) -> Option<&mut Option<Text<'a>>> {
        Some(match key {
            "name" => &mut self.name,
            "description" => &mut self.description,
            "title" => &mut self.title,
            "server" => &mut self.server,
            "mcp_tool_name" => &mut self.mcp_tool_name,
            "label" => &mut self.label,
            "summary" => &mut self.summary,
            "search_hint" => &mut self.search_hint,
            "source" => &mut self.source,
            _ => return None,
        })
    }

    /// `_is_server_entry` of a JSON Lines row: `{"name", "tools": [...]}` without a schema key.
    pub fn is_server_entry(&self) -> bool {
        self.object
            && self.name.is_some()
            && self.tools_array
            && !self
                .has(has::INPUT_SCHEMA_MCP | has::INPUT_SCHEMA | has::PARAMETERS | has::FUNCTION)
    }
}
