//! [`parse`]: one JSON tool item read into an [`Item`] by serde visitors (see `super::item`):
//! the item's keys, and the input schema's values, each read for its place and counted against
//! `toolsift.limits`' caps.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::item::{has, Item, Node, Text, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES};
use super::json_values::{drain_seq, AnnotationsSeed, IsArray, Key, Skip, TextSeed};

/// The item of one JSON text; `None` when it is not JSON serde_json accepts, or its schema
/// passes the caps. (A `str`, not bytes: serde_json then borrows its strings without checking
/// each one's UTF-8 again, which cost a tenth of reading a catalogue.)
pub fn parse(json: &str) -> Option<Item<'_>> {
    let mut de = serde_json::Deserializer::from_str(json);
    let item = ItemSeed.deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(item)
}

/// The input schema of a JSON text (one object), read as [`parse`] reads an item's: only the
/// values its places read are kept (`properties`, `items`, `description`), the rest skipped.
/// `None` when it is not JSON serde_json accepts, or it passes the caps.
pub fn parse_schema(json: &str) -> Option<Node<'_>> {
    let mut de = serde_json::Deserializer::from_str(json);
    let budget = Budget {
        nodes: Cell::new(0),
    };
    let seed = NodeSeed {
        place: Place::Schema,
        depth: 1,
        budget: &budget,
    };
    let node = seed.deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(node)
}

/// Up to this many entries, [`dedup`] looks for duplicate keys pair by pair.
const PAIRWISE_KEYS: usize = 16;

/// Deduplicates an object's entries as `json.loads` does: the first place, the last value.
fn dedup<'a>(entries: &mut Vec<(Cow<'a, str>, Node<'a>)>) {
    if entries.len() < 2 {
        return;
    }
    // Most objects are small and have no duplicate key: compare the keys pairwise, with no
    // table to allocate and hash into (a hash map per object cost ~3% of reading a catalogue).
    if entries.len() <= PAIRWISE_KEYS
        && !(1..entries.len()).any(|i| entries[..i].iter().any(|(k, _)| *k == entries[i].0))
    {
        return;
    }
    let mut seen: std::collections::HashMap<&str, usize, ahash::RandomState> =
        std::collections::HashMap::with_capacity_and_hasher(entries.len(), Default::default());
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
            if let Some(text) = item.text_field(key.as_ref()) {
                *text = Some(map.next_value_seed(TextSeed)?);
                continue;
            }
            match key.as_ref() {
                "type" => {
                    item.has |= has::TYPE;
                    item.type_null = map.next_value_seed(TextSeed)? == Text::Null;
                }
                "annotations" => item.annotations = Some(map.next_value_seed(AnnotationsSeed)?),
                "inputSchema" => {
                    item.has |= has::INPUT_SCHEMA_MCP;
                    item.mcp_schema = Some(schema(&mut map)?);
                }
                "input_schema" => {
                    item.has |= has::INPUT_SCHEMA;
                    item.input_schema = Some(schema(&mut map)?);
                }
                "tools" => item.tools_array = map.next_value_seed(IsArray)?,
                other => {
                    item.has |= match other {
                        "parameters" => has::PARAMETERS,
                        "function" => has::FUNCTION,
                        _ => 0,
                    };
                    map.next_value_seed(Skip)?;
                }
            }
        }
        Ok(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::item::{Annotations, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES};

    fn text(s: &str) -> Option<Text<'_>> {
        Some(Text::Str(Cow::Borrowed(s)))
    }

    #[test]
    fn reads_the_fields_and_borrows_plain_strings() {
        let json = r#"{"name": "a", "description": "d\n", "x": [1, {"y": null}],
            "inputSchema": {"type": "object", "properties": {"p": {"description": "P"}}},
            "annotations": {"title": "T", "readOnlyHint": true}}"#;
        let item = parse(json).unwrap();
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
        let json = r#"{"name": "a", "name": "b", "input_schema": {"properties":
            {"x": {"description": "1"}, "y": {}, "x": {"description": "2"}}}}"#;
        let item = parse(json).unwrap();
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
            "{\"name\": \"a\" \"b\": 1}",
            "{\"name\": \"\x01\"}",
            "{\"x\": \"\\q\"}",
            "{\"name\": \"\\ud800\"}", // a lone surrogate in read text
            "{\"x\": NaN}",
            "{} {}",
        ] {
            assert!(parse(json).is_none(), "{json}");
        }
        let deep = |n: usize| format!("{{\"input_schema\": {}{}}}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&deep(MAX_SCHEMA_DEPTH)).is_some());
        assert!(parse(&deep(MAX_SCHEMA_DEPTH + 1)).is_none());
        let wide = |n: usize| format!("{{\"input_schema\": [{}]}}", vec!["0"; n].join(","));
        assert!(parse(&wide(MAX_SCHEMA_NODES - 1)).is_some());
        assert!(parse(&wide(MAX_SCHEMA_NODES)).is_none());
        assert!(!parse("[1]").unwrap().object);
    }
}
