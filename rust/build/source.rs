//! The source text of each tool of an index built from a catalogue's bytes, kept compressed
//! (zstd frames of [`BLOCK_ITEMS`] items, back to back in one buffer) so that a `Tool` is made
//! from it only when it is read: about a fifth of the catalogue's size instead of all of it.
//!
//! zstd at level [`LEVEL`] rather than LZ4 (blocks of 64): 0.7× LZ4's size at 100,000
//! synthetic tools and on mcp_mixed. A frame starts with its items' lengths (`u32` LE),
//! compressed with them: no per-item array stays in memory.

use rayon::prelude::*;
use std::cell::RefCell;

/// Items per compressed frame: reading one item decompresses its frame (~30-50 KiB). Larger
/// frames compress better and faster (zstd's fixed cost per frame: its entropy tables) and read
/// slower. At 100,000 synthetic tools, one thread: 32 items, 11.8 MiB, ~165 ms to compress,
/// ~18 µs a read; 64 items, 11.0 MiB, ~137 ms, ~28 µs; 128 items, 10.5 MiB, ~150 ms, ~52 µs.
pub const BLOCK_ITEMS: usize = 64;

/// zstd's compression level (1: its fastest standard level, the best size for the time here).
const LEVEL: i32 = 1;

/// The items' bytes, compressed by blocks of [`BLOCK_ITEMS`].
pub struct SourceItems {
    /// Every block's zstd frame, back to back (one allocation: no per-block heap overhead).
    /// A frame holds its items' lengths (`u32` LE), then the items one after another.
    frames: Box<[u8]>,
    /// Per block: where its frame ends in `frames`.
    frame_ends: Box<[usize]>,
    /// The number of items.
    len: usize,
}

