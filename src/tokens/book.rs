//! The per-file token book `stats` keeps: each copy of an API message admitted
//! under the key (model, message.id), copies merged by per-field MAX, id-less
//! copies each their own message, and the notes a file discloses. Nothing here
//! knows about files or printing.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::value::RawValue;

use super::copy::{copy_values, Row, Vals};
use super::{key_hash, UNKNOWN_MODEL};
use crate::loss::fnv1a_from;
use crate::scan::hash::FxMap;

/// One deduplicated message in a file's book.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    /// Index into [`Book::models`].
    pub(crate) model: u32,
    /// [`key_hash`] of the bare message id: the total's progress disclosure
    /// asks which ids were seen top-level.
    pub(crate) id: u64,
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

/// The per-file book: keyed copies merged by MAX, id-less copies summed apart.
///
/// A keyed message is held by the hash the total's cross-file dedupe keys it
/// by ([`key_hash`] of `model \0 id`), its model as an index: admitting a
/// copy builds no string, and the census cache stores the book as it is held.
/// Two messages of one file would have to collide in 64 bits to merge, as
/// for the total's dedupe across files.
#[derive(Debug, Default, Clone)]
pub(crate) struct Book {
    /// The models [`Entry::model`] indexes, each once.
    pub(crate) models: Vec<String>,
    /// [`key_hash`] of `model \0 id` → entry.
    pub(crate) keyed: FxMap<u64, Entry>,
    /// Id-less copies: each its own message (per model).
    pub(crate) idless: BTreeMap<String, Row>,
    pub(crate) notes: Notes,
    /// [`key_hash`] of each id of a usage-bearing message embedded in a
    /// progress record (not counted).
    pub(crate) progress_ids: Vec<u64>,
}

/// [`key_hash`] of `model \0 id`, without building the key.
pub(crate) fn message_key(model: &str, id: &str) -> u64 {
    let h = fnv1a_from(crate::loss::fnv1a(model.as_bytes()), b"\0");
    fnv1a_from(h, id.as_bytes())
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
            let row = match self.idless.get_mut(model) {
                Some(row) => row,
                None => self.idless.entry(model.to_string()).or_default(),
            };
            row.add(&Row {
                messages: 1,
                records: 1,
                vals,
            });
            return;
        };
        let e = Entry {
            model: 0,
            id: 0,
            vals,
            records: 1,
            differs: false,
        };
        match self.keyed.entry(message_key(model, id)) {
            std::collections::hash_map::Entry::Occupied(mut o) => o.get_mut().merge(&e),
            std::collections::hash_map::Entry::Vacant(v) => {
                let model = model_index(&mut self.models, model);
                v.insert(Entry {
                    model,
                    id: key_hash(id),
                    ..e
                });
            }
        }
    }

    /// Fold a later chunk's book into this one.
    pub(crate) fn merge(&mut self, o: Book) {
        let map: Vec<u32> = (o.models.iter())
            .map(|m| model_index(&mut self.models, m))
            .collect();
        for (k, mut e) in o.keyed {
            match self.keyed.get_mut(&k) {
                Some(prev) => prev.merge(&e),
                None => {
                    e.model = map.get(e.model as usize).copied().unwrap_or(e.model);
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

    /// A keyed message's model name.
    pub(crate) fn model(&self, e: &Entry) -> &str {
        self.models.get(e.model as usize).map_or("", String::as_str)
    }

    /// Per-model rows of this file (deduplicated within it).
    pub(crate) fn rows(&self) -> BTreeMap<String, Row> {
        let mut rows = self.idless.clone();
        let mut by_model = vec![Row::default(); self.models.len()];
        for e in self.keyed.values() {
            if let Some(row) = by_model.get_mut(e.model as usize) {
                row.add(&Row {
                    messages: 1,
                    records: e.records,
                    vals: e.vals,
                });
            }
        }
        for (name, row) in self.models.iter().zip(by_model) {
            if row.messages > 0 {
                rows.entry(name.clone()).or_default().add(&row);
            }
        }
        rows
    }

    /// This book's messages of `model` (all of them for `None`), for
    /// stats' `--by model`.
    pub(crate) fn only(&self, model: Option<&str>) -> Book {
        let keep = |m: &str| model.is_none_or(|x| x == m);
        Book {
            models: self.models.clone(),
            keyed: (self.keyed.iter())
                .filter(|(_, e)| keep(self.model(e)))
                .map(|(k, e)| (*k, *e))
                .collect(),
            idless: (self.idless.iter())
                .filter(|(m, _)| keep(m))
                .map(|(m, r)| (m.clone(), *r))
                .collect(),
            notes: self.notes,
            progress_ids: self.progress_ids.clone(),
        }
    }

    /// The models of this book's keyed messages.
    pub(crate) fn keyed_models(&self) -> impl Iterator<Item = &str> {
        self.keyed.values().map(|e| self.model(e))
    }

    pub(crate) fn differing(&self) -> u64 {
        self.keyed.values().filter(|e| e.differs).count() as u64
    }
}

/// The index of `name` in `models`, added on first sight (a file names a
/// handful of models: a scan beats a map).
fn model_index(models: &mut Vec<String>, name: &str) -> u32 {
    match models.iter().position(|m| m == name) {
        Some(i) => i as u32,
        None => {
            models.push(name.to_string());
            models.len() as u32 - 1
        }
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

    /// The book keys a message as the total's dedupe and the census cache
    /// do: `key_hash` of `model \0 id`, its id by `key_hash` of the id.
    #[test]
    fn a_message_is_keyed_by_the_hash_of_model_nul_id() {
        for (m, id) in [
            ("m", "msg_1"),
            ("", "x"),
            ("claude-opus-4-1", "msg_01Abc\u{e9}"),
        ] {
            assert_eq!(message_key(m, id), key_hash(&format!("{m}\0{id}")));
        }
        let u = raw(r#"{"output_tokens":2}"#);
        let mut b = Book::default();
        b.admit(Some("m"), Some("msg_1"), Some(&u));
        let (k, e) = b.keyed.iter().next().unwrap();
        assert_eq!(*k, key_hash("m\0msg_1"));
        assert_eq!(e.id, key_hash("msg_1"));
        assert_ne!(message_key("m", "ab"), message_key("ma", "b"));
    }

    /// Books of two chunks that name their models in different orders merge
    /// each message under its own model.
    #[test]
    fn merged_books_keep_each_message_under_its_model() {
        let u = |n: u64| raw(&format!(r#"{{"output_tokens":{n}}}"#));
        let mut a = Book::default();
        a.admit(Some("a"), Some("1"), Some(&u(1)));
        a.admit(Some("b"), Some("2"), Some(&u(2)));
        let mut b = Book::default();
        b.admit(Some("c"), Some("3"), Some(&u(4)));
        b.admit(Some("b"), Some("4"), Some(&u(8)));
        b.admit(Some("a"), Some("1"), Some(&u(16)));
        a.merge(b);
        let rows = a.rows();
        let out = |m: &str| (rows[m].messages, rows[m].records, rows[m].vals.output);
        assert_eq!(out("a"), (1, 2, 16));
        assert_eq!(out("b"), (2, 2, 10));
        assert_eq!(out("c"), (1, 1, 4));
        assert_eq!(a.differing(), 1);
        assert_eq!(a.only(Some("b")).rows().len(), 1);
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
