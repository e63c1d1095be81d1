//! The per-file token book `stats` keeps: each copy of an API message admitted
//! under the key (model, message.id), copies merged by per-field MAX, id-less
//! copies each their own message, and the notes a file discloses. Nothing here
//! knows about files or printing.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::value::RawValue;

use super::copy::{copy_values, Row, Vals};
use super::UNKNOWN_MODEL;

/// One deduplicated message in a file's book.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) model: String,
    pub(crate) vals: Vals,
    pub(crate) records: u64,
    /// Whether any two copies disagreed.
    pub(crate) differs: bool,
}

impl Entry {
    pub(crate) fn merge(&mut self, o: &Entry) {
        self.differs |= o.differs || self.vals != o.vals;
        self.vals = self.vals.max(o.vals);
        self.records += o.records;
    }
}

/// Token notes a file (or total) discloses.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(crate) struct Notes {
    pub(crate) ids_with_differing_copies: u64,
    pub(crate) zeroed_copies_recovered: u64,
    pub(crate) idless_usage_records: u64,
    pub(crate) assistant_without_usage: u64,
    pub(crate) progress_embedded_ids: u64,
}

impl Notes {
    pub(crate) fn add(&mut self, o: &Notes) {
        self.ids_with_differing_copies += o.ids_with_differing_copies;
        self.zeroed_copies_recovered += o.zeroed_copies_recovered;
        self.idless_usage_records += o.idless_usage_records;
        self.assistant_without_usage += o.assistant_without_usage;
        self.progress_embedded_ids += o.progress_embedded_ids;
    }
}

/// A keyed message of a finished book read back from stats' census cache:
/// the hashes the total's dedupe keys it by, computed when it was cached.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hashed {
    /// [`key_hash`](super::key_hash) of `model \0 id`.
    pub(crate) key: u64,
    /// [`key_hash`](super::key_hash) of the bare id.
    pub(crate) id: Option<u64>,
    /// Index into [`HashedBook::models`].
    pub(crate) model: u32,
    pub(crate) vals: Vals,
    pub(crate) records: u64,
    pub(crate) differs: bool,
}

/// The keyed messages and progress ids of a finished book as a hit reads
/// them: no key string built (a decoded `HashMap<String, _>` per file was the
/// largest cost of an unchanged home's run).
#[derive(Debug, Default, Clone)]
pub(crate) struct HashedBook {
    pub(crate) models: Vec<String>,
    pub(crate) keyed: Vec<Hashed>,
    /// [`key_hash`](super::key_hash) of each progress-embedded id.
    pub(crate) progress: Vec<u64>,
}

/// The per-file book: keyed copies merged by MAX, id-less copies summed apart.
#[derive(Debug, Default, Clone)]
pub(crate) struct Book {
    /// `model \0 id` → entry.
    pub(crate) keyed: crate::scan::hash::FxMap<String, Entry>,
    /// Keyed messages and progress ids read back hashed (a finished book from
    /// the cache; beside, never merged with, `keyed`).
    pub(crate) hashed: HashedBook,
    /// Id-less copies: each its own message (per model).
    pub(crate) idless: BTreeMap<String, Row>,
    pub(crate) notes: Notes,
    /// Ids of usage-bearing messages embedded in progress records (not counted).
    pub(crate) progress_ids: Vec<String>,
    /// Scratch for building a `keyed` key.
    key: String,
}

impl Book {
    /// Admit one assistant record's usage copy.
    pub(crate) fn admit(
        &mut self,
        model: Option<&str>,
        id: Option<&str>,
        usage: Option<&RawValue>,
    ) {
        let Some((vals, recovered)) = usage.and_then(copy_values) else {
            self.notes.assistant_without_usage += 1;
            return;
        };
        self.notes.zeroed_copies_recovered += u64::from(recovered);
        let model = model.unwrap_or(UNKNOWN_MODEL);
        let Some(id) = id.filter(|i| !i.is_empty()) else {
            self.notes.idless_usage_records += 1;
            let row = self.idless.entry(model.to_string()).or_default();
            row.add(&Row {
                messages: 1,
                records: 1,
                vals,
            });
            return;
        };
        let e = Entry {
            model: String::new(),
            vals,
            records: 1,
            differs: false,
        };
        // The key is built in a reused buffer; only a new message allocates.
        let mut key = std::mem::take(&mut self.key);
        key.clear();
        key.extend([model, "\0", id]);
        match self.keyed.get_mut(key.as_str()) {
            Some(prev) => prev.merge(&e),
            None => {
                let e = Entry {
                    model: model.to_string(),
                    ..e
                };
                self.keyed.insert(key.clone(), e);
            }
        }
        self.key = key;
    }

