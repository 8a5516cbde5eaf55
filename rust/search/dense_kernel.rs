//! The product kernels of [`super::dense::DenseMatrix`]: `sums[i] += vector[j] * column_j[i]`
//! for every dimension `j` in order, over a tile of rows, for one query vector or several at
//! once (each group of column slices is read once and added to every query's sums while it is
//! in cache: a whole task's steps cost about one pass over the matrix).
//!
//! The columns are float32, or float16 (half the bytes to read: the pass is bound by memory on
//! a busy machine). A float16 value widens to float32 exactly, and each product is rounded to
//! float32 before it is added (never fused), so a sum over float16 columns has the same bits as
//! the sum over the same values stored as float32, on every path: AVX2 + F16C where the
//! processor has them, else the baseline instructions.

/// Dimensions added per pass over a tile: each sum is loaded and stored once per group, with
/// the group's products added to it in dimension order.
pub(super) const GROUP: usize = 8;

/// A stored column value: float32 itself, or the bits of a float16.
pub(super) trait Value: Copy {
    /// The value as float32 (exact).
    fn widen(self) -> f32;
}

impl Value for f32 {
    #[inline(always)]
    fn widen(self) -> f32 {
        self
    }
}

/// The bits of an IEEE 754 half-precision value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Half(pub u16);

impl Half {
    /// Whether the value is finite (not an infinity or a NaN).
    pub fn is_finite(self) -> bool {
        self.0 & 0x7c00 != 0x7c00
    }
}

impl Value for Half {
    #[inline(always)]
    fn widen(self) -> f32 {
        half_to_f32(self.0)
    }
}

/// A float16's bits widened to float32 (exact: every float16 is a float32).
pub fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match exp {
        0 if man == 0 => sign,
        0 => {
            // subnormal: man * 2^-24, exact in float32
            let v = man as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -v } else { v };
        }
        0x1f => sign | 0x7f80_0000 | (man << 13),
        _ => sign | ((exp + 112) << 23) | (man << 13),
    };
    f32::from_bits(bits)
}

