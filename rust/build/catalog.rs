//! A catalogue's raw text (JSON or JSON Lines) or parsed items to an index, with no per-tool
//! work outside Rust: items are parsed, read into their fields (`records`), and tokenized chunk by
//! chunk on the pool, then the chunks are merged as `Index::build_parallel` merges them.
//!
//! The text is read as `toolsift.load_catalog` reads a file: UTF-8 with an optional BOM; JSON
//! Lines (one tool per line, blank lines allowed) or one JSON document (a list of tools, or an
//! MCP `tools/list` result `{"tools": [...], "server"?}`), the extension deciding which is tried
//! first. Whatever else Python accepts or rejects (catalogue forms with servers, other item
//! formats, invalid records, duplicate names, invalid JSON) is a [`Outcome::Fallback`]: the
//! caller then loads the catalogue the Python way, with its errors.

use rayon::prelude::*;
use serde_json::value::RawValue;
use serde_json::Value;

use super::item_json;
use super::records::{item_fields, ToolFields};
use super::{tokenize_chunk_with, Chunk, FlatChunk, Merge, Reorder, Stems, CHUNK_DOCS};
use crate::analysis::Profile;
use crate::error::Result;
use crate::index::bm25::Params;
use crate::index::Index;

/// The name fields of one tool, as `ToolIndex` keeps them.
pub type NameFields = (String, Option<String>, Option<String>);

/// An index built from raw tool items, with each tool's name fields in order.
pub struct Built {
    pub index: Index,
    pub tools: Vec<NameFields>,
}

/// One part of the items, tokenized, with its tools' name fields.
type TokenizedPart = (Chunk, Vec<NameFields>);

/// What a fast build came to.
pub enum Outcome {
    Built(Box<Result<Built>>),
    /// The input needs Python's loaders (see the module docs).
    Fallback,
}

/// Where the tool items of a catalogue text are, and the server they belong to.
#[derive(Debug, PartialEq)]
pub struct Items {
    /// Byte spans of the items in the text given to [`item_spans`] (a BOM included).
    pub spans: Vec<(usize, usize)>,
    /// Whether the items are JSON Lines rows (a row may be a server entry, which is left to
    /// Python), rather than the items of one document.
    pub jsonl: bool,
    /// The server of the items (the document's `"server"` when none was given).
    pub server: Option<String>,
}

/// JSON's white space (what `json.loads` skips around a value).
fn json_space(text: &str) -> bool {
    text.bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// The items of a catalogue file's text, `None` when Python must read it (see the module docs).
/// `jsonl_first`: the file is named `.jsonl` / `.ndjson`. (Bytes that are not UTF-8 are left
/// to Python by the caller, which checks them once for every item: [`span_fields`] parses
/// the items as `str`, without checking each string again.)
pub fn item_spans(text: &str, jsonl_first: bool, server: Option<&str>) -> Option<Items> {
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let text = &text[bom..];
    let shift = |spans: Vec<(usize, usize)>| spans.into_iter().map(|(s, e)| (s + bom, e + bom));
    let server = server.map(str::to_owned);
    if json_space(text) {
        // (`text.isspace()` in Python also holds for other white space: that text fails to parse
        // below and is left to Python.)
        return Some(Items {
            spans: Vec::new(),
            jsonl: true,
            server,
        });
    }
    let lines = || {
        Some(Items {
            spans: shift(line_spans(text)).collect(),
            jsonl: true,
            server: server.clone(),
        })
    };
    if jsonl_first {
        // (Python reads the text as one JSON document when a line is not JSON: the fallback.)
        return lines();
    }
    match document_spans(text, server.as_deref()) {
        Ok(Some((spans, server))) => Some(Items {
            spans: shift(spans).collect(),
            jsonl: false,
            server,
        }),
        Ok(None) => None,
        // Several values: JSON Lines (Python's "Extra data").
        Err(e) if e.to_string().starts_with("trailing characters") => lines(),
        Err(_) => None,
    }
}

/// The non-blank lines of `text` (not parsed yet: a line that is not a JSON value is found
/// when its item is read, and leaves the whole text to Python).
fn line_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]) {
        let line = &text[start..end];
        if !json_space(line) {
            spans.push((start, end));
        }
        start = end + 1;
    }
    spans
}

/// The items of one JSON document: a list of tools, or `{"tools": [...], "server"?}`.
type DocumentItems = Option<(Vec<(usize, usize)>, Option<String>)>;

