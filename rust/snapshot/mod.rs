//! Index snapshots: a versioned, checksummed, little-endian binary format, so a gateway builds
//! once and every worker process loads the index in milliseconds. `toolsift._snapshot` (Python)
//! reads and writes the very same bytes for the pure-Python engine.
//!
//! ```text
//! header, 32 bytes
//!   0  magic        8 bytes   b"TSIFTIDX"
//!   8  version      u32       3 (FORMAT_VERSION)
//!  12  flags        u32       0 (reserved; a reader rejects other values)
//!  16  payload_len  u64       bytes after the header
//!  24  crc32        u32       CRC-32 (ISO-HDLC, zlib's crc32) of the payload
//!  28  reserved     u32       0
//! payload, every number little-endian, no padding
//!  k1, b, delta            f64 × 3
//!  profile                 u32   the analysis profile: 0 omp, 1 english
//!  n_fields                u32,  field_weights f64 × n_fields
//!  n_docs, n_terms         u32 × 2
//!  n_postings, n_presence  u32 × 2
//!  names                   ends u32 × n_docs (cumulative UTF-8 byte ends), then the bytes
//!  terms                   ends u32 × n_terms, then the bytes, in ascending byte order
//!  offsets                 u32 × (n_terms + 1): term t's postings are [offsets[t], offsets[t+1])
//!  docs                    u32 × n_postings (ascending within a term)
//!  tfs                     f32 × n_postings (weighted term frequencies)
//!  presence_offsets        u32 × (n_terms + 1), CSR like `offsets`
//!  presence_docs           u32 × n_presence: documents holding the term only in weight-0 fields
//!  lengths                 f64 × n_docs (weighted document lengths)
//!  metadata_len            u64, then metadata bytes (opaque; ToolIndex keeps its tools there)
//! ```
//!
//! Version 2 added the presence postings (`+required` terms of weight-0 fields) and stores the
//! term dictionary sorted: the file's term ids are the index's sorted order, so the sorted term
//! list of prefix matching loads without a sort, and both engines write the same bytes whatever
//! order they met the terms in. Every term has a scored or a presence posting (or both). A
//! version-1 file has no presence postings and is refused with a message to rebuild. Version 3
//! added the analysis profile (`crate::analysis`); a version-2 file does not say how its terms
//! were made, and is refused with a message to rebuild too.
//!
//! Only stored columns are written; the IDF, average length, norms and the sorted term list are
//! recomputed on load by [`crate::build::assemble`], with the same operations as a build, so a
//! loaded index scores bit for bit like the one that was saved. The reader checks the header,
//! the checksum and then every count against the bytes that remain *before* allocating, and
//! validates the structure (offsets, ascending doc ids in range, finite positive values, UTF-8,
//! sorted distinct terms), so a truncated, corrupted or hostile file is an [`Error::Snapshot`],
//! never a panic or a huge allocation.

use rayon::prelude::*;

use crate::analysis::Profile;
use crate::build::{assemble, check_weights, Postings};
use crate::error::{Error, Result};
use crate::index::bm25::Params;
use crate::index::Index;

mod encoding;

use encoding::{put_strings, put_u32, Reader};

pub const MAGIC: &[u8; 8] = b"TSIFTIDX";
pub const FORMAT_VERSION: u32 = 3;
pub const HEADER_LEN: usize = 32;

fn corrupt(what: &str) -> Error {
    Error::Snapshot(format!(
        "The index snapshot is corrupted: {what}. Rebuild the index and save it again."
    ))
}

/// Checks the header and the checksum; returns the payload.
fn open_payload(data: &[u8]) -> Result<&[u8]> {
    if data.len() < 8 || &data[..8] != MAGIC {
        return Err(Error::Snapshot(
            "This is not a toolsift index snapshot (wrong magic bytes). Load a file written by \
             Index.save() / ToolIndex.save(), or rebuild the index from its tools."
                .into(),
        ));
    }
    if data.len() < HEADER_LEN {
        return Err(Error::Snapshot(format!(
            "The index snapshot is truncated: {} bytes, shorter than its {HEADER_LEN}-byte \
             header. The file was cut short (an interrupted copy or write); save the index again.",
            data.len()
        )));
    }
    let word = |at: usize| u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    let version = word(8);
    if version > FORMAT_VERSION {
        return Err(Error::Snapshot(format!(
            "The index snapshot has format version {version}, newer than the version {FORMAT_VERSION} \
             this toolsift reads. Upgrade toolsift, or rebuild the index and save it with this version."
        )));
    }
    if version == 0 {
        return Err(corrupt("its format version is 0"));
    }
    if version < FORMAT_VERSION {
        return Err(Error::Snapshot(format!(
            "The index snapshot has format version {version}, older than the version \
             {FORMAT_VERSION} this toolsift reads (it does not record its analysis profile{}). \
             Rebuild the index and save it again.",
            if version < 2 {
                " and lacks the postings of required terms"
            } else {
                ""
            }
        )));
    }
    if word(12) != 0 || word(28) != 0 {
        return Err(corrupt("its reserved header fields are not zero"));
    }
    let mut len = [0u8; 8];
    len.copy_from_slice(&data[16..24]);
    let payload_len = u64::from_le_bytes(len);
    let have = (data.len() - HEADER_LEN) as u64;
    if payload_len != have {
        return Err(Error::Snapshot(if payload_len > have {
            format!(
                "The index snapshot is truncated: the header announces {payload_len} payload \
                 bytes but only {have} follow. The file was cut short (an interrupted copy or \
                 write); save the index again."
            )
        } else {
            format!(
                "The index snapshot has {} unexpected bytes after its {payload_len}-byte payload; \
                 the file is corrupted. Rebuild the index and save it again.",
                have - payload_len
            )
        }));
    }
    let payload = &data[HEADER_LEN..];
    let crc = crc32fast::hash(payload);
    if crc != word(24) {
        return Err(Error::Snapshot(format!(
            "The index snapshot is corrupted: checksum mismatch (stored {:#010x}, computed \
             {crc:#010x}). Rebuild the index and save it again.",
            word(24)
        )));
    }
    Ok(payload)
}

