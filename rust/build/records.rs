//! The one runtime field extraction: a tool's record ([`ToolFields`]) and the document made of
//! it ([`ToolFields::for_each_field`]; the pure-Python twin is
//! `toolsift._text.documents.document`). The record comes from raw tool definitions (an
//! [`Item`] read from JSON or from a dict, here: the rules of Python's `toolsift.tools.Tool` and
//! `toolsift._loaders.formats`, MCP `tools/list` items and toolsift records) or from `Tool`
//! objects (`crate::bindings::tools`).
//!
//! [`item_fields`] returns `None` for every record it does not handle exactly as Python does: other
//! formats (OpenAI, Anthropic with a `type`, provider built-ins), anything Python would reject,
//! and the rare values whose Python handling is not mirrored here (a name of only whitespace,
//! for instance). The caller then builds the whole catalogue the Python way, so the result,
//! and every error, is Python's.

use super::item::{has, Annotations, Item, Node, Text};
use super::schema::node_descriptions;
use super::FlatChunk;
use crate::analysis::word_pairs;

/// Field ids: positions in `toolsift.FieldWeights`, in the order Python builds a document.
const NAME: usize = 0;
const LABEL: usize = 1;
const SERVER: usize = 2;
const MCP: usize = 3;
const SUMMARY: usize = 4;
const KEY: usize = 5;
const HINT: usize = 6;
const DESCRIPTION: usize = 7;
const TITLE: usize = 8;
pub const PARAMS: usize = 9;
/// Word pairs of the summary (`crate::analysis::word_pairs`).
pub const PAIRS: usize = 10;

/// `toolsift.limits.MAX_NAME_LENGTH`: the cap on a name, server or MCP name (characters).
pub(crate) const MAX_NAME_LENGTH: usize = 1_024;
/// `toolsift.limits.MAX_DESCRIPTION_LENGTH`: the cap on a description or other text.
pub(crate) const MAX_DESCRIPTION_LENGTH: usize = 1_000_000;
/// How many UTF-16 code units of the description make the summary (`SUMMARY_UTF16_UNITS`).
pub(crate) const SUMMARY_UTF16_UNITS: usize = 200;

/// What one tool contributes to the index, and the name fields the index keeps.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolFields {
    pub name: String,
    pub server: Option<String>,
    pub mcp_tool_name: Option<String>,
    pub label: String,
    pub summary: String,
    /// The top-level property names, sorted by code point.
    pub keys: Vec<String>,
    pub search_hint: Option<String>,
    pub description: String,
    pub title: Option<String>,
    /// The properties' descriptions, nested ones included, in schema order.
    pub params: Vec<String>,
}

impl ToolFields {
    /// Calls `each(field id, text)` for every field of this tool's document: the fields in the
    /// order of the pure-Python twin, `toolsift._text.documents.document` (empty texts hold no
    /// terms and are left out); the title, the parameter descriptions and the summary's word
    /// pairs only when `weights` scores them.
    pub fn for_each_field(&self, weights: &[f64], mut each: impl FnMut(usize, &str)) {
        let mut push = |field: usize, text: &str| {
            if !text.is_empty() {
                each(field, text);
            }
        };
        let scored = |field: usize| weights.get(field).is_some_and(|&w| w != 0.0);
        push(NAME, &self.name);
        push(LABEL, &self.label);
        if let Some(server) = &self.server {
            push(SERVER, server);
            if let Some(mcp) = &self.mcp_tool_name {
                push(MCP, mcp);
            }
        }
        push(SUMMARY, &self.summary);
        for key in &self.keys {
            push(KEY, key);
        }
        push(HINT, self.search_hint.as_deref().unwrap_or(""));
        push(DESCRIPTION, &self.description);
        if scored(TITLE) {
            push(TITLE, self.title.as_deref().unwrap_or(""));
        }
        if scored(PARAMS) {
            for text in &self.params {
                push(PARAMS, text);
            }
        }
        if scored(PAIRS) {
            push(PAIRS, &word_pairs(&self.summary).join(" "));
        }
    }

