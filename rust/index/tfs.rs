//! The postings' term frequencies ([`Tfs`]): one byte a posting where it can, four otherwise.
//!
//! A weighted term frequency is a sum of field weights (halved for a stemmed copy), so an
//! index holds few distinct values: 56 over the 4.05M postings of 100k synthetic tools
//! (english profile). Where there are at most [`MAX_CODES`], each posting stores the index of
//! its value in a table of the distinct values (ascending), and reading it is one load from a
//! 2 KB table: 1 byte a posting instead of the `f32`'s 4 (11.6 MiB of that index's 51.4).
//! The table holds the very `f32` values widened to `f64`, so every score is computed from the
//! same numbers, bit for bit. An index with more distinct values (arbitrary field weights and
//! long repetitive texts) keeps the `f32`s.

use hashbrown::HashMap;
use rayon::prelude::*;

/// The most distinct term frequencies a coded column holds (a code is a `u8`).
pub(crate) const MAX_CODES: usize = 256;

/// Postings per chunk of the parallel coding.
const CHUNK: usize = 1 << 16;

/// The distinct values of a coded column, as `f64`, ascending (unused slots 0).
type Table = Box<[f64; MAX_CODES]>;

/// Every posting's weighted term frequency, in posting order (see the module docs).
#[derive(Clone, PartialEq)]
pub(crate) enum Tfs {
    /// Per posting, the index of its value in the table (of `distinct` values).
    Coded {
        codes: Vec<u8>,
        table: Table,
        distinct: usize,
    },
    /// Per posting, its value.
    Raw(Vec<f32>),
}

impl Default for Tfs {
    fn default() -> Self {
        Tfs::Raw(Vec::new())
    }
}

impl std::fmt::Debug for Tfs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tfs::Coded { codes, .. } => write!(f, "Tfs::Coded({} postings)", codes.len()),
            Tfs::Raw(values) => write!(f, "Tfs::Raw({} postings)", values.len()),
        }
    }
}

impl Tfs {
    /// The column of `values` (finite and positive): coded when they hold at most
    /// [`MAX_CODES`] distinct values.
    pub(crate) fn new(values: Vec<f32>) -> Tfs {
        // Per chunk: codes into the chunk's own first-seen values (giving up past MAX_CODES).
        let chunks: Option<Vec<(Vec<u8>, Vec<u32>)>> = values
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut local: HashMap<u32, u8, ahash::RandomState> = HashMap::default();
                let mut seen: Vec<u32> = Vec::new();
                let mut codes = Vec::with_capacity(chunk.len());
                let mut last = (u32::MAX, 0u8);
                for v in chunk {
                    let bits = v.to_bits();
                    if bits != last.0 {
                        let next = seen.len();
                        let code = *local.entry(bits).or_insert_with(|| {
                            seen.push(bits);
                            next as u8
                        });
                        if seen.len() > MAX_CODES {
                            return None;
                        }
                        last = (bits, code);
                    }
                    codes.push(last.1);
                }
                Some((codes, seen))
            })
            .collect();
        let Some(mut chunks) = chunks else {
            return Tfs::Raw(values);
        };
        // The table: every chunk's values, in bit order (ascending value: they are positive).
        let mut bits: Vec<u32> = chunks
            .iter()
            .flat_map(|(_, seen)| seen.iter().copied())
            .collect();
        bits.sort_unstable();
        bits.dedup();
        if bits.len() > MAX_CODES {
            return Tfs::Raw(values);
        }
        let mut table: Table = Box::new([0.0; MAX_CODES]);
        for (slot, &b) in table.iter_mut().zip(&bits) {
            *slot = f32::from_bits(b) as f64;
        }
        drop(values);
        // Each chunk's codes, translated to the table's.
        chunks.par_iter_mut().for_each(|(codes, seen)| {
            let mut to_table = [0u8; MAX_CODES];
            for (local, b) in seen.iter().enumerate() {
                // Present: `bits` holds every chunk's values, at most MAX_CODES of them.
                to_table[local] = bits.binary_search(b).unwrap_or(0) as u8;
            }
            for c in codes.iter_mut() {
                *c = to_table[*c as usize];
            }
        });
        let mut codes = Vec::with_capacity(chunks.iter().map(|(c, _)| c.len()).sum());
        for (chunk, _) in chunks {
            codes.extend_from_slice(&chunk);
        }
        Tfs::Coded {
            codes,
            table,
            distinct: bits.len(),
        }
    }

    /// The number of postings.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        match self {
            Tfs::Coded { codes, .. } => codes.len(),
            Tfs::Raw(values) => values.len(),
        }
    }

    /// The term frequency of posting `i`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> f64 {
        self.all().get(i)
    }

    /// The whole column as a [`TfSlice`].
    #[inline]
    pub(crate) fn all(&self) -> TfSlice<'_> {
        match self {
            Tfs::Coded {
                codes,
                table,
                distinct,
            } => TfSlice::Coded(Codes {
                codes,
                table,
                distinct: *distinct,
            }),
            Tfs::Raw(values) => TfSlice::Raw(values),
        }
    }

    /// Postings `start..end`.
    #[inline]
    pub(crate) fn slice(&self, start: usize, end: usize) -> TfSlice<'_> {
        self.all().slice(start, end)
    }

    /// The values as `f32`s, in posting order.
    #[cfg(test)]
    pub(crate) fn to_f32s(&self) -> Vec<f32> {
        match self {
            Tfs::Coded { codes, table, .. } => {
                codes.iter().map(|&c| table[c as usize] as f32).collect()
            }
            Tfs::Raw(values) => values.clone(),
        }
    }

    /// Heap bytes.
    pub(crate) fn memory_bytes(&self) -> usize {
        match self {
            Tfs::Coded { codes, .. } => codes.capacity() + MAX_CODES * 8,
            Tfs::Raw(values) => values.capacity() * 4,
        }
    }
}

