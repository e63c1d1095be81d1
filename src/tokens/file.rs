//! The usage census of one transcript, the unit `usage` and `statusline` fold
//! and the census cache keeps: every usage copy of the file under its key's
//! hash, merged by per-field MAX with the earliest timestamp among its copies;
//! copies nested in `agent_progress` records (a subagent's calls, the only
//! copy when its lane file is absent) admitted beside top-level ones and
//! marked so; the eaten-text tally of the file's assistant records.
//!
//! Only lines holding the bytes `"assistant"` are parsed: every usage-bearing
//! record is `type:"assistant"` (REC-021), top-level or nested. A line is read
//! as `stats` reads it (`parse_line`, each record of a glued line by its own
//! fields), so both count the same top-level messages.

use std::collections::HashMap;

use jiff::Timestamp;
use serde_json::value::RawValue;

use super::copy::copy_values;
use super::ledger::{Msg, NESTED, TOP};
use super::UNKNOWN_MODEL;
use crate::cache::{Census, Dec, Enc, Pos};
use crate::loss::eaten::Tally;
use crate::record::{parse_line, Content, MalformedKind, Parsed, Record};
use crate::scan::{Line, Lines};
use crate::timefmt::parse_ts;

/// Files above this are scanned in parallel line-aligned chunks.
const CHUNK: usize = 8 << 20;

/// What a file's census discloses beside its messages.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileNotes {
    /// Usage copies admitted, and of them, those nested in agent_progress.
    pub(crate) copies: u64,
    pub(crate) nested_copies: u64,
    /// Zeroed compaction-replay copies read from `usage.iterations` (QT-041).
    pub(crate) zeroed_recovered: u64,
    /// Copies without a message id: each its own message.
    pub(crate) idless: u64,
    /// Assistant records with a message but no usage object.
    pub(crate) without_usage: u64,
    /// Lines naming `"assistant"` that are no record (not glued records).
    pub(crate) unreadable_lines: u64,
}

impl FileNotes {
    fn fields(&mut self) -> [&mut u64; 6] {
        [
            &mut self.copies,
            &mut self.nested_copies,
            &mut self.zeroed_recovered,
            &mut self.idless,
            &mut self.without_usage,
            &mut self.unreadable_lines,
        ]
    }

    pub(crate) fn add(&mut self, mut o: FileNotes) {
        for (a, b) in self.fields().into_iter().zip(o.fields()) {
            *a = a.saturating_add(*b);
        }
    }
}

/// The usage census of one file (or of a run of its lines).
#[derive(Debug, Default, Clone)]
pub(crate) struct FileBook {
    /// Models by index (a message's `model`).
    pub(crate) models: Vec<String>,
    model_idx: HashMap<String, u32>,
    /// Keyed messages being counted: `key_hash(model \0 id)` → the message.
    keyed: HashMap<u64, Msg>,
    /// Keyed messages read back from the cache, sorted by key (as encoded):
    /// no map is built unless the book changes.
    sorted: Vec<(u64, Msg)>,
    /// Copies without an id, each its own message, in file order.
    pub(crate) idless: Vec<Msg>,
    pub(crate) notes: FileNotes,
    pub(crate) eaten: Tally,
    /// Scratch for building a key.
    key: String,
}

impl FileBook {
    fn model(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.model_idx.get(name) {
            return i;
        }
        let i = self.models.len() as u32;
        self.models.push(name.to_string());
        self.model_idx.insert(name.to_string(), i);
        i
    }

    /// Admit one usage copy.
    fn admit(
        &mut self,
        model: Option<&str>,
        id: Option<&str>,
        usage: Option<&RawValue>,
        at: Option<Timestamp>,
        seen: u8,
    ) {
        let Some((vals, recovered)) = usage.and_then(copy_values) else {
            self.notes.without_usage += u64::from(seen == TOP);
            return;
        };
        self.notes.copies += 1;
        self.notes.nested_copies += u64::from(seen == NESTED);
        self.notes.zeroed_recovered += u64::from(recovered);
        let name = model.unwrap_or(UNKNOWN_MODEL);
        let m = Msg::new(self.model(name), vals, at, seen);
        let Some(id) = id.filter(|i| !i.is_empty()) else {
            self.notes.idless += 1;
            self.idless.push(m);
            return;
        };
        self.unsort();
        let mut key = std::mem::take(&mut self.key);
        key.clear();
        key.extend([name, "\0", id]);
        self.keyed
            .entry(super::key_hash(&key))
            .and_modify(|p| p.merge_copy(&m))
            .or_insert(m);
        self.key = key;
    }

    /// One record of the file.
    fn record(&mut self, r: &Record<'_>) {
        match r.kind() {
            "assistant" if r.has_message() => {
                let at = r.timestamp.as_deref().and_then(parse_ts);
                let usage = r.message.as_ref().and_then(|m| m.usage);
                self.admit(r.model(), r.message_id(), usage, at, TOP);
                self.eaten_record(r);
            }
            "progress" => {
                let Some(e) = r.embedded() else { return };
                let n = &e.record;
                if n.kind() != "assistant" || !n.has_message() {
                    return;
                }
                // The nested record's own time; the envelope's when it has none.
                let at = n
                    .timestamp
                    .as_deref()
                    .or(r.timestamp.as_deref())
                    .and_then(parse_ts);
                let usage = n.message.as_ref().and_then(|m| m.usage);
                self.admit(n.model(), n.message_id(), usage, at, NESTED);
            }
            _ => {}
        }
    }