    /// Appends this tool's document ([`ToolFields::for_each_field`]) to `chunk`.
    pub fn push_document(&self, chunk: &mut FlatChunk, weights: &[f64]) {
        self.for_each_field(weights, |field, text| {
            chunk.push_field(field, |out| out.push_str(text));
        });
        chunk.end_document();
    }

    /// This tool's document as `(field id, text)` pairs ([`ToolFields::for_each_field`]).
    pub fn document(&self, weights: &[f64]) -> Vec<(usize, String)> {
        let mut fields = Vec::new();
        self.for_each_field(weights, |field, text| fields.push((field, text.to_owned())));
        fields
    }
}

/// Python's `str.isspace` for one character: Unicode white space plus U+001C..U+001F.
fn python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `_sanitize_part`: every character outside `[A-Za-z0-9_-]` becomes one `_` per UTF-16 unit.
pub fn sanitize_part(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    push_sanitized(&mut out, part);
    out
}

/// Whether `_sanitize_part` keeps the byte `b` of a part as it is (`[A-Za-z0-9_-]`).
fn kept_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// What `_sanitize_part` makes of `c`: `c` itself ([`kept_byte`]), else one `_` per UTF-16
/// unit (`buf` holds the character's UTF-8 when kept).
fn sanitized_char(c: char, buf: &mut [u8; 4]) -> &str {
    if c.is_ascii() && kept_byte(c as u8) {
        c.encode_utf8(buf)
    } else if c > '\u{ffff}' {
        "__"
    } else {
        "_"
    }
}

/// Appends [`sanitize_part`]`(part)` to `out`.
fn push_sanitized(out: &mut String, part: &str) {
    if part.bytes().all(kept_byte) {
        out.push_str(part); // (most names and servers)
        return;
    }
    let mut buf = [0u8; 4];
    for c in part.chars() {
        out.push_str(sanitized_char(c, &mut buf));
    }
}

/// Whether `toolsift.tools.mcp_name` writes `part` as it is: `[A-Za-z0-9_-]+` not ending in `_`
/// and 10 lowercase hex digits (the form of a hashed part), and for a server part also without
/// `__` and a trailing `_` (so the canonical name splits back at its first `__`). Any other
/// part gets a hash suffix, which is left to Python.
pub fn kept_part(part: &str, server: bool) -> bool {
    let b = part.as_bytes();
    if b.is_empty() || !b.iter().all(|&c| kept_byte(c)) {
        return false;
    }
    let n = b.len();
    if n >= 11
        && b[n - 11] == b'_'
        && b[n - 10..]
            .iter()
            .all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
    {
        return false;
    }
    !server || (!part.contains("__") && !part.ends_with('_'))
}

/// `toolsift.tools._name_part`: `part` itself when [`kept_part`], else its readable form
/// (every character outside `[A-Za-z0-9-]` written `_`, runs of `_` made one, a trailing `_`
/// dropped), `_` and the first 10 hex digits of the SHA-256 of `part`.
pub fn name_part(part: &str, server: bool) -> std::borrow::Cow<'_, str> {
    if kept_part(part, server) {
        return std::borrow::Cow::Borrowed(part);
    }
    let mut out = String::with_capacity(part.len() + 11);
    let mut underscore = false;
    for c in part.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            out.push(c);
            underscore = false;
        } else if !underscore {
            out.push('_');
            underscore = true;
        }
    }
    if out.ends_with('_') {
        out.pop();
    }
    out.push('_');
    for byte in &sha256(part.as_bytes())[..5] {
        out.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        out.push(char::from(b"0123456789abcdef"[usize::from(byte & 15)]));
    }
    std::borrow::Cow::Owned(out)
}

