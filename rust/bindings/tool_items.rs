//! A plain tool dict read into the values of one `Tool` (`Fields`), as
//! `toolsift._loaders.formats` reads it (`_detect`, `_mcp_item`, `_record_item`) and as `Tool`
//! checks them: the item side of `toolsift._core._new_tools` (`super::tool_objects`), which
//! makes the objects. Anything read here that Python would read otherwise, or reject, is
//! `None`: the items are then left to Python (see `super::tool_objects`).

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::build::records::{
    canonical_name, canonical_tool, MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH,
};

/// Returns `Ok(None)` (the items are left to Python) when `$value` is `None`.
macro_rules! or_python {
    ($value:expr) => {
        match $value {
            Some(value) => value,
            None => return Ok(None),
        }
    };
}
pub(super) use or_python;

/// How the items are read: `_detect`ed one by one (`load_tools`), or all as one format.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Format {
    Detect,
    Mcp,
    Record,
}

/// A `str` value (exactly a `str`) and its UTF-8 text.
#[derive(Clone)]
pub(super) struct Str<'py> {
    pub(super) obj: Bound<'py, PyString>,
    utf8: Utf8<'py>,
}

/// The UTF-8 text of a [`Str`]: the `str`'s own (borrowed, no copy: an ASCII `str` holds it,
/// any other keeps it once made, as the frozen schema's writer reads its strings), encoded by
/// Python (where the extension cannot borrow it), or the Rust text it was made of.
#[derive(Clone)]
enum Utf8<'py> {
    #[cfg_attr(windows, allow(dead_code))]
    Borrowed(*const u8, usize),
    #[cfg_attr(not(windows), allow(dead_code))]
    Encoded(Bound<'py, PyBytes>),
    Made(String),
}

impl<'py> Str<'py> {
    /// `value` when it is exactly a `str` with no lone surrogate (which UTF-8 cannot encode).
    pub(super) fn of(value: &Bound<'py, PyAny>) -> Option<Self> {
        let obj = value.cast_exact::<PyString>().ok()?.clone();
        #[cfg(not(windows))]
        let utf8 = {
            let text = super::frozen_schema::borrowed_utf8(&obj)?;
            Utf8::Borrowed(text.as_ptr(), text.len())
        };
        #[cfg(windows)]
        let utf8 = Utf8::Encoded(obj.encode_utf8().ok()?);
        Some(Str { obj, utf8 })
    }

    /// A new `str` of `text`.
    pub(super) fn new(py: Python<'py>, text: String) -> Self {
        Str {
            obj: PyString::new(py, &text),
            utf8: Utf8::Made(text),
        }
    }

    pub(super) fn text(&self) -> &str {
        match &self.utf8 {
            // SAFETY: the UTF-8 buffer of `self.obj`, which `self` holds alive (a `str` never
            // changes or frees its buffer while it lives).
            Utf8::Borrowed(data, len) => unsafe {
                std::str::from_utf8_unchecked(std::slice::from_raw_parts(*data, *len))
            },
            // SAFETY: `PyUnicode_AsUTF8String`'s bytes are valid UTF-8.
            Utf8::Encoded(bytes) => unsafe { std::str::from_utf8_unchecked(bytes.as_bytes()) },
            Utf8::Made(text) => text,
        }
    }

    /// Python's `len(s) <= cap` (code points).
    pub(super) fn within(&self, cap: usize) -> bool {
        let text = self.text();
        text.len() <= cap || text.chars().count() <= cap
    }
}

/// A `str | None` value: `Some(None)` for `None` or an absent key, `None` for anything else.
pub(super) fn optional<'py>(value: Option<Bound<'py, PyAny>>) -> Option<Option<Str<'py>>> {
    match value {
        None => Some(None),
        Some(value) if value.is_none() => Some(None),
        Some(value) => Str::of(&value).map(Some),
    }
}

/// `item.get(key)`.
pub(super) fn get<'py>(
    item: &Bound<'py, PyDict>,
    key: &Bound<'py, PyString>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    item.get_item(key)
}

/// `_name_of`: a non-blank `str`; `None` also for anything `_name_of` or `Tool` rejects.
fn name_of<'py>(item: &Bound<'py, PyDict>) -> PyResult<Option<Str<'py>>> {
    let py = item.py();
    let Some(name) = optional(get(item, intern!(py, "name"))?).flatten() else {
        return Ok(None);
    };
    // A character Python's `str.isspace` could call white space is rare in a name: ask Python.
    let blank = name.text().is_empty()
        || (!name.text().chars().any(|c| c.is_ascii_graphic())
            && name.obj.call_method0(intern!(py, "isspace"))?.is_truthy()?);
    Ok((!blank).then_some(name))
}

/// The values of one `Tool`, checked as `Tool` checks them.
pub(super) struct Fields<'py> {
    pub(super) name: Str<'py>,
    pub(super) description: Bound<'py, PyString>,
    pub(super) schema: Bound<'py, PyAny>,
    pub(super) server: Option<Str<'py>>,
    pub(super) mcp_tool_name: Option<Str<'py>>,
    pub(super) label: Option<Str<'py>>,
    pub(super) title: Option<Str<'py>>,
    pub(super) summary: Option<Str<'py>>,
    pub(super) search_hint: Option<Str<'py>>,
    pub(super) source: Option<Str<'py>>,
}

