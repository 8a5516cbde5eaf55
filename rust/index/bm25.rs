//! BM25+ scoring: the IDF and the per-term component.
//!
//! BM25+ is BM25 with a lower bound δ on the term-frequency component (Lv & Zhai, "Lower-bounding
//! term frequency normalization", CIKM 2011), with the always-positive IDF of Lucene and `search_tool_bm25`:
//!
//! ```text
//! idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
//! norm(d)     = k1 · (1 - b + b · |d| / avgdl)
//! score(q, d) = Σ_{t ∈ q, tf(t,d) > 0}  qtf(t) · idf(t) · ( tf(t,d)·(k1 + 1) / (tf(t,d) + norm(d)) + δ )
//! ```
//!
//! The sum runs over the *matched* query terms only (Lv & Zhai's, and `search_tool_bm25`'s):
//! bm25s and rank_bm25 also add `idf·δ` for absent terms, which gives every document a score and
//! changes the ranking. Distinct query terms are summed in first-seen order, starting from 0.0,
//! so that the pure-Python engine (`toolsift._pyengine`) reproduces every score bit for bit:
//! the two engines must perform the same f64 operations in the same order.

use crate::error::{Error, Result};

/// BM25+ parameters. Defaults are OMP `search_tool_bm25`'s: k1 1.2, b 0.75, δ 1.0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub k1: f64,
    pub b: f64,
    pub delta: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            k1: 1.2,
            b: 0.75,
            delta: 1.0,
        }
    }
}

/// The largest `k1` and `delta` (`toolsift._options.MAX_BM25_PARAM`).
pub const MAX_PARAM: f64 = 1000.0;

/// What [`Error::Unchecked`] names for BM25+ parameters out of their ranges.
pub const BM25_OUT_OF_RANGE: &str = "BM25 parameters out of range";

impl Params {
    /// Checks the ranges in which every matched term contributes a finite, positive amount
    /// (`k1` and `delta` at most [`MAX_PARAM`]: a larger one overflows scores to infinity).
    /// The rule and its message are `toolsift._options.check_bm25_params`', which the bindings
    /// ask for the error: here a value out of range is [`Error::Unchecked`].
    pub fn validated(k1: f64, b: f64, delta: f64) -> Result<Params> {
        let param = |v: f64| v.is_finite() && (0.0..=MAX_PARAM).contains(&v);
        if param(k1) && param(delta) && b.is_finite() && (0.0..=1.0).contains(&b) {
            Ok(Params { k1, b, delta })
        } else {
            Err(Error::Unchecked(BM25_OUT_OF_RANGE))
        }
    }

    /// The length normalisation of a document: `k1 · (1 - b + b · len / avgdl)`.
    #[inline]
    pub fn norm(&self, doc_len: f64, avg_len: f64) -> f64 {
        self.k1 * (1.0 - self.b + self.b * (doc_len / avg_len))
    }

    /// One matched term's contribution: `qtf · idf · (tf·(k1+1) / (tf + norm) + δ)`.
    #[inline]
    pub fn term_score(&self, qtf: f64, idf: f64, tf: f64, norm: f64) -> f64 {
        qtf * idf * ((tf * (self.k1 + 1.0)) / (tf + norm) + self.delta)
    }
}

/// `ln(1 + (N - df + 0.5) / (df + 0.5))`: positive for every `df <= N`.
#[inline]
pub fn idf(n_docs: usize, df: usize) -> f64 {
    let n = n_docs as f64;
    let df = df as f64;
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// The average document length, or 1.0 when it is 0 or undefined (as OMP `search_tool_bm25` does).
#[inline]
pub fn average_length(total: f64, n_docs: usize) -> f64 {
    if n_docs == 0 {
        return 1.0;
    }
    let avg = total / n_docs as f64;
    if avg.is_finite() && avg != 0.0 {
        avg
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn idf_matches_hand_computed_values() {
        // N = 10, df = 1: ln(1 + 9.5 / 1.5) = ln(7.333...) = 1.99243016469021...
        let cases = [
            (10, 1, 1.992_430_164_690_206_5),
            (10, 10, 0.046_520_015_634_892_91),
            (1, 1, 0.287_682_072_451_780_9),
        ];
        for (n, df, want) in cases {
            assert!(
                close(idf(n, df), want),
                "idf({n}, {df}) = {} != {want}",
                idf(n, df)
            );
        }
    }

    #[test]
    fn term_score_matches_hand_computed_value() {
        let p = Params::default();
        // len 20, avg 10: norm = 1.2 · (0.25 + 0.75 · 2) = 2.1
        let norm = p.norm(20.0, 10.0);
        assert!(close(norm, 2.1));
        // tf 6: 6 · 2.2 / (6 + 2.1) + 1 = 2.6296296296... ; × idf 2 × qtf 1
        let s = p.term_score(1.0, 2.0, 6.0, norm);
        assert!(close(s, 2.0 * (13.2 / 8.1 + 1.0)), "{s}");
    }

    #[test]
    fn average_length_falls_back_to_one() {
        assert_eq!(average_length(0.0, 0), 1.0);
        assert_eq!(average_length(0.0, 3), 1.0);
        assert_eq!(average_length(9.0, 3), 3.0);
    }

    #[test]
    fn params_are_validated() {
        assert!(Params::validated(1.2, 0.75, 1.0).is_ok());
        assert!(Params::validated(-1.0, 0.75, 1.0).is_err());
        assert!(Params::validated(1.2, 1.5, 1.0).is_err());
        assert!(Params::validated(1.2, 0.75, f64::NAN).is_err());
        assert!(Params::validated(1000.0, 1.0, 1000.0).is_ok());
        assert_eq!(
            Params::validated(1e308, 0.75, 1.0),
            Err(Error::Unchecked(BM25_OUT_OF_RANGE))
        );
    }
}
