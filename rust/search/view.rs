//! A session view's search (`toolsift.Catalog(...).session()`): one scoring pass gives both
//! lists a view needs, the top `limit` with its visible tools left out (the fresh matches it
//! activates) and the top `limit` of the same ranking with nothing left out (its visible tools
//! there are reported as already active).
//!
//! The pass is [`Index::search`] with the visible documents in `options.exclude`; every
//! document that the exclusion alone keeps out of the top k, offered with a score that reached
//! the top k's floor at that moment, is recorded beside it ([`Seen`]). The unfiltered top `limit`
//! is then the top `limit` of the fresh list and the recorded documents together: a fresh
//! document of it is in the fresh list (removing documents only promotes the others), and a
//! visible one scores at least the fresh list's k-th score, the final floor, which the floor
//! never exceeded while the pass ran, so every scoring path (exhaustive, cache-blocked, pruned,
//! split) offered it with its exact score (pruning drops only documents whose upper bound is
//! strictly below θ). The same order (score, then name, then id) as `top_k` decides ties.
//!
//! A deliberate twin of two searches through the general path (one with `exclude`, one
//! without): `tests/test_view_search.py` proves with Hypothesis that a view's search answers as
//! that path does (arbitrary Unicode tools and queries, both lists, scores to 1e-9), and the
//! tests below that both lists equal the two searches' on random corpora, bit for bit.

use std::sync::{Mutex, PoisonError};

use super::options::Required;
use super::SearchOptions;
use crate::error::Result;
use crate::index::Index;

/// The documents `options.exclude` alone kept out of a search's top k, with their scores.
pub(crate) type Seen = Mutex<Vec<(u32, f64)>>;

/// Ranked hits: `(document, score)`, best first.
pub type Hits = Vec<(u32, f64)>;

impl Index {
    /// [`Index::passes`], recording `doc` in `seen` when the exclusion alone fails it.
    #[inline]
    pub(super) fn passes_seeing(
        &self,
        doc: u32,
        score: f64,
        options: &SearchOptions,
        required: &[Required<'_>],
        seen: Option<&Seen>,
    ) -> bool {
        let Some(seen) = seen else {
            return self.passes(doc, options, required);
        };
        if !self.admits(doc, options, required) {
            return false;
        }
        if !options.exclude.contains(&doc) {
            return true;
        }
        seen.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((doc, score));
        false
    }

    /// `(fresh, ranked)`: `search(query, limit, options)`, and the same search with
    /// `options.exclude` empty, in one scoring pass (see the module docs).
    pub fn search_view(
        &self,
        query: &str,
        limit: usize,
        options: &SearchOptions,
    ) -> Result<(Hits, Hits)> {
        let seen = Seen::default();
        let fresh = self.search_seeing(query, limit, options, Some(&seen))?;
        let mut seen = seen.into_inner().unwrap_or_else(PoisonError::into_inner);
        if seen.is_empty() {
            return Ok((fresh.clone(), fresh));
        }
        seen.sort_unstable_by_key(|&(doc, _)| doc);
        seen.dedup_by_key(|&mut (doc, _)| doc);
        let mut ranked: Vec<(u32, f64)> = fresh.iter().copied().chain(seen).collect();
        let names = &self.names;
        ranked.sort_unstable_by(|&(a, sa), &(b, sb)| {
            sb.total_cmp(&sa)
                .then_with(|| names[a as usize].cmp(&names[b as usize]))
                .then_with(|| a.cmp(&b))
        });
        ranked.truncate(limit);
        if options.relative_floor > 0.0 {
            // Relative to this list's own best score, as the search without exclusion applies it.
            if let Some(&(_, best)) = ranked.first() {
                let floor = options.relative_floor * best;
                ranked.retain(|&(_, score)| score >= floor);
            }
        }
        Ok((fresh, ranked))
    }
}

#[cfg(test)]
mod tests {
    use super::super::prune::tests::{corpus, options, query, Rng};
    use super::super::prune::ScoringMode;
    use super::*;

    fn bits(hits: &[(u32, f64)]) -> Vec<(u32, u64)> {
        hits.iter().map(|&(d, s)| (d, s.to_bits())).collect()
    }

    /// Both lists of `search_view` equal the two searches (with and without the exclusion),
    /// bit for bit, on random corpora (small ones exhaustive, large ones cache-blocked, pruned
    /// or split in parallel ranges), with random options and visible sets, in every mode.
    #[test]
    fn both_lists_equal_the_two_searches() {
        let mut rng = Rng(0x5eed_1234_abcd_0001);
        let mut differ = 0;
        for round in 0..40 {
            let n = [5, 40, 300, 3_000, 30_000][round % 5];
            let vocab = 3 + rng.next(21);
            let idx = corpus(&mut rng, n, vocab);
            for _ in 0..6 {
                let text = query(&mut rng, vocab).join(" ");
                let limit = 1 + rng.next(12);
                let mut with = options(&mut rng, n);
                let visible = rng.next(n.min(300) + 1);
                with.exclude = (0..visible).map(|_| rng.next(n) as u32).collect();
                let without = SearchOptions {
                    exclude: Default::default(),
                    ..with.clone()
                };
                let modes = [
                    ScoringMode::Auto,
                    ScoringMode::Exhaustive,
                    ScoringMode::Pruned,
                ];
                for (mode, parts) in modes.into_iter().zip([0, 1, 3]) {
                    let run = || {
                        (
                            idx.search_view(&text, limit, &with),
                            idx.search(&text, limit, &with),
                            idx.search(&text, limit, &without),
                        )
                    };
                    let got =
                        Index::with_scoring_mode(mode, || Index::with_search_parts(parts, run));
                    match got {
                        (Ok((fresh, ranked)), Ok(want_fresh), Ok(want_ranked)) => {
                            assert_eq!(bits(&fresh), bits(&want_fresh), "{n} {text:?} {mode:?}");
                            assert_eq!(bits(&ranked), bits(&want_ranked), "{n} {text:?} {mode:?}");
                            differ += usize::from(ranked != fresh);
                        }
                        (Err(_), Err(_), Err(_)) => {}
                        other => panic!("{n} {text:?}: {other:?}"),
                    }
                }
            }
        }
        assert!(
            differ > 100,
            "the visible documents rarely ranked: {differ}"
        );
    }
}