thread_local! {
    /// A decompression context per thread, made on the first read (a context is ~100 KiB).
    static DECODER: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// A compressor and its raw block, reused by the frames of one pool task.
type Encoder = Option<(zstd::bulk::Compressor<'static>, Vec<u8>)>;

/// Writes the frame of `part` of `text` into `slot` (room for the frame at its worst); its
/// size, or `None` for a span outside `text`, an item past 4 GiB, or an encoder that fails.
fn frame(
    text: &[u8],
    part: &[(usize, usize)],
    encoder: &mut Encoder,
    slot: &mut [u8],
) -> Option<usize> {
    let (compressor, raw) = encoder.as_mut()?;
    raw.clear();
    for &(start, end) in part {
        let len = u32::try_from(end.checked_sub(start)?).ok()?;
        raw.extend_from_slice(&len.to_le_bytes());
    }
    for &(start, end) in part {
        raw.extend_from_slice(text.get(start..end)?);
    }
    compressor.compress_to_buffer(raw, slot).ok()
}

impl SourceItems {
    /// The items at `spans` of `text`, compressed on the pool; `None` when an item would pass
    /// 4 GiB (never for a catalogue `load_catalog` accepts) or a span is outside `text`.
    pub fn new(text: &[u8], spans: &[(usize, usize)]) -> Option<SourceItems> {
        // Each frame is written in place into one buffer with room for every frame at its
        // worst (zeroed pages that stay untouched until written), then the frames are moved
        // together and the rest given back: no allocation per frame, which would leave the
        // engine's build (on the same threads, at the same time) holes the OS never gets back.
        let mut bounds = Vec::with_capacity(spans.len().div_ceil(BLOCK_ITEMS));
        for part in spans.chunks(BLOCK_ITEMS) {
            let mut raw = 4 * part.len();
            for &(start, end) in part {
                raw = raw.checked_add(end.checked_sub(start)?)?;
            }
            bounds.push(zstd::zstd_safe::compress_bound(raw));
        }
        let mut frames = vec![0u8; bounds.iter().try_fold(0usize, |a, &b| a.checked_add(b))?];
        let mut slots = Vec::with_capacity(bounds.len());
        let mut rest: &mut [u8] = &mut frames;
        for &bound in &bounds {
            let (slot, tail) = std::mem::take(&mut rest).split_at_mut(bound);
            slots.push(slot);
            rest = tail;
        }
        let sizes: Option<Vec<usize>> = crate::pool::install(|| {
            slots
                .into_par_iter()
                .zip(spans.par_chunks(BLOCK_ITEMS))
                .map_init(
                    || Some((zstd::bulk::Compressor::new(LEVEL).ok()?, Vec::new())),
                    |encoder, (slot, part)| frame(text, part, encoder, slot),
                )
                .collect()
        });
        let mut frame_ends = Vec::with_capacity(bounds.len());
        let (mut from, mut to) = (0, 0);
        for (size, bound) in sizes?.into_iter().zip(bounds) {
            frames.copy_within(from..from + size, to);
            to += size;
            frame_ends.push(to);
            from += bound;
        }
        frames.truncate(to);
        Some(SourceItems {
            frames: frames.into_boxed_slice(),
            frame_ends: frame_ends.into_boxed_slice(),
            len: spans.len(),
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes of item `i` (`None` past the end, or for a frame that does not decompress).
    pub fn get(&self, i: usize) -> Option<Vec<u8>> {
        if i >= self.len {
            return None;
        }
        let block = i / BLOCK_ITEMS;
        let k = i % BLOCK_ITEMS;
        let frame_start = block.checked_sub(1).map_or(0, |b| self.frame_ends[b]);
        let frame = self.frames.get(frame_start..*self.frame_ends.get(block)?)?;
        let size = usize::try_from(zstd::zstd_safe::get_frame_content_size(frame).ok()??).ok()?;
        let raw = DECODER.with(|decoder| {
            let mut decoder = decoder.borrow_mut();
            if decoder.is_none() {
                *decoder = Some(zstd::bulk::Decompressor::new().ok()?);
            }
            decoder.as_mut()?.decompress(frame, size).ok()
        })?;
        let items = (self.len - block * BLOCK_ITEMS).min(BLOCK_ITEMS);
        let (head, body) = raw.split_at_checked(4 * items)?;
        let mut lens = head
            .chunks_exact(4)
            .map(|len| u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize);
        let start: usize = lens.by_ref().take(k).sum();
        let end = start + lens.next()?;
        body.get(start..end).map(<[u8]>::to_vec)
    }

    /// The heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.frames.len() + self.frame_ends.len() * std::mem::size_of::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `items` joined by `sep`, and each item's span.
    fn joined(items: &[String], sep: &str) -> (String, Vec<(usize, usize)>) {
        let text = items.join(sep);
        let mut spans = Vec::new();
        let mut at = 0;
        for item in items {
            spans.push((at, at + item.len()));
            at += item.len() + sep.len();
        }
        (text, spans)
    }

    #[test]
    fn gives_back_every_item() {
        // Table: item counts around the block size, separators, and Unicode / empty items.
        let cases: Vec<(Vec<String>, &str)> = vec![
            (
                (0..200)
                    .map(|i| format!("{{\"name\": \"t{i}\"}}"))
                    .collect(),
                "\n",
            ),
            (
                (0..BLOCK_ITEMS)
                    .map(|i| format!("{{\"n\": {i}}}"))
                    .collect(),
                ",\r\n",
            ),
            (
                (0..BLOCK_ITEMS + 1).map(|i| format!("[{i}]")).collect(),
                " ",
            ),
            (
                vec!["{\"name\": \"日本語_ツール\", \"d\": \"é 🎉\"}".to_string()],
                "",
            ),
            (vec![String::new(), "{}".into(), String::new()], "\n"),
            (Vec::new(), "\n"),
        ];
        for (items, sep) in cases {
            let (text, spans) = joined(&items, sep);
            let source = SourceItems::new(text.as_bytes(), &spans).unwrap();
            assert_eq!(source.len(), items.len());
            assert_eq!(source.is_empty(), items.is_empty());
            for (i, item) in items.iter().enumerate() {
                assert_eq!(source.get(i).unwrap(), item.as_bytes(), "{i}");
            }
            assert!(source.get(items.len()).is_none());
        }
    }

    #[test]
    fn gives_back_random_items() {
        // A property test over seeded random catalogues: item counts across several blocks,
        // items of random length (empty ones too) and random UTF-8, random separators.
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move |n: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) % n
        };
        let alphabet = ['a', '{', '"', ' ', 'é', '日', '🎉', '\\', 'z', '\n'];
        for _ in 0..40 {
            let count = next(4 * BLOCK_ITEMS as u64) as usize;
            let items: Vec<String> = (0..count)
                .map(|_| {
                    (0..next(300))
                        .map(|_| alphabet[next(10) as usize])
                        .collect()
                })
                .collect();
            let sep = ["", "\n", ", "][next(3) as usize];
            let (text, spans) = joined(&items, sep);
            let source = SourceItems::new(text.as_bytes(), &spans).unwrap();
            assert_eq!(source.len(), count);
            for (i, item) in items.iter().enumerate().rev() {
                assert_eq!(source.get(i).unwrap(), item.as_bytes(), "{i} of {count}");
            }
            assert!(source.get(count).is_none());
        }
    }

    #[test]
    fn compresses_and_refuses_bad_spans() {
        let items: Vec<String> = (0..500)
            .map(|i| format!("{{\"name\": \"tool_{i}\", \"description\": \"Reads the file {i}\"}}"))
            .collect();
        let (text, spans) = joined(&items, "\n");
        let source = SourceItems::new(text.as_bytes(), &spans).unwrap();
        assert!(source.heap_bytes() < text.len() / 4);
        assert!(SourceItems::new(b"ab", &[(0, 5)]).is_none());
        assert!(SourceItems::new(b"ab", &[(2, 1)]).is_none());
    }

    #[test]
    fn reads_from_many_threads() {
        let items: Vec<String> = (0..300).map(|i| format!("item {i}")).collect();
        let (text, spans) = joined(&items, "\n");
        let source = SourceItems::new(text.as_bytes(), &spans).unwrap();
        std::thread::scope(|s| {
            for t in 0..4 {
                let (source, items) = (&source, &items);
                s.spawn(move || {
                    for i in (t..items.len()).step_by(4) {
                        assert_eq!(source.get(i).unwrap(), items[i].as_bytes());
                    }
                });
            }
        });
    }
}
