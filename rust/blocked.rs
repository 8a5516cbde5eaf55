//! Cache-blocked term-at-a-time scoring for very large indexes.
//!
//! Plain term-at-a-time scoring walks each query term's posting list and adds into a per-document
//! accumulator (8 bytes a document) while reading the document's norm (8 more): past a few hundred
//! thousand documents both arrays outgrow the L2 cache and almost every posting is a cache miss.
//! Here the documents are cut into ranges of [`BLOCK_DOCS`]; for each range, every query term (in
//! query order) scores only its postings inside the range, so the accumulator and norms of one
//! range stay in cache. Each document still receives its terms' contributions in query order,
//! starting from 0.0, so every score is the same f64 as the plain loop's and the ranking (score,
//! then name, then doc id) is identical; only the order in which candidates reach the top-k heap
//! differs, which the heap's total order makes irrelevant.

use crate::index::{Index, SearchOptions};

/// Documents per range: 32k × (8-byte accumulator + 8-byte norm) = 512 KiB, well inside L2.
const BLOCK_DOCS: usize = 1 << 15;
/// Below this many documents the whole accumulator fits in cache and the plain loop is as fast.
pub(crate) const MIN_DOCS: usize = 1 << 18;

thread_local! {
    /// Tests force one strategy or the other on their thread; `None` chooses by size.
    static FORCE: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

impl Index {
    /// Whether this search should use [`Index::accumulate_blocked`].
    pub(crate) fn use_blocked(&self) -> bool {
        FORCE.with(|f| f.get()).unwrap_or(self.len() >= MIN_DOCS)
    }

    /// [`Index::search_tokens`] with the blocked loop forced on or off (for tests and benches).
    pub fn search_tokens_with<S: AsRef<str>>(
        &self,
        tokens: &[S],
        limit: usize,
        options: &SearchOptions,
        blocked: bool,
    ) -> crate::error::Result<Vec<(u32, f64)>> {
        FORCE.with(|f| f.set(Some(blocked)));
        let out = self.search_tokens(tokens, limit, options);
        FORCE.with(|f| f.set(None));
        out
    }

    /// Adds every query term's contributions into `acc`, range by range; records newly touched
    /// documents in `touched`. `query` holds the distinct terms in first-seen order.
    pub(crate) fn accumulate_blocked(
        &self,
        query: &[(&str, f64)],
        options: &SearchOptions,
        acc: &mut [f64],
        touched: &mut Vec<u32>,
    ) {
        // Destructured on purpose: an option that changes scoring must be handled here too.
        let SearchOptions { exclude: _ } = options;
        // (cursor, end, qtf, idf) per known query term, in query order.
        let mut terms: Vec<(usize, usize, f64, f64)> = query
            .iter()
            .filter_map(|(tok, qtf)| {
                let t = *self.term_ids.get(*tok)? as usize;
                Some((
                    self.offsets[t] as usize,
                    self.offsets[t + 1] as usize,
                    *qtf,
                    self.idf[t],
                ))
            })
            .collect();
        let n = self.len();
        let mut block_end = 0usize;
        while block_end < n {
            block_end = (block_end + BLOCK_DOCS).min(n);
            for (cursor, end, qtf, idf) in terms.iter_mut() {
                let mut i = *cursor;
                while i < *end && (self.docs[i] as usize) < block_end {
                    let d = self.docs[i] as usize;
                    let before = acc[d];
                    acc[d] = before
                        + self
                            .params
                            .term_score(*qtf, *idf, self.tfs[i] as f64, self.norms[d]);
                    if before == 0.0 && acc[d] != 0.0 {
                        touched.push(d as u32);
                    }
                    i += 1;
                }
                *cursor = i;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::bm25::Params;
    use crate::index::{Index, SearchOptions};

    #[test]
    fn blocked_scoring_equals_plain_scoring() {
        let (names, docs) = crate::build::tests::corpus(super::BLOCK_DOCS * 3 + 123, 41);
        let idx =
            Index::build_parallel(names, &docs, vec![6.0, 2.0, 1.0], Params::default()).unwrap();
        let opts = SearchOptions {
            exclude: [1u32, 5, 99].into_iter().collect(),
        };
        for q in [
            "read file",
            "the a of data data",
            "send message user channel",
            "zzz",
        ] {
            let tokens: Vec<String> = q.split(' ').map(String::from).collect();
            for limit in [1, 8, 100] {
                let plain = idx.search_tokens_with(&tokens, limit, &opts, false);
                let blocked = idx.search_tokens_with(&tokens, limit, &opts, true);
                assert_eq!(plain, blocked, "{q} {limit}");
            }
        }
    }
}
