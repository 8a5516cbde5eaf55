//! The payload's primitive encodings: little-endian numbers and string tables (cumulative
//! UTF-8 byte ends, then the bytes), written by `put_*` and read back by the bounds-checked
//! [`Reader`], which turns every short or malformed field into a snapshot error.

use super::corrupt;
use crate::error::Result;

pub(super) fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(super) fn put_strings<'a>(out: &mut Vec<u8>, items: impl Iterator<Item = &'a str> + Clone) {
    let mut end = 0u32;
    for s in items.clone() {
        end += s.len() as u32;
        put_u32(out, end);
    }
    for s in items {
        out.extend_from_slice(s.as_bytes());
    }
}

/// A bounds-checked little-endian reader over the payload.
pub(super) struct Reader<'a> {
    pub(super) buf: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if n > self.buf.len() - self.pos {
            return Err(corrupt(&format!("{what} runs past the end of the payload")));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// `count` items of `size` bytes, checked against the remaining bytes before any allocation.
    fn take_array(&mut self, count: usize, size: usize, what: &str) -> Result<&'a [u8]> {
        let n = count
            .checked_mul(size)
            .ok_or_else(|| corrupt(&format!("{what} has an impossible length")))?;
        self.take(n, what)
    }

    pub(super) fn u32(&mut self, what: &str) -> Result<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(super) fn u64(&mut self, what: &str) -> Result<u64> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    pub(super) fn f64(&mut self, what: &str) -> Result<f64> {
        Ok(f64::from_bits(self.u64(what)?))
    }

    pub(super) fn u32s(&mut self, count: usize, what: &str) -> Result<Vec<u32>> {
        let b = self.take_array(count, 4, what)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    pub(super) fn f32s(&mut self, count: usize, what: &str) -> Result<Vec<f32>> {
        let b = self.take_array(count, 4, what)?;
        Ok(b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    pub(super) fn f64s(&mut self, count: usize, what: &str) -> Result<Vec<f64>> {
        let b = self.take_array(count, 8, what)?;
        Ok(b.chunks_exact(8)
            .map(|c| {
                let mut a = [0u8; 8];
                a.copy_from_slice(c);
                f64::from_le_bytes(a)
            })
            .collect())
    }

    pub(super) fn strings(&mut self, count: usize, what: &str) -> Result<Vec<&'a str>> {
        let ends = self.u32s(count, what)?;
        let total = ends.last().copied().unwrap_or(0) as usize;
        let bytes = self.take(total, what)?;
        let mut out = Vec::with_capacity(count);
        let mut start = 0usize;
        for end in ends {
            let end = end as usize;
            if end < start || end > bytes.len() {
                return Err(corrupt(&format!("{what} has out-of-order string offsets")));
            }
            let s = std::str::from_utf8(&bytes[start..end])
                .map_err(|_| corrupt(&format!("{what} holds invalid UTF-8")))?;
            out.push(s);
            start = end;
        }
        Ok(out)
    }
}
