//! A large index's update writes its scored postings as the index holds them: shared lists
//! stay shared without being written, and the term frequencies keep their codes.
//!
//! A rebuild writes every list in full as `f32`s, then drops the twin lists that can share
//! (`build::share`) and codes the values (`Tfs::new`), three passes over every posting. Here
//! each kept list is copied once, its documents below the first removed one and its codes as
//! they are (the remap is monotone and the identity below that document), and a stemmed copy
//! keeps sharing its word's list when neither list changed: equal lists stay equal under a
//! monotone remap. A list that changed is compared with its word's as `share_twins` does, on
//! the values it would store. The codes index the old table plus the few values the update
//! brings; the used ones become the new table, in value order, as `Tfs::new` makes it.
//!
//! Applies when the old and the new index both share their lists (from
//! `share::SHARE_MIN_DOCS` documents) and the old column is coded; `None` otherwise (the
//! caller writes every list in full).

use hashbrown::HashMap;
use rayon::prelude::*;

use crate::analysis::STEM_MARK;
use crate::build::share::shares;
use crate::build::Scored;
use crate::index::{Index, TermIds, Tfs, MAX_CODES, OWN_POSTINGS, SHARED_TF_SCALE};
use crate::text::PackedStrings;

/// What an update knows of its new postings, by new term id.
pub(super) struct Plan<'a> {
    /// Per old document: kept or removed; `remap`: its new id.
    pub(super) keep: &'a [bool],
    pub(super) remap: &'a [u32],
    /// The smallest removed document (the old count when none): ids below it are unchanged.
    pub(super) first_removed: u32,
    /// Per new term: its old id, or `u32::MAX` for an added term; `new_of`: the reverse
    /// (`u32::MAX` for a dropped term).
    pub(super) old_of: &'a [u32],
    pub(super) new_of: &'a [u32],
    /// Per old term: its postings kept.
    pub(super) kept_df: &'a [u32],
    /// Per new term: its postings in full (CSR offsets: `full[f + 1] - full[f]`).
    pub(super) full: &'a [u32],
    /// The added documents' postings, CSR per new term: new doc ids, and their values.
    pub(super) added_offsets: &'a [u32],
    pub(super) added_docs: &'a [u32],
    pub(super) added_tfs: &'a [f32],
    pub(super) terms: &'a PackedStrings,
    pub(super) term_ids: &'a TermIds,
    /// The new index's document count.
    pub(super) n_docs: usize,
}

/// A raw pointer to columns that workers write in disjoint ranges.
struct Out(*mut u32, *mut u8);
// SAFETY: each term's worker writes its own range only (checked against the offsets).
unsafe impl Send for Out {}
unsafe impl Sync for Out {}

impl Plan<'_> {
    fn added(&self, f: usize) -> std::ops::Range<usize> {
        self.added_offsets[f] as usize..self.added_offsets[f + 1] as usize
    }

    /// Whether term `f`'s list differs from its old one beyond the remap (a removed posting,
    /// an added one, or a new term).
    pub(super) fn changed(&self, index: &Index, f: usize) -> bool {
        let t = self.old_of[f];
        !self.added(f).is_empty()
            || t == u32::MAX
            || self.kept_df[t as usize] as usize != index.doc_list(t).len()
    }

    /// Term `f`'s new list, `(doc, value)` as a full list would store it.
    fn list<'b>(&'b self, index: &'b Index, f: usize) -> impl Iterator<Item = (u32, f32)> + 'b {
        let t = self.old_of[f];
        let (docs, tfs, scale) = if t == u32::MAX {
            (&[][..], index.tfs.slice(0, 0), 1.0)
        } else {
            index.postings(t)
        };
        let kept = docs
            .iter()
            .enumerate()
            .filter(|(_, &d)| self.keep[d as usize])
            .map(move |(i, &d)| (self.remap[d as usize], (tfs.get(i) * scale) as f32));
        let added = self.added(f);
        kept.chain(
            self.added_docs[added.clone()]
                .iter()
                .copied()
                .zip(self.added_tfs[added].iter().copied()),
        )
    }

    /// The term whose list new term `f` reads (`OWN_POSTINGS`: its own), as `share_twins`
    /// decides it.
    fn source(&self, index: &Index, f: usize) -> u32 {
        let Some(word) = self.terms[f].strip_prefix(STEM_MARK) else {
            return OWN_POSTINGS;
        };
        let Some(w) = self.term_ids.get(self.terms, word) else {
            return OWN_POSTINGS;
        };
        if !self.changed(index, f) && !self.changed(index, w as usize) {
            // Both lists as before, remapped: shared as before.
            let (t, tw) = (self.old_of[f], self.old_of[w as usize]);
            return match index.shared.get(t as usize) {
                Some(&s) if s == tw => w,
                _ => OWN_POSTINGS,
            };
        }
        let len = |f: usize| self.full[f + 1] - self.full[f];
        let scale = SHARED_TF_SCALE as f32;
        if len(f) == 0 || len(f) != len(w as usize) {
            return OWN_POSTINGS;
        }
        let (t, tw) = (self.old_of[f], self.old_of[w as usize]);
        let same = if t != u32::MAX && tw != u32::MAX && index.shared.get(t as usize) == Some(&tw) {
            // A twin before: their kept postings are still equal (the same list, filtered and
            // remapped alike, at exactly half the value), and so are their counts; only the
            // added postings can differ.
            let (mine, theirs) = (self.added(f), self.added(w as usize));
            self.added_docs[mine.clone()] == self.added_docs[theirs.clone()]
                && self.added_tfs[mine]
                    .iter()
                    .zip(&self.added_tfs[theirs])
                    .all(|(&tc, &tw)| tc == tw * scale)
        } else {
            self.list(index, f)
                .zip(self.list(index, w as usize))
                .all(|((d, tc), (dw, tw))| d == dw && tc == tw * scale)
        };
        if same {
            w
        } else {
            OWN_POSTINGS
        }
    }
}