impl Index {
    /// The index as snapshot bytes, with `metadata` stored verbatim.
    pub fn to_bytes(&self, metadata: &[u8]) -> Vec<u8> {
        // The file lists the terms in byte order (see the module docs).
        let mut order: Vec<u32> = (0..self.terms.len() as u32).collect();
        order.par_sort_unstable_by(|&a, &b| self.terms[a as usize].cmp(&self.terms[b as usize]));
        let strings: usize = self.names.iter().map(|s| s.len() + 4).sum::<usize>()
            + self.terms.iter().map(|s| s.len() + 4).sum::<usize>();
        let mut p = Vec::with_capacity(
            64 + strings
                + self.field_weights.len() * 8
                + self.offsets.len() * 8
                + self.docs.len() * 8
                + self.presence_docs.len() * 4
                + self.lengths.len() * 8
                + metadata.len(),
        );
        for v in [self.params.k1, self.params.b, self.params.delta] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        put_u32(&mut p, self.profile.id());
        put_u32(&mut p, self.field_weights.len() as u32);
        for w in &self.field_weights {
            p.extend_from_slice(&w.to_le_bytes());
        }
        put_u32(&mut p, self.names.len() as u32);
        put_u32(&mut p, self.terms.len() as u32);
        // Every list is written in full, a shared one included (see `build::share`).
        let postings: usize = (0..self.terms.len() as u32)
            .map(|t| self.doc_list(t).len())
            .sum();
        put_u32(&mut p, postings as u32);
        put_u32(&mut p, self.presence_docs.len() as u32);
        put_strings(&mut p, (0..self.names.len()).map(|d| &self.names[d]));
        let sorted: Vec<&str> = order.iter().map(|&t| &self.terms[t as usize]).collect();
        put_strings(&mut p, sorted.iter().copied());
        let mut end = 0u32;
        put_u32(&mut p, end);
        for &t in &order {
            end += self.doc_list(t).len() as u32;
            put_u32(&mut p, end);
        }
        for &t in &order {
            for &d in self.doc_list(t) {
                put_u32(&mut p, d);
            }
        }
        for &t in &order {
            let (s, e, scale) = self.list(t);
            for tf in self.tfs.slice(s, e).iter() {
                p.extend_from_slice(&((tf * scale) as f32).to_le_bytes());
            }
        }
        let mut end = 0u32;
        put_u32(&mut p, end);
        for &t in &order {
            end += self.presence(t).len() as u32;
            put_u32(&mut p, end);
        }
        for &t in &order {
            for &d in self.presence(t) {
                put_u32(&mut p, d);
            }
        }
        for &l in &self.lengths {
            p.extend_from_slice(&l.to_le_bytes());
        }
        p.extend_from_slice(&(metadata.len() as u64).to_le_bytes());
        p.extend_from_slice(metadata);
        let mut out = Vec::with_capacity(HEADER_LEN + p.len());
        out.extend_from_slice(MAGIC);
        put_u32(&mut out, FORMAT_VERSION);
        put_u32(&mut out, 0);
        out.extend_from_slice(&(p.len() as u64).to_le_bytes());
        put_u32(&mut out, crc32fast::hash(&p));
        put_u32(&mut out, 0);
        out.extend_from_slice(&p);
        out
    }

    /// Reads snapshot bytes back into an index and the stored metadata.
    pub fn from_bytes(data: &[u8]) -> Result<(Index, Vec<u8>)> {
        Index::from_bytes_borrowed(data).map(|(index, meta)| (index, meta.to_vec()))
    }

