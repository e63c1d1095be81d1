//! The ids a file's tool_results answer ([`super::Calls`]), kept in one
//! string with a table of their keys: a heap string per answered result
//! showed in a full audit's profile, and only a rare unanswered call is ever
//! looked up.

use std::collections::hash_map::Entry;
use std::collections::HashSet;

use super::super::dup::{id_key, IdMap};

/// A set of ids: each id once, in `text`, found by its key ([`id_key`])
/// and confirmed against its bytes.
#[derive(Debug, Default)]
pub(crate) struct Answered {
    text: String,
    /// An id's key -> its bytes `start..end` in `text`.
    keys: IdMap<u64, (usize, usize)>,
    /// Ids whose key another id had first (practically never).
    collided: HashSet<String>,
}

impl Answered {
    pub(crate) fn insert(&mut self, id: &str) {
        match self.keys.entry(id_key(id.as_bytes())) {
            Entry::Vacant(v) => {
                let start = self.text.len();
                self.text.push_str(id);
                v.insert((start, self.text.len()));
            }
            Entry::Occupied(o) => {
                let (start, end) = *o.get();
                if &self.text[start..end] != id {
                    self.collided.insert(id.to_string());
                }
            }
        }
    }

    pub(crate) fn contains(&self, id: &str) -> bool {
        match self.keys.get(&id_key(id.as_bytes())) {
            Some(&(start, end)) => &self.text[start..end] == id || self.collided.contains(id),
            None => false,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len() + self.collided.len()
    }

    /// Every id once, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        let own = self.keys.values().map(|&(s, e)| &self.text[s..e]);
        own.chain(self.collided.iter().map(String::as_str))
    }

    pub(crate) fn extend(&mut self, later: Answered) {
        for id in later.iter() {
            self.insert(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each id once, found by its bytes, a key collision kept apart.
    #[test]
    fn ids_are_kept_once_and_found_by_their_bytes() {
        let mut a = Answered::default();
        for id in ["toolu_1", "toolu_2", "toolu_1", ""] {
            a.insert(id);
        }
        assert_eq!(a.len(), 3);
        assert!(a.contains("toolu_1") && a.contains("toolu_2") && a.contains(""));
        assert!(!a.contains("toolu_3") && !a.contains("toolu_"));
        // A second id under the first one's key (forced: a real collision
        // of the 64-bit key is not at hand).
        let key = id_key(b"toolu_1");
        let mut b = Answered::default();
        b.insert("toolu_9");
        let at = *b.keys.values().next().unwrap();
        b.keys.clear();
        b.keys.insert(key, at);
        b.insert("toolu_1");
        assert!(b.collided.contains("toolu_1"));
        let mut all: Vec<&str> = b.iter().collect();
        all.sort_unstable();
        assert_eq!(all, ["toolu_1", "toolu_9"]);
        a.extend(b);
        assert_eq!(a.len(), 4);
        assert!(a.contains("toolu_9"));
    }
}
