//! Dense similarity search for hybrid retrieval: the dot products of a query vector with every
//! tool vector, and their top `k`.
//!
//! The tool vectors are stored column by column (`columns[j * rows + i]` is value `j` of row
//! `i`), as float32 or float16, so the product is `out += v[j] * column_j` for each dimension in
//! turn, eight dimensions per pass over a tile of rows that stays in L1 (`dense_kernel`):
//! sequential reads, one thread, no BLAS; several query vectors share one pass. Each similarity
//! is summed in
//! dimension order from 0.0, in float32, each product rounded before it is added (Rust never
//! fuses a multiply and an add by itself), which numpy's `out += v[j] * column_j` does too: the
//! pure-Python fallback (`toolsift.hybrid._DenseColumns`) gets the same bits.
//!
//! The top `k` are ordered by similarity, highest first, then by row, lowest first; only finite
//! similarities are taken (a row of huge values can overflow to infinity).

use std::cmp::Ordering;

use super::dense_kernel::{add_products_f16, add_products_f32, Half, Value};

/// Rows per tile of the product: the tile's sums (16 KiB) stay in L1 while each group of
/// dimensions' column slices streams past them (11,578 x 384 on a 2-core AMD EPYC: 0.43-0.6 ms
/// a query, where 1,024-row tiles one dimension at a time took 2.4 ms).
const TILE_ROWS: usize = 4096;

/// Tool vectors for dense search, stored by column.
#[derive(Debug, Clone)]
pub struct DenseMatrix {
    rows: usize,
    dim: usize,
    columns: Columns,
}

/// The stored values: float32, or float16 (half the memory and the bytes read per query).
#[derive(Debug, Clone)]
enum Columns {
    F32(Vec<f32>),
    F16(Vec<Half>),
}

/// `rows x dim` values, row by row, checked (see [`DenseMatrix::from_rows`]) and stored by column.
fn by_column<T: Copy + Default>(
    data: &[T],
    rows: usize,
    dim: usize,
    finite: impl Fn(T) -> bool,
) -> Result<Vec<T>, String> {
    let expected = rows
        .checked_mul(dim)
        .ok_or_else(|| format!("an embedding matrix of {rows} x {dim} values is too large"))?;
    if data.len() != expected {
        return Err(format!(
            "the embedding matrix holds {} values, not {rows} x {dim} = {expected}",
            data.len()
        ));
    }
    if dim == 0 && rows > 0 {
        return Err("embedding vectors must have at least one value".to_owned());
    }
    if let Some(at) = data.iter().position(|&x| !finite(x)) {
        return Err(format!(
            "embedding row {} holds a non-finite value at column {}",
            at / dim,
            at % dim
        ));
    }
    let mut columns = vec![T::default(); expected];
    for (i, row) in data.chunks_exact(dim.max(1)).enumerate().take(rows) {
        for (j, &x) in row.iter().enumerate() {
            columns[j * rows + i] = x;
        }
    }
    Ok(columns)
}

impl DenseMatrix {
    /// A matrix of `rows` vectors of `dim` values from `data`, row by row (a C-ordered
    /// `rows x dim` array). Every value must be finite.
    ///
    /// # Errors
    /// A message when `data` does not hold `rows * dim` values, `dim` is 0 while `rows` is not,
    /// or a value is not finite (naming its row and column).
    pub fn from_rows(data: &[f32], rows: usize, dim: usize) -> Result<Self, String> {
        let columns = Columns::F32(by_column(data, rows, dim, f32::is_finite)?);
        Ok(DenseMatrix { rows, dim, columns })
    }

    /// [`DenseMatrix::from_rows`] of float16 values (their bits), kept as float16: the
    /// similarities are the very sums of the same values stored as float32.
    ///
    /// # Errors
    /// As [`DenseMatrix::from_rows`].
    pub fn from_rows_f16(data: &[u16], rows: usize, dim: usize) -> Result<Self, String> {
        let halves: Vec<Half> = data.iter().map(|&h| Half(h)).collect();
        let columns = Columns::F16(by_column(&halves, rows, dim, Half::is_finite)?);
        Ok(DenseMatrix { rows, dim, columns })
    }

