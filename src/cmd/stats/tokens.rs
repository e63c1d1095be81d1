//! Token accounting: reading one record's `usage` into per-field values, and the
//! per-file book that merges the copies of one API message. The rule (stats spec
//! §1): key = (model, message.id); per copy null/absent → 0; cache_creation is the
//! flat count if > 0 else the 5m+1h split (REC-098); a zeroed replay copy takes
//! its counts from `usage.iterations` (QT-041, REC-034); copies merge by per-field
//! MAX (REC-020, REC-034). Nothing here knows about files or printing.

use std::collections::{BTreeMap, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

pub(crate) const SYNTHETIC: &str = "<synthetic>";
pub(crate) const UNKNOWN_MODEL: &str = "(unknown)";

/// Per-field values of one message (or a sum of messages).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Vals {
    pub(crate) input: u64,
    pub(crate) output: u64,
    pub(crate) cache_read: u64,
    pub(crate) cache_creation: u64,
    #[serde(rename = "cache_creation_5m")]
    pub(crate) cc_5m: u64,
    #[serde(rename = "cache_creation_1h")]
    pub(crate) cc_1h: u64,
    /// A subset of `output`, never added to it (REC-099).
    pub(crate) thinking: u64,
    #[serde(rename = "web_search_requests")]
    pub(crate) web_search: u64,
    #[serde(rename = "web_fetch_requests")]
    pub(crate) web_fetch: u64,
}

impl Vals {
    fn fields(&mut self) -> [&mut u64; 9] {
        [
            &mut self.input,
            &mut self.output,
            &mut self.cache_read,
            &mut self.cache_creation,
            &mut self.cc_5m,
            &mut self.cc_1h,
            &mut self.thinking,
            &mut self.web_search,
            &mut self.web_fetch,
        ]
    }

    pub(crate) fn max(mut self, mut o: Vals) -> Vals {
        for (a, b) in self.fields().into_iter().zip(o.fields()) {
            *a = (*a).max(*b);
        }
        self
    }

    pub(crate) fn add(&mut self, mut o: Vals) {
        // Saturating: a corrupt count near u64::MAX must not wrap to a small one.
        for (a, b) in self.fields().into_iter().zip(o.fields()) {
            *a = a.saturating_add(*b);
        }
    }
}

/// A per-model row: deduplicated messages, the records they were written as, and
/// the summed values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Row {
    pub(crate) messages: u64,
    pub(crate) records: u64,
    #[serde(flatten)]
    pub(crate) vals: Vals,
}

impl Row {
    pub(crate) fn add(&mut self, o: &Row) {
        self.messages = self.messages.saturating_add(o.messages);
        self.records = self.records.saturating_add(o.records);
        self.vals.add(o.vals);
    }
}

#[derive(Deserialize, Default)]
struct Flat<'a> {
    #[serde(borrow, default)]
    input_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cache_read_input_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cache_creation_input_tokens: Option<&'a RawValue>,
}

impl Flat<'_> {
    fn four(&self) -> [u64; 4] {
        [
            num(self.input_tokens),
            num(self.output_tokens),
            num(self.cache_read_input_tokens),
            num(self.cache_creation_input_tokens),
        ]
    }
}

#[derive(Deserialize)]
struct Usage<'a> {
    #[serde(borrow, default)]
    input_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cache_read_input_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cache_creation_input_tokens: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cache_creation: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output_tokens_details: Option<&'a RawValue>,
    #[serde(borrow, default)]
    server_tool_use: Option<&'a RawValue>,
    #[serde(borrow, default)]
    iterations: Option<&'a RawValue>,
}

/// A JSON number as a count: null, absent, negative or non-numbers are 0.
fn num(raw: Option<&RawValue>) -> u64 {
    raw.map_or(0, |r| count(r.get()))
}

/// The count a raw JSON value's text stands for (0 unless a positive number).
fn count(text: &str) -> u64 {
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .map_or(0, |v| v as u64)
}

/// `obj.key` as a count when `raw` is an object, read by a skim of its fields
/// (a map per call was most of the token cost): the last of repeated keys, and
/// 0 when any key is escaped, as the map of borrowed keys this replaces gave.
fn sub(raw: Option<&RawValue>, key: &str) -> u64 {
    let Some(raw) = raw.filter(|r| r.get().starts_with('{')) else {
        return 0;
    };
    let mut found = None;
    for kv in crate::scan::json::Fields::new(raw.get().as_bytes(), 0) {
        let Ok((k, v)) = kv else { return 0 };
        if memchr::memchr(b'\\', k).is_some() {
            return 0;
        }
        if k == key.as_bytes() {
            found = Some(v);
        }
    }
    found
        .and_then(|v| std::str::from_utf8(v).ok())
        .map_or(0, count)
}