/// A coded run of postings and the table its codes index.
#[derive(Clone, Copy)]
pub(crate) struct Codes<'a> {
    pub(crate) codes: &'a [u8],
    table: &'a [f64; MAX_CODES],
    distinct: usize,
}

impl<'a> Codes<'a> {
    /// The term frequency of posting `i` of the run.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> f64 {
        // A u8 code is always a slot of the table: no bounds check.
        self.table[self.codes[i] as usize]
    }

    #[inline]
    pub(crate) fn slice(self, start: usize, end: usize) -> Codes<'a> {
        Codes {
            codes: &self.codes[start..end],
            ..self
        }
    }

    /// The table's values (every code is below its length).
    #[inline]
    pub(crate) fn values(&self) -> &'a [f64] {
        &self.table[..self.distinct]
    }
}

/// A run of postings' term frequencies (a list, or the whole column), read with
/// [`TfSlice::get`].
#[derive(Clone, Copy)]
pub(crate) enum TfSlice<'a> {
    Coded(Codes<'a>),
    Raw(&'a [f32]),
}

impl<'a> TfSlice<'a> {
    /// The term frequency of posting `i` of the run (the stored `f32`, widened).
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> f64 {
        match self {
            TfSlice::Coded(c) => c.get(i),
            TfSlice::Raw(values) => values[i] as f64,
        }
    }

    /// The number of postings.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            TfSlice::Coded(c) => c.codes.len(),
            TfSlice::Raw(values) => values.len(),
        }
    }

    /// Postings `start..end` of the run.
    #[inline]
    pub(crate) fn slice(self, start: usize, end: usize) -> TfSlice<'a> {
        match self {
            TfSlice::Coded(c) => TfSlice::Coded(c.slice(start, end)),
            TfSlice::Raw(values) => TfSlice::Raw(&values[start..end]),
        }
    }

    /// The values in order.
    pub(crate) fn iter(self) -> impl Iterator<Item = f64> + 'a {
        (0..self.len()).map(move |i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(tfs: &Tfs) -> Vec<u64> {
        (0..tfs.len()).map(|i| tfs.get(i).to_bits()).collect()
    }

    #[test]
    fn few_distinct_values_are_coded_exactly() {
        let raw: Vec<f32> = (0..200_000)
            .map(|i| [6.0, 0.5, 1.7, 3.25, 1e-3][i * 7 % 5] * (1 + i % 40) as f32)
            .collect();
        let tfs = Tfs::new(raw.clone());
        assert!(matches!(tfs, Tfs::Coded { .. }), "{tfs:?}");
        let want: Vec<u64> = raw.iter().map(|&v| (v as f64).to_bits()).collect();
        assert_eq!(values(&tfs), want);
        assert_eq!(tfs.to_f32s(), raw);
        assert_eq!(tfs.memory_bytes(), raw.len() + MAX_CODES * 8);
        let part = tfs.slice(1000, 1010);
        assert_eq!(part.len(), 10);
        assert!(part.iter().eq(raw[1000..1010].iter().map(|&v| v as f64)));
        // The table is in value order, so equal columns are equal whatever the posting order.
        let mut reversed = raw.clone();
        reversed.reverse();
        let back = Tfs::new(reversed);
        if let (Tfs::Coded { table: a, .. }, Tfs::Coded { table: b, .. }) = (&tfs, &back) {
            assert_eq!(a, b);
        }
    }

    #[test]
    fn many_distinct_values_stay_raw() {
        let raw: Vec<f32> = (1..=MAX_CODES + 1).map(|i| i as f32 * 0.25).collect();
        let tfs = Tfs::new(raw.clone());
        assert!(matches!(tfs, Tfs::Raw(_)));
        assert_eq!(tfs.to_f32s(), raw);
        assert_eq!(tfs.slice(3, 5).iter().collect::<Vec<_>>(), vec![1.0, 1.25]);
        // Exactly MAX_CODES distinct values still fit.
        let fits = Tfs::new(raw[..MAX_CODES].to_vec());
        assert!(matches!(fits, Tfs::Coded { .. }));
        assert_eq!(fits.to_f32s(), raw[..MAX_CODES]);
        assert_eq!(Tfs::new(Vec::new()).len(), 0);
    }
}