    /// Number of vectors.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Values per vector.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        match &self.columns {
            Columns::F32(c) => c.capacity() * std::mem::size_of::<f32>(),
            Columns::F16(c) => c.capacity() * std::mem::size_of::<Half>(),
        }
    }

    fn check_vector(&self, vector: &[f32]) -> Result<(), String> {
        if vector.len() != self.dim {
            return Err(format!(
                "the query vector must have {} values, got {}",
                self.dim,
                vector.len()
            ));
        }
        if vector.iter().any(|x| !x.is_finite()) {
            return Err("the query vector must be finite".to_owned());
        }
        Ok(())
    }

    /// The similarity of `vector` with every row, in row order.
    ///
    /// # Errors
    /// A message when `vector` has the wrong length or a non-finite value.
    pub fn similarities(&self, vector: &[f32]) -> Result<Vec<f32>, String> {
        self.check_vector(vector)?;
        Ok(self.products(vector))
    }

    /// The similarities of each of `vectors` (`dim` values each, one after another) with every
    /// row: `rows` values per vector, in that order, each the same sums as
    /// [`DenseMatrix::similarities`] of that vector, in one pass over the matrix.
    ///
    /// # Errors
    /// A message when `vectors` is not a whole number of vectors, or a value is not finite.
    pub fn similarities_many(&self, vectors: &[f32]) -> Result<Vec<f32>, String> {
        if self.dim == 0 || vectors.len() % self.dim != 0 {
            return Err(format!(
                "the query vectors must have {} values each, got {} values",
                self.dim,
                vectors.len()
            ));
        }
        for vector in vectors.chunks_exact(self.dim) {
            self.check_vector(vector)?;
        }
        Ok(self.products(vectors))
    }

    /// The products of checked `vectors` with every row, tile by tile.
    fn products(&self, vectors: &[f32]) -> Vec<f32> {
        let (rows, dim) = (self.rows, self.dim);
        let queries = vectors.len().checked_div(dim).unwrap_or(1);
        let mut out = vec![0.0f32; queries * rows];
        for start in (0..rows).step_by(TILE_ROWS) {
            let len = TILE_ROWS.min(rows - start);
            match &self.columns {
                Columns::F32(c) => add_products_f32(c, rows, vectors, dim, start, len, &mut out),
                Columns::F16(c) => add_products_f16(c, rows, vectors, dim, start, len, &mut out),
            }
        }
        out
    }

    /// The similarity of `vector` with each row of `ids`, in that order (the same sums as
    /// [`DenseMatrix::similarities`]).
    ///
    /// # Errors
    /// A message when `vector` is invalid or an id is not a row.
    pub fn similarities_of(&self, vector: &[f32], ids: &[u32]) -> Result<Vec<f32>, String> {
        self.check_vector(vector)?;
        self.check_ids(ids, "row id")?;
        Ok(match &self.columns {
            Columns::F32(c) => gather(c, self.rows, vector, ids),
            Columns::F16(c) => gather(c, self.rows, vector, ids),
        })
    }

    fn check_ids(&self, ids: &[u32], what: &str) -> Result<(), String> {
        match ids.iter().find(|&&i| i as usize >= self.rows) {
            Some(i) => Err(format!(
                "{what} {i} is out of range for {} embedding rows",
                self.rows
            )),
            None => Ok(()),
        }
    }

    /// The `k` rows most similar to `vector` as `(row, similarity)`, best first (ties: the lower
    /// row first), leaving out the rows of `exclude` and, with `only`, every row not in it.
    ///
    /// # Errors
    /// A message when `vector` is invalid or an id of `exclude` or `only` is not a row.
    pub fn top_k(
        &self,
        vector: &[f32],
        k: usize,
        exclude: &[u32],
        only: Option<&[u32]>,
    ) -> Result<Vec<(u32, f32)>, String> {
        self.check_ids(exclude, "excluded row")?;
        let mut hits: Vec<(u32, f32)> = match only {
            None => {
                let mut sims = self.similarities(vector)?;
                for &i in exclude {
                    sims[i as usize] = f32::NEG_INFINITY;
                }
                (0u32..).zip(sims).collect()
            }
            Some(ids) => {
                let mut ids = ids.to_vec();
                ids.sort_unstable();
                ids.dedup();
                // Gathering a row costs ~30 full-pass rows (scattered reads: 1,053 of 11,578
                // rows took 1.3 ms against 0.5 ms for all of them): past 1/32, the full pass.
                let sims = if ids.len() * 32 > self.rows {
                    self.check_ids(&ids, "row id")?;
                    let all = self.similarities(vector)?;
                    ids.iter().map(|&i| all[i as usize]).collect()
                } else {
                    self.similarities_of(vector, &ids)?
                };
                let mut hits: Vec<(u32, f32)> = ids.into_iter().zip(sims).collect();
                if !exclude.is_empty() {
                    let excluded: std::collections::HashSet<u32> =
                        exclude.iter().copied().collect();
                    hits.retain(|(i, _)| !excluded.contains(i));
                }
                hits
            }
        };
        hits.retain(|(_, s)| s.is_finite());
        if k == 0 {
            return Ok(Vec::new());
        }
        if hits.len() > k {
            hits.select_nth_unstable_by(k - 1, better);
            hits.truncate(k);
        }
        hits.sort_unstable_by(better);
        Ok(hits)
    }
}