/// The SHA-256 digest of `data` (FIPS 180-4), for [`name_part`]'s hash suffix.
fn sha256(data: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in message.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (slot, add) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *slot = slot.wrapping_add(add);
        }
    }
    let mut out = [0u8; 32];
    for (i, word) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&word.to_be_bytes());
    }
    out
}

/// `toolsift.tools.mcp_name`: `mcp__{server}__{tool}`, each part by [`name_part`].
pub fn canonical_name(server: &str, tool: &str) -> String {
    let server = name_part(server, true);
    let tool = name_part(tool, false);
    let mut name = String::with_capacity(server.len() + tool.len() + 7);
    name.push_str("mcp__");
    name.push_str(&server);
    name.push_str("__");
    name.push_str(&tool);
    name
}

/// The tool part of `raw` when it is `mcp__{server}__{tool}` with `server` as
/// [`name_part`] writes it and a non-empty tool part (`raw.startswith(prefix) and len(raw) >
/// len(prefix)` in `_record_item`), found without building the prefix.
pub fn canonical_tool<'r>(raw: &'r str, server: &str) -> Option<&'r str> {
    let rest = raw.strip_prefix("mcp__")?;
    let rest = rest.strip_prefix(name_part(server, true).as_ref())?;
    rest.strip_prefix("__").filter(|tool| !tool.is_empty())
}

/// `_utf16_prefix`: the longest prefix of `text` at most `units` UTF-16 code units long.
pub fn utf16_prefix(text: &str, units: usize) -> &str {
    // A character takes at least as many UTF-8 bytes as UTF-16 units, and an ASCII one a unit
    // a byte: a text of at most `units` bytes is whole, and an ASCII start is cut at `units`.
    if text.len() <= units {
        return text;
    }
    if text.as_bytes()[..units].is_ascii() {
        return &text[..units];
    }
    let mut used = 0;
    for (at, c) in text.char_indices() {
        used += c.len_utf16();
        if used > units {
            return &text[..at];
        }
    }
    text
}

/// An optional string field (`None` for the whole record when it is neither null nor a string).
fn optional(value: &Option<Text<'_>>) -> Option<Option<String>> {
    match value {
        None | Some(Text::Null) => Some(None),
        Some(Text::Str(s)) => Some(Some(s.as_ref().to_owned())),
        Some(Text::Other) => None,
    }
}

/// `_text`: a string field whose null or absence is `""`.
fn text(value: &Option<Text<'_>>) -> Option<String> {
    optional(value).map(Option::unwrap_or_default)
}

/// `_name_of`: a required, non-blank string.
fn name_of<'i>(item: &'i Item<'_>) -> Option<&'i str> {
    match &item.name {
        Some(Text::Str(s)) if !s.chars().all(python_space) => Some(s),
        _ => None,
    }
}

/// Which converter `_detect` picks, among those handled here.
enum Format {
    Mcp,
    Record,
}

fn detect(item: &Item<'_>, server: Option<&str>) -> Option<Format> {
    if item.has(has::TYPE) && !item.type_null {
        return None; // OpenAI / Anthropic `type`d items and provider built-ins
    }
    if item.has(has::INPUT_SCHEMA_MCP) {
        return Some(Format::Mcp);
    }
    if item.has(has::PARAMETERS) {
        return None; // OpenAI
    }
    let record_key = item.has(has::INPUT_SCHEMA)
        || [
            &item.server,
            &item.mcp_tool_name,
            &item.label,
            &item.summary,
            &item.search_hint,
            &item.source,
        ]
        .iter()
        .any(|v| v.is_some());
    if record_key || server.is_none() {
        return Some(Format::Record);
    }
    Some(Format::Mcp)
}