fn document_spans(text: &str, server: Option<&str>) -> serde_json::Result<DocumentItems> {
    let offset = |raw: &RawValue| {
        let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
        (start, start + raw.get().len())
    };
    let doc: &RawValue = serde_json::from_str(text)?;
    let spans = |list: Vec<&RawValue>| list.into_iter().map(offset).collect();
    match doc.get().as_bytes().first() {
        Some(b'[') => {
            let list: Vec<&RawValue> = serde_json::from_str(doc.get())?;
            Ok(Some((spans(list), server.map(str::to_owned))))
        }
        Some(b'{') => {
            let object: std::collections::HashMap<String, &RawValue> =
                serde_json::from_str(doc.get())?;
            let is = |key: &str, first: u8| {
                object
                    .get(key)
                    .is_some_and(|v| v.get().as_bytes().first() == Some(&first))
            };
            // A single tool or server entry, a JSON-RPC response, a catalogue, a mapping of
            // servers: left to Python.
            if (object.contains_key("name") && !is("name", b'['))
                || is("result", b'{')
                || object.contains_key("servers")
                || !is("tools", b'[')
            {
                return Ok(None);
            }
            let server = match (server, object.get("server")) {
                (Some(server), _) => Some(server.to_owned()),
                (None, None) => None,
                (None, Some(raw)) => match serde_json::from_str::<Value>(raw.get())? {
                    Value::Null => None,
                    Value::String(s) if !s.is_empty() => Some(s),
                    _ => return Ok(None),
                },
            };
            let list: Vec<&RawValue> = serde_json::from_str(object["tools"].get())?;
            Ok(Some((spans(list), server)))
        }
        _ => Ok(None),
    }
}

/// The fields of the item at `span` of `text` ([`Items`]), `None` when it is left to Python.
pub fn span_fields(text: &str, span: (usize, usize), items: &Items) -> Option<ToolFields> {
    let item = item_json::parse(text.get(span.0..span.1)?)?;
    if items.jsonl && item.is_server_entry() {
        return None;
    }
    item_fields(&item, items.server.as_deref())
}

/// Builds the index of `items`, each read by `fields` (`None`: left to Python), on the pool.
/// A fallback when an item is left to Python or two tools share a name.
///
/// Each part is merged as soon as it and every part before it are tokenized, by the thread
/// that finished the last of them, while the other threads tokenize later parts: only the
/// last part's merge waits for the tokenizing to end.
pub fn build<T: Sync>(
    items: &[T],
    fields: impl Fn(&T) -> Option<ToolFields> + Sync,
    field_weights: Vec<f64>,
    params: Params,
    profile: Profile,
) -> Outcome {
    build_with(items, fields, field_weights, params, profile, |_| ()).0
}

/// [`build`], and `alongside(tools)` of the built index's tools (their name fields, in order),
/// run on the pool while the merged parts become the index (the parts the caller derives from
/// the names, made where a core would otherwise wait for the last postings). `alongside` runs
/// only when the index is built: `None` with a fallback or an error.
pub fn build_with<T: Sync, R: Send>(
    items: &[T],
    fields: impl Fn(&T) -> Option<ToolFields> + Sync,
    field_weights: Vec<f64>,
    params: Params,
    profile: Profile,
    alongside: impl FnOnce(&[NameFields]) -> R + Send,
) -> (Outcome, Option<R>) {
    let stems = Stems::default();
    let weights = &field_weights;
    let merging = std::sync::Mutex::new(InOrder::default());
    crate::pool::install(|| {
        items
            .par_chunks(CHUNK_DOCS)
            .enumerate()
            .for_each(|(c, part)| {
                let out = tokenize_part(c, part, &fields, weights, profile, &stems);
                // A poisoned lock (a panic in another part) fails the build below.
                if let Ok(mut merging) = merging.lock() {
                    merging.put(c, out);
                }
            });
    });
    let parts = items.len().div_ceil(CHUNK_DOCS);
    let merging = merging.into_inner().unwrap_or_else(|e| e.into_inner());
    let Merged {
        merge,
        tools,
        names,
    } = match merging.finish(parts) {
        Ok(Some(merged)) => merged,
        Ok(None) => return (Outcome::Fallback, None),
        Err(e) => return (Outcome::Built(Box::new(Err(e))), None),
    };
    let (index, extra) = crate::pool::install(|| {
        rayon::join(
            || merge.finish(names, field_weights, params, profile),
            || alongside(&tools),
        )
    });
    match index {
        Ok(index) => (
            Outcome::Built(Box::new(Ok(Built { index, tools }))),
            Some(extra),
        ),
        Err(e) => (Outcome::Built(Box::new(Err(e))), None),
    }
}

