//! Documents as the Python hand-off delivers them: one chunk's texts concatenated into a single
//! string, with a `(field id, start, end)` span per field and the end of each document's spans.
//! One allocation per chunk instead of one `String` per field and one `Vec` per document.
//!
//! [`Document`] is what [`super::tokenize_chunk`] reads a document through, so this form and the
//! `Vec<(field id, text)>` form of the Rust API are tokenized by the same code.

/// A document's fields, in order: `(field id, text)`.
pub trait Document {
    /// The fields of this document, in order.
    fn fields(&self) -> impl Iterator<Item = (usize, &str)>;
}

impl<S: AsRef<str>> Document for Vec<(usize, S)> {
    fn fields(&self) -> impl Iterator<Item = (usize, &str)> {
        self.iter().map(|(field, text)| (*field, text.as_ref()))
    }
}

/// Up to [`super::CHUNK_DOCS`] documents in one buffer.
#[derive(Default, Debug)]
pub struct FlatChunk {
    text: String,
    /// `(field id, start, end)`: the field's text is `text[start..end]`.
    spans: Vec<(usize, usize, usize)>,
    /// Per document, the end of its spans in `spans`.
    ends: Vec<usize>,
}

impl FlatChunk {
    /// Appends a field to the document being built, its text written by `write` (which must
    /// only append to the string it is given).
    pub fn push_field(&mut self, field: usize, write: impl FnOnce(&mut String)) {
        let start = self.text.len();
        write(&mut self.text);
        self.spans.push((field, start, self.text.len()));
    }

    /// Ends the document being built (a document may have no fields).
    pub fn end_document(&mut self) {
        self.ends.push(self.spans.len());
    }

    /// The number of documents ended so far.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no document has been ended yet.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The chunk's documents, to hand to [`super::tokenize_chunk`].
    pub fn documents(&self) -> Vec<FlatDocument<'_>> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                let spans = self.spans.get(start..end).unwrap_or(&[]);
                start = end;
                FlatDocument {
                    text: &self.text,
                    spans,
                }
            })
            .collect()
    }
}

/// One document of a [`FlatChunk`].
pub struct FlatDocument<'a> {
    text: &'a str,
    spans: &'a [(usize, usize, usize)],
}

impl Document for FlatDocument<'_> {
    fn fields(&self) -> impl Iterator<Item = (usize, &str)> {
        // Spans are recorded around whole strings appended to `text`, so they are in bounds and
        // on character boundaries; `get` keeps a broken span from panicking all the same.
        self.spans
            .iter()
            .map(|&(field, start, end)| (field, self.text.get(start..end).unwrap_or("")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_chunk_reads_back_its_documents() {
        let docs: Vec<Vec<(usize, &str)>> = vec![
            vec![(0, "read_file"), (4, "Read a file"), (7, "")],
            vec![],
            vec![(2, "café 天气"), (5, "path")],
        ];
        let mut chunk = FlatChunk::default();
        for doc in &docs {
            for &(field, text) in doc {
                chunk.push_field(field, |s| s.push_str(text));
            }
            chunk.end_document();
        }
        assert_eq!(chunk.len(), 3);
        let flat = chunk.documents();
        let read: Vec<Vec<(usize, &str)>> = flat.iter().map(|d| d.fields().collect()).collect();
        assert_eq!(read, docs);
    }
}