/// `_detect`, among the formats handled here (`None`: left to Python).
pub(super) fn detect(item: &Bound<'_, PyDict>, server: bool) -> PyResult<Option<Format>> {
    let py = item.py();
    if get(item, intern!(py, "type"))?.is_some_and(|kind| !kind.is_none()) {
        return Ok(None); // OpenAI, Anthropic `custom` tools and provider built-ins
    }
    if item.contains(intern!(py, "inputSchema"))? {
        return Ok(Some(Format::Mcp));
    }
    if item.contains(intern!(py, "parameters"))? {
        return Ok(None); // OpenAI
    }
    for key in [
        intern!(py, "input_schema"),
        intern!(py, "server"),
        intern!(py, "mcp_tool_name"),
        intern!(py, "label"),
        intern!(py, "summary"),
        intern!(py, "search_hint"),
        intern!(py, "source"),
    ] {
        if item.contains(key)? {
            return Ok(Some(Format::Record));
        }
    }
    Ok(Some(if server { Format::Mcp } else { Format::Record }))
}

/// `_mcp_item(item, server)`'s fields.
pub(super) fn mcp_fields<'py>(
    item: &Bound<'py, PyDict>,
    server: Option<Str<'py>>,
) -> PyResult<Option<Fields<'py>>> {
    let py = item.py();
    let raw = or_python!(name_of(item)?);
    let server = or_python!(server);
    let mut title = or_python!(optional(get(item, intern!(py, "title"))?));
    if title.is_none() {
        if let Some(annotations) = get(item, intern!(py, "annotations"))? {
            if !annotations.is_none() {
                let annotations = or_python!(annotations.cast_exact::<PyDict>().ok());
                title = or_python!(optional(get(annotations, intern!(py, "title"))?));
            }
        }
    }
    Ok(Some(Fields {
        name: Str::new(py, canonical_name(server.text(), raw.text())),
        description: or_python!(description(item)?),
        schema: or_python!(schema(item, intern!(py, "inputSchema"))?),
        server: Some(server),
        mcp_tool_name: Some(raw),
        label: None,
        title,
        summary: None,
        search_hint: None,
        source: None,
    }))
}

/// `_record_item(item, server)`'s fields.
pub(super) fn record_fields<'py>(
    item: &Bound<'py, PyDict>,
    server: Option<Str<'py>>,
) -> PyResult<Option<Fields<'py>>> {
    let py = item.py();
    let raw = or_python!(name_of(item)?);
    let server = match get(item, intern!(py, "server"))? {
        Some(own) => or_python!(optional(Some(own))), // the record's own server wins, even null
        None => server,
    };
    let mut mcp_tool_name = or_python!(optional(get(item, intern!(py, "mcp_tool_name"))?));
    let mut name = raw.clone();
    if let Some(server) = &server {
        if server.text().is_empty() {
            return Ok(None);
        }
        let text = raw.text();
        if let Some(tool) = canonical_tool(text, server.text()) {
            if mcp_tool_name.is_none() {
                mcp_tool_name = Some(Str::new(py, tool.to_owned()));
            }
        } else {
            name = Str::new(py, canonical_name(server.text(), text));
            match &mcp_tool_name {
                None => mcp_tool_name = Some(raw),
                Some(given) if given.text() != text => return Ok(None),
                Some(_) => {}
            }
        }
    }
    let field = |key: &Bound<'py, PyString>| -> PyResult<Option<Option<Str<'py>>>> {
        Ok(optional(get(item, key)?))
    };
    Ok(Some(Fields {
        name,
        description: or_python!(description(item)?),
        schema: or_python!(schema(item, intern!(py, "input_schema"))?),
        server,
        mcp_tool_name,
        label: or_python!(field(intern!(py, "label"))?),
        title: or_python!(field(intern!(py, "title"))?),
        summary: or_python!(field(intern!(py, "summary"))?),
        search_hint: or_python!(field(intern!(py, "search_hint"))?),
        source: or_python!(field(intern!(py, "source"))?),
    }))
}

/// `_text(item, "description")`: a `str`, `""` when null or absent.
fn description<'py>(item: &Bound<'py, PyDict>) -> PyResult<Option<Bound<'py, PyString>>> {
    let py = item.py();
    Ok(match get(item, intern!(py, "description"))? {
        None => Some(PyString::new(py, "")),
        Some(value) if value.is_none() => Some(PyString::new(py, "")),
        Some(value) => value.cast_exact::<PyString>().ok().cloned(),
    })
}

/// `_schema(item, key)`: the item's schema (an exact `dict` here), or the default schema.
fn schema<'py>(
    item: &Bound<'py, PyDict>,
    key: &Bound<'py, PyString>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = item.py();
    match get(item, key)? {
        Some(value) if !value.is_none() => {
            Ok(value.is_exact_instance_of::<PyDict>().then_some(value))
        }
        _ => {
            let schema = PyDict::new(py);
            schema.set_item(intern!(py, "type"), intern!(py, "object"))?;
            schema.set_item(intern!(py, "properties"), PyDict::new(py))?;
            Ok(Some(schema.into_any()))
        }
    }
}

impl Fields<'_> {
    /// `_check_fields`' checks that are not done while reading: empty names, the caps.
    pub(super) fn valid(&self) -> bool {
        let names = [
            Some(&self.name),
            self.server.as_ref(),
            self.mcp_tool_name.as_ref(),
        ];
        let non_empty = [
            self.server.as_ref(),
            self.mcp_tool_name.as_ref(),
            self.label.as_ref(),
        ];
        let texts = [
            self.label.as_ref(),
            self.title.as_ref(),
            self.summary.as_ref(),
            self.search_hint.as_ref(),
            self.source.as_ref(),
        ];
        names
            .into_iter()
            .flatten()
            .all(|s| s.within(MAX_NAME_LENGTH))
            && non_empty
                .into_iter()
                .flatten()
                .all(|s| !s.text().is_empty())
            && texts
                .into_iter()
                .flatten()
                .all(|s| s.within(MAX_DESCRIPTION_LENGTH))
    }
}