/// The similarity of `vector` with each row of `ids`: dimension by dimension, as the full
/// pass, each sum in dimension order.
fn gather<T: Value>(columns: &[T], rows: usize, vector: &[f32], ids: &[u32]) -> Vec<f32> {
    let mut out = vec![0.0f32; ids.len()];
    for (j, &v) in vector.iter().enumerate() {
        let column = &columns[j * rows..(j + 1) * rows];
        for (sum, &i) in out.iter_mut().zip(ids) {
            *sum += v * column[i as usize].widen();
        }
    }
    out
}

/// Higher similarity first, then the lower row (similarities are finite here; -0.0 and 0.0 are
/// equal, as numpy compares them).
fn better(a: &(u32, f32), b: &(u32, f32)) -> Ordering {
    b.1.partial_cmp(&a.1)
        .unwrap_or(Ordering::Equal)
        .then(a.0.cmp(&b.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix() -> DenseMatrix {
        let data = [
            1.0, 0.0, 0.0, //
            0.0, 1.0, 0.0, //
            0.6, 0.8, 0.0, //
            0.6, 0.8, 0.0, //
            0.0, 0.0, 1.0,
        ];
        DenseMatrix::from_rows(&data, 5, 3).unwrap()
    }

    #[test]
    fn similarities_are_dot_products_in_row_order() {
        let m = matrix();
        assert_eq!(
            m.similarities(&[1.0, 0.0, 0.0]).unwrap(),
            [1.0, 0.0, 0.6, 0.6, 0.0]
        );
        assert_eq!(
            m.similarities_of(&[0.0, 1.0, 0.0], &[3, 0]).unwrap(),
            [0.8, 0.0]
        );
    }

    #[test]
    fn top_k_orders_by_similarity_then_row_and_honours_filters() {
        let m = matrix();
        let v = [0.6, 0.8, 0.0];
        let top = m.top_k(&v, 3, &[], None).unwrap();
        assert_eq!(top.iter().map(|h| h.0).collect::<Vec<_>>(), [2, 3, 1]);
        let top = m.top_k(&v, 2, &[2], None).unwrap();
        assert_eq!(top.iter().map(|h| h.0).collect::<Vec<_>>(), [3, 1]);
        let top = m.top_k(&v, 8, &[3], Some(&[4, 3, 0])).unwrap();
        assert_eq!(top.iter().map(|h| h.0).collect::<Vec<_>>(), [0, 4]);
        assert!(m.top_k(&v, 0, &[], None).unwrap().is_empty());
    }

    #[test]
    fn the_tiled_sums_equal_a_sum_per_row_over_many_tiles() {
        let (rows, dim) = (2 * TILE_ROWS + 37, 7);
        let data: Vec<f32> = (0..rows * dim)
            .map(|i| ((i * 7919 % 1000) as f32 - 500.0) / 317.0)
            .collect();
        let m = DenseMatrix::from_rows(&data, rows, dim).unwrap();
        let v: Vec<f32> = (0..dim).map(|j| (j as f32 - 3.0) / 3.3).collect();
        let all = m.similarities(&v).unwrap();
        let ids: Vec<u32> = (0..rows as u32).collect();
        let each = m.similarities_of(&v, &ids).unwrap();
        assert_eq!(
            all.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            each.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        for (i, row) in data.chunks_exact(dim).enumerate() {
            let sum = row.iter().zip(&v).fold(0.0f32, |s, (&x, &y)| s + y * x);
            assert_eq!(sum.to_bits(), all[i].to_bits());
        }
    }

    #[test]
    fn bad_shapes_values_and_ids_are_errors() {
        assert!(DenseMatrix::from_rows(&[1.0, 2.0], 1, 3).is_err());
        assert!(DenseMatrix::from_rows(&[1.0, f32::NAN], 1, 2)
            .unwrap_err()
            .contains("row 0"));
        assert!(DenseMatrix::from_rows(&[], 2, 0).is_err());
        let empty = DenseMatrix::from_rows(&[], 0, 4).unwrap();
        assert!(empty.top_k(&[0.0; 4], 3, &[], None).unwrap().is_empty());
        let m = matrix();
        assert!(m.similarities(&[1.0, 0.0]).is_err());
        assert!(m.similarities(&[1.0, f32::INFINITY, 0.0]).is_err());
        assert!(m.top_k(&[1.0, 0.0, 0.0], 2, &[5], None).is_err());
        assert!(m.top_k(&[1.0, 0.0, 0.0], 2, &[], Some(&[9])).is_err());
    }

    #[test]
    fn half_columns_and_many_vectors_give_the_bits_of_one_float_pass() {
        let (rows, dim) = (TILE_ROWS + 61, 21);
        let halves: Vec<u16> = (0..rows * dim)
            .map(|i| (((i * 7919) % 0x3c00) as u16) | if i % 5 == 0 { 0x8000 } else { 0 })
            .collect();
        let floats: Vec<f32> = halves
            .iter()
            .map(|&h| super::super::dense_kernel::half_to_f32(h))
            .collect();
        let half = DenseMatrix::from_rows_f16(&halves, rows, dim).unwrap();
        let full = DenseMatrix::from_rows(&floats, rows, dim).unwrap();
        assert_eq!(half.memory_bytes() * 2, full.memory_bytes());
        let vectors: Vec<f32> = (0..3 * dim).map(|i| (i as f32 - 31.0) / 9.7).collect();
        let many = half.similarities_many(&vectors).unwrap();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for (q, vector) in vectors.chunks_exact(dim).enumerate() {
            let one = full.similarities(vector).unwrap();
            assert_eq!(bits(&half.similarities(vector).unwrap()), bits(&one));
            assert_eq!(bits(&many[q * rows..(q + 1) * rows]), bits(&one));
            let ids = [3u32, (rows - 1) as u32, 0];
            assert_eq!(
                bits(&half.similarities_of(vector, &ids).unwrap()),
                bits(&full.similarities_of(vector, &ids).unwrap())
            );
            assert_eq!(
                half.top_k(vector, 5, &[1], None).unwrap(),
                full.top_k(vector, 5, &[1], None).unwrap()
            );
        }
        assert!(half.similarities_many(&vectors[1..]).is_err());
        assert!(half.similarities_many(&[f32::NAN; 21]).is_err());
        assert!(DenseMatrix::from_rows_f16(&[0x3c00, 0x7c00], 1, 2)
            .unwrap_err()
            .contains("column 1"));
        assert!(DenseMatrix::from_rows_f16(&[0x3c00], 1, 2).is_err());
    }

    #[test]
    fn overflowing_rows_are_not_taken() {
        let m = DenseMatrix::from_rows(&[3e38, 3e38, 1.0, 0.0], 2, 2).unwrap();
        let top = m.top_k(&[1.0, 1.0], 5, &[], None).unwrap();
        assert_eq!(top, [(1, 1.0)]);
    }
}
