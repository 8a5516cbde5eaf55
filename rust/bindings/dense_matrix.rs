//! `DenseMatrix`: the hybrid search's dense top-k (`crate::search::dense`). Vectors cross as the bytes of
//! native float32 arrays (numpy's `tobytes()`), ids as the bytes of uint32 arrays: the abi3
//! wheel targets Python 3.9, whose limited API has no buffer protocol.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::search::dense::DenseMatrix;

/// Native-endian float32 values from `bytes` (`what` names the argument in the error).
fn floats(bytes: &[u8], what: &str) -> PyResult<Vec<f32>> {
    words(bytes, what, "float32").map(|w| w.into_iter().map(f32::from_ne_bytes).collect())
}

/// Native-endian float16 values (their bits) from `bytes`.
fn halves(bytes: &[u8], what: &str) -> PyResult<Vec<u16>> {
    if bytes.len() % 2 != 0 {
        return Err(PyValueError::new_err(format!(
            "{what} must be the bytes of a float16 array, got {} bytes",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(2)
        .map(|c| u16::from_ne_bytes([c[0], c[1]]))
        .collect())
}

/// Native-endian uint32 values from `bytes`.
fn ids(bytes: &[u8], what: &str) -> PyResult<Vec<u32>> {
    words(bytes, what, "uint32").map(|w| w.into_iter().map(u32::from_ne_bytes).collect())
}

fn words(bytes: &[u8], what: &str, kind: &str) -> PyResult<Vec<[u8; 4]>> {
    if bytes.len() % 4 != 0 {
        return Err(PyValueError::new_err(format!(
            "{what} must be the bytes of a {kind} array, got {} bytes",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect())
}

/// Tool vectors for `HybridIndex`'s dense search, stored by column (`crate::search::dense`).
#[pyclass(name = "DenseMatrix", module = "toolsift._core", frozen)]
pub(crate) struct PyDenseMatrix {
    inner: DenseMatrix,
}

#[pymethods]
impl PyDenseMatrix {
    /// `data`: the bytes of a C-ordered `rows x dim` array of `dtype` (`"float32"`, or
    /// `"float16"`: kept as float16, half the memory, the same similarities), every value finite.
    #[new]
    #[pyo3(signature = (data, rows, dim, dtype = "float32"))]
    fn new(py: Python<'_>, data: &[u8], rows: usize, dim: usize, dtype: &str) -> PyResult<Self> {
        let inner = match dtype {
            "float32" => {
                let values = floats(data, "data")?;
                py.detach(|| DenseMatrix::from_rows(&values, rows, dim))
            }
            "float16" => {
                let values = halves(data, "data")?;
                py.detach(|| DenseMatrix::from_rows_f16(&values, rows, dim))
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "dtype must be 'float32' or 'float16', got {other:?}"
                )))
            }
        }
        .map_err(PyValueError::new_err)?;
        Ok(PyDenseMatrix { inner })
    }

    #[getter]
    fn rows(&self) -> usize {
        self.inner.rows()
    }

    #[getter]
    fn dim(&self) -> usize {
        self.inner.dim()
    }

    #[getter]
    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes()
    }

    /// The bytes of the float32 similarities of `vector` (float32 bytes) with every row.
    fn similarities<'py>(&self, py: Python<'py>, vector: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let vector = floats(vector, "vector")?;
        let sims = py
            .detach(|| self.inner.similarities(&vector))
            .map_err(PyValueError::new_err)?;
        let bytes: Vec<u8> = sims.iter().flat_map(|s| s.to_ne_bytes()).collect();
        Ok(PyBytes::new(py, &bytes))
    }

    /// The bytes of the float32 similarities of each of `vectors` (float32 bytes, `dim` values
    /// per vector) with every row: `rows` values per vector, in one pass over the matrix.
    fn similarities_many<'py>(
        &self,
        py: Python<'py>,
        vectors: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let vectors = floats(vectors, "vectors")?;
        let sims = py
            .detach(|| self.inner.similarities_many(&vectors))
            .map_err(PyValueError::new_err)?;
        let bytes: Vec<u8> = sims.iter().flat_map(|s| s.to_ne_bytes()).collect();
        Ok(PyBytes::new(py, &bytes))
    }

    /// The `k` most similar rows as `(row, similarity)`, best first, then by row; `exclude`
    /// and `only` are uint32 bytes (`only=None`: every row).
    #[pyo3(signature = (vector, k, exclude = None, only = None))]
    fn top_k(
        &self,
        py: Python<'_>,
        vector: &[u8],
        k: usize,
        exclude: Option<&[u8]>,
        only: Option<&[u8]>,
    ) -> PyResult<Vec<(u32, f64)>> {
        let vector = floats(vector, "vector")?;
        let exclude = ids(exclude.unwrap_or_default(), "exclude")?;
        let only = only.map(|o| ids(o, "only")).transpose()?;
        let hits = py
            .detach(|| self.inner.top_k(&vector, k, &exclude, only.as_deref()))
            .map_err(PyValueError::new_err)?;
        Ok(hits.into_iter().map(|(i, s)| (i, f64::from(s))).collect())
    }
}
