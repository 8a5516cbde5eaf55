//! A tool's name forms, as the name table stores them (`super::name_table`).
//!
//! A deliberate twin of the Python specification: [`name_key`] is `toolsift.query.name_key`
//! (lowercase, every character that is not a letter or digit removed; non-ASCII text folds as
//! the tokenizer folds it: the concatenated tokens of `crate::text::tokenize`, itself the twin
//! of `toolsift._text.tokenize`), and [`KeyMaker::tool_keys`] is `_index_tool` in
//! `python/toolsift/_names/table.py`: every normalised name form of a tool, the plain and the
//! qualified ones, in the order it adds them, the sanitised-name branch (every alias of
//! `toolsift.tools.tool_aliases`) included. `tests/test_name_table_build.py` proves them equal
//! with Hypothesis on arbitrary Unicode names and tool sets.

use crate::text::tokenize::Tokenizer;

/// `toolsift.query.name_key(text)`, written into `out` (cleared first).
pub fn name_key(text: &str, tokenizer: &mut Tokenizer, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.reserve(text.len());
        for b in text.bytes() {
            if b.is_ascii_alphanumeric() {
                out.push(char::from(b.to_ascii_lowercase()));
            }
        }
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
    /// The last server seen and its key (a catalogue lists a server's tools together).
    server: String,
    server_key: String,
}

/// Whether `name` is the canonical `mcp__{server}__{raw}` of an ASCII server and raw name, each
/// part sanitised (`sanitize_part`: a character outside `[A-Za-z0-9_-]` written `_`). Its key is
/// then `mcp` + the server's key + the raw name's key, as `name_key` keeps only letters and
/// digits, byte by byte, and sanitising only writes `_` for characters it drops anyway.
fn is_ascii_canonical(name: &str, server: &str, raw: &str) -> bool {
    let same = |got: &[u8], part: &str| {
        got.len() == part.len()
            && got.iter().zip(part.bytes()).all(|(&g, p)| {
                g == p || (g == b'_' && p.is_ascii() && !p.is_ascii_alphanumeric() && p != b'-')
            })
    };
    let bytes = name.as_bytes();
    bytes.len() == server.len() + raw.len() + 7
        && server.is_ascii()
        && raw.is_ascii()
        && bytes.starts_with(b"mcp__")
        && bytes[5 + server.len()..].starts_with(b"__")
        && same(&bytes[5..5 + server.len()], server)
        && same(&bytes[7 + server.len()..], raw)
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
        if self.server != server {
            self.server.clear();
            self.server.push_str(server);
            name_key(server, &mut self.tokenizer, &mut self.server_key);
        }
        self.qualified.clear();
        self.qualified.push_str(&self.server_key);
        self.qualified.push_str(&self.raw);
        if !self.qualified.is_empty() {
            add(Table::Qualified, &self.qualified);
        }
        if !self.raw.is_empty() {
            add(Table::Plain, &self.raw);
        }
        if is_ascii_canonical(name, server, raw) {
            return; // the canonical name of a safe server and tool: no other form
        }
        name_key(name, &mut self.tokenizer, &mut self.key);
        if self.key.strip_prefix("mcp") == Some(self.qualified.as_str()) {
            return; // the canonical name (its key, at least): no other form
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
    fn the_canonical_shortcut_holds_only_where_the_keys_agree() {
        let mut tok = Tokenizer::new();
        let key = |text: &str, tok: &mut Tokenizer| {
            let mut out = String::new();
            name_key(text, tok, &mut out);
            out
        };
        for (name, server, raw, canonical) in [
            ("mcp__fs__read_file", "fs", "read_file", true),
            ("mcp___org_slack__post", "@org/slack", "post", true),
            ("mcp__a-b__x_y", "a-b", "x.y", true),
            ("mcp__fs__read_filf", "fs", "read_file", false),
            ("mcp__fs_read_file", "fs", "read_file", false),
            ("mcp__caf___read", "café", "read", false),
            ("read_file", "fs", "read_file", false),
        ] {
            assert_eq!(is_ascii_canonical(name, server, raw), canonical, "{name}");
            if canonical {
                let whole = format!("mcp{}{}", key(server, &mut tok), key(raw, &mut tok));
                assert_eq!(key(name, &mut tok), whole, "{name}");
            }
        }
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