/// Scoring reads coded and raw columns to the same bits, in every loop.
#[cfg(test)]
mod scoring_tests {
    use super::Tfs;
    use crate::build::tests::corpus;
    use crate::index::bm25::Params;
    use crate::index::Index;
    use crate::search::prune::ScoringMode;
    use crate::search::SearchOptions;

    #[test]
    fn coded_and_raw_columns_score_the_same() {
        let (names, docs) = corpus(12_000, 31);
        let built = Index::build_parallel_profiled(
            names,
            &docs,
            vec![6.0, 2.0, 1.0],
            Params::default(),
            crate::analysis::Profile::English,
        )
        .unwrap();
        // Shared lists: no stored impacts, so the exhaustive loop computes them (block by
        // block for a coded column: the common words' lists span several blocks).
        let coded = built.with_shared_twins();
        assert!(coded.bounds.impacts.is_empty());
        assert!(matches!(coded.tfs, Tfs::Coded { .. }));
        let longest = (0..coded.terms.len() as u32)
            .map(|t| coded.doc_list(t).len())
            .max();
        // (more than a block of `search::posting_loop::IMPACT_BLOCK`, 1,024 postings)
        assert!(longest > Some(1024), "{longest:?}");
        let mut raw = coded.clone();
        raw.tfs = Tfs::Raw(coded.tfs.to_f32s());
        let coverage = SearchOptions {
            coverage: true,
            ..SearchOptions::default()
        };
        for mode in [ScoringMode::Exhaustive, ScoringMode::Pruned] {
            for opts in [SearchOptions::default(), coverage.clone()] {
                for q in [
                    "read file",
                    "the data of user",
                    "send message to channel",
                    "a the of",
                ] {
                    let want = Index::with_scoring_mode(mode, || raw.search(q, 50, &opts));
                    let got = Index::with_scoring_mode(mode, || coded.search(q, 50, &opts));
                    let bits = |h: Vec<(u32, f64)>| -> Vec<(u32, u64)> {
                        h.into_iter().map(|(d, s)| (d, s.to_bits())).collect()
                    };
                    let (want, got) = (bits(want.unwrap()), bits(got.unwrap()));
                    assert!(!want.is_empty(), "{q}");
                    assert_eq!(got, want, "{mode:?} {q}");
                }
            }
        }
    }
}