/// One copy's effective values, and whether a zeroed copy was recovered from
/// `usage.iterations`. `None` when `raw` is not a usage object.
pub(crate) fn copy_values(raw: &RawValue) -> Option<(Vals, bool)> {
    if !raw.get().starts_with('{') {
        return None;
    }
    let u: Usage<'_> = serde_json::from_str(raw.get()).ok()?;
    let [input, output, cache_read, cache_flat] = Flat {
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
    }
    .four();
    let cc_5m = sub(u.cache_creation, "ephemeral_5m_input_tokens");
    let cc_1h = sub(u.cache_creation, "ephemeral_1h_input_tokens");
    let mut v = Vals {
        input,
        output,
        cache_read,
        // REC-098: the harness's own rule, flat if > 0 else the nested split.
        cache_creation: if cache_flat > 0 {
            cache_flat
        } else {
            cc_5m.saturating_add(cc_1h)
        },
        cc_5m,
        cc_1h,
        thinking: sub(u.output_tokens_details, "thinking_tokens"),
        web_search: sub(u.server_tool_use, "web_search_requests"),
        web_fetch: sub(u.server_tool_use, "web_fetch_requests"),
    };
    let mut recovered = false;
    if [input, output, cache_read, cache_flat] == [0; 4] {
        // QT-041 / REC-034: a compaction replay zeroes the flat counts and keeps
        // the real ones in iterations[*].
        if let Some(its) = u
            .iterations
            .and_then(|r| serde_json::from_str::<Vec<Flat<'_>>>(r.get()).ok())
        {
            let mut s = [0u64; 4];
            for it in &its {
                for (a, b) in s.iter_mut().zip(it.four()) {
                    *a = a.saturating_add(b);
                }
            }
            if s != [0; 4] {
                [v.input, v.output, v.cache_read, v.cache_creation] = s;
                recovered = true;
            }
        }
    }
    Some((v, recovered))
}

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

/// The per-file book: keyed copies merged by MAX, id-less copies summed apart.
#[derive(Debug, Default)]
pub(crate) struct Book {
    /// `model \0 id` → entry.
    pub(crate) keyed: HashMap<String, Entry>,
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
        rows
    }

    /// This book's messages of `model` (all of them for `None`), for
    /// `--by model` ([`super::bymodel`]).
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
            notes: self.notes,
            progress_ids: self.progress_ids.clone(),
            key: String::new(),
        }
    }

    pub(crate) fn differing(&self) -> u64 {
        self.keyed.values().filter(|e| e.differs).count() as u64
    }
}

/// A stable 64-bit hash of a key, for the cross-file dedupe set.
pub(crate) fn key_hash(key: &str) -> u64 {
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_string()).unwrap()
    }

    fn vals(s: &str) -> (Vals, bool) {
        copy_values(&raw(s)).unwrap()
    }

    #[test]
    fn cache_creation_flat_else_split_rec_098() {
        let (v, _) = vals(
            r#"{"input_tokens":1,"cache_creation_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_1h_input_tokens":4}}"#,
        );
        assert_eq!(v.cache_creation, 7);
        let (v, _) = vals(
            r#"{"cache_creation_input_tokens":10,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_1h_input_tokens":4}}"#,
        );
        assert_eq!((v.cache_creation, v.cc_5m, v.cc_1h), (10, 3, 4));
    }

    /// The sub-object skim answers as the map it replaced: the last of repeated
    /// keys, 0 for a non-number, and 0 for every key when one key is escaped.
    #[test]
    fn sub_object_counts_read_as_a_map_would() {
        let (v, _) = vals(
            r#"{"output_tokens":9,"output_tokens_details":{"thinking_tokens":2,"thinking_tokens":5},"server_tool_use":{"web_search_requests":"3","web_fetch_requests":1.0}}"#,
        );
        assert_eq!((v.thinking, v.web_search, v.web_fetch), (5, 0, 1));
        let (v, _) = vals(
            r#"{"output_tokens":9,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_\u0031h_input_tokens":4}}"#,
        );
        assert_eq!((v.cc_5m, v.cc_1h, v.cache_creation), (0, 0, 0));
        let m: HashMap<&str, &RawValue> = serde_json::from_str(r#"{"a":1,"a":2}"#).unwrap();
        assert_eq!(m["a"].get(), "2", "the map keeps the last copy");
    }

    #[test]
    fn nulls_and_junk_are_zero_qt_036_qt_037() {
        let (v, r) = vals(
            r#"{"input_tokens":null,"output_tokens":"7","cache_read_input_tokens":-3,"output_tokens_details":null}"#,
        );
        assert_eq!(v, Vals::default());
        assert!(!r);
        let (v, _) = vals(r#"{"output_tokens":50,"output_tokens_details":{"thinking_tokens":20}}"#);
        assert_eq!((v.output, v.thinking), (50, 20), "thinking is a subset");
    }

    #[test]
    fn zeroed_replay_recovered_from_iterations_qt_041() {
        let (v, r) = vals(
            r#"{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"iterations":[{"input_tokens":5,"output_tokens":900,"cache_read_input_tokens":1000,"cache_creation_input_tokens":30}]}"#,
        );
        assert!(r);
        assert_eq!(
            (v.input, v.output, v.cache_read, v.cache_creation),
            (5, 900, 1000, 30)
        );
        // A non-zero copy keeps its own counts even with iterations.
        let (v, r) = vals(r#"{"output_tokens":4,"iterations":[{"output_tokens":900}]}"#);
        assert!(!r);
        assert_eq!(v.output, 4);
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
