//! Strings in order, back to back in one buffer ([`PackedStrings`]): the index's term list, a build
//! chunk's terms and a query's analysed terms; [`CompactStrings`], the same with 32-bit ends
//! (the name columns and the name table's keys). One allocation per list instead of one per
//! string: a `Vec<Box<str>>` cost a 16-byte box and an allocation per term (2.2M terms at 1M
//! english tools; 30-60 per agent query).

/// The terms in id order, back to back in one buffer (term `id` is `text[ends[id-1]..ends[id]]`):
/// no allocation per term.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct PackedStrings {
    text: String,
    ends: Ends,
}

/// Where each string ends in the text: 32-bit while the text fits (half the memory of `usize`
/// ends: 1.1 MiB at 100,000 tools' terms and names), `usize` past [`NARROW_MAX`].
#[derive(Clone, PartialEq, Eq, Hash)]
enum Ends {
    Narrow(Vec<u32>),
    Wide(Vec<usize>),
}

impl Default for Ends {
    fn default() -> Self {
        Ends::Narrow(Vec::new())
    }
}

/// The longest text whose ends are 32-bit (lower under test, so the unit tests go through the
/// switch to `usize` ends and use both layouts).
#[cfg(not(test))]
const NARROW_MAX: usize = u32::MAX as usize;
#[cfg(test)]
const NARROW_MAX: usize = 64;

impl Ends {
    fn len(&self) -> usize {
        match self {
            Ends::Narrow(ends) => ends.len(),
            Ends::Wide(ends) => ends.len(),
        }
    }

    #[inline]
    fn get(&self, i: usize) -> Option<usize> {
        match self {
            Ends::Narrow(ends) => ends.get(i).map(|&end| end as usize),
            Ends::Wide(ends) => ends.get(i).copied(),
        }
    }

    /// Appends `end`, switching to `usize` ends past [`NARROW_MAX`].
    fn push(&mut self, end: usize) {
        match self {
            Ends::Narrow(ends) if end <= NARROW_MAX => ends.push(end as u32),
            Ends::Narrow(ends) => {
                let mut wide: Vec<usize> = Vec::with_capacity(ends.capacity().max(ends.len() + 1));
                wide.extend(ends.iter().map(|&e| e as usize));
                wide.push(end);
                *self = Ends::Wide(wide);
            }
            Ends::Wide(ends) => ends.push(end),
        }
    }

    fn memory_bytes(&self) -> usize {
        match self {
            Ends::Narrow(ends) => ends.capacity() * std::mem::size_of::<u32>(),
            Ends::Wide(ends) => ends.capacity() * std::mem::size_of::<usize>(),
        }
    }

    fn shrink_to_fit(&mut self) {
        match self {
            Ends::Narrow(ends) => ends.shrink_to_fit(),
            Ends::Wide(ends) => ends.shrink_to_fit(),
        }
    }
}

impl PackedStrings {
    /// An empty list with room for `bytes` of text and `terms` terms.
    pub(crate) fn with_capacity(bytes: usize, terms: usize) -> Self {
        PackedStrings {
            text: String::with_capacity(bytes),
            // (32-bit until the text passes `NARROW_MAX`: the layout follows the content alone,
            // so equal lists compare and hash equal)
            ends: Ends::Narrow(Vec::with_capacity(terms)),
        }
    }

    /// The number of terms.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.ends.len() == 0
    }

    /// Term `id`, if there is one.
    #[inline]
    pub(crate) fn get(&self, id: usize) -> Option<&str> {
        let start = match id.checked_sub(1) {
            Some(before) => self.ends.get(before)?,
            None => 0,
        };
        self.text.get(start..self.ends.get(id)?)
    }

    /// The bytes of text held.
    pub(crate) fn text_len(&self) -> usize {
        self.text.len()
    }

    /// Appends a term (its id is the previous [`PackedStrings::len`]).
    pub(crate) fn push(&mut self, term: &str) {
        self.text.push_str(term);
        self.ends.push(self.text.len());
    }

    /// The terms in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|id| &self[id])
    }

    /// Heap bytes.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.text.capacity() + self.ends.memory_bytes()
    }

    /// Frees the spare capacity of a finished list.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

/// A [`CompactStrings`] would hold more than 4 GiB of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge;

/// Strings back to back in one buffer with 32-bit ends (at most 4 GiB of text): the name
/// columns and the name table's keys, where the ends are a good part of the memory.
#[derive(Debug, Clone, Default)]
pub struct CompactStrings {
    text: String,
    ends: Vec<u32>,
}

impl CompactStrings {
    /// The number of strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is no string.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// String `i`, if there is one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&str> {
        let start = match i.checked_sub(1) {
            Some(before) => *self.ends.get(before)? as usize,
            None => 0,
        };
        self.text.get(start..*self.ends.get(i)? as usize)
    }

    /// Appends a string.
    pub fn push(&mut self, s: &str) -> Result<(), TooLarge> {
        let end = u32::try_from(self.text.len() + s.len()).map_err(|_| TooLarge)?;
        self.text.push_str(s);
        self.ends.push(end);
        Ok(())
    }

    /// Room for `n` more strings.
    pub fn reserve(&mut self, n: usize) {
        self.ends.reserve_exact(n);
    }

    /// Heap bytes.
    pub fn memory_bytes(&self) -> usize {
        self.text.capacity() + 4 * self.ends.capacity()
    }

    /// Frees the spare capacity of a finished list.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

impl std::ops::Index<usize> for PackedStrings {
    type Output = str;

    /// Term `id` (panics past the end, as a slice does).
    #[inline]
    fn index(&self, id: usize) -> &str {
        self.get(id).expect("a term id below the term count")
    }
}

impl<'a> FromIterator<&'a str> for PackedStrings {
    fn from_iter<I: IntoIterator<Item = &'a str>>(terms: I) -> Self {
        let mut list = PackedStrings::default();
        for term in terms {
            list.push(term);
        }
        list
    }
}

impl std::fmt::Debug for PackedStrings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_strings_keep_every_term_across_the_switch_to_wide_ends() {
        // Table: lists below, at and past `NARROW_MAX` bytes of text (the switch to `usize`
        // ends), with empty and multi-byte terms.
        let cases: Vec<Vec<String>> = vec![
            Vec::new(),
            vec![String::new()],
            vec!["a".into(), String::new(), "é🎉".into()],
            (0..8).map(|i| format!("term{i:04}")).collect(), // exactly 64 bytes
            (0..9).map(|i| format!("term{i:04}")).collect(), // 72 bytes: wide
            (0..40).map(|i| format!("日本{i}")).collect(),
        ];
        for terms in cases {
            let list: PackedStrings = terms.iter().map(String::as_str).collect();
            let text_len: usize = terms.iter().map(String::len).sum();
            assert_eq!(list.len(), terms.len());
            assert_eq!(list.is_empty(), terms.is_empty());
            assert_eq!(matches!(list.ends, Ends::Wide(_)), text_len > NARROW_MAX);
            assert!(list.iter().eq(terms.iter().map(String::as_str)));
            assert_eq!(list.get(terms.len()), None);
            let mut sized = PackedStrings::with_capacity(text_len, terms.len());
            for term in &terms {
                sized.push(term);
            }
            sized.shrink_to_fit();
            assert!(sized.iter().eq(list.iter()));
            let narrow = terms.len() * 4 + text_len;
            assert!(sized.memory_bytes() == narrow || text_len > NARROW_MAX);
        }
    }
}