    /// [`Index::from_bytes`] with the metadata borrowed from `data`, not copied (a 100k-tool
    /// `ToolIndex` snapshot carries ~50 MB of tool records there).
    pub fn from_bytes_borrowed(data: &[u8]) -> Result<(Index, &[u8])> {
        let mut r = Reader {
            buf: open_payload(data)?,
            pos: 0,
        };
        let (k1, b, delta) = (r.f64("k1")?, r.f64("b")?, r.f64("delta")?);
        // The ranges a build accepts; `toolsift._snapshot.format` says the same of them.
        let params = Params::validated(k1, b, delta)
            .map_err(|_| corrupt("its BM25 parameters (k1, b, delta) are out of range"))?;
        let profile_id = r.u32("the analysis profile")?;
        let profile = Profile::from_id(profile_id).ok_or_else(|| {
            Error::Snapshot(format!(
                "The index snapshot uses analysis profile {profile_id}, which this toolsift does \
                 not know. Upgrade toolsift, or rebuild the index and save it with this version."
            ))
        })?;
        let n_fields = r.u32("the field count")? as usize;
        let field_weights = r.f64s(n_fields, "the field weights")?;
        check_weights(&field_weights).map_err(|_| corrupt("a field weight is out of range"))?;
        let n_docs = r.u32("the document count")? as usize;
        let n_terms = r.u32("the term count")? as usize;
        let n_postings = r.u32("the posting count")? as usize;
        let n_presence = r.u32("the presence posting count")? as usize;
        let names: Vec<String> = r
            .strings(n_docs, "the names")?
            .into_iter()
            .map(str::to_owned)
            .collect();
        let term_strs = r.strings(n_terms, "the terms")?;
        // Strictly ascending, so also distinct: the stored ids are the sorted order.
        if term_strs.iter().any(|t| t.is_empty()) || term_strs.windows(2).any(|w| w[0] >= w[1]) {
            return Err(corrupt(
                "its term dictionary is not sorted or has an empty or repeated term",
            ));
        }
        let terms: crate::index::PackedStrings = term_strs.iter().map(|t| &**t).collect();
        let offsets = r.u32s(n_terms + 1, "the posting offsets")?;
        let docs = r.u32s(n_postings, "the posting documents")?;
        let tfs = r.f32s(n_postings, "the term frequencies")?;
        let presence_offsets = r.u32s(n_terms + 1, "the presence offsets")?;
        let presence_docs = r.u32s(n_presence, "the presence documents")?;
        let lengths = r.f64s(n_docs, "the document lengths")?;
        let meta_len = r.u64("the metadata length")?;
        let meta_len = usize::try_from(meta_len).map_err(|_| corrupt("impossible metadata"))?;
        let metadata = r.take(meta_len, "the metadata")?;
        if r.pos != r.buf.len() {
            return Err(corrupt("it has bytes after the metadata"));
        }
        check_csr(&offsets, &docs, n_docs, "posting")?;
        check_csr(&presence_offsets, &presence_docs, n_docs, "presence")?;
        for t in 0..n_terms {
            if offsets[t + 1] == offsets[t] && presence_offsets[t + 1] == presence_offsets[t] {
                return Err(corrupt(&format!("term {t} has no postings")));
            }
        }
        if tfs.iter().any(|tf| !(tf.is_finite() && *tf > 0.0)) {
            return Err(corrupt("a term frequency is not a finite positive number"));
        }
        if lengths.iter().any(|l| !(l.is_finite() && *l >= 0.0)) {
            return Err(corrupt("a document length is not a finite number >= 0"));
        }
        let sorted_terms = (0..n_terms as u32)
            .filter(|&t| offsets[t as usize + 1] > offsets[t as usize])
            .collect();
        let index = assemble(
            params,
            profile,
            field_weights,
            names,
            terms,
            None,
            Postings {
                offsets,
                docs,
                tfs,
                presence_offsets,
                presence_docs,
            },
            Some(sorted_terms),
            lengths,
        );
        Ok((index, metadata))
    }
}

/// `offsets` must rise from 0 to `docs.len()`; each list ascending, with ids below `n_docs`.
fn check_csr(offsets: &[u32], docs: &[u32], n_docs: usize, what: &str) -> Result<()> {
    if offsets.first() != Some(&0) || offsets.last() != Some(&(docs.len() as u32)) {
        return Err(corrupt(&format!(
            "its {what} offsets do not span the {what}s"
        )));
    }
    for (t, w) in offsets.windows(2).enumerate() {
        if w[1] < w[0] || w[1] as usize > docs.len() {
            return Err(corrupt(&format!(
                "term {t} has a negative or too long {what} list"
            )));
        }
        let list = &docs[w[0] as usize..w[1] as usize];
        if list.windows(2).any(|p| p[1] <= p[0]) || list.iter().any(|&d| d as usize >= n_docs) {
            return Err(corrupt(&format!("term {t} has an invalid {what} list")));
        }
    }
    Ok(())
}

/// Writes `bytes` next to `path` and renames it into place, so a reader never sees half a file.
pub fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = std::path::PathBuf::from(tmp);
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        std::io::Write::write_all(&mut file, bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests;