    /// The eaten-text rule's view of an assistant record (audit's group form).
    fn eaten_record(&mut self, r: &Record<'_>) {
        let Some(mid) = r.message_id().filter(|m| !m.is_empty()) else {
            return;
        };
        let Some(Content::Blocks(blocks)) = r.content() else {
            return;
        };
        let thinking = blocks.iter().any(|b| b.kind() == "thinking");
        let text = blocks.iter().any(|b| b.kind() == "text");
        self.eaten
            .record(r.is_sidechain(), mid, r.uuid.as_deref(), thinking, text);
    }

    fn scan_lines(buf: &[u8]) -> FileBook {
        let mut b = FileBook::default();
        let finder = crate::scan::lit!(b"\"assistant\"");
        for line in Lines::new(buf) {
            if finder.find(line.bytes).is_none() {
                continue;
            }
            b.line(&line);
        }
        b
    }

    fn line(&mut self, line: &Line<'_>) {
        match parse_line(line) {
            Parsed::Record(r) => self.record(&r),
            Parsed::Malformed(m) if m.kind == MalformedKind::Glued => {
                for (_, r) in crate::record::glued_parsed(line) {
                    self.record(&r);
                }
            }
            Parsed::Malformed(_) => self.notes.unreadable_lines += 1,
        }
    }

    /// Move messages read from the cache into the map, to change them.
    fn unsort(&mut self) {
        if !self.sorted.is_empty() {
            self.keyed.reserve(self.sorted.len());
            self.keyed.extend(self.sorted.drain(..));
        }
    }

    /// The keyed messages sorted by key, taken out of the book.
    pub(crate) fn take_keyed(&mut self) -> Vec<(u64, Msg)> {
        let mut v = std::mem::take(&mut self.sorted);
        if !self.keyed.is_empty() {
            v.extend(self.keyed.drain());
            v.sort_unstable_by_key(|x| x.0);
        }
        v
    }

    /// Keyed messages sorted by key, then the id-less ones.
    pub(crate) fn messages(&self) -> impl Iterator<Item = (Option<u64>, &Msg)> {
        let mut keys: Vec<&u64> = self.keyed.keys().collect();
        keys.sort_unstable();
        self.sorted
            .iter()
            .map(|(k, m)| (Some(*k), m))
            .chain(keys.into_iter().map(|k| (Some(*k), &self.keyed[k])))
            .chain(self.idless.iter().map(|m| (None, m)))
    }
}

impl Census for FileBook {
    const KIND: &'static str = "usage";
    const VERSION: u32 = 1;
    type Ctx = ();

    fn scan(buf: &[u8], _at: Pos, _: &()) -> FileBook {
        if buf.len() <= CHUNK {
            return FileBook::scan_lines(buf);
        }
        let cuts = crate::scan::cuts(buf, CHUNK);
        let parts = crate::scan::par_map(&cuts, |&(a, b)| FileBook::scan_lines(&buf[a..b]));
        let mut it = parts.into_iter();
        let mut book = it.next().unwrap_or_default();
        for p in it {
            book.extend(p);
        }
        book
    }

    fn extend(&mut self, mut later: FileBook) {
        self.unsort();
        later.unsort();
        let map: Vec<u32> = later.models.iter().map(|m| self.model(m)).collect();
        let remap = |mut m: Msg| {
            m.model = map.get(m.model as usize).copied().unwrap_or(0);
            m
        };
        for (k, m) in later.keyed {
            let m = remap(m);
            self.keyed
                .entry(k)
                .and_modify(|p| p.merge_copy(&m))
                .or_insert(m);
        }
        self.idless.extend(later.idless.into_iter().map(remap));
        self.notes.add(later.notes);
        self.eaten.extend(later.eaten);
    }

    fn encode(&self, e: &mut Enc) {
        e.u64(self.models.len() as u64);
        for m in &self.models {
            e.str(m);
        }
        let keyed: Vec<_> = self.messages().filter(|(k, _)| k.is_some()).collect();
        e.u64(keyed.len() as u64);
        for (k, m) in keyed {
            e.u64(k.unwrap_or(0));
            m.encode(e);
        }
        e.u64(self.idless.len() as u64);
        for m in &self.idless {
            m.encode(e);
        }
        let mut n = self.notes;
        for x in n.fields() {
            e.u64(*x);
        }
        self.eaten.encode(e);
    }

    fn decode(d: &mut Dec<'_>) -> Option<FileBook> {
        let mut b = FileBook::default();
        for _ in 0..d.len(8)? {
            let name = d.str()?.to_string();
            if b.model_idx.contains_key(&name) {
                return None;
            }
            b.model(&name);
        }
        let n = b.models.len();
        let n_keyed = d.len(90)?;
        b.sorted.reserve(n_keyed);
        for _ in 0..n_keyed {
            let k = d.u64()?;
            let m = Msg::decode(d, n)?;
            // Written sorted and once each: anything else is no entry of ours.
            if b.sorted.last().is_some_and(|(p, _)| *p >= k) {
                return None;
            }
            b.sorted.push((k, m));
        }
        for _ in 0..d.len(82)? {
            b.idless.push(Msg::decode(d, n)?);
        }
        for x in b.notes.fields() {
            *x = d.u64()?;
        }
        b.eaten = Tally::decode(d)?;
        Some(b)
    }
}

#[cfg(test)]
mod tests;