    /// Fold a later chunk's book into this one.
    pub(crate) fn merge(&mut self, o: Book) {
        for (k, e) in o.keyed {
            match self.keyed.get_mut(&k) {
                Some(prev) => prev.merge(&e),
                None => {
                    self.keyed.insert(k, e);
                }
            }
        }
        for (m, r) in o.idless {
            self.idless.entry(m).or_default().add(&r);
        }
        self.notes.add(&o.notes);
        self.progress_ids.extend(o.progress_ids);
    }

    /// Per-model rows of this file (deduplicated within it).
    pub(crate) fn rows(&self) -> BTreeMap<String, Row> {
        let mut rows = self.idless.clone();
        for e in self.keyed.values() {
            rows.entry(e.model.clone()).or_default().add(&Row {
                messages: 1,
                records: e.records,
                vals: e.vals,
            });
        }
        let h = &self.hashed;
        for e in &h.keyed {
            let model = h.models.get(e.model as usize).cloned().unwrap_or_default();
            rows.entry(model).or_default().add(&Row {
                messages: 1,
                records: e.records,
                vals: e.vals,
            });
        }
        rows
    }

    /// This book's messages of `model` (all of them for `None`), for
    /// stats' `--by model`.
    pub(crate) fn only(&self, model: Option<&str>) -> Book {
        let keep = |m: &str| model.is_none_or(|x| x == m);
        Book {
            keyed: self
                .keyed
                .iter()
                .filter(|(_, e)| keep(&e.model))
                .map(|(k, e)| (k.clone(), e.clone()))
                .collect(),
            idless: self
                .idless
                .iter()
                .filter(|(m, _)| keep(m))
                .map(|(m, r)| (m.clone(), *r))
                .collect(),
            hashed: HashedBook {
                models: self.hashed.models.clone(),
                keyed: (self.hashed.keyed.iter())
                    .filter(|e| keep(self.hashed.model(e)))
                    .copied()
                    .collect(),
                progress: self.hashed.progress.clone(),
            },
            notes: self.notes,
            progress_ids: self.progress_ids.clone(),
            key: String::new(),
        }
    }

    /// The models of this book's keyed messages.
    pub(crate) fn keyed_models(&self) -> impl Iterator<Item = &str> {
        let h = &self.hashed;
        (self.keyed.values().map(|e| e.model.as_str())).chain(h.keyed.iter().map(|e| h.model(e)))
    }

    pub(crate) fn differing(&self) -> u64 {
        let hashed = self.hashed.keyed.iter().filter(|e| e.differs).count();
        (self.keyed.values().filter(|e| e.differs).count() + hashed) as u64
    }
}

impl HashedBook {
    /// A message's model name.
    pub(crate) fn model(&self, e: &Hashed) -> &str {
        self.models.get(e.model as usize).map_or("", String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_string()).unwrap()
    }

    #[test]
    fn copies_merge_by_max_in_any_order_rec_034() {
        let partial = raw(r#"{"input_tokens":3,"output_tokens":1,"cache_read_input_tokens":100}"#);
        let full = raw(r#"{"input_tokens":3,"output_tokens":1404,"cache_read_input_tokens":100}"#);
        let zeroed = raw(r#"{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0}"#);
        for order in [[&partial, &full, &zeroed], [&zeroed, &full, &partial]] {
            let mut b = Book::default();
            for u in order {
                b.admit(Some("m"), Some("msg_1"), Some(u));
            }
            let rows = b.rows();
            assert_eq!(rows["m"].messages, 1);
            assert_eq!(rows["m"].records, 3);
            assert_eq!(rows["m"].vals.output, 1404);
            assert_eq!(rows["m"].vals.cache_read, 100);
            assert_eq!(b.differing(), 1);
        }
    }

    #[test]
    fn idless_and_missing_usage() {
        let u = raw(r#"{"output_tokens":2}"#);
        let mut b = Book::default();
        b.admit(None, None, Some(&u));
        b.admit(None, Some(""), Some(&u));
        b.admit(Some("m"), Some("x"), None);
        assert_eq!(b.rows()[UNKNOWN_MODEL].messages, 2);
        assert_eq!(b.notes.idless_usage_records, 2);
        assert_eq!(b.notes.assistant_without_usage, 1);
    }
}