/// The fields of one tool item under the document's `server`, or `None` when this record is
/// left to Python (see the module docs).
pub fn item_fields(item: &Item<'_>, server: Option<&str>) -> Option<ToolFields> {
    if !item.object {
        return None;
    }
    let fields = match detect(item, server)? {
        Format::Mcp => mcp_fields(item, server?),
        Format::Record => record_fields(item, server),
    }?;
    fields.within_limits().then_some(fields)
}

/// `_mcp_item`.
fn mcp_fields(item: &Item<'_>, server: &str) -> Option<ToolFields> {
    let raw = name_of(item)?;
    let mut title = optional(&item.title)?;
    if title.is_none() {
        match &item.annotations {
            None | Some(Annotations::Null) => {}
            Some(Annotations::Object(annotation)) => title = optional(annotation)?,
            Some(Annotations::Other) => return None,
        }
    }
    let name = canonical_name(server, raw);
    let description = text(&item.description)?;
    let (keys, params) = schema_fields(item.mcp_schema.as_ref())?;
    Some(ToolFields {
        label: format!("{server}/{raw}"),
        summary: utf16_prefix(&description, SUMMARY_UTF16_UNITS).to_owned(),
        name,
        server: Some(server.to_owned()),
        mcp_tool_name: Some(raw.to_owned()),
        keys,
        search_hint: None,
        description,
        title,
        params,
    })
}

/// `_record_item`.
fn record_fields(item: &Item<'_>, server: Option<&str>) -> Option<ToolFields> {
    let raw = name_of(item)?;
    let server = match &item.server {
        None => server,
        Some(Text::Null) => None,
        Some(Text::Str(s)) if !s.is_empty() => Some(s.as_ref()),
        Some(_) => return None,
    };
    let mut mcp_tool_name = optional(&item.mcp_tool_name)?;
    if mcp_tool_name.as_deref() == Some("") {
        return None;
    }
    let mut name = raw.to_owned();
    if let Some(server) = server {
        if let Some(tool) = canonical_tool(raw, server) {
            if mcp_tool_name.is_none() {
                mcp_tool_name = Some(tool.to_owned());
            }
        } else {
            name = canonical_name(server, raw);
            match &mcp_tool_name {
                None => mcp_tool_name = Some(raw.to_owned()),
                Some(given) if given != raw => return None,
                Some(_) => {}
            }
        }
    }
    let label = optional(&item.label)?;
    if label.as_deref() == Some("") {
        return None;
    }
    let title = optional(&item.title)?;
    let summary = optional(&item.summary)?;
    let search_hint = optional(&item.search_hint)?;
    // Not indexed, but a non-string is an error, and so is one past the cap.
    let source = optional(&item.source)?;
    if source.is_some_and(|s| too_long(&s, MAX_DESCRIPTION_LENGTH)) {
        return None;
    }
    let description = text(&item.description)?;
    let (keys, params) = schema_fields(item.input_schema.as_ref())?;
    let label = match (label, server) {
        (Some(label), _) => label,
        (None, Some(server)) => {
            format!("{server}/{}", mcp_tool_name.as_deref().unwrap_or(&name))
        }
        (None, None) => name.clone(),
    };
    let summary =
        summary.unwrap_or_else(|| utf16_prefix(&description, SUMMARY_UTF16_UNITS).to_owned());
    Some(ToolFields {
        name,
        server: server.map(str::to_owned),
        mcp_tool_name,
        label,
        summary,
        keys,
        search_hint,
        description,
        title,
        params,
    })
}

/// Whether `text` is more than `cap` characters (Python's `len`, code points).
fn too_long(text: &str, cap: usize) -> bool {
    text.len() > cap && text.chars().count() > cap
}

impl ToolFields {
    /// Whether `Tool` takes these fields within `toolsift.limits`' caps on names and texts.
    fn within_limits(&self) -> bool {
        let names = [
            Some(&self.name),
            self.server.as_ref(),
            self.mcp_tool_name.as_ref(),
        ];
        let texts = [
            Some(&self.description),
            Some(&self.label),
            self.title.as_ref(),
            Some(&self.summary),
            self.search_hint.as_ref(),
        ];
        !names
            .into_iter()
            .flatten()
            .any(|s| too_long(s, MAX_NAME_LENGTH))
            && !texts
                .into_iter()
                .flatten()
                .any(|s| too_long(s, MAX_DESCRIPTION_LENGTH))
    }
}

