//! The source text of each tool of an index built from a catalogue's bytes, kept compressed
//! (LZ4 blocks of [`BLOCK_ITEMS`] items) so that a `Tool` is made from it only when it is read:
//! about a third of the catalogue's size instead of all of it.

use rayon::prelude::*;

/// Items per compressed block: reading one item decompresses its block (about 30 KiB).
pub const BLOCK_ITEMS: usize = 64;

/// One compressed block and its items' ends.
type Block = (Box<[u8]>, Vec<u32>);

/// The items' bytes, compressed by blocks.
pub struct SourceItems {
    /// Per block: its items' bytes, one after another, LZ4-compressed (size prepended).
    blocks: Vec<Box<[u8]>>,
    /// Per item: where it ends in its block's decompressed bytes (it starts where the item
    /// before it in the block ends, or at 0).
    ends: Vec<u32>,
}

impl SourceItems {
    /// The items at `spans` of `text`, compressed on the pool; `None` when a block would pass
    /// 4 GiB (never for a catalogue `load_catalog` accepts).
    pub fn new(text: &[u8], spans: &[(usize, usize)]) -> Option<SourceItems> {
        let parts: Option<Vec<Block>> = crate::pool::install(|| {
            spans
                .par_chunks(BLOCK_ITEMS)
                .map(|part| {
                    let mut raw = Vec::new();
                    let mut ends = Vec::with_capacity(part.len());
                    for &(start, end) in part {
                        raw.extend_from_slice(text.get(start..end)?);
                        ends.push(u32::try_from(raw.len()).ok()?);
                    }
                    Some((
                        lz4_flex::compress_prepend_size(&raw).into_boxed_slice(),
                        ends,
                    ))
                })
                .collect()
        });
        let mut blocks = Vec::with_capacity(spans.len().div_ceil(BLOCK_ITEMS));
        let mut ends = Vec::with_capacity(spans.len());
        for (block, block_ends) in parts? {
            blocks.push(block);
            ends.extend(block_ends);
        }
        Some(SourceItems { blocks, ends })
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The bytes of item `i` (`None` past the end, or for a block that does not decompress).
    pub fn get(&self, i: usize) -> Option<Vec<u8>> {
        let end = *self.ends.get(i)? as usize;
        let start = if i % BLOCK_ITEMS == 0 {
            0
        } else {
            self.ends[i - 1] as usize
        };
        let block = lz4_flex::decompress_size_prepended(self.blocks.get(i / BLOCK_ITEMS)?).ok()?;
        block.get(start..end).map(<[u8]>::to_vec)
    }

    /// The heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.blocks.iter().map(|b| b.len()).sum::<usize>()
            + self.blocks.capacity() * std::mem::size_of::<Box<[u8]>>()
            + self.ends.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_back_every_item() {
        let items: Vec<String> = (0..200)
            .map(|i| format!("{{\"name\": \"t{i}\"}}"))
            .collect();
        let text = items.join("\n");
        let mut spans = Vec::new();
        let mut at = 0;
        for item in &items {
            spans.push((at, at + item.len()));
            at += item.len() + 1;
        }
        let source = SourceItems::new(text.as_bytes(), &spans).unwrap();
        assert_eq!(source.len(), 200);
        for (i, item) in items.iter().enumerate() {
            assert_eq!(source.get(i).unwrap(), item.as_bytes(), "{i}");
        }
        assert!(source.get(200).is_none());
        assert!(source.heap_bytes() < text.len());
        assert!(SourceItems::new(b"ab", &[(0, 5)]).is_none());
    }
}
