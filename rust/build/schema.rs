//! The parameter descriptions of a tool's input schema (`FieldWeights.parameter_descriptions`),
//! read by one walk over any schema form: JSON items read by `super::item` (`from_records`) and Python mappings
//! (`ToolIndex(tools)`, `crate::bindings::tools`) implement [`Schema`].
//! `toolsift._text.documents.parameter_descriptions` is the pure-Python twin.

use super::item::Node;

/// `parameter_descriptions` reads nested properties at most this deep.
pub const MAX_PARAM_DEPTH: usize = 8;

/// A schema value as Python's `_collect_descriptions` sees it; every step may fail (a Python
/// mapping's own methods may raise), and fails as Python would, in Python's order.
pub trait Schema: Sized {
    type Error;
    /// `isinstance(value, Mapping)`.
    fn is_mapping(&self) -> Result<bool, Self::Error>;
    /// `value.get(key)` of a mapping (`None`: absent or null).
    fn get(&self, key: &str) -> Result<Option<Self>, Self::Error>;
    /// `key in value` of a mapping.
    fn has(&self, key: &str) -> Result<bool, Self::Error>;
    /// `bool(value)`.
    fn truthy(&self) -> Result<bool, Self::Error>;
    /// Calls `each` with every value of a mapping, in order.
    fn for_each_value(
        &self,
        each: &mut dyn FnMut(Self) -> Result<(), Self::Error>,
    ) -> Result<(), Self::Error>;
    /// The text of a `str` value (`None` for anything else).
    fn text(&self) -> Result<Option<String>, Self::Error>;
}

/// Appends the `description` texts of `schema`'s properties to `out`, nested ones (objects,
/// array items) included, in schema order, at most [`MAX_PARAM_DEPTH`] levels deep.
pub fn collect_descriptions<S: Schema>(
    schema: &S,
    depth: usize,
    out: &mut Vec<String>,
) -> Result<(), S::Error> {
    if depth > MAX_PARAM_DEPTH || !schema.is_mapping()? {
        return Ok(());
    }
    if let Some(props) = schema.get("properties")? {
        if props.truthy()? && props.is_mapping()? {
            props.for_each_value(&mut |sub| {
                if sub.is_mapping()? {
                    if let Some(desc) = sub.get("description")? {
                        if desc.truthy()? {
                            if let Some(text) = desc.text()? {
                                out.push(text);
                            }
                        }
                    }
                    if sub.has("properties")? || sub.has("items")? {
                        collect_descriptions(&sub, depth + 1, out)?;
                    }
                }
                Ok(())
            })?;
        }
    }
    if let Some(items) = schema.get("items")? {
        if items.truthy()? && items.is_mapping()? {
            collect_descriptions(&items, depth + 1, out)?;
        }
    }
    Ok(())
}

impl Schema for &Node<'_> {
    type Error = std::convert::Infallible;

    fn is_mapping(&self) -> Result<bool, Self::Error> {
        Ok(matches!(self, Node::Object { .. }))
    }

    fn get(&self, key: &str) -> Result<Option<Self>, Self::Error> {
        Ok(Node::get(self, key))
    }

    fn has(&self, key: &str) -> Result<bool, Self::Error> {
        Ok(Node::get(self, key).is_some())
    }

    fn truthy(&self) -> Result<bool, Self::Error> {
        Ok(match self {
            Node::Null => false,
            Node::Str(s) => !s.is_empty(),
            Node::Leaf(truthy) => *truthy,
            Node::Object { empty, .. } => !empty,
        })
    }

    fn for_each_value(
        &self,
        each: &mut dyn FnMut(Self) -> Result<(), Self::Error>,
    ) -> Result<(), Self::Error> {
        for (_, value) in self.entries() {
            each(value)?;
        }
        Ok(())
    }

    fn text(&self) -> Result<Option<String>, Self::Error> {
        Ok(match self {
            Node::Str(s) => Some(s.as_ref().to_owned()),
            _ => None,
        })
    }
}

/// The parameter descriptions of a schema read by [`super::item`].
pub fn node_descriptions(schema: &Node<'_>) -> Vec<String> {
    let mut out = Vec::new();
    if let Err(never) = collect_descriptions(&schema, 0, &mut out) {
        match never {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::item_json;

    fn descriptions(schema: &str) -> Vec<String> {
        let json = format!("{{\"input_schema\": {schema}}}");
        let item = item_json::parse(&json).unwrap();
        node_descriptions(item.input_schema.as_ref().unwrap())
    }

    #[test]
    fn reads_nested_descriptions_in_order() {
        let schema = r#"{"properties": {
            "a": {"description": "A", "properties": {"b": {"description": "B"}}},
            "c": {"description": "", "items": {"properties": {"d": {"description": "D"}}}},
            "e": {"description": 3}
        }}"#;
        assert_eq!(descriptions(schema), ["A", "B", "D"]);
        assert!(descriptions(r#"{"properties": []}"#).is_empty());
    }
}