/// The sorted top-level property names and the parameter descriptions of a schema value
/// (null or absent: the default, empty schema); `None` when `Tool` would reject it.
fn schema_fields(schema: Option<&Node<'_>>) -> Option<(Vec<String>, Vec<String>)> {
    match schema {
        None | Some(Node::Null) => return Some((Vec::new(), Vec::new())),
        Some(Node::Object { .. }) => {}
        Some(_) => return None,
    }
    let schema = schema?;
    let keys = match schema.get("properties") {
        None => Vec::new(),
        Some(properties @ Node::Object { .. }) => {
            let mut keys: Vec<String> = properties
                .entries()
                .iter()
                .map(|(k, _)| k.as_ref().to_owned())
                .collect();
            keys.sort_unstable(); // UTF-8 byte order is code point order
            keys
        }
        Some(_) => return None, // null or not an object: `Tool` raises
    };
    Some((keys, node_descriptions(schema)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::item_json;
    use serde_json::json;

    /// The fields of a JSON value's text, read by `Item::parse`.
    fn tool_fields(item: &serde_json::Value, server: Option<&str>) -> Option<ToolFields> {
        let json = serde_json::to_string(item).unwrap();
        item_fields(&item_json::parse(&json)?, server)
    }

    #[test]
    fn sanitizes_one_underscore_per_utf16_unit() {
        for (part, want) in [
            ("read_file", "read_file"),
            ("@smithery-ai/slack", "_smithery-ai_slack"),
            ("a😀b", "a__b"),
            ("é", "_"),
        ] {
            assert_eq!(sanitize_part(part), want, "{part}");
        }
    }

    #[test]
    fn finds_the_canonical_tool_part_as_the_prefix_test_does() {
        // The definition: `raw.starts_with(prefix) && raw.len() > prefix.len()`.
        fn by_prefix<'r>(raw: &'r str, server: &str) -> Option<&'r str> {
            let prefix = format!("mcp__{}__", name_part(server, true));
            let n = prefix.len();
            (raw.starts_with(&prefix) && raw.len() > n).then(|| &raw[n..])
        }
        let servers = [
            "fs",
            "@smithery-ai/slack",
            "a😀b",
            "é",
            "my server",
            "a__b",
            "-",
        ];
        let tools = ["read", "", "_x", "😀", "mcp__fs__read"];
        for server in servers {
            let sanitized = name_part(server, true);
            for tool in tools {
                for raw in [
                    format!("mcp__{sanitized}__{tool}"),
                    format!("mcp__{server}__{tool}"),
                    format!("mcp_{sanitized}__{tool}"),
                    format!("mcp__{sanitized}_{tool}"),
                    tool.to_string(),
                ] {
                    assert_eq!(
                        canonical_tool(&raw, server),
                        by_prefix(&raw, server),
                        "{raw}"
                    );
                }
            }
            assert_eq!(
                canonical_name(server, "a.b"),
                format!("mcp__{sanitized}__a_b_{}", &hex(&sha256(b"a.b"))[..10])
            );
        }
    }

    #[test]
    fn keeps_only_parts_that_split_back() {
        for (part, server, kept) in [
            ("fs", true, true),
            ("a_b-c", true, true),
            ("a__b", true, false),
            ("a_", true, false),
            ("a_", false, true),
            ("b__c", false, true),
            ("get.time", false, false),
            ("x_0123456789", false, false),
            ("x_012345678A", false, true),
            ("", false, false),
        ] {
            assert_eq!(kept_part(part, server), kept, "{part}");
        }
        assert_eq!(canonical_name("a", "b__c"), "mcp__a__b__c");
        // The same names as `tests/test_tools.py::test_mcp_name`.
        assert_eq!(canonical_name("a__b", "c"), "mcp__a_b_63e5c1c455__c");
        assert_eq!(
            canonical_name("文件", "读取"),
            "mcp___39932f24fe___534cb3fa8f"
        );
        assert_eq!(canonical_name("x\u{1F600}", "t"), "mcp__x_c3cd6bb319__t");
        assert_eq!(
            hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(hex(&sha256(&[b'a'; 200]))[..10], *"c2a908d98f");
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn cuts_the_summary_before_a_surrogate_pair() {
        let text = format!("{}😀x", "a".repeat(199));
        assert_eq!(utf16_prefix(&text, 200), "a".repeat(199));
        assert_eq!(utf16_prefix("short", 200), "short");
        // The shortcuts (a short text, an ASCII start) cut where counting units does.
        let slow = |text: &str, units: usize| {
            let mut used = 0;
            let at = text.char_indices().find(|(_, c)| {
                used += c.len_utf16();
                used > units
            });
            text[..at.map_or(text.len(), |(i, _)| i)].to_owned()
        };
        for text in ["", "abc", "abcdé", "éabcd", "ab😀cd", "abcd😀", "天气abc"] {
            for units in 0..8 {
                assert_eq!(
                    utf16_prefix(text, units),
                    slow(text, units),
                    "{text} {units}"
                );
            }
        }
    }

    #[test]
    fn reads_an_mcp_item() {
        let item = json!({"name": "read_file", "description": "Read a file",
            "inputSchema": {"properties": {"path": {"description": "Where"}, "b": {}}},
            "annotations": {"title": "Read"}});
        let t = tool_fields(&item, Some("fs")).unwrap();
        assert_eq!(t.name, "mcp__fs__read_file");
        assert_eq!(t.label, "fs/read_file");
        assert_eq!(t.keys, ["b", "path"]);
        assert_eq!(t.params, ["Where"]);
        assert_eq!(t.title.as_deref(), Some("Read"));
    }

    #[test]
    fn reads_a_record_with_its_own_server() {
        let item = json!({"name": "x", "server": "s", "description": null});
        let t = tool_fields(&item, None).unwrap();
        assert_eq!(
            (t.name.as_str(), t.mcp_tool_name.as_deref()),
            ("mcp__s__x", Some("x"))
        );
        let canonical = json!({"name": "mcp__s__y", "server": "s"});
        let t = tool_fields(&canonical, None).unwrap();
        assert_eq!(t.mcp_tool_name.as_deref(), Some("y"));
    }

    #[test]
    fn leaves_what_python_rejects_or_other_formats_to_python() {
        for item in [
            json!({"name": " \u{1c}"}),
            json!({"name": "a", "input_schema": {"properties": null}}),
            json!({"name": "a", "type": "function"}),
            json!({"name": "a", "parameters": {}}),
            json!({"name": "a", "label": ""}),
            json!({"name": "a", "description": 3}),
            json!({"name": "a", "server": "s", "mcp_tool_name": "b"}),
            json!(["not", "an", "object"]),
            json!({"name": "a".repeat(MAX_NAME_LENGTH + 1)}),
            json!({"name": "a", "server": "s".repeat(MAX_NAME_LENGTH - 5)}), // the name's cap
            json!({"name": "a", "source": "é".repeat(MAX_DESCRIPTION_LENGTH + 1)}),
        ] {
            assert!(tool_fields(&item, None).is_none(), "{item}");
        }
        assert!(tool_fields(&json!({"name": "a", "inputSchema": {}}), None).is_none());
        let at_cap = json!({"name": "é".repeat(MAX_NAME_LENGTH)});
        assert!(tool_fields(&at_cap, None).is_some());
    }
}
