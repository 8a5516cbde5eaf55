//! One tool item as the field extraction (`super::records`) reads it, with no `serde_json::Value`
//! tree: [`Item::parse`] deserializes a JSON item with visitors that keep only the fields the
//! extraction reads (names, texts, `annotations.title`, the input schema's `properties`,
//! `items` and `description`, and which other keys are present), borrowing every string that
//! holds no escape from the input. Every other value is skipped, read as strictly as a `Value`. `crate::bindings::records` builds the same [`Item`] from Python dicts.
//!
//! JSON's duplicate keys read as Python's `json.loads` reads them: the last value wins, at the
//! place of the first. An input schema is counted as `toolsift.limits` counts it (values, and
//! the nesting of objects and arrays): one past the caps fails the parse, and the item is left
//! to Python, which words the error (counting each duplicate key's values only errs on that side).

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

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
    /// Reads one JSON item; `None` when it is not JSON serde_json accepts, or its schema passes
    /// the caps (the item is then left to Python).
    pub fn parse(json: &'a [u8]) -> Option<Item<'a>> {
        let mut de = serde_json::Deserializer::from_slice(json);
        let item = ItemSeed.deserialize(&mut de).ok()?;
        de.end().ok()?;
        Some(item)
    }

    /// Whether one of the [`has`] keys is present.
    pub fn has(&self, key: u8) -> bool {
        self.has & key != 0
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

/// Deduplicates an object's entries as `json.loads` does: the first place, the last value.
fn dedup<'a>(entries: &mut Vec<(Cow<'a, str>, Node<'a>)>) {
    if entries.len() < 2 {
        return;
    }
    let mut seen: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(entries.len());
    let mut last_of = Vec::with_capacity(entries.len()); // per entry: the first entry of its key
    let mut duplicated = false;
    for (i, (key, _)) in entries.iter().enumerate() {
        let first = *seen.entry(key.as_ref()).or_insert(i);
        duplicated |= first != i;
        last_of.push(first);
    }
    if !duplicated {
        return;
    }
    let mut out: Vec<Option<(Cow<'a, str>, Node<'a>)>> = Vec::with_capacity(entries.len());
    for (i, entry) in std::mem::take(entries).into_iter().enumerate() {
        let first = last_of[i];
        if first == i {
            out.push(Some(entry));
        } else {
            out[first] = Some((out[first].take().map(|e| e.0).unwrap_or(entry.0), entry.1));
            out.push(None);
        }
    }
    entries.extend(out.into_iter().flatten());
}

/// The count of an input schema's values against the caps.
struct Budget {
    nodes: Cell<usize>,
}

impl Budget {
    /// Counts one value at `depth` (the schema itself is at 1); `container`: an object or an
    /// array, whose depth is capped.
    fn count<E: de::Error>(&self, depth: usize, container: bool) -> Result<(), E> {
        let nodes = self.nodes.get() + 1;
        self.nodes.set(nodes);
        if nodes > MAX_SCHEMA_NODES || (container && depth > MAX_SCHEMA_DEPTH) {
            return Err(E::custom("over the schema caps"));
        }
        Ok(())
    }
}

/// A key, borrowed when it holds no escape.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// A value nothing reads, skipped. Unlike serde's `IgnoredAny` it is read as a `Value` would
/// be (serde_json's nesting limit applies, and a lone surrogate escape fails), so that the
/// reader accepts exactly the JSON that a `serde_json::Value` parse accepts.
struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        drain_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        drain_map(map)
    }
}

/// Skips the rest of a map or a sequence.
fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_key_seed(Key)?.is_some() {
        map.next_value_seed(Skip)?;
    }
    Ok(())
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element_seed(Skip)?.is_some() {}
    Ok(())
}

/// A `str | None` field.
struct TextSeed;

impl<'de> DeserializeSeed<'de> for TextSeed {
    type Value = Text<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TextSeed {
    type Value = Text<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Text::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Text::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Text::Str(Cow::Owned(v)))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Text::Null)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Text::Null)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Text::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Text::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Text::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Text::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        drain_map(map).map(|()| Text::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        drain_seq(seq).map(|()| Text::Other)
    }
}

/// What a schema value's place reads of it.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// A schema: its `properties`, `items` and `description`.
    Schema,
    /// A schema's `properties`: every key, each value a schema.
    Properties,
    /// A `description`, or a value nothing reads: its truthiness and text only.
    Leaf,
}