/// The table of codes being built: the old table's values, then the update's new ones (as
/// `f32` bits); `None` past [`MAX_CODES`].
struct CodeSpace {
    bits: Vec<u32>,
    code: HashMap<u32, u8, ahash::RandomState>,
}

impl CodeSpace {
    fn code(&mut self, value: f32) -> Option<u8> {
        let bits = value.to_bits();
        if let Some(&c) = self.code.get(&bits) {
            return Some(c);
        }
        if self.bits.len() == MAX_CODES {
            return None;
        }
        let c = self.bits.len() as u8;
        self.bits.push(bits);
        self.code.insert(bits, c);
        Some(c)
    }
}

/// The new index's scored postings (see the module docs), or `None` where this does not apply.
pub(super) fn scored(index: &Index, plan: &Plan<'_>) -> Option<Scored> {
    let Tfs::Coded {
        codes: old_codes,
        table,
        distinct,
    } = &index.tfs
    else {
        return None;
    };
    if !shares(index.len()) || !shares(plan.n_docs) {
        return None;
    }
    let n_terms = plan.terms.len();
    // Each copy's source: as before where neither its list nor its word's changed (equal lists
    // stay equal under the remap), decided again for the copies of a changed term.
    let mut shared: Vec<u32> = (0..n_terms)
        .into_par_iter()
        .with_min_len(4096)
        .map(|f| match index.shared.get(plan.old_of[f] as usize) {
            Some(&s) if s != OWN_POSTINGS => plan.new_of[s as usize],
            _ => OWN_POSTINGS,
        })
        .collect();
    let mut again: Vec<u32> = (0..n_terms)
        .into_par_iter()
        .with_min_len(4096)
        .filter(|&f| plan.changed(index, f))
        .filter_map(|f| {
            let term = &plan.terms[f];
            if term.starts_with(STEM_MARK) {
                return Some(f as u32);
            }
            plan.term_ids.get(plan.terms, &format!("{STEM_MARK}{term}"))
        })
        .collect();
    again.sort_unstable();
    again.dedup();
    for f in again {
        shared[f as usize] = plan.source(index, f as usize);
    }
    // Codes: the old table's, then the values new to it.
    let mut space = CodeSpace {
        bits: Vec::with_capacity(MAX_CODES),
        code: HashMap::default(),
    };
    for &v in &table[..*distinct] {
        space.code(v as f32)?;
    }
    let added_codes: Vec<u8> = plan
        .added_tfs
        .iter()
        .map(|&v| space.code(v))
        .collect::<Option<_>>()?;
    // Old codes at the shared scale, for a copy that stops sharing (its values are stored now).
    let reads_shared = |f: usize| {
        let t = plan.old_of[f];
        shared[f] == OWN_POSTINGS
            && t != u32::MAX
            && index
                .shared
                .get(t as usize)
                .is_some_and(|&s| s != OWN_POSTINGS)
    };
    let mut halved = [0u8; MAX_CODES];
    if (0..n_terms).any(reads_shared) {
        for (k, &v) in table[..*distinct].iter().enumerate() {
            halved[k] = space.code((v * SHARED_TF_SCALE) as f32)?;
        }
    }
    // Own lists only.
    let mut offsets = Vec::with_capacity(n_terms + 1);
    offsets.push(0u32);
    let mut end = 0u32;
    for (f, &source) in shared.iter().enumerate() {
        if source == OWN_POSTINGS {
            end += plan.full[f + 1] - plan.full[f];
        }
        offsets.push(end);
    }
    let total = end as usize;
    let mut docs = vec![0u32; total];
    let mut codes = vec![0u8; total];
    let out = Out(docs.as_mut_ptr(), codes.as_mut_ptr());
    (0..n_terms)
        .into_par_iter()
        .with_min_len(1024)
        .filter(|&f| shared[f] == OWN_POSTINGS)
        .for_each(|f| {
            let (start, limit) = (offsets[f] as usize, offsets[f + 1] as usize);
            let out = &out;
            let t = plan.old_of[f];
            let kept = (t != u32::MAX && plan.kept_df[t as usize] > 0).then(|| {
                let (s, e, scale) = index.list(t);
                let below = index.docs[s..e].partition_point(|&d| d < plan.first_removed);
                (s, e, scale, below)
            });
            // A list's postings below the first removed document, as they are.
            let mut at = start;
            if let Some((s, _, scale, below)) = kept.filter(|k| k.2 == 1.0) {
                debug_assert_eq!(scale, 1.0);
                assert!(start + below <= limit, "an updated list exceeds its count");
                // SAFETY: `start..start + below` is within this term's range (checked above).
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        index.docs[s..].as_ptr(),
                        out.0.add(start),
                        below,
                    );
                    std::ptr::copy_nonoverlapping(old_codes[s..].as_ptr(), out.1.add(start), below);
                }
                at += below;
            }
            let mut write = |d: u32, c: u8| {
                // A term writes exactly its own range: never another term's slots.
                assert!(at < limit, "an updated list exceeds its count");
                // SAFETY: `at` is within this term's range of the columns (checked above).
                unsafe {
                    *out.0.add(at) = d;
                    *out.1.add(at) = c;
                }
                at += 1;
            };
            if let Some((s, e, scale, below)) = kept {
                let (list, list_codes) = (&index.docs[s..e], &old_codes[s..e]);
                if scale != 1.0 {
                    // A copy that stops sharing: its word's codes at its scale.
                    for i in 0..below {
                        write(list[i], halved[list_codes[i] as usize]);
                    }
                }
                let map = |c: u8| if scale == 1.0 { c } else { halved[c as usize] };
                for i in below..list.len() {
                    let d = list[i] as usize;
                    if plan.keep[d] {
                        write(plan.remap[d], map(list_codes[i]));
                    }
                }
            }
            for j in plan.added(f) {
                write(plan.added_docs[j], added_codes[j]);
            }
            assert_eq!(at, limit, "an updated list falls short of its count");
        });
    Some(Scored {
        offsets,
        docs,
        tfs: recode(codes, &space.bits),
        shared: if shared.iter().all(|&s| s == OWN_POSTINGS) {
            Vec::new()
        } else {
            shared
        },
    })
}