/// For each query `q` (the vectors are `dim` values each, one after another), for the rows
/// `start..start + len`: `out[q * rows + start + i] += vectors[q][j] * columns[j * rows + start + i]`
/// for every dimension `j` in order.
pub(super) fn add_products_f32(
    columns: &[f32],
    rows: usize,
    vectors: &[f32],
    dim: usize,
    start: usize,
    len: usize,
    out: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (checked just above).
        unsafe { add_products_f32_avx2(columns, rows, vectors, dim, start, len, out) };
        return;
    }
    add_products_generic(columns, rows, vectors, dim, start, len, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_products_f32_avx2(
    columns: &[f32],
    rows: usize,
    vectors: &[f32],
    dim: usize,
    start: usize,
    len: usize,
    out: &mut [f32],
) {
    add_products_generic(columns, rows, vectors, dim, start, len, out);
}

/// [`add_products_f32`] over float16 columns (their bits).
pub(super) fn add_products_f16(
    columns: &[Half],
    rows: usize,
    vectors: &[f32],
    dim: usize,
    start: usize,
    len: usize,
    out: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("f16c") {
        // SAFETY: the processor has AVX2 and F16C (checked just above).
        unsafe { add_products_f16c(columns, rows, vectors, dim, start, len, out) };
        return;
    }
    add_products_generic(columns, rows, vectors, dim, start, len, out);
}

#[inline(always)]
fn add_products_generic<T: Value>(
    columns: &[T],
    rows: usize,
    vectors: &[f32],
    dim: usize,
    start: usize,
    len: usize,
    out: &mut [f32],
) {
    let queries = vectors.len().checked_div(dim).unwrap_or(0);
    let column = |j: usize| &columns[j * rows + start..j * rows + start + len];
    let full = dim / GROUP * GROUP;
    let mut j = 0;
    while j < full {
        let group: [&[T]; GROUP] = std::array::from_fn(|k| column(j + k));
        for q in 0..queries {
            let values = &vectors[q * dim + j..q * dim + j + GROUP];
            let sums = &mut out[q * rows + start..q * rows + start + len];
            for (i, sum) in sums.iter_mut().enumerate() {
                let mut s = *sum;
                for k in 0..GROUP {
                    s += values[k] * group[k][i].widen();
                }
                *sum = s;
            }
        }
        j += GROUP;
    }
    for j in full..dim {
        for q in 0..queries {
            let v = vectors[q * dim + j];
            let sums = &mut out[q * rows + start..q * rows + start + len];
            for (sum, &x) in sums.iter_mut().zip(column(j)) {
                *sum += v * x.widen();
            }
        }
    }
}

/// [`add_products_f16`] with AVX2 and F16C: eight sums at a time, each float16 widened by
/// `vcvtph2ps`, multiplied and added as two roundings (as the scalar code).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn add_products_f16c(
    columns: &[Half],
    rows: usize,
    vectors: &[f32],
    dim: usize,
    start: usize,
    len: usize,
    out: &mut [f32],
) {
    use std::arch::x86_64::{
        __m128i, _mm256_add_ps, _mm256_cvtph_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_set1_ps,
        _mm256_storeu_ps, _mm_loadu_si128,
    };
    let queries = vectors.len().checked_div(dim).unwrap_or(0);
    assert!(columns.len() >= dim * rows && start + len <= rows);
    assert!(vectors.len() == queries * dim && out.len() >= queries * rows);
    let body = len / 8 * 8;
    let full = dim / GROUP * GROUP;
    let base = columns.as_ptr().cast::<u16>();
    let mut j = 0;
    while j < full {
        for q in 0..queries {
            let values = &vectors[q * dim + j..q * dim + j + GROUP];
            let lanes: [_; GROUP] = std::array::from_fn(|k| _mm256_set1_ps(values[k]));
            let sums = out[q * rows + start..q * rows + start + len].as_mut_ptr();
            let mut i = 0;
            while i < body {
                // SAFETY: i + 8 <= len, and column j + k's rows start..start + len are in
                // `columns` (asserted above); unaligned loads and stores.
                let mut s = _mm256_loadu_ps(sums.add(i));
                for (k, lane) in lanes.iter().enumerate() {
                    let at = base.add((j + k) * rows + start + i);
                    let x = _mm256_cvtph_ps(_mm_loadu_si128(at.cast::<__m128i>()));
                    s = _mm256_add_ps(s, _mm256_mul_ps(*lane, x));
                }
                _mm256_storeu_ps(sums.add(i), s);
                i += 8;
            }
            for i in body..len {
                let mut s = *sums.add(i);
                for (k, &v) in values.iter().enumerate() {
                    s += v * columns[(j + k) * rows + start + i].widen();
                }
                *sums.add(i) = s;
            }
        }
        j += GROUP;
    }
    for j in full..dim {
        let column = &columns[j * rows + start..j * rows + start + len];
        for q in 0..queries {
            let v = vectors[q * dim + j];
            let sums = &mut out[q * rows + start..q * rows + start + len];
            for (sum, &x) in sums.iter_mut().zip(column) {
                *sum += v * x.widen();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_half_widens_to_the_float_it_encodes() {
        for h in 0..=u16::MAX {
            let x = half_to_f32(h);
            let exp = (h >> 10) & 0x1f;
            let man = f32::from(h & 0x3ff);
            let magnitude = match exp {
                0 => man * 2f32.powi(-24),
                0x1f if man == 0.0 => f32::INFINITY,
                0x1f => {
                    assert!(x.is_nan() && !Half(h).is_finite());
                    continue;
                }
                _ => (1.0 + man / 1024.0) * 2f32.powi(i32::from(exp) - 15),
            };
            let expected = if h & 0x8000 != 0 {
                -magnitude
            } else {
                magnitude
            };
            assert_eq!(x.to_bits(), expected.to_bits(), "half {h:#06x}");
            assert_eq!(Half(h).is_finite(), exp != 0x1f);
        }
    }

    #[test]
    fn half_and_float_columns_give_the_same_bits_for_several_queries() {
        let (rows, dim) = (45, 19); // a row tail past the 8-wide body, a dimension remainder
        let halves: Vec<Half> = (0..rows * dim)
            .map(|i| Half(((i * 7919) % 0x7800) as u16 | if i % 3 == 0 { 0x8000 } else { 0 }))
            .map(|h| {
                if h.0 & 0x7c00 >= 0x4000 {
                    Half(h.0 & 0xbbff)
                } else {
                    h
                }
            })
            .collect();
        let floats: Vec<f32> = halves.iter().map(|h| h.widen()).collect();
        let vectors: Vec<f32> = (0..3 * dim).map(|i| (i as f32 - 20.0) / 7.3).collect();
        for (start, len) in [(0, rows), (5, 33)] {
            let mut a = vec![0.0f32; 3 * rows];
            let mut b = vec![0.0f32; 3 * rows];
            let mut c = vec![0.0f32; 3 * rows];
            add_products_f16(&halves, rows, &vectors, dim, start, len, &mut a);
            add_products_f32(&floats, rows, &vectors, dim, start, len, &mut b);
            add_products_generic(&halves, rows, &vectors, dim, start, len, &mut c);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b));
            assert_eq!(bits(&a), bits(&c));
            for q in 0..3 {
                for i in start..start + len {
                    let mut s = 0.0f32;
                    for j in 0..dim {
                        s += vectors[q * dim + j] * floats[j * rows + i];
                    }
                    assert_eq!(s.to_bits(), a[q * rows + i].to_bits());
                }
            }
        }
    }
}