/// A value of an input schema at `depth`, read for its [`Place`], counted in the budget.
#[derive(Clone, Copy)]
struct NodeSeed<'b> {
    place: Place,
    depth: usize,
    budget: &'b Budget,
}

impl<'b> NodeSeed<'b> {
    fn child(self, place: Place) -> Self {
        NodeSeed {
            place,
            depth: self.depth + 1,
            budget: self.budget,
        }
    }
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_> {
    type Value = Node<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NodeSeed<'_> {
    type Value = Node<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        self.budget.count(self.depth, false)?;
        Ok(Node::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.budget.count(self.depth, false)?;
        Ok(Node::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        self.budget.count(self.depth, false)?;
        Ok(Node::Str(Cow::Owned(v)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.budget.count(self.depth, false)?;
        Ok(Node::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_unit()
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        self.budget.count(self.depth, false)?;
        Ok(Node::Leaf(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        self.visit_bool(v != 0)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        self.visit_bool(v != 0)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        self.visit_bool(v != 0.0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        self.budget.count(self.depth, true)?;
        let mut any = false;
        while seq.next_element_seed(self.child(Place::Leaf))?.is_some() {
            any = true;
        }
        Ok(Node::Leaf(any))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        self.budget.count(self.depth, true)?;
        let mut entries = Vec::new();
        let mut empty = true;
        while let Some(key) = map.next_key_seed(Key)? {
            empty = false;
            let place = match (self.place, key.as_ref()) {
                (Place::Properties, _) => Place::Schema,
                (Place::Schema, "properties") => Place::Properties,
                (Place::Schema, "items") => Place::Schema,
                (Place::Schema, "description") => Place::Leaf,
                _ => {
                    map.next_value_seed(self.child(Place::Leaf))?;
                    continue;
                }
            };
            let value = map.next_value_seed(self.child(place))?;
            entries.push((key, value));
        }
        dedup(&mut entries);
        Ok(Node::Object { empty, entries })
    }
}

/// The `annotations` of an item: its `title`.
struct AnnotationsSeed;

impl<'de> DeserializeSeed<'de> for AnnotationsSeed {
    type Value = Annotations<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        match d.deserialize_any(self)? {
            Some(annotations) => Ok(annotations),
            None => Ok(Annotations::Other),
        }
    }
}

impl<'de> Visitor<'de> for AnnotationsSeed {
    type Value = Option<Annotations<'de>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Some(Annotations::Null))
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Some(Annotations::Null))
    }
    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        drain_seq(seq).map(|()| None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut title = None;
        while let Some(key) = map.next_key_seed(Key)? {
            if key == "title" {
                title = Some(map.next_value_seed(TextSeed)?);
            } else {
                map.next_value_seed(Skip)?;
            }
        }
        Ok(Some(Annotations::Object(title)))
    }
}

/// Whether a value is an array (skipping it).
struct IsArray;

impl<'de> DeserializeSeed<'de> for IsArray {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for IsArray {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_none<E>(self) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_str<E>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        drain_seq(seq).map(|()| true)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        drain_map(map).map(|()| false)
    }
}

/// A whole tool item.
struct ItemSeed;

impl<'de> DeserializeSeed<'de> for ItemSeed {
    type Value = Item<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// An input schema (a fresh count: the last of duplicate keys is the one `Tool` reads).
fn schema<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Node<'de>, A::Error> {
    let budget = Budget {
        nodes: Cell::new(0),
    };
    map.next_value_seed(NodeSeed {
        place: Place::Schema,
        depth: 1,
        budget: &budget,
    })
}

impl<'de> Visitor<'de> for ItemSeed {
    type Value = Item<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Item::default())
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Item::default())
    }
    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<Self::Value, E> {
        Ok(Item::default())
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Item::default())
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Item::default())
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Item::default())
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Item::default())
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Item::default())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        drain_seq(seq).map(|()| Item::default())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut item = Item {
            object: true,
            ..Item::default()
        };
        while let Some(key) = map.next_key_seed(Key)? {
            let text = match key.as_ref() {
                "name" => &mut item.name,
                "description" => &mut item.description,
                "title" => &mut item.title,
                "server" => &mut item.server,
                "mcp_tool_name" => &mut item.mcp_tool_name,
                "label" => &mut item.label,
                "summary" => &mut item.summary,
                "search_hint" => &mut item.search_hint,
                "source" => &mut item.source,
                other => {
                    match other {
                        "type" => {
                            item.has |= has::TYPE;
                            item.type_null = map.next_value_seed(TextSeed)? == Text::Null;
                        }
                        "annotations" => {
                            item.annotations = Some(map.next_value_seed(AnnotationsSeed)?)
                        }
                        "inputSchema" => {
                            item.has |= has::INPUT_SCHEMA_MCP;
                            item.mcp_schema = Some(schema(&mut map)?);
                        }
                        "input_schema" => {
                            item.has |= has::INPUT_SCHEMA;
                            item.input_schema = Some(schema(&mut map)?);
                        }
                        "tools" => item.tools_array = map.next_value_seed(IsArray)?,
                        _ => {
                            item.has |= match other {
                                "parameters" => has::PARAMETERS,
                                "function" => has::FUNCTION,
                                _ => 0,
                            };
                            map.next_value_seed(Skip)?;
                        }
                    }
                    continue;
                }
            };
            *text = Some(map.next_value_seed(TextSeed)?);
        }
        Ok(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Option<Text<'_>> {
        Some(Text::Str(Cow::Borrowed(s)))
    }

    #[test]
    fn reads_the_fields_and_borrows_plain_strings() {
        let json = br#"{"name": "a", "description": "d\n", "x": [1, {"y": null}],
            "inputSchema": {"type": "object", "properties": {"p": {"description": "P"}}},
            "annotations": {"title": "T", "readOnlyHint": true}}"#;
        let item = Item::parse(json).unwrap();
        assert_eq!(item.name, text("a"));
        assert!(matches!(item.description, Some(Text::Str(Cow::Owned(ref s))) if s == "d\n"));
        assert_eq!(item.annotations, Some(Annotations::Object(text("T"))));
        let schema = item.mcp_schema.as_ref().unwrap();
        assert_eq!(schema.entries().len(), 1); // `type` is not kept
        let p = schema.get("properties").unwrap().get("p").unwrap();
        assert_eq!(p.get("description"), Some(&Node::Str(Cow::Borrowed("P"))));
        assert!(item.has(has::INPUT_SCHEMA_MCP) && !item.has(has::TYPE));
    }

    #[test]
    fn duplicate_keys_keep_the_first_place_and_the_last_value() {
        let json = br#"{"name": "a", "name": "b", "input_schema": {"properties":
            {"x": {"description": "1"}, "y": {}, "x": {"description": "2"}}}}"#;
        let item = Item::parse(json).unwrap();
        assert_eq!(item.name, text("b"));
        let schema = item.input_schema.unwrap();
        let props = schema.get("properties").unwrap().entries();
        let keys: Vec<&str> = props.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["x", "y"]);
        assert_eq!(
            props[0].1.get("description"),
            Some(&Node::Str(Cow::Borrowed("2")))
        );
    }

    #[test]
    fn fails_on_bad_json_and_schemas_past_the_caps() {
        for json in [
            &b"{\"name\": \"a\" \"b\": 1}"[..],
            b"{\"name\": \"\x01\"}",
            b"{\"x\": \"\\q\"}",
            b"{\"name\": \"\\ud800\"}", // a lone surrogate in read text
            b"{\"x\": NaN}",
            b"{} {}",
        ] {
            assert!(
                Item::parse(json).is_none(),
                "{}",
                String::from_utf8_lossy(json)
            );
        }
        let deep = |n: usize| format!("{{\"input_schema\": {}{}}}", "[".repeat(n), "]".repeat(n));
        assert!(Item::parse(deep(MAX_SCHEMA_DEPTH).as_bytes()).is_some());
        assert!(Item::parse(deep(MAX_SCHEMA_DEPTH + 1).as_bytes()).is_none());
        let wide = |n: usize| format!("{{\"input_schema\": [{}]}}", vec!["0"; n].join(","));
        assert!(Item::parse(wide(MAX_SCHEMA_NODES - 1).as_bytes()).is_some());
        assert!(Item::parse(wide(MAX_SCHEMA_NODES).as_bytes()).is_none());
        assert!(!Item::parse(b"[1]").unwrap().object);
    }
}
