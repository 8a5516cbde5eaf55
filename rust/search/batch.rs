//! Batch search: many queries against one index, in parallel on rayon's global pool.
//!
//! The index is immutable and every search uses its own thread's scratch accumulator, so the
//! queries share nothing mutable; each result is exactly what [`Index::search`] returns for it.

use rayon::prelude::*;

use crate::error::Result;
use crate::index::Index;
use crate::search::SearchOptions;

/// Below this many queries the batch runs on the calling thread: handing out tasks costs more.
const MIN_PARALLEL: usize = 4;

impl Index {
    /// [`Index::search`] for every query, in parallel; results are in query order. When queries
    /// fail, the error of the first failing one (in query order) is returned, as a loop would.
    pub fn search_many<S: AsRef<str> + Sync>(
        &self,
        queries: &[S],
        limit: usize,
        options: &SearchOptions,
    ) -> Result<Vec<Vec<(u32, f64)>>> {
        let results: Vec<Result<Vec<(u32, f64)>>> = if queries.len() < MIN_PARALLEL {
            queries
                .iter()
                .map(|q| self.search(q.as_ref(), limit, options))
                .collect()
        } else {
            queries
                .par_iter()
                .with_max_len(16)
                .map(|q| self.search(q.as_ref(), limit, options))
                .collect()
        };
        results.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::error::{Error, LIMIT_0};
    use crate::index::bm25::Params;
    use crate::index::Index;
    use crate::search::SearchOptions;

    #[test]
    fn batch_equals_single_calls_in_order() {
        let (names, docs) = crate::build::tests::corpus(5000, 11);
        let idx =
            Index::build_parallel(names, &docs, vec![6.0, 2.0, 1.0], Params::default()).unwrap();
        let queries: Vec<String> = (0..200)
            .map(|i| ["read file", "user channel", "the data of", "get list issue"][i % 4].into())
            .collect();
        let opts = SearchOptions::default();
        let many = idx.search_many(&queries, 5, &opts).unwrap();
        assert_eq!(many.len(), queries.len());
        for (q, hits) in queries.iter().zip(&many) {
            assert_eq!(&idx.search(q, 5, &opts).unwrap(), hits);
        }
        assert_eq!(idx.search_many::<&str>(&[], 5, &opts), Ok(vec![]));
    }

    #[test]
    fn batch_applies_every_option_as_single_calls_do() {
        let (names, docs) = crate::build::tests::corpus(3000, 13);
        // Field 2 has weight 0, so required terms also consult presence postings.
        let idx =
            Index::build_parallel(names, &docs, vec![6.0, 2.0, 0.0], Params::default()).unwrap();
        let queries: Vec<String> = (0..64)
            .map(|i| {
                [
                    "rea fil",
                    "user channel",
                    "the data of mess",
                    "get list iss",
                ][i % 4]
                    .into()
            })
            .collect();
        let mut all = crate::build::tests::query_language();
        all.include = Some((0..3000).filter(|d| d % 5 != 0).collect());
        all.exclude = [3u32, 4, 8].into_iter().collect();
        all.threshold = 0.5;
        all.relative_floor = 0.3;
        for opts in [crate::build::tests::query_language(), all] {
            let many = idx.search_many(&queries, 7, &opts).unwrap();
            for (q, hits) in queries.iter().zip(&many) {
                assert_eq!(&idx.search(q, 7, &opts).unwrap(), hits);
            }
            assert!(many.iter().any(|hits| !hits.is_empty()));
        }
    }

    #[test]
    fn batch_reports_the_first_error_in_query_order() {
        let (names, docs) = crate::build::tests::corpus(100, 12);
        let idx =
            Index::build_parallel(names, &docs, vec![6.0, 2.0, 1.0], Params::default()).unwrap();
        let opts = SearchOptions::default();
        let queries = ["read", "read", "read", "!!!", "read", "?"];
        assert_eq!(
            idx.search_many(&queries, 5, &opts),
            Err(Error::NoSearchableTerms)
        );
        assert_eq!(
            idx.search_many(&queries, 0, &opts),
            Err(Error::Unchecked(LIMIT_0))
        );
        assert_eq!(
            idx.search_many(&["read"; 8], 0, &opts),
            Err(Error::Unchecked(LIMIT_0))
        );
    }
}