/// Part `c` of a build ([`build`]): its items read and tokenized; `None` when one is left to
/// Python.
fn tokenize_part<T>(
    c: usize,
    part: &[T],
    fields: &impl Fn(&T) -> Option<ToolFields>,
    weights: &[f64],
    profile: Profile,
    stems: &Stems,
) -> Option<Result<TokenizedPart>> {
    let mut flat = FlatChunk::default();
    let mut names = Vec::with_capacity(part.len());
    for item in part {
        let tool = fields(item)?;
        tool.push_document(&mut flat, weights);
        names.push((tool.name, tool.server, tool.mcp_tool_name));
    }
    let docs = flat.documents();
    let chunk = tokenize_chunk_with(c * CHUNK_DOCS, &docs, weights, profile, stems);
    Some(chunk.map(|chunk| (chunk, names)))
}

/// The parts of a [`build`], merged in document order as they come in, their tools' names
/// checked for duplicates on the way.
#[derive(Default)]
struct InOrder {
    /// Parts in, not merged yet (a part waits for every part before it).
    order: Reorder<Option<Result<TokenizedPart>>>,
    merge: Merge,
    /// The name fields of the merged parts' tools, part by part.
    tools: Vec<Vec<NameFields>>,
    /// The merged tools' names, for the index.
    names: Vec<String>,
    /// `(part, tool)` of every merged tool, by the hash of its name.
    seen: hashbrown::HashTable<(u32, u32)>,
    /// A part was left to Python, or two tools share a name.
    fallback: bool,
    /// The first error, in document order (nothing after it is merged).
    failed: Option<crate::error::Error>,
}

/// The merged parts of a [`build`]: the merge, the tools' name fields and their names.
struct Merged {
    merge: Merge,
    tools: Vec<NameFields>,
    names: Vec<String>,
}

impl InOrder {
    /// Part `c` is in: merges it and every part after it that is in.
    fn put(&mut self, c: usize, out: Option<Result<TokenizedPart>>) {
        self.order.put(c, out);
        while let Some(out) = self.order.pop() {
            match out {
                None => self.fallback = true,
                Some(_) if self.fallback || self.failed.is_some() => {}
                Some(Err(e)) => self.failed = Some(e),
                Some(Ok((chunk, names))) => {
                    self.merge.add(chunk);
                    self.fallback |= !self.add_names(names);
                }
            }
        }
    }

    /// Adds a part's tools; `false` when a name was taken (Python names both places in its
    /// `DuplicateToolError`).
    fn add_names(&mut self, names: Vec<NameFields>) -> bool {
        let part = self.tools.len() as u32;
        let tools = &self.tools;
        let name_of = |&(p, i): &(u32, u32)| -> &str {
            let of = if p == part {
                &names
            } else {
                &tools[p as usize]
            };
            &of[i as usize].0
        };
        let hash = |name: &str| super::intern::hash(name.as_bytes());
        for (i, (name, _, _)) in names.iter().enumerate() {
            let h = hash(name);
            if self.seen.find(h, |key| name_of(key) == name).is_some() {
                return false;
            }
            self.seen
                .insert_unique(h, (part, i as u32), |key| hash(name_of(key)));
            self.names.push(name.clone());
        }
        self.tools.push(names);
        true
    }