/// The coded column of `codes` into `bits` (`f32` bits): its table is the values in use, in
/// value order, as `Tfs::new` makes it.
fn recode(mut codes: Vec<u8>, bits: &[u32]) -> Tfs {
    let used = codes
        .par_chunks(1 << 16)
        .map(|chunk| {
            let mut seen = [false; MAX_CODES];
            for &c in chunk {
                seen[c as usize] = true;
            }
            seen
        })
        .reduce(
            || [false; MAX_CODES],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x |= y);
                a
            },
        );
    // (positive values: bit order is value order)
    let mut in_use: Vec<(u32, u8)> = (0..bits.len())
        .filter(|&c| used[c])
        .map(|c| (bits[c], c as u8))
        .collect();
    in_use.sort_unstable();
    let mut table = Box::new([0.0f64; MAX_CODES]);
    let mut to_table = [0u8; MAX_CODES];
    for (rank, &(b, c)) in in_use.iter().enumerate() {
        table[rank] = f32::from_bits(b) as f64;
        to_table[c as usize] = rank as u8;
    }
    if in_use
        .iter()
        .enumerate()
        .any(|(rank, &(_, c))| c as usize != rank)
    {
        codes
            .par_chunks_mut(1 << 16)
            .for_each(|chunk| chunk.iter_mut().for_each(|c| *c = to_table[*c as usize]));
    }
    Tfs::Coded {
        codes,
        table,
        distinct: in_use.len(),
    }
}