    /// The merge of `expected` parts, in order; `None` for a fallback.
    fn finish(self, expected: usize) -> Result<Option<Merged>> {
        if self.fallback {
            return Ok(None);
        }
        if let Some(e) = self.failed {
            return Err(e);
        }
        if self.order.handed_out() < expected {
            let lost = "a part of the catalogue was lost while tokenizing";
            return Err(crate::error::Error::InvalidDocument(lost.into()));
        }
        Ok(Some(Merged {
            merge: self.merge,
            tools: self.tools.into_iter().flatten().collect(),
            names: self.names,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans_of(text: &str, jsonl_first: bool) -> Option<Vec<&str>> {
        let items = item_spans(text, jsonl_first, None)?;
        Some(items.spans.iter().map(|&(s, e)| &text[s..e]).collect())
    }

    #[test]
    fn finds_the_items_of_each_form() {
        let rows = "{\"name\":\"a\"}\n\n{\"name\":\"b\"}\r\n";
        assert_eq!(
            spans_of(rows, true).unwrap(),
            ["{\"name\":\"a\"}", "{\"name\":\"b\"}\r"]
        );
        assert_eq!(spans_of(rows, false).unwrap().len(), 2); // "Extra data": JSON Lines
        let list = "\u{feff}[{\"name\":\"a\"},\n {\"name\":\"b\"}]";
        assert_eq!(
            spans_of(list, false).unwrap(),
            ["{\"name\":\"a\"}", "{\"name\":\"b\"}"]
        );
        let doc = "{\"server\": \"fs\", \"tools\": [{\"name\": \"r\"}]}";
        let items = item_spans(doc, false, None).unwrap();
        assert_eq!(items.server.as_deref(), Some("fs"));
        assert_eq!(spans_of("  \n", false).unwrap().len(), 0);
    }

    #[test]
    fn leaves_other_documents_to_python() {
        for text in [
            "{\"servers\": []}",
            "{\"name\": \"a\"}",
            "{\"github\": []}",
            "[NaN]",
            "{\"a\":\n",
            "\"x\"",
        ] {
            assert!(spans_of(text, false).is_none(), "{text}");
        }
    }

    #[test]
    fn builds_what_the_documents_would() {
        let items = [
            item_json::parse(r#"{"name": "read_file", "description": "Read a file"}"#).unwrap(),
            item_json::parse(r#"{"name": "write_file", "description": "Write a file"}"#).unwrap(),
        ];
        let weights = vec![6.0, 4.0, 2.0, 4.0, 2.0, 1.0, 4.0, 0.0, 0.0, 0.0, 0.0];
        let Outcome::Built(built) = build(
            &items,
            |v| item_fields(v, None),
            weights.clone(),
            Params::default(),
            Profile::Omp,
        ) else {
            panic!("not built");
        };
        let built = (*built).unwrap();
        let docs: Vec<Vec<(usize, String)>> = items
            .iter()
            .map(|v| {
                let mut flat = FlatChunk::default();
                item_fields(v, None)
                    .unwrap()
                    .push_document(&mut flat, &weights);
                let d = flat.documents();
                use super::super::Document;
                d[0].fields().map(|(f, t)| (f, t.to_owned())).collect()
            })
            .collect();
        let names = vec!["read_file".to_owned(), "write_file".to_owned()];
        let want = Index::build(names, &docs, weights.clone(), Params::default()).unwrap();
        assert_eq!(built.index.fingerprint(), want.fingerprint());
        let dup = [items[0].clone(), items[0].clone()];
        let out = build(
            &dup,
            |v| item_fields(v, None),
            vec![1.0; 10],
            Params::default(),
            Profile::Omp,
        );
        assert!(matches!(out, Outcome::Fallback));
        // The work alongside the merge sees the built index's tools, and runs only for a build.
        let names_of =
            |tools: &[NameFields]| -> Vec<String> { tools.iter().map(|t| t.0.clone()).collect() };
        let (out, names) = build_with(
            &items,
            |v| item_fields(v, None),
            weights.clone(),
            Params::default(),
            Profile::Omp,
            names_of,
        );
        assert!(matches!(out, Outcome::Built(_)));
        assert_eq!(names.unwrap(), ["read_file", "write_file"]);
        let (out, names) = build_with(
            &dup,
            |v| item_fields(v, None),
            weights.clone(),
            Params::default(),
            Profile::Omp,
            names_of,
        );
        assert!(matches!(out, Outcome::Fallback) && names.is_none());
        // Names are checked across parts too (a part holds `CHUNK_DOCS` items).
        let text = |dup: bool| -> String {
            let row = |i: usize| format!("{{\"name\": \"t{i}\"}}");
            let mut rows: Vec<String> = (0..CHUNK_DOCS + 5).map(row).collect();
            if dup {
                rows[CHUNK_DOCS + 3] = row(1);
            }
            rows.join("\n")
        };
        for dup in [false, true] {
            let text = text(dup);
            let items = item_spans(&text, true, None).unwrap();
            let out = build(
                &items.spans,
                |&span| span_fields(&text, span, &items),
                vec![1.0; 10],
                Params::default(),
                Profile::Omp,
            );
            match out {
                Outcome::Fallback => assert!(dup),
                Outcome::Built(built) => {
                    let built = (*built).unwrap();
                    assert!(!dup);
                    assert_eq!(built.tools.len(), CHUNK_DOCS + 5);
                    assert_eq!(
                        built.tools[CHUNK_DOCS + 3].0,
                        format!("t{}", CHUNK_DOCS + 3)
                    );
                    assert_eq!(
                        built.index.names[CHUNK_DOCS + 4],
                        format!("t{}", CHUNK_DOCS + 4)
                    );
                }
            }
        }
    }
}
